//! Btree pages (nbtree.h): the metapage, `BTPageOpaqueData`, and index tuples
//! decoded the way pageinspect's `bt_metap`, `bt_page_stats` and
//! `bt_page_items` present them.
//!
//! ```text
//!  IndexTupleData: | t_tid (6) | t_info (2) | [null bitmap, padded] | key data … | [posting list | pivot heap TID]
//!  t_info: bits 0-12 size, 0x2000 INDEX_ALT_TID_MASK (pivot/posting), 0x4000 varwidth, 0x8000 has nulls
//! ```

use crate::model::postgres::block_id;
use crate::model::postgres::{
    AmData, BtIndexTuple, BtItem, BtMetaPageData, BtPageOpaque, BtPageStats, BtTupleRole, ItemId,
    ItemPointer, LpFlags, PageHeader, PageLayout, SIZE_OF_PAGE_HEADER,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{ReadError, Reader};

use crate::model::postgres::flags;
pub(crate) use crate::model::postgres::flags::BTREE_MAGIC;
pub(crate) use crate::model::postgres::flags::{
    BTP_DELETED, BTP_HALF_DEAD, BTP_HAS_FULLXID, BTP_LEAF, BTP_META, BTP_ROOT,
};
use crate::model::postgres::flags::{
    BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, P_NONE,
};
use crate::model::postgres::flags::{
    INDEX_ALT_TID_MASK, INDEX_NULL_MASK, INDEX_SIZE_MASK, INDEX_VAR_MASK,
};

/// `BTREE_NOVAC_VERSION`: first version with the cleanup fields.
const BTREE_NOVAC_VERSION: u32 = 3;
/// `P_HIKEY`.
const P_HIKEY: u16 = 1;

/// sizeof(IndexTupleData).
const SIZE_OF_INDEX_TUPLE: usize = crate::model::postgres::disk::index_tuple::SIZE;
/// sizeof(IndexAttributeBitMapData): INDEX_MAX_KEYS / 8.
const SIZE_OF_INDEX_BITMAP: usize = 4;
const SIZE_OF_ITEM_POINTER: usize = 6;

/// Decode the special space, metapage or items of a btree page (block
/// `blkno` of its relation), judged by the btree checks below ([`btree_opaque`], [`btm_magic`]).
pub(crate) fn parse(
    r: &mut Reader,
    h: &PageHeader,
    ids: &[ItemId],
    blkno: u64,
    layout: PageLayout,
    problems: &mut Vec<Problem>,
) -> Result<AmData, ReadError> {
    let special = usize::from(h.pd_special);
    let opaque = read_opaque(r, special)?;
    btree_opaque(&opaque, special, blkno, Relation::default(), problems);

    if opaque.btpo_flags & BTP_META != 0 {
        let meta = read_meta(r, layout)?;
        btm_magic(meta.btm_magic, problems);
        return Ok(AmData::Btree {
            opaque,
            meta: Some(meta),
            stats: None,
            safexid: None,
            items: Vec::new(),
        });
    }

    let deleted = opaque.btpo_flags & BTP_DELETED != 0;
    let full_xid = opaque.btpo_flags & BTP_HAS_FULLXID != 0;
    let mut safexid = None;
    let mut items = Vec::new();
    if deleted && full_xid {
        {
            // BTDeletedPageData: a FullTransactionId at the start of the contents.
            r.set_context(Region::TupleData, None);
            // A uint64 in the host's byte order (the high word first on big-endian).
            let full = r.peek_u64(SIZE_OF_PAGE_HEADER, "safexid")?;
            let (hi, lo) = (full >> 32, full & 0xFFFF_FFFF);
            r.mark(
                SIZE_OF_PAGE_HEADER,
                8,
                "safexid",
                format!("{full} (epoch {hi}, xid {lo})"),
            );
            safexid = Some(full);
        }
    } else {
        let leaf = opaque.btpo_flags & BTP_LEAF != 0;
        let rightmost = opaque.btpo_next == P_NONE;
        // A half-dead leaf (and, before PostgreSQL 14, a deleted page, which
        // keeps what it held when half-dead) stores the top parent of the
        // subtree being deleted in its high key's t_tid.
        let unlinking = opaque.btpo_flags & (BTP_HALF_DEAD | BTP_DELETED) != 0;
        for id in ids {
            items.push(parse_item(
                r, *id, leaf, rightmost, unlinking, layout, problems,
            ));
        }
    }
    let stats = page_stats(h, &opaque, &items);
    Ok(AmData::Btree {
        opaque,
        meta: None,
        stats: Some(stats),
        safexid,
        items,
    })
}

/// A btree metapage has no items to tell the build by, but PostgreSQL 11 and
/// later set its pd_lower to the end of `BTMetaPageData`, whose float8
/// `btm_last_cleanup_num_heap_tuples` follows seven uint32 (28 bytes): at 32
/// on a 64-bit build, at 28 on a 32-bit one (ALIGNOF_DOUBLE 4). sizeof is
/// 40 (version 3, or 4 as PostgreSQL 12 writes it) or 48 (with
/// `btm_allequalimage`, 13 and later) on a 64-bit build; 36 or 40 on a
/// 32-bit one. So pd_lower 24 + 36 = 60 is a 32-bit build's; pd_lower 64 is
/// either a 64-bit PostgreSQL 12's or a 32-bit 13+'s, told apart by the
/// bytes: a 64-bit build leaves 28..32 zero (padding) and holds the
/// float's high word at 36, never 0 or 1 for a count; a 32-bit build holds
/// the float's low word at 28 and high word at 32, and the bool at 36. When
/// 28..40 are all zero the two readings agree (0, false): read as 64-bit.
pub(crate) fn detect_meta_max_align(r: &Reader, h: &PageHeader) -> Option<Problem> {
    let special = usize::from(h.pd_special);
    if r.peek_u16(special + 12, "btpo_flags").ok()? & BTP_META == 0 {
        return None;
    }
    let at = SIZE_OF_PAGE_HEADER;
    let word = |off: usize| r.peek_u32(at + off, "BTMetaPageData").ok();
    if word(0)? != BTREE_MAGIC || word(4)? < BTREE_NOVAC_VERSION {
        return None;
    }
    let why = match usize::from(h.pd_lower) - at.min(usize::from(h.pd_lower)) {
        36 => "pd_lower ends BTMetaPageData 36 bytes in (40 on a 64-bit build)",
        40 if word(4)? > BTREE_NOVAC_VERSION => {
            let (w28, w32, w36) = (word(28)?, word(32)?, word(36)?);
            if !(w28 != 0 || (w36 <= 1 && (w32 != 0 || w36 == 1))) {
                return None;
            }
            "pd_lower ends BTMetaPageData 40 bytes in (48 on a 64-bit build), and \
             btm_last_cleanup_num_heap_tuples is at 28, not 32"
        }
        _ => return None,
    };
    Some(Problem::new(
        Severity::Info,
        ProblemClass::Special,
        Some(12),
        "pd_lower",
        format!(
            "metapage laid out by a 32-bit build (a float8 aligned to 4): {why}; \
             decoded with 4-byte MAXALIGN"
        ),
    ))
}

fn read_opaque(r: &mut Reader, special: usize) -> Result<BtPageOpaque, ReadError> {
    r.set_context(Region::Special, Some("BTPageOpaqueData".into()));
    let btpo_prev = r.u32(special, "btpo_prev")?;
    let btpo_next = r.u32(special + 4, "btpo_next")?;
    let btpo_level = r.u32(special + 8, "btpo_level")?;
    let btpo_flags = r.u16(special + 12, "btpo_flags")?;
    r.show_last(format!(
        "0x{btpo_flags:04x} {}",
        flags::join(btpo_flags, flags::BTPO_FLAGS, 0xFFFF)
    ));
    let btpo_cycleid = r.u16(special + 14, "btpo_cycleid")?;
    Ok(BtPageOpaque {
        btpo_prev,
        btpo_next,
        btpo_level,
        btpo_flags,
        btpo_cycleid,
    })
}

fn read_meta(r: &mut Reader, layout: PageLayout) -> Result<BtMetaPageData, ReadError> {
    let at = SIZE_OF_PAGE_HEADER;
    r.set_context(Region::TupleData, Some("BTMetaPageData".into()));
    let btm_magic = r.u32(at, "btm_magic")?;
    r.show_last(format!("0x{btm_magic:06x}"));
    let btm_version = r.u32(at + 4, "btm_version")?;
    let btm_root = r.u32(at + 8, "btm_root")?;
    let btm_level = r.u32(at + 12, "btm_level")?;
    let btm_fastroot = r.u32(at + 16, "btm_fastroot")?;
    let btm_fastlevel = r.u32(at + 20, "btm_fastlevel")?;
    let mut meta = BtMetaPageData {
        btm_magic,
        btm_version,
        btm_root,
        btm_level,
        btm_fastroot,
        btm_fastlevel,
        btm_last_cleanup_num_delpages: 0,
        btm_last_cleanup_num_heap_tuples: -1.0,
        btm_allequalimage: false,
    };
    if btm_version >= BTREE_NOVAC_VERSION {
        // Version 3 (PostgreSQL 11) names this word btm_oldest_btpo_xact;
        // PostgreSQL 14 renamed it (a version 4 metapage written by 12 or 13
        // holds the xid there too).
        let name = if btm_version == BTREE_NOVAC_VERSION {
            "btm_oldest_btpo_xact"
        } else {
            "btm_last_cleanup_num_delpages"
        };
        meta.btm_last_cleanup_num_delpages = r.u32(at + 24, name)?;
        // A float8 in the host's byte order, after the seven uint32: at 32
        // (8-aligned), or at 28 on a 32-bit build (ALIGNOF_DOUBLE 4).
        let float_at = at + if layout.max_align < 8 { 28 } else { 32 };
        let bits = r.peek_u64(float_at, "btm_last_cleanup_num_heap_tuples")?;
        meta.btm_last_cleanup_num_heap_tuples = f64::from_bits(bits);
        r.mark(
            float_at,
            8,
            "btm_last_cleanup_num_heap_tuples",
            meta.btm_last_cleanup_num_heap_tuples.to_string(),
        );
        if btm_version > BTREE_NOVAC_VERSION {
            meta.btm_allequalimage = r.u8(float_at + 8, "btm_allequalimage")? != 0;
        }
    }
    Ok(meta)
}

fn parse_item(
    r: &mut Reader,
    id: ItemId,
    leaf: bool,
    rightmost: bool,
    unlinking: bool,
    layout: PageLayout,
    problems: &mut Vec<Problem>,
) -> BtItem {
    if !id.has_storage() {
        return BtItem {
            id,
            tuple: None,
            verdict: format!("{} without storage", id.lp_flags.short().to_lowercase()),
            keys: None,
        };
    }
    match read_index_tuple(r, &id, leaf, rightmost, layout) {
        Ok(t) => {
            let verdict = if unlinking && leaf && t.role == BtTupleRole::HighKey {
                top_parent(&t)
            } else {
                describe(&t, id.lp, leaf)
            };
            if usize::from(t.itemlen) != usize::from(id.lp_len) {
                problems.push(Problem::new(
                    Severity::Error,
                    ProblemClass::Btree,
                    Some(usize::from(id.lp_off) + 6),
                    format!("item {} t_info", id.lp),
                    format!(
                        "IndexTupleSize {} disagrees with lp_len {}",
                        t.itemlen, id.lp_len
                    ),
                ));
            }
            BtItem {
                id,
                tuple: Some(t),
                verdict,
                keys: None,
            }
        }
        Err(e) => {
            problems.push(Problem::new(
                Severity::Error,
                ProblemClass::Btree,
                Some(e.offset),
                format!("item {} {}", id.lp, e.field),
                e.to_string(),
            ));
            BtItem {
                id,
                tuple: None,
                verdict: "unreadable index tuple".to_string(),
                keys: None,
            }
        }
    }
}

fn read_tid(r: &Reader, at: usize, field: &str) -> Result<ItemPointer, ReadError> {
    let hi = r.peek_u16(at, field)?;
    let lo = r.peek_u16(at + 2, field)?;
    let posid = r.peek_u16(at + 4, field)?;
    Ok(ItemPointer {
        block: block_id(hi, lo),
        offset: posid,
    })
}

fn read_index_tuple(
    r: &mut Reader,
    id: &ItemId,
    leaf: bool,
    rightmost: bool,
    layout: PageLayout,
) -> Result<BtIndexTuple, ReadError> {
    let base = usize::from(id.lp_off);
    r.set_context(Region::TupleHeader, Some(format!("item {}", id.lp)));
    let t_tid = read_tid(r, base, "t_tid")?;
    r.mark(base, SIZE_OF_ITEM_POINTER, "t_tid", t_tid.to_string());
    let t_info = r.u16(base + 6, "t_info")?;
    let itemlen = t_info & INDEX_SIZE_MASK;
    r.show_last(format!("0x{t_info:04x} size {itemlen}"));
    let size = usize::from(itemlen);
    let nulls = t_info & INDEX_NULL_MASK != 0;
    let vars = t_info & INDEX_VAR_MASK != 0;
    let alt_tid = t_info & INDEX_ALT_TID_MASK != 0;
    let is_posting = alt_tid && t_tid.offset & BT_IS_POSTING != 0;
    let is_pivot = alt_tid && !is_posting;

    // IndexInfoFindDataOffset, with the writing build's MAXALIGN (12 with
    // a null bitmap on a 32-bit build, 16 on a 64-bit one).
    let data_off = if nulls {
        layout.maxalign(SIZE_OF_INDEX_TUPLE + SIZE_OF_INDEX_BITMAP)
    } else {
        layout.maxalign(SIZE_OF_INDEX_TUPLE)
    };
    if nulls {
        r.bytes(
            base + SIZE_OF_INDEX_TUPLE,
            SIZE_OF_INDEX_BITMAP,
            "null bitmap",
        )?;
    }
    let pivot_heap_tid = is_pivot && t_tid.offset & BT_PIVOT_HEAP_TID_ATTR != 0;
    let posting_off = usize::try_from(t_tid.block).unwrap_or(usize::MAX);
    let ntids = t_tid.offset & BT_OFFSET_MASK;
    let data_end = if is_posting {
        posting_off
    } else if pivot_heap_tid {
        size.saturating_sub(layout.maxalign(SIZE_OF_ITEM_POINTER))
    } else {
        size
    };
    if data_end < data_off || size < data_off {
        return Err(ReadError {
            field: "t_info".into(),
            offset: base + 6,
            needed: data_off,
            available: data_end,
        });
    }
    r.set_context(Region::TupleData, Some(format!("item {}", id.lp)));
    let data = r
        .bytes(base + data_off, data_end - data_off, "key data")?
        .to_vec();
    r.show_last(format!("{} bytes", data.len()));

    let mut tids = None;
    let mut htid = None;
    if is_posting {
        let n = usize::from(ntids);
        let mut list = Vec::with_capacity(n.min(size / SIZE_OF_ITEM_POINTER + 1));
        let start = base + posting_off;
        r.bytes(start, n * SIZE_OF_ITEM_POINTER, "posting list")?;
        r.show_last(format!("{n} heap TIDs"));
        for i in 0..n {
            list.push(read_tid(
                r,
                start + i * SIZE_OF_ITEM_POINTER,
                "posting list",
            )?);
        }
        htid = list.first().copied();
        tids = Some(list);
    } else if is_pivot {
        if pivot_heap_tid {
            let at = base + size - SIZE_OF_ITEM_POINTER;
            let tid = read_tid(r, at, "pivot heap TID")?;
            r.mark(at, SIZE_OF_ITEM_POINTER, "pivot heap TID", tid.to_string());
            htid = Some(tid);
        }
    } else {
        htid = Some(t_tid);
    }

    let pivot_position = !leaf || (!rightmost && id.lp == P_HIKEY);
    if pivot_position && !is_pivot {
        // A !heapkeyspace (version 2/3) pivot: its t_tid is no heap TID.
        htid = None;
    }
    let dead = (!pivot_position).then_some(id.lp_flags == LpFlags::Dead);
    let role = if leaf && pivot_position {
        BtTupleRole::HighKey
    } else if !leaf {
        BtTupleRole::Downlink { block: t_tid.block }
    } else if is_posting {
        BtTupleRole::Posting { ntids }
    } else {
        BtTupleRole::Leaf
    };
    Ok(BtIndexTuple {
        t_tid,
        t_info,
        itemlen,
        nulls,
        vars,
        data,
        dead,
        htid,
        tids,
        pivot_natts: is_pivot.then_some(t_tid.offset & BT_OFFSET_MASK),
        role,
    })
}

/// The high key of a half-dead leaf (or of a page deleted before PostgreSQL
/// 14): its t_tid block is the top parent link (`BTreeTupleGetTopParent`),
/// InvalidBlockNumber when the leaf itself is the top of the subtree.
fn top_parent(t: &BtIndexTuple) -> String {
    if t.t_tid.block == u32::MAX {
        "high key of a page being deleted: top parent link none (InvalidBlockNumber: the leaf is the top of the subtree being removed)".to_string()
    } else {
        format!(
            "high key of a page being deleted: top parent link to block {} (the topmost internal page of the subtree being removed)",
            t.t_tid.block
        )
    }
}

/// Plain words for an index tuple.
fn describe(t: &BtIndexTuple, lp: u16, leaf: bool) -> String {
    let keys = match t.pivot_natts {
        Some(0) => "no key attributes (minus infinity)".to_string(),
        Some(n) => format!("{n} key attribute{}", if n == 1 { "" } else { "s" }),
        None => String::new(),
    };
    let heap = match (&t.role, t.htid) {
        (BtTupleRole::HighKey | BtTupleRole::Downlink { .. }, Some(h)) => {
            format!(", heap TID {h} kept")
        }
        _ => String::new(),
    };
    match &t.role {
        BtTupleRole::HighKey => format!("high key: {keys}{heap}"),
        BtTupleRole::Downlink { block } if lp == 1 || t.pivot_natts == Some(0) => {
            format!("downlink to block {block} (minus infinity)")
        }
        BtTupleRole::Downlink { block } => format!("downlink to block {block}: {keys}{heap}"),
        BtTupleRole::Posting { ntids } => format!(
            "posting list of {ntids} heap TIDs{}",
            if t.dead == Some(true) { " (dead)" } else { "" }
        ),
        BtTupleRole::Leaf if leaf => format!(
            "points to heap tuple {}{}",
            t.t_tid,
            if t.dead == Some(true) { " (dead)" } else { "" }
        ),
        BtTupleRole::Leaf => "index tuple".to_string(),
    }
}

/// `GetBTPageStatistics` (pageinspect btreefuncs.c).
fn page_stats(h: &PageHeader, o: &BtPageOpaque, items: &[BtItem]) -> BtPageStats {
    let deleted = o.btpo_flags & BTP_DELETED != 0;
    let page_type = if deleted {
        if o.btpo_flags & BTP_LEAF != 0 || o.btpo_flags & BTP_HAS_FULLXID == 0 {
            'd'
        } else {
            'D'
        }
    } else if o.btpo_flags & BTP_HALF_DEAD != 0 {
        'e'
    } else if o.btpo_flags & BTP_LEAF != 0 {
        'l'
    } else if o.btpo_flags & BTP_ROOT != 0 {
        'r'
    } else {
        'i'
    };
    let mut live = 0u32;
    let mut dead = 0u32;
    let mut total = 0u32;
    // Before PostgreSQL 14 a deleted page keeps its high key, but
    // GetBTPageStatistics counts no items on a deleted page.
    let counted = if deleted { &[][..] } else { items };
    for item in counted {
        if let Some(t) = &item.tuple {
            total += u32::from(t.itemlen);
        }
        if item.id.lp_flags == LpFlags::Dead {
            dead += 1;
        } else {
            live += 1;
        }
    }
    let count = live + dead;
    // PageGetFreeSpace: pd_upper − pd_lower − sizeof(ItemIdData), not below 0.
    let space = i64::from(h.pd_upper) - i64::from(h.pd_lower);
    let free_size = if space < 4 { 0 } else { (space - 4) as u32 };
    BtPageStats {
        page_type,
        live_items: live,
        dead_items: dead,
        avg_item_size: total.checked_div(count).unwrap_or(0),
        page_size: u32::try_from(h.page_size()).unwrap_or(u32::MAX),
        free_size,
    }
}

/// `BTPageOpaqueData` (nbtree.h): btpo_prev, btpo_next, btpo_level,
/// btpo_flags, btpo_cycleid.
pub(crate) const BT_OPAQUE_SIZE: usize = crate::model::postgres::disk::bt_page_opaque::SIZE;

/// What is known about the relation a page comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Relation {
    /// Block 0 of the relation is a btree metapage: every page should be a
    /// btree page, and block 0 the metapage.
    pub btree_index: bool,
}

