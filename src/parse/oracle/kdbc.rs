//! Basic/OLTP-compressed table blocks: the 9iR2 compression header after
//! `kdbh`, the symbol table (table 0) and the data rows (table 1) whose stored
//! bytes (`bindmp:` in the dump) refer to symbol-table entries.
//!
//! ```text
//!  kdbh (14, flag 0x40) | 9iR2 header: 5 bytes ? | nfcls | nperm | flag_9ir2 |
//!  fcls_9ir2[nfcls] (2 each) | perm_9ir2[nperm] (1 each) | kdbt[2] | kdbr[nrow] | … rows
//! ```
//!
//! What published dumps establish (sources in `fixtures/oracle/README.md`):
//! the fixed part of the header is 8 bytes (`pti[0]` at 0x16 with
//! `fcls_9ir2[0]`, at 0x1e with `fcls_9ir2[4]`; `hsiz` = 22 + 2·nfcls + 4·ntab
//! + 2·nrow in both), with the counts and `flag_9ir2` in its last three bytes.
//!
//! A stored value is a piece: `0x00..=0xc7` refers to symbol-table row N,
//! `0xc8..=0xf9` is a value of length byte − 200 that follows, `0xfa` a
//! value whose length follows in 2 big-endian bytes, `0xff` SQL NULL.
//! A symbol-table row has no flag or lock byte: a 2-byte big-endian count of
//! the rows using it, then (when the next byte is below 0xc8) its column
//! count, else one column, then its pieces. A data row has the flag and lock
//! bytes, then either its column count and that many pieces, or (when the
//! byte after it is below 0xc8) the number of pieces and then the column
//! count. Both forms are accepted only when the pieces add up to exactly the
//! column count; a row that fits neither is shown as its bytes, not expanded.

use crate::model::oracle::{Column, Kdbh9ir2, KdbrEntry, Kdbt, RowPiece, KDBH9IR2_FIXED};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{Endian, ReadError, Reader};

use super::columns::reads_as;
use crate::model::oracle::names;

/// Nesting of symbol-table references followed when expanding a row.
const MAX_DEPTH: usize = 8;

/// Read the 9iR2 compression header at block offset `at` (right after
/// `kdbh`).
pub(crate) fn read_9ir2(r: &mut Reader, at: usize) -> Result<Kdbh9ir2, ReadError> {
    r.set_context(Region::Header, None);
    let unknown = r
        .bytes(at, 5, "kdbh9ir2 (fields not established)")?
        .to_vec();
    let nfcls = r.u8(at + 5, "kdbh9ir2 fcls_9ir2 count")?;
    let nperm = r.u8(at + 6, "kdbh9ir2 perm_9ir2 count")?;
    let flag_9ir2 = r.u8(at + 7, "flag_9ir2")?;
    r.show_last(names::flag_9ir2_string(flag_9ir2));
    let mut fcls_9ir2 = Vec::with_capacity(usize::from(nfcls));
    let base = at + KDBH9IR2_FIXED;
    for i in 0..usize::from(nfcls) {
        fcls_9ir2.push(r.u16(base + 2 * i, &format!("fcls_9ir2[{i}]"))?);
    }
    let pbase = base + 2 * usize::from(nfcls);
    let mut perm_9ir2 = Vec::with_capacity(usize::from(nperm));
    for i in 0..usize::from(nperm) {
        perm_9ir2.push(r.u8(pbase + i, &format!("perm_9ir2[{i}]"))?);
    }
    Ok(Kdbh9ir2 {
        unknown,
        flag_9ir2,
        fcls_9ir2,
        perm_9ir2,
        size: KDBH9IR2_FIXED + 2 * usize::from(nfcls) + usize::from(nperm),
        ..Kdbh9ir2::default()
    })
}

/// One stored piece of a compressed row.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    /// A reference to symbol-table row N (at block offset `at`).
    Token { at: usize, row: usize },
    /// SQL NULL.
    Null { at: usize },
    /// A value stored in place; `long` for the 0xfa form.
    Value {
        at: usize,
        long: bool,
        data: Vec<u8>,
    },
}

/// Column count of symbol-table row `row` from its header alone.
fn symbol_cc(data: &[u8], p: usize, symbols: &[Option<u16>], row: usize) -> Option<usize> {
    let offs = usize::from((*symbols.get(row)?)?);
    let b = *data.get(p + offs + 2)?;
    // A symbol-table row of no columns is not a row: refused, which also
    // makes every piece add at least one column (at most 255 pieces a row).
    Some(if b < 0xc8 { usize::from(b) } else { 1 }).filter(|&cc| cc > 0)
}

