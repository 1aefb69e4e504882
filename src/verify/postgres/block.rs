//! The block checker: one block's checksum and structure (the structural
//! check `show` shares), its figures for `map`, and a chunk of consecutive
//! blocks checked into an [`Outcome`] — counts, problems and figures in
//! block order — on whichever worker thread the scheduler gives it.

use std::fs::File;

use crate::error::Error;
use crate::model::map::{BlockFigures, ChecksumState};
use crate::model::postgres::verify::{Summary, VerifyProblem};
use crate::model::postgres::Lsn;
use crate::model::{Problem, ProblemClass, Severity};
use crate::parse::postgres::check::CheckedPage;
use crate::parse::postgres::checksum::pg_checksum_page;
use crate::parse::postgres::figures::page_figures;
use crate::parse::postgres::page::is_new_page;
use crate::parse::postgres::{check_page_in, detect_endian, page_size_from_header};
use crate::parse::postgres::{PageOptions, Relation};
use crate::reader::Reader;
use crate::source::read_at;
use crate::verify::report::{report_error, Report};

/// Settings shared by every block of one file.
pub(super) struct BlockContext<'a> {
    pub file: &'a str,
    pub block_size: usize,
    /// Block number of the file's first block.
    pub first_blkno: u64,
    pub checksums: bool,
    /// The blocks came through text (a get_raw_page() copy): a checksum
    /// mismatch may be a stale buffer checksum, so it is a warning.
    pub from_text: bool,
    /// Block 0 is a btree metapage: every page should be a btree page.
    pub btree_index: bool,
    /// The file the blocks came from, read again for a block whose checksum
    /// fails (a block being written while it was read is whole on a re-read).
    /// `None` for standard input and decoded text.
    pub reread: Option<&'a File>,
    /// A running cluster's start LSN: a block that still fails its checksum
    /// after the re-read, whose bytes differ between the two reads and whose
    /// pd_lsn is newer was written during the run, and is counted as changed
    /// rather than reported.
    pub start_lsn: Option<Lsn>,
    /// Gather each block's [`BlockFigures`] (the report wants them).
    pub figures: bool,
}

/// The checked blocks of one chunk: counts and the problems found, in order.
#[derive(Default)]
pub(super) struct Outcome {
    /// Blocks checked (fewer than given when a problem cap stopped it).
    pub blocks: u64,
    zero_pages: u64,
    bad_blocks: u64,
    bad_checksums: u64,
    changed_during_run: u64,
    problems: Vec<VerifyProblem>,
    /// Each checked block's figures, when the context asks for them.
    figures: Vec<BlockFigures>,
}

impl Outcome {
    /// The counts added to `summary`, the problems and figures reported.
    pub(super) fn add_to(
        self,
        summary: &mut Summary,
        report: &mut dyn Report,
    ) -> Result<(), Error> {
        summary.blocks += self.blocks;
        summary.zero_pages += self.zero_pages;
        summary.bad_blocks += self.bad_blocks;
        summary.bad_checksums += self.bad_checksums;
        summary.changed_during_run += self.changed_during_run;
        for p in &self.problems {
            if p.severity > Severity::Info {
                *summary
                    .problems_by_class
                    .entry(p.class.as_str())
                    .or_default() += 1;
            }
            report.problem(p).map_err(report_error)?;
        }
        for f in &self.figures {
            report.block(f).map_err(report_error)?;
        }
        Ok(())
    }
}

/// Check consecutive whole blocks; `first` is the position of the first in its file.
pub(super) fn check_blocks(data: &[u8], first: u64, ctx: &BlockContext) -> Outcome {
    check_blocks_upto(data, first, ctx, usize::MAX)
}

/// Problems one parallel chunk may hold before it stops and leaves the rest
/// of its blocks to be checked one at a time, each reported at once (pages
/// of thousands of overlapping line pointers would otherwise hold millions
/// of problems per window).
pub(super) const CHUNK_PROBLEMS: usize = 16 * 1024;

/// Like [`check_blocks`], stopping after the block that brings the problems
/// to `cap`: [`Outcome::blocks`] says how many blocks were checked.
pub(super) fn check_blocks_upto(
    data: &[u8],
    first: u64,
    ctx: &BlockContext,
    cap: usize,
) -> Outcome {
    let mut outcome = Outcome::default();
    let mut problems = Vec::new();
    for (i, page) in data.chunks_exact(ctx.block_size).enumerate() {
        if outcome.problems.len() >= cap {
            break;
        }
        check_into(page, first + i as u64, ctx, &mut problems, &mut outcome);
    }
    outcome
}

