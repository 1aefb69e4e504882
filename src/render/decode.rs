//! `decode`'s output: each explained word as text (every bit by name) or
//! as a JSON document carrying the schema version.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::decode::{DecodedWord, Explained, ExplainedJson, OracleWord};
use crate::model::oracle::{names, Rdba};

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
        Explained::Oracle(w) => write_oracle(out, w),
    }
}

/// An Oracle word or value as text: its value, then each field or flag.
fn write_oracle(out: &mut dyn Write, w: &OracleWord) -> io::Result<()> {
    match w {
        OracleWord::Rdba {
            value: v,
            smallfile,
            ..
        } => {
            let (file, block) = (smallfile.file, smallfile.block);
            writeln!(out, "rdba 0x{v:08x} ({v})")?;
            writeln!(
                out,
                "  smallfile  file {file:>4}  block {block:>10}  (file: bits 22-31, block: bits 0-21)"
            )?;
            writeln!(
                out,
                "  bigfile    file 1024  block {v:>10}  (block: all 32 bits)"
            )?;
            if file == 0 {
                let (shown_file, shown_block) = Rdba(*v).split(false);
                writeln!(
                    out,
                    "  no smallfile has file 0: Oracle prints it as bigfile ({shown_file}/{shown_block})"
                )
            } else {
                writeln!(
                    out,
                    "  Oracle prints ({file}/{block}), or (1024/{v}) in a bigfile tablespace"
                )
            }
        }
        OracleWord::Fb {
            value: v,
            hex,
            fb,
            flags,
            ..
        } => {
            writeln!(out, "fb {hex} {fb}")?;
            for f in flags {
                let letter = f.letter.as_deref().unwrap_or("");
                writeln!(out, "  {}  {letter}  {}  {}", f.mask, f.name, f.meaning)?;
            }
            if *v == 0 {
                writeln!(out, "  no flag bits set")?;
            }
            if v & 0x10 == 0 && v & 0x20 != 0 && v & 0x0c == 0x0c {
                writeln!(out, "  a whole row in one piece")?;
            }
            Ok(())
        }
        OracleWord::Flg {
            value: v,
            hex,
            flags,
            unknown_bits,
            ..
        } => {
            writeln!(out, "flg_kcbh {hex}")?;
            let width = flags.iter().map(|f| f.name.len()).max().unwrap_or(0);
            for f in flags {
                writeln!(out, "  {}  {:<width$}  {}", f.mask, f.name, f.meaning)?;
            }
            if *v == 0 {
                writeln!(out, "  no flag bits set (check value not in use)")?;
            }
            if names::kcbh_flag_names(*v).1 != 0 {
                writeln!(
                    out,
                    "  unknown bits: {unknown_bits} (no cache header flag has them)"
                )?;
            }
            Ok(())
        }
        OracleWord::ItlFlag {
            hex,
            flag,
            lck,
            flags,
            ..
        } => {
            writeln!(out, "ktbitflg {hex} {flag}  lck {lck}")?;
            for f in flags {
                let letter = f.letter.as_deref().unwrap_or("");
                writeln!(out, "  {}  {letter}  {:<7}  {}", f.mask, f.name, f.meaning)?;
            }
            writeln!(
                out,
                "  lock count {lck} (low 12 bits): rows locked through this ITL"
            )
        }
        OracleWord::Number {
            first,
            bytes,
            value,
            negative,
            exponent,
            digits,
            ..
        } => {
            writeln!(out, "NUMBER {bytes} = {value}")?;
            if !digits.is_empty() {
                if let Some(first) = first {
                    writeln!(
                        out,
                        "  exponent byte 0x{first:02x}: {}, first digit × 100^{exponent}",
                        if *negative { "negative" } else { "positive" },
                    )?;
                }
                let digits: Vec<String> = digits.iter().map(|d| d.to_string()).collect();
                writeln!(out, "  base-100 digits: {}", digits.join(" "))?;
            }
            Ok(())
        }
        OracleWord::Date { word, bytes, value } => writeln!(
            out,
            "{word} {bytes} = {value}\n  century+100, year+100, month, day, hour+1, minute+1, \
             second+1{}",
            if *word == "TIMESTAMP" {
                ", nanoseconds (big-endian)"
            } else {
                ""
            }
        ),
        OracleWord::Rowid {
            rowid,
            format,
            data_object_id,
            relative_file,
            block,
            row,
            ..
        } => {
            writeln!(out, "rowid {rowid} ({format})")?;
            if let Some(o) = data_object_id {
                writeln!(out, "  data object id  {o}")?;
            }
            writeln!(out, "  relative file   {relative_file}")?;
            writeln!(out, "  block           {block}")?;
            writeln!(out, "  row             {row}")
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::decode::FileBlock;

    /// The text is built here from the word's fields (parse formats none).
    #[test]
    fn oracle_words_are_worded_from_their_fields() {
        let word = OracleWord::Rdba {
            word: "rdba",
            value: 5,
            hex: "0x00000005".into(),
            smallfile: FileBlock { file: 0, block: 5 },
            bigfile: FileBlock {
                file: 1024,
                block: 5,
            },
            dump: "0x00000005 (1024/5)".into(),
        };
        let mut out = Vec::new();
        write_text(&mut out, &Explained::Oracle(word)).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("rdba 0x00000005 (5)\n"));
        assert!(text.ends_with("  no smallfile has file 0: Oracle prints it as bigfile (1024/5)\n"));
        let word = OracleWord::Date {
            word: "TIMESTAMP",
            bytes: "78 6e".into(),
            value: "x".into(),
        };
        let mut out = Vec::new();
        write_text(&mut out, &Explained::Oracle(word)).unwrap();
        assert!(String::from_utf8(out)
            .unwrap()
            .ends_with("second+1, nanoseconds (big-endian)\n"));
    }
}
