//! Helpers shared by the text formats: lines with their positions, excerpts for
//! messages, hex digits, number parsing and psql's aligned-table wrapper.

use super::{InputError, InputFormat};

/// One line of a text input, without its line ending and surrounding whitespace.
#[derive(Clone, Copy, Debug)]
pub(super) struct Line<'a> {
    /// 1-based line number.
    pub no: usize,
    /// Byte offset in the input of the first byte of `text`.
    pub start: u64,
    /// The line, trimmed of leading and trailing whitespace (so also of a CR).
    pub text: &'a [u8],
}

impl<'a> Line<'a> {
    pub(crate) fn is_blank(&self) -> bool {
        self.text.is_empty()
    }

    /// The text from column `col` on; empty past the end.
    pub(crate) fn rest(&self, col: usize) -> &'a [u8] {
        self.text.get(col..).unwrap_or(&[])
    }

    /// An error at column `col` of this line.
    pub(crate) fn error(&self, format: InputFormat, col: usize, message: String) -> InputError {
        InputError {
            format,
            line: Some(self.no),
            offset: Some(self.start.saturating_add(col as u64)),
            message,
        }
    }
}

/// The lines of `data`, split at `\n`, numbered from 1, each trimmed.
pub(super) fn lines(data: &[u8]) -> Lines<'_> {
    Lines {
        data,
        pos: 0,
        no: 0,
        done: false,
    }
}

pub(super) struct Lines<'a> {
    data: &'a [u8],
    pos: usize,
    no: usize,
    done: bool,
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.done {
            return None;
        }
        let rest = self.data.get(self.pos..)?;
        let (raw, consumed) = match rest.iter().position(|&b| b == b'\n') {
            Some(end) => (rest.get(..end)?, end.saturating_add(1)),
            None => {
                self.done = true;
                (rest, rest.len())
            }
        };
        // A UTF-8 byte order mark (as some Windows editors save text) is whitespace.
        let bom = if self.no == 0 && raw.starts_with(BOM) {
            BOM.len()
        } else {
            0
        };
        let raw = raw.get(bom..).unwrap_or(&[]);
        let lead = bom.saturating_add(raw.iter().take_while(|&&b| is_space(b)).count());
        let text = trim(raw);
        self.no = self.no.saturating_add(1);
        let line = Line {
            no: self.no,
            start: self.pos.saturating_add(lead) as u64,
            text,
        };
        self.pos = self.pos.saturating_add(consumed);
        Some(line)
    }
}

/// `COPY … (format binary)`'s 11-byte signature (read by `psql.rs`,
/// recognised by `detect.rs`).
pub(super) const COPY_SIGNATURE: &[u8] = b"PGCOPY\n\xff\r\n\0";

/// The UTF-8 byte order mark.
pub(super) const BOM: &[u8] = b"\xef\xbb\xbf";

/// ASCII whitespace as the dump tools print it (including CR, VT and FF).
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

/// `s` without leading and trailing whitespace.
pub(super) fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_space(b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(start, |p| p.saturating_add(1));
    s.get(start..end).unwrap_or(&[])
}

/// A quoted excerpt of at most 40 characters for an error message, or
/// "the end of the line" when there is nothing left.
pub(super) fn excerpt(s: &[u8]) -> String {
    const MAX: usize = 40;
    if s.is_empty() {
        return "the end of the line".to_string();
    }
    let cut = s.get(..MAX).unwrap_or(s);
    let quoted = format!("{:?}", String::from_utf8_lossy(cut));
    if s.len() > MAX {
        let mut quoted = quoted;
        quoted.pop();
        quoted.push_str("...\"");
        quoted
    } else {
        quoted
    }
}

/// The value of one hex digit.
pub(super) fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The byte written as exactly two hex digits.
pub(super) fn hex_pair(s: &[u8]) -> Option<u8> {
    match s {
        [hi, lo] => Some(hex_val(*hi)? << 4 | hex_val(*lo)?),
        _ => None,
    }
}

