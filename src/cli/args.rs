//! The command line as clap sees it: arguments, options and their value
//! enums, documented for `--help` and the manual pages. Nothing here
//! decides anything: the `config` layer turns these into validated
//! configs once.
//!
//! Help comes in two lengths from the same doc comments: the first
//! paragraph of each is the short help (`-h`, one screen at 80 columns),
//! the whole comment the long help (`--help`, `blockscope man`). Options
//! are grouped under the headings below; `PostgreSQL` and `Oracle` hold the
//! options that only that engine's pages use. Options few runs need are
//! `hide_short_help`: only `--help` lists them, and [`command`] counts them
//! under `-h`. `tests/help.rs` keeps every `-h` within 40 lines and every
//! line within 80 columns on an 80-column terminal.

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::engine::Engine;

/// Where the file is read and what it is: form, engine, sizes, columns.
const INPUT: &str = "Input";
/// Which blocks, rows or fields.
const SELECTION: &str = "Selection";
/// What is written and how.
const OUTPUT: &str = "Output";
/// Help heading of `wal`'s page history options.
const HISTORY: &str = "Page history";
/// Options only PostgreSQL pages use.
const POSTGRES: &str = "PostgreSQL";
/// Options only Oracle blocks and traces use.
const ORACLE: &str = "Oracle";

/// The widest help text: wider terminals still get lines of at most this
/// many columns; output that is not a terminal gets `COLUMNS`, else this.
pub(crate) const MAX_HELP_WIDTH: usize = 100;

/// Offline forensics of database page images.
#[derive(Parser, Debug)]
#[command(
    name = "blockscope",
    version,
    about,
    long_about = "Offline forensics of database page images: PostgreSQL pages and Oracle \
                  blocks decoded, checked and rendered.\n\n\
                  blockscope reads raw PostgreSQL pages and Oracle data blocks (piped from \
                  get_raw_page(), pasted from od, xxd, hexdump or gdb dumps or Oracle \
                  block-dump traces, or read block by block from relation files, data \
                  directories and datafiles), decodes every byte into typed structures, \
                  checks them and renders them as tables, annotated hex, JSON or Oracle's \
                  block dump text. It never needs the database to be running and never \
                  writes to what it inspects.\n\n\
                  Exit status: 0 clean; 1 error-level problems found (show, verify, map), \
                  versions that differ (diff) or rows skipped (export); 2 a usage error, \
                  an unreadable input, or input that is not pages.",
    max_term_width = MAX_HELP_WIDTH,
    after_help = "`blockscope COMMAND -h` lists a command's options on one screen, \
                  `--help` all of them in full; `blockscope man` prints the manual page."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The command line as parsed, printed by `-h`/`--help` and written into
