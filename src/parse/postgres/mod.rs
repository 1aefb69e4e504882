//! PostgreSQL page parsers.

pub mod attrs;
pub mod btree;
pub mod checksum;
pub mod flags;
pub mod heap;
pub mod jsonb;
pub mod page;
pub mod pglz;
pub mod schema;
pub mod special;
pub mod toast;
pub mod values;

pub use page::{detect_kind, parse_page, PageOptions};
