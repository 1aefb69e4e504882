//! A block's bytes rebuilt from a `Dump of memory from 0x… to 0x…` section.
//!
//! Hex lines are `ADDR WWWWWWWW WWWWWWWW WWWWWWWW WWWWWWWW  [ascii]`: the
//! address, four 32-bit words in the platform's byte order, the bytes as
//! ASCII. `Repeat N times` says the previous 16 bytes occur N more times. The
//! byte order is the one in which the rebuilt block's tail repeats its cache
//! header (or as given).
//!
//! Bounds: a section may claim at most [`MAX_HEX_SECTION`] bytes; only the
//! first [`MAX_BLOCK_BYTES`] (the largest Oracle block) are kept, and only as
//! many as the trace's byte budget has left (see [`super::budget`]). What is
//! cut is said in the section's note. Lines past what is kept are still
//! checked, but nothing is stored for them, so a `Repeat 65535 times` costs
//! nothing.

use nom::bytes::complete::{tag, take_while1, take_while_m_n};
use nom::character::complete::{char, digit1};
use nom::combinator::{all_consuming, eof, opt, peek, rest};
use nom::error::{ErrorKind, ParseError};
use nom::multi::many_m_n;
use nom::sequence::{preceded, terminated};
use nom::Parser;

use crate::error::TextError;
use crate::reader::{u32_from_halves, Endian, Reader};

use super::super::checksum;
use super::grammar::{blanks, Fail, Line, PResult, Words};
use super::lines::Lines;

/// The largest `Dump of memory` section accepted.
pub(crate) const MAX_HEX_SECTION: u64 = 1 << 20;

/// The most bytes kept of one section: the largest Oracle block (32 KiB).
pub(crate) const MAX_BLOCK_BYTES: u64 = 32 * 1024;

/// One hex line of a section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum HexLine {
    /// An address (`digits` hex digits) and 1 to 4 words, each as its 4 bytes
    /// in the order the text prints them (most significant first).
    Row {
        addr: u64,
        digits: usize,
        words: Vec<[u8; 4]>,
    },
    /// `Repeat N times`.
    Repeat(u64),
}

/// 8 hex digits as 4 bytes, most significant first.
fn hex_word(i: &str) -> PResult<'_, [u8; 4]> {
    let (i, w) = take_while_m_n(8, 8, |c: char| c.is_ascii_hexdigit()).parse(i)?;
    // A word ends at a blank, the ASCII column or the end of the line.
    peek(nom::branch::alt((
        take_while1(char::is_whitespace),
        tag("["),
        eof,
    )))
    .parse(i)?;
    let mut b = [0u8; 4];
    for (k, out) in b.iter_mut().enumerate() {
        let pair = w.get(2 * k..2 * k + 2).unwrap_or("00");
        *out = u8::from_str_radix(pair, 16).unwrap_or(0);
    }
    Ok((i, b))
}

/// `ADDR W W W W  [ascii]`.
fn row(i: &str) -> PResult<'_, HexLine> {
    let (i, addr_text) = preceded(
        blanks,
        take_while_m_n(1, 16, |c: char| c.is_ascii_hexdigit()),
    )
    .parse(i)?;
    let (i, words) =
        many_m_n(1, 4, preceded(take_while1(char::is_whitespace), hex_word)).parse(i)?;
    let (i, _) = (blanks, opt(preceded(char('['), rest))).parse(i)?;
    let (i, _) = eof(i)?;
    Ok((
        i,
        HexLine::Row {
            addr: u64::from_str_radix(addr_text, 16).unwrap_or(0),
            digits: addr_text.len(),
            words,
        },
    ))
}

/// `Repeat N times` (or `time`).
fn repeat(i: &str) -> PResult<'_, HexLine> {
    let (i, n) = all_consuming(preceded(
        (blanks, tag("Repeat"), take_while1(char::is_whitespace)),
        terminated(
            digit1,
            (
                take_while1(char::is_whitespace),
                tag("time"),
                opt(tag("s")),
                blanks,
            ),
        ),
    ))
    .parse(i)?;
    match n.parse() {
        Ok(n) => Ok((i, HexLine::Repeat(n))),
        Err(_) => Err(nom::Err::Error(Fail::from_error_kind(i, ErrorKind::Digit))),
    }
}

