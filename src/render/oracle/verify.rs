//! A DBVERIFY-style report of an Oracle datafile: the failing blocks with the
//! messages DBVERIFY uses for them (`Page N is marked corrupt`, `Corrupt block
//! relative dba: …`, `Fractured block found during dbv:`, `Data in bad block:`),
//! each of blockscope's problems under them, then DBVERIFY's summary lines.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::oracle::verify::{BlockReport, DbvSummary, CACHE_CLASSES};
use crate::model::oracle::{OracleKind, Rdba};
use crate::model::postgres::verify::{Provenance, ProvenanceInput};
use crate::model::{Problem, ProblemClass, Severity};

use crate::render::problems::{self, Line};

use crate::render::report::{DocumentWriter, SummaryLine, VerifyFormat, SCHEMA};
use crate::render::write::write_line;
use crate::verify::Report;

/// The engine these reports are of, as verify's JSON names it.
const ENGINE: &str = "oracle";

/// One problem of an Oracle block, placed in its file (the PostgreSQL
/// problem's fields without `file_offset`).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct OracleProblemJson {
    pub file: String,
    pub blkno: u64,
    pub offset: Option<usize>,
    pub field: String,
    pub class: &'static str,
    pub severity: Severity,
    pub message: String,
}

/// The summary of a run over Oracle inputs: clean overall, and DBVERIFY's
/// tallies per file.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct OracleRunSummary {
    /// No file has a failing block.
    pub clean: bool,
    /// Files checked.
    pub files: u64,
    pub per_file: Vec<FileSummary>,
    /// `--evidence`: blockscope's version, the arguments, and per input its
    /// path, size, mtime and SHA-256 of exactly the bytes read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

/// DBVERIFY's tallies for one file.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct FileSummary {
    pub file: String,
    pub clean: bool,
    #[serde(flatten)]
    pub summary: DbvSummary,
}

/// Writes the report of a run over Oracle datafiles and traces as it goes:
/// the DBVERIFY-style text per file, or the run's one JSON document, or
/// NDJSON. Each failing block is written when it is found
/// ([`OracleVerifyPrinter::block`]); nothing grows with the number of
/// failing blocks.
pub(crate) struct OracleVerifyPrinter<W: Write> {
    out: W,
    format: VerifyFormat,
    /// `json` only: the one document, streamed.
    document: DocumentWriter,
    summary: OracleRunSummary,
    /// Text: every problem on its own line (no problem budget).
    all_problems: bool,
    /// Text: the current file's heading was written.
    heading: bool,
}

impl<W: Write> OracleVerifyPrinter<W> {
    pub(crate) fn new(out: W, format: VerifyFormat) -> Self {
        OracleVerifyPrinter {
            out,
            format,
            document: DocumentWriter::new(ENGINE),
            summary: OracleRunSummary {
                clean: true,
                files: 0,
                per_file: Vec::new(),
                provenance: None,
            },
            all_problems: false,
            heading: false,
        }
    }

    /// Text: print every problem, not the budgeted, collapsed lines.
    pub(crate) fn all_problems(mut self, all: bool) -> Self {
        self.all_problems = all;
        self
    }

    /// Text: the file's heading, once (written at its first failing block
    /// or at its summary, so a file that turns out unreadable prints none).
    fn heading(&mut self, file: &str) -> io::Result<()> {
        if self.format == VerifyFormat::Text && !self.heading {
            self.heading = true;
            write_heading(&mut self.out, file)?;
        }
        Ok(())
    }

    /// `--evidence`: keep a provenance block for the run.
    pub(crate) fn evidence(mut self, arguments: Vec<String>) -> Self {
        self.summary.provenance = Some(Provenance {
            blockscope: env!("CARGO_PKG_VERSION").to_string(),
            arguments,
            inputs: Vec::new(),
        });
        self
    }