/// Read pieces from `at` until they make `cc` columns; `None` when they do
/// not (a length byte that is not established, a reference to a missing
/// symbol, more columns than `cc`, or the end of the data area).
fn pieces(
    data: &[u8],
    p: usize,
    end: usize,
    symbols: &[Option<u16>],
    mut at: usize,
    cc: usize,
    max_pieces: Option<usize>,
) -> Option<(Vec<Piece>, usize)> {
    let mut out = Vec::new();
    let mut cols = 0usize;
    while cols < cc {
        if max_pieces.is_some_and(|m| out.len() >= m) {
            return None;
        }
        let b = *data.get(at).filter(|_| at < end)?;
        match b {
            0x00..=0xc7 => {
                let row = usize::from(b);
                cols += symbol_cc(data, p, symbols, row)?;
                out.push(Piece::Token { at, row });
                at += 1;
            }
            0xc8..=0xf9 => {
                let len = usize::from(b - 200);
                let bytes = data
                    .get(at + 1..at + 1 + len)
                    .filter(|_| at + 1 + len <= end)?;
                out.push(Piece::Value {
                    at,
                    long: false,
                    data: bytes.to_vec(),
                });
                cols += 1;
                at += 1 + len;
            }
            0xfa => {
                let hi = *data.get(at + 1)?;
                let lo = *data.get(at + 2)?;
                let len = usize::from(Endian::Big.u16_from([hi, lo]));
                let bytes = data
                    .get(at + 3..at + 3 + len)
                    .filter(|_| at + 3 + len <= end)?;
                out.push(Piece::Value {
                    at,
                    long: true,
                    data: bytes.to_vec(),
                });
                cols += 1;
                at += 3 + len;
            }
            0xff => {
                out.push(Piece::Null { at });
                cols += 1;
                at += 1;
            }
            _ => return None,
        }
    }
    (cols == cc && max_pieces.is_none_or(|m| out.len() == m)).then_some((out, at))
}

/// A row as read: its piece, and the pieces to expand (`None`: not expanded).
struct Read {
    piece: RowPiece,
    pieces: Option<Vec<Piece>>,
}

/// Bytes from `offset` to the next row (or the end of the data area): the
/// stored bytes shown for a row that could not be read piece by piece.
fn to_next_row(offset: usize, end: usize, starts: &[usize]) -> usize {
    starts
        .iter()
        .copied()
        .filter(|&s| s > offset)
        .min()
        .unwrap_or(end)
        .min(end)
}