/// The hex line `t` is, if it is one; `Err` for a `Repeat` line that does not
/// fit its grammar.
pub(super) fn hex_line(line: Line<'_>) -> Result<Option<HexLine>, TextError> {
    let t = line.text;
    if let Ok((_, r)) = row(t) {
        return Ok(Some(r));
    }
    if t.trim_start().starts_with("Repeat ") {
        return match repeat(t) {
            Ok((_, r)) => Ok(Some(r)),
            Err(_) => Err(line.error(
                t,
                format!("expected `Repeat N times`, found {:?}", t.trim()),
            )),
        };
    }
    Ok(None)
}

/// `0x… to 0x…` after `Dump of memory from`.
pub(super) fn range(line: Line<'_>, rest: &str) -> Result<(u64, u64), TextError> {
    const WHAT: &str = "`Dump of memory from 0x… to 0x…`";
    let mut w = Words::new(line, rest, WHAT);
    let from = w.hex_u64()?;
    w.key("to")?;
    let to = w.hex_u64()?;
    w.end()?;
    Ok((from, to))
}

/// A section read from the trace.
#[derive(Debug)]
pub(super) struct Section {
    pub from: u64,
    /// The bytes kept (`None` when the budget had none left).
    pub bytes: Option<Vec<u8>>,
    pub endian: Endian,
    /// Whether the tail confirmed the byte order.
    pub confirmed: bool,
    /// What was cut, naming the line.
    pub note: Option<String>,
}

