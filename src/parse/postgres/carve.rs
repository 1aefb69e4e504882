//! Carving PostgreSQL pages out of a byte image: the cheap first test at a
//! 512-byte boundary ([`quick`]), the full check of a page that passed it
//! ([`examine`], keeping only a small [`PgSig`] — never the page), and the
//! grouping of what was found into relations ([`group`]).
//!
//! Where data checksums are on, `pd_checksum` is
//! `((pg_checksum_block(page) ^ blkno) % 65535) + 1`: with the 32-bit hash
//! computed once, the block numbers below a limit that fit are a handful
//! ([`candidates`]); pages that follow each other in the image (a file's
//! extent) keep the one base block number that fits them all. Pieces of
//! one file are joined by their block numbers (the next piece starts where
//! the last ended, or btree sibling links point across), and a page seen
//! twice keeps its newest pd_lsn. Without checksums, pages stay in image
//! order, one group per run of adjacent pages of one shape.
//!
//! No I/O here: the command reads the image and writes the groups.

use std::collections::HashMap;

use crate::model::postgres::flags::{HEAP_HASEXTERNAL, HEAP_NATTS_MASK};
use crate::model::postgres::{LpFlags, PageKind, SIZE_OF_PAGE_HEADER};
use crate::model::Severity;
use crate::reader::{Endian, Reader};

use super::btree::BT_OPAQUE_SIZE;
use super::check::check_page;
use super::checksum::checksum_block;
use super::page::{item_ids, PageOptions};

/// The largest PostgreSQL page (BLCKSZ 32 KB).
pub(crate) const MAX_PAGE: usize = 32768;

/// The first test at an image offset: pd_pagesize_version (bytes 18–19)
/// names a page size of 1 to 32 KB and layout version 4, and pd_lower,
/// pd_upper and pd_special (bytes 12–17) are ordered inside that size,
/// pd_special MAXALIGNed. A few comparisons; the page size if it passes.
#[inline]
pub(crate) fn quick(head: &[u8], endian: Endian) -> Option<usize> {
    let word =
        |at: usize| -> Option<usize> { endian.read_u16(head.get(at..at + 2)?).map(usize::from) };
    let v = word(18)?;
    if v & 0xFF != 4 {
        return None;
    }
    let size = v & 0xFF00;
    if !(1024..=MAX_PAGE).contains(&size) || !size.is_power_of_two() {
        return None;
    }
    let (lower, upper, special) = (word(12)?, word(14)?, word(16)?);
    (SIZE_OF_PAGE_HEADER <= lower
        && lower <= upper
        && upper <= special
        && special <= size
        && special.is_multiple_of(8))
    .then_some(size)
}

/// What a carved page's tuples and special space say it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PgClass {
    /// No items: fits any relation of its size.
    Empty,
    /// Heap tuples; `natts` of the first one (t_infomask2 & HEAP_NATTS_MASK).
    Heap { natts: u16 },
    /// Heap tuples of TOAST chunks: `chunk_id oid, chunk_seq int4, chunk_data bytea`.
    Toast,
    /// A btree page (BTPageOpaqueData).
    Btree,
    /// Any other page kind.
    Other(PageKind),
}

impl PgClass {
    /// The manifest's `kind`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            PgClass::Empty => "empty",
            PgClass::Heap { .. } => "heap",
            PgClass::Toast => "toast",
            PgClass::Btree => "btree",
            PgClass::Other(kind) => kind.name(),
        }
    }
}

/// What is kept of a carved page: enough to place and group it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PgSig {
    pub size: u32,
    pub endian: Endian,
    pub class: PgClass,
    /// pd_lsn as one 64-bit number.
    pub lsn: u64,
    pub pd_checksum: u16,
    /// `pg_checksum_block` of the page (pd_checksum counted as zero).
    pub hash: u32,
    /// Btree: btpo_prev and btpo_next (P_NONE = 0).
    pub btpo_prev: u32,
    pub btpo_next: u32,
    /// Heap: va_valueid of up to two TOAST pointers in the tuples; TOAST:
    /// the lowest and highest chunk_id on the page. 0 when none.
    pub toast_ids: [u32; 2],
    /// [`item_keys`] of the first four normal items (0 where fewer): what
    /// tells two versions of one block of one relation apart from pages of
    /// other relations.
    pub keys: [u32; 4],
}

