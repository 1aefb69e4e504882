//! `od -t x1` output:
//!
//! ```text
//! 0000000 00 00 00 00 a8 6b 57 01 00 00 00 00 28 00 60 1f
//! 0000016 00 20 04 20 00 00 00 00 d8 9f 4e 00 b0 9f 4e 00
//! *
//! 0008176 01 00 00 00 17 61 61 61 61 61 61 61 61 61 61 00
//! 0008192
//! ```
//!
//! An offset, then byte pairs; with `-t x1z` an ASCII column `>...<` follows. The
//! offsets are decimal (`-A d`), hex (`-A x`) or octal (`-A o`, od's default), and
//! the text does not say which: an offset with a letter in it is hex; otherwise the
//! radix is the first of decimal, hex and octal in which every offset is where the
//! bytes before it end.
//!
//! `od -x`, `od -t x2`, `-t x4` and `-t x8` print little-endian words instead of
//! bytes (plain `hexdump` and `hexdump -x` print the same text with hex offsets):
//! their bytes are swapped back (see `dump`). With `-A n` there are no offsets:
//! the lines are read one after another, and a `*` line, whose run no offset
//! ends, is an error (`od -v` prints every line).

use super::dump::{parse_offset_line, AsciiColumn, Assembler, DumpLine};
use super::text::{excerpt, hex_run, is_space, lines, parse_number, Line};
use super::{InputError, InputFormat};

const FORMAT: InputFormat = InputFormat::Od;

