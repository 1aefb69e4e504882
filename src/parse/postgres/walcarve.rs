//! WAL inside a carved image: the pages of WAL segments recognised at a
//! 512-byte boundary ([`quick`], [`examine`]), runs of them put together
//! as stretches of WAL ([`stretches`]), each stretch decoded one segment
//! at a time by the WAL decoder, and the full-page images in its records
//! restored by redo's code ([`decode`]): page versions whose relfilenode,
//! fork and block number are known. [`place`] then joins them with the
//! groups of data-file pages (`carve::group`): a WAL relation and a carved
//! group are one relation when the versions of their shared blocks share
//! tuples (see [`item_keys`]), never by block number alone; per block the
//! newest pd_lsn is kept.
//!
//! No I/O here: the command hands in a function that reads the image.

use std::collections::HashMap;

use crate::model::postgres::wal::{
    RelFileNode, XLP_ALL_FLAGS, XLP_FIRST_IS_CONTRECORD, XLP_LONG_HEADER,
};
use crate::model::postgres::PageKind;
use crate::reader::Endian;

use super::carve::{item_keys, most_common_class, Found, PgClass, PgGroup, PgSig};
use super::wal::redo;
use super::wal::{decode_segment, page_header, Geometry, Item, Page, Pages, Segment, KNOWN_MAGIC};

/// `XLOG_BLCKSZ`: the WAL page size looked for (PostgreSQL's default; the
/// short page header does not say it).
pub(crate) const WAL_PAGE: usize = 8192;

/// The segment size assumed for a stretch when no long page header in the
/// image says it (PostgreSQL's default).
pub(crate) const DEFAULT_SEG_SIZE: u64 = 16 << 20;

/// The largest gap (missed pages) inside one stretch.
const MAX_GAP: u64 = 8 * WAL_PAGE as u64;

/// A WAL page found at an image offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WalPage {
    pub offset: u64,
    pub magic: u16,
    pub tli: u32,
    pub pageaddr: u64,
    /// A long header's `xlp_sysid` and `xlp_seg_size`.
    pub long: Option<(u64, u32)>,
}

/// The first test at an image offset: `xlp_magic` of a PostgreSQL release
/// the decoder reads. Two bytes and three comparisons.
#[inline]
pub(crate) fn quick(head: &[u8]) -> bool {
    match head {
        [a, b, ..] => {
            let magic = u16::from_le_bytes([*a, *b]);
            KNOWN_MAGIC.iter().any(|&(m, _)| m == magic)
        }
        _ => false,
    }
}

/// The full check of a WAL page header at `head` (image offset `offset`):
/// known magic, only `XLP_ALL_FLAGS` bits in xlp_info, a timeline,
/// xlp_pageaddr a multiple of the page size, xlp_rem_len zero unless the
/// page continues a record, the short header's padding zero; a long header
/// at a segment's start, with a valid segment size and an 8 KB page size.
pub(crate) fn examine(head: &[u8], offset: u64) -> Option<WalPage> {
    if !quick(head) || head.len() < WAL_PAGE {
        return None;
    }
    let h = page_header(head)?;
    if h.xlp_info & !XLP_ALL_FLAGS != 0
        || h.xlp_tli == 0
        || !h.xlp_pageaddr.is_multiple_of(WAL_PAGE as u64)
        || (h.xlp_info & XLP_FIRST_IS_CONTRECORD == 0 && h.xlp_rem_len != 0)
        || h.xlp_rem_len > 1 << 30
    {
        return None;
    }
    let long = if h.xlp_info & XLP_LONG_HEADER != 0 {
        let seg = h.xlp_seg_size?;
        let geo = Geometry {
            seg_size: u64::from(seg),
            page_size: h.xlp_xlog_blcksz? as usize,
        };
        if !geo.valid() || geo.page_size != WAL_PAGE || !h.xlp_pageaddr.is_multiple_of(geo.seg_size)
        {
            return None;
        }
        Some((h.xlp_sysid?, seg))
    } else {
        if head.get(20..24)? != [0; 4] {
            return None;
        }
        None
    };
    Some(WalPage {
        offset,
        magic: h.xlp_magic,
        tli: h.xlp_tli,
        pageaddr: h.xlp_pageaddr,
        long,
    })
}

