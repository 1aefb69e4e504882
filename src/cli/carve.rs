//! `carve` wired to the terminal: the progress bar and notes on standard
//! error, the summary on standard output, the exit status.

use std::io;
use std::process::ExitCode;

use crate::commands::carve::{self, CarveSink};
use crate::error::Error;
use crate::render;

use super::config::carve::CarveConfig;
use super::progress::{self, Progress, ProgressMode};
use super::{is_broken_pipe, stdout_error};

struct Terminal {
    mode: ProgressMode,
    progress: Progress,
}

impl CarveSink for Terminal {
    fn started(&mut self, total: u64) {
        self.progress = Progress::start(self.mode, total);
    }

    fn advanced(&mut self, bytes: u64) {
        self.progress.inc(bytes);
    }

    fn note(&mut self, line: &str) {
        progress::note(line);
    }
}

/// Exit status 0 when pages were found, 1 when none were.
pub(crate) fn run(config: &CarveConfig) -> Result<ExitCode, Error> {
    let mut sink = Terminal {
        mode: config.progress,
        progress: Progress::none(),
    };
    let manifest = carve::run(config, &mut sink)?;
    drop(sink);
    let mut out = io::stdout().lock();
    match render::carve::summary(&mut out, &manifest, config.out.as_deref()) {
        Err(e) if is_broken_pipe(&stdout_error(e.kind().into())) => {}
        Err(e) => return Err(stdout_error(e)),
        Ok(()) => {}
    }
    Ok(if manifest.groups.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