/// How many hex digits `s` starts with.
pub(super) fn hex_run(s: &[u8]) -> usize {
    s.iter().take_while(|b| b.is_ascii_hexdigit()).count()
}

/// `digits` as a number in `radix` (8, 10 or 16); `None` on a bad digit, on no
/// digits, or when it does not fit in 64 bits.
pub(super) fn parse_number(digits: &[u8], radix: u32) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |acc, &b| {
        let digit = char::from(b).to_digit(radix)?;
        acc.checked_mul(u64::from(radix))?
            .checked_add(u64::from(digit))
    })
}

/// What psql says when `\x` or `\x auto` changes its display, printed before
/// the result when the commands are typed together (`psql -c '\x' -c 'select …'`)
/// and pasted with it.
const PSQL_BANNERS: [&[u8]; 3] = [
    b"Expanded display is on.",
    b"Expanded display is off.",
    b"Expanded display is used automatically.",
];

/// `data` with the psql banners it starts with (after blank lines) blanked
/// out: each byte of them a space, so that line numbers and byte offsets in
/// messages stay those of the input. Borrowed when there is none.
pub(super) fn without_psql_banners(data: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let mut banners = Vec::new();
    for line in lines(data) {
        if line.is_blank() {
            continue;
        }
        if !PSQL_BANNERS.contains(&line.text) {
            break;
        }
        banners.push(line);
    }
    if banners.is_empty() {
        return std::borrow::Cow::Borrowed(data);
    }
    let mut out = data.to_vec();
    for line in banners {
        let start = usize::try_from(line.start).unwrap_or(usize::MAX);
        let end = start.saturating_add(line.text.len());
        if let Some(bytes) = out.get_mut(start..end) {
            bytes.fill(b' ');
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `s` is psql's rule under a table header: dashes only.
fn is_psql_rule(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|&b| b == b'-')
}

/// Whether `s` is psql's row-count footer, `(1 row)` or `(N rows)`.
fn is_psql_row_count(s: &[u8]) -> bool {
    let Some(inner) = s.strip_prefix(b"(").and_then(|s| s.strip_suffix(b")")) else {
        return false;
    };
    let digits = inner.iter().take_while(|b| b.is_ascii_digit()).count();
    let word = inner.get(digits..).unwrap_or(&[]);
    digits > 0 && (word == b" row" || word == b" rows")
}

/// How psql laid out a one-column result, if it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Psql {
    /// Not psql's table: every non-blank line is content.
    No,
    /// The aligned (or wrapped) table: a header line, a rule of dashes, value
    /// lines, a `(N rows)` footer.
    ///
    /// ```text
    ///                      get_raw_page
    /// -------------------------------------------------------
    ///  \x0000000018c2a0010000000028007014f01f0420...
    /// (1 row)
    /// ```
    Table,
    /// Expanded display (`\x`, or `\x auto` with a wide value): a record header,
    /// then `name | value` lines, continuation lines with an empty name.
    ///
    /// ```text
    /// -[ RECORD 1 ]+-------------------------------------
    /// get_raw_page | \x0000000018c2a0010000000028007014f0...
    /// ```
    Expanded,
}

/// Whether a line is psql's expanded-display record header.
fn is_psql_record(s: &[u8]) -> bool {
    s.starts_with(b"-[ RECORD ")
}

/// How `data` is laid out, judged by its first two non-blank lines.
pub(super) fn psql_layout(data: &[u8]) -> Psql {
    let mut nonblank = lines(data).filter(|l| !l.is_blank());
    match (nonblank.next(), nonblank.next()) {
        (Some(first), _) if is_psql_record(first.text) => Psql::Expanded,
        (Some(_), Some(second)) if is_psql_rule(second.text) => Psql::Table,
        _ => Psql::No,
    }
}

/// The non-blank lines holding a value. Outside psql's layouts that is every
/// non-blank line. In psql's table it is the lines between the rule and the
/// `(N rows)` footer (after which nothing but blank lines may come); in expanded
/// display the part after `|` of each line but the record headers. In both, the
/// `.` marks of psql's wrapped format at either end of a line are dropped (no hex
/// or base64 text holds a `.`), while the `+` marks of multi-line values are kept:
/// the caller knows whether `+` can be data.
pub(super) struct Content<'a> {
    format: InputFormat,
    lines: Lines<'a>,
    /// The layout of the input.
    pub layout: Psql,
    /// Header and rule lines of a table still to skip.
    skip: u8,
    /// The line of a table's row-count footer, once seen.
    footer: Option<usize>,
}