/// Read and expand every row of a compressed block: table 0 is the symbol
/// table, table 1 the data. Rows are returned in table order.
pub(crate) fn read_rows(
    r: &mut Reader,
    p: usize,
    end: usize,
    kdbt: &[Kdbt],
    kdbr: &[KdbrEntry],
    problems: &mut Vec<Problem>,
) -> Vec<RowPiece> {
    let data = r.data();
    let slot = |t: &Kdbt, row: usize| kdbr.get(usize::from(t.kdbtoffs) + row);
    let symbols: Vec<Option<u16>> = kdbt.first().map_or_else(Vec::new, |t| {
        (0..usize::from(t.kdbtnrow))
            .map(|i| slot(t, i).filter(|e| !e.free).map(|e| e.kdbr))
            .collect()
    });
    let starts: Vec<usize> = kdbr
        .iter()
        .filter(|e| !e.free)
        .map(|e| p + usize::from(e.kdbr))
        .collect();
    let mut read: Vec<Read> = Vec::new();
    for t in kdbt {
        for row in 0..usize::from(t.kdbtnrow) {
            let Some(entry) = slot(t, row) else { break };
            if entry.free {
                continue;
            }
            let mut piece = RowPiece::unread(t.table, row, entry, p + usize::from(entry.kdbr));
            let offset = piece.offset;
            if offset + 2 > end {
                problems.push(Problem::new(
                    Severity::Error,
                    ProblemClass::Row,
                    Some(p),
                    format!("kdbr[{}]", entry.slot),
                    format!(
                        "row offset 0x{:x} (block offset {offset}) is outside the data area",
                        entry.kdbr
                    ),
                ));
                continue;
            }
            let parsed = if t.table == 0 {
                // Symbol-table row: no flag or lock byte is stored; the dump
                // prints it as a whole row.
                piece.flag = 0x2c;
                let head = data.get(offset + 2).copied();
                head.and_then(|b| {
                    let (cc, first) = if b < 0xc8 {
                        (usize::from(b), offset + 3)
                    } else {
                        (1, offset + 2)
                    };
                    pieces(data, p, end, &symbols, first, cc, None).map(|(v, at)| (cc, v, at))
                })
            } else {
                piece.flag = data.get(offset).copied().unwrap_or(0);
                piece.lb = data.get(offset + 1).copied().unwrap_or(0);
                if piece.deleted() {
                    piece.tl = 2;
                    piece.bindmp = data.get(offset..offset + 2).map(<[u8]>::to_vec);
                    read.push(Read {
                        piece,
                        pieces: Some(Vec::new()),
                    });
                    continue;
                }
                let a = data.get(offset + 2).copied().map(usize::from);
                let b = data.get(offset + 3).copied();
                a.and_then(|a| {
                    let counted = b.filter(|&b| b < 0xc8).and_then(|b| {
                        let cc = usize::from(b);
                        pieces(data, p, end, &symbols, offset + 4, cc, Some(a))
                            .map(|(v, at)| (cc, v, at))
                    });
                    counted.or_else(|| {
                        pieces(data, p, end, &symbols, offset + 3, a, None)
                            .map(|(v, at)| (a, v, at))
                    })
                })
            };
            r.set_context(
                Region::TupleData,
                Some(format!("tab {}, row {row}", t.table)),
            );
            match parsed {
                Some((cc, v, stop)) => {
                    piece.cc = u8::try_from(cc).ok();
                    piece.tl = stop - offset;
                    piece.bindmp = data.get(offset..stop).map(<[u8]>::to_vec);
                    r.mark(offset, piece.tl, "bindmp", format!("{cc} columns"));
                    read.push(Read {
                        piece,
                        pieces: Some(v),
                    });
                }
                None => {
                    let stop = to_next_row(offset, end, &starts);
                    piece.tl = stop - offset;
                    piece.bindmp = data.get(offset..stop).map(<[u8]>::to_vec);
                    r.mark(offset, piece.tl, "bindmp", "not expanded".to_string());
                    problems.push(Problem::new(
                        Severity::Info,
                        ProblemClass::Row,
                        Some(offset),
                        format!("tab {}, row {row}", t.table),
                        "compressed row not expanded: its stored bytes do not read as a \
                         symbol-table row or data row of the established forms \
                         (shown as bindmp up to the next row)",
                    ));
                    read.push(Read {
                        piece,
                        pieces: None,
                    });
                }
            }
        }
    }
    // Expand: symbol-table rows first are all read, so references resolve
    // in any order.
    let table0: Vec<Option<&Vec<Piece>>> = {
        let mut v = vec![None; symbols.len()];
        for rd in read.iter().filter(|rd| rd.piece.tab == 0) {
            if let (Some(slot), Some(ps)) = (v.get_mut(rd.piece.row), rd.pieces.as_ref()) {
                *slot = Some(ps);
            }
        }
        v
    };
    let mut out = Vec::with_capacity(read.len());
    let mut unresolved = Vec::new();
    for rd in &read {
        let mut piece = rd.piece.clone();
        if let Some(ps) = &rd.pieces {
            let mut cols = Vec::new();
            if expand(ps, &table0, 0, &mut cols) {
                for (i, c) in cols.iter_mut().enumerate() {
                    c.col = i;
                }
                piece.cols = cols;
            } else {
                unresolved.push((piece.tab, piece.row, piece.offset));
            }
        }
        out.push(piece);
    }
    for (tab, row, offset) in unresolved {
        problems.push(Problem::new(
            Severity::Info,
            ProblemClass::Row,
            Some(offset),
            format!("tab {tab}, row {row}"),
            "compressed row not expanded: a symbol-table reference does not resolve \
             (missing entry or references nested deeper than 8)",
        ));
    }
    out
}

