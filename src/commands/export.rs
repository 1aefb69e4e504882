//! `export`: a table's rows out of its relation files (or an Oracle
//! datafile) as COPY text, CSV, INSERT statements or NDJSON.
//!
//! PostgreSQL: [`export_relation`] takes what the catalog (or the command
//! line) says about a table — its main fork's segment files, its columns,
//! its TOAST relation's files, the data directory whose pg_xact decides
//! commit status — and writes its rows. Blocks are read a window at a time
//! and decoded on every core when no TOAST relation is read (TOAST lookups
//! read a file by seeking, one block at a time); rows come out in block
//! order. What cannot be read is named on standard error and skipped.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cluster::xact::XactLog;
use crate::cluster::{has_checksums, ServerState};
use crate::engine::{Engine, RowStorage};
use crate::error::Error;
use crate::model::postgres::types::{PgType, Schema};
use crate::model::postgres::verify::ProvenanceInput;
use crate::model::postgres::{
    HeapTuple, ItemPointer, LpFlags, PageBytes, PageHeader, PageKind, Typed, Value,
};
use crate::model::{Problem, ProblemClass, Severity};
use crate::parse::postgres::attrs;
use crate::parse::postgres::heap::{has_readable_tuple, peek_tuple_header};
use crate::parse::postgres::page::{check_checksum, item_ids};
use crate::parse::postgres::toast::ToastStore;
use crate::parse::postgres::visibility::{decide, RowStatus, XactLookup};
use crate::parse::postgres::{check_page_in, page_size_from_header, PageOptions};
use crate::reader::Endian;
use crate::reader::Reader;
use crate::render::export::{Cell, CellKind, OutColumn, RowFormat, RowState};
use crate::source::{RelationFileName, DEFAULT_BLOCK_SIZE, DEFAULT_SEGMENT_BYTES};

use super::inputs::{read_schema, table_lookup_notes};
use super::progress::{self, Progress, ProgressMode};
use super::{report_error, stdout_error, BlockRange, Sink};

mod common;
mod oracle;
mod wal_rows;

pub(crate) use common::{
    output_closed, read_full, write_provenance, Evidence, ExportConfig, ExportOptions, Relation,
    Rows,
};

/// Blocks read at a time with a TOAST relation (decoded one by one).
const WINDOW: usize = 256;
/// Blocks a worker decodes at a time (one read of 64 KiB: the kernel copies
/// into a buffer that small faster than into a larger one), and tasks in
/// flight at most (deep enough that the workers do not wait when the
/// reading thread is descheduled for a while on a busy machine: 4 MiB of
/// blocks).
const TASK: usize = 8;
const DEPTH: usize = 64;

/// Run `export`.
pub(crate) fn run(cfg: &ExportConfig, sink: &mut Sink) -> Result<ExitCode, Error> {
    let args = cfg;
    let opts = cfg.options.clone();
    if let Some(table) = &args.table {
        return export_table(args, table, &opts, sink);
    }
    // Before its first bytes are read for the engine.
    check_segments(std::slice::from_ref(&args.input), false)?;
    let engine = crate::engine::open::file_engine(&args.input, args.engine)?;
    // The engine is known now: its own range of block sizes.
    crate::engine::check_block_size(opts.block_size, Some(engine))?;
    let spec = match (&args.columns, &args.schema) {
        (Some(list), _) => Some(crate::engine::ColumnSpec::List(super::infer::columns_list(
            list,
            Some(&args.input),
            &args.toast,
        )?)),
        (None, Some(path)) => Some(crate::engine::ColumnSpec::File {
            path: path.clone(),
            text: read_schema(path)?,
        }),
        (None, None) => None,
    };
    if engine.row_storage() == RowStorage::Objects {
        if args.blocks_given || opts.strict {
            return Err(Error::Usage(
                "--blocks and --strict are for PostgreSQL relation files".into(),
            ));
        }
        return oracle::run(args, engine, &opts, spec.as_ref(), sink);
    }
    if args.object_id.is_some() {
        return Err(Error::Usage(
            "--object-id is for Oracle datafiles; a PostgreSQL relation file holds one table"
                .into(),
        ));
    }
    let schema = match engine.columns(spec.as_ref(), &[], opts.block_size, Default::default())? {
        Some(crate::engine::Columns::Postgres { schema, .. }) => schema,
        _ => {
            return Err(Error::Usage(
                "export needs the table's columns: --columns LIST or --schema FILE".into(),
            ))
        }
    };
    let segments = relation_segments(&args.input);
    let filenode = args
        .input
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(RelationFileName::parse)
        .map_or_else(|| "table".to_string(), |r| r.relfilenode.to_string());
    let data_dir = match &args.data_dir {
        Some(d) => {
            if !d.join("pg_xact").is_dir() {
                return Err(Error::Usage(format!(
                    "--data-dir {}: no pg_xact directory there",
                    crate::escape::path(d)
                )));
            }
            Some(d.clone())
        }
        None => XactLog::find_data_dir(&args.input),
    };
    check_segments(&segments, false)?;
    let rel = Relation {
        segments,
        schema,
        toast_segments: (!args.toast.is_empty()).then(|| args.toast.clone()),
        data_dir,
        table_name: args
            .table_name
            .clone()
            .unwrap_or_else(|| format!("restored_{filenode}")),
        wal: None,
    };
    let mut out = BufWriter::with_capacity(1 << 16, sink.out());
    let name = crate::escape::path(&args.input).to_string();
    export_relation(&rel, &opts, &mut out, &name)
}

