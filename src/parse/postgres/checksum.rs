//! PostgreSQL's data page checksum, `pg_checksum_page` (storage/checksum_impl.h).
//!
//! The page is viewed as rows of 32 native-endian 32-bit words; each of the 32
//! lanes runs an FNV-1a-like hash seeded from a fixed table, two extra rounds
//! of zeros follow, the lanes are XOR-folded, the block number is mixed in,
//! and the result is reduced to 1..=65535. pd_checksum counts as zero.

use byteorder::{BigEndian, ByteOrder, LittleEndian};

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

/// Bytes in one row of the page: one 32-bit word per lane.
const ROW_BYTES: usize = N_SUMS * 4;

/// `pg_checksum_block`: the 32-bit hash of a whole page with pd_checksum zeroed.
/// `None` when the page size is not a whole number of 128-byte rows.
pub fn checksum_block(page: &[u8], endian: Endian) -> Option<u32> {
    if page.is_empty() || !page.len().is_multiple_of(ROW_BYTES) {
        return None;
    }
    // One loop per byte order, so the inner loop has no branch and the 32
    // independent lanes vectorise.
    Some(match endian {
        Endian::Little => hash_rows::<LittleEndian>(page),
        Endian::Big => hash_rows::<BigEndian>(page),
    })
}

#[inline(always)]
fn hash_rows<B: ByteOrder>(page: &[u8]) -> u32 {
    let mut sums = CHECKSUM_BASE_OFFSETS;
    let mut rows = page.chunks_exact(ROW_BYTES);
    if let Some(first) = rows.next() {
        // pd_checksum (bytes 8..10) is hashed as zero.
        let mut row = [0u8; ROW_BYTES];
        row.copy_from_slice(first);
        row[PD_CHECKSUM_OFFSET] = 0;
        row[PD_CHECKSUM_OFFSET + 1] = 0;
        mix_row::<B>(&mut sums, &row);
    }
    for row in rows {
        mix_row::<B>(&mut sums, row);
    }
    for _ in 0..2 {
        for sum in sums.iter_mut() {
            comp(sum, 0);
        }
    }
    sums.iter().fold(0u32, |acc, s| acc ^ s)
}

#[inline(always)]
fn mix_row<B: ByteOrder>(sums: &mut [u32; N_SUMS], row: &[u8]) {
    for (sum, bytes) in sums.iter_mut().zip(row.chunks_exact(4)) {
        comp(sum, B::read_u32(bytes));
    }
}

/// `pg_checksum_page(page, blkno)`: the value pd_checksum must hold.
pub fn pg_checksum_page(page: &[u8], blkno: u64, endian: Endian) -> Option<u16> {
    let hash = checksum_block(page, endian)?;
    // The block number is a BlockNumber (uint32) in the server.
    let mixed = hash ^ (blkno as u32);
    Some(((mixed % 65535) + 1) as u16)
}

/// `InvalidBlockNumber`: no page has it.
const INVALID_BLOCK_NUMBER: u32 = u32::MAX;

/// The block numbers a stored checksum fits, when the page's own is not known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FittingBlocks {
    /// The few smallest, ascending.
    pub nearest: Vec<u32>,
    /// How many block numbers below 2^32 fit in all.
    pub count: u32,
}

/// Every block number (below `InvalidBlockNumber`) for which
/// `pg_checksum_page` of a page whose [`checksum_block`] is `hash` gives
/// `stored`: the block number is XORed into the hash before the reduction
/// `% 65535 + 1`, so they are `hash ^ c` for each 32-bit `c` with
/// `c % 65535 + 1 == stored` — about 65,537 of them. None for 0, which
/// pg_checksum_page never gives.
pub fn candidate_blocks(hash: u32, stored: u16) -> impl Iterator<Item = u32> {
    let first = u32::from(stored).checked_sub(1);
    let steps = first.map_or(0, |r| (u32::MAX - r) / 65535 + 1);
    (0..steps)
        .filter_map(move |k| first.map(|r| hash ^ (r + k * 65535)))
        .filter(|&b| b != INVALID_BLOCK_NUMBER)
}

/// The `n` smallest block numbers `stored` fits on this page, and how many fit.
/// `None` when no checksum can be computed (odd page size) or `stored` is 0.
pub fn fitting_blocks(page: &[u8], stored: u16, endian: Endian, n: usize) -> Option<FittingBlocks> {
    let hash = checksum_block(page, endian)?;
    let mut nearest: Vec<u32> = Vec::with_capacity(n + 1);
    let mut count = 0u32;
    for b in candidate_blocks(hash, stored) {
        count += 1;
        if nearest.len() < n || nearest.last().is_some_and(|&last| b < last) {
            let at = nearest.partition_point(|&x| x < b);
            nearest.insert(at, b);
            nearest.truncate(n);
        }
    }
    (count > 0).then_some(FittingBlocks { nearest, count })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_true_block_number_is_a_candidate(
            seed in any::<u64>(),
            blkno in any::<u32>().prop_filter("a block number", |&b| b != u32::MAX),
        ) {
            // A page of pseudo-random words: the hash is what matters.
            let mut page = vec![0u8; 8192];
            let mut x = seed | 1;
            for chunk in page.chunks_exact_mut(8) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                chunk.copy_from_slice(&x.to_le_bytes());
            }
            let stored = pg_checksum_page(&page, u64::from(blkno), Endian::Little).unwrap();
            let hash = checksum_block(&page, Endian::Little).unwrap();
            prop_assert!(candidate_blocks(hash, stored).any(|b| b == blkno));
            let fit = fitting_blocks(&page, stored, Endian::Little, 5).unwrap();
            prop_assert_eq!(fit.nearest.len(), 5);
            prop_assert!(fit.nearest.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(fit.count >= 65_536);
            if blkno <= *fit.nearest.last().unwrap() {
                prop_assert!(fit.nearest.contains(&blkno));
            }
            // Each listed block number really gives the stored checksum.
            for &b in &fit.nearest {
                prop_assert_eq!(pg_checksum_page(&page, u64::from(b), Endian::Little), Some(stored));
            }
        }
    }

    #[test]
    fn small_block_numbers_come_first() {
        let mut page = vec![0u8; 8192];
        page[100] = 7;
        for blkno in [0u32, 1, 3, 412, 70_000] {
            let stored = pg_checksum_page(&page, u64::from(blkno), Endian::Little).unwrap();
            let all: Vec<u32> =
                candidate_blocks(checksum_block(&page, Endian::Little).unwrap(), stored).collect();
            let mut sorted = all.clone();
            sorted.sort_unstable();
            let fit = fitting_blocks(&page, stored, Endian::Little, 5).unwrap();
            assert_eq!(fit.nearest, sorted[..5]);
            assert_eq!(fit.count as usize, all.len());
            assert!(all.contains(&blkno));
        }
        assert_eq!(fitting_blocks(&page, 0, Endian::Little, 5), None);
    }

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
