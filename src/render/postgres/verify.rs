//! verify's report: one line per problem and a summary (text), one document
//! (`json`), or one problem per line ending with the summary line (`ndjson`).
//!
//! The JSON shape is shared by both engines (docs/json.md, "verify"):
//! `{"schema": 7, "engine": …, "problems": […], "summary": {"clean": …, …}}`,
//! problems written as they come;
//! NDJSON writes the problems one a line, then `{"schema", "engine", "summary"}`.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::postgres::verify::{Provenance, Skipped, Summary, VerifyProblem, WalCheck};
use crate::model::{ProblemClass, Severity};
use crate::verify::Report;

use crate::render::problems::{self, Line};
use crate::render::report::{DocumentWriter, SummaryLine, VerifyFormat, SCHEMA};
use crate::render::write::write_line;

/// The engine these reports are of, as verify's JSON names it.
const ENGINE: &str = "postgres";

/// Writes verify's findings to `out` as they arrive; [`VerifyPrinter::finish`]
/// adds the summary.
pub struct VerifyPrinter<W: Write> {
    out: W,
    format: VerifyFormat,
    /// `json` only: the one document, streamed.
    document: DocumentWriter,
    /// `text` only: print every problem on its own line (no problem budget).
    all_problems: bool,
    /// `text` only: the problems of the current block, printed through the
    /// problem budget when the block is complete.
    block: Vec<VerifyProblem>,
    /// A problem that fails verification (warning or error) was reported: the
    /// exit status must say so even when the output pipe closes early.
    failing: bool,
    /// `text` only: list what a clean run need not say — the bookkeeping
    /// files passed over and the free space map's drift — instead of only
    /// counting them in the summary.
    verbose: bool,
    /// `text` only: no notes on standard error.
    quiet: bool,
    /// The output closed (`verify … | head`) before anything failing was
    /// reported: the run goes on without output, so that the exit status
    /// still tells the verdict, and stops at the first failing problem.
    closed: bool,
}

#[derive(Serialize)]
struct SummaryJson<'a> {
    /// No problem that fails verification (warnings and errors).
    clean: bool,
    #[serde(flatten)]
    summary: &'a Summary,
}

impl<W: Write> VerifyPrinter<W> {
    /// A printer of `verify` results to `out` in `format`.
    pub fn new(out: W, format: VerifyFormat) -> Self {
        VerifyPrinter {
            out,
            format,
            document: DocumentWriter::new(ENGINE),
            all_problems: false,
            block: Vec::new(),
            failing: false,
            verbose: false,
            quiet: false,
            closed: false,
        }
    }

