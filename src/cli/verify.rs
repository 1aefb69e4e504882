//! `verify`: the inputs' engine chosen through [`crate::engine`], then every
//! block checked by that engine's room of [`crate::verify`] and reported by
//! [`crate::render::postgres::verify`] / [`crate::render::oracle::verify`].
//!
//! Exit status: 0 clean, 1 problems found. A closed output pipe ends the
//! run quietly with the status found so far (1 once a failing problem was
//! reported), so `verify BAD | head -1` under `pipefail` still fails.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::engine::{verify_plan, VerifyPlan};
use crate::error::Error;
use crate::render::oracle::verify::OracleVerifyPrinter;
use crate::render::postgres::verify::VerifyPrinter;
use crate::verify;
use crate::verify::oracle::{self as verify_oracle, OracleInput};

use super::config::{BlockRange, VerifyConfig};
use super::{is_broken_pipe, stdout_error};
use crate::model::postgres::verify::ProvenanceInput;

pub(crate) fn run(cfg: &VerifyConfig) -> Result<ExitCode, Error> {
    if let Some(n) = cfg.jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Error::Usage(format!("--jobs {n}: {e}")))?;
    }
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
        let _ = writeln!(
            io::stderr(),
            "blockscope: note: {}: {note}",
            crate::escape::path(&path)
        );
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
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// PostgreSQL relation files and directories; whether all is clean (as far
/// as the run got when the output pipe closed).
fn postgres(cfg: &VerifyConfig) -> Result<bool, Error> {
    let mut printer = VerifyPrinter::new(BufWriter::new(io::stdout().lock()), cfg.format)
        .all_problems(cfg.all_problems);
    let mut summary = match verify::run(&cfg.inputs, &cfg.options, &mut printer) {
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
        let mut on_block = |r: &crate::model::oracle::verify::BlockReport| printer.block(&file, r);
        let verdict = match kind {
            OracleInput::Datafile => verify_oracle::verify_datafile(path, &opts, &mut on_block),
            OracleInput::Trace => {
                verify_oracle::verify_trace(path, None, cfg.options.evidence, &mut on_block)
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
