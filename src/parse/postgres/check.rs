//! The structural checks of a PostgreSQL page, written once. `show`'s page
//! parse ([`super::parse_page`]) and `verify`'s span-less walk
//! ([`check_page_in`]) both call them, so each fault has one wording:
//!
//! - the page header ([`header`]): page size and layout version, pd_lower ≤
//!   pd_upper ≤ pd_special ≤ the page size, pd_special MAXALIGNed, pd_flags.
//!   A header that cannot locate the line pointer array is said to be
//!   unusable, once, and the walk stops there: its "line pointers" are not
//!   judged as if the header were right (the first cause stays visible);
//! - line pointers ([`line_pointers`]): inside the page, between pd_upper and
//!   pd_special, MAXALIGNed, not overlapping, redirects to normal items;
//! - heap tuple headers ([`super::heap::check_tuple_header`]): t_hoff against
//!   natts, the null bitmap and an OID;
//! - the btree special space ([`btree_opaque`], [`btm_magic`],
//!   [`btree_special_size`]): known btpo_flags, level against BTP_LEAF,
//!   sibling links, the metapage only at block 0 and with BTREE_MAGIC.
//!
//! [`check_page_in`] records no spans and allocates only the line pointer
//! list: it is the path `verify` runs over whole relations.

use crate::model::postgres::{
    BtPageOpaque, ItemId, LpFlags, PageHeader, PageKind, MAXALIGN, MIN_HEAP_TUPLE_SIZE,
    PG_PAGE_LAYOUT_VERSION, SIZE_OF_PAGE_HEADER,
};
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{Endian, Reader};

use super::btree::{BTP_DELETED, BTP_LEAF, BTP_META, BTP_ROOT, BTREE_MAGIC};
use super::heap;
use super::page::{
    detect_kind, is_new_page, item_id_offset, item_ids, line_pointers_in_use, peek_header,
    short_header, PageOptions,
};
use crate::model::postgres::flags;

/// `BTPageOpaqueData` (nbtree.h): btpo_prev, btpo_next, btpo_level,
/// btpo_flags, btpo_cycleid.
pub(crate) const BT_OPAQUE_SIZE: usize = 16;

/// What is known about the relation a page comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Relation {
    /// Block 0 of the relation is a btree metapage: every page should be a
    /// btree page, and block 0 the metapage.
    pub btree_index: bool,
}

/// What [`check_page_in`] established about a page besides its problems.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedPage {
    pub kind: PageKind,
    /// `None` for new pages and pages too short for a header.
    pub header: Option<PageHeader>,
    /// The header locates the line pointer array (see [`header`]); false
    /// when there is no header.
    pub header_usable: bool,
}

/// The structural checks of [`super::parse_page`] — header, line pointers,
/// heap tuple headers, the btree special space — without recording spans or
/// decoding tuples, for checking whole relations. New (all-zero) pages have
/// no problems. The checksum is left to the caller: whether a zero
/// pd_checksum is a failure depends on the cluster.
pub fn check_page(data: &[u8], opts: &PageOptions, problems: &mut Vec<Problem>) -> CheckedPage {
    check_page_in(data, opts, Relation::default(), problems)
}

