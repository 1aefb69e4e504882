//! Oracle blocks rendered: tables, JSON, Oracle's own block dump text, trace
//! titles and text-only trace blocks, and the DBVERIFY-style report.

pub mod dump;
pub mod json;
pub mod table;
pub mod trace;
pub mod verify;
