//! Heap and Heap2 redo of PostgreSQL 15 (heapam.c `heap_xlog_*`), one
//! block at a time: [`redo`] changes the block the record references as
//! `block_id` exactly as the startup process would after
//! `XLogReadBufferForRedo` said `BLK_NEEDS_REDO` (the framework in
//! [`super`] has already restored images, zeroed pages to be
//! initialised, and skipped pages that are newer than the record).
//!
//! The record structs (heapam_xlog.h, PostgreSQL 15), little-endian:
//!
//! ```text
//! xl_heap_insert        offnum u16, flags u8                 block 0: xl_heap_header + tuple data
//! xl_heap_delete        xmax u32, offnum u16, infobits u8, flags u8
//! xl_heap_update        old_xmax u32, old_offnum u16, old_infobits u8, flags u8,
//!                       new_xmax u32, new_offnum u16         block 0 new page, block 1 old page
//! xl_heap_lock          locking_xid u32, offnum u16, infobits u8, flags u8
//! xl_heap_inplace       offnum u16                           block 0: the new tuple data
//! xl_heap_confirm       offnum u16
//! xl_heap_prune         latestRemovedXid u32, nredirected u16, ndead u16
//!                                                            block 0: offsets (pairs, dead, unused)
//! xl_heap_vacuum        nunused u16                          block 0: offsets
//! xl_heap_freeze_page   cutoff_xid u32, ntuples u16          block 0: xl_heap_freeze_tuple[12 bytes]
//! xl_heap_visible       cutoff_xid u32, flags u8             block 0 vm page, block 1 heap page
//! xl_heap_multi_insert  flags u8, ntuples u16, offsets[]     block 0: SHORTALIGNed xl_multi_insert_tuple + data
//! xl_heap_lock_updated  xmax u32, offnum u16, infobits u8, flags u8
//! ```

use crate::model::postgres::wal::WalRecord;
use crate::model::postgres::wal::{
    RM_HEAP2_ID, RM_HEAP_ID, XLHL_KEYS_UPDATED, XLHL_XMAX_EXCL_LOCK, XLHL_XMAX_IS_MULTI,
    XLHL_XMAX_KEYSHR_LOCK, XLHL_XMAX_LOCK_ONLY, XLH_DELETE_ALL_VISIBLE_CLEARED,
    XLH_DELETE_IS_PARTITION_MOVE, XLH_DELETE_IS_SUPER, XLH_FREEZE_XVAC, XLH_INSERT_ALL_FROZEN_SET,
    XLH_INSERT_ALL_VISIBLE_CLEARED, XLH_INVALID_XVAC, XLH_UPDATE_NEW_ALL_VISIBLE_CLEARED,
    XLH_UPDATE_OLD_ALL_VISIBLE_CLEARED, XLH_UPDATE_PREFIX_FROM_OLD, XLH_UPDATE_SUFFIX_FROM_OLD,
    XLOG_HEAP2_FREEZE_PAGE, XLOG_HEAP2_LOCK_UPDATED, XLOG_HEAP2_MULTI_INSERT, XLOG_HEAP2_NEW_CID,
    XLOG_HEAP2_PRUNE, XLOG_HEAP2_REWRITE, XLOG_HEAP2_VACUUM, XLOG_HEAP2_VISIBLE, XLOG_HEAP_CONFIRM,
    XLOG_HEAP_DELETE, XLOG_HEAP_HOT_UPDATE, XLOG_HEAP_INIT_PAGE, XLOG_HEAP_INPLACE,
    XLOG_HEAP_INSERT, XLOG_HEAP_LOCK, XLOG_HEAP_OPMASK, XLOG_HEAP_TRUNCATE, XLOG_HEAP_UPDATE,
};
use crate::reader::Endian;

use super::page::{
    self, add_item, item_id, item_range, max_offset, set_u16, set_u32, u16_at, u32_at, ItemId,
    LP_DEAD, LP_REDIRECT, LP_UNUSED, PD_ALL_VISIBLE,
};

