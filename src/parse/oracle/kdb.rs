//! The table data layer: `kdbh`, the table directory `kdbt`, the row directory
//! `kdbr`, and the row pieces (§4).
//!
//! ```text
//!  kdbh (14) | kdbt[ntab] (4 each) | kdbr[nrow] (2 each) | free space | rows (grow down) | tail
//!  ^ payload offset; every directory offset is relative to it
//! ```
//!
//! A row piece: flag `KCHDFLPN`, lock byte, column count, then (hrid for a
//! body piece of a migrated row, nrid for a piece that is not the last) the
//! columns: one length byte (0xff NULL, 0xfe + 2-byte length for long values),
//! then the bytes.

use crate::model::oracle::{
    Column, Kdbh, KdbrEntry, Kdbt, Ktbbh, RowPiece, RowRef, TableData, KDBH_SIZE, TAIL_SIZE,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{Endian, ReadError, Reader};

use super::columns::reads_as;
use super::read_problem;
use crate::model::oracle::names;

/// Read the data layer of a table/cluster block. `None` when not even the
/// header fits (a problem says so).
pub(crate) fn read_table_data(
    r: &mut Reader,
    ktbbh: &Ktbbh,
    size: usize,
    problems: &mut Vec<Problem>,
) -> Option<TableData> {
    let p = ktbbh.payload_offset;
    let end = size.saturating_sub(TAIL_SIZE);
    if p.saturating_add(KDBH_SIZE) > end {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Kdbh,
            Some(p),
            "kdbh",
            format!("no room for the data header at offset {p} in a {size}-byte block"),
        ));
        return None;
    }
    let kdbh = match read_kdbh(r, p, size) {
        Ok(h) => h,
        Err(e) => {
            problems.push(read_problem(
                ProblemClass::Kdbh,
                &e,
                "data header cut short",
            ));
            return None;
        }
    };
    let mut kdbh = kdbh;
    if kdbh.compressed() {
        // Basic/OLTP compression: the 9iR2 header follows kdbh, and the
        // directories follow it.
        match super::kdbc::read_9ir2(r, p + KDBH_SIZE) {
            Ok(c) => {
                kdbh.hsiz += c.size;
                kdbh.kdbh9ir2 = Some(Box::new(c));
            }
            Err(e) => problems.push(read_problem(
                ProblemClass::Kdbh,
                &e,
                "9iR2 compression header cut short",
            )),
        }
    }
    check_kdbh(&kdbh, problems);
    let hdr = kdbh.header_size();

    // Directories, limited to what fits before the tail.
    let ntab = usize::from(kdbh.kdbhntab);
    let nrow = usize::from(kdbh.kdbhnrow);
    let room = end.saturating_sub(p + hdr);
    let ntab_fit = ntab.min(room / 4);
    let nrow_fit = nrow.min(room.saturating_sub(4 * ntab_fit) / 2);
    if ntab_fit < ntab || nrow_fit < nrow {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Kdbh,
            Some(p + 1),
            "kdbh.kdbhnrow",
            format!(
                "directories for {ntab} tables and {nrow} rows do not fit in the block \
                 ({} bytes needed, {room} available)",
                4 * ntab + 2 * nrow
            ),
        ));
    }
    r.set_context(Region::LinePointer, None);
    let mut kdbt = Vec::with_capacity(ntab_fit);
    for t in 0..ntab_fit {
        let at = p + hdr + 4 * t;
        let name = format!("kdbt[{t}]");
        let (Ok(kdbtoffs), Ok(kdbtnrow)) = (r.peek_u16(at, &name), r.peek_u16(at + 2, &name))
        else {
            break;
        };
        r.mark(at, 4, &name, format!("nrow={kdbtnrow} offs={kdbtoffs}"));
        kdbt.push(Kdbt {
            table: t,
            kdbtoffs,
            kdbtnrow,
        });
    }
    let dir = p + hdr + 4 * ntab_fit;
    let mut kdbr = Vec::with_capacity(nrow_fit);
    for slot in 0..nrow_fit {
        let at = dir + 2 * slot;
        let name = format!("kdbr[{slot}]");
        let Ok(v) = r.peek_u16(at, &name) else { break };
        kdbr.push(KdbrEntry {
            slot,
            kdbr: v,
            free: false,
        });
    }
    mark_free_chain(&kdbh, &mut kdbr, problems, dir);
    for e in &kdbr {
        let at = dir + 2 * e.slot;
        let value = if e.free {
            format!("free, next {}", e.kdbr as i16)
        } else {
            format!("offs=0x{:x} → @0x{:x}", e.kdbr, p + usize::from(e.kdbr))
        };
        r.mark(at, 2, &format!("kdbr[{}]", e.slot), value);
    }

    // Free space between the directories and the rows.
    let fsbo = p + usize::from(kdbh.kdbhfsbo);
    let fseo = p + usize::from(kdbh.kdbhfseo);
    if fsbo <= fseo && fseo <= end {
        r.set_context(Region::FreeSpace, None);
        r.mark(
            fsbo,
            fseo - fsbo,
            "free space",
            format!("{} bytes", fseo - fsbo),
        );
    }

    // Rows, in table order as the dump prints them. Each slot is read once:
    // tables claiming the same slots (a damaged directory) are reported.
    // Row pieces never overlap, so together they fit in the data area: once
    // they claim more, the directory is damaged and reading stops (this also
    // bounds the work a damaged block can cause).
    let mut rows = Vec::new();
    let mut claimed = vec![false; kdbr.len()];
    let mut budget = kdbh.tsiz;
    let plain = if kdbh.kdbh9ir2.is_some() {
        // Symbol table and data rows of a compressed block.
        rows = super::kdbc::read_rows(r, p, end, &kdbt, &kdbr, problems);
        &kdbt[..0]
    } else {
        &kdbt[..]
    };
    'tables: for t in plain {
        for row in 0..usize::from(t.kdbtnrow) {
            let slot = usize::from(t.kdbtoffs) + row;
            if claimed.get(slot).copied().unwrap_or(false) {
                problems.push(Problem::new(
                    Severity::Error,
                    ProblemClass::Kdbr,
                    Some(p + hdr + 4 * t.table),
                    format!("kdbt[{}]", t.table),
                    format!(
                        "table {} claims row directory slot {slot}, which an earlier table already uses",
                        t.table
                    ),
                ));
                break;
            }
            if let Some(c) = claimed.get_mut(slot) {
                *c = true;
            }
            let Some(entry) = kdbr.get(slot) else {
                problems.push(Problem::new(
                    Severity::Error,
                    ProblemClass::Kdbr,
                    Some(p + hdr + 4 * t.table),
                    format!("kdbt[{}]", t.table),
                    format!(
                        "table {} row {row} refers to row directory slot {slot}, but there are only {} slots",
                        t.table,
                        kdbr.len()
                    ),
                ));
                break;
            };
            if entry.free {
                continue;
            }
            if let Some(piece) = read_row(r, p, end, t.table, row, entry, problems) {
                let used = piece.tl.max(2);
                rows.push(piece);
                if used > budget {
                    problems.push(Problem::new(
                        Severity::Error,
                        ProblemClass::Row,
                        Some(p),
                        "kdbr",
                        format!(
                            "row pieces claim more than the {} bytes of the data area (overlapping pieces); \
                             rows after table {} row {row} are not read",
                            kdbh.tsiz, t.table
                        ),
                    ));
                    break 'tables;
                }
                budget -= used;
            }
        }
    }
    check_rows(&kdbh, &rows, &kdbr, ktbbh, problems);
    Some(TableData {
        kdbh,
        kdbt,
        kdbr,
        rows,
    })
}

