//! What a WAL record does to the relation files, as far as `verify`'s
//! lost-write check needs it (PostgreSQL 15):
//!
//! * [`sets_page_lsn`]: whether redo of the record leaves a block's page
//!   LSN at the record's end — as the primary did when it wrote the record,
//!   so a page written since holds at least that LSN;
//! * [`removals`]: the blocks the record takes away (a truncation, a
//!   relation file created anew or dropped at commit, a database created or
//!   dropped): what the WAL said of them before no longer applies.
//!
//! Reads of the main data stop at its end (`None`): nothing here panics.

use crate::model::postgres::wal::{BlockImage, BlockRef, RelFileNode, WalRecord};
use crate::model::postgres::wal::{
    RM_BTREE_ID, RM_DBASE_ID, RM_GENERIC_ID, RM_HEAP2_ID, RM_HEAP_ID, RM_SEQ_ID, RM_SMGR_ID,
    RM_XACT_ID,
};
use crate::reader::Endian;

/// `MAIN_FORKNUM`, `VISIBILITYMAP_FORKNUM`.
const MAIN_FORK: u8 = 0;
const VM_FORK: u8 = 2;

/// `SizeOfPageHeaderData`, MAXALIGNed: the visibility map's page header.
const PAGE_HEADER: usize = 24;

/// The main data's little-endian words; `None` past its end.
fn u32_at(d: &[u8], o: usize) -> Option<u32> {
    Endian::Little.read_u32(d.get(o..)?)
}

fn rel_at(d: &[u8], o: usize) -> Option<RelFileNode> {
    Some(RelFileNode {
        spc: u32_at(d, o)?,
        db: u32_at(d, o + 4)?,
        rel: u32_at(d, o + 8)?,
    })
}

fn main_data<'a>(rec: &WalRecord, bytes: &'a [u8]) -> &'a [u8] {
    bytes.get(rec.main_data.clone()).unwrap_or(&[])
}

/// Whether a full-page image is of a new page (`PageIsNew`: pd_upper 0),
/// whose restore leaves the LSN alone (`XLogReadBufferForRedoExtended`
/// sets it only on a page that is not new). `None` when the image does
/// not say without decompressing it: a compressed image without a hole (a
/// hole needs pd_upper above pd_lower, so an image with one is never new).
pub(crate) fn image_is_new(bytes: &[u8], image: &BlockImage) -> Option<bool> {
    if image.compression().is_some() {
        return (image.hole_length > 0).then_some(false);
    }
    let data = bytes.get(image.data.clone())?;
    let hole = usize::from(image.hole_offset)
        ..usize::from(image.hole_offset) + usize::from(image.hole_length);
    // pd_upper is bytes 14 and 15 of the page; the image leaves the hole out.
    let byte = |p: usize| -> Option<u8> {
        if p < hole.start {
            data.get(p).copied()
        } else if p < hole.end {
            Some(0)
        } else {
            data.get(p - image.hole_length as usize).copied()
        }
    };
    Some(Endian::Little.read_u16(&[byte(14)?, byte(15)?])? == 0)
}

/// Whether redo of `rec` sets block `b`'s page LSN to the record's end
/// (`PageSetLSN(page, record->EndRecPtr)`), as the primary set it to the
/// end `XLogInsert` returned. `hints_logged`: the cluster has data
/// checksums or `wal_log_hints` (`XLogHintBitIsNeeded`).
///
/// Known to: an image redo restores (every resource manager, unless the
/// image is of a new page); heap (every record with a block), heap2
/// (prune, vacuum, freeze, multi-insert, lock-updated; visible on the
/// visibility map page always and on the heap page only with
/// `hints_logged`, heapam.c `heap_xlog_visible`), btree (every record with a
/// block), sequence and generic WAL. Other records' blocks without an
/// image (hash, GIN, GiST, SP-GiST, BRIN, custom) are not taken as
/// evidence: some of them register a page they only lock (hash's bucket
/// page of a squeeze), so they never raise a false alarm by being counted.
pub(crate) fn sets_page_lsn(
    rec: &WalRecord,
    bytes: &[u8],
    b: &BlockRef,
    hints_logged: bool,
) -> bool {
    let info = rec.info & 0xF0;
    let known = match rec.rmid {
        RM_HEAP_ID => true,
        RM_HEAP2_ID => match info & 0x70 {
            // PRUNE, VACUUM, FREEZE_PAGE, MULTI_INSERT(+INIT), LOCK_UPDATED
            0x10 | 0x20 | 0x30 | 0x50 | 0x60 => true,
            // VISIBLE: block 0 is the visibility map page, 1 the heap page.
            0x40 => b.id == 0 || hints_logged,
            _ => false,
        },
        RM_BTREE_ID | RM_SEQ_ID | RM_GENERIC_ID => true,
        _ => false,
    };
    match b.image.as_ref().filter(|i| i.apply()) {
        Some(image) => match image_is_new(bytes, image) {
            Some(new) => !new,
            None => known,
        },
        None => known,
    }
}

