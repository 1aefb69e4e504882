//! The text reader: inputs that are not raw pages. A named file that holds
//! a text dump of pages (hex, bytea, base64, psql's or COPY's output) is
//! decoded as `show` decodes it, with the block numbers the text gave; and
//! standard input's first window is read ahead, raw or decoded, for the
//! page size it announces and `--checksums auto`.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::input::InputFormat;
use crate::parse::postgres::page_size_from_header;
use crate::source::{read_at, Source, MAX_TEXT_INPUT};
use crate::verify::files::{file_name, io_error, read_full};

use super::block::announced_in;

/// The first `len` bytes of standard input (fewer when it ends first),
/// read ahead to decide `--checksums auto`.
fn read_head(len: usize) -> Result<Vec<u8>, Error> {
    let mut head = vec![0u8; len];
    let n = read_full(&mut crate::source::stdin(), &mut head).map_err(io_error(Path::new("-")))?;
    head.truncate(n);
    Ok(head)
}

/// Standard input's first window, or all of it decoded when it is text (hex,
/// bytea, base64, psql's or COPY's output: read as `show` reads it), with the
/// block numbers the text gave its pages.
pub(super) struct StdinHead {
    pub bytes: Vec<u8>,
    /// Per block of `bytes`, when decoded from text.
    pub decoded: Option<Vec<Option<u64>>>,
    /// The page size the first pages announce (pd_pagesize_version), when
    /// no block size was given.
    pub announced: Option<usize>,
}

/// Standard input's first window, `window` bytes; `block_size` when given
/// (option or pg_control), else read from the pages as `show` reads it.
pub(super) fn read_stdin_head(
    block_size: Option<usize>,
    window: usize,
) -> Result<StdinHead, Error> {
    let head = read_head(window)?;
    if matches!(
        crate::input::detect(&head),
        InputFormat::Raw | InputFormat::OracleTrace
    ) {
        let announced = block_size.is_none().then(|| announced_in(&head)).flatten();
        return Ok(StdinHead {
            bytes: head,
            decoded: None,
            announced,
        });
    }
    let rest = Box::new(io::Cursor::new(head).chain(crate::source::stdin()));
    let mut source = Source::from_reader(PathBuf::from("-"), rest, InputFormat::Auto, block_size)?;
    source.detect_block_size(page_size_from_header);
    let announced = block_size.is_none().then_some(source.block_size);
    let (mut bytes, mut blknos) = (Vec::new(), Vec::new());
    for block in source.blocks() {
        let block = block?;
        bytes.extend_from_slice(&block.data);
        blknos.push(block.blkno);
    }
    Ok(StdinHead {
        bytes,
        decoded: Some(blknos),
        announced,
    })
}

/// Pages decoded from a text dump, and per page the block number its row gave.
pub(super) type TextPages = (Vec<u8>, Vec<Option<u64>>);

/// A named file that holds a text dump of pages rather than the pages: its
/// pages, decoded as `show` decodes them, with the block numbers the text gave.
/// Printable bytes that are no text dump (a page overwritten by a log) stay
/// raw pages (`show` and the engine choice say so once).
pub(super) fn text_pages(
    path: &Path,
    file: &File,
    len: u64,
    block_size: usize,
    hash: &mut Option<Sha256>,
) -> Result<Option<TextPages>, Error> {
    let mut head = vec![0u8; (len.min(64 << 10)) as usize];
    let Ok(n) = read_at(file, &mut head, 0) else {
        // Unreadable: reported when its blocks are read.
        return Ok(None);
    };
    head.truncate(n);
    if matches!(
        crate::input::detect(&head),
        InputFormat::Raw | InputFormat::OracleTrace
    ) {
        return Ok(None);
    }
    if len > MAX_TEXT_INPUT {
        return Err(Error::Usage(format!(
            "{}: text dump larger than {} MiB; convert it to raw pages first (e.g. xxd -r -p) \
             and verify that",
            file_name(path),
            MAX_TEXT_INPUT >> 20
        )));
    }
    let mut text = vec![0u8; len as usize];
    let n = read_at(file, &mut text, 0).map_err(io_error(path))?;
    text.truncate(n);
    let decoded = match crate::input::decode_pages(&text, InputFormat::Auto, block_size) {
        Ok(d) if d.format != InputFormat::Raw => d,
        Ok(_) => return Ok(None),
        Err(source) => {
            return Err(Error::Input {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    if let Some(h) = hash.as_mut() {
        h.update(&text);
    }
    let blknos = (0..decoded.bytes.len().div_ceil(block_size))
        .map(|i| decoded.blkno_at((i * block_size) as u64, block_size))
        .collect();
    Ok(Some((decoded.bytes, blknos)))
}
