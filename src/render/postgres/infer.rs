//! `infer`'s proposal as text (the column list, then a line per attribute)
//! and as JSON.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::postgres::infer::Proposal;
use crate::render::versions::INFER;

/// Candidates shown per attribute in text (JSON has them all).
const TEXT_CANDIDATES: usize = 3;

/// The proposal for `file` as text: the `--columns` list on the first line
/// (so `head -1` gives it), then the evidence.
pub(crate) fn text(out: &mut dyn Write, file: &str, p: &Proposal) -> io::Result<()> {
    writeln!(out, "{}", p.columns)?;
    writeln!(
        out,
        "# {file}: {} of {} pages read, {} tuples, {} attributes; the list splits {} of {} tuples",
        p.pages_sampled, p.pages, p.tuples, p.natts, p.tuples_fitting, p.tuples
    )?;
    for a in &p.attributes {
        let mut counts = format!("{} values", a.values);
        for (n, what) in [
            (a.nulls, "null"),
            (a.missing, "missing"),
            (a.external, "in TOAST"),
            (a.compressed, "compressed"),
        ] {
            if n > 0 {
                counts.push_str(&format!(", {n} {what}"));
            }
        }
        writeln!(
            out,
            "# {:>3} {:<14} attlen {:>2} attalign {}  {counts}",
            a.attnum, a.item, a.attlen, a.attalign
        )?;
        for c in a.candidates.iter().take(TEXT_CANDIDATES) {
            writeln!(
                out,
                "#       {:<14} {:.2}  {}",
                c.type_name, c.confidence, c.why
            )?;
        }
    }
    for note in &p.notes {
        writeln!(out, "# note: {note}")?;
    }
    Ok(())
}

/// The proposal for `file` as one JSON document.
pub(crate) fn json(out: &mut dyn Write, file: &str, p: &Proposal) -> io::Result<()> {
    #[derive(Serialize)]
    struct Document<'a> {
        schema: u32,
        file: &'a str,
        #[serde(flatten)]
        proposal: &'a Proposal,
    }
    crate::render::write::write_pretty(
        out,
        &Document {
            schema: INFER,
            file,
            proposal: p,
        },
    )
}
