//! Relation maps (`RelMapFile`, utils/cache/relmapper.c):
//! `global/pg_filenode.map` for the shared catalogs and
//! `base/DBOID/pg_filenode.map` for a database's mapped catalogs (pg_class,
//! pg_attribute, pg_type, pg_proc and their indexes…), whose pg_class row
//! says relfilenode 0.
//!
//! ```text
//!  magic        int32   0x592717 (RELMAPPER_FILEMAGIC)      +0
//!  num_mappings int32                                      +4
//!  mappings[MAX_MAPPINGS]  { mapoid u32, mapfilenumber u32 } +8
//!  crc          u32     CRC-32C of every byte before it     +8 + 8·MAX_MAPPINGS
//!  (before 16: int32 pad, making 512 bytes)
//! ```
//!
//! MAX_MAPPINGS is 62 before PostgreSQL 16 (a 512-byte file) and 64 from
//! 16 on (524 bytes, no pad); the file's size says which.

use crate::model::postgres::cluster::{RelMapFile, RelMapping};
use crate::reader::{Endian, Reader};

use super::control::crc32c;

/// `RELMAPPER_FILEMAGIC`.
pub(crate) const RELMAPPER_FILEMAGIC: u32 = 0x0059_2717;

/// The sizes a relation map file has: (bytes, MAX_MAPPINGS).
pub(crate) const RELMAP_SIZES: [(usize, usize); 2] = [(512, 62), (524, 64)];

/// Read a relation map. `Err` when the size or magic is not a relation
/// map's; a CRC mismatch is reported in the result (`crc_ok`), and a
/// `num_mappings` out of range is an error.
pub fn parse_relmap(data: &[u8]) -> Result<RelMapFile, String> {
    let max_mappings = RELMAP_SIZES
        .iter()
        .find(|s| s.0 == data.len())
        .map(|s| s.1)
        .ok_or_else(|| {
            format!(
                "{} bytes: a relation map has 512 (before PostgreSQL 16) or 524",
                data.len()
            )
        })?;
    let r = Reader::new(data, Endian::Little);
    let e = |e: crate::reader::ReadError| e.to_string();
    let magic = r.peek_u32(0, "magic").map_err(e)?;
    if magic != RELMAPPER_FILEMAGIC {
        return Err(format!(
            "magic 0x{magic:08x} is not RELMAPPER_FILEMAGIC (0x{RELMAPPER_FILEMAGIC:06x})"
        ));
    }
    let num_mappings = r.peek_i32(4, "num_mappings").map_err(e)?;
    if num_mappings < 0 || num_mappings as usize > max_mappings {
        return Err(format!(
            "num_mappings {num_mappings} is outside 0..={max_mappings}"
        ));
    }
    let mut mappings = Vec::with_capacity(num_mappings as usize);
    for i in 0..num_mappings as usize {
        let at = 8 + i * 8;
        mappings.push(RelMapping {
            mapoid: r.peek_u32(at, "mapoid").map_err(e)?,
            mapfilenumber: r.peek_u32(at + 4, "mapfilenumber").map_err(e)?,
        });
    }
    let crc_at = 8 + max_mappings * 8;
    let crc = r.peek_u32(crc_at, "crc").map_err(e)?;
    let crc_computed = crc32c(data.get(..crc_at).unwrap_or_default());
    Ok(RelMapFile {
        magic,
        num_mappings,
        mappings,
        max_mappings,
        crc,
        crc_computed,
        crc_ok: crc == crc_computed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(size: usize, max: usize, entries: &[(u32, u32)]) -> Vec<u8> {
        let mut d = vec![0u8; size];
        d[0..4].copy_from_slice(&RELMAPPER_FILEMAGIC.to_le_bytes());
        d[4..8].copy_from_slice(&(entries.len() as i32).to_le_bytes());
        for (i, (o, f)) in entries.iter().enumerate() {
            d[8 + i * 8..12 + i * 8].copy_from_slice(&o.to_le_bytes());
            d[12 + i * 8..16 + i * 8].copy_from_slice(&f.to_le_bytes());
        }
        let crc_at = 8 + max * 8;
        let crc = crc32c(&d[..crc_at]);
        d[crc_at..crc_at + 4].copy_from_slice(&crc.to_le_bytes());
        d
    }

    #[test]
    fn both_sizes_read_and_crc_checked() {
        for (size, max) in RELMAP_SIZES {
            let mut d = map(size, max, &[(1259, 1259), (1249, 16400)]);
            let m = parse_relmap(&d).unwrap();
            assert!(m.crc_ok);
            assert_eq!(m.max_mappings, max);
            assert_eq!(m.filenumber(1249), Some(16400));
            assert_eq!(m.filenumber(1), None);
            d[12] ^= 1;
            assert!(!parse_relmap(&d).unwrap().crc_ok);
        }
    }

    #[test]
    fn not_a_map() {
        assert!(parse_relmap(&[0u8; 512]).is_err());
        assert!(parse_relmap(&[0u8; 100]).is_err());
        let mut d = map(512, 62, &[]);
        d[4..8].copy_from_slice(&63i32.to_le_bytes());
        assert!(parse_relmap(&d).unwrap_err().contains("num_mappings"));
    }
}
