//! Opening an input: the one way `show`, `diff`, `export`, `verify` and
//! `map` reach an input's bytes and the engine that wrote them.
//!
//! ```text
//!   path or stdin ──Source──▶ form (raw, text dump, trace) and block size
//!                 ──sniff───▶ engine (unless given)
//! ```
//!
//! [`identify`] stops at the detected engine (or a trace's text) and the
//! opened source: `verify` and `map` choose their verifier from it (through
//! `verify_plan`), `export` keeps a file's engine ([`file_engine`]). [`open`]
//! goes on to a trace's blocks; `show` and `diff` build their decoder from
//! it (with [`Decoder::new`](super::Decoder::new)) or read the source their
//! own way. Standard input given to `verify` or `map` is the one exception:
//! its first bytes are peeked and kept for the checker, which reads it once.

use std::path::Path;

use crate::error::Error;
use crate::input::InputFormat;
use crate::reader::Endian;
use crate::source::{Source, Tap};

use super::sniff::{sniff_block_size, Detection};
use super::{Engine, TracePages};

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

/// An input opened and identified, before any block of it is decoded.
pub(crate) enum Identified {
    /// An Oracle trace: its text, taken from the source.
    Trace {
        /// The input (its name is the trace's).
        source: Source,
        /// The trace's text.
        text: Vec<u8>,
    },
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

/// Open `req.input` and say what it is: detect its form and block size,
/// take an Oracle trace's text, and otherwise find the engine of its first
/// block. The one way every command reaches an input: [`open`] (show,
/// diff) goes on to a trace's blocks, [`file_engine`] (export) keeps the
/// engine, and `verify_plan` (verify, map) chooses the verifier from it.
pub(crate) fn identify(req: OpenRequest<'_>) -> Result<Identified, Error> {
    let mut source = Source::open_tapped(req.input, req.input_format, req.block_size, req.tap)?;
    source.detect_block_size(sniff_block_size);
    if let Some(text) = source.take_trace_text() {
        return Ok(Identified::Trace { source, text });
    }
    let (engine, detection) = match req.engine {
        Some(e) => (e, None),
        None => {
            let d = Engine::sniff(&source.head(source.block_size)?);
            (d.engine, Some(d))
        }
    };
    Ok(Identified::Blocks {
        source,
        engine,
        detection,
    })
}

/// Open `req.input`: detect its form and block size, find an Oracle
/// trace's blocks, and otherwise the engine of its first block.
pub(crate) fn open(req: OpenRequest<'_>) -> Result<OpenedInput, Error> {
    let endian = req.endian;
    Ok(match identify(req)? {
        Identified::Trace { source, text } => {
            let pages = TracePages::open(text, endian).map_err(|e| Error::Input {
                path: source.name.clone(),
                source: e,
            })?;
            OpenedInput::Trace(pages)
        }
        Identified::Blocks {
            source,
            engine,
            detection,
        } => OpenedInput::Blocks {
            source,
            engine,
            detection,
        },
    })
}

/// The engine of a relation file read by position (`export`): the one given,
/// or the one its first block looks like.
pub(crate) fn file_engine(path: &Path, engine: Option<Engine>) -> Result<Engine, Error> {
    if let Some(engine) = engine {
        return Ok(engine);
    }
    // A relation file is pages, never a text dump: read it raw.
    let req = OpenRequest {
        input: Some(path),
        input_format: InputFormat::Raw,
        block_size: None,
        tap: None,
        engine: None,
        endian: None,
    };
    Ok(match identify(req)? {
        Identified::Blocks { engine, .. } => engine,
        Identified::Trace { .. } => Engine::Oracle,
    })
}
