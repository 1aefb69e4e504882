//! Command line: clap arguments turned into validated options, then wired to
//! sources, parsers and renderers. The only module that sees all the others.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use serde::Serialize;

use crate::error::Error;
use crate::input::InputFormat;
use crate::model::postgres::{ItemId, PageKind, PgPage};
use crate::model::types::Schema;
use crate::parse::postgres::toast::ToastStore;
use crate::parse::postgres::{
    attrs, flags, parse_page, parse_page_without_spans, schema, PageOptions,
};
use crate::reader::Endian;
use crate::render::{self, RenderOptions};
use crate::source::{segment_from_name, Source, DEFAULT_SEGMENT_BYTES};
use crate::verify::oracle::{self as verify_oracle, OracleInput};

mod oracle;
pub use oracle::{DumpPartArg, OracleArgs, OracleVersionArg};

/// Offline forensics of database page images.
#[derive(Parser, Debug)]
#[command(name = "blockscope", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Decode pages and render them as tables, annotated hex or JSON.
    Show(ShowArgs),
    /// Check the checksum and structure of every block; summary; exit status 1 if problems.
    Verify(VerifyArgs),
    /// Explain one flag word: every bit set, by name; unknown bits called out.
    Decode(DecodeArgs),
    /// Print shell completions.
    Completions {
        /// The shell to generate completions for.
        shell: clap_complete::Shell,
    },
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// A file of pages (raw or a text dump); `-` or nothing reads standard input.
    pub input: Option<PathBuf>,

    /// How the input is written.
    #[arg(long = "input", value_enum, default_value_t = InputArg::Auto)]
    pub input_format: InputArg,

    /// Which database wrote the pages.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// Decode every page as this kind instead of detecting it.
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,

    /// Blocks to show, by block number: `3`, `0..9` (inclusive), `5..`, `..4`.
    #[arg(long, value_name = "RANGE", conflicts_with = "block")]
    pub blocks: Option<String>,

    /// One block to show, by block number.
    #[arg(long, value_name = "N")]
    pub block: Option<u64>,

    /// Page size in bytes (default: read from the first page header, else 8192).
    #[arg(long, value_name = "BYTES")]
    pub block_size: Option<usize>,

    /// Segment number of a relation file (default: from a `.N` file-name suffix).
    #[arg(long, value_name = "N", conflicts_with = "blkno")]
    pub segment: Option<u64>,

    /// Block number of the input's first page (for page images cut out of a
    /// relation, e.g. by get_raw_page; the checksum depends on it).
    #[arg(long, value_name = "N")]
    pub blkno: Option<u64>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,

    /// Show wide fields in full (t_data, flag names).
    #[arg(long)]
    pub wide: bool,

    /// Colour the hex view by region.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,

    /// Split heap tuples into these columns and print their values: a
    /// comma-separated list of types (`int4,varchar(20),timestamptz`), each
    /// optionally after a name (`id int`); `dropped:TYPE` or `-:LEN:ALIGN`
    /// for a dropped column, `TYPE:LEN:ALIGN` for a type not printed, `NAME
    /// TYPE default VALUE` for a column added later, `~` last to ignore the rest.
    /// For Oracle blocks: Oracle types (`id number(10,2), name varchar2(20),
    /// date, timestamp(6), binary_double, nvarchar2(10), raw(16)`), `~` last
    /// to expect more columns.
    #[arg(long, value_name = "LIST", conflicts_with = "schema")]
    pub columns: Option<String>,

    /// Like --columns, from a file: one column per line, JSON (pg_attribute
    /// rows, or a fixture file's `columns`), or psql's `\d TABLE` output.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,

    /// The TOAST relation's file (repeat for several segments or page
    /// images): out-of-line values are read back from their chunks.
    #[arg(long, value_name = "FILE")]
    pub toast: Vec<PathBuf>,

    #[command(flatten)]
    pub oracle: OracleArgs,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Relation files (`16385`, `16385.1`, `16385_fsm`…) and directories (a
    /// data directory, a tablespace or a database directory); `-` or nothing
    /// reads standard input.
    pub inputs: Vec<PathBuf>,

    /// Verify data checksums: `auto` asks a data directory's pg_control, else
    /// does when any written page has pd_checksum set (a cluster without
    /// checksums has 0 on every page).
    #[arg(long, value_enum, default_value_t = ChecksumsArg::Auto)]
    pub checksums: ChecksumsArg,

    /// Page size in bytes (BLCKSZ; default: a data directory's pg_control, else 8192).
    #[arg(long, value_name = "BYTES")]
    pub block_size: Option<usize>,

    /// Segment file size (RELSEG_SIZE × BLCKSZ): bytes, or with K, M, G
    /// (binary units; default: a data directory's pg_control, else 1G).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub segment_size: Option<u64>,

    /// Segment number of the one input file (default: its `.N` file-name suffix).
    #[arg(long, value_name = "N")]
    pub segment: Option<u64>,

    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = VerifyFormatArg::Text)]
    pub format: VerifyFormatArg,
}

