//! DBVERIFY-like checks over the blocks of a datafile (§9, §10.1).
//!
//! [`verify_block`] adds to a parsed block's own problems the checks that need
//! its position in the file (the rdba must name the block's position), and
//! [`DbvSummary`] keeps DBVERIFY's tallies. [`DatafileVerifier`] does both for a
//! stream of blocks; the `verify` subcommand drives it.

use crate::model::oracle::verify::DbvSummary;
use crate::model::oracle::{OracleBlock, OracleKind, Rdba};
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

/// The problems of `block` plus the position checks. An all-zero block is
/// an error, as DBVERIFY reports it ("Completely zero block found"): Oracle
/// formats every block of a datafile it writes, so zeros were never written
/// by Oracle. A formatted, never-used block (type 0, KCBHFNEW) is valid.
pub fn verify_block(block: &OracleBlock, expected: &Expected) -> Vec<Problem> {
    let mut problems = block.problems.clone();
    if crate::model::oracle::verify::is_new_block(block) {
        // Type 0 is not a block type of its own here: the block was
        // formatted (KCBHFNEW) and never used.
        problems.retain(|p| p.field != "kcbh.type_kcbh");
        problems.push(Problem::new(
            Severity::Info,
            ProblemClass::ZeroPage,
            Some(0),
            "kcbh.type_kcbh",
            "formatted, never used block (type 0, flg_kcbh 0x01 KCBHFNEW): empty",
        ));
    }
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
            Severity::Error,
            ProblemClass::ZeroPage,
            None,
            "block",
            "completely zero block: Oracle formats every block it writes, so these \
             zeros are a hole or an overwrite, not an unused block",
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

/// Verifies the blocks of one datafile in order, learning the relative file
/// number from the file header (block 1) as it goes.
#[derive(Clone, Debug, Default)]
pub struct DatafileVerifier {
    /// DBVERIFY's summary counts: blocks examined, processed, failing, empty, corrupt.
    pub summary: DbvSummary,
    /// Relative file number, from the file header once seen (or set by the caller).
    pub rel_file: Option<u32>,
    /// Block size of the file (from block 0 or the first block), for truncation.
    pub block_size: Option<usize>,
}

impl DatafileVerifier {
    /// A verifier that has seen no block yet.
    pub fn new() -> Self {
        DatafileVerifier::default()
    }

    /// Learn the relative file number from a datafile header (block 1)
    /// that is not itself examined (outside DBVERIFY's START..END).
    pub fn learn(&mut self, data: &[u8]) {
        let block = parse_block(
            data,
            &BlockOptions {
                blkno: 1,
                endian: None,
            },
        );
        if let Some(fh) = &block.file_header {
            if self.rel_file.is_none() && fh.kcvfhrfn != 0 {
                self.rel_file = Some(fh.kcvfhrfn);
            }
        }
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
