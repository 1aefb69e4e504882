//! Cross-check of a trace: the structures decoded from the rebuilt bytes
//! against those parsed from the formatted text. Every field the text carries
//! is compared; each disagreement is a [`Problem`] of class `crosscheck`
//! naming the trace line, the field and both values. A trace edited by hand or
//! damaged in transit shows up here.

use std::fmt::Display;

use crate::model::oracle::space::SpaceBody;
use crate::model::oracle::{OracleBlock, Rdba, TextBlock, KCBH_SIZE};
use crate::model::{Problem, ProblemClass, Severity};

use super::super::ktb::ITL_OFFSET;
use crate::model::oracle::names;

/// The problem class of every disagreement.
pub(crate) const CLASS: ProblemClass = ProblemClass::Crosscheck;

struct Diffs {
    out: Vec<Problem>,
}

impl Diffs {
    fn note(&mut self, line: usize, offset: Option<usize>, field: &str, message: String) {
        self.out.push(Problem::new(
            Severity::Error,
            CLASS,
            offset,
            field,
            format!("trace line {line}: {message}"),
        ));
    }

    /// Record `field` when the text's value differs from the bytes'.
    fn eq<T: PartialEq + Display>(
        &mut self,
        line: usize,
        offset: Option<usize>,
        field: &str,
        text: T,
        bytes: T,
    ) {
        if text != bytes {
            self.note(
                line,
                offset,
                field,
                format!("the text says {field} {text}, the bytes say {bytes}"),
            );
        }
    }
}

fn dec<T: Display>(v: T) -> String {
    v.to_string()
}

fn hex<T: std::fmt::LowerHex>(v: T) -> String {
    format!("0x{v:x}")
}

/// Compare the block decoded from bytes with the block the text describes.
pub fn compare(raw: &OracleBlock, text: &TextBlock) -> Vec<Problem> {
    let mut d = Diffs { out: Vec::new() };
    if text.encrypted != raw.encrypted {
        d.eq(
            text.line,
            Some(15),
            "encrypted",
            text.encrypted,
            raw.encrypted,
        );
    }
    if let Some(c) = &text.cache {
        match &raw.kcbh {
            None => d.note(
                c.line,
                Some(0),
                "kcbh",
                "the text has a cache header, the bytes have none".into(),
            ),
            Some(h) => {
                d.eq(
                    c.line,
                    Some(4),
                    "kcbh.rdba_kcbh",
                    hex(c.rdba),
                    hex(h.rdba_kcbh),
                );
                let (f, b) = Rdba(h.rdba_kcbh).split(c.rdba_file == 1024);
                d.eq(
                    c.line,
                    Some(4),
                    "rdba (file/block)",
                    format!("{}/{}", c.rdba_file, c.rdba_block),
                    format!("{f}/{b}"),
                );
                d.eq(
                    c.scn_line,
                    Some(8),
                    "kcbh scn",
                    hex(c.scn),
                    hex(h.scn().value()),
                );
                d.eq(
                    c.scn_line,
                    Some(14),
                    "kcbh.seq_kcbh",
                    hex(c.seq),
                    hex(h.seq_kcbh),
                );
                d.eq(
                    c.scn_line,
                    Some(15),
                    "kcbh.flg_kcbh",
                    hex(c.flg),
                    hex(h.flg_kcbh),
                );
                if let Some(tail) = raw.tailchk {
                    d.eq(
                        c.scn_line,
                        Some(raw.size.saturating_sub(4)),
                        "tailchk",
                        hex(c.tail),
                        hex(tail),
                    );
                }
                d.eq(
                    c.frmt_line,
                    Some(1),
                    "kcbh.frmt_kcbh (low nibble)",
                    hex(c.frmt),
                    hex(h.frmt_kcbh & 0x0f),
                );
                d.eq(
                    c.frmt_line,
                    Some(16),
                    "kcbh.chkval_kcbh",
                    hex(c.chkval),
                    hex(h.chkval_kcbh),
                );
                d.eq(
                    c.frmt_line,
                    Some(0),
                    "kcbh.type_kcbh",
                    hex(c.type_kcbh),
                    hex(h.type_kcbh),
                );
            }
        }
    }
    if let Some(th) = &text.header {
        header(&mut d, raw, th);
    }
    if let Some(td) = &text.data {
        data(&mut d, raw, td);
    }
    if let Some(ts) = &text.space {
        file_space_header(&mut d, raw, ts.line, &ts.value);
        undo_block(&mut d, raw, ts.line, &ts.value);
    }
    d.out
}

