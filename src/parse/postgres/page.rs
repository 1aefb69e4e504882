//! Generic PostgreSQL page: header, line pointer array, kind, checksum.
//! Heap tuples are decoded by [`super::heap`].

use crate::model::postgres::{
    ChecksumCheck, HeapItem, ItemId, Lsn, PageHeader, PageKind, PageLayout, PgPage,
    SIZE_OF_ITEM_ID, SIZE_OF_PAGE_HEADER,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{Endian, ReadError, Reader};

use super::{brin, btree, check, checksum, gin, heap, index, special, spgist};
use crate::model::postgres::flags;

/// How to read one page.
#[derive(Clone, Copy, Debug)]
pub struct PageOptions {
    /// Block number of this page in its relation (mixed into the checksum).
    pub blkno: u64,
    /// `blkno` is the page's own block number (given with --blkno, or its
    /// position in a relation file), not an assumption. When it is assumed
    /// and the checksum does not fit it, the block numbers it fits are listed
    /// instead of a checksum error.
    pub blkno_known: bool,
    /// The image came through text (hex, bytea, base64, od, ...): most often
    /// a get_raw_page() copy of a shared buffer, whose checksum is stale when
    /// the page changed since PostgreSQL last wrote it. A mismatch is then a
    /// warning, not an error.
    pub from_text: bool,
    /// Force a page kind instead of detecting it.
    pub kind: Option<PageKind>,
    /// Byte order of the page's integers (the host's that wrote it).
    pub endian: Endian,
}

impl Default for PageOptions {
    fn default() -> Self {
        PageOptions {
            blkno: 0,
            blkno_known: false,
            from_text: false,
            kind: None,
            endian: Endian::Little,
        }
    }
}

/// Decode one page image. Never fails: what cannot be read becomes a problem.
pub fn parse_page(data: &[u8], opts: &PageOptions) -> PgPage {
    parse(data, opts, true)
}

/// [`parse_page`] without the byte spans of the hex view (`spans` is empty):
/// for JSON and other output that never shows them, at a fraction of the cost.
pub fn parse_page_without_spans(data: &[u8], opts: &PageOptions) -> PgPage {
    parse(data, opts, false)
}

fn parse(data: &[u8], opts: &PageOptions, spans: bool) -> PgPage {
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
        layout: PageLayout {
            big_endian: opts.endian == Endian::Big,
            ..PageLayout::default()
        },
    };
    let mut r = Reader::new(data, opts.endian);
    if !spans {
        r = r.without_spans();
    }

    if is_new_page(data) {
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
            page.problems.push(short_header(&e));
            page.spans = r.into_spans();
            return page;
        }
    };
    let usable = check::header(&header, data.len(), &mut page.problems);

    page.kind = opts
        .kind
        .unwrap_or_else(|| detect_kind(&header, data, opts.endian));

    let meta_note = match page.kind {
        PageKind::Brin => brin::detect_max_align(&header, data.len()),
        PageKind::Btree if usable => btree::detect_meta_max_align(&r, &header),
        _ => None,
    };
    // Pages whose build shows outside their items: a BRIN page's special
    // space, a btree metapage's BTMetaPageData.
    if let Some(note) = meta_note {
        page.layout.max_align = 4;
        if page.kind == PageKind::Brin {
            brin::accept_special(&mut page.problems);
        }
        page.problems.push(note);
    }
    let line_pointers = if usable && line_pointers_in_use(page.kind, &header, data, opts.endian) {
        let ids = read_line_pointers(&mut r, &header, &mut page.problems);
        let note = match page.kind {
            PageKind::Heap => heap::detect_max_align(&r, &ids),
            PageKind::Btree | PageKind::Hash | PageKind::Gist => btree::detect_max_align(&r, &ids),
            PageKind::Gin => gin::detect_max_align(&r, &header, &ids),
            PageKind::SpGist => spgist::detect_max_align(&r, &header, &ids),
            _ => None,
        };
        if let Some(note) = note {
            page.layout.max_align = 4;
            page.problems.push(note);
        }
        check::line_pointers(
            &ids,
            &header,
            data.len(),
            page.layout.max_align,
            &mut page.problems,
        );
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
        PageKind::Btree => btree::parse(
            &mut r,
            &header,
            &line_pointers,
            opts.blkno,
            page.layout,
            &mut page.problems,
        )
        .map(Some),
        kind => special::parse(&mut r, &header, kind, opts.blkno),
    };
    match am {
        Ok(am) => page.am = am,
        Err(e) => page.problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Special,
            Some(e.offset),
            e.field.clone(),
            format!("cannot decode the {} special space: {e}", page.kind.name()),
        )),
    }

    let index_kind = matches!(
        page.kind,
        PageKind::Hash | PageKind::Gist | PageKind::Gin | PageKind::Brin | PageKind::SpGist
    );
    if let (true, Some(am)) = (index_kind, page.am.as_mut()) {
        index::parse_items(
            &mut r,
            &header,
            &line_pointers,
            am,
            page.layout,
            &mut page.problems,
        );
    } else if page.kind != PageKind::Btree {
        page.items.reserve(line_pointers.len());
        for id in line_pointers {
            let item = if matches!(page.kind, PageKind::Heap | PageKind::Sequence) {
                heap::parse_item(&mut r, id, opts.blkno, page.layout, &mut page.problems)
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

    if page.kind == PageKind::Unknown {
        page.problems.push(Problem::new(
            Severity::Warning,
            ProblemClass::Kind,
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

/// Whether the bytes between the header and pd_lower are line pointers.
/// Metapages, deleted btree/GiST/GIN/SP-GiST pages, hash bitmap pages, GIN
/// data pages and BRIN meta/revmap pages keep other data there (pd_lower
/// marks its end), so their "line pointers" are not checked as such.
pub(crate) fn line_pointers_in_use(
    kind: PageKind,
    h: &PageHeader,
    data: &[u8],
    endian: Endian,
) -> bool {
    let r = Reader::new(data, endian);
    let special = usize::from(h.pd_special);
    let special_u16 = |at: usize| r.peek_u16(special + at, "special").unwrap_or(0);
    match kind {
        // btpo_flags (nbtree.h): BTP_META, or BTP_DELETED with BTP_HAS_FULLXID
        // (PostgreSQL 14+); a page deleted before 14 keeps its line pointers.
        PageKind::Btree => {
            let f = special_u16(12);
            f & 0x0008 == 0 && (f & 0x0004 == 0 || f & 0x0100 == 0)
        }
        // hasho_flag (hash.h): LH_BITMAP_PAGE | LH_META_PAGE
        PageKind::Hash => special_u16(12) & (0x0004 | 0x0008) == 0,
        // GISTPageOpaqueData.flags (gist.h): F_DELETED
        PageKind::Gist => special_u16(12) & 0x0002 == 0,
        // GinPageOpaqueData.flags (ginblock.h): GIN_DATA | GIN_DELETED | GIN_META
        PageKind::Gin => special_u16(6) & (0x0001 | 0x0004 | 0x0008) == 0,
        // SpGistPageOpaqueData.flags (spgist_private.h): SPGIST_META | SPGIST_DELETED
        PageKind::SpGist => special_u16(0) & (0x0001 | 0x0002) == 0,
        // BRIN_PAGETYPE_REGULAR (brin_page.h), the page type in the last two bytes
        PageKind::Brin => {
            data.len()
                .checked_sub(2)
                .and_then(|at| r.peek_u16(at, "brin page type").ok())
                == Some(0xF093)
        }
        PageKind::New | PageKind::Fsm | PageKind::Vm => false,
        PageKind::Heap | PageKind::Sequence | PageKind::Unknown => true,
    }
}

/// The page header's fields (`PageHeaderData`, bufpage.h), read without
/// recording spans.
pub(crate) fn peek_header(r: &Reader) -> Result<PageHeader, ReadError> {
    Ok(PageHeader {
        pd_lsn: Lsn {
            xlogid: r.peek_u32(0, "pd_lsn")?,
            xrecoff: r.peek_u32(4, "pd_lsn")?,
        },
        pd_checksum: r.peek_u16(8, "pd_checksum")?,
        pd_flags: r.peek_u16(10, "pd_flags")?,
        pd_lower: r.peek_u16(12, "pd_lower")?,
        pd_upper: r.peek_u16(14, "pd_upper")?,
        pd_special: r.peek_u16(16, "pd_special")?,
        pd_pagesize_version: r.peek_u16(18, "pd_pagesize_version")?,
        pd_prune_xid: r.peek_u32(20, "pd_prune_xid")?,
    })
}

/// [`peek_header`], then every field recorded as a span for the hex view.
fn read_header(r: &mut Reader) -> Result<PageHeader, ReadError> {
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
        // BRIN_PAGETYPE_META / REVMAP / REGULAR (brin_page.h); 4 bytes on a
        // 32-bit build (BrinSpecialSpace is MAXALIGN(1) bytes)
        (8 | 4, Some(0xF091..=0xF093)) => PageKind::Brin,
        // btpo_cycleid never exceeds MAX_BT_CYCLE_ID (0xFF7F)
        (16, Some(id)) if id <= 0xFF7F => PageKind::Btree,
        (8, _) if r.peek_u32(special, "sequence_magic").ok() == Some(0x1717) => PageKind::Sequence,
        // GinPageOpaqueData has no page id: an 8-byte special space that is none of the above.
        (8, _) => PageKind::Gin,
        _ => PageKind::Unknown,
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
    Some(Problem::new(
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
    ))
}

/// [`item_ids`], each recorded as a span for the hex view.
fn read_line_pointers(r: &mut Reader, h: &PageHeader, problems: &mut Vec<Problem>) -> Vec<ItemId> {
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

/// Moved to [`crate::model::postgres::names`]; kept at its old path for code not yet updated.
pub(crate) use crate::model::postgres::names::describe_item_id;

pub(crate) fn check_checksum(
    h: &PageHeader,
    data: &[u8],
    opts: &PageOptions,
    problems: &mut Vec<Problem>,
) -> ChecksumCheck {
    let computed = checksum::pg_checksum_page(data, opts.blkno, opts.endian);
    let valid = computed == Some(h.pd_checksum);
    let check = ChecksumCheck {
        stored: h.pd_checksum,
        computed,
        valid,
    };
    // Without a known block number every value fits some block, so a small
    // one is read as pd_tli only where the block number is known.
    if check.looks_like_tli() && opts.blkno_known {
        // A warning, not an error: it may be a timeline, but one damaged
        // page in 256 also fails with a value this small.
        problems.push(Problem::new(
            Severity::Warning,
            ProblemClass::Header,
            Some(8),
            "pd_checksum",
            format!(
                "pd_checksum {} is not this page's checksum (0x{:04x} for block {}): pages \
                 written before PostgreSQL 9.3 hold pd_tli there, the timeline that wrote \
                 them (here {}); such a page, as a pg_upgraded cluster keeps, carries no \
                 checksum, so none is checked (a cluster with data checksums on cannot hold \
                 one: there it is a checksum failure, and any damaged page can fail with a \
                 value this small)",
                h.pd_checksum,
                computed.unwrap_or(0),
                opts.blkno,
                h.pd_checksum
            ),
        ));
    } else if h.pd_checksum != 0 && !valid {
        let mut p = checksum_problem(data, h.pd_checksum, computed, opts);
        if check.looks_like_tli() {
            p.message.push_str(&format!(
                "; or, on a page written before PostgreSQL 9.3, pd_tli (timeline {}), no \
                 checksum (pass --blkno to tell)",
                h.pd_checksum
            ));
        }
        problems.push(p);
    }
    check
}

/// Smallest block numbers listed when a checksum fits another block than the assumed one.
const FITTING_SHOWN: usize = 5;

/// A non-zero pd_checksum that is not pg_checksum_page(page, blkno), read in
/// context: an error on a page read from a relation at a known block number;
/// a warning on a copy that came through text (its checksum may be stale);
/// and, when the block number is only assumed, the block numbers it does fit.
fn checksum_problem(
    data: &[u8],
    stored: u16,
    computed: Option<u16>,
    opts: &PageOptions,
) -> Problem {
    let blkno = opts.blkno;
    let problem = |severity, message: String| {
        Problem::new(
            severity,
            ProblemClass::Checksum,
            Some(8),
            "pd_checksum",
            message,
        )
    };
    let Some(computed) = computed else {
        return problem(
            Severity::Error,
            format!(
                "stored checksum 0x{stored:04x}, but none can be computed for a {}-byte page",
                data.len()
            ),
        );
    };
    let fits = if opts.blkno_known {
        None
    } else {
        checksum::fitting_blocks(data, stored, opts.endian, FITTING_SHOWN)
    };
    let stale = "normal for a get_raw_page() copy of a buffer changed since it was last \
                 written (PostgreSQL sets the checksum only when it writes the page out)";
    match fits {
        Some(fits) => {
            let (first, rest) = fits.nearest.split_first().unwrap_or((&0, &[]));
            let rest: String = rest.iter().map(|b| format!("{b}, ")).collect();
            problem(
                Severity::Warning,
                format!(
                    "checksum 0x{stored:04x} fits block {first} (and {} others: {rest}…), not \
                     block {blkno} as assumed without --blkno (0x{computed:04x}); pass --blkno \
                     to check it{}",
                    fits.count - 1,
                    if opts.from_text {
                        "; a get_raw_page() copy can also carry a stale checksum"
                    } else {
                        ""
                    }
                ),
            )
        }
        None if opts.from_text => problem(
            Severity::Warning,
            format!(
                "checksum mismatch for block {blkno}: stored 0x{stored:04x}, computed \
                 0x{computed:04x}; {stale}"
            ),
        ),
        None => problem(
            Severity::Error,
            format!(
                "checksum mismatch for block {blkno}: stored 0x{stored:04x}, computed 0x{computed:04x}"
            ),
        ),
    }
}

/// The page size a PostgreSQL page header announces in pd_pagesize_version
/// (bytes 18–19: size in the high byte, layout version 4 in the low), if it
/// is a plausible one, read in either byte order (a big-endian host stores
/// 0x2004 as `20 04`).
pub fn page_size_from_header(head: &[u8]) -> Option<usize> {
    let b = head.get(18..20)?;
    [Endian::Little, Endian::Big].into_iter().find_map(|e| {
        let v = e.read_u16(b)?;
        let size = usize::from(v & 0xFF00);
        let version = v & 0x00FF;
        (size >= 1024 && size.is_power_of_two() && version == 4).then_some(size)
    })
}

/// pd_pagesize_version `v` read in some byte order is a page size PostgreSQL
/// supports (1 KB to 32 KB) and a layout version it ever wrote (1 to 4);
/// when `len` is given, the size is the image's.
fn plausible_size_version(v: u16, len: Option<usize>) -> bool {
    let size = usize::from(v & 0xFF00);
    let version = v & 0x00FF;
    (1..=4).contains(&version)
        && (1024..=32768).contains(&size)
        && size.is_power_of_two()
        && len.is_none_or(|l| l == size)
}

/// pd_lower, pd_upper and pd_special read in `endian` are in order inside
/// a `len`-byte page (bufpage.h's PageHeaderIsValid ordering).
fn header_in_order(data: &[u8], endian: Endian) -> bool {
    let r = Reader::new(data, endian);
    let Ok(h) = peek_header(&r) else {
        return false;
    };
    let (lower, upper, special) = (
        usize::from(h.pd_lower),
        usize::from(h.pd_upper),
        usize::from(h.pd_special),
    );
    SIZE_OF_PAGE_HEADER <= lower && lower <= upper && upper <= special && special <= data.len()
}

/// The byte order of the host that wrote `data`, from the page itself.
/// pd_pagesize_version is 0x2004 on an 8 KB page: `04 20` on little-endian
/// hosts, `20 04` on big-endian ones, and read in the wrong order it names no
/// page size and layout version (0x0420: version 32). When the word settles
/// nothing (a 1 KB page stores `04 04` either way; a damaged header), the
/// order in which pd_lower ≤ pd_upper ≤ pd_special ≤ the page size holds
/// decides; little-endian when neither or both do.
pub fn detect_endian(data: &[u8]) -> Endian {
    let Some(b) = data.get(18..20) else {
        return Endian::Little;
    };
    let (le, be) = (
        u16::from_le_bytes([b[0], b[1]]),
        u16::from_be_bytes([b[0], b[1]]),
    );
    let len = Some(data.len());
    match (
        plausible_size_version(le, len),
        plausible_size_version(be, len),
    ) {
        (true, false) => return Endian::Little,
        (false, true) => return Endian::Big,
        _ => {}
    }
    match (
        plausible_size_version(le, None),
        plausible_size_version(be, None),
    ) {
        (true, false) => return Endian::Little,
        (false, true) => return Endian::Big,
        _ => {}
    }
    if !header_in_order(data, Endian::Little) && header_in_order(data, Endian::Big) {
        Endian::Big
    } else {
        Endian::Little
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty heap page whose pd_checksum is right for block `blkno`.
    fn page_of_block(blkno: u64) -> Vec<u8> {
        let mut page = vec![0u8; 8192];
        page[12..14].copy_from_slice(&24u16.to_le_bytes());
        page[14..16].copy_from_slice(&8192u16.to_le_bytes());
        page[16..18].copy_from_slice(&8192u16.to_le_bytes());
        page[18..20].copy_from_slice(&0x2004u16.to_le_bytes());
        let c = checksum::pg_checksum_page(&page, blkno, Endian::Little).unwrap();
        page[8..10].copy_from_slice(&c.to_le_bytes());
        page
    }

    /// An empty page of `size` bytes with its header in `endian`.
    fn empty_page(size: usize, endian: Endian) -> Vec<u8> {
        let mut page = vec![0u8; size];
        let put = |p: &mut Vec<u8>, at: usize, v: u16| {
            let b = match endian {
                Endian::Little => v.to_le_bytes(),
                Endian::Big => v.to_be_bytes(),
            };
            p[at..at + 2].copy_from_slice(&b);
        };
        put(&mut page, 12, 28);
        put(&mut page, 14, (size - 64) as u16);
        put(&mut page, 16, size as u16);
        put(&mut page, 18, size as u16 | 4);
        page
    }

    #[test]
    fn byte_order_from_the_page() {
        for size in [1024, 2048, 8192, 32768] {
            for e in [Endian::Little, Endian::Big] {
                assert_eq!(detect_endian(&empty_page(size, e)), e, "{size} {e:?}");
            }
        }
        // 1 KB stores pd_pagesize_version as 04 04 either way: pd_lower,
        // pd_upper and pd_special decide.
        let be = empty_page(1024, Endian::Big);
        assert_eq!(be[18..20], [4, 4]);
        assert_eq!(detect_endian(&be), Endian::Big);
        // Nothing to tell: little-endian.
        assert_eq!(detect_endian(&[0xff; 8192]), Endian::Little);
        assert_eq!(detect_endian(&[1, 2, 3]), Endian::Little);
        assert_eq!(
            page_size_from_header(&empty_page(16384, Endian::Big)),
            Some(16384)
        );
        // A big-endian line pointer: lp_off in the top 15 bits.
        let mut page = empty_page(8192, Endian::Big);
        let word: u32 = (8000 << 17) | (1 << 15) | 40;
        page[24..28].copy_from_slice(&word.to_be_bytes());
        let r = Reader::new(&page, Endian::Big);
        let h = peek_header(&r).unwrap();
        let ids = item_ids(&r, &h, &mut Vec::new());
        assert_eq!((ids[0].lp_off, ids[0].lp_len), (8000, 40));
        assert_eq!(ids[0].lp_flags, crate::model::postgres::LpFlags::Normal);
    }

    fn checksum_problems(page: &[u8], opts: PageOptions) -> Vec<(Severity, String)> {
        parse_page(page, &opts)
            .problems
            .into_iter()
            .filter(|p| p.class == "checksum")
            .map(|p| (p.severity, p.message))
            .collect()
    }

    #[test]
    fn checksums_are_read_in_context() {
        let page = page_of_block(5);
        let at = |blkno, blkno_known, from_text| PageOptions {
            blkno,
            blkno_known,
            from_text,
            ..PageOptions::default()
        };
        assert!(checksum_problems(&page, at(5, true, false)).is_empty());
        let p = checksum_problems(&page, at(6, true, false));
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].0, Severity::Error);
        assert!(!p[0].1.contains("--blkno"), "{}", p[0].1);
        let p = checksum_problems(&page, at(6, true, true));
        assert_eq!(p[0].0, Severity::Warning);
        assert!(p[0].1.contains("get_raw_page() copy"), "{}", p[0].1);
        let p = checksum_problems(&page, at(0, false, false));
        assert_eq!(p[0].0, Severity::Warning);
        assert!(p[0].1.contains(" 5"), "{}", p[0].1);
        assert!(p[0].1.contains("pass --blkno"), "{}", p[0].1);
    }
}