fn read_kdbh(r: &mut Reader, p: usize, size: usize) -> Result<Kdbh, ReadError> {
    r.set_context(Region::Header, None);
    r.peek(p, KDBH_SIZE, "kdbh")?;
    let kdbhflag = r.u8(p, "kdbh.kdbhflag")?;
    r.show_last(names::kdbh_flag_string(kdbhflag));
    let kdbhntab = r.u8(p + 1, "kdbh.kdbhntab")?;
    let kdbhnrow = r.u16(p + 2, "kdbh.kdbhnrow")?;
    let kdbhfrre = r.u16(p + 4, "kdbh.kdbhfrre")? as i16;
    r.show_last(kdbhfrre.to_string());
    let kdbhfsbo = r.u16(p + 6, "kdbh.kdbhfsbo")?;
    r.show_last(format!("0x{kdbhfsbo:x}"));
    let kdbhfseo = r.u16(p + 8, "kdbh.kdbhfseo")?;
    r.show_last(format!("0x{kdbhfseo:x}"));
    let kdbhavsp = r.u16(p + 10, "kdbh.kdbhavsp")? as i16;
    r.show_last(format!("0x{:x}", kdbhavsp as u16));
    let kdbhtosp = r.u16(p + 12, "kdbh.kdbhtosp")? as i16;
    r.show_last(format!("0x{:x}", kdbhtosp as u16));
    Ok(Kdbh {
        offset: p,
        kdbhflag,
        kdbhntab,
        kdbhnrow,
        kdbhfrre,
        kdbhfsbo,
        kdbhfseo,
        kdbhavsp,
        kdbhtosp,
        tsiz: size.saturating_sub(p + TAIL_SIZE),
        hsiz: KDBH_SIZE + 4 * usize::from(kdbhntab) + 2 * usize::from(kdbhnrow),
        kdbh9ir2: None,
    })
}