const HEAP_XMAX_KEYSHR_LOCK: u16 = 0x0010;
const HEAP_COMBOCID: u16 = 0x0020;
const HEAP_XMAX_EXCL_LOCK: u16 = 0x0040;
const HEAP_XMAX_LOCK_ONLY: u16 = 0x0080;
const HEAP_XMAX_SHR_LOCK: u16 = HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK;
const HEAP_LOCK_MASK: u16 = HEAP_XMAX_SHR_LOCK | HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK;
const HEAP_XMAX_COMMITTED: u16 = 0x0400;
const HEAP_XMAX_INVALID: u16 = 0x0800;
const HEAP_XMAX_IS_MULTI: u16 = 0x1000;
const HEAP_MOVED: u16 = 0xC000;
const HEAP_XMAX_BITS: u16 = HEAP_XMAX_COMMITTED
    | HEAP_XMAX_INVALID
    | HEAP_XMAX_IS_MULTI
    | HEAP_LOCK_MASK
    | HEAP_XMAX_LOCK_ONLY;
const HEAP_KEYS_UPDATED: u16 = 0x2000;
const HEAP_HOT_UPDATED: u16 = 0x4000;

/// `SizeofHeapTupleHeader`.
const SIZEOF_HEAP_TUPLE_HEADER: usize = 23;
/// `SizeOfHeapHeader` (xl_heap_header).
const SIZE_OF_HEAP_HEADER: usize = 5;
/// `SizeOfMultiInsertTuple`.
const SIZE_OF_MULTI_INSERT_TUPLE: usize = 7;
/// `sizeof(xl_heap_freeze_tuple)`.
const SIZE_OF_FREEZE_TUPLE: usize = 12;
/// `FrozenTransactionId`.
const FROZEN_TRANSACTION_ID: u32 = 2;

// Offsets in HeapTupleHeaderData.
const T_XMIN: usize = 0;
const T_XMAX: usize = 4;
const T_FIELD3: usize = 8;
const T_CTID: usize = 12;
const T_INFOMASK2: usize = 18;
const T_INFOMASK: usize = 20;
const T_HOFF: usize = 22;

/// The record's main data and the block's data and number.
struct Rec<'a> {
    main: &'a [u8],
    data: &'a [u8],
    blk: u32,
    info: u8,
    xid: u32,
}

fn short(what: &str) -> String {
    format!("{what}: the record is too short")
}

/// Redo `rec` (a Heap or Heap2 record) on `page`, the block it references
/// as `block_id`.
pub(crate) fn redo(
    page: &mut [u8],
    rec: &WalRecord,
    bytes: &[u8],
    block_id: u8,
) -> Result<(), String> {
    let block = rec
        .blocks
        .iter()
        .find(|b| b.id == block_id)
        .ok_or_else(|| format!("the record has no block {block_id}"))?;
    let r = Rec {
        main: bytes.get(rec.main_data.clone()).unwrap_or_default(),
        data: bytes.get(block.data.clone()).unwrap_or_default(),
        blk: block.blk,
        info: rec.info,
        xid: rec.xid,
    };
    let op = rec.info & XLOG_HEAP_OPMASK;
    match rec.rmid {
        RM_HEAP_ID => match op {
            XLOG_HEAP_INSERT => insert(page, &r),
            XLOG_HEAP_DELETE => delete(page, &r),
            XLOG_HEAP_UPDATE | XLOG_HEAP_HOT_UPDATE => {
                let two = rec.blocks.iter().any(|b| b.id == 1);
                let newblk = rec
                    .blocks
                    .iter()
                    .find(|b| b.id == 0)
                    .map(|b| b.blk)
                    .ok_or_else(|| "UPDATE without block 0".to_string())?;
                let u = Update {
                    hot: op == XLOG_HEAP_HOT_UPDATE,
                    block_id,
                    two_blocks: two,
                    newblk,
                };
                update(page, &r, &u)
            }
            XLOG_HEAP_TRUNCATE => Ok(()),
            XLOG_HEAP_CONFIRM => confirm(page, &r),
            XLOG_HEAP_LOCK => lock(page, &r, true),
            XLOG_HEAP_INPLACE => inplace(page, &r),
            _ => unreachable_op(op),
        },
        RM_HEAP2_ID => match op {
            XLOG_HEAP2_PRUNE => prune(page, &r),
            XLOG_HEAP2_VACUUM => vacuum(page, &r),
            XLOG_HEAP2_FREEZE_PAGE => freeze_page(page, &r),
            XLOG_HEAP2_VISIBLE => {
                if block_id != 1 {
                    return Err("visibility map page redo is not built".into());
                }
                let f = page::flags(page);
                page::set_flags(page, f | PD_ALL_VISIBLE);
                Ok(())
            }
            XLOG_HEAP2_MULTI_INSERT => multi_insert(page, &r),
            XLOG_HEAP2_LOCK_UPDATED => lock(page, &r, false),
            XLOG_HEAP2_NEW_CID | XLOG_HEAP2_REWRITE => Ok(()),
            _ => unreachable_op(op),
        },
        other => Err(format!("rmgr {other} is not a heap rmgr")),
    }
}

