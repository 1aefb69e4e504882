//! `verify` for Oracle datafiles and block-dump traces: every block checked
//! (check value, tail/fracture, rdba against the block's position, type,
//! space accounting, row directory), tallied the way DBVERIFY tallies, and
//! reported through [`Report`]: a failing block (`BlockReport`) at a time,
//! and each block's figures for `map` when the report wants them.

use std::path::Path;

use crate::error::Error;
use crate::input::InputFormat;
use crate::model::map::{BlockFigures, ChecksumState};
use crate::model::oracle::verify::{BlockReport, DbvSummary};
use crate::model::oracle::{OracleBlock, OracleKind, Rdba};
use crate::model::{Problem, ProblemClass, Severity};
use crate::parse::oracle::trace::split;
use crate::parse::oracle::verify::DatafileVerifier;
use crate::parse::oracle::{parse_block, BlockOptions};
use crate::reader::Endian;
use crate::source::Source;
use sha2::{Digest, Sha256};

use super::files::{file_name, hex_digest};
use super::report::{report_error, Report};

/// What an Oracle input holds, as far as `verify` is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OracleInput {
    /// An Oracle datafile (or some of its blocks), raw or as hex text.
    Datafile,
    /// A trace of `alter system dump datafile`: blocks rebuilt from its hex.
    Trace,
}

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
    /// The largest block examined, in bytes (0 when none was).
    pub block_size: usize,
    /// `--evidence`: SHA-256 (hex) of exactly the bytes read, when they
    /// were the file's own bytes (not decoded text).
    pub sha256: Option<String>,
    /// Reading stopped here: the block number and the operating system's
    /// error (the blocks before it were checked).
    pub read_error: Option<(u64, String)>,
}

/// Check every block of a datafile (block size from block 0 or the first
/// block's format byte, unless given): each failing block reported as it is
/// found (its figures too, when the report wants them), DBVERIFY's tallies
/// returned.
pub(crate) fn verify_datafile(
    path: &Path,
    opts: &DatafileOptions,
    report: &mut dyn Report<BlockReport>,
) -> Result<FileVerdict, Error> {
    let (src, size) = open_datafile(path, opts.block_size)?;
    let block_size = src.block_size as u64;
    // A single block cut out of a datafile has no position of its own: check it
    // where its rdba says it belongs (a raw file of exactly one block).
    let lone_block = src.format == InputFormat::Raw && size == block_size && opts.first_block == 0;
    let mut hash = (opts.evidence && src.format == InputFormat::Raw).then(Sha256::new);
    let mut checker = Checker::new(report);
    // Bytes checked and not yet told to the progress bar.
    let mut unreported = 0u64;
    // The blocks of a regular file's holes (by position): all zeros, checked
    // as such without reading them.
    let holes = if src.format == InputFormat::Raw && path.as_os_str() != "-" {
        hole_blocks(path, size, block_size)
    } else {
        Vec::new()
    };
    let zeros = vec![0u8; if holes.is_empty() { 0 } else { src.block_size }];
    let mut holes = holes.into_iter().peekable();
    let mut blocks = src.blocks();
    // One block's bytes checked at position `index` of the input; `false`
    // once past END.
    let mut step = |checker: &mut Checker, index: u64, data: &[u8], hole: bool| {
        checker.verdict.size += data.len() as u64;
        unreported += data.len() as u64;
        if unreported >= PROGRESS_BYTES {
            checker.report.advanced(std::mem::take(&mut unreported));
        }
        if let Some(h) = hash.as_mut() {
            h.update(data);
        }
        checker.whole += u64::from(data.len() as u64 == block_size);
        let position = if lone_block {
            own_block_number(data).unwrap_or(index)
        } else {
            index.saturating_add(opts.first_block)
        };
        if position < opts.first || position > opts.last {
            // Outside START..END: not examined, but the file header still
            // tells the relative file number.
            if position == 1 {
                checker.verifier.learn(data);
            }
            return Ok(position <= opts.last);
        }
        if hole {
            checker.zero_block(position, data)?;
        } else {
            checker.datafile_block(position, data)?;
        }
        Ok::<bool, Error>(true)
    };
    loop {
        let next = blocks.next_index();
        while holes.next_if(|h| h.end <= next).is_some() {}
        if let Some(hole) = holes.peek().filter(|h| h.start <= next).cloned() {
            // Past the hole by position; when that cannot be done, its
            // blocks are read as any others.
            blocks.seek_to(hole.end);
            holes.next();
            if blocks.next_index() == hole.end {
                let mut going = true;
                for index in next..hole.end {
                    going = step(&mut checker, index, &zeros, true)?;
                    if !going {
                        break;
                    }
                }
                if !going {
                    break;
                }
                continue;
            }
        }
        let block = match blocks.next() {
            None => break,
            Some(Ok(block)) => block,
            Some(Err(Error::Io { source, .. })) => {
                // An unreadable block ends this file's run, not the whole
                // run: the blocks read so far stand, the error is reported.
                let at = opts
                    .first_block
                    .saturating_add(checker.verdict.size / block_size.max(1));
                checker.verdict.read_error = Some((at, source.to_string()));
                checker.verifier.summary.unreadable += 1;
                break;
            }
            Some(Err(e)) => return Err(e),
        };
        if !step(&mut checker, block.index, &block.data, false)? {
            break;
        }
    }
    checker.report.advanced(unreported);
    if checker.whole == 0 && checker.verdict.read_error.is_none() {
        // Nothing was read: never a clean verdict.
        return Err(Error::Usage(format!(
            "{}: no whole {block_size}-byte block ({size} bytes): nothing was verified{}",
            file_name(path),
            if opts.block_size.is_some() {
                " (is --block-size right?)"
            } else {
                ""
            }
        )));
    }
    let mut verdict = checker.finish()?;
    // Not the whole file when a read failed: no digest.
    verdict.sha256 = hash
        .filter(|_| verdict.read_error.is_none())
        .map(hex_digest);
    Ok(verdict)
}

