//! Guessing the format from the first 64 KiB.
//!
//! Binary data is raw (a leading UTF-8 byte order mark does not make text binary).
//! Text is recognised by its first non-blank line: a gdb prompt
//! or `0x...:` address, a `\x` bytea value, psql's table header or expanded
//! record header (then the value decides), a `hexdump -C`, `xxd` or `od` line. Anything else is hex when it holds
//! only hex digits and base64 when it holds only base64 characters; text that is
//! neither is called hex so that the hex decoder says where it goes wrong.

use std::borrow::Cow;

use super::text::{content_lines, hex_run, is_space, lines, psql_layout, Line, Psql, BOM};
use super::{InputFormat, SNIFF_LEN};
use crate::reader::Endian;

/// Printable ASCII and the whitespace dump tools print.
fn is_text_byte(b: u8) -> bool {
    matches!(b, 0x20..=0x7e) || is_space(b)
}

/// `0x1a5576000:` or `0x4040 <buf+8>:` followed by a `0x..` byte.
fn is_gdb_line(t: &[u8]) -> bool {
    let Some(rest) = t.strip_prefix(b"0x") else {
        return false;
    };
    let digits = hex_run(rest);
    let Some(colon) = rest.iter().position(|&b| b == b':') else {
        return false;
    };
    let between = rest.get(digits..colon).unwrap_or(&[]);
    let between_ok = between.is_empty()
        || between
            .iter()
            .position(|&b| !is_space(b))
            .is_some_and(|p| between.get(p) == Some(&b'<') && between.ends_with(b">"));
    let after = rest.get(colon.saturating_add(1)..).unwrap_or(&[]);
    let first_byte = after.iter().position(|&b| !is_space(b));
    digits > 0
        && between_ok
        && first_byte.is_some_and(|p| after.get(p..).is_some_and(|a| a.starts_with(b"0x")))
}

/// `00000000  00 00 ...`: an offset, two spaces, a hex pair.
fn is_hexdump_line(t: &[u8]) -> bool {
    let digits = hex_run(t);
    digits >= 4
        && t.get(digits..digits.saturating_add(2)) == Some(b"  ")
        && hex_run(t.get(digits.saturating_add(2)..).unwrap_or(&[])) == 2
        && t.contains(&b'|')
}

/// `00000000: 0000 ...`: an offset, a colon and a space, a hex digit.
fn is_xxd_line(t: &[u8]) -> bool {
    let digits = hex_run(t);
    digits >= 4
        && t.get(digits..digits.saturating_add(2)) == Some(b": ")
        && t.get(digits.saturating_add(2))
            .is_some_and(u8::is_ascii_hexdigit)
}

/// `0000000 00 00 ...`: an offset of 6 or more digits, then space-separated
/// pairs, or words of 4, 8 or 16 digits all alike (`od -x`, plain `hexdump`).
fn is_od_line(t: &[u8]) -> bool {
    let digits = hex_run(t);
    let rest = t.get(digits..).unwrap_or(&[]);
    // With -t x1z the ASCII column starts at the first '>'.
    let pairs = rest.split(|&b| b == b'>').next().unwrap_or(&[]);
    let mut groups = pairs.split(|&b| is_space(b)).filter(|c| !c.is_empty());
    let width = groups.clone().next().map_or(0, <[u8]>::len);
    digits >= 6
        && digits != width
        && matches!(width, 2 | 4 | 8 | 16)
        && rest.first() == Some(&b' ')
        && groups.all(|c| c.len() == width && hex_run(c) == width)
}

/// ` 0000 0000 b968 ...`: `od -A n` with words (`-x`, `-t x2`, `x4`, `x8`):
/// a line that starts with a space and holds two or more groups of 4, 8 or 16
/// hex digits, one space apart. (`od -A n -t x1` is plain hex.)
fn is_od_words_line(raw: &[u8]) -> bool {
    let Some(t) = raw.strip_prefix(b" ") else {
        return false;
    };
    let t = t.strip_suffix(b"\r").unwrap_or(t);
    let groups: Vec<&[u8]> = t.split(|&b| b == b' ').collect();
    let width = groups.first().map_or(0, |g| g.len());
    groups.len() >= 2
        && matches!(width, 4 | 8 | 16)
        && groups
            .iter()
            .all(|g| g.len() == width && hex_run(g) == width)
}