/// the manual pages: the derived definitions, plus under each command's
/// `-h` a line counting the options only `--help` shows (so the count
/// cannot go stale). An option hidden from `-h` keeps its one paragraph in
/// `--help` and the manual page.
pub(crate) fn command() -> clap::Command {
    Cli::command().mut_subcommands(|sub| {
        let sub = sub.mut_args(|arg| {
            match (
                arg.is_hide_short_help_set(),
                arg.get_long_help(),
                arg.get_help(),
            ) {
                (true, None, Some(help)) => {
                    let help = help.clone();
                    arg.long_help(help)
                }
                _ => arg,
            }
        });
        let hidden = sub
            .get_arguments()
            .filter(|a| a.is_hide_short_help_set() && !a.is_hide_set())
            .count();
        if hidden == 0 {
            return sub;
        }
        let more = if hidden == 1 { "option" } else { "options" };
        sub.after_help(format!(
            "{hidden} more {more}, and every option in full: --help"
        ))
    })
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Decode pages and render them as tables, annotated hex or JSON.
    ///
    /// Every page of every input is decoded: the page header, line pointers
    /// and tuple headers of PostgreSQL pages (pageinspect's columns), index
    /// items, Oracle cache, transaction and data headers, ITLs and rows.
    /// An input is a file of pages, raw (a relation file, streamed block by
    /// block) or a text dump (hex, psql's bytea, base64, od, xxd, hexdump -C,
    /// gdb), found out from the content; an Oracle datafile or block-dump
    /// trace; or a data directory with --table.
    ///
    /// Exit status: 0 decoded, no error-level problem; 1 a block has
    /// error-level problems (they are in the output); 2 a usage error, an
    /// unreadable input, or an input that is not pages.
    #[command(after_long_help = "Examples:\n  \
            blockscope show base/5/16384 --block 0\n  \
            psql -tA -c \"select encode(get_raw_page('t',0),'hex')\" | blockscope show\n  \
            blockscope show DATADIR --table public.t --database app -f json\n  \
            blockscope show 16384 --columns 'id int4, name text' --blocks 0..9")]
    Show(ShowArgs),

    /// Check every block's checksum and structure; exit status 1 if problems.
    ///
    /// Relation files, data directories and tablespaces (PostgreSQL), Oracle
    /// datafiles and block-dump traces: every bad block is printed with its
    /// file, block number, offset, field and class, then a summary as
    /// pg_checksums and DBVERIFY print it. Runs on all cores.
    ///
    /// Exit status: 0 every block clean; 1 a bad block or a truncated file;
    /// 2 a usage error or nothing to verify.
    #[command(after_long_help = "Examples:\n  \
            blockscope verify DATADIR\n  \
            blockscope verify base/5/16384 --deep -f json\n  \
            blockscope verify users01.dbf --blocks 100..199")]
    Verify(VerifyArgs),

    /// Explain flag words: every bit set, by name; unknown bits called out.
    ///
    /// Each VALUE is explained in turn (`decode infomask 0x0902 0x0b02`);
    /// an oracle-number or oracle-date takes its bytes as the VALUEs
    /// (`decode oracle-number c2 4a 46`). With --format json, one VALUE
    /// gives one object, several an array of them.
    Decode(DecodeArgs),

    /// Compare two versions of pages block by block; exit status 1 if they differ.
    ///
    /// Header fields, line pointers, items and bytes that changed are
    /// listed block by block; blocks are matched by block number. Either
    /// side may be a golden JSON file written by `show --format json`.
    ///
    /// Exit status: 0 equal; 1 they differ; 2 a usage error or an
    /// unreadable input.
    #[command(after_long_help = "Examples:\n  \
            blockscope diff before/16384 after/16384\n  \
            blockscope diff golden.json 16384 --ignore lsn,checksum")]
    Diff(DiffArgs),

    /// Draw a whole file: a cell per block, by fill, damage and zero pages.
    ///
    /// One picture of a relation file (with its further segments) or an
    /// Oracle datafile: each cell is a block (or a range of blocks in a
    /// large file), shaded by how full it is or how much VACUUM may
    /// reclaim; damaged and all-zero blocks marked. Exit status 1 if a
    /// block has errors.
    #[command(after_long_help = "Examples:\n  \
            blockscope map base/5/16384\n  \
            blockscope map DATADIR --table public.t --database app -f svg > t.svg")]
    Map(MapArgs),

    /// Write a table's rows out of its files as COPY text, CSV, INSERTs or NDJSON.
    ///
    /// No server is needed: the rows are read from the relation file (or a
    /// data directory with --table, the catalogs read offline) or an Oracle
    /// datafile. Commit status comes from the hint bits and, in a data
    /// directory, pg_xact and pg_multixact; --rows deleted brings back rows
    /// a committed DELETE removed.
    ///
    /// Exit status: 0 every row written; 1 rows were skipped (each is named
    /// on standard error); 2 a usage error or an unreadable input.
    #[command(after_long_help = "Examples:\n  \
            blockscope export DATADIR --table public.t --database app > t.csv\n  \
            blockscope export base/5/16384 --columns 'id int4, name text' -f copy\n  \
            blockscope export DATADIR --table t --database app --rows deleted -f sql")]
    Export(ExportArgs),

    /// List WAL records offline, as pg_waldump does: PostgreSQL 15's format.
    ///
    /// PATH is WAL segment files, a pg_wal or WAL archive directory, or a
    /// data directory (its pg_wal). Every record is checked (page headers,
    /// xl_prev, CRC-32C) and listed in pg_waldump's layout, or as JSON.
    /// Damage (a missing segment, a zeroed or torn page, a CRC mismatch, a
    /// truncated file) is named on standard error and reading resumes at the
    /// next valid page. Segments are decoded in parallel, printed in order.
    ///
    /// Exit status: 0 every record read; 1 damage was found; 2 a usage
    /// error, or no WAL segment in PATH.
    #[command(after_long_help = "Examples:\n  \
            blockscope wal DATADIR\n  \
            blockscope wal pg_wal/000000010000000000000003 --rmgr Heap,Heap2\n  \
            blockscope wal DATADIR --table public.t --database app --block 0 -f json")]
    Wal(WalArgs),
    /// Find pages and blocks in a disk image and write them out by relation.
    ///
    /// Any byte image (a disk or partition image, a block device, a file of
    /// unallocated space) is read once, in large chunks, and probed at every
    /// 512-byte boundary for PostgreSQL pages and Oracle blocks; what is
    /// found is grouped into relations (PostgreSQL: by tuple shape, page
    /// kind and, with data checksums, the block number each checksum gives;
    /// Oracle: by data object id, placed by rdba) and written under DIR, one
    /// file per group, with DIR/manifest.json. The image is never written to.
    ///
    /// Exit status: 0 pages were found; 1 nothing was found; 2 a usage error
    /// or an unreadable input.
    #[command(after_long_help = "Examples:\n  \
            blockscope carve disk.img --out carved\n  \
            blockscope export carved/postgres/0003-heap --columns auto")]
    Carve(CarveArgs),
    /// Propose a column list for a heap relation whose catalog is lost.
    ///
    /// The tuples alone say it: the attribute count (t_infomask2), null
    /// bitmaps, alignment padding, varlena headers and whether the values
    /// are plausible as each type (dates in a sane range, numerics that
    /// decode, UTF-8 text, jsonb and array headers). The list is printed in
    /// --columns syntax; `show` and `export` take `--columns auto` for it.
    ///
    /// Exit status: 0 the list splits every tuple read; 1 some tuples do not
    /// split by it; 2 a usage error, an unreadable input or no heap tuple.
    #[command(after_long_help = "Examples:\n  \
            blockscope infer base/5/16384\n  \
            blockscope infer base/5/16384 --toast base/5/16387 -f json\n  \
            blockscope export base/5/16384 --columns auto -f csv")]
    Infer(InferArgs),

    /// Print shell completions.
    ///
    /// For example `blockscope completions bash > /etc/bash_completion.d/blockscope`.
    Completions {
        /// The shell to generate completions for.
        shell: clap_complete::Shell,
    },

    /// Print a manual page (roff), or write them all into a directory.
    ///
    /// `blockscope man | man -l -` reads blockscope's own page,
    /// `blockscope man show | man -l -` the page of `show`.
    /// `blockscope man --dir /usr/local/share/man/man1` installs every page
    /// (blockscope.1, blockscope-show.1, …), as do the copies in the source
    /// tree: `install -Dm644 man/*.1 -t /usr/local/share/man/man1`.
    Man(ManArgs),
}

/// How pages are read and which: options `show` and `diff` share.
#[derive(Args, Clone, Debug)]
pub(crate) struct PageArgs {
    /// Input form.
    ///
    /// How the input is written: raw pages, or one of the text dumps below.
    #[arg(long = "input", value_enum, value_name = "FORM", default_value_t = InputArg::Auto, help_heading = INPUT)]
    pub input_format: InputArg,

    /// Which database wrote the pages.
    #[arg(long, value_enum, default_value_t = EngineArg::AUTO, help_heading = INPUT)]
    pub engine: EngineArg,

    /// Page size in bytes.
    ///
    /// Default: read from the first page header, else 8192.
    #[arg(long, value_name = "BYTES", help_heading = INPUT, hide_short_help = true)]
    pub block_size: Option<usize>,

