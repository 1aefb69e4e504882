//! `verify`: the inputs' engine chosen through [`crate::engine`], then every
//! block checked by that engine's room of [`crate::verify`] and reported by
//! [`crate::render::postgres::verify`] / [`crate::render::oracle::verify`].

use std::io::{self, BufWriter};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::engine::{verify_plan, VerifyPlan};
use crate::error::Error;
use crate::render::oracle::verify::OracleVerifyPrinter;
use crate::render::postgres::verify::VerifyPrinter;
use crate::verify;
use crate::verify::oracle::{self as verify_oracle, OracleInput};

use super::config::VerifyConfig;
use super::stdout_error;

pub fn run(cfg: &VerifyConfig) -> Result<ExitCode, Error> {
    if let Some(n) = cfg.jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Error::Usage(format!("--jobs {n}: {e}")))?;
    }
    let clean = match verify_plan(&cfg.inputs)? {
        VerifyPlan::Postgres => postgres(cfg)?,
        VerifyPlan::Oracle(inputs) => oracle(cfg, &inputs)?,
    };
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// PostgreSQL relation files and directories; whether all is clean.
fn postgres(cfg: &VerifyConfig) -> Result<bool, Error> {
    let mut printer = VerifyPrinter::new(BufWriter::new(io::stdout().lock()), cfg.format)
        .all_problems(cfg.all_problems);
    let summary = verify::run(&cfg.inputs, &cfg.options, &mut printer)?;
    printer.finish(&summary).map_err(stdout_error)?;
    Ok(!summary.failed())
}

/// Oracle datafiles and traces: a DBVERIFY-style report per file.
fn oracle(cfg: &VerifyConfig, inputs: &[(PathBuf, OracleInput)]) -> Result<bool, Error> {
    let mut printer = OracleVerifyPrinter::new(BufWriter::new(io::stdout().lock()), cfg.format)
        .all_problems(cfg.all_problems);
    for (path, kind) in inputs {
        let outcome = match kind {
            OracleInput::Datafile => verify_oracle::verify_datafile(path, cfg.options.block_size)?,
            OracleInput::Trace => verify_oracle::verify_trace(path, None)?,
        };
        printer
            .file(&verify::file_name(path), &outcome.reports, &outcome.summary)
            .map_err(stdout_error)?;
    }
    printer.finish().map_err(stdout_error)
}
