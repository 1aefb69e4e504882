//! The commands: one module per command, each taking a validated, typed
//! config and doing the work through the engine seam ([`crate::engine`]).

pub(crate) mod carve;