/// A run of WAL pages whose xlp_pageaddr advance with the image offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stretch {
    /// Image offset of its first page.
    pub offset: u64,
    /// Bytes, from its first page to the end of its last.
    pub len: u64,
    /// xlp_pageaddr of its first page.
    pub start: u64,
    pub tli: u32,
    pub magic: u16,
    /// From a long header in it, when there is one.
    pub sysid: Option<u64>,
    /// From a long header in it, else in the image, else 16 MB.
    pub seg_size: u64,
    /// WAL pages found in it.
    pub pages: u64,
}

/// The stretches of WAL among the pages found (in image order): a page
/// continues a stretch when its timeline and magic are the same and its
/// xlp_pageaddr lies as far past the stretch's start as its offset does
/// (a missed page or two in between is read with the rest).
pub(crate) fn stretches(pages: &[WalPage]) -> Vec<Stretch> {
    let image_seg = pages.iter().find_map(|p| p.long.map(|(_, s)| s));
    let mut out: Vec<Stretch> = Vec::new();
    for p in pages {
        let page = WAL_PAGE as u64;
        let continues = out.last_mut().filter(|s| {
            let end = s.offset + s.len;
            s.tli == p.tli
                && s.magic == p.magic
                && p.offset >= end
                && p.offset - end <= MAX_GAP
                && p.pageaddr.checked_sub(s.start) == Some(p.offset - s.offset)
                && p.long
                    .is_none_or(|(id, _)| s.sysid.is_none_or(|s_id| s_id == id))
        });
        match continues {
            Some(s) => {
                s.len = p.offset + page - s.offset;
                s.pages += 1;
                if let Some((id, size)) = p.long {
                    s.sysid = Some(id);
                    s.seg_size = u64::from(size);
                }
            }
            None => out.push(Stretch {
                offset: p.offset,
                len: page,
                start: p.pageaddr,
                tli: p.tli,
                magic: p.magic,
                sysid: p.long.map(|(id, _)| id),
                seg_size: p
                    .long
                    .map(|(_, s)| s)
                    .or(image_seg)
                    .map_or(DEFAULT_SEG_SIZE, u64::from),
                pages: 1,
            }),
        }
    }
    out
}

/// A full-page image restored from a record of a stretch.
#[derive(Clone, Debug)]
pub(crate) struct Fpi {
    pub rel: RelFileNode,
    pub fork: u8,
    pub blk: u32,
    /// The record's LSN.
    pub record_lsn: u64,
    /// The page's pd_lsn: the record's end, as redo sets it.
    pub lsn: u64,
    /// Image offset of the record's first byte.
    pub offset: u64,
    /// The page's signature, when it passes carve's full check.
    pub sig: Option<PgSig>,
    /// Its [`item_keys`] (all of them).
    pub keys: Vec<u32>,
    /// The page; `None` once a newer version of the block was found.
    pub page: Option<Vec<u8>>,
    /// pd_checksum as the image holds it (not recomputed).
    pub pd_checksum: u16,
}

/// What decoding one stretch gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// Records decoded.
    pub records: u64,
    /// LSNs of the first and last record.
    pub lsn_range: Option<(u64, u64)>,
    /// Full-page images restored.
    pub fpis: u64,
    /// Images that could not be restored (lz4 or zstd, or damaged), with why.
    pub unrestored: Vec<String>,
}

/// Every full-page image found, the newest version of each block with its
/// page.
#[derive(Debug, Default)]
pub(crate) struct FpiSet {
    pub all: Vec<Fpi>,
    newest: HashMap<(RelFileNode, u8, u32), usize>,
}

