//! WAL files found, ordered and read: the seam every command that reads a
//! PostgreSQL write-ahead log goes through (`wal`'s listing, and the
//! commands that join pages with their history).
//!
//! [`WalSet::open`] finds the segments of files, `pg_wal` or archive
//! directories and data directories, takes the segment and page size from
//! the first readable long page header, and keeps one file per segment
//! number (the highest timeline's, a complete file before a `.partial`
//! one). [`WalSet::decode`] reads one segment whole (read-only) and hands
//! its records and problems to a callback; a record that runs into the next
//! segment reads only the pages it needs from that file.
//! [`WalSet::for_each`] does that for every segment of an LSN range, in
//! WAL order, naming missing segments.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::model::postgres::wal::{lsn, WalProblem};
use crate::parse::postgres::wal::{
    decode_segment, page_header, Geometry, Item, Page, Pages, Segment, KNOWN_MAGIC,
};

/// One segment file: where it sits in the WAL and which file holds it.
#[derive(Clone, Debug)]
pub(crate) struct SegFile {
    /// The file.
    pub path: PathBuf,
    /// Its name, as problems print it.
    pub name: String,
    /// Its timeline.
    pub tli: u32,
    /// Its segment number.
    pub segno: u64,
    /// A `.partial` file.
    pub partial: bool,
}

/// `TTTTTTTTXXXXXXXXYYYYYYYY` (and `.partial`): timeline, and the two
/// halves of the segment number (`XLogFromFileName`).
fn parse_name(name: &str) -> Option<(u32, u64, u64, bool)> {
    let (stem, partial) = match name.strip_suffix(".partial") {
        Some(s) => (s, true),
        None => (name, false),
    };
    if stem.len() != 24 || !stem.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let tli = u32::from_str_radix(&stem[0..8], 16).ok()?;
    let log = u64::from_str_radix(&stem[8..16], 16).ok()?;
    let seg = u64::from_str_radix(&stem[16..24], 16).ok()?;
    Some((tli, log, seg, partial))
}

fn io_error(path: &Path, source: io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The WAL files named by `paths`: segment files as given, the segments of
/// directories (a data directory's pg_wal). `.backup` history files and
/// other names are not WAL segments and are passed over.
fn find_files(paths: &[PathBuf]) -> Result<Vec<(PathBuf, String)>, Error> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| io_error(p, e))?;
        if meta.is_dir() {
            let dir = if p.join("pg_wal").is_dir() {
                p.join("pg_wal")
            } else {
                p.clone()
            };
            let mut names: Vec<String> = std::fs::read_dir(&dir)
                .map_err(|e| io_error(&dir, e))?
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| parse_name(n).is_some())
                .collect();
            names.sort();
            out.extend(names.into_iter().map(|n| (dir.join(&n), n)));
        } else {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push((p.clone(), name));
        }
    }
    Ok(out)
}

/// The first page of a file (for its long header).
fn first_page(path: &Path) -> Result<Vec<u8>, Error> {
    let mut f = File::open(path).map_err(|e| io_error(path, e))?;
    let mut buf = vec![0u8; 64];
    let mut got = 0;
    while got < buf.len() {
        match f.read(&mut buf[got..]).map_err(|e| io_error(path, e))? {
            0 => break,
            n => got += n,
        }
    }
    buf.truncate(got);
    Ok(buf)
}

/// Geometry and magic from the first file whose long header is readable.
fn geometry(files: &[(PathBuf, String)], seg_size: Option<u64>) -> Result<(Geometry, u16), Error> {
    for (path, _) in files {
        let page = first_page(path)?;
        let Some(h) = page_header(&page) else {
            continue;
        };
        if !KNOWN_MAGIC.iter().any(|(m, _)| *m == h.xlp_magic) {
            continue;
        }
        let (Some(s), Some(b)) = (h.xlp_seg_size, h.xlp_xlog_blcksz) else {
            continue;
        };
        let geo = Geometry {
            seg_size: seg_size.unwrap_or(u64::from(s)),
            page_size: b as usize,
        };
        if geo.valid() {
            return Ok((geo, h.xlp_magic));
        }
    }
    let first = files.first().map(|(p, _)| p.clone()).unwrap_or_default();
    let magic = first_page(&first)
        .ok()
        .and_then(|p| page_header(&p))
        .map(|h| h.xlp_magic);
    Err(Error::Usage(match magic {
        Some(m) if !KNOWN_MAGIC.iter().any(|(k, _)| *k == m) => format!(
            "{}: xlp_magic 0x{m:04X} is not a WAL format this reads (PostgreSQL 15: 0xD110, \
             16: 0xD113, 17: 0xD116)",
            crate::escape::path(&first)
        ),
        _ => format!(
            "{}: no WAL segment with a valid long page header to take the segment size from \
             (give --wal-segsize)",
            crate::escape::path(&first)
        ),
    }))
}