/// Append the columns `ps` stand for; false when a reference does not resolve.
fn expand(
    ps: &[Piece],
    table0: &[Option<&Vec<Piece>>],
    depth: usize,
    out: &mut Vec<Column>,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    for pc in ps {
        match pc {
            Piece::Token { row, .. } => {
                let Some(Some(sym)) = table0.get(*row) else {
                    return false;
                };
                if !expand(sym, table0, depth + 1, out) {
                    return false;
                }
            }
            Piece::Null { at } => out.push(Column {
                col: 0,
                offset: *at,
                len: None,
                long_form: false,
                data: Vec::new(),
                value: None,
                reads_as: String::new(),
            }),
            Piece::Value { at, long, data } => out.push(Column {
                col: 0,
                offset: *at,
                len: Some(data.len()),
                long_form: *long,
                reads_as: reads_as(data),
                data: data.clone(),
                value: None,
            }),
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::Endian;

    /// Rows at the end of an 8 KiB block: Martin Preiss's 11.2 dump
    /// (hex at 0x1fd0..0x1fff): a one-column data row `2c 00 01 01 00` and
    /// the symbol-table row `02 cf e9` + 33 bytes.
    fn preiss_tail() -> (Vec<u8>, usize, usize) {
        let mut block = vec![0u8; 8192];
        let p = 0; // offsets below are relative to a header at 0
        let row1 = 0x1fd3;
        let sym = 0x1fd8;
        block[row1..row1 + 5].copy_from_slice(&[0x2c, 0x00, 0x01, 0x01, 0x00]);
        let mut s = vec![0x02, 0xcf, 0xe9];
        s.extend(std::iter::repeat_n(b'a', 26));
        s.extend_from_slice(b"1000000");
        block[sym..sym + s.len()].copy_from_slice(&s);
        (block, p, sym + s.len())
    }

    #[test]
    fn symbol_row_and_data_row_from_a_published_block() {
        let (block, p, end) = preiss_tail();
        let kdbt = [
            Kdbt {
                table: 0,
                kdbtoffs: 0,
                kdbtnrow: 1,
            },
            Kdbt {
                table: 1,
                kdbtoffs: 1,
                kdbtnrow: 1,
            },
        ];
        let kdbr = [
            KdbrEntry {
                slot: 0,
                kdbr: 0x1fd8,
                free: false,
            },
            KdbrEntry {
                slot: 1,
                kdbr: 0x1fd3,
                free: false,
            },
        ];
        let mut r = Reader::new(&block, Endian::Little);
        let mut problems = Vec::new();
        let rows = read_rows(&mut r, p, end, &kdbt, &kdbr, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(rows.len(), 2);
        let sym = &rows[0];
        assert_eq!((sym.tab, sym.tl, sym.cc), (0, 36, Some(1)));
        assert_eq!(sym.cols.len(), 1);
        assert_eq!(sym.cols[0].data.len(), 33);
        assert_eq!(&sym.cols[0].data[26..], b"1000000");
        let d = &rows[1];
        assert_eq!((d.tab, d.tl, d.cc, d.flag), (1, 5, Some(1), 0x2c));
        assert_eq!(d.cols, sym.cols);
        assert_eq!(d.bindmp.as_deref(), Some(&[0x2c, 0, 1, 1, 0][..]));
    }

    #[test]
    fn nested_references_expand_and_bad_ones_do_not() {
        // dbatools.net's shape: symbol row 1 = row 0's columns plus one value.
        let mut block = vec![0u8; 512];
        let row0 = [0x00, 0x02, 0x02, 0xc9, 0x4e, 0xff];
        let row1 = [0x00, 0x02, 0x03, 0x00, 0xc9, 0x4f];
        let data = [0x2c, 0x00, 0x01, 0x03, 0x01];
        block[100..106].copy_from_slice(&row0);
        block[110..116].copy_from_slice(&row1);
        block[120..125].copy_from_slice(&data);
        block[125..130].copy_from_slice(&[0x2c, 0x00, 0x01, 0x03, 0x07]);
        let kdbt = [
            Kdbt {
                table: 0,
                kdbtoffs: 0,
                kdbtnrow: 2,
            },
            Kdbt {
                table: 1,
                kdbtoffs: 2,
                kdbtnrow: 2,
            },
        ];
        let kdbr: Vec<KdbrEntry> = [100u16, 110, 120, 125]
            .iter()
            .enumerate()
            .map(|(slot, &kdbr)| KdbrEntry {
                slot,
                kdbr,
                free: false,
            })
            .collect();
        let mut r = Reader::new(&block, Endian::Little);
        let mut problems = Vec::new();
        let rows = read_rows(&mut r, 0, 508, &kdbt, &kdbr, &mut problems);
        let d = &rows[2];
        assert_eq!(d.cc, Some(3));
        let lens: Vec<Option<usize>> = d.cols.iter().map(|c| c.len).collect();
        assert_eq!(lens, [Some(1), None, Some(1)]);
        assert_eq!(d.cols[2].data, [0x4f]);
        // Token 7 does not exist: the row is shown as bytes, reported as not expanded.
        assert!(rows[3].cols.is_empty());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].severity, Severity::Info);
    }
}
