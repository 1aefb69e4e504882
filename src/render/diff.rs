//! `diff`'s output: a table for people (one block after another, a row per
//! changed field) or one JSON document, both written a block at a time.

use std::io::{self, Write};

use serde_json::Value;

use crate::model::diff::{BlockDiff, Change};

use super::write::{write_pretty_at, ArrayWriter};

/// Output formats of `diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DiffFormat {
    /// Rows of `where  field  old → new`, block by block.
    Table,
    /// `{"schema", "old", "new", "blocks": […], "compared", "differ", "equal"}`.
    Json,
}

/// Writes a diff report as the blocks come.
pub(crate) struct DiffWriter {
    format: DiffFormat,
    array: Option<ArrayWriter>,
    compared: u64,
    differ: u64,
}

impl DiffWriter {
    /// Start the report of `old` against `new` (their names).
    pub(crate) fn open(
        out: &mut dyn Write,
        format: DiffFormat,
        old: &str,
        new: &str,
    ) -> io::Result<DiffWriter> {
        let array = match format {
            DiffFormat::Table => {
                writeln!(out, "--- {old}")?;
                writeln!(out, "+++ {new}")?;
                None
            }
            DiffFormat::Json => {
                write!(
                    out,
                    "{{\n  \"schema\": {},\n  \"old\": ",
                    super::versions::DIFF
                )?;
                serde_json::to_writer(&mut *out, old)?;
                out.write_all(b",\n  \"new\": ")?;
                serde_json::to_writer(&mut *out, new)?;
                out.write_all(b",\n  \"blocks\": ")?;
                Some(ArrayWriter::open(out, 1)?)
            }
        };
        Ok(DiffWriter {
            format,
            array,
            compared: 0,
            differ: 0,
        })
    }

    /// One block compared (`d` empty: equal, nothing written).
    pub(crate) fn block(&mut self, out: &mut dyn Write, d: &BlockDiff) -> io::Result<()> {
        self.compared += 1;
        if d.is_empty() {
            return Ok(());
        }
        self.differ += 1;
        match (&mut self.array, self.format) {
            (Some(array), _) => array.push(out, d),
            (None, _) => table_block(out, d),
        }
    }

    /// Whether every block compared was equal.
    pub(crate) fn equal(&self) -> bool {
        self.differ == 0
    }

    /// End the report: the counts and the verdict.
    pub(crate) fn finish(self, out: &mut dyn Write) -> io::Result<()> {
        let equal = self.equal();
        match self.array {
            Some(array) => {
                array.close(out)?;
                write!(
                    out,
                    ",\n  \"compared\": {},\n  \"differ\": {},\n  \"equal\": ",
                    self.compared, self.differ
                )?;
                write_pretty_at(out, &equal, 1)?;
                out.write_all(b"\n}\n")
            }
            None => {
                let blocks = |n: u64| if n == 1 { "block" } else { "blocks" };
                if equal {
                    writeln!(
                        out,
                        "equal: {} {} compared",
                        self.compared,
                        blocks(self.compared)
                    )
                } else {
                    writeln!(
                        out,
                        "{} of {} {} {}",
                        self.differ,
                        self.compared,
                        blocks(self.compared),
                        if self.differ == 1 {
                            "differs"
                        } else {
                            "differ"
                        }
                    )
                }
            }
        }
    }
}

/// A value as the table shows it: strings without quotes, the rest as JSON.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// An added or removed tuple's attribute values (with `--columns`), as
/// JSON values in attribute order: `values 5, "changed 5", 1050`; empty
/// when the item has none.
fn values(item: Option<&Value>) -> String {
    let Some(Value::Array(attrs)) = item.and_then(|i| i.get("attrs")) else {
        return String::new();
    };
    let list: Vec<String> = attrs
        .iter()
        .map(|a| a.get("value").map_or("?".to_string(), Value::to_string))
        .collect();
    format!("values {}", list.join(", "))
}

/// One block's rows, columns aligned within the block.
fn table_block(out: &mut dyn Write, d: &BlockDiff) -> io::Result<()> {
    let title = match &d.input {
        Some(input) => format!("block {} of {input}", text(&d.blkno)),
        None => format!("block {}", text(&d.blkno)),
    };
    match d.change {
        Change::Added => return writeln!(out, "{title}: only in new"),
        Change::Removed => return writeln!(out, "{title}: only in old"),
        Change::Changed => writeln!(out, "{title}")?,
    }
    let mut rows: Vec<[String; 3]> = Vec::new();
    let arrow = |old: &Value, new: &Value| format!("{} → {}", text(old), text(new));
    for f in &d.fields {
        rows.push([String::new(), f.field.clone(), arrow(&f.old, &f.new)]);
    }
    for i in &d.items {
        let name = if i.array == "items" {
            format!("{} {}", i.key, text(&i.id))
        } else {
            format!("{} {} {}", i.array, i.key, text(&i.id))
        };
        if i.change != Change::Changed {
            rows.push([name, i.change.as_str().to_string(), values(i.item.as_ref())]);
            continue;
        }
        for (n, f) in i.fields.iter().enumerate() {
            let w = if n == 0 { name.clone() } else { String::new() };
            rows.push([w, f.field.clone(), arrow(&f.old, &f.new)]);
        }
    }
    for p in &d.problems {
        let s = |k: &str| p.problem.get(k).map(text).unwrap_or_default();
        rows.push([
            "problem".to_string(),
            p.change.as_str().to_string(),
            format!("{} {}: {}", s("severity"), s("field"), s("message")),
        ]);
    }
    for r in &d.bytes {
        let last = r.offset + r.length - 1;
        let plural = if r.length == 1 { "byte" } else { "bytes" };
        rows.push([
            "bytes".to_string(),
            format!("{}..{last}", r.offset),
            format!("{} {plural} changed outside decoded fields", r.length),
        ]);
    }
    let width = |c: usize| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0);
    let (w0, w1) = (width(0), width(1));
    for [a, b, c] in &rows {
        let line = format!("  {a:<w0$}  {b:<w1$}  {c}");
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
