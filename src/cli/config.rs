//! Arguments turned into validated configs, once: `--blocks`/`--block`
//! parsed into a [`BlockRange`], the render and dump options built, the
//! column list read, the enums of [`super::args`] mapped to the library's.
//! The commands take these configs and never look at raw arguments.

pub(crate) mod infer;

use std::io::{self, IsTerminal, Read};
use std::path::{Path, PathBuf};

use crate::engine::{ColumnSpec, Engine};
use crate::error::Error;
use crate::input::InputFormat;
use crate::model::oracle::types::OraCharset;
use crate::model::oracle::OracleVersion;
use crate::model::postgres::PageKind;
use crate::parse::postgres::schema::MAX_SCHEMA_TEXT;
use crate::reader::Endian;
use crate::render::oracle::dump::{DumpOptions, DumpPart};
use crate::render::report::VerifyFormat;
use crate::render::{Format, Options, RenderOptions};
use crate::verify::{ChecksumMode, VerifyOptions};

use super::args::{
    ChecksumsArg, ColorArg, DiffArgs, DiffFormatArg, DumpArgs, DumpPartArg, EndianArg, EngineArg,
    ExportArgs, FormatArg, InputArg, KindArg, MapArgs, OracleCharsetArg, OracleVersionArg,
    ShowArgs, VerifyArgs, VerifyFormatArg,
};
use super::progress::ProgressMode;
use crate::diff::Ignore;
use crate::render::diff::DiffFormat;

/// What `show` was asked to do.
#[derive(Clone, Debug)]
pub(crate) struct ShowConfig {
    /// The input; `None` (or `-`) is standard input.
    pub input: Option<PathBuf>,
    /// Every input given (`show` shows several one after the other).
    pub inputs: Vec<PathBuf>,
    pub input_format: InputFormat,
    /// `--engine`; `None` detects from the first block.
    pub engine: Option<Engine>,
    pub kind: Option<PageKind>,
    pub range: BlockRange,
    pub block_size: Option<usize>,
    pub segment: Option<u64>,
    pub blkno: Option<u64>,
    /// Format, presentation and dump options for [`crate::render::page`].
    pub output: Options,
    pub columns: Option<ColumnSpec>,
    pub toast: Vec<PathBuf>,
    pub charset: OraCharset,
    /// Byte order of a trace's hex words; `None` detects.
    pub endian: Option<Endian>,
    /// `--table` and `--database`: a table found in a data directory's catalogs.
    pub table: Option<TableSpec>,
    /// `--evidence`: each input's provenance after its blocks.
    pub evidence: bool,
    /// `--data-dir`: whose pg_xact answers commit status (PostgreSQL).
    pub data_dir: Option<PathBuf>,
    /// The path whose file name says where the input's blocks sit in a
    /// relation (a `.N` segment suffix; a relation file's name makes the
    /// block numbers known); `None`: the input's own. `diff` gives both
    /// sides the same one, so only their bytes can make them differ.
    pub position_name: Option<PathBuf>,
}

/// `show DATADIR --table SCHEMA.NAME [--database NAME]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TableSpec {
    /// `SCHEMA.NAME` as given.
    pub name: String,
    /// The database given (default: `postgres`, then wherever the table
    /// alone is).
    pub database: Option<String>,
}

