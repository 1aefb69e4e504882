//! The table of PostgreSQL page kinds: one [`Kind`] entry per access method
//! (heap, btree, hash, GiST, GIN, BRIN, SP-GiST, the free space map and
//! visibility map forks, sequences; metapages are read by their access
//! method's entry), each saying how a page of that kind is recognised from
//! its special space, how a 32-bit build (MAXALIGN 4) shows on it, where its
//! line pointers are, how its special space and items are parsed and checked,
//! and how its tuples are decoded with a column list.
//!
//! `page.rs` (the parse behind `show`) and `check.rs` (the walk
//! behind `verify`) iterate this table and name no kind. The access-method
//! files below it (`kinds/NAME.rs`, declared here) depend only downward, on
//! [`super::layout`] and [`super::itup`]. A new page kind is its model, one
//! parser file in `kinds/`, one entry and one `mod` line here, and its renderers.

use crate::model::postgres::flags::{
    BRIN_PAGETYPE_META, BRIN_PAGETYPE_REGULAR, BTP_DELETED, BTP_HAS_FULLXID, BTP_META, F_DELETED,
    GIN_DATA, GIN_DELETED, GIN_META, GIST_PAGE_ID, HASHO_PAGE_ID, LH_BITMAP_PAGE, LH_META_PAGE,
    MAX_BT_CYCLE_ID, SEQ_MAGIC, SPGIST_DELETED, SPGIST_META, SPGIST_PAGE_ID,
};
use crate::model::postgres::types::Schema;
use crate::model::postgres::SIZE_OF_PAGE_HEADER;
use crate::model::postgres::{AmData, ItemId, PageHeader, PageKind, PageLayout, PgPage};
use crate::model::Problem;
use crate::reader::{Endian, ReadError, Reader};

use super::btree::{self, Relation};
use super::toast::ToastStore;
use super::{attrs, heap, index, itup, special};

// The access methods' parser files, one per kind, in `kinds/` (the older
// kinds' parsers — heap, btree, and hash and GiST in `index.rs` — sit
// beside this file).
pub(crate) mod brin;
pub(crate) mod gin;
pub(crate) mod spgist;

/// What a page's special space shows, read once for recognition.
pub(crate) struct Probe<'a> {
    /// The page, in the byte order of its host.
    pub r: &'a Reader<'a>,
    pub h: &'a PageHeader,
    /// The special space's size (bytes from pd_special to the end).
    pub special_size: usize,
    /// The page's last two bytes: the page id of hash, GiST, SP-GiST and
    /// BRIN pages, a btree page's btpo_cycleid.
    pub last_u16: Option<u16>,
}

impl Probe<'_> {
    /// pd_lower and pd_upper as PageInit leaves them: no line pointers,
    /// no tuples.
    fn bare(&self) -> bool {
        usize::from(self.h.pd_lower) == SIZE_OF_PAGE_HEADER
            && usize::from(self.h.pd_upper) == self.r.len()
    }

    /// Every byte after the page header is zero.
    fn body_is_zero(&self) -> bool {
        self.r
            .data()
            .get(SIZE_OF_PAGE_HEADER..)
            .is_some_and(|b| b.iter().all(|&x| x == 0))
    }

    fn special_u32(&self, at: usize, field: &str) -> Option<u32> {
        self.r
            .peek_u32(usize::from(self.h.pd_special) + at, field)
            .ok()
    }
}

/// How a kind's line pointers lead to its items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ItemsAs {
    /// Heap tuples (`HeapTupleHeaderData`), decoded as heap items.
    HeapTuples,
    /// Index tuples, decoded into the access method's data ([`index::parse_items`]);
    /// line pointers only when the special space could not be read.
    IndexTuples,
    /// Decoded by the kind's own `parse` into its special-space data (btree).
    InSpecial,
    /// Nothing is known of the items: line pointers only.
    LinePointers,
}

/// Reads a special space (and metapage) of a kind: the page, its header, its
/// line pointers, its block number and layout, and the problems found.
pub(crate) type ParseFn = fn(
    &mut Reader,
    &PageHeader,
    &[ItemId],
    u64,
    PageLayout,
    &mut Vec<Problem>,
) -> Result<Option<AmData>, ReadError>;