/// Read the section whose `Dump of memory from` line is `line` (`rest` after
/// the keyword), keeping at most `budget` bytes (and at most
/// [`MAX_BLOCK_BYTES`]); `limit` is the budget's total, for the note.
pub(super) fn section(
    lines: &mut Lines<'_>,
    line: Line<'_>,
    rest: &str,
    endian: Option<Endian>,
    budget: u64,
    limit: u64,
) -> Result<Section, TextError> {
    let (from, to) = range(line, rest)?;
    let size = to
        .checked_sub(from)
        .filter(|&n| n > 0 && n <= MAX_HEX_SECTION && n % 4 == 0)
        .ok_or_else(|| {
            line.whole(format!(
                "expected a memory range of 4 bytes to {MAX_HEX_SECTION} bytes \
                 (a multiple of 4), found 0x{from:x} to 0x{to:x}"
            ))
        })?;
    let keep = size.min(MAX_BLOCK_BYTES).min(budget & !3) as usize;
    let mut bytes: Vec<u8> = Vec::with_capacity(keep);
    // Bytes the section has accounted for (kept or not).
    let mut have: u64 = 0;
    let mut last: Option<[u8; 16]> = None;
    while have < size {
        let Some(l) = lines.peek() else { break };
        let Some(hl) = hex_line(l)? else { break };
        match hl {
            HexLine::Repeat(count) => {
                let Some(prev) = last else {
                    return Err(
                        l.error(l.text, "expected a hex line before `Repeat N times`".into())
                    );
                };
                let room = (size - have) / 16;
                if count > room {
                    return Err(l.error(
                        l.text,
                        format!(
                            "`Repeat {count} times` runs past the end of the section \
                             (room for {room} more lines of 16 bytes)"
                        ),
                    ));
                }
                have += count * 16;
                // Only what is kept is stored: at most `keep` bytes in all.
                let mut n = count;
                while n > 0 && bytes.len() < keep {
                    let take = (keep - bytes.len()).min(16);
                    bytes.extend_from_slice(prev.get(..take).unwrap_or(&prev));
                    n -= 1;
                }
            }
            HexLine::Row {
                addr,
                digits,
                words,
            } => {
                let at = from.wrapping_add(have);
                let mask = if digits >= 16 {
                    u64::MAX
                } else {
                    (1u64 << (4 * digits as u32)) - 1
                };
                if addr != at & mask {
                    return Err(l.error(
                        l.text,
                        format!(
                            "expected the hex line for address 0x{at:X}, found address 0x{addr:X}"
                        ),
                    ));
                }
                let room = (size - have) / 4;
                if words.len() as u64 > room {
                    return Err(l.error(
                        l.text,
                        format!("hex line runs past the end of the section at 0x{to:X}"),
                    ));
                }
                have += words.len() as u64 * 4;
                for w in &words {
                    if bytes.len() < keep {
                        bytes.extend_from_slice(w);
                    }
                }
                last = match words.as_slice() {
                    [a, b, c, d] => {
                        let mut r = [0u8; 16];
                        for (chunk, w) in r.chunks_exact_mut(4).zip([a, b, c, d]) {
                            chunk.copy_from_slice(w);
                        }
                        Some(r)
                    }
                    _ => None,
                };
            }
        }
        lines.advance();
    }
    if have < size {
        return Err(line.whole(format!(
            "hex section from 0x{from:X} to 0x{to:X} is truncated: {have} of {size} bytes \
             present, {} bytes missing (the section ends at line {})",
            size - have,
            lines.last_no()
        )));
    }
    let note = if keep as u64 == size {
        None
    } else if keep == 0 {
        Some(format!(
            "trace line {}: the {size} bytes of this `Dump of memory` section were not \
             rebuilt: the blocks rebuilt from the trace reached {limit} bytes, the most \
             its text size allows",
            line.no
        ))
    } else if keep as u64 == size.min(MAX_BLOCK_BYTES) {
        Some(format!(
            "trace line {}: the `Dump of memory` section claims {size} bytes; only its \
             first {keep} bytes were rebuilt (an Oracle block is at most {MAX_BLOCK_BYTES} \
             bytes)",
            line.no
        ))
    } else {
        Some(format!(
            "trace line {}: only the first {keep} of the section's {size} bytes were \
             rebuilt: the blocks rebuilt from the trace reached {limit} bytes, the most \
             its text size allows",
            line.no
        ))
    };
    if keep == 0 {
        return Ok(Section {
            from,
            bytes: None,
            endian: endian.unwrap_or_default(),
            confirmed: false,
            note,
        });
    }
    let (endian, confirmed) = order(&mut bytes, endian);
    Ok(Section {
        from,
        bytes: Some(bytes),
        endian,
        confirmed,
        note,
    })
}

/// Put `b` (words as printed, most significant byte first) into the byte
/// order given, or the one its tail confirms (little-endian first), else
/// little-endian unconfirmed.
pub(super) fn order(b: &mut [u8], endian: Option<Endian>) -> (Endian, bool) {
    // The text prints each word most significant byte first: big-endian.
    match endian {
        Some(Endian::Big) => (Endian::Big, consistent(b, Endian::Big)),
        Some(Endian::Little) => {
            swap_words(b);
            (Endian::Little, consistent(b, Endian::Little))
        }
        None => {
            swap_words(b);
            if consistent(b, Endian::Little) {
                return (Endian::Little, true);
            }
            swap_words(b);
            if consistent(b, Endian::Big) {
                return (Endian::Big, true);
            }
            swap_words(b);
            (Endian::Little, false)
        }
    }
}

/// Reverse the bytes of every 32-bit word.
fn swap_words(b: &mut [u8]) {
    for w in b.chunks_exact_mut(4) {
        if let [a, b, c, d] = w {
            std::mem::swap(a, d);
            std::mem::swap(b, c);
        }
    }
}