impl ShowConfig {
    pub(crate) fn from_args(args: &ShowArgs) -> Result<ShowConfig, Error> {
        let pages = &args.pages;
        let range = match (&pages.blocks, pages.block) {
            (Some(r), _) => BlockRange::parse(r)?,
            (None, Some(n)) => {
                let n = block_number("--block", n)?;
                BlockRange { first: n, last: n }
            }
            (None, None) => BlockRange::ALL,
        };
        let blkno = args
            .postgres
            .blkno
            .map(|n| block_number("--blkno", n))
            .transpose()?;
        let engine: Option<Engine> = pages.engine.into();
        let block_size = check_block_size(pages.block_size, engine)?;
        if let Some(n) = args.segment {
            segment(n, block_size, None)?;
        }
        if let Some(addr) = args.dump.oracle_buffer {
            buffer_address(addr)?;
        }
        let columns = match (&pages.columns, &pages.schema) {
            (Some(list), _) => Some(ColumnSpec::List(infer::columns_list(
                list,
                args.inputs.first().map(PathBuf::as_path),
                &args.postgres.toast,
            )?)),
            (None, Some(path)) => Some(ColumnSpec::File {
                path: path.clone(),
                text: read_schema(path)?,
            }),
            (None, None) => None,
        };
        let (o, d) = (&args.oracle, &args.dump);
        let is_tty = io::stdout().is_terminal();
        if args.absolute && args.format != FormatArg::Hex {
            return Err(Error::Usage(
                "--absolute changes the offsets of --format hex; give --format hex too".to_string(),
            ));
        }
        if args.format == FormatArg::Raw {
            if is_tty {
                return Err(Error::Usage(
                    "--format raw writes the blocks' bytes, not text: not to a terminal; \
                     redirect it (`> block.raw`) or pipe it (`| xxd`, `| cmp - FILE`)"
                        .to_string(),
                ));
            }
            if args.evidence {
                return Err(Error::Usage(
                    "--evidence writes its provenance into the output, which --format raw \
                     keeps to the blocks' bytes; take the provenance with another format"
                        .to_string(),
                ));
            }
        }
        let output = Options {
            format: args.format.into(),
            render: RenderOptions {
                wide: args.wide,
                color: color(args.color, is_tty),
                width: if is_tty { terminal_width() } else { None },
                all_problems: args.all_problems,
                // Set per block from its position in the file.
                absolute: args.absolute.then_some(0),
            },
            bigfile: o.oracle_bigfile,
            dump: DumpOptions {
                version: d.oracle_version.map(OracleVersion::from),
                tsn: d.oracle_tsn,
                file: d.oracle_file,
                buffer: d.oracle_buffer,
                bigfile: o.oracle_bigfile,
                hex: d.oracle_hex,
                part: d.dump_part.into(),
                expand_tabs: d.expand_tabs,
                address_digits: None,
            },
        };
        for path in args.postgres.toast.iter().filter(|p| p.as_os_str() != "-") {
            not_special("--toast", path)?;
        }
        Ok(ShowConfig {
            input: args.inputs.first().cloned(),
            inputs: args.inputs.clone(),
            input_format: pages.input_format.into(),
            engine,
            kind: args.postgres.kind.map(PageKind::from),
            range,
            block_size,
            segment: args.segment,
            blkno,
            output,
            columns,
            toast: args.postgres.toast.clone(),
            charset: o.oracle_charset.into(),
            endian: o.endian.into(),
            evidence: args.evidence,
            table: args.table.as_ref().map(|name| TableSpec {
                name: name.clone(),
                database: args.database.clone(),
            }),
            data_dir: args.data_dir.clone(),
            position_name: None,
        })
    }

    /// What to call the input in messages: the path, or `-`.
    pub(crate) fn input_name(&self) -> String {
        self.input
            .as_ref()
            .map_or("-".to_string(), |p| crate::escape::path(p).to_string())
    }
}

/// What `diff` was asked to do.
#[derive(Clone, Debug)]
pub(crate) struct DiffConfig {
    /// How every input is read, as `show --format json` would read it
    /// (`input` set per side).
    pub show: ShowConfig,
    pub old: PathBuf,
    pub new: Vec<PathBuf>,
    pub format: DiffFormat,
    pub ignore: Ignore,
    /// When to draw the progress bar.
    pub progress: ProgressMode,
}

impl DiffConfig {
    pub(crate) fn from_args(args: &DiffArgs) -> Result<DiffConfig, Error> {
        let show = ShowArgs {
            inputs: Vec::new(),
            pages: args.pages.clone(),
            postgres: args.postgres.clone(),
            oracle: args.oracle.clone(),
            // diff compares JSON: the dump text's options do nothing for it.
            dump: DumpArgs::default(),
            segment: None,
            format: FormatArg::Json,
            wide: false,
            absolute: false,
            color: ColorArg::Never,
            table: None,
            database: None,
            evidence: false,
            data_dir: None,
            all_problems: true,
            quiet: args.progress.quiet,
        };
        let names: Vec<String> = args
            .ignore
            .iter()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        Ok(DiffConfig {
            show: ShowConfig::from_args(&show)?,
            old: args.old.clone(),
            new: args.new.clone(),
            format: match args.format {
                DiffFormatArg::Table => DiffFormat::Table,
                DiffFormatArg::Json => DiffFormat::Json,
            },
            ignore: Ignore::new(names),
            progress: ProgressMode::from_args(&args.progress),
        })
    }
}

