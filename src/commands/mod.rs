//! One module per command: a validated config and an output in, the work
//! done here.

pub mod infer;
