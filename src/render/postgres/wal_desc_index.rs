//! pg_waldump's descriptions of the index access methods' records other
//! than B-tree, and of generic WAL: the `rm_identify` and `rm_desc` text of
//! PostgreSQL 15's hashdesc.c, gindesc.c, gistdesc.c, spgdesc.c, brindesc.c
//! and genericdesc.c. Offsets are those of the `xl_*` structs in
//! hash_xlog.h, ginxlog.h, gistxlog.h, spgxlog.h and brin_xlog.h.

use crate::model::postgres::wal::{
    RM_BRIN_ID, RM_GENERIC_ID, RM_GIN_ID, RM_GIST_ID, RM_HASH_ID, RM_SPGIST_ID,
};
use std::fmt::Write;

use crate::model::postgres::block_id as block_id_of;
use crate::model::postgres::wal::WalRecord;

use super::wal_data::Data;

/// `rm_identify` of these resource managers: `None` when `rmid` is not one
/// of them, `Some(None)` when the record type is unknown.
pub(super) fn identify(rmid: u8, info: u8) -> Option<Option<&'static str>> {
    let i = info & 0xF0;
    Some(match rmid {
        RM_HASH_ID => match i {
            0x00 => Some("INIT_META_PAGE"),
            0x10 => Some("INIT_BITMAP_PAGE"),
            0x20 => Some("INSERT"),
            0x30 => Some("ADD_OVFL_PAGE"),
            0x40 => Some("SPLIT_ALLOCATE_PAGE"),
            0x50 => Some("SPLIT_PAGE"),
            0x60 => Some("SPLIT_COMPLETE"),
            0x70 => Some("MOVE_PAGE_CONTENTS"),
            0x80 => Some("SQUEEZE_PAGE"),
            0x90 => Some("DELETE"),
            0xA0 => Some("SPLIT_CLEANUP"),
            0xB0 => Some("UPDATE_META_PAGE"),
            0xC0 => Some("VACUUM_ONE_PAGE"),
            _ => None,
        },
        RM_GIN_ID => match i {
            0x10 => Some("CREATE_PTREE"),
            0x20 => Some("INSERT"),
            0x30 => Some("SPLIT"),
            0x40 => Some("VACUUM_PAGE"),
            0x50 => Some("DELETE_PAGE"),
            0x60 => Some("UPDATE_META_PAGE"),
            0x70 => Some("INSERT_LISTPAGE"),
            0x80 => Some("DELETE_LISTPAGE"),
            0x90 => Some("VACUUM_DATA_LEAF_PAGE"),
            _ => None,
        },
        RM_GIST_ID => match i {
            0x00 => Some("PAGE_UPDATE"),
            0x10 => Some("DELETE"),
            0x20 => Some("PAGE_REUSE"),
            0x30 => Some("PAGE_SPLIT"),
            0x60 => Some("PAGE_DELETE"),
            0x70 => Some("ASSIGN_LSN"),
            _ => None,
        },
        RM_SPGIST_ID => match i {
            0x10 => Some("ADD_LEAF"),
            0x20 => Some("MOVE_LEAFS"),
            0x30 => Some("ADD_NODE"),
            0x40 => Some("SPLIT_TUPLE"),
            0x50 => Some("PICKSPLIT"),
            0x60 => Some("VACUUM_LEAF"),
            0x70 => Some("VACUUM_ROOT"),
            0x80 => Some("VACUUM_REDIRECT"),
            _ => None,
        },
        RM_BRIN_ID => match i {
            0x00 => Some("CREATE_INDEX"),
            0x10 => Some("INSERT"),
            0x90 => Some("INSERT+INIT"),
            0x20 => Some("UPDATE"),
            0xA0 => Some("UPDATE+INIT"),
            0x30 => Some("SAMEPAGE_UPDATE"),
            0x40 => Some("REVMAP_EXTEND"),
            0x50 => Some("DESUMMARIZE"),
            _ => None,
        },
        // generic_identify names every record "Generic".
        RM_GENERIC_ID => Some("Generic"),
        _ => return None,
    })
}

/// `rm_desc` of these resource managers (nothing for other rmgrs).
pub(super) fn desc(rec: &WalRecord, bytes: &[u8], d: &Data<'_>, out: &mut String) -> Option<()> {
    let info = rec.info & 0xF0;
    match rec.rmid {
        RM_HASH_ID => hash(info, d, out),
        RM_GIN_ID => gin(rec, bytes, info, d, out),
        RM_GIST_ID => gist(info, d, out),
        RM_SPGIST_ID => spgist(info, d, out),
        RM_BRIN_ID => brin(info & 0x70, d, out),
        RM_GENERIC_ID => generic(d, out),
        _ => Some(()),
    }
}

fn tf(b: bool) -> char {
    if b {
        'T'
    } else {
        'F'
    }
}

