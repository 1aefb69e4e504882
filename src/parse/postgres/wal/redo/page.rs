//! bufpage.c's generic page operations that redo needs, on a page's bytes:
//! `PageInit`, `PageAddItemExtended`, `PageRepairFragmentation`,
//! `PageTruncateLinePointerArray`, and the header and line pointer fields
//! (`PageHeaderData`, `ItemIdData`) they read and write.
//!
//! Every offset is checked against the page: where PostgreSQL would raise
//! an error ("corrupted page pointers", "failed to add tuple") these return
//! one, and nothing here panics or allocates more than one page.

use crate::model::postgres::disk::page_header::{
    PD_FLAGS, PD_LOWER, PD_LSN, PD_PAGESIZE_VERSION, PD_PRUNE_XID, PD_SPECIAL, PD_UPPER,
};
use crate::reader::Endian;

/// `SizeOfPageHeaderData`.
pub(crate) const SIZE_OF_PAGE_HEADER: usize = 24;
/// `sizeof(ItemIdData)`.
pub(crate) const ITEM_ID_SIZE: usize = 4;
/// `pd_flags` `PD_HAS_FREE_LINES`.
pub(crate) const PD_HAS_FREE_LINES: u16 = 0x0001;
/// `pd_flags` `PD_PAGE_FULL`.
pub(crate) const PD_PAGE_FULL: u16 = 0x0002;
/// `pd_flags` `PD_ALL_VISIBLE`.
pub(crate) const PD_ALL_VISIBLE: u16 = 0x0004;
/// `PG_PAGE_LAYOUT_VERSION`.
const PG_PAGE_LAYOUT_VERSION: u16 = 4;

/// `lp_flags` `LP_UNUSED`.
pub(crate) const LP_UNUSED: u8 = 0;
/// `lp_flags` `LP_NORMAL`.
pub(crate) const LP_NORMAL: u8 = 1;
/// `lp_flags` `LP_REDIRECT`.
pub(crate) const LP_REDIRECT: u8 = 2;
/// `lp_flags` `LP_DEAD`.
pub(crate) const LP_DEAD: u8 = 3;

/// `MAXALIGN` (8 on every platform PostgreSQL 15 packages are built for).
pub(crate) use crate::model::postgres::maxalign;

/// A little-endian `u16` at `at`, 0 past the end.
pub(crate) fn u16_at(p: &[u8], at: usize) -> u16 {
    p.get(at..)
        .and_then(|b| Endian::Little.read_u16(b))
        .unwrap_or(0)
}

/// A little-endian `u32` at `at`, 0 past the end.
pub(crate) fn u32_at(p: &[u8], at: usize) -> u32 {
    p.get(at..)
        .and_then(|b| Endian::Little.read_u32(b))
        .unwrap_or(0)
}

