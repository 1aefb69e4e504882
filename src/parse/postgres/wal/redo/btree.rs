//! Btree redo of PostgreSQL 15 (nbtxlog.c `btree_redo`), one block at a
//! time, and `btree_mask`.
//!
//! A Btree record names up to five blocks; [`redo`] replays what the record
//! does to one of them, given that block's page as it was before (or an
//! all-zero page when the record initialises it). The caller has already
//! done what `XLogReadBufferForRedo` does: restored a full-page image, or
//! found the page newer than the record and skipped it.
//!
//! ```text
//!  record             block 0          1                 2              3                4
//!  INSERT_LEAF/POST   leaf + item
//!  INSERT_UPPER/META  page + item      child: split done                 -                (META) metapage
//!  SPLIT_L/R          left, rebuilt    right, new        right's right  child: split done
//!  DEDUP              leaf, rebuilt
//!  VACUUM/DELETE      leaf - items
//!  MARK_PAGE_HALFDEAD leaf, half-dead  parent - downlink
//!  UNLINK_PAGE(_META) target, deleted  left sibling      right sibling  leaf, half-dead  (META) metapage
//!  NEWROOT            root, new        child: split done metapage
//!  META_CLEANUP       metapage
//!  REUSE_PAGE         (no block: a recovery conflict only)
//! ```
//!
//! Structures as PostgreSQL 15 lays them out (nbtxlog.h, nbtree.h), little
//! endian. Every length and offset taken from the record is checked; a
//! record that does not fit the page is an error, never a panic.

use super::index_page::{
    add_item, item, item_range, max_offset, maxalign, page_init, pd_special, temp_copy_special,
    tuple_delete, tuple_overwrite, u16_at, u32_at, SIZE_OF_PAGE_HEADER,
};
use super::page::{set_u16, set_u32};
use crate::model::postgres::disk::page_header::{PD_LOWER, PD_UPPER};
use crate::model::postgres::wal::{BlockRef, WalRecord};
use crate::model::postgres::wal::{
    XLOG_BTREE_DEDUP, XLOG_BTREE_DELETE, XLOG_BTREE_INSERT_LEAF, XLOG_BTREE_INSERT_META,
    XLOG_BTREE_INSERT_POST, XLOG_BTREE_INSERT_UPPER, XLOG_BTREE_MARK_PAGE_HALFDEAD,
    XLOG_BTREE_META_CLEANUP, XLOG_BTREE_NEWROOT, XLOG_BTREE_REUSE_PAGE, XLOG_BTREE_SPLIT_L,
    XLOG_BTREE_SPLIT_R, XLOG_BTREE_UNLINK_PAGE, XLOG_BTREE_UNLINK_PAGE_META, XLOG_BTREE_VACUUM,
};
use crate::reader::Endian;

/// `btpo_flags` bits.
const BTP_LEAF: u16 = 1 << 0;
const BTP_ROOT: u16 = 1 << 1;
const BTP_DELETED: u16 = 1 << 2;
const BTP_META: u16 = 1 << 3;
const BTP_HALF_DEAD: u16 = 1 << 4;
const BTP_HAS_GARBAGE: u16 = 1 << 6;
const BTP_INCOMPLETE_SPLIT: u16 = 1 << 7;
const BTP_HAS_FULLXID: u16 = 1 << 8;

/// `P_NONE`: no sibling.
const P_NONE: u32 = 0;
/// `P_HIKEY`, `P_FIRSTKEY`.
const P_HIKEY: u16 = 1;
const P_FIRSTKEY: u16 = 2;
/// `sizeof(BTPageOpaqueData)`: btpo_prev, btpo_next, btpo_level (4 each),
/// btpo_flags, btpo_cycleid (2 each).
const BT_OPAQUE_SIZE: usize = 16;
/// `BTREE_MAGIC`.
const BTREE_MAGIC: u32 = 0x053162;
/// `sizeof(BTMetaPageData)` (the float8 makes it 8-aligned).
const BT_META_SIZE: usize = 48;
/// `sizeof(xl_btree_metadata)`.
const XL_BTREE_METADATA_SIZE: usize = 28;
/// `sizeof(BTDeletedPageData)`: the deleted page's `safexid`.
const BT_DELETED_PAGE_DATA_SIZE: usize = 8;

/// `IndexTupleData.t_info` bits.
const INDEX_SIZE_MASK: u16 = 0x1FFF;
const INDEX_ALT_TID_MASK: u16 = 0x2000;
/// Offset-number bits of a pivot or posting tuple's `t_tid`.
const BT_OFFSET_MASK: u16 = 0x0FFF;
const BT_IS_POSTING: u16 = 0x2000;
/// `sizeof(ItemPointerData)`.
const TID: usize = 6;
/// `sizeof(IndexTupleData)`.
const INDEX_TUPLE_HEADER: usize = 8;

