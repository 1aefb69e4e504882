//! `verify`: the inputs' engine chosen through [`crate::engine`], then every
//! block checked by that engine's room of [`crate::verify`] and reported by
//! [`crate::render::postgres::verify`] / [`crate::render::oracle::verify`].
//!
//! Exit status: 0 clean, 1 problems found, 2 when a file handed over or
//! found in a directory walk is not pages at all (the others are still
//! verified, the summary written). A closed output pipe
//! never turns 1 into 0: the run ends quietly at once when a failing problem
//! was already reported, and otherwise goes on without output until one is
//! found or the run is over, so `verify --deep BAD | head -3` under
//! `pipefail` fails even when the first lines were notes.

use std::io::{self, BufWriter};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::engine::Engine;
use crate::engine::{verify_plan, VerifyPlan};
use crate::error::Error;
use crate::render::oracle::verify::OracleVerifyPrinter;
use crate::render::postgres::verify::VerifyPrinter;
use crate::render::report::VerifyFormat;
use crate::verify::oracle::{self as verify_oracle, OracleInput};
use crate::verify::{self, VerifyOptions};

use super::inputs::{further_segments, handed_not_pages, not_pages_message};
use super::lostwrite::{self, WalSource};
use super::progress::{self, Progress, ProgressMode, ProgressReport};
use super::relnames::{Namer, Naming};
use super::{is_broken_pipe, note_terminal_stdin, stdout_error, BlockRange, Sink};
use crate::model::postgres::verify::ProvenanceInput;

/// What `verify` was asked to do.
#[derive(Clone, Debug)]
pub(crate) struct VerifyConfig {
    pub inputs: Vec<PathBuf>,
    pub options: VerifyOptions,
    pub format: VerifyFormat,
    /// Worker threads; `None` = one per core.
    pub jobs: Option<usize>,
    /// Text: every problem on its own line (no problem budget).
    pub all_problems: bool,
    /// `--engine`; `None` detects from each file's first block.
    pub engine: Option<Engine>,
    /// Oracle: `--blocks` (DBVERIFY's START/END); `None` = every block.
    pub oracle_blocks: Option<BlockRange>,
    /// Oracle: `--first-block`.
    pub first_block: Option<u64>,
    /// Text: list the bookkeeping files passed over and the FSM drift.
    pub verbose: bool,
    /// `--quiet`: no notes.
    pub quiet: bool,
    /// When to draw the progress bar.
    pub progress: ProgressMode,
    /// PostgreSQL: the WAL the lost-write check reads (`--wal`, `--no-wal`).
    pub wal: WalSource,
}

