//! The shape of verify's reports, shared by both engines (docs/json.md,
//! "verify"): `{"schema": 7, "engine": …, "problems": […], "summary":
//! {"clean": …, …}}`, streamed; NDJSON writes the problems one a line, then
//! `{"schema", "engine", "summary"}`.

use std::io::{self, Write};

use serde::Serialize;

use super::write::{write_pretty_at, ArrayWriter};

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
/// both engines one document (before, Oracle wrote one per file); 3 moved
/// `summary` after `problems`, so that the problems can be streamed; 4 added
/// PostgreSQL's `summary.provenance` (with `--evidence`); 5 added
/// PostgreSQL's `summary.free_space_map_drift` (with `--deep`); 6 added
/// problems of class `lost-write` with their `wal`, and PostgreSQL's
/// `summary.wal` (when WAL was read); 7 added PostgreSQL problems'
/// `relation` (the relation a file of a data directory belongs to, when its
/// catalogs name it).
pub(crate) const SCHEMA: u32 = 7;

/// The last NDJSON line: the run's summary.
#[derive(Serialize)]
pub(crate) struct SummaryLine<S> {
    pub schema: u32,
    /// The engine's name as JSON gives it (`postgres`, `oracle`): each
    /// engine's report says its own, so nothing here knows the engines.
    pub engine: &'static str,
    pub summary: S,
}

/// The one JSON document of a run, for either engine, written as the run
/// goes: `{"schema", "engine", "problems": [` at the first problem (or at
/// the end), each problem as it comes, then `], "summary": …}` — the bytes
/// serde_json's pretty printer writes for the whole document, without
/// holding the problems.
#[derive(Debug)]
pub(crate) struct DocumentWriter {
    /// The engine's name, as in [`SummaryLine::engine`].
    engine: &'static str,
    problems: Option<ArrayWriter>,
}

impl DocumentWriter {
    pub(crate) fn new(engine: &'static str) -> Self {
        DocumentWriter {
            engine,
            problems: None,
        }
    }

    fn open(&mut self, out: &mut dyn Write) -> io::Result<&mut ArrayWriter> {
        if self.problems.is_none() {
            let engine = serde_json::to_string(&self.engine).map_err(io::Error::from)?;
            write!(
                out,
                "{{\n  \"schema\": {SCHEMA},\n  \"engine\": {engine},\n  \"problems\": "
            )?;
            self.problems = Some(ArrayWriter::open(out, 1)?);
        }
        Ok(self.problems.as_mut().expect("opened above"))
    }

    /// One problem, written now.
    pub(crate) fn problem<P: Serialize>(&mut self, out: &mut dyn Write, p: &P) -> io::Result<()> {
        self.open(out)?.push(out, p)
    }

    /// The end of the problems, the summary and the end of the document.
    pub(crate) fn finish<S: Serialize>(
        mut self,
        out: &mut dyn Write,
        summary: &S,
    ) -> io::Result<()> {
        self.open(out)?;
        if let Some(problems) = self.problems.take() {
            problems.close(out)?;
        }
        out.write_all(b",\n  \"summary\": ")?;
        write_pretty_at(out, summary, 1)?;
        out.write_all(b"\n}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Document<'a> {
        schema: u32,
        engine: &'static str,
        problems: &'a [serde_json::Value],
        summary: serde_json::Value,
    }

    /// The streamed document is the bytes serde_json writes for all of it.
    #[test]
    fn streamed_document_matches_serde_json() {
        let summary = serde_json::json!({"clean": false, "per_file": [{"a": [1, 2]}], "e": {}});
        for n in 0..3 {
            let problems: Vec<serde_json::Value> = (0..n)
                .map(|i| serde_json::json!({"file": "f", "blkno": i, "list": [], "o": {"x": null}}))
                .collect();
            let mut streamed = Vec::new();
            let mut doc = DocumentWriter::new("oracle");
            for p in &problems {
                doc.problem(&mut streamed, p).unwrap();
            }
            doc.finish(&mut streamed, &summary).unwrap();
            let mut whole = serde_json::to_string_pretty(&Document {
                schema: SCHEMA,
                engine: "oracle",
                problems: &problems,
                summary: summary.clone(),
            })
            .unwrap();
            whole.push('\n');
            assert_eq!(String::from_utf8(streamed).unwrap(), whole);
        }
    }
}
