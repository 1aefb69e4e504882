//! Redo: a page's history replayed from the WAL, as PostgreSQL's startup
//! process replays it (`XLogReadBufferForRedoExtended`, then the resource
//! manager's redo).
//!
//! [`apply`] is the minimal driver btree redo is judged with: a full-page
//! image with `BKPIMAGE_APPLY` is restored (its hole filled with zeros,
//! pglz images decompressed), a `BKPBLOCK_WILL_INIT` block starts from
//! zeros, a page whose LSN is at or past the record's end is left alone,
//! otherwise the rmgr's redo runs; the page LSN is then the record's end
//! (`EndRecPtr`, MAXALIGNed), as `PageSetLSN` leaves it.

pub(crate) mod btree;
pub(crate) mod index_page;

use crate::model::postgres::wal::{BlockImage, WalRecord, BKPBLOCK_WILL_INIT};
use index_page::{page_is_new, page_lsn, set_page_lsn};

/// `RM_XLOG_ID`, `RM_BTREE_ID`.
const RM_XLOG_ID: u8 = 0;
const RM_BTREE_ID: u8 = 11;
/// The block size assumed for a compressed image when no page is at hand.
const DEFAULT_BLCKSZ: usize = 8192;

/// What [`apply`] did to the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Applied {
    /// A full-page image was restored (`BLK_RESTORED`).
    Restored,
    /// The page was newer than the record (`BLK_DONE`).
    Skipped,
    /// The record's redo ran (`BLK_NEEDS_REDO`).
    Replayed,
}

/// `EndRecPtr`: where the next record starts, MAXALIGNed.
fn end_rec_ptr(rec: &WalRecord) -> u64 {
    (rec.end + 7) & !7
}

/// `RestoreBlockImage`: the page of a full-page image.
fn restore_image(img: &BlockImage, bytes: &[u8], blcksz: usize) -> Result<Vec<u8>, String> {
    let data = bytes
        .get(img.data.clone())
        .ok_or("the image lies outside the record")?;
    let hole = usize::from(img.hole_length);
    let raw = match img.compression() {
        None => data.to_vec(),
        Some("pglz") => crate::parse::postgres::pglz::decompress(data, blcksz.saturating_sub(hole))
            .map_err(|e| format!("the full-page image: {e}"))?,
        Some(other) => return Err(format!("a full-page image compressed with {other}")),
    };
    let at = usize::from(img.hole_offset);
    if at > raw.len() {
        return Err(format!("hole at {at} past the image's {} bytes", raw.len()));
    }
    let mut page = Vec::with_capacity(raw.len() + hole);
    page.extend_from_slice(&raw[..at]);
    page.resize(at + hole, 0);
    page.extend_from_slice(&raw[at..]);
    Ok(page)
}

/// The page of block `block_id`'s full-page image, if it has one: also
/// an image taken for `wal_consistency_checking` only (no
/// `BKPIMAGE_APPLY`), which shows the page as the server left it after the
/// record.
pub(crate) fn block_image(
    rec: &WalRecord,
    bytes: &[u8],
    block_id: u8,
    blcksz: usize,
) -> Result<Option<Vec<u8>>, String> {
    match rec.blocks.iter().find(|b| b.id == block_id) {
        Some(b) => b
            .image
            .as_ref()
            .map(|img| restore_image(img, bytes, blcksz))
            .transpose(),
        None => Err(format!("the record has no block {block_id}")),
    }
}

/// Replay record `rec` on the page of its block `block_id`: `page` is the
/// page before (empty when none is known yet) and after.
pub(crate) fn apply(
    page: &mut Vec<u8>,
    rec: &WalRecord,
    bytes: &[u8],
    block_id: u8,
) -> Result<Applied, String> {
    let block = rec
        .blocks
        .iter()
        .find(|b| b.id == block_id)
        .ok_or_else(|| format!("the record has no block {block_id}"))?;
    let end = end_rec_ptr(rec);
    let blcksz = if page.is_empty() {
        DEFAULT_BLCKSZ
    } else {
        page.len()
    };
    if let Some(img) = block.image.as_ref().filter(|i| i.apply()) {
        *page = restore_image(img, bytes, blcksz)?;
        if !page_is_new(page) {
            set_page_lsn(page, end);
        }
        return Ok(Applied::Restored);
    }
    if rec.rmid == RM_XLOG_ID {
        return Err(format!(
            "an XLOG record without an image for block {block_id}"
        ));
    }
    if block.flags & BKPBLOCK_WILL_INIT != 0 {
        *page = vec![0; blcksz];
    } else if page.is_empty() {
        return Err("no earlier image of the page to replay the record on".into());
    } else if page_lsn(page) >= end {
        return Ok(Applied::Skipped);
    }
    match rec.rmid {
        RM_BTREE_ID => btree::redo(page, rec, bytes, block_id)?,
        other => {
            return Err(format!(
                "{} records are not replayed here",
                crate::model::postgres::wal::rmgr_name(other)
            ))
        }
    }
    set_page_lsn(page, end);
    Ok(Applied::Replayed)
}
