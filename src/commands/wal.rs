//! `blockscope wal`: the records of WAL segments, listed as pg_waldump
//! lists them, checked, in order.
//!
//! The segments (files, a pg_wal or archive directory, a data directory's
//! pg_wal) are found and ordered here; each is read whole (read-only) and
//! decoded by [`crate::parse::postgres::wal::decode_segment`] on a worker
//! thread, a window of segments at a time, its lines rendered there too;
//! the windows' output is written in WAL order. A record that runs into the
//! next segment reads only the pages it needs from that file.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rayon::prelude::*;

use crate::error::Error;
use crate::model::postgres::wal::{lsn, RelFileNode, WalProblem, WalRecord};
use crate::parse::postgres::wal::{
    decode_segment, page_header, Geometry, Item, Page, Pages, Segment, KNOWN_MAGIC,
};
use crate::render::postgres::wal as render;

use super::Sink;

/// One segment file: where it sits in the WAL and which file holds it.
#[derive(Clone, Debug)]
struct SegFile {
    path: PathBuf,
    name: String,
    tli: u32,
    segno: u64,
    partial: bool,
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
    files: &'a BTreeMap<u64, &'a SegFile>,
    geo: Geometry,
    last_segno: u64,
}

impl Pages for Later<'_> {
    fn page(&self, pos: u64) -> Page {
        let segno = pos / self.geo.seg_size;
        let Some(f) = self.files.get(&segno) else {
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
        match self.files.get(&segno) {
            Some(f) => f.name.clone(),
            None => {
                let per_log = 0x1_0000_0000u64 / self.geo.seg_size;
                let tli = self.files.values().next().map_or(1, |f| f.tli);
                format!("{tli:08X}{:08X}{:08X}", segno / per_log, segno % per_log)
            }
        }
    }
}

thread_local! {
    /// Each worker's segment buffer, reused from one segment to the next.
    static SEGMENT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
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

/// Does `rec` pass the filters?
fn wanted(rec: &WalRecord, f: &WalFilter, table: Option<(u32, u32)>) -> bool {
    if f.start.is_some_and(|s| rec.lsn < s) || f.end.is_some_and(|e| rec.lsn >= e) {
        return false;
    }
    if f.xid.is_some_and(|x| rec.xid != x) {
        return false;
    }
    if !f.rmgrs.is_empty() && !f.rmgrs.contains(&rec.rmid) {
        return false;
    }
    if f.relation.is_none() && table.is_none() && f.block.is_none() {
        return true;
    }
    rec.blocks.iter().any(|b| {
        f.relation.is_none_or(|r: RelFileNode| b.rel == r)
            && table.is_none_or(|(db, rel)| b.rel.db == db && b.rel.rel == rel)
            && f.block.is_none_or(|n| b.blk == n)
    })
}

/// What one segment gave: its rendered records and its problems, in order.
struct Out {
    text: String,
    problems: Vec<(usize, WalProblem)>,
    records: usize,
}

/// `--table`: the table's database OID and relfilenode, from the data
/// directory's catalogs (the one place `wal` reads them).
fn table_relation(datadir: &Path, name: &str, database: Option<&str>) -> Result<(u32, u32), Error> {
    let cluster = crate::cluster::Cluster::open(datadir)
        .map_err(|e| Error::Usage(format!("--table: {e}")))?;
    let (info, _) = cluster
        .find_table_anywhere(database, name)
        .map_err(|e| Error::Usage(format!("--table: {e}")))?;
    Ok((info.database_oid, info.relfilenode))
}

/// How `wal` prints records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WalFormat {
    /// pg_waldump's lines.
    Table,
    /// One JSON document.
    Json,
    /// NDJSON lines.
    Ndjson,
}

/// Which records `wal` lists.
#[derive(Clone, Debug, Default)]
pub(crate) struct WalFilter {
    /// `--relation`.
    pub relation: Option<RelFileNode>,
    /// `--block`.
    pub block: Option<u32>,
    /// `--rmgr`, as rmgr ids.
    pub rmgrs: Vec<u8>,
    /// `--start`.
    pub start: Option<u64>,
    /// `--end`.
    pub end: Option<u64>,
    /// `--xid`.
    pub xid: Option<u32>,
}

/// What `wal` was asked to do.
#[derive(Clone, Debug)]
pub(crate) struct WalConfig {
    /// Segment files and directories.
    pub paths: Vec<PathBuf>,
    /// `--wal-segsize`.
    pub seg_size: Option<u64>,
    /// `--table` (resolved against the data directory by the command) and `--database`.
    pub table: Option<(String, Option<String>)>,
    /// The record filters.
    pub filter: WalFilter,
    /// `--format`.
    pub format: WalFormat,
}

