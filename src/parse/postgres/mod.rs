//! PostgreSQL page parsers.

pub mod checksum;
pub mod control;
pub mod flags;
pub mod heap;
pub mod page;

pub use page::{
    check_page, detect_kind, parse_page, parse_page_without_spans, CheckedPage, PageOptions,
};