/// Hex or base64, judged by the characters of `lines`.
///
/// Base64 of real data mixes upper- and lower-case letters, or shows `+`, `/` or
/// `=`; hex tools print one case. So text is base64 when it does either, or when it
/// is upper-case in lines of exactly 76 characters (the width of both PostgreSQL's
/// and coreutils' base64), and hex otherwise: a typo in hex (`a8kb`) stays hex, and
/// the hex decoder points at it. Other characters decide nothing: the decoder
/// chosen reports them.
pub(super) fn hex_or_base64<'a>(lines: impl Iterator<Item = Line<'a>>) -> InputFormat {
    let (mut upper, mut lower, mut symbol) = (false, false, false);
    let (mut lines_seen, mut lines_76) = (0usize, 0usize);
    let mut last_len = 0usize;
    for line in lines.filter(|l| !l.is_blank()) {
        for &b in line.text {
            match b {
                b'A'..=b'Z' => upper = true,
                b'a'..=b'z' => lower = true,
                b'0'..=b'9' => {}
                b'+' | b'/' | b'=' => symbol = true,
                _ => {}
            }
        }
        lines_seen += 1;
        if line.text.len() == 76 {
            lines_76 += 1;
        }
        last_len = line.text.len();
    }
    // The last line of the sample may be short (or cut at 64 KiB).
    let full_lines = if last_len == 76 {
        lines_seen
    } else {
        lines_seen.saturating_sub(1)
    };
    let base64_shaped = lines_seen >= 2 && lines_76 == full_lines;
    if symbol || (upper && lower) || (upper && base64_shaped) {
        InputFormat::Base64
    } else {
        InputFormat::Hex
    }
}

/// The lines that mark an Oracle block-dump trace (after leading blanks).
const TRACE_MARKS: [&[u8]; 5] = [
    b"Start dump data blocks",
    b"Block header dump:",
    b"Dump of memory from",
    b"buffer tsn:",
    // `alter system dump undo header` prints a segment header without one
    // of the above.
    b"Extent Control Header",
];

/// Which UTF-16 byte order `data` is in: by its byte order mark, or, without
/// one, when nearly every 16-bit unit is an ASCII character (one byte zero,
/// the other not) in the same order.
fn utf16_order(data: &[u8]) -> Option<bool> {
    match data {
        [0xff, 0xfe, ..] => return Some(true),
        [0xfe, 0xff, ..] => return Some(false),
        _ => {}
    }
    let units = data.get(..data.len().min(4096) & !1)?.chunks_exact(2);
    let n = units.len();
    let (mut le, mut be) = (0usize, 0usize);
    for u in units {
        match u {
            [a, 0] if *a != 0 => le += 1,
            [0, b] if *b != 0 => be += 1,
            _ => {}
        }
    }
    if n >= 8 && le * 10 >= n * 9 {
        Some(true)
    } else if n >= 8 && be * 10 >= n * 9 {
        Some(false)
    } else {
        None
    }
}

/// `data` as UTF-8 text when it is UTF-16 (LE or BE, with or without a byte
/// order mark; unpaired surrogates become U+FFFD); otherwise `data` itself
/// without a UTF-8 byte order mark. Other bytes (Latin-1, say) are left as
/// they are: the readers of text take them as U+FFFD.
pub(super) fn utf8_text(data: &[u8]) -> Cow<'_, [u8]> {
    let Some(little) = utf16_order(data) else {
        return Cow::Borrowed(data.strip_prefix(BOM).unwrap_or(data));
    };
    let order = if little { Endian::Little } else { Endian::Big };
    let units = data
        .chunks_exact(2)
        .map(|u| order.read_u16(u).unwrap_or_default());
    let text: String = char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    Cow::Owned(text.as_bytes().to_vec())
}

/// Whether `sample` is the start of an Oracle block-dump trace: in UTF-8,
/// UTF-16 or an 8-bit encoding, with LF or CRLF line ends, one of its first
/// 2,000 lines starts with `Start dump data blocks`, `Block header dump:`,
/// `Dump of memory from`, `buffer tsn:` or `Extent Control Header`, and it holds no NUL (binary data
/// is no trace, whatever it happens to contain).
pub(super) fn looks_like_trace(sample: &[u8]) -> bool {
    let text = utf8_text(sample);
    !text.contains(&0)
        && text.split(|&b| b == b'\n').take(2000).any(|l| {
            let start = l.iter().position(|b| !b.is_ascii_whitespace());
            let t = start.and_then(|p| l.get(p..)).unwrap_or_default();
            TRACE_MARKS.iter().any(|m| t.starts_with(m))
        })
}

