//! PostgreSQL page parsers.

pub mod checksum;
pub mod flags;
pub mod heap;
pub mod page;

pub use page::{detect_kind, parse_page, PageOptions};
