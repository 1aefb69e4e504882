//! Floating point output: float4out / float8out with extra_float_digits > 0,
//! as PostgreSQL prints them. A leaf: the value printers (`values.rs`) and
//! the geometric and extension printers use it.

// float4out / float8out with extra_float_digits > 0. PostgreSQL
// prints with its copy of Ryu built without STRICTLY_SHORTEST: the fewest
// digits that lie strictly inside the value's rounding interval (a decimal
// exactly half an ulp away is never taken, even when it would read back as the
// same value), the one nearest the value, and of two equally near the even
// one (a float4 stored as exactly 4531.15625 prints 4531.1562). Fixed notation
// when the decimal exponent is in [-4, 6) for float4 or [-4, 15) for float8
// (FLT_DIG / DBL_DIG), otherwise d.ddde±XX.
// ---------------------------------------------------------------------------

pub(crate) fn float8_out(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-Infinity" } else { "Infinity" }.into();
    }
    let bits = v.to_bits();
    let (field, fraction) = ((bits >> 52) & 0x7FF, bits & ((1 << 52) - 1));
    let bin = Binary::new(field, fraction, 52, 1075);
    let sci = ryu_digits(v.abs(), &format!("{:e}", v.abs()), 17, bin, |s| {
        s.parse::<f64>().ok() == Some(v.abs())
    });
    shortest(&signed(v.is_sign_negative(), sci), 15)
}

pub(crate) fn float4_out(v: f32) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-Infinity" } else { "Infinity" }.into();
    }
    let bits = u64::from(v.to_bits());
    let (field, fraction) = ((bits >> 23) & 0xFF, bits & ((1 << 23) - 1));
    let bin = Binary::new(field, fraction, 23, 150);
    let sci = ryu_digits(v.abs(), &format!("{:e}", v.abs()), 9, bin, |s| {
        s.parse::<f32>().ok() == Some(v.abs())
    });
    shortest(&signed(v.is_sign_negative(), sci), 6)
}

fn signed(neg: bool, sci: String) -> String {
    if neg {
        format!("-{sci}")
    } else {
        sci
    }
}

/// A finite float as `m · 2^e` (m with its hidden bit), and the ends of its
/// rounding interval `(m4 - 1 - mm_shift) · 2^(e-2)` and `(m4 + 2) · 2^(e-2)`
/// with `m4 = 4m` (the lower gap is half as wide just above a power of two).
#[derive(Clone, Copy)]
struct Binary {
    m: u64,
    e: i32,
    mm_shift: u64,
}

impl Binary {
    fn new(field: u64, fraction: u64, mantissa_bits: u32, bias: i32) -> Binary {
        let (m, e) = if field == 0 {
            (fraction, 1 - bias)
        } else {
            (fraction | (1 << mantissa_bits), field as i32 - bias)
        };
        let mm_shift = u64::from(fraction != 0 || field <= 1);
        Binary { m, e, mm_shift }
    }

    /// Whether `d · 10^k` is exactly one end of the rounding interval.
    fn on_bound(&self, d: u64, k: i32) -> bool {
        let m4 = 4 * self.m;
        exact_eq(d, k, m4 + 2, self.e - 2) || exact_eq(d, k, m4 - 1 - self.mm_shift, self.e - 2)
    }

    /// Whether the value is exactly `(2d + 1) · 10^k / 2` (`up`) or
    /// `(2d - 1) · 10^k / 2`: halfway between two neighbouring decimals.
    fn halfway(&self, d: u64, k: i32, up: bool) -> bool {
        let Some(odd) = (if up {
            d.checked_mul(2).and_then(|x| x.checked_add(1))
        } else {
            (2 * d).checked_sub(1)
        }) else {
            return false;
        };
        exact_eq(odd, k, self.m, self.e + 1)
    }
}

