//! A failed read as a problem: the leaf every Oracle block-layer parser uses.

use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::ReadError;

/// A read that ran off the block, as a problem of `class`.
pub(crate) fn read_problem(class: ProblemClass, e: &ReadError, what: &str) -> Problem {
    Problem::new(
        Severity::Error,
        class,
        Some(e.offset),
        e.field.clone(),
        format!("{what}: {e}"),
    )
}
