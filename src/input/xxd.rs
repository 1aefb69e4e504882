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
//!
//! `xxd -e` prints little-endian words (4 bytes, or `-g` bytes) and right-aligns
//! a last group that is short:
//!
//! ```text
//! 00000000: 00000000 01b7b968 000089fd 1e98003c  ....h.......<...
//! 00000010:   737271                             qrs
//! ```
//!
//! The text does not say `-e`; its ASCII column does: the input is read as
//! `xxd -e` when the characters of some line match its groups' bytes swapped
//! and of none as they stand, or when a short group is right-aligned.

use super::dump::{Assembler, DumpKind, DumpLine};
use super::hex;
use super::text::{excerpt, hex_run, lines, Line};
use super::{InputError, InputFormat};

const FORMAT: InputFormat = InputFormat::Xxd;

/// The hex digits of a line's offset, which a `:` must follow.
fn offset_digits(line: &Line<'_>) -> Result<usize, InputError> {
    let t = line.text;
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
    Ok(digits)
}

fn parse_line(line: Line<'_>) -> Result<DumpLine<'_>, InputError> {
    parse_line_at(line).map(|(l, _)| l)
}

/// A line and where its hex groups end (the ASCII column follows two spaces on).
fn parse_line_at(line: Line<'_>) -> Result<(DumpLine<'_>, usize), InputError> {
    let t = line.text;
    if t == b"*" {
        return Ok((
            DumpLine {
                line,
                kind: DumpKind::Repeat,
            },
            0,
        ));
    }
    let digits = offset_digits(&line)?;
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
    Ok((
        DumpLine {
            line,
            kind: DumpKind::Data {
                offset,
                hex: t.get(hex_start..col).unwrap_or(&[]),
                count,
                word: 0,
            },
        },
        col,
    ))
}

/// The character xxd prints for a byte in its ASCII column.
fn shown(b: u8) -> u8 {
    if (0x20..=0x7e).contains(&b) {
        b
    } else {
        b'.'
    }
}

/// Whether the ASCII column `ascii` shows the bytes of `hex`'s groups, each
/// group's bytes reversed when `swap` (trailing spaces may have been trimmed).
fn ascii_shows(hex: &[u8], ascii: &[u8], swap: bool) -> bool {
    let mut bytes = Vec::new();
    for group in hex.split(|&b| b == b' ').filter(|g| !g.is_empty()) {
        let from = bytes.len();
        bytes.extend(group.chunks(2).filter_map(super::text::hex_pair));
        if swap {
            if let Some(g) = bytes.get_mut(from..) {
                g.reverse();
            }
        }
    }
    ascii.len() <= bytes.len()
        && bytes
            .iter()
            .enumerate()
            .all(|(i, &b)| ascii.get(i).map_or(b == b' ', |&c| c == shown(b)))
}

/// Whether `data` is `xxd -e` output (see the module documentation).
fn is_little_endian(data: &[u8]) -> bool {
    let (mut swapped, mut as_is, mut short) = (0usize, 0usize, false);
    let (mut width, mut full) = (None, None);
    // xxd pads short lines: the ASCII column starts where the first line's does.
    let mut ascii_col = None;
    for line in lines(data).filter(|l| !l.is_blank() && l.text != b"*") {
        let mut reads_as_is = false;
        if let Ok((
            DumpLine {
                kind: DumpKind::Data { hex, .. },
                ..
            },
            end,
        )) = parse_line_at(line)
        {
            let ascii = line.rest(*ascii_col.get_or_insert(end.saturating_add(2)));
            match (
                ascii_shows(hex, ascii, true),
                ascii_shows(hex, ascii, false),
            ) {
                (true, false) => swapped += 1,
                (false, true) => {
                    as_is += 1;
                    reads_as_is = true;
                }
                _ => {}
            }
        }
        // A right-aligned short group is xxd -e's alone.
        if !reads_as_is && matches!(parse_line_e(line, &mut width, &mut full), Ok((_, true))) {
            short = true;
        }
    }
    (swapped > 0 || short) && as_is == 0
}

/// A line of `xxd -e`: groups of `width` hex digits one space apart, the last
/// maybe shorter and right-aligned, then the ASCII column. `width` is the
/// first group's (set here), `full` the first line's byte count: only a line
/// with fewer bytes may end in a short group. Also says whether it did.
fn parse_line_e<'a>(
    line: Line<'a>,
    width: &mut Option<usize>,
    full: &mut Option<usize>,
) -> Result<(DumpLine<'a>, bool), InputError> {
    let t = line.text;
    if t == b"*" {
        return Ok((
            DumpLine {
                line,
                kind: DumpKind::Repeat,
            },
            false,
        ));
    }
    let digits = offset_digits(&line)?;
    let offset = t.get(..digits).unwrap_or(&[]);
    let hex_start = digits.saturating_add(1);
    let mut col = hex_start;
    let mut count = 0usize;
    let mut ended_short = false;
    loop {
        let gap = line.rest(col).iter().take_while(|&&b| b == b' ').count();
        let at = col.saturating_add(gap);
        let run = hex_run(line.rest(at));
        if run == 0 || gap == 0 || (gap == 2 && count > 0) {
            break;
        }
        let w = *width.get_or_insert(gap - 1 + run);
        let ends = matches!(t.get(at + run), None | Some(b' '));
        let whole = gap == 1 && run == w && ends;
        let short = gap >= 2
            && run.is_multiple_of(2)
            && gap - 1 + run == w
            && ends
            && full.is_none_or(|f| count + run / 2 < f);
        if !whole && !short {
            break;
        }
        count += run / 2;
        col = at + run;
        if short {
            ended_short = true;
            break;
        }
    }
    // The groups end at the end of the line or two spaces before the ASCII column.
    let ends = line.rest(col).is_empty() || line.rest(col).starts_with(b"  ");
    if count > 0 && !ends {
        return Err(line.error(
            FORMAT,
            col,
            format!(
                "expected a space and a hex group of {} digits, or two spaces and the ascii column, found {}",
                width.unwrap_or(0),
                excerpt(line.rest(col))
            ),
        ));
    }
    if count == 0 {
        return Err(line.error(
            FORMAT,
            hex_start,
            format!(
                "expected hex groups after the offset, found {}",
                excerpt(line.rest(hex_start))
            ),
        ));
    }
    full.get_or_insert(count);
    Ok((
        DumpLine {
            line,
            kind: DumpKind::Data {
                offset,
                hex: t.get(hex_start..col).unwrap_or(&[]),
                count,
                word: width.unwrap_or(0) / 2,
            },
        },
        ended_short,
    ))
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
    if is_little_endian(data) {
        let (mut width, mut full) = (None, None);
        for line in lines(data).filter(|l| !l.is_blank()) {
            assembler.push(parse_line_e(line, &mut width, &mut full)?.0)?;
        }
        return assembler.finish();
    }
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

    /// xxd -e over 19 bytes "a".."s" (4- and 2-byte groups, the last short
    /// and right-aligned), and over 48 zero bytes and "abcd" with -a.
    #[test]
    fn little_endian_groups_are_swapped_back() {
        let want = b"abcdefghijklmnopqrs".to_vec();
        let g4 = "00000000: 64636261 68676665 6c6b6a69 706f6e6d  abcdefghijklmnop\n\
                  00000010:   737271                             qrs\n";
        assert_eq!(decode(g4.as_bytes(), 1 << 20).expect("g4"), want);
        let g2 = "00000000: 6261 6463 6665 6867 6a69 6c6b 6e6d 706f  abcdefghijklmnop\n\
                  00000010: 7271   73                                qrs\n";
        assert_eq!(decode(g2.as_bytes(), 1 << 20).expect("g2"), want);
        let short = "00000000: 64636261       65                    abcde\n";
        assert_eq!(
            decode(short.as_bytes(), 1 << 20).expect("short"),
            b"abcde".to_vec()
        );
        let star = "00000000: 00000000 00000000 00000000 00000000  ................\n\
                    *\n\
                    00000030: 64636261                             abcd\n";
        let mut want = vec![0u8; 48];
        want.extend_from_slice(b"abcd");
        assert_eq!(decode(star.as_bytes(), 1 << 20).expect("star"), want);
        // The same groups whose ASCII column reads them as they stand: xxd -g4.
        let g4 = "00000000: 61626364  abcd\n";
        assert_eq!(
            decode(g4.as_bytes(), 1 << 20).expect("-g4"),
            b"abcd".to_vec()
        );
    }
}