/// Whether `verify` checks data checksums.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ChecksumsArg {
    /// As pg_control says, else when any written page has pd_checksum set.
    Auto,
    /// Always: pd_checksum 0 on a written page is a failure.
    On,
    /// Never (checks structure only).
    Off,
}

/// Output formats of `verify`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyFormatArg {
    /// One line per problem, then a summary.
    Text,
    /// One document: {"summary": {...}, "problems": [...]}.
    Json,
    /// One problem per line, then {"summary": {...}}.
    Ndjson,
}

/// `1073741824`, `1G`, `1GiB`, `512M`, `64K`.
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "expected a size like 1G or 1073741824, found {text:?}"
            ))
        }
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("expected a size like 1G or 1073741824, found {text:?}"))
}

#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// Which kind of word VALUE is.
    #[arg(value_enum)]
    pub what: DecodeWhat,
    /// The word: decimal (negative smallints allowed) or 0x-prefixed hex.
    #[arg(allow_hyphen_values = true)]
    pub value: String,
    /// Further bytes of an `oracle-number` or `oracle-date` (`c2 4a 46`).
    #[arg(value_name = "MORE")]
    pub more: Vec<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = DecodeFormat::Text)]
    pub format: DecodeFormat,
}

/// Input encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputArg {
    /// Detect from the content.
    Auto,
    /// Binary page images.
    Raw,
    /// Hex digits, as encode(get_raw_page(...), 'hex') prints them.
    Hex,
    /// `\x` followed by hex digits, as psql prints a bytea.
    Bytea,
    /// Base64, as encode(..., 'base64') or coreutils base64 print it.
    Base64,
    /// `od -A d -t x1` / `od -A x -t x1z` output.
    Od,
    /// `xxd` or `xxd -p` output.
    Xxd,
    /// `hexdump -C` output.
    Hexdump,
    /// gdb `x/Nbx ADDR` output.
    Gdb,
    /// An Oracle trace from `alter system dump datafile N block M` (hex
    /// section and/or formatted dump text).
    OracleTrace,
}

impl From<InputArg> for InputFormat {
    fn from(a: InputArg) -> Self {
        match a {
            InputArg::Auto => InputFormat::Auto,
            InputArg::Raw => InputFormat::Raw,
            InputArg::Hex => InputFormat::Hex,
            InputArg::Bytea => InputFormat::Bytea,
            InputArg::Base64 => InputFormat::Base64,
            InputArg::Od => InputFormat::Od,
            InputArg::Xxd => InputFormat::Xxd,
            InputArg::Hexdump => InputFormat::Hexdump,
            InputArg::Gdb => InputFormat::Gdb,
            InputArg::OracleTrace => InputFormat::OracleTrace,
        }
    }
}

