//! Progress on long runs and the notes on standard error.
//!
//! `verify`, `export`, `map`, `diff`, `carve`, `wal` and `infer` over inputs of
//! [`THRESHOLD`] bytes or more — PostgreSQL relation files and data
//! directories, Oracle datafiles, WAL segments — draw a progress bar on standard error
//! (bytes done, rate, time left; `verify --deep` counts its second pass over
//! each file too) when standard error is a terminal; standard input, whose
//! size is not known, gets a counter of the bytes read and the rate once
//! [`THRESHOLD`] bytes have come. `--progress` draws either for any input,
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
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::model::map::BlockFigures;
use crate::model::postgres::verify::Skipped;
use crate::verify::oracle::OracleInput;
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
        Progress::open(mode, Some(total))
    }

    /// A run that reads `total` bytes spread over inputs of `inputs` bytes
    /// (`infer`'s sample of pages): a bar of `total` bytes when `mode` says
    /// so for inputs of that size.
    pub(crate) fn sampling(mode: ProgressMode, inputs: u64, total: u64) -> Progress {
        let draw = match mode {
            ProgressMode::Off => false,
            ProgressMode::Forced => true,
            ProgressMode::Auto => inputs >= THRESHOLD && io::stderr().is_terminal(),
        };
        match draw {
            true => Progress::open(ProgressMode::Forced, Some(total)),
            false => Progress::none(),
        }
    }

    /// A run over `total` bytes, or (`None`) over an input whose size is
    /// not known (standard input): then a count of the bytes read and the
    /// rate, drawn in [`ProgressMode::Auto`] once [`THRESHOLD`] bytes were
    /// read.
    pub(crate) fn open(mode: ProgressMode, total: Option<u64>) -> Progress {
        let terminal = io::stderr().is_terminal();
        let (draw, hidden) = match mode {
            ProgressMode::Off => (false, false),
            ProgressMode::Forced => (true, false),
            ProgressMode::Auto => match total {
                Some(total) => (total >= THRESHOLD && terminal, false),
                // Drawn when the count passes THRESHOLD (see `inc`).
                None => (terminal, true),
            },
        };
        if !draw {
            return Progress::none();
        }
        let template = match total {
            Some(_) => {
                "{bar:30} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec}, {eta} left"
            }
            None => "{spinner} {binary_bytes} read, {binary_bytes_per_sec}, {elapsed} so far",
        };
        let target = if hidden {
            ProgressDrawTarget::hidden()
        } else {
            draw_target()
        };
        let bar = ProgressBar::with_draw_target(total, target).with_style(
            ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        if let Ok(mut current) = BAR.lock() {
            *current = Some(bar.clone());
        }
        Progress {
            bar: Some(bar),
            stdout_terminal: io::stdout().is_terminal(),
        }
    }

    /// Whether a bar is drawn (or counting, to be drawn).
    pub(crate) fn drawn(&self) -> bool {
        self.bar.is_some()
    }

    /// `bytes` more are done.
    pub(crate) fn inc(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            let before = bar.position();
            bar.inc(bytes);
            // A count of unknown total kept hidden until it is worth one.
            if bar.is_hidden() && before < THRESHOLD && bar.position() >= THRESHOLD {
                bar.set_draw_target(draw_target());
            }
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

/// Standard error, drawn on as asked even when it is not a terminal
/// (indicatif's stderr target hides itself there).
fn draw_target() -> ProgressDrawTarget {
    if io::stderr().is_terminal() {
        ProgressDrawTarget::stderr_with_hz(REFRESH_HZ)
    } else {
        ProgressDrawTarget::term_like_with_hz(Box::new(console::Term::stderr()), REFRESH_HZ)
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

/// A [`Report`] of verify's checks (`verify`, `map`) with the progress bar,
/// advanced as the blocks are reported and off the screen while the report
/// writes. The bar is either the report's own, started when the run knows
/// its inputs' size ([`ProgressReport::new`]), or a run's one bar that
/// several inputs' reports advance in turn ([`ProgressReport::sharing`]:
/// an Oracle datafile among several).
pub(crate) struct ProgressReport<'a, R: ?Sized> {
    pub(crate) inner: &'a mut R,
    bar: Bar<'a>,
}

/// The bar a [`ProgressReport`] advances.
enum Bar<'a> {
    /// Its own, opened in `mode` when the run starts.
    Own(ProgressMode, Progress),
    /// A run's bar, opened by the caller.
    Shared(&'a Progress),
}

impl<'a, R: ?Sized> ProgressReport<'a, R> {
    /// A report with its own bar, drawn as `mode` says once the run knows
    /// its inputs' size.
    pub(crate) fn new(inner: &'a mut R, mode: ProgressMode) -> Self {
        ProgressReport {
            inner,
            bar: Bar::Own(mode, Progress::none()),
        }
    }

    /// A report of one input among several, advancing the run's `progress`.
    pub(crate) fn sharing(inner: &'a mut R, progress: &'a Progress) -> Self {
        ProgressReport {
            inner,
            bar: Bar::Shared(progress),
        }
    }
}

impl<F: ?Sized, R: Report<F> + ?Sized> Report<F> for ProgressReport<'_, R> {
    fn skipped(&mut self, skipped: &Skipped) -> io::Result<()> {
        // Notes go to standard error, where the bar is.
        let ProgressReport { inner, bar } = self;
        progress_of(bar).suspend(|| inner.skipped(skipped))
    }

    fn problem(&mut self, problem: &F) -> io::Result<()> {
        let ProgressReport { inner, bar } = self;
        progress_of(bar).output(|| inner.problem(problem))
    }

    fn wants_blocks(&self) -> bool {
        self.inner.wants_blocks()
    }

    fn block(&mut self, figures: &BlockFigures) -> io::Result<()> {
        let ProgressReport { inner, bar } = self;
        progress_of(bar).output(|| inner.block(figures))
    }

    fn started(&mut self, total_bytes: Option<u64>) {
        // A shared bar was opened for the whole run by its caller.
        if let Bar::Own(mode, progress) = &mut self.bar {
            *progress = Progress::open(*mode, total_bytes);
        }
    }

    fn advanced(&mut self, bytes: u64) {
        progress_of(&self.bar).inc(bytes);
    }
}

/// The bar itself, whoever opened it.
fn progress_of<'b>(bar: &'b Bar<'_>) -> &'b Progress {
    match bar {
        Bar::Own(_, progress) => progress,
        Bar::Shared(progress) => progress,
    }
}

/// The bytes of a run's Oracle datafiles (its traces are short text, read
/// at once); `None` when standard input is among them.
pub(crate) fn datafile_bytes(files: &[(PathBuf, OracleInput)]) -> Option<u64> {
    let mut total = 0u64;
    for (path, kind) in files {
        if path.as_os_str() == "-" {
            return None;
        }
        if *kind == OracleInput::Datafile {
            total += std::fs::metadata(path).map_or(0, |m| m.len());
        }
    }
    Some(total)
}
