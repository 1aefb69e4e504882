//! Heap tuples (`HeapTupleHeaderData`, htup_details.h), decoded under the
//! same conditions pageinspect's `heap_page_items` uses, plus structural checks
//! and a verdict of what the header proves ([`ItemVerdict`]).

use crate::model::postgres::block_id;
use crate::model::postgres::verdict::{
    Change, ItemVerdict, LockMode, TupleVerdict, XidStatus, Xmax,
};
use crate::model::postgres::{
    HeapItem, HeapTuple, HeapTupleHeader, ItemId, ItemPointer, LpFlags, PageLayout, HEAP_HASNULL,
    HEAP_HASOID_OLD, HEAP_NATTS_MASK, MAXALIGN, MIN_HEAP_TUPLE_SIZE, SIZEOF_HEAP_TUPLE_HEADER,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{ReadError, Reader};

use crate::model::postgres::flags;
use crate::model::postgres::flags::{
    HEAP_HOT_UPDATED, HEAP_KEYS_UPDATED, HEAP_MOVED, HEAP_ONLY_TUPLE, HEAP_XMAX_COMMITTED,
    HEAP_XMAX_EXCL_LOCK, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_XMAX_KEYSHR_LOCK,
    HEAP_XMAX_LOCK_ONLY, HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID,
};

/// Transaction IDs with a fixed status (transam.h).
const INVALID_TRANSACTION_ID: u32 = 0;
const BOOTSTRAP_TRANSACTION_ID: u32 = 1;
const FROZEN_TRANSACTION_ID: u32 = 2;
/// `MovedPartitionsOffsetNumber` (itemptr.h): ctid of a row moved to another partition.
const MOVED_PARTITIONS_OFFSET: u16 = 0xFFFD;

/// Decode the line pointer `id` and, when it has a tuple pageinspect would read,
/// the tuple.
pub(crate) fn parse_item(
    r: &mut Reader,
    id: ItemId,
    blkno: u64,
    layout: PageLayout,
    problems: &mut Vec<Problem>,
) -> HeapItem {
    let tuple = if has_readable_tuple_aligned(&id, r.len(), layout.max_align) {
        match read_tuple(r, &id, layout, problems) {
            Ok(t) => Some(t),
            Err(e) => {
                problems.push(
                    Problem::new(
                        Severity::Error,
                        ProblemClass::Tuple,
                        Some(e.offset),
                        format!("tuple {} {}", id.lp, e.field),
                        e.to_string(),
                    )
                    .about_item(id.lp),
                );
                None
            }
        }
    } else {
        None
    };
    let verdict = match &tuple {
        Some(t) => tuple_verdict(&id, t, blkno),
        None => line_pointer_verdict(&id),
    };
    HeapItem {
        id,
        tuple,
        verdict,
        attrs: None,
    }
}

/// heap_page_items' conditions for looking at the tuple behind `id` at all:
/// storage, at least a tuple header long, MAXALIGNed, inside the page.
pub(crate) fn has_readable_tuple(id: &ItemId, page_len: usize) -> bool {
    has_readable_tuple_aligned(id, page_len, MAXALIGN)
}

/// [`has_readable_tuple`] on a page of a build whose MAXALIGN is `max_align`.
pub(crate) fn has_readable_tuple_aligned(id: &ItemId, page_len: usize, max_align: usize) -> bool {
    let lp_off = usize::from(id.lp_off);
    let lp_len = usize::from(id.lp_len);
    id.has_storage()
        && lp_len >= MIN_HEAP_TUPLE_SIZE
        && lp_off.is_multiple_of(max_align.max(1))
        && lp_off + lp_len <= page_len
}

/// `t_hoff` a build with MAXALIGN `max_align` gives a tuple header:
/// MAXALIGN(23 + null bitmap bytes + 4 for an OID).
fn expected_hoff(t_infomask2: u16, t_infomask: u16, max_align: usize) -> usize {
    let natts = usize::from(t_infomask2 & HEAP_NATTS_MASK);
    let bitmap = if t_infomask & HEAP_HASNULL != 0 {
        natts.div_ceil(8)
    } else {
        0
    };
    let oid = if t_infomask & HEAP_HASOID_OLD != 0 {
        4
    } else {
        0
    };
    PageLayout {
        max_align,
        ..PageLayout::default()
    }
    .maxalign(SIZEOF_HEAP_TUPLE_HEADER + bitmap + oid)
}

/// Whether the heap page's tuples were laid out by a 32-bit build
/// (MAXIMUM_ALIGNOF 4): then a note saying how that was told, else `None`.
///
/// A 64-bit build places every tuple at a multiple of 8. A 32-bit build
/// places tuples at multiples of 4, so a tuple whose MAXALIGNed length is
/// 4 mod 8 leaves the next one at an lp_off of 4 mod 8. The page is read as
/// 32-bit only when some normal item sits at 4 mod 8 and every normal item
/// sits at a multiple of 4 with the t_hoff a 32-bit build gives its header
/// (MAXALIGN(23 + null bitmap + OID) with MAXALIGN 4: 24, 28, 32, …).
/// Pages whose tuples all happen to sit at multiples of 8 cannot be told
/// apart this way.
pub(crate) fn detect_max_align(r: &Reader, ids: &[ItemId]) -> Option<Problem> {
    super::layout::four_byte_maxalign(
        ids,
        |id| id.lp_flags == LpFlags::Normal && id.has_storage(),
        |id| {
            let base = usize::from(id.lp_off);
            if usize::from(id.lp_len) < MIN_HEAP_TUPLE_SIZE {
                return false;
            }
            let Ok(&[a, b, c, d, t_hoff]) = r.peek(base + 18, 5, "t_infomask2") else {
                return false;
            };
            let (t_infomask2, t_infomask) = (r.decode_u16([a, b]), r.decode_u16([c, d]));
            usize::from(t_hoff) == expected_hoff(t_infomask2, t_infomask, 4)
                && usize::from(t_hoff) <= usize::from(id.lp_len)
        },
        "tuples",
        "tuples",
        "with the t_hoff MAXALIGN 4 gives their headers; decoded with 4-byte MAXALIGN and \
         4-byte alignment for typalign d",
    )
}

/// The fixed part of the tuple header at `base`, read without recording spans.
pub(crate) fn peek_tuple_header(r: &Reader, base: usize) -> Result<HeapTupleHeader, ReadError> {
    // The common case: the whole header is there, read from one slice.
    if let Some(h) = base
        .checked_add(SIZEOF_HEAP_TUPLE_HEADER)
        .and_then(|end| r.data().get(base..end))
        .and_then(|h| <&[u8; SIZEOF_HEAP_TUPLE_HEADER]>::try_from(h).ok())
    {
        let e = r.endian();
        let u16_at = |i: usize| e.u16_from([h[i], h[i + 1]]);
        let u32_at = |i: usize| e.read_u32(&h[i..i + 4]).unwrap_or_default();
        return Ok(HeapTupleHeader {
            t_xmin: u32_at(0),
            t_xmax: u32_at(4),
            t_field3: u32_at(8),
            t_ctid: ItemPointer {
                block: e.read_block_id(&h[12..16]).unwrap_or_default(),
                offset: u16_at(16),
            },
            t_infomask2: u16_at(18),
            t_infomask: u16_at(20),
            t_hoff: h[22],
        });
    }
    let bi_hi = r.peek_u16(base + 12, "t_ctid")?;
    let bi_lo = r.peek_u16(base + 14, "t_ctid")?;
    Ok(HeapTupleHeader {
        t_xmin: r.peek_u32(base, "t_xmin")?,
        t_xmax: r.peek_u32(base + 4, "t_xmax")?,
        t_field3: r.peek_u32(base + 8, "t_field3")?,
        t_ctid: ItemPointer {
            block: block_id(bi_hi, bi_lo),
            offset: r.peek_u16(base + 16, "t_ctid")?,
        },
        t_infomask2: r.peek_u16(base + 18, "t_infomask2")?,
        t_infomask: r.peek_u16(base + 20, "t_infomask")?,
        t_hoff: r.peek_u8(base + 22, "t_hoff")?,
    })
}

/// `t_hoff` for the header's attribute count, null bitmap and OID:
/// MAXALIGN(23 + bitmap bytes + 4 for an OID), and within the tuple's lp_len.
pub(crate) fn check_tuple_header(
    id: &ItemId,
    t_infomask2: u16,
    t_infomask: u16,
    t_hoff: u8,
    max_align: usize,
    problems: &mut Vec<Problem>,
) {
    let base = usize::from(id.lp_off);
    let lp_len = usize::from(id.lp_len);
    let hoff = usize::from(t_hoff);
    let natts = usize::from(t_infomask2 & HEAP_NATTS_MASK);
    let has_null = t_infomask & HEAP_HASNULL != 0;
    let has_oid = t_infomask & HEAP_HASOID_OLD != 0;
    let expected_hoff = expected_hoff(t_infomask2, t_infomask, max_align);
    if hoff == expected_hoff && hoff <= lp_len {
        return;
    }
    let mut err = |message: String| {
        problems.push(
            Problem::new(
                Severity::Error,
                ProblemClass::Tuple,
                Some(base + 22),
                format!("tuple {} t_hoff", id.lp),
                message,
            )
            .about_item(id.lp),
        );
    };
    if hoff != expected_hoff {
        err(format!(
            "t_hoff {hoff} but {natts} attributes{}{} need {expected_hoff}",
            if has_null { " with a null bitmap" } else { "" },
            if has_oid { " and an OID" } else { "" }
        ));
    }
    if hoff > lp_len {
        err(format!(
            "t_hoff {hoff} points past the end of the {lp_len}-byte tuple"
        ));
    }
}

/// The tuple-header checks of [`check_tuple_header`] for every readable tuple
/// of a heap page, reading only the three fields they need.
pub(crate) fn check_tuples(
    r: &Reader,
    ids: &[ItemId],
    max_align: usize,
    problems: &mut Vec<Problem>,
) {
    for id in ids {
        if !has_readable_tuple_aligned(id, r.len(), max_align) {
            continue;
        }
        // t_infomask2, t_infomask, t_hoff: bytes 18..23 of the tuple header.
        let Ok(&[a, b, c, d, t_hoff]) = r.peek(usize::from(id.lp_off) + 18, 5, "t_infomask2")
        else {
            continue;
        };
        let (t_infomask2, t_infomask) = (r.decode_u16([a, b]), r.decode_u16([c, d]));
        check_tuple_header(id, t_infomask2, t_infomask, t_hoff, max_align, problems);
    }
}

fn read_tuple(
    r: &mut Reader,
    id: &ItemId,
    layout: PageLayout,
    problems: &mut Vec<Problem>,
) -> Result<HeapTuple, ReadError> {
    let base = usize::from(id.lp_off);
    let lp_len = usize::from(id.lp_len);
    let header = peek_tuple_header(r, base)?;
    if r.recording() {
        mark_tuple_header(r, &header, base, id.lp);
    }
    check_tuple_header(
        id,
        header.t_infomask2,
        header.t_infomask,
        header.t_hoff,
        layout.max_align,
        problems,
    );

    let hoff = usize::from(header.t_hoff);
    let t_infomask = header.t_infomask;
    let bitmap_len = usize::from(header.natts()).div_ceil(8);
    let has_null = t_infomask & HEAP_HASNULL != 0;
    let has_oid = t_infomask & HEAP_HASOID_OLD != 0;

    // pageinspect shows t_bits and t_oid only when t_hoff is sane.
    let hoff_sane =
        hoff >= SIZEOF_HEAP_TUPLE_HEADER && hoff <= lp_len && hoff == layout.maxalign(hoff);
    let mut t_bits = None;
    let mut t_oid = None;
    if hoff_sane {
        if has_null {
            let bits = r.bytes(base + SIZEOF_HEAP_TUPLE_HEADER, bitmap_len, "t_bits")?;
            let text = bits_to_text(bits);
            if r.recording() {
                r.show_last(text.clone());
            }
            t_bits = Some(text);
        }
        if has_oid {
            t_oid = Some(r.u32(base + hoff - 4, "t_oid")?);
        }
    }
    let header_end =
        base + SIZEOF_HEAP_TUPLE_HEADER + if t_bits.is_some() { bitmap_len } else { 0 };
    let oid_start = if t_oid.is_some() {
        base + hoff - 4
    } else {
        base + hoff
    };
    if r.recording() && hoff_sane && oid_start > header_end {
        r.mark(
            header_end,
            oid_start - header_end,
            "padding",
            plural(oid_start - header_end, "byte"),
        );
    }

    let data_offset = base + hoff;
    let t_data = if hoff <= lp_len {
        if r.recording() {
            r.set_context(Region::TupleData, Some(format!("tuple {}", id.lp)));
        }
        let len = r.bytes(data_offset, lp_len - hoff, "t_data")?.len();
        if r.recording() {
            r.show_last(plural(len, "byte"));
        }
        Some(r.shared_bytes(data_offset, len))
    } else {
        None
    };

    let (raw_flags, combined_flags) = flags::infomask_flags(t_infomask, header.t_infomask2);
    Ok(HeapTuple {
        header,
        t_bits,
        t_oid,
        data_offset,
        t_data,
        raw_flags,
        combined_flags,
    })
}

/// The tuple header's fields as spans for the hex view.
fn mark_tuple_header(r: &mut Reader, header: &HeapTupleHeader, base: usize, lp: u16) {
    r.set_context(Region::TupleHeader, Some(format!("tuple {lp}")));
    r.mark(base, 4, "t_xmin", header.t_xmin.to_string());
    r.mark(base + 4, 4, "t_xmax", header.t_xmax.to_string());
    r.mark(base + 8, 4, "t_field3", header.t_field3.to_string());
    r.mark(base + 12, 6, "t_ctid", header.t_ctid.to_string());
    let t_infomask2 = header.t_infomask2;
    r.mark(
        base + 18,
        2,
        "t_infomask2",
        format!(
            "natts {}{}",
            t_infomask2 & 0x07FF,
            flag_suffix(t_infomask2 & !0x07FF, flags::INFOMASK2)
        ),
    );
    let t_infomask = header.t_infomask;
    r.mark(
        base + 20,
        2,
        "t_infomask",
        format!(
            "0x{t_infomask:04x}{}",
            flag_suffix(t_infomask, flags::INFOMASK)
        ),
    );
    r.mark(base + 22, 1, "t_hoff", header.t_hoff.to_string());
}

fn flag_suffix(value: u16, table: &'static [flags::Flag]) -> String {
    if value == 0 {
        String::new()
    } else {
        format!(" {}", flags::join(value, table, 0xFFFF))
    }
}

fn plural(n: usize, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// pageinspect's `bits_to_text`: bit i of the bitmap, LSB first, '1' = not null.
pub(crate) fn bits_to_text(bits: &[u8]) -> String {
    bits.iter()
        .flat_map(|b| (0..8).map(move |i| if b & (1 << i) != 0 { '1' } else { '0' }))
        .collect()
}

/// What a line pointer without a readable tuple says.
pub(crate) fn line_pointer_verdict(id: &ItemId) -> ItemVerdict {
    match id.lp_flags {
        LpFlags::Unused => ItemVerdict::Unused,
        LpFlags::Redirect => ItemVerdict::Redirect { to: id.lp_off },
        LpFlags::Dead => ItemVerdict::Dead {
            storage: id.has_storage(),
        },
        LpFlags::Normal => ItemVerdict::Unreadable {
            lp_off: id.lp_off,
            lp_len: id.lp_len,
        },
    }
}

/// What a tuple header proves about the row's life: the hint bits decide
/// committed and aborted (HeapTupleSatisfiesMVCC reads them first); without
/// them the commit status is not on the page.
pub(crate) fn tuple_verdict(id: &ItemId, t: &HeapTuple, blkno: u64) -> ItemVerdict {
    let h = &t.header;
    let m = h.t_infomask;
    let m2 = h.t_infomask2;
    ItemVerdict::Tuple(TupleVerdict {
        xmin: h.t_xmin,
        xmin_status: xmin_status(m, h.t_xmin),
        xmax: xmax_verdict(id, h, blkno),
        heap_only: m2 & HEAP_ONLY_TUPLE != 0,
        moved_by_vacuum_full: m & HEAP_MOVED != 0,
    })
}

/// xmin's hint bits; unhinted, the special transaction IDs below
/// FirstNormalTransactionId have a fixed status (transam.c).
fn xmin_status(m: u16, xmin: u32) -> XidStatus {
    match (m & HEAP_XMIN_COMMITTED != 0, m & HEAP_XMIN_INVALID != 0) {
        (true, true) => XidStatus::Frozen,
        (true, false) => XidStatus::Committed,
        (false, true) => XidStatus::Aborted,
        (false, false) => match xmin {
            INVALID_TRANSACTION_ID => XidStatus::Aborted,
            BOOTSTRAP_TRANSACTION_ID => XidStatus::Committed,
            FROZEN_TRANSACTION_ID => XidStatus::Frozen,
            _ => XidStatus::NotOnPage,
        },
    }
}

fn xmax_verdict(id: &ItemId, h: &HeapTupleHeader, blkno: u64) -> Xmax {
    let m = h.t_infomask;
    let m2 = h.t_infomask2;
    let xmax = h.t_xmax;
    let multi = m & HEAP_XMAX_IS_MULTI != 0;
    // HEAP_XMAX_IS_LOCKED_ONLY (htup_details.h).
    let lock_only = m & HEAP_XMAX_LOCK_ONLY != 0
        || (m & (HEAP_XMAX_IS_MULTI | HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK))
            == HEAP_XMAX_EXCL_LOCK;
    if xmax == 0 {
        return Xmax::None;
    }
    if m & HEAP_XMAX_INVALID != 0 {
        return Xmax::Invalid {
            xmax,
            multi,
            lock_only,
        };
    }
    if lock_only {
        return Xmax::Locked {
            xmax,
            multi,
            mode: lock_mode(m, m2),
        };
    }
    // A deleted row keeps its own ctid; an updated one points at the new
    // version. Our own offset in another block is either, seen under a
    // block number that may be wrong.
    let change = if h.t_ctid.offset == MOVED_PARTITIONS_OFFSET {
        Change::MovedToPartition
    } else if h.t_ctid.offset == id.lp && u64::from(h.t_ctid.block) == blkno {
        Change::Deleted
    } else if h.t_ctid.offset == id.lp {
        Change::DeletedOrUpdated
    } else {
        Change::Updated {
            next: h.t_ctid,
            hot: m2 & HEAP_HOT_UPDATED != 0,
        }
    };
    Xmax::Changed {
        xmax,
        multi,
        change,
        committed: m & HEAP_XMAX_COMMITTED != 0,
        xact: None,
    }
}

/// The row lock an xmax holds (heapam's HEAP_XMAX_IS_*_LOCKED macros).
fn lock_mode(m: u16, m2: u16) -> LockMode {
    let shr = HEAP_XMAX_KEYSHR_LOCK | HEAP_XMAX_EXCL_LOCK;
    if m & shr == shr {
        LockMode::ForShare
    } else if m & HEAP_XMAX_EXCL_LOCK != 0 {
        if m2 & HEAP_KEYS_UPDATED != 0 {
            LockMode::ForUpdate
        } else {
            LockMode::ForNoKeyUpdate
        }
    } else if m & HEAP_XMAX_KEYSHR_LOCK != 0 {
        LockMode::ForKeyShare
    } else {
        LockMode::InMultixactMembers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The verdict of line pointer `lp` (on block 0) with this header.
    fn verdict(lp: u16, xmin: u32, xmax: u32, ctid: (u32, u16), m: u16, m2: u16) -> String {
        let id = ItemId {
            lp,
            raw: 0,
            lp_off: 8000,
            lp_flags: LpFlags::Normal,
            lp_len: 28,
        };
        let t = HeapTuple {
            header: HeapTupleHeader {
                t_xmin: xmin,
                t_xmax: xmax,
                t_field3: 0,
                t_ctid: ItemPointer {
                    block: ctid.0,
                    offset: ctid.1,
                },
                t_infomask2: m2,
                t_infomask: m,
                t_hoff: 24,
            },
            t_bits: None,
            t_oid: None,
            data_offset: 8024,
            t_data: None,
            raw_flags: Default::default(),
            combined_flags: Default::default(),
        };
        tuple_verdict(&id, &t, 0).to_string()
    }

    #[test]
    fn hint_bits_decide_committed_and_aborted() {
        let v = verdict(1, 5, 0, (0, 1), HEAP_XMIN_COMMITTED | HEAP_XMAX_INVALID, 2);
        assert_eq!(v, "xmin 5 committed; xmax invalid: live");
        let v = verdict(1, 5, 0, (0, 1), HEAP_XMIN_INVALID | HEAP_XMAX_INVALID, 2);
        assert_eq!(v, "xmin 5 aborted; dead (insert aborted)");
        let frozen = HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID | HEAP_XMAX_INVALID;
        assert_eq!(
            verdict(1, 5, 0, (0, 1), frozen, 2),
            "xmin 5 frozen; xmax invalid: live"
        );
        // FrozenTransactionId needs no hint bit.
        assert!(verdict(1, 2, 0, (0, 1), HEAP_XMAX_INVALID, 2).starts_with("xmin 2 frozen"));
    }

    #[test]
    fn unhinted_xmin_is_not_on_the_page() {
        let v = verdict(1, 5, 0, (0, 1), HEAP_XMAX_INVALID, 2);
        assert_eq!(
            v,
            "xmin 5 (commit status not on the page); xmax invalid: live if 5 committed"
        );
    }

    #[test]
    fn unhinted_deletes_and_updates_are_conditional() {
        let v = verdict(4, 5, 7, (0, 4), HEAP_XMIN_COMMITTED, 0x2002);
        assert_eq!(
            v,
            "xmin 5 committed; deleted by 7 if 7 committed (commit status not on the page)"
        );
        let v = verdict(3, 5, 8, (0, 9), HEAP_XMIN_COMMITTED, 0x4003);
        assert_eq!(
            v,
            "xmin 5 committed; HOT-updated by 8 if 8 committed (commit status not on the page)"
        );
        let v = verdict(
            3,
            5,
            8,
            (0, 9),
            HEAP_XMIN_COMMITTED | HEAP_XMAX_COMMITTED,
            0x4003,
        );
        assert_eq!(
            v,
            "xmin 5 committed; HOT-updated by 8 committed; next version at (0,9)"
        );
        // Our own offset in another block: a delete under a wrong block number, or an update.
        let v = verdict(
            4,
            5,
            7,
            (3, 4),
            HEAP_XMIN_COMMITTED | HEAP_XMAX_COMMITTED,
            0x2002,
        );
        assert_eq!(v, "xmin 5 committed; deleted or updated by 7 committed");
    }

    #[test]
    fn a_rolled_back_update_leaves_the_old_version_live() {
        // HEAP_HOT_UPDATED and t_ctid stay after the abort; HEAP_XMAX_INVALID says it.
        let v = verdict(
            3,
            5,
            8,
            (0, 9),
            HEAP_XMIN_COMMITTED | HEAP_XMAX_INVALID,
            0x4003,
        );
        assert_eq!(v, "xmin 5 committed; xmax 8 aborted: live");
    }

    #[test]
    fn a_lock_only_xmax_is_a_lock() {
        let m = HEAP_XMIN_COMMITTED | HEAP_XMAX_LOCK_ONLY | HEAP_XMAX_EXCL_LOCK;
        assert_eq!(
            verdict(2, 5, 9, (0, 2), m, 0x2002),
            "xmin 5 committed; locked by 9 (FOR UPDATE), not deleted"
        );
        // Pre-9.3 form: HEAP_XMAX_EXCL_LOCK alone.
        let m = HEAP_XMIN_COMMITTED | HEAP_XMAX_EXCL_LOCK;
        assert!(verdict(2, 5, 9, (0, 2), m, 2).contains("locked by 9"));
        let m =
            HEAP_XMIN_COMMITTED | HEAP_XMAX_LOCK_ONLY | HEAP_XMAX_KEYSHR_LOCK | HEAP_XMAX_INVALID;
        assert_eq!(
            verdict(2, 5, 9, (0, 2), m, 2),
            "xmin 5 committed; lock by 9 ended: live"
        );
    }

    #[test]
    fn bits_are_lsb_first() {
        assert_eq!(bits_to_text(&[0b0000_0101]), "10100000");
        assert_eq!(bits_to_text(&[0xff, 0x01]), "1111111110000000");
    }
}
