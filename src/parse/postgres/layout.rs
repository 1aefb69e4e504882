//! The layout every PostgreSQL page shares, and the leaf every access-method
//! parser depends on: the page header (`PageHeaderData`, bufpage.h), the line
//! pointer array (`ItemIdData`, itemid.h), the 32-bit build (MAXALIGN 4)
//! evidence they share, and the structural checks of the header and line
//! pointers. Nothing here knows a page kind.

use crate::model::postgres::{
    ItemId, LpFlags, Lsn, PageHeader, MAXALIGN, MIN_HEAP_TUPLE_SIZE, PG_PAGE_LAYOUT_VERSION,
    SIZE_OF_ITEM_ID, SIZE_OF_PAGE_HEADER,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{Endian, ReadError, Reader};

use crate::model::postgres::flags;
use crate::model::postgres::names::describe_item_id;

/// All zero bytes: a new page, never initialised; valid (PageIsVerified).
pub(crate) fn is_new_page(data: &[u8]) -> bool {
    !data.is_empty() && data.iter().all(|&b| b == 0)
}

pub(super) fn short_header(e: &ReadError) -> Problem {
    Problem::new(
        Severity::Error,
        ProblemClass::Header,
        Some(e.offset),
        e.field.clone(),
        format!("page too short for a page header: {e}"),
    )
}

/// The page header's fields (`PageHeaderData`, bufpage.h), read without
/// recording spans.
pub(crate) fn peek_header(r: &Reader) -> Result<PageHeader, ReadError> {
    use crate::model::postgres::disk::page_header::*;
    Ok(PageHeader {
        pd_lsn: Lsn {
            xlogid: r.peek_u32(PD_LSN, "pd_lsn")?,
            xrecoff: r.peek_u32(PD_LSN + 4, "pd_lsn")?,
        },
        pd_checksum: r.peek_u16(PD_CHECKSUM, "pd_checksum")?,
        pd_flags: r.peek_u16(PD_FLAGS, "pd_flags")?,
        pd_lower: r.peek_u16(PD_LOWER, "pd_lower")?,
        pd_upper: r.peek_u16(PD_UPPER, "pd_upper")?,
        pd_special: r.peek_u16(PD_SPECIAL, "pd_special")?,
        pd_pagesize_version: r.peek_u16(PD_PAGESIZE_VERSION, "pd_pagesize_version")?,
        pd_prune_xid: r.peek_u32(PD_PRUNE_XID, "pd_prune_xid")?,
    })
}

/// [`peek_header`], then every field recorded as a span for the hex view.
pub(super) fn read_header(r: &mut Reader) -> Result<PageHeader, ReadError> {
    let h = peek_header(r)?;
    if !r.recording() {
        return Ok(h);
    }
    r.set_context(Region::Header, None);
    r.mark(0, 8, "pd_lsn", h.pd_lsn.to_string());
    r.mark(8, 2, "pd_checksum", h.pd_checksum.to_string());
    let flags_value = if h.pd_flags == 0 {
        "0".to_string()
    } else {
        format!(
            "0x{:04x} {}",
            h.pd_flags,
            flags::join(h.pd_flags, flags::PD_FLAGS, 0xFFFF)
        )
    };
    r.mark(10, 2, "pd_flags", flags_value);
    r.mark(12, 2, "pd_lower", h.pd_lower.to_string());
    r.mark(14, 2, "pd_upper", h.pd_upper.to_string());
    r.mark(16, 2, "pd_special", h.pd_special.to_string());
    r.mark(
        18,
        2,
        "pd_pagesize_version",
        format!(
            "{} v{}",
            h.pd_pagesize_version & 0xFF00,
            h.pd_pagesize_version & 0x00FF
        ),
    );
    r.mark(20, 4, "pd_prune_xid", h.pd_prune_xid.to_string());
    Ok(h)
}

/// `PageGetFreeSpace`: pd_upper − pd_lower − sizeof(ItemIdData), never below 0.
pub(crate) fn page_free_space(h: &PageHeader) -> u32 {
    let space = i64::from(h.pd_upper) - i64::from(h.pd_lower);
    if space < SIZE_OF_ITEM_ID as i64 {
        0
    } else {
        (space - SIZE_OF_ITEM_ID as i64) as u32
    }
}

/// The line pointer array `pd_lower` announces (as much of it as fits in the
/// page), read without recording spans.
pub(crate) fn item_ids(r: &Reader, h: &PageHeader, problems: &mut Vec<Problem>) -> Vec<ItemId> {
    let claimed = h.max_offset_number();
    let room = r.len().saturating_sub(SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID;
    let count = claimed.min(room);
    if claimed > room {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::LinePointer,
            Some(12),
            "pd_lower",
            format!("pd_lower claims {claimed} line pointers, only {room} fit in the page"),
        ));
    }
    let mut ids = Vec::with_capacity(count);
    let big = r.endian() == Endian::Big;
    for i in 0..count {
        let Ok(word) = r.peek_u32(item_id_offset(i + 1), "lp") else {
            break;
        };
        ids.push(ItemId::from_word_in((i + 1) as u16, word, big));
    }
    ids
}

