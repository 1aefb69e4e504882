//! Redo: a page rebuilt from the WAL, one record at a time, as the startup
//! process replays it (PostgreSQL 15).
//!
//! [`apply`] does for one block reference what `XLogReadBufferForRedoExtended`
//! (xlogutils.c) and the resource manager's redo routine do together:
//!
//! - a full-page image with `BKPIMAGE_APPLY` is restored (the hole filled
//!   with zeros, a pglz image decompressed) and the page's LSN set to the
//!   record's end, unless the page is new (all zeros);
//! - otherwise a block with `BKPBLOCK_WILL_INIT` starts from zeros for the
//!   redo routine to initialise;
//! - otherwise a page whose LSN is at or past the record's end is left as it
//!   is (`BLK_DONE`);
//! - otherwise the rmgr's redo runs ([`heap`] for Heap and Heap2, [`btree`]
//!   for Btree) and the
//!   page's LSN becomes the record's end (`EndRecPtr`, MAXALIGNed).
//!
//! A record that cannot be replayed here (another access method, a page
//! that is not there yet, a record that does not fit the page) is an
//! [`Unreplayable`] and the page is left as it was: callers stop there
//! rather than guess. Everything is a pure function of bytes; nothing here
//! panics or allocates more than a page or two.

pub(crate) mod btree;
pub(crate) mod heap;
pub(crate) mod index_page;
pub(crate) mod mask;
pub(crate) mod page;

use crate::model::postgres::wal::{rmgr_name, WalRecord, BKPBLOCK_WILL_INIT};
use crate::model::postgres::wal::{
    RM_BTREE_ID, RM_HEAP2_ID, RM_HEAP_ID, RM_XLOG_ID, XLOG_FPI, XLOG_FPI_FOR_HINT,
};
use crate::parse::postgres::pglz;

/// `BLCKSZ` of the clusters this replays (the WAL does not carry it).
pub(crate) const BLCKSZ: usize = 8192;

/// What [`apply`] did to the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Applied {
    /// A full-page image was restored (`BLK_RESTORED`).
    Restored,
    /// The rmgr's redo changed the page (`BLK_NEEDS_REDO`).
    Redone,
    /// The page's LSN is at or past the record's end: nothing to do
    /// (`BLK_DONE`), or an `FPI_FOR_HINT` without an image.
    Skipped,
}

/// Why a record cannot be replayed on a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unreplayable(pub String);

impl std::fmt::Display for Unreplayable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `RestoreBlockImage`: the page of block reference `block_id`'s image.
pub(crate) fn restore_image(
    rec: &WalRecord,
    bytes: &[u8],
    block_id: u8,
) -> Result<Vec<u8>, Unreplayable> {
    let bad = |m: String| Unreplayable(m);
    let block = rec
        .blocks
        .iter()
        .find(|b| b.id == block_id)
        .ok_or_else(|| bad(format!("the record has no block {block_id}")))?;
    let img = block
        .image
        .as_ref()
        .ok_or_else(|| bad(format!("block {block_id} has no image")))?;
    let stored = bytes
        .get(img.data.clone())
        .ok_or_else(|| bad("the image lies outside the record".into()))?;
    let hole_offset = usize::from(img.hole_offset);
    let hole_length = usize::from(img.hole_length);
    let raw_len = BLCKSZ
        .checked_sub(hole_length)
        .filter(|_| hole_offset + hole_length <= BLCKSZ)
        .ok_or_else(|| {
            bad(format!(
                "an image hole of {hole_length} bytes at {hole_offset}"
            ))
        })?;
    let decompressed;
    let raw: &[u8] = match img.compression() {
        None => stored,
        Some("pglz") => {
            decompressed = pglz::decompress(stored, raw_len)
                .map_err(|e| bad(format!("cannot replay: pglz image: {e}")))?;
            &decompressed
        }
        Some(other) => return Err(bad(format!("cannot replay: {other} image"))),
    };
    if raw.len() != raw_len {
        return Err(bad(format!(
            "the image holds {} bytes, {raw_len} expected",
            raw.len()
        )));
    }
    let mut page = vec![0u8; BLCKSZ];
    page[..hole_offset].copy_from_slice(&raw[..hole_offset]);
    page[hole_offset + hole_length..].copy_from_slice(&raw[hole_offset..]);
    Ok(page)
}

/// The page of block `block_id`'s full-page image, if it has one: also an
/// image taken only for `wal_consistency_checking` (no `BKPIMAGE_APPLY`),
/// which shows the page as the server left it after the record.
pub(crate) fn block_image(
    rec: &WalRecord,
    bytes: &[u8],
    block_id: u8,
) -> Result<Option<Vec<u8>>, Unreplayable> {
    match rec.blocks.iter().find(|b| b.id == block_id) {
        Some(b) if b.image.is_some() => restore_image(rec, bytes, block_id).map(Some),
        Some(_) => Ok(None),
        None => Err(Unreplayable(format!("the record has no block {block_id}"))),
    }
}

/// The record's `EndRecPtr` as redo sees it: where the next record starts
/// (the end MAXALIGNed), the LSN the primary gave the pages it changed.
pub(crate) fn end_lsn(rec: &WalRecord) -> u64 {
    (rec.end + 7) & !7
}

