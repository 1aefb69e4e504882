//! PostgreSQL's data page checksum, `pg_checksum_page` (storage/checksum_impl.h).
//!
//! The page is viewed as rows of 32 native-endian 32-bit words; each of the 32
//! lanes runs an FNV-1a-like hash seeded from a fixed table, two extra rounds
//! of zeros follow, the lanes are XOR-folded, the block number is mixed in,
//! and the result is reduced to 1..=65535. pd_checksum counts as zero.

use crate::reader::Endian;

const N_SUMS: usize = 32;
const FNV_PRIME: u32 = 16_777_619;
/// Byte offset of pd_checksum in PageHeaderData.
const PD_CHECKSUM_OFFSET: usize = 8;

/// `checksumBaseOffsets`: part of the on-disk format.
const CHECKSUM_BASE_OFFSETS: [u32; N_SUMS] = [
    0x5B1F36E9, 0xB8525960, 0x02AB50AA, 0x1DE66D2A, 0x79FF467A, 0x9BB9F8A3, 0x217E7CD2, 0x83E13D2C,
    0xF8D4474F, 0xE39EB970, 0x42C6AE16, 0x993216FA, 0x7B093B5D, 0x98DAFF3C, 0xF718902A, 0x0B1C9CDB,
    0xE58F764B, 0x187636BC, 0x5D7B3BB1, 0xE73DE7DE, 0x92BEC979, 0xCCA6C0B2, 0x304A0979, 0x85AA43D4,
    0x783125BB, 0x6CA8EAA2, 0xE407EAC6, 0x4B5CFC3E, 0x9FBF8C76, 0x15CA20BE, 0xF2CA9FD3, 0x959BD756,
];

#[inline(always)]
fn comp(sum: &mut u32, value: u32) {
    let t = *sum ^ value;
    *sum = t.wrapping_mul(FNV_PRIME) ^ (t >> 17);
}

/// `pg_checksum_block`: the 32-bit hash of a whole page with pd_checksum zeroed.
/// `None` when the page size is not a whole number of 128-byte rows.
pub fn checksum_block(page: &[u8], endian: Endian) -> Option<u32> {
    let row_bytes = N_SUMS * 4;
    if page.is_empty() || !page.len().is_multiple_of(row_bytes) {
        return None;
    }
    let mut sums = CHECKSUM_BASE_OFFSETS;
    for (row_no, row) in page.chunks_exact(row_bytes).enumerate() {
        for (lane, (sum, word)) in sums.iter_mut().zip(row.chunks_exact(4)).enumerate() {
            let mut w = [0u8; 4];
            w.copy_from_slice(word);
            // pd_checksum (bytes 8..10) is hashed as zero: it is half of word 2.
            if row_no == 0 && lane == PD_CHECKSUM_OFFSET / 4 {
                w[0] = 0;
                w[1] = 0;
            }
            let v = match endian {
                Endian::Little => u32::from_le_bytes(w),
                Endian::Big => u32::from_be_bytes(w),
            };
            comp(sum, v);
        }
    }
    for _ in 0..2 {
        for sum in sums.iter_mut() {
            comp(sum, 0);
        }
    }
    Some(sums.iter().fold(0u32, |acc, s| acc ^ s))
}

/// `pg_checksum_page(page, blkno)`: the value pd_checksum must hold.
pub fn pg_checksum_page(page: &[u8], blkno: u64, endian: Endian) -> Option<u16> {
    let hash = checksum_block(page, endian)?;
    // The block number is a BlockNumber (uint32) in the server.
    let mixed = hash ^ (blkno as u32);
    Some(((mixed % 65535) + 1) as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_checksum_does_not_influence_the_result() {
        let mut page = vec![0u8; 8192];
        page[0..24].copy_from_slice(&[
            0, 0, 0, 0, 0xa8, 0x6b, 0x57, 0x01, 0, 0, 0, 0, 0x28, 0, 0x60, 0x1f, 0, 0x20, 4, 0x20,
            0, 0, 0, 0,
        ]);
        let a = pg_checksum_page(&page, 0, Endian::Little);
        page[8] = 0xab;
        page[9] = 0xcd;
        assert_eq!(a, pg_checksum_page(&page, 0, Endian::Little));
        assert_ne!(a, pg_checksum_page(&page, 1, Endian::Little));
        assert!(a.is_some_and(|c| c != 0));
    }

    #[test]
    fn odd_sizes_have_no_checksum() {
        assert_eq!(pg_checksum_page(&[0u8; 100], 0, Endian::Little), None);
        assert_eq!(pg_checksum_page(&[], 0, Endian::Little), None);
    }
}