/// Whether to colour: `always` and `never` as said; `auto` when standard
/// output is a terminal, `NO_COLOR` is unset (or empty) and `TERM` is not
/// `dumb` — as ripgrep decides, `NO_COLOR` and `TERM=dumb` overrule only
/// `auto`, never an explicit `--color always`.
pub(crate) fn color(choice: ColorArg, is_tty: bool) -> bool {
    match choice {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            is_tty
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        }
    }
}

/// The terminal's width: `COLUMNS` when set, else what the terminal says
/// (comfy-table asks it), else 120.
fn terminal_width() -> Option<u16> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .or_else(|| comfy_table::Table::new().width())
        .or(Some(120))
}

/// What `verify` was asked to do.
#[derive(Clone, Debug)]
pub(crate) struct VerifyConfig {
    pub inputs: Vec<PathBuf>,
    pub options: VerifyOptions,
    pub format: VerifyFormat,
    /// Worker threads; `None` = one per core.
    pub jobs: Option<usize>,
    /// Text: every problem on its own line (no problem budget).
    pub all_problems: bool,
    /// `--engine`; `None` detects from each file's first block.
    pub engine: Option<Engine>,
    /// Oracle: `--blocks` (DBVERIFY's START/END); `None` = every block.
    pub oracle_blocks: Option<BlockRange>,
    /// Oracle: `--first-block`.
    pub first_block: Option<u64>,
    /// Text: list the bookkeeping files passed over and the FSM drift.
    pub verbose: bool,
    /// `--quiet`: no notes.
    pub quiet: bool,
    /// When to draw the progress bar.
    pub progress: ProgressMode,
}

impl VerifyConfig {
    pub(crate) fn from_args(args: &VerifyArgs) -> Result<VerifyConfig, Error> {
        let jobs = args.jobs.map(jobs_limit).transpose()?;
        let engine: Option<Engine> = args.engine.into();
        let block_size = check_block_size(args.block_size, engine)?;
        let segment_bytes = args
            .segment_size
            .map(|b| segment_size(b, block_size))
            .transpose()?;
        if let Some(n) = args.segment {
            segment(n, block_size, segment_bytes)?;
        }
        Ok(VerifyConfig {
            inputs: args.inputs.clone(),
            options: VerifyOptions {
                block_size,
                segment_bytes,
                segment: args.segment,
                checksums: args.checksums.into(),
                evidence: args.evidence,
                deep: args.deep,
                key_columns: args.columns.clone(),
            },
            format: match args.format {
                VerifyFormatArg::Text => VerifyFormat::Text,
                VerifyFormatArg::Json => VerifyFormat::Json,
                VerifyFormatArg::Ndjson => VerifyFormat::Ndjson,
            },
            jobs,
            all_problems: args.all_problems,
            engine,
            oracle_blocks: args.blocks.as_deref().map(BlockRange::parse).transpose()?,
            first_block: args
                .first_block
                .map(|n| block_number("--first-block", n))
                .transpose()?,
            verbose: args.verbose,
            quiet: args.progress.quiet,
            progress: ProgressMode::from_args(&args.progress),
        })
    }
}

/// The verify pass `map` runs: verify's per-block checks with the map's
/// input options; `table_block_size` is the cluster's when `--table` found
/// the relation.
pub(crate) fn map_verify_options(args: &MapArgs, table_block_size: Option<usize>) -> VerifyOptions {
    VerifyOptions {
        block_size: args.block_size.or(table_block_size),
        segment_bytes: args.segment_size,
        segment: args.segment,
        checksums: args.checksums.into(),
        evidence: false,
        deep: false,
        key_columns: None,
    }
}

impl From<ChecksumsArg> for ChecksumMode {
    fn from(c: ChecksumsArg) -> Self {
        match c {
            ChecksumsArg::Auto => ChecksumMode::Auto,
            ChecksumsArg::On => ChecksumMode::On,
            ChecksumsArg::Off => ChecksumMode::Off,
        }
    }
}

