//! PostgreSQL page parsers.

pub mod attrs;
pub mod btree;
pub mod check;
pub mod checksum;
pub mod control;
mod datum;
pub mod heap;
pub mod jsonb;
pub mod page;
pub mod pglz;
pub mod schema;
pub mod special;
pub mod toast;
pub mod toast_page;
pub mod values;

#[cfg(test)]
mod proptests;

pub use check::{check_page, check_page_in, Relation};
pub use page::{
    detect_kind, page_size_from_header, parse_page, parse_page_without_spans, PageOptions,
};
