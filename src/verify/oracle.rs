//! `verify` for Oracle datafiles and block-dump traces: every block checked
//! (check value, tail/fracture, rdba against the block's position, type,
//! space accounting, row directory), tallied the way DBVERIFY tallies.

use std::path::Path;

use crate::error::Error;
use crate::input::InputFormat;
use crate::model::map::{BlockFigures, ChecksumState};
use crate::model::oracle::verify::{BlockReport, DbvSummary};
use crate::model::oracle::{OracleBlock, OracleKind, Rdba};
use crate::model::{Problem, Severity};
use crate::parse::oracle::trace::rebuilt_blocks;
use crate::parse::oracle::verify::DatafileVerifier;
use crate::parse::oracle::{parse_block, BlockOptions};
use crate::reader::Endian;
use crate::source::Source;
use sha2::{Digest, Sha256};

use super::report::report_error;

pub(crate) use crate::engine::OracleInput;

/// Where each failing block's report goes, as soon as it is found (so
/// memory does not grow with the number of failing blocks); an error here
/// (the output closed) ends the run.
pub(crate) type OnBlock<'a> = dyn FnMut(&BlockReport) -> std::io::Result<()> + 'a;

/// How much of standard input is read ahead to learn whether it is short.
const STDIN_PEEK: usize = 1 << 17;

/// DBVERIFY's START=/END= and the position of a range cut out of a datafile.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DatafileOptions {
    /// `--block-size`; `None` = from block 0 or the first block.
    pub block_size: Option<usize>,
    /// First and last block checked (DBVERIFY's START and END), as block
    /// numbers in the datafile.
    pub first: u64,
    pub last: u64,
    /// The input's first block is block `first_block` of its datafile (a
    /// range cut out with `dd skip=`).
    pub first_block: u64,
    /// `--evidence`: hash exactly the bytes read.
    pub evidence: bool,
}

impl Default for DatafileOptions {
    fn default() -> Self {
        DatafileOptions {
            block_size: None,
            first: 0,
            last: u64::MAX,
            first_block: 0,
            evidence: false,
        }
    }
}

/// What a datafile's run produced besides its failing blocks.
#[derive(Clone, Debug, Default)]
pub(crate) struct FileVerdict {
    /// DBVERIFY's tallies.
    pub summary: DbvSummary,
    /// Bytes read.
    pub size: u64,
    /// `--evidence`: SHA-256 (hex) of exactly the bytes read, when they
    /// were the file's own bytes (not decoded text).
    pub sha256: Option<String>,
    /// Reading stopped here: the block number and the operating system's
    /// error (the blocks before it were checked).
    pub read_error: Option<(u64, String)>,
}

/// Check every block of a datafile (block size from block 0 or the first
/// block's format byte, unless given): each failing block handed to
/// `on_block` in order, DBVERIFY's tallies returned.
pub(crate) fn verify_datafile(
    path: &Path,
    opts: &DatafileOptions,
    on_block: &mut OnBlock<'_>,
) -> Result<FileVerdict, Error> {
    check_datafile(path, opts, on_block, &mut |_, _| Ok(()))
}

/// Every block of a datafile, checked as [`verify_datafile`] checks it,
/// each block's figures for `map` handed to `on_figures` in order: one pass
/// and one checker for both commands. Returns DBVERIFY's tallies and the
/// block size.
pub(crate) fn map_datafile(
    path: &Path,
    block_size: Option<usize>,
    on_figures: &mut dyn FnMut(&BlockFigures) -> std::io::Result<()>,
) -> Result<(DbvSummary, usize), Error> {
    let mut size = 0;
    let opts = DatafileOptions {
        block_size,
        ..DatafileOptions::default()
    };
    let verdict = check_datafile(path, &opts, &mut |_| Ok(()), &mut |block, problems| {
        size = size.max(block.size);
        on_figures(&oracle_figures(block, problems))
    })?;
    Ok((verdict.summary, size))
}

