//! `map --format term`: one character per cell, rows labelled with the
//! block number of their first cell. Fill is a ramp of characters (`.` to
//! `@`, the mean fraction of the blocks in use), so the picture reads the
//! same in a pipe; on a terminal each cell is also coloured: a blue ramp
//! for fill, damage on red, warnings on yellow, zero pages dim.

use std::io::{self, Write};

use super::grid::{Grid, Look};
use super::{plural, MapOptions};
use crate::model::map::MapSummary;

/// The fill ramp: the mean fraction in use, in ninths.
const RAMP: [char; 9] = ['.', ':', '-', '=', '+', '*', '#', '%', '@'];
/// Background colours (xterm 256) of the ramp, light to dark.
const RAMP_BG: [u8; 9] = [195, 159, 153, 117, 111, 75, 69, 33, 25];
const RESET: &str = "\x1b[0m";

/// Cells a row for a terminal `width` columns wide: a multiple of 10 (so
/// block numbers step evenly), leaving room for the row labels.
pub(super) fn columns(width: usize) -> usize {
    (width.saturating_sub(12) / 10 * 10).max(10)
}

fn glyph(look: Look) -> char {
    match look {
        Look::Damaged => 'X',
        Look::Unreadable => '?',
        Look::Warning => '!',
        Look::Zero => '0',
        Look::Unmeasured => '~',
        Look::Used(f) => RAMP[level(f)],
    }
}

fn level(fraction: f64) -> usize {
    ((fraction * 9.0) as usize).min(8)
}

/// The escape sequence that colours a cell.
fn colour(look: Look) -> String {
    match look {
        Look::Damaged => "\x1b[1;97;41m".to_string(),
        Look::Unreadable => "\x1b[1;97;45m".to_string(),
        Look::Warning => "\x1b[30;43m".to_string(),
        Look::Zero | Look::Unmeasured => "\x1b[2m".to_string(),
        Look::Used(f) => {
            let l = level(f);
            let fg = if l >= 5 { 97 } else { 30 };
            format!("\x1b[{fg};48;5;{}m", RAMP_BG[l])
        }
    }
}

fn cell_text(look: Look, color: bool) -> String {
    if color {
        format!("{}{}{RESET}", colour(look), glyph(look))
    } else {
        glyph(look).to_string()
    }
}

pub(super) fn render(
    out: &mut dyn Write,
    grid: &Grid,
    summary: &MapSummary,
    opts: &MapOptions,
    columns: usize,
) -> io::Result<()> {
    let bs = summary.block_size;
    let cells = grid.cells();
    let per_cell = grid.per_cell();
    writeln!(
        out,
        "{}: {} of {bs} bytes ({}), {} a cell",
        opts.title,
        plural(summary.blocks, "block", "blocks"),
        summary.engine,
        plural(per_cell, "block", "blocks"),
    )?;
    let label = cells.last().map_or(1, |c| c.first.to_string().len()).max(1);
    for row in cells.chunks(columns) {
        write!(out, "{:>label$} ", row[0].first)?;
        let mut line = String::new();
        for c in row {
            line.push_str(&cell_text(c.look(bs, opts.shade), opts.color));
        }
        writeln!(out, "{line}")?;
    }
    legend(out, opts)?;
    totals(out, summary)?;
    Ok(())
}

fn legend(out: &mut dyn Write, opts: &MapOptions) -> io::Result<()> {
    let color = opts.color;
    let ramp: String = RAMP
        .iter()
        .enumerate()
        .map(|(i, _)| cell_text(Look::Used((i as f64 + 0.5) / 9.0), color))
        .collect();
    writeln!(
        out,
        "legend: {ramp} {}\n        {} all-zero  {} errors  {} warnings  {} unreadable  {} no figure",
        opts.shade.legend(),
        cell_text(Look::Zero, color),
        cell_text(Look::Damaged, color),
        cell_text(Look::Warning, color),
        cell_text(Look::Unreadable, color),
        cell_text(Look::Unmeasured, color),
    )
}

/// The summary under the picture: kinds, damage, checksums, space, items.
fn totals(out: &mut dyn Write, s: &MapSummary) -> io::Result<()> {
    let list = |m: &std::collections::BTreeMap<&str, u64>| {
        m.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    writeln!(out, "kinds: {}", list(&s.kinds))?;
    writeln!(
        out,
        "damaged: {} ({}, {}); all-zero: {}; checksums: {}",
        plural(s.damaged_blocks, "block", "blocks"),
        plural(s.errors, "error", "errors"),
        plural(s.warnings, "warning", "warnings"),
        plural(s.zero_blocks, "block", "blocks"),
        list(&s.checksums),
    )?;
    let mut items = vec![format!("free: {} bytes", s.free)];
    if let Some(n) = s.lp_normal {
        items.push(format!(
            "line pointers: normal {n}, dead {}, redirect {}, unused {}",
            s.lp_dead.unwrap_or(0),
            s.lp_redirect.unwrap_or(0),
            s.lp_unused.unwrap_or(0)
        ));
    }
    if let Some(n) = s.xmax_set {
        items.push(format!("xmax set: {n}"));
    }
    if let Some(n) = s.rows_live {
        items.push(format!(
            "rows: live {n}, deleted {}",
            s.rows_deleted.unwrap_or(0)
        ));
    }
    writeln!(out, "{}", items.join("; "))?;
    for p in &s.file_problems {
        writeln!(out, "problem: {p}")?;
    }
    Ok(())
}