fn unreachable_op(op: u8) -> Result<(), String> {
    Err(format!("unknown op code 0x{op:02X}"))
}

/// The normal tuple at `offnum` ("invalid lp" otherwise).
fn tuple_at(page: &[u8], offnum: u16) -> Result<std::ops::Range<usize>, String> {
    match item_range(page, offnum) {
        Some(r) if r.len() >= SIZEOF_HEAP_TUPLE_HEADER => Ok(r),
        _ => Err(format!("invalid lp {offnum}")),
    }
}

fn set_ctid(t: &mut [u8], blk: u32, off: u16) {
    set_u16(t, T_CTID, (blk >> 16) as u16);
    set_u16(t, T_CTID + 2, blk as u16);
    set_u16(t, T_CTID + 4, off);
}

/// `PageSetPrunable(page, xid)`.
fn set_prunable(page: &mut [u8], xid: u32) {
    let old = page::prune_xid(page);
    // TransactionIdPrecedes: plain comparison unless both are normal.
    let precedes = if xid < 3 || old < 3 {
        xid < old
    } else {
        (xid.wrapping_sub(old) as i32) < 0
    };
    if old == 0 || precedes {
        set_u32(page, 20, xid);
    }
}

fn clear_all_visible(page: &mut [u8]) {
    let f = page::flags(page);
    page::set_flags(page, f & !PD_ALL_VISIBLE);
}

/// `fix_infomask_from_infobits`.
fn fix_infomask_from_infobits(infobits: u8, infomask: &mut u16, infomask2: &mut u16) {
    *infomask &=
        !(HEAP_XMAX_IS_MULTI | HEAP_XMAX_LOCK_ONLY | HEAP_XMAX_KEYSHR_LOCK | HEAP_XMAX_EXCL_LOCK);
    *infomask2 &= !HEAP_KEYS_UPDATED;
    if infobits & XLHL_XMAX_IS_MULTI != 0 {
        *infomask |= HEAP_XMAX_IS_MULTI;
    }
    if infobits & XLHL_XMAX_LOCK_ONLY != 0 {
        *infomask |= HEAP_XMAX_LOCK_ONLY;
    }
    if infobits & XLHL_XMAX_EXCL_LOCK != 0 {
        *infomask |= HEAP_XMAX_EXCL_LOCK;
    }
    if infobits & XLHL_XMAX_KEYSHR_LOCK != 0 {
        *infomask |= HEAP_XMAX_KEYSHR_LOCK;
    }
    if infobits & XLHL_KEYS_UPDATED != 0 {
        *infomask2 |= HEAP_KEYS_UPDATED;
    }
}

