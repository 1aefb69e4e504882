//! The block check value: a 16-bit XOR over every 16-bit word of the block (§9).
//!
//! A block whose cache header flag has 0x04 (KCBHFCKV) XORs to zero; the stored
//! `chkval_kcbh` (offset 16) is the value that makes it so, i.e. the XOR of the
//! block computed with the chkval field taken as zero. Word order does not
//! matter for an XOR, but the byte order does: the words are native-endian.

use byteorder::{ByteOrder, LittleEndian};

use crate::reader::Endian;

/// Offset of `chkval_kcbh`.
pub(crate) const CHKVAL_OFFSET: usize = 16;

/// XOR of all 16-bit words of `block` in `endian` order. A trailing odd byte
/// (only in truncated input) counts as the low byte of a last word.
pub fn xor16(block: &[u8], endian: Endian) -> u16 {
    // Fold 8 bytes at a time, then the 64-bit lanes into 16 bits.
    let mut acc: u64 = 0;
    let mut chunks = block.chunks_exact(8);
    for c in &mut chunks {
        acc ^= LittleEndian::read_u64(c);
    }
    let mut folded = (acc ^ (acc >> 32)) as u32;
    folded ^= folded >> 16;
    // Lanes were read little-endian; a big-endian word swaps its bytes.
    let mut x = folded as u16;
    if endian == Endian::Big {
        x = x.swap_bytes();
    }
    let rest = chunks.remainder();
    let mut pairs = rest.chunks(2);
    for p in &mut pairs {
        let (a, b) = match p {
            [a, b] => (*a, *b),
            [a] => (*a, 0),
            _ => (0, 0),
        };
        x ^= endian.u16_from([a, b]);
    }
    x
}

/// The check value the block needs: its XOR with the stored chkval removed.
pub fn compute_chkval(block: &[u8], endian: Endian) -> u16 {
    let stored = block
        .get(CHKVAL_OFFSET..CHKVAL_OFFSET + 2)
        .and_then(|b| endian.read_u16(b))
        .unwrap_or(0);
    xor16(block, endian) ^ stored
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(block: &[u8], endian: Endian) -> u16 {
        block.chunks(2).fold(0u16, |x, p| {
            let a = p.first().copied().unwrap_or(0);
            let b = p.get(1).copied().unwrap_or(0);
            x ^ endian.u16_from([a, b])
        })
    }

    #[test]
    fn folding_equals_word_by_word() {
        let data: Vec<u8> = (0..8203u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for len in [0, 1, 2, 7, 8, 9, 16, 8192, 8203] {
            for e in [Endian::Little, Endian::Big] {
                assert_eq!(
                    xor16(&data[..len], e),
                    naive(&data[..len], e),
                    "{len} {e:?}"
                );
            }
        }
    }

    #[test]
    fn chkval_makes_the_block_xor_to_zero() {
        let mut block = vec![0u8; 8192];
        block[0] = 6;
        block[1] = 0xa2;
        block[100] = 0x41;
        block[8191] = 0x9a;
        for e in [Endian::Little, Endian::Big] {
            let c = compute_chkval(&block, e);
            let bytes = match e {
                Endian::Little => c.to_le_bytes(),
                Endian::Big => c.to_be_bytes(),
            };
            block[16..18].copy_from_slice(&bytes);
            assert_eq!(xor16(&block, e), 0);
            assert_eq!(compute_chkval(&block, e), c);
        }
    }
}
