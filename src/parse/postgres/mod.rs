//! PostgreSQL page parsers.

mod acl;
pub(crate) mod amcheck;
pub(crate) mod attrs;
pub(crate) mod btree;
pub(crate) mod carve;
pub(crate) mod catalog;
pub(crate) mod check;
pub(crate) mod checksum;
pub(crate) mod clog;
mod contrib;
pub(crate) mod control;
pub(crate) mod datum;
pub(crate) mod figures;
pub(crate) mod float;
mod geo;
pub(crate) mod heap;
pub(crate) mod index;
pub(crate) mod infer;
mod isn;
mod isn_ranges;
pub(crate) mod itup;
pub(crate) mod jsonb;
mod jsonpath;
pub(crate) mod kinds;
pub(crate) mod layout;
pub(crate) mod page;
pub(crate) mod pglz;
pub(crate) mod regnames;
pub(crate) mod relmap;
pub(crate) mod schema;
pub(crate) mod special;
pub(crate) mod toast;
pub(crate) mod toast_page;
mod tsearch;
pub(crate) mod values;
pub(crate) mod visibility;
pub(crate) mod wal;
pub(crate) mod walcarve;

#[cfg(test)]
mod proptests;

pub use check::check_page;
pub(crate) use check::{check_page_in, Relation};
pub use kinds::{decode_page, detect_kind};
pub use page::{
    detect_endian, page_size_from_header, parse_page, parse_page_without_spans, PageOptions,
};