/// A new tuple as heap_xlog_insert builds it: a zeroed header with the
/// logged infomasks and t_hoff, xmin the record's xid, cmin
/// FirstCommandId, then the logged bitmap and data.
fn new_tuple(xlhdr: &[u8], body: &[u8], xid: u32) -> Result<Vec<u8>, String> {
    let len = SIZEOF_HEAP_TUPLE_HEADER + body.len();
    // MaxHeapTupleSize of an 8 kB page.
    if len > 8192 - 24 - 4 {
        return Err(format!(
            "a tuple of {len} bytes is larger than a page holds"
        ));
    }
    let mut t = vec![0u8; len];
    t[SIZEOF_HEAP_TUPLE_HEADER..].copy_from_slice(body);
    set_u16(&mut t, T_INFOMASK2, u16_at(xlhdr, 0));
    set_u16(&mut t, T_INFOMASK, u16_at(xlhdr, 2));
    t[T_HOFF] = xlhdr.get(4).copied().unwrap_or(0);
    set_u32(&mut t, T_XMIN, xid);
    Ok(t)
}

fn check_offnum(page: &[u8], offnum: u16) -> Result<(), String> {
    if u32::from(max_offset(page)) + 1 < u32::from(offnum) {
        return Err(format!("invalid max offset number (inserting at {offnum})"));
    }
    Ok(())
}

fn insert(page: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    if r.main.len() < 3 || r.data.len() <= SIZE_OF_HEAP_HEADER {
        return Err(short("INSERT"));
    }
    let offnum = u16_at(r.main, 0);
    let flags = r.main[2];
    if r.info & XLOG_HEAP_INIT_PAGE != 0 {
        page::init(page, 0);
    }
    check_offnum(page, offnum)?;
    let mut t = new_tuple(
        &r.data[..SIZE_OF_HEAP_HEADER],
        &r.data[SIZE_OF_HEAP_HEADER..],
        r.xid,
    )?;
    set_ctid(&mut t, r.blk, offnum);
    add_item(page, &t, offnum, true).map_err(|e| format!("failed to add tuple: {e}"))?;
    insert_flags(page, flags);
    Ok(())
}

/// An insert's `XLH_INSERT_ALL_VISIBLE_CLEARED` and
/// `XLH_INSERT_ALL_FROZEN_SET` on the page's `PD_ALL_VISIBLE`.
fn insert_flags(page: &mut [u8], flags: u8) {
    if flags & XLH_INSERT_ALL_VISIBLE_CLEARED != 0 {
        clear_all_visible(page);
    }
    if flags & XLH_INSERT_ALL_FROZEN_SET != 0 {
        let f = page::flags(page);
        page::set_flags(page, f | PD_ALL_VISIBLE);
    }
}

fn multi_insert(page: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    if r.main.len() < 4 {
        return Err(short("MULTI_INSERT"));
    }
    let flags = r.main[0];
    let ntuples = usize::from(u16_at(r.main, 2));
    let isinit = r.info & XLOG_HEAP_INIT_PAGE != 0;
    if !isinit && r.main.len() < 4 + 2 * ntuples {
        return Err(short("MULTI_INSERT"));
    }
    if isinit {
        page::init(page, 0);
    }
    let mut at = 0usize;
    for i in 0..ntuples {
        let offnum = if isinit {
            u16::try_from(1 + i).map_err(|_| "too many tuples".to_string())?
        } else {
            u16_at(r.main, 4 + 2 * i)
        };
        check_offnum(page, offnum)?;
        at = (at + 1) & !1; // SHORTALIGN
        let hdr = r
            .data
            .get(at..at + SIZE_OF_MULTI_INSERT_TUPLE)
            .ok_or_else(|| short("MULTI_INSERT"))?;
        let datalen = usize::from(u16_at(hdr, 0));
        at += SIZE_OF_MULTI_INSERT_TUPLE;
        let body = r
            .data
            .get(at..at + datalen)
            .ok_or_else(|| short("MULTI_INSERT"))?;
        at += datalen;
        let mut t = new_tuple(&hdr[2..], body, r.xid)?;
        set_ctid(&mut t, r.blk, offnum);
        add_item(page, &t, offnum, true).map_err(|e| format!("failed to add tuple: {e}"))?;
    }
    if at != r.data.len() {
        return Err("total tuple length mismatch".into());
    }
    insert_flags(page, flags);
    Ok(())
}

