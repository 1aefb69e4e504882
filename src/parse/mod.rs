//! Per-engine parsers: bytes in, model structures plus problems out.

pub(crate) mod decode;
pub(crate) mod oracle;
pub(crate) mod postgres;