/// VARTAG_ONDISK (varatt.h): the tag of a TOAST pointer.
const VARTAG_ONDISK: u8 = 18;
/// `TOAST_MAX_CHUNK_SIZE` is below 8 KB for every page size PostgreSQL allows.
const MAX_CHUNK_SEQ: i32 = 1 << 20;

/// The full check of a page that passed [`quick`]: the shared structural
/// check (header, line pointers, tuple headers, btree special space) with
/// no error, then its signature. `None` when it is not a sound page.
pub(crate) fn examine(page: &[u8], endian: Endian) -> Option<PgSig> {
    let opts = PageOptions {
        endian,
        ..PageOptions::default()
    };
    let mut problems = Vec::new();
    let checked = check_page(page, &opts, &mut problems);
    if !checked.header_usable || problems.iter().any(|p| p.severity == Severity::Error) {
        return None;
    }
    let h = checked.header?;
    let hash = checksum_block(page, endian)?;
    let r = Reader::new(page, endian);
    let lsn = crate::reader::u64_from_halves(h.pd_lsn.xlogid, h.pd_lsn.xrecoff);
    let mut sig = PgSig {
        size: page.len() as u32,
        endian,
        class: PgClass::Other(checked.kind),
        lsn,
        pd_checksum: h.pd_checksum,
        hash,
        btpo_prev: 0,
        btpo_next: 0,
        toast_ids: [0; 2],
        keys: [0; 4],
    };
    for (k, key) in sig.keys.iter_mut().zip(item_keys(page, endian, 4)) {
        *k = key;
    }
    match checked.kind {
        PageKind::Btree => {
            let special = usize::from(h.pd_special);
            if page.len() - special == BT_OPAQUE_SIZE {
                sig.btpo_prev = r.peek_u32(special, "btpo_prev").unwrap_or(0);
                sig.btpo_next = r.peek_u32(special + 4, "btpo_next").unwrap_or(0);
            }
            sig.class = PgClass::Btree;
        }
        PageKind::Heap => {
            let mut ignored = Vec::new();
            let ids = item_ids(&r, &h, &mut ignored);
            sig.class = heap_class(&r, page, &ids, &mut sig.toast_ids);
        }
        _ => {}
    }
    Some(sig)
}

/// A key for each of the first `limit` normal items of a heap or btree
/// page (CRC-32C, never 0): of a heap tuple its `t_xmin` and data bytes
/// (what an UPDATE, a hint bit or a freeze leaves alone: the header's
/// t_xmax, t_ctid and t_infomask change), of an index tuple its bytes.
/// Two versions of one block of one relation share most of them; pages of
/// two relations share none unless the same transaction wrote the same
/// bytes to both. Empty for other pages.
pub(crate) fn item_keys(page: &[u8], endian: Endian, limit: usize) -> Vec<u32> {
    let r = Reader::new(page, endian);
    let Ok(h) = super::page::peek_header(&r) else {
        return Vec::new();
    };
    let heap = match super::page::detect_kind(&h, page, endian) {
        PageKind::Heap => true,
        PageKind::Btree => false,
        _ => return Vec::new(),
    };
    let mut ignored = Vec::new();
    let mut keys = Vec::new();
    for id in item_ids(&r, &h, &mut ignored) {
        if keys.len() >= limit {
            break;
        }
        if id.lp_flags != LpFlags::Normal {
            continue;
        }
        let off = usize::from(id.lp_off);
        let Some(item) = page.get(off..off + usize::from(id.lp_len)) else {
            continue;
        };
        let key = if heap {
            let Some(&t_hoff) = item.get(22) else {
                continue;
            };
            let (Some(xmin), Some(data)) = (item.get(..4), item.get(usize::from(t_hoff)..)) else {
                continue;
            };
            crc32c::crc32c_append(crc32c::crc32c(xmin), data)
        } else {
            crc32c::crc32c(item)
        };
        keys.push(key.max(1));
    }
    keys
}