    /// The column types: tuples are split into their values.
    ///
    /// A comma-separated list of types (`int4,varchar(20),timestamptz`), each
    /// optionally after a name (`id int`); `dropped:TYPE` or `-:LEN:ALIGN` for a
    /// dropped column, `TYPE:LEN:ALIGN` for a type not printed, `NAME TYPE default
    /// VALUE` for a column added later, `~` last to ignore the rest; `auto`:
    /// the list `blockscope infer` proposes (told on stderr). For Oracle
    /// blocks: Oracle types (`id number(10,2), name varchar2(20), date,
    /// timestamp(6), binary_double, nvarchar2(10), raw(16)`), `~` last to expect
    /// more columns.
    #[arg(long, value_name = "LIST", conflicts_with = "schema", help_heading = INPUT)]
    pub columns: Option<String>,

    /// Like --columns, from a file.
    ///
    /// One column per line, JSON (pg_attribute rows, or a fixture file's
    /// `columns`), or psql's `\d TABLE` output.
    #[arg(long, value_name = "FILE", help_heading = INPUT, hide_short_help = true)]
    pub schema: Option<PathBuf>,

    /// Blocks by number: 3, 0..9 (inclusive), 5.., ..4.
    ///
    /// `3`, `0..9` (inclusive), `5..`, `..4`.
    #[arg(long, value_name = "RANGE", conflicts_with = "block", help_heading = SELECTION)]
    pub blocks: Option<String>,

    /// One block, by block number.
    #[arg(long, value_name = "N", help_heading = SELECTION)]
    pub block: Option<u64>,
}

/// PostgreSQL-only ways of reading pages: options `show` and `diff` share.
#[derive(Args, Clone, Debug)]
pub(crate) struct PgPageArgs {
    /// Decode every page as this kind.
    ///
    /// Instead of detecting it from the page.
    #[arg(long, value_enum, help_heading = POSTGRES)]
    pub kind: Option<KindArg>,

    /// Block number of the input's first page.
    ///
    /// For page images cut out of a relation, e.g. by get_raw_page: the
    /// checksum depends on it.
    #[arg(long, value_name = "N", hide_short_help = true, help_heading = POSTGRES)]
    pub blkno: Option<u64>,

    /// The TOAST relation's file (repeat for several).
    ///
    /// Several segments or page images may be given: out-of-line values are
    /// read back from their chunks.
    #[arg(long, value_name = "FILE", help_heading = POSTGRES)]
    pub toast: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct ShowArgs {
    /// Files of pages, raw or text dumps; `-` or nothing: standard input.
    ///
    /// Files of pages (raw or text dumps), Oracle datafiles or traces, or a
    /// data directory with --table. Several are shown one after the other, each
    /// titled by its name.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    #[command(flatten)]
    pub pages: PageArgs,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = FormatArg::Table, help_heading = OUTPUT)]
    pub format: FormatArg,

    /// Show wide fields in full (t_data, flag names).
    #[arg(long, help_heading = OUTPUT)]
    pub wide: bool,

    /// `--format hex`: offsets in the file, not in the page.
    ///
    /// Block number × block size + offset in the page, within this file, as
    /// pg_filedump -a prints them.
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub absolute: bool,

    /// Colour the hex view by region.
    ///
    /// `auto`: when standard output is a terminal, NO_COLOR is not set and
    /// TERM is not `dumb`.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, hide_short_help = true, help_heading = OUTPUT)]
    pub color: ColorArg,

    /// Tables: list every problem of a page.
    ///
    /// By default repeats of one kind collapse into one row with a count, and
    /// at most 25 rows a page; JSON always keeps every problem.
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub all_problems: bool,

    /// After each input, its provenance and SHA-256.
    ///
    /// blockscope's version, the arguments, the input's path, size and mtime,
    /// and the SHA-256 of exactly the bytes read (computed as they were read).
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub evidence: bool,

    #[command(flatten)]
    pub postgres: PgPageArgs,

    /// Segment number of a relation file (default: the `.N` suffix).
    ///
    /// Without it, from a `.N` file-name suffix.
    #[arg(long, value_name = "N", conflicts_with = "blkno", hide_short_help = true, help_heading = POSTGRES)]
    pub segment: Option<u64>,

    /// The table to decode, in a data directory.
    ///
    /// `SCHEMA.NAME` (or `NAME` in public), found through the catalogs read
    /// offline; its files, columns and TOAST table come from pg_class,
    /// pg_attribute and pg_type. `--columns`/`--schema` given too replace the
    /// catalog's columns (or stand in for them when a catalog page is
    /// unreadable).
    #[arg(long, value_name = "SCHEMA.NAME", conflicts_with = "toast", help_heading = POSTGRES)]
    pub table: Option<String>,

    /// The database of --table (default: postgres).
    #[arg(long, value_name = "NAME", requires = "table", help_heading = POSTGRES)]
    pub database: Option<String>,

    /// The data directory whose pg_xact decides verdicts.
    ///
    /// pg_xact says how transactions without hint bits ended, in verdicts.
    /// Default: the one the input file sits in, if any.
    #[arg(long, value_name = "DIR", hide_short_help = true, help_heading = POSTGRES)]
    pub data_dir: Option<PathBuf>,

    #[command(flatten)]
    pub oracle: OracleArgs,

    #[command(flatten)]
    pub dump: DumpArgs,

    /// No notes on standard error.
    ///
    /// Notes say why an engine was chosen or what a catalog lookup found;
    /// problems and errors are still reported.
    #[arg(long, short = 'q', help_heading = OUTPUT, hide_short_help = true)]
    pub quiet: bool,
}

/// What goes to standard error besides problems: options of the commands
/// that read whole files.
#[derive(Args, Clone, Copy, Debug, Default)]
pub(crate) struct ProgressArgs {
    /// No notes and no progress bar on standard error.
    ///
    /// Problems, skipped blocks and errors are still reported.
    #[arg(long, short = 'q', conflicts_with = "progress", help_heading = OUTPUT)]
    pub quiet: bool,

    /// Draw the progress bar, whatever the input and standard error.
    ///
    /// By default it is drawn on a terminal, for inputs of 256 MiB or more;
    /// this draws it for any input, even when standard error is not a
    /// terminal.
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub progress: bool,
}