/// The blocks (by position, `block_size` bytes each) of the regular file
/// at `path` (`size` bytes) that lie wholly in its holes: ranges the file
/// system keeps no data for, which read as zeros (found with SEEK_DATA and
/// SEEK_HOLE, without reading). None when it cannot tell.
fn hole_blocks(path: &Path, size: u64, block_size: u64) -> Vec<std::ops::Range<u64>> {
    let Ok(file) = crate::source::open_file(path) else {
        return Vec::new();
    };
    if block_size == 0 || !file.metadata().is_ok_and(|m| m.is_file()) {
        return Vec::new();
    }
    crate::source::holes(&file, 0, size)
        .into_iter()
        .map(|h| h.start.div_ceil(block_size)..h.end.min(size) / block_size)
        .filter(|r| r.start < r.end)
        .collect()
}

/// A datafile (or standard input) opened as blocks of the size given or
/// detected, and its size in bytes (`u64::MAX` for standard input that is
/// longer than a peek).
fn open_datafile(path: &Path, block_size: Option<usize>) -> Result<(Source, u64), Error> {
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
    let size = match stdin_len {
        Some(len) => len.unwrap_or(u64::MAX),
        None => std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
    };
    Ok((src, size))
}

/// Bytes of a datafile read between two reports of progress (a progress
/// bar's counter advanced a chunk at a time, never block by block).
const PROGRESS_BYTES: u64 = 4 << 20;

/// One input's blocks checked in order and reported: DBVERIFY's checker,
/// the report, and what the run has found so far.
struct Checker<'r> {
    report: &'r mut dyn Report<BlockReport>,
    verifier: DatafileVerifier,
    verdict: FileVerdict,
    /// Whole blocks read so far.
    whole: u64,
    /// Failing blocks before the first whole one (only a short last block
    /// can be one): held until a whole block says the file was verified at
    /// all.
    early: Vec<BlockReport>,
    /// An all-zero block as checked once: what every other all-zero block
    /// of a hole checks to, but for its block number.
    zero: Option<(OracleBlock, Vec<Problem>)>,
}

impl<'r> Checker<'r> {
    fn new(report: &'r mut dyn Report<BlockReport>) -> Self {
        Checker {
            report,
            verifier: DatafileVerifier::new(),
            verdict: FileVerdict::default(),
            whole: 0,
            early: Vec::new(),
            zero: None,
        }
    }

    /// The block at `position` of a datafile checked and reported.
    fn datafile_block(&mut self, position: u64, data: &[u8]) -> Result<(), Error> {
        let (parsed, problems) = self.verifier.check(position, data);
        self.checked(parsed, problems)
    }

    /// The all-zero block `zeros` at `position` (in a hole, not read)
    /// checked and reported: the first checked as any block, the others
    /// taking its outcome with their own block number (an all-zero block's
    /// checks do not depend on where it lies).
    fn zero_block(&mut self, position: u64, zeros: &[u8]) -> Result<(), Error> {
        if position <= 1 {
            // Where the OS and file headers lie: checked as read.
            return self.datafile_block(position, zeros);
        }
        let (parsed, problems) = match &self.zero {
            Some((block, problems)) => {
                let mut block = block.clone();
                block.blkno = position;
                self.verifier.summary.add(&block, problems);
                (block, problems.clone())
            }
            None => {
                let (block, problems) = self.verifier.check(position, zeros);
                self.zero = Some((block.clone(), problems.clone()));
                (block, problems)
            }
        };
        self.checked(parsed, problems)
    }