fn delete(page: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    if r.main.len() < 8 {
        return Err(short("DELETE"));
    }
    let xmax = u32_at(r.main, 0);
    let offnum = u16_at(r.main, 4);
    let infobits = r.main[6];
    let flags = r.main[7];
    let range = tuple_at(page, offnum)?;
    let t = &mut page[range];
    let mut infomask = u16_at(t, T_INFOMASK) & !(HEAP_XMAX_BITS | HEAP_MOVED);
    let mut infomask2 = u16_at(t, T_INFOMASK2) & !HEAP_KEYS_UPDATED & !HEAP_HOT_UPDATED;
    fix_infomask_from_infobits(infobits, &mut infomask, &mut infomask2);
    if flags & XLH_DELETE_IS_SUPER == 0 {
        set_u32(t, T_XMAX, xmax);
    } else {
        set_u32(t, T_XMIN, 0);
    }
    // HeapTupleHeaderSetCmax(htup, FirstCommandId, false).
    set_u32(t, T_FIELD3, 0);
    infomask &= !HEAP_COMBOCID;
    set_u16(t, T_INFOMASK, infomask);
    set_u16(t, T_INFOMASK2, infomask2);
    if flags & XLH_DELETE_IS_PARTITION_MOVE != 0 {
        set_ctid(t, 0xFFFF_FFFF, 0xFFFD);
    } else {
        set_ctid(t, r.blk, offnum);
    }
    set_prunable(page, r.xid);
    if flags & XLH_DELETE_ALL_VISIBLE_CLEARED != 0 {
        clear_all_visible(page);
    }
    Ok(())
}

/// Which part of an update a block gets.
#[derive(Clone, Copy)]
struct Update {
    /// HOT_UPDATE.
    hot: bool,
    /// The block being redone: 0 the new tuple's page, 1 the old one's.
    block_id: u8,
    /// The old tuple is on another page (block 1).
    two_blocks: bool,
    /// The new tuple's block number.
    newblk: u32,
}

