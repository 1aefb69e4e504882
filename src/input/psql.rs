//! The envelopes psql and COPY put around page values, peeled off row by row.
//!
//! A page handed over from a live server comes wrapped in whatever printed it:
//!
//! | envelope            | produced by                                               |
//! | ------------------- | --------------------------------------------------------- |
//! | aligned table       | `psql` (header, rule of `-` and `+`, `(N rows)` footer)   |
//! | aligned, no header  | `psql -t` (cells split by ` \| `, `+` at wrapped lines)   |
//! | expanded            | `psql -x` (`-[ RECORD 1 ]-`, `name \| value` lines)      |
//! | unaligned           | `psql -A` (header and footer), `psql -tA` (`3\|\x…`)      |
//! | CSV                 | `psql --csv`, `COPY … (format csv, header)` (`"` quoting) |
//! | COPY text           | `\copy … to file` (tab-separated, `\\x`, `\n` escapes)    |
//! | COPY binary         | `\copy … with (format binary)` (`PGCOPY\n\377\r\n\0`)    |
//!
//! Each yields rows; a row's last column holds the page (bytea `\x…`, hex with
//! or without `0x`, or base64), and when a row has two or more columns and the
//! first is an integer, that is the page's block number (as `--blkno` would
//! give it). The payloads then go through the hex, bytea and base64 decoders.
//!
//! One-column psql tables and expanded records without a block number are left
//! to the decoders themselves (see `text::Content`), as they always were.

use nom::branch::alt;
use nom::bytes::complete::{tag, take};
use nom::character::complete::{char as nom_char, digit1};
use nom::combinator::all_consuming;
use nom::error::{context, ContextError, ErrorKind, ParseError};
use nom::multi::length_data;
use nom::number::complete::{be_i16, be_i32, be_u32};
use nom::sequence::{delimited as between, pair};
use nom::{IResult, Parser};

use super::text::{excerpt, lines, trim, Line, COPY_SIGNATURE};
use super::{base64, detect, hex, InputError, InputFormat};
use crate::reader::Endian;

/// One row's page bytes and the block number its leading column gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Row {
    pub blkno: Option<u64>,
    pub bytes: Vec<u8>,
}

/// The rows of an input and the format of their values.
#[derive(Debug)]
pub(super) struct Rows {
    pub rows: Vec<Row>,
    pub format: InputFormat,
}

/// How a text input is wrapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Envelope {
    /// No envelope, or one the plain decoders read themselves.
    Plain,
    /// psql's aligned table: `header` when it has a header and a rule.
    Aligned { header: bool },
    /// psql's expanded display with more than one field per record.
    Expanded,
    /// One row per line, columns split by `sep`: psql -A (`|`), COPY text
    /// (tab); `header` when the first line names the columns.
    Delimited { sep: u8, header: bool },
    /// CSV, psql's or COPY's: `,` between fields, `"` quoting.
    Csv { header: bool },
}

/// Whether `s` is psql's rule under a table header: `-` and `+` only.
fn is_rule(s: &[u8]) -> bool {
    s.contains(&b'-') && s.iter().all(|&b| b == b'-' || b == b'+')
}

/// Whether `s` is psql's row-count footer, `(1 row)` or `(N rows)`.
fn is_row_count(s: &[u8]) -> bool {
    let footer = between(
        nom_char('('),
        pair(digit1, alt((tag(" rows"), tag(" row")))),
        nom_char(')'),
    );
    all_consuming::<_, (), _>(footer).parse(s).is_ok()
}

/// A column name as psql and COPY print them: `get_raw_page`, `?column?`,
/// `blkno` (at most NAMEDATALEN - 1 = 63 characters).
fn is_name(s: &[u8]) -> bool {
    let s = trim(s);
    let s = s
        .strip_prefix(b"\"")
        .and_then(|s| s.strip_suffix(b"\""))
        .unwrap_or(s);
    !s.is_empty()
        && s.len() <= 63
        && s.first()
            .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_' || b == b'?')
        && s.iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'?' | b'$' | b' '))
}

/// A line whose every field is a column name.
fn is_header(line: &[u8], sep: u8) -> bool {
    line.split(|&b| b == sep).all(is_name)
}

/// A value line of psql's aligned output that goes on: base64 wrapped at 76
/// characters gets a `+` after each line but the last (77 is 1 modulo 4).
fn has_wrap_mark(cell: &[u8]) -> bool {
    cell.ends_with(b"+") && cell.len() % 4 == 1
}

