//! `show`: one loop over the blocks of the input — PostgreSQL pages, Oracle
//! blocks and the blocks of an Oracle trace alike — each decoded through
//! [`crate::engine`] and rendered by [`crate::render::page`].

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cluster::xact::XactLog;
use crate::engine::open::{OpenRequest, OpenedInput};
use crate::engine::{Decoded, Decoder, Engine, Page, ParseOptions, TracePages};
use crate::error::Error;
use crate::input::InputFormat;
use crate::model::postgres::verify::{Provenance, ProvenanceInput};
use crate::model::Severity;
use crate::parse::postgres::visibility::resolve_verdicts;
use crate::render::{self, Format};
use crate::source::{segment_from_name, Blocks, RelationFileName, Tap, DEFAULT_SEGMENT_BYTES};

pub(crate) mod cluster;
mod config;

pub(crate) use config::{ShowConfig, TableSpec};

use super::{is_broken_pipe, note_terminal_stdin, report_error, stdout_error, BlockRange, Sink};

/// Pages `show --format ndjson` parses and serialises in one task on one
/// core.
const NDJSON_TASK: usize = 8;
/// Tasks in flight at most: 64 pages and their lines in memory (a dense
/// page can take over 500 kB of JSON).
const NDJSON_DEPTH: usize = 8;

/// Where the loop's blocks come from (one value a run).
#[allow(clippy::large_enum_variant)]
enum Input {
    /// Blocks cut from a file or pipe by size, decoded one by one.
    Blocks {
        blocks: Blocks,
        decoder: Decoder,
        first_blkno: u64,
        /// `--blkno` was given: it wins over block numbers in the input.
        blkno_given: bool,
        /// Where the block last returned starts in the input (bytes).
        offset: u64,
    },
    /// The blocks of an Oracle trace, found in its text (decoded as taken).
    Trace(TracePages),
}

impl Input {
    /// The next block in range, decoded (the parallel NDJSON path reads
    /// blocks with [`Input::next_raw_into`] instead).
    fn next(&mut self, range: BlockRange) -> Option<Result<Box<Decoded>, Error>> {
        match self {
            Input::Blocks {
                blocks,
                decoder,
                first_blkno,
                blkno_given,
                offset,
            } => loop {
                // Blocks before the range are passed over by position
                // when nothing needs them.
                let skip_to = range.first.saturating_sub(*first_blkno);
                if !decoder.reads_ahead(blocks.next_index()) {
                    blocks.seek_to(skip_to);
                }
                let block = match blocks.next()? {
                    Ok(b) => b,
                    Err(e) => return Some(Err(e)),
                };
                // A block number the input gave (psql's or COPY's leading
                // column) unless --blkno; such numbers need not ascend.
                let given = block.blkno.filter(|_| !*blkno_given);
                let blkno = given.unwrap_or_else(|| first_blkno.saturating_add(block.index));
                if given.is_none() && blkno > range.last {
                    return None;
                }
                let in_range = range.contains(blkno);
                if !in_range && !decoder.reads_ahead(block.index) {
                    continue;
                }
                let at = block.offset;
                let decoded = decoder.decode(blkno, block.data);
                if in_range {
                    *offset = at;
                    return Some(Ok(Box::new(decoded)));
                }
            },
            Input::Trace(pages) => pages
                .find(|d| {
                    d.trace
                        .as_ref()
                        .and_then(|t| t.block)
                        .is_none_or(|b| range.contains(u64::from(b)))
                })
                .map(|d| Ok(Box::new(d))),
        }
    }
}

impl Input {
    /// The parallel path's next block in range: its bytes into `buf` (its
    /// memory reused), and its number.
    fn next_raw_into(
        &mut self,
        range: BlockRange,
        buf: &mut Vec<u8>,
    ) -> Option<Result<u64, Error>> {
        let Input::Blocks {
            blocks,
            decoder,
            first_blkno,
            blkno_given,
            ..
        } = self
        else {
            unreachable!("the parallel path reads blocks, not traces")
        };
        loop {
            let skip_to = range.first.saturating_sub(*first_blkno);
            if !decoder.reads_ahead(blocks.next_index()) {
                blocks.seek_to(skip_to);
            }
            let at = match blocks.next_into(buf)? {
                Ok(at) => at,
                Err(e) => return Some(Err(e)),
            };
            let given = at.blkno.filter(|_| !*blkno_given);
            let blkno = given.unwrap_or_else(|| first_blkno.saturating_add(at.index));
            if given.is_none() && blkno > range.last {
                return None;
            }
            if range.contains(blkno) {
                return Some(Ok(blkno));
            }
        }
    }
}

