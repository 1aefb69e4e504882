//! `verify`: the inputs' engine chosen through [`crate::engine`], then every
//! block checked by that engine's room of [`crate::verify`] and reported by
//! [`crate::render::postgres::verify`] / [`crate::render::oracle::verify`].
//!
//! Exit status: 0 clean, 1 problems found, 2 when a file handed over is
//! not pages at all (the others are still verified). A closed output pipe
//! never turns 1 into 0: the run ends quietly at once when a failing problem
//! was already reported, and otherwise goes on without output until one is
//! found or the run is over, so `verify --deep BAD | head -3` under
//! `pipefail` fails even when the first lines were notes.

use std::io::{self, BufWriter};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::engine::{verify_plan, VerifyPlan};
use crate::error::Error;
use crate::render::oracle::verify::OracleVerifyPrinter;
use crate::render::postgres::verify::VerifyPrinter;
use crate::render::report::VerifyFormat;
use crate::verify;
use crate::verify::oracle::{self as verify_oracle, OracleInput};

use super::config::{BlockRange, VerifyConfig};
use super::progress::{self, ProgressReport};
use super::{is_broken_pipe, stdout_error};
use crate::model::postgres::verify::ProvenanceInput;

pub(crate) fn run(cfg: &VerifyConfig) -> Result<ExitCode, Error> {
    if let Some(n) = cfg.jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Error::Usage(format!("--jobs {n}: {e}")))?;
    }
    if cfg.inputs.is_empty() {
        super::note_terminal_stdin();
    }
    // Files handed over that are not pages at all: named and left out,
    // the others verified; exit 2 as `show` gives (`--engine` checks them anyway).
    let mut named = Vec::with_capacity(cfg.inputs.len());
    let mut not_pages = 0usize;
    for input in &cfg.inputs {
        if cfg.engine.is_none() && handed_not_pages(input, cfg.options.block_size) {
            not_pages += 1;
            super::report_error(&format!(
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
        progress::note(&format!(
            "blockscope: note: {}: {note}\n",
            crate::escape::path(&path)
        ));
    }
    if matches!(plan, VerifyPlan::Oracle(_)) {
        super::config::check_block_size(
            cfg.options.block_size,
            Some(crate::engine::Engine::Oracle),
        )?;
    }
    let clean = match plan {
        VerifyPlan::Postgres => postgres(cfg)?,
        VerifyPlan::Oracle(inputs) => oracle(cfg, &inputs)?,
    };
    Ok(if not_pages > 0 {
        ExitCode::from(2)
    } else if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Whether `path`, named on the command line of `verify` or `map` without
/// `--engine`, is a regular file that is not pages at all
/// ([`crate::engine::not_pages`]). A file named as a relation file
/// (`16384`, `16384.1`, `16384_fsm`) is a relation whatever its bytes: what
/// overwrote it is damage to report block by block (exit 1).
pub(super) fn handed_not_pages(path: &std::path::Path, block_size: Option<usize>) -> bool {
    let relation_named = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(crate::source::RelationFileName::parse)
        .is_some();
    path.as_os_str() != "-"
        && !relation_named
        && path.is_file()
        && crate::engine::not_pages(path, block_size)
}

/// What `verify` and `map` say of a file handed over that is not pages.
pub(super) fn not_pages_message(path: &std::path::Path) -> String {
    use crate::engine::cluster::{cluster_file, ClusterFile};
    // A data directory's own files are not pages, but `show` reads them.
    let what = match cluster_file(path) {
        Some(Ok(ClusterFile::Control(_))) => "a pg_control file",
        Some(Ok(ClusterFile::RelMap(_))) => "a pg_filenode.map file",
        _ => "",
    };
    if !what.is_empty() {
        return format!(
            "{}: not pages: {what} (`blockscope show` reads it)",
            verify::file_name(path)
        );
    }
    format!(
        "{}: not pages: no block has a PostgreSQL page header or an Oracle cache header \
         (use --engine to check it anyway)",
        verify::file_name(path)
    )
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
        for path in super::map::further_segments(input) {
            if !named.contains(&path) {
                all.push(path);
            }
        }
    }
    all
}

/// PostgreSQL relation files and directories; whether all is clean (as far
/// as the run got when the output pipe closed).
fn postgres(cfg: &VerifyConfig) -> Result<bool, Error> {
    let mut printer = VerifyPrinter::new(BufWriter::new(io::stdout().lock()), cfg.format)
        .all_problems(cfg.all_problems)
        .verbose(cfg.verbose)
        .quiet(cfg.quiet);
    let mut report = ProgressReport::new(&mut printer, cfg.progress);
    let run = verify::run(&cfg.inputs, &cfg.options, &mut report);
    drop(report);
    let mut summary = match run {
        Ok(summary) => summary,
        Err(e) if is_broken_pipe(&e) => return Ok(!printer.failing()),
        Err(e) => return Err(e),
    };
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
    let failing = printer.failing();
    match printer.finish(&summary) {
        Ok(_) => Ok(!summary.failed()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(!summary.failed() && !failing),
        Err(e) => Err(stdout_error(e)),
    }
}

/// Oracle datafiles and traces: a DBVERIFY-style report per file. A file
/// or block that cannot be read is a problem of class `io`; the run goes on.
fn oracle(cfg: &VerifyConfig, inputs: &[(PathBuf, OracleInput)]) -> Result<bool, Error> {
    let mut printer = OracleVerifyPrinter::new(BufWriter::new(io::stdout().lock()), cfg.format)
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
    for (path, kind) in inputs {
        let file = verify::file_name(path);
        let mtime = (path.as_os_str() != "-")
            .then(|| std::fs::metadata(path).and_then(|m| m.modified()).ok())
            .flatten();
        let mut report = printer.file_report(&file);
        let verdict = match kind {
            OracleInput::Datafile => verify_oracle::verify_datafile(path, &opts, &mut report),
            OracleInput::Trace => {
                verify_oracle::verify_trace(path, None, cfg.options.evidence, &mut report)
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
