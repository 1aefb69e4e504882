//! Generic PostgreSQL page: header, line pointer array, kind, checksum.
//! Heap tuples are decoded by [`super::heap`].

use crate::model::postgres::{
    AmData, ChecksumCheck, HashPageStats, HeapItem, ItemId, LpFlags, Lsn, PageHeader, PageKind,
    PgPage, MAXALIGN, MIN_HEAP_TUPLE_SIZE, PG_PAGE_LAYOUT_VERSION, SIZE_OF_ITEM_ID,
    SIZE_OF_PAGE_HEADER,
};
use crate::model::span::Region;
use crate::model::{Problem, Severity};
use crate::reader::{Endian, ReadError, Reader};

use super::{btree, checksum, flags, heap, special};

/// How to read one page.
#[derive(Clone, Copy, Debug)]
pub struct PageOptions {
    /// Block number of this page in its relation (mixed into the checksum).
    pub blkno: u64,
    /// Force a page kind instead of detecting it.
    pub kind: Option<PageKind>,
    pub endian: Endian,
}

impl Default for PageOptions {
    fn default() -> Self {
        PageOptions {
            blkno: 0,
            kind: None,
            endian: Endian::Little,
        }
    }
}

/// Decode one page image. Never fails: what cannot be read becomes a problem.
pub fn parse_page(data: &[u8], opts: &PageOptions) -> PgPage {
    let mut page = PgPage {
        blkno: opts.blkno,
        kind: PageKind::Unknown,
        size: data.len(),
        header: None,
        items: Vec::new(),
        checksum: None,
        am: None,
        problems: Vec::new(),
        spans: Vec::new(),
    };
    let mut r = Reader::new(data, opts.endian);

    if data.iter().all(|&b| b == 0) && !data.is_empty() {
        page.kind = PageKind::New;
        page.checksum = Some(ChecksumCheck {
            stored: 0,
            computed: None,
            valid: true,
        });
        r.set_context(Region::FreeSpace, None);
        r.mark(0, data.len(), "new page", "all zero".to_string());
        page.spans = r.into_spans();
        return page;
    }

    let header = match read_header(&mut r) {
        Ok(h) => h,
        Err(e) => {
            page.problems.push(Problem::new(
                Severity::Error,
                "header",
                Some(e.offset),
                e.field.clone(),
                format!("page too short for a page header: {e}"),
            ));
            page.spans = r.into_spans();
            return page;
        }
    };
    check_header(&header, data.len(), &mut page.problems);

    page.kind = opts
        .kind
        .unwrap_or_else(|| detect_kind(&header, data, opts.endian));

    let line_pointers = if uses_line_pointers(page.kind, &header, &r) {
        let ids = read_line_pointers(&mut r, &header, data.len(), &mut page.problems);
        check_line_pointers(&ids, &header, data.len(), &mut page.problems);
        ids
    } else {
        Vec::new()
    };

    let lower = usize::from(header.pd_lower);
    let upper = usize::from(header.pd_upper);
    let special = usize::from(header.pd_special);
    if lower <= upper && upper <= data.len() && lower >= SIZE_OF_PAGE_HEADER {
        r.set_context(Region::FreeSpace, None);
        r.mark(
            lower,
            upper - lower,
            "free space",
            format!("{} bytes", upper - lower),
        );
    }
    if special < data.len() && special >= SIZE_OF_PAGE_HEADER {
        r.set_context(Region::Special, None);
        r.mark(
            special,
            data.len() - special,
            "special space",
            format!("{} bytes", data.len() - special),
        );
    }

    let am = match page.kind {
        PageKind::Btree => {
            btree::parse(&mut r, &header, &line_pointers, &mut page.problems).map(Some)
        }
        kind => special::parse(&mut r, &header, kind, opts.blkno),
    };
    match am {
        Ok(am) => page.am = am,
        Err(e) => page.problems.push(Problem::new(
            Severity::Error,
            "special",
            Some(e.offset),
            e.field.clone(),
            format!("cannot decode the {} special space: {e}", page.kind.name()),
        )),
    }

    if page.kind != PageKind::Btree {
        for id in line_pointers {
            let item = if matches!(page.kind, PageKind::Heap | PageKind::Sequence) {
                heap::parse_item(&mut r, id, opts.blkno, &mut page.problems)
            } else {
                HeapItem {
                    id,
                    tuple: None,
                    verdict: heap::line_pointer_verdict(&id),
                    attrs: None,
                }
            };
            page.items.push(item);
        }
    }
    if let Some(AmData::Hash {
        opaque,
        stats: stats @ None,
        ..
    }) = &mut page.am
    {
        if matches!(
            special::hash_page_type(opaque.hasho_flag),
            "bucket" | "overflow"
        ) {
            let dead = page
                .items
                .iter()
                .filter(|i| i.id.lp_flags == LpFlags::Dead)
                .count() as u32;
            *stats = Some(HashPageStats {
                live_items: page.items.len() as u32 - dead,
                dead_items: dead,
                page_size: u32::try_from(header.page_size()).unwrap_or(u32::MAX),
                free_size: page_free_space(&header),
            });
        }
    }

    if page.kind == PageKind::Unknown {
        page.problems.push(Problem::new(
            Severity::Warning,
            "kind",
            Some(special),
            "pd_special",
            format!(
                "page kind not established from its {}-byte special space; shown as a generic page",
                data.len().saturating_sub(special)
            ),
        ));
    }

    page.checksum = Some(check_checksum(&header, data, opts, &mut page.problems));
    page.header = Some(header);
    page.spans = r.into_spans();
    page
}

