//! PostgreSQL page parsers.

pub mod checksum;
pub mod flags;
pub mod heap;
pub mod page;

pub use page::{check_page, detect_kind, parse_page, CheckedPage, PageOptions};