/// [`check_page`] for a page of a known relation.
pub(crate) fn check_page_in(
    data: &[u8],
    opts: &PageOptions,
    rel: Relation,
    problems: &mut Vec<Problem>,
) -> CheckedPage {
    if is_new_page(data) {
        return CheckedPage {
            kind: PageKind::New,
            header: None,
            header_usable: false,
        };
    }
    let r = Reader::new(data, opts.endian);
    let h = match peek_header(&r) {
        Ok(h) => h,
        Err(e) => {
            problems.push(short_header(&e));
            return CheckedPage {
                kind: PageKind::Unknown,
                header: None,
                header_usable: false,
            };
        }
    };
    let usable = header(&h, data.len(), problems);
    let kind = opts
        .kind
        .unwrap_or_else(|| detect_kind(&h, data, opts.endian));
    if kind == PageKind::Brin && super::brin::detect_max_align(&h, data.len()).is_some() {
        super::brin::accept_special(problems);
    }
    if usable && line_pointers_in_use(kind, &h, data, opts.endian) {
        let ids = item_ids(&r, &h, problems);
        let mut max_align = MAXALIGN;
        let note = match kind {
            PageKind::Heap => heap::detect_max_align(&r, &ids),
            PageKind::Btree | PageKind::Hash | PageKind::Gist => {
                super::btree::detect_max_align(&r, &ids)
            }
            PageKind::Gin => super::gin::detect_max_align(&r, &h, &ids),
            PageKind::SpGist => super::spgist::detect_max_align(&r, &h, &ids),
            PageKind::Brin => super::brin::detect_max_align(&h, data.len()),
            _ => None,
        };
        if let Some(note) = note {
            max_align = 4;
            problems.push(note);
        }
        line_pointers(&ids, &h, data.len(), max_align, problems);
        if kind == PageKind::Heap {
            heap::check_tuples(&r, &ids, max_align, problems);
        }
    }
    if kind == PageKind::Btree {
        btree_page(&r, &h, opts.blkno, rel, problems);
    } else if rel.btree_index && usable {
        let special = usize::from(h.pd_special);
        if !btree_special_size(data.len() - special, problems) {
            btree_page(&r, &h, opts.blkno, rel, problems);
        }
    }
    CheckedPage {
        kind,
        header: Some(h),
        header_usable: usable,
    }
}

/// Whether `page` is block 0 of a btree index: BTP_META and btm_magic.
pub(crate) fn is_btree_metapage(page: &[u8], endian: Endian) -> bool {
    let r = Reader::new(page, endian);
    let Ok(h) = peek_header(&r) else {
        return false;
    };
    detect_kind(&h, page, endian) == PageKind::Btree
        && r.peek_u16(usize::from(h.pd_special) + 12, "btpo_flags")
            .is_ok_and(|f| f & BTP_META != 0)
        && r.peek_u32(SIZE_OF_PAGE_HEADER, "btm_magic") == Ok(BTREE_MAGIC)
}

/// The btree checks of a page whose special space is a `BTPageOpaqueData`,
/// read without spans.
fn btree_page(r: &Reader, h: &PageHeader, blkno: u64, rel: Relation, problems: &mut Vec<Problem>) {
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

fn peek_btree_opaque(r: &Reader, special: usize) -> Result<BtPageOpaque, crate::reader::ReadError> {
    Ok(BtPageOpaque {
        btpo_prev: r.peek_u32(special, "btpo_prev")?,
        btpo_next: r.peek_u32(special + 4, "btpo_next")?,
        btpo_level: r.peek_u32(special + 8, "btpo_level")?,
        btpo_flags: r.peek_u16(special + 12, "btpo_flags")?,
        btpo_cycleid: r.peek_u16(special + 14, "btpo_cycleid")?,
    })
}

/// The header against the page: true when it is usable, i.e. it locates the
/// line pointer array and the items (layout version 4, and 24 ≤ pd_lower ≤
/// pd_upper ≤ pd_special ≤ the page size). An unusable header is said to be
/// so once, after its faults, and its line pointers are not judged.
pub(crate) fn header(h: &PageHeader, size: usize, problems: &mut Vec<Problem>) -> bool {
    let mut err = |offset: usize, field: &str, message: String| {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Header,
            Some(offset),
            field,
            message,
        ));
    };
    if h.page_size() != size {
        err(
            18,
            "pd_pagesize_version",
            format!(
                "page size {} does not match the {size}-byte image",
                h.page_size()
            ),
        );
    }
    let version_ok = h.layout_version() == PG_PAGE_LAYOUT_VERSION;
    if !version_ok {
        err(
            18,
            "pd_pagesize_version",
            format!(
                "layout version {} (expected {PG_PAGE_LAYOUT_VERSION}, PostgreSQL 8.3 and later)",
                h.layout_version()
            ),
        );
    }
    let (lower, upper, special) = (
        usize::from(h.pd_lower),
        usize::from(h.pd_upper),
        usize::from(h.pd_special),
    );
    let mut order_ok = true;
    if lower < SIZE_OF_PAGE_HEADER {
        order_ok = false;
        err(
            12,
            "pd_lower",
            format!("pd_lower {lower} is inside the 24-byte page header"),
        );
    }
    if lower > upper {
        order_ok = false;
        err(
            12,
            "pd_lower",
            format!("pd_lower {lower} is above pd_upper {upper}"),
        );
    }
    if upper > special {
        order_ok = false;
        err(
            14,
            "pd_upper",
            format!("pd_upper {upper} is above pd_special {special}"),
        );
    }
    if special > size {
        order_ok = false;
        err(
            16,
            "pd_special",
            format!("pd_special {special} is past the end of the {size}-byte page"),
        );
    }
    if !special.is_multiple_of(MAXALIGN) {
        err(
            16,
            "pd_special",
            format!("pd_special {special} is not MAXALIGNed"),
        );
    }
    let unknown = flags::unknown_bits(h.pd_flags, flags::PD_FLAGS, 0xFFFF);
    if unknown != 0 {
        err(
            10,
            "pd_flags",
            format!("unknown pd_flags bits 0x{unknown:04x}"),
        );
    }
    let usable = version_ok && order_ok;
    if !usable {
        problems.push(Problem::new(
            Severity::Info,
            ProblemClass::Header,
            Some(12),
            "page header",
            "not usable, so its line pointers and items are not checked",
        ));
    }
    usable
}