/// Database engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// Detect from the content: an Oracle block has a known type at byte 0, a
    /// format byte ending in 2 at byte 1 and a tail repeating its header.
    Auto,
    /// PostgreSQL pages (layout version 4, 8.3 and later).
    Postgres,
    /// Oracle datafile blocks (cache header, transaction and data layers).
    Oracle,
}

/// Page kinds that can be forced with `--kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// Heap (table or TOAST) page: line pointers and tuples.
    Heap,
    /// Btree index page (metapage, leaf, internal, deleted).
    Btree,
    /// Hash index page.
    Hash,
    /// GIN index page.
    Gin,
    /// GiST index page.
    Gist,
    /// SP-GiST index page.
    Spgist,
    /// BRIN index page.
    Brin,
    /// Sequence page.
    Sequence,
    /// Free space map fork page.
    Fsm,
    /// Visibility map fork page.
    Vm,
    /// Header and line pointers only.
    Generic,
}

impl From<KindArg> for PageKind {
    fn from(k: KindArg) -> Self {
        match k {
            KindArg::Heap => PageKind::Heap,
            KindArg::Btree => PageKind::Btree,
            KindArg::Hash => PageKind::Hash,
            KindArg::Gin => PageKind::Gin,
            KindArg::Gist => PageKind::Gist,
            KindArg::Spgist => PageKind::SpGist,
            KindArg::Brin => PageKind::Brin,
            KindArg::Sequence => PageKind::Sequence,
            KindArg::Fsm => PageKind::Fsm,
            KindArg::Vm => PageKind::Vm,
            KindArg::Generic => PageKind::Unknown,
        }
    }
}

/// Output formats of `show`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// One table per structure.
    Table,
    /// Annotated hex: offset, 16 bytes, ASCII, and the fields starting there.
    Hex,
    /// One JSON document (an array when more than one block).
    Json,
    /// One JSON object per block, one per line, streamed.
    Ndjson,
    /// Oracle's block dump text, as `alter system dump datafile N block M` writes it.
    Dump,
}

/// When to colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    /// Colour when standard output is a terminal.
    Auto,
    Always,
    Never,
}

/// Words `decode` explains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DecodeWhat {
    /// Heap tuple t_infomask.
    Infomask,
    /// Heap tuple t_infomask2 (natts and flags).
    Infomask2,
    /// A line pointer word (ItemIdData) as a 32-bit integer.
    Lp,
    /// Page header pd_flags.
    PdFlags,
    /// Btree page btpo_flags.
    BtpoFlags,
    /// Oracle relative data block address (file/block, smallfile and bigfile).
    OracleRdba,
    /// Oracle row flag byte (`fb: --H-FL--`).
    OracleFb,
    /// Oracle cache header flag byte `flg_kcbh`.
    OracleFlg,
    /// Oracle ITL flag word `ktbitflg` (flags and lock count).
    OracleItlFlag,
    /// Oracle NUMBER bytes (`c2 4a 46`).
    OracleNumber,
    /// Oracle DATE (7 bytes) or TIMESTAMP (11 bytes).
    OracleDate,
}

/// Output formats of `decode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DecodeFormat {
    Text,
    Json,
}

/// Entry point of the binary: run and map the result to an exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("blockscope: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::Show(args) => show(&args),
        Command::Verify(args) => verify(&args),
        Command::Decode(args) => decode(&args),
        Command::Completions { shell } => {
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "blockscope", &mut io::stdout());
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn stdout_error(source: io::Error) -> Error {
    Error::Io {
        path: PathBuf::from("<stdout>"),
        source,
    }
}

/// Inclusive range of block numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRange {
    pub first: u64,
    pub last: u64,
}

impl BlockRange {
    pub const ALL: BlockRange = BlockRange {
        first: 0,
        last: u64::MAX,
    };