fn check_kdbh(h: &Kdbh, problems: &mut Vec<Problem>) {
    let p = h.offset;
    let fsbo = usize::from(h.kdbhfsbo);
    let fseo = usize::from(h.kdbhfseo);
    let mut push = |sev, at: usize, field: &str, msg: String| {
        problems.push(Problem::new(
            sev,
            ProblemClass::Kdbh,
            Some(p + at),
            field,
            msg,
        ));
    };
    if h.kdbhntab == 0 && h.kdbhnrow > 0 {
        push(
            Severity::Error,
            1,
            "kdbh.kdbhntab",
            format!("{} rows but no table", h.kdbhnrow),
        );
    }
    if fsbo < h.hsiz {
        push(
            Severity::Error,
            6,
            "kdbh.kdbhfsbo",
            format!(
                "free space begins at 0x{fsbo:x}, inside the directories that end at 0x{:x}",
                h.hsiz
            ),
        );
    }
    if fseo > h.tsiz {
        push(
            Severity::Error,
            8,
            "kdbh.kdbhfseo",
            format!(
                "free space ends at 0x{fseo:x}, beyond the data area (tsiz 0x{:x})",
                h.tsiz
            ),
        );
    }
    if fsbo > fseo {
        push(
            Severity::Error,
            6,
            "kdbh.kdbhfsbo",
            format!("free space begins at 0x{fsbo:x} after it ends at 0x{fseo:x}"),
        );
    }
    if h.kdbhavsp < 0 || h.kdbhavsp as usize > h.tsiz {
        push(
            Severity::Error,
            10,
            "kdbh.kdbhavsp",
            format!(
                "available space {} is outside 0..tsiz ({})",
                h.kdbhavsp, h.tsiz
            ),
        );
    }
    if h.kdbhtosp < h.kdbhavsp {
        push(
            Severity::Warning,
            12,
            "kdbh.kdbhtosp",
            format!(
                "total space after commit ({}) is less than available space ({})",
                h.kdbhtosp, h.kdbhavsp
            ),
        );
    }
    if h.kdbhfrre < -1 || (h.kdbhfrre >= 0 && h.kdbhfrre as u16 >= h.kdbhnrow) {
        push(
            Severity::Error,
            4,
            "kdbh.kdbhfrre",
            format!(
                "first free slot {} is not -1 and not below nrow {}",
                h.kdbhfrre, h.kdbhnrow
            ),
        );
    }
}

/// Follow the free-slot chain from `kdbhfrre`: each free entry holds the next
/// free slot, -1 ending the chain (inferred, §4.1).
fn mark_free_chain(h: &Kdbh, kdbr: &mut [KdbrEntry], problems: &mut Vec<Problem>, dir: usize) {
    let mut next = h.kdbhfrre;
    let mut steps = 0;
    let slots = kdbr.len();
    while next >= 0 {
        let slot = next as usize;
        let Some(e) = kdbr.get_mut(slot) else {
            problems.push(Problem::new(
                Severity::Error,
                ProblemClass::Kdbr,
                Some(dir + 2 * slot),
                format!("kdbr[{slot}]"),
                format!("free slot chain reaches slot {slot}, beyond the {slots} slots"),
            ));
            return;
        };
        if e.free || steps > slots {
            problems.push(Problem::new(
                Severity::Error,
                ProblemClass::Kdbr,
                Some(dir + 2 * slot),
                format!("kdbr[{slot}]"),
                "free slot chain loops",
            ));
            return;
        }
        e.free = true;
        next = e.kdbr as i16;
        steps += 1;
    }
}