/// Replay `rec` on `page`, the block the record references as `block_id`.
/// `page` is empty when no version of the block is known yet. On an error
/// the page is unchanged.
pub(crate) fn apply(
    page: &mut Vec<u8>,
    rec: &WalRecord,
    bytes: &[u8],
    block_id: u8,
) -> Result<Applied, Unreplayable> {
    let block = rec
        .blocks
        .iter()
        .find(|b| b.id == block_id)
        .ok_or_else(|| Unreplayable(format!("the record has no block {block_id}")))?;
    if block.image.as_ref().is_some_and(|i| i.apply()) {
        let mut restored = restore_image(rec, bytes, block_id)?;
        if !page::is_new(&restored) {
            page::set_lsn(&mut restored, end_lsn(rec));
        }
        *page = restored;
        return Ok(Applied::Restored);
    }
    let info = rec.info & 0xF0;
    if rec.rmid == RM_XLOG_ID {
        return match info {
            XLOG_FPI_FOR_HINT => Ok(Applied::Skipped),
            XLOG_FPI => Err(Unreplayable(
                "an FPI record without a full-page image".into(),
            )),
            _ => Err(Unreplayable("an XLOG record that is not an FPI".into())),
        };
    }
    let mut work = if block.flags & BKPBLOCK_WILL_INIT != 0 {
        vec![0u8; BLCKSZ]
    } else if page.len() != BLCKSZ {
        return Err(Unreplayable(
            "no earlier version of the page (no full-page image or initialisation before it)"
                .into(),
        ));
    } else if end_lsn(rec) <= page::lsn(page) {
        return Ok(Applied::Skipped);
    } else {
        page.clone()
    };
    match rec.rmid {
        RM_HEAP_ID | RM_HEAP2_ID => {
            heap::redo(&mut work, rec, bytes, block_id).map_err(Unreplayable)?
        }
        RM_BTREE_ID => btree::redo(&mut work, rec, bytes, block_id).map_err(Unreplayable)?,
        other => return Err(Unreplayable(format!("{} redo not built", rmgr_name(other)))),
    }
    // Heap2 VISIBLE: PostgreSQL's redo leaves the heap page's LSN, but the
    // primary sets it when data checksums or wal_log_hints are on (they
    // register the heap page for that); the LSN here is the primary's.
    page::set_lsn(&mut work, end_lsn(rec));
    *page = work;
    Ok(Applied::Redone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::postgres::wal::{BlockImage, BlockRef, RelFileNode, BKPIMAGE_APPLY};

    fn record(
        rmid: u8,
        info: u8,
        blocks: Vec<BlockRef>,
        main: std::ops::Range<usize>,
    ) -> WalRecord {
        WalRecord {
            lsn: 0x100,
            end: 0x180,
            prev: 0,
            xid: 700,
            tot_len: 0,
            info,
            rmid,
            crc: 0,
            origin: None,
            toplevel_xid: None,
            blocks,
            main_data: main,
        }
    }

    fn block(flags: u8, image: Option<BlockImage>, data: std::ops::Range<usize>) -> BlockRef {
        BlockRef {
            id: 0,
            rel: RelFileNode::default(),
            fork: 0,
            blk: 3,
            flags,
            image,
            data,
        }
    }

    #[test]
    fn image_with_a_hole_then_insert_then_skip() {
        // An image of an empty page: header only, the rest a hole.
        let mut empty = vec![0u8; BLCKSZ];
        page::init(&mut empty, 0);
        let bytes = empty[..24].to_vec();
        let img = BlockImage {
            data: 0..24,
            hole_offset: 24,
            hole_length: (BLCKSZ - 24) as u16,
            bimg_info: BKPIMAGE_APPLY,
        };
        let rec = record(0, XLOG_FPI, vec![block(0x10, Some(img), 0..0)], 0..0);
        let mut p = Vec::new();
        assert_eq!(apply(&mut p, &rec, &bytes, 0), Ok(Applied::Restored));
        assert_eq!(page::lsn(&p), 0x180);
        assert_eq!(page::upper(&p), BLCKSZ);

        // An insert at offset 1: main data offnum 1, flags 0; block data
        // xl_heap_header (infomask2 2, infomask 0x0802, t_hoff 24) + 9 bytes.
        let mut b = vec![1u8, 0, 0];
        let data_start = b.len();
        b.extend_from_slice(&[2, 0, 0x02, 0x08, 24]);
        b.extend_from_slice(&[0, 1, 2, 3, 4, 5, 6, 7, 8]);
        let mut ins = record(10, 0x00, vec![block(0x20, None, data_start..b.len())], 0..3);
        ins.lsn = 0x200;
        ins.end = 0x240;
        assert_eq!(apply(&mut p, &ins, &b, 0), Ok(Applied::Redone));
        assert_eq!(page::max_offset(&p), 1);
        let t = page::item_range(&p, 1).unwrap();
        assert_eq!(t.len(), 23 + 9);
        assert_eq!(page::u32_at(&p, t.start), 700, "xmin is the record's xid");
        assert_eq!(page::lsn(&p), 0x240);
        // Replayed again: the page is past it.
        let before = p.clone();
        assert_eq!(apply(&mut p, &ins, &b, 0), Ok(Applied::Skipped));
        assert_eq!(p, before);
        // Another access method: named, the page unchanged.
        let mut other = ins.clone();
        other.end = 0x300;
        other.rmid = 13;
        assert!(apply(&mut p, &other, &b, 0).unwrap_err().0.contains("Gin"));
        assert_eq!(p, before);
        // No page yet and no image: cannot replay.
        let mut none = Vec::new();
        assert!(apply(&mut none, &ins, &b, 0).is_err());
        assert!(none.is_empty());
        // A truncated record is an error, not a panic.
        let mut cut = ins.clone();
        cut.end = 0x400;
        cut.blocks[0].data = data_start..data_start + 3;
        assert!(apply(&mut p, &cut, &b, 0).is_err());
        assert_eq!(p, before);
    }
}
