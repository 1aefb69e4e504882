//! `carve`'s way to the engines: at each 512-byte boundary of an image
//! window, each engine's first test and full check ([`scan`]), then each
//! engine's grouping of what it found into relation files ([`plan`]). The
//! one place the carve code chooses by engine; the recognisers and the
//! grouping are the parsers' (`parse::postgres::carve`,
//! `parse::oracle::carve`).

use crate::model::carve::{CarveDuplicate, CarveGroup, CarveWal};
use crate::model::postgres::wal::fork_name;
use crate::parse::oracle::carve as ora;
use crate::parse::postgres::carve as pg;
use crate::parse::postgres::checksum::pg_checksum_page;
use crate::parse::postgres::walcarve as walc;
use crate::reader::Endian;

use super::Engine;

/// The image is probed at every multiple of this many bytes (a sector).
pub(crate) const STEP: usize = 512;

/// The largest page or block any engine writes: how far a window must
/// reach past its last probed offset.
pub(crate) const MAX_BLOCK: usize = if pg::MAX_PAGE > ora::MAX_BLOCK {
    pg::MAX_PAGE
} else {
    ora::MAX_BLOCK
};

/// A page or block found at an image offset.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Hit {
    Postgres(pg::Found),
    Oracle(ora::Found),
    /// A PostgreSQL WAL page: never offered as a relation page.
    Wal(walc::WalPage),
}

impl Hit {
    /// Its image byte offset.
    pub(crate) fn offset(&self) -> u64 {
        match self {
            Hit::Postgres(f) => f.offset,
            Hit::Oracle(f) => f.offset,
            Hit::Wal(p) => p.offset,
        }
    }

    /// Its size in bytes.
    pub(crate) fn len(&self) -> u64 {
        u64::from(match self {
            Hit::Postgres(f) => f.sig.size,
            Hit::Oracle(f) => f.sig.size,
            Hit::Wal(_) => walc::WAL_PAGE as u32,
        })
    }
}

/// Which engines to look for, and which page size (all when `None`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Wanted {
    pub engine: Option<Engine>,
    pub block_size: Option<usize>,
}

impl Wanted {
    fn size_ok(&self, size: usize) -> bool {
        self.block_size.is_none_or(|s| s == size)
    }

    fn postgres(&self) -> bool {
        self.engine.is_none_or(|e| e == Engine::Postgres)
    }

    fn oracle(&self) -> bool {
        self.engine.is_none_or(|e| e == Engine::Oracle)
    }
}

/// The page or block at the start of `at` (which runs to the end of the
/// window), if one is there.
#[inline]
fn probe(wanted: &Wanted, at: &[u8], offset: u64) -> Option<Hit> {
    if wanted.postgres() {
        // A WAL page first: the full-page images inside it are not pages
        // of their own, and the probe goes on past the WAL page.
        if walc::quick(at) {
            if let Some(page) = walc::examine(at, offset) {
                return Some(Hit::Wal(page));
            }
        }
        for endian in [Endian::Little, Endian::Big] {
            if let Some(size) = pg::quick(at, endian).filter(|&s| wanted.size_ok(s)) {
                if let Some(sig) = at.get(..size).and_then(|p| pg::examine(p, endian)) {
                    return Some(Hit::Postgres(pg::Found { offset, sig }));
                }
            }
        }
    }
    if wanted.oracle() {
        if let Some(size) = ora::quick(at).filter(|&s| wanted.size_ok(s)) {
            if let Some(sig) = at.get(..size).and_then(ora::examine) {
                return Some(Hit::Oracle(ora::Found { offset, sig }));
            }
        }
    }
    None
}

/// Pages and blocks starting at the multiples of [`STEP`] in `probe_len`
/// bytes of `window` (whose first byte is image offset `base`, a multiple
/// of [`STEP`]); the window holds up to [`MAX_BLOCK`] bytes more, so a page
/// starting near the end is seen whole. After a hit the probe goes on past
/// its end.
pub(crate) fn scan(wanted: &Wanted, window: &[u8], probe_len: usize, base: u64) -> Vec<Hit> {
    let mut hits = Vec::new();
    let mut at = 0;
    let end = probe_len.min(window.len());
    while at < end {
        match window
            .get(at..)
            .and_then(|w| probe(wanted, w, base + at as u64))
        {
            Some(hit) => {
                at += (hit.len() as usize).div_ceil(STEP) * STEP;
                hits.push(hit);
            }
            None => at += STEP,
        }
    }
    hits
}

