//! DBVERIFY-like checks over the blocks of a datafile (§9, §10.1).
//!
//! [`verify_block`] adds to a parsed block's own problems the checks that need
//! its position in the file (the rdba must name the block's position), and
//! [`DbvSummary`] keeps DBVERIFY's tallies. [`DatafileVerifier`] does both for a
//! stream of blocks; the `verify` subcommand drives it.

use serde::Serialize;

use crate::model::oracle::{Kcbh, OracleBlock, OracleChecksum, OracleKind, Rdba, Scn};
use crate::model::{Problem, ProblemClass, Severity};

use super::block::{parse_block, BlockOptions};

/// Where a block is expected to be.
#[derive(Clone, Copy, Debug, Default)]
pub struct Expected {
    /// Block number in the file (its position).
    pub blkno: u64,
    /// Relative file number, when known (from the file header); bigfile = 1024.
    pub rel_file: Option<u32>,
    /// Block size of the file, for truncation.
    pub block_size: Option<usize>,
}

/// The problems of `block` plus the position checks. All-zero blocks are
/// valid (never formatted) and yield an info problem only.
pub fn verify_block(block: &OracleBlock, expected: &Expected) -> Vec<Problem> {
    let mut problems = block.problems.clone();
    if let Some(bs) = expected.block_size {
        if block.size < bs {
            problems.push(Problem::new(
                Severity::Error,
                ProblemClass::Truncated,
                Some(block.size),
                "block",
                format!("truncated block: {} of {bs} bytes", block.size),
            ));
        }
    }
    match block.kind {
        OracleKind::Zero => problems.push(Problem::new(
            Severity::Info,
            ProblemClass::ZeroPage,
            None,
            "block",
            "completely zero block (never formatted)",
        )),
        OracleKind::OsHeader => {}
        _ => {
            if let Some(h) = &block.kcbh {
                let rdba = Rdba(h.rdba_kcbh);
                let bigfile = rdba.file() == 0 || expected.rel_file == Some(1024);
                let block_no = if bigfile {
                    u64::from(h.rdba_kcbh)
                } else {
                    u64::from(rdba.block())
                };
                if block_no != expected.blkno {
                    problems.push(Problem::new(
                        Severity::Error,
                        ProblemClass::Header,
                        Some(4),
                        "kcbh.rdba_kcbh",
                        format!(
                            "rdba 0x{:08x} names block {block_no}, but the block is at position {} \
                             of the file (misplaced or stale block)",
                            h.rdba_kcbh, expected.blkno
                        ),
                    ));
                }
                if let Some(f) = expected.rel_file {
                    if !bigfile && f != 1024 && rdba.file() != f {
                        problems.push(Problem::new(
                            Severity::Error,
                            ProblemClass::Header,
                            Some(4),
                            "kcbh.rdba_kcbh",
                            format!(
                                "rdba 0x{:08x} names relative file {}, the file header says {f}",
                                h.rdba_kcbh,
                                rdba.file()
                            ),
                        ));
                    }
                }
            }
        }
    }
    problems
}

/// DBVERIFY's tallies, plus which blocks failed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DbvSummary {
    /// Blocks examined (block 0, the OS header, is not an Oracle block and is not counted).
    pub total_pages_examined: u64,
    pub processed_data: u64,
    pub failing_data: u64,
    pub processed_index: u64,
    pub failing_index: u64,
    pub processed_other: u64,
    pub failing_other: u64,
    /// Never-formatted (all zero) blocks.
    pub empty: u64,
    /// Blocks failing cache-layer checks: check value, header, seq 0xff, truncation.
    pub marked_corrupt: u64,
    /// Fractured blocks: the tail does not repeat the header.
    pub influx: u64,
    pub encrypted: u64,
    /// Highest SCN of any block, with the block carrying it.
    pub highest_scn: Option<u64>,
    pub highest_scn_wrap: Option<u64>,
    pub highest_scn_base: Option<u32>,
    pub highest_scn_blkno: Option<u64>,
    /// Block numbers with at least one error.
    pub failing_blocks: Vec<u64>,
}

/// Classes that make a block "marked corrupt" rather than logically failing.
pub const CACHE_CLASSES: &[ProblemClass] = &[
    ProblemClass::Checksum,
    ProblemClass::Header,
    ProblemClass::Corrupt,
    ProblemClass::Truncated,
];

