//! `blockscope wal`: the records of WAL segments, listed as pg_waldump
//! lists them, checked, in order.
//!
//! The segments (files, a pg_wal or archive directory, a data directory's
//! pg_wal) are found and ordered here; each is read whole (read-only) and
//! decoded by [`crate::parse::postgres::wal::decode_segment`] on a worker
//! thread, a window of segments at a time, its lines rendered there too;
//! the windows' output is written in WAL order. A record that runs into the
//! next segment reads only the pages it needs from that file.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rayon::prelude::*;

use crate::engine::wal::WalSet;
use crate::error::Error;
use crate::model::postgres::wal::{RelFileNode, WalProblem, WalRecord};
use crate::parse::postgres::wal::Item;
use crate::render::postgres::wal as render;

use super::progress::{self, Progress, ProgressMode};
use super::Sink;

thread_local! {
    /// Each worker's segment buffer, reused from one segment to the next.
    static SEGMENT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
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
    /// `--rebuild` / `--history`: the block's versions instead of the listing.
    pub rebuild: Option<super::rebuild::RebuildConfig>,
    /// When to draw the progress bar (`--progress`, `--quiet`).
    pub progress: ProgressMode,
}

/// Run `wal`: the records to the sink's output, damage to standard error.
pub(crate) fn run(config: &WalConfig, sink: &mut Sink) -> Result<ExitCode, Error> {
    let table = match &config.table {
        Some((name, db)) => Some(table_relation(&config.paths[0], name, db.as_deref())?),
        None => None,
    };
    if let Some(r) = &config.rebuild {
        let source = super::rebuild::Source {
            paths: &config.paths,
            seg_size: config.seg_size,
            relation: config.filter.relation,
            table: config
                .table
                .as_ref()
                .zip(table)
                .map(|((n, _), t)| (n.as_str(), t)),
            block: config.filter.block,
            json: config.format != WalFormat::Table,
        };
        return super::rebuild::run(&source, r, sink);
    }
    let set = WalSet::open(&config.paths, config.seg_size)?;
    let filter = &config.filter;
    // Segments the LSN range leaves out are not read at all.
    let todo = set.segments(filter.start, filter.end);
    // The bar counts the bytes of the segment files read, one segment at a
    // time as its output is written.
    let file_len = |path: &Path| std::fs::metadata(path).map_or(0, |m| m.len());
    let total: u64 = todo.iter().map(|s| file_len(&s.path)).sum();
    let progress = Progress::start(config.progress, total);

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
                    let mut o = Out {
                        text: pool
                            .lock()
                            .ok()
                            .and_then(|mut p| p.pop())
                            .unwrap_or_default(),
                        problems: Vec::new(),
                        records: 0,
                    };
                    set.decode(s, bytes, &mut |item| match item {
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
            // With the bar off the screen when standard output is its terminal.
            progress
                .output(|| -> io::Result<()> {
                    if let Some(problem) = set.gap(prev_segno, s) {
                        emit_problem(&mut out, format, &problem)?;
                        all_problems.push(problem);
                    }
                    let mut at = 0;
                    if format == WalFormat::Json && o.records > 0 && first_record {
                        // The first record of the document has no comma before it.
                        at = o.text.find(',').map_or(0, |i| i + 1);
                        out.write_all(&o.text.as_bytes()[..at - 1])?;
                    }
                    if o.records > 0 {
                        first_record = false;
                    }
                    for (cut, p) in o.problems {
                        let cut = cut.max(at);
                        out.write_all(&o.text.as_bytes()[at..cut])?;
                        at = cut;
                        emit_problem(&mut out, format, &p)?;
                        all_problems.push(p);
                    }
                    out.write_all(&o.text.as_bytes()[at..])?;
                    if progress.drawn() {
                        out.flush()?;
                    }
                    Ok(())
                })
                .map_err(w)?;
            prev_segno = Some(s.segno);
            progress.inc(file_len(&s.path));
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
            // With the bar, if any, off the screen.
            progress::report(&render::problem_line(p));
        }
        WalFormat::Ndjson => writeln!(out, "{{\"problem\":{}}}", render::json_problem(p))?,
        WalFormat::Json => {}
    }
    Ok(())
}
