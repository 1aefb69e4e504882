//! The parallel scheduler: a file (or standard input) cut into chunks of
//! about 1 MiB, a window of chunks read with positioned reads and checked
//! on all cores, the window's results reported in file order before the
//! next is read — memory bounded whatever the input's size. A chunk that
//! cannot be read, or that holds too many problems, is redone block by
//! block, each reported at once.

use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::model::map::BlockFigures;
use crate::model::postgres::verify::{Summary, VerifyProblem};
use crate::model::{ProblemClass, Severity};
use crate::source::read_at;
use crate::verify::files::{io_error, read_full};
use crate::verify::report::{report_error, Report};

use super::block::{
    check_blocks, check_blocks_upto, check_zero_blocks, BlockContext, Outcome, CHUNK_PROBLEMS,
};

/// Bytes read and checked as one unit of parallel work.
const CHUNK_BYTES: usize = 1 << 20;
/// Chunks checked in parallel before their results are reported.
const WINDOW_CHUNKS: usize = 16;

/// Bytes of one window: what is read before its results are reported.
pub(super) fn window_bytes(block_size: usize) -> usize {
    chunk_blocks(block_size) * block_size * WINDOW_CHUNKS
}

/// Blocks of one chunk, the unit of parallel work.
fn chunk_blocks(block_size: usize) -> usize {
    (CHUNK_BYTES / block_size).max(1)
}