/// A relation file to write: its manifest entry (without `image`) and
/// page size. Pages sit at `block × size`.
#[derive(Clone, Debug)]
pub(crate) struct Planned {
    pub group: CarveGroup,
    pub size: u64,
    /// In the order of `group.blocks`: the page of a full-page image (its
    /// pd_checksum set for its block number where the relation's pages
    /// carry checksums), `None` for a page read from the image at its
    /// offset.
    pub wal_pages: Vec<Option<Vec<u8>>>,
}

/// The WAL of one image: its stretches, what decoding each gave, and the
/// full-page images found.
#[derive(Debug, Default)]
pub(crate) struct ImageWal {
    pub stretches: Vec<walc::Stretch>,
    pub decoded: Vec<walc::Decoded>,
    pub fpis: walc::FpiSet,
}

/// Find the stretches of WAL among the hits of one image and decode each
/// (`read` reads image bytes at an offset, returning how many it read).
pub(crate) fn wal(hits: &[Hit], read: &dyn Fn(u64, &mut [u8]) -> usize) -> ImageWal {
    let pages: Vec<walc::WalPage> = hits
        .iter()
        .filter_map(|h| match h {
            Hit::Wal(p) => Some(*p),
            _ => None,
        })
        .collect();
    let mut out = ImageWal {
        stretches: walc::stretches(&pages),
        ..ImageWal::default()
    };
    for s in &out.stretches {
        let fpis = &mut out.fpis;
        out.decoded
            .push(walc::decode(s, read, &mut |fpi| fpis.add(fpi)));
    }
    out
}

impl ImageWal {
    /// The manifest's entries for the stretches (without `image`).
    pub(crate) fn manifest(&self) -> Vec<CarveWal> {
        self.stretches
            .iter()
            .zip(&self.decoded)
            .map(|(s, d)| CarveWal {
                image: String::new(),
                offset: s.offset,
                length: s.len,
                pages: s.pages,
                timeline: s.tli,
                system_identifier: s.sysid.map(|id| id.to_string()),
                segment_size: s.seg_size,
                lsn_range: [lsn_text(s.start), lsn_text(s.start + s.len)],
                records: d.records,
                record_lsn_range: d.lsn_range.map(|(a, b)| [lsn_text(a), lsn_text(b)]),
                fpis: d.fpis,
                fpis_unrestored: d.unrestored.len() as u64,
            })
            .collect()
    }
}

fn lsn_text(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn & 0xFFFF_FFFF)
}

fn scn_text(scn: u64) -> String {
    format!("0x{:04x}.{:08x}", scn >> 32, scn & 0xFFFF_FFFF)
}