/// `d · 10^k == n · 2^q` exactly: both written as `r · 2^a · 5^b` with `r`
/// prime to 10, which is unique.
fn exact_eq(d: u64, k: i32, n: u64, q: i32) -> bool {
    fn split(mut r: u64, mut twos: i64, mut fives: i64) -> (u64, i64, i64) {
        if r == 0 {
            return (0, 0, 0);
        }
        while r.is_multiple_of(2) {
            r /= 2;
            twos += 1;
        }
        while r.is_multiple_of(5) {
            r /= 5;
            fives += 1;
        }
        (r, twos, fives)
    }
    split(d, i64::from(k), i64::from(k)) == split(n, i64::from(q), 0)
}

/// The digits PostgreSQL's Ryu prints for the finite non-negative `v`, as
/// `d.ddde±N`. `rust_sci` is Rust's shortest form, whose interval may include
/// its ends, so PostgreSQL's never has fewer digits; `reads_back` tells
/// whether a decimal string reads back as `v`.
fn ryu_digits<F: std::fmt::LowerExp + Copy>(
    v: F,
    rust_sci: &str,
    max_digits: usize,
    bin: Binary,
    reads_back: impl Fn(&str) -> bool,
) -> String {
    if bin.m == 0 {
        return "0e0".into();
    }
    let start = rust_sci
        .split('e')
        .next()
        .unwrap_or_default()
        .bytes()
        .filter(u8::is_ascii_digit)
        .count()
        .clamp(1, max_digits);
    let inside = |d: u64, k: i32| d != 0 && !bin.on_bound(d, k) && reads_back(&format!("{d}e{k}"));
    let mut last = (0u64, 0i32);
    for p in start..=max_digits {
        // The nearest p-digit decimal, d · 10^k.
        let sci = format!("{:.*e}", p - 1, v);
        let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
        let d: u64 = mantissa.replace('.', "").parse().unwrap_or(0);
        let k = exp.parse::<i32>().unwrap_or(0) - (p as i32 - 1);
        // Of two equally near, the even one; otherwise the nearest, then
        // (just above a power of two, where the lower gap is narrower) the
        // neighbour on the other side, when only that one is inside.
        let candidates = if bin.halfway(d, k, true) {
            if d % 2 == 1 {
                [d + 1, d, d]
            } else {
                [d, d + 1, d + 1]
            }
        } else if bin.halfway(d, k, false) {
            if d % 2 == 1 {
                [d - 1, d, d]
            } else {
                [d, d - 1, d - 1]
            }
        } else {
            [d, d.saturating_sub(1), d + 1]
        };
        last = (candidates[0], k);
        for c in candidates {
            if inside(c, k) {
                return sci_text(c, k);
            }
        }
    }
    sci_text(last.0, last.1)
}

/// `d · 10^k` as `d.ddde±N` without trailing zeros.
fn sci_text(mut d: u64, mut k: i32) -> String {
    if d == 0 {
        return "0e0".into();
    }
    while d.is_multiple_of(10) {
        d /= 10;
        k += 1;
    }
    let digits = d.to_string();
    let exp = k + digits.len() as i32 - 1;
    let (first, rest) = digits.split_at(1);
    if rest.is_empty() {
        format!("{first}e{exp}")
    } else {
        format!("{first}.{rest}e{exp}")
    }
}
/// Re-lay Rust's shortest `d.ddde±N` form the way PostgreSQL's Ryu output does.
fn shortest(sci: &str, fixed_below: i32) -> String {
    let (neg, body) = match sci.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, sci),
    };
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if neg { "-" } else { "" };
    if digits.bytes().all(|b| b == b'0') {
        return format!("{sign}0");
    }
    let n = digits.len() as i32;
    if (-4..fixed_below).contains(&exp) {
        let before = exp + 1;
        let text = if before <= 0 {
            format!("0.{}{digits}", "0".repeat((-before) as usize))
        } else if before >= n {
            format!("{digits}{}", "0".repeat((before - n) as usize))
        } else {
            let (a, b) = digits.split_at(before as usize);
            format!("{a}.{b}")
        };
        return format!("{sign}{text}");
    }
    let (first, rest) = digits.split_at(1);
    let point = if rest.is_empty() {
        String::new()
    } else {
        format!(".{rest}")
    };
    let esign = if exp < 0 { '-' } else { '+' };
    format!("{sign}{first}{point}e{esign}{:02}", exp.unsigned_abs())
}