/// The `Header Control:` fields of a KTFB file space header (type 0x1d), the
/// only space body read from bytes.
fn file_space_header(d: &mut Diffs, raw: &OracleBlock, line: usize, text: &SpaceBody) {
    let (SpaceBody::FileSpaceHeader(t), Some(SpaceBody::FileSpaceHeader(b))) =
        (text, raw.space.as_deref())
    else {
        return;
    };
    let pairs = [
        t.relfno,
        t.unit,
        t.size,
        t.flag,
        t.increment,
        t.maxsize,
        t.initial_area,
        t.tail,
        t.first,
        t.free,
    ]
    .into_iter()
    .zip([
        b.relfno,
        b.unit,
        b.size,
        b.flag,
        b.increment,
        b.maxsize,
        b.initial_area,
        b.tail,
        b.first,
        b.free,
    ]);
    for ((tv, bv), (field, at)) in pairs.zip(crate::parse::oracle::ktfb::FIELDS) {
        d.eq(line, Some(at), field, dec(tv), dec(bv));
    }
    if let (Some(ta), Some(ba)) = (t.autoextend, b.autoextend) {
        d.eq(line, Some(36), "ktfbh.AutoExtend", ta, ba);
    }
}

/// The `UNDO BLK:` header and the `Rec Offset` directory of an undo block
/// (type 0x02), read from bytes at BBED's `ktubh` offsets.
fn undo_block(d: &mut Diffs, raw: &OracleBlock, line: usize, text: &SpaceBody) {
    use crate::parse::oracle::ktu::{FIELDS, KTUBHIDX};
    let (SpaceBody::UndoBlock(t), Some(SpaceBody::UndoBlock(b))) = (text, raw.space.as_deref())
    else {
        return;
    };
    d.eq(line, Some(FIELDS[0].1), "ktubh.ktubhxid", &t.xid, &b.xid);
    for ((tv, bv), (field, at)) in [t.seq, t.cnt, t.irb, t.icl, t.flg]
        .into_iter()
        .zip([b.seq, b.cnt, b.irb, b.icl, b.flg])
        .zip(FIELDS[3..].iter().copied())
    {
        d.eq(line, Some(at), field, hex(tv), hex(bv));
    }
    for (i, (tv, bv)) in t.offsets.iter().zip(&b.offsets).enumerate() {
        d.eq(
            line,
            Some(KTUBHIDX + 2 * (i + 1)),
            &format!("ktubh.ktubhidx[{}]", i + 1),
            format!("0x{:02x} 0x{:04x}", tv.0, tv.1),
            format!("0x{:02x} 0x{:04x}", bv.0, bv.1),
        );
    }
}