    /// `3`, `0..9`, `0..=9` (both inclusive), `5..`, `..4`.
    pub fn parse(text: &str) -> Result<BlockRange, Error> {
        let bad = || {
            Error::Usage(format!(
                "--blocks: expected N, A..B, A.. or ..B, found {text:?}"
            ))
        };
        let num = |s: &str| s.trim().parse::<u64>().map_err(|_| bad());
        match text.split_once("..") {
            None => {
                let n = num(text)?;
                Ok(BlockRange { first: n, last: n })
            }
            Some((a, b)) => {
                let b = b.strip_prefix('=').unwrap_or(b);
                let first = if a.trim().is_empty() { 0 } else { num(a)? };
                let last = if b.trim().is_empty() {
                    u64::MAX
                } else {
                    num(b)?
                };
                if first > last {
                    return Err(Error::Usage(format!("--blocks: {first} is after {last}")));
                }
                Ok(BlockRange { first, last })
            }
        }
    }

    pub fn contains(&self, n: u64) -> bool {
        self.first <= n && n <= self.last
    }
}

fn show(args: &ShowArgs) -> Result<ExitCode, Error> {
    let range = match (&args.blocks, args.block) {
        (Some(r), _) => BlockRange::parse(r)?,
        (None, Some(n)) => BlockRange { first: n, last: n },
        (None, None) => BlockRange::ALL,
    };
    let mut source = Source::open(
        args.input.as_deref(),
        args.input_format.into(),
        args.block_size,
    )?;
    if let Some(text) = source.take_trace_text() {
        return oracle::show_trace(args, &source.name, &text, range);
    }
    if oracle::wants_oracle(args, &mut source)? {
        return oracle::show(args, source, range);
    }
    let segment = args.segment.or_else(|| {
        (source.format == InputFormat::Raw)
            .then(|| args.input.as_deref().and_then(segment_from_name))
            .flatten()
    });
    let blocks_per_segment = DEFAULT_SEGMENT_BYTES / source.block_size as u64;
    let first_blkno = args
        .blkno
        .unwrap_or_else(|| segment.unwrap_or(0).saturating_mul(blocks_per_segment));
    let kind = args.kind.map(PageKind::from);
    let schema = attr_schema(args)?;
    let mut toast = if args.toast.is_empty() {
        None
    } else if schema.is_none() {
        return Err(Error::Usage(
            "--toast needs the table's columns (--columns or --schema)".into(),
        ));
    } else {
        Some(ToastStore::open(&args.toast, args.block_size)?)
    };

    let (mut out, opts) = output(args);

    let mut collected: Vec<PgPage> = Vec::new();
    let mut pending: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut ndjson_buffers: Vec<Vec<u8>> = Vec::new();
    let mut shown = 0usize;
    for block in source.blocks() {
        let block = block?;
        let blkno = first_blkno.saturating_add(block.index);
        if blkno > range.last {
            break;
        }
        if !range.contains(blkno) {
            continue;
        }
        if args.format == FormatArg::Ndjson && schema.is_none() {
            pending.push((blkno, block.data));
            if pending.len() == NDJSON_WINDOW {
                write_ndjson(&mut out, &mut pending, &mut ndjson_buffers, kind)?;
            }
            shown += 1;
            continue;
        }
        let parse = match args.format {
            FormatArg::Json | FormatArg::Ndjson => parse_page_without_spans,
            _ => parse_page,
        };
        let mut page = parse(
            &block.data,
            &PageOptions {
                blkno,
                kind,
                endian: Endian::Little,
            },
        );
        if let Some(schema) = &schema {
            attrs::decode_page(&mut page, &block.data, schema, toast.as_mut());
        }
        match args.format {
            FormatArg::Json => collected.push(page),
            // Without columns, written a window at a time in parallel (write_ndjson).
            FormatArg::Ndjson => {
                render::json::write_line(&mut out, &render::json::PgPageJson::from_page(&page))
                    .map_err(stdout_error)?;
            }
            FormatArg::Table => {
                if shown > 0 {
                    writeln!(out).map_err(stdout_error)?;
                }
                render::table::render_page(&mut out, &page, &opts).map_err(stdout_error)?;
            }
            FormatArg::Hex => {
                if shown > 0 {
                    writeln!(out).map_err(stdout_error)?;
                }
                writeln!(
                    out,
                    "block {} · {} page · {} bytes",
                    page.blkno,
                    page.kind.name(),
                    page.size
                )
                .map_err(stdout_error)?;
                render::hex::render(&mut out, &block.data, &page.spans, &opts)
                    .map_err(stdout_error)?;
            }
            FormatArg::Dump => return Err(oracle::dump_needs_oracle(args)),
        }
        shown += 1;
    }
    write_ndjson(&mut out, &mut pending, &mut ndjson_buffers, kind)?;
    if args.format == FormatArg::Json {
        let pages: Vec<_> = collected
            .iter()
            .map(render::json::PgPageJson::from_page)
            .collect();
        render::json::write_document(&mut out, &pages).map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)?;
    if shown == 0 {
        return Err(Error::Usage(format!(
            "{}: no blocks to show (input empty or --blocks outside it)",
            source_name(args)
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// The column list from --columns or --schema, if either was given.
fn attr_schema(args: &ShowArgs) -> Result<Option<Schema>, Error> {
    if let Some(list) = &args.columns {
        return schema::parse_columns(list)
            .map(Some)
            .map_err(|e| Error::Usage(format!("--columns: {e}")));
    }
    let Some(path) = &args.schema else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.clone(),
        source,
    })?;
    schema::parse_schema(&text)
        .map(Some)
        .map_err(|e| Error::Usage(format!("--schema {}: {e}", path.display())))
}

fn verify(args: &VerifyArgs) -> Result<ExitCode, Error> {
    use crate::render::verify::{VerifyFormat, VerifyPrinter};
    use crate::verify::{self, ChecksumMode, VerifyOptions};

    let opts = VerifyOptions {
        block_size: args.block_size,
        segment_bytes: args.segment_size,
        segment: args.segment,
        checksums: match args.checksums {
            ChecksumsArg::Auto => ChecksumMode::Auto,
            ChecksumsArg::On => ChecksumMode::On,
            ChecksumsArg::Off => ChecksumMode::Off,
        },
    };
    let format = match args.format {
        VerifyFormatArg::Text => VerifyFormat::Text,
        VerifyFormatArg::Json => VerifyFormat::Json,
        VerifyFormatArg::Ndjson => VerifyFormat::Ndjson,
    };
    if let Some(n) = args.jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Error::Usage(format!("--jobs {n}: {e}")))?;
    }
    let oracle = oracle_inputs(&args.inputs)?;
    if !oracle.is_empty() {
        return verify_oracle(args, &oracle);
    }
    let mut printer = VerifyPrinter::new(BufWriter::new(io::stdout().lock()), format);
    let summary = verify::run(&args.inputs, &opts, &mut printer)?;
    printer.finish(&summary).map_err(stdout_error)?;
    Ok(if summary.failed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The Oracle inputs among `inputs`: all of them, or none (one engine a run).
fn oracle_inputs(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, OracleInput)>, Error> {
    let mut oracle = Vec::new();
    for path in inputs {
        if let Some(kind) = verify_oracle::classify(path)? {
            oracle.push((path.clone(), kind));
        }
    }
    if !oracle.is_empty() && oracle.len() != inputs.len() {
        return Err(Error::Usage(
            "verify: give Oracle datafiles and traces, or PostgreSQL files, not both in one run"
                .into(),
        ));
    }
    Ok(oracle)
}

/// `verify` of Oracle datafiles and traces: a DBVERIFY-style report per file.
fn verify_oracle(args: &VerifyArgs, inputs: &[(PathBuf, OracleInput)]) -> Result<ExitCode, Error> {
    let mut out = BufWriter::new(io::stdout().lock());
    let mut clean = true;
    let mut documents = Vec::new();
    for (path, kind) in inputs {
        let outcome = match kind {
            OracleInput::Datafile => verify_oracle::verify_datafile(path, args.block_size)?,
            OracleInput::Trace => verify_oracle::verify_trace(path, None)?,
        };
        clean &= outcome.summary.clean();
        let file = path.display().to_string();
        let problems: Vec<serde_json::Value> = verify_oracle::problems(&outcome)
            .map(|(blkno, p)| {
                serde_json::json!({
                    "file": file,
                    "blkno": blkno,
                    "offset": p.offset,
                    "field": p.field,
                    "class": p.class,
                    "severity": p.severity,
                    "message": p.message,
                })
            })
            .collect();
        match args.format {
            VerifyFormatArg::Text => render::oracle_verify::write_dbv_report(
                &mut out,
                &file,
                &outcome.reports,
                &outcome.summary,
            )
            .map_err(stdout_error)?,
            VerifyFormatArg::Ndjson => {
                for p in &problems {
                    render::json::write_line(&mut out, p).map_err(stdout_error)?;
                }
                render::json::write_line(
                    &mut out,
                    &serde_json::json!({"file": file, "summary": outcome.summary}),
                )
                .map_err(stdout_error)?;
            }
            VerifyFormatArg::Json => documents.push(serde_json::json!({
                "file": file,
                "summary": outcome.summary,
                "problems": problems,
            })),
        }
    }
    if args.format == VerifyFormatArg::Json {
        render::json::write_document(&mut out, &documents).map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)?;
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Pages `show --format ndjson` parses and serialises in parallel at a time,
/// in tasks of [`NDJSON_TASK`] pages.
const NDJSON_WINDOW: usize = 256;
const NDJSON_TASK: usize = 16;

/// Parse and serialise the `pending` pages in parallel into `buffers` (kept
/// from window to window, so their memory is reused), write the lines in
/// order, and empty `pending`.
fn write_ndjson(
    out: &mut dyn Write,
    pending: &mut Vec<(u64, Vec<u8>)>,
    buffers: &mut Vec<Vec<u8>>,
    kind: Option<PageKind>,
) -> Result<(), Error> {
    use rayon::prelude::*;
    let tasks = pending.len().div_ceil(NDJSON_TASK);
    if buffers.len() < tasks {
        buffers.resize_with(tasks, Vec::new);
    }
    pending
        .par_chunks(NDJSON_TASK)
        .zip(buffers.par_iter_mut())
        .for_each(|(pages, buf)| {
            buf.clear();
            for (blkno, data) in pages {
                let opts = PageOptions {
                    blkno: *blkno,
                    kind,
                    endian: Endian::Little,
                };
                let page = parse_page_without_spans(data, &opts);
                render::ndjson::append_page_line(buf, &page);
            }
        });
    for buf in &buffers[..tasks] {
        out.write_all(buf).map_err(stdout_error)?;
    }
    pending.clear();
    Ok(())
}

fn source_name(args: &ShowArgs) -> String {
    args.input
        .as_ref()
        .map_or("-".to_string(), |p| p.display().to_string())
}

/// Standard output, buffered, and the presentation `show`'s options ask for:
/// colour and table width only on a terminal unless forced.
pub(crate) fn output(args: &ShowArgs) -> (BufWriter<io::StdoutLock<'static>>, RenderOptions) {
    let stdout = io::stdout();
    let is_tty = stdout.is_terminal();
    let opts = RenderOptions {
        wide: args.wide,
        color: match args.color {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => is_tty,
        },
        width: if is_tty { terminal_width() } else { None },
    };
    (BufWriter::new(stdout.lock()), opts)
}

fn terminal_width() -> Option<u16> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .or(Some(120))
}

/// One flag of a decoded word.
#[derive(Serialize)]
struct FlagJson {
    mask: String,
    name: &'static str,
    meaning: &'static str,
}

#[derive(Serialize)]
struct DecodedWord {
    word: &'static str,
    value: u64,
    hex: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    natts: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lp_off: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lp_flags: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lp_flags_name: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lp_len: Option<u16>,
    flags: Vec<FlagJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    combined_flags: Option<Vec<FlagJson>>,
    unknown_bits: String,
}

/// Parse `2050`, `0x0802`, or a negative smallint like `-32768`.
fn parse_word(text: &str, bits: u32) -> Result<u64, Error> {
    let t = text.trim();
    let bad = || {
        Error::Usage(format!(
            "decode: expected a {bits}-bit value (decimal or 0x hex), found {text:?}"
        ))
    };
    let value: i128 = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).map_err(|_| bad())?
    } else {
        t.parse::<i128>().map_err(|_| bad())?
    };
    let max = (1i128 << bits) - 1;
    let min = -(1i128 << (bits - 1));
    if value > max || value < min {
        return Err(bad());
    }
    Ok((value & max) as u64)
}

fn decode(args: &DecodeArgs) -> Result<ExitCode, Error> {
    if let Some(result) = oracle::decode(args) {
        return result;
    }
    let bits = if args.what == DecodeWhat::Lp { 32 } else { 16 };
    let value = parse_word(&args.value, bits)?;
    let flags_json = |set: Vec<&'static flags::Flag>| -> Vec<FlagJson> {
        set.into_iter()
            .map(|f| FlagJson {
                mask: format!("0x{:04x}", f.mask),
                name: f.name,
                meaning: f.meaning,
            })
            .collect()
    };
    let word16 = value as u16;
    let mut d = DecodedWord {
        word: "",
        value,
        hex: if bits == 32 {
            format!("0x{value:08x}")
        } else {
            format!("0x{value:04x}")
        },
        natts: None,
        lp_off: None,
        lp_flags: None,
        lp_flags_name: None,
        lp_len: None,
        flags: Vec::new(),
        combined_flags: None,
        unknown_bits: "0x0000".to_string(),
    };
    let single = |set: Vec<&'static flags::Flag>| -> Vec<&'static flags::Flag> {
        set.into_iter()
            .filter(|f| f.mask.count_ones() == 1)
            .collect()
    };
    match args.what {
        DecodeWhat::Infomask => {
            d.word = "t_infomask";
            let (set, unknown) = flags::names(word16, flags::INFOMASK, 0xFFFF);
            d.flags = flags_json(set);
            let (combined, _) = flags::names(word16, flags::INFOMASK_COMBINED, 0);
            d.combined_flags = Some(flags_json(combined));
            d.unknown_bits = format!("0x{unknown:04x}");
        }
        DecodeWhat::Infomask2 => {
            d.word = "t_infomask2";
            d.natts = Some(word16 & 0x07FF);
            let (set, unknown) = flags::names(word16, flags::INFOMASK2, !0x07FF);
            d.flags = flags_json(single(set));
            d.unknown_bits = format!("0x{unknown:04x}");
        }
        DecodeWhat::PdFlags => {
            d.word = "pd_flags";
            let (set, unknown) = flags::names(word16, flags::PD_FLAGS, 0xFFFF);
            d.flags = flags_json(set);
            d.unknown_bits = format!("0x{unknown:04x}");
        }
        DecodeWhat::BtpoFlags => {
            d.word = "btpo_flags";
            let (set, unknown) = flags::names(word16, flags::BTPO_FLAGS, 0xFFFF);
            d.flags = flags_json(set);
            d.unknown_bits = format!("0x{unknown:04x}");
        }
        DecodeWhat::Lp => {
            d.word = "lp";
            let id = ItemId::from_word(0, value as u32);
            d.lp_off = Some(id.lp_off);
            d.lp_flags = Some(id.lp_flags.code());
            d.lp_flags_name = Some(id.lp_flags.name());
            d.lp_len = Some(id.lp_len);
        }
        DecodeWhat::OracleRdba
        | DecodeWhat::OracleFb
        | DecodeWhat::OracleFlg
        | DecodeWhat::OracleItlFlag
        | DecodeWhat::OracleNumber
        | DecodeWhat::OracleDate => {
            // Answered by oracle::decode above.
            return Err(Error::Usage(
                "decode: Oracle words take the Oracle path".into(),
            ));
        }
    }

    let mut out = BufWriter::new(io::stdout().lock());
    match args.format {
        DecodeFormat::Json => render::json::write_pretty(&mut out, &d),
        DecodeFormat::Text => write_decoded(&mut out, &d),
    }
    .map_err(stdout_error)?;
    out.flush().map_err(stdout_error)?;
    Ok(ExitCode::SUCCESS)
}