fn read_header(r: &mut Reader) -> Result<PageHeader, ReadError> {
    r.set_context(Region::Header, None);
    let xlogid = r.peek_u32(0, "pd_lsn")?;
    let xrecoff = r.peek_u32(4, "pd_lsn")?;
    let pd_lsn = Lsn { xlogid, xrecoff };
    r.mark(0, 8, "pd_lsn", pd_lsn.to_string());
    let pd_checksum = r.u16(8, "pd_checksum")?;
    let pd_flags = r.u16(10, "pd_flags")?;
    if pd_flags != 0 {
        r.show_last(format!(
            "0x{pd_flags:04x} {}",
            flags::join(pd_flags, flags::PD_FLAGS, 0xFFFF)
        ));
    }
    let pd_lower = r.u16(12, "pd_lower")?;
    let pd_upper = r.u16(14, "pd_upper")?;
    let pd_special = r.u16(16, "pd_special")?;
    let pd_pagesize_version = r.u16(18, "pd_pagesize_version")?;
    r.show_last(format!(
        "{} v{}",
        pd_pagesize_version & 0xFF00,
        pd_pagesize_version & 0x00FF
    ));
    let pd_prune_xid = r.u32(20, "pd_prune_xid")?;
    Ok(PageHeader {
        pd_lsn,
        pd_checksum,
        pd_flags,
        pd_lower,
        pd_upper,
        pd_special,
        pd_pagesize_version,
        pd_prune_xid,
    })
}

