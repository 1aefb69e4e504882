//! What `verify` finds: one record per problem, notes for inputs it passed
//! over, and a summary like pg_checksums' and DBVERIFY's.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::{Problem, ProblemClass, Severity};

/// One problem, placed in a file and a block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyProblem {
    /// The file as named on the command line or found in a directory (`-` for standard input).
    pub file: String,
    /// Block number in the relation (segment × blocks per segment + block in the file).
    pub blkno: u64,
    /// Byte offset inside the block, when the problem has one.
    pub offset: Option<usize>,
    /// Byte offset of the block in the file (add `offset` for the byte itself).
    pub file_offset: u64,
    /// The field, named as PostgreSQL names it (`pd_checksum`, `lp[3]`, `tuple 3 t_hoff`).
    pub field: String,
    /// Stable problem class: `checksum`, `header`, `line-pointer`, `tuple`,
    /// `btree`, `zero-page`, `truncated`.
    pub class: ProblemClass,
    /// How bad it is.
    pub severity: Severity,
    /// What is wrong, in one line.
    pub message: String,
    /// A `lost-write`: what the WAL says of the block. Omitted otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wal: Option<LostWrite>,
    /// The relation the file belongs to, when the file is in a data
    /// directory whose catalogs say. Omitted otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relation: Option<RelationName>,
}

/// The relation a file of a data directory belongs to, as its database's
/// catalogs say (pg_class, pg_namespace, the relation maps).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RelationName {
    /// `nspname.relname`, each escaped as every name from the outside
    /// world is (`pg_toast.pg_toast_16384` for a TOAST table).
    pub name: String,
    /// The fork: `main`, `fsm`, `vm` or `init`.
    pub fork: &'static str,
    /// The segment file: 0 for `N`, 1 for `N.1`, …
    pub segment: u64,
    /// A TOAST table's (or its index's) owner, `nspname.relname`
    /// (escaped): the table whose `reltoastrelid` it is. Omitted otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toast_of: Option<String>,
}

impl std::fmt::Display for RelationName {
    /// `public.orders, main fork`; `pg_toast.pg_toast_16384, TOAST of
    /// public.orders, main fork`; `public.big, main fork, segment 1`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.name)?;
        if let Some(owner) = &self.toast_of {
            write!(f, ", TOAST of {owner}")?;
        }
        write!(f, ", {} fork", self.fork)?;
        if self.segment > 0 {
            write!(f, ", segment {}", self.segment)?;
        }
        Ok(())
    }
}

/// What the WAL says of a block whose write was lost: the latest record
/// before the checkpoint's REDO location that set the page's LSN.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LostWrite {
    /// The page's pd_lsn (`%X/%X`); `None` when the file ends before the block.
    pub page_lsn: Option<String>,
    /// The record's LSN (where it starts).
    pub record_lsn: String,
    /// Where it ends: the LSN redo gives the page (`EndRecPtr`).
    pub record_end: String,
    /// Its resource manager, as pg_waldump names it (`Heap`).
    pub rmgr: String,
    /// Its description as `wal` prints it (`HOT_UPDATE off 3 xmax 745 …`).
    pub desc: String,
    /// The record carries a full-page image of the block.
    pub fpi: bool,
    /// The REDO location of the checkpoint that had to write the page.
    pub checkpoint_redo: String,
}

/// One lost-write check: a WAL read against the relation files of the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WalCheck {
    /// The WAL read: a data directory's `pg_wal`, or the `--wal` paths.
    pub wal: Vec<String>,
    /// The `global/pg_control` whose checkpoint REDO location was used.
    pub pg_control: String,
    /// That REDO location (`%X/%X`): records before it were written out.
    pub checkpoint_redo: String,
    /// The first record read (`%X/%X`), if any.
    pub first_lsn: Option<String>,
    /// The last record read.
    pub last_lsn: Option<String>,
    /// Records read.
    pub records: u64,
    /// Damage in the WAL before its last record (missing segments, bad
    /// pages or records): the records there were not read.
    pub wal_problems: u64,
    /// Blocks whose page was compared with the WAL's last change before the
    /// REDO location.
    pub blocks_checked: u64,
    /// Of those, blocks older than that change: problems of class `lost-write`.
    pub lost_writes: u64,
    /// Blocks the WAL changed whose relation file is not there (dropped, or
    /// not part of a partial copy): no verdict.
    pub blocks_without_file: u64,
    /// Blocks past the end of their file given no verdict: the cluster is
    /// running (a truncation may be under way), or the WAL is damaged after
    /// the change (a truncation may be hidden there).
    pub blocks_without_verdict: u64,
}

impl VerifyProblem {
    /// The file as printed: its path, and the relation in parentheses when
    /// known (`base/5/16384 (public.orders, main fork)`).
    pub fn file_label(&self) -> String {
        match &self.relation {
            Some(r) => format!("{} ({r})", self.file),
            None => self.file.clone(),
        }
    }

    /// `problem` of block `blkno`, which starts at `file_offset` in `file`.
    pub fn from_problem(file: &str, blkno: u64, file_offset: u64, problem: Problem) -> Self {
        VerifyProblem {
            file: file.to_string(),
            blkno,
            offset: problem.offset,
            file_offset,
            field: problem.field,
            class: problem.class,
            severity: problem.severity,
            message: problem.message,
            wal: None,
            relation: None,
        }
    }
}

/// An input passed over, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The input's path as given.
    pub file: String,
    /// Why it was skipped.
    pub reason: String,
    /// One of the files every data directory holds beside its relations
    /// (`pg_control`, `PG_VERSION`, `pg_filenode.map`, `pg_internal.init`,
    /// temporary relations and `pgsql_tmp`): counted in the summary, listed
    /// only with `--verbose`. Anything else passed over (a stray file, a
    /// FIFO) is noted as it is found.
    #[serde(skip)]
    pub bookkeeping: bool,
}