thread_local! {
    /// Each worker's read buffer, reused from chunk to chunk.
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Every whole block of `file` (`len` bytes), a window of chunks at a time:
/// the window's chunks read and checked in parallel, then reported in
/// order before the next window is read, so memory stays bounded.
pub(super) fn check_file(
    file: &File,
    len: u64,
    ctx: &BlockContext,
    summary: &mut Summary,
    report: &mut dyn Report,
    hash: &mut Option<Sha256>,
) -> Result<(), Error> {
    let bs = ctx.block_size as u64;
    let whole = len / bs;
    let per_chunk = chunk_blocks(ctx.block_size) as u64;
    let chunks = whole.div_ceil(per_chunk);
    let mut next = 0u64;
    while next < chunks {
        let end = (next + WINDOW_CHUNKS as u64).min(chunks);
        // Chunks in a hole of a sparse file are all zeros: counted as
        // such without being read (unless their bytes are hashed).
        let zero = if hash.is_some() {
            Vec::new()
        } else {
            hole_chunks(file, next..end, whole, per_chunk, bs)
        };
        for (c, checked) in check_window(file, next..end, whole, ctx, hash.is_some(), &zero) {
            let first = c * per_chunk;
            let count = per_chunk.min(whole - first);
            match checked {
                Ok((outcome, bytes)) => {
                    if let (Some(h), Some(bytes)) = (hash.as_mut(), bytes) {
                        h.update(&bytes);
                    }
                    let checked = outcome.blocks;
                    outcome.add_to(summary, report)?;
                    // Stopped by its problem cap: the rest one block at a time
                    // (already hashed with the chunk).
                    let rest = first + checked..first + count;
                    block_by_block(file, rest, ctx, summary, report, &mut None)?;
                }
                // Some block of the chunk cannot be read: block by block,
                // to report exactly which and check the others.
                Err(_) => {
                    block_by_block(file, first..first + count, ctx, summary, report, hash)?;
                }
            }
            report.advanced(count * bs);
        }
        next = end;
    }
    let tail = len % bs;
    if tail > 0 {
        if let Some(h) = hash.as_mut() {
            // Not checked, but read for the digest: all of the file's bytes.
            let mut rest = vec![0u8; tail as usize];
            match read_at(file, &mut rest, whole * bs) {
                Ok(n) => h.update(&rest[..n]),
                Err(_) => *hash = None,
            }
        }
        truncated(ctx, whole, len, tail, summary, report)?;
        report.advanced(tail);
    }
    Ok(())
}

/// A chunk read and checked: its outcome and, when kept for the digest,
/// its bytes; or the error that kept it from being read whole.
type Checked = io::Result<(Outcome, Option<Vec<u8>>)>;

/// Which of `chunks` (of `per_chunk` blocks of `bs` bytes; the file
/// `whole` blocks long) lie wholly in a hole of `file`, by position.
fn hole_chunks(file: &File, chunks: Range<u64>, whole: u64, per_chunk: u64, bs: u64) -> Vec<bool> {
    let from = |c: u64| (c * per_chunk).min(whole) * bs;
    let holes = crate::source::holes(file, from(chunks.start), from(chunks.end));
    chunks
        .map(|c| {
            let (start, end) = (from(c), from(c + 1));
            holes.iter().any(|h| h.start <= start && end <= h.end)
        })
        .collect()
}

/// Chunks `chunks` of `file` (of `whole` blocks) read and checked in
/// parallel, each into its worker's reused buffer; with `keep`, each
/// chunk's bytes are kept until hashed in file order. A chunk `zero` marks
/// (by position in `chunks`) is a hole: all-zero blocks, not read.
fn check_window(
    file: &File,
    chunks: Range<u64>,
    whole: u64,
    ctx: &BlockContext,
    keep: bool,
    zero: &[bool],
) -> Vec<(u64, Checked)> {
    let bs = ctx.block_size;
    let per_chunk = chunk_blocks(bs) as u64;
    let start = chunks.start;
    chunks
        .into_par_iter()
        .map(|c| {
            let first = c * per_chunk;
            let count = per_chunk.min(whole - first) as usize;
            if zero.get((c - start) as usize) == Some(&true) {
                return (c, Ok((check_zero_blocks(first, count as u64, ctx), None)));
            }
            BUFFER.with(|buf| {
                let mut buf = buf.borrow_mut();
                buf.resize(count * bs, 0);
                let outcome = read_at(file, &mut buf, first * bs as u64).map(|n| {
                    // A file that shrank while being read: check what was there.
                    let got = n - n % bs;
                    let bytes = keep.then(|| buf[..n].to_vec());
                    (
                        check_blocks_upto(&buf[..got], first, ctx, CHUNK_PROBLEMS),
                        bytes,
                    )
                });
                (c, outcome)
            })
        })
        .collect()
}

/// Blocks `range` of `file` read and checked one at a time, each reported
/// at once: a block that cannot be read is an `io` problem (and the file then
/// has no digest); `hash` is fed with every byte read, in order.
fn block_by_block(
    file: &File,
    range: std::ops::Range<u64>,
    ctx: &BlockContext,
    summary: &mut Summary,
    report: &mut dyn Report,
    hash: &mut Option<Sha256>,
) -> Result<(), Error> {
    let bs = ctx.block_size as u64;
    let mut page = vec![0u8; ctx.block_size];
    for index in range {
        match read_at(file, &mut page, index * bs) {
            Ok(n) => {
                if let Some(h) = hash.as_mut() {
                    h.update(&page[..n]);
                }
                let got = n - n % ctx.block_size;
                check_blocks(&page[..got], index, ctx).add_to(summary, report)?;
            }
            Err(e) => {
                // Not all of the file was read: no digest of it.
                *hash = None;
                let problem = io_problem(
                    ctx.file,
                    ctx.first_blkno + index,
                    index * bs,
                    "block",
                    format!("the block cannot be read: {e}"),
                );
                add_io_problem(problem, summary, report)?;
                if ctx.figures {
                    let mut f = BlockFigures::empty(ctx.first_blkno + index, "unreadable");
                    f.errors = 1;
                    report.block(&f).map_err(report_error)?;
                }
            }
        }
    }
    Ok(())
}

/// Raw standard input, a window at a time (the first window already read
/// as `head`); the bytes it held.
pub(super) fn check_stdin(
    head: Vec<u8>,
    ctx: &BlockContext,
    summary: &mut Summary,
    report: &mut dyn Report,
    hash: &mut Option<Sha256>,
) -> Result<u64, Error> {
    let bs = ctx.block_size;
    let full = window_bytes(bs);
    let mut stdin = crate::source::stdin();
    let mut index = 0u64;
    let mut total = 0u64;
    // The head, when there is one, is the first window; the buffer is reused.
    let mut have_window = !head.is_empty();
    let mut window = head;
    loop {
        if !have_window {
            window.resize(full, 0);
            let n = read_full(&mut stdin, &mut window).map_err(io_error(Path::new("-")))?;
            window.truncate(n);
        }
        have_window = false;
        let len = window.len();
        total += len as u64;
        if let Some(h) = hash.as_mut() {
            h.update(&window);
        }
        let whole = len - len % bs;
        check_in_memory(&window[..whole], index, ctx, summary, report)?;
        report.advanced(len as u64);
        index += (whole / bs) as u64;
        if len < full {
            if len > whole {
                truncated(ctx, index, total, (len - whole) as u64, summary, report)?;
            }
            return Ok(total);
        }
    }
}

/// Whole blocks already in memory, the first at position `index`: checked
/// in parallel chunks, reported in order.
fn check_in_memory(
    window: &[u8],
    index: u64,
    ctx: &BlockContext,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<(), Error> {
    let bs = ctx.block_size;
    let per_chunk = chunk_blocks(bs) * bs;
    let outcomes: Vec<Outcome> = window
        .par_chunks(per_chunk)
        .enumerate()
        .map(|(i, chunk)| {
            check_blocks_upto(
                chunk,
                index + (i * per_chunk / bs) as u64,
                ctx,
                CHUNK_PROBLEMS,
            )
        })
        .collect();
    for ((i, outcome), chunk) in outcomes
        .into_iter()
        .enumerate()
        .zip(window.chunks(per_chunk))
    {
        let first = index + (i * per_chunk / bs) as u64;
        let checked = outcome.blocks as usize;
        outcome.add_to(summary, report)?;
        // Stopped by its problem cap: the rest one block at a time.
        for (j, page) in chunk.chunks_exact(bs).enumerate().skip(checked) {
            check_blocks(page, first + j as u64, ctx).add_to(summary, report)?;
        }
    }
    Ok(())
}

/// Pages decoded from text (hex, bytea, base64, psql's or COPY's output: a
/// get_raw_page() copy, so a stale checksum is a warning), each under the
/// block number its row gave, else its position.
pub(super) fn check_decoded(
    data: &[u8],
    blknos: &[Option<u64>],
    ctx: &BlockContext,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<u64, Error> {
    let bs = ctx.block_size;
    let whole = data.len() - data.len() % bs;
    for (i, page) in data[..whole].chunks(bs).enumerate() {
        let i = i as u64;
        let blkno = blknos
            .get(i as usize)
            .copied()
            .flatten()
            .unwrap_or(ctx.first_blkno.saturating_add(i));
        let (first, first_blkno) = if blkno >= i {
            (i, blkno - i)
        } else {
            (0, blkno)
        };
        let page_ctx = BlockContext {
            first_blkno,
            from_text: true,
            reread: None,
            start_lsn: None,
            ..*ctx
        };
        check_blocks(page, first, &page_ctx).add_to(summary, report)?;
    }
    if data.len() > whole {
        let (len, tail) = (data.len() as u64, (data.len() - whole) as u64);
        truncated(ctx, (whole / bs) as u64, len, tail, summary, report)?;
    }
    Ok(data.len() as u64)
}

/// A file that ends inside a block.
fn truncated(
    ctx: &BlockContext,
    whole: u64,
    len: u64,
    tail: u64,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<(), Error> {
    summary.truncated_files += 1;
    *summary.problems_by_class.entry("truncated").or_default() += 1;
    let problem = VerifyProblem {
        file: ctx.file.to_string(),
        blkno: ctx.first_blkno + whole,
        offset: Some(0),
        file_offset: whole * ctx.block_size as u64,
        field: "file size".to_string(),
        class: ProblemClass::Truncated,
        severity: Severity::Error,
        message: format!(
            "{} is {len} bytes, not a whole number of {}-byte blocks: the last {tail} bytes \
             (a partial block {}) are not checked; the {whole} whole blocks before them are",
            if ctx.file == "-" {
                "standard input"
            } else {
                "file"
            },
            ctx.block_size,
            ctx.first_blkno + whole
        ),
        wal: None,
        relation: None,
    };
    report.problem(&problem).map_err(report_error)
}

/// A problem of class `io`: something that could not be read.
pub(super) fn io_problem(
    file: &str,
    blkno: u64,
    file_offset: u64,
    field: &str,
    message: String,
) -> VerifyProblem {
    VerifyProblem {
        file: file.to_string(),
        blkno,
        offset: None,
        file_offset,
        field: field.to_string(),
        class: ProblemClass::Io,
        severity: Severity::Error,
        message,
        wal: None,
        relation: None,
    }
}

/// An `io` problem counted and reported.
pub(super) fn add_io_problem(
    problem: VerifyProblem,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<(), Error> {
    *summary.problems_by_class.entry("io").or_default() += 1;
    report.problem(&problem).map_err(report_error)
}