/// Whether a field still carries COPY text's backslash escapes: `\\x…` of a
/// bytea, or `\n` inside base64 (a bare bytea has one `\` only, first).
fn has_copy_escapes(field: &[u8]) -> bool {
    field.starts_with(b"\\\\") || field.get(1..).is_some_and(|f| f.contains(&b'\\'))
}

/// Which envelope `data` is in, from its first lines and its last.
fn envelope(data: &[u8]) -> Envelope {
    let mut nonblank = lines(data).filter(|l| !l.is_blank());
    let Some(first) = nonblank.next() else {
        return Envelope::Plain;
    };
    let second = nonblank.next();
    let last = lines(data).filter(|l| !l.is_blank()).last();
    let footer = last.is_some_and(|l| is_row_count(l.text));
    let t = first.text;
    if t.starts_with(b"-[ RECORD ") {
        // More field lines than records: each record has several fields
        // (continuation lines have an empty name: they start with the bar).
        let is_record = |l: &Line<'_>| l.text.starts_with(b"-[ RECORD ");
        let records = lines(data).filter(is_record).count();
        let fields = lines(data)
            .filter(|l| !l.is_blank() && !is_record(l) && l.text.first() != Some(&b'|'))
            .count();
        return if fields > records {
            Envelope::Expanded
        } else {
            Envelope::Plain
        };
    }
    if let Some(second) = second {
        if is_rule(second.text) {
            return if second.text.contains(&b'+') {
                Envelope::Aligned { header: true }
            } else {
                Envelope::Plain
            };
        }
    }
    // The first line with a value in it: the second when the first names columns.
    // A header names columns, is not itself hex, and is followed by a line
    // that is plainly a value (or the table ends in psql's footer).
    let named = second.is_some_and(|s| {
        let s = s.text;
        let value_like = s.len() > 63
            || [&b"\\x"[..], b"\\\\x", b"0x", b"\""]
                .iter()
                .any(|p| s.starts_with(p))
            || s.iter().any(|b| matches!(b, b'|' | b',' | b'\t'));
        (is_header(t, b'|') || is_header(t, b',') || is_header(t, b'\t'))
            && !t.iter().all(u8::is_ascii_hexdigit)
            && (value_like || footer)
    });
    let data_line = if named {
        second.map_or(t, |l| l.text)
    } else {
        t
    };
    if data_line.starts_with(b"\"") {
        return Envelope::Csv { header: named };
    }
    if named || footer {
        let sep = [b'\t', b'|', b',']
            .into_iter()
            .find(|&s| data_line.contains(&s))
            .unwrap_or(b'|');
        let header = named || footer;
        return if sep == b',' {
            Envelope::Csv { header }
        } else {
            Envelope::Delimited { sep, header }
        };
    }
    if contains(data_line, b" | ") || has_wrap_mark(data_line) {
        return Envelope::Aligned { header: false };
    }
    if data_line.contains(&b'\t') {
        return Envelope::Delimited {
            sep: b'\t',
            header: false,
        };
    }
    if data_line.contains(&b'|') {
        return Envelope::Delimited {
            sep: b'|',
            header: false,
        };
    }
    if has_copy_escapes(data_line) {
        return Envelope::Delimited {
            sep: b'\t',
            header: false,
        };
    }
    Envelope::Plain
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// A field of one row, with the input line each of its lines came from.
#[derive(Clone, Debug, Default)]
struct Field {
    text: Vec<u8>,
    /// The input line of each line of `text`.
    lines: Vec<usize>,
}

impl Field {
    fn new(line: usize, text: &[u8]) -> Field {
        Field {
            text: text.to_vec(),
            lines: vec![line],
        }
    }

    /// Append `text` as a further line of this field.
    fn push_line(&mut self, line: usize, text: &[u8]) {
        self.text.push(b'\n');
        self.text.extend_from_slice(text);
        self.lines.push(line);
    }

    /// Append `text` to the field's last line (a wrapped line goes on).
    fn push_more(&mut self, text: &[u8]) {
        self.text.extend_from_slice(text);
    }

    fn first_line(&self) -> usize {
        self.lines.first().copied().unwrap_or(0)
    }
}

/// One record: its fields, in order.
type Record = Vec<Field>;

/// Whether the text of a field ends in a wrap mark, and the field without it.
fn unmark(cell: &[u8]) -> (&[u8], bool) {
    if has_wrap_mark(cell) {
        (cell.get(..cell.len() - 1).unwrap_or(&[]), true)
    } else {
        (cell, false)
    }
}

/// The body of a table that ends in a `(N rows)` footer: nothing may follow it.
fn body_lines<'a>(
    format: InputFormat,
    data: &'a [u8],
    skip: usize,
) -> Result<Vec<Line<'a>>, InputError> {
    let mut out = Vec::new();
    let mut footer = None;
    for line in lines(data).filter(|l| !l.is_blank()).skip(skip) {
        if let Some(at) = footer {
            return Err(line.error(
                format,
                0,
                format!(
                    "expected nothing after psql's row count on line {at}, found {}",
                    excerpt(line.text)
                ),
            ));
        }
        if is_row_count(line.text) {
            footer = Some(line.no);
            continue;
        }
        out.push(line);
    }
    Ok(out)
}