/// One input opened for the loop: where its blocks come from, and what
/// was found out about it on the way.
pub(crate) struct Opened {
    input: Input,
    is_trace: bool,
    /// The engine detection's scores (None: a trace, or --engine given).
    detection: Option<crate::engine::Detection>,
    /// Engine and options for the parallel NDJSON path, when it applies.
    parallel: Option<(Engine, ParseOptions)>,
    /// The file, when its blocks can be read by position (a regular file of
    /// raw pages, not tapped for `--evidence`): the parallel path's workers
    /// then read them themselves.
    positional: Option<(PathBuf, usize)>,
    /// pg_xact of the data directory, for the verdicts of unhinted tuples.
    xact: Option<XactLog>,
}

impl Opened {
    /// The next block in `range`, decoded (never the parallel path).
    pub(crate) fn next_decoded(&mut self, range: BlockRange) -> Option<Result<Decoded, Error>> {
        self.input.next(range).map(|n| n.map(|d| *d))
    }

    /// Whether this input's blocks can be taken undecoded
    /// ([`Opened::next_raw`]) and decoded on demand ([`Opened::decode`]):
    /// blocks cut from a file whose engine decodes each block by itself.
    pub(crate) fn raw_blocks(&self) -> bool {
        matches!(&self.input, Input::Blocks { decoder, .. } if decoder.blocks_independent())
    }

    /// Whether `other` decodes the same bytes at the same block number
    /// into the same page as this input does (same engine and options).
    pub(crate) fn decodes_like(&self, other: &Opened) -> bool {
        match (&self.input, &other.input) {
            (Input::Blocks { decoder: a, .. }, Input::Blocks { decoder: b, .. }) => {
                a.engine() == b.engine() && a.options() == b.options()
            }
            _ => false,
        }
    }

    /// The next block in `range`, undecoded: its bytes into `buf`, and its
    /// number (only when [`Opened::raw_blocks`]).
    pub(crate) fn next_raw(
        &mut self,
        range: BlockRange,
        buf: &mut Vec<u8>,
    ) -> Option<Result<u64, Error>> {
        self.input.next_raw_into(range, buf)
    }

    /// Block `blkno`'s bytes, as [`Opened::next_raw`] gave them, decoded.
    pub(crate) fn decode(&mut self, blkno: u64, bytes: Vec<u8>) -> Decoded {
        match &mut self.input {
            Input::Blocks { decoder, .. } => decoder.decode(blkno, bytes),
            Input::Trace(_) => unreachable!("raw blocks come from files, not traces"),
        }
    }
}