#[derive(Args, Debug)]
pub(crate) struct VerifyArgs {
    /// Relation files and directories; `-` or nothing: standard input.
    ///
    /// Relation files (`16385`, `16385.1`, `16385_fsm`…) and directories (a
    /// data directory, a tablespace or a database directory), Oracle datafiles
    /// and traces.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// Which database wrote the files.
    ///
    /// `auto` scores each file's first block (Oracle: type, format byte,
    /// rdba, tail, check value; PostgreSQL: pd_pagesize_version,
    /// pd_lower/pd_upper/pd_special, line pointers, special space, checksum).
    #[arg(long, value_enum, default_value_t = EngineArg::AUTO, help_heading = INPUT)]
    pub engine: EngineArg,

    /// Page size in bytes.
    ///
    /// BLCKSZ. Default: a data directory's pg_control, else what the first
    /// written page says in pd_pagesize_version, else 8192.
    #[arg(long, value_name = "BYTES", help_heading = INPUT, hide_short_help = true)]
    pub block_size: Option<usize>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = VerifyFormatArg::Text, help_heading = OUTPUT)]
    pub format: VerifyFormatArg,

    /// Text: every problem on its own line.
    ///
    /// By default repeats of one kind in a block collapse into one line with
    /// a count, and at most 25 lines a block; JSON always keeps every problem.
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub all_problems: bool,

    /// Report provenance and each input's SHA-256.
    ///
    /// blockscope's version, the arguments, and per input its path, size,
    /// mtime and the SHA-256 of the bytes read (PostgreSQL and Oracle inputs).
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub evidence: bool,

    /// Verify data checksums.
    ///
    /// `auto` asks a data directory's pg_control, else does when any written
    /// page has pd_checksum set (a cluster without checksums has 0 on every
    /// page).
    #[arg(long, value_enum, default_value_t = ChecksumsArg::Auto, help_heading = POSTGRES)]
    pub checksums: ChecksumsArg,

    /// amcheck's checks across pages, offline.
    ///
    /// Btree sibling links, levels, downlinks and the metapage's roots; heap
    /// xmin/xmax against pg_control, HOT chains and redirects; the visibility
    /// map against the pages; the free space map (notes only).
    #[arg(long, help_heading = POSTGRES)]
    pub deep: bool,

    /// With --deep: a btree index's key column types.
    ///
    /// `int4`, `int8,text`…: its keys are checked in order (integers by
    /// value, text in the C collation).
    #[arg(long, value_name = "TYPES", requires = "deep", help_heading = POSTGRES)]
    pub columns: Option<String>,

    /// Segment file size (default: pg_control's, else 1G).
    ///
    /// RELSEG_SIZE × BLCKSZ: bytes, or with K, M, G (binary units).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = POSTGRES, hide_short_help = true)]
    pub segment_size: Option<u64>,

    /// Segment number of the one input file (default: the `.N` suffix).
    ///
    /// Without it, from its `.N` file-name suffix.
    #[arg(long, value_name = "N", help_heading = POSTGRES, hide_short_help = true)]
    pub segment: Option<u64>,

    /// WAL to check the pages against for lost writes.
    ///
    /// Segment files, a pg_wal or archive directory (repeatable). A block
    /// whose pd_lsn is older than a WAL record that changed it before the
    /// last checkpoint's REDO location (pg_control's) is a `lost-write`.
    /// Default: a data directory's own pg_wal, when it holds segments.
    #[arg(long, value_name = "PATH", help_heading = POSTGRES)]
    pub wal: Vec<PathBuf>,

    /// Do not read a data directory's pg_wal for lost writes.
    #[arg(long, conflicts_with = "wal", help_heading = POSTGRES, hide_short_help = true)]
    pub no_wal: bool,

    /// Datafiles: only these blocks (N, A..B, A.., ..B).
    ///
    /// As DBVERIFY's START= and END= do.
    #[arg(long, value_name = "RANGE", help_heading = ORACLE)]
    pub blocks: Option<String>,

    /// The input's first block is block N of its datafile.
    ///
    /// For a range cut out with `dd skip=N`: its blocks are checked at their
    /// own positions.
    #[arg(long, value_name = "N", help_heading = ORACLE, hide_short_help = true)]
    pub first_block: Option<u64>,

    /// Text: also list what the summary only counts.
    ///
    /// The bookkeeping files passed over (pg_control, PG_VERSION,
    /// pg_filenode.map…, as notes on standard error) and, with --deep, the
    /// blocks whose free space map entry drifted from their free space.
    #[arg(long, short = 'v', conflicts_with = "quiet", help_heading = OUTPUT, hide_short_help = true)]
    pub verbose: bool,

    #[command(flatten)]
    pub progress: ProgressArgs,
}

#[derive(Args, Debug)]
pub(crate) struct DiffArgs {
    /// The old version: pages, or a golden JSON file of `show`.
    ///
    /// Anything `show` reads, or a JSON document written by `show --format
    /// json` (a golden file; one of several inputs pairs with as many NEW
    /// inputs); `-` reads standard input.
    pub old: PathBuf,

    /// The new version, the same way.
    ///
    /// Several when OLD is a JSON document of several inputs.
    #[arg(required = true)]
    pub new: Vec<PathBuf>,

    #[command(flatten)]
    pub pages: PageArgs,

    /// JSON field names to leave out of the comparison.
    ///
    /// At any depth (`lsn,checksum,prune_xid`); their bytes and the problems
    /// about them are left out too.
    #[arg(long, value_name = "FIELD,…", value_delimiter = ',', help_heading = SELECTION)]
    pub ignore: Vec<String>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = DiffFormatArg::Table, help_heading = OUTPUT)]
    pub format: DiffFormatArg,

    #[command(flatten)]
    pub postgres: PgPageArgs,

    #[command(flatten)]
    pub oracle: OracleArgs,

    #[command(flatten)]
    pub progress: ProgressArgs,
}

/// Output formats of `diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiffFormatArg {
    /// Block by block, a row per changed field.
    Table,
    /// One document: {"old", "new", "blocks": [...], "compared", "differ", "equal"}.
    Json,
}