impl FpiSet {
    /// Add an image; of two versions of a block the older loses its page.
    pub(crate) fn add(&mut self, mut fpi: Fpi) {
        let at = self.all.len();
        let key = (fpi.rel, fpi.fork, fpi.blk);
        match self.newest.get(&key).copied() {
            Some(old) if self.all[old].lsn >= fpi.lsn => fpi.page = None,
            Some(old) => {
                self.all[old].page = None;
                self.newest.insert(key, at);
            }
            None => {
                self.newest.insert(key, at);
            }
        }
        self.all.push(fpi);
    }
}

/// Later pages of a stretch, read from the image.
struct ImagePages<'a> {
    stretch: &'a Stretch,
    read: &'a dyn Fn(u64, &mut [u8]) -> usize,
}

impl Pages for ImagePages<'_> {
    fn page(&self, pos: u64) -> Page {
        let s = self.stretch;
        if pos < s.start || pos >= s.start + s.len {
            return Page::End;
        }
        let mut buf = vec![0u8; WAL_PAGE];
        let n = (self.read)(s.offset + (pos - s.start), &mut buf);
        buf.truncate(n);
        Page::Bytes(buf)
    }

    fn file_name(&self, pos: u64) -> String {
        let s = self.stretch;
        format!(
            "WAL at image offset {}",
            s.offset + pos.saturating_sub(s.start)
        )
    }
}

/// Decode a stretch, one WAL segment at a time (a segment's bytes in
/// memory, the part before the stretch zero, which the decoder passes
/// over; a record running on into the next segment reads only its pages),
/// and hand each full-page image to `on_fpi`. Every image is taken, with
/// or without `BKPIMAGE_APPLY`: either is the page as the server held it
/// at the record's end. New (all-zero) pages are passed over.
pub(crate) fn decode(
    stretch: &Stretch,
    read: &dyn Fn(u64, &mut [u8]) -> usize,
    on_fpi: &mut dyn FnMut(Fpi),
) -> Decoded {
    let mut out = Decoded::default();
    let geo = Geometry {
        seg_size: stretch.seg_size,
        page_size: WAL_PAGE,
    };
    let pages = ImagePages { stretch, read };
    let end = stretch.start + stretch.len;
    let mut seg_start = stretch.start - stretch.start % geo.seg_size;
    while seg_start < end {
        let seg_end = seg_start + geo.seg_size;
        let from = stretch.start.max(seg_start);
        let to = end.min(seg_end);
        let lead = (from - seg_start) as usize;
        let mut bytes = vec![0u8; (to - seg_start) as usize];
        let n = read(stretch.offset + (from - stretch.start), &mut bytes[lead..]);
        bytes.truncate(lead + n);
        let segment = Segment {
            bytes: &bytes,
            start: seg_start,
            last: to == end,
            magic: stretch.magic,
        };
        let mut sink = |item: Item<'_>| {
            let Item::Record(rec, data) = item else {
                return;
            };
            out.records += 1;
            out.lsn_range = Some(match out.lsn_range {
                Some((lo, hi)) => (lo.min(rec.lsn), hi.max(rec.lsn)),
                None => (rec.lsn, rec.lsn),
            });
            for b in rec.blocks.iter().filter(|b| b.image.is_some()) {
                let mut page = match redo::block_image(rec, data, b.id) {
                    Ok(Some(page)) => page,
                    Ok(None) => continue,
                    Err(e) => {
                        out.unrestored.push(format!(
                            "the image of block {} in the record at {}: {e}",
                            b.blk,
                            crate::model::postgres::wal::lsn(rec.lsn)
                        ));
                        continue;
                    }
                };
                if redo::page::is_new(&page) {
                    continue;
                }
                let lsn = redo::end_lsn(rec);
                redo::page::set_lsn(&mut page, lsn);
                out.fpis += 1;
                on_fpi(Fpi {
                    rel: b.rel,
                    fork: b.fork,
                    blk: b.blk,
                    record_lsn: rec.lsn,
                    lsn,
                    offset: stretch.offset + rec.lsn.saturating_sub(stretch.start),
                    sig: super::carve::examine(&page, Endian::Little),
                    keys: item_keys(&page, Endian::Little, usize::MAX),
                    pd_checksum: u16::from_le_bytes([page[8], page[9]]),
                    page: Some(page),
                });
            }
        };
        decode_segment(
            &segment,
            geo,
            end.saturating_sub(seg_end),
            &pages,
            &mut sink,
        );
        seg_start = seg_end;
    }
    out
}

