//! JSON for Oracle blocks: the model's structures under Oracle's own names
//! (`kcbh.type_kcbh`, `ktbbh.ktbbhitl[0].kxidusn`, `table.kdbh.kdbhnrow` …) with
//! numbers as JSON numbers, plus — beside each raw value — the form Oracle's
//! dump prints (`"xid": "0x0007.01d.000001d0"`, `"fb": "--H-FL--"`).
//!
//! Each structure is a type: the model's fields (flattened, in the model's
//! order) followed by the printed forms, so the contract is checked by the
//! compiler rather than patched into a JSON value by key.

use serde::Serialize;

use crate::model::oracle::names;
use crate::model::oracle::space::{SpaceBody, Undecoded};
use crate::model::oracle::text::{scn_fsc_text, uba_text, xid_text};
use crate::model::oracle::{
    ByteOrder, FileHeader, IndexData, IndexEntry, Itl, Kcbh, Kdbh, KdbrEntry, Kdbt, Kdxbr, Kdxco,
    Kdxle, Ktbbh, KtbbhExtension, OracleBlock, OracleChecksum, OracleKind, OsHeader, Rdba,
    RowPiece, Scn, TableData, TextBlock,
};
use crate::model::page::TraceOrigin;
use crate::model::Problem;

/// One block: `{"engine": "oracle", "blkno": …, "kind": …, "kcbh": {…}, …}`;
/// from a trace, `trace` and `text` follow.
#[derive(Serialize)]
pub(crate) struct OracleBlockJson<'a> {
    engine: &'static str,
    blkno: u64,
    size: usize,
    endian: ByteOrder,
    kind: OracleKind,
    encrypted: bool,
    kcbh: Option<KcbhJson<'a>>,
    tailchk: Option<u32>,
    checksum: &'a Option<OracleChecksum>,
    os_header: &'a Option<OsHeader>,
    file_header: Option<&'a FileHeader>,
    ktbbh: Option<KtbbhJson<'a>>,
    table: Option<TableJson<'a>>,
    index: Option<IndexJson<'a>>,
    /// Segment header or bitmap block body (from a trace's text).
    #[serde(skip_serializing_if = "Option::is_none")]
    space: Option<&'a SpaceBody>,
    /// A body not decoded: where, why, and its bytes as hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    undecoded: Option<&'a Undecoded>,
    problems: &'a [Problem],
    #[serde(skip_serializing_if = "Option::is_none")]
    trace: Option<TraceJson>,
    /// The trace's formatted text of the block (`null` when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<Option<&'a TextBlock>>,
}

/// A block known only from a trace's formatted text.
#[derive(Serialize)]
pub(crate) struct TraceTextJson<'a> {
    engine: &'static str,
    source: &'static str,
    trace: Option<TraceJson>,
    text: &'a TextBlock,
    /// What the text says against itself (absent when nothing).
    #[serde(skip_serializing_if = "<[Problem]>::is_empty")]
    problems: &'a [Problem],
}

/// Where in the trace a block was found.
#[derive(Serialize)]
pub(crate) struct TraceJson {
    file: Option<u32>,
    block: Option<u32>,
    tsn: Option<u32>,
    line: usize,
    hex_line: Option<usize>,
    /// `0x7F140F335000`.
    hex_address: Option<String>,
    /// Whether the tail confirmed the byte order (`null` without hex).
    endian_confirmed: Option<bool>,
    /// `cache` or `disk` when the trace holds both copies of the block.
    #[serde(skip_serializing_if = "Option::is_none")]
    copy: Option<&'static str>,
}

impl TraceJson {
    fn new(t: &TraceOrigin) -> TraceJson {
        TraceJson {
            file: t.file,
            block: t.block,
            tsn: t.tsn,
            line: t.line,
            hex_line: t.hex_line,
            hex_address: t.hex_address.map(|a| format!("0x{a:X}")),
            endian_confirmed: t.hex_line.map(|_| t.endian_confirmed),
            copy: t.copy.map(|c| c.as_str()),
        }
    }
}

impl<'a> TraceTextJson<'a> {
    pub(crate) fn new(
        text: &'a TextBlock,
        problems: &'a [Problem],
        trace: Option<&TraceOrigin>,
    ) -> Self {
        TraceTextJson {
            engine: "oracle",
            source: "trace-text",
            trace: trace.map(TraceJson::new),
            text,
            problems,
        }
    }
}

#[derive(Serialize)]
struct KcbhJson<'a> {
    #[serde(flatten)]
    raw: &'a Kcbh,
    type_name: &'static str,
    block_size: Option<usize>,
    rdba: RdbaJson,
    scn: u64,
    flg_names: Vec<&'static str>,
}

#[derive(Serialize)]
struct RdbaJson {
    hex: String,
    file: u32,
    block: u32,
}

#[derive(Serialize)]
struct KtbbhJson<'a> {
    ktbbhtyp: u8,
    ktbbhsid: u32,
    ktbbhcsc: &'a Scn,
    ktbbhict: u8,
    ktbbhflg: u8,
    ktbbhfsl: u8,
    ktbbhfnx: u32,
    ktbbhitl: Vec<ItlJson<'a>>,
    extension: &'a Option<KtbbhExtension>,
    payload_offset: usize,
    /// `E` (ASSM), `O` (on a freelist) or `-`.
    flg: String,
    csc: u64,
}