/// What `map` shows of a checked Oracle block: kind, free space (`avsp` of
/// a table block, `kdxcoavs` of an index block), rows live and deleted,
/// errors and warnings, and the check value's state.
fn oracle_figures(block: &OracleBlock, problems: &[Problem]) -> BlockFigures {
    let mut f = BlockFigures::empty(block.blkno, block.kind.name());
    f.zero = block.kind == OracleKind::Zero;
    for p in problems {
        match p.severity {
            Severity::Error => f.errors += 1,
            Severity::Warning => f.warnings += 1,
            Severity::Info => {}
        }
    }
    let (mut live, mut deleted) = (0u32, 0u32);
    if let Some(t) = &block.table {
        f.free = Some(i64::from(t.kdbh.kdbhavsp));
        for row in &t.rows {
            if row.flag & ROW_DELETED != 0 {
                deleted += 1;
            } else {
                live += 1;
            }
        }
    }
    if let Some(ix) = &block.index {
        f.free = Some(i64::from(ix.kdxco.kdxcoavs));
        for e in &ix.entries {
            if e.flag.is_some_and(|flag| flag & INDEX_ENTRY_DELETED != 0) {
                deleted += 1;
            } else {
                live += 1;
            }
        }
    }
    f.rows_live = Some(live);
    f.rows_deleted = Some(deleted);
    f.used = f
        .free
        .map(|free| u32::try_from((block.size as i64 - free).max(0)).unwrap_or(u32::MAX));
    f.checksum = match block.checksum {
        _ if matches!(block.kind, OracleKind::Zero | OracleKind::OsHeader) => {
            ChecksumState::NotApplicable
        }
        None => ChecksumState::NotApplicable,
        Some(c) if !c.enabled => ChecksumState::None,
        Some(c) if c.valid => ChecksumState::Ok,
        Some(_) => ChecksumState::Bad,
    };
    f
}

/// Row flag D (`KDRHFD`): a deleted row piece.
const ROW_DELETED: u8 = 0x10;
/// Index leaf entry flag 0x01: a deleted entry.
const INDEX_ENTRY_DELETED: u8 = 0x01;

/// The datafile loop of [`verify_datafile`]; `each` sees every block with
/// its problems.
fn check_datafile(
    path: &Path,
    opts: &DatafileOptions,
    on_block: &mut OnBlock<'_>,
    each: &mut dyn FnMut(&OracleBlock, &[Problem]) -> std::io::Result<()>,
) -> Result<FileVerdict, Error> {
    let block_size = opts.block_size;
    let block_size_arg = block_size;
    // Standard input's length is known when it is short (a block or a few):
    // enough to tell a lone block from a datafile.
    let stdin_len = if path.as_os_str() == "-" {
        let head = crate::source::peek_stdin(STDIN_PEEK + 1).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Some((head.len() <= STDIN_PEEK).then_some(head.len() as u64))
    } else {
        None
    };
    let mut src = Source::open(Some(path), InputFormat::Auto, block_size)?;
    src.detect_block_size(crate::parse::oracle::block_size_from_header);
    let block_size = src.block_size as u64;
    let size = match stdin_len {
        Some(len) => len.unwrap_or(u64::MAX),
        None => std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
    };
    // A single block cut out of a datafile has no position of its own: check it
    // where its rdba says it belongs (a raw file of exactly one block).
    let lone_block = src.format == InputFormat::Raw && size == block_size && opts.first_block == 0;
    let mut hash = (opts.evidence && src.format == InputFormat::Raw).then(Sha256::new);
    let mut verdict = FileVerdict::default();
    let mut verifier = DatafileVerifier::new();
    // Failing blocks before the first whole one (only a short last block can
    // be one): held until a whole block says the file was verified at all.
    let mut early = Vec::new();
    let mut whole = 0u64;
    for block in src.blocks() {
        let block = match block {
            Ok(block) => block,
            Err(Error::Io { source, .. }) => {
                // An unreadable block ends this file's run, not the whole
                // run: the blocks read so far stand, the error is reported.
                let at = opts
                    .first_block
                    .saturating_add(verdict.size / block_size.max(1));
                verdict.read_error = Some((at, source.to_string()));
                verifier.summary.unreadable += 1;
                break;
            }
            Err(e) => return Err(e),
        };
        verdict.size += block.data.len() as u64;
        if let Some(h) = hash.as_mut() {
            h.update(&block.data);
        }
        whole += u64::from(block.data.len() as u64 == block_size);
        let position = if lone_block {
            own_block_number(&block.data).unwrap_or(block.index)
        } else {
            block.index.saturating_add(opts.first_block)
        };
        if position < opts.first || position > opts.last {
            // Outside START..END: not examined, but the file header still
            // tells the relative file number.
            if position == 1 {
                verifier.learn(&block.data);
            }
            if position > opts.last {
                break;
            }
            continue;
        }
        let (parsed, problems) = verifier.check(position, &block.data);
        each(&parsed, &problems).map_err(report_error)?;
        let mut report = BlockReport::new(&parsed, problems);
        report.rel_file = verifier.rel_file;
        if whole > 0 {
            for r in early.drain(..) {
                on_block(&r).map_err(report_error)?;
            }
        }
        if report.failed() {
            if whole == 0 {
                early.push(report);
            } else {
                on_block(&report).map_err(report_error)?;
            }
        }
    }
    if whole == 0 && verdict.read_error.is_none() {
        // Nothing was read: never a clean verdict.
        return Err(Error::Usage(format!(
            "{}: no whole {block_size}-byte block ({size} bytes): nothing was verified{}",
            super::file_name(path),
            if block_size_arg.is_some() {
                " (is --block-size right?)"
            } else {
                ""
            }
        )));
    }
    for r in early.drain(..) {
        on_block(&r).map_err(report_error)?;
    }
    verdict.summary = verifier.summary;
    // Not the whole file when a read failed: no digest.
    verdict.sha256 = hash
        .filter(|_| verdict.read_error.is_none())
        .map(|h| hex(&h.finalize()));
    Ok(verdict)
}

