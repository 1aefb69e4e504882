//! contrib/isn's types (`ean13`, `isbn`, `isbn13`, `ismn`, `ismn13`,
//! `issn`, `issn13`, `upc`): an 8-byte integer, the EAN-13 number (check
//! digit included) shifted left by one, bit 0 set when the number was
//! accepted with a wrong check digit (`isn.weak`).
//!
//! The text is isn.c's `ean2string`: the 13 digits as `DDDDDDDDDDDD-C`
//! (a `!` after them when flagged), hyphenated in two steps by the range
//! tables of `isn_ranges.rs` — first the GS1 prefix (EAN13.h), then, for
//! prefix 978 or 979 (ISBN), 977 (ISSN), 9790 (ISMN) or 0 (UPC), the
//! group and publisher. A step whose table has no range for the number
//! leaves the digits unhyphenated. `ean13_out` (ean13, isbn13, ismn13,
//! issn13) prints that; `isn_out` (isbn, ismn, issn, upc) then shortens it
//! to the old form: a 978 ISBN without its prefix and with the ISBN-10
//! check digit (`X` for 10), an ISMN with `M` for `979-0`, an ISSN's eight
//! digits with its own check digit (the issue digits and `!` dropped), a
//! UPC's twelve digits (its leading 0, hyphens and `!` dropped).
//!
//! The steps work on one NUL-terminated buffer in place, as isn.c's do,
//! so that every number prints as the server prints it, including the
//! ones the tables' binary search does not find.

use super::isn_ranges::{RangeTable, EAN13, ISBN, ISBN_NEW, ISMN, ISSN, UPC};

/// The largest EAN-13 number (13 digits).
const MAX_EAN13: u64 = 9_999_999_999_999;
/// isn.c's MAXEAN13LEN: the longest text, without its NUL.
const MAXLEN: usize = 18;

/// The kind `ean2string` finds from the number's prefix.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Isbn,
    Issn,
    Ismn,
    Upc,
    Ean13,
}

/// The text buffer: reads past its end see NUL, writes past it are dropped
/// (neither happens for a number in range; the guard keeps damaged input
/// from panicking).
struct Buf([u8; MAXLEN + 8]);

impl Buf {
    fn at(&self, i: usize) -> u8 {
        self.0.get(i).copied().unwrap_or(0)
    }

    fn set(&mut self, i: usize, b: u8) {
        if let Some(x) = self.0.get_mut(i) {
            *x = b;
        }
    }

    /// C's `strncmp(lit, buf, n) == 0`.
    fn starts(&self, lit: &[u8], n: usize) -> bool {
        for i in 0..n {
            let a = lit.get(i).copied().unwrap_or(0);
            if a != self.at(i) {
                return false;
            }
            if a == 0 {
                break;
            }
        }
        true
    }

    /// The text up to its NUL.
    fn text(&self) -> String {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(self.0.len());
        self.0[..end].iter().map(|&b| char::from(b)).collect()
    }

    /// The string at `from` moved to `to` (`to` ≤ `from`); the count of
    /// bytes moved plus one, as `hyphenate` without a table returns.
    fn shift(&mut self, to: usize, from: usize) -> usize {
        let (mut o, mut i) = (to, from);
        while self.at(i) != 0 && i < self.0.len() {
            self.set(o, self.at(i));
            o += 1;
            i += 1;
        }
        self.set(o, 0);
        i - from + 1
    }

