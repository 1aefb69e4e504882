//! Hex text and PostgreSQL bytea text.
//!
//! Hex is what `psql -tA -c "select encode(get_raw_page('t', 0), 'hex')"` or
//! `xxd -p` print: hex digits in either case, whitespace and line breaks ignored.
//! Bytea is what `select get_raw_page('t', 0)` prints: the same digits after `\x`,
//! either bare (`psql -tA`) or inside psql's aligned table with its header, rule and
//! `(1 row)` footer (also wrapped or expanded, see `text::Content`). Several `\x`
//! values (several rows) are concatenated.

use super::text::{self, excerpt, hex_val, is_space, Line};
use super::{InputError, InputFormat};

/// A hex digit still waiting for its partner.
#[derive(Clone, Copy)]
struct Pending {
    value: u8,
    line: usize,
    offset: u64,
}

/// Hex digits gathered into bytes, across lines.
struct Digits {
    format: InputFormat,
    out: Vec<u8>,
    pending: Option<Pending>,
    /// Digits in the current value, for the odd-count message.
    count: u64,
}

impl Digits {
    fn new(format: InputFormat, capacity: usize) -> Digits {
        Digits {
            format,
            out: Vec::with_capacity(capacity),
            pending: None,
            count: 0,
        }
    }

    /// Take the digits of `line.text` from column `from` to the end, skipping
    /// whitespace; a single trailing `+` (psql's continuation mark) is ignored.
    fn push_line(&mut self, line: &Line<'_>, from: usize) -> Result<(), InputError> {
        let body = line.text.strip_suffix(b"+").unwrap_or(line.text);
        for (col, &b) in body.iter().enumerate().skip(from) {
            if is_space(b) {
                continue;
            }
            let Some(value) = hex_val(b) else {
                return Err(line.error(
                    self.format,
                    col,
                    format!("expected hex digits, found {}", excerpt(line.rest(col))),
                ));
            };
            self.count = self.count.saturating_add(1);
            match self.pending.take() {
                Some(high) => self.out.push(high.value << 4 | value),
                None => {
                    self.pending = Some(Pending {
                        value,
                        line: line.no,
                        offset: line.start.saturating_add(col as u64),
                    })
                }
            }
        }
        Ok(())
    }

    /// End of a value: its digit count must be even.
    fn end_value(&mut self) -> Result<(), InputError> {
        let count = self.count;
        self.count = 0;
        match self.pending.take() {
            None => Ok(()),
            Some(last) => Err(InputError {
                format: self.format,
                line: Some(last.line),
                offset: Some(last.offset),
                message: format!(
                    "expected an even number of hex digits, found {count}: this last digit has no partner"
                ),
            }),
        }
    }

    fn finish(mut self, expected: &str) -> Result<Vec<u8>, InputError> {
        self.end_value()?;
        if self.out.is_empty() {
            return Err(InputError::whole(
                self.format,
                format!("expected {expected}, found no data"),
            ));
        }
        Ok(self.out)
    }
}

/// Decode hex text. `format` is the one named in errors (`xxd -p` text comes here
/// as `Xxd` when the user asked for xxd).
pub(super) fn decode_hex(format: InputFormat, data: &[u8]) -> Result<Vec<u8>, InputError> {
    let mut digits = Digits::new(format, data.len() / 2);
    for line in text::content_lines(format, data) {
        let line = line?;
        // `'0x' || encode(…, 'hex')`, as C and most languages write hex.
        let from = if line.text.starts_with(b"0x") || line.text.starts_with(b"0X") {
            2
        } else {
            0
        };
        digits.push_line(&line, from)?;
    }
    digits.finish("hex digits")
}

/// Decode bytea text: one or more `\x` values, bare or in psql's aligned table.
pub(super) fn decode_bytea(data: &[u8]) -> Result<Vec<u8>, InputError> {
    let format = InputFormat::Bytea;
    let mut digits = Digits::new(format, data.len() / 2);
    let mut in_value = false;
    for line in text::content_lines(format, data) {
        let line = &line?;
        if line.text.starts_with(b"\\x") || line.text.starts_with(b"\\X") {
            digits.end_value()?;
            in_value = true;
            digits.push_line(line, 2)?;
        } else if in_value {
            // A value wrapped onto further lines (by a terminal or an editor).
            digits.push_line(line, 0)?;
        } else {
            return Err(line.error(
                format,
                0,
                format!(
                    "expected a bytea value starting with \\x, found {}",
                    excerpt(line.text)
                ),
            ));
        }
    }
    digits.finish("a bytea value (\\x and hex digits)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_ignores_whitespace_and_case() {
        assert_eq!(
            decode_hex(InputFormat::Hex, b"00Ff a8\r\n6B\n\n  01\n").expect("valid"),
            vec![0x00, 0xff, 0xa8, 0x6b, 0x01]
        );
    }

    #[test]
    fn hex_bad_digit_names_line_and_offset() {
        let err = decode_hex(InputFormat::Hex, b"0011\n22zz33\n").expect_err("bad digit");
        assert_eq!(err.line, Some(2));
        assert_eq!(err.offset, Some(7));
        assert_eq!(err.message, "expected hex digits, found \"zz33\"");
        assert_eq!(
            err.to_string(),
            "hex input, line 2 (byte 7): expected hex digits, found \"zz33\""
        );
    }

    #[test]
    fn hex_odd_digit_count_points_at_the_last_digit() {
        let err = decode_hex(InputFormat::Hex, b"0011\n223\n").expect_err("odd");
        assert_eq!((err.line, err.offset), (Some(2), Some(7)));
        assert!(err.message.contains("even number of hex digits, found 7"));
    }

    #[test]
    fn hex_empty_is_an_error() {
        let err = decode_hex(InputFormat::Hex, b" \n\n").expect_err("empty");
        assert_eq!(err.message, "expected hex digits, found no data");
        assert_eq!((err.line, err.offset), (None, None));
    }

    #[test]
    fn bytea_bare_and_in_table() {
        assert_eq!(decode_bytea(b"\\x00ab\n").expect("bare"), vec![0x00, 0xab]);
        let table = b"  get_raw_page\n--------------\n \\x00ab\n \\x01\n(2 rows)\n\n";
        assert_eq!(decode_bytea(table).expect("table"), vec![0x00, 0xab, 0x01]);
    }

    #[test]
    fn bytea_errors() {
        let err = decode_bytea(b"00ab\n").expect_err("no \\x");
        assert_eq!((err.line, err.offset), (Some(1), Some(0)));
        assert!(err
            .message
            .starts_with("expected a bytea value starting with \\x"));
        let err = decode_bytea(b"\\x001\n\\x00\n").expect_err("odd value");
        assert_eq!((err.line, err.offset), (Some(1), Some(4)));
        let err = decode_bytea(b"\\x\n").expect_err("empty value");
        assert!(err.message.ends_with("found no data"));
    }
}
