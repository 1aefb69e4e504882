//! Text search types: `tsvectorout` and `tsqueryout` (tsvector.c,
//! tsquery.c), from their on-disk layouts (ts_type.h).
//!
//! tsvector (payload after the 4-byte varlena header):
//!   int32 size (lexeme count), then `size` WordEntry words (uint32:
//!   bit 0 haspos, bits 1–11 len, bits 12–31 pos), then the lexemes: entry
//!   i's text at `pos` (counted from the end of the WordEntry array), `len`
//!   bytes; with haspos, at the next 2-byte boundary a uint16 count and that
//!   many WordEntryPos (uint16: weight in the top 2 bits, 3 = A … 0 = D,
//!   position in the low 14).
//!
//! tsquery: int32 size (item count), then `size` 12-byte QueryItems in
//!   polish notation, each an operand (type 1 QI_VAL or 3 QI_VALSTOP,
//!   uint8 weight mask A=8 B=4 C=2 D=1, bool prefix, int32 crc, uint32:
//!   bits 0–11 length, 12–31 distance of its text) or an operator (type 2,
//!   int8 oper 1 NOT 2 AND 3 OR 4 PHRASE, int16 phrase distance, uint32
//!   offset of its left operand; the right one follows it), then the
//!   operands' NUL-terminated texts.

use crate::reader::Endian;

use super::datum::MAX_VALUE_TEXT;
use super::datum::{byte, u16_at, u32_at};

/// Entries may share their text (a damaged value can point every lexeme or
/// operand at the same long string): the text is capped.
fn too_long(what: &str) -> String {
    format!("{what} text passes blockscope's limit of {MAX_VALUE_TEXT} bytes per value; not shown")
}

