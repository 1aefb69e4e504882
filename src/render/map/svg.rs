//! `map --format svg`: the grid as a standalone SVG picture. Rows of
//! [`SVG_COLUMNS`] cells, each row labelled with the block number of its
//! first cell, column offsets along the top; a `<title>` per cell that a
//! browser shows on hover, with the cell's figures; a legend; and, when a
//! cell stands for several blocks, how many; under it, the file-level
//! problems (a truncated file) the terminal grid lists. Every text is
//! escaped for XML.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::grid::{Cell, Grid, Look};
use super::{plural, MapOptions, Shade, SVG_COLUMNS};
use crate::model::map::MapSummary;

const PITCH: usize = 13;
const SIZE: usize = 12;
const LEFT: usize = 96;
const TOP: usize = 92;
/// Light to dark blue: 0% to 100% in use.
const LIGHT: (f64, f64, f64) = (239.0, 243.0, 255.0);
const DARK: (f64, f64, f64) = (8.0, 48.0, 107.0);

/// `text` with `&`, `<`, `>`, `"` and `'` escaped, for XML text and attributes.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Not allowed in XML 1.0 (file names are already escaped by
            // the caller; this is the last line of defence).
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

fn fill(look: Look) -> String {
    match look {
        Look::Damaged => "#d62728".to_string(),
        Look::Unreadable => "#000000".to_string(),
        Look::Warning => "#ff9f1c".to_string(),
        Look::Zero => "#ffffff".to_string(),
        Look::Unmeasured => "#c7c7c7".to_string(),
        Look::Used(f) => {
            let mix = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
            format!(
                "#{:02x}{:02x}{:02x}",
                mix(LIGHT.0, DARK.0),
                mix(LIGHT.1, DARK.1),
                mix(LIGHT.2, DARK.2)
            )
        }
    }
}

/// The hover text of a cell: its blocks and figures, one fact a line.
fn hover(c: &Cell, bs: usize) -> String {
    let mut t = if c.blocks == 1 {
        format!("block {}: {}", c.first, c.kind_name())
    } else {
        format!(
            "blocks {}–{} ({} blocks): {}",
            c.first,
            c.last,
            c.blocks,
            c.kind_name()
        )
    };
    if c.measured > 0 {
        let _ = write!(
            t,
            "\nin use {:.0}% (mean), free {} bytes",
            c.used_fraction(bs) * 100.0,
            c.free
        );
    }
    if c.lp_normal + c.lp_dead + c.lp_redirect + c.lp_unused > 0 {
        let _ = write!(
            t,
            "\nline pointers: normal {}, dead {}, redirect {}, unused {}; xmax set {}",
            c.lp_normal, c.lp_dead, c.lp_redirect, c.lp_unused, c.xmax_set
        );
    }
    if c.rows_live + c.rows_deleted > 0 {
        let _ = write!(
            t,
            "\nrows: live {}, deleted {}",
            c.rows_live, c.rows_deleted
        );
    }
    if c.zero > 0 {
        let _ = write!(t, "\nall-zero: {}", plural(c.zero, "block", "blocks"));
    }
    if c.errors + c.warnings + c.unreadable > 0 {
        let _ = write!(
            t,
            "\n{}, {} ({} damaged, {} bad checksum, {} unreadable)",
            plural(c.errors, "error", "errors"),
            plural(c.warnings, "warning", "warnings"),
            c.damaged,
            c.bad_checksums,
            c.unreadable
        );
    }
    t
}

