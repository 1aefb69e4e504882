//! `export` of an Oracle datafile: the rows of one data object (`--object-id`,
//! the objd in each block's transaction header), from every table block of
//! the file. A row chained over several pieces is put back together where
//! its pieces are in the file (head piece → nrid → next piece); a migrated
//! row is written where its body lies. `--rows deleted` writes the pieces
//! whose flag byte has D: a DELETE sets only that flag, the columns stay.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

use crate::engine::{ColumnSpec, Columns, Engine};
use crate::error::Error;
use crate::model::oracle::names::{KDRHFC, KDRHFD, KDRHFF, KDRHFH, KDRHFK, KDRHFL, KDRHFN};
use crate::model::oracle::types::{OraCharset, OraColumns, OraType};
use crate::model::{ProblemClass, Severity};
use crate::parse::oracle::datatype::decode_value;
use crate::parse::oracle::rowbytes::{read_piece, PieceBytes};
use crate::parse::oracle::{parse_block, BlockOptions};
use crate::render::export::{Cell, CellKind, OutColumn, RowFormat};

use super::{
    output_closed, read_full, report_error, stdout_error, ExportConfig, ExportOptions, Rows, Sink,
};

/// Pieces of chained rows kept until their head is reassembled, at most.
const MAX_PIECES: usize = 1 << 20;
/// Pieces one row is followed through, at most (a row has at most 1000
/// columns, 255 a piece).
const MAX_CHAIN: usize = 64;