/// The relation's files checked before any row is written: a character
/// device (`/dev/null` gives no rows, `/dev/zero` zero pages for ever), a
/// socket or a file of the kernel's pseudo-file systems (`/proc/self/mem`
/// says it is an empty regular file) is no relation file, whatever its
/// name. A FIFO or a block device named on the command line is read in
/// order as a stream of pages; the files a data directory's catalogs name
/// (`in_data_dir`) must be regular files.
fn check_segments(paths: &[PathBuf], in_data_dir: bool) -> Result<(), Error> {
    for path in paths {
        let Ok(meta) = std::fs::metadata(path) else {
            continue; // the open that follows names the error
        };
        let t = meta.file_type();
        let stream = !in_data_dir && crate::source::is_stream(&t);
        let why = match crate::source::not_regular_kind(&t) {
            Some(kind) if !stream => Some(format!("{kind}, not a relation file")),
            Some(_) => None,
            None => crate::source::open_file(path)
                .ok()
                .and_then(|f| crate::source::pseudo_file_system(&f))
                .map(|fs| format!("a file of the kernel's {fs} file system, not a relation file")),
        };
        if let Some(why) = why {
            return Err(Error::Usage(format!(
                "{}: {why}: nothing exported",
                crate::verify::file_name(path)
            )));
        }
    }
    Ok(())
}

/// `export DATADIR --table SCHEMA.NAME [--database NAME]`: the table's
/// files, columns and TOAST relation from the catalogs read offline
/// (`--columns`/`--schema` replace the catalog's columns), commit status from
/// the data directory's pg_xact.
fn export_table(
    args: &ExportConfig,
    table: &str,
    opts: &ExportOptions,
    sink: &mut Sink,
) -> Result<ExitCode, Error> {
    let datadir = &args.input;
    if !datadir.is_dir() {
        return Err(Error::Usage(format!(
            "--table needs a data directory as the input, not {}",
            crate::escape::path(datadir)
        )));
    }
    if args.object_id.is_some() || args.engine.is_some_and(|e| e != Engine::with_catalogs()) {
        return Err(Error::Usage(
            "--table finds a PostgreSQL table in a data directory's catalogs".into(),
        ));
    }
    let cluster = crate::cluster::Cluster::open(datadir)?;
    let (info, _) = cluster
        .find_table_anywhere(args.database.as_deref(), table)
        .map_err(|e| {
            let e = e.to_string();
            // A message that already says how to go on (a damaged catalog) ends with that.
            Error::Usage(if e.contains('\n') {
                format!("{}: {e}", crate::escape::path(datadir))
            } else {
                format!(
                    "{}: {e}; to export anyway, name the table's relation file \
                 (base/DBOID/RELFILENODE) with --columns or --schema",
                    crate::escape::path(datadir)
                )
            })
        })?;
    if info.relkind == 'i' {
        return Err(Error::Usage(format!(
            "{}: {}.{} is an index: its tuples are keys, not a table's rows \
             (show or map it with --table)",
            crate::escape::path(datadir),
            crate::escape::name(&info.schema_name),
            crate::escape::name(&info.name)
        )));
    }
    table_lookup_notes(datadir, cluster.notes.iter().chain(&info.notes), &info);
    let mut err = io::stderr().lock();
    let spec = match (&args.columns, &args.schema) {
        (Some(list), _) => Some(crate::engine::ColumnSpec::List(list.clone())),
        (None, Some(path)) => Some(crate::engine::ColumnSpec::File {
            path: path.clone(),
            text: read_schema(path)?,
        }),
        (None, None) => None,
    };
    let given = match &spec {
        Some(spec) => {
            match Engine::with_catalogs().columns(
                Some(spec),
                &[],
                opts.block_size,
                Default::default(),
            )? {
                Some(crate::engine::Columns::Postgres { schema, .. }) => Some(schema),
                _ => None,
            }
        }
        None => None,
    };
    let (schema, fallback) = super::show::cluster::table_columns(
        &info,
        given,
        &crate::escape::path(datadir).to_string(),
        &mut err,
    )?;
    drop(err);
    let toast_segments = if args.toast.is_empty() {
        info.toast_segments.clone()
    } else {
        Some(args.toast.clone())
    };
    let rel = Relation {
        segments: info
            .main_segments
            .iter()
            .filter(|p| p.is_file())
            .cloned()
            .collect(),
        schema,
        wal: args.wal.as_ref().map(|p| wal_rows::WalTable {
            paths: vec![p.clone()],
            db: info.database_oid,
            rel: info.relfilenode,
            toast_rel: wal_rows::WalTable::toast_node(toast_segments.as_deref()),
        }),
        toast_segments,
        data_dir: Some(args.data_dir.clone().unwrap_or_else(|| datadir.clone())),
        table_name: args.table_name.clone().unwrap_or_else(|| {
            format!(
                "{}.{}",
                crate::render::export::quote_ident(&info.schema_name),
                crate::render::export::quote_ident(&info.name)
            )
        }),
    };
    check_segments(&rel.segments, true)?;
    let opts = ExportOptions {
        block_size: opts.block_size.or(Some(cluster.block_size())),
        ..opts.clone()
    };
    let mut out = BufWriter::with_capacity(1 << 16, sink.out());
    let name = format!(
        "{}.{}",
        crate::escape::name(&info.schema_name),
        crate::escape::name(&info.name)
    );
    match export_relation(&rel, &opts, &mut out, &name) {
        // Columns given by hand for a damaged catalog, or catalog pages
        // skipped: something was not read.
        Ok(_) if fallback || info.catalog_damaged() => Ok(ExitCode::from(1)),
        other => other,
    }
}

/// A relation file and the segments after it that exist: `16396` →
/// `16396`, `16396.1`, …; `16396.2` → `16396.2`, `16396.3`, …
pub(crate) fn relation_segments(path: &Path) -> Vec<PathBuf> {
    let mut segments = vec![path.to_path_buf()];
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return segments;
    };
    let Some(rel) = RelationFileName::parse(name) else {
        return segments;
    };
    let stem = name.split('.').next().unwrap_or(name);
    let mut n = rel.segment.unwrap_or(0) + 1;
    loop {
        let next = path.with_file_name(format!("{stem}.{n}"));
        if !next.is_file() {
            break;
        }
        segments.push(next);
        n += 1;
    }
    segments
}