/// The name pg_waldump gives a Btree record's `xl_info`.
pub(crate) fn info_name(info: u8) -> &'static str {
    match info & 0xF0 {
        XLOG_BTREE_INSERT_LEAF => "INSERT_LEAF",
        XLOG_BTREE_INSERT_UPPER => "INSERT_UPPER",
        XLOG_BTREE_INSERT_META => "INSERT_META",
        XLOG_BTREE_SPLIT_L => "SPLIT_L",
        XLOG_BTREE_SPLIT_R => "SPLIT_R",
        XLOG_BTREE_INSERT_POST => "INSERT_POST",
        XLOG_BTREE_DEDUP => "DEDUP",
        XLOG_BTREE_DELETE => "DELETE",
        XLOG_BTREE_UNLINK_PAGE => "UNLINK_PAGE",
        XLOG_BTREE_UNLINK_PAGE_META => "UNLINK_PAGE_META",
        XLOG_BTREE_NEWROOT => "NEWROOT",
        XLOG_BTREE_MARK_PAGE_HALFDEAD => "MARK_PAGE_HALFDEAD",
        XLOG_BTREE_VACUUM => "VACUUM",
        XLOG_BTREE_REUSE_PAGE => "REUSE_PAGE",
        _ => "META_CLEANUP",
    }
}

/// Replay Btree record `rec` on block `block_id`'s page (BLCKSZ bytes; all
/// zeros when the record initialises it). Err says why the record cannot be
/// replayed.
pub(crate) fn redo(
    page: &mut [u8],
    rec: &WalRecord,
    bytes: &[u8],
    block_id: u8,
) -> Result<(), String> {
    let info = rec.info & 0xF0;
    let r = Rec { rec, bytes };
    let name = info_name(info);
    let result = match (info, block_id) {
        (XLOG_BTREE_INSERT_LEAF, 0) => insert(page, &r, false),
        (XLOG_BTREE_INSERT_POST, 0) => insert(page, &r, true),
        (XLOG_BTREE_INSERT_UPPER | XLOG_BTREE_INSERT_META, 0) => insert(page, &r, false),
        (XLOG_BTREE_INSERT_UPPER | XLOG_BTREE_INSERT_META, 1) => clear_incomplete_split(page),
        (XLOG_BTREE_INSERT_META, 2) => restore_meta(page, r.block_data(2)?),
        (XLOG_BTREE_SPLIT_L, 0..=3) => split(page, &r, block_id, true),
        (XLOG_BTREE_SPLIT_R, 0..=3) => split(page, &r, block_id, false),
        (XLOG_BTREE_DEDUP, 0) => dedup(page, &r),
        (XLOG_BTREE_VACUUM, 0) => vacuum(page, &r),
        (XLOG_BTREE_DELETE, 0) => delete(page, &r),
        (XLOG_BTREE_MARK_PAGE_HALFDEAD, 0 | 1) => mark_page_halfdead(page, &r, block_id),
        (XLOG_BTREE_UNLINK_PAGE | XLOG_BTREE_UNLINK_PAGE_META, 0..=3) => {
            unlink_page(page, &r, block_id)
        }
        (XLOG_BTREE_UNLINK_PAGE_META, 4) => restore_meta(page, r.block_data(4)?),
        (XLOG_BTREE_NEWROOT, 0) => newroot(page, &r),
        (XLOG_BTREE_NEWROOT, 1) => clear_incomplete_split(page),
        (XLOG_BTREE_NEWROOT, 2) => restore_meta(page, r.block_data(2)?),
        (XLOG_BTREE_META_CLEANUP, 0) => restore_meta(page, r.block_data(0)?),
        _ => Err(format!("has no block {block_id} that its redo changes")),
    };
    result.map_err(|e| format!("Btree {name}: {e}"))
}

/// A record and its bytes.
struct Rec<'a> {
    rec: &'a WalRecord,
    bytes: &'a [u8],
}

impl<'a> Rec<'a> {
    fn main_data(&self, need: usize) -> Result<&'a [u8], String> {
        let d = self
            .bytes
            .get(self.rec.main_data.clone())
            .ok_or("the main data lies outside the record")?;
        if d.len() < need {
            return Err(format!("main data of {} bytes, {need} expected", d.len()));
        }
        Ok(d)
    }

    fn block(&self, id: u8) -> Option<&'a BlockRef> {
        self.rec.blocks.iter().find(|b| b.id == id)
    }

    fn blkno(&self, id: u8) -> Result<u32, String> {
        self.block(id)
            .map(|b| b.blk)
            .ok_or_else(|| format!("no block {id}"))
    }

    fn block_data(&self, id: u8) -> Result<&'a [u8], String> {
        let b = self.block(id).ok_or_else(|| format!("no block {id}"))?;
        self.bytes
            .get(b.data.clone())
            .ok_or_else(|| format!("block {id}'s data lies outside the record"))
    }
}

/// Where the page's `BTPageOpaqueData` is (`PageGetSpecialPointer`).
fn opaque_at(p: &[u8]) -> Result<usize, String> {
    let at = pd_special(p);
    if at + BT_OPAQUE_SIZE > p.len() {
        return Err(format!(
            "pd_special {at} leaves no room for the btree special space"
        ));
    }
    Ok(at)
}

/// The fields of a page's `BTPageOpaqueData`.
#[derive(Clone, Copy, Debug)]
struct Opaque {
    prev: u32,
    next: u32,
    level: u32,
    flags: u16,
    cycleid: u16,
}