impl<'a> Content<'a> {
    /// The value part of a line in one of psql's layouts.
    fn value(&self, line: Line<'a>) -> Result<Line<'a>, InputError> {
        let from = if self.layout == Psql::Expanded {
            match line.text.iter().position(|&b| b == b'|') {
                Some(bar) => bar.saturating_add(1),
                None => {
                    return Err(line.error(
                        self.format,
                        0,
                        format!(
                            "expected psql's expanded \"name | value\" lines, found {}",
                            excerpt(line.text)
                        ),
                    ))
                }
            }
        } else {
            0
        };
        let rest = line.rest(from);
        let lead = rest.iter().take_while(|&&b| is_space(b)).count();
        let mut text = trim(rest);
        let mut start = line
            .start
            .saturating_add(from as u64)
            .saturating_add(lead as u64);
        if let Some(t) = text.strip_prefix(b".") {
            text = t;
            start = start.saturating_add(1);
        }
        text = text.strip_suffix(b".").unwrap_or(text);
        Ok(Line {
            no: line.no,
            start,
            text,
        })
    }
}

impl<'a> Iterator for Content<'a> {
    type Item = Result<Line<'a>, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let line = self.lines.next()?;
            if line.is_blank() {
                continue;
            }
            match self.layout {
                Psql::No => return Some(Ok(line)),
                Psql::Table if self.skip > 0 => {
                    self.skip -= 1;
                    continue;
                }
                Psql::Table => {
                    if let Some(footer) = self.footer {
                        return Some(Err(line.error(
                            self.format,
                            0,
                            format!(
                                "expected nothing after psql's row count on line {footer}, found {}",
                                excerpt(line.text)
                            ),
                        )));
                    }
                    if is_psql_row_count(line.text) {
                        self.footer = Some(line.no);
                        continue;
                    }
                }
                Psql::Expanded if is_psql_record(line.text) => continue,
                Psql::Expanded => {}
            }
            match self.value(line) {
                Ok(value) if value.is_blank() => continue,
                other => return Some(other),
            }
        }
    }
}