pub(crate) fn run(cfg: &VerifyConfig, sink: &mut Sink) -> Result<ExitCode, Error> {
    if let Some(n) = cfg.jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Error::Usage(format!("--jobs {n}: {e}")))?;
    }
    if cfg.inputs.is_empty() {
        note_terminal_stdin();
    }
    // Files handed over that are not pages at all: named and left out,
    // the others verified; exit 2 as `show` gives (`--engine` checks them anyway).
    let mut named = Vec::with_capacity(cfg.inputs.len());
    let mut not_pages = 0usize;
    for input in &cfg.inputs {
        if cfg.engine.is_none() && handed_not_pages(input, cfg.options.block_size) {
            not_pages += 1;
            sink.report(&format!(
                "blockscope: error: {}\n",
                not_pages_message(input)
            ));
        } else {
            named.push(input.clone());
        }
    }
    if not_pages > 0 && named.is_empty() {
        return Ok(ExitCode::from(2));
    }
    let inputs = with_segments(&named, cfg.options.segment.is_some());
    let cfg = &VerifyConfig {
        inputs,
        ..cfg.clone()
    };
    let (plan, notes) = verify_plan(&cfg.inputs, cfg.engine)?;
    if matches!(plan, VerifyPlan::Postgres)
        && (cfg.oracle_blocks.is_some() || cfg.first_block.is_some())
    {
        return Err(Error::Usage(
            "--blocks and --first-block apply to Oracle datafiles; for PostgreSQL use --segment"
                .to_string(),
        ));
    }
    for (path, note) in notes {
        sink.note(&format!(
            "blockscope: note: {}: {note}\n",
            crate::escape::path(&path)
        ));
    }
    if matches!(plan, VerifyPlan::Oracle(_)) {
        crate::engine::check_block_size(cfg.options.block_size, Some(plan.engine()))?;
    }
    let clean = match plan {
        VerifyPlan::Postgres => postgres(cfg, sink, &mut not_pages)?,
        VerifyPlan::Oracle(inputs) => oracle(cfg, &inputs, sink)?,
    };
    Ok(if not_pages > 0 {
        ExitCode::from(2)
    } else if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The inputs with, after each relation file that is a first segment
/// (`16384`, `16384_fsm`), its further segments `16384.1`, `16384.2`… as
/// `map` and `export` read them; a segment also named on the command line
/// is verified where it was named. `--segment` names one file's segment: nothing is added.
fn with_segments(inputs: &[PathBuf], segment_given: bool) -> Vec<PathBuf> {
    let named: std::collections::HashSet<&PathBuf> = inputs.iter().collect();
    let mut all: Vec<PathBuf> = Vec::with_capacity(inputs.len());
    for input in inputs {
        all.push(input.clone());
        if segment_given || input.as_os_str() == "-" {
            continue;
        }
        for path in further_segments(input) {
            if !named.contains(&path) {
                all.push(path);
            }
        }
    }
    all
}

/// PostgreSQL relation files and directories; whether all is clean (as far
/// as the run got when the output pipe closed). The files found in a
/// directory walk that are not pages are added to `not_pages`.
fn postgres(cfg: &VerifyConfig, sink: &mut Sink, not_pages: &mut usize) -> Result<bool, Error> {
    let (checks, notes) = lostwrite::plan(&cfg.inputs, &cfg.wal)?;
    for note in notes {
        sink.note(&format!("blockscope: note: {note}\n"));
    }
    let mut printer = VerifyPrinter::new(BufWriter::new(sink.out()), cfg.format)
        .all_problems(cfg.all_problems)
        .verbose(cfg.verbose)
        .quiet(cfg.quiet);
    let mut namer = Namer::default();
    let mut naming = Naming {
        inner: &mut printer,
        namer: &mut namer,
    };
    let mut report = ProgressReport::new(&mut naming, cfg.progress);
    let run = verify::run(&cfg.inputs, &cfg.options, &mut report);
    drop(report);
    let mut summary = match run {
        Ok(summary) => summary,
        Err(e) if is_broken_pipe(&e) => return Ok(!printer.failing()),
        Err(e) => return Err(e),
    };
    *not_pages += summary
        .problems_by_class
        .get("not-pages")
        .copied()
        .unwrap_or(0) as usize;
    if let Some(p) = summary.provenance.as_mut() {
        p.arguments = std::env::args_os()
            .skip(1)
            .map(|a| verify::file_name(std::path::Path::new(&a)))
            .collect();
    }
    if let Some(why) = summary.nothing_verified.take() {
        // Nothing was verified: exit 2. A JSON document already begun (a
        // problem was streamed) is closed first, so it stays valid JSON.
        if !matches!(cfg.format, VerifyFormat::Text) {
            printer.finish(&summary).map_err(stdout_error)?;
        }
        return Err(Error::Usage(why));
    }
    let mut naming = Naming {
        inner: &mut printer,
        namer: &mut namer,
    };
    match lostwrite::run_checks(&checks, &mut summary, &mut naming) {
        Ok(()) => {}
        Err(e) if is_broken_pipe(&e) => return Ok(!printer.failing()),
        Err(e) => return Err(e),
    }
    let failing = printer.failing();
    match printer.finish(&summary) {
        Ok(_) => Ok(!summary.failed()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(!summary.failed() && !failing),
        Err(e) => Err(stdout_error(e)),
    }
}

/// Oracle datafiles and traces: a DBVERIFY-style report per file. A file
/// or block that cannot be read is a problem of class `io`; the run goes on.
fn oracle(
    cfg: &VerifyConfig,
    inputs: &[(PathBuf, OracleInput)],
    sink: &mut Sink,
) -> Result<bool, Error> {
    let mut printer = OracleVerifyPrinter::new(BufWriter::new(sink.out()), cfg.format)
        .all_problems(cfg.all_problems);
    if cfg.options.evidence {
        printer = printer.evidence(
            std::env::args_os()
                .skip(1)
                .map(|a| verify::file_name(std::path::Path::new(&a)))
                .collect(),
        );
    }
    let range = cfg.oracle_blocks.unwrap_or(BlockRange::ALL);
    let opts = verify_oracle::DatafileOptions {
        block_size: cfg.options.block_size,
        first: range.first,
        last: range.last,
        first_block: cfg.first_block.unwrap_or(0),
        evidence: cfg.options.evidence,
    };
    let mut clean = true;
    let progress = Progress::open(cfg.progress, progress::datafile_bytes(inputs));
    for (path, kind) in inputs {
        let file = verify::file_name(path);
        let mtime = (path.as_os_str() != "-")
            .then(|| std::fs::metadata(path).and_then(|m| m.modified()).ok())
            .flatten();
        let mut file_report = printer.file_report(&file);
        let report = &mut ProgressReport::sharing(&mut file_report, &progress);
        let verdict = match kind {
            OracleInput::Datafile => verify_oracle::verify_datafile(path, &opts, report),
            OracleInput::Trace => {
                verify_oracle::verify_trace(path, None, cfg.options.evidence, report)
            }
        };
        let written = match verdict {
            Ok(verdict) => {
                clean &= verdict.summary.clean();
                printer.input_read(ProvenanceInput {
                    bytes_read: None,
                    path: file.clone(),
                    size: verdict.size,
                    mtime: mtime.map(verify::rfc3339_utc),
                    sha256: verdict.sha256.clone(),
                });
                let read_error = match &verdict.read_error {
                    Some((blkno, message)) => printer.io_problem(&file, Some(*blkno), message),
                    None => Ok(()),
                };
                read_error.and_then(|()| printer.file_done(&file, &verdict.summary))
            }
            // The output closed: end quietly; a failing block was reported.
            Err(e) if is_broken_pipe(&e) => return Ok(false),
            // The file cannot be opened or read: reported, the run goes on.
            Err(Error::Io { source, .. }) => {
                clean = false;
                printer.io_problem(&file, None, &verify::postgres::unreadable(path, &source))
            }
            Err(e) => return Err(e),
        };
        match written {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(clean),
            Err(e) => return Err(stdout_error(e)),
        }
    }
    match printer.finish() {
        Ok(all_clean) => Ok(all_clean && clean),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(clean),
        Err(e) => Err(stdout_error(e)),
    }
}
