//! Base64 text, as `encode(get_raw_page('t', 0), 'base64')` or coreutils `base64`
//! print it: the standard alphabet in lines of 76 characters, whitespace ignored,
//! `=` padding required at the end. psql's aligned table around the value is
//! accepted too; there every line of a multi-line value but the last ends in a `+`
//! continuation mark, recognised because a base64 line is a multiple of 4 long.

use super::text::{self, excerpt, is_space, Line, Psql};
use super::{InputError, InputFormat};

const FORMAT: InputFormat = InputFormat::Base64;

/// The 6-bit value of a base64 character.
fn sextet(b: u8) -> Option<u32> {
    let v = match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

/// Base64 characters gathered into bytes.
struct Decoder {
    out: Vec<u8>,
    /// The sextets of the current 4-character group.
    acc: u32,
    /// How many sextets `acc` holds (0..=3).
    held: u8,
    /// How many `=` have been seen (0..=2).
    pads: u8,
}

impl Decoder {
    fn push(&mut self, line: &Line<'_>, col: usize, b: u8) -> Result<(), InputError> {
        if b == b'=' {
            if self.held < 2 {
                return Err(line.error(
                    FORMAT,
                    col,
                    format!(
                        "expected base64 characters, found '=' padding after only {} character(s) of a 4-character group: {}",
                        self.held,
                        excerpt(line.rest(col))
                    ),
                ));
            }
            self.pads = self.pads.saturating_add(1);
            if self.held.saturating_add(self.pads) > 4 {
                return Err(line.error(
                    FORMAT,
                    col,
                    format!(
                        "expected the end of the base64 text, found too much '=' padding: {}",
                        excerpt(line.rest(col))
                    ),
                ));
            }
            if self.held.saturating_add(self.pads) == 4 {
                self.flush_partial();
            }
            return Ok(());
        }
        if self.pads > 0 {
            return Err(line.error(
                FORMAT,
                col,
                format!(
                    "expected the end of the base64 text after '=' padding, found {}",
                    excerpt(line.rest(col))
                ),
            ));
        }
        let Some(v) = sextet(b) else {
            return Err(line.error(
                FORMAT,
                col,
                format!(
                    "expected base64 characters (A-Z a-z 0-9 + / =), found {}",
                    excerpt(line.rest(col))
                ),
            ));
        };
        self.acc = self.acc << 6 | v;
        self.held += 1;
        if self.held == 4 {
            let [_, b0, b1, b2] = self.acc.to_be_bytes();
            self.out.extend_from_slice(&[b0, b1, b2]);
            self.acc = 0;
            self.held = 0;
        }
        Ok(())
    }

    /// The bytes of a group completed by padding: 2 sextets give 1 byte, 3 give 2.
    fn flush_partial(&mut self) {
        match self.held {
            2 => self.out.push((self.acc >> 4) as u8),
            3 => {
                let [_, _, b0, b1] = (self.acc >> 2).to_be_bytes();
                self.out.extend_from_slice(&[b0, b1]);
            }
            _ => {}
        }
        // Keep `held` as it is: with `pads` it records that the group is complete.
    }
}

/// Decode base64 text.
pub(super) fn decode(data: &[u8]) -> Result<Vec<u8>, InputError> {
    let content = text::content_lines(FORMAT, data);
    let in_psql = content.layout != Psql::No;
    let mut dec = Decoder {
        out: Vec::with_capacity(data.len() / 4 * 3 + 3),
        acc: 0,
        held: 0,
        pads: 0,
    };
    for line in content {
        let line = &line?;
        let mut body = line.text;
        if in_psql && body.len() % 4 == 1 {
            body = body.strip_suffix(b"+").unwrap_or(body);
        }
        for (col, &b) in body.iter().enumerate() {
            if !is_space(b) {
                dec.push(line, col, b)?;
            }
        }
    }
    let end = Some(data.len() as u64);
    if dec.pads > 0 && dec.held.saturating_add(dec.pads) < 4 {
        return Err(InputError {
            format: FORMAT,
            line: None,
            offset: end,
            message: format!(
                "expected {} more '=' to complete the last 4-character group, found the end of the input",
                4 - dec.held.saturating_add(dec.pads)
            ),
        });
    }
    if dec.pads == 0 && dec.held > 0 {
        return Err(InputError {
            format: FORMAT,
            line: None,
            offset: end,
            message: format!(
                "expected base64 text in whole 4-character groups (with '=' padding), found {} character(s) left over at the end",
                dec.held
            ),
        });
    }
    if dec.out.is_empty() {
        return Err(InputError::whole(
            FORMAT,
            "expected base64 text, found no data".to_string(),
        ));
    }
    Ok(dec.out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_with_and_without_padding() {
        assert_eq!(decode(b"AAAA\n").expect("ok"), vec![0, 0, 0]);
        assert_eq!(decode(b"TWFu\r\nTWE=\n").expect("ok"), b"ManMa".to_vec());
        assert_eq!(decode(b"TQ==").expect("ok"), b"M".to_vec());
        assert_eq!(decode(b"+/+/").expect("ok"), vec![0xfb, 0xff, 0xbf]);
    }

    #[test]
    fn psql_table_continuation_marks_are_dropped() {
        let table = b"  encode\n--------\n TWFu+\n TWE=\n(1 row)\n";
        assert_eq!(decode(table).expect("ok"), b"ManMa".to_vec());
    }

    #[test]
    fn errors_say_where() {
        let err = decode(b"TWFu\nTW*u\n").expect_err("bad char");
        assert_eq!((err.line, err.offset), (Some(2), Some(7)));
        assert!(err.message.ends_with("found \"*u\""));
        let err = decode(b"TWFuT").expect_err("left over");
        assert_eq!((err.line, err.offset), (None, Some(5)));
        let err = decode(b"TWE=TWFu").expect_err("data after padding");
        assert_eq!((err.line, err.offset), (Some(1), Some(4)));
        let err = decode(b"TQ=").expect_err("short padding");
        assert!(err.message.starts_with("expected 1 more '='"));
        let err = decode(b"T===").expect_err("early padding");
        assert_eq!(err.offset, Some(1));
        let err = decode(b"TWE==").expect_err("too much padding");
        assert_eq!(err.offset, Some(4));
        let err = decode(b"\n \n").expect_err("empty");
        assert_eq!(err.message, "expected base64 text, found no data");
    }
}