fn parse_line(line: Line<'_>, format: InputFormat) -> Result<DumpLine<'_>, InputError> {
    parse_offset_line(
        line,
        format,
        "expected an offset followed by hex byte pairs",
        "expected an offset followed by hex byte pairs",
        &AsciiColumn {
            open: b'>',
            close: b'<',
            required: false,
        },
    )
}

/// Decode od output with offsets in `radix`; a dry run only checks it.
fn run(data: &[u8], radix: u32, limit: u64, dry: bool) -> Result<Vec<u8>, InputError> {
    run_as(FORMAT, data, radix, limit, dry)
}

/// Decode od-shaped lines (od's, or plain `hexdump`'s, named `format` in
/// messages) with offsets in `radix`; a dry run only checks them.
pub(super) fn run_as(
    format: InputFormat,
    data: &[u8],
    radix: u32,
    limit: u64,
    dry: bool,
) -> Result<Vec<u8>, InputError> {
    let mut assembler = Assembler::new(format, radix, limit, data.len(), dry);
    for line in lines(data).filter(|l| !l.is_blank()) {
        assembler.push(parse_line(line, format)?)?;
    }
    assembler.finish()
}

/// The groups of a line before its `>ascii<` column.
fn groups(t: &[u8]) -> impl Iterator<Item = &[u8]> {
    let hex = t.split(|&b| b == b'>').next().unwrap_or(&[]);
    hex.split(|&b| is_space(b)).filter(|g| !g.is_empty())
}

/// Whether `line` is a line of `od -A n`: groups of one width (2, 4, 8 or 16
/// hex digits), the first no offset.
fn is_addressless_line(t: &[u8]) -> bool {
    let mut g = groups(t);
    let Some(first) = g.next() else {
        return false;
    };
    matches!(first.len(), 2 | 4 | 8 | 16)
        && hex_run(first) == first.len()
        && g.all(|c| c.len() == first.len() && hex_run(c) == c.len())
}

/// Whether `data` is `od -A n` output: its first line is all groups of one
/// width, and the first groups of its first two lines are not offsets a
/// line's bytes apart (which a dump whose offsets are as wide as its words
/// would show).
pub(super) fn is_addressless(data: &[u8]) -> bool {
    let mut nonblank = lines(data).filter(|l| !l.is_blank());
    let Some(first) = nonblank.next() else {
        return false;
    };
    if !is_addressless_line(first.text) {
        return false;
    }
    let second = nonblank.next();
    let Some(second) = second.filter(|l| l.text != b"*") else {
        return true;
    };
    let head = |t: &[u8]| groups(t).next().unwrap_or(&[]).to_vec();
    let bytes_after_first: usize = groups(first.text).skip(1).map(|g| g.len() / 2).sum();
    ![8u32, 10, 16].iter().any(|&radix| {
        let a = parse_number(&head(first.text), radix);
        let b = parse_number(&head(second.text), radix);
        matches!((a, b), (Some(a), Some(b)) if b.checked_sub(a) == Some(bytes_after_first as u64))
    })
}

/// Decode `od -A n` output: the groups of every line in order, words
/// swapped back; the text after a `>` is the ASCII column.
fn decode_addressless(data: &[u8]) -> Result<Vec<u8>, InputError> {
    let mut out = Vec::with_capacity(data.len() / 2);
    let mut width = None;
    for line in lines(data).filter(|l| !l.is_blank()) {
        if line.text == b"*" {
            return Err(line.error(
                FORMAT,
                0,
                "expected a line of bytes, found \"*\": od -A n folds repeated lines without offsets, \
                 so the run's length is unknown (print every line with od -v)"
                    .to_string(),
            ));
        }
        let w = *width.get_or_insert_with(|| groups(line.text).next().map_or(2, <[u8]>::len));
        let mut col = 0usize;
        let text = line.text.split(|&b| b == b'>').next().unwrap_or(&[]);
        for chunk in text.split(|&b| is_space(b)) {
            if !chunk.is_empty() {
                if chunk.len() != w || hex_run(chunk) != w {
                    return Err(line.error(
                        FORMAT,
                        col,
                        format!(
                            "expected {w}-digit hex groups like the first line's, found {}",
                            excerpt(line.rest(col))
                        ),
                    ));
                }
                let from = out.len();
                out.extend(chunk.chunks(2).filter_map(super::text::hex_pair));
                if let Some(word) = out.get_mut(from..) {
                    word.reverse();
                }
            }
            col = col.saturating_add(chunk.len()).saturating_add(1);
        }
    }
    if out.is_empty() {
        return Err(InputError::whole(
            FORMAT,
            "expected od output, found no data".to_string(),
        ));
    }
    Ok(out)
}

/// Decode od output, expanding `*` runs to at most `limit` bytes.
pub(super) fn decode(data: &[u8], limit: u64) -> Result<Vec<u8>, InputError> {
    if is_addressless(data) {
        return decode_addressless(data);
    }
    let (mut letters, mut eights) = (false, false);
    for line in lines(data) {
        let offset = line.text.get(..hex_run(line.text)).unwrap_or(&[]);
        letters |= offset.iter().any(u8::is_ascii_alphabetic);
        eights |= offset.iter().any(|&b| b == b'8' || b == b'9');
    }
    let radixes: &[u32] = match (letters, eights) {
        (true, _) => return run(data, 16, limit, false),
        (false, true) => &[10, 16],
        (false, false) => &[10, 16, 8],
    };
    // Check each reading dry; keep the error of the one that got furthest: it is
    // the likeliest reading of a broken dump.
    let mut best: Option<InputError> = None;
    for &radix in radixes {
        match run(data, radix, limit, true) {
            Ok(_) => return run(data, radix, limit, false),
            Err(err) => {
                if best
                    .as_ref()
                    .is_none_or(|b| err.line.unwrap_or(0) > b.line.unwrap_or(0))
                {
                    best = Some(err);
                }
            }
        }
    }
    Err(best.unwrap_or_else(|| {
        InputError::whole(FORMAT, "expected od output, found no data".to_string())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECIMAL: &str = "\
0000000 00 00 00 00 a8 6b 57 01 00 00 00 00 28 00 60 1f
0000016 00 20 04 20 00 00 00 00 d8 9f 4e 00 b0 9f 4e 00
*
0000064 01 02 03
0000067
";

    fn expected() -> Vec<u8> {
        let mut v = vec![
            0x00, 0x00, 0x00, 0x00, 0xa8, 0x6b, 0x57, 0x01, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00,
            0x60, 0x1f,
        ];
        for _ in 0..3 {
            v.extend_from_slice(&[
                0x00, 0x20, 0x04, 0x20, 0x00, 0x00, 0x00, 0x00, 0xd8, 0x9f, 0x4e, 0x00, 0xb0, 0x9f,
                0x4e, 0x00,
            ]);
        }
        v.extend_from_slice(&[1, 2, 3]);
        v
    }

    #[test]
    fn all_three_radixes_decode_alike() {
        assert_eq!(
            decode(DECIMAL.as_bytes(), 1 << 20).expect("decimal"),
            expected()
        );
        let hex = DECIMAL
            .replace("0000016", "0000010")
            .replace("0000064", "0000040")
            .replace("0000067", "0000043");
        assert_eq!(decode(hex.as_bytes(), 1 << 20).expect("hex"), expected());
        let octal = DECIMAL
            .replace("0000016", "0000020")
            .replace("0000064", "0000100")
            .replace("0000067", "0000103");
        assert_eq!(
            decode(octal.as_bytes(), 1 << 20).expect("octal"),
            expected()
        );
    }

    #[test]
    fn bad_pair_is_reported_like_the_brief_says() {
        let text = DECIMAL.replace("0000064 01 02 03", "0000064 zz 01");
        let err = decode(text.as_bytes(), 1 << 20).expect_err("bad pair");
        assert_eq!(err.line, Some(4));
        assert_eq!(
            err.to_string(),
            "od input, line 4 (byte 122): expected an offset followed by hex byte pairs, found \"zz 01\""
        );
    }

    #[test]
    fn backwards_and_gaps_name_the_line() {
        let text = DECIMAL.replace("0000064", "0000000");
        let err = decode(text.as_bytes(), 1 << 20).expect_err("backwards");
        assert_eq!(err.line, Some(4));
        assert!(err.message.contains("goes backwards"), "{err}");
        let text = DECIMAL.replace("*\n", "");
        let err = decode(text.as_bytes(), 1 << 20).expect_err("gap");
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("skips 32 bytes"), "{err}");
        let text = DECIMAL.replace("0000067", "0000070");
        let err = decode(text.as_bytes(), 1 << 20).expect_err("short last line");
        assert_eq!(err.line, Some(4));
        assert!(err.message.contains("a truncated line?"), "{err}");
    }

    #[test]
    fn huge_star_jump_is_refused() {
        let text = "0000000 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n*\n9999999999\n";
        let err = decode(text.as_bytes(), 1 << 20).expect_err("too far");
        assert_eq!(err.line, Some(3));
        assert!(
            err.message
                .starts_with("offset 9999999999 on line 3 is implausibly far"),
            "{err}"
        );
    }

    #[test]
    fn star_at_the_end_or_start_is_an_error() {
        let err = decode(b"0000000 01\n*\n", 1 << 20).expect_err("dangling star");
        assert_eq!(err.line, Some(2));
        let err = decode(b"*\n0000016\n", 1 << 20).expect_err("leading star");
        assert_eq!(err.line, Some(1));
        let err = decode(b"0000000\n", 1 << 20).expect_err("no bytes");
        assert_eq!(err.line, None);
    }

    #[test]
    fn ascii_column_must_match_the_bytes() {
        let ok = "000000 41 3e 3c 42  >A><B<\n000004\n";
        assert_eq!(
            decode(ok.as_bytes(), 1 << 20).expect("ok"),
            b"A><B".to_vec()
        );
        let cut = "000000 41 3e 3c 42  >A><\n000004\n";
        let err = decode(cut.as_bytes(), 1 << 20).expect_err("cut");
        assert_eq!((err.line, err.offset), (Some(1), Some(20)));
    }

    /// od and hexdump over the 5 bytes "abcde", as the tools print them on a
    /// little-endian machine: words swapped back, the last one's zero padding
    /// cut off by the end offset.
    #[test]
    fn words_are_swapped_back_and_the_padding_cut() {
        for text in [
            "0000000 6261 6463 0065\n0000005\n",
            "000000 6261 6463 0065                           >abcde<\n000005\n",
            "0000000 64636261 00000065\n0000005\n",
        ] {
            assert_eq!(
                decode(text.as_bytes(), 1 << 20).expect(text),
                b"abcde".to_vec(),
                "{text}"
            );
        }
        // od -x over 48 zero bytes and "abcdefghijklmnopqrst": a '*' run of
        // words (octal offsets).
        let text = "0000000 0000 0000 0000 0000 0000 0000 0000 0000\n*\n\
                    0000060 6261 6463 6665 6867 6a69 6c6b 6e6d 706f\n\
                    0000100 7271 7473\n0000104\n";
        let mut want = vec![0u8; 48];
        want.extend_from_slice(b"abcdefghijklmnopqrst");
        assert_eq!(decode(text.as_bytes(), 1 << 20).expect("star"), want);
        // Padding longer than a word is a gap, not padding.
        let err = decode(b"0000000 6261 6463\n0000002\n", 1 << 20).expect_err("backwards");
        assert!(err.message.contains("goes backwards"), "{err}");
        // Groups of different widths on one line.
        let err = decode(b"0000000 6261 64\n0000003\n", 1 << 20).expect_err("mixed");
        assert_eq!((err.line, err.offset), (Some(1), Some(13)));
        assert!(
            err.message.starts_with("expected 4-digit hex words"),
            "{err}"
        );
    }

    #[test]
    fn addressless_words_are_read_in_order_and_a_star_refused() {
        let text = " 6261 6463\n 6665 6867\n";
        assert!(is_addressless(text.as_bytes()));
        assert_eq!(
            decode(text.as_bytes(), 1 << 20).expect("-A n -x"),
            b"abcdefgh".to_vec()
        );
        assert_eq!(
            decode(b" 61 62 63\n 64\n", 1 << 20).expect("-A n -t x1"),
            b"abcd".to_vec()
        );
        // od -A n -x over 48 zero bytes and "abcd".
        let text = " 0000 0000 0000 0000 0000 0000 0000 0000\n*\n 6261 6463\n";
        let err = decode(text.as_bytes(), 1 << 20).expect_err("star");
        assert_eq!(err.line, Some(2));
        assert!(err.message.contains("od -v"), "{err}");
        // A dump whose offsets are as wide as its words has addresses.
        let text = "00000000 64636261 68676665\n00000008 6c6b6a69\n0000000c\n";
        assert!(!is_addressless(text.as_bytes()));
        assert_eq!(
            decode(text.as_bytes(), 1 << 20).expect("-A x -t x4"),
            b"abcdefghijkl".to_vec()
        );
    }
}