/// A relation seen in WAL: its relfilenode and fork, the newest version
/// of each block and the older ones, as (block number, index into
/// [`FpiSet::all`]).
type WalRel = ((RelFileNode, u8), Vec<(u64, usize)>, Vec<(u64, usize)>);

/// Where a written or listed block version comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    /// A page found in the image (index into the found pages).
    Page(usize),
    /// A full-page image (index into [`FpiSet::all`]).
    Wal(usize),
}

/// A relation to write: carved pages, full-page images or both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Placed {
    pub class: PgClass,
    pub size: u32,
    pub blkno_known: bool,
    /// The relfilenode and fork, when WAL named them.
    pub rel: Option<(RelFileNode, u8)>,
    /// (block number, source), by block number.
    pub pages: Vec<(u64, Src)>,
    /// Older versions: (block number, source).
    pub duplicates: Vec<(u64, Src)>,
    /// Index (in the returned list) of the group holding its TOAST chunks.
    pub toast: Option<usize>,
}

/// The class of a relation seen in WAL: its fork's, or the most common
/// class of its pages.
fn wal_class(fpis: &[Fpi], members: &[usize], fork: u8) -> PgClass {
    match fork {
        1 => return PgClass::Other(PageKind::Fsm),
        2 => return PgClass::Other(PageKind::Vm),
        _ => {}
    }
    most_common_class(members.iter().filter_map(|&m| fpis[m].sig.map(|s| s.class)))
}

/// How many shared blocks of a carved group and a WAL relation share a
/// tuple (a key of the carved page among the image's), and how many shared
/// blocks with tuples on both sides do not.
fn agreement(
    found: &[Found],
    group: &Placed,
    fpis: &[Fpi],
    wal: &[(u64, usize)],
) -> (usize, usize) {
    let (mut yes, mut no) = (0, 0);
    for &(blk, f) in wal {
        // The carved pages are by block number.
        let Ok(at) = group.pages.binary_search_by_key(&blk, |&(b, _)| b) else {
            continue;
        };
        let Src::Page(p) = group.pages[at].1 else {
            continue;
        };
        let keys: Vec<u32> = found[p].sig.keys.into_iter().filter(|&k| k != 0).collect();
        if keys.is_empty() || fpis[f].keys.is_empty() {
            continue;
        }
        if keys.iter().any(|k| fpis[f].keys.contains(k)) {
            yes += 1;
        } else {
            no += 1;
        }
    }
    (yes, no)
}

