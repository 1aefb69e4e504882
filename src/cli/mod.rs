//! Command line: clap arguments ([`args`]) turned into validated configs once
//! ([`config`]), each handed with a [`Sink`] on standard output to its
//! command in [`crate::commands`], which does the work.

use std::io::{self};
use std::process::ExitCode;

use clap::FromArgMatches;

use crate::error::Error;

use crate::commands::carve::{self, CarveConfig};
use crate::commands::decode::{self, DecodeConfig};
use crate::commands::diff::{self, DiffConfig};
use crate::commands::export::{self, ExportConfig};
use crate::commands::infer::{self, InferConfig};
use crate::commands::map::{self, MapConfig};
use crate::commands::show::{self, ShowConfig};
use crate::commands::verify::{self, VerifyConfig};
use crate::commands::wal::{self, WalConfig};
use crate::commands::{progress, stdout_error, write_stdout, Sink};

pub(crate) mod args;
pub(crate) mod config;
mod man;

pub(crate) use args::*;

/// Entry point of the binary: run and map the result to an exit status.
pub(crate) fn main() -> ExitCode {
    let parsed = args::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    match run(cli) {
        Ok(code) => code,
        Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            report_error(&format!("blockscope: error: {e}\n"));
            ExitCode::from(2)
        }
    }
}

/// A message on standard error; a closed or full stderr is ignored (there
/// is nowhere left to say anything), never a panic.
pub(crate) fn report_error(message: &str) {
    progress::report(message);
}

/// clap's own outcome (help, version, a usage error) printed without
/// panicking on a closed or full stream: help and version on stdout (exit 0,
/// or 2 if stdout is full), usage errors on stderr (exit 2).
fn clap_exit(e: &clap::Error) -> ExitCode {
    let text = e.render().to_string();
    if e.use_stderr() {
        report_error(&text);
        return ExitCode::from(2);
    }
    match write_stdout(text.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(err) => {
            report_error(&format!("blockscope: error: <stdout>: {err}\n"));
            ExitCode::from(2)
        }
    }
}

/// Run a parsed command line.
pub(crate) fn run(cli: Cli) -> Result<ExitCode, Error> {
    let sink = &mut Sink::stdio();
    match cli.command {
        Command::Show(args) => {
            progress::set_quiet(args.quiet);
            show::run(&ShowConfig::from_args(&args)?, sink)
        }
        Command::Verify(args) => verify::run(&VerifyConfig::from_args(&args)?, sink),
        Command::Decode(args) => decode::run(&DecodeConfig::from_args(&args), sink),
        Command::Diff(args) => diff::run(&DiffConfig::from_args(&args)?, sink),
        Command::Map(args) => map::run(&MapConfig::from_args(&args)?, sink),
        Command::Export(args) => export::run(&ExportConfig::from_args(&args)?, sink),
        Command::Wal(args) => wal::run(&WalConfig::from_args(&args)?, sink),
        Command::Carve(args) => carve::run(&CarveConfig::from_args(&args)?, sink),
        Command::Infer(args) => infer::run(&InferConfig::from_args(&args)?, sink),
        Command::Man(args) => man::run(&args),
        Command::Completions { shell } => {
            // Generated into memory: clap_complete panics on a failed write.
            let mut cmd = args::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "blockscope", &mut script);
            write_stdout(&script).map_err(stdout_error)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