/// The btree checks of a page whose special space is a `BTPageOpaqueData`,
/// read without spans.
pub(crate) fn btree_page(
    r: &Reader,
    h: &PageHeader,
    blkno: u64,
    rel: Relation,
    problems: &mut Vec<Problem>,
) {
    let special = usize::from(h.pd_special);
    let Ok(o) = peek_btree_opaque(r, special) else {
        return;
    };
    btree_opaque(&o, special, blkno, rel, problems);
    if o.btpo_flags & BTP_META != 0 {
        if let Ok(magic) = r.peek_u32(SIZE_OF_PAGE_HEADER, "btm_magic") {
            btm_magic(magic, problems);
        }
    }
}

fn peek_btree_opaque(r: &Reader, special: usize) -> Result<BtPageOpaque, ReadError> {
    use crate::model::postgres::disk::bt_page_opaque::*;
    Ok(BtPageOpaque {
        btpo_prev: r.peek_u32(special + BTPO_PREV, "btpo_prev")?,
        btpo_next: r.peek_u32(special + BTPO_NEXT, "btpo_next")?,
        btpo_level: r.peek_u32(special + BTPO_LEVEL, "btpo_level")?,
        btpo_flags: r.peek_u16(special + BTPO_FLAGS, "btpo_flags")?,
        btpo_cycleid: r.peek_u16(special + BTPO_CYCLEID, "btpo_cycleid")?,
    })
}