/// psql's aligned output: cells split by `|`, `+` marks on wrapped base64
/// lines, continuation lines with empty leading cells.
fn aligned(format: InputFormat, data: &[u8], header: bool) -> Result<Vec<Record>, InputError> {
    let body = body_lines(format, data, if header { 2 } else { 0 })?;
    let columns = match (header, lines(data).find(|l| !l.is_blank())) {
        (true, Some(h)) => h.text.iter().filter(|&&b| b == b'|').count() + 1,
        (_, _) => body
            .first()
            .map_or(1, |l| l.text.iter().filter(|&&b| b == b'|').count() + 1),
    };
    let mut records: Vec<Record> = Vec::new();
    let mut open = false;
    for line in body {
        let cells: Vec<&[u8]> = line
            .text
            .splitn(columns, |&b| b == b'|')
            .map(trim)
            .collect();
        let Some(last) = cells.last() else { continue };
        let (value, marked) = unmark(last);
        let lead_empty =
            cells.len() > 1 && cells.iter().take(cells.len() - 1).all(|c| c.is_empty());
        let continues = open || lead_empty || (columns > 1 && cells.len() == 1);
        match records.last_mut().and_then(|r| r.last_mut()) {
            Some(field) if continues => field.push_line(line.no, value),
            _ => {
                if cells.len() != columns {
                    return Err(line.error(
                        format,
                        0,
                        format!(
                            "expected {columns} columns separated by '|', found {}: {}",
                            cells.len(),
                            excerpt(line.text)
                        ),
                    ));
                }
                let mut record: Record = cells
                    .iter()
                    .take(cells.len() - 1)
                    .map(|c| Field::new(line.no, c))
                    .collect();
                record.push(Field::new(line.no, value));
                records.push(record);
            }
        }
        open = marked;
    }
    Ok(records)
}

/// psql's expanded display: a record per `-[ RECORD n ]` header, a field per
/// `name | value` line, continuation lines with an empty name.
fn expanded(format: InputFormat, data: &[u8]) -> Result<Vec<Record>, InputError> {
    let mut records: Vec<Record> = Vec::new();
    for line in lines(data).filter(|l| !l.is_blank()) {
        if line.text.starts_with(b"-[ RECORD ") {
            records.push(Vec::new());
            continue;
        }
        let Some(bar) = line.text.iter().position(|&b| b == b'|') else {
            return Err(line.error(
                format,
                0,
                format!(
                    "expected psql's expanded \"name | value\" lines, found {}",
                    excerpt(line.text)
                ),
            ));
        };
        let name = trim(line.text.get(..bar).unwrap_or(&[]));
        let (value, _) = unmark(trim(line.rest(bar + 1)));
        let Some(record) = records.last_mut() else {
            return Err(line.error(
                format,
                0,
                "expected a \"-[ RECORD n ]\" header before the first field".to_string(),
            ));
        };
        match record.last_mut() {
            Some(field) if name.is_empty() => field.push_line(line.no, value),
            _ => record.push(Field::new(line.no, value)),
        }
    }
    Ok(records)
}

/// One row per line, fields split by `sep`; a line without `sep` in a table of
/// several columns goes on with the last field (a multi-line value).
fn delimited(
    format: InputFormat,
    data: &[u8],
    sep: u8,
    header: bool,
) -> Result<Vec<Record>, InputError> {
    let body = body_lines(format, data, usize::from(header))?;
    let columns = body
        .first()
        .map_or(1, |l| l.text.iter().filter(|&&b| b == sep).count() + 1);
    let mut records: Vec<Record> = Vec::new();
    for line in body {
        let fields: Vec<&[u8]> = line.text.split(|&b| b == sep).collect();
        match records.last_mut().and_then(|r| r.last_mut()) {
            Some(field) if columns > 1 && fields.len() == 1 => field.push_line(line.no, line.text),
            _ => records.push(fields.iter().map(|f| Field::new(line.no, f)).collect()),
        }
    }
    Ok(records)
}