/// What one block gave: its rows' bytes, the messages about what was
/// skipped, and counts.
#[derive(Default)]
struct BlockOut {
    buf: Vec<u8>,
    messages: Vec<String>,
    counts: Counts,
    /// Bytes of blocks read for these rows, for the progress bar.
    read: u64,
}

#[derive(Default, Clone, Copy)]
struct Counts {
    rows: u64,
    skipped_blocks: u64,
    skipped_tuples: u64,
    undecided: u64,
    undecided_written: u64,
    /// Blocks whose checksum or header failed, read tuple by tuple.
    salvaged_blocks: u64,
    /// Blocks read in `--blocks`' range (the short last one included).
    blocks: u64,
}

impl Counts {
    /// Blocks and tuples skipped.
    fn skipped(&self) -> u64 {
        self.skipped_blocks + self.skipped_tuples
    }

    /// Something was skipped or salvaged from a damaged block: exit 1.
    fn reported(&self) -> bool {
        self.skipped() > 0 || self.salvaged_blocks > 0
    }

    fn add(&mut self, o: &Counts) {
        self.rows += o.rows;
        self.skipped_blocks += o.skipped_blocks;
        self.skipped_tuples += o.skipped_tuples;
        self.undecided += o.undecided;
        self.undecided_written += o.undecided_written;
        self.salvaged_blocks += o.salvaged_blocks;
        self.blocks += o.blocks;
    }
}

/// Everything a block needs, shared by the workers.
struct Ctx<'a> {
    schema: &'a Schema,
    log: Option<&'a XactLog>,
    opts: &'a ExportOptions,
    fmt: &'a RowFormat,
    /// The compiled column list, when every live column is an integer or text.
    plan: Option<attrs::RowPlan>,
    block_size: usize,
    /// Checksums are checked: not when the data directory's pg_control says
    /// the cluster has none (stale ones stay after `pg_checksums --disable`).
    checksums: bool,
    /// The first undecided reason, for the closing note.
    first_undecided: std::sync::Mutex<Option<String>>,
    /// `--source-column`'s text for the rows written: `page`, or the WAL
    /// record's LSN.
    source: Option<String>,
}