/// Blocks `first..first + count` of a file known to be all zeros without
/// reading them (a hole of a sparse file): the outcome of checking an
/// all-zero block, once, and the same for each of the others with its own
/// block number and offset — what reading the zeros would have given.
pub(super) fn check_zero_blocks(first: u64, count: u64, ctx: &BlockContext) -> Outcome {
    let mut outcome = Outcome::default();
    if count == 0 {
        return outcome;
    }
    let zeros = vec![0u8; ctx.block_size];
    let mut scratch = Vec::new();
    check_into(&zeros, first, ctx, &mut scratch, &mut outcome);
    let one = Outcome {
        blocks: outcome.blocks,
        zero_pages: outcome.zero_pages,
        bad_blocks: outcome.bad_blocks,
        bad_checksums: outcome.bad_checksums,
        changed_during_run: outcome.changed_during_run,
        problems: outcome.problems.clone(),
        figures: outcome.figures.clone(),
    };
    let bs = ctx.block_size as u64;
    for index in first + 1..first + count {
        let blkno = ctx.first_blkno + index;
        outcome.blocks += one.blocks;
        outcome.zero_pages += one.zero_pages;
        outcome.bad_blocks += one.bad_blocks;
        outcome.bad_checksums += one.bad_checksums;
        outcome.changed_during_run += one.changed_during_run;
        outcome
            .problems
            .extend(one.problems.iter().map(|p| VerifyProblem {
                blkno,
                file_offset: index * bs,
                ..p.clone()
            }));
        outcome.figures.extend(
            one.figures
                .iter()
                .map(|f| BlockFigures { blkno, ..f.clone() }),
        );
    }
    outcome
}

/// The block at position `index` of its file: checked (read again first
/// when its checksum fails), counted in `outcome` with its problems and,
/// when wanted, its figures. `problems` is scratch space, left empty.
fn check_into(
    page: &[u8],
    index: u64,
    ctx: &BlockContext,
    problems: &mut Vec<Problem>,
    outcome: &mut Outcome,
) {
    let blkno = ctx.first_blkno + index;
    let file_offset = index * ctx.block_size as u64;
    let mut verdict = check_block(page, blkno, ctx, problems);
    // As pg_basebackup: a block whose checksum fails is read again before
    // it is believed.
    let again = if verdict.bad_checksum {
        reread(ctx, file_offset)
    } else {
        None
    };
    if let Some(bytes) = &again {
        problems.clear();
        verdict = check_block(bytes, blkno, ctx, problems);
    }
    outcome.blocks += 1;
    let bytes = again.as_deref().unwrap_or(page);
    if verdict.bad_checksum && written_during_run(ctx, page, again.as_deref()) {
        // Written after the run began: its bytes are in flux (maybe torn),
        // so neither its checksum nor its structure is judged.
        outcome.changed_during_run += 1;
        problems.clear();
        if ctx.figures {
            // Its bytes as read, unjudged: no problems counted.
            let mut f = block_figures(bytes, blkno, ctx, &verdict, &[]);
            f.checksum = ChecksumState::Changed;
            outcome.figures.push(f);
        }
        return;
    }
    if ctx.figures {
        outcome
            .figures
            .push(block_figures(bytes, blkno, ctx, &verdict, problems));
    }
    outcome.zero_pages += u64::from(verdict.new);
    outcome.bad_checksums += u64::from(verdict.bad_checksum);
    if problems.iter().any(|p| p.severity > Severity::Info) {
        outcome.bad_blocks += 1;
    }
    outcome.problems.extend(
        problems
            .drain(..)
            .map(|p| VerifyProblem::from_problem(ctx.file, blkno, file_offset, p)),
    );
}

/// The block at `file_offset` read again from the context's file, when
/// there is one and the whole block can be read.
fn reread(ctx: &BlockContext, file_offset: u64) -> Option<Vec<u8>> {
    let file = ctx.reread?;
    let mut bytes = vec![0u8; ctx.block_size];
    matches!(read_at(file, &mut bytes, file_offset), Ok(n) if n == bytes.len()).then_some(bytes)
}

/// Whether a block that failed its checksum was written during the run: it
/// was read again (`again`), its bytes differ from the first read, and its
/// pd_lsn is newer than the running cluster's start LSN. Only a second read
/// that differs counts: a crashed cluster's pg_control also says "in
/// production", and there nothing writes, so a damaged block reads the
/// same twice whatever its pd_lsn says (even a forged FFFFFFFF/FFFFFFFF).
fn written_during_run(ctx: &BlockContext, first: &[u8], again: Option<&[u8]>) -> bool {
    let (Some(start), Some(again)) = (ctx.start_lsn, again) else {
        return false;
    };
    again != first && pd_lsn(again) > start
}