/// C's `%g`: six significant digits, trailing zeros dropped, the
/// exponent form below 1e-4 and from 1e6.
fn fmt_g(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent after rounding to six significant digits.
    let e = format!("{v:.5e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&x) {
        let sign = if x < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), x.abs())
    } else {
        let decimals = (5 - x).max(0) as usize;
        trim(&format!("{v:.decimals$}"))
    }
}

/// hashdesc.c.
fn hash(info: u8, d: &Data<'_>, out: &mut String) -> Option<()> {
    match info {
        0x00 => {
            // xl_hash_init_meta_page: num_tuples double, procid Oid, ffactor uint16.
            let n = f64::from_bits(d.u64(0)?);
            let _ = write!(out, "num_tuples {}, fillfactor {}", fmt_g(n), d.u16(12)?);
        }
        0x10 => {
            let _ = write!(out, "bmsize {}", d.u16(0)?);
        }
        0x20 => {
            let _ = write!(out, "off {}", d.u16(0)?);
        }
        0x30 => {
            let _ = write!(
                out,
                "bmsize {}, bmpage_found {}",
                d.u16(0)?,
                tf(d.u8(2)? != 0)
            );
        }
        0x40 => {
            // xl_hash_split_allocate_page: new_bucket, old/new bucket flags, flags.
            let flags = d.u8(8)?;
            let _ = write!(
                out,
                "new_bucket {}, meta_page_masks_updated {}, issplitpoint_changed {}",
                d.u32(0)?,
                tf(flags & 0x01 != 0),
                tf(flags & 0x02 != 0)
            );
        }
        0x60 => {
            let _ = write!(
                out,
                "old_bucket_flag {}, new_bucket_flag {}",
                d.u16(0)?,
                d.u16(2)?
            );
        }
        0x70 => {
            let _ = write!(out, "ntups {}, is_primary {}", d.u16(0)?, tf(d.u8(2)? != 0));
        }
        0x80 => {
            let _ = write!(
                out,
                "prevblkno {}, nextblkno {}, ntups {}, is_primary {}",
                d.u32(0)?,
                d.u32(4)?,
                d.u16(8)?,
                tf(d.u8(10)? != 0)
            );
        }
        0x90 => {
            let _ = write!(
                out,
                "clear_dead_marking {}, is_primary {}",
                tf(d.u8(0)? != 0),
                tf(d.u8(1)? != 0)
            );
        }
        0xB0 => {
            let n = f64::from_bits(d.u64(0)?);
            let _ = write!(out, "ntuples {}", fmt_g(n));
        }
        0xC0 => {
            // xl_hash_vacuum_one_page: latestRemovedXid, ntuples int.
            let _ = write!(out, "ntuples {}, latestRemovedXid {}", d.i32(4)?, d.u32(0)?);
        }
        _ => {}
    }
    Some(())
}

/// An item pointer's block number (`BlockIdData`: hi, lo halves) at `o`.
fn block_id(d: &Data<'_>, o: usize) -> Option<u32> {
    Some(block_id_of(d.u16(o)?, d.u16(o + 2)?))
}

/// gindesc.c `desc_recompress_leaf`: the actions of a
/// `ginxlogRecompressDataLeaf` (nactions, then segno, action, payload each).
fn recompress_leaf(d: &Data<'_>, out: &mut String) -> Option<()> {
    let n = d.u16(0)?;
    let _ = write!(out, " {n} segments:");
    let mut p = 2;
    for _ in 0..n {
        let segno = d.u8(p)?;
        let action = d.u8(p + 1)?;
        p += 2;
        let mut nitems = 0;
        if action == 2 || action == 3 {
            // GinPostingList: first item pointer (6), nbytes, the bytes; SHORTALIGNed.
            let size = 8 + usize::from(d.u16(p + 6)?);
            p += size + (size & 1);
        }
        if action == 4 {
            nitems = d.u16(p)?;
            p += 2 + 6 * usize::from(nitems);
        }
        match action {
            4 => {
                let _ = write!(out, " {segno} (add {nitems} items)");
            }
            1 => {
                let _ = write!(out, " {segno} (delete)");
            }
            2 => {
                let _ = write!(out, " {segno} (insert)");
            }
            3 => {
                let _ = write!(out, " {segno} (replace)");
            }
            _ => {
                let _ = write!(out, " {segno} unknown action {action} ???");
                return Some(());
            }
        }
    }
    Some(())
}

/// `(full page image)` when block 0 carries one; else `None`.
fn block0_image(rec: &WalRecord) -> Option<&'static str> {
    let b = rec.blocks.iter().find(|b| b.id == 0)?;
    let i = b.image.as_ref()?;
    Some(if i.apply() {
        " (full page image)"
    } else {
        " (full page image, for WAL verification)"
    })
}