/// Blocks a record takes away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Removal {
    /// The blocks of one fork from `from` on: a truncation (`from` > 0), or
    /// the fork's file created anew (`from` 0, Storage CREATE).
    Fork {
        rel: RelFileNode,
        fork: u8,
        from: u32,
    },
    /// Every fork of a relation: its file dropped (at commit, or at the
    /// abort of the transaction that created it).
    Relation(RelFileNode),
    /// Every relation of a database: created (its directory copied or
    /// made anew) or dropped.
    Database(u32),
}

/// The blocks `rec` takes away (see [`Removal`]); `block_size` places a
/// truncation's cut in the visibility map.
pub(crate) fn removals(rec: &WalRecord, bytes: &[u8], block_size: usize) -> Vec<Removal> {
    let d = main_data(rec, bytes);
    let info = rec.info & 0xF0;
    let mut out = Vec::new();
    match rec.rmid {
        // xl_smgr_create { RelFileNode rnode; ForkNumber forkNum; }
        RM_SMGR_ID if info == 0x10 => {
            if let (Some(rel), Some(fork)) = (rel_at(d, 0), u32_at(d, 12)) {
                if let Ok(fork) = u8::try_from(fork) {
                    out.push(Removal::Fork { rel, fork, from: 0 });
                }
            }
        }
        // xl_smgr_truncate { BlockNumber blkno; RelFileNode rnode; int flags; }
        RM_SMGR_ID if info == 0x20 => {
            if let (Some(blkno), Some(rel), Some(flags)) =
                (u32_at(d, 0), rel_at(d, 4), u32_at(d, 16))
            {
                if flags & 0x1 != 0 {
                    out.push(Removal::Fork {
                        rel,
                        fork: MAIN_FORK,
                        from: blkno,
                    });
                }
                if flags & 0x2 != 0 {
                    // visibilitymap_prepare_truncate: the map page holding
                    // blkno's bit is cut or cleared (HEAPBLK_TO_MAPBLOCK).
                    let per_page = ((block_size.saturating_sub(PAGE_HEADER)) * 4).max(1) as u32;
                    out.push(Removal::Fork {
                        rel,
                        fork: VM_FORK,
                        from: blkno / per_page,
                    });
                }
            }
        }
        RM_XACT_ID => {
            // COMMIT, ABORT, COMMIT_PREPARED, ABORT_PREPARED: the relations
            // dropped (xl_xact_relfilenodes).
            if matches!(rec.info & 0x70, 0x00 | 0x20 | 0x30 | 0x40) {
                out.extend(
                    dropped_relations(rec.info, d)
                        .unwrap_or_default()
                        .into_iter()
                        .map(Removal::Relation),
                );
            }
        }
        // xl_dbase_create_file_copy_rec, xl_dbase_create_wal_log_rec and
        // xl_dbase_drop_rec all start with db_id.
        RM_DBASE_ID if matches!(info, 0x00 | 0x10 | 0x20) => {
            if let Some(db) = u32_at(d, 0) {
                out.push(Removal::Database(db));
            }
        }
        _ => {}
    }
    out
}