fn opaque(p: &[u8]) -> Result<Opaque, String> {
    let at = opaque_at(p)?;
    Ok(Opaque {
        prev: u32_at(p, at),
        next: u32_at(p, at + 4),
        level: u32_at(p, at + 8),
        flags: u16_at(p, at + 12),
        cycleid: u16_at(p, at + 14),
    })
}

fn set_opaque(p: &mut [u8], o: Opaque) -> Result<(), String> {
    let at = opaque_at(p)?;
    set_u32(p, at, o.prev);
    set_u32(p, at + 4, o.next);
    set_u32(p, at + 8, o.level);
    set_u16(p, at + 12, o.flags);
    set_u16(p, at + 14, o.cycleid);
    Ok(())
}

/// `_bt_pageinit`.
fn bt_pageinit(p: &mut [u8]) {
    page_init(p, BT_OPAQUE_SIZE);
}

/// `P_FIRSTDATAKEY`: 1 on the rightmost page (no high key), else 2.
fn first_data_key(o: &Opaque) -> u16 {
    if o.next == P_NONE {
        P_HIKEY
    } else {
        P_FIRSTKEY
    }
}

/// `IndexTupleSize` of the tuple starting `t`.
fn tuple_size(t: &[u8]) -> Result<usize, String> {
    if t.len() < INDEX_TUPLE_HEADER {
        return Err(format!("an index tuple cut short at {} bytes", t.len()));
    }
    Ok(usize::from(u16_at(t, 6) & INDEX_SIZE_MASK))
}

/// The MAXALIGNed tuple at the start of `data`, checked to fit in it.
fn aligned_tuple(data: &[u8]) -> Result<&[u8], String> {
    let size = maxalign(tuple_size(data)?);
    if size < INDEX_TUPLE_HEADER || size > data.len() {
        return Err(format!(
            "an index tuple of {size} bytes in {} bytes of data",
            data.len()
        ));
    }
    Ok(&data[..size])
}

fn t_info(t: &[u8]) -> u16 {
    u16_at(t, 6)
}

/// `ItemPointerGetBlockNumberNoCheck(&t_tid)`.
fn tid_block(t: &[u8]) -> u32 {
    (u32::from(u16_at(t, 0)) << 16) | u32::from(u16_at(t, 2))
}

fn set_tid_block(t: &mut [u8], blk: u32) {
    set_u16(t, 0, (blk >> 16) as u16);
    set_u16(t, 2, blk as u16);
}

/// `BTreeTupleIsPosting`.
fn is_posting(t: &[u8]) -> bool {
    t_info(t) & INDEX_ALT_TID_MASK != 0 && u16_at(t, 4) & BT_IS_POSTING != 0
}

/// A posting tuple's TIDs (`BTreeTupleGetPosting`, `BTreeTupleGetNPosting`),
/// checked to lie inside it.
fn posting_list(t: &[u8]) -> Result<&[u8], String> {
    let n = usize::from(u16_at(t, 4) & BT_OFFSET_MASK);
    let at = tid_block(t) as usize;
    t.get(at..at + n * TID).ok_or_else(|| {
        format!(
            "a posting list of {n} TIDs at {at} overruns its {} byte tuple",
            t.len()
        )
    })
}

/// `_bt_swap_posting`: the posting list `oposting` with `newitem`'s heap
/// TID put in at `postingoff`; `newitem` takes the list's old last TID.
fn swap_posting(newitem: &mut [u8], oposting: &[u8], postingoff: u16) -> Result<Vec<u8>, String> {
    if !is_posting(oposting) {
        return Err("the posting list to split is not a posting list tuple".into());
    }
    let list = posting_list(oposting)?;
    let n = list.len() / TID;
    let off = usize::from(postingoff);
    if off == 0 || off >= n || newitem.len() < TID {
        return Err(format!("posting list split at {off} of a list of {n} TIDs"));
    }
    let base = tid_block(oposting) as usize;
    let mut nposting = oposting.to_vec();
    let at = base + off * TID;
    nposting.copy_within(at..base + (n - 1) * TID, at + TID);
    nposting[at..at + TID].copy_from_slice(&newitem[..TID]);
    newitem[..TID].copy_from_slice(&list[(n - 1) * TID..]);
    Ok(nposting)
}

/// `_bt_form_posting`: `base`'s key with the heap TIDs `htids`.
fn form_posting(base: &[u8], htids: &[u8]) -> Result<Vec<u8>, String> {
    let keysize = if is_posting(base) {
        tid_block(base) as usize
    } else {
        tuple_size(base)?
    };
    let n = htids.len() / TID;
    let newsize = if n > 1 {
        maxalign(keysize + htids.len())
    } else {
        keysize
    };
    if keysize > base.len() || newsize > usize::from(INDEX_SIZE_MASK) || n == 0 {
        return Err(format!(
            "a posting list of {n} TIDs after a {keysize} byte key"
        ));
    }
    let mut t = vec![0u8; newsize];
    t[..keysize].copy_from_slice(&base[..keysize]);
    let mut info = (t_info(&t) & !INDEX_SIZE_MASK) | newsize as u16;
    if n > 1 {
        info |= INDEX_ALT_TID_MASK;
        set_u16(&mut t, 6, info);
        set_u16(&mut t, 4, n as u16 | BT_IS_POSTING);
        set_tid_block(&mut t, keysize as u32);
        t[keysize..keysize + htids.len()].copy_from_slice(htids);
    } else {
        info &= !INDEX_ALT_TID_MASK;
        set_u16(&mut t, 6, info);
        t[..TID].copy_from_slice(&htids[..TID]);
    }
    Ok(t)
}