/// Whether `verify` checks data checksums.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ChecksumsArg {
    /// As pg_control says, else when any written page has pd_checksum set.
    Auto,
    /// Always: pd_checksum 0 on a written page is a failure.
    On,
    /// Never (checks structure only).
    Off,
}

/// Output formats of `verify`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum VerifyFormatArg {
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
pub(crate) struct DecodeArgs {
    /// Which kind of word the VALUEs are.
    #[arg(value_enum)]
    pub what: DecodeWhat,
    /// The words: decimal (negative smallints allowed) or 0x-prefixed hex.
    ///
    /// Each is explained in turn; for `oracle-number` and `oracle-date`
    /// they are the bytes of one value (`c2 4a 46`).
    #[arg(value_name = "VALUE", required = true, allow_negative_numbers = true)]
    pub values: Vec<String>,
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
    /// `od -A d -t x1` / `od -A x -t x1z` output, or words: `od -x`, `od -t x2`, plain `hexdump`.
    Od,
    /// `xxd`, `xxd -e` or `xxd -p` output.
    Xxd,
    /// `hexdump -C` output, or plain `hexdump` / `hexdump -x`.
    Hexdump,
    /// gdb `x/Nbx ADDR` output.
    Gdb,
    /// An Oracle trace from `alter system dump datafile N block M` (hex
    /// section and/or formatted dump text).
    OracleTrace,
}

/// Database engines: `auto`, or an engine's name ([`Engine::ALL`], each
/// with its own help line), so that a new engine needs no edit here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineArg(pub Option<Engine>);

impl EngineArg {
    /// Detect the engine from the content.
    pub const AUTO: EngineArg = EngineArg(None);
}

impl ValueEnum for EngineArg {
    fn value_variants<'a>() -> &'a [Self] {
        static VARIANTS: std::sync::OnceLock<Vec<EngineArg>> = std::sync::OnceLock::new();
        VARIANTS.get_or_init(|| {
            std::iter::once(EngineArg::AUTO)
                .chain(Engine::ALL.map(|e| EngineArg(Some(e))))
                .collect()
        })
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(match self.0 {
            None => clap::builder::PossibleValue::new("auto").help(
                "Detect from the content: the first block's header signals are scored for \
                 each engine (an Oracle block has a known type at byte 0, a format byte \
                 ending in 2 at byte 1, a tail repeating its header and a check value; a \
                 PostgreSQL page has pd_pagesize_version and ordered offsets)",
            ),
            Some(e) => clap::builder::PossibleValue::new(e.name()).help(e.help()),
        })
    }
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
    /// The selected blocks' bytes exactly as read (a text dump decoded
    /// first), nothing else, as pg_filedump -b writes them: one block out
    /// of a relation for a bug report or a diff. Never to a terminal.
    Raw,
}

/// When to colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorArg {
    /// Colour when standard output is a terminal, NO_COLOR is not set and
    /// TERM is not `dumb`.
    Auto,
    /// Colour, whatever the output and the environment say.
    Always,
    /// Never colour.
    Never,
}

/// Words `decode` explains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum DecodeWhat {
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
    /// Oracle ROWID, extended (`AAASO6AAMAAAAw2AAA`) or restricted
    /// (`00000C36.0000.000C`): data object id, file, block, row.
    Rowid,
}

/// Output formats of `decode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum DecodeFormat {
    Text,
    Json,
}

/// Oracle-only ways of reading blocks: options `show` and `diff` share.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct OracleArgs {
    /// Show every rdba in bigfile form (1024/N).
    ///
    /// Without it, an rdba without file bits is shown that way.
    #[arg(long, hide_short_help = true, help_heading = ORACLE)]
    pub oracle_bigfile: bool,

    /// Character set of VARCHAR2/CHAR columns.
    ///
    /// Decoded with `--columns`; NVARCHAR2/NCHAR are read as AL16UTF16.
    #[arg(long, value_enum, value_name = "CHARSET", default_value_t = OracleCharsetArg::Al32utf8, help_heading = ORACLE, hide_short_help = true)]
    pub oracle_charset: OracleCharsetArg,

    /// Byte order of a trace's `Dump of memory` words.
    ///
    /// The 32-bit words of the trace's hex. Default: the order in which the
    /// rebuilt block's tail matches its header.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = EndianArg::Auto, hide_short_help = true, help_heading = ORACLE)]
    pub endian: EndianArg,
}

/// How `show --format dump` writes Oracle's block dump text.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct DumpArgs {
    /// Which part of the trace `--format dump` prints.
    #[arg(long, value_enum, value_name = "PART", default_value_t = DumpPartArg::Trace, help_heading = ORACLE)]
    pub dump_part: DumpPartArg,

    /// Oracle release whose dump text to follow.
    ///
    /// Default: implied by the block (a big-SCN flag means 12.2+), else 12.1.
    #[arg(long, value_enum, value_name = "RELEASE", hide_short_help = true, help_heading = ORACLE)]
    pub oracle_version: Option<OracleVersionArg>,

    /// Tablespace number for `--format dump`.
    ///
    /// It is not stored in a block. Default: the datafile header's, when the
    /// input holds it; else `?`.
    #[arg(long, value_name = "N", hide_short_help = true, help_heading = ORACLE)]
    pub oracle_tsn: Option<u32>,

    /// Absolute file number for `--format dump`.
    ///
    /// Default: the datafile header's, else the rdba's relative file number.
    #[arg(long, value_name = "N", hide_short_help = true, help_heading = ORACLE)]
    pub oracle_file: Option<u32>,

    /// Buffer address for the addresses in `--format dump`.
    ///
    /// The memory address of the buffer that held the block, for `data
    /// header at` and `pbl`. Default: block offsets.
    #[arg(long, value_name = "ADDR", value_parser = parse_address, hide_short_help = true, help_heading = ORACLE)]
    pub oracle_buffer: Option<u64>,

    /// Include the `Hex dump of block` section in `--format dump`.
    ///
    /// As Oracle writes it before the formatted dump.
    #[arg(long, hide_short_help = true, help_heading = ORACLE)]
    pub oracle_hex: bool,

    /// Expand the tabs of `--format dump` to 8-column stops.
    ///
    /// As published copies of dumps show them.
    #[arg(long, hide_short_help = true, help_heading = ORACLE)]
    pub expand_tabs: bool,
}

