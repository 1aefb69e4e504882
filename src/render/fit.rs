//! Tables that fit the terminal without splitting words.
//!
//! A table is drawn at its natural width when that fits (or when there is no
//! terminal: pipes and golden files never wrap). When it would not fit, it is
//! drawn the way psql's expanded mode draws a result, one record per block of
//! lines:
//!
//! ```text
//! -[ RECORD 1 ]---------------------
//! lp       │ 1
//! lp_off   │ 8152
//! ```
//!
//! Long values are wrapped at spaces only; a word longer than the line stays
//! whole.

use std::fmt;
use std::io::{self, Write};
use std::ops::{Deref, DerefMut};

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table};
use unicode_width::UnicodeWidthStr;

use super::RenderOptions;

/// A comfy table and the width it must fit (`None`: no limit).
pub(crate) struct Fitted {
    table: Table,
    width: Option<u16>,
}

impl Fitted {
    pub(crate) fn new(table: Table, width: Option<u16>) -> Fitted {
        Fitted { table, width }
    }

    /// Columns the table takes when drawn at its natural width: each column's
    /// widest line plus one space either side, and one border between and
    /// around the columns.
    fn natural_width(&self) -> usize {
        let widths = self.table.column_max_content_widths();
        widths.iter().map(|&w| usize::from(w) + 2).sum::<usize>() + widths.len() + 1
    }

    fn write_expanded(&self, f: &mut fmt::Formatter<'_>, width: usize) -> fmt::Result {
        let names: Vec<String> = self
            .table
            .header()
            .map(|h| h.cell_iter().map(|c| c.content()).collect())
            .unwrap_or_default();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for (i, row) in self.table.row_iter().enumerate() {
            let cells: Vec<String> = row.cell_iter().map(Cell::content).collect();
            write_record(f, width, &names, i, &cells)?;
        }
        Ok(())
    }
}

/// Record `i` (0-based) of an expanded table: `-[ RECORD i+1 ]`, then each
/// cell under its column's name, wrapped at spaces to `width`.
fn write_record(
    f: &mut dyn fmt::Write,
    width: usize,
    names: &[&str],
    i: usize,
    cells: &[String],
) -> fmt::Result {
    let name_width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    // The value column starts after "name │ ".
    let value_width = width.saturating_sub(name_width + 3).max(16);
    if i > 0 {
        writeln!(f)?;
    }
    let title = format!("-[ RECORD {} ]", i + 1);
    let rule = width.saturating_sub(title.chars().count());
    writeln!(f, "{title}{}", "-".repeat(rule.min(64)))?;
    for (j, content) in cells.iter().enumerate() {
        let name = names.get(j).copied().unwrap_or("");
        let mut lines = wrap_words(content, value_width);
        if lines.is_empty() {
            lines.push(String::new());
        }
        for (k, line) in lines.iter().enumerate() {
            let label = if k == 0 { name } else { "" };
            // The value's own trailing spaces stay (a char(n)
            // column's blank padding, as psql prints it); only an
            // empty value leaves no spaces after the rule.
            if line.is_empty() {
                writeln!(f, "{}", format!("{label:<name_width$} │").trim_end())?;
            } else {
                writeln!(f, "{label:<name_width$} │ {line}")?;
            }
        }
    }
    Ok(())
}

/// Rows handed one at a time to the function given: a table's rows made
/// again each time they are asked for, instead of held.
pub(crate) type Rows<'a> =
    &'a dyn Fn(&mut dyn FnMut(Vec<String>) -> io::Result<()>) -> io::Result<()>;

/// The widest content one column of a streamed table may have: past it,
/// comfy-table (whose widths are `u16`) splits lines, and the table is
/// drawn by it instead.
const STREAMED_MAX_WIDTH: usize = 60_000;

