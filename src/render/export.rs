//! `export`'s row formats: COPY's text and CSV formats exactly as
//! PostgreSQL's `COPY … TO` writes them (copyto.c: `CopyAttributeOutText`,
//! `CopyAttributeOutCSV`), INSERT statements, and NDJSON with typed values.
//!
//! Rows come in as cells (text plus what kind of value it is); nothing here
//! knows where they were read from.

use byteorder::{ByteOrder, LittleEndian};

/// Output formats of `export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ExportFormat {
    /// COPY's text format.
    Copy,
    /// COPY's CSV format.
    Csv,
    /// INSERT statements.
    Sql,
    /// One JSON object a row.
    Ndjson,
}

/// What a cell's text is, for SQL literals and JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CellKind {
    /// A string (quoted in SQL and JSON).
    Text,
    /// An exact number whose text is a JSON and SQL number.
    Number,
    /// A boolean (`t`/`f` in COPY).
    Bool(bool),
}

/// One output value: `None` text is SQL NULL.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cell<'a> {
    /// The value's text form; `None` for NULL.
    pub(crate) text: Option<&'a str>,
    /// What the text is.
    pub(crate) kind: CellKind,
}

impl<'a> Cell<'a> {
    /// SQL NULL.
    pub(crate) const NULL: Cell<'static> = Cell {
        text: None,
        kind: CellKind::Text,
    };

    /// A text cell.
    pub(crate) fn text(text: &'a str) -> Cell<'a> {
        Cell {
            text: Some(text),
            kind: CellKind::Text,
        }
    }

    /// A number cell.
    pub(crate) fn number(text: &'a str) -> Cell<'a> {
        Cell {
            text: Some(text),
            kind: CellKind::Number,
        }
    }
}

/// A column of the output: its name, and whether it is a comment in SQL
/// (system columns and the row status are not the table's).
#[derive(Clone, Debug)]
pub(crate) struct OutColumn {
    /// The name in headers and JSON keys.
    pub(crate) name: String,
    /// Not a column of the table: a comment after an INSERT.
    pub(crate) extra: bool,
}

/// How rows are written.
pub(crate) struct RowFormat {
    format: ExportFormat,
    columns: Vec<OutColumn>,
    /// `INSERT INTO t (a, b) VALUES (`
    sql_prefix: String,
    /// JSON keys, escaped and quoted, with the colon.
    json_keys: Vec<String>,
}

impl RowFormat {
    /// A format for these output columns; `table` names the table in INSERTs.
    pub(crate) fn new(format: ExportFormat, columns: Vec<OutColumn>, table: &str) -> RowFormat {
        let names: Vec<String> = columns
            .iter()
            .filter(|c| !c.extra)
            .map(|c| quote_ident(&c.name))
            .collect();
        let sql_prefix = format!(
            "INSERT INTO {} ({}) VALUES (",
            quote_qualified(table),
            names.join(", ")
        );
        let json_keys = columns
            .iter()
            .map(|c| {
                let mut k = serde_json::to_string(&c.name).unwrap_or_else(|_| "\"?\"".into());
                k.push(':');
                k
            })
            .collect();
        RowFormat {
            format,
            columns,
            sql_prefix,
            json_keys,
        }
    }

    /// The header line (COPY and CSV; nothing for the other formats).
    pub(crate) fn header(&self, out: &mut Vec<u8>) {
        match self.format {
            ExportFormat::Copy => {
                for (i, c) in self.columns.iter().enumerate() {
                    if i > 0 {
                        out.push(b'\t');
                    }
                    copy_text(out, &c.name);
                }
                out.push(b'\n');
            }
            ExportFormat::Csv => {
                for (i, c) in self.columns.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    csv_text(out, &c.name, self.columns.len() == 1);
                }
                out.push(b'\n');
            }
            ExportFormat::Sql | ExportFormat::Ndjson => {}
        }
    }

    /// One row: `cells` in the order of the output columns.
    pub(crate) fn row(&self, cells: &[Cell], out: &mut Vec<u8>) {
        let mut row = self.begin(out);
        for c in cells {
            self.field(&mut row, *c, out);
        }
        self.end(row, out);
    }

    /// Start a row; its fields follow with [`RowFormat::field`], in the
    /// order of the output columns, then [`RowFormat::end`].
    pub(crate) fn begin(&self, out: &mut Vec<u8>) -> RowState {
        match self.format {
            ExportFormat::Sql => out.extend_from_slice(self.sql_prefix.as_bytes()),
            ExportFormat::Ndjson => out.push(b'{'),
            ExportFormat::Copy | ExportFormat::Csv => {}
        }
        RowState {
            index: 0,
            values: 0,
            comment: Vec::new(),
        }
    }

    /// The next field of the row.
    pub(crate) fn field(&self, row: &mut RowState, c: Cell, out: &mut Vec<u8>) {
        let i = row.index;
        row.index += 1;
        match self.format {
            ExportFormat::Copy => {
                if i > 0 {
                    out.push(b'\t');
                }
                match c.text {
                    None => out.extend_from_slice(b"\\N"),
                    Some(t) => copy_text(out, t),
                }
            }
            ExportFormat::Csv => {
                if i > 0 {
                    out.push(b',');
                }
                if let Some(t) = c.text {
                    csv_text(out, t, self.columns.len() == 1);
                }
            }
            ExportFormat::Sql => {
                let Some(col) = self.columns.get(i) else {
                    return;
                };
                if col.extra {
                    // Not the table's: a comment after the statement, on one line.
                    let comment = &mut row.comment;
                    comment.extend_from_slice(if comment.is_empty() { b" -- " } else { b", " });
                    comment.extend_from_slice(col.name.as_bytes());
                    comment.push(b' ');
                    let t = c.text.unwrap_or("NULL");
                    comment.extend(t.bytes().map(|b| if b == b'\n' { b' ' } else { b }));
                    return;
                }
                if row.values > 0 {
                    out.extend_from_slice(b", ");
                }
                row.values += 1;
                sql_literal(out, &c);
            }
            ExportFormat::Ndjson => {
                if i > 0 {
                    out.push(b',');
                }
                if let Some(k) = self.json_keys.get(i) {
                    out.extend_from_slice(k.as_bytes());
                }
                json_value(out, &c);
            }
        }
    }

    /// The next field of the row: an integer (never escaped or quoted).
    pub(crate) fn int_field(&self, row: &mut RowState, n: i64, out: &mut Vec<u8>) {
        let mut b = itoa::Buffer::new();
        match self.format {
            ExportFormat::Copy | ExportFormat::Csv => {
                if row.index > 0 {
                    out.push(if self.format == ExportFormat::Copy {
                        b'\t'
                    } else {
                        b','
                    });
                }
                row.index += 1;
                out.extend_from_slice(b.format(n).as_bytes());
            }
            ExportFormat::Sql | ExportFormat::Ndjson => {
                self.field(row, Cell::number(b.format(n)), out)
            }
        }
    }

    /// The next field of the row: text as stored, written only when it is
    /// UTF-8 (false, and nothing written, when it is not).
    pub(crate) fn text_field(&self, row: &mut RowState, bytes: &[u8], out: &mut Vec<u8>) -> bool {
        if self.format != ExportFormat::Copy {
            return match std::str::from_utf8(bytes) {
                Ok(t) => {
                    self.field(row, Cell::text(t), out);
                    true
                }
                Err(_) => false,
            };
        }
        let (special, high) = scan_text(bytes);
        let text = if high {
            match std::str::from_utf8(bytes) {
                Ok(t) => Some(t),
                Err(_) => return false,
            }
        } else {
            None
        };
        if row.index > 0 {
            out.push(b'\t');
        }
        row.index += 1;
        match (special, text) {
            (false, _) => out.extend_from_slice(bytes),
            (true, Some(t)) => copy_text(out, t),
            // ASCII, and so UTF-8.
            (true, None) => copy_text(out, std::str::from_utf8(bytes).unwrap_or_default()),
        }
        true
    }

    /// End the row.
    pub(crate) fn end(&self, row: RowState, out: &mut Vec<u8>) {
        match self.format {
            ExportFormat::Copy | ExportFormat::Csv => out.push(b'\n'),
            ExportFormat::Sql => {
                out.extend_from_slice(b");");
                out.extend_from_slice(&row.comment);
                out.push(b'\n');
            }
            ExportFormat::Ndjson => out.extend_from_slice(b"}\n"),
        }
    }
}