impl From<EngineArg> for Option<Engine> {
    fn from(e: EngineArg) -> Self {
        match e {
            EngineArg::Auto => None,
            EngineArg::Postgres => Some(Engine::Postgres),
            EngineArg::Oracle => Some(Engine::Oracle),
        }
    }
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Table => Format::Table,
            FormatArg::Hex => Format::Hex,
            FormatArg::Json => Format::Json,
            FormatArg::Ndjson => Format::Ndjson,
            FormatArg::Dump => Format::Dump,
            FormatArg::Raw => Format::Raw,
        }
    }
}

impl From<DumpPartArg> for DumpPart {
    fn from(p: DumpPartArg) -> Self {
        match p {
            DumpPartArg::Trace => DumpPart::Trace,
            DumpPartArg::Block => DumpPart::Block,
        }
    }
}

impl From<EndianArg> for Option<Endian> {
    fn from(e: EndianArg) -> Self {
        match e {
            EndianArg::Auto => None,
            EndianArg::Little => Some(Endian::Little),
            EndianArg::Big => Some(Endian::Big),
        }
    }
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

impl From<OracleCharsetArg> for OraCharset {
    fn from(c: OracleCharsetArg) -> Self {
        match c {
            OracleCharsetArg::Al32utf8 => OraCharset::Al32Utf8,
            OracleCharsetArg::We8iso8859p1 => OraCharset::We8Iso8859P1,
            OracleCharsetArg::Us7ascii => OraCharset::Us7Ascii,
        }
    }
}

impl From<OracleVersionArg> for OracleVersion {
    fn from(v: OracleVersionArg) -> Self {
        match v {
            OracleVersionArg::V10g => OracleVersion::V10,
            OracleVersionArg::V11g => OracleVersion::V11,
            OracleVersionArg::V12_1 => OracleVersion::V12_1,
            OracleVersionArg::V12_2 => OracleVersion::V12_2,
        }
    }
}

/// Page sizes PostgreSQL can be built with (BLCKSZ: a power of two, 1 to 32 KiB).
pub(crate) const PG_BLOCK_SIZES: std::ops::RangeInclusive<usize> = 1024..=32768;
/// Block sizes Oracle allows (DB_BLOCK_SIZE: a power of two, 2 to 32 KiB).
pub(crate) const ORACLE_BLOCK_SIZES: std::ops::RangeInclusive<usize> = 2048..=32768;

/// `--block-size n` for `engine` (`None`: not yet known, either engine's
/// size passes; the engine's own range is checked again once it is known,
/// before any block is read).
pub(crate) fn block_size(n: usize, engine: Option<Engine>) -> Result<usize, Error> {
    let (range, what) = match engine {
        Some(Engine::Postgres) => (PG_BLOCK_SIZES, "PostgreSQL pages are"),
        Some(Engine::Oracle) => (ORACLE_BLOCK_SIZES, "Oracle blocks are"),
        None => (
            *PG_BLOCK_SIZES.start()..=*ORACLE_BLOCK_SIZES.end(),
            "PostgreSQL pages and Oracle blocks are",
        ),
    };
    if range.contains(&n) && n.is_power_of_two() {
        return Ok(n);
    }
    Err(Error::Usage(format!(
        "--block-size: {n} is not a block size ({what} a power of two from {} to {} bytes)",
        range.start(),
        range.end()
    )))
}

/// An optional `--block-size` checked by [`block_size`].
pub(crate) fn check_block_size(
    n: Option<usize>,
    engine: Option<Engine>,
) -> Result<Option<usize>, Error> {
    n.map(|n| block_size(n, engine)).transpose()
}

/// The default segment file size (RELSEG_SIZE × BLCKSZ), as in `source`.
const SEGMENT_BYTES: u64 = crate::source::DEFAULT_SEGMENT_BYTES;

/// `--segment-size`: a whole number of blocks (of `block_size` when given),
/// and no more blocks than a 32-bit block number counts.
fn segment_size(bytes: u64, block_size: Option<usize>) -> Result<u64, Error> {
    if let Some(bs) = block_size {
        if !bytes.is_multiple_of(bs as u64) {
            return Err(Error::Usage(format!(
                "--segment-size: {bytes} bytes is not a whole number of {bs}-byte blocks"
            )));
        }
    }
    // Checked against the largest block when the size is not given yet.
    let bs = block_size.unwrap_or(*PG_BLOCK_SIZES.end()) as u64;
    if bytes / bs > MAX_BLOCK_NUMBER + 1 {
        return Err(Error::Usage(format!(
            "--segment-size: {bytes} bytes is more than {} blocks of {bs} bytes (block numbers \
             are 32-bit)",
            MAX_BLOCK_NUMBER + 1
        )));
    }
    Ok(bytes)
}

/// `--segment n`: its first block number, `n` × blocks per segment, must be
/// a block number. With the block size not given, the bound is the one of
/// the largest block (the fewest blocks a segment); the exact one is
/// checked again once the block size is known ([`first_blkno_of_segment`]).
fn segment(n: u64, block_size: Option<usize>, segment_bytes: Option<u64>) -> Result<u64, Error> {
    let bs = block_size.unwrap_or(*PG_BLOCK_SIZES.end());
    first_blkno_of_segment(n, bs, segment_bytes.unwrap_or(SEGMENT_BYTES))
        .map(|_| n)
        .map_err(|e| Error::Usage(format!("--segment: {e}")))
}

/// `--oracle-buffer ADDR`: a block there must fit below the end of the
/// address space.
fn buffer_address(addr: u64) -> Result<u64, Error> {
    let end = *ORACLE_BLOCK_SIZES.end() as u64;
    if addr.checked_add(end).is_none() {
        return Err(Error::Usage(format!(
            "--oracle-buffer: 0x{addr:x} leaves no room for a block before the end of the \
             64-bit address space"
        )));
    }
    Ok(addr)
}

/// `map`'s numeric options, checked before any file is opened.
pub(crate) fn check_map(args: &MapArgs) -> Result<(), Error> {
    let engine: Option<Engine> = args.engine.into();
    let bs = check_block_size(args.block_size, engine)?;
    let seg_bytes = args.segment_size.map(|b| segment_size(b, bs)).transpose()?;
    if let Some(n) = args.segment {
        segment(n, bs, seg_bytes)?;
    }
    Ok(())
}

/// `export`'s numeric options, checked before any file is opened.
pub(crate) fn check_export(args: &ExportArgs) -> Result<(), Error> {
    check_block_size(args.block_size, args.engine.into())?;
    Ok(())
}

pub(crate) use crate::source::{first_blkno_of_segment, MAX_BLOCK_NUMBER};

/// Worker threads allowed per core (`--jobs` above this is refused).
const JOBS_PER_CORE: usize = 4;

/// `n` as a block number given by `option`: at most [`MAX_BLOCK_NUMBER`].
fn block_number(option: &str, n: u64) -> Result<u64, Error> {
    if n > MAX_BLOCK_NUMBER {
        return Err(Error::Usage(format!(
            "{option}: {n} is not a block number (block numbers are 32-bit: 0 to {MAX_BLOCK_NUMBER}; \
             {} is InvalidBlockNumber)",
            MAX_BLOCK_NUMBER + 1
        )));
    }
    Ok(n)
}

/// `--jobs N`: at least 1, at most [`JOBS_PER_CORE`] × the cores available.
fn jobs_limit(n: usize) -> Result<usize, Error> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max = cores.saturating_mul(JOBS_PER_CORE);
    if n == 0 {
        return Err(Error::Usage(
            "--jobs: 0 worker threads cannot verify anything; give at least 1".to_string(),
        ));
    }
    if n > max {
        return Err(Error::Usage(format!(
            "--jobs: {n} worker threads is more than {JOBS_PER_CORE} per core \
             ({cores} cores here: at most {max})"
        )));
    }
    Ok(n)
}