    /// `--evidence`: one input as it was read.
    pub(crate) fn input_read(&mut self, input: ProvenanceInput) {
        if let Some(p) = self.summary.provenance.as_mut() {
            p.inputs.push(input);
        }
    }

    /// A file, or a block of it (`blkno`), that could not be read: a problem
    /// of class `io`; the run goes on and is not clean.
    pub(crate) fn io_problem(
        &mut self,
        file: &str,
        blkno: Option<u64>,
        message: &str,
    ) -> io::Result<()> {
        self.summary.clean = false;
        let p = OracleProblemJson {
            file: file.to_string(),
            blkno: blkno.unwrap_or(0),
            offset: None,
            field: if blkno.is_some() { "block" } else { "file" }.to_string(),
            class: ProblemClass::Io.as_str(),
            severity: Severity::Error,
            message: message.to_string(),
        };
        match self.format {
            VerifyFormat::Text => {
                self.heading(file)?;
                match blkno {
                    Some(n) => writeln!(self.out, "Page {n} could not be read")?,
                    None => writeln!(self.out, "The file could not be read")?,
                }
                writeln!(self.out, "  error {} [io]: {message}", p.field)?;
                writeln!(self.out)?;
                if blkno.is_none() {
                    // No summary follows for a file that was never read.
                    self.heading = false;
                }
                Ok(())
            }
            VerifyFormat::Ndjson => write_line(&mut self.out, &p),
            VerifyFormat::Json => self.document.problem(&mut self.out, &p),
        }
    }

    /// One block of `file`, written now if it failed.
    pub(crate) fn block(&mut self, file: &str, r: &BlockReport) -> io::Result<()> {
        if !r.failed() {
            return Ok(());
        }
        match self.format {
            VerifyFormat::Text => {
                self.heading(file)?;
                write_block(&mut self.out, r, self.all_problems)?;
                writeln!(self.out)
            }
            VerifyFormat::Ndjson => {
                for p in block_problems(file, r) {
                    write_line(&mut self.out, &p)?;
                }
                Ok(())
            }
            VerifyFormat::Json => {
                for p in block_problems(file, r) {
                    self.document.problem(&mut self.out, &p)?;
                }
                Ok(())
            }
        }
    }

    /// The [`Report`] of one file's blocks: each failing block written
    /// under `file` as the checker finds it.
    pub(crate) fn file_report<'a>(&'a mut self, file: &'a str) -> FileReport<'a, W> {
        FileReport {
            printer: self,
            file,
        }
    }

    /// The end of one file: its tallies (text: DBVERIFY's summary lines).
    pub(crate) fn file_done(&mut self, file: &str, summary: &DbvSummary) -> io::Result<()> {
        if self.format == VerifyFormat::Text {
            self.heading(file)?;
            write_footer(&mut self.out, summary)?;
        }
        self.heading = false;
        self.summary.clean &= summary.clean();
        self.summary.files += 1;
        self.summary.per_file.push(FileSummary {
            file: file.to_string(),
            clean: summary.clean(),
            summary: summary.clone(),
        });
        Ok(())
    }

    /// Write the run's summary (JSON and NDJSON) and flush; whether every
    /// file was clean.
    pub(crate) fn finish(mut self) -> io::Result<bool> {
        match self.format {
            VerifyFormat::Text => {
                if let Some(p) = &self.summary.provenance {
                    crate::render::postgres::verify::write_provenance(&mut self.out, p)?;
                }
            }
            VerifyFormat::Ndjson => write_line(
                &mut self.out,
                &SummaryLine {
                    schema: SCHEMA,
                    engine: ENGINE,
                    summary: &self.summary,
                },
            )?,
            VerifyFormat::Json => {
                let document = std::mem::replace(&mut self.document, DocumentWriter::new(ENGINE));
                document.finish(&mut self.out, &self.summary)?
            }
        }
        self.out.flush()?;
        Ok(self.summary.clean)
    }
}

