//! The command line as clap sees it: arguments, options and their value
//! enums, documented for `--help`. Nothing here decides anything: the
//! [`super::config`] layer turns these into validated configs once.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Offline forensics of database page images.
#[derive(Parser, Debug)]
#[command(name = "blockscope", version, about, long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Decode pages and render them as tables, annotated hex or JSON.
    Show(ShowArgs),
    /// Check the checksum and structure of every block; summary; exit status 1 if problems.
    Verify(VerifyArgs),
    /// Explain one flag word: every bit set, by name; unknown bits called out.
    Decode(DecodeArgs),
    /// Compare two versions of pages block by block: changed fields, items
    /// and bytes; exit status 1 if they differ.
    Diff(DiffArgs),
    /// One picture of a whole file: per block fill, line pointers by state,
    /// zero pages, errors; exit status 1 if a block has errors.
    Map(MapArgs),
    /// Write a table's rows out of its relation file (or an Oracle datafile)
    /// as COPY text, CSV, INSERT statements or NDJSON, with no server.
    Export(ExportArgs),
    /// Print shell completions.
    Completions {
        /// The shell to generate completions for.
        shell: clap_complete::Shell,
    },
}

/// How pages are read: options `show` and `diff` share.
#[derive(Args, Clone, Debug)]
pub(crate) struct PageArgs {
    /// How the input is written.
    #[arg(long = "input", value_enum, default_value_t = InputArg::Auto)]
    pub input_format: InputArg,

    /// Which database wrote the pages.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// Decode every page as this kind instead of detecting it.
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,

    /// Blocks, by block number: `3`, `0..9` (inclusive), `5..`, `..4`.
    #[arg(long, value_name = "RANGE", conflicts_with = "block")]
    pub blocks: Option<String>,

    /// One block, by block number.
    #[arg(long, value_name = "N")]
    pub block: Option<u64>,

    /// Page size in bytes (default: read from the first page header, else 8192).
    #[arg(long, value_name = "BYTES")]
    pub block_size: Option<usize>,

    /// Block number of the input's first page (for page images cut out of a
    /// relation, e.g. by get_raw_page; the checksum depends on it).
    #[arg(long, value_name = "N")]
    pub blkno: Option<u64>,

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
pub(crate) struct ShowArgs {
    /// Files of pages (raw or text dumps); `-` or nothing reads standard
    /// input. Several are shown one after the other, each titled by its name.
    pub inputs: Vec<PathBuf>,

    #[command(flatten)]
    pub pages: PageArgs,

    /// Segment number of a relation file (default: from a `.N` file-name suffix).
    #[arg(long, value_name = "N", conflicts_with = "blkno")]
    pub segment: Option<u64>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,

    /// Show wide fields in full (t_data, flag names).
    #[arg(long)]
    pub wide: bool,

    /// Colour the hex view by region.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,

    /// Tables: list every problem of a page (default: repeats of one kind
    /// collapse into one row with a count, and at most 25 rows a page; JSON
    /// always keeps every problem).
    #[arg(long)]
    pub all_problems: bool,

    /// With a data directory as the input: the table to decode, `SCHEMA.NAME`
    /// (or `NAME` in public), found through the catalogs read offline; its
    /// files, columns and TOAST table come from pg_class, pg_attribute and
    /// pg_type. `--columns`/`--schema` given too replace the catalog's
    /// columns (or stand in for them when a catalog page is unreadable).
    #[arg(long, value_name = "SCHEMA.NAME", conflicts_with = "toast")]
    pub table: Option<String>,

    /// The database of `--table` (default: postgres).
    #[arg(long, value_name = "NAME", requires = "table")]
    pub database: Option<String>,

    /// After each input, its provenance: blockscope's version, the
    /// arguments, the input's path, size and mtime, and the SHA-256 of
    /// exactly the bytes read (computed as they were read).
    #[arg(long)]
    pub evidence: bool,

    /// PostgreSQL: the data directory whose pg_xact says how transactions
    /// without hint bits ended, in verdicts (default: the one the input
    /// file sits in, if any).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct VerifyArgs {
    /// Relation files (`16385`, `16385.1`, `16385_fsm`…) and directories (a
    /// data directory, a tablespace or a database directory); `-` or nothing
    /// reads standard input.
    pub inputs: Vec<PathBuf>,

    /// Verify data checksums: `auto` asks a data directory's pg_control, else
    /// does when any written page has pd_checksum set (a cluster without
    /// checksums has 0 on every page).
    #[arg(long, value_enum, default_value_t = ChecksumsArg::Auto)]
    pub checksums: ChecksumsArg,

    /// Page size in bytes (BLCKSZ; default: a data directory's pg_control, else
    /// what the first written page says in pd_pagesize_version, else 8192).
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

    /// Report provenance: blockscope's version, the arguments, and per
    /// input its path, size, mtime and the SHA-256 of the bytes read
    /// (PostgreSQL and Oracle inputs).
    #[arg(long)]
    pub evidence: bool,