/// The carved groups (from `carve::group`, in their order) and, after
/// them, the relations seen only in WAL; a WAL relation whose block
/// versions share tuples with a carved group's on most shared blocks (at
/// least one) is merged into it, the newest pd_lsn per block written (a
/// carved page on a tie) and the others listed.
pub(crate) fn place(found: &[Found], groups: Vec<PgGroup>, fpis: &FpiSet) -> Vec<Placed> {
    let mut placed: Vec<Placed> = groups
        .into_iter()
        .map(|g| Placed {
            class: g.class,
            size: g.size,
            blkno_known: g.blkno_known,
            rel: None,
            pages: g
                .pages
                .into_iter()
                .map(|(b, i)| (b, Src::Page(i)))
                .collect(),
            duplicates: g
                .duplicates
                .into_iter()
                .map(|(b, i)| (b, Src::Page(i)))
                .collect(),
            toast: g.toast,
        })
        .collect();
    // The WAL relations, by relfilenode and fork: newest versions by block,
    // and the older ones.
    let mut rels: Vec<WalRel> = Vec::new();
    let mut index: HashMap<(RelFileNode, u8), usize> = HashMap::new();
    for (i, f) in fpis.all.iter().enumerate() {
        let key = (f.rel, f.fork);
        let at = *index.entry(key).or_insert_with(|| {
            rels.push((key, Vec::new(), Vec::new()));
            rels.len() - 1
        });
        let list = if f.page.is_some() { 1 } else { 2 };
        let entry = &mut rels[at];
        if list == 1 {
            entry.1.push((u64::from(f.blk), i));
        } else {
            entry.2.push((u64::from(f.blk), i));
        }
    }
    rels.sort_by_key(|(k, _, _)| (k.0.spc, k.0.db, k.0.rel, k.1));
    let carved = placed.len();
    let mut taken = vec![false; carved];
    // WAL is little-endian here: only little-endian carved groups merge.
    let little: Vec<bool> = placed
        .iter()
        .map(|p| {
            p.pages.iter().all(|&(_, s)| match s {
                Src::Page(i) => found[i].sig.endian == Endian::Little,
                Src::Wal(_) => true,
            })
        })
        .collect();
    for (key, mut newest, older) in rels {
        newest.sort_unstable();
        let members: Vec<usize> = newest.iter().map(|&(_, i)| i).collect();
        let class = wal_class(&fpis.all, &members, key.1);
        let best = (0..carved)
            .filter(|&g| {
                let p = &placed[g];
                !taken[g]
                    && key.1 == 0
                    && little[g]
                    && p.blkno_known
                    && p.size as usize == redo::BLCKSZ
                    && (p.class == class || p.class == PgClass::Empty || class == PgClass::Empty)
            })
            .map(|g| (g, agreement(found, &placed[g], &fpis.all, &newest)))
            .filter(|&(_, (yes, no))| yes > 0 && yes >= no)
            .max_by_key(|&(g, (yes, _))| (yes, std::cmp::Reverse(g)));
        match best {
            Some((g, _)) => {
                taken[g] = true;
                let p = &mut placed[g];
                p.rel = Some(key);
                if p.class == PgClass::Empty {
                    p.class = class;
                }
                let mut added = Vec::new();
                for (blk, f) in newest {
                    let wal_lsn = fpis.all[f].lsn;
                    match p.pages.binary_search_by_key(&blk, |&(b, _)| b) {
                        Ok(at) => {
                            let src = &mut p.pages[at].1;
                            let Src::Page(i) = *src else {
                                p.duplicates.push((blk, Src::Wal(f)));
                                continue;
                            };
                            if wal_lsn > found[i].sig.lsn {
                                p.duplicates.push((blk, Src::Page(i)));
                                *src = Src::Wal(f);
                            } else {
                                p.duplicates.push((blk, Src::Wal(f)));
                            }
                        }
                        Err(_) => added.push((blk, Src::Wal(f))),
                    }
                }
                p.pages.extend(added);
                p.duplicates
                    .extend(older.into_iter().map(|(b, f)| (b, Src::Wal(f))));
                p.pages.sort_by_key(|&(b, _)| b);
                p.duplicates.sort_by_key(|&(b, s)| (b, src_order(s)));
            }
            None => {
                let mut duplicates: Vec<(u64, Src)> =
                    older.into_iter().map(|(b, f)| (b, Src::Wal(f))).collect();
                duplicates.sort_by_key(|&(b, s)| (b, src_order(s)));
                placed.push(Placed {
                    class,
                    size: redo::BLCKSZ as u32,
                    blkno_known: true,
                    rel: Some(key),
                    pages: newest.into_iter().map(|(b, f)| (b, Src::Wal(f))).collect(),
                    duplicates,
                    toast: None,
                });
            }
        }
    }
    placed
}

fn src_order(s: Src) -> (u8, usize) {
    match s {
        Src::Page(i) => (0, i),
        Src::Wal(i) => (1, i),
    }
}