/// A 6-byte big-endian rowid inside row data.
fn read_rowref(r: &mut Reader, at: usize, name: &str) -> Result<RowRef, ReadError> {
    let b = r.bytes(at, 6, name)?;
    let rr = RowRef {
        dba: Endian::Big.read_u32(b).unwrap_or_default(),
        slot: b
            .get(4..)
            .and_then(|s| Endian::Big.read_u16(s))
            .unwrap_or_default(),
    };
    r.show_last(format!("0x{:08x}.{:x}", rr.dba, rr.slot));
    Ok(rr)
}

/// Read one row piece at `p + entry.kdbr`; rows must end before `end` (the tail).
fn read_row(
    r: &mut Reader,
    p: usize,
    end: usize,
    tab: usize,
    row: usize,
    entry: &KdbrEntry,
    problems: &mut Vec<Problem>,
) -> Option<RowPiece> {
    let offset = p + usize::from(entry.kdbr);
    let owner = format!("tab {tab}, row {row}");
    let field = |f: &str| format!("{owner} {f}");
    if offset >= end {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Row,
            Some(p + KDBH_SIZE),
            format!("kdbr[{}]", entry.slot),
            format!(
                "row offset 0x{:x} (block offset {offset}) is outside the data area",
                entry.kdbr
            ),
        ));
        return None;
    }
    // A row must end within the data area: read it through a reader over
    // the block without its tail, so that overruns are errors here.
    r.set_context(Region::TupleHeader, Some(owner.clone()));
    let mut piece = RowPiece::unread(tab, row, entry, offset);
    let result = (|| -> Result<(), ReadError> {
        let within = |at: usize, len: usize, name: &str| -> Result<(), ReadError> {
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
        };
        within(offset, 2, "fb")?;
        piece.flag = r.u8(offset, "fb")?;
        r.show_last(format!(
            "0x{:02x} {}",
            piece.flag,
            names::row_flag_string(piece.flag)
        ));
        piece.lb = r.u8(offset + 1, "lb")?;
        r.show_last(format!("0x{:x}", piece.lb));
        if piece.deleted() {
            piece.tl = 2;
            return Ok(());
        }
        within(offset + 2, 1, "cc")?;
        let cc = r.u8(offset + 2, "cc")?;
        piece.cc = Some(cc);
        let mut at = offset + 3;
        let f = piece.flag;
        if f & 0x08 != 0 && f & 0x20 == 0 {
            within(at, 6, "hrid")?;
            piece.hrid = Some(read_rowref(r, at, "hrid")?);
            at += 6;
        }
        if f & 0x04 == 0 {
            within(at, 6, "nrid")?;
            piece.nrid = Some(read_rowref(r, at, "nrid")?);
            at += 6;
        }
        for c in 0..usize::from(cc) {
            let name = format!("col {c}");
            within(at, 1, &name)?;
            r.set_context(Region::TupleHeader, Some(owner.clone()));
            let lb = r.u8(at, &format!("col {c} len"))?;
            let (len, long_form, head) = match lb {
                0xff => (None, false, 1),
                0xfe => {
                    within(at + 1, 2, &name)?;
                    let l = r.u16(at + 1, &format!("col {c} len+"))?;
                    (Some(usize::from(l)), true, 3)
                }
                0xfb..=0xfd => {
                    problems.push(Problem::new(
                        Severity::Error,
                        ProblemClass::Row,
                        Some(at),
                        field(&format!("col {c}")),
                        format!(
                            "column length byte 0x{lb:02x} is not a length (0..0xfa, 0xfe, 0xff)"
                        ),
                    ));
                    piece.tl = at - offset;
                    return Ok(());
                }
                n => (Some(usize::from(n)), false, 1),
            };
            r.show_last(match len {
                None => "*NULL*".to_string(),
                Some(l) => format!("[{l}]"),
            });
            let data_at = at + head;
            let data = match len {
                Some(l) => {
                    within(data_at, l, &name)?;
                    r.set_context(Region::TupleData, Some(owner.clone()));
                    let d = r.bytes(data_at, l, &name)?.to_vec();
                    r.show_last(format!("{l} bytes"));
                    d
                }
                None => Vec::new(),
            };
            piece.cols.push(Column {
                col: c,
                offset: at,
                len,
                long_form,
                reads_as: reads_as(&data),
                data,
                value: None,
            });
            at = data_at + len.unwrap_or(0);
        }
        piece.tl = at - offset;
        Ok(())
    })();
    if let Err(e) = result {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Row,
            Some(e.offset),
            field(&e.field),
            format!(
                "kdbchk: row does not end within block: {} needs {} bytes at offset {}, the data area ends at {end}",
                e.field, e.needed, e.offset
            ),
        ));
        piece.tl = e.offset.saturating_sub(offset);
    }
    if piece.flag & 0xc0 != 0 {
        problems.push(Problem::new(
            Severity::Info,
            ProblemClass::Row,
            Some(offset),
            field("fb"),
            "cluster row piece (K/C flag): its key/table bookkeeping is not established; columns read as a plain row",
        ));
    }
    Some(piece)
}