/// Write the rows of `rel` to `out`; messages about skipped blocks and
/// tuples, and notes, on standard error prefixed with `name`. Exit status
/// 1 when anything was skipped.
pub(crate) fn export_relation(
    rel: &Relation,
    opts: &ExportOptions,
    out: &mut dyn Write,
    name: &str,
) -> Result<ExitCode, Error> {
    let first = rel
        .segments
        .first()
        .ok_or_else(|| Error::Usage("export: no relation file".into()))?;
    let block_size = match opts.block_size {
        Some(b) => b,
        None => {
            let mut head = [0u8; 24];
            let n = crate::source::open_file(first)
                .and_then(|mut f| f.read(&mut head))
                .map_err(|source| Error::Io {
                    path: first.clone(),
                    source,
                })?;
            page_size_from_header(&head[..n]).unwrap_or(DEFAULT_BLOCK_SIZE)
        }
    };
    let log = rel
        .data_dir
        .as_deref()
        .and_then(|d| XactLog::open(d, block_size));
    if let Some(dir) = &rel.data_dir {
        // A running server writes the files while they are read; a crashed
        // one left its last changes in WAL only. Either way, say so.
        if let Some(note) = ServerState::of(dir).note() {
            report_error(&format!("blockscope: note: {}: {note}\n", dir.display()));
        }
    }
    let mut toast = match &rel.toast_segments {
        Some(files) if !files.is_empty() => Some(ToastStore::open(files, Some(block_size))?),
        _ => None,
    };
    let schema = exported_schema(&rel.schema, opts);
    let fmt = RowFormat::new(opts.format, out_columns(&schema, opts), &rel.table_name);
    let ctx = Ctx {
        schema: &schema,
        log: log.as_ref(),
        opts,
        fmt: &fmt,
        plan: attrs::RowPlan::new(&schema.columns),
        block_size,
        checksums: rel.data_dir.as_deref().is_none_or(has_checksums),
        first_undecided: std::sync::Mutex::new(None),
        source: Some("page".into()),
    };
    let undecoded: Vec<String> = schema
        .columns
        .iter()
        .filter(|c| !c.dropped)
        .filter_map(|c| {
            let t = c.ty.as_ref().filter(|t| !t.ty.is_decoded())?;
            Some(format!(
                "{} ({})",
                crate::escape::name(c.name.as_deref().unwrap_or("?")),
                t.display()
            ))
        })
        .collect();
    if !undecoded.is_empty() {
        progress::note(&format!(
            "blockscope: note: {name}: not decoded, written as bytea's hex text (\\x…): {}\n",
            undecoded.join(", ")
        ));
    }
    // The WAL is read before any row is written, so a --wal that names no
    // WAL fails before the pages' rows are out.
    let found = match &rel.wal {
        Some(table) => Some(wal_rows::collect(table, &rel.segments, block_size)?),
        None => None,
    };
    let mut counts = Counts::default();
    let inputs = match write_rows(rel, &ctx, toast.as_mut(), out, name, &mut counts) {
        Ok(inputs) => inputs,
        Err(e) => return output_closed(e, counts.reported()),
    };
    // The WAL's row versions: decoded as the pages' are, but from pages
    // made for them (no checksum to check).
    let mut wal_damaged = false;
    if let Some(found) = found {
        let mut wal_ctx = Ctx {
            checksums: false,
            source: None,
            first_undecided: std::sync::Mutex::new(None),
            ..ctx
        };
        match write_wal_rows(rel, found, &mut wal_ctx, out, name, &mut counts) {
            Ok(damaged) => wal_damaged = damaged,
            Err(e) => return output_closed(e, counts.reported()),
        }
        if let Some(first) = wal_ctx.first_undecided.into_inner().ok().flatten() {
            if let Ok(mut g) = ctx.first_undecided.lock() {
                g.get_or_insert(first);
            }
        }
    }
    if opts.evidence {
        write_provenance(inputs);
    }

    let log_word = match &log {
        Some(l) => format!("pg_xact of {}", crate::escape::path(l.data_dir())),
        None => String::new(),
    };
    if counts.undecided > 0 || log.is_none() {
        let what = match opts.rows {
            Rows::Visible => "written (a row that cannot be ruled out is kept)",
            Rows::Deleted => "not written (not known to be deleted)",
            Rows::All => "written with row_status undecided",
        };
        let first = ctx
            .first_undecided
            .lock()
            .map(|g| g.clone())
            .unwrap_or_default();
        if log.is_none() {
            let why = match &rel.data_dir {
                Some(d) => format!("none readable in {}", crate::escape::path(d)),
                None => "not in a data directory; give --data-dir".to_string(),
            };
            progress::note(&format!(
                "blockscope: note: {name}: no pg_xact ({why}): visibility decided from hint bits \
                 only; {} tuple versions undecided, {what}\n",
                counts.undecided
            ));
        } else {
            progress::note(&format!(
                "blockscope: note: {name}: {} tuple versions undecided by the hint bits and the \
                 {log_word}, {what}{}\n",
                counts.undecided,
                first.map(|f| format!("; first: {f}")).unwrap_or_default()
            ));
        }
    }
    if counts.blocks == 0 && opts.blocks != BlockRange::ALL {
        return Err(Error::Usage(format!(
            "{name}: no blocks to export (--blocks outside the relation)"
        )));
    }
    if counts.reported() {
        let salvaged = match counts.salvaged_blocks {
            0 => String::new(),
            n => {
                format!("; {n} damaged blocks salvaged tuple by tuple (--strict skips them whole)")
            }
        };
        report_error(&format!(
            "blockscope: {name}: {} rows written; skipped {} blocks and {} tuples that could not be read{salvaged}\n",
            counts.rows, counts.skipped_blocks, counts.skipped_tuples
        ));
        return Ok(ExitCode::from(1));
    }
    if wal_damaged {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The rows of `rel` on `out` in block order, what was skipped named on
/// standard error and counted in `counts` as it goes (so the counts hold
/// what was reported when an error, a closed output pipe among them, ends
/// the run); the inputs as read, for `--evidence`.
fn write_rows(
    rel: &Relation,
    ctx: &Ctx<'_>,
    toast: Option<&mut ToastStore>,
    out: &mut dyn Write,
    name: &str,
    counts: &mut Counts,
) -> Result<Vec<ProvenanceInput>, Error> {
    let block_size = ctx.block_size;
    let total = rel
        .segments
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok().map(|m| m.len()))
        .sum();
    let progress = &Progress::start(ctx.opts.progress, total);
    let mut head = Vec::new();
    if ctx.opts.header {
        ctx.fmt.header(&mut head);
    }
    out.write_all(&head).map_err(stdout_error)?;

    let per_segment = DEFAULT_SEGMENT_BYTES / block_size as u64;
    let mut segments = Segments {
        paths: &rel.segments,
        next: 0,
        file: None,
        blkno: 0,
        per_segment,
        block_size,
        evidence: ctx.opts.evidence,
        current: None,
        inputs: Vec::new(),
    };
    match toast {
        // TOAST lookups read a file by seeking: one block after the other.
        Some(store) => {
            let (mut chunk, mut o) = (Chunk::default(), BlockOut::default());
            while segments.fill(&mut chunk, WINDOW)? {
                o.buf.clear();
                o.read = chunk.len as u64;
                for (k, bytes) in chunk.bytes().chunks(block_size).enumerate() {
                    export_block(ctx, chunk.blkno + k as u64, bytes, Some(store), &mut o);
                }
                write_out(out, &mut o, counts, name, progress)?;
            }
        }
        // Chunks of blocks read by the workers themselves (positioned
        // reads of regular files), decoded on every core, written in order.
        None if !ctx.opts.evidence && rel.segments.iter().all(|p| p.is_file()) => {
            let files = SegmentFiles::open(&rel.segments, per_segment, block_size, ctx.opts.blocks);
            let task_bytes = TASK * block_size;
            super::pipeline::ordered_fill(
                super::pipeline::threads(None),
                DEPTH,
                |seq, chunk: &mut Chunk| files.fill(seq, chunk, task_bytes),
                |chunk: &Chunk, o: &mut BlockOut| {
                    o.buf.clear();
                    o.read = chunk.len as u64;
                    for (k, bytes) in chunk.bytes().chunks(block_size).enumerate() {
                        export_block(ctx, chunk.blkno + k as u64, bytes, None, o);
                    }
                },
                |_, o| write_out(out, o, counts, name, progress),
            )?
        }
        // With --evidence, each file is hashed as it is read, and a pipe
        // has no positions: chunks of blocks read in order, decoded on
        // every core, written in order.
        None => super::pipeline::ordered(
            super::pipeline::threads(None),
            DEPTH,
            |chunk| segments.fill(chunk, TASK),
            |chunk: &Chunk, o: &mut BlockOut| {
                o.buf.clear();
                o.read = chunk.len as u64;
                for (k, bytes) in chunk.bytes().chunks(block_size).enumerate() {
                    export_block(ctx, chunk.blkno + k as u64, bytes, None, o);
                }
            },
            |_, o| write_out(out, o, counts, name, progress),
        )?,
    }
    out.flush().map_err(stdout_error)?;
    Ok(segments.inputs)
}

fn write_out(
    out: &mut dyn Write,
    o: &mut BlockOut,
    counts: &mut Counts,
    name: &str,
    progress: &Progress,
) -> Result<(), Error> {
    progress
        .output(|| out.write_all(&o.buf))
        .map_err(stdout_error)?;
    o.buf.clear();
    progress.inc(std::mem::take(&mut o.read));
    for m in o.messages.drain(..) {
        report_error(&format!("blockscope: {name}: {m}\n"));
    }
    counts.add(&o.counts);
    o.counts = Counts::default();
    Ok(())
}

/// A run of blocks read from a relation file: the first one's number and
/// their bytes.
#[derive(Default)]
struct Chunk {
    blkno: u64,
    /// The blocks read, in the first `len` bytes.
    buf: Vec<u8>,
    len: usize,
}

impl Chunk {
    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// The relation's segment files read one after the other, a chunk of
/// blocks at a time, with `--evidence` hashing what is read.
struct Segments<'a> {
    paths: &'a [PathBuf],
    /// The next path to open.
    next: usize,
    file: Option<File>,
    /// The number of the next block read.
    blkno: u64,
    per_segment: u64,
    block_size: usize,
    evidence: bool,
    current: Option<Evidence>,
    /// `--evidence`: the files read to their end.
    inputs: Vec<ProvenanceInput>,
}

impl Segments<'_> {
    /// Fill `chunk` with up to `blocks` blocks (fewer at the end of a
    /// file); false when every file has been read.
    fn fill(&mut self, chunk: &mut Chunk, blocks: usize) -> Result<bool, Error> {
        loop {
            if self.file.is_none() {
                let Some(path) = self.paths.get(self.next) else {
                    return Ok(false);
                };
                let first = first_block(path, self.next, self.per_segment);
                let file = crate::source::open_file(path).map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?;
                self.current = self.evidence.then(|| Evidence::start(path, &file));
                self.file = Some(file);
                self.blkno = first;
                self.next += 1;
            }
            let Some(file) = self.file.as_mut() else {
                continue;
            };
            // The buffer keeps its length from chunk to chunk (zeroed once);
            // `len` says how much of it this chunk holds.
            let want = blocks * self.block_size;
            if chunk.buf.len() != want {
                chunk.buf.resize(want, 0);
            }
            let got = read_full(file, &mut chunk.buf).map_err(|source| Error::Io {
                path: self.paths[self.next - 1].clone(),
                source,
            })?;
            chunk.len = got;
            if let Some(e) = self.current.as_mut() {
                e.read(chunk.bytes());
            }
            if got < blocks * self.block_size {
                // The end of this file.
                self.file = None;
                if let Some(e) = self.current.take() {
                    self.inputs.push(e.finish());
                }
            }
            if got > 0 {
                chunk.blkno = self.blkno;
                self.blkno += got.div_ceil(self.block_size) as u64;
                return Ok(true);
            }
        }
    }
}