struct BlockVerdict {
    new: bool,
    bad_checksum: bool,
    /// What the structural check established (kind, header).
    checked: CheckedPage,
}

/// A checked block's figures for `map`: its kind, free space and line
/// pointers (read by [`page_figures`]), and from the check's `problems` its
/// error and warning counts and checksum state.
fn block_figures(
    page: &[u8],
    blkno: u64,
    ctx: &BlockContext,
    verdict: &BlockVerdict,
    problems: &[Problem],
) -> BlockFigures {
    let mut f = BlockFigures::empty(blkno, verdict.checked.kind.name());
    f.zero = verdict.new;
    page_figures(page, &verdict.checked, detect_endian(page), &mut f);
    for p in problems {
        match p.severity {
            Severity::Error => f.errors += 1,
            Severity::Warning => f.warnings += 1,
            Severity::Info => {}
        }
    }
    let checksum_problem = problems.iter().any(|p| p.class == ProblemClass::Checksum);
    f.checksum = if verdict.new {
        ChecksumState::NotApplicable
    } else if !ctx.checksums {
        ChecksumState::None
    } else if verdict.bad_checksum || checksum_problem {
        ChecksumState::Bad
    } else {
        ChecksumState::Ok
    };
    f
}

/// One block: checksum first (when the cluster has them), then structure —
/// except that an unusable page header is reported before the checksum.
/// The checksum reads the whole page in order, which also brings it into the
/// cache for the structural checks' scattered reads.
fn check_block(
    page: &[u8],
    blkno: u64,
    ctx: &BlockContext,
    problems: &mut Vec<Problem>,
) -> BlockVerdict {
    if is_new_page(page) {
        problems.push(Problem::new(
            Severity::Info,
            ProblemClass::ZeroPage,
            Some(0),
            "page",
            "all bytes are zero: a new page, valid (not yet initialised)",
        ));
        return BlockVerdict {
            new: true,
            bad_checksum: false,
            checked: CheckedPage {
                kind: crate::model::postgres::PageKind::New,
                header: None,
                header_usable: false,
            },
        };
    }
    let mut bad_checksum = false;
    let start = problems.len();
    if ctx.checksums {
        if let Some(p) = checksum_problem(page, blkno, ctx.from_text) {
            problems.push(p);
            bad_checksum = true;
        }
    }
    let checksum_end = problems.len();
    let opts = PageOptions {
        blkno,
        blkno_known: true,
        from_text: ctx.from_text,
        kind: None,
        endian: detect_endian(page),
    };
    let rel = Relation {
        btree_index: ctx.btree_index,
    };
    let checked = check_page_in(page, &opts, rel, problems);
    if checked.header.is_some() && !checked.header_usable {
        // The unusable header is the first cause; a checksum that fails on
        // such a page follows from it.
        problems[start..].rotate_left(checksum_end - start);
    }
    BlockVerdict {
        new: false,
        bad_checksum,
        checked,
    }
}

/// pd_checksum against pg_checksum_page for this block number: an error on
/// a relation file; on a page that came through text, a mismatch is a
/// warning, since a get_raw_page() copy can carry a stale checksum.
fn checksum_problem(page: &[u8], blkno: u64, from_text: bool) -> Option<Problem> {
    let stored = stored_checksum(page)?;
    let computed = pg_checksum_page(page, blkno, detect_endian(page));
    let (severity, message) = match computed {
        None => (
            Severity::Error,
            format!("no checksum can be computed for a {}-byte page", page.len()),
        ),
        Some(c) if stored == 0 => (
            Severity::Error,
            format!(
                "pd_checksum is 0 on a written page of a cluster with data checksums \
                 (calculated checksum 0x{c:04X} for block {blkno})"
            ),
        ),
        Some(c) if c != stored => (
            if from_text {
                Severity::Warning
            } else {
                Severity::Error
            },
            format!(
                "checksum verification failed: calculated checksum 0x{c:04X} for block {blkno} \
                 but block contains 0x{stored:04X}{}",
                if from_text {
                    "; normal for a get_raw_page() copy of a buffer changed since it was last \
                     written (PostgreSQL sets the checksum only when it writes the page out)"
                } else {
                    ""
                }
            ),
        ),
        Some(_) => return None,
    };
    Some(Problem::new(
        severity,
        ProblemClass::Checksum,
        Some(8),
        "pd_checksum",
        message,
    ))
}

/// pd_lsn of a page image (0/0 without a header).
fn pd_lsn(page: &[u8]) -> Lsn {
    let r = Reader::new(page, detect_endian(page));
    let half = |at| r.peek_u32(at, "pd_lsn").unwrap_or(0);
    Lsn {
        xlogid: half(0),
        xrecoff: half(4),
    }
}