/// A table of `header` and `rows` written as `write!(out, "{}",
/// new_table(…))` writes it, byte for byte (natural width or expanded
/// records, columns `right` right-aligned), without holding its rows: they
/// are made twice, once to measure the columns and once to draw them. For
/// tables of millions of rows (a page's attributes), which comfy-table
/// holds several times over.
pub(crate) fn write_streamed(
    out: &mut dyn Write,
    opts: &RenderOptions,
    header: &[&str],
    right_aligned: &[usize],
    rows: Rows<'_>,
) -> io::Result<()> {
    // Each column's widest line (at least 1), as comfy-table measures it.
    let mut widths: Vec<usize> = header.iter().map(|h| h.width().max(1)).collect();
    rows(&mut |cells: Vec<String>| {
        for (w, c) in widths.iter_mut().zip(&cells) {
            let cw = c.split('\n').map(UnicodeWidthStr::width).max().unwrap_or(0);
            *w = (*w).max(cw.max(1));
        }
        Ok(())
    })?;
    if widths.iter().any(|&w| w > STREAMED_MAX_WIDTH) {
        let mut t = new_table(opts, header);
        rows(&mut |cells: Vec<String>| {
            t.add_row(cells);
            Ok(())
        })?;
        right(&mut t, right_aligned);
        return write!(out, "{t}");
    }
    let natural = widths.iter().map(|w| w + 2).sum::<usize>() + widths.len() + 1;
    if let Some(width) = opts.width.map(usize::from).filter(|&w| natural > w) {
        let mut i = 0;
        rows(&mut |cells: Vec<String>| {
            let mut text = String::new();
            // Writing to a String cannot fail.
            let _ = write_record(&mut text, width, header, i, &cells);
            i += 1;
            out.write_all(text.as_bytes())
        })?;
        return Ok(());
    }
    let rule = |left: &str, line: &str, middle: &str, end: &str| {
        let parts: Vec<String> = widths.iter().map(|w| line.repeat(w + 2)).collect();
        format!("{left}{}{end}\n", parts.join(middle))
    };
    let line = |cells: &[&str]| -> String {
        let mut s = String::from("│");
        for (j, (w, c)) in widths.iter().zip(cells).enumerate() {
            if j > 0 {
                s.push('┆');
            }
            let pad = " ".repeat(w.saturating_sub(c.width()));
            if right_aligned.contains(&j) {
                s.push(' ');
                s.push_str(&pad);
                s.push_str(c);
            } else {
                s.push(' ');
                s.push_str(c);
                s.push_str(&pad);
            }
            s.push(' ');
        }
        s.push_str("│\n");
        s
    };
    // A row of several lines (a cell with a newline) takes as many lines as
    // its tallest cell, the others' left blank.
    let row_lines = |cells: &[String]| -> String {
        let split: Vec<Vec<&str>> = cells.iter().map(|c| c.split('\n').collect()).collect();
        let height = split.iter().map(Vec::len).max().unwrap_or(0);
        (0..height)
            .map(|k| {
                let parts: Vec<&str> = split
                    .iter()
                    .map(|c| c.get(k).copied().unwrap_or(""))
                    .collect();
                line(&parts)
            })
            .collect()
    };
    out.write_all(rule("┌", "─", "┬", "┐").as_bytes())?;
    let head: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    out.write_all(row_lines(&head).as_bytes())?;
    out.write_all(rule("╞", "═", "╪", "╡").as_bytes())?;
    rows(&mut |cells: Vec<String>| out.write_all(row_lines(&cells).as_bytes()))?;
    // The bottom border ends the table; `writeln!` adds the newline after it.
    let bottom = rule("└", "─", "┴", "┘");
    out.write_all(bottom.trim_end_matches('\n').as_bytes())
}

impl Deref for Fitted {
    type Target = Table;
    fn deref(&self) -> &Table {
        &self.table
    }
}

impl DerefMut for Fitted {
    fn deref_mut(&mut self) -> &mut Table {
        &mut self.table
    }
}

impl fmt::Display for Fitted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.width {
            Some(w) if self.natural_width() > usize::from(w) => {
                self.write_expanded(f, usize::from(w))
            }
            _ => write!(f, "{}", self.table),
        }
    }
}

/// `text`'s lines, each broken at spaces into pieces of at most `width`
/// characters where the words allow it; a word is never split.
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut current = String::new();
        let mut len = 0usize;
        for word in line.split(' ') {
            let wlen = word.chars().count();
            if len > 0 && len + 1 + wlen > width {
                // Spaces before a break are the break's, not the value's.
                let piece = std::mem::take(&mut current);
                out.push(piece.trim_end_matches(' ').to_string());
                len = 0;
            }
            if len > 0 {
                current.push(' ');
                len += 1;
            }
            current.push_str(word);
            len += wlen;
        }
        out.push(current);
    }
    out
}

/// The most characters one table cell shows with `--wide` (a value of
/// megabytes in one cell makes a table no one reads, and costs time to lay
/// out); past it the cell says how long the value is. JSON shows values whole.
pub(crate) const WIDE_CELL_CHARS: usize = 64 << 10;

/// A table with `header`, drawn at its natural width; when `opts.width` is
/// set and the table would not fit, drawn as expanded records instead
/// ([`Fitted`]): cells are never wrapped mid-word.
pub(crate) fn new_table(opts: &RenderOptions, header: &[&str]) -> Fitted {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.force_no_tty();
    t.set_content_arrangement(ContentArrangement::Disabled);
    t.set_header(header.iter().map(Cell::new));
    Fitted::new(t, opts.width)
}