fn update(page: &mut [u8], r: &Rec<'_>, u: &Update) -> Result<(), String> {
    let Update {
        hot,
        block_id,
        two_blocks,
        newblk,
    } = *u;
    if r.main.len() < 14 {
        return Err(short("UPDATE"));
    }
    let old_xmax = u32_at(r.main, 0);
    let old_offnum = u16_at(r.main, 4);
    let old_infobits = r.main[6];
    let flags = r.main[7];
    let new_xmax = u32_at(r.main, 8);
    let new_offnum = u16_at(r.main, 12);
    let do_old = block_id == 1 || !two_blocks;
    let do_new = block_id == 0;
    let mut old_tuple: Option<Vec<u8>> = None;
    if do_old {
        let range = tuple_at(page, old_offnum)?;
        let t = &mut page[range];
        let mut infomask = u16_at(t, T_INFOMASK) & !(HEAP_XMAX_BITS | HEAP_MOVED);
        let mut infomask2 = u16_at(t, T_INFOMASK2) & !HEAP_KEYS_UPDATED;
        if hot {
            infomask2 |= HEAP_HOT_UPDATED;
        } else {
            infomask2 &= !HEAP_HOT_UPDATED;
        }
        fix_infomask_from_infobits(old_infobits, &mut infomask, &mut infomask2);
        set_u32(t, T_XMAX, old_xmax);
        set_u32(t, T_FIELD3, 0);
        infomask &= !HEAP_COMBOCID;
        set_u16(t, T_INFOMASK, infomask);
        set_u16(t, T_INFOMASK2, infomask2);
        set_ctid(t, newblk, new_offnum);
        old_tuple = Some(t.to_vec());
        set_prunable(page, r.xid);
        if flags & XLH_UPDATE_OLD_ALL_VISIBLE_CLEARED != 0 {
            clear_all_visible(page);
        }
    }
    if !do_new {
        return Ok(());
    }
    if two_blocks && r.info & XLOG_HEAP_INIT_PAGE != 0 {
        page::init(page, 0);
    }
    check_offnum(page, new_offnum)?;
    let mut d = r.data;
    let mut prefixlen = 0usize;
    let mut suffixlen = 0usize;
    if flags & XLH_UPDATE_PREFIX_FROM_OLD != 0 {
        prefixlen = usize::from(u16_at(d, 0));
        d = d.get(2..).ok_or_else(|| short("UPDATE"))?;
    }
    if flags & XLH_UPDATE_SUFFIX_FROM_OLD != 0 {
        suffixlen = usize::from(u16_at(d, 0));
        d = d.get(2..).ok_or_else(|| short("UPDATE"))?;
    }
    if d.len() < SIZE_OF_HEAP_HEADER {
        return Err(short("UPDATE"));
    }
    let (xlhdr, rest) = d.split_at(SIZE_OF_HEAP_HEADER);
    let mut body = Vec::with_capacity(rest.len() + prefixlen + suffixlen);
    if prefixlen > 0 || suffixlen > 0 {
        let old = old_tuple
            .as_deref()
            .ok_or_else(|| "a prefix or suffix from an old tuple on another page".to_string())?;
        let old_hoff = usize::from(old[T_HOFF]);
        if prefixlen > 0 {
            let bitmap = usize::from(xlhdr[4]).saturating_sub(SIZEOF_HEAP_TUPLE_HEADER);
            let bitmap = rest.get(..bitmap).ok_or_else(|| short("UPDATE"))?;
            body.extend_from_slice(bitmap);
            let prefix = old
                .get(old_hoff..old_hoff + prefixlen)
                .ok_or_else(|| "the prefix is longer than the old tuple".to_string())?;
            body.extend_from_slice(prefix);
            body.extend_from_slice(&rest[bitmap.len()..]);
        } else {
            body.extend_from_slice(rest);
        }
        if suffixlen > 0 {
            let suffix = old
                .len()
                .checked_sub(suffixlen)
                .and_then(|s| old.get(s..))
                .ok_or_else(|| "the suffix is longer than the old tuple".to_string())?;
            body.extend_from_slice(suffix);
        }
    } else {
        body.extend_from_slice(rest);
    }
    let mut t = new_tuple(xlhdr, &body, r.xid)?;
    set_u32(&mut t, T_XMAX, new_xmax);
    set_ctid(&mut t, newblk, new_offnum);
    add_item(page, &t, new_offnum, true).map_err(|e| format!("failed to add tuple: {e}"))?;
    if flags & XLH_UPDATE_NEW_ALL_VISIBLE_CLEARED != 0 {
        clear_all_visible(page);
    }
    Ok(())
}

fn confirm(page: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    if r.main.len() < 2 {
        return Err(short("CONFIRM"));
    }
    let offnum = u16_at(r.main, 0);
    let range = tuple_at(page, offnum)?;
    set_ctid(&mut page[range], r.blk, offnum);
    Ok(())
}

/// `heap_xlog_lock` (`heap` true) and `heap_xlog_lock_updated`.
fn lock(page: &mut [u8], r: &Rec<'_>, heap: bool) -> Result<(), String> {
    if r.main.len() < 8 {
        return Err(short("LOCK"));
    }
    let xmax = u32_at(r.main, 0);
    let offnum = u16_at(r.main, 4);
    let infobits = r.main[6];
    let range = tuple_at(page, offnum)?;
    let t = &mut page[range];
    let mut infomask = u16_at(t, T_INFOMASK) & !(HEAP_XMAX_BITS | HEAP_MOVED);
    let mut infomask2 = u16_at(t, T_INFOMASK2) & !HEAP_KEYS_UPDATED;
    fix_infomask_from_infobits(infobits, &mut infomask, &mut infomask2);
    if heap {
        // HEAP_XMAX_IS_LOCKED_ONLY
        let locked_only = infomask & HEAP_XMAX_LOCK_ONLY != 0
            || infomask & (HEAP_XMAX_IS_MULTI | HEAP_LOCK_MASK) == HEAP_XMAX_EXCL_LOCK;
        if locked_only {
            infomask2 &= !HEAP_HOT_UPDATED;
            set_ctid(t, r.blk, offnum);
        }
    }
    set_u32(t, T_XMAX, xmax);
    if heap {
        set_u32(t, T_FIELD3, 0);
        infomask &= !HEAP_COMBOCID;
    }
    set_u16(t, T_INFOMASK, infomask);
    set_u16(t, T_INFOMASK2, infomask2);
    Ok(())
}

