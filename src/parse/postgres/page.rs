//! Generic PostgreSQL page: header, line pointer array, kind, checksum.
//! Heap tuples are decoded by [`super::heap`].

use crate::model::postgres::{
    ChecksumCheck, HeapItem, PageHeader, PageKind, PageLayout, PgPage, SIZE_OF_PAGE_HEADER,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{Endian, Reader};

use super::kinds::{self, ItemsAs};
use super::layout::{self, read_header, read_line_pointers, short_header};
use super::{checksum, heap, index};

/// Moved to [`super::layout`] and [`super::kinds`]; kept at their old paths
/// for code not yet updated.
pub(crate) use super::kinds::detect_kind;
pub(crate) use super::layout::{is_new_page, item_ids, peek_header};

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
    let usable = layout::header(&header, data.len(), &mut page.problems);

    page.kind = opts
        .kind
        .unwrap_or_else(|| detect_kind(&header, data, opts.endian));
    let kind = kinds::entry(page.kind);

    // Pages whose build shows outside their items: a BRIN page's special
    // space, a btree metapage's BTMetaPageData.
    if let Some(note) = (kind.special_evidence)(&r, &header, usable) {
        page.layout.max_align = 4;
        (kind.accept_special)(&mut page.problems);
        page.problems.push(note);
    }
    let line_pointers = if usable && (kind.line_pointers)(&r, &header) {
        let ids = read_line_pointers(&mut r, &header, &mut page.problems);
        if let Some(note) = (kind.item_evidence)(&r, &header, &ids) {
            page.layout.max_align = 4;
            page.problems.push(note);
        }
        layout::line_pointers(
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

    match (kind.parse)(
        &mut r,
        &header,
        &line_pointers,
        opts.blkno,
        page.layout,
        &mut page.problems,
    ) {
        Ok(am) => page.am = am,
        Err(e) => page.problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Special,
            Some(e.offset),
            e.field.clone(),
            format!("cannot decode the {} special space: {e}", page.kind.name()),
        )),
    }

    match (kind.items, page.am.as_mut()) {
        (ItemsAs::IndexTuples, Some(am)) => index::parse_items(
            &mut r,
            &header,
            &line_pointers,
            am,
            page.layout,
            &mut page.problems,
        ),
        (ItemsAs::InSpecial, _) => {}
        (items, _) => {
            page.items.reserve(line_pointers.len());
            for id in line_pointers {
                let item = if items == ItemsAs::HeapTuples {
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
        Endian::Little.u16_from([b[0], b[1]]),
        Endian::Big.u16_from([b[0], b[1]]),
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
