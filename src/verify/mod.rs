//! `verify`: every block of every input checked, problems reported in order,
//! totals summarised — one room per engine, one [`Report`] trait for all.
//!
//! * [`postgres`]: relation files and data directories, checksums and page
//!   structure, in parallel windows with bounded memory;
//! * [`oracle`]: datafiles and block-dump traces, tallied as DBVERIFY does;
//! * [`deep`]: `--deep`, amcheck's cross-page checks over one relation;
//! * [`report`]: where the findings go, for every engine;
//! * [`files`]: what every room does with a file (open errors, size,
//!   digest, names as printed).
//!
//! Which room an input goes to is decided above this module, by the
//! commands' engine choice; nothing here knows the other rooms' engines.

pub(crate) mod deep;
pub(crate) mod files;
pub(crate) mod oracle;
pub(crate) mod postgres;
pub(crate) mod report;

pub(crate) use files::{file_name, rfc3339_utc};
pub use postgres::{run, ChecksumMode, VerifyOptions};
pub use report::Report;