/// Synthetic WAL for the tests: a heap page, records with full-page
/// images, and WAL pages laid out as PostgreSQL 15 writes them.
#[cfg(test)]
pub(crate) mod testing {
    use crate::model::postgres::wal::{
        BKPBLOCK_HAS_DATA, BKPBLOCK_HAS_IMAGE, BKPBLOCK_SAME_REL, BKPIMAGE_APPLY,
        BKPIMAGE_HAS_HOLE, XLOG_FPI, XLP_FIRST_IS_CONTRECORD, XLP_LONG_HEADER,
    };
    use crate::parse::postgres::wal::record_crc;

    pub(crate) const SEG: u64 = 16 << 20;

    /// A heap page of `n` tuples of one int4 (`seed`, `seed + 1`, …), each
    /// with t_xmin `xmin`; its tuples lie in the page's first 2 KB (the
    /// rest zero), pd_lsn 0 and no checksum.
    pub(crate) fn heap_page(n: u16, seed: u32, xmin: u32) -> Vec<u8> {
        let mut p = vec![0u8; 8192];
        let lower = 24 + 4 * n;
        let mut upper = 2048u16;
        for i in 0..n {
            upper -= 32;
            let lp = u32::from(upper) | (1 << 15) | (28 << 17);
            let at = 24 + 4 * usize::from(i);
            p[at..at + 4].copy_from_slice(&lp.to_le_bytes());
            let t = usize::from(upper);
            p[t..t + 4].copy_from_slice(&xmin.to_le_bytes());
            p[t + 18..t + 20].copy_from_slice(&1u16.to_le_bytes());
            p[t + 20..t + 22].copy_from_slice(&0x0900u16.to_le_bytes());
            p[t + 22] = 24;
            p[t + 24..t + 28].copy_from_slice(&(seed + u32::from(i)).to_le_bytes());
        }
        p[12..14].copy_from_slice(&lower.to_le_bytes());
        p[14..16].copy_from_slice(&upper.to_le_bytes());
        p[16..18].copy_from_slice(&8192u16.to_le_bytes());
        p[18..20].copy_from_slice(&0x2004u16.to_le_bytes());
        p
    }

    /// An XLOG FPI record: block 0 carries `pad` bytes of block data
    /// (`pad` > 0) and block 1 the image of `page` as block `blk` of
    /// relation 1663/5/`rel`, with its hole cut out when `hole`.
    pub(crate) fn fpi_record(page: &[u8], rel: u32, blk: u32, hole: bool, pad: u16) -> Vec<u8> {
        let lower = usize::from(u16::from_le_bytes([page[12], page[13]]));
        let upper = usize::from(u16::from_le_bytes([page[14], page[15]]));
        let image: Vec<u8> = if hole {
            [&page[..lower], &page[upper..]].concat()
        } else {
            page.to_vec()
        };
        let mut head = vec![0u8; 24];
        head[16] = XLOG_FPI;
        head[17] = 0; // RM_XLOG_ID
        let node = |h: &mut Vec<u8>| {
            for v in [1663u32, 5, rel] {
                h.extend_from_slice(&v.to_le_bytes());
            }
        };
        head.extend_from_slice(&[0, BKPBLOCK_HAS_DATA]);
        head.extend_from_slice(&pad.to_le_bytes());
        node(&mut head);
        head.extend_from_slice(&(blk + 1000).to_le_bytes());
        head.extend_from_slice(&[1, BKPBLOCK_HAS_IMAGE | BKPBLOCK_SAME_REL, 0, 0]);
        head.extend_from_slice(&(image.len() as u16).to_le_bytes());
        let (hole_offset, info) = if hole {
            (lower as u16, BKPIMAGE_APPLY | BKPIMAGE_HAS_HOLE)
        } else {
            (0, BKPIMAGE_APPLY)
        };
        head.extend_from_slice(&hole_offset.to_le_bytes());
        head.push(info);
        head.extend_from_slice(&blk.to_le_bytes());
        head.extend(vec![0xAB; usize::from(pad)]);
        head.extend(image);
        let len = head.len() as u32;
        head[0..4].copy_from_slice(&len.to_le_bytes());
        head
    }