/// `man`: which page, or a directory for all of them.
#[derive(Args, Debug)]
pub(crate) struct ManArgs {
    /// The command whose page to print (default: blockscope's own).
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    pub command: Option<String>,

    /// Write every page into this directory instead (it must exist).
    ///
    /// blockscope.1 and one blockscope-COMMAND.1 per command; pages of the
    /// same name in it are replaced.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Byte orders for `--endian`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum EndianArg {
    /// Detect from the rebuilt block (a valid tail; little-endian when nothing tells).
    #[default]
    Auto,
    /// Little-endian platforms (x86-64, Linux on ARM).
    Little,
    /// Big-endian platforms (SPARC, AIX, HP-UX, z/OS).
    Big,
}

/// Database character sets `--columns` can read Oracle text in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OracleCharsetArg {
    /// UTF-8.
    #[default]
    Al32utf8,
    /// ISO 8859-1 (Latin-1).
    We8iso8859p1,
    /// 7-bit ASCII.
    Us7ascii,
}

/// Oracle releases with distinct dump conventions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OracleVersionArg {
    /// `scn: 0x0000.001732d3`, `file#: 5`, no buffer-cache lines.
    #[value(name = "10g")]
    V10g,
    /// `scn: 0x0000.001732d3`, `file#:5`.
    #[value(name = "11g")]
    V11g,
    /// `scn: 0x0.4e9af4`.
    #[value(name = "12.1")]
    V12_1,
    /// 12.2 and later (also 18c, 19c, 21c, 23ai): `scn: 0x80e5e2`.
    #[value(name = "12.2", aliases = ["12.2+", "18c", "19c", "21c", "23ai"])]
    V12_2,
}

/// Parts of the dump.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum DumpPartArg {
    /// The trace section: `Start dump data blocks …` to `End dump data blocks …`.
    #[default]
    Trace,
    /// From `Block header dump:` to `end_of_block_dump`.
    Block,
}

fn parse_address(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"));
    match hex {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    }
    .map_err(|_| format!("expected an address (0x-prefixed hex or decimal), found {text:?}"))
}

#[derive(Args, Debug)]
pub(crate) struct MapArgs {
    /// A relation file, pages, a datafile or trace; `-` or nothing: stdin.
    ///
    /// A relation file (its further segments `N.1`, `N.2`… are read after
    /// it), pages or a text dump of pages, an Oracle datafile or block-dump
    /// trace, or a data directory with `--table`.
    pub input: Option<PathBuf>,

    /// Which database wrote the file.
    ///
    /// `auto`: detected from its first block.
    #[arg(long, value_enum, default_value_t = EngineArg::AUTO, help_heading = INPUT)]
    pub engine: EngineArg,

    /// Page size in bytes (default: 8192; Oracle: from the datafile).
    #[arg(long, value_name = "BYTES", help_heading = INPUT, hide_short_help = true)]
    pub block_size: Option<usize>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = MapFormatArg::Term, help_heading = OUTPUT)]
    pub format: MapFormatArg,

    /// What the cells' shade shows.
    #[arg(long, value_enum, default_value_t = MapShadeArg::Used, help_heading = OUTPUT)]
    pub shade: MapShadeArg,

    /// Colour the terminal grid.
    ///
    /// `auto`: when standard output is a terminal, NO_COLOR is not set and
    /// TERM is not `dumb`.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, help_heading = OUTPUT)]
    pub color: ColorArg,

    /// With a data directory: the table to draw, found in the catalogs.
    ///
    /// `SCHEMA.NAME` (or `NAME` in public); its files come from pg_class, read
    /// offline.
    #[arg(long, value_name = "SCHEMA.NAME", help_heading = POSTGRES)]
    pub table: Option<String>,

    /// The database of --table (default: postgres).
    #[arg(long, value_name = "NAME", requires = "table", help_heading = POSTGRES)]
    pub database: Option<String>,

    /// Verify data checksums, as `verify` does.
    ///
    /// `auto`: when any written page has pd_checksum set.
    #[arg(long, value_enum, default_value_t = ChecksumsArg::Auto, help_heading = POSTGRES)]
    pub checksums: ChecksumsArg,

    /// Segment file size (default 1G).
    ///
    /// RELSEG_SIZE × BLCKSZ: bytes, or with K, M, G.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = POSTGRES, hide_short_help = true)]
    pub segment_size: Option<u64>,

    /// Segment number of the input file (default: the `.N` suffix).
    ///
    /// Without it, from its `.N` file-name suffix; no further segments are read.
    #[arg(long, value_name = "N", help_heading = POSTGRES, hide_short_help = true)]
    pub segment: Option<u64>,

    #[command(flatten)]
    pub progress: ProgressArgs,
}

/// What the shade of `map`'s cells shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum MapShadeArg {
    /// The share of the blocks in use (block size − free space).
    Used,
    /// The share of line pointers that are dead or hold a tuple with t_xmax
    /// set (Oracle: rows deleted): what VACUUM may reclaim.
    Dead,
}

/// Arguments of `infer`.
#[derive(Args, Clone, Debug)]
pub(crate) struct InferArgs {
    /// A heap relation file (one segment).
    pub input: PathBuf,

    /// The table's TOAST relation file, to look inside out-of-line values.
    #[arg(long, value_name = "FILE", help_heading = POSTGRES)]
    pub toast: Option<PathBuf>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = InferFormatArg::Text, help_heading = OUTPUT)]
    pub format: InferFormatArg,

    #[command(flatten)]
    pub progress: ProgressArgs,
}

/// Output formats of `infer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum InferFormatArg {
    /// The column list, then one line per attribute with its candidates.
    Text,
    /// One document: {"schema", "columns", "attributes": [...], ...}.
    Json,
}

