//! The input formats and the decoding error every format's reader shares: a
//! leaf below `input/mod.rs` and each reader.

use std::fmt;

/// Which textual or binary form the input is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Guess the format with [`detect`].
    Auto,
    /// The bytes themselves.
    Raw,
    /// Hex digits, whitespace ignored (`encode(..., 'hex')`, `xxd -p`).
    Hex,
    /// PostgreSQL bytea text: `\x` then hex digits, bare or in psql's aligned table.
    Bytea,
    /// Base64 text with `=` padding, whitespace ignored.
    Base64,
    /// `od -t x1` output with decimal, hex or octal offsets (or none), or
    /// little-endian words: `od -x`, `od -t x2`/`x4`/`x8`, plain `hexdump`.
    Od,
    /// `xxd` output (any `-g` grouping, `-a` repeat lines, `-e` little-endian groups).
    Xxd,
    /// `hexdump -C` output; plain `hexdump` and `hexdump -x` (read as od reads them).
    Hexdump,
    /// gdb `x/Nbx` output.
    Gdb,
    /// `COPY … TO … (format binary)`: the `PGCOPY` signature, then tuples of
    /// length-prefixed fields (bytea as its bytes, text columns as hex/base64).
    CopyBinary,
    /// An Oracle trace from `alter system dump datafile N block M`: the blocks
    /// rebuilt from its `Dump of memory` sections.
    OracleTrace,
}

impl InputFormat {
    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Auto => "auto",
            InputFormat::Raw => "raw",
            InputFormat::Hex => "hex",
            InputFormat::Bytea => "bytea",
            InputFormat::Base64 => "base64",
            InputFormat::Od => "od",
            InputFormat::Xxd => "xxd",
            InputFormat::Hexdump => "hexdump",
            InputFormat::Gdb => "gdb",
            InputFormat::CopyBinary => "copy-binary",
            InputFormat::OracleTrace => "oracle-trace",
        }
    }
}

/// Where decoding went wrong: a clear one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// The format that was being decoded.
    pub format: InputFormat,
    /// 1-based line number in the text, when known.
    pub line: Option<usize>,
    /// Byte offset (in the text for text formats), when known.
    pub offset: Option<u64>,
    /// Lowercase; says what was expected and what was found.
    pub message: String,
}

impl InputError {
    /// An error that belongs to no particular line.
    pub(super) fn whole(format: InputFormat, message: String) -> InputError {
        InputError {
            format,
            line: None,
            offset: None,
            message,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} input", self.format.name())?;
        match (self.line, self.offset) {
            (Some(line), Some(offset)) => write!(f, ", line {line} (byte {offset})")?,
            (Some(line), None) => write!(f, ", line {line}")?,
            (None, Some(offset)) => write!(f, ", byte {offset}")?,
            (None, None) => {}
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for InputError {}

/// How much of the input [`detect`] looks at.
pub(super) const SNIFF_LEN: usize = 64 * 1024;

/// The most output a text dump may expand to through `*` runs and offset gaps.
/// Besides this absolute cap, the output may not exceed 64 × (input length + 8192).
const MAX_TEXT_OUTPUT: u64 = 1 << 30;

/// The output cap for a text input of `input_len` bytes.
pub(super) fn output_limit(input_len: usize) -> u64 {
    let relative = (input_len as u64).saturating_add(8192).saturating_mul(64);
    relative.min(MAX_TEXT_OUTPUT)
}