/// Open `cfg.input`: detect its form, block size and engine, and set up the
/// decoder (`spans`: record the byte spans of every field, as the hex view
/// and `diff` need).
pub(crate) fn open(cfg: &ShowConfig, spans: bool, tap: Option<Tap>) -> Result<Opened, Error> {
    let tapped = tap.is_some();
    let format = cfg.output.format;
    let opened = crate::engine::open::open(OpenRequest {
        input: cfg.input.as_deref(),
        input_format: cfg.input_format,
        block_size: cfg.block_size,
        tap,
        engine: cfg.engine,
        endian: cfg.endian,
    })?;
    let (source, engine, detection) = match opened {
        OpenedInput::Trace(pages) => {
            return Ok(Opened {
                input: Input::Trace(pages),
                is_trace: true,
                detection: None,
                parallel: None,
                positional: None,
                xact: None,
            })
        }
        OpenedInput::Blocks {
            source,
            engine,
            detection,
        } => (source, engine, detection),
    };
    // Nothing of either engine: said once, after the loop.
    if let Some(note) = detection
        .as_ref()
        .and_then(|d| d.note().filter(|_| !d.no_header()))
    {
        super::progress::note(&format!("blockscope: note: {}: {note}\n", cfg.input_name()));
    }
    let mut parallel = None;
    if format == Format::Dump && !engine.has_dump_text() {
        return Err(dump_needs_oracle(cfg));
    }
    // The engine is known now: its own range of block sizes.
    crate::engine::check_block_size(cfg.block_size, Some(engine))?;
    let named = cfg.position_name.as_deref().or(cfg.input.as_deref());
    let segment = cfg.segment.or_else(|| {
        (source.format == InputFormat::Raw)
            .then(|| named.and_then(segment_from_name))
            .flatten()
    });
    if let (true, None, Some(n)) = (engine.numbers_blocks_by_segment(), cfg.blkno, segment) {
        crate::source::first_blkno_of_segment(n, source.block_size, DEFAULT_SEGMENT_BYTES)
            .map_err(|e| {
                Error::Usage(if cfg.segment.is_some() {
                    format!("--segment: {e}")
                } else {
                    format!("{}: {e} (give --blkno)", cfg.input_name())
                })
            })?;
    }
    let first_blkno = engine.first_blkno(cfg.blkno, segment, source.block_size);
    // How to read checksums: a block number told or taken from a relation
    // file's position is known; a page that came through text is a buffer copy.
    let from_text = source.format != InputFormat::Raw;
    let blkno_known = cfg.blkno.is_some()
        || segment.is_some()
        || !from_text
            && named
                .and_then(|p| p.file_name()?.to_str())
                .and_then(RelationFileName::parse)
                .is_some();
    let columns = engine.columns(
        cfg.columns.as_ref(),
        &cfg.toast,
        cfg.block_size,
        cfg.charset,
    )?;
    let decoder = Decoder::new(
        engine,
        ParseOptions {
            blkno: 0,
            kind: cfg.kind,
            spans,
            endian: None,
            blkno_known,
            from_text,
        },
        columns,
    );
    let xact = (engine.has_commit_log() && !from_text)
        .then(|| {
            cfg.data_dir
                .clone()
                .or_else(|| cfg.input.as_deref().and_then(XactLog::find_data_dir))
        })
        .flatten()
        .and_then(|d| XactLog::open(&d, source.block_size));
    if format == Format::Ndjson && decoder.independent() {
        parallel = Some((engine, decoder.options()));
    }
    let positional = cfg
        .input
        .clone()
        .filter(|p| p.as_os_str() != "-" && p.is_file())
        .filter(|_| !tapped && source.format == InputFormat::Raw)
        .map(|p| (p, source.block_size));
    Ok(Opened {
        input: Input::Blocks {
            blocks: source.blocks(),
            decoder,
            first_blkno,
            blkno_given: cfg.blkno.is_some(),
            offset: 0,
        },
        is_trace: false,
        detection,
        parallel,
        positional,
        xact,
    })
}

