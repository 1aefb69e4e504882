//! `verify`: the inputs' engine chosen through [`crate::engine`], then
//! every block checked by that engine's room of [`crate::verify`] and
//! reported by [`crate::render::verify`].

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::error::Error;
use crate::render;
use crate::render::verify::{VerifyFormat, VerifyPrinter};
use crate::verify;
use crate::verify::oracle::{self as verify_oracle, OracleInput};

use super::config::VerifyConfig;
use super::stdout_error;

pub fn run(cfg: &VerifyConfig) -> Result<ExitCode, Error> {
    let args = cfg;
    let opts = &cfg.options;
    let format = cfg.format;
    if let Some(n) = args.jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Error::Usage(format!("--jobs {n}: {e}")))?;
    }
    let oracle = oracle_inputs(&args.inputs)?;
    if !oracle.is_empty() {
        return verify_oracle(args, &oracle);
    }
    let mut printer = VerifyPrinter::new(BufWriter::new(io::stdout().lock()), format);
    let summary = verify::run(&args.inputs, opts, &mut printer)?;
    printer.finish(&summary).map_err(stdout_error)?;
    Ok(if summary.failed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The Oracle inputs among `inputs`: all of them, or none (one engine a run).
fn oracle_inputs(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, OracleInput)>, Error> {
    let mut oracle = Vec::new();
    for path in inputs {
        if let Some(kind) = verify_oracle::classify(path)? {
            oracle.push((path.clone(), kind));
        }
    }
    if !oracle.is_empty() && oracle.len() != inputs.len() {
        return Err(Error::Usage(
            "verify: give Oracle datafiles and traces, or PostgreSQL files, not both in one run"
                .into(),
        ));
    }
    Ok(oracle)
}

/// `verify` of Oracle datafiles and traces: a DBVERIFY-style report per file.
fn verify_oracle(
    args: &VerifyConfig,
    inputs: &[(PathBuf, OracleInput)],
) -> Result<ExitCode, Error> {
    let mut out = BufWriter::new(io::stdout().lock());
    let mut clean = true;
    let mut documents = Vec::new();
    for (path, kind) in inputs {
        let outcome = match kind {
            OracleInput::Datafile => verify_oracle::verify_datafile(path, args.options.block_size)?,
            OracleInput::Trace => verify_oracle::verify_trace(path, None)?,
        };
        clean &= outcome.summary.clean();
        let file = path.display().to_string();
        let problems: Vec<serde_json::Value> = verify_oracle::problems(&outcome)
            .map(|(blkno, p)| {
                serde_json::json!({
                    "file": file,
                    "blkno": blkno,
                    "offset": p.offset,
                    "field": p.field,
                    "class": p.class,
                    "severity": p.severity,
                    "message": p.message,
                })
            })
            .collect();
        match args.format {
            VerifyFormat::Text => render::oracle_verify::write_dbv_report(
                &mut out,
                &file,
                &outcome.reports,
                &outcome.summary,
            )
            .map_err(stdout_error)?,
            VerifyFormat::Ndjson => {
                for p in &problems {
                    render::json::write_line(&mut out, p).map_err(stdout_error)?;
                }
                render::json::write_line(
                    &mut out,
                    &serde_json::json!({"file": file, "summary": outcome.summary}),
                )
                .map_err(stdout_error)?;
            }
            VerifyFormat::Json => documents.push(serde_json::json!({
                "file": file,
                "summary": outcome.summary,
                "problems": problems,
            })),
        }
    }
    if args.format == VerifyFormat::Json {
        render::json::write_document(&mut out, &documents).map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)?;
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