/// A heap page's class from its normal tuples: TOAST when every one is a
/// chunk, else the first tuple's natts; empty with no tuple. Fills
/// `toast_ids` (see [`PgSig::toast_ids`]).
fn heap_class(
    r: &Reader,
    page: &[u8],
    ids: &[crate::model::postgres::ItemId],
    toast_ids: &mut [u32; 2],
) -> PgClass {
    let mut first_natts = None;
    let mut all_chunks = true;
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    let mut pointers = 0;
    for id in ids.iter().filter(|id| id.lp_flags == LpFlags::Normal) {
        let off = usize::from(id.lp_off);
        let len = usize::from(id.lp_len);
        let Ok(mask2) = r.peek_u16(off + 18, "t_infomask2") else {
            continue;
        };
        let Ok(t_hoff) = r.peek_u8(off + 22, "t_hoff") else {
            continue;
        };
        let mask = r.peek_u16(off + 20, "t_infomask").unwrap_or(0);
        let natts = mask2 & HEAP_NATTS_MASK;
        first_natts.get_or_insert(natts);
        let data = page
            .get(off + usize::from(t_hoff)..off + len)
            .unwrap_or(&[]);
        match chunk_id(r, data, natts, t_hoff) {
            Some(id) => {
                lo = lo.min(id);
                hi = hi.max(id);
            }
            None => all_chunks = false,
        }
        // TOAST pointers, in tuples with HEAP_HASEXTERNAL: a 1-byte header
        // 0x01 (0x80 big-endian), the tag, then varatt_external (va_rawsize, va_extinfo, va_valueid,
        // va_toastrelid), unaligned.
        let header = match r.endian() {
            Endian::Little => 0x01,
            Endian::Big => 0x80,
        };
        let mut at = 0;
        let external = mask & HEAP_HASEXTERNAL != 0;
        while external && pointers < 2 && at + 18 <= data.len() {
            if data[at] == header && data[at + 1] == VARTAG_ONDISK {
                let p = Reader::new(&data[at + 2..at + 18], r.endian());
                let raw = p.peek_u32(0, "va_rawsize").unwrap_or(0);
                let ext = p.peek_u32(4, "va_extinfo").unwrap_or(0) & 0x3FFF_FFFF;
                let value = p.peek_u32(8, "va_valueid").unwrap_or(0);
                let rel = p.peek_u32(12, "va_toastrelid").unwrap_or(0);
                if raw > 0 && raw < 1 << 30 && ext <= raw && value != 0 && rel != 0 {
                    toast_ids[pointers] = value;
                    pointers += 1;
                    at += 18;
                    continue;
                }
            }
            at += 1;
        }
    }
    match first_natts {
        None => PgClass::Empty,
        Some(_) if all_chunks => {
            *toast_ids = [lo, hi];
            PgClass::Toast
        }
        Some(natts) => PgClass::Heap { natts },
    }
}

/// The chunk_id of a tuple shaped as a TOAST chunk: 3 attributes, no null
/// bitmap (t_hoff 24), chunk_seq sane, and chunk_data a varlena that ends
/// the tuple exactly.
fn chunk_id(r: &Reader, data: &[u8], natts: u16, t_hoff: u8) -> Option<u32> {
    if natts != 3 || t_hoff != 24 || data.len() < 9 {
        return None;
    }
    let d = Reader::new(data, r.endian());
    let id = d.peek_u32(0, "chunk_id").ok()?;
    let seq = d.peek_u32(4, "chunk_seq").ok()? as i32;
    if !(0..MAX_CHUNK_SEQ).contains(&seq) {
        return None;
    }
    let rest = data.len() - 8;
    let first = data[8];
    let (short, four) = match r.endian() {
        Endian::Little => (first & 0x01 == 0x01, first & 0x03 == 0x00),
        Endian::Big => (first & 0x80 == 0x80, first & 0xC0 == 0x00),
    };
    let len = if short && first != 0x01 && first != 0x80 {
        match r.endian() {
            Endian::Little => usize::from(first >> 1),
            Endian::Big => usize::from(first & 0x7F),
        }
    } else if four {
        let word = d.peek_u32(8, "va_header").ok()?;
        match r.endian() {
            Endian::Little => (word >> 2) as usize,
            Endian::Big => (word & 0x3FFF_FFFF) as usize,
        }
    } else {
        return None;
    };
    (len == rest && id != 0).then_some(id)
}

