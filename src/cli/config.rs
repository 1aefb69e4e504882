//! Arguments turned into validated configs, once, for every command (as
//! ripgrep turns its low-level arguments into high-level ones):
//! `--blocks`/`--block` parsed into a [`BlockRange`], the render and dump
//! options built, the column list read, the enums of [`super::args`] mapped
//! to the library's. The commands ([`crate::commands`]) take these configs
//! and never look at raw arguments.

pub(crate) mod infer;
pub(crate) mod wal;

pub(crate) mod carve;
use std::io::{self, IsTerminal};

use crate::commands::decode::{DecodeConfig, Word};
use crate::commands::diff::DiffConfig;
use crate::commands::export::{ExportConfig, ExportOptions, Rows};
use crate::commands::inputs::{not_special, read_schema};
use crate::commands::lostwrite::WalSource;
use crate::commands::map::MapConfig;
use crate::commands::progress::{self, ProgressMode};
use crate::commands::show::{ShowConfig, TableSpec};
use crate::commands::verify::VerifyConfig;
use crate::commands::{block_number, BlockRange};
use crate::diff::Ignore;
use crate::engine::{check_block_size, ColumnSpec, Engine};
use crate::error::Error;
use crate::input::InputFormat;
use crate::model::oracle::types::OraCharset;
use crate::model::oracle::OracleVersion;
use crate::model::postgres::PageKind;
use crate::render::diff::DiffFormat;
use crate::render::export::ExportFormat;
use crate::render::map::{MapFormat, Shade};
use crate::render::oracle::dump::{DumpOptions, DumpPart};
use crate::render::report::VerifyFormat;
use crate::render::{Format, Options, RenderOptions};
use crate::source::{first_blkno_of_segment, MAX_BLOCK_NUMBER};
use crate::verify::{ChecksumMode, VerifyOptions};
use crate::Endian;

use super::args::{
    ChecksumsArg, ColorArg, DecodeArgs, DecodeFormat, DecodeWhat, DiffArgs, DiffFormatArg,
    DumpArgs, DumpPartArg, EndianArg, EngineArg, ExportArgs, ExportFormatArg, FormatArg, InputArg,
    KindArg, MapArgs, MapFormatArg, MapShadeArg, OracleCharsetArg, OracleVersionArg, ProgressArgs,
    RowsArg, ShowArgs, VerifyArgs, VerifyFormatArg,
};

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
            (Some(list), _) => Some(ColumnSpec::List(crate::commands::infer::columns_list(
                list,
                args.inputs.first().map(std::path::PathBuf::as_path),
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
            wal: if args.no_wal {
                WalSource::Off
            } else if args.wal.is_empty() {
                WalSource::Auto
            } else {
                WalSource::Given(args.wal.clone())
            },
        })
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
        // `auto` names no engine.
        e.0
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
    let bs = block_size.unwrap_or(crate::engine::MAX_BLOCK_SIZE) as u64;
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
    let bs = block_size.unwrap_or(crate::engine::MAX_BLOCK_SIZE);
    first_blkno_of_segment(n, bs, segment_bytes.unwrap_or(SEGMENT_BYTES))
        .map(|_| n)
        .map_err(|e| Error::Usage(format!("--segment: {e}")))
}

/// `--oracle-buffer ADDR`: a block there must fit below the end of the
/// address space.
fn buffer_address(addr: u64) -> Result<u64, Error> {
    let end = crate::engine::MAX_BLOCK_SIZE as u64;
    if addr.checked_add(end).is_none() {
        return Err(Error::Usage(format!(
            "--oracle-buffer: 0x{addr:x} leaves no room for a block before the end of the \
             64-bit address space"
        )));
    }
    Ok(addr)
}

impl MapConfig {
    /// `map`'s options; the numeric ones checked before any file is opened.
    pub(crate) fn from_args(args: &MapArgs) -> Result<MapConfig, Error> {
        let engine: Option<Engine> = args.engine.into();
        let bs = check_block_size(args.block_size, engine)?;
        let seg_bytes = args.segment_size.map(|b| segment_size(b, bs)).transpose()?;
        if let Some(n) = args.segment {
            segment(n, bs, seg_bytes)?;
        }
        Ok(MapConfig {
            input: args.input.clone(),
            engine,
            block_size: args.block_size,
            format: match args.format {
                MapFormatArg::Term => MapFormat::Term,
                MapFormatArg::Svg => MapFormat::Svg,
                MapFormatArg::Json => MapFormat::Json,
                MapFormatArg::Ndjson => MapFormat::Ndjson,
            },
            shade: match args.shade {
                MapShadeArg::Used => Shade::Used,
                MapShadeArg::Dead => Shade::Dead,
            },
            color: color(args.color, io::stdout().is_terminal()),
            table: args.table.clone(),
            database: args.database.clone(),
            checksums: args.checksums.into(),
            segment_size: args.segment_size,
            segment: args.segment,
            progress: ProgressMode::from_args(&args.progress),
        })
    }
}