/// The hits of one image (in image order, `image_len` bytes) grouped into
/// relation files, ids from `first_id`, paths under `postgres/` and
/// `oracle/`.
/// The full-page images of `wal` (its pages taken) join the PostgreSQL
/// groups they belong to, or make their own.
pub(crate) fn plan(
    hits: &[Hit],
    wal: &mut ImageWal,
    image_len: u64,
    first_id: u32,
) -> Vec<Planned> {
    let mut pg_found = Vec::new();
    let mut ora_found = Vec::new();
    for hit in hits {
        match hit {
            Hit::Postgres(f) => pg_found.push(*f),
            Hit::Oracle(f) => ora_found.push(*f),
            Hit::Wal(_) => {}
        }
    }
    let mut planned = Vec::new();
    let pg_groups = walc::place(&pg_found, pg::group(&pg_found, image_len / 1024), &wal.fpis);
    let fpis = &mut wal.fpis.all;
    for (n, g) in pg_groups.iter().enumerate() {
        let id = first_id + n as u32;
        let lsn_of = |s: walc::Src| match s {
            walc::Src::Page(i) => pg_found[i].sig.lsn,
            walc::Src::Wal(i) => fpis[i].lsn,
        };
        let offset_of = |s: walc::Src| match s {
            walc::Src::Page(i) => pg_found[i].offset,
            walc::Src::Wal(i) => fpis[i].offset,
        };
        let lsns = g.pages.iter().map(|&(_, s)| lsn_of(s));
        let lsn_range = lsns
            .clone()
            .min()
            .zip(lsns.max())
            .map(|(a, b)| [lsn_text(a), lsn_text(b)]);
        let from_wal = g.pages.iter().any(|(_, s)| matches!(s, walc::Src::Wal(_)));
        let wal_lsns = from_wal.then(|| {
            g.pages
                .iter()
                .map(|&(_, s)| match s {
                    walc::Src::Wal(i) => Some(lsn_text(fpis[i].record_lsn)),
                    walc::Src::Page(_) => None,
                })
                .collect()
        });
        let duplicates = g
            .duplicates
            .iter()
            .map(|&(block, s)| CarveDuplicate {
                block,
                offset: offset_of(s),
                lsn: lsn_text(lsn_of(s)),
                source: match s {
                    walc::Src::Page(_) => "image",
                    walc::Src::Wal(_) => "wal",
                }
                .to_owned(),
                record_lsn: match s {
                    walc::Src::Page(_) => None,
                    walc::Src::Wal(i) => Some(lsn_text(fpis[i].record_lsn)),
                },
            })
            .collect();
        let group = CarveGroup {
            id,
            engine: Engine::Postgres.name().to_owned(),
            kind: g.class.name().to_owned(),
            image: String::new(),
            path: match g.rel {
                Some((rel, fork)) if fork != 0 => format!(
                    "postgres/{id:04}-{}-{}_{}",
                    g.class.name(),
                    rel.rel,
                    fork_name(fork)
                ),
                Some((rel, _)) => format!("postgres/{id:04}-{}-{}", g.class.name(), rel.rel),
                None => format!("postgres/{id:04}-{}", g.class.name()),
            },
            blocks: g.pages.iter().map(|&(b, _)| b).collect(),
            blkno_known: g.blkno_known,
            offsets: g.pages.iter().map(|&(_, s)| offset_of(s)).collect(),
            rdbas: None,
            data_object_id: None,
            lsn_range,
            columns: None,
            toast: g.toast.map(|t| first_id + t as u32),
            duplicates,
            relfilenode: g.rel.map(|(r, _)| format!("{}/{}/{}", r.spc, r.db, r.rel)),
            fork: g.rel.map(|(_, f)| fork_name(f)),
            wal_lsns,
        };
        // Checksums: as the server sets pd_checksum when it writes a page,
        // where the relation's pages carry them (a carved page of the group,
        // written or not, or an image whose stored pd_checksum is set).
        let checksummed = g.pages.iter().chain(&g.duplicates).any(|&(_, s)| match s {
            walc::Src::Page(i) => pg_found[i].sig.pd_checksum != 0,
            walc::Src::Wal(i) => fpis[i].pd_checksum != 0,
        });
        let wal_pages = g
            .pages
            .iter()
            .map(|&(block, s)| match s {
                walc::Src::Page(_) => None,
                walc::Src::Wal(i) => {
                    // The newest version of a block always has its page.
                    let mut page = fpis[i].page.take().unwrap_or_default();
                    if checksummed {
                        if let Some(c) = pg_checksum_page(&page, block, Endian::Little) {
                            page[8..10].copy_from_slice(&c.to_le_bytes());
                        }
                    }
                    Some(page)
                }
            })
            .collect();
        planned.push(Planned {
            size: u64::from(g.size),
            group,
            wal_pages,
        });
    }
    let first_ora = first_id + pg_groups.len() as u32;
    for (n, g) in ora::group(&ora_found).iter().enumerate() {
        let id = first_ora + n as u32;
        let scns = g.pages.iter().map(|&(_, i)| ora_found[i].sig.scn);
        let lsn_range = scns
            .clone()
            .min()
            .zip(scns.max())
            .map(|(a, b)| [scn_text(a), scn_text(b)]);
        let name = match g.obj {
            Some(obj) => format!("oracle/{id:04}-obj{obj}-file{}.dbf", g.file),
            None => format!("oracle/{id:04}-{}-file{}.dbf", g.kind, g.file),
        };
        planned.push(Planned {
            size: u64::from(g.size),
            group: CarveGroup {
                id,
                engine: Engine::Oracle.name().to_owned(),
                kind: g.kind.to_owned(),
                image: String::new(),
                path: name,
                blocks: g.pages.iter().map(|&(b, _)| b).collect(),
                blkno_known: true,
                offsets: g.pages.iter().map(|&(_, i)| ora_found[i].offset).collect(),
                rdbas: Some(
                    g.pages
                        .iter()
                        .map(|&(_, i)| format!("0x{:08x}", ora_found[i].sig.rdba))
                        .collect(),
                ),
                data_object_id: g.obj,
                lsn_range,
                columns: None,
                toast: None,
                duplicates: g
                    .duplicates
                    .iter()
                    .map(|&(block, i)| CarveDuplicate {
                        block,
                        offset: ora_found[i].offset,
                        lsn: scn_text(ora_found[i].sig.scn),
                        source: "image".to_owned(),
                        record_lsn: None,
                    })
                    .collect(),
                relfilenode: None,
                fork: None,
                wal_lsns: None,
            },
            wal_pages: Vec::new(),
        });
    }
    planned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::postgres::wal::redo;
    use crate::parse::postgres::walcarve::testing::{fpi_record, heap_page, wal as wal_bytes, SEG};

    /// `page` with pd_lsn `lsn` and the checksum of block `blkno`.
    fn stamped(mut page: Vec<u8>, lsn: u64, blkno: u64) -> Vec<u8> {
        page[0..4].copy_from_slice(&((lsn >> 32) as u32).to_le_bytes());
        page[4..8].copy_from_slice(&(lsn as u32).to_le_bytes());
        let c = pg_checksum_page(&page, blkno, Endian::Little).unwrap();
        page[8..10].copy_from_slice(&c.to_le_bytes());
        page
    }

    fn scan_all(image: &[u8]) -> Vec<Hit> {
        scan(&Wanted::default(), image, image.len(), 0)
    }

    #[test]
    fn wal_pages_are_not_relation_pages_and_their_images_join_the_carved_relation() {
        // Block 2 of a relation as its data file held it (3 tuples, an old
        // pd_lsn), and a newer version (4 tuples, sharing the 3) as a
        // full-page image whose bytes sit at a sector inside the WAL.
        let on_disk = stamped(heap_page(3, 100, 700), 0x10, 2);
        let newer = heap_page(4, 100, 700);
        // Block 2 of another relation: other tuples, same block number.
        let other = stamped(heap_page(3, 500, 900), 0x10, 2);
        let records = vec![
            fpi_record(&heap_page(3, 100, 700), 16384, 2, true, 2243),
            fpi_record(&newer, 16384, 2, false, 7),
        ];
        let mut image = vec![0x5Au8; 4096];
        let wal_at = image.len();
        image.extend(wal_bytes(&records, SEG));
        image.extend(vec![0x5A; 1024]);
        let disk_at = image.len();
        image.extend(&on_disk);
        image.extend(vec![0x5A; 1024]);
        let other_at = image.len();
        image.extend(&other);
        image.extend(vec![0x5A; 1024]);

        let hits = scan_all(&image);
        let wal_hits: Vec<u64> = hits
            .iter()
            .filter(|h| matches!(h, Hit::Wal(_)))
            .map(Hit::offset)
            .collect();
        assert_eq!(wal_hits, [0, 1, 2].map(|n| (wal_at + n * 8192) as u64));
        let pg_hits: Vec<u64> = hits
            .iter()
            .filter(|h| matches!(h, Hit::Postgres(_)))
            .map(Hit::offset)
            .collect();
        // Not the image at wal_at + 8192 + 512: only the data-file pages.
        assert_eq!(pg_hits, [disk_at as u64, other_at as u64]);

        let read = |off: u64, buf: &mut [u8]| {
            let off = (off as usize).min(image.len());
            let n = buf.len().min(image.len() - off);
            buf[..n].copy_from_slice(&image[off..off + n]);
            n
        };
        let mut w = wal(&hits, &read);
        assert_eq!(w.stretches.len(), 1);
        assert_eq!(w.decoded[0].fpis, 2);
        let planned = plan(&hits, &mut w, image.len() as u64, 1);
        assert_eq!(planned.len(), 2, "{planned:#?}");
        let merged = planned
            .iter()
            .find(|p| p.group.relfilenode.is_some())
            .unwrap();
        let g = &merged.group;
        assert_eq!(g.relfilenode.as_deref(), Some("1663/5/16384"));
        assert_eq!(g.fork.as_deref(), Some("main"));
        assert_eq!(g.kind, "heap");
        assert_eq!(g.blocks, [2]);
        let fpi_lsn = w.fpis.all[1].record_lsn;
        assert_eq!(
            g.wal_lsns,
            Some(vec![Some(lsn_text(fpi_lsn))]),
            "the newest version is the image"
        );
        // The older versions: the data-file page and the first image.
        let sources: Vec<(&str, u64)> = g
            .duplicates
            .iter()
            .map(|d| (d.source.as_str(), d.offset))
            .collect();
        assert_eq!(
            sources,
            [("image", disk_at as u64), ("wal", wal_at as u64 + 40)]
        );
        // The page written: the image, pd_lsn its record's end, and a
        // checksum for block 2 (the carved pages carry checksums).
        let page = merged.wal_pages[0].as_ref().unwrap();
        assert!(page[24..] == newer[24..]);
        assert_eq!(redo::page::lsn(page), w.fpis.all[1].lsn);
        assert!(w.fpis.all[1].lsn > fpi_lsn);
        let stored = u16::from_le_bytes([page[8], page[9]]);
        assert_eq!(Some(stored), pg_checksum_page(page, 2, Endian::Little));
        // The other relation's page stays a group of its own.
        let alone = planned
            .iter()
            .find(|p| p.group.relfilenode.is_none())
            .unwrap();
        assert_eq!(alone.group.offsets, [other_at as u64]);
        assert!(alone.group.duplicates.is_empty());
    }
}
