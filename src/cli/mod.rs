//! Command line: clap arguments ([`args`]) turned into validated configs once
//! ([`config`]), then one module per command wiring sources, the engine seam,
//! renderers and checkers. The only module that sees all the others.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::error::Error;

pub mod args;
pub mod config;
mod decode;
mod show;
mod verify;

pub use args::*;
pub use config::{ShowConfig, VerifyConfig};

/// Entry point of the binary: run and map the result to an exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("blockscope: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::Show(args) => show::run(&ShowConfig::from_args(&args)?),
        Command::Verify(args) => verify::run(&VerifyConfig::from_args(&args)),
        Command::Decode(args) => decode::run(&args),
        Command::Completions { shell } => {
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "blockscope", &mut io::stdout());
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn stdout_error(source: io::Error) -> Error {
    Error::Io {
        path: PathBuf::from("<stdout>"),
        source,
    }
}