/// Files placed in the WAL: one per segment number, the highest timeline's
/// (a complete file before a `.partial` one of the same timeline).
fn place(files: Vec<(PathBuf, String)>, geo: Geometry) -> Result<Vec<SegFile>, Error> {
    let per_log = 0x1_0000_0000u64 / geo.seg_size;
    let mut by_segno: BTreeMap<u64, SegFile> = BTreeMap::new();
    for (path, name) in files {
        let placed = match parse_name(&name) {
            Some((tli, log, seg, partial)) => Some((tli, log * per_log + seg, partial)),
            // A file with another name: its long header says where it is.
            None => first_page(&path)?
                .as_slice()
                .pipe(page_header)
                .filter(|h| h.xlp_seg_size.is_some())
                .map(|h| (h.xlp_tli, h.xlp_pageaddr / geo.seg_size, false)),
        };
        let Some((tli, segno, partial)) = placed else {
            return Err(Error::Usage(format!(
                "{}: not a WAL segment (neither its name nor its first page says where it is)",
                crate::escape::path(&path)
            )));
        };
        let file = SegFile {
            path,
            name,
            tli,
            segno,
            partial,
        };
        match by_segno.get(&segno) {
            Some(old) if (old.tli, !old.partial) >= (tli, !partial) => {}
            _ => {
                by_segno.insert(segno, file);
            }
        }
    }
    Ok(by_segno.into_values().collect())
}

trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}
impl<T> Pipe for T {}

/// Later segments' pages for records that run into them.
struct Later<'a> {
    /// The placed files, by segment number (ascending).
    files: &'a [SegFile],
    geo: Geometry,
    last_segno: u64,
}

impl Later<'_> {
    /// The file of segment `segno`, if it is there.
    fn find(&self, segno: u64) -> Option<&SegFile> {
        self.files
            .binary_search_by_key(&segno, |f| f.segno)
            .ok()
            .map(|i| &self.files[i])
    }
}

impl Pages for Later<'_> {
    fn page(&self, pos: u64) -> Page {
        let segno = pos / self.geo.seg_size;
        let Some(f) = self.find(segno) else {
            return if segno > self.last_segno {
                Page::End
            } else {
                Page::Missing
            };
        };
        let read = || -> io::Result<Vec<u8>> {
            let mut file = File::open(&f.path)?;
            file.seek(SeekFrom::Start(pos % self.geo.seg_size))?;
            let mut buf = Vec::with_capacity(self.geo.page_size);
            file.take(self.geo.page_size as u64).read_to_end(&mut buf)?;
            Ok(buf)
        };
        Page::Bytes(read().unwrap_or_default())
    }

    fn file_name(&self, pos: u64) -> String {
        let segno = pos / self.geo.seg_size;
        match self.find(segno) {
            Some(f) => f.name.clone(),
            None => {
                let per_log = 0x1_0000_0000u64 / self.geo.seg_size;
                let tli = self.files.first().map_or(1, |f| f.tli);
                format!("{tli:08X}{:08X}{:08X}", segno / per_log, segno % per_log)
            }
        }
    }
}

/// The whole file at `path` into `buf` (opened read-only).
fn read_whole(path: &Path, buf: &mut Vec<u8>) -> io::Result<()> {
    buf.clear();
    let mut file = File::open(path)?;
    // Sized once: read_to_end's doubling would leave twice the segment.
    let len = file.metadata().map_or(0, |m| m.len()) as usize;
    buf.reserve_exact(len.min(1 << 30));
    file.read_to_end(buf)?;
    Ok(())
}

