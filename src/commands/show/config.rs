//! What `show` was asked to do: the typed config the command line builds
//! from the arguments (`diff` reads its inputs with one too).

use std::path::PathBuf;

use crate::engine::{ColumnSpec, Engine};
use crate::input::InputFormat;
use crate::model::oracle::types::OraCharset;
use crate::model::postgres::PageKind;
use crate::reader::Endian;
use crate::render::Options;

use crate::commands::BlockRange;

/// What `show` was asked to do.
#[derive(Clone, Debug)]
pub(crate) struct ShowConfig {
    /// The input; `None` (or `-`) is standard input.
    pub input: Option<PathBuf>,
    /// Every input given (`show` shows several one after the other).
    pub inputs: Vec<PathBuf>,
    pub input_format: InputFormat,
    /// `--engine`; `None` detects from the first block.
    pub engine: Option<Engine>,
    pub kind: Option<PageKind>,
    pub range: BlockRange,
    pub block_size: Option<usize>,
    pub segment: Option<u64>,
    pub blkno: Option<u64>,
    /// Format, presentation and dump options for [`crate::render::page`].
    pub output: Options,
    pub columns: Option<ColumnSpec>,
    pub toast: Vec<PathBuf>,
    pub charset: OraCharset,
    /// Byte order of a trace's hex words; `None` detects.
    pub endian: Option<Endian>,
    /// `--table` and `--database`: a table found in a data directory's catalogs.
    pub table: Option<TableSpec>,
    /// `--evidence`: each input's provenance after its blocks.
    pub evidence: bool,
    /// `--data-dir`: whose pg_xact answers commit status (PostgreSQL).
    pub data_dir: Option<PathBuf>,
    /// The path whose file name says where the input's blocks sit in a
    /// relation (a `.N` segment suffix; a relation file's name makes the
    /// block numbers known); `None`: the input's own. `diff` gives both
    /// sides the same one, so only their bytes can make them differ.
    pub position_name: Option<PathBuf>,
}

/// `show DATADIR --table SCHEMA.NAME [--database NAME]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TableSpec {
    /// `SCHEMA.NAME` as given.
    pub name: String,
    /// The database given (default: `postgres`, then wherever the table
    /// alone is).
    pub database: Option<String>,
}

impl ShowConfig {
    /// What to call the input in messages: the path, or `-`.
    pub(crate) fn input_name(&self) -> String {
        self.input
            .as_ref()
            .map_or("-".to_string(), |p| crate::escape::path(p).to_string())
    }
}
