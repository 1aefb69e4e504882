//! `verify`: every block of every input checked, problems reported in order,
//! totals summarised — one room per engine.
//!
//! * [`postgres`]: relation files and data directories, checksums and page
//!   structure, in parallel windows with bounded memory;
//! * [`oracle`]: datafiles and block-dump traces, tallied as DBVERIFY does.
//!
//! Which room an input goes to is decided by [`crate::engine`].

pub mod oracle;
pub mod postgres;

pub use postgres::{run, ChecksumMode, Report, VerifyOptions};