/// `tsvectorout`: each lexeme in single quotes (`'` and `\` doubled), then
/// `:` and its positions with their weight letters; space-separated.
pub(crate) fn tsvector_out(data: &[u8]) -> Result<String, String> {
    let size = u32_at(data, 0)? as i32;
    let size = usize::try_from(size)
        .ok()
        .filter(|&n| n.saturating_mul(4) <= data.len())
        .ok_or_else(|| {
            format!(
                "tsvector of {size} lexemes does not fit in {} bytes",
                data.len()
            )
        })?;
    let strings = 4 + size * 4;
    let mut out = Vec::with_capacity(data.len());
    for i in 0..size {
        let e = u32_at(data, 4 + i * 4)?;
        let haspos = e & 1 != 0;
        let len = ((e >> 1) & 0x7FF) as usize;
        let pos = (e >> 12) as usize;
        let at = strings + pos;
        let lexeme = data.get(at..at + len).ok_or_else(|| {
            format!(
                "tsvector lexeme {} at {pos} (+{len}) runs past the end",
                i + 1
            )
        })?;
        if out.len() > MAX_VALUE_TEXT {
            return Err(too_long("tsvector"));
        }
        if i > 0 {
            out.push(b' ');
        }
        out.push(b'\'');
        for &b in lexeme {
            if b == b'\'' || b == b'\\' {
                out.push(b);
            }
            out.push(b);
        }
        out.push(b'\'');
        if haspos {
            // SHORTALIGN, counted from the start of the lexemes.
            let p = strings + ((pos + len + 1) & !1);
            let npos = usize::from(u16_at(data, p)?);
            for k in 0..npos {
                let w = u16_at(data, p + 2 + 2 * k)?;
                out.push(if k == 0 { b':' } else { b',' });
                out.extend_from_slice((w & 0x3FFF).to_string().as_bytes());
                match w >> 14 {
                    3 => out.push(b'A'),
                    2 => out.push(b'B'),
                    1 => out.push(b'C'),
                    _ => {}
                }
            }
        }
    }
    String::from_utf8(out).map_err(|e| {
        format!(
            "tsvector text is not valid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Reverse `len` bytes at `at` (a field of a big-endian host), or say where
/// the value ends.
fn swap(data: &mut [u8], at: usize, len: usize, what: &str) -> Result<(), String> {
    data.get_mut(at..at.saturating_add(len))
        .ok_or_else(|| format!("{what} ends inside a word at byte {at}"))?
        .reverse();
    Ok(())
}

/// The count at the start of a tsvector or tsquery of a big-endian host,
/// made little-endian, and checked to fit `unit` bytes a piece.
fn count_to_little(data: &mut [u8], unit: usize, what: &str) -> Result<usize, String> {
    swap(data, 0, 4, what)?;
    let size = u32_at(data, 0)? as i32;
    usize::try_from(size)
        .ok()
        .filter(|&n| n.saturating_mul(unit) <= data.len())
        .ok_or_else(|| {
            format!(
                "{what} of {size} entries does not fit in {} bytes",
                data.len()
            )
        })
}

/// A 32-bit word holding the bitfields `(low, high)` bits wide, as a
/// big-endian host's GCC allocates them (the first field in the most
/// significant bits), rewritten with the first field in the least
/// significant bits, as a little-endian host has it.
fn bitfields_to_little(data: &mut [u8], at: usize, widths: &[u32]) -> Result<(), String> {
    let b = data
        .get(at..at + 4)
        .ok_or_else(|| format!("a bitfield word at {at} runs past the end"))?;
    let word = Endian::Big.read_u32(b).unwrap_or(0);
    let (mut from_top, mut from_bottom, mut little) = (32u32, 0u32, 0u32);
    for &w in widths {
        from_top -= w;
        let field = (word >> from_top) & ((1u64 << w) - 1) as u32;
        little |= field << from_bottom;
        from_bottom += w;
    }
    data[at..at + 4].copy_from_slice(&little.to_le_bytes());
    Ok(())
}

/// A tsvector of a big-endian host rewritten in place as a little-endian
/// host stores it: the count, each WordEntry (`haspos:1, len:11, pos:20`)
/// and each position list (uint16 count and WordEntryPos words).
pub(crate) fn tsvector_to_little(data: &mut [u8]) -> Result<(), String> {
    let size = count_to_little(data, 4, "tsvector")?;
    let strings = 4 + size * 4;
    for i in 0..size {
        bitfields_to_little(data, 4 + i * 4, &[1, 11, 20])?;
        let e = u32_at(data, 4 + i * 4)?;
        if e & 1 != 0 {
            let (len, pos) = (((e >> 1) & 0x7FF) as usize, (e >> 12) as usize);
            let p = strings + ((pos + len + 1) & !1);
            swap(data, p, 2, "tsvector")?;
            let npos = usize::from(u16_at(data, p)?);
            for k in 0..npos {
                swap(data, p + 2 + 2 * k, 2, "tsvector")?;
            }
        }
    }
    Ok(())
}

/// A tsquery of a big-endian host rewritten in place as a little-endian
/// host stores it: the count, each operand's crc and `length:12,
/// distance:20` word, each operator's phrase distance and left offset.
pub(crate) fn tsquery_to_little(data: &mut [u8]) -> Result<(), String> {
    let size = count_to_little(data, ITEM, "tsquery")?;
    for i in 0..size {
        let base = 4 + i * ITEM;
        match byte(data, base)? {
            QI_VAL | QI_VALSTOP => {
                swap(data, base + 4, 4, "tsquery")?;
                bitfields_to_little(data, base + 8, &[12, 20])?;
            }
            QI_OPR => {
                swap(data, base + 2, 2, "tsquery")?;
                swap(data, base + 4, 4, "tsquery")?;
            }
            t => return Err(format!("tsquery item {} has type {t}", i + 1)),
        }
    }
    Ok(())
}

const QI_VAL: u8 = 1;
const QI_OPR: u8 = 2;
const QI_VALSTOP: u8 = 3;
const OP_NOT: u8 = 1;
const OP_AND: u8 = 2;
const OP_OR: u8 = 3;
const OP_PHRASE: u8 = 4;
const ITEM: usize = 12;

/// `tsearch_op_priority`: NOT binds tightest, then PHRASE, AND, OR.
fn priority(oper: u8) -> i32 {
    match oper {
        OP_NOT => 4,
        OP_PHRASE => 3,
        OP_AND => 2,
        _ => 1,
    }
}

/// What is left to write, last first.
enum Step {
    Item {
        at: usize,
        parent: i32,
        right_phrase: bool,
    },
    Text(String),
}

/// `tsqueryout`: the polish-notation tree written infix, as `infix()` does:
/// operands quoted like lexemes with `:*` for a prefix and their weight
/// letters, `!`, ` & `, ` | `, ` <-> ` or ` <N> `, and `( … )` around an
/// operator of lower priority than its parent's, and around a phrase that
/// is the right operand of a phrase. An empty query is empty text.
pub(crate) fn tsquery_out(data: &[u8]) -> Result<String, String> {
    let size = u32_at(data, 0)? as i32;
    let size = usize::try_from(size)
        .ok()
        .filter(|&n| n.saturating_mul(ITEM) <= data.len())
        .ok_or_else(|| {
            format!(
                "tsquery of {size} items does not fit in {} bytes",
                data.len()
            )
        })?;
    if size == 0 {
        return Ok(String::new());
    }
    let operands = 4 + size * ITEM;
    let mut out = Vec::with_capacity(data.len());
    // Written iteratively: a deep query cannot exhaust the stack, and each
    // item is written once (a damaged tree that shares an item is refused).
    let mut stack = vec![Step::Item {
        at: 0,
        parent: -1,
        right_phrase: false,
    }];
    let mut visited = 0usize;
    while let Some(step) = stack.pop() {
        let (at, parent, right_phrase) = match step {
            Step::Text(t) => {
                out.extend_from_slice(t.as_bytes());
                continue;
            }
            Step::Item {
                at,
                parent,
                right_phrase,
            } => (at, parent, right_phrase),
        };
        if out.len() > MAX_VALUE_TEXT {
            return Err(too_long("tsquery"));
        }
        visited += 1;
        if at >= size || visited > size {
            return Err(format!(
                "tsquery item {} is outside its {size} items or reached twice",
                at + 1
            ));
        }
        let base = 4 + at * ITEM;
        match byte(data, base)? {
            QI_VAL | QI_VALSTOP => {
                let weight = byte(data, base + 1)?;
                let prefix = byte(data, base + 2)? != 0;
                let word = u32_at(data, base + 8)?;
                let (length, distance) = ((word & 0xFFF) as usize, (word >> 12) as usize);
                // tsqueryout stops at the NUL that ends the operand, which
                // is `length` bytes on; looking no further keeps the work
                // linear when damaged items all point at one long string.
                let start = operands + distance;
                let text = data
                    .get(start..(start + length + 1).min(data.len()))
                    .map(|t| {
                        &t[..t
                            .iter()
                            .position(|&b| b == 0)
                            .unwrap_or(length.min(t.len()))]
                    })
                    .ok_or_else(|| format!("tsquery operand {} runs past the end", at + 1))?;
                out.push(b'\'');
                for &b in text {
                    if b == b'\'' || b == b'\\' {
                        out.push(b);
                    }
                    out.push(b);
                }
                out.push(b'\'');
                if weight != 0 || prefix {
                    out.push(b':');
                    if prefix {
                        out.push(b'*');
                    }
                    for (bit, letter) in [(8, b'A'), (4, b'B'), (2, b'C'), (1, b'D')] {
                        if weight & bit != 0 {
                            out.push(letter);
                        }
                    }
                }
            }
            QI_OPR => {
                let oper = byte(data, base + 1)?;
                let prio = priority(oper);
                if oper == OP_NOT {
                    let paren = prio < parent;
                    if paren {
                        out.extend_from_slice(b"( ");
                        stack.push(Step::Text(" )".into()));
                    }
                    out.push(b'!');
                    stack.push(Step::Item {
                        at: at + 1,
                        parent: prio,
                        right_phrase: false,
                    });
                    continue;
                }
                let distance = u16_at(data, base + 2)? as i16;
                let left = u32_at(data, base + 4)? as usize;
                if left == 0 {
                    return Err(format!("tsquery operator {} has no left operand", at + 1));
                }
                let op_text = match oper {
                    OP_OR => " | ".to_string(),
                    OP_AND => " & ".to_string(),
                    OP_PHRASE if distance == 1 => " <-> ".to_string(),
                    OP_PHRASE => format!(" <{distance}> "),
                    o => return Err(format!("tsquery operator {o} is not defined")),
                };
                let paren = prio < parent || (oper == OP_PHRASE && right_phrase);
                if paren {
                    out.extend_from_slice(b"( ");
                    stack.push(Step::Text(" )".into()));
                }
                stack.push(Step::Item {
                    at: at + 1,
                    parent: prio,
                    right_phrase: oper == OP_PHRASE,
                });
                stack.push(Step::Text(op_text));
                stack.push(Step::Item {
                    at: at.saturating_add(left),
                    parent: prio,
                    right_phrase: false,
                });
            }
            t => return Err(format!("tsquery item {} has type {t}", at + 1)),
        }
    }
    String::from_utf8(out).map_err(|e| {
        format!(
            "tsquery text is not valid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        )
    })
}

/// `gtsvector` flag bits (tsvector_op.c / ts_type.h): `ARRKEY`, `SIGNKEY`,
/// `ALLISTRUE`.
const GT_ARRKEY: u32 = 0x01;
const GT_ALLISTRUE: u32 = 0x04;

/// `gtsvectorout` (tsgistidx.c): a GiST tsvector_ops key is an int32 flag
/// then either the words' hashes (`N unique words`) or a signature bit
/// string (`N true bits, M false bits`, or `all true bits`).
pub(crate) fn gtsvector_out(data: &[u8]) -> Result<String, String> {
    let flag = u32_at(data, 0)?;
    let rest = data.get(4..).unwrap_or_default();
    if flag & GT_ARRKEY != 0 {
        if rest.len() % 4 != 0 {
            return Err(format!(
                "gtsvector word array of {} bytes is not whole int4s",
                rest.len()
            ));
        }
        return Ok(format!("{} unique words", rest.len() / 4));
    }
    if flag & GT_ALLISTRUE != 0 {
        return Ok("all true bits".to_string());
    }
    let ones: u32 = rest.iter().map(|b| b.count_ones()).sum();
    Ok(format!(
        "{ones} true bits, {} false bits",
        rest.len() * 8 - ones as usize
    ))
}

/// A gtsvector of a big-endian host as a little-endian host stores it: the
/// flag and, for a word array, each hash (a signature is bytes).
pub(crate) fn gtsvector_to_little(data: &mut [u8]) -> Result<(), String> {
    swap(data, 0, 4, "gtsvector")?;
    if u32_at(data, 0)? & GT_ARRKEY != 0 {
        let n = data.len().saturating_sub(4) / 4;
        for i in 0..n {
            swap(data, 4 + 4 * i, 4, "gtsvector")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexemes_positions_and_weights() {
        // 'a':1A,3 'b''c'
        let mut v = vec![2, 0, 0, 0];
        let e1: u32 = 1 | (1 << 1); // haspos, len 1, pos 0
        let e2: u32 = (3 << 1) | (8 << 12); // len 3, pos 8
        v.extend(e1.to_le_bytes());
        v.extend(e2.to_le_bytes());
        v.push(b'a');
        v.push(0); // SHORTALIGN
        v.extend(2u16.to_le_bytes());
        v.extend((1u16 | (3 << 14)).to_le_bytes());
        v.extend(3u16.to_le_bytes());
        v.extend(b"b'c");
        assert_eq!(tsvector_out(&v).unwrap(), "'a':1A,3 'b''c'");
        assert_eq!(tsvector_out(&[0, 0, 0, 0]).unwrap(), "");
        assert!(tsvector_out(&[9, 0, 0, 0]).is_err());
    }

    #[test]
    fn shared_lexemes_cannot_blow_up_the_text() {
        // 40,000 entries all naming the same 2,047-byte lexeme: 80 MB of text
        // from 162 kB, refused past the cap.
        let n: u32 = 40_000;
        let mut v = n.to_le_bytes().to_vec();
        for _ in 0..n {
            v.extend((2047u32 << 1).to_le_bytes());
        }
        v.extend(std::iter::repeat_n(b'x', 2047));
        let e = tsvector_out(&v).unwrap_err();
        assert!(e.contains("limit"), "{e}");
    }

    fn operand(weight: u8, prefix: bool, distance: u32) -> Vec<u8> {
        let mut i = vec![QI_VAL, weight, prefix as u8, 0, 0, 0, 0, 0];
        i.extend((1 | (distance << 12)).to_le_bytes());
        i
    }

    fn operator(oper: u8, distance: i16, left: u32) -> Vec<u8> {
        let mut i = vec![QI_OPR, oper];
        i.extend(distance.to_le_bytes());
        i.extend(left.to_le_bytes());
        i.extend([0, 0, 0, 0]);
        i
    }

    #[test]
    fn operators_and_parentheses() {
        // 'a' & ( 'b' | 'c' ): & , | , 'c', 'b', 'a'
        let mut q = vec![5, 0, 0, 0];
        q.extend(operator(OP_AND, 0, 4));
        q.extend(operator(OP_OR, 0, 2));
        q.extend(operand(0, false, 4));
        q.extend(operand(8 | 1, true, 2));
        q.extend(operand(0, false, 0));
        q.extend(b"a\0b\0c\0");
        assert_eq!(tsquery_out(&q).unwrap(), "'a' & ( 'b':*AD | 'c' )");
        // A left offset pointing back at an item already written.
        let mut bad = q.clone();
        bad[4 + 4] = 1;
        assert!(tsquery_out(&bad).is_err());
        assert_eq!(tsquery_out(&[0, 0, 0, 0]).unwrap(), "");
    }

    #[test]
    fn gtsvector_out_counts_words_or_signature_bits() {
        // ARRKEY with three hashes.
        let mut arr = 1u32.to_le_bytes().to_vec();
        arr.extend([0u8; 12]);
        assert_eq!(super::gtsvector_out(&arr).unwrap(), "3 unique words");
        // SIGNKEY, 2 bytes: 9 bits set.
        let mut sig = 2u32.to_le_bytes().to_vec();
        sig.extend([0xFF, 0x01]);
        assert_eq!(
            super::gtsvector_out(&sig).unwrap(),
            "9 true bits, 7 false bits"
        );
        let all = (2u32 | 4).to_le_bytes().to_vec();
        assert_eq!(super::gtsvector_out(&all).unwrap(), "all true bits");
        let mut be = 1u32.to_be_bytes().to_vec();
        be.extend(7u32.to_be_bytes());
        super::gtsvector_to_little(&mut be).unwrap();
        assert_eq!(super::gtsvector_out(&be).unwrap(), "1 unique words");
    }
}