/// Inclusive range of block numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockRange {
    pub first: u64,
    pub last: u64,
}

impl BlockRange {
    pub(crate) const ALL: BlockRange = BlockRange {
        first: 0,
        last: u64::MAX,
    };

    /// `3`, `0..9`, `0..=9` (both inclusive), `5..`, `..4`.
    pub(crate) fn parse(text: &str) -> Result<BlockRange, Error> {
        let bad = || {
            Error::Usage(format!(
                "--blocks: expected N, A..B, A.. or ..B, found {text:?}"
            ))
        };
        let num = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| bad())
                .and_then(|n| block_number("--blocks", n))
        };
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

    pub(crate) fn contains(&self, n: u64) -> bool {
        self.first <= n && n <= self.last
    }
}

/// A `--schema` file's text: refused when it is not a regular file (a FIFO
/// or device could block or never end) or larger than [`MAX_SCHEMA_TEXT`],
/// of which at most one byte more is read.
pub(crate) fn read_schema(path: &Path) -> Result<String, Error> {
    not_special("--schema", path)?;
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = Vec::new();
    crate::source::open_file(path)
        .and_then(|f| f.take(MAX_SCHEMA_TEXT + 1).read_to_end(&mut bytes))
        .map_err(io_error)?;
    if bytes.len() as u64 > MAX_SCHEMA_TEXT {
        return Err(Error::Usage(format!(
            "--schema {}: larger than {MAX_SCHEMA_TEXT} bytes: not a schema file \
             (1,600 columns take well under a megabyte)",
            crate::escape::path(path)
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        io_error(io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// Refuse a path that is a FIFO, a device or a socket before it is opened:
/// opening or reading one could block for ever. What cannot be looked at is
/// left to the open that follows (its error names the path).
fn not_special(option: &str, path: &Path) -> Result<(), Error> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    let kind = special_kind(&meta.file_type());
    match kind {
        Some(kind) => Err(Error::Usage(format!(
            "{option} {}: is a {kind}, not a regular file (it could block or never end)",
            crate::escape::path(path)
        ))),
        None => Ok(()),
    }
}

#[cfg(unix)]
fn special_kind(t: &std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        Some("FIFO")
    } else if t.is_char_device() {
        Some("character device")
    } else if t.is_block_device() {
        Some("block device")
    } else if t.is_socket() {
        Some("socket")
    } else {
        None
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> Option<&'static str> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

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

    fn show_config(argv: &[&str]) -> Result<ShowConfig, Error> {
        let cli = super::super::args::Cli::try_parse_from(argv).unwrap();
        let super::super::args::Command::Show(args) = cli.command else {
            panic!("not show");
        };
        ShowConfig::from_args(&args)
    }

    #[test]
    fn show_options_are_built_once() {
        let c = show_config(&["blockscope", "show", "x", "--block", "7", "-f", "dump"]).unwrap();
        assert_eq!(c.range, BlockRange { first: 7, last: 7 });
        assert_eq!(c.output.format, Format::Dump);
        assert_eq!(c.engine, None);
        let c = show_config(&[
            "blockscope",
            "show",
            "x",
            "--blocks",
            "2..",
            "--engine",
            "oracle",
            "--oracle-tsn",
            "4",
            "--endian",
            "big",
            "--columns",
            "id number",
        ])
        .unwrap();
        assert_eq!(
            c.range,
            BlockRange {
                first: 2,
                last: u64::MAX
            }
        );
        assert_eq!(c.engine, Some(Engine::Oracle));
        assert_eq!(c.output.dump.tsn, Some(4));
        assert_eq!(c.endian, Some(Endian::Big));
        assert_eq!(c.columns, Some(ColumnSpec::List("id number".into())));
        assert!(show_config(&["blockscope", "show", "x", "--blocks", "9..1"]).is_err());
    }

    #[test]
    fn a_missing_schema_file_is_an_error_before_any_input_is_read() {
        let e = show_config(&["blockscope", "show", "x", "--schema", "/nonexistent/schema"]);
        assert!(matches!(e, Err(Error::Io { .. })));
    }

    #[test]
    fn verify_options() {
        let cli = super::super::args::Cli::try_parse_from([
            "blockscope",
            "verify",
            "--checksums",
            "off",
            "-f",
            "json",
            "--segment-size",
            "1M",
            "d",
        ])
        .unwrap();
        let super::super::args::Command::Verify(args) = cli.command else {
            panic!("not verify");
        };
        let c = VerifyConfig::from_args(&args).unwrap();
        assert_eq!(c.options.checksums, ChecksumMode::Off);
        assert_eq!(c.options.segment_bytes, Some(1 << 20));
        assert_eq!(c.format, VerifyFormat::Json);
        assert_eq!(c.inputs, vec![PathBuf::from("d")]);
    }
}