/// Whether the page whose hash is `hash` and stored checksum `stored` fits
/// block number `blkno` (`pg_checksum_page`'s last step).
#[inline]
pub(crate) fn fits(hash: u32, stored: u16, blkno: u64) -> bool {
    stored != 0
        && blkno < u64::from(u32::MAX)
        && (hash ^ blkno as u32) % 65535 + 1 == u32::from(stored)
}

/// Every block number below `limit` (a power of two) that the checksum
/// `stored` fits on a page whose hash is `hash`: `hash ^ b` keeps the
/// bits of `hash` above `limit`, so `x = hash ^ b` runs over one window of
/// `limit` values, in steps of 65535 from the first `x ≡ stored − 1`.
/// About `limit / 65535` of them, ascending not guaranteed.
pub(crate) fn candidates(hash: u32, stored: u16, limit: u64) -> Vec<u64> {
    let Some(r) = u64::from(stored).checked_sub(1) else {
        return Vec::new();
    };
    let limit = limit.clamp(1, 1 << 32).next_power_of_two();
    let base = u64::from(hash) & !(limit - 1);
    let mut x = base - base % 65535 + r;
    if x < base {
        x += 65535;
    }
    let mut found = Vec::new();
    while x < base + limit {
        let b = x ^ u64::from(hash);
        if b < limit && b != u64::from(u32::MAX) {
            found.push(b);
        }
        x += 65535;
    }
    found.sort_unstable();
    found
}

/// A page found in the image.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Found {
    pub offset: u64,
    pub sig: PgSig,
}

/// A relation put together from carved pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PgGroup {
    pub class: PgClass,
    pub size: u32,
    /// The block numbers come from the checksums.
    pub blkno_known: bool,
    /// (block number, index into the found pages), by block number.
    pub pages: Vec<(u64, usize)>,
    /// Older copies: (block number, index into the found pages).
    pub duplicates: Vec<(u64, usize)>,
    /// Index (in the returned list) of the group holding its TOAST chunks.
    pub toast: Option<usize>,
}

/// A piece of one file: adjacent pages in the image.
struct Piece {
    /// Indexes into the found pages, in image order.
    members: Vec<usize>,
    /// Block number of the first member; `None` without checksums.
    base: Option<u64>,
    class: PgClass,
}

/// The most common non-empty class of `members`, else empty.
fn class_of(found: &[Found], members: &[usize]) -> PgClass {
    most_common_class(members.iter().map(|&m| found[m].sig.class))
}

/// The most common non-empty class among `classes`, else empty.
pub(crate) fn most_common_class(classes: impl Iterator<Item = PgClass>) -> PgClass {
    let mut counts: Vec<(PgClass, usize)> = Vec::new();
    for c in classes {
        if c == PgClass::Empty {
            continue;
        }
        match counts.iter_mut().find(|(k, _)| *k == c) {
            Some((_, n)) => *n += 1,
            None => counts.push((c, 1)),
        }
    }
    counts
        .into_iter()
        .max_by_key(|&(_, n)| n)
        .map_or(PgClass::Empty, |(c, _)| c)
}

/// Whether two classes may share a relation: equal, or one is empty.
fn same_relation(a: PgClass, b: PgClass) -> bool {
    a == b || a == PgClass::Empty || b == PgClass::Empty
}

/// Group the pages found in one image (in image order) into relations.
/// `image_pages` bounds the block numbers tried (rounded up to a power of
/// two, at least 2^16).
pub(crate) fn group(found: &[Found], image_pages: u64) -> Vec<PgGroup> {
    let limit = image_pages.max(1 << 16).next_power_of_two();
    let pieces = pieces(found, limit);
    let mut groups = join(found, pieces);
    link_toast(found, &mut groups);
    groups
}

/// Runs of adjacent pages cut where the checksums stop fitting one base
/// block number (or, without checksums, where the class changes).
fn pieces(found: &[Found], limit: u64) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < found.len() {
        // One run: each page right after the one before, same size and
        // byte order, checksums all on or all off.
        let mut end = i + 1;
        while end < found.len() {
            let (a, b) = (&found[end - 1], &found[end]);
            if b.offset != a.offset + u64::from(a.sig.size)
                || b.sig.size != a.sig.size
                || b.sig.endian != a.sig.endian
                || (b.sig.pd_checksum == 0) != (a.sig.pd_checksum == 0)
            {
                break;
            }
            end += 1;
        }
        if found[i].sig.pd_checksum == 0 {
            unchecked_pieces(found, i, end, &mut pieces);
        } else {
            checked_pieces(found, i, end, limit, &mut pieces);
        }
        i = end;
    }
    pieces
}

