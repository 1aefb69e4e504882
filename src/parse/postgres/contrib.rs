//! Contrib extensions' types whose layouts their sources fix: the output
//! functions of hstore (`hstore_out`), ltree (`ltree_out`, `lquery_out`,
//! `ltxtq_out`), cube (`cube_out`) and seg (`seg_out`). citext is text and
//! printed as such; isn's types are in `isn.rs`.
//!
//! Layouts (payload after the 4-byte varlena header):
//!
//! - hstore: uint32 count | 0x80000000 (the 9.0+ format flag), then
//!   2 × count HEntry words (uint32: 0x80000000 first entry, 0x40000000
//!   NULL value, low 30 bits end offset of its string), key then value of
//!   each pair, then the strings (not NUL-terminated).
//! - ltree: uint16 level count, padding to 8 bytes from the header's start,
//!   then per level a uint16 length and its label, each level padded to 8.
//! - lquery: uint16 level count, uint16 firstgood, uint16 flag, padding to
//!   16 bytes from the header's start, then per level (each padded to 8,
//!   its `totallen` counting its header and variants) an 16-byte header
//!   (uint16 totallen, flag: 0x10 `!`, 0x20 repeat counts given, numvar: 0
//!   for `*`, low, high) and `numvar` variants, each padded to 8: int32
//!   crc, uint16 length, uint8 flag (0x01 `*`, 0x02 `@`, 0x04 `%`), the
//!   label at byte 7, the name's length rounded up to 8 after an 8-byte
//!   header.
//! - ltxtquery: int32 item count, then 12-byte ITEMs in polish notation
//!   (int16 type: 2 operand, 3 operator; int16 left; int32 operator
//!   character or operand crc; uint8 flag as lquery's; uint8 length;
//!   uint16 offset of the operand's text), then the operands, each ending
//!   in a NUL.
//! - cube: uint32 dimension | 0x80000000 for a point, then float8
//!   coordinates: `dim` for a point, else the lower-left corner's `dim` and
//!   the upper-right's `dim`.
//! - seg (12 bytes, fixed): float4 lower, float4 upper, then the bytes
//!   l_sigd, u_sigd (significant digits given), l_ext, u_ext (`<`, `>`,
//!   `~`, `-` for an open end, or 0).

use super::datum::MAX_VALUE_TEXT;
use super::datum::{byte, u16_at, u32_at, u64_at};
use super::float::float8_out;
use crate::model::postgres::types::ExtType;

const HS_FLAG_NEWVERSION: u32 = 0x8000_0000;
const HENTRY_ISFIRST: u32 = 0x8000_0000;
const HENTRY_ISNULL: u32 = 0x4000_0000;
const HENTRY_POSMASK: u32 = 0x3FFF_FFFF;

