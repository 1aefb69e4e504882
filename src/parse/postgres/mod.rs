//! PostgreSQL page parsers.

pub mod btree;
pub mod checksum;
pub mod flags;
pub mod heap;
pub mod page;
pub mod schema;
pub mod special;

pub use page::{detect_kind, parse_page, PageOptions};