fn unchecked_pieces(found: &[Found], start: usize, end: usize, out: &mut Vec<Piece>) {
    let mut members: Vec<usize> = Vec::new();
    let mut class = PgClass::Empty;
    for (i, f) in found.iter().enumerate().take(end).skip(start) {
        let c = f.sig.class;
        if !same_relation(class, c) {
            out.push(Piece {
                members: std::mem::take(&mut members),
                base: None,
                class,
            });
            class = PgClass::Empty;
        }
        if class == PgClass::Empty {
            class = c;
        }
        members.push(i);
    }
    if !members.is_empty() {
        out.push(Piece {
            members,
            base: None,
            class,
        });
    }
}

fn checked_pieces(found: &[Found], start: usize, end: usize, limit: u64, out: &mut Vec<Piece>) {
    let cands = |i: usize| candidates(found[i].sig.hash, found[i].sig.pd_checksum, limit);
    let close = |first: usize, last: usize, bases: &[u64], out: &mut Vec<Piece>| {
        let members: Vec<usize> = (first..last).collect();
        out.push(Piece {
            class: class_of(found, &members),
            members,
            // The smallest base that fits every page.
            base: bases.first().copied(),
        });
    };
    let mut first = start;
    let mut bases = cands(start);
    for (i, f) in found.iter().enumerate().take(end).skip(start + 1) {
        let k = (i - first) as u64;
        let sig = &f.sig;
        let next: Vec<u64> = bases
            .iter()
            .copied()
            .filter(|&b| fits(sig.hash, sig.pd_checksum, b + k))
            .collect();
        if next.is_empty() {
            close(first, i, &bases, out);
            first = i;
            bases = cands(i);
        } else {
            bases = next;
        }
    }
    close(first, end, &bases, out);
}

/// A relation being put together.
struct Building {
    class: PgClass,
    size: u32,
    endian: Endian,
    known: bool,
    /// Block number → index of the page kept.
    blocks: HashMap<u64, usize>,
    duplicates: Vec<(u64, usize)>,
    hi: u64,
}

impl Building {
    fn add(&mut self, found: &[Found], blkno: u64, index: usize) {
        match self.blocks.get(&blkno).copied() {
            Some(old) if found[old].sig.lsn >= found[index].sig.lsn => {
                self.duplicates.push((blkno, index));
            }
            Some(old) => {
                self.duplicates.push((blkno, old));
                self.blocks.insert(blkno, index);
            }
            None => {
                self.blocks.insert(blkno, index);
            }
        }
        self.hi = self.hi.max(blkno);
        if self.class == PgClass::Empty {
            self.class = found[index].sig.class;
        }
    }
}

