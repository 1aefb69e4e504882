//! The `IndexTupleData` header (itup.h) every index access method's tuples
//! start with, its item pointer, and the 32-bit build evidence of index
//! tuples: the shared leaf below the access-method parsers (btree, hash,
//! GiST, GIN, SP-GiST, BRIN). Depends only on [`super::layout`].

use crate::model::postgres::block_id;
use crate::model::postgres::index::{IndexBody, IndexItem, IndexTupleHeader};
use crate::model::postgres::{ItemId, ItemPointer, LpFlags, PageLayout, SIZE_OF_PAGE_HEADER};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{ReadError, Reader};

use super::layout;
pub(crate) use crate::model::postgres::flags::{
    INDEX_AM_RESERVED_BIT, INDEX_NULL_MASK, INDEX_SIZE_MASK, INDEX_VAR_MASK,
};

/// sizeof(IndexTupleData).
pub(crate) const SIZE_OF_INDEX_TUPLE: usize = crate::model::postgres::disk::index_tuple::SIZE;

/// sizeof(IndexAttributeBitMapData).
pub(crate) const SIZE_OF_INDEX_BITMAP: usize = 4;

/// An ItemPointerData at `at`, not recorded.
pub(crate) fn peek_tid(r: &Reader, at: usize, field: &str) -> Result<ItemPointer, ReadError> {
    let hi = r.peek_u16(at, field)?;
    let lo = r.peek_u16(at + 2, field)?;
    Ok(ItemPointer {
        block: block_id(hi, lo),
        offset: r.peek_u16(at + 4, field)?,
    })
}

/// An ItemPointerData at `at`, recorded as a span named `field`.
pub(crate) fn read_tid(r: &mut Reader, at: usize, field: &str) -> Result<ItemPointer, ReadError> {
    let tid = peek_tid(r, at, field)?;
    r.mark(at, 6, field, tid.to_string());
    Ok(tid)
}

/// The `IndexTupleData` header at `base` (and its null bitmap), recorded.
pub(crate) fn read_itup_header(
    r: &mut Reader,
    base: usize,
    owner: &str,
    tid_name: &str,
    layout: PageLayout,
) -> Result<IndexTupleHeader, ReadError> {
    r.set_context(Region::TupleHeader, Some(owner.to_string()));
    let t_tid = read_tid(r, base, tid_name)?;
    let t_info = r.u16(base + 6, "t_info")?;
    let size = t_info & INDEX_SIZE_MASK;
    let has_nulls = t_info & INDEX_NULL_MASK != 0;
    let has_varwidth = t_info & INDEX_VAR_MASK != 0;
    let mut bits = Vec::new();
    if has_nulls {
        bits.push("has nulls");
    }
    if has_varwidth {
        bits.push("varwidth");
    }
    if t_info & INDEX_AM_RESERVED_BIT != 0 {
        bits.push("AM bit");
    }
    r.show_last(format!(
        "0x{t_info:04x} size {size}{}{}",
        if bits.is_empty() { "" } else { ", " },
        bits.join(", ")
    ));
    let bitmap = if has_nulls {
        let b = r
            .bytes(
                base + SIZE_OF_INDEX_TUPLE,
                SIZE_OF_INDEX_BITMAP,
                "null bitmap",
            )?
            .to_vec();
        r.show_last(
            b.iter()
                .map(|x| format!("{x:08b}"))
                .collect::<Vec<_>>()
                .join(" "),
        );
        Some(b)
    } else {
        None
    };
    // IndexInfoFindDataOffset
    let data_offset = if has_nulls {
        layout.maxalign(SIZE_OF_INDEX_TUPLE + SIZE_OF_INDEX_BITMAP)
    } else {
        layout.maxalign(SIZE_OF_INDEX_TUPLE)
    };
    Ok(IndexTupleHeader {
        t_tid,
        t_info,
        size,
        has_nulls,
        has_varwidth,
        am_bit: t_info & INDEX_AM_RESERVED_BIT != 0,
        bitmap,
        data_offset,
    })
}