impl ExportConfig {
    /// `export`'s options; the numeric ones checked before any file is opened.
    pub(crate) fn from_args(args: &ExportArgs) -> Result<ExportConfig, Error> {
        let engine: Option<Engine> = args.engine.into();
        check_block_size(args.block_size, engine)?;
        let options = ExportOptions {
            format: match args.format {
                ExportFormatArg::Copy => ExportFormat::Copy,
                ExportFormatArg::Csv => ExportFormat::Csv,
                ExportFormatArg::Sql => ExportFormat::Sql,
                ExportFormatArg::Ndjson => ExportFormat::Ndjson,
            },
            header: args.header,
            system_columns: args.with_system_columns,
            rows: match args.rows {
                RowsArg::Visible => Rows::Visible,
                RowsArg::Deleted => Rows::Deleted,
                RowsArg::All => Rows::All,
            },
            block_size: args.block_size,
            evidence: args.evidence,
            strict: args.strict,
            blocks: match &args.blocks {
                Some(r) => BlockRange::parse(r)?,
                None => BlockRange::ALL,
            },
            progress: ProgressMode::from_args(&args.progress),
            source_column: args.source_column,
            with_generated: args.with_generated,
        };
        let wal = crate::commands::export::wal_option(
            args.wal.as_ref(),
            &args.input,
            args.table.is_some(),
            &options,
        )?;
        Ok(ExportConfig {
            input: args.input.clone(),
            engine,
            columns: args.columns.clone(),
            schema: args.schema.clone(),
            table_name: args.table_name.clone(),
            table: args.table.clone(),
            database: args.database.clone(),
            toast: args.toast.clone(),
            data_dir: args.data_dir.clone(),
            blocks_given: args.blocks.is_some(),
            object_id: args.object_id,
            charset: args.oracle_charset.into(),
            wal,
            options,
        })
    }
}

impl DecodeConfig {
    pub(crate) fn from_args(args: &DecodeArgs) -> DecodeConfig {
        DecodeConfig {
            word: args.what.into(),
            values: args.values.clone(),
            json: args.format == DecodeFormat::Json,
        }
    }
}

impl ProgressMode {
    /// The mode `args` ask for; also records `--quiet` for the notes.
    pub(crate) fn from_args(args: &ProgressArgs) -> ProgressMode {
        progress::set_quiet(args.quiet);
        if args.quiet {
            ProgressMode::Off
        } else if args.progress {
            ProgressMode::Forced
        } else {
            ProgressMode::Auto
        }
    }
}

impl From<DecodeWhat> for Word {
    fn from(w: DecodeWhat) -> Self {
        match w {
            DecodeWhat::Infomask => Word::Infomask,
            DecodeWhat::Infomask2 => Word::Infomask2,
            DecodeWhat::Lp => Word::Lp,
            DecodeWhat::PdFlags => Word::PdFlags,
            DecodeWhat::BtpoFlags => Word::BtpoFlags,
            DecodeWhat::OracleRdba => Word::OracleRdba,
            DecodeWhat::OracleFb => Word::OracleFb,
            DecodeWhat::OracleFlg => Word::OracleFlg,
            DecodeWhat::OracleItlFlag => Word::OracleItlFlag,
            DecodeWhat::OracleNumber => Word::OracleNumber,
            DecodeWhat::OracleDate => Word::OracleDate,
            DecodeWhat::Rowid => Word::Rowid,
        }
    }
}

/// Worker threads allowed per core (`--jobs` above this is refused).
const JOBS_PER_CORE: usize = 4;

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
        assert_eq!(c.engine.map(Engine::name), Some("oracle"));
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
        assert_eq!(c.inputs, vec![std::path::PathBuf::from("d")]);
    }
}
