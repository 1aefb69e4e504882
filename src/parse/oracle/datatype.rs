//! Oracle's internal NUMBER and DATE/TIMESTAMP formats (§5.1–5.3).
//!
//! NUMBER: an exponent byte then 1–20 base-100 digits. Positive: exponent byte
//! = 0xc1 + power of 100 of the first digit, digit bytes = digit + 1. Negative:
//! exponent bits inverted, digit bytes = 101 − digit, and a 0x66 terminator
//! unless there are 20 digits. Zero is the single byte 0x80.
//!
//! DATE (7 bytes): century + 100, year-in-century + 100, month, day, hour + 1,
//! minute + 1, second + 1. TIMESTAMP adds 4 big-endian bytes of nanoseconds.
//!
//! BINARY_FLOAT / BINARY_DOUBLE: the IEEE bits big-endian, made to sort as
//! unsigned bytes: a positive value has its sign bit set, a negative value has
//! every bit inverted.
//!
//! [`decode_value`] turns a row column's bytes into the text Oracle prints for
//! its declared type, or says why they are not a value of that type.

use std::fmt;

use crate::model::oracle::types::{OraCharset, OraType};
use crate::reader::Endian;

/// Why bytes are not a valid NUMBER or DATE.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DatatypeError(pub String);

impl fmt::Display for DatatypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DatatypeError {}

fn err<T>(msg: impl Into<String>) -> Result<T, DatatypeError> {
    Err(DatatypeError(msg.into()))
}

/// A decoded NUMBER: its exact decimal text and the parts it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OraNumber {
    pub text: String,
    pub negative: bool,
    /// Power of 100 of the first digit.
    pub exponent: i32,
    /// Base-100 digits, most significant first.
    pub digits: Vec<u8>,
}

/// Decode NUMBER bytes to exact decimal text (`c2 4a 46` → `7369`).
pub(crate) fn decode_number(bytes: &[u8]) -> Result<OraNumber, DatatypeError> {
    let Some((&first, rest)) = bytes.split_first() else {
        return err("a NUMBER has at least one byte");
    };
    if bytes.len() > 22 {
        return err(format!(
            "a NUMBER has at most 22 bytes (exponent, 20 digits, terminator), found {}",
            bytes.len()
        ));
    }
    let special = |text: &str| OraNumber {
        text: text.to_string(),
        negative: text.starts_with('-'),
        exponent: 0,
        digits: Vec::new(),
    };
    match bytes {
        [0x80] => return Ok(special("0")),
        [0xff, 0x65] => return Ok(special("~")),
        [0x00] => return Ok(special("-~")),
        _ => {}
    }
    let negative = first & 0x80 == 0;
    let (exponent, digits) = if negative {
        let body =
            match rest.split_last() {
                Some((&0x66, head)) => head,
                _ if rest.len() == 20 => rest,
                _ => return err(
                    "a negative NUMBER of fewer than 20 digits ends with the terminator byte 0x66",
                ),
            };
        let exponent = i32::from(!first & 0x7f) - 65;
        let mut digits = Vec::with_capacity(body.len());
        for &b in body {
            if !(2..=101).contains(&b) {
                return err(format!(
                    "negative NUMBER digit byte 0x{b:02x} is outside 0x02..0x65"
                ));
            }
            digits.push(101 - b);
        }
        (exponent, digits)
    } else {
        let exponent = i32::from(first & 0x7f) - 65;
        let mut digits = Vec::with_capacity(rest.len());
        for &b in rest {
            if !(1..=100).contains(&b) {
                return err(format!(
                    "positive NUMBER digit byte 0x{b:02x} is outside 0x01..0x64"
                ));
            }
            digits.push(b - 1);
        }
        (exponent, digits)
    };
    if digits.is_empty() {
        return err("a NUMBER other than zero has at least one digit byte");
    }
    let text = number_text(negative, exponent, &digits);
    Ok(OraNumber {
        text,
        negative,
        exponent,
        digits,
    })
}