/// The WAL segments of some paths, placed and ready to read.
pub(crate) struct WalSet {
    segs: Vec<SegFile>,
    geo: Geometry,
    magic: u16,
}

impl WalSet {
    /// Find and place the segments of `paths` (segment files, `pg_wal` or
    /// archive directories, data directories); `seg_size` is
    /// `--wal-segsize`, else the long page header's.
    pub(crate) fn open(paths: &[PathBuf], seg_size: Option<u64>) -> Result<WalSet, Error> {
        let files = find_files(paths)?;
        if files.is_empty() {
            return Err(Error::Usage(format!(
                "no WAL segment in {}",
                paths
                    .iter()
                    .map(|p| crate::escape::path(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let (geo, magic) = geometry(&files, seg_size)?;
        let segs = place(files, geo)?;
        Ok(WalSet { segs, geo, magic })
    }

    /// The segments that hold records of `[start, end)`, in WAL order.
    pub(crate) fn segments(&self, start: Option<u64>, end: Option<u64>) -> Vec<&SegFile> {
        let size = self.geo.seg_size;
        self.segs
            .iter()
            .filter(|s| {
                let first = s.segno * size;
                start.is_none_or(|st| first + size > st) && end.is_none_or(|e| first < e)
            })
            .collect()
    }

    /// The problem for the segments missing between `prev` (the segment
    /// number read before) and `s`, if any are.
    pub(crate) fn gap(&self, prev: Option<u64>, s: &SegFile) -> Option<WalProblem> {
        let p = prev?;
        if s.segno <= p + 1 {
            return None;
        }
        let pos = (p + 1) * self.geo.seg_size;
        let missing = s.segno - p - 1;
        Some(WalProblem {
            file: self.later().file_name(pos),
            offset: 0,
            lsn: lsn(pos),
            class: "missing-segment",
            message: format!(
                "{missing} segment{} missing before {}; reading resumes there",
                if missing == 1 { " is" } else { "s are" },
                s.name
            ),
        })
    }

    fn later(&self) -> Later<'_> {
        Later {
            files: &self.segs,
            geo: self.geo,
            last_segno: self.segs.last().map_or(0, |s| s.segno),
        }
    }

    /// Read segment `s` into `buf` and decode the records that start in
    /// it, calling `sink` with each record and problem in WAL order.
    pub(crate) fn decode(&self, s: &SegFile, buf: &mut Vec<u8>, sink: &mut dyn FnMut(Item<'_>)) {
        let geo = self.geo;
        if let Err(e) = read_whole(&s.path, buf) {
            sink(Item::Problem(WalProblem {
                file: s.name.clone(),
                offset: 0,
                lsn: lsn(s.segno * geo.seg_size),
                class: "missing-segment",
                message: format!("cannot be read: {e}"),
            }));
            return;
        }
        let later = self.later();
        let seg = Segment {
            bytes: buf,
            start: s.segno * geo.seg_size,
            last: s.segno == later.last_segno,
            magic: self.magic,
        };
        let later_files = self.segs.len() - self.segs.partition_point(|f| f.segno <= s.segno);
        let after = later_files as u64 * geo.seg_size;
        decode_segment(&seg, geo, after, &later, sink);
    }

    /// Every record and problem of the segments holding `[start, end)`, in
    /// WAL order, one segment in memory at a time. Records outside the
    /// range are passed too: the caller filters by LSN.
    // The WAL-history commands (issue 29 items 2–4) call it; `wal` does not.
    #[allow(dead_code)]
    pub(crate) fn for_each(
        &self,
        start: Option<u64>,
        end: Option<u64>,
        sink: &mut dyn FnMut(Item<'_>),
    ) {
        let mut buf = Vec::new();
        let mut prev = None;
        for s in self.segments(start, end) {
            if let Some(p) = self.gap(prev, s) {
                sink(Item::Problem(p));
            }
            prev = Some(s.segno);
            self.decode(s, &mut buf, sink);
        }
    }
}