    /// WAL pages from `start` (a segment's start) holding `records` one
    /// after the other, each record's xl_prev and CRC set; whole pages.
    pub(crate) fn wal(records: &[Vec<u8>], start: u64) -> Vec<u8> {
        let mut out: Vec<u8> = Vec::new();
        let header = |out: &mut Vec<u8>, rem: u32| {
            let pos = start + out.len() as u64;
            let first = pos.is_multiple_of(SEG);
            let mut info = 0u16;
            if first {
                info |= XLP_LONG_HEADER;
            }
            if rem > 0 {
                info |= XLP_FIRST_IS_CONTRECORD;
            }
            let mut h = vec![0u8; if first { 40 } else { 24 }];
            h[0..2].copy_from_slice(&0xD110u16.to_le_bytes());
            h[2..4].copy_from_slice(&info.to_le_bytes());
            h[4..8].copy_from_slice(&1u32.to_le_bytes());
            h[8..16].copy_from_slice(&pos.to_le_bytes());
            h[16..20].copy_from_slice(&rem.to_le_bytes());
            if first {
                h[24..32].copy_from_slice(&7_000_000_000_000_000_001u64.to_le_bytes());
                h[32..36].copy_from_slice(&(SEG as u32).to_le_bytes());
                h[36..40].copy_from_slice(&8192u32.to_le_bytes());
            }
            out.extend(h);
        };
        header(&mut out, 0);
        let mut prev = 0u64;
        for rec in records {
            while !out.len().is_multiple_of(8) {
                out.push(0);
            }
            if out.len().is_multiple_of(8192) {
                header(&mut out, 0);
            }
            let lsn = start + out.len() as u64;
            let mut rec = rec.clone();
            rec[8..16].copy_from_slice(&prev.to_le_bytes());
            let crc = record_crc(&rec);
            rec[20..24].copy_from_slice(&crc.to_le_bytes());
            prev = lsn;
            let mut at = 0;
            while at < rec.len() {
                if out.len().is_multiple_of(8192) {
                    header(&mut out, (rec.len() - at) as u32);
                }
                let room = 8192 - out.len() % 8192;
                let take = room.min(rec.len() - at);
                out.extend_from_slice(&rec[at..at + take]);
                at += take;
            }
        }
        out.resize(out.len().div_ceil(8192) * 8192, 0);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::parse::postgres::carve::{examine as examine_pg, quick as quick_pg};

    fn random(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    /// WAL pages at every 512-byte boundary of `image`, skipping each.
    fn wal_pages(image: &[u8]) -> Vec<WalPage> {
        let mut found = Vec::new();
        let mut at = 0;
        while at < image.len() {
            match examine(&image[at..], at as u64) {
                Some(p) => {
                    found.push(p);
                    at += WAL_PAGE;
                }
                None => at += 512,
            }
        }
        found
    }

    #[test]
    fn an_fpi_in_wal_planted_in_random_bytes_is_restored() {
        let old = heap_page(3, 100, 700);
        let new = heap_page(4, 100, 700);
        // The older version with a hole (and 2243 bytes of block data, so
        // that it ends at WAL byte 8640, on the second page); then the
        // newer one, without a hole, whose image starts 57 + 7 bytes into
        // its record: at 8192 + 512, a sector of the image, running on
        // into the third page.
        let records = vec![
            fpi_record(&old, 16384, 2, true, 2243),
            fpi_record(&new, 16384, 2, false, 7),
        ];
        let bytes = wal(&records, SEG);
        assert_eq!(bytes.len(), 3 * 8192);
        let mut image = random(20 * 512, 1);
        let base = image.len();
        image.extend(&bytes);
        image.extend(random(9 * 512, 2));
        // The image of `new` sits whole (its tuples are in its first 2 KB)
        // at a sector inside the WAL: a sound page for carve's check.
        let inner = base + 8192 + 512;
        assert!(image[inner..inner + 2048] == new[..2048]);
        assert!(quick_pg(&image[inner..], Endian::Little).is_some());
        assert!(examine_pg(&image[inner..inner + 8192], Endian::Little).is_some());

        let pages = wal_pages(&image);
        assert_eq!(pages.len(), 3);
        assert_eq!(pages[0].offset, base as u64);
        assert_eq!(pages[0].long.map(|l| l.1), Some(SEG as u32));
        let st = stretches(&pages);
        assert_eq!(st.len(), 1);
        assert_eq!(
            (st[0].offset, st[0].len, st[0].start),
            (base as u64, 3 * 8192, SEG)
        );
        let read = |off: u64, buf: &mut [u8]| {
            let off = off as usize;
            let n = buf.len().min(image.len().saturating_sub(off));
            buf[..n].copy_from_slice(&image[off..off + n]);
            n
        };
        let mut set = FpiSet::default();
        let d = decode(&st[0], &read, &mut |f| set.add(f));
        assert_eq!(d.records, 2);
        assert_eq!(d.fpis, 2);
        assert!(d.unrestored.is_empty());
        let ours: Vec<&Fpi> = set.all.iter().filter(|f| f.rel.rel == 16384).collect();
        assert_eq!(ours.len(), 2);
        assert!(ours.iter().all(|f| f.blk == 2 && f.fork == 0));
        assert!(ours[0].page.is_none(), "the older version loses its page");
        let kept = ours[1].page.as_ref().unwrap();
        assert!(kept[8..] == new[8..]);
        assert_eq!(redo::page::lsn(kept), ours[1].lsn);
        assert_eq!(ours[1].lsn % 8, 0);
        assert!(ours[1].lsn > ours[0].lsn);
        assert_eq!(ours[0].offset, base as u64 + 40);
        let restored_old = {
            let mut p = old.clone();
            redo::page::set_lsn(&mut p, ours[0].lsn);
            p
        };
        assert_eq!(ours[0].keys.len(), 3);
        assert_eq!(ours[1].keys.len(), 4);
        assert_eq!(item_keys(&restored_old, Endian::Little, 9), ours[0].keys);
    }

    #[test]
    fn stretches_follow_the_page_addresses() {
        let page = |offset: u64, pageaddr: u64| WalPage {
            offset,
            magic: 0xD110,
            tli: 1,
            pageaddr,
            long: None,
        };
        let pages = [
            page(4096, SEG + 8192),
            page(4096 + 8192, SEG + 16384),
            // A missed page, then one more: the same stretch.
            page(4096 + 3 * 8192, SEG + 4 * 8192),
            // Another address: a new stretch.
            page(4096 + 4 * 8192, 5 * SEG),
            // Another timeline: a new stretch.
            WalPage {
                tli: 2,
                ..page(4096 + 5 * 8192, 5 * SEG + 8192)
            },
        ];
        let st = stretches(&pages);
        assert_eq!(st.len(), 3, "{st:?}");
        assert_eq!((st[0].len, st[0].pages), (4 * 8192, 3));
        assert_eq!(st[0].seg_size, DEFAULT_SEG_SIZE);
        assert_eq!(st[1].start, 5 * SEG);
    }

    #[test]
    fn junk_is_not_a_wal_page() {
        let bytes = wal(&[fpi_record(&heap_page(1, 1, 1), 1, 0, true, 1)], SEG);
        assert!(examine(&bytes, 0).is_some());
        let mut bad = bytes.clone();
        bad[2] = 0x10; // an unknown xlp_info bit
        assert!(examine(&bad, 0).is_none());
        let mut bad = bytes.clone();
        bad[8] = 1; // xlp_pageaddr not a multiple of 8 KB
        assert!(examine(&bad, 0).is_none());
        let mut bad = bytes.clone();
        bad[0] = 0x11; // xlp_magic of no known release
        assert!(!quick(&bad) && examine(&bad, 0).is_none());
        let mut bad = bytes;
        bad[32..36].copy_from_slice(&12345u32.to_le_bytes()); // xlp_seg_size
        assert!(examine(&bad, 0).is_none());
    }
}
