//! The Oracle side of the command line: `show` for Oracle blocks (table, hex,
//! JSON, NDJSON and Oracle's own dump text) and the Oracle words of `decode`.
//! Kept apart from the PostgreSQL wiring in `cli.rs`, which calls in here
//! once the engine is known.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::{json, Value};

use crate::engine::Engine;
use crate::error::Error;
use crate::model::oracle::{OracleVersion, Rdba};
use crate::model::oracle_types::{OraCharset, OraColumns};
use crate::parse::oracle::datatype::{decode_date, decode_number};
use crate::parse::oracle::{columns, names, parse_block, BlockOptions};
use crate::render;
use crate::render::dump::{render_dump, DumpOptions, DumpPart};
use crate::source::Source;

use super::{
    output, parse_word, source_name, stdout_error, BlockRange, DecodeArgs, DecodeFormat,
    DecodeWhat, EngineArg, FormatArg, ShowArgs,
};

/// Options that only Oracle blocks use.
#[derive(Args, Debug, Clone, Default)]
pub struct OracleArgs {
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

impl From<OracleCharsetArg> for OraCharset {
    fn from(c: OracleCharsetArg) -> Self {
        match c {
            OracleCharsetArg::Al32utf8 => OraCharset::Al32Utf8,
            OracleCharsetArg::We8iso8859p1 => OraCharset::We8Iso8859P1,
            OracleCharsetArg::Us7ascii => OraCharset::Us7Ascii,
        }
    }
}

/// The Oracle column list from `--columns`, or from `--schema FILE` (one
/// column a line, `NAME TYPE` or `TYPE`; blank lines and `--` comments skipped).
fn oracle_columns(args: &ShowArgs) -> Result<Option<OraColumns>, Error> {
    if !args.toast.is_empty() {
        return Err(Error::Usage(
            "--toast is for PostgreSQL tables; Oracle blocks have no TOAST".into(),
        ));
    }
    if let Some(list) = &args.columns {
        return OraColumns::parse(list)
            .map(Some)
            .map_err(|e| Error::Usage(format!("--columns: {e}")));
    }
    let Some(path) = &args.schema else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("--schema {}: {e}", path.display())))?;
    let lines: Vec<&str> = text
        .lines()
        .map(|l| {
            l.split("--")
                .next()
                .unwrap_or("")
                .trim()
                .trim_end_matches(',')
        })
        .filter(|l| !l.is_empty())
        .collect();
    OraColumns::parse(&lines.join(","))
        .map(Some)
        .map_err(|e| Error::Usage(format!("--schema {}: {e}", path.display())))
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

/// Whether `show` should decode the input as Oracle blocks: forced with
/// `--engine oracle`, or detected from the first block.
pub(super) fn wants_oracle(args: &ShowArgs, source: &mut Source) -> Result<bool, Error> {
    let oracle = match args.engine {
        EngineArg::Oracle => true,
        EngineArg::Postgres => false,
        EngineArg::Auto => {
            let head = source.head(source.block_size)?;
            Engine::sniff(&head).engine == Engine::Oracle
        }
    };
    if !oracle && args.format == FormatArg::Dump {
        return Err(dump_needs_oracle(args));
    }
    Ok(oracle)
}

/// `--format dump` asked of pages that are not Oracle blocks.
pub(super) fn dump_needs_oracle(args: &ShowArgs) -> Error {
    Error::Usage(format!(
        "{}: --format dump prints Oracle's block dump, but the input is not Oracle blocks \
         (use --engine oracle to force it)",
        source_name(args)
    ))
}