    /// Oracle datafiles: check only these blocks (`N`, `A..B`, `A..`,
    /// `..B`), as DBVERIFY's START= and END= do.
    #[arg(long, value_name = "RANGE")]
    pub blocks: Option<String>,

    /// Oracle datafiles: the input's first block is block N of its datafile
    /// (a range cut out with `dd skip=N`), so its blocks are checked at
    /// their own positions.
    #[arg(long, value_name = "N")]
    pub first_block: Option<u64>,

    /// Text: print every problem on its own line (default: repeats of one
    /// kind in a block collapse into one line with a count, and at most 25
    /// lines a block; JSON always keeps every problem).
    #[arg(long)]
    pub all_problems: bool,

    /// Which database wrote the files: `auto` scores each file's first
    /// block (Oracle: type, format byte, rdba, tail, check value;
    /// PostgreSQL: pd_pagesize_version, pd_lower/pd_upper/pd_special, line
    /// pointers, special space, checksum).
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// amcheck's checks across pages, offline: btree sibling links, levels,
    /// downlinks and the metapage's roots; heap xmin/xmax against
    /// pg_control, HOT chains and redirects; the visibility map against
    /// the pages; the free space map (notes only).
    #[arg(long)]
    pub deep: bool,

    /// With --deep: a btree index's key column types (`int4`, `int8,text`…)
    /// so its keys are checked in order (integers by value, text in the C
    /// collation).
    #[arg(long, value_name = "TYPES", requires = "deep")]
    pub columns: Option<String>,
}

#[derive(Args, Debug)]
pub(crate) struct DiffArgs {
    /// The old version: anything `show` reads, or a JSON document written
    /// by `show --format json` (a golden file; one of several inputs pairs
    /// with as many NEW inputs); `-` reads standard input.
    pub old: PathBuf,

    /// The new version, the same way (several when OLD is a JSON document
    /// of several inputs).
    #[arg(required = true)]
    pub new: Vec<PathBuf>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = DiffFormatArg::Table)]
    pub format: DiffFormatArg,

    /// JSON field names to leave out of the comparison, at any depth
    /// (`lsn,checksum,prune_xid`); their bytes and the problems about them
    /// are left out too.
    #[arg(long, value_name = "FIELD,…", value_delimiter = ',')]
    pub ignore: Vec<String>,

    #[command(flatten)]
    pub pages: PageArgs,
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

/// Database engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// Detect from the content: the first block's header signals are scored
    /// for each engine (an Oracle block has a known type at byte 0, a format
    /// byte ending in 2 at byte 1, a tail repeating its header and a check
    /// value; a PostgreSQL page has pd_pagesize_version and ordered offsets).
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
pub(crate) enum ColorArg {
    /// Colour when standard output is a terminal.
    Auto,
    Always,
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
    /// Oracle ROWID: extended (`AAASO6AAMAAAAw2AAA`) or restricted
    /// (`00000C36.0000.000C`) → data object id, file, block, row.
    Rowid,
}

/// Output formats of `decode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum DecodeFormat {
    Text,
    Json,
}