/// Exit status: 0 when the pages decode clean, 1 when a block has
/// error-level problems, 2 when the input is not pages at all (no block of a
/// kind either engine knows, and no header signal of either). A closed
/// output pipe ends the run quietly with the status found so far.
///
/// One input's JSON is `{"schema", "blocks": [...]}`, whatever the number of
/// blocks; NDJSON starts with a `{"schema"}` line. Several inputs are shown
/// one after the other, each titled by its name (`==> NAME <==`; JSON:
/// `{"schema", "inputs": [{"input", "blocks"}, ...]}`; NDJSON: a line
/// `{"input": NAME}` before its blocks); the status is the worst of theirs,
/// and an input that cannot be shown is an error line and status 2 while the
/// others are still shown.
pub(crate) fn run(cfg: &ShowConfig, sink: &mut Sink) -> Result<ExitCode, Error> {
    if let Some(table) = &cfg.table {
        let Some(table) = cluster::table_segments(cfg, table)? else {
            return Ok(ExitCode::SUCCESS);
        };
        let code = show_segments(&table.segments, sink)?;
        return Ok(if table.incomplete {
            ExitCode::from(1)
        } else {
            code
        });
    }
    if cfg.inputs.len() <= 1 {
        if let Some(code) = cluster::run_cluster_file(cfg, sink)? {
            return Ok(code);
        }
    }
    if cfg.inputs.is_empty() {
        note_terminal_stdin();
    }
    let mut out = BufWriter::new(sink.out());
    // With --evidence, one input too is shown titled, as several are, so
    // its provenance has a place after its blocks.
    if cfg.inputs.len() <= 1 && !cfg.evidence {
        let mut json = render::JsonPages::document(cfg.output.format);
        return show_input(cfg, &mut out, &mut json, true, None)
            .map(|(status, _)| ExitCode::from(status));
    }
    let inputs = if cfg.inputs.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        cfg.inputs.clone()
    };
    let format = cfg.output.format;
    let mut worst = 0u8;
    let result = (|| -> Result<(), Error> {
        let w = |out: &mut dyn Write, b: &[u8]| out.write_all(b).map_err(stdout_error);
        match format {
            Format::Json => w(
                &mut out,
                format!(
                    "{{\n  \"schema\": {},\n  \"inputs\": [",
                    render::versions::SHOW
                )
                .as_bytes(),
            )?,
            Format::Ndjson => w(&mut out, &render::header_line())?,
            _ => {}
        }
        for (i, path) in inputs.iter().enumerate() {
            let one = ShowConfig {
                input: Some(path.clone()),
                ..cfg.clone()
            };
            let name = one.input_name();
            let mut json = render::JsonPages::default();
            match format {
                Format::Json => {
                    w(&mut out, if i == 0 { b"\n    {\n" } else { b",\n    {\n" })?;
                    w(&mut out, b"      \"input\": ")?;
                    serde_json::to_writer(&mut out, &name).map_err(|e| stdout_error(e.into()))?;
                    w(&mut out, b",\n      \"blocks\": ")?;
                    json = render::JsonPages::nested(3);
                }
                Format::Ndjson => {
                    w(&mut out, b"{\"input\":")?;
                    serde_json::to_writer(&mut out, &name).map_err(|e| stdout_error(e.into()))?;
                    w(&mut out, b"}\n")?;
                }
                // Bytes only: the inputs' blocks one after the other, as `cat`.
                Format::Raw => {}
                _ => {
                    if i > 0 {
                        w(&mut out, b"\n")?;
                    }
                    w(&mut out, format!("==> {name} <==\n").as_bytes())?;
                }
            }
            let tap = cfg.evidence.then(Tap::default);
            let opened_at = provenance_input(path);
            let status = match show_input(&one, &mut out, &mut json, false, tap.clone()) {
                Ok((status, true)) => status,
                Ok((status, false)) => {
                    worst = worst.max(status);
                    return Err(stdout_error(io::ErrorKind::BrokenPipe.into()));
                }
                Err(e) if is_broken_pipe(&e) => return Err(e),
                Err(e) => {
                    out.flush().map_err(stdout_error)?;
                    report_error(&format!("blockscope: error: {e}\n"));
                    2
                }
            };
            worst = worst.max(status);
            let provenance = tap.map(|tap| provenance(&name, opened_at, &tap));
            match (format, &provenance) {
                (Format::Json, _) => {
                    json.finish(&mut out).map_err(stdout_error)?;
                    if let Some(p) = &provenance {
                        w(&mut out, b",\n      \"provenance\": ")?;
                        render::write::write_pretty_at(&mut out, p, 3).map_err(stdout_error)?;
                    }
                    w(&mut out, b"\n    }")?;
                }
                (Format::Ndjson, Some(p)) => {
                    w(&mut out, b"{\"provenance\":")?;
                    serde_json::to_writer(&mut out, p).map_err(|e| stdout_error(e.into()))?;
                    w(&mut out, b"}\n")?;
                }
                (_, Some(p)) => {
                    w(&mut out, b"\n")?;
                    render::postgres::verify::write_provenance(&mut out, p)
                        .map_err(stdout_error)?;
                }
                _ => {}
            }
        }
        if format == Format::Json {
            w(&mut out, b"\n  ]\n}\n")?;
        }
        out.flush().map_err(stdout_error)
    })();
    match result {
        Ok(()) => Ok(ExitCode::from(worst)),
        Err(e) if is_broken_pipe(&e) => Ok(ExitCode::from(worst)),
        Err(e) => Err(e),
    }
}

/// What is known of an input before it is read: its size and mtime
/// (standard input: neither).
fn provenance_input(path: &Path) -> ProvenanceInput {
    let meta = (path.as_os_str() != "-")
        .then(|| std::fs::metadata(path).ok())
        .flatten();
    ProvenanceInput {
        path: crate::verify::file_name(path),
        size: meta.as_ref().map_or(0, |m| m.len()),
        mtime: meta
            .and_then(|m| m.modified().ok())
            .map(crate::verify::rfc3339_utc),
        ..ProvenanceInput::default()
    }
}