/// A page of a btree index whose special space is not a `BTPageOpaqueData`:
/// true (and a problem) when its size is wrong.
pub(crate) fn btree_special_size(special_size: usize, problems: &mut Vec<Problem>) -> bool {
    if special_size == BT_OPAQUE_SIZE {
        return false;
    }
    problems.push(Problem::new(
        Severity::Error,
        ProblemClass::Btree,
        Some(16),
        "pd_special",
        format!(
            "special space of {special_size} bytes in a btree index (BTPageOpaqueData is {BT_OPAQUE_SIZE})"
        ),
    ));
    true
}

/// A btree page's `BTPageOpaqueData` at `special`: known btpo_flags bits,
/// the metapage only at block 0 (and block 0 of an index the metapage), no
/// sibling link to the page itself, level 0 exactly on leaf pages, a root
/// without siblings. Deleted pages keep an xid (before PostgreSQL 14) or the
/// level: their level is not judged.
pub(crate) fn btree_opaque(
    o: &BtPageOpaque,
    special: usize,
    blkno: u64,
    rel: Relation,
    problems: &mut Vec<Problem>,
) {
    let mut err = |offset: usize, field: &str, message: String| {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Btree,
            Some(offset),
            field,
            message,
        ));
    };
    let flags_word = o.btpo_flags;
    let unknown = flags::unknown_bits(flags_word, flags::BTPO_FLAGS, 0xFFFF);
    if unknown != 0 {
        err(
            special + 12,
            "btpo_flags",
            format!("unknown btpo_flags bits 0x{unknown:04x} (flags 0x{flags_word:04x})"),
        );
    }
    if flags_word & BTP_META != 0 {
        if blkno != 0 {
            err(
                special + 12,
                "btpo_flags",
                format!("BTP_META on block {blkno}: only block 0 is the metapage"),
            );
        }
        return;
    }
    if blkno == 0 && rel.btree_index {
        err(
            special + 12,
            "btpo_flags",
            "block 0 of a btree index without BTP_META".to_string(),
        );
    }
    let (prev, next) = (o.btpo_prev, o.btpo_next);
    // 0 is P_NONE (no sibling); block 0 is the metapage, never a sibling.
    if prev != 0 && u64::from(prev) == blkno {
        err(
            special,
            "btpo_prev",
            format!("btpo_prev points at the page itself (block {blkno})"),
        );
    }
    if next != 0 && u64::from(next) == blkno {
        err(
            special + 4,
            "btpo_next",
            format!("btpo_next points at the page itself (block {blkno})"),
        );
    }
    if flags_word & BTP_DELETED != 0 {
        return;
    }
    let leaf = flags_word & BTP_LEAF != 0;
    let level = o.btpo_level;
    if leaf && level != 0 {
        err(
            special + 8,
            "btpo_level",
            format!("btpo_level {level} on a leaf page (leaves are level 0)"),
        );
    }
    if !leaf && level == 0 {
        err(
            special + 8,
            "btpo_level",
            "btpo_level 0 on an internal page (BTP_LEAF not set)".to_string(),
        );
    }
    if flags_word & BTP_ROOT != 0 && (prev != 0 || next != 0) {
        err(
            special,
            "btpo_prev",
            format!("root page with siblings (btpo_prev {prev}, btpo_next {next})"),
        );
    }
}

/// The metapage's btm_magic.
pub(crate) fn btm_magic(magic: u32, problems: &mut Vec<Problem>) {
    if magic != BTREE_MAGIC {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Btree,
            Some(SIZE_OF_PAGE_HEADER),
            "btm_magic",
            format!("btm_magic 0x{magic:06x} is not BTREE_MAGIC 0x053162"),
        ));
    }
}
