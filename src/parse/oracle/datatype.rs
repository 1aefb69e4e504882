//! Oracle's internal NUMBER and DATE/TIMESTAMP formats (§5.1–5.3).
//!
//! NUMBER: an exponent byte then 1–20 base-100 digits. Positive: exponent byte
//! = 0xc1 + power of 100 of the first digit, digit bytes = digit + 1. Negative:
//! exponent bits inverted, digit bytes = 101 − digit, and a 0x66 terminator
//! unless there are 20 digits. Zero is the single byte 0x80.
//!
//! DATE (7 bytes): century + 100, year-in-century + 100, month, day, hour + 1,
//! minute + 1, second + 1. TIMESTAMP adds 4 big-endian bytes of nanoseconds.

use std::fmt;

/// Why bytes are not a valid NUMBER or DATE.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatatypeError(pub String);

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
pub struct OraNumber {
    pub text: String,
    pub negative: bool,
    /// Power of 100 of the first digit.
    pub exponent: i32,
    /// Base-100 digits, most significant first.
    pub digits: Vec<u8>,
}

/// Decode NUMBER bytes to exact decimal text (`c2 4a 46` → `7369`).
pub fn decode_number(bytes: &[u8]) -> Result<OraNumber, DatatypeError> {
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
pub struct OraDate {
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
pub fn decode_date(bytes: &[u8]) -> Result<OraDate, DatatypeError> {
    let (date, nanos) = match bytes {
        [c, y, mo, d, h, mi, s] => ([*c, *y, *mo, *d, *h, *mi, *s], None),
        [c, y, mo, d, h, mi, s, n0, n1, n2, n3] => (
            [*c, *y, *mo, *d, *h, *mi, *s],
            Some(u32::from_be_bytes([*n0, *n1, *n2, *n3])),
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
}