/// Line pointers against the page: each item inside the page, MAXALIGNed,
/// between the line pointer array (and pd_upper) and pd_special, long enough
/// for a heap tuple header on pages without special space, not overlapping
/// another item; each redirect leading to a normal item on the page.
pub(crate) fn line_pointers(
    ids: &[ItemId],
    h: &PageHeader,
    size: usize,
    max_align: usize,
    problems: &mut Vec<Problem>,
) {
    let lower = usize::from(h.pd_lower).max(SIZE_OF_PAGE_HEADER);
    let upper = usize::from(h.pd_upper);
    let special = usize::from(h.pd_special);
    let heap_like = h.pd_special == h.pd_pagesize_version & 0xFF00;
    let err = |problems: &mut Vec<Problem>, lp: u16, message: String| {
        problems.push(
            Problem::new(
                Severity::Error,
                ProblemClass::LinePointer,
                Some(item_id_offset(usize::from(lp))),
                format!("lp[{lp}]"),
                message,
            )
            .about_item(lp),
        );
    };
    let mut extents: Vec<(usize, usize, u16)> = Vec::with_capacity(ids.len());
    for id in ids {
        match id.lp_flags {
            LpFlags::Redirect => {
                let target = usize::from(id.lp_off);
                match target.checked_sub(1).and_then(|i| ids.get(i)) {
                    None => err(
                        problems,
                        id.lp,
                        format!(
                            "redirect to line pointer {target} which does not exist ({} on the page)",
                            ids.len()
                        ),
                    ),
                    Some(t) if t.lp_flags != LpFlags::Normal => err(
                        problems,
                        id.lp,
                        format!(
                            "redirect to line pointer {target} which is {}, not a normal item",
                            t.lp_flags.name()
                        ),
                    ),
                    Some(_) => {}
                }
            }
            _ if !id.has_storage() => {}
            flags => {
                let start = usize::from(id.lp_off);
                let end = start + usize::from(id.lp_len);
                if end > size {
                    err(
                        problems,
                        id.lp,
                        format!(
                            "item {}+{} runs past the end of the {size}-byte page",
                            id.lp_off, id.lp_len
                        ),
                    );
                    continue;
                }
                if start < lower {
                    err(
                        problems,
                        id.lp,
                        format!("item at {start} overlaps the page header and line pointer array (pd_lower {lower})"),
                    );
                } else if start < upper {
                    err(
                        problems,
                        id.lp,
                        format!("item at {start} starts below pd_upper {upper}"),
                    );
                }
                if end > special && special <= size {
                    err(
                        problems,
                        id.lp,
                        format!(
                            "item {}+{} runs into the special space at pd_special {special}",
                            id.lp_off, id.lp_len
                        ),
                    );
                }
                if !start.is_multiple_of(max_align.max(1)) {
                    err(
                        problems,
                        id.lp,
                        format!("item offset {start} is not MAXALIGNed"),
                    );
                }
                if flags == LpFlags::Normal
                    && heap_like
                    && usize::from(id.lp_len) < MIN_HEAP_TUPLE_SIZE
                {
                    err(
                        problems,
                        id.lp,
                        format!(
                            "lp_len {} is shorter than a heap tuple header ({MIN_HEAP_TUPLE_SIZE})",
                            id.lp_len
                        ),
                    );
                }
                extents.push((start, end, id.lp));
            }
        }
    }
    // In offset order, each item must start at or after the furthest end so far.
    extents.sort_unstable();
    let mut furthest: Option<(usize, u16)> = None;
    for &(start, end, lp) in &extents {
        match furthest {
            Some((far_end, far_lp)) if start < far_end => {
                err(problems, lp, format!("item {lp} overlaps item {far_lp}"));
                if end > far_end {
                    furthest = Some((end, lp));
                }
            }
            Some((far_end, _)) if end <= far_end => {}
            _ => furthest = Some((end, lp)),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::postgres::Lsn;

    fn header_with(lower: u16, upper: u16) -> PageHeader {
        PageHeader {
            pd_lsn: Lsn::default(),
            pd_checksum: 0,
            pd_flags: 0,
            pd_lower: lower,
            pd_upper: upper,
            pd_special: 8192,
            pd_pagesize_version: 0x2004,
            pd_prune_xid: 0,
        }
    }

    /// A line pointer word: lp_off, lp_flags, lp_len.
    fn lp(n: u16, off: u32, flags: u32, len: u32) -> ItemId {
        ItemId::from_word(n, off | (flags << 15) | (len << 17))
    }

    fn problems(ids: &[ItemId], h: &PageHeader) -> Vec<(String, String)> {
        let mut p = Vec::new();
        line_pointers(ids, h, 8192, MAXALIGN, &mut p);
        p.into_iter().map(|p| (p.field, p.message)).collect()
    }

    #[test]
    fn an_item_inside_another_overlaps_even_when_not_adjacent() {
        // lp 1 covers 8000..8192; lps 2 and 3 sit inside it, one after the other.
        let ids = [lp(1, 8000, 1, 192), lp(2, 8040, 1, 40), lp(3, 8120, 1, 40)];
        let p = problems(&ids, &header_with(36, 8000));
        assert_eq!(
            p,
            vec![
                ("lp[2]".to_string(), "item 2 overlaps item 1".to_string()),
                ("lp[3]".to_string(), "item 3 overlaps item 1".to_string()),
            ]
        );
    }

    #[test]
    fn redirects_must_lead_to_normal_items() {
        let ids = [lp(1, 2, 2, 0), lp(2, 0, 0, 0), lp(3, 9, 2, 0)];
        let p = problems(&ids, &header_with(36, 8192));
        assert_eq!(p.len(), 2);
        assert!(p[0].1.contains("LP_UNUSED"), "{p:?}");
        assert!(p[1].1.contains("does not exist"), "{p:?}");
    }

    #[test]
    fn items_below_pd_lower_overlap_the_line_pointer_array() {
        let ids = [lp(1, 16, 1, 40)];
        let p = problems(&ids, &header_with(28, 16));
        assert_eq!(p.len(), 1);
        assert!(p[0].1.contains("overlaps the page header"), "{p:?}");
    }

    #[test]
    fn an_unusable_header_is_said_once_and_its_line_pointers_not_judged() {
        // pd_lower 9000 on an 8 KiB heap page whose body is text.
        let mut page = b"2026-11-24 02:14:59 UTC LOG:  checkpoint starting: time\n".repeat(150);
        page.truncate(8192);
        page[12..14].copy_from_slice(&9000u16.to_le_bytes());
        let mut p = Vec::new();
        let checked = check_page(&page, &PageOptions::default(), &mut p);
        assert!(!checked.header_usable);
        assert!(p.iter().all(|p| p.class == ProblemClass::Header), "{p:?}");
        assert!(p.len() <= 8, "{p:?}");
        assert_eq!(p.last().unwrap().field, "page header");
    }

    #[test]
    fn p_none_sibling_links_are_not_self_links() {
        // A btree leaf with no siblings (btpo_prev = btpo_next = P_NONE = 0),
        // level 0, BTP_LEAF, read as block 0 (a page cut out of its relation).
        let mut o = BtPageOpaque {
            btpo_prev: 0,
            btpo_next: 0,
            btpo_level: 0,
            btpo_flags: BTP_LEAF,
            btpo_cycleid: 0,
        };
        let mut problems = Vec::new();
        btree_opaque(&o, 8176, 0, Relation::default(), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        // A real self link is reported.
        o.btpo_prev = 7;
        btree_opaque(&o, 8176, 7, Relation::default(), &mut problems);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].field, "btpo_prev");
    }
}