/// A row being written: how many fields so far, and (SQL) the comment.
pub(crate) struct RowState {
    index: usize,
    values: usize,
    comment: Vec<u8>,
}

/// Whether `bytes` hold something COPY's text format escapes (a backslash
/// or a control character), and whether any byte is past ASCII: one pass,
/// eight bytes at a time as one word, without an early exit.
fn scan_text(bytes: &[u8]) -> (bool, bool) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of a byte of `x` set when that byte is below `n` (at
    // most 0x80): exact as to whether any is, which is all that is asked.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let (mut special, mut or) = (0u64, 0u64);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let x = LittleEndian::read_u64(w);
        special |= below(x, 0x20) | below(x ^ (ONES * u64::from(b'\\')), 1);
        or |= x;
    }
    let (mut special, mut or) = (special != 0, or & HIGH != 0);
    for &c in words.remainder() {
        special |= c == b'\\' || c < 0x20;
        or |= c >= 0x80;
    }
    (special, or)
}

/// `CopyAttributeOutText` with the tab delimiter: backslash, and the
/// control characters \b \f \n \r \t \v, as backslash escapes; other
/// control characters as they are.
pub(crate) fn copy_text(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    // Most values need no escape: one pass without an early exit (which
    // the compiler vectorises) decides.
    if !b
        .iter()
        .fold(false, |any, &c| any | (c == b'\\') | (c < 0x20))
    {
        out.extend_from_slice(b);
        return;
    }
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc = match c {
            b'\\' => b'\\',
            0x08 => b'b',
            0x0c => b'f',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0x0b => b'v',
            _ => continue,
        };
        out.extend_from_slice(&b[start..i]);
        out.push(b'\\');
        out.push(esc);
        start = i + 1;
    }
    out.extend_from_slice(&b[start..]);
}