/// CSV: fields split by `,`, a field in `"` may hold `,`, `""` and line breaks.
fn csv(format: InputFormat, data: &[u8], header: bool) -> Result<Vec<Record>, InputError> {
    let mut records: Vec<Record> = Vec::new();
    let mut record: Record = Vec::new();
    let mut field = Field::new(1, b"");
    let mut line_no = 1usize;
    let mut quoted = false;
    let mut quote_line = 0usize;
    let mut at_start = true;
    let mut i = 0usize;
    let body = data.strip_prefix(super::text::BOM).unwrap_or(data);
    while let Some(&b) = body.get(i) {
        i += 1;
        if quoted {
            match b {
                b'"' if body.get(i) == Some(&b'"') => {
                    i += 1;
                    field.push_more(b"\"");
                }
                b'"' => quoted = false,
                b'\n' => {
                    line_no += 1;
                    // A CR before the line break belongs to it.
                    if field.text.last() == Some(&b'\r') {
                        field.text.pop();
                    }
                    field.push_line(line_no, b"");
                }
                _ => field.push_more(&[b]),
            }
            continue;
        }
        match b {
            b'"' if at_start => {
                quoted = true;
                quote_line = line_no;
                at_start = false;
            }
            b',' => {
                record.push(std::mem::replace(&mut field, Field::new(line_no, b"")));
                at_start = true;
            }
            b'\n' => {
                record.push(std::mem::replace(&mut field, Field::new(line_no + 1, b"")));
                if record.iter().any(|f| !trim(&f.text).is_empty()) || record.len() > 1 {
                    records.push(std::mem::take(&mut record));
                } else {
                    record.clear();
                }
                line_no += 1;
                at_start = true;
            }
            b'\r' => {}
            _ => {
                field.push_more(&[b]);
                at_start = false;
            }
        }
    }
    if quoted {
        return Err(InputError {
            format,
            line: Some(quote_line),
            offset: None,
            message: "expected the closing '\"' of a CSV field, found the end of the input"
                .to_string(),
        });
    }
    record.push(field);
    if record.iter().any(|f| !trim(&f.text).is_empty()) || record.len() > 1 {
        records.push(record);
    }
    if header && !records.is_empty() {
        records.remove(0);
    }
    Ok(records)
}