#[derive(Serialize)]
struct ItlJson<'a> {
    #[serde(flatten)]
    raw: &'a Itl,
    xid: String,
    uba: String,
    flag: String,
    lck: u16,
    scn_fsc: String,
}

#[derive(Serialize)]
struct TableJson<'a> {
    kdbh: &'a Kdbh,
    kdbt: &'a [Kdbt],
    kdbr: &'a [KdbrEntry],
    rows: Vec<RowJson<'a>>,
}

#[derive(Serialize)]
struct RowJson<'a> {
    #[serde(flatten)]
    raw: &'a RowPiece,
    /// `--H-FL--`.
    fb: String,
}

#[derive(Serialize)]
struct IndexJson<'a> {
    kdxco: &'a Kdxco,
    kdxle: &'a Option<Kdxle>,
    kdxbr: &'a Option<Kdxbr>,
    kd_off_head: [u16; 2],
    kd_off: &'a [u16],
    entries: Vec<IndexEntryJson<'a>>,
}

#[derive(Serialize)]
struct IndexEntryJson<'a> {
    #[serde(flatten)]
    raw: &'a IndexEntry,
    #[serde(skip_serializing_if = "Option::is_none")]
    flag_string: Option<String>,
}

impl<'a> OracleBlockJson<'a> {
    /// The JSON of `block`; `bigfile` prints rdbas as `1024/N`; `trace` adds
    /// where in a trace the block was found.
    pub(crate) fn new(
        block: &'a OracleBlock,
        bigfile: bool,
        trace: Option<&'a TraceOrigin>,
    ) -> Self {
        OracleBlockJson {
            engine: "oracle",
            blkno: block.blkno,
            size: block.size,
            endian: block.endian,
            kind: block.kind,
            encrypted: block.encrypted,
            kcbh: block.kcbh.as_ref().map(|h| kcbh(h, bigfile)),
            tailchk: block.tailchk,
            checksum: &block.checksum,
            os_header: &block.os_header,
            file_header: block.file_header.as_deref(),
            ktbbh: block.ktbbh.as_ref().map(ktbbh),
            table: block.table.as_ref().map(table),
            index: block.index.as_ref().map(index),
            space: block.space.as_deref(),
            undecoded: block.undecoded.as_deref(),
            problems: &block.problems,
            trace: trace.map(TraceJson::new),
            text: trace.map(|t| t.text.as_ref()),
        }
    }
}

/// One block as a JSON value, `{"engine": "oracle", "blkno": …, "kind": …,
/// "kcbh": {…}, …}` (the value of `OracleBlockJson`, for callers that
/// inspect it by key).
pub fn block_json(block: &OracleBlock, bigfile: bool) -> serde_json::Value {
    serde_json::to_value(OracleBlockJson::new(block, bigfile, None))
        .unwrap_or(serde_json::Value::Null)
}

fn kcbh(h: &Kcbh, bigfile: bool) -> KcbhJson<'_> {
    let (file, block) = Rdba(h.rdba_kcbh).split(bigfile);
    KcbhJson {
        raw: h,
        type_name: names::block_type_name(h.type_kcbh).unwrap_or("unknown"),
        block_size: h.block_size(),
        rdba: RdbaJson {
            hex: format!("0x{:08x}", h.rdba_kcbh),
            file,
            block,
        },
        scn: h.scn().value(),
        flg_names: names::kcbh_flag_names(h.flg_kcbh).0,
    }
}

fn ktbbh(t: &Ktbbh) -> KtbbhJson<'_> {
    KtbbhJson {
        ktbbhtyp: t.ktbbhtyp,
        ktbbhsid: t.ktbbhsid,
        ktbbhcsc: &t.ktbbhcsc,
        ktbbhict: t.ktbbhict,
        ktbbhflg: t.ktbbhflg,
        ktbbhfsl: t.ktbbhfsl,
        ktbbhfnx: t.ktbbhfnx,
        ktbbhitl: t
            .ktbbhitl
            .iter()
            .map(|itl| ItlJson {
                raw: itl,
                xid: xid_text(itl),
                uba: uba_text(itl),
                flag: names::itl_flag_string(itl.ktbitflg),
                lck: itl.lock_count(),
                scn_fsc: scn_fsc_text(itl),
            })
            .collect(),
        extension: &t.extension,
        payload_offset: t.payload_offset,
        flg: names::ktbbh_flag_letter(t.ktbbhflg).to_string(),
        csc: t.ktbbhcsc.value(),
    }
}

fn table(t: &TableData) -> TableJson<'_> {
    TableJson {
        kdbh: &t.kdbh,
        kdbt: &t.kdbt,
        kdbr: &t.kdbr,
        rows: t
            .rows
            .iter()
            .map(|row| RowJson {
                raw: row,
                fb: names::row_flag_string(row.flag),
            })
            .collect(),
    }
}

fn index(ix: &IndexData) -> IndexJson<'_> {
    IndexJson {
        kdxco: &ix.kdxco,
        kdxle: &ix.kdxle,
        kdxbr: &ix.kdxbr,
        kd_off_head: ix.kd_off_head,
        kd_off: &ix.kd_off,
        entries: ix
            .entries
            .iter()
            .map(|e| IndexEntryJson {
                raw: e,
                flag_string: e.flag.map(names::index_flag_string),
            })
            .collect(),
    }
}