/// The number of the first block of segment file `path`, the `index`th of
/// the relation's files: its segment number (`16384.2` is the third
/// segment) times the blocks a segment holds.
fn first_block(path: &Path, index: usize, per_segment: u64) -> u64 {
    let segno = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(RelationFileName::parse)
        .and_then(|r| r.segment)
        .unwrap_or(index as u64);
    segno.saturating_mul(per_segment)
}

/// The relation's segment files opened for positioned reads, and where
/// each task's chunk of blocks lies: task `seq` reads `task_bytes` (fewer
/// at the end of a file) from file `tasks[seq].0` at byte `tasks[seq].1`.
/// A file that cannot be opened is one task that fails with its error,
/// after the rows of the files before it.
struct SegmentFiles<'a> {
    paths: &'a [PathBuf],
    /// Each file, or why it could not be opened, and its first block.
    files: Vec<(io::Result<File>, u64)>,
    tasks: Vec<(usize, u64)>,
    block_size: usize,
}

impl<'a> SegmentFiles<'a> {
    /// Only the tasks with a block in `range` (a file that cannot be opened
    /// keeps its one task).
    fn open(
        paths: &'a [PathBuf],
        per_segment: u64,
        block_size: usize,
        range: BlockRange,
    ) -> SegmentFiles<'a> {
        let task_bytes = (TASK * block_size) as u64;
        let mut files = Vec::with_capacity(paths.len());
        let mut tasks = Vec::new();
        for (index, path) in paths.iter().enumerate() {
            let file = crate::source::open_file(path);
            let len = match &file {
                Ok(f) => f.metadata().map(|m| m.len()).unwrap_or(0),
                Err(_) => 1, // one task, to report the error in order
            };
            let first = first_block(path, index, per_segment);
            let in_range = |t: &u64| {
                let from = first + t * TASK as u64;
                from <= range.last && from + TASK as u64 > range.first
            };
            tasks.extend(
                (0..len.div_ceil(task_bytes))
                    .filter(|t| file.is_err() || in_range(t))
                    .map(|t| (index, t * task_bytes)),
            );
            files.push((file, first));
        }
        SegmentFiles {
            paths,
            files,
            tasks,
            block_size,
        }
    }

    /// Fill `chunk` with task `seq`'s blocks; false past the last task.
    fn fill(&self, seq: u64, chunk: &mut Chunk, task_bytes: usize) -> Result<bool, Error> {
        let Some(&(index, offset)) = usize::try_from(seq).ok().and_then(|s| self.tasks.get(s))
        else {
            return Ok(false);
        };
        let io_error = |source: io::Error| Error::Io {
            path: self.paths[index].clone(),
            source,
        };
        let (file, first) = &self.files[index];
        let file = file
            .as_ref()
            .map_err(|e| io_error(io::Error::new(e.kind(), e.to_string())))?;
        if chunk.buf.len() != task_bytes {
            chunk.buf.resize(task_bytes, 0);
        }
        chunk.len = crate::source::read_at(file, &mut chunk.buf, offset).map_err(io_error)?;
        chunk.blkno = first + offset / self.block_size as u64;
        Ok(true)
    }
}