/// Output formats of `map`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum MapFormatArg {
    /// A grid of characters, one per cell, with a legend and a summary
    /// (coloured on a terminal).
    Term,
    /// A standalone SVG picture with a hover title per cell.
    Svg,
    /// One document: {"blocks": [...], "summary": {...}}.
    Json,
    /// One block per line, then {"summary": {...}}.
    Ndjson,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(parse_address("0x7f140f335310"), Ok(0x7f14_0f33_5310));
        assert_eq!(parse_address("100"), Ok(100));
        assert!(parse_address("x").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("8192"), Ok(8192));
        assert!(parse_size("0").is_err());
        assert!(parse_size("1X").is_err());
    }
}

/// `export`: rows out of a relation file or an Oracle datafile.
#[derive(Args, Debug)]
pub(crate) struct CarveArgs {
    /// Disk images, block devices or any files of bytes to scan.
    #[arg(value_name = "IMAGE", required = true)]
    pub inputs: Vec<PathBuf>,

    /// The directory to write the groups and manifest.json into.
    ///
    /// Created if missing; it must be empty, and must not be an input or
    /// hold one.
    #[arg(long, short = 'o', value_name = "DIR", required_unless_present = "dry_run", help_heading = OUTPUT)]
    pub out: Option<PathBuf>,

    /// Scan and group, print the summary, write nothing.
    #[arg(long, conflicts_with = "out", help_heading = OUTPUT)]
    pub dry_run: bool,

    /// Which database's pages to look for.
    ///
    /// `auto`: PostgreSQL pages and Oracle blocks.
    #[arg(long, value_enum, default_value_t = EngineArg::AUTO, help_heading = INPUT)]
    pub engine: EngineArg,

    /// Only pages of this size in bytes (default: any, from each page).
    #[arg(long, value_name = "BYTES", help_heading = INPUT, hide_short_help = true)]
    pub block_size: Option<usize>,

    #[command(flatten)]
    pub progress: ProgressArgs,
}

#[derive(Args, Debug)]
pub(crate) struct ExportArgs {
    /// A relation file, a data directory with --table, or a datafile.
    ///
    /// A relation file (`16396`: its segments `16396.1`, `16396.2`, … are read
    /// after it), a data directory with `--table`, or an Oracle datafile.
    pub input: PathBuf,

    /// Which database wrote the file.
    #[arg(long, value_enum, default_value_t = EngineArg::AUTO, help_heading = INPUT)]
    pub engine: EngineArg,

    /// Page size in bytes.
    ///
    /// Default: read from the first page header, else 8192.
    #[arg(long, value_name = "BYTES", help_heading = INPUT, hide_short_help = true)]
    pub block_size: Option<usize>,

    /// The table's columns, as `show --columns` takes them.
    ///
    /// `auto`: the list `blockscope infer` proposes (told on stderr).
    #[arg(long, value_name = "LIST", conflicts_with = "schema", help_heading = INPUT)]
    pub columns: Option<String>,

    /// The table's columns from a file, as `show --schema` takes it.
    #[arg(long, value_name = "FILE", help_heading = INPUT, hide_short_help = true)]
    pub schema: Option<PathBuf>,

    /// Which rows: visible, deleted or all.
    ///
    /// `visible`: what a query returns once every transaction ended;
    /// `deleted`: removed by a committed DELETE, bytes still on the page; `all`:
    /// every tuple version, with a status column.
    #[arg(long, value_enum, default_value_t = RowsArg::Visible, help_heading = SELECTION)]
    pub rows: RowsArg,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = ExportFormatArg::Csv, help_heading = OUTPUT)]
    pub format: ExportFormatArg,

    /// A header line with the column names first.
    #[arg(long, help_heading = OUTPUT)]
    pub header: bool,

    /// Add ctid, xmin and xmax before the columns.
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub with_system_columns: bool,

    /// The table name in INSERT statements.
    ///
    /// Default: `restored_` and the relation file's number.
    #[arg(long, value_name = "NAME", help_heading = OUTPUT, hide_short_help = true)]
    pub table_name: Option<String>,

    /// After the rows, provenance and SHA-256 on standard error.
    ///
    /// One line on standard error, `{"provenance": …}`: blockscope's version,
    /// the arguments, and per relation file read its path, size, mtime, bytes
    /// read and their SHA-256 (computed as read).
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub evidence: bool,

    /// With a data directory: the table to export, found in the catalogs.
    ///
    /// `SCHEMA.NAME` (or `NAME` in public), found through the catalogs read
    /// offline (its files, columns and TOAST table); `--columns`/`--schema`
    /// given too replace the catalog's columns.
    #[arg(long, value_name = "SCHEMA.NAME", help_heading = POSTGRES)]
    pub table: Option<String>,

    /// The database of --table (default: postgres).
    #[arg(long, value_name = "NAME", requires = "table", help_heading = POSTGRES)]
    pub database: Option<String>,

    /// The TOAST relation's file (repeat for several segments).
    #[arg(long, value_name = "FILE", help_heading = POSTGRES)]
    pub toast: Vec<PathBuf>,

    /// The data directory whose pg_xact decides commit status.
    ///
    /// pg_xact and pg_multixact decide commit status. Default: the one the
    /// relation file sits in, if any.
    #[arg(long, value_name = "DIR", help_heading = POSTGRES)]
    pub data_dir: Option<PathBuf>,

    /// Only these blocks: 3, 0..9 (inclusive), 5.., ..4
    #[arg(long, value_name = "RANGE", help_heading = SELECTION)]
    pub blocks: Option<String>,

    /// Skip a damaged block whole.
    ///
    /// By default a block whose checksum or page header fails is read tuple
    /// by tuple: its tuples that pass their own checks are written, and the
    /// block and each unreadable tuple are named on standard error.
    #[arg(long, help_heading = SELECTION)]
    pub strict: bool,

    /// Also rows gone from the pages (VACUUM) that the WAL still holds.
    ///
    /// With --table and --rows deleted or all: the table's insert records
    /// and full-page images in DIR (WAL segments, a pg_wal or archive
    /// directory; without DIR the data directory's pg_wal) give back the
    /// row versions no page holds any more, with their TOAST values.
    #[arg(long, value_name = "DIR", num_args = 0..=1, help_heading = POSTGRES, hide_short_help = true)]
    pub wal: Option<Option<PathBuf>>,

    /// Add a column `source`: `page`, or the WAL record's LSN.
    ///
    /// Where each row version came from: a page of the relation, or (with
    /// --wal) the LSN of the WAL record it was first found in.
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub source_column: bool,

    /// Also the stored generated columns.
    ///
    /// A column GENERATED ALWAYS AS (…) STORED is left out, as `COPY table
    /// TO` leaves it out; with this flag it is written in its place, as
    /// `COPY (SELECT * FROM table) TO` writes it. The catalogs say which
    /// columns are generated (--table); in --columns mark one `generated:`.
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub with_generated: bool,

    /// The data object id whose rows to write.
    ///
    /// The kdbh/ktbbh objd of the table's blocks.
    #[arg(long, value_name = "N", help_heading = ORACLE)]
    pub object_id: Option<u32>,

    /// Character set of VARCHAR2/CHAR columns.
    ///
    /// Database character set.
    #[arg(long, value_enum, value_name = "CHARSET", default_value_t = OracleCharsetArg::Al32utf8, help_heading = ORACLE, hide_short_help = true)]
    pub oracle_charset: OracleCharsetArg,

    #[command(flatten)]
    pub progress: ProgressArgs,
}

