//! The crate's error type: one line each, lowercase, saying where.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::input::InputError;

/// What went wrong with an input or the command line.
#[derive(Debug)]
pub enum Error {
    /// Opening or reading an input failed.
    Io {
        /// The file or `-` that failed.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// An input's text could not be decoded into bytes.
    Input {
        /// The file or `-` whose text failed.
        path: PathBuf,
        /// Why the text did not decode.
        source: InputError,
    },
    /// The command line asked for something impossible.
    Usage(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => {
                write!(f, "{}: {source}", crate::escape::path(path))
            }
            Error::Input { path, source } => {
                write!(f, "{}: {source}", crate::escape::path(path))
            }
            Error::Usage(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Input { source, .. } => Some(source),
            Error::Usage(_) => None,
        }
    }
}

/// Where a text input stopped making sense: the 1-based line and column of
/// the first character that does not fit, and what was expected there.
///
/// Shared by the text readers (dump text, Oracle traces); `line` 0 is an
/// error about the text as a whole, `column` 0 one about a whole line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    /// 1-based line number; 0 when the error belongs to no line.
    pub line: usize,
    /// 1-based column (in characters); 0 when the error is about the whole line.
    pub column: usize,
    /// Lowercase; says what was expected and what was found.
    pub message: String,
}

impl TextError {
    /// An error at `line`, `column`.
    pub fn at(line: usize, column: usize, message: impl Into<String>) -> TextError {
        TextError {
            line,
            column,
            message: message.into(),
        }
    }

    /// An error about the whole text.
    pub fn whole(message: impl Into<String>) -> TextError {
        TextError::at(0, 0, message)
    }

    /// The same error as an [`InputError`] of `format` (as the command line
    /// prints input errors: by line, without the column).
    pub fn into_input(self, format: crate::input::InputFormat) -> InputError {
        InputError {
            format,
            line: (self.line > 0).then_some(self.line),
            offset: None,
            message: self.message,
        }
    }
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => {}
            (l, 0) => write!(f, "line {l}: ")?,
            (l, c) => write!(f, "line {l}, column {c}: ")?,
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for TextError {}
