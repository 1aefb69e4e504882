//! What every engine answers, as one trait ([`EngineSpec`]) that each
//! engine's file implements (`postgres.rs`, `oracle.rs`), and the plain
//! types those answers use. A leaf of the seam: the engines' files and
//! `sniff.rs` import it, and `mod.rs` holds the registry that hands out
//! each engine's implementation.

use std::ops::RangeInclusive;
use std::path::PathBuf;

use crate::model::page::Page;
use crate::model::postgres::PageKind;
use crate::reader::Endian;

/// How an engine's files hold a table's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowStorage {
    /// A relation's own files hold one table's rows (PostgreSQL): `export`
    /// reads a relation file, its segments and its TOAST relation.
    Relation,
    /// A datafile holds the rows of many objects, told apart by their data
    /// object id (Oracle): `export` reads one object's rows with
    /// `--object-id`.
    Objects,
}

/// How to decode one block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Block number in its relation or file.
    pub blkno: u64,
    /// PostgreSQL: force a page kind instead of detecting it.
    pub kind: Option<PageKind>,
    /// Record byte spans for the hex view.
    pub spans: bool,
    /// Byte order; `None` detects it from the block itself.
    pub endian: Option<Endian>,
    /// The block number was given (`--blkno`, a segment, a relation file's
    /// position), not assumed: a checksum mismatch is then an error, not a
    /// list of the block numbers the checksum fits.
    pub blkno_known: bool,
    /// The page came through text (a get_raw_page() copy): a stale checksum
    /// is a warning.
    pub from_text: bool,
}

/// A column list as given: `--columns LIST`, or the text of `--schema FILE`
/// (read once; its grammar depends on the engine).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnSpec {
    /// `--columns LIST`: the list as typed.
    List(String),
    /// Columns already resolved, e.g. read from a data directory's catalogs
    /// (`show --table`).
    Resolved(crate::model::postgres::types::Schema),
    /// `--schema FILE`: the file and its text.
    File {
        /// The schema file as named on the command line.
        path: PathBuf,
        /// The file's whole text.
        text: String,
    },
}

/// What one engine's header signals say about a block (see `sniff.rs`).
#[derive(Debug, Default)]
pub(crate) struct Evidence {
    /// Sum of the weights of the signals that hold.
    pub score: u32,
    /// The signals that hold, in a few words each.
    pub intact: Vec<&'static str>,
    /// The signals that are there but broken (damage), in a few words each.
    pub damaged: Vec<String>,
    /// A signal that alone settles the question held (Oracle: the OS header,
    /// the tail or the check value; PostgreSQL: pd_pagesize_version and the
    /// order of the header's offsets).
    pub decisive: bool,
}

impl Evidence {
    /// The signal `what`, of weight `weight`, holds.
    pub(crate) fn holds(&mut self, weight: u32, what: &'static str) {
        self.score += weight;
        self.intact.push(what);
    }
}

/// What one engine answers. Each engine implements it once, in its own file
/// of the seam; [`Engine`](crate::model::page::Engine)'s methods ask the
/// registry in `mod.rs` for the engine's implementation and forward.
pub(crate) trait EngineSpec: Sync {
    /// The name used on the command line and in JSON (`postgres`).
    fn name(&self) -> &'static str;
    /// The product's name in messages (`PostgreSQL`).
    fn product(&self) -> &'static str;
    /// What `--engine NAME` says in `--help`.
    fn help(&self) -> &'static str;
    /// What its blocks are called in messages (`PostgreSQL pages`).
    fn blocks_noun(&self) -> &'static str;
    /// What its block header is called (`a PostgreSQL page header`).
    fn header_noun(&self) -> &'static str;
    /// The block sizes it can be built with (each a power of two).
    fn block_sizes(&self) -> RangeInclusive<usize>;
    /// How its files hold a table's rows.
    fn row_storage(&self) -> RowStorage;
    /// A file's position in a relation gives its blocks' numbers.
    fn numbers_blocks_by_segment(&self) -> bool;
    /// Commit status is kept in a log apart from the blocks.
    fn has_commit_log(&self) -> bool;
    /// It has a dump text of its own (`--format dump`).
    fn has_dump_text(&self) -> bool;
    /// The score from which its signals say "a block header".
    fn header_score(&self) -> u32;
    /// Its header signals in `head`, a block at position `blkno`.
    fn evidence(&self, head: &[u8], blkno: u64) -> Evidence;
    /// Whether its signals alone may win against the engine read by
    /// default (the first of `Engine::ALL`): a score of at least
    /// [`header_score`](Self::header_score) or a decisive signal.
    fn may_win(&self, e: &Evidence) -> bool {
        e.score >= self.header_score() || e.decisive
    }
    /// The block size its first block announces, if plausible.
    fn block_size(&self, head: &[u8]) -> Option<usize>;
    /// Decode one block.
    fn parse(&self, bytes: &[u8], opts: &ParseOptions) -> Page;
    /// Block number of an input's first block.
    fn first_blkno(&self, blkno: Option<u64>, segment: Option<u64>, block_size: usize) -> u64;
    /// Whether block `index` must be decoded even outside the asked range.
    fn reads_ahead(&self, index: u64) -> bool;
    /// Whether its blocks, without a column list, decode independently of
    /// each other (so NDJSON can be produced in parallel).
    fn blocks_independent(&self) -> bool;
}
