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
use std::ops::{Deref, DerefMut};

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table};

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
        let name_width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        // The value column starts after "name │ ".
        let value_width = width.saturating_sub(name_width + 3).max(16);
        for (i, row) in self.table.row_iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let title = format!("-[ RECORD {} ]", i + 1);
            let rule = width.saturating_sub(title.chars().count());
            writeln!(f, "{title}{}", "-".repeat(rule.min(64)))?;
            for (j, cell) in row.cell_iter().enumerate() {
                let name = names.get(j).map_or("", String::as_str);
                let content = cell.content();
                let mut lines = wrap_words(&content, value_width);
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
        }
        Ok(())
    }
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