pub(crate) fn right(t: &mut Table, columns: &[usize]) {
    for &c in columns {
        if let Some(col) = t.column_mut(c) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use comfy_table::presets::UTF8_FULL_CONDENSED;
    use comfy_table::ContentArrangement;

    fn table(rows: &[[&str; 3]]) -> Table {
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED);
        t.force_no_tty();
        t.set_content_arrangement(ContentArrangement::Disabled);
        t.set_header(["field", "value", "meaning"]);
        for r in rows {
            t.add_row(r.to_vec());
        }
        t
    }

    #[test]
    fn natural_width_matches_the_drawing() {
        let t = table(&[["pd_lower", "40", "4 line pointers"]]);
        let drawn = t.to_string();
        let widest = drawn.lines().map(|l| l.chars().count()).max().unwrap();
        assert_eq!(Fitted::new(t, None).natural_width(), widest);
    }

    #[test]
    fn fits_or_expands() {
        let rows = [["pd_lower", "40", "4 line pointers and some more words here"]];
        let wide = Fitted::new(table(&rows), Some(200)).to_string();
        assert_eq!(wide, table(&rows).to_string());
        let narrow = Fitted::new(table(&rows), Some(30)).to_string();
        assert!(narrow.starts_with("-[ RECORD 1 ]"), "{narrow}");
        assert!(narrow.contains("field   │ pd_lower\n"), "{narrow}");
        for line in narrow.lines().skip(1) {
            // Words are never split: every word of the meaning is on some line whole.
            assert!(line.chars().count() <= 30, "{line:?}");
        }
        for word in rows[0][2].split(' ') {
            assert!(narrow.split([' ', '\n']).any(|w| w == word), "{word}");
        }
    }

    #[test]
    fn expanded_records_keep_a_values_trailing_spaces() {
        // A char(5) value 'c1' is `c1   `, as psql prints it; an empty
        // value leaves nothing after the rule.
        let rows = [["c_char", "c1   ", ""]];
        let narrow = Fitted::new(table(&rows), Some(10)).to_string();
        assert!(narrow.contains("value   │ c1   \n"), "{narrow:?}");
        assert!(narrow.contains("meaning │\n"), "{narrow:?}");
        assert_eq!(wrap_words("c1   ", 80), vec!["c1   "]);
        assert_eq!(wrap_words("aaa  bbb", 4), vec!["aaa", "bbb"]);
    }

    /// `write_streamed` draws what comfy-table draws for the same rows:
    /// right-aligned columns, empty cells, wide characters, cells of
    /// several lines, and expanded records when the table does not fit.
    #[test]
    fn streamed_tables_are_drawn_as_comfy_table_draws_them() {
        let rows: Vec<Vec<String>> = [
            [
                "1",
                "1",
                "c1",
                "text",
                "8176",
                "1-byte header, 3 bytes",
                "ab",
            ],
            ["", "2", "", "integer", "", "null", "NULL"],
            ["12", "3", "名前", "text", "9", "x", "日本語 and more words"],
            ["", "4", "two\nlines", "t", "10", "", "a\nb\nc"],
            ["", "5", "", "", "", "", ""],
        ]
        .iter()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect();
        let header = [
            "lp", "attnum", "column", "type", "offset", "storage", "value",
        ];
        for width in [None, Some(200), Some(40), Some(10)] {
            let opts = RenderOptions {
                width,
                ..RenderOptions::default()
            };
            let mut t = new_table(&opts, &header);
            for r in &rows {
                t.add_row(r.clone());
            }
            right(&mut t, &[0, 1, 4]);
            let whole = format!("{t}\n");
            let mut streamed = Vec::new();
            let each = |row: &mut dyn FnMut(Vec<String>) -> io::Result<()>| -> io::Result<()> {
                rows.iter().try_for_each(|r| row(r.clone()))
            };
            write_streamed(&mut streamed, &opts, &header, &[0, 1, 4], &each).unwrap();
            streamed.push(b'\n');
            assert_eq!(
                String::from_utf8(streamed).unwrap(),
                whole,
                "width {width:?}"
            );
        }
    }

    #[test]
    fn words_wrap_only_at_spaces() {
        assert_eq!(wrap_words("aaa bbb ccc", 7), vec!["aaa bbb", "ccc"]);
        assert_eq!(
            wrap_words("averyveryverylongword x", 5),
            vec!["averyveryverylongword", "x"]
        );
        assert_eq!(wrap_words("a\nb", 10), vec!["a", "b"]);
    }
}