/// Output formats of `export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExportFormatArg {
    /// COPY's text format: tab-separated, `\N` for NULL, backslash escapes.
    Copy,
    /// COPY's CSV format: quoted only where needed, NULL empty.
    Csv,
    /// INSERT statements.
    Sql,
    /// One JSON object per row, with typed values.
    Ndjson,
}

/// Which rows `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum RowsArg {
    /// The rows a query would return once every transaction ended.
    Visible,
    /// Rows removed by a committed DELETE whose bytes are still on the page.
    Deleted,
    /// Every tuple version, with its status.
    All,
}

/// `blockscope wal`: records of WAL segments.
#[derive(Args, Debug)]
pub(crate) struct WalArgs {
    /// WAL segment files, a pg_wal or archive directory, or a data directory.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,

    /// Segment size in bytes (e.g. 16MB); read from the first segment's long
    /// page header (xlp_seg_size) when not given.
    #[arg(long = "wal-segsize", value_name = "SIZE", value_parser = parse_size, help_heading = INPUT, hide_short_help = true)]
    pub wal_segsize: Option<u64>,

    /// Only records touching this relation: SPC/DB/RELFILENODE (1663/5/16384).
    #[arg(long, value_name = "SPC/DB/REL", conflicts_with = "table", help_heading = SELECTION)]
    pub relation: Option<String>,

    /// Only records touching this table of the data directory (its catalogs read offline).
    #[arg(long, value_name = "SCHEMA.NAME", help_heading = SELECTION)]
    pub table: Option<String>,

    /// The database of --table (default: postgres, else the one database that has it).
    #[arg(long, value_name = "NAME", requires = "table", help_heading = SELECTION)]
    pub database: Option<String>,

    /// Only records touching this block number.
    #[arg(long, value_name = "N", help_heading = SELECTION)]
    pub block: Option<u32>,

    /// Only records of these resource managers (pg_waldump's names, comma-separated).
    #[arg(long, value_name = "NAME,…", value_delimiter = ',', help_heading = SELECTION)]
    pub rmgr: Vec<String>,

    /// Only records at or after this LSN (e.g. 0/1548F40).
    #[arg(long, value_name = "LSN", help_heading = SELECTION)]
    pub start: Option<String>,

    /// Only records before this LSN.
    #[arg(long, value_name = "LSN", help_heading = SELECTION)]
    pub end: Option<String>,

    /// Only records of this transaction id.
    #[arg(long, value_name = "XID", help_heading = SELECTION)]
    pub xid: Option<u32>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = WalFormatArg::Table, help_heading = OUTPUT)]
    pub format: WalFormatArg,

    /// Rebuild --block's page from the WAL into --output.
    ///
    /// The latest full-page image (or initialisation) of the block at or
    /// before --upto, plus redo of every later record for it (heap, heap2
    /// and btree, PostgreSQL 15). Where a record cannot be replayed the rebuild
    /// stops at the last good version, writes it and exits 1.
    #[arg(long, requires = "block", requires = "output", conflicts_with = "history", help_heading = HISTORY)]
    pub rebuild: bool,

    /// List every version of --block and what changed.
    ///
    /// One line per version: the record's LSN, the page's LSN after it, the
    /// record (pg_waldump's rmgr/type) and what changed (line pointers,
    /// header fields, tuple headers). --format json gives one document.
    #[arg(long, requires = "block", help_heading = HISTORY)]
    pub history: bool,

    /// The file --rebuild writes the page to (never an input).
    #[arg(long, value_name = "FILE", requires = "rebuild", help_heading = HISTORY)]
    pub output: Option<PathBuf>,

    /// --history also writes each version as DIR/<LSN>.page.
    ///
    /// The file is named after the page's LSN (00000000-0089A1B8.page);
    /// `blockscope diff` compares any two.
    #[arg(long, value_name = "DIR", requires = "history", help_heading = HISTORY)]
    pub output_dir: Option<PathBuf>,

    /// Only records that start before this LSN (default: all).
    ///
    /// A page's pd_lsn or a checkpoint's location gives the block as it was
    /// then.
    #[arg(long, value_name = "LSN", help_heading = HISTORY)]
    pub upto: Option<String>,

    /// The fork of --rebuild and --history: main, fsm, vm or init.
    #[arg(long, value_name = "FORK", default_value = "main", help_heading = HISTORY, hide_short_help = true)]
    pub fork: String,
    #[command(flatten)]
    pub progress: ProgressArgs,
}

/// `wal --format`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WalFormatArg {
    /// One line per record, as pg_waldump prints it.
    Table,
    /// One document `{"schema": 1, "records": […], "problems": […]}`.
    Json,
    /// `{"schema": 1}`, then one record or problem a line, streamed.
    Ndjson,
}