/// `--evidence` for one shown input: the program, its arguments, and the
/// input with the SHA-256 of exactly the bytes read (`bytes_read` of them:
/// fewer than its size when the blocks shown ended early).
fn provenance(name: &str, mut input: ProvenanceInput, tap: &Tap) -> Provenance {
    let (read, sha256) = tap.digest();
    if input.mtime.is_none() && name == "-" {
        input.size = read;
    }
    input.bytes_read = Some(read);
    input.sha256 = Some(sha256);
    Provenance {
        blockscope: env!("CARGO_PKG_VERSION").to_string(),
        arguments: std::env::args_os()
            .skip(1)
            .map(|a| crate::verify::file_name(Path::new(&a)))
            .collect(),
        inputs: vec![input],
    }
}

/// Show the segment files of one relation (`N`, `N.1`, …, one config each)
/// as one document: one JSON array, one NDJSON stream, one run of tables.
/// The status is the worst of theirs.
fn show_segments(cfgs: &[ShowConfig], sink: &mut Sink) -> Result<ExitCode, Error> {
    let mut out = BufWriter::new(sink.out());
    let mut json =
        render::JsonPages::document(cfgs.first().map_or(Format::Table, |c| c.output.format));
    let mut worst = 0u8;
    for (i, cfg) in cfgs.iter().enumerate() {
        let last = i + 1 == cfgs.len();
        if i > 0 && cfg.output.format.separates_blocks() {
            match writeln!(out) {
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => break,
                r => r.map_err(stdout_error)?,
            }
        }
        let (status, open) = show_input(cfg, &mut out, &mut json, last, None)?;
        worst = worst.max(status);
        if !open {
            break;
        }
    }
    Ok(ExitCode::from(worst))
}

/// Show one input: its status, and whether the output is still open
/// (`false`: the pipe closed and the run ends quietly). The JSON document
/// of its blocks is finished (and the output flushed) when it is the only
/// input (`alone`), else left to the caller.
fn show_input(
    cfg: &ShowConfig,
    out: &mut dyn Write,
    json: &mut render::JsonPages,
    alone: bool,
    tap: Option<Tap>,
) -> Result<(u8, bool), Error> {
    if let Some(dir) = cfg.input.as_deref().filter(|p| p.is_dir()) {
        return Err(Error::Usage(format!(
            "{}: a directory; show decodes a file of pages: give a relation file (e.g. \
             base/5/16384), or a data directory's table with --table SCHEMA.NAME \
             (and --database NAME)",
            dir.display()
        )));
    }
    let Opened {
        mut input,
        is_trace,
        detection,
        parallel,
        positional,
        xact,
    } = open(cfg, cfg.output.format.shows_spans(), tap)?;
    let mut seen = Seen::default();
    let parallel = parallel.map(|(engine, po)| (engine, po, xact.as_ref(), positional));
    let written = json.start(out).map_err(stdout_error).and_then(|()| {
        write_pages(
            cfg,
            out,
            &mut input,
            parallel,
            xact.as_ref(),
            &mut seen,
            json,
        )
    });
    let written = written.and_then(|()| {
        if alone {
            std::mem::take(json).finish(out).map_err(stdout_error)?;
            out.flush().map_err(stdout_error)?;
        }
        Ok(())
    });
    match written {
        Ok(()) => {}
        // The output pipe closed (`| head`): end quietly with what was found.
        Err(e) if is_broken_pipe(&e) => return Ok((seen.status(), false)),
        Err(e) => return Err(e),
    }
    if seen.shown == 0 {
        return Err(Error::Usage(if is_trace {
            format!(
                "{}: no blocks to show (--blocks outside the trace's blocks)",
                cfg.input_name()
            )
        } else {
            format!(
                "{}: no blocks to show (input empty or --blocks outside it)",
                cfg.input_name()
            )
        }));
    }
    let no_header = detection.as_ref().is_none_or(|d| d.no_header());
    if !is_trace && !seen.recognised && no_header {
        let _ = writeln!(
            io::stderr(),
            "blockscope: error: {}: not pages: no block has a PostgreSQL page header or an \
             Oracle cache header (use --engine and --kind to decode it anyway)",
            cfg.input_name()
        );
        return Ok((2, true));
    }
    Ok((seen.status(), true))
}