impl DbvSummary {
    /// Count one block with the problems [`verify_block`] found.
    pub fn add(&mut self, block: &OracleBlock, problems: &[Problem]) {
        if block.kind == OracleKind::OsHeader {
            return;
        }
        self.total_pages_examined += 1;
        let errors: Vec<&Problem> = problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .collect();
        if !errors.is_empty() {
            self.failing_blocks.push(block.blkno);
        }
        if let Some(h) = &block.kcbh {
            let scn: Scn = h.scn();
            if self.highest_scn.is_none_or(|s| scn.value() > s) {
                self.highest_scn = Some(scn.value());
                self.highest_scn_wrap = Some(scn.wrap());
                self.highest_scn_base = Some(scn.kscnbas);
                self.highest_scn_blkno = Some(block.blkno);
            }
        }
        if block.kind == OracleKind::Zero {
            self.empty += 1;
            return;
        }
        let fractured = errors.iter().any(|p| p.class == ProblemClass::Fractured);
        let corrupt = errors.iter().any(|p| CACHE_CLASSES.contains(&p.class));
        if fractured {
            self.influx += 1;
        }
        if corrupt {
            self.marked_corrupt += 1;
        }
        if block.encrypted {
            self.encrypted += 1;
            return;
        }
        if fractured || corrupt {
            return;
        }
        let failing = !errors.is_empty();
        match block.kind {
            OracleKind::Table | OracleKind::TransData => {
                self.processed_data += 1;
                self.failing_data += u64::from(failing);
            }
            OracleKind::IndexLeaf | OracleKind::IndexBranch => {
                self.processed_index += 1;
                self.failing_index += u64::from(failing);
            }
            _ => {
                self.processed_other += 1;
                self.failing_other += u64::from(failing);
            }
        }
    }

    /// True when no block failed.
    pub fn clean(&self) -> bool {
        self.failing_blocks.is_empty()
    }
}

/// What a DBVERIFY-style report says about one block: its identity, its
/// cache header as found, and its problems.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockReport {
    pub blkno: u64,
    pub kind: OracleKind,
    pub encrypted: bool,
    pub kcbh: Option<Kcbh>,
    pub tailchk: Option<u32>,
    pub checksum: Option<OracleChecksum>,
    pub problems: Vec<Problem>,
}

impl BlockReport {
    pub fn new(block: &OracleBlock, problems: Vec<Problem>) -> Self {
        BlockReport {
            blkno: block.blkno,
            kind: block.kind,
            encrypted: block.encrypted,
            kcbh: block.kcbh.clone(),
            tailchk: block.tailchk,
            checksum: block.checksum,
            problems,
        }
    }

    /// At least one error (info such as "zero block" does not fail a block).
    pub fn failed(&self) -> bool {
        self.problems.iter().any(|p| p.severity == Severity::Error)
    }

    pub fn has_class(&self, class: ProblemClass) -> bool {
        self.problems
            .iter()
            .any(|p| p.severity == Severity::Error && p.class == class)
    }
}

/// Verifies the blocks of one datafile in order, learning the relative file
/// number from the file header (block 1) as it goes.
#[derive(Clone, Debug, Default)]
pub struct DatafileVerifier {
    pub summary: DbvSummary,
    /// Relative file number, from the file header once seen (or set by the caller).
    pub rel_file: Option<u32>,
    /// Block size of the file (from block 0 or the first block), for truncation.
    pub block_size: Option<usize>,
}

impl DatafileVerifier {
    pub fn new() -> Self {
        DatafileVerifier::default()
    }

    /// Parse and check the block at position `blkno`; returns the block and its problems.
    pub fn check(&mut self, blkno: u64, data: &[u8]) -> (OracleBlock, Vec<Problem>) {
        let block = parse_block(
            data,
            &BlockOptions {
                blkno,
                endian: None,
            },
        );
        if self.block_size.is_none() {
            self.block_size = block
                .os_header
                .as_ref()
                .map(|h| h.block_size as usize)
                .or(Some(data.len()));
        }
        if let Some(fh) = &block.file_header {
            if self.rel_file.is_none() && fh.kcvfhrfn != 0 {
                self.rel_file = Some(fh.kcvfhrfn);
            }
        }
        let problems = verify_block(
            &block,
            &Expected {
                blkno,
                rel_file: self.rel_file,
                block_size: self.block_size,
            },
        );
        self.summary.add(&block, &problems);
        (block, problems)
    }
}