/// Row placement and space accounting (`kdbchk`-like).
fn check_rows(
    h: &Kdbh,
    rows: &[RowPiece],
    kdbr: &[KdbrEntry],
    ktbbh: &Ktbbh,
    problems: &mut Vec<Problem>,
) {
    let p = h.offset;
    let fseo = usize::from(h.kdbhfseo);
    for row in rows {
        if usize::from(row.offs) < fseo {
            problems.push(Problem::new(
                Severity::Error,
                ProblemClass::Row,
                Some(row.offset),
                format!("kdbr[{}]", row.slot),
                format!(
                    "row at 0x{:x} lies inside free space (which ends at fseo 0x{fseo:x})",
                    row.offs
                ),
            ));
        }
        let itc = ktbbh.ktbbhitl.len();
        if usize::from(row.lb) > itc {
            problems.push(Problem::new(
                Severity::Error,
                ProblemClass::Row,
                Some(row.offset + 1),
                format!("tab {}, row {} lb", row.tab, row.row),
                format!("lock byte 0x{:x} names an ITL beyond itc {itc}", row.lb),
            ));
        }
    }
    // Overlaps between consecutive pieces, by offset.
    let mut sorted: Vec<&RowPiece> = rows.iter().collect();
    sorted.sort_by_key(|r| r.offs);
    let mut shared = 0usize;
    for pair in sorted.windows(2) {
        if let [a, b] = pair {
            if a.offs == b.offs {
                shared += 1;
                continue;
            }
            let a_end = usize::from(a.offs) + a.tl;
            if a_end > usize::from(b.offs) {
                problems.push(Problem::new(
                    Severity::Error,
                    ProblemClass::Row,
                    Some(p + usize::from(b.offs)),
                    format!("tab {}, row {}", b.tab, b.row),
                    format!(
                        "row at 0x{:x} overlaps the row at 0x{:x} ({} bytes, ending at 0x{a_end:x})",
                        b.offs, a.offs, a.tl
                    ),
                ));
            }
        }
    }
    if shared > 0 {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Kdbr,
            Some(p),
            "kdbr",
            format!("{shared} row directory entries point at a row another entry already uses"),
        ));
    }
    // Space accounting in the simple case: no deleted rows, no free slots, no
    // free space credit held by an open transaction, rows packed from fseo to
    // the end of the data area. Then the free space is exactly fseo − fsbo.
    let deleted = rows.iter().any(RowPiece::deleted);
    let free_slots = kdbr.iter().any(|e| e.free);
    let credit = ktbbh
        .ktbbhitl
        .iter()
        .any(|i| !i.committed() && i.ktbitun != 0);
    let packed: usize = rows.iter().map(|r| r.tl).sum();
    let contiguous = packed == h.tsiz.saturating_sub(fseo);
    // A compressed block's avsp is not fseo − fsbo (a published 10g basic
    // compression dump has avsp=0xd with 0xb59 bytes between fsbo and fseo).
    if !deleted
        && !free_slots
        && !credit
        && contiguous
        && h.kdbhfsbo <= h.kdbhfseo
        && !h.compressed()
    {
        let free = i32::from(h.kdbhfseo) - i32::from(h.kdbhfsbo);
        if i32::from(h.kdbhavsp) != free {
            problems.push(Problem::new(
                Severity::Error,
                ProblemClass::Kdbh,
                Some(p + 10),
                "kdbh.kdbhavsp",
                format!(
                    "kdbchk: the amount of space used is not equal to block size: \
                     used={} avsp={} dtl={} (free space fseo − fsbo is {free})",
                    usize::from(h.kdbhfsbo) + packed,
                    h.kdbhavsp,
                    h.tsiz
                ),
            ));
        }
    }
}
