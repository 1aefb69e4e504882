//! bufmask.c's masks and the access methods' masks built on them
//! (`heap_mask` of heapam.c, `btree_mask` of nbtxlog.c): what
//! `wal_consistency_checking` blanks out before it compares a replayed
//! page with the page image the primary logged. Hint bits, `pd_prune_xid`,
//! free space, padding and command ids change without WAL, so two pages
//! that agree under these masks are the same page as far as redo can say.
//!
//! Every offset is checked against the page; a page whose pointers are
//! damaged is masked as far as it can be, never with a panic.

use super::page::{
    self, item_id, max_offset, set_u16, set_u32, ItemId, LP_UNUSED, PD_ALL_VISIBLE,
    PD_HAS_FREE_LINES, PD_PAGE_FULL, SIZE_OF_PAGE_HEADER,
};
use crate::model::postgres::disk::page_header::{PD_LOWER, PD_PRUNE_XID, PD_UPPER};

/// `MASK_MARKER`.
pub const MASK_MARKER: u8 = 0;

/// `mask_page_lsn_and_checksum`: `pd_lsn` and `pd_checksum`.
pub fn mask_page_lsn_and_checksum(p: &mut [u8]) {
    if let Some(b) = p.get_mut(0..10) {
        b.fill(MASK_MARKER);
    }
}

/// `mask_page_hint_bits`: `pd_prune_xid`, `PD_PAGE_FULL`,
/// `PD_HAS_FREE_LINES` and `PD_ALL_VISIBLE`.
pub fn mask_page_hint_bits(p: &mut [u8]) {
    set_u32(p, PD_PRUNE_XID, u32::from(MASK_MARKER));
    let f = page::flags(p) & !(PD_PAGE_FULL | PD_HAS_FREE_LINES | PD_ALL_VISIBLE);
    page::set_flags(p, f);
}

/// `mask_unused_space`: the bytes between `pd_lower` and `pd_upper`
/// (nothing when the pointers do not make sense; PostgreSQL raises an
/// error there).
pub fn mask_unused_space(p: &mut [u8]) {
    let (l, u, s) = (page::lower(p), page::upper(p), page::special(p));
    if l > u || s < u || l < SIZE_OF_PAGE_HEADER || s > p.len() {
        return;
    }
    p[l..u].fill(MASK_MARKER);
}

/// `mask_lp_flags`: every used line pointer's flags set to `LP_UNUSED`.
pub fn mask_lp_flags(p: &mut [u8]) {
    for off in 1..=max_offset(p) {
        let Some(id) = item_id(p, off) else { break };
        if id.is_used() {
            page::set_item_id(
                p,
                off,
                ItemId {
                    flags: LP_UNUSED,
                    ..id
                },
            );
        }
    }
}

/// `mask_page_content`: everything after the header, and `pd_lower` and
/// `pd_upper`.
pub fn mask_page_content(p: &mut [u8]) {
    if let Some(b) = p.get_mut(SIZE_OF_PAGE_HEADER..) {
        b.fill(MASK_MARKER);
    }
    set_u16(p, PD_LOWER, u16::from(MASK_MARKER));
    set_u16(p, PD_UPPER, u16::from(MASK_MARKER));
}

const HEAP_XACT_MASK: u16 = 0xFFF0;
const HEAP_XMIN_FROZEN: u16 = 0x0300;
const HEAP_XMAX_COMMITTED: u16 = 0x0400;
const HEAP_XMAX_INVALID: u16 = 0x0800;
/// `SpecTokenOffsetNumber`.
const SPEC_TOKEN_OFFSET_NUMBER: u16 = 0xFFFE;