/// What the blocks shown so far were: for the exit status.
#[derive(Default)]
struct Seen {
    /// Blocks shown.
    shown: usize,
    /// Some block was recognised as a page kind of its engine.
    recognised: bool,
    /// Some block has error-level problems.
    errors: bool,
}

impl Seen {
    fn page(&mut self, page: &Page) {
        self.recognised |= page.recognised();
        self.errors |= page
            .problems()
            .iter()
            .any(|p| p.severity == Severity::Error);
    }

    /// 0 clean, 1 when a block has error-level problems.
    fn status(&self) -> u8 {
        u8::from(self.errors)
    }
}

/// What the parallel NDJSON path needs: the engine, its options, pg_xact,
/// and the file and block size when the workers can read it by position.
type Parallel<'a> = (
    Engine,
    ParseOptions,
    Option<&'a XactLog>,
    Option<(PathBuf, usize)>,
);

/// The loop: every block in range decoded, rendered and written to `out`.
fn write_pages(
    cfg: &ShowConfig,
    out: &mut dyn Write,
    input: &mut Input,
    parallel: Option<Parallel>,
    xact: Option<&XactLog>,
    seen: &mut Seen,
    json: &mut render::JsonPages,
) -> Result<(), Error> {
    let mut opts = cfg.output;
    let format = opts.format;
    if let Some(parallel) = parallel {
        return write_parallel(cfg, out, input, parallel, seen);
    }
    while let Some(next) = input.next(cfg.range) {
        let mut d = *next?;
        if opts.render.absolute.is_some() {
            // --absolute: the block's own position in the input (a trace's
            // blocks have none: their offsets stay in the block).
            opts.render.absolute = Some(match input {
                Input::Blocks { offset, .. } => *offset,
                Input::Trace(_) => 0,
            });
        }
        if let (Page::Postgres(p), Some(log)) = (&mut d.page, xact) {
            resolve_verdicts(p, log);
        }
        if seen.shown > 0 && format.separates_blocks() {
            writeln!(out).map_err(stdout_error)?;
        }
        if let Some(t) = &d.trace {
            for n in &t.notes {
                super::progress::note(&format!(
                    "blockscope: note: {}: trace block {}: {n}\n",
                    cfg.input_name(),
                    t.label
                ));
            }
        }
        match render::can_show(&d, format) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(()) => return Err(needs_bytes(cfg, &d)),
        }
        seen.page(&d.page);
        if format == Format::Json {
            d.bytes = Vec::new();
            json.push(out, d, &opts).map_err(stdout_error)?;
        } else {
            render::page(out, &d, &opts).map_err(stdout_error)?;
        }
        seen.shown += 1;
    }
    Ok(())
}