/// One file's blocks reported to an [`OracleVerifyPrinter`] (see
/// [`OracleVerifyPrinter::file_report`]).
pub(crate) struct FileReport<'a, W: Write> {
    printer: &'a mut OracleVerifyPrinter<W>,
    file: &'a str,
}

impl<W: Write> Report<BlockReport> for FileReport<'_, W> {
    fn problem(&mut self, block: &BlockReport) -> io::Result<()> {
        self.printer.block(self.file, block)
    }
}

/// The problems of a failing block, placed in `file`.
fn block_problems<'a>(
    file: &'a str,
    r: &'a BlockReport,
) -> impl Iterator<Item = OracleProblemJson> + 'a {
    r.problems.iter().map(move |p| OracleProblemJson {
        file: file.to_string(),
        blkno: r.blkno,
        offset: p.offset,
        field: p.field.clone(),
        class: p.class.as_str(),
        severity: p.severity,
        message: p.message.clone(),
    })
}

fn write_heading(out: &mut dyn Write, file: &str) -> io::Result<()> {
    writeln!(
        out,
        "DBVERIFY-style verification (blockscope) : FILE = {file}"
    )?;
    writeln!(out)
}

fn write_footer(out: &mut dyn Write, summary: &DbvSummary) -> io::Result<()> {
    writeln!(out, "DBVERIFY - Verification complete")?;
    writeln!(out)?;
    write_summary(out, summary)
}

/// Write the report for `file`. `reports` may hold every block; only failing
/// ones are printed, each block's problems through the problem budget
/// (repeats collapsed, at most 25 (`LINES_PER_BLOCK`) lines) unless
/// `all_problems`.
pub fn write_dbv_report(
    out: &mut dyn Write,
    file: &str,
    reports: &[BlockReport],
    summary: &DbvSummary,
    all_problems: bool,
) -> io::Result<()> {
    write_heading(out, file)?;
    for r in reports.iter().filter(|r| r.failed()) {
        write_block(out, r, all_problems)?;
        writeln!(out)?;
    }
    write_footer(out, summary)
}

fn write_block(out: &mut dyn Write, r: &BlockReport, all_problems: bool) -> io::Result<()> {
    let n = r.blkno;
    let fractured = r.has_class(ProblemClass::Fractured);
    let zero = r.kind == OracleKind::Zero && r.has_class(ProblemClass::ZeroPage);
    let corrupt = CACHE_CLASSES.iter().any(|&c| r.has_class(c));
    if fractured {
        writeln!(out, "Page {n} is influx - most likely media corrupt")?;
    } else if corrupt {
        writeln!(out, "Page {n} is marked corrupt")?;
    }
    if zero {
        // DBVERIFY names the block by the rdba it should have.
        let file = r.rel_file.unwrap_or(0);
        let rdba = if file == 1024 {
            n as u32
        } else {
            (file << 22) | (n as u32 & 0x003f_ffff)
        };
        writeln!(
            out,
            "Corrupt block relative dba: 0x{rdba:08x} (file {file}, block {n})"
        )?;
        writeln!(out, "Completely zero block found during dbv:")?;
    } else if let Some(h) = &r.kcbh {
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
            // DBVERIFY says "KTB-managed data block" for index blocks too.
            let what = match r.kind {
                OracleKind::Table
                | OracleKind::TransData
                | OracleKind::IndexLeaf
                | OracleKind::IndexBranch => "KTB-managed data block",
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
        match r.check_code() {
            Some(code) => {
                if code == 6401 {
                    writeln!(out, "---- end index block validation")?;
                }
                writeln!(out, "Page {n} failed with check code {code}")?;
            }
            None => writeln!(out, "Page {n} failed with logical checks")?,
        }
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
    // DBVERIFY prints no "Failing (Other)" line; the count is in JSON.
    writeln!(out, "Total Pages Processed (Other): {}", s.processed_other)?;
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
