//! Carving Oracle blocks out of a byte image, as DUL's disk scan does: the
//! first test at a 512-byte boundary ([`quick`]: a known block type and a
//! format byte naming the block size), the full check ([`examine`]: tail
//! repeating the header, the check value when flg says it is kept), and
//! the grouping by data object id and file, each block placed by its rdba
//! ([`group`]). No I/O here.

use std::collections::HashMap;

use crate::model::oracle::{names, OracleKind};
use crate::reader::Endian;

use super::block::{block_size_from_header, detect_endian, parse_block, BlockOptions};

/// The largest Oracle block carved.
pub(crate) const MAX_BLOCK: usize = 32768;

/// The first test: a known, non-zero block type at offset 0 and a format
/// byte (offset 1) with low bits 0x02 naming a block size of 2 to 32 KB.
#[inline]
pub(crate) fn quick(head: &[u8]) -> Option<usize> {
    let (&ty, &frmt) = (head.first()?, head.get(1)?);
    if ty == 0 || frmt & 0x1f != 0x02 || names::block_type_name(ty).is_none() {
        return None;
    }
    block_size_from_header(head).filter(|n| (2048..=MAX_BLOCK).contains(n))
}

/// What is kept of a carved block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OraSig {
    pub size: u32,
    pub endian: Endian,
    pub rdba: u32,
    /// ktbbh's data object id (type 6 blocks).
    pub obj: Option<u32>,
    /// SCN of the last change: wrap << 32 | base.
    pub scn: u64,
    pub kind: &'static str,
}

/// The full check of a block that passed [`quick`]: a cache header, a tail
/// that repeats it, and a matching check value when flg 0x04 says one is
/// kept. `None` otherwise.
pub(crate) fn examine(block: &[u8]) -> Option<OraSig> {
    let endian = detect_endian(block);
    let b = parse_block(
        block,
        &BlockOptions {
            blkno: 0,
            endian: Some(endian),
        },
    );
    let kcbh = b.kcbh.as_ref()?;
    if b.tailchk != Some(kcbh.expected_tail()) || b.checksum.is_some_and(|c| !c.valid) {
        return None;
    }
    let kind = match (b.kind, kcbh.type_kcbh) {
        (OracleKind::Table, _) => "table",
        (OracleKind::IndexLeaf | OracleKind::IndexBranch, _) => "index",
        (OracleKind::TransData, _) => "trans-data",
        (OracleKind::FileHeader, _) => "file-header",
        (_, 0x02) => "undo",
        (_, 0x01) => "undo-header",
        (_, 0x23) => "segment-header",
        (_, 0x1d | 0x1e | 0x20..=0x22) => "space-bitmap",
        _ => "other",
    };
    Some(OraSig {
        size: block.len() as u32,
        endian,
        rdba: kcbh.rdba_kcbh,
        obj: b.ktbbh.as_ref().map(|k| k.ktbbhsid),
        scn: crate::reader::u64_from_halves(u32::from(kcbh.wrp_kcbh), kcbh.bas_kcbh),
        kind,
    })
}

/// The file number of an rdba (the top 10 bits).
pub(crate) fn rdba_file(rdba: u32) -> u32 {
    rdba >> 22
}

/// The block number of an rdba (the low 22 bits).
pub(crate) fn rdba_block(rdba: u32) -> u64 {
    u64::from(rdba & 0x003F_FFFF)
}

/// A block found in the image.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Found {
    pub offset: u64,
    pub sig: OraSig,
}

/// One segment's blocks of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OraGroup {
    pub obj: Option<u32>,
    pub file: u32,
    pub kind: &'static str,
    pub size: u32,
    /// (block number from the rdba, index into the found blocks), ascending.
    pub pages: Vec<(u64, usize)>,
    /// Older copies of a block: (block number, index).
    pub duplicates: Vec<(u64, usize)>,
}

/// Blocks grouped by data object id (or, without one, by kind), file and
/// byte order (one datafile has one), each placed by its rdba; of two copies of one rdba the higher SCN is kept.
pub(crate) fn group(found: &[Found]) -> Vec<OraGroup> {
    type Key = (Option<u32>, u32, u32, &'static str, bool);
    /// Block number → the copy kept; the older copies.
    type Blocks = (HashMap<u64, usize>, Vec<(u64, usize)>);
    let mut order: Vec<Key> = Vec::new();
    let mut groups: HashMap<Key, Blocks> = HashMap::new();
    for (i, f) in found.iter().enumerate() {
        let s = &f.sig;
        let kind = if s.obj.is_some() { "" } else { s.kind };
        let key = (
            s.obj,
            rdba_file(s.rdba),
            s.size,
            kind,
            s.endian == Endian::Big,
        );
        let (blocks, dups) = groups.entry(key).or_insert_with(|| {
            order.push(key);
            (HashMap::new(), Vec::new())
        });
        let blkno = rdba_block(s.rdba);
        match blocks.get(&blkno).copied() {
            Some(old) if found[old].sig.scn >= s.scn => dups.push((blkno, i)),
            Some(old) => {
                dups.push((blkno, old));
                blocks.insert(blkno, i);
            }
            None => {
                blocks.insert(blkno, i);
            }
        }
    }
    order
        .into_iter()
        .filter_map(|key| {
            let (blocks, mut duplicates) = groups.remove(&key)?;
            let mut pages: Vec<(u64, usize)> = blocks.into_iter().collect();
            pages.sort_unstable();
            duplicates.sort_unstable();
            // The segment's kind: that of most of its blocks.
            let mut kinds: Vec<(&'static str, usize)> = Vec::new();
            for &(_, i) in &pages {
                let k = found[i].sig.kind;
                match kinds.iter_mut().find(|(n, _)| *n == k) {
                    Some((_, c)) => *c += 1,
                    None => kinds.push((k, 1)),
                }
            }
            let kind = kinds
                .iter()
                .max_by_key(|&&(_, c)| c)
                .map_or("other", |&(k, _)| k);
            Some(OraGroup {
                obj: key.0,
                file: key.1,
                kind,
                size: key.2,
                pages,
                duplicates,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rdba_splits_into_file_and_block() {
        // 0x0140038b: file 5, block 907.
        assert_eq!(rdba_file(0x0140_038b), 5);
        assert_eq!(rdba_block(0x0140_038b), 907);
    }

    #[test]
    fn quick_refuses_zero_and_unknown_types() {
        assert_eq!(quick(&[0, 0xa2]), None);
        assert_eq!(quick(&[6, 0xa2]), Some(8192));
        assert_eq!(quick(&[6, 0xa3]), None);
    }
}
