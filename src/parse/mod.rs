//! Per-engine parsers: bytes in, model structures plus problems out.

pub mod oracle;
pub mod postgres;