/// Block 0's data.
fn block0_data<'a>(rec: &WalRecord, bytes: &'a [u8]) -> Data<'a> {
    let data = rec
        .blocks
        .iter()
        .find(|b| b.id == 0)
        .and_then(|b| bytes.get(b.data.clone()))
        .unwrap_or(&[]);
    Data(data)
}

/// gindesc.c.
fn gin(rec: &WalRecord, bytes: &[u8], info: u8, d: &Data<'_>, out: &mut String) -> Option<()> {
    const ISDATA: u16 = 0x01;
    const ISLEAF: u16 = 0x02;
    const SPLIT_ROOT: u16 = 0x04;
    match info {
        0x20 => {
            let flags = d.u16(0)?;
            let _ = write!(
                out,
                "isdata: {} isleaf: {}",
                tf(flags & ISDATA != 0),
                tf(flags & ISLEAF != 0)
            );
            if flags & ISLEAF == 0 {
                let _ = write!(out, " children: {}/{}", block_id(d, 2)?, block_id(d, 6)?);
            }
            if let Some(text) = block0_image(rec) {
                out.push_str(text);
            } else {
                let b = block0_data(rec, bytes);
                if flags & ISDATA == 0 {
                    // ginxlogInsertEntry: offset, isDelete, the tuple.
                    let _ = write!(out, " isdelete: {}", tf(b.u8(2)? != 0));
                } else if flags & ISLEAF != 0 {
                    recompress_leaf(&b, out)?;
                } else {
                    // ginxlogInsertDataInternal: offset, PostingItem (child, key).
                    let _ = write!(
                        out,
                        " pitem: {}-{}/{}",
                        block_id(&b, 2)?,
                        block_id(&b, 6)?,
                        b.u16(10)?
                    );
                }
            }
        }
        0x30 => {
            // ginxlogSplit: node (12), rrlink, leftChildBlkno, rightChildBlkno, flags.
            let flags = d.u16(24)?;
            let _ = write!(
                out,
                "isrootsplit: {} isdata: {} isleaf: {}",
                tf(flags & SPLIT_ROOT != 0),
                tf(flags & ISDATA != 0),
                tf(flags & ISLEAF != 0)
            );
        }
        0x90 => {
            if let Some(text) = block0_image(rec) {
                out.push_str(text);
            } else {
                recompress_leaf(&block0_data(rec, bytes), out)?;
            }
        }
        0x80 => {
            // ginxlogDeleteListPages: GinMetaPageData (56 bytes), ndeleted.
            let _ = write!(out, "ndeleted: {}", d.i32(56)?);
        }
        _ => {}
    }
    Some(())
}

/// gistdesc.c.
fn gist(info: u8, d: &Data<'_>, out: &mut String) -> Option<()> {
    match info {
        0x10 => {
            let _ = write!(
                out,
                "delete: latestRemovedXid {}, nitems: {}",
                d.u32(0)?,
                d.u16(4)?
            );
        }
        0x20 => {
            let x = d.u64(16)?;
            let _ = write!(
                out,
                "rel {}; blk {}; latestRemovedXid {}:{}",
                d.rel(0)?,
                d.u32(12)?,
                x >> 32,
                x as u32
            );
        }
        0x30 => {
            // gistxlogPageSplit: origrlink, orignsn (8), origleaf, npage.
            let _ = write!(out, "page_split: splits to {} pages", d.u16(18)?);
        }
        0x60 => {
            let x = d.u64(0)?;
            let _ = write!(
                out,
                "deleteXid {}:{}; downlink {}",
                x >> 32,
                x as u32,
                d.u16(8)?
            );
        }
        _ => {}
    }
    Some(())
}