/// The schema rows are written with: without `--with-generated`, the
/// stored generated columns are left out as `COPY … TO` leaves them out
/// (their bytes are stepped over like a dropped column's).
fn exported_schema<'a>(schema: &'a Schema, opts: &ExportOptions) -> Cow<'a, Schema> {
    if opts.with_generated || schema.generated.is_empty() {
        return Cow::Borrowed(schema);
    }
    let mut s = schema.clone();
    for &i in &schema.generated {
        if let Some(c) = s.columns.get_mut(i) {
            c.dropped = true;
        }
    }
    Cow::Owned(s)
}

/// The output columns: system columns, the row status (`--rows all`), and
/// the table's columns that are not dropped.
fn out_columns(schema: &Schema, opts: &ExportOptions) -> Vec<OutColumn> {
    let mut cols = Vec::new();
    if opts.system_columns {
        for n in ["ctid", "xmin", "xmax"] {
            cols.push(OutColumn {
                name: n.into(),
                extra: true,
            });
        }
    }
    if opts.rows == Rows::All {
        cols.push(OutColumn {
            name: "row_status".into(),
            extra: true,
        });
    }
    if opts.source_column {
        cols.push(OutColumn {
            name: "source".into(),
            extra: true,
        });
    }
    for (i, c) in schema.columns.iter().enumerate() {
        if c.dropped {
            continue;
        }
        cols.push(OutColumn {
            name: c.name.clone().unwrap_or_else(|| format!("col{}", i + 1)),
            extra: false,
        });
    }
    cols
}

/// The cell of a decoded value.
fn cell(v: &Value) -> Cell<'_> {
    let kind = match v.typed {
        Typed::Int(_) | Typed::UInt(_) | Typed::Float(_) => CellKind::Number,
        Typed::Bool(b) => CellKind::Bool(b),
        Typed::Text | Typed::Hex => CellKind::Text,
    };
    Cell {
        text: Some(&v.text),
        kind,
    }
}

/// Start a row and write the columns before the table's: ctid, xmin and
/// xmax with `--with-system-columns`, the row status with `--rows all`.
fn begin_row(
    ctx: &Ctx,
    buf: &mut Vec<u8>,
    t: &HeapTuple,
    tid: ItemPointer,
    status: &RowStatus,
) -> RowState {
    let fmt = ctx.fmt;
    let mut row = fmt.begin(buf);
    if ctx.opts.system_columns {
        let ctid = format!("({},{})", tid.block, tid.offset);
        fmt.field(&mut row, Cell::text(&ctid), buf);
        let mut b = itoa::Buffer::new();
        fmt.field(&mut row, Cell::number(b.format(t.header.t_xmin)), buf);
        fmt.field(&mut row, Cell::number(b.format(t.header.t_xmax)), buf);
    }
    if ctx.opts.rows == Rows::All {
        fmt.field(&mut row, Cell::text(status.name()), buf);
    }
    if ctx.opts.source_column {
        fmt.field(
            &mut row,
            Cell::text(ctx.source.as_deref().unwrap_or("page")),
            buf,
        );
    }
    row
}

/// The checks a block passes before its tuples are read: inside
/// `--blocks`, whole, not new, and — by the structural check verify makes
/// (header, line pointers, tuple headers) and the checksum — a heap page
/// whose header still locates its line pointers. `None` when the block is
/// skipped whole (its message and count are in `o`); what the checks found
/// is in `problems`.
fn checked_block(
    ctx: &Ctx,
    blkno: u64,
    bytes: &[u8],
    o: &mut BlockOut,
    problems: &mut Vec<Problem>,
) -> Option<PageHeader> {
    if !ctx.opts.blocks.contains(blkno) {
        return None;
    }
    o.counts.blocks += 1;
    if bytes.len() < ctx.block_size {
        o.messages.push(format!(
            "block {blkno}: skipped: only {} of {} bytes (the file ends inside the block)",
            bytes.len(),
            ctx.block_size
        ));
        o.counts.skipped_blocks += 1;
        return None;
    }
    if bytes.iter().all(|&b| b == 0) {
        return None; // A new page: no rows.
    }
    let opts = PageOptions {
        blkno,
        blkno_known: true,
        from_text: false,
        kind: None,
        endian: Endian::Little,
    };
    // The structural check verify makes (header, line pointers, tuple
    // headers) and the checksum; then the tuples are read directly.
    let checked = check_page_in(
        bytes,
        &opts,
        crate::parse::postgres::Relation::default(),
        problems,
    );
    if let Some(h) = checked.header.as_ref().filter(|_| ctx.checksums) {
        check_checksum(h, bytes, &opts, problems);
    }
    // With --strict a damaged block is skipped; otherwise, when the header
    // still locates the line pointers, it is salvaged: each tuple is
    // written only if it passes its own checks.
    let damage = block_damage(problems);
    let header = match &checked.header {
        Some(h) if checked.header_usable && (damage.is_empty() || !ctx.opts.strict) => h.clone(),
        _ => {
            let why = if damage.is_empty() {
                "page header damaged".to_string()
            } else {
                damage.join("; ")
            };
            o.messages.push(format!("block {blkno}: skipped: {why}"));
            o.counts.skipped_blocks += 1;
            return None;
        }
    };
    if checked.kind != PageKind::Heap {
        o.messages.push(format!(
            "block {blkno}: skipped: not a heap page ({})",
            checked.kind.name()
        ));
        o.counts.skipped_blocks += 1;
        return None;
    }
    Some(header)
}

