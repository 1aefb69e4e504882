//! `map --format json` and `ndjson`: the blocks streamed as they come, then
//! the summary. The document is byte for byte what serde_json's pretty
//! printer writes for `{"schema": N, "blocks": [...], "summary": {...}}`.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::map::MapSummary;
use crate::render::versions;
use crate::render::write::{write_line, write_pretty_at, ArrayWriter};

/// `{`, the schema and the opening of the `blocks` array.
pub(super) fn open(out: &mut dyn Write) -> io::Result<ArrayWriter> {
    write!(out, "{{\n  \"schema\": {},\n  \"blocks\": ", versions::MAP)?;
    ArrayWriter::open(out, 1)
}

/// The end of the `blocks` array, the summary, `}`.
pub(super) fn close(
    out: &mut dyn Write,
    array: ArrayWriter,
    summary: &MapSummary,
) -> io::Result<()> {
    array.close(out)?;
    out.write_all(b",\n  \"summary\": ")?;
    write_pretty_at(out, summary, 1)?;
    out.write_all(b"\n}\n")
}

/// NDJSON's last line: `{"schema": N, "summary": {...}}`.
pub(super) fn summary_line(out: &mut dyn Write, summary: &MapSummary) -> io::Result<()> {
    #[derive(Serialize)]
    struct Line<'a> {
        schema: u32,
        summary: &'a MapSummary,
    }
    write_line(
        out,
        &Line {
            schema: versions::MAP,
            summary,
        },
    )
}