fn header(d: &mut Diffs, raw: &OracleBlock, th: &crate::model::oracle::TextHeader) {
    let Some(t) = &raw.ktbbh else {
        d.note(
            th.line,
            Some(KCBH_SIZE),
            "ktbbh",
            "the text has a transaction header, the bytes have none".into(),
        );
        return;
    };
    if let Some(h) = &raw.kcbh {
        d.eq(
            th.line,
            Some(4),
            "Block header dump rdba",
            hex(th.rdba),
            hex(h.rdba_kcbh),
        );
    }
    let l = th.seg_line;
    d.eq(
        l,
        Some(24),
        "ktbbh.ktbbhsid",
        hex(th.seg_obj),
        hex(t.ktbbhsid),
    );
    d.eq(
        l,
        Some(28),
        "ktbbh.ktbbhcsc",
        hex(th.csc),
        hex(t.ktbbhcsc.value()),
    );
    d.eq(l, Some(36), "ktbbh.ktbbhict", th.itc, t.ktbbhict);
    d.eq(
        l,
        Some(38),
        "ktbbh.ktbbhflg",
        th.flg,
        names::ktbbh_flag_letter(t.ktbbhflg),
    );
    d.eq(l, Some(20), "ktbbh.ktbbhtyp", th.typ, t.ktbbhtyp);
    if let Some(bl) = th.brn_line {
        if let Some(assm) = th.assm {
            d.eq(bl, Some(38), "ASSM (brn/bdba form)", assm, t.is_assm());
        }
        if let Some(fsl) = th.fsl {
            d.eq(bl, Some(39), "ktbbh.ktbbhfsl", fsl, t.ktbbhfsl);
        }
        if let Some(fnx) = th.fnx {
            d.eq(bl, Some(40), "ktbbh.ktbbhfnx", hex(fnx), hex(t.ktbbhfnx));
        }
    }
    if let (Some(e), Some(re)) = (&th.extension, &t.extension) {
        d.eq(e.line, None, "inc", e.value.inc, re.inc);
        d.eq(e.line, None, "exflg", e.value.exflg, re.exflg);
    }
    d.eq(
        th.line,
        Some(ITL_OFFSET),
        "ITL entries printed",
        th.itls.len(),
        t.ktbbhitl.len(),
    );
    for (ti, ri) in th.itls.iter().zip(&t.ktbbhitl) {
        let (a, b) = (&ti.value, ri);
        let off = Some(ITL_OFFSET + 24 * b.itl.saturating_sub(1));
        let n = ti.line;
        let f = |name: &str| format!("itl[{}].{name}", b.itl);
        d.eq(n, off, &f("itl"), a.itl, b.itl);
        d.eq(n, off, &f("kxidusn"), hex(a.kxidusn), hex(b.kxidusn));
        d.eq(n, off, &f("kxidslt"), hex(a.kxidslt), hex(b.kxidslt));
        d.eq(n, off, &f("kxidsqn"), hex(a.kxidsqn), hex(b.kxidsqn));
        d.eq(n, off, &f("kubadba"), hex(a.kubadba), hex(b.kubadba));
        d.eq(n, off, &f("kubaseq"), hex(a.kubaseq), hex(b.kubaseq));
        d.eq(n, off, &f("kubarec"), hex(a.kubarec), hex(b.kubarec));
        d.eq(n, off, &f("ktbitflg"), hex(a.ktbitflg), hex(b.ktbitflg));
        d.eq(n, off, &f("ktbitun"), hex(a.ktbitun), hex(b.ktbitun));
        d.eq(n, off, &f("ktbitbas"), hex(a.ktbitbas), hex(b.ktbitbas));
    }
}

