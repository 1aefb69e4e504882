//! gdb's `x/Nbx ADDR` output:
//!
//! ```text
//! (gdb) x/8192bx 0x1a5576000
//! 0x1a5576000:\t0x06\t0xa2\t0x00\t0x00\t0x8b\t0x03\t0x00\t0x00
//! 0x1a5576008:\t0xf4\t0x9a\t0x4e\t0x00\t0x00\t0x00\t0x01\t0x06
//! ```
//!
//! An address, optionally a symbol (`0x4040 <buf+8>:`), a colon, then bytes as
//! `0xNN` separated by tabs (`\t` above), eight a line (any count is accepted).
//! Each address must be the previous one plus the previous line's byte count.
//! Lines starting with the `(gdb)` prompt are skipped.

use super::text::{excerpt, hex_run, is_space, lines, parse_number, Line};
use super::{InputError, InputFormat};

const FORMAT: InputFormat = InputFormat::Gdb;

/// The address and the column where the bytes start.
fn parse_address(line: &Line<'_>) -> Result<(u64, usize), InputError> {
    let t = line.text;
    let bad = |col: usize, what: &str| {
        line.error(
            FORMAT,
            col,
            format!(
                "expected {what} (as gdb's x/Nbx prints), found {}",
                excerpt(line.rest(col))
            ),
        )
    };
    let digits = t.strip_prefix(b"0x").map_or(0, hex_run);
    let Some(address) = t
        .get(2..digits.saturating_add(2))
        .and_then(|d| parse_number(d, 16))
    else {
        return Err(bad(0, "an address like \"0x7f1c2a4b8000:\""));
    };
    let mut col = digits.saturating_add(2);
    col = col.saturating_add(line.rest(col).iter().take_while(|&&b| is_space(b)).count());
    if line.rest(col).first() == Some(&b'<') {
        // A symbol such as <buf+8>, which may itself hold '<', '>' or spaces; the
        // bytes after the colon hold neither, so it ends at the last '>'.
        let Some(close) = line.rest(col).iter().rposition(|&b| b == b'>') else {
            return Err(bad(col, "a symbol like \"<buf+8>\" and a colon"));
        };
        col = col.saturating_add(close).saturating_add(1);
    }
    if line.rest(col).first() != Some(&b':') {
        return Err(bad(col, "a colon after the address"));
    }
    Ok((address, col.saturating_add(1)))
}

/// The bytes of one line from column `col` on: `0xNN` separated by whitespace.
fn parse_bytes(line: &Line<'_>, mut col: usize, out: &mut Vec<u8>) -> Result<usize, InputError> {
    let mut count = 0usize;
    for chunk in line.rest(col).split(|&b| is_space(b)) {
        if !chunk.is_empty() {
            let value = chunk
                .strip_prefix(b"0x")
                .filter(|d| (1..=2).contains(&d.len()))
                .and_then(|d| parse_number(d, 16));
            let Some(value) = value.and_then(|v| u8::try_from(v).ok()) else {
                return Err(line.error(
                    FORMAT,
                    col,
                    format!(
                        "expected bytes like 0x06 (as x/Nbx prints them), found {}",
                        excerpt(line.rest(col))
                    ),
                ));
            };
            out.push(value);
            count += 1;
        }
        col = col.saturating_add(chunk.len()).saturating_add(1);
    }
    if count == 0 {
        return Err(line.error(
            FORMAT,
            line.text.len(),
            "expected bytes like 0x06 after the address, found the end of the line".to_string(),
        ));
    }
    Ok(count)
}

/// Decode gdb `x/Nbx` output.
pub(super) fn decode(data: &[u8]) -> Result<Vec<u8>, InputError> {
    let mut out = Vec::with_capacity(data.len() / 5);
    // The address the next line must start at, and the line that said so.
    let mut next: Option<(u64, usize)> = None;
    for line in lines(data) {
        if line.is_blank() || line.text.starts_with(b"(gdb)") {
            continue;
        }
        let (address, col) = parse_address(&line)?;
        if let Some((expected, previous)) = next {
            if address != expected {
                let how = if address > expected {
                    format!("leaves a gap of {} bytes", address - expected)
                } else {
                    "goes backwards".to_string()
                };
                return Err(line.error(
                    FORMAT,
                    0,
                    format!(
                        "address {address:#x} on line {} {how}: expected {expected:#x}, right after the bytes of line {previous}",
                        line.no
                    ),
                ));
            }
        }
        let count = parse_bytes(&line, col, &mut out)?;
        let Some(following) = address.checked_add(count as u64) else {
            return Err(line.error(
                FORMAT,
                0,
                format!(
                    "expected the bytes of line {} to fit below the top of the address space, found them running past it",
                    line.no
                ),
            ));
        };
        next = Some((following, line.no));
    }
    if out.is_empty() {
        return Err(InputError::whole(
            FORMAT,
            "expected lines of x/Nbx output (an address, a colon and 0xNN bytes), found no data"
                .to_string(),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_symbolic_and_prompt_forms() {
        let text = "(gdb) x/10bx &buf\n\
                    0x55d0c3 <buf>:\t0x06\t0xa2\t0x00\t0x00\t0x8b\t0x03\t0x00\t0x00\r\n\
                    0x55d0cb <buf+8>:\t0xf4\t0x9a\n\n";
        assert_eq!(
            decode(text.as_bytes()).expect("ok"),
            vec![0x06, 0xa2, 0, 0, 0x8b, 0x03, 0, 0, 0xf4, 0x9a]
        );
        let text =
            "0x1000 <std::vector<int, std::allocator<int> >::x+0>: 0x01 0x02\n0x1002:\t0x03\n";
        assert_eq!(decode(text.as_bytes()).expect("ok"), vec![1, 2, 3]);
    }

    #[test]
    fn gaps_and_backwards_name_the_line() {
        let text = b"0x1000:\t0x01\t0x02\n0x1003:\t0x03\n";
        let err = decode(text).expect_err("gap");
        assert_eq!(err.line, Some(2));
        assert_eq!(
            err.message,
            "address 0x1003 on line 2 leaves a gap of 1 bytes: expected 0x1002, right after the bytes of line 1"
        );
        let text = b"0x1000:\t0x01\t0x02\n0x1000:\t0x03\n";
        let err = decode(text).expect_err("backwards");
        assert!(err.message.contains("goes backwards"), "{err}");
    }

    #[test]
    fn malformed_lines() {
        let err = decode(b"0x1000:\t0x01\t0x1g\n").expect_err("bad byte");
        assert_eq!((err.line, err.offset), (Some(1), Some(13)));
        let err = decode(b"0x1000:\t0x0102\n").expect_err("word, not byte");
        assert!(err.message.contains("0x06"), "{err}");
        let err = decode(b"0x1000:\n").expect_err("no bytes");
        assert_eq!(err.offset, Some(7));
        let err = decode(b"0x1000 0x01\n").expect_err("no colon");
        assert_eq!(err.offset, Some(7));
        let err = decode(b"Cannot access memory at address 0x0\n").expect_err("gdb error");
        assert_eq!(err.line, Some(1));
        let err = decode(b"0xffffffffffffffff:\t0x01\t0x02\n").expect_err("wraps");
        assert_eq!(err.line, Some(1));
        let err = decode(b"(gdb) x/8bx 0\n").expect_err("empty");
        assert_eq!(err.line, None);
    }
}
