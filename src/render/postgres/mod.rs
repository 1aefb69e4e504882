//! PostgreSQL pages rendered: tables, pageinspect-named JSON, NDJSON lines
//! written by hand, and verify's pg_checksums-style report.

pub mod json;
pub mod ndjson;
pub mod table;
pub mod verify;