/// `_bt_update_posting`: the posting tuple `orig` without the TIDs at the
/// (ascending) positions `deletetids`.
fn update_posting(orig: &[u8], deletetids: &[u16]) -> Result<Vec<u8>, String> {
    let list = posting_list(orig)?;
    if !is_posting(orig) {
        return Err("an updated tuple is not a posting list".into());
    }
    let mut kept = Vec::with_capacity(list.len());
    let mut d = 0;
    for (i, tid) in list.chunks_exact(TID).enumerate() {
        if d < deletetids.len() && usize::from(deletetids[d]) == i {
            d += 1;
            continue;
        }
        kept.extend_from_slice(tid);
    }
    if d != deletetids.len() || kept.is_empty() {
        return Err(format!(
            "{} TIDs to delete from a posting list of {}",
            deletetids.len(),
            list.len() / TID
        ));
    }
    // _bt_form_posting's arithmetic, on the key before the posting list.
    form_posting(orig, &kept)
}

/// `_bt_restore_page`: the tuples of `data` (a copy of pd_upper to
/// pd_special, highest item number first) added back in item order.
fn restore_page(p: &mut [u8], data: &[u8]) -> Result<(), String> {
    let mut items = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let t = aligned_tuple(&data[at..])?;
        items.push(at..at + t.len());
        at += t.len();
    }
    let n = items.len();
    for (i, r) in items.iter().enumerate().rev() {
        add_item(p, &data[r.clone()], (n - i) as u16)?;
    }
    Ok(())
}

/// `_bt_restore_meta`: the metapage rebuilt from `xl_btree_metadata`.
fn restore_meta(p: &mut [u8], x: &[u8]) -> Result<(), String> {
    if x.len() < XL_BTREE_METADATA_SIZE {
        return Err(format!("metadata of {} bytes", x.len()));
    }
    bt_pageinit(p);
    let md = maxalign(SIZE_OF_PAGE_HEADER);
    set_u32(p, md, BTREE_MAGIC);
    for (field, at) in [(4, 0), (8, 4), (12, 8), (16, 12), (20, 16), (24, 20)] {
        // btm_version, root, level, fastroot, fastlevel, last_cleanup_num_delpages
        set_u32(p, md + field, u32_at(x, at));
    }
    // btm_last_cleanup_num_heap_tuples: -1.0 (no longer used).
    p[md + 32..md + 40].copy_from_slice(&(-1.0f64).to_le_bytes());
    p[md + 40] = x[24];
    let mut o = opaque(p)?;
    o.flags = BTP_META;
    set_opaque(p, o)?;
    set_u16(p, PD_LOWER, (md + BT_META_SIZE) as u16);
    Ok(())
}

/// `_bt_clear_incomplete_split`.
fn clear_incomplete_split(p: &mut [u8]) -> Result<(), String> {
    let mut o = opaque(p)?;
    o.flags &= !BTP_INCOMPLETE_SPLIT;
    set_opaque(p, o)
}

/// `btree_xlog_insert`, the page's part: the tuple at `xl_btree_insert`'s
/// `offnum`; for INSERT_POST, after the posting list split that made room.
fn insert(p: &mut [u8], r: &Rec<'_>, posting: bool) -> Result<(), String> {
    let offnum = u16_at(r.main_data(2)?, 0);
    let data = r.block_data(0)?;
    if !posting {
        return add_item(p, data, offnum);
    }
    if data.len() < 2 {
        return Err("no posting list offset".into());
    }
    let postingoff = u16_at(data, 0);
    let mut newitem = data[2..].to_vec();
    let range = item_range(p, offnum.wrapping_sub(1))?;
    let nposting = swap_posting(&mut newitem, &p[range.clone()], postingoff)?;
    let size = maxalign(tuple_size(&nposting)?);
    if size > nposting.len() || size > range.len() {
        return Err(format!(
            "the split posting list of {size} bytes does not fit in place"
        ));
    }
    p[range.start..range.start + size].copy_from_slice(&nposting[..size]);
    add_item(p, &newitem, offnum)
}

