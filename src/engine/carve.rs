//! `carve`'s way to the engines: at each 512-byte boundary of an image
//! window, each engine's first test and full check ([`scan`]), then each
//! engine's grouping of what it found into relation files ([`plan`]). The
//! one place the carve code chooses by engine; the recognisers and the
//! grouping are the parsers' (`parse::postgres::carve`,
//! `parse::oracle::carve`).

use crate::model::carve::{CarveDuplicate, CarveGroup};
use crate::parse::oracle::carve as ora;
use crate::parse::postgres::carve as pg;
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
}

impl Hit {
    /// Its image byte offset.
    pub(crate) fn offset(&self) -> u64 {
        match self {
            Hit::Postgres(f) => f.offset,
            Hit::Oracle(f) => f.offset,
        }
    }

    /// Its size in bytes.
    pub(crate) fn len(&self) -> u64 {
        u64::from(match self {
            Hit::Postgres(f) => f.sig.size,
            Hit::Oracle(f) => f.sig.size,
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
pub(crate) fn plan(hits: &[Hit], image_len: u64, first_id: u32) -> Vec<Planned> {
    let mut pg_found = Vec::new();
    let mut ora_found = Vec::new();
    for hit in hits {
        match hit {
            Hit::Postgres(f) => pg_found.push(*f),
            Hit::Oracle(f) => ora_found.push(*f),
        }
    }
    let mut planned = Vec::new();
    let pg_groups = pg::group(&pg_found, image_len / 1024);
    for (n, g) in pg_groups.iter().enumerate() {
        let id = first_id + n as u32;
        let lsns = g.pages.iter().map(|&(_, i)| pg_found[i].sig.lsn);
        let lsn_range = lsns
            .clone()
            .min()
            .zip(lsns.max())
            .map(|(a, b)| [lsn_text(a), lsn_text(b)]);
        planned.push(Planned {
            size: u64::from(g.size),
            group: CarveGroup {
                id,
                engine: Engine::Postgres.name().to_owned(),
                kind: g.class.name().to_owned(),
                image: String::new(),
                path: format!("postgres/{id:04}-{}", g.class.name()),
                blocks: g.pages.iter().map(|&(b, _)| b).collect(),
                blkno_known: g.blkno_known,
                offsets: g.pages.iter().map(|&(_, i)| pg_found[i].offset).collect(),
                rdbas: None,
                data_object_id: None,
                lsn_range,
                columns: None,
                toast: g.toast.map(|t| first_id + t as u32),
                duplicates: g
                    .duplicates
                    .iter()
                    .map(|&(block, i)| CarveDuplicate {
                        block,
                        offset: pg_found[i].offset,
                        lsn: lsn_text(pg_found[i].sig.lsn),
                    })
                    .collect(),
            },
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
                    })
                    .collect(),
            },
        });
    }
    planned
}
