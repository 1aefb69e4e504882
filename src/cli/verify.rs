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

use super::config::VerifyConfig;
use super::{is_broken_pipe, stdout_error};

pub(crate) fn run(cfg: &VerifyConfig) -> Result<ExitCode, Error> {
    if let Some(n) = cfg.jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Error::Usage(format!("--jobs {n}: {e}")))?;
    }
    let (plan, notes) = verify_plan(&cfg.inputs, cfg.engine)?;
    for (path, note) in notes {
        let _ = writeln!(io::stderr(), "blockscope: note: {}: {note}", path.display());
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

/// Oracle datafiles and traces: a DBVERIFY-style report per file.
fn oracle(cfg: &VerifyConfig, inputs: &[(PathBuf, OracleInput)]) -> Result<bool, Error> {
    if cfg.options.evidence {
        return Err(Error::Usage(
            "--evidence: provenance is reported for PostgreSQL inputs only, not yet for Oracle's"
                .to_string(),
        ));
    }
    let mut printer = OracleVerifyPrinter::new(BufWriter::new(io::stdout().lock()), cfg.format)
        .all_problems(cfg.all_problems);
    let mut clean = true;
    for (path, kind) in inputs {
        let file = verify::file_name(path);
        let mut on_block = |r: &crate::model::oracle::verify::BlockReport| printer.block(&file, r);
        let verdict = match kind {
            OracleInput::Datafile => {
                verify_oracle::verify_datafile(path, cfg.options.block_size, &mut on_block)
            }
            OracleInput::Trace => verify_oracle::verify_trace(path, None, &mut on_block),
        };
        let summary = match verdict {
            Ok(summary) => summary,
            // The output closed: end quietly; a failing block was reported.
            Err(e) if is_broken_pipe(&e) => return Ok(false),
            Err(e) => return Err(e),
        };
        clean &= summary.clean();
        match printer.file_done(&file, &summary) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(clean),
            Err(e) => return Err(stdout_error(e)),
        }
    }
    match printer.finish() {
        Ok(all_clean) => Ok(all_clean),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(clean),
        Err(e) => Err(stdout_error(e)),
    }
}