/// `hstore_out`: `"key"=>"value"` pairs (`"` and `\` escaped with `\`),
/// `NULL` for a NULL value, joined by `, `; an empty hstore is empty text.
pub(crate) fn hstore_out(data: &[u8]) -> Result<String, String> {
    let word = u32_at(data, 0)?;
    if word & HS_FLAG_NEWVERSION == 0 && word != 0 {
        return Err(
            "hstore in the format before PostgreSQL 9.0 (no version flag) is not decoded".into(),
        );
    }
    let count = (word & !HS_FLAG_NEWVERSION) as usize;
    let strings = count
        .checked_mul(8)
        .and_then(|n| n.checked_add(4))
        .filter(|&n| n <= data.len())
        .ok_or_else(|| {
            format!(
                "hstore of {count} pairs does not fit in {} bytes",
                data.len()
            )
        })?;
    let mut out = Vec::with_capacity(data.len() + count * 8);
    let mut prev_end = 0usize;
    let mut entry = |i: usize| -> Result<(&[u8], u32), String> {
        let he = u32_at(data, 4 + i * 4)?;
        let start = if he & HENTRY_ISFIRST != 0 {
            0
        } else {
            prev_end
        };
        let end = (he & HENTRY_POSMASK) as usize;
        prev_end = end;
        let s = data
            .get(strings + start..strings + end)
            .filter(|_| start <= end)
            .ok_or_else(|| format!("hstore entry {} ({start}..{end}) runs past the end", i + 1))?;
        Ok((s, he))
    };
    let quoted = |out: &mut Vec<u8>, s: &[u8]| {
        out.push(b'"');
        for &b in s {
            if b == b'"' || b == b'\\' {
                out.push(b'\\');
            }
            out.push(b);
        }
        out.push(b'"');
    };
    for i in 0..count {
        if out.len() > MAX_VALUE_TEXT {
            return Err(format!(
                "hstore text passes blockscope's limit of {MAX_VALUE_TEXT} bytes per value; not shown"
            ));
        }
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        let (key, _) = entry(2 * i)?;
        quoted(&mut out, key);
        out.extend_from_slice(b"=>");
        let (value, he) = entry(2 * i + 1)?;
        if he & HENTRY_ISNULL != 0 {
            out.extend_from_slice(b"NULL");
        } else {
            quoted(&mut out, value);
        }
    }
    String::from_utf8(out).map_err(|e| {
        format!(
            "hstore text is not valid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        )
    })
}

/// A value of an extension type as a big-endian host stored it, rewritten
/// in place as a little-endian host stores it (the layouts above): hstore's
/// count word and HEntry words, ltree's level count and level lengths,
/// cube's header word and coordinates, seg's two bounds. The flag bits
/// (HS_FLAG_NEWVERSION, the HEntry flags, cube's point bit) are masks on
/// the whole word, not bitfields, so a swap of the word moves them.
pub(crate) fn to_little(ty: ExtType, data: &mut [u8]) -> Result<(), String> {
    let what = ty.name();
    let swap = |data: &mut [u8], at: usize, len: usize| -> Result<(), String> {
        data.get_mut(at..at.saturating_add(len))
            .ok_or_else(|| format!("{what} ends inside a word at byte {at}"))?
            .reverse();
        Ok(())
    };
    match ty {
        ExtType::Citext => {}
        ExtType::Hstore => {
            swap(data, 0, 4)?;
            let count = (u32_at(data, 0)? & !HS_FLAG_NEWVERSION) as usize;
            let entries = count
                .checked_mul(2)
                .filter(|&n| n.saturating_mul(4).saturating_add(4) <= data.len())
                .ok_or_else(|| {
                    format!(
                        "hstore of {count} pairs does not fit in {} bytes",
                        data.len()
                    )
                })?;
            for i in 0..entries {
                swap(data, 4 + 4 * i, 4)?;
            }
        }
        ExtType::Ltree => {
            swap(data, 0, 2)?;
            let levels = usize::from(u16_at(data, 0)?);
            let mut at = 8 - 4;
            for _ in 0..levels {
                swap(data, at, 2)?;
                let len = usize::from(u16_at(data, at)?);
                at += (2 + len + 7) & !7;
            }
        }
        ExtType::Cube => {
            swap(data, 0, 4)?;
            for coord in data.get_mut(4..).unwrap_or_default().chunks_exact_mut(8) {
                coord.reverse();
            }
        }
        ExtType::Seg => {
            swap(data, 0, 4)?;
            swap(data, 4, 4)?;
        }
        // lquery (ltree.h): numlevel, firstgood, flag; each level's
        // totallen, flag, numvar, low, high (16-byte header), then its
        // variants: val (int32), len, flag, the name (8-byte header).
        ExtType::Lquery => {
            for at in [0, 2, 4] {
                swap(data, at, 2)?;
            }
            let levels = usize::from(u16_at(data, 0)?);
            let mut at = 16 - 4;
            for _ in 0..levels {
                for k in 0..5 {
                    swap(data, at + 2 * k, 2)?;
                }
                let totallen = usize::from(u16_at(data, at)?);
                let numvar = usize::from(u16_at(data, at + 4)?);
                let mut v = at + 16;
                for _ in 0..numvar {
                    swap(data, v, 4)?;
                    swap(data, v + 4, 2)?;
                    v += maxalign(usize::from(u16_at(data, v + 4)?)) + 8;
                }
                if totallen == 0 {
                    return Err("lquery level of length 0".into());
                }
                at += maxalign(totallen);
            }
        }
        // ltxtquery: size (int32), then ITEMs: type, left (uint16), val
        // (int32), flag, length (bytes), distance (uint16); the operand
        // strings are bytes.
        ExtType::Ltxtquery => {
            swap(data, 0, 4)?;
            let size = u32_at(data, 0)? as usize;
            if size.saturating_mul(LTXT_ITEM) > data.len() {
                return Err(format!(
                    "ltxtquery of {size} items does not fit in {} bytes",
                    data.len()
                ));
            }
            for i in 0..size {
                let base = 8 - 4 + i * LTXT_ITEM;
                for (at, len) in [(0, 2), (2, 2), (4, 4), (10, 2)] {
                    swap(data, base + at, len)?;
                }
            }
        }
        // isn: one uint64.
        ExtType::Ean13
        | ExtType::Isbn
        | ExtType::Isbn13
        | ExtType::Ismn
        | ExtType::Ismn13
        | ExtType::Issn
        | ExtType::Issn13
        | ExtType::Upc => swap(data, 0, 8)?,
    }
    Ok(())
}

/// `ltree_out`: the labels joined by `.`.
pub(crate) fn ltree_out(data: &[u8]) -> Result<String, String> {
    const HDR: usize = 4;
    let levels = usize::from(u16_at(data, 0)?);
    // LTREE_HDRSIZE: MAXALIGN(4 + 2), counted from the varlena header.
    let mut at = 8 - HDR;
    let mut out = Vec::with_capacity(data.len());
    for i in 0..levels {
        let len = usize::from(u16_at(data, at)?);
        let label = data
            .get(at + 2..at + 2 + len)
            .ok_or_else(|| format!("ltree level {} runs past the end", i + 1))?;
        if i > 0 {
            out.push(b'.');
        }
        out.extend_from_slice(label);
        at += (2 + len + 7) & !7;
    }
    String::from_utf8(out).map_err(|e| {
        format!(
            "ltree text is not valid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        )
    })
}

const LVAR_ANYEND: u8 = 0x01;
const LVAR_INCASE: u8 = 0x02;
const LVAR_SUBLEXEME: u8 = 0x04;
const LQL_NOT: u16 = 0x10;
const LQL_COUNT: u16 = 0x20;
/// LTREE_MAX_LEVELS: a repeat count's open end.
const LEVELS_MAX: u16 = u16::MAX;

fn maxalign(n: usize) -> usize {
    (n + 7) & !7
}

/// A label's flags as `%`, `@` and `*` after it.
fn variant_flags(out: &mut Vec<u8>, flag: u8) {
    for (bit, c) in [
        (LVAR_SUBLEXEME, b'%'),
        (LVAR_INCASE, b'@'),
        (LVAR_ANYEND, b'*'),
    ] {
        if flag & bit != 0 {
            out.push(c);
        }
    }
}

fn too_long(what: &str) -> String {
    format!("{what} text passes blockscope's limit of {MAX_VALUE_TEXT} bytes per value; not shown")
}

/// `lquery_out` (`deparse_lquery`): the levels joined by `.`; a level is
/// `*` or its variants joined by `|` (after `!` for NOT), each label
/// followed by its `%`, `@`, `*` flags; then the repeat count for `*` and
/// for a level that was given one: `{n}`, `{,m}`, `{n,}`, `{n,m}`, `{,}`
/// (nothing for a plain `*`).
pub(crate) fn lquery_out(data: &[u8]) -> Result<String, String> {
    const HDR: usize = 4;
    let levels = usize::from(u16_at(data, 0)?);
    // LQUERY_HDRSIZE: MAXALIGN(4 + 3 × 2), counted from the varlena header.
    let mut at = 16 - HDR;
    let mut out = Vec::with_capacity(data.len());
    for i in 0..levels {
        if out.len() > MAX_VALUE_TEXT {
            return Err(too_long("lquery"));
        }
        if i > 0 {
            out.push(b'.');
        }
        let totallen = usize::from(u16_at(data, at)?);
        let flag = u16_at(data, at + 2)?;
        let numvar = usize::from(u16_at(data, at + 4)?);
        let low = u16_at(data, at + 6)?;
        let high = u16_at(data, at + 8)?;
        if numvar == 0 {
            out.push(b'*');
        } else {
            if flag & LQL_NOT != 0 {
                out.push(b'!');
            }
            // LQL_HDRSIZE: MAXALIGN(5 × 2).
            let mut v = at + 16;
            for j in 0..numvar {
                if out.len() > MAX_VALUE_TEXT {
                    return Err(too_long("lquery"));
                }
                if j > 0 {
                    out.push(b'|');
                }
                let len = usize::from(u16_at(data, v + 4)?);
                let vflag = byte(data, v + 6)?;
                let name = data.get(v + 7..v + 7 + len).ok_or_else(|| {
                    format!("lquery level {} variant {} runs past the end", i + 1, j + 1)
                })?;
                out.extend_from_slice(name);
                variant_flags(&mut out, vflag);
                // LVAR_NEXT: MAXALIGN(len) + LVAR_HDRSIZE (MAXALIGN(7)).
                v += maxalign(len) + 8;
            }
        }
        if flag & LQL_COUNT != 0 || numvar == 0 {
            let count = if low == high {
                format!("{{{low}}}")
            } else if low == 0 && high == LEVELS_MAX {
                if numvar == 0 { "" } else { "{,}" }.to_string()
            } else if low == 0 {
                format!("{{,{high}}}")
            } else if high == LEVELS_MAX {
                format!("{{{low},}}")
            } else {
                format!("{{{low},{high}}}")
            };
            out.extend_from_slice(count.as_bytes());
        }
        at += maxalign(totallen);
    }
    String::from_utf8(out).map_err(|e| {
        format!(
            "lquery text is not valid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        )
    })
}

const LTXT_VAL: u16 = 2;
const LTXT_OPR: u16 = 3;
const LTXT_ITEM: usize = 12;

/// What is left to write, last first.
enum LtxtStep {
    Item { at: usize, first: bool },
    Text(&'static str),
    Op(u8),
}

/// `ltxtq_out` (`infix`): the polish-notation items written infix; an
/// operand as its label and `%`, `@`, `*` flags, `!x` or `!( … )` around
/// an operator, ` & ` and ` | ` between the left operand (the one after
/// the right operand's items) and the right one (the item after the
/// operator), and `( … )` around an OR that is not the first item written
/// or directly under a NOT.
pub(crate) fn ltxtquery_out(data: &[u8]) -> Result<String, String> {
    let size = u32_at(data, 0)? as i32;
    let size = usize::try_from(size)
        .ok()
        .filter(|&n| n.saturating_mul(LTXT_ITEM) <= data.len())
        .ok_or_else(|| {
            format!(
                "ltxtquery of {size} items does not fit in {} bytes",
                data.len()
            )
        })?;
    if size == 0 {
        return Err("ltxtquery of no items (the server refuses to print it: empty query)".into());
    }
    // HDRSIZEQT: MAXALIGN(4 + 4), counted from the varlena header.
    let items = 8 - 4;
    let operands = items + size * LTXT_ITEM;
    let item = |i: usize| -> Result<(u16, u32, u8, usize), String> {
        let base = items + i * LTXT_ITEM;
        Ok((
            u16_at(data, base)?,
            u32_at(data, base + 4)?,
            byte(data, base + 8)?,
            usize::from(u16_at(data, base + 10)?),
        ))
    };
    // Where each item's subtree ends: an operand's after itself, a NOT's
    // after its operand's, a binary operator's after its left operand's,
    // which starts where the right one ends. Children come after their
    // parent, so one pass from the end finds them all.
    let mut end = vec![0usize; size];
    for i in (0..size).rev() {
        let (ty, val, _, _) = item(i)?;
        let next = |j: usize| end.get(j).copied().filter(|&e| e > 0);
        end[i] = match ty {
            LTXT_VAL => Some(i + 1),
            LTXT_OPR if val == u32::from(b'!') => next(i + 1),
            LTXT_OPR => next(i + 1).and_then(next),
            t => return Err(format!("ltxtquery item {} has type {t}", i + 1)),
        }
        .ok_or_else(|| format!("ltxtquery operator {} lacks an operand", i + 1))?;
    }
    let mut out = Vec::with_capacity(data.len());
    let mut stack = vec![LtxtStep::Item { at: 0, first: true }];
    while let Some(step) = stack.pop() {
        let (at, first) = match step {
            LtxtStep::Text(t) => {
                out.extend_from_slice(t.as_bytes());
                continue;
            }
            LtxtStep::Op(op) => {
                out.extend_from_slice(&[b' ', op, b' ']);
                continue;
            }
            LtxtStep::Item { at, first } => (at, first),
        };
        if out.len() > MAX_VALUE_TEXT {
            return Err(too_long("ltxtquery"));
        }
        let (ty, val, flag, distance) = item(at)?;
        if ty == LTXT_VAL {
            let start = operands + distance;
            let text = data
                .get(start..)
                .map(|t| &t[..t.iter().position(|&b| b == 0).unwrap_or(t.len())])
                .ok_or_else(|| format!("ltxtquery operand {} runs past the end", at + 1))?;
            out.extend_from_slice(text);
            variant_flags(&mut out, flag);
            continue;
        }
        let op = u8::try_from(val)
            .ok()
            .filter(|o| matches!(o, b'!' | b'&' | b'|'))
            .ok_or_else(|| format!("ltxtquery operator {} is {val}", at + 1))?;
        if op == b'!' {
            out.push(b'!');
            let operator = matches!(item(at + 1)?, (LTXT_OPR, ..));
            if operator {
                out.extend_from_slice(b"( ");
                stack.push(LtxtStep::Text(" )"));
            }
            stack.push(LtxtStep::Item {
                at: at + 1,
                first: operator,
            });
            continue;
        }
        let paren = op == b'|' && !first;
        if paren {
            out.extend_from_slice(b"( ");
            stack.push(LtxtStep::Text(" )"));
        }
        stack.push(LtxtStep::Item {
            at: at + 1,
            first: false,
        });
        stack.push(LtxtStep::Op(op));
        stack.push(LtxtStep::Item {
            at: end[at + 1],
            first: false,
        });
    }
    String::from_utf8(out).map_err(|e| {
        format!(
            "ltxtquery text is not valid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        )
    })
}

const CUBE_POINT_BIT: u32 = 0x8000_0000;
const CUBE_DIM_MASK: u32 = 0x7FFF_FFFF;

/// `cube_out`: `(x1, x2, …)` for a point (or a box whose corners are equal),
/// else `(ll…),(ur…)`; coordinates as float8out prints them.
pub(crate) fn cube_out(data: &[u8]) -> Result<String, String> {
    let header = u32_at(data, 0)?;
    let dim = (header & CUBE_DIM_MASK) as usize;
    let point = header & CUBE_POINT_BIT != 0;
    let n = if point { dim } else { dim.saturating_mul(2) };
    let need = n.checked_mul(8).and_then(|b| b.checked_add(4));
    if need != Some(data.len()) {
        return Err(format!(
            "cube of {dim} dimensions{} does not fill its {} bytes",
            if point { " (a point)" } else { "" },
            data.len()
        ));
    }
    let coord = |i: usize| -> Result<f64, String> { u64_at(data, 4 + 8 * i).map(f64::from_bits) };
    let list = |from: usize| -> Result<String, String> {
        let mut s = String::from("(");
        for i in 0..dim {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(&float8_out(coord(from + i)?));
        }
        s.push(')');
        Ok(s)
    };
    let mut out = list(0)?;
    // cube_is_point_internal: equal corners print as a point.
    let is_point = point
        || (0..dim).all(|i| match (coord(i), coord(dim + i)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        });
    if !is_point {
        out.push(',');
        out.push_str(&list(dim)?);
    }
    Ok(out)
}

/// `seg_out`: a single point, or `lower .. upper` with either end left
/// out when open, each bound with its `<`, `>` or `~` and printed with the
/// significant digits it was given (`restore`).
pub(crate) fn seg_out(data: &[u8]) -> Result<String, String> {
    if data.len() != 12 {
        return Err(format!(
            "a seg takes 12 bytes, the value has {}",
            data.len()
        ));
    }
    let lower = f32::from_bits(u32_at(data, 0)?);
    let upper = f32::from_bits(u32_at(data, 4)?);
    let (l_sigd, u_sigd) = (byte(data, 8)? as i8, byte(data, 9)? as i8);
    let (l_ext, u_ext) = (byte(data, 10)?, byte(data, 11)?);
    let mut out = Vec::new();
    if matches!(l_ext, b'>' | b'<' | b'~') {
        out.push(l_ext);
    }
    if lower == upper && l_ext == u_ext {
        out.extend_from_slice(restore(lower, l_sigd).as_bytes());
    } else {
        if l_ext != b'-' {
            out.extend_from_slice(restore(lower, l_sigd).as_bytes());
            out.push(b' ');
        }
        out.extend_from_slice(b"..");
        if u_ext != b'-' {
            out.push(b' ');
            // seg_out tests l_ext here, so after `~lower` the upper bound's
            // extension byte is written even when it is 0, which ends the
            // C string: nothing after it is printed.
            if matches!(u_ext, b'>' | b'<') || l_ext == b'~' {
                if u_ext == 0 {
                    return utf8(out);
                }
                out.push(u_ext);
            }
            out.extend_from_slice(restore(upper, u_sigd).as_bytes());
        }
    }
    utf8(out)
}

fn utf8(out: Vec<u8>) -> Result<String, String> {
    String::from_utf8(out).map_err(|_| "seg extension bytes are not text".into())
}

/// C's `%.{digits-1}e` of a float promoted to double: the mantissa's digits
/// (without the point) and the decimal exponent; `None` for NaN and
/// infinities.
fn sci_digits(v: f64, digits: usize) -> Option<(bool, String, i32)> {
    if !v.is_finite() {
        return None;
    }
    let s = format!("{:.*e}", digits - 1, v.abs());
    let (mantissa, exp) = s.split_once('e')?;
    Some((
        v.is_sign_negative(),
        mantissa.replace('.', ""),
        exp.parse().ok()?,
    ))
}

/// seg.c's `restore`: `val` with exactly `n` significant digits (at most
/// FLT_DIG, 6; 6 when not positive), `%e` style when the exponent is
/// beyond ±4, else positional, keeping trailing zeros (`8.00`); between
/// exponent 1 and 4 a value whose digits end before the point is written
/// `d.dde4` (no sign, no padding in the exponent).
fn restore(val: f32, n: i8) -> String {
    const FLT_DIG: i8 = 6;
    let n = if n <= 0 { FLT_DIG } else { n.min(FLT_DIG) } as usize;
    let v = f64::from(val);
    let Some((neg, digits, exp)) = sci_digits(v, n) else {
        return if v.is_nan() {
            if v.is_sign_negative() { "-nan" } else { "nan" }.into()
        } else if v < 0.0 {
            "-inf".into()
        } else {
            "inf".into()
        };
    };
    let sign = if neg { "-" } else { "" };
    let mantissa = |d: &str| -> String {
        if d.len() > 1 {
            format!("{}.{}", &d[..1], &d[1..])
        } else {
            d.to_string()
        }
    };
    if exp == 0 {
        return format!("{sign}{}", mantissa(&digits));
    }
    if exp.unsigned_abs() > 4 {
        let esign = if exp < 0 { '-' } else { '+' };
        return format!(
            "{sign}{}e{esign}{:02}",
            mantissa(&digits),
            exp.unsigned_abs()
        );
    }
    if exp > 0 {
        let e = exp as usize;
        if 1 + e >= n {
            format!("{sign}{}e{exp}", mantissa(&digits))
        } else {
            format!("{sign}{}.{}", &digits[..1 + e], &digits[1 + e..])
        }
    } else {
        let zeros = (-exp - 1) as usize;
        format!("{sign}0.{}{digits}", "0".repeat(zeros))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hstore_pairs_nulls_and_escapes() {
        // "a"=>"1", "b"=>NULL, "q\"d"=>""
        let mut h = (3u32 | HS_FLAG_NEWVERSION).to_le_bytes().to_vec();
        for he in [1 | HENTRY_ISFIRST, 2, 3, 3 | HENTRY_ISNULL, 6, 6] {
            h.extend(u32::to_le_bytes(he));
        }
        h.extend(b"a1bq\"d");
        assert_eq!(
            hstore_out(&h).unwrap(),
            r#""a"=>"1", "b"=>NULL, "q\"d"=>"""#
        );
        assert_eq!(hstore_out(&HS_FLAG_NEWVERSION.to_le_bytes()).unwrap(), "");
        h[0] = 9;
        assert!(hstore_out(&h).is_err());
    }

    #[test]
    fn ltree_levels() {
        let mut t = vec![2, 0, 0, 0];
        t.extend([3, 0]);
        t.extend(b"Top");
        t.extend([0, 0, 0]);
        t.extend([1, 0, b'x']);
        assert_eq!(ltree_out(&t).unwrap(), "Top.x");
        assert_eq!(ltree_out(&[0, 0, 0, 0]).unwrap(), "");
    }

    /// An lquery level (after the varlena header's 4 bytes are counted):
    /// header, then each variant (crc, length, flag, label), padded to 8.
    fn lquery_level(flag: u16, low: u16, high: u16, vars: &[(&str, u8)]) -> Vec<u8> {
        let mut body = Vec::new();
        for (name, vflag) in vars {
            let mut v = vec![0; 4];
            v.extend((name.len() as u16).to_le_bytes());
            v.push(*vflag);
            v.extend(name.as_bytes());
            v.resize(8 + maxalign(name.len()), 0);
            body.extend(v);
        }
        let mut l = Vec::new();
        for w in [(16 + body.len()) as u16, flag, vars.len() as u16, low, high] {
            l.extend(w.to_le_bytes());
        }
        l.resize(16, 0);
        l.extend(body);
        l.resize(maxalign(l.len()), 0);
        l
    }

    #[test]
    fn lquery_levels_variants_and_counts() {
        let mut q = vec![3, 0, 0, 0, 0, 0];
        q.resize(12, 0);
        q.extend(lquery_level(LQL_NOT, 0, 0, &[("a", 0), ("b", 0x07)]));
        q.extend(lquery_level(0, 2, 5, &[]));
        q.extend(lquery_level(0, 0, LEVELS_MAX, &[]));
        assert_eq!(lquery_out(&q).unwrap(), "!a|b%@*.*{2,5}.*");
        let mut c = vec![1, 0, 0, 0, 0, 0];
        c.resize(12, 0);
        c.extend(lquery_level(LQL_COUNT, 0, LEVELS_MAX, &[("x", 0)]));
        assert_eq!(lquery_out(&c).unwrap(), "x{,}");
        assert!(lquery_out(&q[..20]).is_err());
    }

    /// An ltxtquery item: type, left, val, flag, length, operand offset.
    fn item(ty: u16, val: u8, flag: u8, distance: u16) -> Vec<u8> {
        let mut i = ty.to_le_bytes().to_vec();
        i.extend([0, 0]);
        i.extend(u32::from(val).to_le_bytes());
        i.extend([flag, 1]);
        i.extend(distance.to_le_bytes());
        i
    }

    #[test]
    fn ltxtquery_operators_and_parentheses() {
        // a & !( b | c ): & then its right operand first, then the left.
        let items = [
            item(LTXT_OPR, b'&', 0, 0),
            item(LTXT_OPR, b'!', 0, 0),
            item(LTXT_OPR, b'|', 0, 0),
            item(LTXT_VAL, 0, 0, 2),
            item(LTXT_VAL, 0, LVAR_ANYEND, 4),
            item(LTXT_VAL, 0, 0, 0),
        ];
        let mut q = (items.len() as u32).to_le_bytes().to_vec();
        q.extend(items.concat());
        q.extend(b"a\0b\0c\0");
        assert_eq!(ltxtquery_out(&q).unwrap(), "a & !( c* | b )");
        // An operator whose operands run out.
        let mut bad = 1u32.to_le_bytes().to_vec();
        bad.extend(item(LTXT_OPR, b'&', 0, 0));
        assert!(ltxtquery_out(&bad).is_err());
        assert!(ltxtquery_out(&0u32.to_le_bytes()).is_err());
    }

    #[test]
    fn cubes() {
        let mut c = (2u32 | CUBE_POINT_BIT).to_le_bytes().to_vec();
        c.extend(1.5f64.to_le_bytes());
        c.extend((-2.0f64).to_le_bytes());
        assert_eq!(cube_out(&c).unwrap(), "(1.5, -2)");
        let mut b = 1u32.to_le_bytes().to_vec();
        b.extend(1.0f64.to_le_bytes());
        b.extend(2.0f64.to_le_bytes());
        assert_eq!(cube_out(&b).unwrap(), "(1),(2)");
        assert!(cube_out(&b[..8]).is_err());
    }

    #[test]
    fn seg_significant_digits() {
        assert_eq!(restore(2.5, 2), "2.5");
        assert_eq!(restore(1.0, 3), "1.00");
        assert_eq!(restore(12345678.0, 8), "1.23457e+07");
        assert_eq!(restore(100000.0, 6), "1.00000e+05");
        assert_eq!(restore(0.0001, 1), "0.0001");
        assert_eq!(restore(-12000.0, 2), "-1.2e4");
        assert_eq!(restore(123.4, 4), "123.4");
        assert_eq!(restore(1e10, 1), "1e+10");
        assert_eq!(restore(-0.5, 1), "-0.5");
    }
}
