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