/// Lower-case hex of a digest.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Check the blocks rebuilt from a trace's hex sections, each at the block
/// number the trace gives it, each failing block handed to `on_block`.
pub(crate) fn verify_trace(
    path: &Path,
    endian: Option<Endian>,
    evidence: bool,
    on_block: &mut OnBlock<'_>,
) -> Result<FileVerdict, Error> {
    check_trace(path, endian, evidence, on_block, &mut |_, _| Ok(()))
}

/// Every block rebuilt from a trace's hex sections, checked as
/// [`verify_trace`] checks it, each block's figures for `map` handed to
/// `on_figures` in the trace's order. Returns DBVERIFY's tallies and the
/// largest block size.
pub(crate) fn map_trace(
    path: &Path,
    on_figures: &mut dyn FnMut(&BlockFigures) -> std::io::Result<()>,
) -> Result<(DbvSummary, usize), Error> {
    let mut size = 0;
    let verdict = check_trace(
        path,
        None,
        false,
        &mut |_| Ok(()),
        &mut |block, problems| {
            size = size.max(block.size);
            on_figures(&oracle_figures(block, problems))
        },
    )?;
    Ok((verdict.summary, size))
}

/// The trace loop of [`verify_trace`]; `each` sees every block with its
/// problems.
fn check_trace(
    path: &Path,
    endian: Option<Endian>,
    evidence: bool,
    on_block: &mut OnBlock<'_>,
    each: &mut dyn FnMut(&OracleBlock, &[Problem]) -> std::io::Result<()>,
) -> Result<FileVerdict, Error> {
    let read_all = |mut r: Box<dyn std::io::Read>| {
        let mut text = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(&mut r, crate::source::MAX_TEXT_INPUT),
            &mut text,
        )?;
        Ok(text)
    };
    let text = if path.as_os_str() == "-" {
        read_all(Box::new(crate::source::stdin()))
    } else {
        crate::source::open_file(path).and_then(|f| read_all(Box::new(f)))
    }
    .map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut verdict = FileVerdict {
        size: text.len() as u64,
        sha256: evidence.then(|| hex(&Sha256::digest(&text))),
        ..FileVerdict::default()
    };
    let text = crate::input::utf8_text(text);
    let blocks = rebuilt_blocks(&text, endian).map_err(|e| Error::Input {
        path: path.to_path_buf(),
        source: e.into_input(InputFormat::OracleTrace),
    })?;
    if blocks.iter().all(|b| b.bytes.is_empty()) {
        // A trace of formatted text only: no block bytes to verify.
        return Err(Error::Usage(format!(
            "{}: the trace holds no block bytes (no `Dump of memory` hex section): nothing was \
             verified; `blockscope show` reads its formatted text",
            super::file_name(path)
        )));
    }
    let mut verifier = DatafileVerifier::new();
    for (i, b) in blocks.iter().enumerate() {
        let blkno = b.block.map_or(i as u64, u64::from);
        if let Some(file) = b.file {
            verifier.rel_file.get_or_insert(file);
        }
        let (parsed, mut problems) = verifier.check(blkno, &b.bytes);
        // What the trace reader cut or merged (bounds, duplicate sections).
        problems.extend(b.notes.iter().map(|n| {
            Problem::new(
                crate::model::Severity::Warning,
                crate::model::ProblemClass::Trace,
                None,
                "bounds",
                n.clone(),
            )
        }));
        // Differences from the cache copy of the same block.
        problems.extend(b.copy_problems.iter().cloned());
        each(&parsed, &problems).map_err(report_error)?;
        let mut report = BlockReport::new(&parsed, problems);
        report.rel_file = verifier.rel_file;
        if report.failed() {
            on_block(&report).map_err(report_error)?;
        }
    }
    verdict.summary = verifier.summary;
    Ok(verdict)
}

/// The block number a block's own rdba (kcbh, offset 4) gives it.
fn own_block_number(data: &[u8]) -> Option<u64> {
    let block = parse_block(
        data,
        &BlockOptions {
            blkno: 0,
            endian: None,
        },
    );
    block.kcbh.map(|k| u64::from(Rdba(k.rdba_kcbh).block()))
}
