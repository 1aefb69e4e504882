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

use super::dump::{parse_offset_line, AsciiColumn, Assembler, DumpLine};
use super::text::{hex_run, lines, Line};
use super::{InputError, InputFormat};

const FORMAT: InputFormat = InputFormat::Od;

fn parse_line(line: Line<'_>) -> Result<DumpLine<'_>, InputError> {
    parse_offset_line(
        line,
        FORMAT,
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
    let mut assembler = Assembler::new(FORMAT, radix, limit, data.len(), dry);
    for line in lines(data).filter(|l| !l.is_blank()) {
        assembler.push(parse_line(line)?)?;
    }
    assembler.finish()
}

/// Decode od output, expanding `*` runs to at most `limit` bytes.
pub(super) fn decode(data: &[u8], limit: u64) -> Result<Vec<u8>, InputError> {
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
}