/// The value lines of `data`; see [`Content`].
pub(super) fn content_lines(format: InputFormat, data: &[u8]) -> Content<'_> {
    let layout = psql_layout(data);
    Content {
        format,
        lines: lines(data),
        layout,
        skip: if layout == Psql::Table { 2 } else { 0 },
        footer: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_trimmed_and_placed() {
        let data = b"ab\r\n  cd  \n\nef";
        let got: Vec<(usize, u64, &[u8])> = lines(data).map(|l| (l.no, l.start, l.text)).collect();
        assert_eq!(
            got,
            vec![
                (1, 0, &b"ab"[..]),
                (2, 6, &b"cd"[..]),
                (3, 11, &b""[..]),
                (4, 12, &b"ef"[..])
            ]
        );
        assert_eq!(lines(b"").count(), 1);
        assert_eq!(lines(b"x\n").count(), 2);
    }

    #[test]
    fn excerpts_are_short_and_quoted() {
        assert_eq!(excerpt(b"zz 01"), "\"zz 01\"");
        assert_eq!(excerpt(b""), "the end of the line");
        assert_eq!(excerpt(b"a\tb"), "\"a\\tb\"");
        let long = excerpt(&[b'x'; 100]);
        assert_eq!(long.len(), 40 + 2 + 3);
        assert!(long.ends_with("...\""));
        assert_eq!(excerpt(&[0xff, b'a']), "\"\u{fffd}a\"");
    }

    #[test]
    fn numbers_parse_in_each_radix_and_overflow_is_none() {
        assert_eq!(parse_number(b"0000016", 10), Some(16));
        assert_eq!(parse_number(b"000010", 16), Some(16));
        assert_eq!(parse_number(b"0000020", 8), Some(16));
        assert_eq!(parse_number(b"0000028", 8), None);
        assert_eq!(parse_number(b"", 10), None);
        assert_eq!(parse_number(b"ffffffffffffffff", 16), Some(u64::MAX));
        assert_eq!(parse_number(b"10000000000000000", 16), None);
        assert_eq!(hex_pair(b"a8"), Some(0xa8));
        assert_eq!(hex_pair(b"A"), None);
        assert_eq!(hex_pair(b"g0"), None);
    }

    /// A value line as (line number, byte offset, text).
    type Value<'a> = (usize, u64, &'a [u8]);

    fn values(data: &[u8]) -> (Psql, Result<Vec<Value<'_>>, InputError>) {
        let content = content_lines(InputFormat::Bytea, data);
        let layout = content.layout;
        let got = content
            .map(|l| l.map(|l| (l.no, l.start, l.text)))
            .collect();
        (layout, got)
    }

    #[test]
    fn psql_table_is_recognised() {
        let table = b"    get_raw_page\n----------------\n \\x0001\n\n \\x0203\n(2 rows)\n\n";
        assert_eq!(
            values(table),
            (
                Psql::Table,
                Ok(vec![(3, 35, &b"\\x0001"[..]), (5, 44, &b"\\x0203"[..])])
            )
        );
        assert_eq!(
            values(b"\\x0001\n\n"),
            (Psql::No, Ok(vec![(1, 0, &b"\\x0001"[..])]))
        );
        let (_, got) = values(b"h\n--\n\\x00\n(1 row)\nmore\n");
        assert_eq!(got.expect_err("text after the footer").line, Some(5));
    }

    #[test]
    fn psql_wrapped_and_expanded_are_recognised() {
        let wrapped = b" x\n---\n \\x0001.\n.0203\n(1 row)\n";
        assert_eq!(
            values(wrapped),
            (
                Psql::Table,
                Ok(vec![(3, 8, &b"\\x0001"[..]), (4, 17, &b"0203"[..])])
            )
        );
        let expanded =
            b"-[ RECORD 1 ]+----\nencode | TWFu+\n       | TWE=\n-[ RECORD 2 ]+----\nencode | \n";
        assert_eq!(
            values(expanded),
            (
                Psql::Expanded,
                Ok(vec![(2, 28, &b"TWFu+"[..]), (3, 43, &b"TWE="[..])])
            )
        );
        let (_, got) = values(b"-[ RECORD 1 ]\nno bar here\n");
        assert_eq!(got.expect_err("no bar").line, Some(2));
    }

    #[test]
    fn psql_banners_are_blanked_in_place() {
        let data = b"Expanded display is on.\n-[ RECORD 1 ]\nx | \\x00\n";
        let cleaned = without_psql_banners(data);
        assert_eq!(cleaned.len(), data.len());
        assert!(cleaned.starts_with(&[b' '; 23]));
        assert_eq!(cleaned.get(23..), data.get(23..));
        let data = b"\nExpanded display is used automatically.\r\n x\n";
        assert_eq!(
            lines(&without_psql_banners(data))
                .find(|l| !l.is_blank())
                .map(|l| (l.no, l.text)),
            Some((3, &b"x"[..]))
        );
        // Only at the start, and only psql's own words.
        let data = b"\\x00\nExpanded display is on.\n";
        assert!(matches!(
            without_psql_banners(data),
            std::borrow::Cow::Borrowed(_)
        ));
        let data = b"Expanded display is great.\n";
        assert!(matches!(
            without_psql_banners(data),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