/// COPY text's escapes undone: `\\` `\n` `\r` `\t` `\b` `\f` `\v`, `\ooo`
/// (octal) and `\xhh`; `\N` (NULL) is an error naming `line`.
fn copy_unescape(format: InputFormat, line: usize, s: &[u8]) -> Result<Vec<u8>, InputError> {
    if s == b"\\N" {
        return Err(InputError {
            format,
            line: Some(line),
            offset: None,
            message: "expected a page value, found COPY's \\N (NULL)".to_string(),
        });
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0usize;
    while let Some(&b) = s.get(i) {
        i += 1;
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let Some(&c) = s.get(i) else {
            out.push(b'\\');
            break;
        };
        i += 1;
        match c {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'v' => out.push(0x0b),
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match s.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push((v & 0xff) as u8);
            }
            b'x' if s.get(i).is_some_and(u8::is_ascii_hexdigit) => {
                let mut v = 0u32;
                for _ in 0..2 {
                    match s.get(i).and_then(|&d| char::from(d).to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            i += 1;
                        }
                        None => break,
                    }
                }
                out.push((v & 0xff) as u8);
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// A field as an unsigned block number, when it is one.
fn block_number(field: &[u8]) -> Option<u64> {
    let t = trim(field);
    (!t.is_empty() && t.len() <= 20 && t.iter().all(u8::is_ascii_digit))
        .then(|| std::str::from_utf8(t).ok()?.parse().ok())
        .flatten()
}

/// The rows of a text input in one of psql's or COPY's envelopes; `None` when
/// it has none the plain decoders do not read themselves.
pub(super) fn text_rows(data: &[u8], format: InputFormat) -> Option<Result<Rows, InputError>> {
    let env = envelope(data);
    if env == Envelope::Plain {
        return None;
    }
    let name = if format == InputFormat::Auto {
        InputFormat::Bytea
    } else {
        format
    };
    let records = match env {
        Envelope::Plain => return None,
        Envelope::Aligned { header } => aligned(name, data, header),
        Envelope::Expanded => expanded(name, data),
        Envelope::Delimited { sep, header } => delimited(name, data, sep, header),
        Envelope::Csv { header } => csv(name, data, header),
    };
    Some(records.and_then(|records| payloads(records, format)))
}

/// Each record's page: the last field decoded, the first as its block number.
fn payloads(records: Vec<Record>, forced: InputFormat) -> Result<Rows, InputError> {
    let columns = records.iter().map(Vec::len).max().unwrap_or(0);
    let mut rows = Vec::new();
    let mut used = None;
    if columns <= 1 {
        // One column: every row's value in one stream, as the plain decoders
        // read several rows (their block numbers are their positions).
        let mut stream = Field::default();
        for field in records.into_iter().flatten() {
            let field = unescaped(forced, field)?;
            if stream.lines.is_empty() {
                stream = field;
            } else {
                stream.text.push(b'\n');
                stream.text.extend_from_slice(&field.text);
                stream.lines.extend(field.lines);
            }
        }
        let (bytes, format) = value(&stream, forced)?;
        rows.push(Row { blkno: None, bytes });
        used = Some(format);
    } else {
        for record in records {
            let blkno = record.first().and_then(|f| block_number(&f.text));
            let Some(last) = record.into_iter().last() else {
                continue;
            };
            let field = unescaped(forced, last)?;
            let (bytes, format) = value(&field, forced)?;
            used.get_or_insert(format);
            rows.push(Row { blkno, bytes });
        }
    }
    let format = used.unwrap_or(forced);
    if rows.iter().all(|r| r.bytes.is_empty()) {
        return Err(InputError::whole(
            format,
            "expected a page value in psql's or COPY's rows, found no data".to_string(),
        ));
    }
    Ok(Rows { rows, format })
}

/// A field with COPY's escapes undone, when it has them.
fn unescaped(forced: InputFormat, field: Field) -> Result<Field, InputError> {
    if !has_copy_escapes(&field.text) {
        return Ok(field);
    }
    let line = field.first_line();
    let format = if forced == InputFormat::Auto {
        InputFormat::Bytea
    } else {
        forced
    };
    let text = copy_unescape(format, line, &field.text)?;
    // The escaped line breaks all came from the field's one line.
    let count = text.iter().filter(|&&b| b == b'\n').count() + 1;
    let lines = if count == field.lines.len() {
        field.lines
    } else {
        vec![line; count]
    };
    Ok(Field { text, lines })
}

/// One payload decoded: bytea (`\x`), hex (also after `0x`) or base64, or the
/// format asked for. Errors name the input's line.
fn value(field: &Field, forced: InputFormat) -> Result<(Vec<u8>, InputFormat), InputError> {
    let text = trim(&field.text);
    let format = match forced {
        InputFormat::Auto => payload_format(text),
        other => other,
    };
    let result = match format {
        InputFormat::Bytea => hex::decode_bytea(text),
        InputFormat::Base64 => base64_values(text),
        _ => hex::decode_hex(format, text),
    };
    result.map(|b| (b, format)).map_err(|mut err| {
        // Lines of the payload back to lines of the input; its offsets mean nothing there.
        err.line = err
            .line
            .and_then(|l| field.lines.get(l.saturating_sub(1)).copied())
            .or(Some(field.first_line()));
        err.offset = None;
        err
    })
}

/// The format of a payload: `\x` bytea, `0x` hex, else hex or base64 by its characters.
fn payload_format(text: &[u8]) -> InputFormat {
    if text.starts_with(b"\\x") || text.starts_with(b"\\X") {
        InputFormat::Bytea
    } else if text.starts_with(b"0x") || text.starts_with(b"0X") {
        InputFormat::Hex
    } else {
        detect::hex_or_base64(lines(text))
    }
}

/// Base64 of one or more values: each value ends at a line ending in `=`
/// padding (several rows of one column arrive in one stream).
fn base64_values(text: &[u8]) -> Result<Vec<u8>, InputError> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut from_line = 0usize;
    let mut line_no = 0usize;
    let mut pos = 0usize;
    for raw in text.split(|&b| b == b'\n') {
        line_no += 1;
        let end = pos + raw.len();
        let next = (end + 1).min(text.len());
        if trim(raw).ends_with(b"=") || next >= text.len() {
            let chunk = text.get(start..end).unwrap_or(&[]);
            let bytes = base64::decode(chunk).map_err(|mut e| {
                e.line = e.line.map(|l| l + from_line);
                e
            })?;
            out.extend_from_slice(&bytes);
            start = next;
            from_line = line_no;
        }
        pos = next;
    }
    Ok(out)
}

/// Where a COPY binary grammar stopped and, from the innermost `context`,
/// what it expected there.
#[derive(Debug)]
struct Expected<'a> {
    rest: &'a [u8],
    what: Option<&'static str>,
}

impl<'a> ParseError<&'a [u8]> for Expected<'a> {
    fn from_error_kind(input: &'a [u8], _kind: ErrorKind) -> Self {
        Expected {
            rest: input,
            what: None,
        }
    }

    fn append(_input: &'a [u8], _kind: ErrorKind, other: Self) -> Self {
        other
    }
}

