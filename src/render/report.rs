//! The shape of verify's reports, shared by both engines (docs/json.md,
//! "verify"): `{"schema": 2, "engine": …, "summary": {"clean": …, …},
//! "problems": […]}`; NDJSON writes the problems one a line, then
//! `{"schema", "engine", "summary"}`.

use serde::Serialize;

use crate::engine::Engine;

/// Output formats of `verify`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyFormat {
    /// Human-readable lines.
    Text,
    /// One JSON document for the whole run.
    Json,
    /// One JSON object a line, per file and block.
    Ndjson,
}

/// Version of verify's JSON shape: 2 added `schema` and `engine` and gave
/// both engines one document (before, Oracle wrote one per file).
pub(crate) const SCHEMA: u32 = 2;

/// The last NDJSON line: the run's summary.
#[derive(Serialize)]
pub(crate) struct SummaryLine<S> {
    pub schema: u32,
    pub engine: Engine,
    pub summary: S,
}

/// The one JSON document of a run, for either engine.
#[derive(Serialize)]
pub(crate) struct Document<'a, S, P> {
    pub schema: u32,
    pub engine: Engine,
    pub summary: S,
    pub problems: &'a [P],
}