/// An item without a tuple to read: unused, or dead without storage.
pub(crate) fn empty_item(id: ItemId) -> IndexItem {
    let verdict = match id.lp_flags {
        LpFlags::Unused => "unused".to_string(),
        f => format!("{} without storage", f.short().to_lowercase()),
    };
    IndexItem {
        id,
        header: None,
        body: IndexBody::None,
        tupstate: None,
        key_area: None,
        keys: None,
        verdict,
    }
}

/// An item whose tuple could not be read, and the problem saying so.
pub(crate) fn unreadable_item(
    id: ItemId,
    e: &ReadError,
    class: ProblemClass,
    problems: &mut Vec<Problem>,
) -> IndexItem {
    problems.push(Problem::new(
        Severity::Error,
        class,
        Some(e.offset),
        format!("item {} {}", id.lp, e.field),
        e.to_string(),
    ));
    IndexItem {
        id,
        header: None,
        body: IndexBody::Unreadable {
            reason: e.to_string(),
        },
        tupstate: None,
        key_area: None,
        keys: None,
        verdict: "unreadable index tuple".to_string(),
    }
}

/// The tuple of `id` must lie inside the page: else an error.
pub(crate) fn tuple_bounds(r: &Reader, id: &ItemId) -> Result<(usize, usize), ReadError> {
    let start = usize::from(id.lp_off);
    let len = usize::from(id.lp_len);
    if start < SIZE_OF_PAGE_HEADER || start + len > r.len() {
        return Err(ReadError {
            field: "lp_off".into(),
            offset: start,
            needed: len,
            available: r.len().saturating_sub(start),
        });
    }
    Ok((start, len))
}

/// IndexTupleSize must agree with lp_len: else a problem.
pub(crate) fn size_check(
    h: &IndexTupleHeader,
    id: &ItemId,
    class: ProblemClass,
    problems: &mut Vec<Problem>,
) {
    if h.size != id.lp_len {
        problems.push(Problem::new(
            Severity::Error,
            class,
            Some(usize::from(id.lp_off) + 6),
            format!("item {} t_info", id.lp),
            format!(
                "IndexTupleSize {} disagrees with lp_len {}",
                h.size, id.lp_len
            ),
        ));
    }
}

/// Whether the btree page's index tuples were laid out by a 32-bit build
/// (MAXIMUM_ALIGNOF 4): then a note saying how that was told, else `None`.
///
/// A 64-bit build MAXALIGNs every index tuple's size and offset to 8, so an
/// item at an lp_off of 4 mod 8 is never written by one. A 32-bit build packs
/// tuples at multiples of 4, and its tuples' sizes are multiples of 4. The
/// page is read as 32-bit only when some normal item sits at 4 mod 8 and
/// every item with storage sits at a multiple of 4, is a multiple of 4 long,
/// at least an IndexTupleData long, and has an IndexTupleSize equal to its
/// lp_len. Pages whose tuples all happen to sit at multiples of 8 cannot be
/// told apart this way (and decode the same, except for keys after a null
/// bitmap).
pub(crate) fn detect_max_align(r: &Reader, ids: &[ItemId]) -> Option<Problem> {
    layout::four_byte_maxalign(
        ids,
        ItemId::has_storage,
        |id| {
            let (off, len) = (usize::from(id.lp_off), usize::from(id.lp_len));
            len % 4 == 0
                && len >= SIZE_OF_INDEX_TUPLE
                && r.peek_u16(off + 6, "t_info")
                    .is_ok_and(|t_info| usize::from(t_info & INDEX_SIZE_MASK) == len)
        },
        "index tuples",
        "index tuples",
        "with IndexTupleSize equal to lp_len; decoded with 4-byte MAXALIGN",
    )
}