fn data(d: &mut Diffs, raw: &OracleBlock, td: &crate::model::oracle::TextData) {
    let Some(tab) = &raw.table else {
        d.note(
            td.line,
            None,
            "kdbh",
            "the text has a table data layer, the bytes have none".into(),
        );
        return;
    };
    let k = &tab.kdbh;
    let o = k.offset;
    macro_rules! field {
        ($text:expr, $name:literal, $rel:expr, $raw:expr, $fmt:expr) => {
            if let Some(at) = &$text {
                d.eq(at.line, Some(o + $rel), $name, $fmt(at.value), $fmt($raw));
            }
        };
    }
    if let (Some(b), Some(h)) = (&td.bdba, &raw.kcbh) {
        d.eq(b.line, Some(4), "bdba", hex(b.value), hex(h.rdba_kcbh));
    }
    field!(td.tsiz, "tsiz", 0, k.tsiz, dec);
    field!(td.hsiz, "hsiz", 0, k.hsiz, dec);
    field!(
        td.kdbhflag,
        "kdbh.kdbhflag",
        0,
        k.kdbhflag,
        names::kdbh_flag_string
    );
    field!(td.kdbhntab, "kdbh.kdbhntab", 1, k.kdbhntab, dec);
    field!(td.kdbhnrow, "kdbh.kdbhnrow", 2, k.kdbhnrow, dec);
    field!(td.kdbhfrre, "kdbh.kdbhfrre", 4, k.kdbhfrre, dec);
    field!(td.kdbhfsbo, "kdbh.kdbhfsbo", 6, k.kdbhfsbo, hex);
    field!(td.kdbhfseo, "kdbh.kdbhfseo", 8, k.kdbhfseo, hex);
    field!(td.kdbhavsp, "kdbh.kdbhavsp", 10, k.kdbhavsp as u16, hex);
    field!(td.kdbhtosp, "kdbh.kdbhtosp", 12, k.kdbhtosp as u16, hex);
    // pbl - data header address is the buffer's address: both lines agree.
    if let Some(p) = &td.pbl {
        d.eq(
            p.line,
            None,
            "pbl (data header address)",
            hex(p.value),
            hex(td.header_address),
        );
    }
    // The 9iR2 compression header of a compressed block.
    if let (Some(a), Some(b)) = (&td.kdbh9ir2, &k.kdbh9ir2) {
        let at = Some(o + 14);
        d.eq(
            a.line,
            at.map(|x| x + 7),
            "flag_9ir2",
            names::flag_9ir2_string(a.value.flag_9ir2),
            names::flag_9ir2_string(b.flag_9ir2),
        );
        d.eq(
            a.line,
            at.map(|x| x + 8),
            "fcls_9ir2",
            format!("{:?}", a.value.fcls_9ir2),
            format!("{:?}", b.fcls_9ir2),
        );
        d.eq(
            a.line,
            at.map(|x| x + 8 + 2 * b.fcls_9ir2.len()),
            "perm_9ir2",
            format!("{:?}", a.value.perm_9ir2),
            format!("{:?}", b.perm_9ir2),
        );
    } else {
        d.eq(
            td.line,
            Some(o + 14),
            "9iR2 compression header",
            td.kdbh9ir2.is_some(),
            k.kdbh9ir2.is_some(),
        );
    }
    let hs = k.header_size();
    d.eq(td.line, Some(o), "pti lines", td.kdbt.len(), tab.kdbt.len());
    for (a, b) in td.kdbt.iter().zip(&tab.kdbt) {
        let off = Some(o + hs + 4 * b.table);
        d.eq(a.line, off, "kdbt table", a.value.table, b.table);
        d.eq(a.line, off, "kdbt.kdbtnrow", a.value.kdbtnrow, b.kdbtnrow);
        d.eq(a.line, off, "kdbt.kdbtoffs", a.value.kdbtoffs, b.kdbtoffs);
    }
    let dir = o + hs + 4 * tab.kdbt.len();
    d.eq(
        td.line,
        Some(dir),
        "pri lines",
        td.kdbr.len(),
        tab.kdbr.len(),
    );
    for (a, b) in td.kdbr.iter().zip(&tab.kdbr) {
        let off = Some(dir + 2 * b.slot);
        let f = format!("kdbr[{}]", b.slot);
        d.eq(a.line, off, &f, a.value.slot, b.slot);
        d.eq(a.line, off, &f, hex(a.value.kdbr), hex(b.kdbr));
        d.eq(a.line, off, &format!("{f} free"), a.value.free, b.free);
    }
    d.eq(td.line, None, "rows printed", td.rows.len(), tab.rows.len());
    for (a, b) in td.rows.iter().zip(&tab.rows) {
        let off = Some(b.offset);
        let f = |name: &str| format!("tab {}, row {} {name}", b.tab, b.row);
        d.eq(a.line, off, &f("tab"), a.tab, b.tab);
        d.eq(a.line, off, &f("row"), a.row, b.row);
        d.eq(a.line, off, &f("offset"), hex(a.offs), hex(b.offs));
        let tl = a.tl_line.unwrap_or(a.line);
        if let Some(v) = a.tl {
            d.eq(tl, off, &f("tl"), v, b.tl);
        }
        if let Some(v) = a.flag {
            d.eq(
                tl,
                off,
                &f("fb"),
                names::row_flag_string(v),
                names::row_flag_string(b.flag),
            );
        }
        if let Some(v) = a.lb {
            d.eq(tl, off.map(|x| x + 1), &f("lb"), hex(v), hex(b.lb));
        }
        let cc = |c: Option<u8>| c.map_or("none".to_string(), |c| c.to_string());
        if a.tl.is_some() {
            d.eq(tl, off.map(|x| x + 2), &f("cc"), cc(a.cc), cc(b.cc));
        }
        let rid = |r: Option<crate::model::oracle::RowRef>| {
            r.map_or("none".to_string(), |r| {
                format!("0x{:08x}.{:x}", r.dba, r.slot)
            })
        };
        if let Some(h) = &a.hrid {
            d.eq(h.line, off, &f("hrid"), rid(Some(h.value)), rid(b.hrid));
        }
        if let Some(n) = &a.nrid {
            d.eq(n.line, off, &f("nrid"), rid(Some(n.value)), rid(b.nrid));
        }
        if let (Some(x), Some(y)) = (&a.bindmp, &b.bindmp) {
            d.eq(
                a.line,
                off,
                &f("bindmp"),
                crate::model::oracle::hex_string(x),
                crate::model::oracle::hex_string(y),
            );
        }
        d.eq(
            a.line,
            off,
            &f("columns printed"),
            a.cols.len(),
            b.cols.len(),
        );
        for (ac, bc) in a.cols.iter().zip(&b.cols) {
            let name = f(&format!("col {}", bc.col));
            let len = |l: Option<usize>| l.map_or("NULL".to_string(), |l| l.to_string());
            d.eq(
                ac.line,
                Some(bc.offset),
                &format!("{name} length"),
                len(ac.len),
                len(bc.len),
            );
            if ac.data != bc.data && ac.len == bc.len {
                d.note(
                    ac.line,
                    Some(bc.offset),
                    &name,
                    format!(
                        "the text says {name} is {}, the bytes say {}",
                        crate::model::oracle::hex_string(&ac.data),
                        crate::model::oracle::hex_string(&bc.data)
                    ),
                );
            }
        }
    }
}