impl<'a> ContextError<&'a [u8]> for Expected<'a> {
    fn add_context(input: &'a [u8], what: &'static str, other: Self) -> Self {
        if other.what.is_some() {
            other
        } else {
            Expected {
                rest: input,
                what: Some(what),
            }
        }
    }
}

/// A COPY binary grammar's result: nom's, with the context that says what was expected.
type Parsed<'a, T> = IResult<&'a [u8], T, Expected<'a>>;

/// COPY binary's file header: signature, flags word, header extension.
fn copy_header(input: &[u8]) -> Parsed<'_, u32> {
    let (input, _) = context(
        "COPY's binary signature PGCOPY\\n\\377\\r\\n\\0",
        tag(COPY_SIGNATURE),
    )
    .parse(input)?;
    let (input, flags) = context("the flags field (4 bytes)", be_u32).parse(input)?;
    let (input, _) = context(
        "the header extension (a 4-byte length and that many bytes)",
        length_data(be_u32),
    )
    .parse(input)?;
    Ok((input, flags))
}

/// A tuple's field count (-1 is the trailer).
fn copy_field_count(input: &[u8]) -> Parsed<'_, i16> {
    context("a tuple's field count or the -1 trailer (2 bytes)", be_i16).parse(input)
}

/// One field: a 32-bit length (-1 = NULL) and that many bytes.
fn copy_field(input: &[u8]) -> Parsed<'_, Option<&[u8]>> {
    let (rest, len) = context("a field length (4 bytes)", be_i32).parse(input)?;
    if len == -1 {
        return Ok((rest, None));
    }
    let Ok(len) = usize::try_from(len) else {
        return Err(nom::Err::Failure(Expected {
            rest: input,
            what: Some("a field length of -1 or more"),
        }));
    };
    let (rest, bytes) =
        context("the field's bytes, as many as its length says", take(len)).parse(rest)?;
    Ok((rest, Some(bytes)))
}