/// Run `export` on an Oracle datafile.
pub(crate) fn run(
    args: &ExportConfig,
    engine: Engine,
    opts: &ExportOptions,
    spec: Option<&ColumnSpec>,
    sink: &mut Sink,
) -> Result<ExitCode, Error> {
    let Some(objd) = args.object_id else {
        return Err(Error::Usage(
            "export of an Oracle datafile needs --object-id N (the table's data object id)".into(),
        ));
    };
    let charset: OraCharset = args.charset;
    let list = match engine.columns(spec, &[], None, charset)? {
        Some(Columns::Oracle { list, .. }) => list,
        _ => {
            return Err(Error::Usage(
                "export needs the table's columns: --columns LIST or --schema FILE".into(),
            ))
        }
    };
    let name = crate::escape::path(&args.input).to_string();
    let io_err = |source| Error::Io {
        path: args.input.clone(),
        source,
    };
    let mut file = crate::source::open_file(&args.input).map_err(io_err)?;
    let mut head = vec![0u8; 8192];
    let n = read_full(&mut file, &mut head).map_err(io_err)?;
    head.truncate(n);
    let block_size = opts
        .block_size
        .or_else(|| engine.block_size(&head))
        .unwrap_or(8192);
    let mut file = crate::source::open_file(&args.input).map_err(io_err)?;
    let mut evidence = opts
        .evidence
        .then(|| super::Evidence::start(&args.input, &file));

    let mut cols = Vec::new();
    if opts.system_columns {
        for n in ["block", "slot"] {
            cols.push(OutColumn {
                name: n.into(),
                extra: true,
            });
        }
    }
    if opts.rows == Rows::All {
        cols.push(OutColumn {
            name: "row_status".into(),
            extra: true,
        });
    }
    for (i, c) in list.cols.iter().enumerate() {
        cols.push(OutColumn {
            name: c.name.clone().unwrap_or_else(|| format!("col{}", i + 1)),
            extra: false,
        });
    }
    let table = args
        .table_name
        .clone()
        .unwrap_or_else(|| format!("restored_{objd}"));
    let fmt = RowFormat::new(opts.format, cols, &table);
    let mut w = Writer {
        fmt: &fmt,
        list: &list,
        charset,
        opts,
        buf: Vec::new(),
        rows: 0,
        skipped: 0,
        name: &name,
    };
    if opts.header {
        fmt.header(&mut w.buf);
    }
    let mut out = BufWriter::with_capacity(1 << 16, sink.out());

    let mut chained = Chained::default();
    let mut block = vec![0u8; block_size];
    let mut blkno = 0u64;
    loop {
        let got = read_full(&mut file, &mut block).map_err(io_err)?;
        if let Some(e) = evidence.as_mut() {
            e.read(&block[..got]);
        }
        if got < block_size {
            if got > 0 {
                w.skip(format!(
                    "block {blkno}: skipped: only {got} of {block_size} bytes (the file ends inside the block)"
                ));
            }
            break;
        }
        block_rows(&mut w, &block, blkno, objd, &mut chained);
        if let Err(e) = out.write_all(&w.buf) {
            return output_closed(stdout_error(e), w.skipped > 0);
        }
        w.buf.clear();
        blkno += 1;
    }
    write_chains(&mut w, &chained);
    if let Err(e) = out.write_all(&w.buf).and_then(|()| out.flush()) {
        return output_closed(stdout_error(e), w.skipped > 0);
    }
    if let Some(e) = evidence {
        super::write_provenance(vec![e.finish()]);
    }
    if w.skipped > 0 {
        report_error(&format!(
            "blockscope: {name}: {} rows written; skipped {} blocks or rows that could not be read\n",
            w.rows, w.skipped
        ));
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Row pieces kept for chained rows until the whole file is read.
#[derive(Default)]
struct Chained {
    /// Pieces that are not the first of their row, by (rdba, slot).
    pieces: HashMap<(u32, u16), PieceBytes>,
    /// First pieces of chained rows: (block, slot, piece).
    chains: Vec<(u64, usize, PieceBytes)>,
}

/// One block's rows of data object `objd`: whole rows (and with `--rows
/// deleted`/`all` deleted ones) written, the pieces of chained rows kept in
/// `chained`, what cannot be read skipped with its reason.
fn block_rows(w: &mut Writer, block: &[u8], blkno: u64, objd: u32, chained: &mut Chained) {
    let b = parse_block(
        block,
        &BlockOptions {
            blkno,
            endian: None,
        },
    );
    let ours = b.ktbbh.as_ref().is_some_and(|k| k.ktbbhsid == objd);
    if ours {
        let fatal: Vec<String> = b
            .problems
            .iter()
            .filter(|p| {
                p.severity == Severity::Error
                    && matches!(
                        p.class,
                        ProblemClass::Header
                            | ProblemClass::Checksum
                            | ProblemClass::Fractured
                            | ProblemClass::Corrupt
                            | ProblemClass::Kdbh
                    )
            })
            .map(|p| p.message.clone())
            .collect();
        if !fatal.is_empty() {
            w.skip(format!("block {blkno}: skipped: {}", fatal.join("; ")));
        } else if b.table.as_ref().is_some_and(|t| t.kdbh.compressed()) {
            // Basic/OLTP compression: rows are symbol-table references,
            // which the row-piece reader below does not follow.
            w.skip(format!(
                "block {blkno}: skipped: a compressed block (flag=-0------): export of its \
                 rows is not done; `show` expands them"
            ));
        } else if let (Some(t), Some(kcbh)) = (&b.table, &b.kcbh) {
            let end = block.len().saturating_sub(4);
            for row in &t.rows {
                let slot = row.slot;
                let p = match read_piece(block, row.offset, end) {
                    Ok(p) => p,
                    Err(e) => {
                        w.skip(format!("block {blkno} slot {slot}: skipped: {e}"));
                        continue;
                    }
                };
                if p.flag & (KDRHFK | KDRHFC) != 0 {
                    w.skip(format!(
                        "block {blkno} slot {slot}: skipped: a cluster row piece (its columns' positions are not established)"
                    ));
                    continue;
                }
                let first = p.flag & KDRHFF != 0;
                let last = p.flag & KDRHFL != 0;
                if p.flag & KDRHFD != 0 {
                    if w.opts.rows != Rows::Visible && first {
                        if !last {
                            super::progress::note(&format!(
                                "blockscope: note: {}: block {blkno} slot {slot}: a deleted row's first piece only (its other pieces are not followed)\n",
                                w.name
                            ));
                        }
                        w.row(blkno, slot, "deleted", &[&p]);
                    }
                    continue;
                }
                if w.opts.rows == Rows::Deleted {
                    continue;
                }
                match (first, last) {
                    (true, true) => w.row(blkno, slot, "live", &[&p]),
                    (true, false) => chained.chains.push((blkno, slot, p)),
                    (false, _) if p.flag & KDRHFH != 0 && p.cols.is_empty() => {
                        // The head of a migrated row: its body is elsewhere.
                    }
                    (false, _) => {
                        if chained.pieces.len() < MAX_PIECES {
                            chained.pieces.insert((kcbh.rdba_kcbh, slot as u16), p);
                        } else {
                            w.skip(format!(
                                "block {blkno} slot {slot}: skipped: more than {MAX_PIECES} row pieces kept for chained rows"
                            ));
                        }
                    }
                }
            }
        }
    }
}

/// Chained rows put back together (head → nrid → … → the piece with L)
/// and written, or skipped when a piece is not in the file.
fn write_chains(w: &mut Writer, chained: &Chained) {
    // Chained rows: head → nrid → … → the piece with L.
    for (blkno, slot, head) in &chained.chains {
        let mut parts: Vec<&PieceBytes> = vec![head];
        let mut next = head.nrid;
        let mut missing = None;
        while let Some(rid) = next {
            if parts.len() >= MAX_CHAIN {
                missing = Some(format!("more than {MAX_CHAIN} pieces"));
                break;
            }
            match chained.pieces.get(&rid) {
                Some(p) => {
                    parts.push(p);
                    next = if p.flag & KDRHFL != 0 { None } else { p.nrid };
                }
                None => {
                    missing = Some(format!(
                        "its next piece (dba 0x{:08x}, slot {}) is not in the file",
                        rid.0, rid.1
                    ));
                    break;
                }
            }
        }
        match missing {
            Some(why) => w.skip(format!(
                "block {blkno} slot {slot}: skipped: a chained row: {why}"
            )),
            None => w.row(*blkno, *slot, "live", &parts),
        }
    }
}

struct Writer<'a> {
    fmt: &'a RowFormat,
    list: &'a OraColumns,
    charset: OraCharset,
    opts: &'a ExportOptions,
    buf: Vec<u8>,
    rows: u64,
    skipped: u64,
    name: &'a str,
}

impl Writer<'_> {
    fn skip(&mut self, message: String) {
        report_error(&format!("blockscope: {}: {message}\n", self.name));
        self.skipped += 1;
    }

    /// One row from its pieces in order (a column split over two pieces,
    /// N flag, joined).
    fn row(&mut self, blkno: u64, slot: usize, status: &str, parts: &[&PieceBytes]) {
        let mut cols: Vec<Option<Vec<u8>>> = Vec::new();
        let mut join = false;
        for p in parts {
            for (i, c) in p.cols.iter().enumerate() {
                match (join && i == 0, cols.last_mut()) {
                    (true, Some(Some(prev))) => prev.extend_from_slice(c.as_deref().unwrap_or(&[])),
                    _ => cols.push(c.clone()),
                }
            }
            join = p.flag & KDRHFN != 0;
        }
        if cols.len() > self.list.cols.len() && !self.list.rest_ignored {
            self.skip(format!(
                "block {blkno} slot {slot}: skipped: the row has {} columns, the column list {}",
                cols.len(),
                self.list.cols.len()
            ));
            return;
        }
        let mut texts: Vec<(Option<String>, CellKind)> = Vec::with_capacity(self.list.cols.len());
        for (i, spec) in self.list.cols.iter().enumerate() {
            let Some(Some(data)) = cols.get(i) else {
                texts.push((None, CellKind::Text)); // NULL, or a trailing NULL not stored
                continue;
            };
            let numeric = matches!(
                spec.ty,
                OraType::Number { .. } | OraType::BinaryFloat | OraType::BinaryDouble
            );
            match decode_value(&spec.ty, data, self.charset) {
                Ok(Some(t)) => texts.push((
                    Some(t),
                    if numeric {
                        CellKind::Number
                    } else {
                        CellKind::Text
                    },
                )),
                Ok(None) => texts.push((
                    Some(data.iter().map(|b| format!("{b:02X}")).collect()),
                    CellKind::Text,
                )),
                Err(e) => {
                    let label = spec.name.clone().unwrap_or_else(|| format!("col{}", i + 1));
                    self.skip(format!(
                        "block {blkno} slot {slot}: skipped: column {} {label}: not a valid {}: {e}",
                        i + 1,
                        spec.ty.display()
                    ));
                    return;
                }
            }
        }
        let sys = [blkno.to_string(), slot.to_string()];
        let mut cells: Vec<Cell> = Vec::with_capacity(texts.len() + 3);
        if self.opts.system_columns {
            cells.push(Cell::number(&sys[0]));
            cells.push(Cell::number(&sys[1]));
        }
        if self.opts.rows == Rows::All {
            cells.push(Cell::text(status));
        }
        for (t, kind) in &texts {
            cells.push(Cell {
                text: t.as_deref(),
                kind: *kind,
            });
        }
        self.fmt.row(&cells, &mut self.buf);
        self.rows += 1;
    }
}