/// Pieces with block numbers joined into relations: a piece continues a
/// relation of its class that ends right before it, or that a btree
/// sibling link leads to, or that holds an identical copy of one of its
/// pages (then the newer copy of each block is kept). Pieces without block
/// numbers stay as they are, in image order.
fn join(found: &[Found], mut pieces: Vec<Piece>) -> Vec<PgGroup> {
    let mut rels: Vec<Building> = Vec::new();
    pieces.sort_by_key(|p| (p.base.is_none(), p.base.unwrap_or(0), p.members[0]));
    for piece in pieces {
        let size = found[piece.members[0]].sig.size;
        let endian = found[piece.members[0]].sig.endian;
        let Some(base) = piece.base else {
            let mut b = Building {
                class: piece.class,
                size,
                endian,
                known: false,
                blocks: HashMap::new(),
                duplicates: Vec::new(),
                hi: 0,
            };
            for (n, &m) in piece.members.iter().enumerate() {
                b.add(found, n as u64, m);
            }
            rels.push(b);
            continue;
        };
        let blk = |n: usize| base + n as u64;
        let fits_rel = |r: &Building| {
            r.known && r.size == size && r.endian == endian && same_relation(r.class, piece.class)
        };
        let continues = rels.iter().rposition(|r| {
            fits_rel(r) && base > 0 && r.hi + 1 == base && !r.blocks.contains_key(&base)
        });
        let linked = || {
            rels.iter().rposition(|r| {
                fits_rel(r)
                    && piece.members.iter().enumerate().any(|(n, &m)| {
                        let s = &found[m].sig;
                        s.btpo_prev != 0
                            && r.blocks
                                .get(&u64::from(s.btpo_prev))
                                .is_some_and(|&o| u64::from(found[o].sig.btpo_next) == blk(n))
                            && !r.blocks.contains_key(&blk(n))
                    })
            })
        };
        let copy = || {
            rels.iter().rposition(|r| {
                fits_rel(r)
                    && piece.members.iter().enumerate().any(|(n, &m)| {
                        r.blocks
                            .get(&blk(n))
                            .is_some_and(|&o| found[o].sig.hash == found[m].sig.hash)
                    })
            })
        };
        let at = continues.or_else(linked).or_else(copy);
        let rel = match at {
            Some(at) => &mut rels[at],
            None => {
                rels.push(Building {
                    class: piece.class,
                    size,
                    endian,
                    known: true,
                    blocks: HashMap::new(),
                    duplicates: Vec::new(),
                    hi: 0,
                });
                let last = rels.len() - 1;
                &mut rels[last]
            }
        };
        for (n, &m) in piece.members.iter().enumerate() {
            rel.add(found, blk(n), m);
        }
    }
    rels.into_iter()
        .map(|b| {
            let mut pages: Vec<(u64, usize)> = b.blocks.into_iter().collect();
            pages.sort_unstable();
            let mut duplicates = b.duplicates;
            duplicates.sort_unstable();
            PgGroup {
                class: b.class,
                size: b.size,
                blkno_known: b.known,
                pages,
                duplicates,
                toast: None,
            }
        })
        .collect()
}

