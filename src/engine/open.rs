//! Opening an input: the one way `show`, `diff` and `export` reach an
//! input's bytes and the engine that wrote them.
//!
//! ```text
//!   path or stdin ──Source──▶ form (raw, text dump, trace) and block size
//!                 ──sniff───▶ engine (unless given)
//! ```
//!
//! [`open`] stops at the detected engine and the opened source; the caller
//! builds its decoder from them (with [`Decoder::new`](super::Decoder::new))
//! or reads the source its own way.

use std::io::Read;
use std::path::Path;

use crate::error::Error;
use crate::input::InputFormat;
use crate::reader::Endian;
use crate::source::{Source, Tap};

use super::{Detection, Engine, TracePages};

/// What to open, and what is already known of it.
pub(crate) struct OpenRequest<'a> {
    /// The file; `None` or `-`: standard input.
    pub(crate) input: Option<&'a Path>,
    /// `--input-format`.
    pub(crate) input_format: InputFormat,
    /// `--block-size`; `None` detects it from the first block.
    pub(crate) block_size: Option<usize>,
    /// Every byte read also fed here (`--evidence`).
    pub(crate) tap: Option<Tap>,
    /// `--engine`; `None` detects it from the first block.
    pub(crate) engine: Option<Engine>,
    /// `--endian` of an Oracle trace's blocks.
    pub(crate) endian: Option<Endian>,
}

/// One input, opened.
pub(crate) enum OpenedInput {
    /// An Oracle trace: its blocks, found in its text and decoded as they
    /// are taken.
    Trace(TracePages),
    /// Blocks of one engine, cut by size from the source.
    Blocks {
        /// The input, its form and block size detected.
        source: Source,
        /// The engine given or detected.
        engine: Engine,
        /// The detection's scores (None: `--engine` given).
        detection: Option<Detection>,
    },
}

/// Open `req.input`: detect its form and block size, find an Oracle
/// trace's blocks, and otherwise the engine of its first block.
pub(crate) fn open(req: OpenRequest<'_>) -> Result<OpenedInput, Error> {
    let mut source = Source::open_tapped(req.input, req.input_format, req.block_size, req.tap)?;
    source.detect_block_size(super::sniff_block_size);
    if let Some(text) = source.take_trace_text() {
        let pages = TracePages::open(text, req.endian).map_err(|e| Error::Input {
            path: source.name.clone(),
            source: e,
        })?;
        return Ok(OpenedInput::Trace(pages));
    }
    let (engine, detection) = match req.engine {
        Some(e) => (e, None),
        None => {
            let d = Engine::sniff(&source.head(source.block_size)?);
            (d.engine, Some(d))
        }
    };
    Ok(OpenedInput::Blocks {
        source,
        engine,
        detection,
    })
}

/// The engine of a relation file read by position (`export`): the one given,
/// or the one its first 8 kB look like.
pub(crate) fn file_engine(path: &Path, engine: Option<Engine>) -> Result<Engine, Error> {
    if let Some(engine) = engine {
        return Ok(engine);
    }
    let mut head = vec![0u8; 8192];
    let n = crate::source::open_file(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    head.truncate(n);
    Ok(Engine::sniff(&head).engine)
}
