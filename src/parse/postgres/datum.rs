//! Pieces shared by the type decoders (`values.rs`) and the jsonb printer
//! (`jsonb.rs`): little-endian word reads inside a datum, numeric's text
//! form, and varlenas nested inside other values.

use crate::reader::{Endian, Reader};

pub(super) fn reader(data: &[u8]) -> Reader<'_> {
    Reader::new(data, Endian::Little)
}

pub(super) fn byte(data: &[u8], at: usize) -> Result<u8, String> {
    data.get(at)
        .copied()
        .ok_or_else(|| format!("value ends at byte {at} ({} bytes)", data.len()))
}

pub(super) fn u16_at(data: &[u8], at: usize) -> Result<u16, String> {
    reader(data)
        .peek_u16(at, "value")
        .map_err(|e| e.to_string())
}

pub(super) fn u32_at(data: &[u8], at: usize) -> Result<u32, String> {
    reader(data)
        .peek_u32(at, "value")
        .map_err(|e| e.to_string())
}

pub(super) fn u64_at(data: &[u8], at: usize) -> Result<u64, String> {
    reader(data)
        .peek_u64(at, "value")
        .map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------
// numeric (numeric.c): a 2-byte header, then base-10000 digits (int16).
//
//   short form (header & 0xC000 == 0x8000):
//     0x2000 sign, 0x1F80 display scale (>> 7), 0x0040 weight sign, 0x003F weight
//   long form (header & 0x8000 == 0): header = sign (0x4000 negative) | dscale
//     (0x3FFF), then an int16 weight
//   special (header & 0xC000 == 0xC000): 0xC000 NaN, 0xD000 +Inf, 0xF000 -Inf
// ---------------------------------------------------------------------------

const NUMERIC_SIGN_MASK: u16 = 0xC000;
const NUMERIC_NEG: u16 = 0x4000;
const NUMERIC_SHORT: u16 = 0x8000;
const NUMERIC_SPECIAL: u16 = 0xC000;

pub(crate) fn numeric_out(data: &[u8]) -> Result<String, String> {
    Ok(match numeric_parts(data)? {
        NumericParts::Special(text) => text.to_owned(),
        NumericParts::Var {
            negative,
            weight,
            dscale,
            digits,
        } => numeric_text(negative, weight, dscale, &digits),
    })
}

/// Whether [`numeric_out`] would decode `data`, without writing the text
/// (a number of large weight prints as thousands of characters).
pub(crate) fn numeric_decodes(data: &[u8]) -> bool {
    numeric_parts(data).is_ok()
}

/// A numeric's header and digits, checked.
enum NumericParts {
    Special(&'static str),
    Var {
        negative: bool,
        weight: i32,
        dscale: u16,
        digits: Vec<u16>,
    },
}

fn numeric_parts(data: &[u8]) -> Result<NumericParts, String> {
    let header = u16_at(data, 0)?;
    let (negative, dscale, weight, digits_at) = match header & NUMERIC_SIGN_MASK {
        NUMERIC_SPECIAL => {
            return match header & 0xF000 {
                0xC000 => Ok(NumericParts::Special("NaN")),
                0xD000 => Ok(NumericParts::Special("Infinity")),
                0xF000 => Ok(NumericParts::Special("-Infinity")),
                _ => Err(format!(
                    "numeric special value 0x{header:04x} is not defined"
                )),
            };
        }
        NUMERIC_SHORT => {
            let negative = header & 0x2000 != 0;
            let dscale = (header & 0x1F80) >> 7;
            let mut weight = i32::from(header & 0x003F);
            if header & 0x0040 != 0 {
                weight -= 64;
            }
            (negative, dscale, weight, 2)
        }
        sign => {
            let weight = i32::from(u16_at(data, 2)? as i16);
            (sign == NUMERIC_NEG, header & 0x3FFF, weight, 4)
        }
    };
    let body = data.get(digits_at..).unwrap_or_default();
    if body.len() % 2 != 0 {
        return Err(format!(
            "numeric digits take {} bytes, not a whole number of int16",
            body.len()
        ));
    }
    let mut digits = Vec::with_capacity(body.len() / 2);
    for pair in body.chunks_exact(2) {
        let d = Endian::Little.read_u16(pair).unwrap_or_default();
        if d >= 10000 {
            return Err(format!("numeric digit {d} is not below 10000"));
        }
        digits.push(d);
    }
    Ok(NumericParts::Var {
        negative,
        weight,
        dscale,
        digits,
    })
}

/// `get_str_from_var`.
fn numeric_text(negative: bool, weight: i32, dscale: u16, digits: &[u16]) -> String {
    let digit = |d: i32| -> u16 {
        usize::try_from(d)
            .ok()
            .and_then(|i| digits.get(i))
            .copied()
            .unwrap_or(0)
    };
    let mut s = String::new();
    if negative {
        s.push('-');
    }
    let mut d: i32;
    if weight < 0 {
        d = weight + 1;
        s.push('0');
    } else {
        d = 0;
        while d <= weight {
            let group = digit(d);
            if d == 0 {
                s.push_str(&group.to_string());
            } else {
                s.push_str(&format!("{group:04}"));
            }
            d += 1;
        }
    }
    if dscale > 0 {
        s.push('.');
        let mut frac = String::new();
        while frac.len() < usize::from(dscale) {
            frac.push_str(&format!("{:04}", digit(d)));
            d += 1;
        }
        frac.truncate(usize::from(dscale));
        s.push_str(&frac);
    }
    s
}

/// A varlena nested inside another value (array element, jsonb numeric):
/// its data and its total size. Only plain 1- and 4-byte headers are valid there.
pub(crate) fn inner_varlena(data: &[u8], at: usize) -> Result<(&[u8], usize), String> {
    let b0 = byte(data, at)?;
    let (hdr, total) = if b0 == 0x01 {
        return Err("a TOAST pointer inside a value".into());
    } else if b0 & 0x01 == 1 {
        (1, usize::from(b0 >> 1))
    } else if b0 & 0x03 == 0 {
        (4, (u32_at(data, at)? >> 2) as usize)
    } else {
        return Err("a compressed varlena inside a value".into());
    };
    if total < hdr {
        return Err(format!("varlena length {total} is shorter than its header"));
    }
    let payload = data
        .get(at + hdr..at + total)
        .ok_or_else(|| format!("varlena of {total} bytes at {at} runs past the end"))?;
    Ok((payload, total))
}

/// An inner varlena header (of an array element, a range bound, a jsonb
/// numeric) as a
/// big-endian host wrote it, rewritten in place as a little-endian host
/// writes it (postgres.h: the flag bits are the high bits of the first byte
/// there, the low bits here). Inner values have plain 1- and 4-byte headers
/// only.
pub(crate) fn inner_header_to_little(out: &mut [u8], at: usize) -> Result<(), String> {
    let b0 = *out
        .get(at)
        .ok_or_else(|| format!("a varlena header at {at} runs past the end"))?;
    if b0 == 0x80 {
        return Err("a TOAST pointer inside a value".into());
    }
    if b0 & 0x80 != 0 {
        // VARATT_IS_1B: the length in the low 7 bits.
        out[at] = ((b0 & 0x7f) << 1) | 1;
        return Ok(());
    }
    if b0 & 0x40 != 0 {
        return Err("a compressed varlena inside a value".into());
    }
    let word = out
        .get(at..at + 4)
        .ok_or_else(|| format!("a varlena header at {at} runs past the end"))?;
    let len = Endian::Big.read_u32(word).unwrap_or(0) & 0x3fff_ffff;
    out[at..at + 4].copy_from_slice(&(len << 2).to_le_bytes());
    Ok(())
}

/// The most text one decoded value may produce (an array of millions of NULLs
/// compressed into a few hundred kilobytes would otherwise print gigabytes).
/// PostgreSQL itself cannot output a value past 1 GB; blockscope stops at
/// 64 MiB and says so.
pub(crate) const MAX_VALUE_TEXT: usize = 64 << 20;