/// `CopyAttributeOutCSV` with the defaults (delimiter `,`, quote and
/// escape `"`, NULL the empty string): quoted when the value is the NULL
/// string (empty), holds the delimiter, the quote, CR or LF, or is `\.`
/// as the only column; quotes inside doubled.
pub(crate) fn csv_text(out: &mut Vec<u8>, s: &str, single: bool) {
    let quote = s.is_empty()
        || (single && s == "\\.")
        || s.bytes().any(|c| matches!(c, b',' | b'"' | b'\n' | b'\r'));
    if !quote {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    out.push(b'"');
    for c in s.bytes() {
        if c == b'"' {
            out.push(b'"');
        }
        out.push(c);
    }
    out.push(b'"');
}

/// A SQL literal: NULL, a number unquoted, TRUE/FALSE, else a standard
/// string literal (quotes doubled; backslashes are plain characters with
/// `standard_conforming_strings`, the default since PostgreSQL 9.1).
fn sql_literal(out: &mut Vec<u8>, c: &Cell) {
    match (c.text, c.kind) {
        (None, _) => out.extend_from_slice(b"NULL"),
        (Some(_), CellKind::Bool(true)) => out.extend_from_slice(b"true"),
        (Some(_), CellKind::Bool(false)) => out.extend_from_slice(b"false"),
        (Some(t), CellKind::Number) if is_number(t) => out.extend_from_slice(t.as_bytes()),
        (Some(t), _) => {
            out.push(b'\'');
            for b in t.bytes() {
                if b == b'\'' {
                    out.push(b'\'');
                }
                out.push(b);
            }
            out.push(b'\'');
        }
    }
}

/// JSON's number grammar (which SQL's numeric literals include):
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn is_number(t: &str) -> bool {
    let b = t.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let int_start = i;
    let n = digits(&mut i);
    if n == 0 || (n > 1 && b[int_start] == b'0') {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// A JSON value: null, a number, a boolean or a string.
fn json_value(out: &mut Vec<u8>, c: &Cell) {
    match (c.text, c.kind) {
        (None, _) => out.extend_from_slice(b"null"),
        (Some(_), CellKind::Bool(b)) => out.extend_from_slice(if b { b"true" } else { b"false" }),
        (Some(t), CellKind::Number) if is_number(t) => out.extend_from_slice(t.as_bytes()),
        (Some(t), _) => {
            let _ = serde_json::to_writer(&mut *out, t);
        }
    }
}

/// `quote_ident`: a name as is when it is lower-case letters, digits and
/// underscores not starting with a digit, else double-quoted.
pub(crate) fn quote_ident(name: &str) -> String {
    let plain = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b == b'_')
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// `schema.name` with each part quoted as needed (a name already in double
/// quotes is kept).
fn quote_qualified(name: &str) -> String {
    if name.contains('"') {
        return name.to_string();
    }
    name.split('.')
        .map(quote_ident)
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(s: &str) -> String {
        let mut v = Vec::new();
        copy_text(&mut v, s);
        String::from_utf8(v).unwrap()
    }

    fn csv(s: &str) -> String {
        let mut v = Vec::new();
        csv_text(&mut v, s, false);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn copy_escapes_as_copyto_does() {
        assert_eq!(
            copy("a\tb\nc\\d\r\x08\x0c\x0b\x01"),
            "a\\tb\\nc\\\\d\\r\\b\\f\\v\x01"
        );
        assert_eq!(copy("plain"), "plain");
    }

    /// Every byte value at every position of a word and of the tail,
    /// alone among harmless bytes and after a byte that borrows.
    #[test]
    fn scan_text_agrees_with_byte_by_byte() {
        let slow = |b: &[u8]| {
            (
                b.iter().any(|&c| c == b'\\' || c < 0x20),
                b.iter().any(|&c| c >= 0x80),
            )
        };
        for len in [1usize, 7, 8, 9, 16, 19] {
            for pos in 0..len {
                for fill in [b'a', 0x7f, 0xff, 0x20, 0x5d, 0x5b] {
                    for c in 0..=255u8 {
                        let mut b = vec![fill; len];
                        b[pos] = c;
                        assert_eq!(scan_text(&b), slow(&b), "{b:?}");
                    }
                }
            }
        }
        assert_eq!(scan_text(b""), (false, false));
    }

    #[test]
    fn csv_quotes_only_when_needed() {
        assert_eq!(csv(""), "\"\"");
        assert_eq!(csv("a,b"), "\"a,b\"");
        assert_eq!(csv("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv("two\nlines"), "\"two\nlines\"");
        assert_eq!(csv("back\\slash"), "back\\slash");
        assert_eq!(csv(" spaced "), " spaced ");
        let mut v = Vec::new();
        csv_text(&mut v, "\\.", true);
        assert_eq!(v, b"\"\\.\"");
    }

    #[test]
    fn numbers_follow_json_grammar() {
        for t in ["0", "-12", "1.5", "1e+300", "-2.5e-300", "0.1"] {
            assert!(is_number(t), "{t}");
        }
        for t in [
            "", "-", ".5", "-.5", "007", "1.", "NaN", "Infinity", "1e", "1,5",
        ] {
            assert!(!is_number(t), "{t}");
        }
    }

    #[test]
    fn sql_and_json_values() {
        let cols = vec![
            OutColumn {
                name: "id".into(),
                extra: false,
            },
            OutColumn {
                name: "Name".into(),
                extra: false,
            },
            OutColumn {
                name: "row_status".into(),
                extra: true,
            },
        ];
        let cells = [Cell::number("7"), Cell::text("O'Brien"), Cell::text("live")];
        let f = RowFormat::new(ExportFormat::Sql, cols.clone(), "public.t");
        let mut out = Vec::new();
        f.row(&cells, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "INSERT INTO public.t (id, \"Name\") VALUES (7, 'O''Brien'); -- row_status live\n"
        );
        let f = RowFormat::new(ExportFormat::Ndjson, cols, "t");
        let mut out = Vec::new();
        f.row(
            &[Cell::number("NaN"), Cell::NULL, Cell::text("a\"b")],
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"id\":\"NaN\",\"Name\":null,\"row_status\":\"a\\\"b\"}\n"
        );
    }
}