fn number_text(negative: bool, exponent: i32, digits: &[u8]) -> String {
    let mut int_part = String::new();
    let mut frac_part = String::new();
    // Zero pairs between the point and the first digit of a small number.
    for _ in exponent.saturating_add(1)..0 {
        frac_part.push_str("00");
    }
    for (i, d) in digits.iter().enumerate() {
        let power = exponent - i as i32;
        let pair = format!("{d:02}");
        if power >= 0 {
            int_part.push_str(&pair);
        } else {
            frac_part.push_str(&pair);
        }
    }
    let last_power = exponent - digits.len() as i32 + 1;
    for _ in 0..last_power.max(0) {
        int_part.push_str("00");
    }
    let int_part = int_part.trim_start_matches('0');
    let frac_part = frac_part.trim_end_matches('0');
    let mut s = String::new();
    if negative {
        s.push('-');
    }
    s.push_str(if int_part.is_empty() { "0" } else { int_part });
    if !frac_part.is_empty() {
        s.push('.');
        s.push_str(frac_part);
    }
    s
}

/// A decoded DATE or TIMESTAMP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OraDate {
    pub year: i32,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub nanos: Option<u32>,
}

impl fmt::Display for OraDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.year < 0 {
            write!(f, "-{:04}", -self.year)?;
        } else {
            write!(f, "{:04}", self.year)?;
        }
        write!(
            f,
            "-{:02}-{:02} {:02}:{:02}:{:02}",
            self.month, self.day, self.hour, self.minute, self.second
        )?;
        if let Some(n) = self.nanos {
            write!(f, ".{n:09}")?;
        }
        Ok(())
    }
}

/// Decode 7 DATE bytes (or 11 TIMESTAMP bytes).
pub(crate) fn decode_date(bytes: &[u8]) -> Result<OraDate, DatatypeError> {
    let (date, nanos) = match bytes {
        [c, y, mo, d, h, mi, s] => ([*c, *y, *mo, *d, *h, *mi, *s], None),
        [c, y, mo, d, h, mi, s, n0, n1, n2, n3] => (
            [*c, *y, *mo, *d, *h, *mi, *s],
            Endian::Big.read_u32(&[*n0, *n1, *n2, *n3]),
        ),
        _ => {
            return err(format!(
                "a DATE has 7 bytes and a TIMESTAMP 11, found {}",
                bytes.len()
            ))
        }
    };
    let [c, y, month, day, h, mi, s] = date;
    let year = (i32::from(c) - 100) * 100 + (i32::from(y) - 100);
    let check = |ok: bool, what: &str, v: u8| -> Result<(), DatatypeError> {
        if ok {
            Ok(())
        } else {
            err(format!("{what} byte {v} (0x{v:02x}) is out of range"))
        }
    };
    check((1..=12).contains(&month), "month", month)?;
    check((1..=31).contains(&day), "day", day)?;
    check((1..=24).contains(&h), "hour", h)?;
    check((1..=60).contains(&mi), "minute", mi)?;
    check((1..=60).contains(&s), "second", s)?;
    if let Some(n) = nanos {
        if n > 999_999_999 {
            return err(format!("nanoseconds {n} exceed 999999999"));
        }
    }
    Ok(OraDate {
        year,
        month,
        day,
        hour: h - 1,
        minute: mi - 1,
        second: s - 1,
        nanos,
    })
}

/// Whether `year` (negative = BC, no year 0) is a leap year in Oracle's
/// calendar: Gregorian from 1583, Julian before (BC year −1 is astronomical 0).
fn leap(year: i32) -> bool {
    let astro = if year < 0 { year + 1 } else { year };
    if year > 1582 {
        (astro % 4 == 0 && astro % 100 != 0) || astro % 400 == 0
    } else {
        astro.rem_euclid(4) == 0
    }
}

fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if leap(year) => 29,
        2 => 28,
        _ => 31,
    }
}

