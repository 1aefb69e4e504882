//! PostgreSQL's own LZ compression (`pg_lzcompress.c`), decompression only.
//!
//! The compressed stream is a sequence of groups: one control byte, then up
//! to eight items, one per control bit, least significant bit first:
//!
//! ```text
//!  bit 0: a literal byte, copied to the output
//!  bit 1: a back-reference tag of 2 or 3 bytes
//!         byte 0: high nibble = offset bits 8-11, low nibble = length - 3
//!         byte 1: offset bits 0-7
//!         byte 2: only when the low nibble is 0xf: length += this byte (18..273)
//!         copy `length` bytes starting `offset` bytes back in the output
//!         (the ranges may overlap: a run repeats what it just wrote)
//! ```
//!
//! The expected output size comes from the varlena (`va_tcinfo` or the TOAST
//! pointer); the output is never allowed to grow past it, and like the server
//! (`pglz_decompress(..., check_complete = true)`) a stream that ends early or
//! has bytes left over is an error.

use std::fmt;

/// Why a pglz stream could not be decompressed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PglzError {
    /// A tag refers to `offset` bytes back with only `written` bytes written.
    BadOffset {
        at: usize,
        offset: usize,
        written: usize,
    },
    /// The input ended inside a tag.
    Truncated { at: usize },
    /// The output did not come out at the declared size.
    SizeMismatch { expected: usize, got: usize },
    /// Input bytes remain after the output reached its size.
    TrailingInput { at: usize, left: usize },
}

impl fmt::Display for PglzError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PglzError::BadOffset {
                at,
                offset,
                written,
            } => write!(
                f,
                "pglz tag at byte {at} copies from {offset} bytes back, only {written} written"
            ),
            PglzError::Truncated { at } => write!(f, "pglz data ends inside a tag at byte {at}"),
            PglzError::SizeMismatch { expected, got } => write!(
                f,
                "pglz data decompresses to {got} bytes, the header says {expected}"
            ),
            PglzError::TrailingInput { at, left } => write!(
                f,
                "pglz data has {left} bytes left over at byte {at} after the declared size"
            ),
        }
    }
}

impl std::error::Error for PglzError {}

