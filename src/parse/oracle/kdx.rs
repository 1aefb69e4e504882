//! The index layer: common header `kdxco`, leaf `kdxle` / branch `kdxbr`
//! headers, the entry directory and the entries (§7).
//!
//! ```text
//!  kdxco (16) + kdxle (16) | kd_off: 2 leading slots, then kdxconro offsets | free | entries | tail
//!  kdxco (16) + kdxbr (8)  |                                                        (grow down)
//!  ^ payload offset; every offset (kd_off, kdxcofbo, kdxcofeo, row#N[..]) is relative to it
//! ```
//!
//! Leaf entry: flag, lock, [kdxledsz rowid bytes], then kdxconco columns
//! (length byte, 0xff NULL). Branch entry: child dba (4 bytes, native order),
//! then key columns; a truncated separator column is one byte that the dump
//! prints as `TERM` (taken to be 0xfe, inferred).

use crate::model::oracle::{
    IndexColumn, IndexData, IndexEntry, Kdxbr, Kdxco, Kdxle, Ktbbh, KDXBR_SIZE, KDXCO_SIZE,
    KDXLE_SIZE, TAIL_SIZE,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{ReadError, Reader};

use super::read_problem;
use crate::model::oracle::names;

/// The length byte that stands for a truncated branch separator column (`TERM`).
pub(crate) const TERM: u8 = 0xfe;

/// Read the index layer. `None` when the header does not fit.
pub(crate) fn read_index(
    r: &mut Reader,
    ktbbh: &Ktbbh,
    size: usize,
    problems: &mut Vec<Problem>,
) -> Option<IndexData> {
    let p = ktbbh.payload_offset;
    let end = size.saturating_sub(TAIL_SIZE);
    let kdxco = match read_kdxco(r, p) {
        Ok(h) => h,
        Err(e) => {
            problems.push(read_problem(
                ProblemClass::Index,
                &e,
                "index header cut short",
            ));
            return None;
        }
    };
    let leaf = kdxco.kdxcolev == 0;
    let (kdxle, kdxbr, hdr) = if leaf {
        match read_kdxle(r, p) {
            Ok(l) => (Some(l), None, KDXLE_SIZE),
            Err(e) => {
                problems.push(read_problem(
                    ProblemClass::Index,
                    &e,
                    "leaf header cut short",
                ));
                return None;
            }
        }
    } else {
        match read_kdxbr(r, p) {
            Ok(b) => (None, Some(b), KDXBR_SIZE),
            Err(e) => {
                problems.push(read_problem(
                    ProblemClass::Index,
                    &e,
                    "branch header cut short",
                ));
                return None;
            }
        }
    };

    let dir = p + hdr;
    let room = end.saturating_sub(dir + 4) / 2;
    let mut nro = usize::try_from(kdxco.kdxconro).unwrap_or(0);
    if kdxco.kdxconro < 0 || nro > room {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Index,
            Some(p + 8),
            "kdxco.kdxconro",
            format!(
                "entry count {} does not fit in the block (room for {room})",
                kdxco.kdxconro
            ),
        ));
        nro = nro.min(room);
    }
    r.set_context(Region::LinePointer, None);
    let mut kd_off_head = [0u16; 2];
    for (i, slot) in kd_off_head.iter_mut().enumerate() {
        let name = if i == 0 {
            if leaf {
                "kdxlebksz"
            } else {
                "kdxbrbksz"
            }
        } else {
            "kd_off pad"
        };
        match r.u16(dir + 2 * i, name) {
            Ok(v) => *slot = v,
            Err(e) => {
                problems.push(read_problem(
                    ProblemClass::Index,
                    &e,
                    "entry directory cut short",
                ));
                return None;
            }
        }
    }
    let mut kd_off = Vec::with_capacity(nro);
    for i in 0..nro {
        let at = dir + 4 + 2 * i;
        let Ok(v) = r.u16(at, &format!("kd_off[{i}]")) else {
            break;
        };
        r.show_last(format!("row#{i}[{v}] → @0x{:x}", p + usize::from(v)));
        kd_off.push(v);
    }
    check_kdxco(&kdxco, hdr, nro, end.saturating_sub(p), problems);

    let fbo = p + usize::try_from(kdxco.kdxcofbo).unwrap_or(0);
    let feo = p + usize::try_from(kdxco.kdxcofeo).unwrap_or(0);
    if fbo <= feo && feo <= end {
        r.set_context(Region::FreeSpace, None);
        r.mark(fbo, feo - fbo, "free space", format!("{} bytes", feo - fbo));
    }

    // Entries never overlap: once they claim more than the block area, the
    // directory is damaged and reading stops (bounding the work, too).
    let mut entries: Vec<IndexEntry> = Vec::with_capacity(kd_off.len());
    let mut budget = end.saturating_sub(p);
    for (i, &offs) in kd_off.iter().enumerate() {
        let entry = if leaf {
            let dsz = kdxle.as_ref().map_or(0, |l| usize::from(l.kdxledsz));
            read_leaf_entry(r, p, end, i, offs, dsz, usize::from(kdxco.kdxconco))
        } else {
            read_branch_entry(r, p, end, i, offs, usize::from(kdxco.kdxconco))
        };
        let e = match entry {
            Ok(e) => e,
            Err(e) => {
                problems.push(Problem::new(
                    Severity::Error,
                    ProblemClass::Index,
                    Some(e.offset),
                    format!("row#{i} {}", e.field),
                    format!(
                        "index entry does not end within block: {} needs {} bytes at offset {}",
                        e.field, e.needed, e.offset
                    ),
                ));
                continue;
            }
        };
        let used = entry_size(&e).max(1);
        entries.push(e);
        if used > budget {
            problems.push(Problem::new(
                Severity::Error,
                ProblemClass::Index,
                Some(p),
                "kd_off",
                format!(
                    "index entries claim more than the {} bytes of the block area (overlapping entries); \
                     entries after row#{i} are not read",
                    end.saturating_sub(p)
                ),
            ));
            break;
        }
        budget -= used;
    }
    if let Some(l) = &kdxle {
        let deleted = entries
            .iter()
            .filter(|e| e.flag.is_some_and(|f| f & 0x01 != 0))
            .count();
        if usize::try_from(l.kdxlende).ok() != Some(deleted) {
            problems.push(Problem::new(
                Severity::Warning,
                ProblemClass::Index,
                Some(p + 18),
                "kdxle.kdxlende",
                format!(
                    "kdxlende says {} deleted entries, {deleted} entries carry the deleted flag",
                    l.kdxlende
                ),
            ));
        }
    }
    Some(IndexData {
        kdxco,
        kdxle,
        kdxbr,
        kd_off_head,
        kd_off,
        entries,
    })
}