/// `btree_xlog_split`, for one of its blocks.
fn split(p: &mut [u8], r: &Rec<'_>, block_id: u8, onleft: bool) -> Result<(), String> {
    let x = r.main_data(10)?;
    let level = u32_at(x, 0);
    let firstrightoff = u16_at(x, 4);
    let newitemoff = u16_at(x, 6);
    let postingoff = u16_at(x, 8);
    let isleaf = level == 0;
    let leftsib = r.blkno(0)?;
    let rightsib = r.blkno(1)?;
    let rnext = r.block(2).map_or(P_NONE, |b| b.blk);
    match block_id {
        3 if !isleaf => clear_incomplete_split(p),
        1 => {
            bt_pageinit(p);
            set_opaque(
                p,
                Opaque {
                    prev: leftsib,
                    next: rnext,
                    level,
                    flags: if isleaf { BTP_LEAF } else { 0 },
                    cycleid: 0,
                },
            )?;
            restore_page(p, r.block_data(1)?)
        }
        0 => split_left(
            p,
            r.block_data(0)?,
            onleft,
            firstrightoff,
            newitemoff,
            postingoff,
            isleaf,
            rightsib,
        ),
        2 => {
            let mut o = opaque(p)?;
            o.prev = rightsib;
            set_opaque(p, o)
        }
        _ => Err(format!("no block {block_id} on a leaf split")),
    }
}

/// The left page of a split, rebuilt in item order from its own items
/// below `firstrightoff`, the new item (when it went left), the posting
/// list it split and the new high key.
#[allow(clippy::too_many_arguments)]
fn split_left(
    p: &mut [u8],
    data: &[u8],
    onleft: bool,
    firstrightoff: u16,
    newitemoff: u16,
    postingoff: u16,
    isleaf: bool,
    rightsib: u32,
) -> Result<(), String> {
    let lop = opaque(p)?;
    let mut pos = 0;
    let mut newitem = Vec::new();
    let mut nposting = Vec::new();
    let mut replacepostingoff = 0u16;
    if onleft || postingoff != 0 {
        newitem = aligned_tuple(data)?.to_vec();
        pos += newitem.len();
        if postingoff != 0 {
            replacepostingoff = newitemoff.wrapping_sub(1);
            let oposting = item(p, replacepostingoff)?;
            nposting = swap_posting(&mut newitem, &oposting, postingoff)?;
        }
    }
    let hikey = aligned_tuple(&data[pos..])?;
    pos += hikey.len();
    if pos != data.len() {
        return Err(format!(
            "{} bytes left over in the left page's data",
            data.len() - pos
        ));
    }
    let mut newl = temp_copy_special(p)?;
    add_item(&mut newl, hikey, P_HIKEY)?;
    let mut leftoff = P_HIKEY + 1;
    let mut off = first_data_key(&lop);
    while off < firstrightoff {
        if off == replacepostingoff {
            let size = maxalign(tuple_size(&nposting)?).min(nposting.len());
            add_item(&mut newl, &nposting[..size], leftoff)?;
            leftoff += 1;
            off += 1;
            continue;
        } else if onleft && off == newitemoff {
            add_item(&mut newl, &newitem, leftoff)?;
            leftoff += 1;
        }
        let it = item(p, off)?;
        add_item(&mut newl, &it, leftoff)?;
        leftoff += 1;
        off += 1;
    }
    if onleft && off == newitemoff {
        add_item(&mut newl, &newitem, leftoff)?;
    }
    p.copy_from_slice(&newl);
    let mut o = opaque(p)?;
    o.flags = BTP_INCOMPLETE_SPLIT | if isleaf { BTP_LEAF } else { 0 };
    o.next = rightsib;
    o.cycleid = 0;
    set_opaque(p, o)
}

/// `BTMaxItemSize`.
fn bt_max_item_size(page_size: usize) -> usize {
    let avail =
        page_size.saturating_sub(maxalign(SIZE_OF_PAGE_HEADER + 3 * 4) + maxalign(BT_OPAQUE_SIZE));
    ((avail / 3) & !7).saturating_sub(maxalign(TID))
}

/// `BTDedupStateData`, what redo uses of it.
struct Dedup {
    base: Vec<u8>,
    baseoff: u16,
    basetupsize: usize,
    htids: Vec<u8>,
    nitems: u16,
    nintervals: usize,
    maxpostingsize: usize,
}

impl Dedup {
    /// `_bt_dedup_start_pending`.
    fn start(&mut self, itup: Vec<u8>, off: u16) -> Result<(), String> {
        self.htids.clear();
        if is_posting(&itup) {
            self.htids.extend_from_slice(posting_list(&itup)?);
            self.basetupsize = tid_block(&itup) as usize;
        } else {
            self.htids
                .extend_from_slice(itup.get(..TID).ok_or("a tuple without a TID")?);
            self.basetupsize = tuple_size(&itup)?;
        }
        self.nitems = 1;
        self.base = itup;
        self.baseoff = off;
        Ok(())
    }

    /// `_bt_dedup_save_htid`.
    fn save(&mut self, itup: &[u8]) -> Result<(), String> {
        let tids = if is_posting(itup) {
            posting_list(itup)?
        } else {
            itup.get(..TID).ok_or("a tuple without a TID")?
        };
        if maxalign(self.basetupsize + self.htids.len() + tids.len()) > self.maxpostingsize {
            return Err("deduplication failed to add heap tid to pending posting list".into());
        }
        self.nitems += 1;
        self.htids.extend_from_slice(tids);
        Ok(())
    }