/// A DATE or TIMESTAMP that is also a real calendar day Oracle can hold:
/// years −4712..9999 without a year 0, the day within its month, no day of
/// the 1582 Gregorian gap (October 5–14).
pub(crate) fn decode_calendar_date(bytes: &[u8]) -> Result<OraDate, DatatypeError> {
    let d = decode_date(bytes)?;
    if d.year == 0 || !(-4712..=9999).contains(&d.year) {
        return err(format!(
            "year {} is outside Oracle's range (-4712..9999, no year 0)",
            d.year
        ));
    }
    if d.day > days_in_month(d.year, d.month) {
        return err(format!(
            "day {} does not exist in month {} of year {}",
            d.day, d.month, d.year
        ));
    }
    if d.year == 1582 && d.month == 10 && (5..=14).contains(&d.day) {
        return err("1582-10-05 to 1582-10-14 do not exist (Gregorian reform)");
    }
    Ok(d)
}

/// A TIMESTAMP(fsp) as `YYYY-MM-DD HH24:MI:SS.FF`: `fsp` fraction digits (none
/// for 0); all nine when the stored nanoseconds have more digits than that.
pub(crate) fn timestamp_text(d: &OraDate, fsp: u8) -> String {
    let base = OraDate { nanos: None, ..*d };
    let nanos = d.nanos.unwrap_or(0);
    let nine = format!("{nanos:09}");
    let fsp = usize::from(fsp.min(9));
    let digits = if nine[fsp..].bytes().all(|b| b == b'0') {
        &nine[..fsp]
    } else {
        &nine[..]
    };
    if digits.is_empty() {
        base.to_string()
    } else {
        format!("{base}.{digits}")
    }
}

/// The 4 BINARY_FLOAT bytes as an `f32`.
pub(crate) fn decode_binary_float(bytes: &[u8]) -> Result<f32, DatatypeError> {
    let (4, Some(x)) = (bytes.len(), Endian::Big.read_u32(bytes)) else {
        return err(format!("a BINARY_FLOAT has 4 bytes, found {}", bytes.len()));
    };
    let bits = if x & 0x8000_0000 != 0 {
        x ^ 0x8000_0000
    } else {
        !x
    };
    Ok(f32::from_bits(bits))
}

/// The 8 BINARY_DOUBLE bytes as an `f64`.
pub(crate) fn decode_binary_double(bytes: &[u8]) -> Result<f64, DatatypeError> {
    let (8, Some(x)) = (bytes.len(), Endian::Big.read_u64(bytes)) else {
        return err(format!(
            "a BINARY_DOUBLE has 8 bytes, found {}",
            bytes.len()
        ));
    };
    let bits = if x & 0x8000_0000_0000_0000 != 0 {
        x ^ 0x8000_0000_0000_0000
    } else {
        !x
    };
    Ok(f64::from_bits(bits))
}

/// Float text: `Nan`, `Inf`, `-Inf` as SQL*Plus prints them; otherwise the
/// shortest decimal that reads back to the same value (`1.5`, `0.1`), in
/// exponent form (`1E300`, `1.5E-7`) outside 1e-5..1e16.
fn float_text(value: f64, shortest: String, exp: String) -> String {
    if value.is_nan() {
        "Nan".into()
    } else if value.is_infinite() {
        if value > 0.0 { "Inf" } else { "-Inf" }.into()
    } else if value == 0.0 || (1e-5..1e16).contains(&value.abs()) {
        shortest
    } else {
        exp
    }
}

/// Text in the database character set.
fn db_text(bytes: &[u8], cs: OraCharset) -> Result<String, DatatypeError> {
    match cs {
        OraCharset::Al32Utf8 => match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_string()),
            Err(e) => err(format!(
                "not valid AL32UTF8 (UTF-8): byte {} starts an invalid sequence",
                e.valid_up_to()
            )),
        },
        OraCharset::We8Iso8859P1 => Ok(bytes.iter().map(|&b| char::from(b)).collect()),
        OraCharset::Us7Ascii => match bytes.iter().position(|b| !b.is_ascii()) {
            None => Ok(bytes.iter().map(|&b| char::from(b)).collect()),
            Some(i) => err(format!(
                "not valid US7ASCII: byte {i} is 0x{:02x}",
                bytes[i]
            )),
        },
    }
}

