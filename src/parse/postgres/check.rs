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
//! - the btree special space ([`super::btree::btree_opaque`], [`super::btree::btm_magic`],
//!   [`btree_special_size`]): known btpo_flags, level against BTP_LEAF,
//!   sibling links, the metapage only at block 0 and with BTREE_MAGIC.
//!
//! [`check_page_in`] records no spans and allocates only the line pointer
//! list: it is the path `verify` runs over whole relations.

use crate::model::postgres::{PageHeader, PageKind, MAXALIGN, SIZE_OF_PAGE_HEADER};
use crate::model::Problem;
use crate::reader::{Endian, Reader};

use super::btree::{btree_page, btree_special_size, BTP_META, BTREE_MAGIC};
use super::kinds::{self, detect_kind};
use super::layout::{header, is_new_page, item_ids, line_pointers, peek_header, short_header};
use super::page::PageOptions;

/// Moved to [`super::btree`] and [`super::layout`]; kept at their old paths
/// for code not yet updated.
pub(crate) use super::btree::Relation;

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
    let entry = kinds::entry(kind);
    // The build's evidence outside the items excuses what it explains at
    // once; it is reported with the line pointers it decides the alignment of.
    let special_note = (entry.special_evidence)(&r, &h, usable);
    if special_note.is_some() {
        (entry.accept_special)(problems);
    }
    if usable && (entry.line_pointers)(&r, &h) {
        let ids = item_ids(&r, &h, problems);
        let mut max_align = MAXALIGN;
        if let Some(note) = (entry.item_evidence)(&r, &h, &ids).or(special_note) {
            max_align = 4;
            problems.push(note);
        }
        line_pointers(&ids, &h, data.len(), max_align, problems);
        (entry.check_items)(&r, &ids, max_align, problems);
    }
    if let Some(check_special) = entry.check_special {
        check_special(&r, &h, opts.blkno, rel, problems);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::postgres::{BtPageOpaque, ItemId, Lsn};
    use crate::model::ProblemClass;
    use crate::parse::postgres::btree::{btree_opaque, BTP_LEAF};

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