    /// `_bt_dedup_finish_pending`.
    fn finish(&mut self, newpage: &mut [u8]) -> Result<(), String> {
        let tupoff = max_offset(newpage) + 1;
        if self.nitems == 1 {
            let size = tuple_size(&self.base)?.min(self.base.len());
            add_item(newpage, &self.base[..size], tupoff)?;
        } else {
            let fin = form_posting(&self.base, &self.htids)?;
            add_item(newpage, &fin, tupoff)?;
            self.nintervals += 1;
        }
        self.htids.clear();
        self.nitems = 0;
        Ok(())
    }
}

/// `btree_xlog_dedup`: the leaf rebuilt with the intervals of
/// `xl_btree_dedup` merged into posting lists.
fn dedup(p: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    let nintervals = usize::from(u16_at(r.main_data(2)?, 0));
    let data = r.block_data(0)?;
    if data.len() < nintervals * 4 {
        return Err(format!("{nintervals} intervals in {} bytes", data.len()));
    }
    let interval = |i: usize| (u16_at(data, i * 4), u16_at(data, i * 4 + 2));
    let o = opaque(p)?;
    let minoff = first_data_key(&o);
    let maxoff = max_offset(p);
    if minoff > maxoff {
        return Err("deduplication of a page without items".into());
    }
    let mut newpage = temp_copy_special(p)?;
    if o.next != P_NONE {
        let hikey = item(p, P_HIKEY)?;
        add_item(&mut newpage, &hikey, P_HIKEY)?;
    }
    let mut st = Dedup {
        base: Vec::new(),
        baseoff: 0,
        basetupsize: 0,
        htids: Vec::new(),
        nitems: 0,
        nintervals: 0,
        maxpostingsize: bt_max_item_size(p.len()),
    };
    for offnum in minoff..=maxoff {
        let itup = item(p, offnum)?;
        if offnum == minoff {
            st.start(itup, offnum)?;
        } else if st.nintervals < nintervals
            && st.baseoff == interval(st.nintervals).0
            && st.nitems < interval(st.nintervals).1
        {
            st.save(&itup)?;
        } else {
            st.finish(&mut newpage)?;
            st.start(itup, offnum)?;
        }
    }
    st.finish(&mut newpage)?;
    if st.nintervals != nintervals {
        return Err(format!(
            "{} posting lists formed, the record has {nintervals} intervals",
            st.nintervals
        ));
    }
    if o.flags & BTP_HAS_GARBAGE != 0 {
        let mut n = opaque(&newpage)?;
        n.flags &= !BTP_HAS_GARBAGE;
        set_opaque(&mut newpage, n)?;
    }
    p.copy_from_slice(&newpage);
    Ok(())
}

/// `btree_xlog_updates` then `PageIndexMultiDelete`, for VACUUM and
/// DELETE: block 0's data holds the deleted offsets, the updated offsets
/// and one `xl_btree_update` (a count, then positions in the posting
/// list) per updated tuple.
fn delete_and_update(
    p: &mut [u8],
    data: &[u8],
    ndeleted: usize,
    nupdated: usize,
) -> Result<(), String> {
    let offsets = |from: usize, n: usize| -> Result<Vec<u16>, String> {
        let b = data
            .get(from..from + 2 * n)
            .ok_or_else(|| format!("{n} offsets at {from} overrun {} bytes of data", data.len()))?;
        Ok(b.chunks_exact(2)
            .filter_map(|c| Endian::Little.read_u16(c))
            .collect())
    };
    let deleted = offsets(0, ndeleted)?;
    if nupdated > 0 {
        let updated = offsets(2 * ndeleted, nupdated)?;
        let mut pos = 2 * (ndeleted + nupdated);
        for &off in &updated {
            if pos + 2 > data.len() {
                return Err(format!("the update of item {off} lies past the data"));
            }
            let n = usize::from(u16_at(data, pos));
            let tids = offsets(pos + 2, n)?;
            pos += 2 + 2 * n;
            let orig = item(p, off)?;
            let newt = update_posting(&orig, &tids)?;
            tuple_overwrite(p, off, &newt)
                .map_err(|e| format!("failed to update partially dead item: {e}"))?;
        }
    }
    if ndeleted > 0 {
        super::index_page::multi_delete(p, &deleted)?;
    }
    let mut o = opaque(p)?;
    o.flags &= !BTP_HAS_GARBAGE;
    set_opaque(p, o)
}

/// `btree_xlog_vacuum` (`xl_btree_vacuum`: ndeleted, nupdated).
fn vacuum(p: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    let x = r.main_data(4)?;
    delete_and_update(
        p,
        r.block_data(0)?,
        usize::from(u16_at(x, 0)),
        usize::from(u16_at(x, 2)),
    )
}

/// `btree_xlog_delete` (`xl_btree_delete`: latestRemovedXid, ndeleted,
/// nupdated).
fn delete(p: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    let x = r.main_data(8)?;
    delete_and_update(
        p,
        r.block_data(0)?,
        usize::from(u16_at(x, 4)),
        usize::from(u16_at(x, 6)),
    )
}