/// spgdesc.c.
fn spgist(info: u8, d: &Data<'_>, out: &mut String) -> Option<()> {
    let flag = |out: &mut String, on: bool, text: &str| {
        if on {
            out.push_str(text);
        }
    };
    match info {
        0x10 => {
            // spgxlogAddLeaf: newPage, storesNulls, offnumLeaf, offnumHeadLeaf,
            // offnumParent, nodeI.
            let _ = write!(
                out,
                "off: {}, headoff: {}, parentoff: {}, nodeI: {}",
                d.u16(2)?,
                d.u16(4)?,
                d.u16(6)?,
                d.u16(8)?
            );
            flag(out, d.u8(0)? != 0, " (newpage)");
            flag(out, d.u8(1)? != 0, " (nulls)");
        }
        0x20 => {
            // spgxlogMoveLeafs: nMoves, newPage, replaceDead, storesNulls,
            // offnumParent, nodeI.
            let _ = write!(
                out,
                "nmoves: {}, parentoff: {}, nodeI: {}",
                d.u16(0)?,
                d.u16(6)?,
                d.u16(8)?
            );
            flag(out, d.u8(2)? != 0, " (newpage)");
            flag(out, d.u8(3)? != 0, " (replacedead)");
            flag(out, d.u8(4)? != 0, " (nulls)");
        }
        0x30 => {
            // spgxlogAddNode: offnum, offnumNew, newPage, parentBlk (int8),
            // offnumParent, nodeI.
            let _ = write!(
                out,
                "off: {}, newoff: {}, parentBlk: {}, parentoff: {}, nodeI: {}",
                d.u16(0)?,
                d.u16(2)?,
                d.u8(5)? as i8,
                d.u16(6)?,
                d.u16(8)?
            );
            flag(out, d.u8(4)? != 0, " (newpage)");
        }
        0x40 => {
            // spgxlogSplitTuple: offnumPrefix, offnumPostfix, newPage, postfixBlkSame.
            let _ = write!(out, "prefixoff: {}, postfixoff: {}", d.u16(0)?, d.u16(2)?);
            flag(out, d.u8(4)? != 0, " (newpage)");
            flag(out, d.u8(5)? != 0, " (same)");
        }
        0x50 => {
            // spgxlogPickSplit: isRootSplit, nDelete, nInsert, initSrc, initDest,
            // offnumInner, initInner, storesNulls, innerIsParent, offnumParent, nodeI.
            let _ = write!(
                out,
                "ndelete: {}, ninsert: {}, inneroff: {}, parentoff: {}, nodeI: {}",
                d.u16(2)?,
                d.u16(4)?,
                d.u16(8)?,
                d.u16(14)?,
                d.u16(16)?
            );
            flag(out, d.u8(12)? != 0, " (innerIsParent)");
            flag(out, d.u8(11)? != 0, " (nulls)");
            flag(out, d.u8(0)? != 0, " (isRootSplit)");
        }
        0x60 => {
            let _ = write!(
                out,
                "ndead: {}, nplaceholder: {}, nmove: {}, nchain: {}",
                d.u16(0)?,
                d.u16(2)?,
                d.u16(4)?,
                d.u16(6)?
            );
        }
        0x70 => {
            let _ = write!(out, "ndelete: {}", d.u16(0)?);
        }
        0x80 => {
            let _ = write!(
                out,
                "ntoplaceholder: {}, firstplaceholder: {}, newestredirectxid: {}",
                d.u16(0)?,
                d.u16(2)?,
                d.u32(4)?
            );
        }
        _ => {}
    }
    Some(())
}

/// brindesc.c (`info` without `XLOG_BRIN_INIT_PAGE`).
fn brin(info: u8, d: &Data<'_>, out: &mut String) -> Option<()> {
    match info {
        0x00 => {
            // xl_brin_createidx: pagesPerRange, version.
            let _ = write!(out, "v{} pagesPerRange {}", d.u16(4)?, d.u32(0)?);
        }
        0x10 => {
            let _ = write!(
                out,
                "heapBlk {} pagesPerRange {} offnum {}",
                d.u32(0)?,
                d.u32(4)?,
                d.u16(8)?
            );
        }
        0x20 => {
            // xl_brin_update: oldOffnum, then xl_brin_insert.
            let _ = write!(
                out,
                "heapBlk {} pagesPerRange {} old offnum {}, new offnum {}",
                d.u32(4)?,
                d.u32(8)?,
                d.u16(0)?,
                d.u16(12)?
            );
        }
        0x30 => {
            let _ = write!(out, "offnum {}", d.u16(0)?);
        }
        0x40 => {
            let _ = write!(out, "targetBlk {}", d.u32(0)?);
        }
        0x50 => {
            let _ = write!(
                out,
                "pagesPerRange {}, heapBlk {}, page offset {}",
                d.u32(0)?,
                d.u32(4)?,
                d.u16(8)?
            );
        }
        _ => {}
    }
    Some(())
}

/// genericdesc.c: the main data's (offset, length) fragments.
fn generic(d: &Data<'_>, out: &mut String) -> Option<()> {
    let mut p = 0;
    while p < d.0.len() {
        let offset = d.u16(p)?;
        let length = d.u16(p + 2)?;
        p += 4 + usize::from(length);
        let _ = write!(out, "offset {offset}, length {length}");
        if p < d.0.len() {
            out.push_str("; ");
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::fmt_g;

    #[test]
    fn percent_g_as_c_prints_it() {
        for (v, want) in [
            (550.0, "550"),
            (0.0, "0"),
            (200.0, "200"),
            (1234567.0, "1.23457e+06"),
            (999999.0, "999999"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (3.5, "3.5"),
            (-2.25, "-2.25"),
            (123456.7, "123457"),
        ] {
            assert_eq!(fmt_g(v), want, "{v}");
        }
    }
}
