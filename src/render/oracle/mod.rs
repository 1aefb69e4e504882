//! Oracle blocks rendered: tables, JSON, Oracle's own block dump text, trace
//! titles and text-only trace blocks, and the DBVERIFY-style report.

pub(crate) mod dump;
pub(crate) mod json;
pub(crate) mod space;
pub(crate) mod table;
pub(crate) mod trace;
pub(crate) mod verify;
