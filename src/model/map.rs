//! What `map` says about each block of a file and about the whole file: a
//! small fixed-size record per block ([`BlockFigures`]), built by `verify`'s
//! per-block checks and read by the map renderers, and the run's totals
//! ([`MapSummary`]).

use std::collections::BTreeMap;

use serde::Serialize;

/// The state of a block's checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChecksumState {
    /// Verified, and it matches.
    Ok,
    /// Verified, and it does not match (or is 0 on a written page of a
    /// cluster with data checksums).
    Bad,
    /// The block carries no checksum to verify: a PostgreSQL cluster without
    /// data checksums (or `--checksums off`), an Oracle block without a check
    /// value (`flg_kcbh` without 0x04).
    None,
    /// Nothing to check: an all-zero (new, never formatted) block, a block
    /// that could not be read, an Oracle datafile's OS header block.
    NotApplicable,
    /// PostgreSQL on a running cluster: the block failed its checksum twice
    /// and its pd_lsn is newer than the checkpoint's REDO location, so it was
    /// being written while it was read; not judged (as `verify` counts it).
    Changed,
}

impl ChecksumState {
    /// The state as printed and serialised (`ok`, `bad`, `none`, `not-applicable`, `changed`).
    pub fn as_str(self) -> &'static str {
        match self {
            ChecksumState::Ok => "ok",
            ChecksumState::Bad => "bad",
            ChecksumState::None => "none",
            ChecksumState::NotApplicable => "not-applicable",
            ChecksumState::Changed => "changed",
        }
    }
}

/// One block's figures. PostgreSQL blocks carry the `lp_*` counts and
/// `xmax_set`; Oracle blocks carry `rows_*`; the other engine's fields are
/// `None` and left out of JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockFigures {
    /// Block number (segment × blocks per segment + position in the file;
    /// Oracle: position in the datafile).
    pub blkno: u64,
    /// The page kind, as `show` and `verify` name it (`heap`, `btree`, `new`,
    /// `table`, `index-leaf`…; `unreadable` for a block that could not be read).
    pub kind: &'static str,
    /// Free bytes: pd_upper − pd_lower (PostgreSQL, when the header locates
    /// them); `avsp` of an Oracle table block, `kdxcoavs` of an index block.
    /// `None` when the block does not say (all-zero, unusable header, other kinds).
    pub free: Option<i64>,
    /// Line pointers LP_NORMAL (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lp_normal: Option<u32>,
    /// Line pointers LP_DEAD (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lp_dead: Option<u32>,
    /// Line pointers LP_REDIRECT (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lp_redirect: Option<u32>,
    /// Line pointers LP_UNUSED (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lp_unused: Option<u32>,
    /// Heap tuples (LP_NORMAL items) whose t_xmax is not 0: deleted, updated
    /// or locked by a transaction, committed or not — the rows VACUUM may
    /// reclaim once a deleter or updater has committed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xmax_set: Option<u32>,
    /// Oracle: rows (table blocks: row pieces; index leaves: entries) not
    /// flagged deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_live: Option<u32>,
    /// Oracle: rows flagged deleted (row flag D, index entry flag 0x01).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_deleted: Option<u32>,
    /// Every byte of the block is zero.
    pub zero: bool,
    /// Error-level problems `verify` reports for the block.
    pub errors: u32,
    /// Warning-level problems `verify` reports for the block.
    pub warnings: u32,
    /// The block's checksum.
    pub checksum: ChecksumState,
    /// Bytes of the block that are in use (block size − free), for the
    /// picture's shade; `None` when `free` is.
    #[serde(skip)]
    pub used: Option<u32>,
}

impl BlockFigures {
    /// A block with no figures yet: kind `kind`, nothing counted.
    pub fn empty(blkno: u64, kind: &'static str) -> Self {
        BlockFigures {
            blkno,
            kind,
            free: None,
            lp_normal: None,
            lp_dead: None,
            lp_redirect: None,
            lp_unused: None,
            xmax_set: None,
            rows_live: None,
            rows_deleted: None,
            zero: false,
            errors: 0,
            warnings: 0,
            checksum: ChecksumState::NotApplicable,
            used: None,
        }
    }
}

/// The totals of a `map` run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MapSummary {
    /// `postgresql` or `oracle`.
    pub engine: &'static str,
    /// The files read, in order, as `verify` names them.
    pub files: Vec<String>,
    /// Block size in bytes.
    pub block_size: usize,
    /// Blocks mapped.
    pub blocks: u64,
    /// Blocks per kind.
    pub kinds: BTreeMap<&'static str, u64>,
    /// All-zero blocks.
    pub zero_blocks: u64,
    /// Blocks with at least one error.
    pub damaged_blocks: u64,
    /// Error-level problems, all blocks.
    pub errors: u64,
    /// Warning-level problems, all blocks.
    pub warnings: u64,
    /// Blocks per checksum state.
    pub checksums: BTreeMap<&'static str, u64>,
    /// Free bytes over the blocks that say (see [`BlockFigures::free`]).
    pub free: i64,
    /// LP_NORMAL line pointers (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lp_normal: Option<u64>,
    /// LP_DEAD line pointers (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lp_dead: Option<u64>,
    /// LP_REDIRECT line pointers (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lp_redirect: Option<u64>,
    /// LP_UNUSED line pointers (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lp_unused: Option<u64>,
    /// Heap tuples with t_xmax set (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xmax_set: Option<u64>,
    /// Oracle rows not flagged deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_live: Option<u64>,
    /// Oracle rows flagged deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_deleted: Option<u64>,
    /// PostgreSQL: the relation the (first) file belongs to, when it is in
    /// a data directory whose catalogs name it. Omitted otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relation: Option<crate::model::postgres::verify::RelationName>,
    /// Problems that belong to no block (a file that could not be opened,
    /// a partial block at the end of a file), one line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub file_problems: Vec<String>,
}

impl MapSummary {
    /// Count one block.
    pub fn add(&mut self, b: &BlockFigures) {
        fn add(total: &mut Option<u64>, n: Option<u32>) {
            if let Some(n) = n {
                *total.get_or_insert(0) += u64::from(n);
            }
        }
        self.blocks += 1;
        *self.kinds.entry(b.kind).or_default() += 1;
        self.zero_blocks += u64::from(b.zero);
        self.damaged_blocks += u64::from(b.errors > 0);
        self.errors += u64::from(b.errors);
        self.warnings += u64::from(b.warnings);
        *self.checksums.entry(b.checksum.as_str()).or_default() += 1;
        self.free += b.free.unwrap_or(0);
        add(&mut self.lp_normal, b.lp_normal);
        add(&mut self.lp_dead, b.lp_dead);
        add(&mut self.lp_redirect, b.lp_redirect);
        add(&mut self.lp_unused, b.lp_unused);
        add(&mut self.xmax_set, b.xmax_set);
        add(&mut self.rows_live, b.rows_live);
        add(&mut self.rows_deleted, b.rows_deleted);
    }
}
