//! One module per command: a validated config in, the work done here.

pub mod wal;