/// What a block as a whole fails: its checksum, its page header (errors of
/// those classes), by message.
fn block_damage(problems: &[Problem]) -> Vec<&str> {
    problems
        .iter()
        .filter(|p| {
            p.severity == Severity::Error
                && matches!(
                    p.class,
                    ProblemClass::Header | ProblemClass::Checksum | ProblemClass::Truncated
                )
        })
        .map(|p| p.message.as_str())
        .collect()
}

/// One block: its rows into `o.buf`, what was skipped into `o.messages`.
fn export_block(
    ctx: &Ctx,
    blkno: u64,
    bytes: &[u8],
    toast: Option<&mut ToastStore>,
    o: &mut BlockOut,
) {
    let mut problems = Vec::new();
    let Some(header) = checked_block(ctx, blkno, bytes, o, &mut problems) else {
        return;
    };
    let header = &header;
    let damage = block_damage(&problems);
    let damaged = !damage.is_empty();
    // The block's own message comes first; its counts are filled in below.
    let block_message = damaged.then(|| {
        o.messages.push(String::new());
        o.messages.len() - 1
    });
    let before = o.counts;
    // Line pointers and tuple headers the check found wrong, by line pointer.
    let bad: Vec<(u16, &str)> = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .filter_map(|p| Some((p.item?, p.message.as_str())))
        .collect();
    let r = Reader::new(bytes, Endian::Little);
    let ids = item_ids(&r, header, &mut Vec::new());
    let mut toast = toast;
    let mut budget = attrs::PAGE_VALUE_BUDGET;
    let log = ctx.log.map(|l| l as &dyn XactLookup);
    // The slots of the current tuple, reused from tuple to tuple.
    let mut slots: Vec<attrs::Slot> = Vec::with_capacity(ctx.schema.columns.len());
    for id in &ids {
        let lp = id.lp;
        if id.lp_flags != LpFlags::Normal {
            continue; // unused, redirect, dead: no row
        }
        if let Some((_, why)) = bad.iter().find(|(n, _)| *n == lp) {
            o.messages
                .push(format!("block {blkno} lp {lp}: skipped: {why}"));
            o.counts.skipped_tuples += 1;
            continue;
        }
        let header = if has_readable_tuple(id, bytes.len()) {
            peek_tuple_header(&r, usize::from(id.lp_off)).ok()
        } else {
            None
        };
        let Some(header) = header else {
            o.messages.push(format!(
                "block {blkno} lp {lp}: skipped: no readable tuple at lp_off {}, lp_len {}",
                id.lp_off, id.lp_len
            ));
            o.counts.skipped_tuples += 1;
            continue;
        };
        let data_offset = usize::from(id.lp_off) + usize::from(header.t_hoff);
        let t = HeapTuple {
            header,
            t_bits: None,
            t_oid: None,
            data_offset,
            t_data: (data_offset <= usize::from(id.lp_off) + usize::from(id.lp_len))
                .then(PageBytes::empty),
            raw_flags: Default::default(),
            combined_flags: Default::default(),
        };
        let t = &t;
        let self_tid = ItemPointer {
            block: blkno as u32,
            offset: lp,
        };
        let d = decide(&t.header, self_tid, log);
        let undecided = matches!(d.status, RowStatus::Undecided { .. });
        if let RowStatus::Undecided { reason } = &d.status {
            o.counts.undecided += 1;
            if let Ok(mut g) = ctx.first_undecided.lock() {
                if g.is_none() {
                    *g = Some(format!("block {blkno} lp {lp}: {reason}"));
                }
            }
        }
        let wanted = match ctx.opts.rows {
            Rows::Visible => matches!(d.status, RowStatus::Live) || undecided,
            Rows::Deleted => matches!(d.status, RowStatus::Deleted { .. }),
            Rows::All => true,
        };
        if !wanted {
            continue;
        }
        // Integers and text stored plainly: written as the plan reads them.
        // (Not in a damaged block: there every tuple takes the general path,
        // whose layout must end exactly at lp_len.)
        if let (Some(plan), Some(_), false) = (&ctx.plan, &t.t_data, damaged) {
            let fmt = ctx.fmt;
            let row_start = o.buf.len();
            let mut row = begin_row(ctx, &mut o.buf, t, self_tid, &d.status);
            let end = usize::from(id.lp_off) + usize::from(id.lp_len);
            let data = bytes.get(t.data_offset..end).unwrap_or_default();
            let bitmap = attrs::tuple_bitmap(bytes, id, t);
            let buf = &mut o.buf;
            let plain = plan.read(data, usize::from(t.header.natts()), bitmap, |v| match v {
                attrs::Plain::Int(n) => {
                    fmt.int_field(&mut row, n, buf);
                    true
                }
                attrs::Plain::Text(b) => fmt.text_field(&mut row, b, buf),
                attrs::Plain::Null => {
                    fmt.field(&mut row, Cell::NULL, buf);
                    true
                }
            });
            if plain {
                if undecided {
                    o.counts.undecided_written += 1;
                }
                fmt.end(row, &mut o.buf);
                o.counts.rows += 1;
                continue;
            }
            // Taken back; the general path below reads the tuple again.
            o.buf.truncate(row_start);
        }
        // A tuple the column list does not fit, or a value that cannot be read.
        let layout = if t.t_data.is_none() {
            Err((0, "t_hoff runs past the tuple".to_string()))
        } else {
            attrs::tuple_layout(bytes, id, t, ctx.schema, &mut slots)
        };
        let skip = |o: &mut BlockOut, attnum: usize, why: String| {
            let what = if attnum == 0 {
                why
            } else {
                let label = ctx
                    .schema
                    .columns
                    .get(attnum - 1)
                    .and_then(|c| c.name.as_deref())
                    .map_or_else(
                        || format!("col{attnum}"),
                        |n| crate::escape::name(n).into_owned(),
                    );
                format!("column {attnum} {label}: {why}")
            };
            o.messages
                .push(format!("block {blkno} lp {lp}: skipped: {what}"));
            o.counts.skipped_tuples += 1;
        };
        let data = match layout {
            Ok(l) => l,
            Err((attnum, why)) => {
                skip(o, attnum, why);
                continue;
            }
        };
        // The row is written as its values are read; a value that cannot be
        // read takes back what was written of the row and skips it.
        let fmt = ctx.fmt;
        let row_start = o.buf.len();
        let mut row = begin_row(ctx, &mut o.buf, t, self_tid, &d.status);
        let mut failed = None;
        for (k, (col, slot)) in ctx.schema.columns.iter().zip(&slots).enumerate() {
            if let attrs::Slot::Present { off, len, .. } = *slot {
                if col.dropped {
                    continue;
                }
                match data
                    .get(off..off + len)
                    .and_then(|raw| attrs::inline_value(col, raw))
                {
                    Some(attrs::Inline::Int(n)) => {
                        fmt.int_field(&mut row, n, &mut o.buf);
                        continue;
                    }
                    Some(attrs::Inline::Str(t)) => {
                        fmt.field(&mut row, Cell::text(t), &mut o.buf);
                        continue;
                    }
                    None => {}
                }
            }
            match attrs::slot_value(col, data, slot, toast.as_deref_mut(), &mut budget, damaged) {
                Ok(_) if col.dropped => {}
                Ok(Some(v)) => {
                    let mut c = cell(&v);
                    if matches!(col.ty.as_ref().map(|t| &t.ty), Some(PgType::Numeric)) {
                        c.kind = CellKind::Text;
                    }
                    fmt.field(&mut row, c, &mut o.buf);
                }
                Ok(None) => fmt.field(&mut row, Cell::NULL, &mut o.buf),
                Err(why) => {
                    failed = Some((k + 1, why));
                    break;
                }
            }
        }
        if let Some((attnum, why)) = failed {
            o.buf.truncate(row_start);
            skip(o, attnum, why);
            continue;
        }
        if undecided {
            o.counts.undecided_written += 1;
        }
        fmt.end(row, &mut o.buf);
        o.counts.rows += 1;
    }
    if let Some(k) = block_message {
        let rows = o.counts.rows - before.rows;
        let skipped = o.counts.skipped_tuples - before.skipped_tuples;
        o.messages[k] = format!(
            "block {blkno}: damaged ({}): salvaged tuple by tuple: {} written, each of whose \
             line pointer, header and attributes pass their own checks (their bytes are not \
             vouched for by the block's checksum), {} skipped",
            damage.join("; "),
            plural(rows, "row"),
            plural(skipped, "tuple"),
        );
        o.counts.salvaged_blocks += 1;
    }
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `--wal` as the command line gives it: `None` without it; the directory
/// given, or the input (a data directory: its pg_wal) when none is.
pub(crate) fn wal_option(
    arg: Option<&Option<PathBuf>>,
    input: &Path,
    table: bool,
    opts: &ExportOptions,
) -> Result<Option<PathBuf>, Error> {
    let Some(arg) = arg else {
        return Ok(None);
    };
    if !table {
        return Err(Error::Usage(
            "--wal needs a data directory and --table (the table's relation file nodes are \
             read from its catalogs)"
                .into(),
        ));
    }
    if opts.rows == Rows::Visible {
        return Err(Error::Usage(
            "--wal brings back row versions VACUUM removed from the pages: give --rows deleted \
             or --rows all"
                .into(),
        ));
    }
    Ok(Some(arg.clone().unwrap_or_else(|| input.to_path_buf())))
}

/// `--wal`: the row versions gone from the pages that the WAL still holds,
/// after the pages' rows, each decoded from a page holding it alone (its
/// TOAST values from the TOAST files and the chunks found in the WAL); what
/// was found and what could not be read named on standard error.
fn write_wal_rows(
    rel: &Relation,
    found: wal_rows::Found,
    ctx: &mut Ctx<'_>,
    out: &mut dyn Write,
    name: &str,
    counts: &mut Counts,
) -> Result<bool, Error> {
    let block_size = ctx.block_size;
    for p in &found.problems {
        report_error(&format!(
            "blockscope: {name}: WAL {} at {} (offset {}): {}: {}\n",
            p.file, p.lsn, p.offset, p.class, p.message
        ));
    }
    let files = rel.toast_segments.clone().unwrap_or_default();
    let mut toast = if files.is_empty() && found.toast_pages.is_empty() {
        None
    } else {
        Some(ToastStore::open_with(
            &files,
            Some(block_size),
            found.toast_pages,
        )?)
    };
    let quiet = Progress::start(ProgressMode::Off, 0);
    let before = counts.rows;
    let mut o = BlockOut::default();
    for (blk, off, lsn, tuple) in &found.versions {
        let Some(page) = wal_rows::one_tuple_page(*off, tuple, block_size) else {
            continue;
        };
        let at = crate::model::postgres::wal::lsn(*lsn).to_string();
        ctx.source = Some(at.clone());
        export_block(ctx, u64::from(*blk), &page, toast.as_mut(), &mut o);
        for m in &mut o.messages {
            *m = format!("WAL record {at}: {m}");
        }
        write_out(out, &mut o, counts, name, &quiet)?;
    }
    progress::note(&format!(
        "blockscope: note: {name}: WAL: {} of the table read in {}; {} row versions gone from \
         the pages found there, {} written{}{}\n",
        plural(found.records, "record"),
        plural(found.segments as u64, "segment"),
        found.versions.len(),
        counts.rows - before,
        match found.no_end {
            0 => String::new(),
            n => format!(
                "; {n} more whose delete or update is not in the WAL read (no xmax) not written"
            ),
        },
        match found.unbuilt {
            0 => String::new(),
            n => format!("; {n} images or tuples that could not be rebuilt (lz4 or zstd images, an update's old tuple not found)"),
        },
    ));
    Ok(!found.problems.is_empty())
}