/// `verify`'s checks of a special space: the page, its header, its block
/// number and what is known of its relation.
pub(crate) type CheckSpecialFn = fn(&Reader, &PageHeader, u64, Relation, &mut Vec<Problem>);

/// One page kind.
pub(crate) struct Kind {
    pub kind: PageKind,
    /// Whether a page is of this kind, tried in table order (the first
    /// entry that recognises a page names its kind).
    pub recognise: fn(&Probe) -> bool,
    /// Whether the bytes between the header and pd_lower are line pointers
    /// (metapages, deleted pages, bitmap and data pages keep other data there).
    pub line_pointers: fn(&Reader, &PageHeader) -> bool,
    /// The evidence of a 32-bit build that shows outside the items (a
    /// special space or metapage of a 32-bit size), given whether the header
    /// is usable.
    pub special_evidence: fn(&Reader, &PageHeader, bool) -> Option<Problem>,
    /// What that evidence excuses among the header's problems.
    pub accept_special: fn(&mut Vec<Problem>),
    /// The evidence of a 32-bit build in the items' offsets and sizes.
    pub item_evidence: fn(&Reader, &PageHeader, &[ItemId]) -> Option<Problem>,
    /// The special space and anything the kind keeps besides its items.
    pub parse: ParseFn,
    pub items: ItemsAs,
    /// `verify`'s checks of the items beyond their line pointers.
    pub check_items: fn(&Reader, &[ItemId], usize, &mut Vec<Problem>),
    /// `verify`'s checks of the special space, when the kind has its own.
    pub check_special: Option<CheckSpecialFn>,
    /// Decode the items' attributes with a column list (`--columns`).
    pub decode: fn(&mut PgPage, &[u8], &Schema, Option<&mut ToastStore>),
}

fn never(_: &Probe) -> bool {
    false
}
fn always_lines(_: &Reader, _: &PageHeader) -> bool {
    true
}
fn no_lines(_: &Reader, _: &PageHeader) -> bool {
    false
}
fn no_special_evidence(_: &Reader, _: &PageHeader, _: bool) -> Option<Problem> {
    None
}
fn accept_nothing(_: &mut Vec<Problem>) {}
fn no_item_evidence(_: &Reader, _: &PageHeader, _: &[ItemId]) -> Option<Problem> {
    None
}
fn index_item_evidence(r: &Reader, _: &PageHeader, ids: &[ItemId]) -> Option<Problem> {
    itup::detect_max_align(r, ids)
}
fn no_special(
    _: &mut Reader,
    _: &PageHeader,
    _: &[ItemId],
    _: u64,
    _: PageLayout,
    _: &mut Vec<Problem>,
) -> Result<Option<AmData>, ReadError> {
    Ok(None)
}
fn no_item_checks(_: &Reader, _: &[ItemId], _: usize, _: &mut Vec<Problem>) {}
fn decode_keys(page: &mut PgPage, data: &[u8], schema: &Schema, _: Option<&mut ToastStore>) {
    index::decode_keys(page, data, schema);
}

/// A 16-bit word of the special space at `at` (0 when it cannot be read).
fn special_u16(r: &Reader, h: &PageHeader, at: usize) -> u16 {
    r.peek_u16(usize::from(h.pd_special) + at, "special")
        .unwrap_or(0)
}

/// The entry that everything else falls back to: a generic page.
const UNKNOWN: Kind = Kind {
    kind: PageKind::Unknown,
    recognise: |_| true,
    line_pointers: always_lines,
    special_evidence: no_special_evidence,
    accept_special: accept_nothing,
    item_evidence: no_item_evidence,
    parse: no_special,
    items: ItemsAs::LinePointers,
    check_items: no_item_checks,
    check_special: None,
    decode: decode_keys,
};