/// `heap_mask` (heapam.c, PostgreSQL 15) of block `blkno`: the page masks,
/// then each normal tuple's hint bits (all of `HEAP_XACT_MASK` unless xmin
/// is frozen, else the xmax hints), its command id, a speculative tuple's
/// `t_ctid`, and the padding after every item.
pub fn heap_mask(p: &mut [u8], blkno: u32) {
    mask_page_lsn_and_checksum(p);
    mask_page_hint_bits(p);
    mask_unused_space(p);
    for off in 1..=max_offset(p) {
        let Some(id) = item_id(p, off) else { break };
        let at = usize::from(id.off);
        if id.is_normal() && at + 23 <= p.len() {
            let mut infomask = page::u16_at(p, at + 20);
            if infomask & HEAP_XMIN_FROZEN != HEAP_XMIN_FROZEN {
                infomask &= !HEAP_XACT_MASK;
            } else {
                infomask &= !(HEAP_XMAX_INVALID | HEAP_XMAX_COMMITTED);
            }
            set_u16(p, at + 20, infomask);
            set_u32(p, at + 8, u32::from(MASK_MARKER));
            if page::u16_at(p, at + 16) == SPEC_TOKEN_OFFSET_NUMBER {
                set_u16(p, at + 12, (blkno >> 16) as u16);
                set_u16(p, at + 14, blkno as u16);
                set_u16(p, at + 16, off);
            }
        }
        if id.has_storage() {
            let len = usize::from(id.len);
            let pad = page::maxalign(len) - len;
            if let Some(b) = p.get_mut(at + len..at + len + pad) {
                b.fill(MASK_MARKER);
            }
        }
    }
}

/// `BTP_LEAF`.
const BTP_LEAF: u16 = 1 << 0;
/// `BTP_DELETED`.
const BTP_DELETED: u16 = 1 << 2;
/// `BTP_SPLIT_END`.
const BTP_SPLIT_END: u16 = 1 << 5;
/// `BTP_HAS_GARBAGE`.
const BTP_HAS_GARBAGE: u16 = 1 << 6;

/// `btree_mask` (nbtxlog.c, PostgreSQL 15): the page masks, a deleted
/// page's content, a leaf's line pointer flags, and the special space's
/// `BTP_HAS_GARBAGE`, `BTP_SPLIT_END` and `btpo_cycleid`.
pub fn btree_mask(p: &mut [u8], _blkno: u32) {
    mask_page_lsn_and_checksum(p);
    mask_page_hint_bits(p);
    mask_unused_space(p);
    // BTPageOpaqueData at pd_special: btpo_prev, btpo_next, btpo_level,
    // btpo_flags (u16), btpo_cycleid (u16).
    let s = page::special(p);
    if s + 16 > p.len() {
        return;
    }
    let flags = page::u16_at(p, s + 12);
    if flags & BTP_DELETED != 0 {
        mask_page_content(p);
    } else if flags & BTP_LEAF != 0 {
        mask_lp_flags(p);
    }
    let flags = page::u16_at(p, s + 12);
    set_u16(p, s + 12, flags & !(BTP_HAS_GARBAGE | BTP_SPLIT_END));
    set_u16(p, s + 14, 0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::postgres::wal::redo::page::{add_item, init, set_lsn};

    #[test]
    fn heap_mask_hides_hints_not_data() {
        let mut a = vec![0u8; 8192];
        init(&mut a, 0);
        let mut tuple = vec![0u8; 30];
        tuple[0] = 9; // xmin
        tuple[20] = 0x02; // HEAP_HASVARWIDTH
        tuple[22] = 24;
        add_item(&mut a, &tuple, 1, true).unwrap();
        let mut b = a.clone();
        // Hint bits, the command id, the LSN, pd_prune_xid, PD_ALL_VISIBLE.
        b[8192 - 32 + 21] |= 0x01; // HEAP_XMIN_COMMITTED
        b[8192 - 32 + 8] = 7;
        set_lsn(&mut b, 0x1234);
        b[20] = 5;
        b[10] |= 4;
        let (mut ma, mut mb) = (a.clone(), b.clone());
        heap_mask(&mut ma, 0);
        heap_mask(&mut mb, 0);
        assert_eq!(ma, mb);
        // A data byte is not masked.
        b[8192 - 32 + 25] = 1;
        let mut mb = b.clone();
        heap_mask(&mut mb, 0);
        assert_ne!(ma, mb);
        // Damage is masked as far as it goes, never a panic.
        let mut bad = vec![0xFFu8; 8192];
        heap_mask(&mut bad, 0);
        btree_mask(&mut bad, 0);
        let mut short = vec![0xFFu8; 30];
        heap_mask(&mut short, 0);
        btree_mask(&mut short, 0);
        mask_page_content(&mut short);
    }
}