/// The rows of `COPY … (format binary)` output: signature, flags, header
/// extension, then per tuple a 16-bit field count and per field a 32-bit
/// length and its bytes (-1 for NULL); a count of -1 ends the data. Errors
/// give the byte offset and what was expected there.
pub(super) fn copy_binary(data: &[u8]) -> Result<Rows, InputError> {
    const FORMAT: InputFormat = InputFormat::CopyBinary;
    let at = |rest: &[u8]| data.len().saturating_sub(rest.len());
    let err = |pos: usize, message: String| InputError {
        format: FORMAT,
        line: None,
        offset: Some(pos as u64),
        message,
    };
    let nom_err = |e: nom::Err<Expected<'_>>| match e {
        nom::Err::Error(v) | nom::Err::Failure(v) => {
            let (rest, expected) = match v.what {
                Some(what) => (v.rest, what),
                None => (data, "COPY's binary format"),
            };
            let found = if rest.is_empty() {
                "the end of the input".to_string()
            } else {
                format!("{} bytes left", rest.len())
            };
            err(at(rest), format!("expected {expected}, found {found}"))
        }
        nom::Err::Incomplete(_) => err(data.len(), "expected more bytes".to_string()),
    };
    let (mut input, flags) = copy_header(data).map_err(nom_err)?;
    let with_oids = flags & (1 << 16) != 0;
    let mut rows = Vec::new();
    loop {
        let tuple_at = at(input);
        let (rest, count) = copy_field_count(input).map_err(nom_err)?;
        input = rest;
        if count == -1 {
            break;
        }
        if count < 1 {
            return Err(err(
                tuple_at,
                format!("expected a field count of 1 or more, found {count}"),
            ));
        }
        let fields = usize::from(count.unsigned_abs()) + usize::from(with_oids);
        let mut values: Vec<Option<&[u8]>> = Vec::new();
        for _ in 0..fields {
            let (rest, value) = copy_field(input).map_err(nom_err)?;
            input = rest;
            values.push(value);
        }
        if with_oids {
            values.remove(0);
        }
        let Some(Some(page)) = values.last() else {
            return Err(err(
                tuple_at,
                "expected a page value in the tuple's last field, found NULL".to_string(),
            ));
        };
        let blkno = if values.len() > 1 {
            // int2, int4 or int8, in network byte order.
            values
                .first()
                .copied()
                .flatten()
                .and_then(|b| match b.len() {
                    2 => Endian::Big.read_u16(b).map(u64::from),
                    4 => Endian::Big.read_u32(b).map(u64::from),
                    8 => Endian::Big.read_i64(b).and_then(|v| u64::try_from(v).ok()),
                    _ => None,
                })
        } else {
            None
        };
        // A bytea column arrives as its bytes; a text column (encode(…)) as text.
        let decoded = if detect::detect(page) != InputFormat::Raw {
            value(&Field::new(0, page), InputFormat::Auto).ok()
        } else {
            None
        };
        let bytes = decoded.map_or_else(|| page.to_vec(), |(bytes, _)| bytes);
        rows.push(Row { blkno, bytes });
    }
    if !input.is_empty() {
        return Err(err(
            at(input),
            format!(
                "expected the end of the input after COPY's -1 trailer, found {} more bytes",
                input.len()
            ),
        ));
    }
    if rows.is_empty() {
        return Err(err(
            at(input),
            "expected at least one tuple, found only the trailer".to_string(),
        ));
    }
    Ok(Rows {
        rows,
        format: FORMAT,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(data: &[u8]) -> Result<Rows, InputError> {
        text_rows(data, InputFormat::Auto).expect("an envelope")
    }

    fn blknos(r: &Rows) -> Vec<Option<u64>> {
        r.rows.iter().map(|r| r.blkno).collect()
    }

    #[test]
    fn envelopes_are_told_apart() {
        use Envelope::*;
        assert_eq!(envelope(b"00ab\n"), Plain);
        assert_eq!(envelope(b"TWFu\nTWE=\n"), Plain);
        assert_eq!(envelope(b"\\x00ab\n\\x01\n"), Plain);
        assert_eq!(envelope(b" x\n---\n \\x00\n(1 row)\n"), Plain);
        assert_eq!(envelope(b"-[ RECORD 1 ]-\nx | \\x00\n"), Plain);
        assert_eq!(envelope(b"-[ RECORD 1 ]-\nb | 3\nx | \\x00\n"), Expanded);
        assert_eq!(
            envelope(b" b | x\n---+---\n 3 | \\x00\n(1 row)\n"),
            Aligned { header: true }
        );
        assert_eq!(envelope(b" 3 | \\x00\n"), Aligned { header: false });
        assert_eq!(
            envelope(b"3|\\x00\n"),
            Delimited {
                sep: b'|',
                header: false
            }
        );
        assert_eq!(
            envelope(b"3\t\\\\x00\n"),
            Delimited {
                sep: b'\t',
                header: false
            }
        );
        assert_eq!(
            envelope(b"get_raw_page\n\\x00\n(1 row)\n"),
            Delimited {
                sep: b'|',
                header: true
            }
        );
        assert_eq!(envelope(b"b,x\n3,\\x00\n"), Csv { header: true });
        assert_eq!(envelope(b"encode\n\"TWFu\nTWE=\"\n"), Csv { header: true });
    }

    #[test]
    fn rows_give_pages_and_block_numbers() {
        let r = rows(b" blkno | x\n-------+------\n     3 | \\x0001\n     4 | \\x0203\n(2 rows)\n")
            .expect("aligned");
        assert_eq!(blknos(&r), vec![Some(3), Some(4)]);
        assert_eq!(r.rows[1].bytes, vec![2, 3]);
        assert_eq!(r.format, InputFormat::Bytea);
        let r = rows(b"7\t\\\\x00ff\n").expect("copy text");
        assert_eq!(
            (blknos(&r), r.rows[0].bytes.clone()),
            (vec![Some(7)], vec![0, 0xff])
        );
        let r = rows(b"encode\n\"TWFu\nTWE=\"\n").expect("csv");
        assert_eq!(r.rows[0].bytes, b"ManMa".to_vec());
        let r = rows(b"TWFu\\nTWE=\n").expect("copy base64");
        assert_eq!(r.rows[0].bytes, b"ManMa".to_vec());
        let r = rows(b" TWFu+\n TWE=\n").expect("psql -t base64");
        assert_eq!(r.rows[0].bytes, b"ManMa".to_vec());
        let r = rows(b"-[ RECORD 1 ]-\nb | 9\nx | TWFu+\n  | TWE=\n").expect("expanded");
        assert_eq!(
            (blknos(&r), r.rows[0].bytes.clone()),
            (vec![Some(9)], b"ManMa".to_vec())
        );
        let r = rows(b"b|x\n1|0x0a0b\n").expect("0x");
        assert_eq!(r.rows[0].bytes, vec![10, 11]);
        let r = rows(b" b | x\n---+------\n 1 | TWFu+\n   | TWE=\n 2 | TWFu\n(2 rows)\n")
            .expect("aligned base64 over lines");
        assert_eq!(blknos(&r), vec![Some(1), Some(2)]);
        assert_eq!(r.rows[0].bytes, b"ManMa".to_vec());
        assert_eq!(r.rows[1].bytes, b"Man".to_vec());
        let r = rows(b"b|x\n1|TWFu\nTWE=\n2|TWFu\n(2 rows)\n").expect("-A base64 over lines");
        assert_eq!(blknos(&r), vec![Some(1), Some(2)]);
        assert_eq!(r.rows[0].bytes, b"ManMa".to_vec());
        // A first column that is not a number names no block.
        let r = rows(b"t|\\x00\n").expect("name column");
        assert_eq!(blknos(&r), vec![None]);
    }

    #[test]
    fn errors_name_the_line_and_what_was_expected() {
        let err =
            rows(b" b | x\n---+---\n 3 | \\x00\n 4 | \\x0z\n(2 rows)\n").expect_err("bad digit");
        assert_eq!((err.format, err.line), (InputFormat::Bytea, Some(4)));
        assert!(err.message.starts_with("expected hex digits"), "{err}");
        let err =
            rows(b" b | x\n---+---\n 3 | \\x00\n(1 row)\n 4 | \\x01\n").expect_err("after footer");
        assert_eq!(err.line, Some(5));
        let err = rows(b"b,x\n3,\"\\x00\n").expect_err("open quote");
        assert_eq!(err.line, Some(2));
        assert!(err.message.contains("closing '\"'"), "{err}");
        let err = rows(b"3\t\\N\n").expect_err("null");
        assert_eq!(err.line, Some(1));
        let err = rows(b"1|TWFu\n2|TW*u\n").expect_err("bad base64");
        assert_eq!((err.format, err.line), (InputFormat::Base64, Some(2)));
    }

    fn copy_binary_of(fields: &[&[&[u8]]]) -> Vec<u8> {
        let mut out = COPY_SIGNATURE.to_vec();
        out.extend_from_slice(&0u32.to_be_bytes());
        out.extend_from_slice(&0u32.to_be_bytes());
        for tuple in fields {
            out.extend_from_slice(&(tuple.len() as i16).to_be_bytes());
            for f in *tuple {
                out.extend_from_slice(&(f.len() as i32).to_be_bytes());
                out.extend_from_slice(f);
            }
        }
        out.extend_from_slice(&(-1i16).to_be_bytes());
        out
    }

    #[test]
    fn copy_binary_tuples() {
        let data = copy_binary_of(&[
            &[&5u32.to_be_bytes(), &[0, 1, 2]],
            &[&6i64.to_be_bytes(), &[3]],
        ]);
        let r = copy_binary(&data).expect("valid");
        assert_eq!(blknos(&r), vec![Some(5), Some(6)]);
        assert_eq!(r.rows[0].bytes, vec![0, 1, 2]);
        // A text column: its hex decoded.
        let r = copy_binary(&copy_binary_of(&[&[b"0a0b"]])).expect("text");
        assert_eq!(r.rows[0].bytes, vec![10, 11]);
        // Cut short, trailing bytes, a NULL page: errors at their offset.
        let err = copy_binary(&data[..data.len() - 3]).expect_err("cut");
        assert!(err.message.contains("found"), "{err}");
        let mut long = data.clone();
        long.push(0);
        let err = copy_binary(&long).expect_err("trailing");
        assert_eq!(err.offset, Some(data.len() as u64));
        let mut null = copy_binary_of(&[&[b"x"]]);
        let at = COPY_SIGNATURE.len() + 8 + 2;
        null[at..at + 4].copy_from_slice(&(-1i32).to_be_bytes());
        null.remove(at + 4);
        assert!(copy_binary(&null)
            .expect_err("null")
            .message
            .contains("NULL"));
        let err = copy_binary(&copy_binary_of(&[&[&[1]]])[..15]).expect_err("no header");
        assert_eq!(err.format, InputFormat::CopyBinary);
    }
}
