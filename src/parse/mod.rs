//! Per-engine parsers: bytes in, model structures plus problems out.

pub mod oracle;
pub mod postgres;

/// Moved to [`crate::model::bits`]; kept at its old path for code not yet updated.
pub use crate::model::bits;