/// pd_checksum of a page image, if it has a header.
pub(super) fn stored_checksum(page: &[u8]) -> Option<u16> {
    Reader::new(page, detect_endian(page))
        .peek_u16(8, "pd_checksum")
        .ok()
}

/// Bytes read from the start of a file to find the page size its pages announce.
pub(super) const ANNOUNCE_BYTES: usize = 256 << 10;

/// The page size announced in pd_pagesize_version by the first page of
/// `bytes` that announces one at an offset that is a multiple of the size
/// it announces (a new, all-zero block 0 announces nothing; the next
/// written page does) — the facts `show` reads, so a loose file of a
/// 16 KiB or 32 KiB cluster is cut as its pages say.
pub(super) fn announced_in(bytes: &[u8]) -> Option<usize> {
    let end = bytes.len().min(ANNOUNCE_BYTES);
    (0..end).step_by(1024).find_map(|offset| {
        page_size_from_header(&bytes[offset..end]).filter(|size| offset % size == 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::postgres::check::is_btree_metapage;

    #[test]
    fn arbitrary_blocks_never_panic() {
        // Random pages, some with a plausible header and a btree-sized special space.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..2000u64 {
            let mut page: Vec<u8> = (0..8192).map(|_| next() as u8).collect();
            if round % 2 == 0 {
                let lower = 24 + (next() % 400) as u16;
                page[12..14].copy_from_slice(&lower.to_le_bytes());
                page[14..16].copy_from_slice(&(4000u16 + (next() % 4000) as u16).to_le_bytes());
                page[16..18].copy_from_slice(&8176u16.to_le_bytes());
                page[18..20].copy_from_slice(&0x2004u16.to_le_bytes());
            }
            for btree_index in [false, true] {
                let ctx = BlockContext {
                    file: "x",
                    block_size: 8192,
                    first_blkno: 0,
                    checksums: true,
                    from_text: false,
                    btree_index,
                    reread: None,
                    start_lsn: None,
                    figures: false,
                };
                let mut problems = Vec::new();
                check_block(&page, round % 5, &ctx, &mut problems);
                is_btree_metapage(&page, detect_endian(&page));
            }
        }
    }

    /// Block 5 of the crash fixture's heap (a PostgreSQL 15 page written
    /// after its cluster's last checkpoint) with one bit flipped at `at`.
    fn damaged_block(at: usize) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/postgres/neverlie/crash/base/5/16384");
        let bytes = std::fs::read(path).unwrap();
        let mut page = bytes[5 * 8192..6 * 8192].to_vec();
        page[at] ^= 0x10;
        page
    }

    /// check_blocks on `first_read` (block 5) whose re-read gives `second_read`.
    fn check_with_reread(first_read: &[u8], second_read: &[u8], what: &str) -> Outcome {
        let path =
            std::env::temp_dir().join(format!("blockscope-reread-{what}-{}", std::process::id()));
        std::fs::write(&path, second_read).unwrap();
        let file = File::open(&path).unwrap();
        let ctx = BlockContext {
            file: "x",
            block_size: 8192,
            first_blkno: 5,
            checksums: true,
            from_text: false,
            btree_index: false,
            reread: Some(&file),
            // The crash fixture's checkpoint REDO location: the page is newer.
            start_lsn: Some(Lsn::from(0x017B_3928)),
            figures: false,
        };
        let outcome = check_blocks(first_read, 0, &ctx);
        std::fs::remove_file(&path).unwrap();
        outcome
    }

    #[test]
    fn a_newer_block_counts_as_changed_only_when_the_second_read_differs() {
        let first = damaged_block(4000);
        assert!(pd_lsn(&first) > Lsn::from(0x017B_3928));
        // Read the same twice: nothing wrote it, so the damage is reported.
        let same = check_with_reread(&first, &first, "same");
        assert_eq!(
            (same.changed_during_run, same.bad_checksums, same.bad_blocks),
            (0, 1, 1)
        );
        // Written between the reads (and still failing): changed.
        let other = damaged_block(4100);
        let changed = check_with_reread(&first, &other, "changed");
        assert_eq!((changed.changed_during_run, changed.bad_checksums), (1, 0));
        assert!(changed.problems.is_empty());
        // A forged pd_lsn of FFFFFFFF/FFFFFFFF on a block read the same twice buys nothing.
        let mut forged = first.clone();
        forged[..8].copy_from_slice(&[0xFF; 8]);
        let f = check_with_reread(&forged, &forged, "forged");
        assert_eq!((f.changed_during_run, f.bad_checksums), (0, 1));
    }
}