    /// `hyphenate`: the digits at `from` matched against `table`'s ranges
    /// for their first digit by its binary search (the number's digits
    /// compared with a range's low and high bounds at once, the first
    /// difference deciding the direction); when a range holds them, they
    /// are copied to `to` with the range's hyphens and one after it, and the
    /// count of characters placed is returned; 0 when none does.
    fn hyphenate(&mut self, to: usize, from: usize, table: &RangeTable) -> usize {
        let first = self.at(from).wrapping_sub(b'0');
        let Some(&(start, count)) = table.index.get(usize::from(first)) else {
            return 0;
        };
        let mut lower = i64::from(start) - 1;
        let mut upper = i64::from(start) + i64::from(count);
        let mut step = (upper - lower) / 2;
        if step == 0 {
            return 0;
        }
        let mut search = lower + step;
        let range = |search: i64| {
            usize::try_from(search)
                .ok()
                .and_then(|s| table.ranges.get(s))
                .map(|&(lo, hi)| (lo.as_bytes(), hi.as_bytes()))
        };
        let Some((mut lo, mut hi)) = range(search) else {
            return 0;
        };
        let (mut digit, mut p) = (from, 0usize);
        let (mut above_lo, mut below_hi) = (false, false);
        while step != 0 {
            let c = self.at(digit);
            let (l, h) = (
                lo.get(p).copied().unwrap_or(0),
                hi.get(p).copied().unwrap_or(0),
            );
            if (above_lo || c >= l) && (below_hi || c <= h) {
                above_lo |= c > l;
                below_hi |= c < h;
                if above_lo && below_hi {
                    break;
                }
                digit += 1;
                p += 1;
                if p >= lo.len() || p >= hi.len() || self.at(digit) == 0 {
                    break;
                }
                if !lo[p].is_ascii_digit() {
                    p += 1;
                }
            } else {
                if c < l && !above_lo {
                    upper = search;
                } else {
                    lower = search;
                }
                step = (upper - lower) / 2;
                search = lower + step;
                if step != 0 {
                    let Some(r) = range(search) else {
                        return 0;
                    };
                    (lo, hi) = r;
                }
                digit = from;
                p = 0;
                above_lo = false;
                below_hi = false;
            }
        }
        if step == 0 {
            return 0;
        }
        let (mut o, mut i, mut placed) = (to, from, 0usize);
        for &pc in lo {
            if self.at(i) == 0 {
                break;
            }
            if pc != b'-' {
                self.set(o, self.at(i));
                i += 1;
            } else {
                self.set(o, b'-');
            }
            o += 1;
            placed += 1;
        }
        self.set(o, b'-');
        // The character after the hyphen is copied too (isn.c's lookahead).
        self.set(o + 1, self.at(i));
        placed + 1
    }

    /// `weight_checkdig`: the ISBN-10/ISSN check digit (0–10) of the first
    /// `size - 1` digits at `from`, weighted `size` down to 2.
    fn weight_checkdig(&self, from: usize, mut size: u32) -> u32 {
        let mut weight = 0u32;
        let mut i = from;
        while self.at(i) != 0 && size > 1 && i < self.0.len() {
            let b = self.at(i);
            if b.is_ascii_digit() {
                weight += size * u32::from(b - b'0');
                size -= 1;
            }
            i += 1;
        }
        match weight % 11 {
            0 => 0,
            w => 11 - w,
        }
    }
}

fn check_char(check: u32) -> u8 {
    if check == 10 {
        b'X'
    } else {
        b'0' + check as u8
    }
}

