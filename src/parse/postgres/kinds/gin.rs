//! GIN pages (ginblock.h, ginpostinglist.c): entry-tree tuples with their
//! posting lists or posting-tree roots, pending-list tuples, and posting-tree
//! (data) pages: internal `PostingItem`s and leaf posting-list segments.
//!
//! ```text
//!  entry tuple:  | t_tid: posting offset | 0x80000000 compressed, nposting (0xFFFF: posting tree root) |
//!                | t_info | [bitmap] | [attnum] key [null category] | posting list …
//!  data page:    | header | right bound (6, padded to 8) | PostingItem[] or GinPostingList segments |
//!  GinPostingList: | first (6) | nbytes (2) | varbyte deltas of (block << 11 | offset) … | (short-aligned)
//! ```

use crate::model::postgres::block_id;
use crate::model::postgres::index::{
    GinDataPage, GinPosting, GinSegment, IndexBody, IndexItem, KeyArea,
};
use crate::model::postgres::{
    maxalign, GinPageOpaque, ItemId, ItemPointer, LpFlags, PageHeader, PageLayout,
    SIZE_OF_PAGE_HEADER,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{ReadError, Reader};

use crate::model::postgres::flags::{
    GIN_COMPRESSED, GIN_DATA, GIN_DELETED, GIN_LEAF, GIN_LIST, GIN_META,
};
use crate::parse::postgres::itup::{
    empty_item, peek_tid, read_itup_header, read_tid, tuple_bounds, unreadable_item,
};

/// `GIN_TREE_POSTING`: nposting of an entry whose TIDs are in a posting tree.
const GIN_TREE_POSTING: u16 = 0xFFFF;
/// `GIN_ITUP_COMPRESSED`: high bit of the posting offset.
const GIN_ITUP_COMPRESSED: u32 = 1 << 31;
/// `MaxHeapTuplesPerPageBits`: offset bits of a TID packed into an integer.
const MAX_HEAP_TUPLES_PER_PAGE_BITS: u32 = 11;
/// sizeof(PostingItem): BlockIdData + ItemPointerData.
const SIZE_OF_POSTING_ITEM: usize = 10;
/// offsetof(GinPostingList, bytes).
const POSTING_LIST_HEADER: usize = 8;
/// More TIDs than an 8 kB… 32 kB page can hold mean a broken list.
const MAX_TIDS: usize = 1 << 16;

/// Decode a GIN page's items or data contents.
#[allow(clippy::too_many_arguments)]
pub(crate) fn parse(
    r: &mut Reader,
    h: &PageHeader,
    ids: &[ItemId],
    opaque: &GinPageOpaque,
    items: &mut Vec<IndexItem>,
    data: &mut Option<GinDataPage>,
    layout: PageLayout,
    problems: &mut Vec<Problem>,
) {
    let flags = opaque.flags;
    if flags & (GIN_META | GIN_DELETED) != 0 {
        return;
    }
    if flags & GIN_DATA != 0 {
        match data_page(r, h, opaque, items, problems) {
            Ok(d) => *data = Some(d),
            Err(e) => problems.push(Problem::new(
                Severity::Error,
                ProblemClass::Special,
                Some(e.offset),
                e.field.clone(),
                format!("cannot read the posting-tree page: {e}"),
            )),
        }
        return;
    }
    let leaf = flags & GIN_LEAF != 0;
    let list = flags & GIN_LIST != 0;
    for id in ids {
        let item = if !id.has_storage() {
            empty_item(*id)
        } else {
            match entry_tuple(r, *id, leaf, list, layout) {
                Ok(item) => item,
                Err(e) => unreadable_item(*id, &e, ProblemClass::Special, problems),
            }
        };
        items.push(item);
    }
}

fn entry_tuple(
    r: &mut Reader,
    id: ItemId,
    leaf: bool,
    list: bool,
    layout: PageLayout,
) -> Result<IndexItem, ReadError> {
    let (base, _) = tuple_bounds(r, &id)?;
    let owner = format!("item {}", id.lp);
    let tid_name = if list {
        "t_tid (heap TID)"
    } else if !leaf {
        "t_tid (downlink)"
    } else {
        "t_tid (posting offset, nposting)"
    };
    let header = read_itup_header(r, base, &owner, tid_name, layout)?;
    let size = usize::from(header.size);
    let tid = header.t_tid;
    let mut key_end = size;
    let posting = if list {
        GinPosting::Pending
    } else if !leaf {
        GinPosting::Downlink { block: tid.block }
    } else if tid.offset == GIN_TREE_POSTING {
        GinPosting::Tree { root: tid.block }
    } else {
        let offset = tid.block & !GIN_ITUP_COMPRESSED;
        let compressed = tid.block & GIN_ITUP_COMPRESSED != 0;
        let n = usize::from(tid.offset);
        let at = usize::try_from(offset).unwrap_or(usize::MAX);
        if at > size || at < header.data_offset {
            return Err(ReadError {
                field: "posting offset".into(),
                offset: base,
                needed: at,
                available: size,
            });
        }
        key_end = at;
        r.set_context(Region::TupleData, Some(owner.clone()));
        let tids = if n == 0 {
            Vec::new()
        } else if compressed {
            let nbytes = usize::from(r.peek_u16(base + at + 6, "nbytes")?);
            let end = (base + at + POSTING_LIST_HEADER + nbytes).min(base + size);
            let seg = decode_segments(r, base + at, end)?;
            seg.into_iter().flat_map(|s| s.tids).collect()
        } else {
            let mut v = Vec::with_capacity(n.min(size / 6 + 1));
            for i in 0..n {
                v.push(peek_tid(r, base + at + i * 6, "posting list")?);
            }
            r.mark(base + at, n * 6, "posting list", format!("{n} heap TIDs"));
            v
        };
        GinPosting::List {
            compressed,
            offset,
            tids,
        }
    };
    let category = if header.has_nulls {
        r.peek_u8(base + header.data_offset, "null category").ok()
    } else {
        None
    };
    let key_len = key_end.saturating_sub(header.data_offset);
    let key_data = r.peek(base + header.data_offset, key_len, "key")?.to_vec();
    if key_len > 0 {
        r.set_context(Region::TupleData, Some(owner.clone()));
        let what = match category {
            Some(1) => "null key (GIN_CAT_NULL_KEY)".to_string(),
            Some(2) => "empty item (GIN_CAT_EMPTY_ITEM)".to_string(),
            Some(3) => "null item (GIN_CAT_NULL_ITEM)".to_string(),
            _ => format!("{key_len} bytes"),
        };
        r.mark(base + header.data_offset, key_len, "key", what);
    }
    let dead = id.lp_flags == LpFlags::Dead;
    let verdict = match &posting {
        GinPosting::Pending => format!("pending entry for heap tuple {tid}"),
        GinPosting::Downlink { block } => format!("downlink to block {block}"),
        GinPosting::Tree { root } => {
            format!("key whose heap TIDs are in the posting tree at block {root}")
        }
        GinPosting::List {
            tids, compressed, ..
        } => format!(
            "posting list of {} heap TID{}{}",
            tids.len(),
            if tids.len() == 1 { "" } else { "s" },
            if *compressed { "" } else { " (uncompressed)" }
        ),
    } + if dead { " (dead)" } else { "" };
    let key_area = KeyArea {
        start: base + header.data_offset,
        len: key_len,
        bitmap: header.bitmap.clone(),
        skip_int2: false,
    };
    Ok(IndexItem {
        id,
        header: Some(header),
        body: IndexBody::GinEntry {
            attnum: None,
            key_data,
            category,
            posting,
        },
        tupstate: None,
        key_area: Some(key_area),
        keys: None,
        verdict,
    })
}

/// Whether the GIN page's tuples were laid out by a 32-bit build: as
/// [`crate::parse::postgres::itup::detect_max_align`] finds (some tuple at 4 mod 8), or, on
/// an entry leaf page whose tuples all sit at multiples of 8, by an entry
/// with a null bitmap whose posting list starts before offset 18. A 64-bit
/// build puts a null entry's posting list at SHORTALIGN of at least
/// MAXALIGN(8 + 4) + 1 (the null category byte after the data offset, and
/// after the int2 attnum of a multi-column index): 18 or later; a 32-bit
/// build's data offset is 12, its posting list at 14 or 16.
pub(crate) fn detect_max_align(r: &Reader, h: &PageHeader, ids: &[ItemId]) -> Option<Problem> {
    if let Some(note) = crate::parse::postgres::itup::detect_max_align(r, ids) {
        return Some(note);
    }
    let flags = r.peek_u16(usize::from(h.pd_special) + 6, "flags").ok()?;
    if flags & (GIN_DATA | GIN_LIST | GIN_META | GIN_DELETED) != 0 || flags & GIN_LEAF == 0 {
        return None;
    }
    let mut first = None;
    for id in ids.iter().filter(|id| id.has_storage()) {
        let (off, len) = (usize::from(id.lp_off), usize::from(id.lp_len));
        let t_info = r.peek_u16(off + 6, "t_info").ok()?;
        if id.lp_off % 4 != 0
            || len % 4 != 0
            || len < 16
            || usize::from(t_info & crate::parse::postgres::itup::INDEX_SIZE_MASK) != len
        {
            return None;
        }
        let posid = r.peek_u16(off + 4, "ip_posid").ok()?;
        let at = r.peek_block_id(off, "ip_blkid").ok()? & !GIN_ITUP_COMPRESSED;
        if first.is_none()
            && id.lp_flags == LpFlags::Normal
            && t_info & crate::parse::postgres::itup::INDEX_NULL_MASK != 0
            && posid != GIN_TREE_POSTING
            && (12..18).contains(&at)
        {
            first = Some((id.lp, at));
        }
    }
    let (lp, at) = first?;
    Some(
        Problem::new(
            Severity::Info,
            ProblemClass::LinePointer,
            Some(crate::parse::postgres::layout::item_id_offset(usize::from(
                lp,
            ))),
            format!("lp[{lp}]"),
            format!(
            "index tuples laid out by a 32-bit build (MAXALIGN 4): lp[{lp}] is an entry with a \
             null bitmap whose posting list starts at {at} (a 64-bit build's start at 18 or \
             later), and all tuples start at multiples of 4 with IndexTupleSize equal to lp_len; \
             decoded with 4-byte MAXALIGN"
        ),
        )
        .about_item(lp),
    )
}

/// `decode_varbyte`: 7 bits a byte, low first, the high bit saying more
/// follow; the seventh byte is taken whole. Returns the value and the bytes used.
fn decode_varbyte(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut val = 0u64;
    for i in 0..7 {
        let c = u64::from(*bytes.get(i)?);
        if i == 6 {
            val |= c << 42;
            return Some((val, 7));
        }
        val |= (c & 0x7F) << (7 * i);
        if c & 0x80 == 0 {
            return Some((val, i + 1));
        }
    }
    None
}

/// `ginPostingListDecodeAllSegments` over `start..end` of the page.
fn decode_segments(r: &mut Reader, start: usize, end: usize) -> Result<Vec<GinSegment>, ReadError> {
    let mut segments = Vec::new();
    let mut at = start;
    let mut total = 0usize;
    while at + POSTING_LIST_HEADER <= end {
        let first = read_tid(r, at, "first")?;
        let nbytes = r.u16(at + 6, "nbytes")?;
        let bytes = r.bytes(
            at + POSTING_LIST_HEADER,
            usize::from(nbytes),
            "varbyte deltas",
        )?;
        let mut tids = vec![first];
        let mut val =
            (u64::from(first.block) << MAX_HEAP_TUPLES_PER_PAGE_BITS) | u64::from(first.offset);
        let mut p = 0usize;
        while p < bytes.len() && total + tids.len() < MAX_TIDS {
            let Some((delta, used)) = decode_varbyte(&bytes[p..]) else {
                break;
            };
            p += used;
            val = val.wrapping_add(delta);
            tids.push(ItemPointer {
                block: (val >> MAX_HEAP_TUPLES_PER_PAGE_BITS) as u32,
                offset: (val & ((1 << MAX_HEAP_TUPLES_PER_PAGE_BITS) - 1)) as u16,
            });
        }
        r.show_last(format!("{} heap TIDs after the first", tids.len() - 1));
        total += tids.len();
        segments.push(GinSegment {
            offset: at,
            first_tid: first,
            nbytes,
            tids,
        });
        // SizeOfGinPostingList: header plus SHORTALIGN(nbytes).
        at += POSTING_LIST_HEADER + ((usize::from(nbytes) + 1) & !1);
        if total >= MAX_TIDS {
            break;
        }
    }
    Ok(segments)
}

/// A posting-tree page: the right bound, then PostingItems (internal),
/// GinPostingList segments (compressed leaf) or ItemPointers (old leaf).
fn data_page(
    r: &mut Reader,
    h: &PageHeader,
    opaque: &GinPageOpaque,
    items: &mut Vec<IndexItem>,
    problems: &mut Vec<Problem>,
) -> Result<GinDataPage, ReadError> {
    r.set_context(Region::TupleData, Some("GIN data page".into()));
    let right_bound = read_tid(r, SIZE_OF_PAGE_HEADER, "right bound")?;
    let contents = maxalign(SIZE_OF_PAGE_HEADER) + maxalign(6);
    let mut page = GinDataPage {
        right_bound,
        segments: Vec::new(),
        plain_tids: Vec::new(),
    };
    let leaf = opaque.flags & GIN_LEAF != 0;
    if leaf && opaque.flags & GIN_COMPRESSED != 0 {
        r.set_context(Region::TupleData, Some("posting list".into()));
        let end = usize::from(h.pd_lower).min(r.len());
        page.segments = decode_segments(r, contents, end)?;
    } else if leaf {
        let n = usize::from(opaque.maxoff);
        for i in 0..n {
            page.plain_tids
                .push(read_tid(r, contents + i * 6, "heap TID")?);
        }
    } else {
        let n = usize::from(opaque.maxoff);
        let room = r.len().saturating_sub(contents) / SIZE_OF_POSTING_ITEM;
        if n > room {
            problems.push(Problem::new(
                Severity::Error,
                ProblemClass::Special,
                Some(usize::from(h.pd_special) + 4),
                "maxoff",
                format!("maxoff claims {n} posting items, only {room} fit in the page"),
            ));
        }
        for i in 0..n.min(room) {
            let at = contents + i * SIZE_OF_POSTING_ITEM;
            r.set_context(Region::TupleData, Some(format!("PostingItem {}", i + 1)));
            let hi = r.peek_u16(at, "child_blkno")?;
            let lo = r.peek_u16(at + 2, "child_blkno")?;
            let child = block_id(hi, lo);
            r.mark(at, 4, "child_blkno", child.to_string());
            let key = read_tid(r, at + 4, "key")?;
            let lp = (i + 1) as u16;
            items.push(IndexItem {
                id: ItemId {
                    lp,
                    raw: 0,
                    lp_off: at as u16,
                    lp_flags: LpFlags::Normal,
                    lp_len: SIZE_OF_POSTING_ITEM as u16,
                },
                header: None,
                body: IndexBody::GinPostingItem {
                    child_blkno: child,
                    key,
                },
                tupstate: None,
                key_area: None,
                keys: None,
                verdict: if key.block == 0 && key.offset == 0 {
                    format!("downlink to block {child} (rightmost: no upper bound)")
                } else {
                    format!("downlink to block {child}, heap TIDs up to {key}")
                },
            });
        }
    }
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varbytes_decode_as_ginpostinglist_encodes_them() {
        assert_eq!(decode_varbyte(&[0x05]), Some((5, 1)));
        assert_eq!(decode_varbyte(&[0x81, 0x01]), Some((129, 2)));
        assert_eq!(decode_varbyte(&[0xFF, 0x7F]), Some((16383, 2)));
        assert_eq!(decode_varbyte(&[0x80]), None);
        let seven = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x03];
        assert_eq!(decode_varbyte(&seven), Some((3 << 42, 7)));
    }
}
