//! `hexdump -C` (also `hd`) output:
//!
//! ```text
//! 00000000  00 00 00 00 a8 6b 57 01  00 00 00 00 28 00 60 1f  |.....kW.....(.`.|
//! 00000010  00 20 04 20 00 00 00 00  d8 9f 4e 00 b0 9f 4e 00  |. . ......N...N.|
//! *
//! 00001ff0  01 00 00 00 17 61 61 61  61 61 61 61 61 61 61 00  |.....aaaaaaaaaa.|
//! 00002000
//! ```
//!
//! A hex offset, byte pairs (an extra space after the eighth), then the ASCII column
//! between `|` and `|` with one character per byte; `*` folds repeated lines and a
//! bare offset ends the dump.
//!
//! Plain `hexdump` and `hexdump -x` print no ASCII column but little-endian
//! 16-bit words, the text of `od -x` with hex offsets: read as od reads it.

use super::dump::{parse_offset_line, AsciiColumn, Assembler, DumpLine};
use super::text::{lines, Line};
use super::{InputError, InputFormat};

const FORMAT: InputFormat = InputFormat::Hexdump;

fn parse_line(line: Line<'_>) -> Result<DumpLine<'_>, InputError> {
    parse_offset_line(
        line,
        FORMAT,
        "expected an offset followed by hex byte pairs and |ascii|",
        "expected hex byte pairs after the offset",
        &AsciiColumn {
            open: b'|',
            close: b'|',
            required: true,
        },
    )
}

/// Decode `hexdump -C` output, expanding `*` runs to at most `limit` bytes.
pub(super) fn decode(data: &[u8], limit: u64) -> Result<Vec<u8>, InputError> {
    let canonical = lines(data)
        .find(|l| !l.is_blank())
        .is_none_or(|l| l.text.contains(&b'|'));
    if !canonical {
        return super::od::run_as(FORMAT, data, 16, limit, false);
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
    fn ascii_column_holding_bars_is_fine() {
        let text = "00000000  64 65 20 7c 7c  |de ||| \n00000005\n";
        // trailing whitespace is trimmed but the column ends with '|'.
        let text = text.replace("||| \n", "|||\n");
        assert_eq!(
            decode(text.as_bytes(), 1 << 20).expect("ok"),
            b"de ||".to_vec()
        );
    }

    #[test]
    fn malformed_lines() {
        let text = b"00000000  41 42 43 44  |ABCD|\n00000004  45 46\n00000006\n";
        let err = decode(text, 1 << 20).expect_err("truncated");
        assert_eq!((err.line, err.offset), (Some(2), Some(45)));
        let text = b"00000000  41 42 43 44  |ABC|\n00000004\n";
        let err = decode(text, 1 << 20).expect_err("short ascii");
        assert_eq!((err.line, err.offset), (Some(1), Some(23)));
        let text = b"00000000  41 4g 43 44  |ABCD|\n";
        let err = decode(text, 1 << 20).expect_err("bad digit");
        assert_eq!((err.line, err.offset), (Some(1), Some(13)));
        assert!(err.message.ends_with("found \"4g 43 44  |ABCD|\""), "{err}");
        let text = b"00000000  41 42 43 44  |ABCD|\n00000002  45  |E|\n";
        let err = decode(text, 1 << 20).expect_err("backwards");
        assert_eq!(err.line, Some(2));
    }

    #[test]
    fn huge_star_jump_is_refused() {
        let text = b"00000000  00 00  |..|\n*\nffffffffff\n";
        let err = decode(text, 1 << 20).expect_err("too far");
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("implausibly far"), "{err}");
    }
}
