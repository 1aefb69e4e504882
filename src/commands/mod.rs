//! The commands: one module per command (`show`, `verify`, `decode`,
//! `export`, `map`, `diff`), each taking a validated, typed config (built
//! from the arguments by the command line, `cli`) and a [`Sink`], and doing the work
//! through the engine seam ([`crate::engine`]), the checkers and the
//! renderers. Nothing here sees a command-line argument.
//!
//! What the commands share lives here: the [`Sink`] their output and
//! messages go to, block ranges, the `--schema` reader, and the answers to
//! "was that only the output pipe closing?".

use std::io::{self, Write};
use std::path::PathBuf;

use crate::error::Error;
use crate::source::MAX_BLOCK_NUMBER;

pub(crate) mod carve;
pub(crate) mod decode;
pub(crate) mod diff;
pub(crate) mod export;
pub(crate) mod infer;
pub(crate) mod inputs;
pub(crate) mod lookup;
pub(crate) mod lostwrite;
pub(crate) mod map;
pub(crate) mod pipeline;
pub(crate) mod progress;
pub(crate) mod rebuild;
pub(crate) mod relnames;
pub(crate) mod show;
pub(crate) mod verify;
pub(crate) mod wal;

/// Where a command's results go: its output (a writer: standard output for
/// the binary, a buffer in a test) and its messages beside the output
/// (notes, warnings, errors: standard error, written around the progress
/// bar by [`progress`]).
pub(crate) struct Sink<'a> {
    out: Box<dyn Write + 'a>,
}

impl<'a> Sink<'a> {
    /// Output to standard output, messages to standard error.
    pub(crate) fn stdio() -> Sink<'static> {
        Sink {
            out: Box::new(io::stdout().lock()),
        }
    }

    /// Output to `out` (messages still to standard error).
    #[cfg(test)]
    pub(crate) fn to(out: impl Write + 'a) -> Sink<'a> {
        Sink { out: Box::new(out) }
    }

    /// The writer of the command's output (unbuffered: the command wraps it
    /// in the buffer its output needs).
    pub(crate) fn out(&mut self) -> &mut (dyn Write + 'a) {
        &mut *self.out
    }

    /// A note (`blockscope: note: …\n`), unless `--quiet`.
    pub(crate) fn note(&self, line: &str) {
        progress::note(line);
    }

    /// A line that is never silenced: an error, a warning, a block skipped.
    pub(crate) fn report(&self, line: &str) {
        progress::report(line);
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

/// An error that is only the output pipe closing (`blockscope … | head`).
pub(crate) fn is_broken_pipe(e: &Error) -> bool {
    matches!(e, Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
}

/// A failed write of the output, named as standard output.
pub(crate) fn stdout_error(source: io::Error) -> Error {
    Error::Io {
        path: PathBuf::from("<stdout>"),
        source,
    }
}

/// `n` as a block number given by `option`: at most [`MAX_BLOCK_NUMBER`].
pub(crate) fn block_number(option: &str, n: u64) -> Result<u64, Error> {
    if n > MAX_BLOCK_NUMBER {
        return Err(Error::Usage(format!(
            "{option}: {n} is not a block number (block numbers are 32-bit: 0 to {MAX_BLOCK_NUMBER}; \
             {} is InvalidBlockNumber)",
            MAX_BLOCK_NUMBER + 1
        )));
    }
    Ok(n)
}

/// Inclusive range of block numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockRange {
    pub first: u64,
    pub last: u64,
}

impl BlockRange {
    pub(crate) const ALL: BlockRange = BlockRange {
        first: 0,
        last: u64::MAX,
    };

    /// `3`, `0..9`, `0..=9` (both inclusive), `5..`, `..4`.
    pub(crate) fn parse(text: &str) -> Result<BlockRange, Error> {
        let bad = || {
            Error::Usage(format!(
                "--blocks: expected N, A..B, A.. or ..B, found {text:?}"
            ))
        };
        let num = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| bad())
                .and_then(|n| block_number("--blocks", n))
        };
        match text.split_once("..") {
            None => {
                let n = num(text)?;
                Ok(BlockRange { first: n, last: n })
            }
            Some((a, b)) => {
                let b = b.strip_prefix('=').unwrap_or(b);
                let first = if a.trim().is_empty() { 0 } else { num(a)? };
                let last = if b.trim().is_empty() {
                    u64::MAX
                } else {
                    num(b)?
                };
                if first > last {
                    return Err(Error::Usage(format!("--blocks: {first} is after {last}")));
                }
                Ok(BlockRange { first, last })
            }
        }
    }

    pub(crate) fn contains(&self, n: u64) -> bool {
        self.first <= n && n <= self.last
    }
}

/// All of `bytes` on standard output, flushed.
pub(crate) fn write_stdout(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}