/// What one copy of a block says, from its bytes or from its text; `None`
/// where that copy does not say.
struct CopyFacts<'a> {
    line: usize,
    scn: Option<u64>,
    seq: Option<u8>,
    flg: Option<u8>,
    chkval: Option<u16>,
    tail: Option<u32>,
    type_kcbh: Option<u8>,
    itls: Option<Vec<crate::model::oracle::Itl>>,
    kdbh: [(&'static str, usize, Option<i64>); 6],
    rows: Option<usize>,
    bytes: Option<&'a [u8]>,
}

impl<'a> CopyFacts<'a> {
    fn of(b: &'a super::TraceBlock) -> CopyFacts<'a> {
        let line = b.line;
        if let Some(bytes) = &b.bytes {
            let raw = super::super::parse_block(
                bytes,
                &super::super::BlockOptions {
                    blkno: u64::from(b.block.unwrap_or(0)),
                    endian: b.endian,
                },
            );
            let k = raw.kcbh.as_ref();
            let t = raw.table.as_ref().map(|t| &t.kdbh);
            let i = |v: Option<i64>| v;
            CopyFacts {
                line,
                scn: k.map(|k| k.scn().value()),
                seq: k.map(|k| k.seq_kcbh),
                flg: k.map(|k| k.flg_kcbh),
                chkval: k.map(|k| k.chkval_kcbh),
                tail: raw.tailchk,
                type_kcbh: k.map(|k| k.type_kcbh),
                itls: raw.ktbbh.as_ref().map(|t| t.ktbbhitl.clone()),
                kdbh: [
                    ("kdbh.kdbhnrow", 2, i(t.map(|t| i64::from(t.kdbhnrow)))),
                    ("kdbh.kdbhfrre", 4, i(t.map(|t| i64::from(t.kdbhfrre)))),
                    ("kdbh.kdbhfsbo", 6, i(t.map(|t| i64::from(t.kdbhfsbo)))),
                    ("kdbh.kdbhfseo", 8, i(t.map(|t| i64::from(t.kdbhfseo)))),
                    ("kdbh.kdbhavsp", 10, i(t.map(|t| i64::from(t.kdbhavsp)))),
                    ("kdbh.kdbhtosp", 12, i(t.map(|t| i64::from(t.kdbhtosp)))),
                ],
                rows: raw.table.as_ref().map(|t| t.rows.len()),
                bytes: Some(bytes),
            }
        } else {
            let t = b.text.as_ref();
            let c = t.and_then(|t| t.cache.as_ref());
            let d = t.and_then(|t| t.data.as_ref());
            let v = |f: fn(&TextData) -> Option<i64>| d.and_then(f);
            CopyFacts {
                line,
                scn: c.map(|c| c.scn),
                seq: c.map(|c| c.seq),
                flg: c.map(|c| c.flg),
                chkval: c.map(|c| c.chkval),
                tail: c.map(|c| c.tail),
                type_kcbh: c.map(|c| c.type_kcbh),
                itls: t
                    .and_then(|t| t.header.as_ref())
                    .map(|h| h.itls.iter().map(|i| i.value.clone()).collect()),
                kdbh: [
                    (
                        "kdbh.kdbhnrow",
                        2,
                        v(|d| d.kdbhnrow.map(|a| a.value.into())),
                    ),
                    (
                        "kdbh.kdbhfrre",
                        4,
                        v(|d| d.kdbhfrre.map(|a| a.value.into())),
                    ),
                    (
                        "kdbh.kdbhfsbo",
                        6,
                        v(|d| d.kdbhfsbo.map(|a| a.value.into())),
                    ),
                    (
                        "kdbh.kdbhfseo",
                        8,
                        v(|d| d.kdbhfseo.map(|a| a.value.into())),
                    ),
                    (
                        "kdbh.kdbhavsp",
                        10,
                        v(|d| d.kdbhavsp.map(|a| a.value.into())),
                    ),
                    (
                        "kdbh.kdbhtosp",
                        12,
                        v(|d| d.kdbhtosp.map(|a| a.value.into())),
                    ),
                ],
                rows: d.filter(|d| d.complete).map(|d| d.rows.len()),
                bytes: None,
            }
        }
    }
}

use crate::model::oracle::TextData;

/// The most byte ranges named one by one for a pair of copies.
const MAX_RANGES: usize = 16;

/// The cache and disk copies of the same block in one trace
/// (`Block dump from cache:` / `Block dump from disk:`, which Oracle writes
/// both of when the block is in the buffer cache) compared field by field:
/// the cache header (scn, seq, flg, chkval, tail, type), the ITL entries,
/// the data header and the rows printed, and where both copies carry hex,
/// the byte ranges that differ. The result has one list per block of
/// `blocks`; each difference is on the disk copy, naming both lines.
///
/// A cache copy newer than the disk copy (a higher scn, or the same scn and
/// a higher seq) is a buffer whose changes are not yet written: warnings.
/// The same version differing, or a disk copy newer than the buffer, is
/// damage: errors.
pub fn compare_copies(blocks: &[super::TraceBlock]) -> Vec<Vec<Problem>> {
    use super::buffer::BlockCopy;
    let mut out = vec![Vec::new(); blocks.len()];
    let id = |b: &super::TraceBlock| b.block.map(|n| (b.file, n));
    for (i, disk) in blocks.iter().enumerate() {
        if disk.copy != Some(BlockCopy::Disk) || id(disk).is_none() {
            continue;
        }
        let cache = blocks[..i]
            .iter()
            .rev()
            .find(|c| c.copy == Some(BlockCopy::Cache) && id(c) == id(disk));
        if let (Some(cache), Some(slot)) = (cache, out.get_mut(i)) {
            *slot = copies(&CopyFacts::of(cache), &CopyFacts::of(disk));
        }
    }
    out
}

/// What [`compare_copies`] finds for one disk copy and the cache copy it
/// is compared with (the last cache copy of the same block before it).
pub(crate) fn compare_pair(cache: &super::TraceBlock, disk: &super::TraceBlock) -> Vec<Problem> {
    copies(&CopyFacts::of(cache), &CopyFacts::of(disk))
}

fn copies(c: &CopyFacts<'_>, d: &CopyFacts<'_>) -> Vec<Problem> {
    let newer = match (c.scn, d.scn) {
        (Some(a), Some(b)) => a > b || (a == b && c.seq > d.seq),
        _ => false,
    };
    let severity = if newer {
        Severity::Warning
    } else {
        Severity::Error
    };
    let why = if newer {
        "the buffer holds changes not yet written to disk"
    } else {
        "the same version of the block differs (or the disk copy is newer than the buffer)"
    };
    let mut out = Vec::new();
    let mut note = |offset: Option<usize>, field: &str, cv: String, dv: String| {
        out.push(Problem::new(
            severity,
            CLASS,
            offset,
            field,
            format!(
                "trace lines {} and {}: the cache copy says {field} {cv}, the disk copy says \
                 {dv} ({why})",
                c.line, d.line
            ),
        ));
    };
    fn both<'x, T: PartialEq>(a: &'x Option<T>, b: &'x Option<T>) -> Option<(&'x T, &'x T)> {
        match (a, b) {
            (Some(a), Some(b)) if a != b => Some((a, b)),
            _ => None,
        }
    }
    if let Some((a, b)) = both(&c.scn, &d.scn) {
        note(Some(8), "kcbh scn", hex(*a), hex(*b));
    }
    if let Some((a, b)) = both(&c.seq, &d.seq) {
        note(Some(14), "kcbh.seq_kcbh", hex(*a), hex(*b));
    }
    if let Some((a, b)) = both(&c.flg, &d.flg) {
        note(Some(15), "kcbh.flg_kcbh", hex(*a), hex(*b));
    }
    if let Some((a, b)) = both(&c.chkval, &d.chkval) {
        note(Some(16), "kcbh.chkval_kcbh", hex(*a), hex(*b));
    }
    if let Some((a, b)) = both(&c.tail, &d.tail) {
        note(None, "tailchk", hex(*a), hex(*b));
    }
    if let Some((a, b)) = both(&c.type_kcbh, &d.type_kcbh) {
        note(Some(0), "kcbh.type_kcbh", hex(*a), hex(*b));
    }
    if let (Some(a), Some(b)) = (&c.itls, &d.itls) {
        if a.len() != b.len() {
            note(
                Some(ITL_OFFSET),
                "ITL entries",
                a.len().to_string(),
                b.len().to_string(),
            );
        }
        for (x, y) in a.iter().zip(b) {
            if x != y {
                use crate::model::oracle::text::{scn_fsc_text, uba_text, xid_text};
                let show = |i: &crate::model::oracle::Itl| {
                    format!(
                        "xid {} uba {} flag {} lck {} {}",
                        xid_text(i),
                        uba_text(i),
                        names::itl_flag_string(i.ktbitflg),
                        i.lock_count(),
                        scn_fsc_text(i)
                    )
                };
                note(
                    Some(ITL_OFFSET + 24 * x.itl.saturating_sub(1)),
                    &format!("itl[{}]", x.itl),
                    show(x),
                    show(y),
                );
            }
        }
    }
    for ((name, _, a), (_, _, b)) in c.kdbh.iter().zip(&d.kdbh) {
        if let Some((a, b)) = both(a, b) {
            note(None, name, a.to_string(), b.to_string());
        }
    }
    if let Some((a, b)) = both(&c.rows, &d.rows) {
        note(None, "rows printed", a.to_string(), b.to_string());
    }
    if let (Some(a), Some(b)) = (c.bytes, d.bytes) {
        let ranges = diff_ranges(a, b);
        for &(from, to) in ranges.iter().take(MAX_RANGES) {
            note(
                Some(from),
                &format!("bytes 0x{from:x}..0x{to:x}"),
                crate::model::oracle::hex_string(a.get(from..to.min(from + 16)).unwrap_or(&[])),
                crate::model::oracle::hex_string(b.get(from..to.min(from + 16)).unwrap_or(&[])),
            );
        }
        if ranges.len() > MAX_RANGES {
            let rest = ranges.len() - MAX_RANGES;
            out.push(Problem::new(
                severity,
                CLASS,
                None,
                "bytes",
                format!(
                    "trace lines {} and {}: {rest} more byte ranges differ between the cache \
                     and disk copies",
                    c.line, d.line
                ),
            ));
        }
        if a.len() != b.len() {
            out.push(Problem::new(
                severity,
                CLASS,
                None,
                "block size",
                format!(
                    "trace lines {} and {}: the cache copy has {} bytes, the disk copy {}",
                    c.line,
                    d.line,
                    a.len(),
                    b.len()
                ),
            ));
        }
    }
    out
}

/// The half-open ranges where `a` and `b` differ (over their common length).
fn diff_ranges(a: &[u8], b: &[u8]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x == y {
            continue;
        }
        match out.last_mut() {
            Some((_, end)) if *end == i => *end = i + 1,
            _ => out.push((i, i + 1)),
        }
    }
    out
}

#[cfg(test)]
mod copy_tests {
    use super::diff_ranges;

    #[test]
    fn ranges_coalesce() {
        assert_eq!(
            diff_ranges(&[1, 2, 3, 4, 5], &[1, 9, 9, 4, 0]),
            vec![(1, 3), (4, 5)]
        );
        assert!(diff_ranges(&[1], &[1, 2]).is_empty());
    }
}