pub(super) fn render(
    out: &mut dyn Write,
    grid: &Grid,
    s: &MapSummary,
    opts: &MapOptions,
) -> io::Result<()> {
    let bs = s.block_size;
    let cells = grid.cells();
    let per_cell = grid.per_cell();
    let columns = SVG_COLUMNS.min(cells.len()).max(1);
    let rows = cells.len().div_ceil(columns);
    let grid_w = columns * PITCH;
    let legend_y = TOP + rows * PITCH + 24;
    let width = (LEFT + grid_w + 24).max(760);
    // File-level problems (a truncated file, one that could not be read)
    // under the legend, a line each, as the terminal grid lists them.
    let problems_y = legend_y + 48;
    let height = legend_y + 64 + s.file_problems.len() * 16;
    let title = escape(&opts.title);
    let mut svg = String::new();
    let _ = writeln!(svg, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(svg, "<title>blockscope map: {title}</title>");
    let _ = writeln!(
        svg,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        svg,
        r#"<text x="12" y="20" font-size="14" font-weight="bold">{title}</text>"#
    );
    let _ = writeln!(
        svg,
        r#"<text x="12" y="38">{} of {bs} bytes ({}); one cell = {}</text>"#,
        plural(s.blocks, "block", "blocks"),
        s.engine,
        plural(per_cell, "block", "blocks")
    );
    let _ = writeln!(
        svg,
        r#"<text x="12" y="54">damaged {}, all-zero {}, {}, {}; free {} bytes</text>"#,
        plural(s.damaged_blocks, "block", "blocks"),
        s.zero_blocks,
        plural(s.errors, "error", "errors"),
        plural(s.warnings, "warning", "warnings"),
        s.free,
    );
    let _ = writeln!(
        svg,
        r#"<text x="12" y="70">{}</text>"#,
        match (s.lp_normal, s.rows_live) {
            (Some(n), _) => format!(
                "line pointers normal {n}, dead {}, redirect {}, unused {}; xmax set {}",
                s.lp_dead.unwrap_or(0),
                s.lp_redirect.unwrap_or(0),
                s.lp_unused.unwrap_or(0),
                s.xmax_set.unwrap_or(0)
            ),
            (None, Some(n)) => format!("rows live {n}, deleted {}", s.rows_deleted.unwrap_or(0)),
            (None, None) => String::new(),
        }
    );
    // The top axis: block offsets within a row, every 8 columns.
    let _ = writeln!(
        svg,
        r##"<text x="{}" y="{}" text-anchor="end" fill="#555">block</text>"##,
        LEFT - 6,
        TOP - 6
    );
    for col in (0..columns).step_by(8) {
        let _ = writeln!(
            svg,
            r##"<text x="{}" y="{}" fill="#555">+{}</text>"##,
            LEFT + col * PITCH,
            TOP - 6,
            col as u64 * per_cell
        );
    }
    let _ = writeln!(
        svg,
        r##"<g id="cells" stroke="#bbbbbb" stroke-width="0.5">"##
    );
    for (i, c) in cells.iter().enumerate() {
        let (row, col) = (i / columns, i % columns);
        let (x, y) = (LEFT + col * PITCH, TOP + row * PITCH);
        if col == 0 {
            let _ = writeln!(
                svg,
                r##"<text x="{}" y="{}" text-anchor="end" stroke="none" fill="#333">{}</text>"##,
                LEFT - 6,
                y + SIZE - 2,
                c.first
            );
        }
        let _ = writeln!(
            svg,
            r#"<rect x="{x}" y="{y}" width="{SIZE}" height="{SIZE}" fill="{}"><title>{}</title></rect>"#,
            fill(c.look(bs, opts.shade)),
            escape(&hover(c, bs))
        );
    }
    let _ = writeln!(svg, "</g>");
    legend(&mut svg, legend_y, opts.shade);
    if !s.file_problems.is_empty() {
        let _ = writeln!(svg, r##"<g id="problems" fill="#d62728">"##);
        for (i, p) in s.file_problems.iter().enumerate() {
            let _ = writeln!(
                svg,
                r#"<text x="12" y="{}">problem: {}</text>"#,
                problems_y + i * 16,
                escape(p)
            );
        }
        let _ = writeln!(svg, "</g>");
    }
    let _ = writeln!(svg, "</svg>");
    out.write_all(svg.as_bytes())
}

fn legend(svg: &mut String, y: usize, shade: Shade) {
    let _ = writeln!(svg, r#"<g id="legend">"#);
    let _ = writeln!(
        svg,
        r#"<text x="12" y="{}">{}:</text>"#,
        y - 6,
        shade.legend()
    );
    let mut x = 12;
    for (i, label) in ["0%", "", "", "", "50%", "", "", "", "100%"]
        .iter()
        .enumerate()
    {
        let f = i as f64 / 8.0;
        let _ = writeln!(
            svg,
            r##"<rect x="{x}" y="{y}" width="{SIZE}" height="{SIZE}" fill="{}" stroke="#bbbbbb" stroke-width="0.5"/>"##,
            fill(Look::Used(f))
        );
        if !label.is_empty() {
            let _ = writeln!(svg, r#"<text x="{x}" y="{}">{label}</text>"#, y + SIZE + 12);
        }
        x += PITCH;
    }
    x += 20;
    for (look, label) in [
        (Look::Zero, "all-zero"),
        (Look::Damaged, "errors"),
        (Look::Warning, "warnings"),
        (Look::Unreadable, "unreadable"),
        (Look::Unmeasured, "no figure"),
    ] {
        let _ = writeln!(
            svg,
            r##"<rect x="{x}" y="{y}" width="{SIZE}" height="{SIZE}" fill="{}" stroke="#bbbbbb" stroke-width="0.5"/>"##,
            fill(look)
        );
        let _ = writeln!(svg, r#"<text x="{}" y="{}">{label}</text>"#, x + 16, y + 10);
        x += 24 + label.len() * 7;
    }
    let _ = writeln!(svg, "</g>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_controls() {
        assert_eq!(escape("a<b>&\"c'\x01"), "a&lt;b&gt;&amp;&quot;c&apos;\\x01");
    }
}