/// Every page kind, in the order they are recognised. A kind's special
/// space is told by its size and its page id (hash.h, gist.h,
/// spgist_private.h, brin_page.h); btree pages have none but a btpo_cycleid
/// that never exceeds MAX_BT_CYCLE_ID; a GIN page is an 8-byte special space
/// that is none of the others.
pub(crate) static KINDS: &[Kind] = &[
    // FSM and VM pages are PageInit'ed with no line pointers and no special
    // space; their contents sit in what would be a heap page's free space.
    Kind {
        kind: PageKind::Fsm,
        recognise: |p| {
            p.special_size == 0
                && p.bare()
                && !p.body_is_zero()
                && special::looks_like_fsm(p.r.data())
        },
        line_pointers: no_lines,
        parse: |r, _, _, _, _, _| special::fsm(r),
        ..UNKNOWN
    },
    Kind {
        kind: PageKind::Vm,
        recognise: |p| p.special_size == 0 && p.bare() && !p.body_is_zero(),
        line_pointers: no_lines,
        parse: |r, _, _, blkno, _, _| special::vm(r, blkno),
        ..UNKNOWN
    },
    Kind {
        kind: PageKind::Heap,
        recognise: |p| p.special_size == 0,
        item_evidence: |r, _, ids| heap::detect_max_align(r, ids),
        items: ItemsAs::HeapTuples,
        check_items: heap::check_tuples,
        decode: attrs::decode_heap_page,
        ..UNKNOWN
    },
    Kind {
        kind: PageKind::Hash,
        recognise: |p| p.special_size == 16 && p.last_u16 == Some(HASHO_PAGE_ID),
        line_pointers: |r, h| special_u16(r, h, 12) & (LH_BITMAP_PAGE | LH_META_PAGE) == 0,
        item_evidence: index_item_evidence,
        parse: |r, h, _, _, _, _| special::hash(r, h),
        items: ItemsAs::IndexTuples,
        ..UNKNOWN
    },
    Kind {
        kind: PageKind::Gist,
        recognise: |p| p.special_size == 16 && p.last_u16 == Some(GIST_PAGE_ID),
        line_pointers: |r, h| special_u16(r, h, 12) & F_DELETED == 0,
        item_evidence: index_item_evidence,
        parse: |r, h, _, _, _, _| special::gist(r, h),
        items: ItemsAs::IndexTuples,
        ..UNKNOWN
    },
    Kind {
        kind: PageKind::SpGist,
        recognise: |p| p.special_size == 8 && p.last_u16 == Some(SPGIST_PAGE_ID),
        line_pointers: |r, h| special_u16(r, h, 0) & (SPGIST_META | SPGIST_DELETED) == 0,
        item_evidence: spgist::detect_max_align,
        parse: |r, h, _, _, _, _| special::spgist(r, h),
        items: ItemsAs::IndexTuples,
        ..UNKNOWN
    },
    Kind {
        kind: PageKind::Brin,
        // BRIN_PAGETYPE_META / REVMAP / REGULAR (brin_page.h); 4 bytes on a
        // 32-bit build (BrinSpecialSpace is MAXALIGN(1) bytes)
        recognise: |p| {
            matches!(p.special_size, 8 | 4)
                && matches!(p.last_u16, Some(BRIN_PAGETYPE_META..=BRIN_PAGETYPE_REGULAR))
        },
        // BRIN_PAGETYPE_REGULAR, the page type in the last two bytes
        line_pointers: |r, _| {
            r.len()
                .checked_sub(2)
                .and_then(|at| r.peek_u16(at, "brin page type").ok())
                == Some(BRIN_PAGETYPE_REGULAR)
        },
        special_evidence: |r, h, _| brin::detect_max_align(h, r.len()),
        accept_special: brin::accept_special,
        parse: |r, h, _, _, _, _| special::brin(r, h),
        items: ItemsAs::IndexTuples,
        ..UNKNOWN
    },
    Kind {
        kind: PageKind::Btree,
        // btpo_cycleid never exceeds MAX_BT_CYCLE_ID
        recognise: |p| p.special_size == 16 && p.last_u16.is_some_and(|id| id <= MAX_BT_CYCLE_ID),
        // btpo_flags (nbtree.h): BTP_META, or BTP_DELETED with BTP_HAS_FULLXID
        // (PostgreSQL 14+); a page deleted before 14 keeps its line pointers.
        line_pointers: |r, h| {
            let f = special_u16(r, h, 12);
            f & BTP_META == 0 && (f & BTP_DELETED == 0 || f & BTP_HAS_FULLXID == 0)
        },
        special_evidence: |r, h, usable| {
            if usable {
                btree::detect_meta_max_align(r, h)
            } else {
                None
            }
        },
        item_evidence: index_item_evidence,
        parse: |r, h, ids, blkno, layout, problems| {
            btree::parse(r, h, ids, blkno, layout, problems).map(Some)
        },
        items: ItemsAs::InSpecial,
        check_special: Some(btree::btree_page),
        ..UNKNOWN
    },
    Kind {
        kind: PageKind::Sequence,
        recognise: |p| p.special_size == 8 && p.special_u32(0, "sequence_magic") == Some(SEQ_MAGIC),
        parse: |r, h, _, _, _, _| special::sequence(r, h),
        items: ItemsAs::HeapTuples,
        ..UNKNOWN
    },
    // GinPageOpaqueData has no page id: an 8-byte special space that is none of the above.
    Kind {
        kind: PageKind::Gin,
        recognise: |p| p.special_size == 8,
        line_pointers: |r, h| special_u16(r, h, 6) & (GIN_DATA | GIN_DELETED | GIN_META) == 0,
        item_evidence: gin::detect_max_align,
        parse: |r, h, _, _, _, _| special::gin(r, h),
        items: ItemsAs::IndexTuples,
        ..UNKNOWN
    },
    // Never recognised: an all-zero page is told before any special space is read.
    Kind {
        kind: PageKind::New,
        recognise: never,
        line_pointers: no_lines,
        ..UNKNOWN
    },
    UNKNOWN,
];