/// Bytes an entry occupies: a leaf entry's `len`, or a branch entry's dba and key.
fn entry_size(e: &IndexEntry) -> usize {
    e.len
        .unwrap_or_else(|| 4 + e.cols.iter().map(|c| 1 + c.data.len()).sum::<usize>())
}

fn read_kdxco(r: &mut Reader, p: usize) -> Result<Kdxco, ReadError> {
    r.set_context(Region::Header, None);
    r.peek(p, KDXCO_SIZE, "kdxco")?;
    let kdxcolev = r.u8(p, "kdxco.kdxcolev")?;
    let kdxcolok = r.u8(p + 1, "kdxco.kdxcolok")?;
    let kdxcoopc = r.u8(p + 2, "kdxco.kdxcoopc")?;
    r.show_last(format!("0x{kdxcoopc:02x}"));
    let kdxconco = r.u8(p + 3, "kdxco.kdxconco")?;
    let kdxcosdc = r.u32(p + 4, "kdxco.kdxcosdc")?;
    let kdxconro = r.u16(p + 8, "kdxco.kdxconro")? as i16;
    let kdxcofbo = r.u16(p + 10, "kdxco.kdxcofbo")? as i16;
    let kdxcofeo = r.u16(p + 12, "kdxco.kdxcofeo")? as i16;
    let kdxcoavs = r.u16(p + 14, "kdxco.kdxcoavs")? as i16;
    Ok(Kdxco {
        offset: p,
        kdxcolev,
        kdxcolok,
        kdxcoopc,
        kdxconco,
        kdxcosdc,
        kdxconro,
        kdxcofbo,
        kdxcofeo,
        kdxcoavs,
    })
}

fn read_kdxle(r: &mut Reader, p: usize) -> Result<Kdxle, ReadError> {
    let q = p + KDXCO_SIZE;
    r.peek(q, KDXLE_SIZE - KDXCO_SIZE, "kdxle")?;
    let kdxlespl = r.u16(q, "kdxle.kdxlespl")? as i16;
    let kdxlende = r.u16(q + 2, "kdxle.kdxlende")? as i16;
    let kdxlenxt = r.u32(q + 4, "kdxle.kdxlenxt")?;
    r.show_last(format!("0x{kdxlenxt:08x}"));
    let kdxleprv = r.u32(q + 8, "kdxle.kdxleprv")?;
    r.show_last(format!("0x{kdxleprv:08x}"));
    let kdxledsz = r.u8(q + 12, "kdxle.kdxledsz")?;
    let kdxleflg = r.u8(q + 13, "kdxle.kdxleflg")?;
    r.mark(q + 14, 2, "kdxle pad", String::new());
    Ok(Kdxle {
        kdxlespl,
        kdxlende,
        kdxlenxt,
        kdxleprv,
        kdxledsz,
        kdxleflg,
    })
}

fn read_kdxbr(r: &mut Reader, p: usize) -> Result<Kdxbr, ReadError> {
    let q = p + KDXCO_SIZE;
    r.peek(q, KDXBR_SIZE - KDXCO_SIZE, "kdxbr")?;
    let kdxbrlmc = r.u32(q, "kdxbr.kdxbrlmc")?;
    r.show_last(format!("0x{kdxbrlmc:08x}"));
    let kdxbrsno = r.u16(q + 4, "kdxbr.kdxbrsno")? as i16;
    r.mark(q + 6, 2, "kdxbr pad", String::new());
    Ok(Kdxbr { kdxbrlmc, kdxbrsno })
}