/// Byte offset of line pointer `lp` (1-based) in the page.
pub(super) fn item_id_offset(lp: usize) -> usize {
    SIZE_OF_PAGE_HEADER + (lp - 1) * SIZE_OF_ITEM_ID
}

/// The evidence of a 32-bit build (MAXALIGN 4) every page kind's detector
/// shares: a normal item at an lp_off of 4 mod 8, which a 64-bit build never
/// writes, and every item `counted` at a multiple of 4 and passing `fits`
/// (the kind's own check of its tuple layout). Then an info note naming that
/// item, how many `items` fit, and `how` they were checked and are decoded.
pub(super) fn four_byte_maxalign(
    ids: &[ItemId],
    counted: impl Fn(&ItemId) -> bool,
    mut fits: impl FnMut(&ItemId) -> bool,
    what: &str,
    items: &str,
    how: &str,
) -> Option<Problem> {
    let first = ids
        .iter()
        .filter(|id| counted(id))
        .find(|id| id.lp_flags == crate::model::postgres::LpFlags::Normal && id.lp_off % 8 == 4)?;
    let mut seen = 0usize;
    for id in ids.iter().filter(|id| counted(id)) {
        if id.lp_off % 4 != 0 || !fits(id) {
            return None;
        }
        seen += 1;
    }
    Some(
        Problem::new(
            Severity::Info,
            ProblemClass::LinePointer,
            Some(item_id_offset(usize::from(first.lp))),
            format!("lp[{}]", first.lp),
            format!(
            "{what} laid out by a 32-bit build (MAXALIGN 4): lp[{}] starts at lp_off {} (4 mod 8, \
             which a 64-bit build never writes), and all {seen} {items} start at multiples of 4 \
             {how}",
            first.lp, first.lp_off
        ),
        )
        .about_item(first.lp),
    )
}

/// [`item_ids`], each recorded as a span for the hex view.
pub(super) fn read_line_pointers(
    r: &mut Reader,
    h: &PageHeader,
    problems: &mut Vec<Problem>,
) -> Vec<ItemId> {
    let ids = item_ids(r, h, problems);
    if !r.recording() {
        return ids;
    }
    r.set_context(Region::LinePointer, None);
    for id in &ids {
        r.mark(
            item_id_offset(usize::from(id.lp)),
            SIZE_OF_ITEM_ID,
            &format!("lp[{}]", id.lp),
            describe_item_id(id),
        );
    }
    ids
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_32_bit_note_names_its_line_pointer_as_a_typed_item() {
        // lp 2 at 8100 (4 mod 8), lp 1 at 8104: both multiples of 4.
        let ids = [
            ItemId::from_word(1, 8104 | (1 << 15) | (28 << 17)),
            ItemId::from_word(2, 8100 | (1 << 15) | (4 << 17)),
        ];
        let note = four_byte_maxalign(&ids, |_| true, |_| true, "tuples", "tuples", "")
            .expect("a 32-bit layout");
        assert_eq!(note.field, "lp[2]");
        assert_eq!(note.item, Some(2));
    }
}