/// Whether `b` read in `e` is a cache block whose tail repeats its header
/// (and, when it claims a check value, XORs to zero) (§2.4, §9).
pub(super) fn consistent(b: &[u8], e: Endian) -> bool {
    let r = Reader::new(b, e).without_spans();
    let (Ok(ty), Ok(seq), Ok(flg), Ok(bas)) = (
        r.peek_u8(0, "type_kcbh"),
        r.peek_u8(14, "seq_kcbh"),
        r.peek_u8(15, "flg_kcbh"),
        r.peek_u32(8, "bas_kcbh"),
    ) else {
        return false;
    };
    let Some(Ok(tail)) = b.len().checked_sub(4).map(|at| r.peek_u32(at, "tailchk")) else {
        return false;
    };
    // The tail: the SCN base's low half-word, then the type and seq bytes.
    let expected = u32_from_halves(bas as u16, Endian::Big.u16_from([ty, seq]));
    ty != 0 && tail == expected && (flg & 0x04 == 0 || checksum::xor16(b, e) == 0)
}

/// The 32-bit word at `at` of `b` in `e` (for the rdba of a rebuilt block).
pub(super) fn word_at(b: &[u8], at: usize, e: Endian) -> Option<u32> {
    Reader::new(b, e).without_spans().peek_u32(at, "word").ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Line<'_> {
        Line { no: 3, text }
    }

    #[test]
    fn hex_rows() {
        let got = hex_line(line(
            "7F140F335310 0000A206 0000038B 004E9AF4 06010000  [..........N.....]",
        ))
        .unwrap();
        assert_eq!(
            got,
            Some(HexLine::Row {
                addr: 0x7F14_0F33_5310,
                digits: 12,
                words: vec![
                    [0x00, 0x00, 0xA2, 0x06],
                    [0x00, 0x00, 0x03, 0x8B],
                    [0x00, 0x4E, 0x9A, 0xF4],
                    [0x06, 0x01, 0x00, 0x00],
                ],
            })
        );
        // A short last line, no ASCII column.
        assert!(matches!(
            hex_line(line("0010 00000001 00000002")).unwrap(),
            Some(HexLine::Row { digits: 4, ref words, .. }) if words.len() == 2
        ));
        for not_hex in [
            "",
            "Itl  Xid",
            "0010",
            "0010 0000001",
            "0010 000000011",
            "0010 00000001 00000002 00000003 00000004 00000005",
            "0010 0000000g",
            "[0010 00000001]",
        ] {
            assert_eq!(hex_line(line(not_hex)).unwrap(), None, "{not_hex:?}");
        }
    }

    #[test]
    fn repeat_lines() {
        assert_eq!(
            hex_line(line("Repeat 3 times")).unwrap(),
            Some(HexLine::Repeat(3))
        );
        assert_eq!(
            hex_line(line("\tRepeat 1 time")).unwrap(),
            Some(HexLine::Repeat(1))
        );
        let e = hex_line(line("  Repeat many times")).unwrap_err();
        assert_eq!((e.line, e.column), (3, 3));
        assert!(e.message.starts_with("expected `Repeat N times`"));
    }

    /// A section of `words` hex words starting at 0x1000, as the trace prints it.
    fn text_of(bytes_be: &[u8]) -> String {
        let mut s = format!(
            "Dump of memory from 0x1000 to 0x{:X}\n",
            0x1000 + bytes_be.len()
        );
        for (i, row) in bytes_be.chunks(16).enumerate() {
            s.push_str(&format!("{:X}", 0x1000 + 16 * i));
            for w in row.chunks(4) {
                s.push(' ');
                for b in w {
                    s.push_str(&format!("{b:02X}"));
                }
            }
            s.push_str("  [................]\n");
        }
        s
    }

    fn read(text: &str, endian: Option<Endian>, budget: u64) -> Result<Section, TextError> {
        let mut lines = Lines::new(text);
        let first = lines.next_line().unwrap();
        let rest = first.text.strip_prefix("Dump of memory from").unwrap();
        section(&mut lines, first, rest, endian, budget, budget)
    }

    /// A 64-byte cache block in `e`: type 6, seq 1, tail matching.
    fn block(e: Endian) -> Vec<u8> {
        let mut b = vec![0u8; 64];
        b[0] = 6;
        b[1] = 0xa2;
        b[14] = 1;
        let put = |b: &mut [u8], at: usize, v: u32| {
            let mut w = [(v >> 24) as u8, (v >> 16) as u8, (v >> 8) as u8, v as u8];
            if e == Endian::Little {
                w.reverse();
            }
            b[at..at + 4].copy_from_slice(&w);
        };
        put(&mut b, 8, 0x004e_9af4);
        put(&mut b, 60, 0x9af4_0601);
        b
    }

    fn printed(b: &[u8], e: Endian) -> Vec<u8> {
        let mut p = b.to_vec();
        if e == Endian::Little {
            swap_words(&mut p);
        }
        p
    }

    #[test]
    fn both_byte_orders_are_detected_or_forced() {
        for e in [Endian::Little, Endian::Big] {
            let b = block(e);
            let text = text_of(&printed(&b, e));
            let s = read(&text, None, 1 << 20).unwrap();
            assert_eq!((s.endian, s.confirmed), (e, true));
            assert_eq!(s.bytes.as_deref(), Some(b.as_slice()));
            assert!(s.note.is_none());
            let other = if e == Endian::Little {
                Endian::Big
            } else {
                Endian::Little
            };
            let s = read(&text, Some(other), 1 << 20).unwrap();
            assert_eq!((s.endian, s.confirmed), (other, false));
        }
    }

    #[test]
    fn repeat_fills_and_is_bounded() {
        let text = "Dump of memory from 0x1000 to 0x1040\n\
                    1000 00000001 00000002 00000003 00000004  [................]\n\
                    Repeat 3 times\n";
        let s = read(text, Some(Endian::Big), 1 << 20).unwrap();
        let b = s.bytes.unwrap();
        assert_eq!(b.len(), 64);
        assert_eq!(&b[48..52], &[0, 0, 0, 1]);
        // Past the section: an error at the Repeat line.
        let e = read(&text.replace("Repeat 3", "Repeat 4"), None, 1 << 20).unwrap_err();
        assert_eq!((e.line, e.column), (3, 1));
        assert!(e.message.contains("runs past the end"), "{}", e.message);
        // A claimed 1 MiB of one line repeated: 32 KiB kept, and said so.
        let text = "Dump of memory from 0x0 to 0x100000\n\
                    0 00000001 00000002 00000003 00000004\n\
                    Repeat 65535 times\n";
        let s = read(text, None, 1 << 30).unwrap();
        assert_eq!(s.bytes.map(|b| b.len()), Some(32 * 1024));
        assert!(s.note.unwrap().contains("claims 1048576 bytes"));
        // No budget left: nothing kept.
        let s = read(text, None, 0).unwrap();
        assert!(s.bytes.is_none() && s.note.unwrap().contains("not rebuilt"));
    }

    #[test]
    fn errors_name_line_and_column() {
        let text = "Dump of memory from 0x1000 to 0x1020\n\
                    1000 00000001 00000002 00000003 00000004\n\
                    1020 00000001 00000002 00000003 00000004\n";
        let e = read(text, None, 1 << 20).unwrap_err();
        assert_eq!((e.line, e.column), (3, 1));
        assert!(e.message.contains("address 0x1010"), "{}", e.message);
        let e = read("Dump of memory from 0x1000 too 0x1020\n", None, 1 << 20).unwrap_err();
        assert_eq!((e.line, e.column), (1, 28));
        let e = read("Dump of memory from 0x1000 to 0x1022\n", None, 1 << 20).unwrap_err();
        assert!(e.message.contains("a multiple of 4"));
        let e = read(
            "Dump of memory from 0x1000 to 0x1020\n1000 00000001\n",
            None,
            1 << 20,
        )
        .unwrap_err();
        assert!(e.message.contains("28 bytes missing"), "{}", e.message);
        let e = read(
            "Dump of memory from 0x1000 to 0x1020\nRepeat 1 times\n",
            None,
            1 << 20,
        )
        .unwrap_err();
        assert!(e.message.contains("before `Repeat"), "{}", e.message);
    }
}
