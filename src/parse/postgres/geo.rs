//! The geometric types' output functions (geo_ops.c): `line_out`,
//! `lseg_out`, `path_out`, `poly_out`, `circle_out`. Every coordinate is
//! printed as `float8out` prints it (the shortest text that reads back the
//! same, PostgreSQL 12+ with `extra_float_digits` at its default).
//!
//! Layouts (little-endian, 8-byte aligned; varlena payloads start after
//! their 4-byte header, so the offsets below are 4 less than in the C
//! structs):
//!
//! - `line`: float8 A, B, C (24 bytes) → `{A,B,C}`
//! - `lseg`: two points (32 bytes) → `[(x1,y1),(x2,y2)]`
//! - `path`: int32 npts, int32 closed (non-zero: closed), int32 padding,
//!   then npts points → `[(x,y),…]` open, `((x,y),…)` closed
//! - `polygon`: int32 npts, a bounding box (four float8), then npts points →
//!   `((x,y),…)`
//! - `circle`: centre point, float8 radius (24 bytes) → `<(x,y),r>`

use super::datum::{u32_at, u64_at};
use super::float::float8_out;

/// The float8 at byte `at`.
fn f8(data: &[u8], at: usize) -> Result<f64, String> {
    u64_at(data, at).map(f64::from_bits)
}

/// `pair_encode`: `x,y` of the point at `at`.
fn pair(data: &[u8], at: usize, out: &mut String) -> Result<(), String> {
    out.push_str(&float8_out(f8(data, at)?));
    out.push(',');
    out.push_str(&float8_out(f8(data, at + 8)?));
    Ok(())
}

/// `path_encode`: `npts` points from `at`, in `open`…`close`.
fn points(data: &[u8], at: usize, npts: usize, open: char, close: char) -> Result<String, String> {
    let end = npts
        .checked_mul(16)
        .and_then(|n| n.checked_add(at))
        .filter(|&e| e <= data.len())
        .ok_or_else(|| {
            format!(
                "{npts} points do not fit in the value's {} bytes",
                data.len()
            )
        })?;
    if data.len() != end {
        return Err(format!(
            "{npts} points end at byte {end}, the value has {}",
            data.len()
        ));
    }
    let mut out = String::with_capacity(2 + npts * 8);
    out.push(open);
    for i in 0..npts {
        if i > 0 {
            out.push(',');
        }
        out.push('(');
        pair(data, at + i * 16, &mut out)?;
        out.push(')');
    }
    out.push(close);
    Ok(out)
}

fn exact(data: &[u8], len: usize, what: &str) -> Result<(), String> {
    if data.len() == len {
        Ok(())
    } else {
        Err(format!(
            "{what} takes {len} bytes, the value has {}",
            data.len()
        ))
    }
}

/// `line_out`: `{A,B,C}`.
pub(crate) fn line_out(data: &[u8]) -> Result<String, String> {
    exact(data, 24, "a line")?;
    Ok(format!(
        "{{{},{},{}}}",
        float8_out(f8(data, 0)?),
        float8_out(f8(data, 8)?),
        float8_out(f8(data, 16)?)
    ))
}

/// `lseg_out`: `[(x1,y1),(x2,y2)]`.
pub(crate) fn lseg_out(data: &[u8]) -> Result<String, String> {
    exact(data, 32, "a line segment")?;
    points(data, 0, 2, '[', ']')
}

/// `circle_out`: `<(x,y),r>`.
pub(crate) fn circle_out(data: &[u8]) -> Result<String, String> {
    exact(data, 24, "a circle")?;
    let mut out = String::from("<(");
    pair(data, 0, &mut out)?;
    out.push_str("),");
    out.push_str(&float8_out(f8(data, 16)?));
    out.push('>');
    Ok(out)
}

/// A point count as stored (int32), checked.
fn npts(data: &[u8]) -> Result<usize, String> {
    let n = u32_at(data, 0)? as i32;
    usize::try_from(n).map_err(|_| format!("point count {n} is negative"))
}

/// `path_out`: open paths in brackets, closed ones in parentheses.
pub(crate) fn path_out(data: &[u8]) -> Result<String, String> {
    let n = npts(data)?;
    // path_out tests the flag for non-zero.
    let (open, close) = if u32_at(data, 4)? != 0 {
        ('(', ')')
    } else {
        ('[', ']')
    };
    points(data, 12, n, open, close)
}

/// `poly_out`: the points in parentheses (the stored bounding box is not printed).
pub(crate) fn poly_out(data: &[u8]) -> Result<String, String> {
    let n = npts(data)?;
    points(data, 36, n, '(', ')')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: &[f64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn fixed_shapes() {
        assert_eq!(line_out(&f(&[1.0, -2.0, 3.5])).unwrap(), "{1,-2,3.5}");
        assert_eq!(
            lseg_out(&f(&[0.0, 0.0, 1.5, -2.0])).unwrap(),
            "[(0,0),(1.5,-2)]"
        );
        assert_eq!(
            circle_out(&f(&[1.0, 2.0, 1e100])).unwrap(),
            "<(1,2),1e+100>"
        );
        assert!(line_out(&f(&[1.0, 2.0])).is_err());
    }

    #[test]
    fn paths_and_polygons() {
        let mut p = vec![2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
        p.extend(f(&[1.0, 2.0, 3.0, 4.0]));
        assert_eq!(path_out(&p).unwrap(), "((1,2),(3,4))");
        p[4] = 0;
        assert_eq!(path_out(&p).unwrap(), "[(1,2),(3,4)]");
        p[4] = 7;
        assert_eq!(path_out(&p).unwrap(), "((1,2),(3,4))");
        p[0] = 3;
        assert!(path_out(&p).is_err());
        p[0] = 0xff;
        p[3] = 0x7f;
        assert!(path_out(&p).is_err());
        let mut g = vec![1, 0, 0, 0];
        g.extend(f(&[2.0, 3.0, 2.0, 3.0, 2.0, 3.0]));
        assert_eq!(poly_out(&g).unwrap(), "((2,3))");
    }
}
