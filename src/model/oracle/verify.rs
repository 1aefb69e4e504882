//! What a DBVERIFY-style check of Oracle blocks reports: DBVERIFY's tallies
//! and one report per block. Built by `parse::oracle::verify`, printed by the
//! renderers.

use serde::Serialize;

use super::{Kcbh, OracleBlock, OracleChecksum, OracleKind, Scn};
use crate::model::{Problem, ProblemClass, Severity};

/// DBVERIFY's tallies, plus which blocks failed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DbvSummary {
    /// Blocks examined (block 0, the OS header, is not an Oracle block and is not counted).
    pub total_pages_examined: u64,
    /// Total Pages Processed (Data): table and cluster blocks.
    pub processed_data: u64,
    /// Total Pages Failing (Data).
    pub failing_data: u64,
    /// Total Pages Processed (Index): index leaf and branch blocks.
    pub processed_index: u64,
    /// Total Pages Failing (Index).
    pub failing_index: u64,
    /// Total Pages Processed (Other): every other block type.
    pub processed_other: u64,
    /// Total Pages Failing (Other).
    pub failing_other: u64,
    /// Total Pages Empty: blocks Oracle formatted but never used (type 0
    /// with `flg_kcbh` 0x01, KCBHFNEW).
    pub empty: u64,
    /// Total Pages Marked Corrupt: blocks failing cache-layer checks (check
    /// value, header, seq 0xff, truncation), completely zero blocks (never
    /// written by Oracle) and fractured blocks, as DBVERIFY counts them.
    pub marked_corrupt: u64,
    /// Fractured blocks: the tail does not repeat the header (also counted
    /// in `marked_corrupt`).
    pub influx: u64,
    /// Total Pages Encrypted: blocks with `flg_kcbh` 0x10.
    pub encrypted: u64,
    /// Highest block SCN, as one number.
    pub highest_scn: Option<u64>,
    /// Wrap of the highest block SCN.
    pub highest_scn_wrap: Option<u64>,
    /// Base of the highest block SCN.
    pub highest_scn_base: Option<u32>,
    /// Block carrying the highest block SCN.
    pub highest_scn_blkno: Option<u64>,
    /// Block numbers with at least one error.
    pub failing_blocks: Vec<u64>,
    /// Reads that failed (the file or a block could not be read): never clean.
    #[serde(skip_serializing_if = "is_zero")]
    pub unreadable: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Classes that make a block "marked corrupt" rather than logically failing.
pub const CACHE_CLASSES: &[ProblemClass] = &[
    ProblemClass::Checksum,
    ProblemClass::Header,
    ProblemClass::Corrupt,
    ProblemClass::Truncated,
    ProblemClass::ZeroPage,
];

/// A block Oracle formatted but never used: type 0 with `flg_kcbh` 0x01
/// (KCBHFNEW, "new block - zeroed data area"). DBVERIFY counts these as
/// "Total Pages Empty".
pub fn is_new_block(block: &OracleBlock) -> bool {
    block
        .kcbh
        .as_ref()
        .is_some_and(|h| h.type_kcbh == 0 && h.flg_kcbh & 0x01 != 0)
}

/// DBVERIFY's check code for a logical problem, where published DBVERIFY
/// output names the code for the condition: 6101 (`kdbchk: row locked by
/// non-existent transaction`), 6110 (`kdbchk: the amount of space used is
/// not equal to block size`), 6401 (`**** kdxcofbo = … != …`). Other
/// problems have no code.
pub fn check_code(p: &Problem) -> Option<u16> {
    if p.field == "kdxco.kdxcofbo" && p.message.starts_with("**** kdxcofbo") {
        Some(6401)
    } else if p
        .message
        .starts_with("kdbchk: the amount of space used is not equal to block size")
    {
        Some(6110)
    } else if p.field.ends_with(" lb") && p.message.contains("names an ITL beyond itc") {
        Some(6101)
    } else {
        None
    }
}

impl DbvSummary {
    /// Count one block with the problems `verify_block` found.
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
            // DBVERIFY: "Completely zero block found during dbv", counted as
            // marked corrupt (Oracle formats every block it writes).
            self.marked_corrupt += 1;
            return;
        }
        if errors.is_empty() && is_new_block(block) {
            self.empty += 1;
            return;
        }
        let fractured = errors.iter().any(|p| p.class == ProblemClass::Fractured);
        let corrupt = errors.iter().any(|p| CACHE_CLASSES.contains(&p.class));
        if fractured {
            self.influx += 1;
        }
        if corrupt || fractured {
            // DBVERIFY counts an influx page among the marked corrupt ones too.
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
        self.failing_blocks.is_empty() && self.unreadable == 0
    }
}

/// What a DBVERIFY-style report says about one block: its identity, its
/// cache header as found, and its problems.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockReport {
    /// Block number in the file.
    pub blkno: u64,
    /// What the block is.
    pub kind: OracleKind,
    /// Encrypted: `flg_kcbh` has 0x10.
    pub encrypted: bool,
    /// Cache header kcbh as found.
    pub kcbh: Option<Kcbh>,
    /// Tail word tailchk as found.
    pub tailchk: Option<u32>,
    /// Check value chkval_kcbh: stored and computed.
    pub checksum: Option<OracleChecksum>,
    /// Problems found in the block.
    pub problems: Vec<Problem>,
    /// Relative file number of the datafile (from its header), for the
    /// rdba DBVERIFY prints for a block without a header of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rel_file: Option<u32>,
}

impl BlockReport {
    /// The report on `block` with the problems `verify_block` found.
    pub fn new(block: &OracleBlock, problems: Vec<Problem>) -> Self {
        BlockReport {
            blkno: block.blkno,
            kind: block.kind,
            encrypted: block.encrypted,
            kcbh: block.kcbh.clone(),
            tailchk: block.tailchk,
            checksum: block.checksum,
            problems,
            rel_file: None,
        }
    }

    /// At least one error (info such as "zero block" does not fail a block).
    pub fn failed(&self) -> bool {
        self.problems.iter().any(|p| p.severity == Severity::Error)
    }

    /// DBVERIFY's check code for the block's first logical error that has one.
    pub fn check_code(&self) -> Option<u16> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .find_map(check_code)
    }

    /// At least one error of `class`.
    pub fn has_class(&self, class: ProblemClass) -> bool {
        self.problems
            .iter()
            .any(|p| p.severity == Severity::Error && p.class == class)
    }
}