/// `show` for Oracle blocks.
pub(super) fn show(args: &ShowArgs, source: Source, range: BlockRange) -> Result<ExitCode, Error> {
    let o = &args.oracle;
    let first_blkno = args.blkno.unwrap_or(0);
    let column_list = oracle_columns(args)?;
    let (mut out, opts) = output(args);
    let mut dump = DumpOptions {
        version: o.oracle_version.map(OracleVersion::from),
        tsn: o.oracle_tsn,
        file: o.oracle_file,
        buffer: o.oracle_buffer,
        bigfile: o.oracle_bigfile,
        hex: o.oracle_hex,
        part: match o.dump_part {
            DumpPartArg::Trace => DumpPart::Trace,
            DumpPartArg::Block => DumpPart::Block,
        },
        expand_tabs: o.expand_tabs,
    };

    let mut collected: Vec<Value> = Vec::new();
    let mut shown = 0usize;
    for block in source.blocks() {
        let block = block?;
        let blkno = first_blkno.saturating_add(block.index);
        if blkno > range.last {
            break;
        }
        // The datafile header (block 1) names the tablespace and file that
        // the dump prints and blocks do not carry.
        let in_range = range.contains(blkno);
        if !in_range && block.index > 1 {
            continue;
        }
        let mut parsed = parse_block(
            &block.data,
            &BlockOptions {
                blkno,
                endian: None,
            },
        );
        if let Some(list) = &column_list {
            columns::decode_block(&mut parsed, list, o.oracle_charset.into());
        }
        if let Some(fh) = &parsed.file_header {
            dump.tsn = o.oracle_tsn.or(Some(fh.kcvfhtsn));
            dump.file = o.oracle_file.or(Some(u32::from(fh.kccfhfno)));
        }
        if !in_range {
            continue;
        }
        match args.format {
            FormatArg::Json => {
                collected.push(render::oracle_json::block_json(&parsed, o.oracle_bigfile))
            }
            FormatArg::Ndjson => {
                render::json::write_line(
                    &mut out,
                    &render::oracle_json::block_json(&parsed, o.oracle_bigfile),
                )
                .map_err(stdout_error)?;
            }
            FormatArg::Table => {
                if shown > 0 {
                    writeln!(out).map_err(stdout_error)?;
                }
                render::oracle_table::render_block(&mut out, &parsed, o.oracle_bigfile, &opts)
                    .map_err(stdout_error)?;
            }
            FormatArg::Hex => {
                if shown > 0 {
                    writeln!(out).map_err(stdout_error)?;
                }
                writeln!(
                    out,
                    "{}",
                    render::oracle_table::title(&parsed, o.oracle_bigfile)
                )
                .map_err(stdout_error)?;
                render::hex::render(&mut out, &block.data, &parsed.spans, &opts)
                    .map_err(stdout_error)?;
            }
            FormatArg::Dump => {
                render_dump(&mut out, &parsed, &block.data, &dump).map_err(stdout_error)?;
            }
        }
        shown += 1;
    }
    if args.format == FormatArg::Json {
        render::json::write_document(&mut out, &collected).map_err(stdout_error)?;
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

/// Bytes written as hex pairs (`c2 4a 46`, `c24a46`, `c2,4a,46`, `0xc2 …`) or
/// as `DUMP()` prints them (`Typ=2 Len=3: c2,4a,46`; decimal when the list has
/// no hex letters, as plain `DUMP(col)` prints it).
fn parse_bytes(text: &str) -> Result<Vec<u8>, Error> {
    let bad = |why: &str| {
        Error::Usage(format!(
            "decode: expected bytes as hex pairs (c2 4a 46) or DUMP() output, found {text:?}: {why}"
        ))
    };
    let (list, decimal) = match text.split_once(':') {
        Some((head, rest)) if head.trim_start().starts_with("Typ=") => {
            let has_letters = rest.chars().any(|c| c.is_ascii_alphabetic());
            (rest, !has_letters)
        }
        _ => (text, false),
    };
    let mut bytes = Vec::new();
    for token in list.split(|c: char| c.is_whitespace() || c == ',') {
        let t = token.trim();
        if t.is_empty() {
            continue;
        }
        if decimal {
            bytes.push(t.parse::<u8>().map_err(|_| bad("not a decimal byte"))?);
            continue;
        }
        let t = t
            .strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .unwrap_or(t);
        if t.len() % 2 == 1 && t.len() > 1 {
            return Err(bad("odd number of hex digits"));
        }
        if t.len() == 1 {
            bytes.push(u8::from_str_radix(t, 16).map_err(|_| bad("not hex"))?);
            continue;
        }
        let mut i = 0;
        while let Some(pair) = t.get(i..i + 2) {
            bytes.push(u8::from_str_radix(pair, 16).map_err(|_| bad("not hex"))?);
            i += 2;
        }
    }
    if bytes.is_empty() {
        return Err(bad("no bytes"));
    }
    Ok(bytes)
}

fn spaced(bytes: &[u8]) -> String {
    crate::model::oracle::hex_string(bytes)
}

/// `decode` for the Oracle words; `None` for the others (which take one VALUE).
pub(super) fn decode(args: &DecodeArgs) -> Option<Result<ExitCode, Error>> {
    let oracle = matches!(
        args.what,
        DecodeWhat::OracleRdba
            | DecodeWhat::OracleFb
            | DecodeWhat::OracleFlg
            | DecodeWhat::OracleItlFlag
            | DecodeWhat::OracleNumber
            | DecodeWhat::OracleDate
    );
    if !oracle {
        if args.more.is_empty() {
            return None;
        }
        return Some(Err(Error::Usage(format!(
            "decode: one VALUE expected, found {} more ({})",
            args.more.len(),
            args.more.join(" ")
        ))));
    }
    Some(decode_oracle(args))
}

fn decode_oracle(args: &DecodeArgs) -> Result<ExitCode, Error> {
    let multi = matches!(args.what, DecodeWhat::OracleNumber | DecodeWhat::OracleDate);
    if !multi && !args.more.is_empty() {
        return Err(Error::Usage(format!(
            "decode: one VALUE expected, found {} more ({})",
            args.more.len(),
            args.more.join(" ")
        )));
    }
    let all = std::iter::once(args.value.as_str())
        .chain(args.more.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let (text, value) = match args.what {
        DecodeWhat::OracleRdba => rdba(parse_word(&args.value, 32)? as u32),
        DecodeWhat::OracleFb => row_flag(parse_word(&args.value, 8)? as u8),
        DecodeWhat::OracleFlg => cache_flag(parse_word(&args.value, 8)? as u8),
        DecodeWhat::OracleItlFlag => itl_flag(parse_word(&args.value, 16)? as u16),
        DecodeWhat::OracleNumber => number(&parse_bytes(&all)?)?,
        DecodeWhat::OracleDate => date(&parse_bytes(&all)?)?,
        _ => return Err(Error::Usage("decode: not an Oracle word".into())),
    };
    let mut out = BufWriter::new(io::stdout().lock());
    match args.format {
        DecodeFormat::Json => render::json::write_pretty(&mut out, &value),
        DecodeFormat::Text => out.write_all(text.as_bytes()),
    }
    .map_err(stdout_error)?;
    out.flush().map_err(stdout_error)?;
    Ok(ExitCode::SUCCESS)
}

fn rdba(v: u32) -> (String, Value) {
    let r = Rdba(v);
    let (shown_file, shown_block) = r.split(false);
    let mut t = format!("rdba 0x{v:08x} ({v})\n");
    t.push_str(&format!(
        "  smallfile  file {:>4}  block {:>10}  (file: bits 22-31, block: bits 0-21)\n",
        r.file(),
        r.block()
    ));
    t.push_str(&format!(
        "  bigfile    file 1024  block {v:>10}  (block: all 32 bits)\n"
    ));
    if r.file() == 0 {
        t.push_str(&format!(
            "  no smallfile has file 0: Oracle prints it as bigfile ({shown_file}/{shown_block})\n"
        ));
    } else {
        t.push_str(&format!(
            "  Oracle prints ({}/{}), or (1024/{v}) in a bigfile tablespace\n",
            r.file(),
            r.block()
        ));
    }
    let j = json!({
        "word": "rdba",
        "value": v,
        "hex": format!("0x{v:08x}"),
        "smallfile": {"file": r.file(), "block": r.block()},
        "bigfile": {"file": 1024, "block": v},
        "dump": format!("0x{v:08x} ({shown_file}/{shown_block})"),
    });
    (t, j)
}

fn row_flag(v: u8) -> (String, Value) {
    let letters = names::row_flag_string(v);
    let mut t = format!("fb 0x{v:02x} {letters}\n");
    let mut flags = Vec::new();
    for &(mask, letter, name, meaning) in names::ROW_FLAGS {
        if v & mask != 0 {
            t.push_str(&format!("  0x{mask:02x}  {letter}  {name}  {meaning}\n"));
            flags.push(json!({"mask": format!("0x{mask:02x}"), "letter": letter.to_string(), "name": name, "meaning": meaning}));
        }
    }
    if v == 0 {
        t.push_str("  no flag bits set\n");
    }
    if v & 0x10 == 0 && v & 0x20 != 0 && v & 0x0c == 0x0c {
        t.push_str("  a whole row in one piece\n");
    }
    let j = json!({"word": "fb", "value": v, "hex": format!("0x{v:02x}"), "fb": letters, "flags": flags});
    (t, j)
}

fn cache_flag(v: u8) -> (String, Value) {
    let mut t = format!("flg_kcbh 0x{v:02x}\n");
    let mut flags = Vec::new();
    let width = names::KCBH_FLG
        .iter()
        .filter(|b| u16::from(v) & b.mask != 0)
        .map(|b| b.name.len())
        .max()
        .unwrap_or(0);
    for b in names::KCBH_FLG {
        if u16::from(v) & b.mask != 0 {
            t.push_str(&format!(
                "  0x{:02x}  {:<width$}  {}\n",
                b.mask, b.name, b.meaning
            ));
            flags.push(
                json!({"mask": format!("0x{:02x}", b.mask), "name": b.name, "meaning": b.meaning}),
            );
        }
    }
    let (_, unknown) = names::kcbh_flag_names(v);
    if v == 0 {
        t.push_str("  no flag bits set (check value not in use)\n");
    }
    if unknown != 0 {
        t.push_str(&format!(
            "  unknown bits: 0x{unknown:02x} (no cache header flag has them)\n"
        ));
    }
    let j = json!({"word": "flg_kcbh", "value": v, "hex": format!("0x{v:02x}"), "flags": flags, "unknown_bits": format!("0x{unknown:02x}")});
    (t, j)
}

fn itl_flag(v: u16) -> (String, Value) {
    let letters = names::itl_flag_string(v);
    let lck = v & 0x0fff;
    let mut t = format!("ktbitflg 0x{v:04x} {letters}  lck {lck}\n");
    let mut flags = Vec::new();
    for &(mask, letter, name, meaning) in names::ITL_FLAGS {
        if v & mask != 0 {
            let name = if name.is_empty() { "-" } else { name };
            t.push_str(&format!("  0x{mask:04x}  {letter}  {name:<7}  {meaning}\n"));
            flags.push(json!({"mask": format!("0x{mask:04x}"), "letter": letter.to_string(), "name": name, "meaning": meaning}));
        }
    }
    t.push_str(&format!(
        "  lock count {lck} (low 12 bits): rows locked through this ITL\n"
    ));
    let j = json!({"word": "ktbitflg", "value": v, "hex": format!("0x{v:04x}"), "flag": letters, "lck": lck, "flags": flags});
    (t, j)
}

fn number(bytes: &[u8]) -> Result<(String, Value), Error> {
    let n = decode_number(bytes)
        .map_err(|e| Error::Usage(format!("decode oracle-number: {}: {e}", spaced(bytes))))?;
    let mut t = format!("NUMBER {} = {}\n", spaced(bytes), n.text);
    if !n.digits.is_empty() {
        if let Some(first) = bytes.first() {
            t.push_str(&format!(
                "  exponent byte 0x{first:02x}: {}, first digit × 100^{}\n",
                if n.negative { "negative" } else { "positive" },
                n.exponent
            ));
        }
        let digits: Vec<String> = n.digits.iter().map(|d| d.to_string()).collect();
        t.push_str(&format!("  base-100 digits: {}\n", digits.join(" ")));
    }
    let j = json!({"word": "NUMBER", "bytes": spaced(bytes), "value": n.text, "negative": n.negative, "exponent": n.exponent, "digits": n.digits});
    Ok((t, j))
}

fn date(bytes: &[u8]) -> Result<(String, Value), Error> {
    let d = decode_date(bytes)
        .map_err(|e| Error::Usage(format!("decode oracle-date: {}: {e}", spaced(bytes))))?;
    let what = if d.nanos.is_some() {
        "TIMESTAMP"
    } else {
        "DATE"
    };
    let t = format!(
        "{what} {} = {d}\n  century+100, year+100, month, day, hour+1, minute+1, second+1{}\n",
        spaced(bytes),
        if d.nanos.is_some() {
            ", nanoseconds (big-endian)"
        } else {
            ""
        }
    );
    let j = json!({"word": what, "bytes": spaced(bytes), "value": d.to_string()});
    Ok((t, j))
}

/// `show` for an Oracle trace: each block found in it, from its rebuilt bytes
/// (cross-checked against the formatted text) or, when the trace carries only
/// the text, from the text.
pub(super) fn show_trace(
    args: &ShowArgs,
    name: &std::path::Path,
    text: &[u8],
    range: BlockRange,
) -> Result<ExitCode, Error> {
    use crate::parse::oracle::crosscheck::compare;
    use crate::parse::oracle::trace::{read_trace, render_view};
    use crate::reader::Endian;

    let o = &args.oracle;
    let endian = match o.endian {
        EndianArg::Auto => None,
        EndianArg::Little => Some(Endian::Little),
        EndianArg::Big => Some(Endian::Big),
    };
    let blocks = read_trace(text, endian).map_err(|source| Error::Input {
        path: name.to_path_buf(),
        source,
    })?;
    let (mut out, opts) = output(args);
    let mut collected: Vec<Value> = Vec::new();
    let mut shown = 0usize;
    for tb in &blocks {
        let blkno = u64::from(tb.block.unwrap_or(0));
        if tb.block.is_some() && !range.contains(blkno) {
            continue;
        }
        let trace_json = json!({
            "file": tb.file,
            "block": tb.block,
            "tsn": tb.tsn,
            "line": tb.line,
            "hex_line": tb.hex_line,
            "hex_address": tb.hex_address.map(|a| format!("0x{a:X}")),
            "endian_confirmed": tb.hex_line.map(|_| tb.endian_confirmed),
        });
        let version = o
            .oracle_version
            .map(OracleVersion::from)
            .or_else(|| tb.text.as_ref().and_then(|t| t.version));
        let mut dump = DumpOptions {
            version,
            tsn: o.oracle_tsn.or(tb.tsn),
            file: o.oracle_file.or(tb.file),
            buffer: o.oracle_buffer.or(tb.hex_address),
            bigfile: o.oracle_bigfile,
            hex: o.oracle_hex,
            part: match o.dump_part {
                DumpPartArg::Trace => DumpPart::Trace,
                DumpPartArg::Block => DumpPart::Block,
            },
            expand_tabs: o.expand_tabs,
        };
        if shown > 0 && matches!(args.format, FormatArg::Table | FormatArg::Hex) {
            writeln!(out).map_err(stdout_error)?;
        }
        let title = format!(
            "trace block {} (line {}){}",
            tb.label(),
            tb.line,
            match (tb.hex_line, &tb.text) {
                (Some(h), Some(_)) =>
                    format!(", rebuilt from the hex at line {h} and cross-checked with the text"),
                (Some(h), None) =>
                    format!(", rebuilt from the hex at line {h} (no formatted text)"),
                (None, _) => ", formatted text only (no hex section)".to_string(),
            }
        );
        if let Some(bytes) = &tb.bytes {
            let mut parsed = parse_block(
                bytes,
                &BlockOptions {
                    blkno,
                    endian: tb.endian,
                },
            );
            if endian.is_none() && !tb.endian_confirmed {
                parsed.problems.push(crate::model::Problem::new(
                    crate::model::Severity::Warning,
                    "trace",
                    None,
                    "byte order",
                    format!(
                        "trace line {}: the rebuilt block's tail matches its header in neither \
                         byte order; read as little-endian (use --endian to choose)",
                        tb.hex_line.unwrap_or(tb.line)
                    ),
                ));
            }
            if let Some(t) = &tb.text {
                parsed.problems.extend(compare(&parsed, t));
            }
            match args.format {
                FormatArg::Json | FormatArg::Ndjson => {
                    let mut v = render::oracle_json::block_json(&parsed, o.oracle_bigfile);
                    if let Value::Object(m) = &mut v {
                        m.insert("trace".into(), trace_json);
                        m.insert("text".into(), json!(tb.text));
                    }
                    if args.format == FormatArg::Json {
                        collected.push(v);
                    } else {
                        render::json::write_line(&mut out, &v).map_err(stdout_error)?;
                    }
                }
                FormatArg::Table => {
                    writeln!(out, "{title}").map_err(stdout_error)?;
                    render::oracle_table::render_block(&mut out, &parsed, o.oracle_bigfile, &opts)
                        .map_err(stdout_error)?;
                }
                FormatArg::Hex => {
                    writeln!(out, "{title}").map_err(stdout_error)?;
                    render::hex::render(&mut out, bytes, &parsed.spans, &opts)
                        .map_err(stdout_error)?;
                }
                FormatArg::Dump => {
                    render_dump(&mut out, &parsed, bytes, &dump).map_err(stdout_error)?;
                }
            }
        } else {
            let Some(t) = &tb.text else { continue };
            match args.format {
                FormatArg::Json | FormatArg::Ndjson => {
                    let v = json!({
                        "engine": "oracle",
                        "source": "trace-text",
                        "trace": trace_json,
                        "text": t,
                    });
                    if args.format == FormatArg::Json {
                        collected.push(v);
                    } else {
                        render::json::write_line(&mut out, &v).map_err(stdout_error)?;
                    }
                }
                FormatArg::Table => {
                    writeln!(out, "{title}").map_err(stdout_error)?;
                    text_table(&mut out, &json!(t)).map_err(stdout_error)?;
                }
                FormatArg::Hex => {
                    return Err(Error::Usage(format!(
                        "{}: --format hex needs the block's bytes, but trace block {} (line {}) \
                         carries only the formatted dump text (no `Dump of memory` section); \
                         use --format json, table or dump",
                        name.display(),
                        tb.label(),
                        tb.line
                    )));
                }
                FormatArg::Dump => {
                    let Some(view) = render_view(t, blkno) else {
                        continue;
                    };
                    if dump.buffer.is_none() {
                        dump.buffer = t.data.as_ref().and_then(|d| {
                            let off = view.ktbbh.as_ref()?.payload_offset as u64;
                            d.header_address.checked_sub(off)
                        });
                    }
                    render_dump(&mut out, &view, &[], &dump).map_err(stdout_error)?;
                }
            }
        }
        shown += 1;
    }
    if args.format == FormatArg::Json {
        render::json::write_document(&mut out, &collected).map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)?;
    if shown == 0 {
        return Err(Error::Usage(format!(
            "{}: no blocks to show (--blocks outside the trace's blocks)",
            name.display()
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// A text-only block as a two-column table: every field the text carries,
/// by its path (`header.itls[0].kxidusn`); absent parts print `-`.
fn text_table(out: &mut dyn Write, v: &Value) -> io::Result<()> {
    fn walk(path: &str, v: &Value, rows: &mut Vec<(String, String)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(&p, x, rows);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(&format!("{path}[{i}]"), x, rows);
                }
            }
            Value::Null => rows.push((path.to_string(), "-".into())),
            Value::String(s) => rows.push((path.to_string(), s.clone())),
            other => rows.push((path.to_string(), other.to_string())),
        }
    }
    let mut rows = Vec::new();
    walk("", v, &mut rows);
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    t.set_header(vec!["field (from the trace text)", "value"]);
    for (k, x) in rows {
        t.add_row(vec![k, x]);
    }
    writeln!(out, "{t}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_lists() {
        assert_eq!(parse_bytes("c2 4a 46").unwrap(), vec![0xc2, 0x4a, 0x46]);
        assert_eq!(parse_bytes("c24a46").unwrap(), vec![0xc2, 0x4a, 0x46]);
        assert_eq!(
            parse_bytes("0xc2,0x4a,0x46").unwrap(),
            vec![0xc2, 0x4a, 0x46]
        );
        assert_eq!(
            parse_bytes("Typ=2 Len=3: c2,4a,46").unwrap(),
            vec![0xc2, 0x4a, 0x46]
        );
        assert_eq!(
            parse_bytes("Typ=12 Len=7: 120,110,2,12,1,1,1").unwrap(),
            vec![120, 110, 2, 12, 1, 1, 1]
        );
        assert!(parse_bytes("zz").is_err());
        assert!(parse_bytes("c2 4").is_ok());
        assert!(parse_bytes("").is_err());
        assert!(parse_bytes("c24").is_err());
    }

    #[test]
    fn addresses() {
        assert_eq!(parse_address("0x7f140f335310"), Ok(0x7f14_0f33_5310));
        assert_eq!(parse_address("100"), Ok(100));
        assert!(parse_address("x").is_err());
    }
}