/// Write a little-endian `u16` at `at` (nothing past the end).
pub(crate) fn set_u16(p: &mut [u8], at: usize, v: u16) {
    if let Some(b) = p.get_mut(at..at + 2) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

/// Write a little-endian `u32` at `at` (nothing past the end).
pub(crate) fn set_u32(p: &mut [u8], at: usize, v: u32) {
    if let Some(b) = p.get_mut(at..at + 4) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

/// `pd_lsn` as one number.
pub(crate) fn lsn(p: &[u8]) -> u64 {
    (u64::from(u32_at(p, PD_LSN)) << 32) | u64::from(u32_at(p, PD_LSN + 4))
}

/// `PageSetLSN`.
pub(crate) fn set_lsn(p: &mut [u8], lsn: u64) {
    set_u32(p, PD_LSN, (lsn >> 32) as u32);
    set_u32(p, PD_LSN + 4, lsn as u32);
}

/// `pd_flags`.
pub(crate) fn flags(p: &[u8]) -> u16 {
    u16_at(p, PD_FLAGS)
}

/// Set `pd_flags`.
pub(crate) fn set_flags(p: &mut [u8], v: u16) {
    set_u16(p, PD_FLAGS, v)
}

/// `pd_lower`.
pub(crate) fn lower(p: &[u8]) -> usize {
    usize::from(u16_at(p, PD_LOWER))
}

/// `pd_upper`.
pub(crate) fn upper(p: &[u8]) -> usize {
    usize::from(u16_at(p, PD_UPPER))
}

/// `pd_special`.
pub(crate) fn special(p: &[u8]) -> usize {
    usize::from(u16_at(p, PD_SPECIAL))
}

/// `pd_prune_xid`.
pub(crate) fn prune_xid(p: &[u8]) -> u32 {
    u32_at(p, PD_PRUNE_XID)
}

/// `PageIsNew`: `pd_upper` is 0.
pub(crate) fn is_new(p: &[u8]) -> bool {
    upper(p) == 0
}

/// `PageGetMaxOffsetNumber`.
pub(crate) fn max_offset(p: &[u8]) -> u16 {
    let l = lower(p);
    if l <= SIZE_OF_PAGE_HEADER {
        0
    } else {
        ((l - SIZE_OF_PAGE_HEADER) / ITEM_ID_SIZE).min(usize::from(u16::MAX)) as u16
    }
}

/// `MaxHeapTuplesPerPage` for a page of this size.
pub(crate) fn max_heap_tuples(page_size: usize) -> usize {
    (page_size.saturating_sub(SIZE_OF_PAGE_HEADER)) / (maxalign(23) + ITEM_ID_SIZE)
}

/// One `ItemIdData`: `lp_off:15, lp_flags:2, lp_len:15` — the one line
/// pointer type of redo, for heap pages here and index pages in
/// `index_page.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ItemId {
    /// `lp_off`.
    pub off: u16,
    /// `lp_flags`.
    pub flags: u8,
    /// `lp_len`.
    pub len: u16,
}

impl ItemId {
    /// `ItemIdIsUsed`.
    pub(crate) fn is_used(&self) -> bool {
        self.flags != LP_UNUSED
    }
    /// `ItemIdHasStorage`.
    pub(crate) fn has_storage(&self) -> bool {
        self.len != 0
    }
    /// `ItemIdIsNormal`.
    pub(crate) fn is_normal(&self) -> bool {
        self.flags == LP_NORMAL
    }
}

fn item_id_pos(off: u16) -> usize {
    SIZE_OF_PAGE_HEADER + (usize::from(off).max(1) - 1) * ITEM_ID_SIZE
}

/// Line pointer `off` (1-based), read where it sits whether or not
/// `pd_lower` covers it; `None` when it is off the page.
pub(crate) fn item_id_raw(p: &[u8], off: u16) -> Option<ItemId> {
    if off == 0 {
        return None;
    }
    let pos = item_id_pos(off);
    let w = Endian::Little.read_u32(p.get(pos..)?)?;
    Some(ItemId {
        off: (w & 0x7FFF) as u16,
        flags: ((w >> 15) & 3) as u8,
        len: (w >> 17) as u16,
    })
}

/// Line pointer `off` (1-based), if the array holds it.
pub(crate) fn item_id(p: &[u8], off: u16) -> Option<ItemId> {
    if off == 0 || off > max_offset(p) {
        return None;
    }
    item_id_raw(p, off)
}

/// Write line pointer `off` (1-based); nothing when it is off the page.
pub(crate) fn set_item_id(p: &mut [u8], off: u16, id: ItemId) {
    if off == 0 {
        return;
    }
    let w = u32::from(id.off & 0x7FFF)
        | (u32::from(id.flags & 3) << 15)
        | (u32::from(id.len & 0x7FFF) << 17);
    set_u32(p, item_id_pos(off), w);
}

/// The bytes of item `off` when it is a normal line pointer whose storage
/// lies on the page.
pub(crate) fn item_range(p: &[u8], off: u16) -> Option<std::ops::Range<usize>> {
    let id = item_id(p, off)?;
    if !id.is_normal() {
        return None;
    }
    let start = usize::from(id.off);
    let end = start + usize::from(id.len);
    (start >= SIZE_OF_PAGE_HEADER && end <= p.len()).then_some(start..end)
}

/// `PageInit(page, BLCKSZ, special_size)`: zeroes, then the header.
pub(crate) fn init(p: &mut [u8], special_size: usize) {
    p.fill(0);
    let special = p.len().saturating_sub(maxalign(special_size)) as u16;
    set_u16(p, PD_LOWER, SIZE_OF_PAGE_HEADER as u16);
    set_u16(p, PD_UPPER, special);
    set_u16(p, PD_SPECIAL, special);
    set_u16(
        p,
        PD_PAGESIZE_VERSION,
        (p.len() as u16 & 0xFF00) | PG_PAGE_LAYOUT_VERSION,
    );
}

/// The header's pointers, as `PageAddItemExtended` and
/// `PageRepairFragmentation` check them.
fn checked_pointers(p: &[u8]) -> Result<(usize, usize, usize), String> {
    let (l, u, s) = (lower(p), upper(p), special(p));
    if l < SIZE_OF_PAGE_HEADER || l > u || u > s || s > p.len() {
        return Err(format!(
            "corrupted page pointers: lower = {l}, upper = {u}, special = {s}"
        ));
    }
    Ok((l, u, s))
}

/// `PageAddItemExtended(page, item, size, offnum, PAI_OVERWRITE [|
/// PAI_IS_HEAP])`, as redo calls it: the item goes at `offnum`, which must
/// be unused or one past the last line pointer.
pub(crate) fn add_item(
    p: &mut [u8],
    item: &[u8],
    offnum: u16,
    is_heap: bool,
) -> Result<(), String> {
    let (l, u, _) = checked_pointers(p)?;
    let limit = max_offset(p).saturating_add(1);
    if offnum == 0 {
        return Err("add an item at offset 0".into());
    }
    if offnum < limit {
        if let Some(id) = item_id(p, offnum) {
            if id.is_used() || id.has_storage() {
                return Err(format!("will not overwrite a used line pointer ({offnum})"));
            }
        }
    }
    if offnum > limit {
        return Err(format!(
            "specified item offset {offnum} is too large (the page has {} line pointers)",
            limit - 1
        ));
    }
    if is_heap && usize::from(offnum) > max_heap_tuples(p.len()) {
        return Err(format!(
            "cannot put more than MaxHeapTuplesPerPage items ({offnum})"
        ));
    }
    let new_lower = if offnum == limit { l + ITEM_ID_SIZE } else { l };
    let aligned = maxalign(item.len());
    if item.len() > 0x7FFF || aligned > u || new_lower > u - aligned {
        return Err(format!(
            "no room for an item of {} bytes (lower {l}, upper {u})",
            item.len()
        ));
    }
    let new_upper = u - aligned;
    set_item_id(
        p,
        offnum,
        ItemId {
            off: new_upper as u16,
            flags: LP_NORMAL,
            len: item.len() as u16,
        },
    );
    p[new_upper..new_upper + item.len()].copy_from_slice(item);
    set_u16(p, PD_LOWER, new_lower as u16);
    set_u16(p, PD_UPPER, new_upper as u16);
    Ok(())
}

/// `PageRepairFragmentation` (PostgreSQL 15): unused line pointers are
/// zeroed, the items with storage are packed against `pd_special` in line
/// pointer order (`compactify_tuples`), `PD_HAS_FREE_LINES` says whether
/// an unused line pointer is left. The array is not truncated (that came
/// with 17).
pub(crate) fn repair_fragmentation(p: &mut [u8]) -> Result<(), String> {
    let (l, u, s) = checked_pointers(p)?;
    if s != maxalign(s) {
        return Err(format!("corrupted page pointers: special = {s}"));
    }
    let nline = max_offset(p);
    let mut items: Vec<(u16, usize, usize, u16)> = Vec::new();
    let mut nunused = 0;
    let mut total = 0;
    for i in 1..=nline {
        let Some(id) = item_id(p, i) else { break };
        if id.is_used() {
            if id.has_storage() {
                let off = usize::from(id.off);
                if off < u || off >= s {
                    return Err(format!("corrupted line pointer: {off}"));
                }
                let aligned = maxalign(usize::from(id.len));
                total += aligned;
                items.push((i, off, aligned, id.len));
            }
        } else {
            set_item_id(
                p,
                i,
                ItemId {
                    off: 0,
                    flags: LP_UNUSED,
                    len: 0,
                },
            );
            nunused += 1;
        }
    }
    if items.is_empty() {
        set_u16(p, PD_UPPER, s as u16);
    } else {
        if total > s - l {
            return Err(format!(
                "corrupted item lengths: total {total}, available space {}",
                s - l
            ));
        }
        let scratch = p.to_vec();
        let mut upper = s;
        for (i, off, aligned, len) in items {
            upper -= aligned;
            let n = aligned.min(scratch.len() - off);
            p[upper..upper + n].copy_from_slice(&scratch[off..off + n]);
            set_item_id(
                p,
                i,
                ItemId {
                    off: upper as u16,
                    flags: item_id(&scratch, i).map_or(LP_NORMAL, |id| id.flags),
                    len,
                },
            );
        }
        set_u16(p, PD_UPPER, upper as u16);
    }
    let f = flags(p);
    set_flags(
        p,
        if nunused > 0 {
            f | PD_HAS_FREE_LINES
        } else {
            f & !PD_HAS_FREE_LINES
        },
    );
    Ok(())
}

/// `PageTruncateLinePointerArray`: unused line pointers at the end of the
/// array are cut off (never the first), `PD_HAS_FREE_LINES` says whether
/// an unused one is left before them.
pub(crate) fn truncate_line_pointer_array(p: &mut [u8]) {
    let mut countdone = false;
    let mut sethint = false;
    let mut nunusedend = 0;
    let mut i = max_offset(p);
    while i >= 1 {
        let used = item_id(p, i).is_some_and(|id| id.is_used());
        if !countdone && i > 1 {
            if !used {
                nunusedend += 1;
            } else {
                countdone = true;
            }
        } else if !used {
            sethint = true;
            break;
        }
        i -= 1;
    }
    if nunusedend > 0 {
        let l = lower(p) - ITEM_ID_SIZE * nunusedend;
        set_u16(p, PD_LOWER, l as u16);
    }
    let f = flags(p);
    set_flags(
        p,
        if sethint {
            f | PD_HAS_FREE_LINES
        } else {
            f & !PD_HAS_FREE_LINES
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_add_repair_truncate() {
        let mut p = vec![0u8; 8192];
        init(&mut p, 0);
        assert_eq!((lower(&p), upper(&p), special(&p)), (24, 8192, 8192));
        assert_eq!(u16_at(&p, 18), 0x2004);
        add_item(&mut p, &[1; 30], 1, true).unwrap();
        add_item(&mut p, &[2; 40], 2, true).unwrap();
        add_item(&mut p, &[3; 24], 3, true).unwrap();
        assert_eq!((lower(&p), upper(&p)), (36, 8192 - 32 - 40 - 24));
        assert!(
            add_item(&mut p, &[4; 8], 5, true).is_err(),
            "beyond the array"
        );
        assert!(add_item(&mut p, &[4; 8], 2, true).is_err(), "a used slot");
        // Item 2 unused: the others close up against pd_special.
        set_item_id(
            &mut p,
            2,
            ItemId {
                off: 0,
                flags: LP_UNUSED,
                len: 0,
            },
        );
        repair_fragmentation(&mut p).unwrap();
        assert_eq!(upper(&p), 8192 - 32 - 24);
        assert_eq!(item_id(&p, 3).unwrap().off as usize, 8192 - 32 - 24);
        assert_eq!(p[8192 - 56], 3);
        assert_ne!(flags(&p) & PD_HAS_FREE_LINES, 0);
        // Item 3 unused too: the array shrinks to one pointer.
        set_item_id(
            &mut p,
            3,
            ItemId {
                off: 0,
                flags: LP_UNUSED,
                len: 0,
            },
        );
        truncate_line_pointer_array(&mut p);
        assert_eq!(max_offset(&p), 1);
        assert_eq!(flags(&p) & PD_HAS_FREE_LINES, 0);
        // Damaged pointers are an error, not a panic.
        set_u16(&mut p, 14, 9000);
        assert!(repair_fragmentation(&mut p).is_err());
        assert!(add_item(&mut p, &[1], 2, true).is_err());
    }
}
