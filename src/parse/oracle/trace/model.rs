//! Model conversion: the block a trace's formatted text describes, as an
//! [`OracleBlock`] for the dump renderer (`--format dump` of a trace that
//! carries no bytes).

use crate::model::oracle::names;
use crate::model::oracle::space::Undecoded;
use crate::model::oracle::{
    At, ByteOrder, Column, Kcbh, Kdbh, Ktbbh, OracleBlock, OracleKind, RowPiece, Scn, TableData,
    TextBlock,
};

/// The block a [`TextBlock`] describes, as an [`OracleBlock`] for the dump
/// renderer (`--format dump` of a trace that carries no bytes). Only what the
/// dump prints is filled in: bytes the text does not show (spare bytes, the
/// format byte's size bits, absolute offsets of columns) are zero here and are
/// never shown by that renderer. `None` without a cache header, block header
/// or space-management body.
pub fn render_view(t: &TextBlock, blkno: u64) -> Option<OracleBlock> {
    if t.cache.is_none() && t.header.is_none() {
        // A body alone (`alter system dump undo header` prints no cache
        // header): the renderer prints its lines and says what is missing.
        return t.space.as_ref().map(|s| OracleBlock {
            space: Some(Box::new(s.value.clone())),
            trailing_lines: trailing_lines(t),
            ..OracleBlock::empty(blkno, 0, ByteOrder::Little, OracleKind::Other)
        });
    }
    let rdba = t
        .cache
        .as_ref()
        .map(|c| c.rdba)
        .or_else(|| t.header.as_ref().map(|h| h.rdba))
        .unwrap_or(0);
    let kcbh = t.cache.as_ref().map_or(
        Kcbh {
            type_kcbh: 6,
            frmt_kcbh: 2,
            spare1_kcbh: 0,
            spare2_kcbh: 0,
            rdba_kcbh: rdba,
            bas_kcbh: 0,
            wrp_kcbh: 0,
            seq_kcbh: 0,
            flg_kcbh: 0,
            chkval_kcbh: 0,
            spare3_kcbh: 0,
        },
        |c| Kcbh {
            type_kcbh: c.type_kcbh,
            frmt_kcbh: c.frmt,
            spare1_kcbh: 0,
            spare2_kcbh: 0,
            rdba_kcbh: c.rdba,
            bas_kcbh: c.scn as u32,
            wrp_kcbh: (c.scn >> 32) as u16,
            seq_kcbh: c.seq,
            flg_kcbh: c.flg,
            chkval_kcbh: c.chkval,
            spare3_kcbh: 0,
        },
    );
    let ktbbh = t.header.as_ref().map(|h| {
        let flg = match h.flg {
            'E' => 0x32,
            'O' => 0x03,
            _ => 0x02,
        };
        Ktbbh {
            ktbbhtyp: h.typ,
            ktbbhsid: h.seg_obj,
            ktbbhcsc: Scn {
                kscnbas: h.csc as u32,
                kscnwrp: (h.csc >> 32) as u16,
                kscnwrp2: 0,
            },
            ktbbhict: h.itc,
            ktbbhflg: flg,
            ktbbhfsl: h.fsl.unwrap_or(0),
            ktbbhfnx: h.fnx.unwrap_or(0),
            ktbbhitl: h.itls.iter().map(|i| i.value.clone()).collect(),
            extension: h.extension.as_ref().map(|e| e.value.clone()),
            payload_offset: super::super::ktb::payload_offset(usize::from(h.itc), flg),
        }
    });
    let payload = ktbbh.as_ref().map_or(0, |k| k.payload_offset);
    let table = t.data.as_ref().and_then(|d| {
        let v = |a: Option<At<u16>>| a.map(|a| a.value);
        let kdbh = Kdbh {
            offset: payload,
            kdbhflag: d.kdbhflag?.value,
            kdbhntab: d.kdbhntab?.value,
            kdbhnrow: v(d.kdbhnrow)?,
            kdbhfrre: d.kdbhfrre?.value,
            kdbhfsbo: v(d.kdbhfsbo)?,
            kdbhfseo: v(d.kdbhfseo)?,
            kdbhavsp: d.kdbhavsp?.value,
            kdbhtosp: d.kdbhtosp?.value,
            tsiz: d.tsiz?.value,
            hsiz: d.hsiz?.value,
            kdbh9ir2: d.kdbh9ir2.as_ref().map(|c| Box::new(c.value.clone())),
        };
        let rows = d
            .rows
            .iter()
            .map(|r| RowPiece {
                tab: r.tab,
                row: r.row,
                slot: r.row,
                offs: r.offs,
                offset: payload.saturating_add(usize::from(r.offs)),
                flag: r.flag.unwrap_or(0),
                lb: r.lb.unwrap_or(0),
                cc: r.cc,
                tl: r.tl.unwrap_or(0),
                hrid: r.hrid.map(|h| h.value),
                nrid: r.nrid.map(|h| h.value),
                bindmp: r.bindmp.clone(),
                cols: r
                    .cols
                    .iter()
                    .map(|c| Column {
                        col: c.col,
                        offset: 0,
                        len: c.len,
                        long_form: false,
                        data: c.data.clone(),
                        value: None,
                        reads_as: String::new(),
                    })
                    .collect(),
                trailing_nulls: Vec::new(),
            })
            .collect();
        Some(TableData {
            kdbh,
            kdbt: d.kdbt.iter().map(|k| k.value.clone()).collect(),
            kdbr: d.kdbr.iter().map(|k| k.value.clone()).collect(),
            rows,
        })
    });
    let space = t.space.is_some();
    let type_kcbh = kcbh.type_kcbh;
    Some(OracleBlock {
        blkno,
        size: 0,
        endian: ByteOrder::Little,
        kind: if table.is_some() {
            OracleKind::Table
        } else if kcbh.type_kcbh != 6 {
            OracleKind::Other
        } else {
            OracleKind::TransData
        },
        encrypted: t.encrypted,
        kcbh: Some(kcbh),
        tailchk: t.cache.as_ref().map(|c| c.tail),
        checksum: None,
        os_header: None,
        file_header: None,
        ktbbh,
        table,
        index: None,
        space: t.space.as_ref().map(|s| Box::new(s.value.clone())),
        undecoded: (!space && type_kcbh != 6).then(|| {
            Box::new(Undecoded {
                offset: crate::model::oracle::KCBH_SIZE,
                length: 0,
                note: format!(
                    "type 0x{type_kcbh:02x} {}: the body's text is not decoded (read from text: \
                 segment headers 0x10/0x23/0x26, bitmap blocks 0x20/0x21, undo blocks 0x02, \
                 KTFB file space blocks 0x1d/0x1e)",
                    names::block_type_name(type_kcbh).unwrap_or("unknown")
                ),
                bytes: Vec::new(),
            })
        }),
        trailing_lines: trailing_lines(t),
        problems: Vec::new(),
        spans: Vec::new(),
    })
}

/// The text's trailing runs of lines, one after the other, as the trace has
/// them.
fn trailing_lines(t: &TextBlock) -> Vec<String> {
    t.trailing_lines
        .iter()
        .flat_map(|u| u.lines.iter().cloned())
        .collect()
}