fn inplace(page: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    if r.main.len() < 2 {
        return Err(short("INPLACE"));
    }
    let offnum = u16_at(r.main, 0);
    let range = tuple_at(page, offnum)?;
    let t = &mut page[range];
    let hoff = usize::from(t[T_HOFF]);
    let oldlen = t.len().saturating_sub(hoff);
    if hoff > t.len() || oldlen != r.data.len() {
        return Err(format!(
            "wrong tuple length: {} on the page, {} in the record",
            oldlen,
            r.data.len()
        ));
    }
    t[hoff..].copy_from_slice(r.data);
    Ok(())
}

fn offsets(data: &[u8]) -> Vec<u16> {
    data.chunks_exact(2)
        .filter_map(|c| Endian::Little.read_u16(c))
        .collect()
}

fn set_lp(page: &mut [u8], off: u16, flags: u8, lp_off: u16) -> Result<(), String> {
    if item_id(page, off).is_none() {
        return Err(format!("line pointer {off} is beyond the page's array"));
    }
    page::set_item_id(
        page,
        off,
        ItemId {
            off: lp_off,
            flags,
            len: 0,
        },
    );
    Ok(())
}

/// `heap_xlog_prune`: `heap_page_prune_execute`, then
/// `PageRepairFragmentation`.
fn prune(page: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    if r.main.len() < 8 {
        return Err(short("PRUNE"));
    }
    let nredirected = usize::from(u16_at(r.main, 4));
    let ndead = usize::from(u16_at(r.main, 6));
    let offs = offsets(r.data);
    if offs.len() < 2 * nredirected + ndead {
        return Err(short("PRUNE"));
    }
    let (redirected, rest) = offs.split_at(2 * nredirected);
    let (dead, unused) = rest.split_at(ndead);
    for pair in redirected.chunks_exact(2) {
        set_lp(page, pair[0], LP_REDIRECT, pair[1])?;
    }
    for &off in dead {
        set_lp(page, off, LP_DEAD, 0)?;
    }
    for &off in unused {
        set_lp(page, off, LP_UNUSED, 0)?;
    }
    page::repair_fragmentation(page)
}

fn vacuum(page: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    if r.main.len() < 2 {
        return Err(short("VACUUM"));
    }
    let nunused = usize::from(u16_at(r.main, 0));
    let offs = offsets(r.data);
    if offs.len() < nunused {
        return Err(short("VACUUM"));
    }
    for &off in &offs[..nunused] {
        set_lp(page, off, LP_UNUSED, 0)?;
    }
    page::truncate_line_pointer_array(page);
    Ok(())
}

fn freeze_page(page: &mut [u8], r: &Rec<'_>) -> Result<(), String> {
    if r.main.len() < 6 {
        return Err(short("FREEZE_PAGE"));
    }
    let ntuples = usize::from(u16_at(r.main, 4));
    for i in 0..ntuples {
        let f = r
            .data
            .get(i * SIZE_OF_FREEZE_TUPLE..(i + 1) * SIZE_OF_FREEZE_TUPLE)
            .ok_or_else(|| short("FREEZE_PAGE"))?;
        let offset = u16_at(f, 4);
        let range = tuple_at(page, offset)?;
        let t = &mut page[range];
        set_u32(t, T_XMAX, u32_at(f, 0));
        if f[10] & XLH_FREEZE_XVAC != 0 {
            set_u32(t, T_FIELD3, FROZEN_TRANSACTION_ID);
        }
        if f[10] & XLH_INVALID_XVAC != 0 {
            set_u32(t, T_FIELD3, 0);
        }
        set_u16(t, T_INFOMASK, u16_at(f, 8));
        set_u16(t, T_INFOMASK2, u16_at(f, 6));
    }
    Ok(())
}
