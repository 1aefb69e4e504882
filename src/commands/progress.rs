//! Progress on long runs and the notes on standard error.
//!
//! `verify`, `export`, `map` and `diff` over inputs of [`THRESHOLD`] bytes or
//! more draw a progress bar on standard error — bytes done, rate, time left
//! — when standard error is a terminal; `--progress` draws it for any input,
//! terminal or not, and `--quiet` never (and silences notes). The command
//! advances indicatif's counter (an atomic) once per chunk of blocks it has
//! finished, never per block; indicatif redraws at most [`REFRESH_HZ`] times
//! a second on those calls, so the bar costs nothing measurable.
//!
//! Anything written to standard error while a bar is drawn goes through
//! [`report`] or [`note`], which take the bar off the screen, write the
//! line and draw it again; output to a standard output that is the same
//! terminal goes through [`Progress::output`] for the same reason.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::model::map::BlockFigures;
use crate::model::postgres::verify::{Skipped, VerifyProblem};
use crate::verify::Report;

/// Inputs of at least this many bytes (256 MiB) get a progress bar on a
/// terminal: below that a run takes about a second.
pub(crate) const THRESHOLD: u64 = 256 << 20;

/// Redraws per second.
const REFRESH_HZ: u8 = 4;

/// `--quiet`: no notes, no bar.
static QUIET: AtomicBool = AtomicBool::new(false);

/// The bar on screen, if any: lines written to standard error take it off
/// the screen while they are written.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// When to draw the bar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ProgressMode {
    /// On a terminal, for inputs of [`THRESHOLD`] bytes or more.
    #[default]
    Auto,
    /// `--progress`: for any input, on standard error whatever it is.
    Forced,
    /// `--quiet`: never.
    Off,
}

/// `--quiet` of a command that draws no bar (`show`): no notes.
pub(crate) fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `--quiet` was given: no notes.
pub(crate) fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// A note on standard error (`blockscope: note: …`), unless `--quiet`.
/// `line` ends with a newline.
pub(crate) fn note(line: &str) {
    if !quiet() {
        report(line);
    }
}

/// A line on standard error that is never silenced (an error, a block
/// skipped), written with the bar off the screen. A closed or full stderr
/// is ignored: there is nowhere left to say anything.
pub(crate) fn report(line: &str) {
    let write = || {
        let _ = io::stderr().lock().write_all(line.as_bytes());
    };
    match current() {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

fn current() -> Option<ProgressBar> {
    BAR.lock().ok().and_then(|b| b.clone())
}

/// The progress of one run; the bar (if drawn) is cleared when this is
/// dropped.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    /// Standard output is a terminal: the output is written with the bar
    /// off the screen.
    stdout_terminal: bool,
}

impl Progress {
    /// No bar (standard input, or nothing worth one).
    pub(crate) fn none() -> Progress {
        Progress {
            bar: None,
            stdout_terminal: false,
        }
    }

    /// A run over `total` bytes: a bar when `mode` says so for that size.
    pub(crate) fn start(mode: ProgressMode, total: u64) -> Progress {
        let draw = match mode {
            ProgressMode::Off => false,
            ProgressMode::Forced => true,
            ProgressMode::Auto => total >= THRESHOLD && io::stderr().is_terminal(),
        };
        if !draw {
            return Progress::none();
        }
        // Drawn as asked even when standard error is not a terminal
        // (indicatif's stderr target hides itself there).
        let target = if io::stderr().is_terminal() {
            ProgressDrawTarget::stderr_with_hz(REFRESH_HZ)
        } else {
            ProgressDrawTarget::term_like_with_hz(Box::new(console::Term::stderr()), REFRESH_HZ)
        };
        let bar = ProgressBar::with_draw_target(Some(total), target).with_style(
            ProgressStyle::with_template(
                "{bar:30} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec}, {eta} left",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        if let Ok(mut current) = BAR.lock() {
            *current = Some(bar.clone());
        }
        Progress {
            bar: Some(bar),
            stdout_terminal: io::stdout().is_terminal(),
        }
    }

    /// `bytes` more are done.
    pub(crate) fn inc(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
        }
    }

    /// Run `write` with the bar off the screen.
    pub(crate) fn suspend<R>(&self, write: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }

    /// Run `write` (output to standard output) with the bar off the screen
    /// when standard output is the terminal it is drawn on.
    pub(crate) fn output<R>(&self, write: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) if self.stdout_terminal => bar.suspend(write),
            _ => write(),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
            if let Ok(mut current) = BAR.lock() {
                *current = None;
            }
        }
    }
}

/// A [`Report`] of verify's checks (`verify`, `map`) with the progress bar:
/// started when the run knows its inputs' size, advanced as their blocks
/// are reported, off the screen while the report writes.
pub(crate) struct ProgressReport<'a, R: Report> {
    pub(crate) inner: &'a mut R,
    mode: ProgressMode,
    progress: Progress,
}

impl<'a, R: Report> ProgressReport<'a, R> {
    pub(crate) fn new(inner: &'a mut R, mode: ProgressMode) -> Self {
        ProgressReport {
            inner,
            mode,
            progress: Progress::none(),
        }
    }
}

impl<R: Report> Report for ProgressReport<'_, R> {
    fn skipped(&mut self, skipped: &Skipped) -> io::Result<()> {
        // Notes go to standard error, where the bar is.
        self.progress.suspend(|| self.inner.skipped(skipped))
    }

    fn problem(&mut self, problem: &VerifyProblem) -> io::Result<()> {
        self.progress.output(|| self.inner.problem(problem))
    }

    fn wants_blocks(&self) -> bool {
        self.inner.wants_blocks()
    }

    fn block(&mut self, figures: &BlockFigures) -> io::Result<()> {
        self.progress.output(|| self.inner.block(figures))
    }

    fn started(&mut self, total_bytes: u64) {
        self.progress = Progress::start(self.mode, total_bytes);
    }

    fn advanced(&mut self, bytes: u64) {
        self.progress.inc(bytes);
    }
}
