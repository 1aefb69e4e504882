//! `decode`'s output: each explained word as text (every bit by name) or
//! as a JSON document carrying the schema version.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::decode::{DecodedWord, Explained, ExplainedJson};

use super::versions;
use super::write::write_pretty;

/// The explained words: one JSON document (a list of them when there are
/// several), or the text of each in turn.
pub(crate) fn write(out: &mut dyn Write, explained: &[Explained], json: bool) -> io::Result<()> {
    /// The JSON document: the schema, then the word's keys.
    #[derive(Serialize)]
    struct Versioned<'a, T> {
        schema: u32,
        #[serde(flatten)]
        word: &'a T,
    }
    fn versioned<T>(word: &T) -> Versioned<'_, T> {
        Versioned {
            schema: versions::DECODE,
            word,
        }
    }
    match (explained, json) {
        ([one], true) => write_pretty(out, &versioned(&one.json())),
        (all, true) => {
            let list: Vec<ExplainedJson> = all.iter().map(Explained::json).collect();
            let list: Vec<Versioned<ExplainedJson>> = list.iter().map(versioned).collect();
            write_pretty(out, &list)
        }
        (all, false) => all.iter().try_for_each(|e| write_text(out, e)),
    }
}

/// One explained word as text.
fn write_text(out: &mut dyn Write, e: &Explained) -> io::Result<()> {
    match e {
        Explained::Postgres(d) => write_decoded(out, d),
        Explained::Oracle(t, _) => out.write_all(t.as_bytes()),
    }
}

fn write_decoded(out: &mut dyn Write, d: &DecodedWord) -> io::Result<()> {
    writeln!(out, "{} {} ({})", d.word, d.value, d.hex)?;
    if let (Some(off), Some(code), Some(name), Some(len)) =
        (d.lp_off, d.lp_flags, d.lp_flags_name, d.lp_len)
    {
        writeln!(out, "  lp_off    {off:>5}  bits 0-14")?;
        writeln!(out, "  lp_flags  {code:>5}  bits 15-16  {name}")?;
        writeln!(out, "  lp_len    {len:>5}  bits 17-31")?;
        if name == "LP_REDIRECT" {
            writeln!(out, "  redirect to line pointer {off}")?;
        }
        return Ok(());
    }
    if let Some(natts) = d.natts {
        writeln!(out, "  natts {natts:>5}  (low 11 bits, HEAP_NATTS_MASK)")?;
    }
    let name_width = d.flags.iter().map(|f| f.name.len()).max().unwrap_or(0);
    for f in &d.flags {
        writeln!(out, "  {}  {:<name_width$}  {}", f.mask, f.name, f.meaning)?;
    }
    if d.flags.is_empty() {
        writeln!(out, "  no flag bits set")?;
    }
    if let Some(combined) = &d.combined_flags {
        if !combined.is_empty() {
            let names: Vec<&str> = combined.iter().map(|f| f.name).collect();
            writeln!(out, "  combined: {}", names.join(", "))?;
        }
    }
    if d.unknown_bits != "0x0000" {
        writeln!(
            out,
            "  unknown bits: {} (no {} flag has them)",
            d.unknown_bits, d.word
        )?;
    }
    Ok(())
}