/// Options that only Oracle blocks use.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct OracleArgs {
    /// Oracle release whose dump text to follow (default: implied by the
    /// block — a big-SCN flag means 12.2+ — else 12.1).
    #[arg(long, value_enum, value_name = "RELEASE")]
    pub oracle_version: Option<OracleVersionArg>,

    /// Tablespace number for `--format dump` (not stored in a block; default:
    /// the datafile header's, when the input holds it; else `?`).
    #[arg(long, value_name = "N")]
    pub oracle_tsn: Option<u32>,

    /// Absolute file number for `--format dump` (default: the datafile
    /// header's, else the rdba's relative file number).
    #[arg(long, value_name = "N")]
    pub oracle_file: Option<u32>,

    /// Memory address of the buffer that held the block, for the addresses in
    /// `--format dump` (`data header at`, `pbl`); default: block offsets.
    #[arg(long, value_name = "ADDR", value_parser = parse_address)]
    pub oracle_buffer: Option<u64>,

    /// Show every rdba in bigfile form (`1024/N`); without this, an rdba
    /// without file bits is shown that way.
    #[arg(long)]
    pub oracle_bigfile: bool,

    /// Include the `Hex dump of block` section in `--format dump`.
    #[arg(long)]
    pub oracle_hex: bool,

    /// Which part of the trace `--format dump` prints.
    #[arg(long, value_enum, value_name = "PART", default_value_t = DumpPartArg::Trace)]
    pub dump_part: DumpPartArg,

    /// Expand the tabs of `--format dump` to 8-column stops, as published
    /// copies of dumps show them.
    #[arg(long)]
    pub expand_tabs: bool,

    /// Byte order of the 32-bit words in a trace's `Dump of memory` section
    /// (default: the one in which the rebuilt block's tail matches its header).
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = EndianArg::Auto)]
    pub endian: EndianArg,

    /// Database character set of VARCHAR2/CHAR columns decoded with
    /// `--columns` (NVARCHAR2/NCHAR are read as AL16UTF16).
    #[arg(long, value_enum, value_name = "CHARSET", default_value_t = OracleCharsetArg::Al32utf8)]
    pub oracle_charset: OracleCharsetArg,
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
    /// A relation file (its further segments `N.1`, `N.2`… are read after
    /// it), pages or a text dump of pages, an Oracle datafile or block-dump
    /// trace, or a data directory with `--table`; `-` or nothing reads
    /// standard input.
    pub input: Option<PathBuf>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = MapFormatArg::Term)]
    pub format: MapFormatArg,

    /// Verify data checksums (as `verify` does): `auto` when any written
    /// page has pd_checksum set.
    #[arg(long, value_enum, default_value_t = ChecksumsArg::Auto)]
    pub checksums: ChecksumsArg,

    /// Page size in bytes (default: 8192; Oracle: from the datafile).
    #[arg(long, value_name = "BYTES")]
    pub block_size: Option<usize>,

    /// Segment file size (RELSEG_SIZE × BLCKSZ): bytes, or with K, M, G (default 1G).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub segment_size: Option<u64>,

    /// Segment number of the input file (default: its `.N` file-name suffix);
    /// no further segments are read.
    #[arg(long, value_name = "N")]
    pub segment: Option<u64>,

    /// Which database wrote the file (default: detected from its first block).
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// Colour the terminal grid (`auto`: when standard output is a terminal
    /// and NO_COLOR is not set).
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,

    /// What the cells' shade shows.
    #[arg(long, value_enum, default_value_t = MapShadeArg::Used)]
    pub shade: MapShadeArg,

    /// With a data directory as the input: the table to draw, `SCHEMA.NAME`
    /// (or `NAME` in public); its files come from pg_class, read offline.
    #[arg(long, value_name = "SCHEMA.NAME")]
    pub table: Option<String>,

    /// The database of `--table` (default: postgres).
    #[arg(long, value_name = "NAME", requires = "table")]
    pub database: Option<String>,
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
pub(crate) struct ExportArgs {
    /// A relation file (`16396`: its segments `16396.1`, `16396.2`, … are
    /// read after it) or an Oracle datafile.
    pub input: PathBuf,

    /// Output format: `copy` (COPY's text format), `csv` (COPY's CSV),
    /// `sql` (INSERT statements), `ndjson` (one JSON object per row).
    #[arg(long, short = 'f', value_enum, default_value_t = ExportFormatArg::Csv)]
    pub format: ExportFormatArg,

    /// The table's columns, as `show --columns` takes them.
    #[arg(long, value_name = "LIST", conflicts_with = "schema")]
    pub columns: Option<String>,

    /// The table's columns from a file, as `show --schema` takes it.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,

    /// The TOAST relation's file (repeat for several segments).
    #[arg(long, value_name = "FILE")]
    pub toast: Vec<PathBuf>,

    /// A header line with the column names first.
    #[arg(long)]
    pub header: bool,

    /// Add ctid, xmin and xmax before the columns.
    #[arg(long)]
    pub with_system_columns: bool,

    /// Which rows: `visible` (what a query returns once every transaction
    /// ended), `deleted` (removed by a committed DELETE, bytes still on the
    /// page), `all` (every tuple version, with a status column).
    #[arg(long, value_enum, default_value_t = RowsArg::Visible)]
    pub rows: RowsArg,

    /// The table name in `--format sql`'s INSERT statements (default:
    /// `restored_` and the relation file's number).
    #[arg(long, value_name = "NAME")]
    pub table_name: Option<String>,

    /// The data directory whose pg_xact and pg_multixact decide commit
    /// status (default: the one the relation file sits in, if any).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// With a data directory as the input: the table to export,
    /// `SCHEMA.NAME` (or `NAME` in public), found through the catalogs read
    /// offline (its files, columns and TOAST table); `--columns`/`--schema`
    /// given too replace the catalog's columns.
    #[arg(long, value_name = "SCHEMA.NAME")]
    pub table: Option<String>,

    /// The database of `--table` (default: postgres).
    #[arg(long, value_name = "NAME", requires = "table")]
    pub database: Option<String>,

    /// After the rows, one line on standard error: `{"provenance": …}` —
    /// blockscope's version, the arguments, and per relation file read its
    /// path, size, mtime, bytes read and their SHA-256 (computed as read).
    #[arg(long)]
    pub evidence: bool,

    /// Page size in bytes (default: read from the first page header, else 8192).
    #[arg(long, value_name = "BYTES")]
    pub block_size: Option<usize>,

    /// Which database wrote the file.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// Oracle: the data object id (kdbh/ktbbh objd) whose rows to write.
    #[arg(long, value_name = "N")]
    pub object_id: Option<u32>,

    /// Oracle: database character set of VARCHAR2/CHAR columns.
    #[arg(long, value_enum, value_name = "CHARSET", default_value_t = OracleCharsetArg::Al32utf8)]
    pub oracle_charset: OracleCharsetArg,
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
