//! `xxd` output:
//!
//! ```text
//! 00000000: 0000 0000 a86b 5701 0000 0000 2800 601f  .....kW.....(.`.
//! 00000010: 0000 0000 0000 0000 0000 0000 0000 0000  ................
//! *
//! 00001ff0: 0000 0000 0000 0000 0000 0000 0300 0000  ................
//! ```
//!
//! A hex offset and a colon, then groups of hex digits (two per byte, any `-g`
//! grouping) separated by single spaces, then at least two spaces and the ASCII
//! column, which may hold anything, hex-looking text and spaces included. `xxd -a`
//! folds runs of zero lines into `*` and always prints the last line. xxd prints no
//! end offset, so the last line is trusted as it stands. Plain `xxd -p` text has no
//! offsets and is decoded as hex.

use super::dump::{Assembler, DumpKind, DumpLine};
use super::hex;
use super::text::{excerpt, hex_run, lines, Line};
use super::{InputError, InputFormat};

const FORMAT: InputFormat = InputFormat::Xxd;

fn parse_line(line: Line<'_>) -> Result<DumpLine<'_>, InputError> {
    let t = line.text;
    if t == b"*" {
        return Ok(DumpLine {
            line,
            kind: DumpKind::Repeat,
        });
    }
    let digits = hex_run(t);
    if digits == 0 || t.get(digits) != Some(&b':') {
        return Err(line.error(
            FORMAT,
            0,
            format!(
                "expected an offset like \"00000010:\" followed by hex groups, found {}",
                excerpt(t)
            ),
        ));
    }
    let offset = t.get(..digits).unwrap_or(&[]);
    let mut col = digits.saturating_add(1);
    if t.get(col) != Some(&b' ') || !t.get(col + 1).is_some_and(u8::is_ascii_hexdigit) {
        return Err(line.error(
            FORMAT,
            col,
            format!(
                "expected a space and hex groups after the offset, found {}",
                excerpt(line.rest(col))
            ),
        ));
    }
    col += 1;
    let hex_start = col;
    let mut count = 0usize;
    loop {
        let group = line.rest(col);
        let run = hex_run(group);
        if run == 0 || !run.is_multiple_of(2) {
            return Err(line.error(
                FORMAT,
                col,
                format!(
                    "expected a group of hex byte pairs, found {}",
                    excerpt(group)
                ),
            ));
        }
        count += run / 2;
        col += run;
        match (t.get(col), t.get(col + 1)) {
            // Two spaces: the ASCII column follows.
            (Some(b' '), Some(b' ')) => break,
            (Some(b' '), Some(b)) if b.is_ascii_hexdigit() => col += 1,
            // The end of the line: only possible when the ASCII column was all
            // spaces and trailing whitespace was trimmed.
            (None, _) if all_spaces(t.get(hex_start..col).unwrap_or(&[])) => break,
            (None, _) => {
                return Err(line.error(
                    FORMAT,
                    col,
                    "expected two spaces and the ascii column after the hex groups, found the end of the line (a truncated line?)".to_string(),
                ));
            }
            _ => {
                return Err(line.error(
                    FORMAT,
                    col,
                    format!(
                        "expected a space between hex groups or two before the ascii column, found {}",
                        excerpt(line.rest(col))
                    ),
                ));
            }
        }
    }
    Ok(DumpLine {
        line,
        kind: DumpKind::Data {
            offset,
            hex: t.get(hex_start..col).unwrap_or(&[]),
            count,
        },
    })
}

/// Whether a checked hex area holds only 0x20 bytes (whose ASCII column is blank).
fn all_spaces(hex: &[u8]) -> bool {
    hex.iter()
        .filter(|b| b.is_ascii_hexdigit())
        .enumerate()
        .all(|(i, &b)| b == if i % 2 == 0 { b'2' } else { b'0' })
}

/// Whether the first non-blank line is plain hex (`xxd -p`) rather than a dump.
fn is_plain(data: &[u8]) -> bool {
    lines(data)
        .find(|l| !l.is_blank())
        .is_some_and(|l| l.text.iter().all(u8::is_ascii_hexdigit))
}

/// Decode xxd output (or `xxd -p` plain hex), expanding `*` runs to at most
/// `limit` bytes.
pub(super) fn decode(data: &[u8], limit: u64) -> Result<Vec<u8>, InputError> {
    if is_plain(data) {
        return hex::decode_hex(FORMAT, data);
    }
    let mut assembler = Assembler::new(FORMAT, 16, limit, data.len(), false);
    for line in lines(data).filter(|l| !l.is_blank()) {
        assembler.push(parse_line(line)?)?;
    }
    assembler.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_column_with_hex_looking_text_is_ignored() {
        let text = "00000000: 6465 2061 6420 207c 6265 3e65 663c 2037  de ad  |be>ef< 7\n\
                    00000010: 41                                       A\n";
        let mut want = b"de ad  |be>ef< 7".to_vec();
        want.push(b'A');
        assert_eq!(decode(text.as_bytes(), 1 << 20).expect("ok"), want);
    }

    #[test]
    fn groupings_and_spaces_only_ascii() {
        let g1 = "00000000: 20 20 41  \x20\x20A\n";
        assert_eq!(decode(g1.as_bytes(), 1 << 20).expect("g1"), b"  A".to_vec());
        let g4 = "00000000: 20202020  \n";
        assert_eq!(
            decode(g4.as_bytes(), 1 << 20).expect("g4"),
            b"    ".to_vec()
        );
        let plain = "00112233\n4455\n";
        assert_eq!(
            decode(plain.as_bytes(), 1 << 20).expect("plain"),
            vec![0, 0x11, 0x22, 0x33, 0x44, 0x55]
        );
    }

    #[test]
    fn malformed_lines() {
        let err = decode(b"00000000: 0000 00g0  ....\n", 1 << 20).expect_err("bad digit");
        assert_eq!((err.line, err.offset), (Some(1), Some(17)));
        let err = decode(b"00000000: 0000 000  ...\n", 1 << 20).expect_err("odd group");
        assert_eq!((err.line, err.offset), (Some(1), Some(15)));
        let text = b"00000000: 4142 4344  ABCD\n00000004: 4546\n";
        let err = decode(text, 1 << 20).expect_err("truncated");
        assert_eq!((err.line, err.offset), (Some(2), Some(40)));
        assert!(err.message.contains("truncated"), "{err}");
        let text = b"00000000: 4142 4344  ABCD\n00000008: 4546  EF\n";
        let err = decode(text, 1 << 20).expect_err("gap");
        assert_eq!(err.line, Some(2));
        assert!(err.message.contains("skips 4 bytes"), "{err}");
        let err = decode(b"0000000 4142\n", 1 << 20).expect_err("no colon");
        assert_eq!(err.line, Some(1));
    }

    #[test]
    fn huge_star_jump_is_refused() {
        let text = b"00000000: 0000  ..\n*\nffffffff: 0000  ..\n";
        let err = decode(text, 1 << 20).expect_err("too far");
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("implausibly far"), "{err}");
    }
}