fn check_kdxco(h: &Kdxco, hdr: usize, nro: usize, area: usize, problems: &mut Vec<Problem>) {
    let p = h.offset;
    let expected_fbo = hdr + 4 + 2 * nro;
    if usize::try_from(h.kdxcofbo).ok() != Some(expected_fbo) {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Index,
            Some(p + 10),
            "kdxco.kdxcofbo",
            format!(
                "**** kdxcofbo = {} != {expected_fbo} (header {hdr} + 4 + 2 × {nro} entries)",
                h.kdxcofbo
            ),
        ));
    }
    if h.kdxcofeo < h.kdxcofbo || usize::try_from(h.kdxcofeo).map_or(true, |f| f > area) {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Index,
            Some(p + 12),
            "kdxco.kdxcofeo",
            format!(
                "free space end {} is not between kdxcofbo {} and the end of the block area {area}",
                h.kdxcofeo, h.kdxcofbo
            ),
        ));
    }
    if h.kdxcoavs < 0 || usize::try_from(h.kdxcoavs).map_or(true, |a| a > area) {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Index,
            Some(p + 14),
            "kdxco.kdxcoavs",
            format!("available space {} is out of range", h.kdxcoavs),
        ));
    }
}

fn within(at: usize, len: usize, end: usize, name: &str) -> Result<(), ReadError> {
    if at.saturating_add(len) > end {
        Err(ReadError {
            field: name.to_string(),
            offset: at,
            needed: len,
            available: end,
        })
    } else {
        Ok(())
    }
}

/// Key columns from `at`; returns the columns and the offset after them.
fn read_key_columns(
    r: &mut Reader,
    mut at: usize,
    end: usize,
    count: usize,
    owner: &str,
    branch: bool,
) -> Result<(Vec<IndexColumn>, usize), ReadError> {
    let mut cols = Vec::with_capacity(count);
    for c in 0..count {
        let name = format!("col {c}");
        within(at, 1, end, &name)?;
        r.set_context(Region::TupleHeader, Some(owner.to_string()));
        let lb = r.u8(at, &format!("col {c} len"))?;
        if branch && lb == TERM {
            r.show_last("TERM".to_string());
            cols.push(IndexColumn {
                col: c,
                len: None,
                data: Vec::new(),
            });
            at += 1;
            // A truncated separator ends the key.
            break;
        }
        let (len, head) = match lb {
            0xff => (None, 1),
            0xfe => {
                within(at + 1, 2, end, &name)?;
                (
                    Some(usize::from(r.u16(at + 1, &format!("col {c} len+"))?)),
                    3,
                )
            }
            n => (Some(usize::from(n)), 1),
        };
        r.show_last(len.map_or("NULL".to_string(), |l| format!("len {l}")));
        let data = match len {
            Some(l) => {
                within(at + head, l, end, &name)?;
                r.set_context(Region::TupleData, Some(owner.to_string()));
                r.bytes(at + head, l, &name)?.to_vec()
            }
            None => Vec::new(),
        };
        at += head + len.unwrap_or(0);
        cols.push(IndexColumn { col: c, len, data });
    }
    Ok((cols, at))
}

fn read_leaf_entry(
    r: &mut Reader,
    p: usize,
    end: usize,
    row: usize,
    offs: u16,
    dsz: usize,
    conco: usize,
) -> Result<IndexEntry, ReadError> {
    let offset = p + usize::from(offs);
    let owner = format!("row#{row}");
    within(offset, 2, end, "flag")?;
    r.set_context(Region::TupleHeader, Some(owner.clone()));
    let flag = r.u8(offset, "flag")?;
    r.show_last(format!("0x{flag:02x} {}", names::index_flag_string(flag)));
    let lock = r.u8(offset + 1, "lock")?;
    let mut at = offset + 2;
    let rowid = if dsz > 0 {
        within(at, dsz, end, "data")?;
        let b = r.bytes(at, dsz, "rowid")?.to_vec();
        at += dsz;
        Some(b)
    } else {
        None
    };
    let (cols, after) = read_key_columns(r, at, end, conco, &owner, false)?;
    Ok(IndexEntry {
        row,
        offs,
        offset,
        flag: Some(flag),
        lock: Some(lock),
        len: Some(after - offset),
        rowid,
        dba: None,
        cols,
    })
}

fn read_branch_entry(
    r: &mut Reader,
    p: usize,
    end: usize,
    row: usize,
    offs: u16,
    conco: usize,
) -> Result<IndexEntry, ReadError> {
    let offset = p + usize::from(offs);
    let owner = format!("row#{row}");
    within(offset, 4, end, "dba")?;
    r.set_context(Region::TupleHeader, Some(owner.clone()));
    let dba = r.u32(offset, "dba")?;
    r.show_last(format!("0x{dba:08x}"));
    let (cols, _) = read_key_columns(r, offset + 4, end, conco, &owner, true)?;
    Ok(IndexEntry {
        row,
        offs,
        offset,
        flag: None,
        lock: None,
        len: None,
        rowid: None,
        dba: Some(dba),
        cols,
    })
}