/// `xl_xact_commit` / `xl_xact_abort` (`ParseCommitRecord`): xact_time,
/// then with `XLOG_XACT_HAS_INFO` the xinfo word and, as it says, dbinfo,
/// subxacts and the relations dropped.
fn dropped_relations(info: u8, d: &[u8]) -> Option<Vec<RelFileNode>> {
    let mut p = 8;
    if info & 0x80 == 0 {
        return Some(Vec::new());
    }
    let xinfo = u32_at(d, p)?;
    p += 4;
    if xinfo & (1 << 0) != 0 {
        p += 8;
    }
    if xinfo & (1 << 1) != 0 {
        let n = u32_at(d, p)? as usize;
        p = p.checked_add(4)?.checked_add(n.checked_mul(4)?)?;
    }
    let mut rels = Vec::new();
    if xinfo & (1 << 2) != 0 {
        let n = u32_at(d, p)? as usize;
        p += 4;
        // Bounded by the main data: each entry is read before it is kept.
        for i in 0..n {
            rels.push(rel_at(d, p.checked_add(i.checked_mul(12)?)?)?);
        }
    }
    Some(rels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::postgres::wal::BKPIMAGE_APPLY;

    fn record(rmid: u8, info: u8, main: &[u8]) -> (WalRecord, Vec<u8>) {
        let rec = WalRecord {
            lsn: 0x100,
            end: 0x140,
            prev: 0,
            xid: 0,
            tot_len: 0,
            info,
            rmid,
            crc: 0,
            origin: None,
            toplevel_xid: None,
            blocks: Vec::new(),
            main_data: 0..main.len(),
        };
        (rec, main.to_vec())
    }

    fn block(id: u8, image: Option<BlockImage>) -> BlockRef {
        BlockRef {
            id,
            rel: RelFileNode::default(),
            fork: 0,
            blk: 0,
            flags: 0,
            image,
            data: 0..0,
        }
    }

    const REL: RelFileNode = RelFileNode {
        spc: 1663,
        db: 5,
        rel: 16384,
    };

    fn rel_bytes(r: RelFileNode) -> Vec<u8> {
        [r.spc, r.db, r.rel]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect()
    }

    #[test]
    fn truncation_cuts_the_heap_and_the_map_page_holding_the_cut() {
        let mut main = 40_000u32.to_le_bytes().to_vec();
        main.extend(rel_bytes(REL));
        main.extend(3u32.to_le_bytes());
        let (rec, bytes) = record(RM_SMGR_ID, 0x20, &main);
        assert_eq!(
            removals(&rec, &bytes, 8192),
            vec![
                Removal::Fork {
                    rel: REL,
                    fork: 0,
                    from: 40_000
                },
                // 32672 heap blocks a map page: block 40000 is on map page 1.
                Removal::Fork {
                    rel: REL,
                    fork: 2,
                    from: 1
                },
            ]
        );
        // Cut short: nothing, no panic.
        let (rec, bytes) = record(RM_SMGR_ID, 0x20, &main[..10]);
        assert!(removals(&rec, &bytes, 8192).is_empty());
    }

    #[test]
    fn a_commit_drops_its_relations() {
        // xact_time, xinfo = HAS_DBINFO | HAS_SUBXACTS | HAS_RELFILENODES,
        // dbinfo, 1 subxact, 1 relation.
        let mut main = 0i64.to_le_bytes().to_vec();
        main.extend(7u32.to_le_bytes());
        main.extend([5u32, 1663].iter().flat_map(|v| v.to_le_bytes()));
        main.extend(1u32.to_le_bytes());
        main.extend(900u32.to_le_bytes());
        main.extend(1u32.to_le_bytes());
        main.extend(rel_bytes(REL));
        let (rec, bytes) = record(RM_XACT_ID, 0x80, &main);
        assert_eq!(removals(&rec, &bytes, 8192), vec![Removal::Relation(REL)]);
        // A count larger than the data: nothing read past its end.
        let mut lying = main[..main.len() - 16].to_vec();
        lying.extend(1_000_000u32.to_le_bytes());
        let (rec, bytes) = record(RM_XACT_ID, 0x80, &lying);
        assert!(removals(&rec, &bytes, 8192).is_empty());
    }

    #[test]
    fn visible_sets_the_heap_page_lsn_only_when_hints_are_logged() {
        let (rec, bytes) = record(RM_HEAP2_ID, 0x40, &[]);
        assert!(sets_page_lsn(&rec, &bytes, &block(0, None), false));
        assert!(!sets_page_lsn(&rec, &bytes, &block(1, None), false));
        assert!(sets_page_lsn(&rec, &bytes, &block(1, None), true));
        // Hash, GIN…: only through an image.
        let (rec, _) = record(12, 0x00, &[]);
        assert!(!sets_page_lsn(&rec, &bytes, &block(0, None), true));
    }

    #[test]
    fn an_image_of_a_new_page_leaves_the_lsn_alone() {
        // An uncompressed image without a hole: 8192 bytes, pd_upper at 14.
        let mut page = vec![0u8; 8192];
        let (mut rec, _) = record(0, 0xB0, &[]);
        rec.main_data = 0..0;
        let image = BlockImage {
            data: 0..8192,
            hole_offset: 0,
            hole_length: 0,
            bimg_info: BKPIMAGE_APPLY,
        };
        let b = block(0, Some(image.clone()));
        assert!(!sets_page_lsn(&rec, &page, &b, true));
        page[14] = 0x60;
        page[15] = 0x1F;
        assert!(sets_page_lsn(&rec, &page, &b, true));
        // With a hole from 40 on, pd_upper is still in the stored bytes.
        let holed = BlockImage {
            data: 0..40,
            hole_offset: 40,
            hole_length: 8152,
            ..image
        };
        assert_eq!(image_is_new(&page, &holed), Some(false));
    }
}