/// The first line that is not blank, untrimmed (without its `\n`).
fn first_raw_line(data: &[u8]) -> Option<&[u8]> {
    data.split(|&b| b == b'\n')
        .find(|l| l.iter().any(|&b| !is_space(b)))
}

pub(super) fn detect(data: &[u8]) -> InputFormat {
    let sample = data.get(..SNIFF_LEN).unwrap_or(data);
    if sample.starts_with(super::text::COPY_SIGNATURE) {
        return InputFormat::CopyBinary;
    }
    // Before the binary test: a trace may hold non-ASCII text, or be UTF-16.
    if looks_like_trace(sample) {
        return InputFormat::OracleTrace;
    }
    let text = sample.strip_prefix(BOM).unwrap_or(sample);
    if text.is_empty() || !text.iter().all(|&b| is_text_byte(b)) {
        return InputFormat::Raw;
    }
    let Some(first) = lines(sample).find(|l| !l.is_blank()) else {
        // Whitespace only: the hex decoder will say there is no data.
        return InputFormat::Hex;
    };
    let t = first.text;
    if t.starts_with(b"(gdb)") || is_gdb_line(t) {
        return InputFormat::Gdb;
    }
    if t.starts_with(b"\\x") || t.starts_with(b"\\X") {
        return InputFormat::Bytea;
    }
    if psql_layout(sample) != Psql::No {
        // psql's table or expanded display: the values decide.
        let mut values = content_lines(InputFormat::Auto, sample).map_while(Result::ok);
        let Some(value) = values.next() else {
            return InputFormat::Hex;
        };
        if value.text.starts_with(b"\\x") || value.text.starts_with(b"\\X") {
            return InputFormat::Bytea;
        }
        return hex_or_base64(std::iter::once(value).chain(values));
    }
    if is_hexdump_line(t) {
        InputFormat::Hexdump
    } else if is_xxd_line(t) {
        InputFormat::Xxd
    } else if is_od_line(t) || first_raw_line(sample).is_some_and(is_od_words_line) {
        InputFormat::Od
    } else {
        hex_or_base64(lines(sample))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases() {
        assert_eq!(detect(b""), InputFormat::Raw);
        assert_eq!(detect(b"\x00\x01"), InputFormat::Raw);
        assert_eq!(detect("caf\u{e9}".as_bytes()), InputFormat::Raw);
        assert_eq!(detect(b"  \n\n"), InputFormat::Hex);
        assert_eq!(detect(b"00ab\n"), InputFormat::Hex);
        assert_eq!(detect(b"00AB\n"), InputFormat::Hex);
        assert_eq!(detect(b"AAAAAAAA==\n"), InputFormat::Base64);
        assert_eq!(detect(b"TWFu\n"), InputFormat::Base64);
        assert_eq!(detect(b"aBcD\n"), InputFormat::Base64);
        assert_eq!(detect(b"00a8kb\n"), InputFormat::Hex);
        assert_eq!(detect(b"00A8KB\n"), InputFormat::Hex);
        assert_eq!(detect(b" \\x0011\n"), InputFormat::Bytea);
        assert_eq!(detect(b"(gdb) x/8bx buf\n"), InputFormat::Gdb);
        assert_eq!(detect(b"0x55d0c3 <buf+8>:\t0x00\n"), InputFormat::Gdb);
        assert_eq!(detect(b"0x1a5576000:\t0x06\t0xa2\n"), InputFormat::Gdb);
        assert_eq!(detect(b"00000000  00 01  |..|\n"), InputFormat::Hexdump);
        assert_eq!(detect(b"00000000: 0001  ..\n"), InputFormat::Xxd);
        assert_eq!(detect(b"0000000 00 01\n0000002\n"), InputFormat::Od);
        assert_eq!(detect(b"000000 00 01  >..<\n"), InputFormat::Od);
        assert_eq!(detect(b"hello, world\n"), InputFormat::Hex);
        // Words: od -x, od -A x -t x4, plain hexdump, od -A n -x.
        assert_eq!(detect(b"0000000 0100 0302\n0000004\n"), InputFormat::Od);
        assert_eq!(detect(b"000000 03020100\n000004\n"), InputFormat::Od);
        assert_eq!(detect(b" 0100 0302\n"), InputFormat::Od);
        assert_eq!(detect(b" 00 01 02\n"), InputFormat::Hex);
        assert_eq!(detect(b"0100 0302\n"), InputFormat::Hex);
        assert_eq!(detect(b"00000000 03020100\n"), InputFormat::Hex);
    }

    #[test]
    fn upper_case_base64_in_76_character_lines() {
        let line = "A".repeat(76);
        let text = format!("{line}\n{line}\nAAAA\n");
        assert_eq!(detect(text.as_bytes()), InputFormat::Base64);
        let hex = "A".repeat(60);
        let text = format!("{hex}\n{hex}\nAAAA\n");
        assert_eq!(detect(text.as_bytes()), InputFormat::Hex);
    }

    #[test]
    fn psql_tables() {
        assert_eq!(
            detect(b" get_raw_page\n--------------\n \\x0011\n(1 row)\n"),
            InputFormat::Bytea
        );
        assert_eq!(
            detect(b" encode\n--------\n 0011\n(1 row)\n"),
            InputFormat::Hex
        );
        assert_eq!(
            detect(b" encode\n--------\n TWFu+\n TWE=\n(1 row)\n"),
            InputFormat::Base64
        );
        assert_eq!(
            detect(b"-[ RECORD 1 ]+---\nget_raw_page | \\x0011\n"),
            InputFormat::Bytea
        );
        assert_eq!(
            detect(b"-[ RECORD 1 ]---\nencode | TWFu+\n       | TWE=\n"),
            InputFormat::Base64
        );
    }

    /// UTF-16 of `s`, little- or big-endian, with or without a BOM.
    fn utf16(s: &str, little: bool, bom: bool) -> Vec<u8> {
        let units = bom.then_some(0xfeffu16).into_iter().chain(s.encode_utf16());
        units
            .flat_map(|u| {
                let [hi, lo] = [(u >> 8) as u8, u as u8];
                if little {
                    [lo, hi]
                } else {
                    [hi, lo]
                }
            })
            .collect()
    }

    #[test]
    fn traces_in_any_encoding_and_line_end() {
        let trace = "Trace file /u01/orcl_ora_42.trc\n-- 块转储 (block dump)\n\
                     Start dump data blocks tsn: 5 file#:5 minblk 907 maxblk 907\n\
                     buffer tsn: 5 rdba: 0x0000038b (1024/907)\n";
        assert_eq!(detect(trace.as_bytes()), InputFormat::OracleTrace);
        let crlf = trace.replace('\n', "\r\n");
        assert_eq!(detect(crlf.as_bytes()), InputFormat::OracleTrace);
        let mut latin1 = b"-- r\xe9sum\xe9 \xa7\n".to_vec();
        latin1.extend_from_slice(b"Dump of memory from 0x1000 to 0x1010\n");
        assert_eq!(detect(&latin1), InputFormat::OracleTrace);
        for little in [true, false] {
            for bom in [true, false] {
                let d = utf16(&crlf, little, bom);
                assert_eq!(detect(&d), InputFormat::OracleTrace, "{little} {bom}");
                assert_eq!(utf8_text(&d).as_ref(), crlf.as_bytes());
            }
        }
        // Text in UTF-16 that is no trace is decoded but not called a trace.
        assert!(!looks_like_trace(&utf16("hello, world\n", true, false)));
        // Binary data that happens to hold a marker is no trace.
        let mut raw = vec![0u8; 64];
        raw.extend_from_slice(b"\nbuffer tsn: 5\n");
        assert!(!looks_like_trace(&raw));
        assert_eq!(utf8_text(b"\xef\xbb\xbfab").as_ref(), b"ab");
    }

    #[test]
    fn looks_only_at_the_first_64_kib() {
        let mut data = vec![b'0'; SNIFF_LEN];
        data.extend_from_slice(b"\x00\x00 binary later");
        assert_eq!(detect(&data), InputFormat::Hex);
    }
}