/// Run `wal`: the records to the sink's output, damage to standard error.
pub(crate) fn run(config: &WalConfig, sink: &mut Sink) -> Result<ExitCode, Error> {
    let table = match &config.table {
        Some((name, db)) => Some(table_relation(&config.paths[0], name, db.as_deref())?),
        None => None,
    };
    let files = find_files(&config.paths)?;
    if files.is_empty() {
        return Err(Error::Usage(format!(
            "no WAL segment in {}",
            config
                .paths
                .iter()
                .map(|p| crate::escape::path(p))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let (geo, magic) = geometry(&files, config.seg_size)?;
    let segs = place(files, geo)?;
    let by_segno: BTreeMap<u64, &SegFile> = segs.iter().map(|s| (s.segno, s)).collect();
    let last_segno = segs.last().map_or(0, |s| s.segno);
    let later = Later {
        files: &by_segno,
        geo,
        last_segno,
    };
    let filter = &config.filter;
    // Segments the LSN range leaves out are not read at all.
    let todo: Vec<&SegFile> = segs
        .iter()
        .filter(|s| {
            let start = s.segno * geo.seg_size;
            filter.start.is_none_or(|st| start + geo.seg_size > st)
                && filter.end.is_none_or(|e| start < e)
        })
        .collect();

    let mut out = io::BufWriter::with_capacity(1 << 16, sink.out());
    let w = |e: io::Error| Error::Io {
        path: PathBuf::from("<stdout>"),
        source: e,
    };
    match config.format {
        WalFormat::Json => {
            write!(out, "{{\"schema\":{},\"records\":[", render::SCHEMA).map_err(w)?
        }
        WalFormat::Ndjson => writeln!(out, "{{\"schema\":{}}}", render::SCHEMA).map_err(w)?,
        WalFormat::Table => {}
    }
    let mut all_problems: Vec<WalProblem> = Vec::new();
    let mut first_record = true;
    let mut prev_segno: Option<u64> = None;
    let window = rayon::current_num_threads().max(1);
    // Output buffers go back here once written and are reused: a segment's
    // lines are megabytes, and fresh ones each time grew the heap.
    let pool: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let format = config.format;
    for chunk in todo.chunks(window) {
        let outs: Vec<Out> = chunk
            .par_iter()
            .map(|s| {
                SEGMENT.with_borrow_mut(|bytes| {
                    if let Err(e) = read_whole(&s.path, bytes) {
                        return Out {
                            text: String::new(),
                            problems: vec![(
                                0,
                                WalProblem {
                                    file: s.name.clone(),
                                    offset: 0,
                                    lsn: lsn(s.segno * geo.seg_size),
                                    class: "missing-segment",
                                    message: format!("cannot be read: {e}"),
                                },
                            )],
                            records: 0,
                        };
                    }
                    let bytes: &[u8] = bytes;
                    let seg = Segment {
                        bytes,
                        start: s.segno * geo.seg_size,
                        last: s.segno == last_segno,
                        magic,
                    };
                    let after = by_segno.range(s.segno + 1..).count() as u64 * geo.seg_size;
                    let mut o = Out {
                        text: pool
                            .lock()
                            .ok()
                            .and_then(|mut p| p.pop())
                            .unwrap_or_default(),
                        problems: Vec::new(),
                        records: 0,
                    };
                    decode_segment(&seg, geo, after, &later, &mut |item| match item {
                        Item::Record(rec, bytes) => {
                            if !wanted(rec, filter, table) {
                                return;
                            }
                            match format {
                                WalFormat::Table => render::table_line(rec, bytes, &mut o.text),
                                WalFormat::Json => {
                                    o.text.push(',');
                                    render::json_record(rec, bytes, &mut o.text);
                                }
                                WalFormat::Ndjson => {
                                    render::json_record(rec, bytes, &mut o.text);
                                    o.text.push('\n');
                                }
                            }
                            o.records += 1;
                        }
                        Item::Problem(p) => o.problems.push((o.text.len(), p)),
                    });
                    o
                })
            })
            .collect();
        for (s, o) in chunk.iter().zip(outs) {
            if let Some(p) = prev_segno {
                if s.segno > p + 1 {
                    let first_missing = p + 1;
                    let pos = first_missing * geo.seg_size;
                    let problem = WalProblem {
                        file: later.file_name(pos),
                        offset: 0,
                        lsn: lsn(pos),
                        class: "missing-segment",
                        message: format!(
                            "{} segment{} missing before {}; reading resumes there",
                            s.segno - p - 1,
                            if s.segno - p - 1 == 1 { " is" } else { "s are" },
                            s.name
                        ),
                    };
                    emit_problem(&mut out, format, &problem).map_err(w)?;
                    all_problems.push(problem);
                }
            }
            prev_segno = Some(s.segno);
            let mut at = 0;
            if format == WalFormat::Json && o.records > 0 && first_record {
                // The first record of the document has no comma before it.
                at = o.text.find(',').map_or(0, |i| i + 1);
                out.write_all(&o.text.as_bytes()[..at - 1]).map_err(w)?;
            }
            if o.records > 0 {
                first_record = false;
            }
            for (cut, p) in o.problems {
                let cut = cut.max(at);
                out.write_all(&o.text.as_bytes()[at..cut]).map_err(w)?;
                at = cut;
                emit_problem(&mut out, format, &p).map_err(w)?;
                all_problems.push(p);
            }
            out.write_all(&o.text.as_bytes()[at..]).map_err(w)?;
            let mut text = o.text;
            text.clear();
            if let Ok(mut p) = pool.lock() {
                p.push(text);
            }
        }
    }
    if format == WalFormat::Json {
        out.write_all(b"],\"problems\":[").map_err(w)?;
        for (i, p) in all_problems.iter().enumerate() {
            if i > 0 {
                out.write_all(b",").map_err(w)?;
            }
            out.write_all(render::json_problem(p).as_bytes())
                .map_err(w)?;
        }
        out.write_all(b"]}\n").map_err(w)?;
    }
    out.flush().map_err(w)?;
    Ok(if all_problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A problem where it happened: on standard error (table), as a line
/// (NDJSON); JSON collects them for the document's end.
fn emit_problem(out: &mut impl Write, format: WalFormat, p: &WalProblem) -> io::Result<()> {
    match format {
        WalFormat::Table => {
            out.flush()?;
            // A closed or full stderr leaves nowhere to say anything.
            let _ = io::stderr()
                .lock()
                .write_all(render::problem_line(p).as_bytes());
        }
        WalFormat::Ndjson => writeln!(out, "{{\"problem\":{}}}", render::json_problem(p))?,
        WalFormat::Json => {}
    }
    Ok(())
}