/// The text of an isn value: `short` for `isn_out` (isbn, ismn, issn,
/// upc), else `ean13_out` (ean13, isbn13, ismn13, issn13).
pub(crate) fn isn_out(value: u64, short: bool) -> Result<String, String> {
    let flagged = value & 1 != 0;
    let number = value >> 1;
    if number > MAX_EAN13 {
        return Err(format!(
            "{number} is out of range for an EAN-13 number (13 digits)"
        ));
    }
    let mut b = Buf([0; MAXLEN + 8]);
    let digits = format!("{number:013}");
    let digits = digits.as_bytes();
    // ean2string writes the digits from the end of its 19 bytes: the
    // check digit at 16 after a hyphen, the others at 3..15, a '0' at 2.
    b.0[2] = b'0';
    b.0[3..15].copy_from_slice(&digits[..12]);
    b.0[15] = b'-';
    b.0[16] = digits[12];
    b.0[17] = if flagged { b'!' } else { 0 };

    let mut kind = None;
    let placed = b.hyphenate(0, 3, &EAN13);
    if placed == 0 {
        b.shift(0, 3);
    } else {
        let (k, table) = if b.starts(b"978-", placed) {
            (Kind::Isbn, Some(&ISBN))
        } else if b.starts(b"977-", placed) {
            (Kind::Issn, Some(&ISSN))
        } else if b.starts(b"979-0", placed + 1) {
            (Kind::Ismn, Some(&ISMN))
        } else if b.starts(b"979-", placed) {
            (Kind::Isbn, Some(&ISBN_NEW))
        } else if b.at(0) == b'0' {
            (Kind::Upc, Some(&UPC))
        } else {
            (Kind::Ean13, None)
        };
        kind = Some(k);
        let found = table.is_some_and(|t| b.hyphenate(placed, placed + 2, t) != 0);
        if !found {
            b.shift(placed, placed + 2);
        }
    }

    if short {
        match kind {
            Some(Kind::Isbn) if b.starts(b"978-", 4) => {
                b.shift(0, 4);
                let check = b.weight_checkdig(0, 10);
                let end = b.0.iter().position(|&c| c == 0).unwrap_or(0);
                if let Some(last) = (0..end).rev().find(|&i| b.at(i).is_ascii_digit()) {
                    b.set(last, check_char(check));
                }
            }
            Some(Kind::Ismn) => {
                b.shift(0, 4);
                b.set(0, b'M');
            }
            Some(Kind::Issn) => {
                b.shift(0, 4);
                let check = b.weight_checkdig(0, 8);
                b.set(8, check_char(check));
                b.set(9, 0);
            }
            Some(Kind::Upc) => {
                // dehyphenate: the digits after the leading one, then cut
                // at twelve.
                let mut o = 0;
                let mut i = 1;
                while b.at(i) != 0 && i < b.0.len() {
                    if b.at(i).is_ascii_digit() {
                        b.set(o, b.at(i));
                        o += 1;
                    }
                    i += 1;
                }
                b.set(o, 0);
                b.set(12, 0);
            }
            _ => {}
        }
    }
    Ok(b.text())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stored value of a 13-digit number: shifted, flag in bit 0.
    fn v(n: u64, flagged: bool) -> u64 {
        n << 1 | u64::from(flagged)
    }

    #[test]
    fn isbn_ismn_issn_upc_long_and_short() {
        assert_eq!(
            isn_out(v(9780306406157, false), false).unwrap(),
            "978-0-306-40615-7"
        );
        assert_eq!(
            isn_out(v(9780306406157, false), true).unwrap(),
            "0-306-40615-2"
        );
        assert_eq!(
            isn_out(v(9790260000438, false), false).unwrap(),
            "979-0-2600-0043-8"
        );
        assert_eq!(
            isn_out(v(9790260000438, false), true).unwrap(),
            "M-2600-0043-8"
        );
        assert_eq!(
            isn_out(v(9770317847001, false), false).unwrap(),
            "977-0317-847-00-1"
        );
        assert_eq!(isn_out(v(9770317847001, false), true).unwrap(), "0317-8471");
        assert_eq!(
            isn_out(v(12345678905, false), false).unwrap(),
            "001-234567890-5"
        );
        assert_eq!(
            isn_out(v(12345678905, false), true).unwrap(),
            "012345678905"
        );
    }

    #[test]
    fn flag_and_range() {
        assert_eq!(
            isn_out(v(9780306406157, true), false).unwrap(),
            "978-0-306-40615-7!"
        );
        assert_eq!(
            isn_out(v(9780306406157, true), true).unwrap(),
            "0-306-40615-2!"
        );
        assert!(isn_out(v(MAX_EAN13 + 1, false), false).is_err());
        assert!(isn_out(u64::MAX, true).is_err());
        // A prefix outside EAN13.h's table: the digits unhyphenated.
        assert_eq!(
            isn_out(v(1400000000001, false), false).unwrap(),
            "140000000000-1"
        );
    }
}