    /// A write's outcome: a closed output before anything failing was
    /// reported is remembered and the run goes on quietly; once a failing
    /// problem is known, it ends the run (the verdict is settled).
    fn written(&mut self, result: io::Result<()>) -> io::Result<()> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe && !self.failing => {
                self.closed = true;
                self.block.clear();
                Ok(())
            }
            other => other,
        }
    }

    /// The output closed and a failing problem is known: nothing more to learn.
    fn settled(&self) -> io::Result<()> {
        if self.closed && self.failing {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        Ok(())
    }

    /// Text: list the bookkeeping files passed over (notes on standard
    /// error) and the free space map's drift (`info` lines), which are
    /// otherwise only counted in the summary.
    pub fn verbose(mut self, verbose: bool) -> Self {
        self.verbose = verbose;
        self
    }

    /// Text: no notes on standard error, not even for a stray file passed
    /// over (the summary still counts it).
    pub fn quiet(mut self, quiet: bool) -> Self {
        self.quiet = quiet;
        self
    }

    /// Text: whether `p` is only counted in the summary, not listed.
    fn counted_only(&self, p: &VerifyProblem) -> bool {
        !self.verbose && is_fsm_drift(p)
    }

    /// Text: print every problem on its own line instead of collapsing
    /// repeats and stopping at 25 (`LINES_PER_BLOCK`) lines a block.
    pub fn all_problems(mut self, all: bool) -> Self {
        self.all_problems = all;
        self
    }

    /// Whether a problem that fails verification has been reported so far.
    pub fn failing(&self) -> bool {
        self.failing
    }

    /// Text: print the held block's problems through the problem budget.
    fn flush_block(&mut self) -> io::Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let block = std::mem::take(&mut self.block);
        for line in problems::lines(&block, self.all_problems) {
            match line {
                Line::Problem { problem, more } => {
                    write_problem(&mut self.out, problem, &problems::more_suffix(more))?
                }
                Line::Omitted { problems: n, kinds } => writeln!(
                    self.out,
                    "{}: block {}: {}",
                    block[0].file_label(),
                    block[0].blkno,
                    problems::omitted_text(n, kinds)
                )?,
            }
        }
        self.block = block;
        self.block.clear();
        Ok(())
    }

    /// Write the summary (and, for `json`, the end of the document) and
    /// flush; nothing when the output had closed (the run's verdict is in
    /// `summary`).
    pub fn finish(mut self, summary: &Summary) -> io::Result<W> {
        if self.closed {
            return Ok(self.out);
        }
        let json = SummaryJson {
            clean: !summary.failed(),
            summary,
        };
        match self.format {
            VerifyFormat::Text => {
                self.flush_block()?;
                if let Some(p) = &summary.provenance {
                    write_provenance(&mut self.out, p)?;
                }
                write_summary(&mut self.out, summary, self.verbose)?
            }
            VerifyFormat::Ndjson => write_line(
                &mut self.out,
                &SummaryLine {
                    schema: SCHEMA,
                    engine: ENGINE,
                    summary: json,
                },
            )?,
            VerifyFormat::Json => {
                let document = std::mem::replace(&mut self.document, DocumentWriter::new(ENGINE));
                document.finish(&mut self.out, &json)?
            }
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Report for VerifyPrinter<W> {
    /// Text: a note on standard error (never on the report's output), in
    /// order with the problems printed before it.
    fn skipped(&mut self, skipped: &Skipped) -> io::Result<()> {
        let noted = !self.quiet && (self.verbose || !skipped.bookkeeping);
        if self.format == VerifyFormat::Text && noted {
            if !self.closed {
                let flushed = self.flush_block().and_then(|()| self.out.flush());
                self.written(flushed)?;
            }
            let _ = writeln!(
                io::stderr(),
                "blockscope: note: {}: skipped: {}",
                skipped.file,
                skipped.reason
            );
        }
        Ok(())
    }

    fn problem(&mut self, p: &VerifyProblem) -> io::Result<()> {
        self.failing |= p.severity >= Severity::Warning;
        if self.closed {
            return self.settled();
        }
        let result = self.write(p);
        self.written(result)?;
        self.settled()
    }
}

impl<W: Write> VerifyPrinter<W> {
    /// One problem in the report's format (text holds a block's problems
    /// until the block is complete).
    fn write(&mut self, p: &VerifyProblem) -> io::Result<()> {
        match self.format {
            VerifyFormat::Text if self.counted_only(p) => Ok(()),
            VerifyFormat::Text => {
                let same_block = self
                    .block
                    .first()
                    .is_none_or(|b| b.blkno == p.blkno && b.file == p.file);
                if !same_block {
                    self.flush_block()?;
                }
                self.block.push(p.clone());
                Ok(())
            }
            VerifyFormat::Ndjson => write_line(&mut self.out, p),
            VerifyFormat::Json => self.document.problem(&mut self.out, p),
        }
    }
}

/// A note of `--deep` that the free space map's entry for a page is not
/// the free space the page has: a hint PostgreSQL keeps lazily, so a clean
/// cluster has many.
fn is_fsm_drift(p: &VerifyProblem) -> bool {
    p.class == ProblemClass::FreeSpaceMap && p.severity == Severity::Info
}

/// `FILE: block N offset O: error [class] field: message`; FILE followed by
/// its relation in parentheses when known (`base/5/16384 (public.orders,
/// main fork)`).
fn write_problem(out: &mut dyn Write, p: &VerifyProblem, suffix: &str) -> io::Result<()> {
    let offset = p.offset.map_or(String::new(), |o| format!(" offset {o}"));
    writeln!(
        out,
        "{}: block {}{offset}: {} [{}] {}: {}{suffix}",
        p.file_label(),
        p.blkno,
        p.severity.as_str(),
        p.class,
        p.field,
        p.message
    )
}

/// `--evidence`: what was run, on which bytes.
pub(crate) fn write_provenance(out: &mut dyn Write, p: &Provenance) -> io::Result<()> {
    writeln!(out, "Provenance")?;
    writeln!(out, "blockscope:        {}", p.blockscope)?;
    writeln!(out, "Arguments:         {}", p.arguments.join(" "))?;
    for input in &p.inputs {
        writeln!(out, "Input:             {}", input.path)?;
        writeln!(out, "  size:            {} bytes", input.size)?;
        if let Some(mtime) = &input.mtime {
            writeln!(out, "  mtime:           {mtime}")?;
        }
        if let Some(read) = input.bytes_read.filter(|&n| n != input.size) {
            writeln!(
                out,
                "  bytes read:      {read} (from the start; the SHA-256 is of these)"
            )?;
        }
        match &input.sha256 {
            Some(sha) => writeln!(out, "  sha256:          {sha}")?,
            None => writeln!(
                out,
                "  sha256:          none (a block could not be read, or the input was decoded text)"
            )?,
        }
    }
    writeln!(out)
}

/// A lost-write check's lines: the WAL read and the blocks it judged.
fn write_wal_check(out: &mut dyn Write, w: &WalCheck) -> io::Result<()> {
    let range = match (&w.first_lsn, &w.last_lsn) {
        (Some(first), Some(last)) => format!("records {first} to {last} ({} records)", w.records),
        _ => "no record".to_string(),
    };
    writeln!(
        out,
        "WAL:               {}: {range}; checkpoint REDO {} ({})",
        w.wal.join(", "),
        w.checkpoint_redo,
        w.pg_control
    )?;
    let mut blocks = format!(
        "{} checked, {} lost write{}",
        w.blocks_checked,
        w.lost_writes,
        if w.lost_writes == 1 { "" } else { "s" }
    );
    if w.blocks_without_file > 0 {
        blocks.push_str(&format!(
            "; {} without their relation file",
            w.blocks_without_file
        ));
    }
    if w.blocks_without_verdict > 0 {
        blocks.push_str(&format!(
            "; {} past the end of their file without a verdict",
            w.blocks_without_verdict
        ));
    }
    if w.wal_problems > 0 {
        blocks.push_str(&format!("; {} WAL problems", w.wal_problems));
    }
    writeln!(out, "Blocks vs WAL:     {blocks}")
}

fn write_summary(out: &mut dyn Write, s: &Summary, verbose: bool) -> io::Result<()> {
    let classes = if s.problems_by_class.is_empty() {
        "none".to_string()
    } else {
        s.problems_by_class
            .iter()
            .map(|(class, n)| format!("{class} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let checksums = match &s.checksums {
        Some(c) if c.enabled => format!("verified ({})", c.reason),
        Some(c) => format!("not verified ({})", c.reason),
        None => "not verified".to_string(),
    };
    writeln!(out, "Verification completed")?;
    writeln!(out, "Files scanned:     {}", s.files)?;
    if !s.skipped.is_empty() {
        let unlisted = !verbose && s.skipped.iter().any(|k| k.bookkeeping);
        let hint = if unlisted {
            " (not relation files; --verbose lists them)"
        } else {
            ""
        };
        writeln!(out, "Files skipped:     {}{hint}", s.skipped.len())?;
    }
    writeln!(out, "Blocks scanned:    {}", s.blocks)?;
    writeln!(out, "Blocks bad:        {}", s.bad_blocks)?;
    writeln!(out, "Bad checksums:     {}", s.bad_checksums)?;
    writeln!(out, "Zero (new) pages:  {}", s.zero_pages)?;
    writeln!(out, "Truncated files:   {}", s.truncated_files)?;
    if s.cluster_running {
        writeln!(out, "Changed during the run: {}", s.changed_during_run)?;
        if s.resized_during_run > 0 {
            writeln!(
                out,
                "Resized during the run: {} files",
                s.resized_during_run
            )?;
        }
    }
    if s.deep {
        writeln!(out, "Deep checks bad:   {}", s.deep_bad_blocks)?;
    }
    if s.free_space_map_drift > 0 {
        let hint = if verbose {
            ""
        } else {
            "; --verbose lists them"
        };
        writeln!(
            out,
            "FSM drift:         {} blocks (a hint PostgreSQL updates lazily: not a failure{hint})",
            s.free_space_map_drift
        )?;
    }
    for w in &s.wal {
        write_wal_check(out, w)?;
    }
    writeln!(out, "Problems by class: {classes}")?;
    writeln!(out, "Data checksums:    {checksums}")?;
    writeln!(
        out,
        "Block size:        {} ({} blocks per segment)",
        s.block_size, s.blocks_per_segment
    )?;
    if let Some(c) = &s.pg_control {
        match (&c.state, &c.error) {
            (Some(state), _) => writeln!(
                out,
                "pg_control:        {state}; data_checksum_version {}",
                c.data_checksum_version.unwrap_or_default()
            )?,
            (None, error) => writeln!(
                out,
                "pg_control:        not used: {}",
                error.as_deref().unwrap_or("unreadable")
            )?,
        }
        if s.cluster_running {
            writeln!(
                out,
                "Cluster:           running (in production); start LSN {} (the latest \
                 checkpoint's REDO location): a block failing its checksum was re-read, and one \
                 that read differently and still failed with a newer pd_lsn counted as changed \
                 during the run",
                s.start_lsn.as_deref().unwrap_or("unknown")
            )?;
        }
        if c.shut_down == Some(false) {
            writeln!(
                out,
                "Warning:           the cluster was not shut down cleanly: its files may be \
                 changing and its last writes incomplete (pg_checksums refuses such a cluster)"
            )?;
        }
    }
    writeln!(
        out,
        "Result:            {}",
        if s.failed() {
            "PROBLEMS FOUND"
        } else {
            "clean"
        }
    )
}
