//! Input decoding: turns what the user handed us into the bytes of pages or blocks.
//!
//! The bytes may arrive as they are (raw), or as text printed by one of the tools
//! people use to look at pages:
//!
//! | format    | produced by                                                        |
//! | --------- | ------------------------------------------------------------------ |
//! | `raw`     | the relation or datafile itself, `dd`, `pg_read_binary_file`       |
//! | `hex`     | `encode(get_raw_page(..), 'hex')`, `xxd -p`                        |
//! | `bytea`   | `select get_raw_page(..)` (`\x...`, bare or in psql's output)      |
//! | `base64`  | `encode(get_raw_page(..), 'base64')`, coreutils `base64`           |
//! | `od`      | `od -A d -t x1`, `od -A x -t x1z`, `od -t x1` (octal offsets);     |
//! |           | words: `od -x`, `od -t x2`/`x4`/`x8`, `od -A n`, plain `hexdump`   |
//! | `xxd`     | `xxd`, `xxd -g1`/`-g4`, `xxd -a`, `xxd -e` (`xxd -p` is plain hex) |
//! | `hexdump` | `hexdump -C` (and `hd`); plain `hexdump`, `hexdump -x`             |
//! | `gdb`     | gdb's `x/Nbx ADDR`                                                 |
//!
//! Hex, bytea and base64 are also accepted inside every envelope psql and COPY
//! put around them (aligned, `-t`, `-A`, `-x`, `--csv`, COPY text and COPY
//! binary, see `psql`); several rows are concatenated, and a leading integer
//! column gives each row's block number ([`decode_pages`]). The line psql
//! prints when `\x` or `\x auto` is typed with the query (`Expanded display is
//! on.`) is passed over.
//!
//! [`detect`] guesses the format from the first 64 KiB; [`decode`] turns the whole
//! input into bytes. Dumps that carry offsets (od, xxd, hexdump, gdb) are checked
//! line by line: the bytes are placed by their offsets, `*` runs are filled from the
//! line before them, and a gap, an offset going backwards or a line cut short is an
//! error naming the line. The first offset of a dump is taken as its start, so a dump
//! made with `od -j`, `xxd -s` or of memory at any address decodes to its own bytes.
//!
//! No input makes this module panic, and no number in the input makes it allocate
//! more than 64 times the input's size (plus 512 KiB), and never more than 1 GiB.

mod base64;
mod detect;
mod dump;
mod form;
mod gdb;
mod hex;
mod hexdump;
mod od;
mod psql;
mod text;
mod xxd;

#[cfg(test)]
mod tests;

use form::{output_limit, SNIFF_LEN};
pub use form::{InputError, InputFormat};

/// Guess the format from the start of the data (look at up to the first 64 KiB).
///
/// Never returns [`InputFormat::Auto`]. Data that is not plausibly text (a NUL, or a
/// byte outside printable ASCII and whitespace) is [`InputFormat::Raw`]; so is empty
/// data. Text that fits no format is guessed to be [`InputFormat::Hex`], whose
/// decoder then says where it stops being hex.
pub fn detect(data: &[u8]) -> InputFormat {
    detect::detect(&text::without_psql_banners(data))
}

/// Decode the whole input into bytes. `Raw` returns the data unchanged; `Auto`
/// detects first. Returns the bytes and the format actually used.
pub fn decode(data: &[u8], format: InputFormat) -> Result<(Vec<u8>, InputFormat), InputError> {
    decode_rows(data, format).map(|d| (d.bytes, d.format))
}

/// A decoded input: its bytes, the format used, and where the rows of a psql
/// or COPY result start, with the block numbers their leading column gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The pages, one after another.
    pub bytes: Vec<u8>,
    /// The format actually used (the values' format inside psql's or COPY's
    /// envelope; `CopyBinary` for COPY's binary format).
    pub format: InputFormat,
    /// The rows that named their block number, in order: each row's byte
    /// range in `bytes` and that number (its first page's; further pages of a
    /// row count on from it). Empty when no row had one.
    pub blknos: Vec<RowBlkno>,
    /// Said to the user on standard error (e.g. text read as raw pages).
    pub note: Option<String>,
}

/// Where one row's pages are in [`Decoded::bytes`], and its block number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowBlkno {
    /// Byte offset of the row's first page in [`Decoded::bytes`].
    pub offset: u64,
    /// Length in bytes of the row's pages.
    pub len: u64,
    /// The row's block number (the `blkno` column of a psql or COPY dump).
    pub blkno: u64,
}

impl Decoded {
    /// The block number the input gave for the block at byte `offset` of
    /// `bytes`, for blocks of `block_size` bytes.
    pub fn blkno_at(&self, offset: u64, block_size: usize) -> Option<u64> {
        blkno_at(&self.blknos, offset, block_size)
    }
}