/// Text in the national character set, AL16UTF16 (UTF-16 big-endian).
fn national_text(bytes: &[u8]) -> Result<String, DatatypeError> {
    if !bytes.len().is_multiple_of(2) {
        return err(format!(
            "AL16UTF16 text has an even number of bytes, found {}",
            bytes.len()
        ));
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .filter_map(|c| Endian::Big.read_u16(c))
        .collect();
    String::from_utf16(&units)
        .map_err(|_| DatatypeError("not valid AL16UTF16: an unpaired surrogate".into()))
}

/// RAW as SQL*Plus prints it: uppercase hex digits, no separators.
pub(crate) fn raw_text(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// The text Oracle prints for a (non-NULL) column of type `ty`, or why the
/// bytes are not one. `Ok(None)` for types that are not decoded.
pub(crate) fn decode_value(
    ty: &OraType,
    bytes: &[u8],
    cs: OraCharset,
) -> Result<Option<String>, DatatypeError> {
    let text = match ty {
        OraType::Number { .. } => decode_number(bytes)?.text,
        OraType::Date => {
            let d = decode_calendar_date(bytes)?;
            if d.nanos.is_some() {
                return err(format!("a DATE has 7 bytes, found {}", bytes.len()));
            }
            d.to_string()
        }
        OraType::Timestamp { fsp } => timestamp_text(&decode_calendar_date(bytes)?, *fsp),
        OraType::BinaryFloat => {
            let v = decode_binary_float(bytes)?;
            float_text(f64::from(v), format!("{v}"), format!("{v:E}"))
        }
        OraType::BinaryDouble => {
            let v = decode_binary_double(bytes)?;
            float_text(v, format!("{v}"), format!("{v:E}"))
        }
        OraType::Varchar2 { .. } | OraType::Char { .. } => db_text(bytes, cs)?,
        OraType::NVarchar2 { .. } | OraType::NChar { .. } => national_text(bytes)?,
        OraType::Raw { .. } => raw_text(bytes),
        OraType::Opaque { .. } | OraType::Unknown { .. } => return Ok(None),
    };
    Ok(Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(bytes: &[u8]) -> String {
        decode_number(bytes).unwrap().text
    }

    #[test]
    fn numbers() {
        assert_eq!(n(&[0xc2, 0x4a, 0x46]), "7369");
        assert_eq!(n(&[0xc3, 0x08, 0x51]), "78000");
        assert_eq!(n(&[0xc2, 0x09]), "800");
        assert_eq!(n(&[0xc1, 0x02]), "1");
        assert_eq!(n(&[0xc1, 0x15]), "20");
        assert_eq!(n(&[0x80]), "0");
        assert_eq!(n(&[0xc0, 0x33]), "0.5");
        assert_eq!(n(&[0xbf, 0x02]), "0.0001");
        assert_eq!(n(&[0xc1, 0x02, 0x33]), "1.5");
        assert_eq!(n(&[0x3e, 0x64, 0x66]), "-1");
        assert_eq!(n(&[0x3d, 0x1c, 0x20, 0x66]), "-7369");
        assert!(decode_number(&[]).is_err());
        assert!(decode_number(&[0xc2, 0x00]).is_err());
        assert!(decode_number(&[0xc2]).is_err());
        assert!(decode_number(&[0x41, 0x41, 0x41]).is_err());
    }

    #[test]
    fn dates() {
        let d = decode_date(&[0x77, 0xb4, 0x0c, 0x11, 0x01, 0x01, 0x01]).unwrap();
        assert_eq!(d.to_string(), "1980-12-17 00:00:00");
        let t = decode_date(&[0x78, 0x7a, 0x01, 0x1f, 0x18, 0x3c, 0x3c, 0, 0, 0, 5]).unwrap();
        assert_eq!(t.to_string(), "2022-01-31 23:59:59.000000005");
        assert!(decode_date(&[0x78, 0x7a, 0x0d, 1, 1, 1, 1]).is_err());
        assert!(decode_date(&[1, 2, 3]).is_err());
    }

    fn v(ty: &str, bytes: &[u8]) -> String {
        let ty = OraType::parse(ty).unwrap();
        decode_value(&ty, bytes, OraCharset::Al32Utf8)
            .unwrap_or_else(|e| panic!("{bytes:02x?}: {e}"))
            .unwrap()
    }

    fn bad(ty: &str, bytes: &[u8]) -> String {
        let ty = OraType::parse(ty).unwrap();
        decode_value(&ty, bytes, OraCharset::Al32Utf8)
            .unwrap_err()
            .0
    }

    #[test]
    fn hand_checked_numbers() {
        for (bytes, text) in [
            (&[0x80][..], "0"),
            (&[0xc1, 0x02], "1"),
            (&[0xc2, 0x02], "100"),
            (&[0xc2, 0x02, 0x18, 0x2e], "123.45"),
            (&[0x3e, 0x64, 0x66], "-1"),
            (&[0x3d, 0x64, 0x4e, 0x38, 0x66], "-123.45"),
            (&[0xc0, 0x33], "0.5"),
            (&[0x3f, 0x33, 0x66], "-0.5"),
            (&[0xc1, 0x02, 0x33], "1.5"),
            (&[0x3e, 0x64, 0x33, 0x66], "-1.5"),
            (
                &[
                    0xcf, 0x0d, 0x23, 0x39, 0x4f, 0x5b, 0x0d, 0x23, 0x39, 0x4f, 0x5b, 0x0d, 0x23,
                    0x39, 0x4f, 0x5b,
                ],
                "123456789012345678901234567890",
            ),
        ] {
            assert_eq!(v("number", bytes), text, "{bytes:02x?}");
        }
        // The limits: 1e125 is exponent byte 0xff (100^62) with digit 10;
        // 1e-130 is exponent byte 0x80 (100^-65) with digit 1.
        assert_eq!(v("number", &[0xff, 0x0b]), format!("1{}", "0".repeat(125)));
        assert_eq!(
            v("number", &[0x80, 0x02]),
            format!("0.{}1", "0".repeat(129))
        );
        assert_eq!(
            v("number", &[0x00, 0x5b, 0x66]),
            format!("-1{}", "0".repeat(125))
        );
        assert_eq!(v("number", &[0xff, 0x65]), "~");
        assert!(bad("number", &[0xc1]).contains("at least one digit"));
        assert!(bad("number", &[0x3e, 0x64]).contains("terminator"));
    }

    #[test]
    fn hand_checked_dates_and_timestamps() {
        assert_eq!(
            v("date", &[0x78, 0x7c, 1, 1, 1, 1, 1]),
            "2024-01-01 00:00:00"
        );
        assert_eq!(
            v("date", &[0x77, 0xb4, 0x0c, 0x11, 0x0b, 0x1f, 0x3c]),
            "1980-12-17 10:30:59"
        );
        // 1 BC is century 100, year 99; 4712 BC is 53, 88 (SYYYY style).
        assert_eq!(v("date", &[100, 99, 1, 1, 1, 1, 1]), "-0001-01-01 00:00:00");
        assert_eq!(v("date", &[53, 88, 1, 1, 1, 1, 1]), "-4712-01-01 00:00:00");
        assert_eq!(
            v("date", &[0x77, 0xc8, 2, 29, 1, 1, 1]),
            "2000-02-29 00:00:00"
        );
        assert!(bad("date", &[0x78, 0x7c, 2, 30, 1, 1, 1]).contains("does not exist"));
        assert!(bad("date", &[0x77, 0xb6, 2, 29, 1, 1, 1]).contains("does not exist"));
        assert!(bad("date", &[100, 100, 1, 1, 1, 1, 1]).contains("year 0"));
        assert!(bad("date", &[0x78, 0x7c, 1, 1, 1, 1, 1, 0, 0, 0, 1]).contains("7 bytes"));
        // 123456789 ns = 0x075bcd15.
        let ts = [0x78, 0x7c, 6, 15, 13, 31, 46, 0x07, 0x5b, 0xcd, 0x15];
        assert_eq!(v("timestamp(9)", &ts), "2024-06-15 12:30:45.123456789");
        assert_eq!(v("timestamp", &ts), "2024-06-15 12:30:45.123456789");
        let ms = [0x78, 0x7c, 6, 15, 13, 31, 46, 0x07, 0x5b, 0xca, 0x00];
        assert_eq!(v("timestamp", &ms), "2024-06-15 12:30:45.123456");
        let ms3 = [0x78, 0x7c, 6, 15, 13, 31, 46, 0x07, 0x54, 0xd4, 0xc0];
        assert_eq!(v("timestamp(3)", &ms3), "2024-06-15 12:30:45.123");
        // More digits stored than the precision: all nine are shown.
        assert_eq!(v("timestamp(3)", &ms), "2024-06-15 12:30:45.123456000");
        assert_eq!(v("timestamp", &ts[..7]), "2024-06-15 12:30:45.000000");
        assert_eq!(v("timestamp(0)", &ts[..7]), "2024-06-15 12:30:45");
    }

    #[test]
    fn hand_checked_floats() {
        // 1.5f = 0x3fc00000: sign bit set → bf c0 00 00; -1.5f = 0xbfc00000: inverted → 40 3f ff ff.
        assert_eq!(v("binary_float", &[0xbf, 0xc0, 0, 0]), "1.5");
        assert_eq!(v("binary_float", &[0x40, 0x3f, 0xff, 0xff]), "-1.5");
        assert_eq!(v("binary_float", &[0x80, 0, 0, 0]), "0");
        assert_eq!(v("binary_float", &[0xff, 0x80, 0, 0]), "Inf");
        assert_eq!(v("binary_float", &[0x00, 0x7f, 0xff, 0xff]), "-Inf");
        assert_eq!(v("binary_float", &[0xff, 0xc0, 0, 0]), "Nan");
        // 0.1 = 0x3fb999999999999a.
        assert_eq!(
            v(
                "binary_double",
                &[0xbf, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a]
            ),
            "0.1"
        );
        // -2.5 = 0xc004000000000000 → inverted 3f fb ff ff ff ff ff ff.
        assert_eq!(
            v(
                "binary_double",
                &[0x3f, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
            ),
            "-2.5"
        );
        // 1e300 = 0x7e37e43c8800759c.
        assert_eq!(
            v(
                "binary_double",
                &[0xfe, 0x37, 0xe4, 0x3c, 0x88, 0x00, 0x75, 0x9c]
            ),
            "1E300"
        );
        assert!(bad("binary_float", &[1, 2, 3]).contains("4 bytes"));
    }

    #[test]
    fn text_and_raw() {
        assert_eq!(v("varchar2(10)", b"AAAAAAAAAA"), "AAAAAAAAAA");
        assert_eq!(v("varchar2", "Zoë €".as_bytes()), "Zoë €");
        assert_eq!(v("char(3)", b"a  "), "a  ");
        assert!(bad("varchar2", &[0x41, 0xc3]).contains("AL32UTF8"));
        // "Zoë" in AL16UTF16; 😀 U+1F600 as the pair d83d de00.
        assert_eq!(v("nvarchar2(5)", &[0, 0x5a, 0, 0x6f, 0, 0xeb]), "Zoë");
        assert_eq!(v("nchar", &[0xd8, 0x3d, 0xde, 0x00]), "😀");
        assert!(bad("nvarchar2", &[0, 0x41, 0]).contains("even"));
        assert!(bad("nvarchar2", &[0xd8, 0x3d]).contains("surrogate"));
        assert_eq!(v("raw(4)", &[0xde, 0xad, 0xbe, 0xef]), "DEADBEEF");
        let latin = decode_value(
            &OraType::parse("varchar2").unwrap(),
            &[0x5a, 0x6f, 0xeb],
            OraCharset::We8Iso8859P1,
        );
        assert_eq!(latin, Ok(Some("Zoë".into())));
        assert!(decode_value(
            &OraType::parse("char").unwrap(),
            &[0xeb],
            OraCharset::Us7Ascii
        )
        .is_err());
        assert_eq!(
            decode_value(&OraType::parse("blob").unwrap(), &[1], OraCharset::Al32Utf8),
            Ok(None)
        );
    }

    /// NUMBER bytes written from base-100 digits by the rule in §5.1.
    fn encode_number(negative: bool, exponent: i32, digits: &[u8]) -> Vec<u8> {
        let e = (exponent + 0xc1) as u8;
        let mut out = vec![if negative { !e } else { e }];
        for &d in digits {
            out.push(if negative { 101 - d } else { d + 1 });
        }
        if negative && digits.len() < 20 {
            out.push(0x66);
        }
        out
    }

    /// The decimal those digits mean, by placing the point in the digit string.
    fn expected_text(negative: bool, exponent: i32, digits: &[u8]) -> String {
        let mut all: String = digits.iter().map(|d| format!("{d:02}")).collect();
        // The point sits after (exponent + 1) pairs of the digit string.
        let mut point = 2 * (exponent + 1);
        while point > all.len() as i32 {
            all.push('0');
        }
        while point < 0 {
            all.insert(0, '0');
            point += 1;
        }
        let (int, frac) = all.split_at(point as usize);
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        let mut s = String::from(if negative { "-" } else { "" });
        s.push_str(if int.is_empty() { "0" } else { int });
        if !frac.is_empty() {
            s.push('.');
            s.push_str(frac);
        }
        s
    }

    proptest::proptest! {
        #[test]
        fn numbers_round_trip(
            negative in proptest::bool::ANY,
            exponent in -65i32..=62,
            digits in proptest::collection::vec(0u8..100, 1..=20),
        ) {
            let mut digits = digits;
            // Oracle stores no leading or trailing zero digits.
            if digits[0] == 0 { digits[0] = 1; }
            let last = digits.len() - 1;
            if digits[last] == 0 { digits[last] = 7; }
            let bytes = encode_number(negative, exponent, &digits);
            let n = decode_number(&bytes).unwrap();
            proptest::prop_assert_eq!(n.text, expected_text(negative, exponent, &digits));
        }

        #[test]
        fn binary_floats_round_trip_and_sort(a in proptest::num::f64::ANY, b in proptest::num::f64::ANY) {
            let enc = |v: f64| {
                let bits = v.to_bits();
                let stored = if bits >> 63 == 0 { bits | 1 << 63 } else { !bits };
                stored.to_be_bytes()
            };
            let (ea, eb) = (enc(a), enc(b));
            proptest::prop_assert_eq!(decode_binary_double(&ea).unwrap().to_bits(), a.to_bits());
            if !a.is_nan() && !b.is_nan() && a < b {
                proptest::prop_assert!(ea < eb);
            }
            let f = a as f32;
            let fb = f.to_bits();
            let stored = if fb >> 31 == 0 { fb | 1 << 31 } else { !fb };
            proptest::prop_assert_eq!(decode_binary_float(&stored.to_be_bytes()).unwrap().to_bits(), fb);
        }

        #[test]
        fn decode_value_never_panics(ty in 0usize..8, bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..30)) {
            let names = ["number", "date", "timestamp(3)", "binary_float", "binary_double", "varchar2", "nchar", "raw"];
            let ty = OraType::parse(names[ty]).unwrap();
            for cs in [OraCharset::Al32Utf8, OraCharset::We8Iso8859P1, OraCharset::Us7Ascii] {
                let _ = decode_value(&ty, &bytes, cs);
            }
        }
    }
}
