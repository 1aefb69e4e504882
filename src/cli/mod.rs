//! Command line: clap arguments ([`args`]) turned into validated configs once
//! ([`config`]), then one module per command wiring sources, the engine seam,
//! renderers and checkers. The only module that sees all the others.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::FromArgMatches;

use crate::error::Error;

pub(crate) mod args;
pub(crate) mod config;
mod decode;
mod diff;
mod export;
mod man;
mod map;
mod pipeline;
mod progress;
mod show;
mod show_cluster;
mod verify;

pub(crate) use args::*;
pub(crate) use config::{DiffConfig, ShowConfig, VerifyConfig};

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

/// With no INPUT, `show`, `verify` and `map` read standard input; when
/// that is a terminal, nothing would come until the user types or pastes
/// a dump, so say so on stderr instead of waiting silently (`cat` waits
/// silently; a forensics tool read by someone unsure where the page went
/// should not).
pub(crate) fn note_terminal_stdin() {
    use std::io::IsTerminal;
    if io::stdin().is_terminal() {
        report_error(
            "blockscope: note: reading standard input (a terminal): paste a page dump and \
             press Ctrl-D to end, or Ctrl-C and give a file\n",
        );
    }
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

/// All of `bytes` on standard output, flushed.
fn write_stdout(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

/// Run a parsed command line.
pub(crate) fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::Show(args) => {
            progress::set_quiet(args.quiet);
            show::run(&ShowConfig::from_args(&args)?)
        }
        Command::Verify(args) => verify::run(&VerifyConfig::from_args(&args)?),
        Command::Decode(args) => decode::run(&args),
        Command::Diff(args) => diff::run(&DiffConfig::from_args(&args)?),
        Command::Map(args) => {
            config::check_map(&args)?;
            map::run(&args)
        }
        Command::Export(args) => {
            config::check_export(&args)?;
            export::run(&args)
        }
        Command::Infer(args) => {
            let cfg = crate::commands::infer::InferConfig::from_args(&args)?;
            crate::commands::infer::run(&cfg, &mut io::stdout().lock())
        }
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

/// An error that is only the output pipe closing (`blockscope … | head`).
fn is_broken_pipe(e: &Error) -> bool {
    matches!(e, Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
}

fn stdout_error(source: io::Error) -> Error {
    Error::Io {
        path: PathBuf::from("<stdout>"),
        source,
    }
}