/// The dummy high key of a half-dead leaf: `IndexTupleData` alone, its
/// TID's block the top parent (`BTreeTupleSetTopParent`), no key
/// attributes.
fn half_dead_hikey(topparent: u32) -> [u8; INDEX_TUPLE_HEADER] {
    let mut t = [0u8; INDEX_TUPLE_HEADER];
    set_tid_block(&mut t, topparent);
    set_u16(&mut t, 6, INDEX_TUPLE_HEADER as u16 | INDEX_ALT_TID_MASK);
    t
}

/// A half-dead leaf (`_bt_pageinit`, the siblings, the dummy high key).
fn half_dead_leaf(p: &mut [u8], prev: u32, next: u32, topparent: u32) -> Result<(), String> {
    bt_pageinit(p);
    set_opaque(
        p,
        Opaque {
            prev,
            next,
            level: 0,
            flags: BTP_HALF_DEAD | BTP_LEAF,
            cycleid: 0,
        },
    )?;
    add_item(p, &half_dead_hikey(topparent), P_HIKEY)
}

/// `btree_xlog_mark_page_halfdead` (`xl_btree_mark_page_halfdead`:
/// poffset, leafblk, leftblk, rightblk, topparent).
fn mark_page_halfdead(p: &mut [u8], r: &Rec<'_>, block_id: u8) -> Result<(), String> {
    let x = r.main_data(20)?;
    if block_id == 1 {
        // The parent: the downlink at poffset takes the right sibling's
        // downlink, whose tuple goes.
        let poffset = u16_at(x, 0);
        let next = poffset.wrapping_add(1);
        let rightsib = tid_block(&item(p, next)?);
        let range = item_range(p, poffset)?;
        set_tid_block(&mut p[range], rightsib);
        return tuple_delete(p, next);
    }
    half_dead_leaf(p, u32_at(x, 8), u32_at(x, 12), u32_at(x, 16))
}

/// `btree_xlog_unlink_page` (`xl_btree_unlink_page`: leftsib, rightsib,
/// level, safexid (8-aligned), leafleftsib, leafrightsib, leaftopparent).
fn unlink_page(p: &mut [u8], r: &Rec<'_>, block_id: u8) -> Result<(), String> {
    let x = r.main_data(36)?;
    let leftsib = u32_at(x, 0);
    let rightsib = u32_at(x, 4);
    let level = u32_at(x, 8);
    match block_id {
        1 => {
            let mut o = opaque(p)?;
            o.next = rightsib;
            set_opaque(p, o)
        }
        0 => {
            bt_pageinit(p);
            // BTPageSetDeleted: flags, pd_lower past BTDeletedPageData,
            // pd_upper at pd_special, safexid in the page's contents.
            let special = pd_special(p);
            set_opaque(
                p,
                Opaque {
                    prev: leftsib,
                    next: rightsib,
                    level,
                    flags: BTP_DELETED | BTP_HAS_FULLXID | if level == 0 { BTP_LEAF } else { 0 },
                    cycleid: 0,
                },
            )?;
            let contents = maxalign(SIZE_OF_PAGE_HEADER);
            set_u16(p, PD_LOWER, (contents + BT_DELETED_PAGE_DATA_SIZE) as u16);
            set_u16(p, PD_UPPER, special as u16);
            p[contents..contents + 8].copy_from_slice(&x[16..24]);
            Ok(())
        }
        2 => {
            let mut o = opaque(p)?;
            o.prev = leftsib;
            set_opaque(p, o)
        }
        3 => half_dead_leaf(p, u32_at(x, 24), u32_at(x, 28), u32_at(x, 32)),
        _ => Err(format!("no block {block_id}")),
    }
}