/// The NDJSON path: blocks read in order on this thread, [`NDJSON_TASK`]
/// at a time parsed and serialised on every core, written in order. An
/// error reading the input stops the reading; the lines of the blocks read
/// before it are written, then the error returned.
fn write_parallel(
    cfg: &ShowConfig,
    out: &mut dyn Write,
    input: &mut Input,
    (engine, po, xact, positional): Parallel,
    seen: &mut Seen,
) -> Result<(), Error> {
    #[derive(Default)]
    struct Task {
        buf: Vec<u8>,
        seen: Seen,
    }
    let opts = cfg.output;
    // One task's pages parsed, their verdicts resolved, their lines written.
    let lines = |pages: &mut dyn Iterator<Item = (u64, &[u8])>, task: &mut Task| {
        task.buf.clear();
        task.seen = Seen::default();
        for (blkno, data) in pages {
            let mut page = engine.parse(data, &ParseOptions { blkno, ..po });
            if let (Page::Postgres(p), Some(log)) = (&mut page, xact) {
                resolve_verdicts(p, log);
            }
            task.seen.page(&page);
            task.seen.shown += 1;
            render::append_ndjson(&mut task.buf, &page, &opts);
        }
    };
    let done = |task: &mut Task, seen: &mut Seen, out: &mut dyn Write| {
        seen.shown += task.seen.shown;
        seen.recognised |= task.seen.recognised;
        seen.errors |= task.seen.errors;
        out.write_all(&task.buf).map_err(stdout_error)
    };
    if let (Some((path, block_size)), Input::Blocks { first_blkno, .. }) = (positional, &*input) {
        // The workers read the file themselves, NDJSON_TASK blocks a task,
        // by position: block `i` of the file is block first_blkno + i.
        /// A task's blocks: their bytes one after the other, and the first's number.
        #[derive(Default)]
        struct Run {
            buf: Vec<u8>,
            len: usize,
            blkno: u64,
        }
        let io_error = |source| Error::Io {
            path: path.clone(),
            source,
        };
        let file = crate::source::open_file(&path).map_err(io_error)?;
        let blocks = file
            .metadata()
            .map_err(io_error)?
            .len()
            .div_ceil(block_size as u64);
        let first = *first_blkno;
        // The file's blocks in range: [start, end) by position.
        let start = cfg.range.first.saturating_sub(first).min(blocks);
        let end = cfg
            .range
            .last
            .saturating_sub(first)
            .saturating_add(1)
            .min(blocks);
        let end = if cfg.range.last < first {
            start
        } else {
            end.max(start)
        };
        let task_bytes = NDJSON_TASK * block_size;
        return super::pipeline::ordered_fill(
            super::pipeline::threads(None),
            NDJSON_DEPTH,
            |seq, run: &mut Run| {
                let Some(at) = seq
                    .checked_mul(NDJSON_TASK as u64)
                    .and_then(|n| n.checked_add(start))
                    .filter(|&at| at < end)
                else {
                    return Ok(false);
                };
                let n = (end - at).min(NDJSON_TASK as u64) as usize;
                if run.buf.len() != task_bytes {
                    run.buf.resize(task_bytes, 0);
                }
                let got = crate::source::read_at(
                    &file,
                    &mut run.buf[..n * block_size],
                    at * block_size as u64,
                )
                .map_err(io_error)?;
                run.len = got;
                run.blkno = first + at;
                Ok(true)
            },
            |run, task: &mut Task| {
                let mut pages = run.buf[..run.len]
                    .chunks(block_size)
                    .enumerate()
                    .map(|(k, data)| (run.blkno + k as u64, data));
                lines(&mut pages, task)
            },
            |_, task| done(task, seen, out),
        );
    }
    /// A task's blocks: the first `n` of `blocks`.
    #[derive(Default)]
    struct Pages {
        blocks: Vec<(u64, Vec<u8>)>,
        n: usize,
    }
    let mut failed = None;
    let mut end = false;
    super::pipeline::ordered(
        super::pipeline::threads(None),
        NDJSON_DEPTH,
        |pages: &mut Pages| {
            // The blocks' buffers are kept from task to task.
            pages.n = 0;
            while !end && pages.n < NDJSON_TASK {
                if pages.blocks.len() == pages.n {
                    pages.blocks.push((0, Vec::new()));
                }
                let (blkno, buf) = &mut pages.blocks[pages.n];
                match input.next_raw_into(cfg.range, buf) {
                    Some(Ok(n)) => {
                        *blkno = n;
                        pages.n += 1;
                    }
                    Some(Err(e)) => {
                        failed = Some(e);
                        end = true;
                    }
                    None => end = true,
                }
            }
            Ok(pages.n > 0)
        },
        |pages, task: &mut Task| {
            let mut blocks = pages.blocks[..pages.n]
                .iter()
                .map(|(blkno, data)| (*blkno, data.as_slice()));
            lines(&mut blocks, task)
        },
        |_, task| done(task, seen, out),
    )?;
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `--format dump` asked of pages that are not Oracle blocks.
fn dump_needs_oracle(cfg: &ShowConfig) -> Error {
    Error::Usage(format!(
        "{}: --format dump prints Oracle's block dump, but the input is not Oracle blocks \
         (use --engine oracle to force it)",
        cfg.input_name()
    ))
}

/// `--format hex` asked of a trace block known only from its text.
fn needs_bytes(cfg: &ShowConfig, d: &Decoded) -> Error {
    let (label, line) = d
        .trace
        .as_ref()
        .map_or(("?/?".to_string(), 0), |t| (t.label.clone(), t.line));
    let format = if cfg.output.format == Format::Raw {
        "raw"
    } else {
        "hex"
    };
    Error::Usage(format!(
        "{}: --format {format} needs the block's bytes, but trace block {label} (line {line}) \
         carries only the formatted dump text (no `Dump of memory` section); \
         use --format json, table or dump",
        cfg.input_name()
    ))
}