/// The table's entry for `kind`.
pub(crate) fn entry(kind: PageKind) -> &'static Kind {
    KINDS.iter().find(|k| k.kind == kind).unwrap_or(&UNKNOWN)
}

/// Decide the page kind from the special space (size and identifying words).
pub fn detect_kind(h: &PageHeader, data: &[u8], endian: Endian) -> PageKind {
    let special = usize::from(h.pd_special);
    if special > data.len() || special < SIZE_OF_PAGE_HEADER {
        return PageKind::Unknown;
    }
    let r = Reader::new(data, endian);
    let probe = Probe {
        r: &r,
        h,
        special_size: data.len() - special,
        last_u16: data
            .len()
            .checked_sub(2)
            .and_then(|at| r.peek_u16(at, "page id").ok()),
    };
    KINDS
        .iter()
        .find(|k| (k.recognise)(&probe))
        .map_or(PageKind::Unknown, |k| k.kind)
}

/// Whether the bytes between the header and pd_lower of a page of `kind`
/// are line pointers (see [`Kind::line_pointers`]).
pub(crate) fn line_pointers_in_use(
    kind: PageKind,
    h: &PageHeader,
    data: &[u8],
    endian: Endian,
) -> bool {
    (entry(kind).line_pointers)(&Reader::new(data, endian), h)
}

/// Split every item of a page into the `schema`'s columns: a heap page's
/// tuples (following TOAST pointers when `toast` holds the TOAST relation),
/// an index page's keys. Sets each item's attributes, adds problems, and
/// spans for the hex view.
pub fn decode_page(
    page: &mut PgPage,
    data: &[u8],
    schema: &Schema,
    toast: Option<&mut ToastStore>,
) {
    (entry(page.kind).decode)(page, data, schema, toast);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_entry_and_unknown_is_last() {
        let mut kinds: Vec<PageKind> = KINDS.iter().map(|k| k.kind).collect();
        assert_eq!(kinds.last(), Some(&PageKind::Unknown));
        let n = kinds.len();
        kinds.sort_by_key(|k| k.name());
        kinds.dedup();
        assert_eq!(kinds.len(), n, "a kind has two entries");
    }
}
