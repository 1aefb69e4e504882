//! Annotated hex: od-like rows (offset, 16 bytes, ASCII) followed by the
//! fields that start in the row, so every byte can be traced to its field.
//! Runs of all-zero rows where nothing starts are folded into one `*` line.

use std::io::{self, Write};

use crate::model::span::{Region, Span};

use super::RenderOptions;

const ROW: usize = 16;
const RESET: &str = "\x1b[0m";

fn colour(region: Option<Region>) -> &'static str {
    match region {
        Some(Region::Header) => "\x1b[36m",         // cyan
        Some(Region::LinePointer) => "\x1b[33m",    // yellow
        Some(Region::FreeSpace) => "\x1b[2m",       // dim
        Some(Region::TupleHeader) => "\x1b[32m",    // green
        Some(Region::TupleData) => "\x1b[37m",      // white
        Some(Region::Special) => "\x1b[35m",        // magenta
        Some(Region::Meta) => "\x1b[34m",           // blue
        Some(Region::Unknown) | None => "\x1b[31m", // red: bytes nothing claims
    }
}

/// Write `data` as annotated hex using the `spans` the parser recorded.
pub fn render(
    out: &mut dyn Write,
    data: &[u8],
    spans: &[Span],
    opts: &RenderOptions,
) -> io::Result<()> {
    // Region of every byte: wide spans first so narrower fields inside win.
    let mut region: Vec<Option<Region>> = vec![None; data.len()];
    let mut by_width: Vec<&Span> = spans.iter().collect();
    by_width.sort_by_key(|s| std::cmp::Reverse(s.len));
    for s in &by_width {
        let end = s.end().min(data.len());
        if let Some(slot) = region.get_mut(s.start.min(end)..end) {
            slot.iter_mut().for_each(|r| *r = Some(s.region));
        }
    }
    // Offsets in the page, or with `absolute` in the file (pg_filedump -a:
    // eight digits at least).
    let base = opts.absolute.unwrap_or(0);
    let last = base.saturating_add(data.len() as u64);
    let width = if opts.absolute.is_some() || data.len() > 0xFFFF {
        if last > 0xFFFF_FFFF {
            16
        } else {
            8
        }
    } else {
        4
    };

    let mut sorted: Vec<&Span> = spans.iter().collect();
    sorted.sort_by_key(|s| (s.start, std::cmp::Reverse(s.len)));

    let rows = data.len().div_ceil(ROW);
    let mut row = 0;
    let mut next_span = 0;
    while row < rows {
        let start = row * ROW;
        // Spans starting in this row.
        let mut starting = Vec::new();
        while let Some(s) = sorted.get(next_span) {
            if s.start >= start + ROW {
                break;
            }
            if s.start >= start {
                starting.push(*s);
            }
            next_span += 1;
        }
        // Fold a run of at least two zero rows in which nothing starts.
        if starting.is_empty() && zero_row(data, row) {
            let mut end_row = row;
            while end_row + 1 < rows
                && zero_row(data, end_row + 1)
                && sorted
                    .get(next_span)
                    .is_none_or(|s| s.start >= (end_row + 2) * ROW)
            {
                end_row += 1;
            }
            if end_row > row {
                let bytes = (end_row + 1 - row) * ROW;
                let what = region
                    .get(start)
                    .copied()
                    .flatten()
                    .map_or("unaccounted bytes", Region::label);
                writeln!(out, "{:<width$}  … {bytes} bytes of {what} (zero) …", "*")?;
                row = end_row + 1;
                continue;
            }
        }
        write_row(out, data, &region, (start, base), width, opts.color)?;
        let note = if starting.is_empty() {
            continuation(spans, start)
        } else {
            annotate(&starting)
        };
        if !note.is_empty() {
            write!(out, "  {note}")?;
        }
        writeln!(out)?;
        row += 1;
    }
    Ok(())
}

fn zero_row(data: &[u8], row: usize) -> bool {
    let end = ((row + 1) * ROW).min(data.len());
    data.get(row * ROW..end)
        .is_some_and(|r| r.len() == ROW && r.iter().all(|&b| b == 0))
}

fn write_row(
    out: &mut dyn Write,
    data: &[u8],
    region: &[Option<Region>],
    (start, base): (usize, u64),
    width: usize,
    color: bool,
) -> io::Result<()> {
    let end = (start + ROW).min(data.len());
    let bytes = data.get(start..end).unwrap_or_default();
    write!(out, "{:0width$x} ", base.saturating_add(start as u64))?;
    let mut current: Option<Option<Region>> = None;
    for (i, b) in bytes.iter().enumerate() {
        let r = region.get(start + i).copied().flatten();
        if color && current != Some(r) {
            write!(out, "{}", colour(r))?;
            current = Some(r);
        }
        write!(out, " {b:02x}")?;
    }
    if color {
        write!(out, "{RESET}")?;
    }
    for _ in bytes.len()..ROW {
        write!(out, "   ")?;
    }
    write!(out, "  ")?;
    current = None;
    for (i, b) in bytes.iter().enumerate() {
        let r = region.get(start + i).copied().flatten();
        if color && current != Some(r) {
            write!(out, "{}", colour(r))?;
            current = Some(r);
        }
        let c = if b.is_ascii_graphic() || *b == b' ' {
            *b as char
        } else {
            '.'
        };
        write!(out, "{c}")?;
    }
    if color {
        write!(out, "{RESET}")?;
    }
    for _ in bytes.len()..ROW {
        write!(out, " ")?;
    }
    Ok(())
}

/// `pd_lsn 0/1576BA8 │ pd_checksum 0` or `tuple 4: t_xmin 1760 │ t_xmax 0`.
fn annotate(spans: &[&Span]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut last_owner: Option<&str> = None;
    for s in spans {
        let text = if s.value.is_empty() {
            s.name.clone()
        } else {
            format!("{} {}", s.name, s.value)
        };
        match s.owner.as_deref() {
            Some(owner) if last_owner != Some(owner) => parts.push(format!("{owner}: {text}")),
            _ => parts.push(text),
        }
        last_owner = s.owner.as_deref();
    }
    parts.join(" │ ")
}

/// For a row where nothing starts: which field it continues.
fn continuation(spans: &[Span], start: usize) -> String {
    spans
        .iter()
        .filter(|s| s.start < start && s.end() > start)
        .min_by_key(|s| s.len)
        .map_or(String::new(), |s| match &s.owner {
            Some(owner) => format!("↳ {owner} {}", s.name),
            None => format!("↳ {}", s.name),
        })
}
