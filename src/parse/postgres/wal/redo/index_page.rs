//! bufpage.c's operations on index pages and bufmask.c's masks, as redo
//! needs them: `PageInit`, `PageAddItem` (index tuples: no overwrite, not
//! heap), `PageIndexMultiDelete`, `PageIndexTupleDelete`,
//! `PageIndexTupleOverwrite`, `PageGetTempPageCopySpecial`; the header
//! fields and bufmask.c's masks are `page.rs`'s and `mask.rs`'s.
//!
//! Pages are little-endian byte slices of any block size. Every operation
//! checks the header and line pointers it relies on and returns an error
//! where PostgreSQL would `elog(ERROR|PANIC)`; none panics, none loops more
//! than the page's line pointers.
//!
//! ```text
//!  0       8        10       12       14       16         18              20          24
//!  | pd_lsn | pd_checksum | pd_flags | pd_lower | pd_upper | pd_special | pd_pagesize_version | pd_prune_xid | line pointers…
//!  line pointer (ItemIdData, 4 bytes): lp_off:15 | lp_flags:2 | lp_len:15
//! ```

pub(crate) use super::page::init as page_init;
pub(crate) use super::page::LP_NORMAL;
pub(crate) use super::page::{
    lower as pd_lower, max_offset, maxalign, special as pd_special, u16_at, u32_at,
    upper as pd_upper, SIZE_OF_PAGE_HEADER,
};
use super::page::{set_u16, set_u32, ItemId, ITEM_ID_SIZE};
use crate::model::postgres::disk::page_header::{PD_LOWER, PD_UPPER};

fn item_id_at(offnum: u16) -> usize {
    SIZE_OF_PAGE_HEADER + (usize::from(offnum).saturating_sub(1)) * ITEM_ID_SIZE
}

/// `PageGetItemId` (offnum from 1), read.
pub(crate) fn item_id(p: &[u8], offnum: u16) -> ItemId {
    let v = u32_at(p, item_id_at(offnum));
    ItemId {
        off: (v & 0x7FFF) as u16,
        flags: ((v >> 15) & 0x3) as u8,
        len: (v >> 17) as u16,
    }
}

/// A line pointer's `lp_off` and `lp_len` as positions on the page.
fn off_len(id: ItemId) -> (usize, usize) {
    (usize::from(id.off), usize::from(id.len))
}

/// Write line pointer `offnum`.
pub(crate) fn set_item_id(p: &mut [u8], offnum: u16, id: ItemId) {
    let v = (u32::from(id.off) & 0x7FFF)
        | ((u32::from(id.flags) & 0x3) << 15)
        | ((u32::from(id.len) & 0x7FFF) << 17);
    let at = item_id_at(offnum);
    set_u32(p, at, v);
}

/// The header's bounds, checked as bufpage.c checks them ("corrupted page
/// pointers").
fn bounds(p: &[u8]) -> Result<(usize, usize, usize), String> {
    let (lower, upper, special) = (pd_lower(p), pd_upper(p), pd_special(p));
    if lower < SIZE_OF_PAGE_HEADER
        || lower > upper
        || upper > special
        || special > p.len()
        || special != maxalign(special)
    {
        return Err(format!(
            "corrupted page pointers: lower = {lower}, upper = {upper}, special = {special}"
        ));
    }
    Ok((lower, upper, special))
}

/// The bytes of item `offnum` (`PageGetItem`), checked to lie in the tuple
/// space.
pub(crate) fn item_range(p: &[u8], offnum: u16) -> Result<std::ops::Range<usize>, String> {
    let (_, upper, special) = bounds(p)?;
    if offnum == 0 || offnum > max_offset(p) {
        return Err(format!("no item {offnum} (the page has {})", max_offset(p)));
    }
    let (off, len) = off_len(item_id(p, offnum));
    if off < upper || off + len > special {
        return Err(format!(
            "item {offnum} at {off} (length {len}) lies outside the tuple space {upper}..{special}"
        ));
    }
    Ok(off..off + len)
}

/// A copy of item `offnum`'s bytes.
pub(crate) fn item(p: &[u8], offnum: u16) -> Result<Vec<u8>, String> {
    Ok(p[item_range(p, offnum)?].to_vec())
}