/// Whether checksums were verified, and what decided it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChecksumVerdict {
    /// Checksums verified (the cluster has data checksums).
    pub enabled: bool,
    /// What decided: the option, pg_control, or the pages themselves.
    pub reason: String,
}

/// What a data directory's `global/pg_control` said.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PgControlSummary {
    /// The pg_control file's path.
    pub file: String,
    /// Trusted (its CRC matched) and used for block size, segment size and
    /// whether checksums are on (unless the options say otherwise).
    pub used: bool,
    /// Cluster state as pg_controldata names it (`shut down`, `in production`…).
    pub state: Option<String>,
    /// Shut down cleanly: the files are final (pg_checksums requires it).
    pub shut_down: Option<bool>,
    /// data_checksum_version: 0 off, 1 on (later versions add in-progress states).
    pub data_checksum_version: Option<u32>,
    /// blcksz: the cluster's page size (BLCKSZ).
    pub block_size: Option<u32>,
    /// relseg_size: blocks per segment file (RELSEG_SIZE).
    pub blocks_per_segment: Option<u32>,
    /// Why it was not used.
    pub error: Option<String>,
}

/// Totals for a whole run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Files whose blocks were checked.
    pub files: u64,
    /// Whole blocks checked.
    pub blocks: u64,
    /// Blocks with at least one warning or error.
    pub bad_blocks: u64,
    /// Blocks whose checksum failed (mismatch, or zero in a cluster with checksums).
    pub bad_checksums: u64,
    /// All-zero blocks: new pages, valid.
    pub zero_pages: u64,
    /// Files whose size is not a whole number of blocks.
    pub truncated_files: u64,
    /// On a running cluster: blocks whose checksum still failed when re-read
    /// but whose pd_lsn is newer than the run's start LSN — written while
    /// the run read them, so not reported (as pg_basebackup does). Omitted
    /// from JSON when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub changed_during_run: u64,
    /// On a running cluster: files that grew or shrank while they were read
    /// (reported as `io` problems of severity `info`, not failures). Omitted
    /// from JSON when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub resized_during_run: u64,
    /// Problems by class (errors and warnings; zero pages are counted above).
    pub problems_by_class: BTreeMap<&'static str, u64>,
    /// Page size the files were read with.
    pub block_size: usize,
    /// Blocks per segment file (block numbers of `.N` files start at N × this).
    pub blocks_per_segment: u64,
    /// Whether checksums were verified and why; `None` until decided.
    pub checksums: Option<ChecksumVerdict>,
    /// A data directory's pg_control, when one was given.
    pub pg_control: Option<PgControlSummary>,
    /// pg_control said the cluster was running (`in production`): blocks
    /// were re-read and judged against [`Summary::start_lsn`]. Omitted from
    /// JSON when false.
    #[serde(skip_serializing_if = "is_false")]
    pub cluster_running: bool,
    /// The run's start LSN on a running cluster: the latest checkpoint's
    /// REDO location in pg_control when the run began, `%X/%X`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_lsn: Option<String>,
    /// Files passed over (not relation files).
    pub skipped: Vec<Skipped>,
    /// Not one whole block was read: why (never a verdict). The command
    /// still closes its JSON document, then fails with this (exit 2).
    #[serde(skip)]
    pub nothing_verified: Option<String>,
    /// `--deep`: amcheck's cross-page checks were run. Omitted from JSON when false.
    #[serde(skip_serializing_if = "is_false")]
    pub deep: bool,
    /// `--deep`: blocks with a warning or error from the cross-page checks
    /// (a block already counted in `bad_blocks` may be counted again).
    /// Omitted from JSON when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub deep_bad_blocks: u64,
    /// `--deep`: blocks whose free space map entry is not the free space the
    /// page has (problems of class `free-space-map`, severity `info`: the
    /// map is a hint PostgreSQL updates lazily, never a failure). Omitted
    /// from JSON when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub free_space_map_drift: u64,
    /// `--evidence`: what was run on which bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// The lost-write checks run against WAL (a data directory's pg_wal, or
    /// `--wal`). Omitted from JSON when none ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wal: Vec<WalCheck>,
}

/// `--evidence`: the program, its arguments, and per input what was read,
/// so that a finding can be tied to the file it came from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// blockscope's version.
    pub blockscope: String,
    /// The command line after the program name, each argument escaped as
    /// file names are.
    pub arguments: Vec<String>,
    /// Per input file checked, in order.
    pub inputs: Vec<ProvenanceInput>,
}

/// One input as it was read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ProvenanceInput {
    /// The file name as verify prints it (`-`: standard input).
    pub path: String,
    /// Bytes: the file's size when opened; standard input's bytes read.
    pub size: u64,
    /// Last modification, RFC 3339 UTC; absent for standard input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtime: Option<String>,
    /// `show --evidence`: bytes read from the input, from its start (fewer
    /// than `size` when the blocks shown ended early); the SHA-256 is of
    /// these. Absent in verify's reports (it reads every byte).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_read: Option<u64>,
    /// SHA-256 (hex) of exactly the bytes read, computed as they were read;
    /// absent when a block could not be read or the input was decoded text
    /// on standard input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

impl Summary {
    /// Something is wrong: exit status 1.
    pub fn failed(&self) -> bool {
        // `io`: a file or block that could not be read is never clean; nor
        // is a relation file that holds no page at all (`not-pages`).
        self.bad_blocks > 0
            || self.deep_bad_blocks > 0
            || self.truncated_files > 0
            || self.problems_by_class.contains_key("io")
            || self.problems_by_class.contains_key("not-pages")
            || self.problems_by_class.contains_key("lost-write")
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}