    /// A checked block reported (held while no whole block was read).
    fn checked(&mut self, parsed: OracleBlock, problems: Vec<Problem>) -> Result<(), Error> {
        let block = self.examined(&parsed, problems)?;
        if self.whole > 0 {
            for r in self.early.drain(..) {
                self.report.problem(&r).map_err(report_error)?;
            }
        }
        if block.failed() {
            if self.whole == 0 {
                self.early.push(block);
            } else {
                self.report.problem(&block).map_err(report_error)?;
            }
        }
        Ok(())
    }

    /// A checked block's figures reported when wanted, its size noted; its
    /// report, in the file's relative file number.
    fn examined(
        &mut self,
        parsed: &OracleBlock,
        problems: Vec<Problem>,
    ) -> Result<BlockReport, Error> {
        self.verdict.block_size = self.verdict.block_size.max(parsed.size);
        if self.report.wants_blocks() {
            let figures = oracle_figures(parsed, &problems);
            self.report.block(&figures).map_err(report_error)?;
        }
        let mut block = BlockReport::new(parsed, problems);
        block.rel_file = self.verifier.rel_file;
        Ok(block)
    }

    /// A block rebuilt from a trace's hex section (file# `file`) checked at
    /// block number `blkno` and reported, with what the trace reader noted
    /// and its differences from the cache copy of the same block.
    fn trace_block(
        &mut self,
        blkno: u64,
        file: Option<u32>,
        bytes: &[u8],
        notes: &[String],
        copy_problems: Vec<Problem>,
    ) -> Result<(), Error> {
        if let Some(file) = file {
            self.verifier.rel_file.get_or_insert(file);
        }
        let (parsed, mut problems) = self.verifier.check(blkno, bytes);
        // What the trace reader cut or merged (bounds, duplicate sections).
        problems.extend(notes.iter().map(|n| {
            Problem::new(
                Severity::Warning,
                ProblemClass::Trace,
                None,
                "bounds",
                n.clone(),
            )
        }));
        problems.extend(copy_problems);
        let block = self.examined(&parsed, problems)?;
        if block.failed() {
            self.report.problem(&block).map_err(report_error)?;
        }
        Ok(())
    }

    /// The blocks held back reported; the verdict with DBVERIFY's tallies.
    fn finish(mut self) -> Result<FileVerdict, Error> {
        for r in self.early.drain(..) {
            self.report.problem(&r).map_err(report_error)?;
        }
        self.verdict.summary = self.verifier.summary;
        Ok(self.verdict)
    }
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

/// Check the blocks rebuilt from a trace's hex sections, each at the block
/// number the trace gives it, each failing block reported as it is found
/// (its figures too, when the report wants them, in the trace's order).
pub(crate) fn verify_trace(
    path: &Path,
    endian: Option<Endian>,
    evidence: bool,
    report: &mut dyn Report<BlockReport>,
) -> Result<FileVerdict, Error> {
    let text = read_trace(path)?;
    let size = text.len() as u64;
    let sha256 = evidence.then(|| {
        let mut hash = Sha256::new();
        hash.update(&text);
        hex_digest(hash)
    });
    let text = crate::input::utf8_text(text);
    let input_error = |e: crate::error::TextError| Error::Input {
        path: path.to_path_buf(),
        source: e.into_input(InputFormat::OracleTrace),
    };
    // Read whole once (a grammar error anywhere refuses the trace), then
    // again, a block at a time: no more than one block held.
    let plan = split::plan(&text, endian).map_err(input_error)?;
    if !plan.any_bytes() {
        // A trace of formatted text only: no block bytes to verify.
        return Err(Error::Usage(format!(
            "{}: the trace holds no block bytes (no `Dump of memory` hex section): nothing was \
             verified; `blockscope show` reads its formatted text",
            file_name(path)
        )));
    }
    let mut checker = Checker::new(report);
    let mut i = 0u64;
    let mut failed = None;
    plan.each(&text, |found| {
        let Some(bytes) = &found.block.bytes else {
            return true;
        };
        let b = &found.block;
        let blkno = b.block.map_or(i, u64::from);
        i += 1;
        match checker.trace_block(blkno, b.file, bytes, &b.notes, found.copy_problems) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    })
    .map_err(input_error)?;
    if let Some(e) = failed {
        return Err(e);
    }
    let mut verdict = checker.finish()?;
    verdict.size = size;
    verdict.sha256 = sha256;
    Ok(verdict)
}

/// A trace's text (from standard input for `-`), at most
/// [`crate::source::MAX_TEXT_INPUT`] bytes of it.
fn read_trace(path: &Path) -> Result<Vec<u8>, Error> {
    let read_all = |mut r: Box<dyn std::io::Read>| {
        let mut text = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(&mut r, crate::source::MAX_TEXT_INPUT),
            &mut text,
        )?;
        Ok(text)
    };
    if path.as_os_str() == "-" {
        read_all(Box::new(crate::source::stdin()))
    } else {
        crate::source::open_file(path).and_then(|f| read_all(Box::new(f)))
    }
    .map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
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