/// `PageAddItem(page, item, size, offnum, false, false)`: an index tuple at
/// `offnum`, shifting the line pointers from there up by one.
pub(crate) fn add_item(p: &mut [u8], item: &[u8], offnum: u16) -> Result<(), String> {
    let (lower, upper, _) = bounds(p)?;
    let limit = max_offset(p) + 1;
    if offnum == 0 || offnum > limit {
        return Err(format!(
            "item offset {offnum} is too large (the page has {} items)",
            limit - 1
        ));
    }
    let new_lower = lower + ITEM_ID_SIZE;
    let aligned = maxalign(item.len());
    if item.len() > 0x7FFF || new_lower + aligned > upper {
        return Err(format!(
            "an item of {} bytes does not fit (lower {lower}, upper {upper})",
            item.len()
        ));
    }
    let new_upper = upper - aligned;
    let at = item_id_at(offnum);
    if offnum < limit {
        p.copy_within(at..lower, at + ITEM_ID_SIZE);
    }
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

/// Check line pointer `offnum` as the index deletions do: its storage lies
/// in the tuple space and is MAXALIGNed.
fn checked_item(p: &[u8], offnum: u16, upper: usize, special: usize) -> Result<ItemId, String> {
    let id = item_id(p, offnum);
    let (off, len) = off_len(id);
    if off < upper || off + len > special || off != maxalign(off) {
        return Err(format!(
            "corrupted line pointer {offnum}: offset = {off}, size = {len}"
        ));
    }
    Ok(id)
}

/// `PageIndexTupleDelete`: remove item `offnum`, closing both gaps.
pub(crate) fn tuple_delete(p: &mut [u8], offnum: u16) -> Result<(), String> {
    let (lower, upper, special) = bounds(p)?;
    let nline = max_offset(p);
    if offnum == 0 || offnum > nline {
        return Err(format!("invalid index offnum: {offnum}"));
    }
    let id = checked_item(p, offnum, upper, special)?;
    let (off, len) = off_len(id);
    let size = maxalign(len);
    let at = item_id_at(offnum);
    p.copy_within(at + ITEM_ID_SIZE..lower, at);
    if off > upper {
        p.copy_within(upper..off, upper + size);
    }
    set_u16(p, PD_UPPER, (upper + size) as u16);
    set_u16(p, PD_LOWER, (lower - ITEM_ID_SIZE) as u16);
    // PageIsEmpty: no line pointers left.
    for i in 1..nline {
        let mut ii = item_id(p, i);
        if ii.off <= id.off {
            // lp_off keeps its low 15 bits when written back.
            ii.off = ii.off.wrapping_add(size as u16);
            set_item_id(p, i, ii);
        }
    }
    Ok(())
}

/// `PageIndexMultiDelete`: remove the items `itemnos` (ascending) and
/// compact the rest towards the special space in line pointer order.
pub(crate) fn multi_delete(p: &mut [u8], itemnos: &[u16]) -> Result<(), String> {
    if itemnos.len() <= 2 {
        for &n in itemnos.iter().rev() {
            tuple_delete(p, n)?;
        }
        return Ok(());
    }
    let (lower, upper, special) = bounds(p)?;
    let nline = max_offset(p);
    let mut kept: Vec<ItemId> = Vec::with_capacity(usize::from(nline));
    let mut next = 0;
    let mut total = 0;
    for offnum in 1..=nline {
        let id = checked_item(p, offnum, upper, special)?;
        if next < itemnos.len() && offnum == itemnos[next] {
            next += 1;
        } else {
            total += maxalign(usize::from(id.len));
            kept.push(id);
        }
    }
    if next != itemnos.len() {
        return Err("incorrect index offsets supplied".into());
    }
    if total > special - lower {
        return Err(format!("corrupted item lengths: total {total}"));
    }
    compact(p, &mut kept, special);
    Ok(())
}

/// `compactify_tuples` after the line pointer array became `kept`: each
/// tuple (in line pointer order) is placed below the one before, from the
/// special space down; `pd_lower` and `pd_upper` follow.
fn compact(p: &mut [u8], kept: &mut [ItemId], special: usize) {
    let scratch = p.to_vec();
    let mut upper = special;
    for id in kept.iter_mut() {
        let (off, len) = off_len(*id);
        let len = maxalign(len);
        upper -= len;
        let end = (off + len).min(scratch.len());
        let src = &scratch[off..end];
        p[upper..upper + src.len()].copy_from_slice(src);
        id.off = upper as u16;
    }
    for (i, id) in kept.iter().enumerate() {
        set_item_id(p, (i + 1) as u16, *id);
    }
    set_u16(
        p,
        12,
        (SIZE_OF_PAGE_HEADER + kept.len() * ITEM_ID_SIZE) as u16,
    );
    set_u16(p, PD_UPPER, upper as u16);
}

/// `PageIndexTupleOverwrite`: replace item `offnum`'s bytes with `new`
/// (its line pointer flags kept), moving the tuples before it.
pub(crate) fn tuple_overwrite(p: &mut [u8], offnum: u16, new: &[u8]) -> Result<(), String> {
    let (lower, upper, special) = bounds(p)?;
    let count = max_offset(p);
    if offnum == 0 || offnum > count {
        return Err(format!("invalid index offnum: {offnum}"));
    }
    let id = checked_item(p, offnum, upper, special)?;
    let old = maxalign(usize::from(id.len));
    let aligned = maxalign(new.len());
    if aligned > old + (upper - lower) || new.len() > 0x7FFF {
        return Err(format!(
            "a {} byte tuple does not fit in place of item {offnum}",
            new.len()
        ));
    }
    // size_diff as PostgreSQL computes it: how much the tuple shrinks.
    let diff = old as isize - aligned as isize;
    let new_upper = (upper as isize + diff) as usize;
    if diff != 0 {
        let moved = p[upper..usize::from(id.off)].to_vec();
        p[new_upper..new_upper + moved.len()].copy_from_slice(&moved);
        set_u16(p, PD_UPPER, new_upper as u16);
        for i in 1..=count {
            let mut ii = item_id(p, i);
            // ItemIdHasStorage: a length.
            if ii.len > 0 && ii.off <= id.off {
                // lp_off keeps its low 15 bits when written back.
                ii.off = (ii.off as isize + diff) as u16;
                set_item_id(p, i, ii);
            }
        }
    }
    let off = (id.off as isize + diff) as usize;
    set_item_id(
        p,
        offnum,
        ItemId {
            off: off as u16,
            flags: id.flags,
            len: new.len() as u16,
        },
    );
    p[off..off + new.len()].copy_from_slice(new);
    Ok(())
}

/// `PageGetTempPageCopySpecial`: an initialised page of the same size with
/// `p`'s special space copied.
pub(crate) fn temp_copy_special(p: &[u8]) -> Result<Vec<u8>, String> {
    let (_, _, special) = bounds(p)?;
    let mut temp = vec![0u8; p.len()];
    page_init(&mut temp, p.len() - special);
    temp[special..].copy_from_slice(&p[special..]);
    Ok(temp)
}

#[cfg(test)]
mod tests {
    use super::super::mask::{
        mask_lp_flags, mask_page_content, mask_page_hint_bits, mask_page_lsn_and_checksum,
        mask_unused_space,
    };
    use super::super::page::{
        is_new as page_is_new, lsn as page_lsn, set_lsn as set_page_lsn, set_u16, set_u32,
        LP_UNUSED,
    };
    use super::*;

    fn page() -> Vec<u8> {
        let mut p = vec![0xEEu8; 8192];
        page_init(&mut p, 16);
        p
    }

    /// An index tuple of `len` bytes (t_info = len) filled with `fill`.
    fn tuple(len: usize, fill: u8) -> Vec<u8> {
        let mut t = vec![fill; len];
        t[6..8].copy_from_slice(&(len as u16).to_le_bytes());
        t
    }

    #[test]
    fn page_init_sets_the_header_as_postgres_does() {
        let p = page();
        assert!(p[..12].iter().all(|&b| b == 0));
        assert_eq!(
            (pd_lower(&p), pd_upper(&p), pd_special(&p)),
            (24, 8176, 8176)
        );
        assert_eq!(u16_at(&p, 18), 0x2004);
        assert!(p[24..].iter().all(|&b| b == 0));
        assert!(!page_is_new(&p));
    }

    #[test]
    fn add_item_places_tuples_downwards_and_shifts_line_pointers() {
        let mut p = page();
        add_item(&mut p, &tuple(16, 1), 1).unwrap();
        add_item(&mut p, &tuple(24, 2), 2).unwrap();
        // In the middle: item 2 moves to 3.
        add_item(&mut p, &tuple(16, 3), 2).unwrap();
        assert_eq!(max_offset(&p), 3);
        assert_eq!(
            item_id(&p, 1),
            ItemId {
                off: 8160,
                flags: LP_NORMAL,
                len: 16
            }
        );
        assert_eq!(
            item_id(&p, 3),
            ItemId {
                off: 8136,
                flags: LP_NORMAL,
                len: 24
            }
        );
        assert_eq!(
            item_id(&p, 2),
            ItemId {
                off: 8120,
                flags: LP_NORMAL,
                len: 16
            }
        );
        assert_eq!(pd_upper(&p), 8120);
        assert_eq!(item(&p, 2).unwrap()[0], 3);
        // Past the first free offset, and too large: errors.
        assert!(add_item(&mut p, &tuple(16, 4), 5).is_err());
        assert!(add_item(&mut p, &vec![0u8; 8100], 4).is_err());
    }

    #[test]
    fn tuple_delete_closes_both_gaps() {
        let mut p = page();
        for (i, fill) in [1u8, 2, 3].iter().enumerate() {
            add_item(&mut p, &tuple(16, *fill), i as u16 + 1).unwrap();
        }
        tuple_delete(&mut p, 2).unwrap();
        assert_eq!(max_offset(&p), 2);
        assert_eq!(pd_upper(&p), 8144);
        assert_eq!(item(&p, 1).unwrap()[0], 1);
        assert_eq!(item(&p, 2).unwrap()[0], 3);
        assert_eq!(item_id(&p, 2).off, 8144);
        assert!(tuple_delete(&mut p, 3).is_err());
    }

    #[test]
    fn multi_delete_compacts_in_line_pointer_order() {
        let mut p = page();
        for i in 1..=6u16 {
            add_item(&mut p, &tuple(16, i as u8), i).unwrap();
        }
        multi_delete(&mut p, &[2, 4, 5]).unwrap();
        assert_eq!(max_offset(&p), 3);
        let fills: Vec<u8> = (1..=3).map(|i| item(&p, i).unwrap()[0]).collect();
        assert_eq!(fills, [1, 3, 6]);
        assert_eq!(item_id(&p, 1).off, 8160);
        assert_eq!(item_id(&p, 3).off, 8128);
        assert_eq!(pd_upper(&p), 8128);
        // Offsets that are not on the page.
        assert!(multi_delete(&mut p, &[1, 2, 9]).is_err());
    }

    #[test]
    fn tuple_overwrite_moves_the_tuples_before_it() {
        let mut p = page();
        for i in 1..=3u16 {
            add_item(&mut p, &tuple(24, i as u8), i).unwrap();
        }
        // Item 2 shrinks from 24 to 16 bytes: item 3 (below it) moves up 8.
        tuple_overwrite(&mut p, 2, &tuple(16, 9)).unwrap();
        assert_eq!(item(&p, 2).unwrap()[0], 9);
        assert_eq!(item_id(&p, 2).off, 8136);
        assert_eq!(item(&p, 3).unwrap()[0], 3);
        assert_eq!(item_id(&p, 3).off, 8112);
        assert_eq!(pd_upper(&p), 8112);
        assert_eq!(item(&p, 1).unwrap()[0], 1);
        assert!(tuple_overwrite(&mut p, 7, &tuple(16, 9)).is_err());
    }

    #[test]
    fn masks_clear_what_bufmask_clears() {
        let mut p = page();
        add_item(&mut p, &tuple(16, 1), 1).unwrap();
        set_page_lsn(&mut p, 0x1_0000_0042);
        set_u16(&mut p, 8, 0xBEEF);
        set_u16(&mut p, 10, 0x7);
        set_u32(&mut p, 20, 99);
        p[100] = 0xAA;
        mask_page_lsn_and_checksum(&mut p);
        mask_page_hint_bits(&mut p);
        mask_unused_space(&mut p);
        mask_lp_flags(&mut p);
        assert_eq!(page_lsn(&p), 0);
        assert_eq!((u16_at(&p, 8), u16_at(&p, 10), u32_at(&p, 20)), (0, 0, 0));
        assert_eq!(p[100], 0);
        assert_eq!(item_id(&p, 1).flags, LP_UNUSED);
        mask_page_content(&mut p);
        assert!(p[24..].iter().all(|&b| b == 0));
        assert_eq!((pd_lower(&p), pd_upper(&p)), (0, 0));
    }

    #[test]
    fn damaged_headers_are_errors_not_panics() {
        let mut p = page();
        set_u16(&mut p, 14, 9000);
        assert!(add_item(&mut p, &tuple(16, 1), 1).is_err());
        assert!(tuple_delete(&mut p, 1).is_err());
        assert!(multi_delete(&mut p, &[1, 2, 3]).is_err());
        assert!(temp_copy_special(&p).is_err());
        let mut zero = vec![0u8; 8192];
        assert!(item(&zero, 1).is_err());
        mask_unused_space(&mut zero);
    }
}