/// Each heap group's TOAST group: the TOAST group whose pages' chunk_id
/// ranges hold most of the heap's TOAST pointers.
fn link_toast(found: &[Found], groups: &mut [PgGroup]) {
    let ranges: Vec<(usize, Vec<[u32; 2]>)> = groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.class == PgClass::Toast)
        .map(|(i, g)| {
            let mut r: Vec<[u32; 2]> = g
                .pages
                .iter()
                .map(|&(_, m)| found[m].sig.toast_ids)
                .collect();
            r.sort_unstable();
            (i, r)
        })
        .collect();
    if ranges.is_empty() {
        return;
    }
    for g in groups.iter_mut() {
        if !matches!(g.class, PgClass::Heap { .. }) {
            continue;
        }
        let mut votes = vec![0usize; ranges.len()];
        for &(_, m) in &g.pages {
            for id in found[m].sig.toast_ids.into_iter().filter(|&v| v != 0) {
                for (v, (_, r)) in votes.iter_mut().zip(&ranges) {
                    if r.iter().any(|&[lo, hi]| lo <= id && id <= hi) {
                        *v += 1;
                    }
                }
            }
        }
        g.toast = votes
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .max_by_key(|&(_, &n)| n)
            .map(|(i, _)| ranges[i].0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::postgres::checksum::pg_checksum_page;

    #[test]
    fn candidates_hold_the_true_block_number() {
        for (hash, blkno) in [
            (0x1234_5678u32, 0u64),
            (0xdead_beef, 77),
            (7, 65534),
            (u32::MAX, 131071),
        ] {
            let stored = ((hash ^ blkno as u32) % 65535 + 1) as u16;
            let c = candidates(hash, stored, 1 << 17);
            assert!(c.contains(&blkno), "{hash:#x} {blkno} {c:?}");
            assert!(c.len() <= 4, "{c:?}");
            assert!(c.iter().all(|&b| fits(hash, stored, b)));
        }
        assert!(candidates(5, 0, 1 << 17).is_empty());
    }

    /// A heap page of `n` one-int tuples with a checksum for `blkno`.
    fn heap_page(blkno: u64, seed: u32) -> Vec<u8> {
        let mut p = vec![0u8; 8192];
        let n = 3u16;
        let lower = 24 + 4 * n;
        let mut upper = 8192u16;
        for i in 0..n {
            upper -= 32;
            let lp = u32::from(upper) | (1 << 15) | (28 << 17);
            let at = 24 + 4 * usize::from(i);
            p[at..at + 4].copy_from_slice(&lp.to_le_bytes());
            let t = usize::from(upper);
            p[t..t + 4].copy_from_slice(&(seed + u32::from(i)).to_le_bytes()); // t_xmin
            p[t + 18..t + 20].copy_from_slice(&1u16.to_le_bytes()); // t_infomask2: natts 1
            p[t + 20..t + 22].copy_from_slice(&0x0900u16.to_le_bytes()); // t_infomask
            p[t + 22] = 24; // t_hoff
            p[t + 24..t + 28].copy_from_slice(&(seed * 10 + u32::from(i)).to_le_bytes());
        }
        p[0..8].copy_from_slice(&(u64::from(seed) << 8).to_le_bytes()); // pd_lsn
        p[12..14].copy_from_slice(&lower.to_le_bytes());
        p[14..16].copy_from_slice(&upper.to_le_bytes());
        p[16..18].copy_from_slice(&8192u16.to_le_bytes());
        p[18..20].copy_from_slice(&0x2004u16.to_le_bytes());
        let c = pg_checksum_page(&p, blkno, Endian::Little).unwrap();
        p[8..10].copy_from_slice(&c.to_le_bytes());
        p
    }

    fn find(image: &[u8]) -> Vec<Found> {
        let mut found = Vec::new();
        let mut at = 0;
        while at + 24 <= image.len() {
            if let Some(size) = quick(&image[at..], Endian::Little) {
                if let Some(sig) = image
                    .get(at..at + size)
                    .and_then(|p| examine(p, Endian::Little))
                {
                    found.push(Found {
                        offset: at as u64,
                        sig,
                    });
                    at += size;
                    continue;
                }
            }
            at += 512;
        }
        found
    }

    #[test]
    fn pieces_of_one_file_are_placed_and_joined() {
        // Blocks 0..3 at one place, a sector of junk, blocks 3..5 further
        // on, then an older copy of block 1.
        let mut image = vec![0xEEu8; 1536];
        for b in 0..3 {
            image.extend(heap_page(b, 100 + b as u32));
        }
        image.extend(vec![0xEE; 512]);
        for b in 3..5 {
            image.extend(heap_page(b, 100 + b as u32));
        }
        let mut old = heap_page(1, 101);
        old[0] = 0; // an older pd_lsn, otherwise the same page
        let c = pg_checksum_page(&old, 1, Endian::Little).unwrap();
        old[8..10].copy_from_slice(&c.to_le_bytes());
        image.extend(old);
        let found = find(&image);
        assert_eq!(found.len(), 6);
        let groups = group(&found, 64);
        assert_eq!(groups.len(), 1, "{groups:?}");
        let g = &groups[0];
        assert!(g.blkno_known);
        assert_eq!(g.class, PgClass::Heap { natts: 1 });
        let blocks: Vec<u64> = g.pages.iter().map(|&(b, _)| b).collect();
        assert_eq!(blocks, [0, 1, 2, 3, 4]);
        assert_eq!(found[g.pages[1].1].offset, 1536 + 8192);
        assert_eq!(g.duplicates.len(), 1);
        assert_eq!(
            found[g.duplicates[0].1].offset,
            1536 + 3 * 8192 + 512 + 2 * 8192
        );
    }

    #[test]
    fn junk_is_not_a_page() {
        let mut junk = vec![0u8; 8192];
        junk[18..20].copy_from_slice(&0x2004u16.to_le_bytes());
        junk[12..14].copy_from_slice(&40u16.to_le_bytes());
        junk[14..16].copy_from_slice(&100u16.to_le_bytes());
        junk[16..18].copy_from_slice(&8192u16.to_le_bytes());
        // Line pointers pointing nowhere sensible.
        for i in 0..4 {
            junk[24 + 4 * i..28 + 4 * i].copy_from_slice(&0xFFFF_FFFFu32.to_le_bytes());
        }
        assert_eq!(quick(&junk, Endian::Little), Some(8192));
        assert!(examine(&junk, Endian::Little).is_none());
        junk[18] = 5;
        assert_eq!(quick(&junk, Endian::Little), None);
    }
}