/// Decompress `src` into exactly `rawsize` bytes. The caller caps `rawsize`
/// (it comes from the page); at most that much is allocated.
pub(crate) fn decompress(src: &[u8], rawsize: usize) -> Result<Vec<u8>, PglzError> {
    let mut out: Vec<u8> = Vec::with_capacity(rawsize);
    let mut sp = 0usize;
    while sp < src.len() && out.len() < rawsize {
        let Some(&ctrl) = src.get(sp) else { break };
        sp += 1;
        for bit in 0..8 {
            if sp >= src.len() || out.len() >= rawsize {
                break;
            }
            if ctrl & (1 << bit) == 0 {
                if let Some(&b) = src.get(sp) {
                    out.push(b);
                }
                sp += 1;
                continue;
            }
            let tag_at = sp;
            let (Some(&b0), Some(&b1)) = (src.get(sp), src.get(sp + 1)) else {
                return Err(PglzError::Truncated { at: tag_at });
            };
            sp += 2;
            let mut len = usize::from(b0 & 0x0f) + 3;
            let offset = (usize::from(b0 & 0xf0) << 4) | usize::from(b1);
            if len == 18 {
                let Some(&extra) = src.get(sp) else {
                    return Err(PglzError::Truncated { at: tag_at });
                };
                sp += 1;
                len += usize::from(extra);
            }
            if offset == 0 || offset > out.len() {
                return Err(PglzError::BadOffset {
                    at: tag_at,
                    offset,
                    written: out.len(),
                });
            }
            len = len.min(rawsize - out.len());
            let from = out.len() - offset;
            for i in 0..len {
                let b = out.get(from + i).copied().unwrap_or_default();
                out.push(b);
            }
        }
    }
    if out.len() != rawsize {
        return Err(PglzError::SizeMismatch {
            expected: rawsize,
            got: out.len(),
        });
    }
    if sp < src.len() {
        return Err(PglzError::TrailingInput {
            at: sp,
            left: src.len() - sp,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_only() {
        // control 0x00: eight literals; then a second group with three.
        let src = [
            0x00, b'a', b'b', b'c', b'd', b'e', b'f', b'g', b'h', 0x00, b'i', b'j', b'k',
        ];
        assert_eq!(decompress(&src, 11).unwrap(), b"abcdefghijk");
    }

    #[test]
    fn overlapping_back_reference_repeats_a_run() {
        // 'a', then tag: length 3+7 = 10, offset 1 → ten more 'a's.
        let src = [0b0000_0010, b'a', 0x07, 0x01];
        assert_eq!(decompress(&src, 11).unwrap(), vec![b'a'; 11]);
    }

    #[test]
    fn three_byte_tag_for_long_matches() {
        // "xy", then tag: nibble 0xf → 18 + 2 = 20 bytes, offset 2.
        let src = [0b0000_0100, b'x', b'y', 0x0f, 0x02, 0x02];
        let out = decompress(&src, 22).unwrap();
        assert_eq!(out, b"xyxyxyxyxyxyxyxyxyxyxy");
    }

    #[test]
    fn twelve_bit_offsets() {
        // 300 literals would need many groups; instead check the offset
        // arithmetic: high nibble 0x1 + low byte 0x00 = 256.
        let mut src = Vec::new();
        let mut expected = Vec::new();
        for chunk in 0..32u8 {
            src.push(0x00);
            for i in 0..8u8 {
                let b = chunk.wrapping_mul(8).wrapping_add(i);
                src.push(b);
                expected.push(b);
            }
        }
        src.extend_from_slice(&[0x01, 0x10, 0x00]); // len 3, offset 256
        expected.extend_from_slice(&[0, 1, 2]);
        assert_eq!(decompress(&src, 259).unwrap(), expected);
    }

    #[test]
    fn corrupt_streams_are_errors_not_panics() {
        // back-reference before anything was written
        assert!(matches!(
            decompress(&[0x01, 0x00, 0x01], 3),
            Err(PglzError::BadOffset { .. })
        ));
        // offset 0
        assert!(matches!(
            decompress(&[0x02, b'a', 0x00, 0x00], 4),
            Err(PglzError::BadOffset { .. })
        ));
        // tag cut short
        assert!(matches!(
            decompress(&[0x02, b'a', 0x0f], 4),
            Err(PglzError::Truncated { .. })
        ));
        // too little output
        assert!(matches!(
            decompress(&[0x00, b'a'], 5),
            Err(PglzError::SizeMismatch {
                expected: 5,
                got: 1
            })
        ));
        // output complete with input left over
        assert!(matches!(
            decompress(&[0x00, b'a', b'b'], 1),
            Err(PglzError::TrailingInput { .. })
        ));
        // a long match is cut at the declared size, never past it
        assert_eq!(
            decompress(&[0x02, b'a', 0x0f, 0x01, 0xff], 10).unwrap(),
            vec![b'a'; 10]
        );
    }

    #[test]
    fn real_value_from_the_varlena_fixture() {
        // varlena.0 lp 3, v_default: repeat('pglz compresses this. ', 140),
        // inline pglz (va_tcinfo rawsize 3080). Bytes after the 8-byte header.
        let src = [
            0x00, 0x70, 0x67, 0x6c, 0x7a, 0x20, 0x63, 0x6f, 0x6d, 0x00, 0x70, 0x72, 0x65, 0x73,
            0x73, 0x65, 0x73, 0x20, 0xc0, 0x74, 0x68, 0x69, 0x73, 0x2e, 0x20, 0x0f, 0x16, 0xff,
            0x0f, 0x16, 0xff, 0xff, 0x0f, 0x16, 0xff, 0x0f, 0x16, 0xff, 0x0f, 0x16, 0xff, 0x0f,
            0x16, 0xff, 0x0f, 0x16, 0xff, 0x0f, 0x16, 0xff, 0x0f, 0x16, 0xff, 0x0f, 0x16, 0xff,
            0x03, 0x0f, 0x16, 0xff, 0x0f, 0x16, 0x25,
        ];
        let out = decompress(&src, 3080).unwrap();
        assert_eq!(out, "pglz compresses this. ".repeat(140).as_bytes());
    }
}