fn write_decoded(out: &mut dyn Write, d: &DecodedWord) -> io::Result<()> {
    writeln!(out, "{} {} ({})", d.word, d.value, d.hex)?;
    if let (Some(off), Some(code), Some(name), Some(len)) =
        (d.lp_off, d.lp_flags, d.lp_flags_name, d.lp_len)
    {
        writeln!(out, "  lp_off    {off:>5}  bits 0-14")?;
        writeln!(out, "  lp_flags  {code:>5}  bits 15-16  {name}")?;
        writeln!(out, "  lp_len    {len:>5}  bits 17-31")?;
        if name == "LP_REDIRECT" {
            writeln!(out, "  redirect to line pointer {off}")?;
        }
        return Ok(());
    }
    if let Some(natts) = d.natts {
        writeln!(out, "  natts {natts:>5}  (low 11 bits, HEAP_NATTS_MASK)")?;
    }
    let name_width = d.flags.iter().map(|f| f.name.len()).max().unwrap_or(0);
    for f in &d.flags {
        writeln!(out, "  {}  {:<name_width$}  {}", f.mask, f.name, f.meaning)?;
    }
    if d.flags.is_empty() {
        writeln!(out, "  no flag bits set")?;
    }
    if let Some(combined) = &d.combined_flags {
        if !combined.is_empty() {
            let names: Vec<&str> = combined.iter().map(|f| f.name).collect();
            writeln!(out, "  combined: {}", names.join(", "))?;
        }
    }
    if d.unknown_bits != "0x0000" {
        writeln!(
            out,
            "  unknown bits: {} (no {} flag has them)",
            d.unknown_bits, d.word
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_ranges() {
        assert_eq!(
            BlockRange::parse("3").unwrap(),
            BlockRange { first: 3, last: 3 }
        );
        assert_eq!(
            BlockRange::parse("0..9").unwrap(),
            BlockRange { first: 0, last: 9 }
        );
        assert_eq!(
            BlockRange::parse("0..=9").unwrap(),
            BlockRange { first: 0, last: 9 }
        );
        assert_eq!(BlockRange::parse("5..").unwrap().last, u64::MAX);
        assert_eq!(BlockRange::parse("..4").unwrap().first, 0);
        assert!(BlockRange::parse("9..1").is_err());
        assert!(BlockRange::parse("x").is_err());
    }

    #[test]
    fn words() {
        assert_eq!(parse_word("2050", 16).unwrap(), 2050);
        assert_eq!(parse_word("0x0802", 16).unwrap(), 2050);
        assert_eq!(parse_word("-1", 16).unwrap(), 0xFFFF);
        assert!(parse_word("65536", 16).is_err());
        assert_eq!(parse_word("0x004e9fd8", 32).unwrap(), 0x004e9fd8);
        assert!(parse_word("nope", 16).is_err());
    }
}