/// The block number `rows` give the block at byte `offset`, for blocks of
/// `block_size` bytes (a row of several pages counts on from its number).
pub(crate) fn blkno_at(rows: &[RowBlkno], offset: u64, block_size: usize) -> Option<u64> {
    let row = rows
        .iter()
        .find(|r| r.offset <= offset && offset < r.offset.saturating_add(r.len))?;
    let within = (offset - row.offset) / (block_size.max(1) as u64);
    Some(row.blkno.saturating_add(within))
}

/// Like [`decode`], and keeps the block numbers of psql's and COPY's rows. When
/// `format` is `Auto`, input that looks like text but parses as none, and
/// whose size is a whole number of `block_size` blocks, is read as raw pages
/// with a note: a block overwritten by a text file is all printable bytes.
pub fn decode_pages(
    data: &[u8],
    format: InputFormat,
    block_size: usize,
) -> Result<Decoded, InputError> {
    match decode_rows(data, format) {
        Err(err)
            if format == InputFormat::Auto
                && block_size > 0
                && !data.is_empty()
                && data.len().is_multiple_of(block_size) =>
        {
            Ok(Decoded {
                bytes: data.to_vec(),
                format: InputFormat::Raw,
                blknos: Vec::new(),
                note: Some(format!(
                    "read as raw pages: the input is all printable characters but is not a text dump \
                     ({err}); its {} bytes are a whole number of {block_size}-byte blocks \
                     (a page overwritten by text?)",
                    data.len()
                )),
            })
        }
        other => other,
    }
}

fn decode_rows(data: &[u8], format: InputFormat) -> Result<Decoded, InputError> {
    // Raw bytes are never text to clean up.
    let cleaned = match format {
        InputFormat::Raw => std::borrow::Cow::Borrowed(data),
        _ => text::without_psql_banners(data),
    };
    let data = &*cleaned;
    let plain = |bytes: Vec<u8>, format: InputFormat| Decoded {
        bytes,
        format,
        blknos: Vec::new(),
        note: None,
    };
    let format = match format {
        InputFormat::Auto if data.is_empty() => {
            return Err(InputError::whole(
                InputFormat::Auto,
                "expected page bytes or a text dump of them, found empty input".to_string(),
            ));
        }
        InputFormat::Auto => match detect(data) {
            // psql's and COPY's envelopes hold hex, bytea or base64 values:
            // the values decide which (`Auto` below).
            InputFormat::Hex | InputFormat::Bytea | InputFormat::Base64 => {
                if let Some(rows) = psql::text_rows(data, InputFormat::Auto) {
                    return rows.map(from_rows);
                }
                detect(data)
            }
            other => other,
        },
        other @ (InputFormat::Hex | InputFormat::Bytea | InputFormat::Base64) => {
            if let Some(rows) = psql::text_rows(data, other) {
                return rows.map(from_rows);
            }
            other
        }
        other => other,
    };
    let limit = output_limit(data.len());
    let bytes = match format {
        // `detect` never answers `Auto`; treat it as raw should that ever change.
        InputFormat::Auto | InputFormat::Raw => data.to_vec(),
        InputFormat::Hex => hex::decode_hex(InputFormat::Hex, data)?,
        InputFormat::Bytea => hex::decode_bytea(data)?,
        InputFormat::Base64 => base64::decode(data)?,
        InputFormat::Od => od::decode(data, limit)?,
        InputFormat::Xxd => xxd::decode(data, limit)?,
        InputFormat::Hexdump => hexdump::decode(data, limit)?,
        InputFormat::Gdb => gdb::decode(data)?,
        InputFormat::CopyBinary => return psql::copy_binary(data).map(from_rows),
        InputFormat::OracleTrace => {
            return Err(InputError::whole(
                InputFormat::OracleTrace,
                "an Oracle trace is not decoded here: its blocks are rebuilt by the Oracle \
                 trace reader (read its text with `utf8_text`)"
                    .to_string(),
            ))
        }
    };
    Ok(plain(bytes, format))
}

/// Rows concatenated; the block numbers kept with their byte ranges.
fn from_rows(rows: psql::Rows) -> Decoded {
    let mut bytes = Vec::with_capacity(rows.rows.iter().map(|r| r.bytes.len()).sum());
    let mut blknos = Vec::new();
    for row in rows.rows {
        if let Some(blkno) = row.blkno {
            blknos.push(RowBlkno {
                offset: bytes.len() as u64,
                len: row.bytes.len() as u64,
                blkno,
            });
        }
        bytes.extend_from_slice(&row.bytes);
    }
    Decoded {
        bytes,
        format: rows.format,
        blknos,
        note: None,
    }
}

/// A text input as UTF-8: UTF-16 (LE or BE, with or without a byte order
/// mark) decoded, a UTF-8 byte order mark dropped, anything else unchanged.
/// Oracle traces are read through this before their blocks are rebuilt.
pub(crate) fn utf8_text(data: Vec<u8>) -> Vec<u8> {
    match detect::utf8_text(&data) {
        std::borrow::Cow::Owned(text) => text,
        std::borrow::Cow::Borrowed(b) if b.len() == data.len() => data,
        std::borrow::Cow::Borrowed(b) => b.to_vec(),
    }
}