fn check_header(h: &PageHeader, size: usize, problems: &mut Vec<Problem>) {
    let mut err = |offset: usize, field: &str, message: String| {
        problems.push(Problem::new(
            Severity::Error,
            "header",
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
    if h.layout_version() != PG_PAGE_LAYOUT_VERSION {
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
    if lower < SIZE_OF_PAGE_HEADER {
        err(
            12,
            "pd_lower",
            format!("pd_lower {lower} is inside the 24-byte page header"),
        );
    }
    if lower > upper {
        err(
            12,
            "pd_lower",
            format!("pd_lower {lower} is above pd_upper {upper}"),
        );
    }
    if upper > special {
        err(
            14,
            "pd_upper",
            format!("pd_upper {upper} is above pd_special {special}"),
        );
    }
    if special > size {
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
    let (_, unknown) = flags::names(h.pd_flags, flags::PD_FLAGS, 0xFFFF);
    if unknown != 0 {
        err(
            10,
            "pd_flags",
            format!("unknown pd_flags bits 0x{unknown:04x}"),
        );
    }
}

/// `PageGetFreeSpace`: pd_upper − pd_lower − sizeof(ItemIdData), never below 0.
pub fn page_free_space(h: &PageHeader) -> u32 {
    let space = i64::from(h.pd_upper) - i64::from(h.pd_lower);
    if space < SIZE_OF_ITEM_ID as i64 {
        0
    } else {
        (space - SIZE_OF_ITEM_ID as i64) as u32
    }
}

/// Whether pd_lower delimits a line pointer array on this page (it does not on
/// btree meta and deleted pages, hash meta and bitmap pages, GIN meta and
/// posting-tree pages, SP-GiST and BRIN metapages, BRIN revmap pages, FSM and VM pages).
fn uses_line_pointers(kind: PageKind, h: &PageHeader, r: &Reader) -> bool {
    let special = usize::from(h.pd_special);
    let flag_at = |off: usize| r.peek_u16(special + off, "flags").unwrap_or(0);
    match kind {
        PageKind::Btree => flag_at(12) & (btree::BTP_META | btree::BTP_DELETED) == 0,
        PageKind::Hash => matches!(
            special::hash_page_type(flag_at(12)),
            "bucket" | "overflow" | "unused"
        ),
        // GIN_META 0x08, GIN_DATA 0x01
        PageKind::Gin => flag_at(6) & 0x0009 == 0,
        PageKind::Brin => r.peek_u16(r.len().saturating_sub(2), "type").ok() == Some(0xF093),
        PageKind::Fsm | PageKind::Vm | PageKind::New => false,
        // SPGIST_META 0x01: the metapage's pd_lower covers SpGistMetaPageData.
        PageKind::SpGist => flag_at(0) & 0x0001 == 0,
        PageKind::Heap | PageKind::Sequence | PageKind::Gist | PageKind::Unknown => true,
    }
}

/// Decide the page kind from the special space (size and identifying words).
pub fn detect_kind(h: &PageHeader, data: &[u8], endian: Endian) -> PageKind {
    let special = usize::from(h.pd_special);
    if special > data.len() || special < SIZE_OF_PAGE_HEADER {
        return PageKind::Unknown;
    }
    let r = Reader::new(data, endian);
    let special_size = data.len() - special;
    let last_u16 = data
        .len()
        .checked_sub(2)
        .and_then(|at| r.peek_u16(at, "page id").ok());
    let body_is_zero = data
        .get(SIZE_OF_PAGE_HEADER..)
        .is_some_and(|b| b.iter().all(|&x| x == 0));
    let bare =
        usize::from(h.pd_lower) == SIZE_OF_PAGE_HEADER && usize::from(h.pd_upper) == data.len();
    match (special_size, last_u16) {
        // FSM and VM pages are PageInit'ed with no line pointers and no special
        // space; their contents sit in what would be a heap page's free space.
        (0, _) if bare && !body_is_zero && special::looks_like_fsm(data) => PageKind::Fsm,
        (0, _) if bare && !body_is_zero => PageKind::Vm,
        (0, _) => PageKind::Heap,
        // hasho_page_id, gist_page_id, spgist_page_id (hash.h, gist.h, spgist_private.h)
        (16, Some(0xFF80)) => PageKind::Hash,
        (16, Some(0xFF81)) => PageKind::Gist,
        (8, Some(0xFF82)) => PageKind::SpGist,
        // BRIN_PAGETYPE_META / REVMAP / REGULAR (brin_page.h)
        (8, Some(0xF091..=0xF093)) => PageKind::Brin,
        // btpo_cycleid never exceeds MAX_BT_CYCLE_ID (0xFF7F)
        (16, Some(id)) if id <= 0xFF7F => PageKind::Btree,
        (8, _) if r.peek_u32(special, "sequence_magic").ok() == Some(0x1717) => PageKind::Sequence,
        // GinPageOpaqueData has no page id: an 8-byte special space that is none of the above.
        (8, _) => PageKind::Gin,
        _ => PageKind::Unknown,
    }
}

fn read_line_pointers(
    r: &mut Reader,
    h: &PageHeader,
    size: usize,
    problems: &mut Vec<Problem>,
) -> Vec<ItemId> {
    let claimed = h.max_offset_number();
    let room = size.saturating_sub(SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID;
    let count = claimed.min(room);
    if claimed > room {
        problems.push(Problem::new(
            Severity::Error,
            "line-pointer",
            Some(12),
            "pd_lower",
            format!("pd_lower claims {claimed} line pointers, only {room} fit in the page"),
        ));
    }
    let mut ids = Vec::with_capacity(count);
    r.set_context(Region::LinePointer, None);
    for i in 0..count {
        let at = SIZE_OF_PAGE_HEADER + i * SIZE_OF_ITEM_ID;
        let lp = (i + 1) as u16;
        let name = format!("lp[{lp}]");
        let Ok(word) = r.u32(at, &name) else { break };
        let id = ItemId::from_word(lp, word);
        r.show_last(describe_item_id(&id));
        ids.push(id);
    }
    ids
}

/// `NORMAL 8152+39`, `REDIRECT → 7`, `DEAD`, `UNUSED`.
pub fn describe_item_id(id: &ItemId) -> String {
    match id.lp_flags {
        LpFlags::Redirect => format!("REDIRECT → {}", id.lp_off),
        f if id.lp_off == 0 && id.lp_len == 0 => f.short().to_string(),
        f => format!("{} {}+{}", f.short(), id.lp_off, id.lp_len),
    }
}

fn check_line_pointers(ids: &[ItemId], h: &PageHeader, size: usize, problems: &mut Vec<Problem>) {
    let upper = usize::from(h.pd_upper);
    let mut extents: Vec<(usize, usize, u16)> = Vec::new();
    for id in ids {
        let at = SIZE_OF_PAGE_HEADER + (usize::from(id.lp) - 1) * SIZE_OF_ITEM_ID;
        let field = format!("lp[{}]", id.lp);
        let mut err = |message: String| {
            problems.push(Problem::new(
                Severity::Error,
                "line-pointer",
                Some(at),
                field.clone(),
                message,
            ));
        };
        match id.lp_flags {
            LpFlags::Redirect => {
                if id.lp_off == 0 || usize::from(id.lp_off) > ids.len() {
                    err(format!(
                        "redirect to line pointer {} which does not exist ({} on the page)",
                        id.lp_off,
                        ids.len()
                    ));
                }
            }
            LpFlags::Unused if !id.has_storage() => {}
            _ if !id.has_storage() => {}
            flags => {
                let start = usize::from(id.lp_off);
                let end = start + usize::from(id.lp_len);
                if end > size {
                    err(format!(
                        "item {}+{} runs past the end of the {size}-byte page",
                        id.lp_off, id.lp_len
                    ));
                    continue;
                }
                if start < upper {
                    err(format!("item at {start} starts below pd_upper {upper}"));
                }
                if !start.is_multiple_of(MAXALIGN) {
                    err(format!("item offset {start} is not MAXALIGNed"));
                }
                if flags == LpFlags::Normal
                    && h.pd_special == h.pd_pagesize_version & 0xFF00
                    && usize::from(id.lp_len) < MIN_HEAP_TUPLE_SIZE
                {
                    err(format!(
                        "lp_len {} is shorter than a heap tuple header ({MIN_HEAP_TUPLE_SIZE})",
                        id.lp_len
                    ));
                }
                extents.push((start, end, id.lp));
            }
        }
    }
    extents.sort_unstable();
    for pair in extents.windows(2) {
        if let [(_, end_a, lp_a), (start_b, _, lp_b)] = pair {
            if start_b < end_a {
                let at = SIZE_OF_PAGE_HEADER + (usize::from(*lp_b) - 1) * SIZE_OF_ITEM_ID;
                problems.push(Problem::new(
                    Severity::Error,
                    "line-pointer",
                    Some(at),
                    format!("lp[{lp_b}]"),
                    format!("item {lp_b} overlaps item {lp_a}"),
                ));
            }
        }
    }
}

fn check_checksum(
    h: &PageHeader,
    data: &[u8],
    opts: &PageOptions,
    problems: &mut Vec<Problem>,
) -> ChecksumCheck {
    let computed = checksum::pg_checksum_page(data, opts.blkno, opts.endian);
    let valid = computed == Some(h.pd_checksum);
    if h.pd_checksum != 0 && !valid {
        let computed_text = computed.map_or("none".to_string(), |c| format!("0x{c:04x}"));
        problems.push(Problem::new(
            Severity::Error,
            "checksum",
            Some(8),
            "pd_checksum",
            format!(
                "checksum mismatch for block {}: stored 0x{:04x}, computed {computed_text} \
                 (a get_raw_page() image can carry a stale checksum; check --blkno)",
                opts.blkno, h.pd_checksum
            ),
        ));
    }
    ChecksumCheck {
        stored: h.pd_checksum,
        computed,
        valid,
    }
}
