//! PostgreSQL pages rendered: tables, pageinspect-named JSON, NDJSON lines
//! written by hand, and verify's pg_checksums-style report.

pub(crate) mod attr;
pub(crate) mod cluster;
pub(crate) mod index;
pub(crate) mod infer;
pub(crate) mod json;
pub(crate) mod ndjson;
pub(crate) mod table;
pub(crate) mod verify;
pub(crate) mod wal;
mod wal_data;
pub(crate) mod wal_desc;
mod wal_desc_index;
