//! Per-engine parsers: bytes in, model structures plus problems out.

pub mod postgres;
