//! The crate's error type: one line each, lowercase, saying where.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::input::InputError;

#[derive(Debug)]
pub enum Error {
    /// Opening or reading an input failed.
    Io { path: PathBuf, source: io::Error },
    /// An input's text could not be decoded into bytes.
    Input { path: PathBuf, source: InputError },
    /// The command line asked for something impossible.
    Usage(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Input { path, source } => write!(f, "{}: {source}", path.display()),
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