/// `btree_xlog_newroot` (`xl_btree_newroot`: rootblk, level), the root.
fn newroot(p: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    let level = u32_at(r.main_data(8)?, 4);
    bt_pageinit(p);
    set_opaque(
        p,
        Opaque {
            prev: P_NONE,
            next: P_NONE,
            level,
            flags: BTP_ROOT | if level == 0 { BTP_LEAF } else { 0 },
            cycleid: 0,
        },
    )?;
    if level > 0 {
        restore_page(p, r.block_data(0)?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::index_page::{item_id, pd_lower, pd_upper};
    use super::super::mask::btree_mask;
    use super::*;

    /// A leaf tuple of 16 bytes: heap TID (blk, off), t_info, an int key.
    fn leaf_tuple(blk: u32, off: u16, key: u32) -> Vec<u8> {
        let mut t = vec![0u8; 16];
        set_tid_block(&mut t, blk);
        set_u16(&mut t, 4, off);
        set_u16(&mut t, 6, 16);
        set_u32(&mut t, 8, key);
        t
    }

    fn tids(t: &[u8]) -> Vec<(u32, u16)> {
        posting_list(t)
            .unwrap()
            .chunks_exact(TID)
            .map(|c| (tid_block(c), u16_at(c, 4)))
            .collect()
    }

    #[test]
    fn posting_lists_form_split_and_shrink_as_nbtree_does() {
        let a = leaf_tuple(0, 1, 7);
        let mut htids = Vec::new();
        for (b, o) in [(0u32, 1u16), (0, 3), (1, 2)] {
            let t = leaf_tuple(b, o, 7);
            htids.extend_from_slice(&t[..TID]);
        }
        let p = form_posting(&a, &htids).unwrap();
        // 16 bytes of key, 18 of TIDs: MAXALIGN(34) = 40.
        assert_eq!(p.len(), 40);
        assert!(is_posting(&p));
        assert_eq!(tid_block(&p), 16);
        assert_eq!(tids(&p), [(0, 1), (0, 3), (1, 2)]);

        // A new TID (0,5) between the 2nd and 3rd: it goes in at 2, the new
        // item takes the old maximum.
        let mut newitem = leaf_tuple(0, 5, 7);
        let n = swap_posting(&mut newitem, &p, 2).unwrap();
        assert_eq!(tids(&n), [(0, 1), (0, 3), (0, 5)]);
        assert_eq!((tid_block(&newitem), u16_at(&newitem, 4)), (1, 2));
        assert!(swap_posting(&mut newitem, &p, 3).is_err());
        assert!(swap_posting(&mut newitem, &a, 1).is_err());

        // Two of three TIDs gone: a plain tuple with the one left.
        let one = update_posting(&p, &[0, 2]).unwrap();
        assert_eq!(one.len(), 16);
        assert!(!is_posting(&one));
        assert_eq!((tid_block(&one), u16_at(&one, 4)), (0, 3));
        assert_eq!(u16_at(&one, 6) & INDEX_ALT_TID_MASK, 0);
        let two = update_posting(&p, &[1]).unwrap();
        assert_eq!(tids(&two), [(0, 1), (1, 2)]);
        assert_eq!(two.len(), 32);
        assert!(update_posting(&p, &[0, 1, 2]).is_err());
    }

    #[test]
    fn restore_page_puts_the_highest_item_lowest() {
        let mut data = Vec::new();
        for key in [3u32, 2, 1] {
            data.extend_from_slice(&leaf_tuple(0, key as u16, key));
        }
        let mut p = vec![0u8; 8192];
        bt_pageinit(&mut p);
        restore_page(&mut p, &data).unwrap();
        assert_eq!(max_offset(&p), 3);
        for off in 1..=3u16 {
            assert_eq!(u32_at(&item(&p, off).unwrap(), 8), u32::from(off));
        }
        assert_eq!(usize::from(item_id(&p, 3).off), pd_upper(&p));
        // Data that ends inside a tuple, or a tuple of size 0: errors.
        assert!(restore_page(&mut p, &data[..20]).is_err());
        assert!(restore_page(&mut p, &[0u8; 16]).is_err());
    }

    #[test]
    fn a_deleted_page_and_its_mask() {
        let mut p = vec![0xAAu8; 8192];
        bt_pageinit(&mut p);
        let mut o = opaque(&p).unwrap();
        o.flags = BTP_DELETED | BTP_HAS_FULLXID;
        set_opaque(&mut p, o).unwrap();
        set_u16(&mut p, 12, 32);
        p[24] = 9;
        btree_mask(&mut p, 0);
        assert!(p[24..].iter().all(|&b| b == 0));
        assert_eq!((pd_lower(&p), pd_upper(&p)), (0, 0));
    }

    #[test]
    fn the_half_dead_high_key_points_to_the_top_parent() {
        let t = half_dead_hikey(0x0001_0002);
        assert_eq!(t, [1, 0, 2, 0, 0, 0, 8, 0x20]);
        assert_eq!(bt_max_item_size(8192), 2704);
    }

    #[test]
    fn vacuum_updates_past_the_data_are_errors() {
        let mut p = vec![0u8; 8192];
        bt_pageinit(&mut p);
        let t = form_posting(&leaf_tuple(0, 1, 7), &[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0]).unwrap();
        add_item(&mut p, &t, 1).unwrap();
        // One updated offset (1) and no xl_btree_update after it.
        assert!(delete_and_update(&mut p, &[1, 0], 0, 1).is_err());
        // Its first TID removed: a plain tuple left with the second.
        delete_and_update(&mut p, &[1, 0, 1, 0, 0, 0], 0, 1).unwrap();
        let one = item(&p, 1).unwrap();
        assert_eq!((one.len(), u16_at(&one, 4)), (16, 2));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let rec = WalRecord {
            lsn: 0,
            end: 0,
            prev: 0,
            xid: 0,
            tot_len: 0,
            info: XLOG_BTREE_SPLIT_L,
            rmid: 11,
            crc: 0,
            origin: None,
            toplevel_xid: None,
            blocks: vec![],
            main_data: 0..3,
        };
        let mut p = vec![0u8; 8192];
        for info in (0..=0xF0).step_by(0x10) {
            for id in 0..5 {
                let r = WalRecord {
                    info,
                    ..rec.clone()
                };
                let _ = redo(&mut p, &r, &[1, 2, 3], id);
                let _ = redo(&mut p, &r, &[], id);
            }
        }
        assert!(redo(&mut p, &rec, &[1, 2, 3], 0).is_err());
    }
}
