//! A DBVERIFY-style report of an Oracle datafile: the failing blocks with the
//! messages DBVERIFY uses for them (`Page N is marked corrupt`, `Corrupt block
//! relative dba: …`, `Fractured block found during dbv:`, `Data in bad block:`),
//! each of blockscope's problems under them, then DBVERIFY's summary lines.

use std::io::{self, Write};

use crate::model::oracle::{OracleKind, Rdba};
use crate::model::{Problem, ProblemClass, Severity};
use crate::parse::oracle::verify::{BlockReport, DbvSummary, CACHE_CLASSES};

use super::problems::{self, Line};

/// Write the report for `file`. `reports` may hold every block; only failing
/// ones are printed, each block's problems through the problem budget
/// (repeats collapsed, at most [`problems::LINES_PER_BLOCK`] lines) unless
/// `all_problems`.
pub fn write_dbv_report(
    out: &mut dyn Write,
    file: &str,
    reports: &[BlockReport],
    summary: &DbvSummary,
    all_problems: bool,
) -> io::Result<()> {
    writeln!(
        out,
        "DBVERIFY-style verification (blockscope) : FILE = {file}"
    )?;
    writeln!(out)?;
    for r in reports.iter().filter(|r| r.failed()) {
        write_block(out, r, all_problems)?;
        writeln!(out)?;
    }
    writeln!(out, "DBVERIFY - Verification complete")?;
    writeln!(out)?;
    write_summary(out, summary)
}

fn write_block(out: &mut dyn Write, r: &BlockReport, all_problems: bool) -> io::Result<()> {
    let n = r.blkno;
    let fractured = r.has_class(ProblemClass::Fractured);
    let corrupt = CACHE_CLASSES.iter().any(|&c| r.has_class(c));
    if fractured {
        writeln!(out, "Page {n} is influx - most likely media corrupt")?;
    } else if corrupt {
        writeln!(out, "Page {n} is marked corrupt")?;
    }
    if let Some(h) = &r.kcbh {
        let (f, b) = Rdba(h.rdba_kcbh).split(false);
        if fractured || corrupt {
            writeln!(
                out,
                "Corrupt block relative dba: 0x{:08x} (file {f}, block {b})",
                h.rdba_kcbh
            )?;
        }
        if fractured {
            writeln!(out, "Fractured block found during dbv:")?;
        } else if r.has_class(ProblemClass::Checksum) {
            writeln!(out, "Bad check value found during dbv:")?;
        } else if r.has_class(ProblemClass::Header) {
            writeln!(out, "Bad header found during dbv:")?;
        } else if r.has_class(ProblemClass::Corrupt) {
            writeln!(out, "Block is marked corrupt (seq 0xff):")?;
        } else {
            let what = match r.kind {
                OracleKind::Table | OracleKind::TransData => "KTB-managed data block",
                OracleKind::IndexLeaf | OracleKind::IndexBranch => "KTB-managed index block",
                _ => "other block",
            };
            writeln!(
                out,
                "Block Checking: DBA = {}, Block Type = {what}",
                h.rdba_kcbh
            )?;
        }
        if fractured || corrupt {
            writeln!(out, "Data in bad block:")?;
            writeln!(
                out,
                " type: {} format: {} rdba: 0x{:08x}",
                h.type_kcbh,
                h.frmt_kcbh & 0x0f,
                h.rdba_kcbh
            )?;
            let scn = h.scn();
            writeln!(
                out,
                " last change scn: 0x{:04x}.{:08x} seq: 0x{:x} flg: 0x{:02x}",
                scn.wrap(),
                scn.kscnbas,
                h.seq_kcbh,
                h.flg_kcbh
            )?;
            writeln!(
                out,
                " spare1: 0x{:x} spare2: 0x{:x} spare3: 0x{:x}",
                h.spare1_kcbh, h.spare2_kcbh, h.spare3_kcbh
            )?;
            if let Some(t) = r.tailchk {
                writeln!(out, " consistency value in tail: 0x{t:08x}")?;
            }
            writeln!(out, " check value in block header: 0x{:x}", h.chkval_kcbh)?;
            if let Some(c) = r.checksum {
                if c.enabled {
                    writeln!(
                        out,
                        " computed block checksum: 0x{:x}",
                        c.stored ^ c.computed
                    )?;
                }
            }
        }
    } else if r.kind == OracleKind::Unknown {
        writeln!(out, "Page {n}: not an Oracle cache block")?;
    }
    let shown: Vec<&Problem> = r
        .problems
        .iter()
        .filter(|p| p.severity != Severity::Info)
        .collect();
    for line in problems::lines(&shown, all_problems) {
        match line {
            Line::Problem { problem: p, more } => {
                let at = p.offset.map_or(String::new(), |o| format!(" @{o}"));
                writeln!(
                    out,
                    "  {} {}{at} [{}]: {}{}",
                    p.severity.as_str(),
                    p.field,
                    p.class,
                    p.message,
                    problems::more_suffix(more)
                )?;
            }
            Line::Omitted { problems: n, kinds } => {
                writeln!(out, "  {}", problems::omitted_text(n, kinds))?
            }
        }
    }
    if !fractured && !corrupt {
        writeln!(out, "Page {n} failed with logical checks")?;
    }
    Ok(())
}

/// DBVERIFY's summary lines.
pub fn write_summary(out: &mut dyn Write, s: &DbvSummary) -> io::Result<()> {
    writeln!(
        out,
        "Total Pages Examined         : {}",
        s.total_pages_examined
    )?;
    writeln!(out, "Total Pages Processed (Data) : {}", s.processed_data)?;
    writeln!(out, "Total Pages Failing   (Data) : {}", s.failing_data)?;
    writeln!(out, "Total Pages Processed (Index): {}", s.processed_index)?;
    writeln!(out, "Total Pages Failing   (Index): {}", s.failing_index)?;
    writeln!(out, "Total Pages Processed (Other): {}", s.processed_other)?;
    if s.failing_other > 0 {
        writeln!(out, "Total Pages Failing   (Other): {}", s.failing_other)?;
    }
    writeln!(out, "Total Pages Processed (Seg)  : 0")?;
    writeln!(out, "Total Pages Failing   (Seg)  : 0")?;
    writeln!(out, "Total Pages Empty            : {}", s.empty)?;
    writeln!(out, "Total Pages Marked Corrupt   : {}", s.marked_corrupt)?;
    writeln!(out, "Total Pages Influx           : {}", s.influx)?;
    writeln!(out, "Total Pages Encrypted        : {}", s.encrypted)?;
    match (s.highest_scn, s.highest_scn_wrap, s.highest_scn_base) {
        (Some(v), Some(w), Some(b)) => {
            writeln!(out, "Highest block SCN            : {v} ({w}.{b})")
        }
        _ => writeln!(out, "Highest block SCN            : 0 (0.0)"),
    }
}
