//! What export's two engines share: the config, `--evidence`, and how a
//! closed output ends a run. A leaf below `export.rs` and `export/oracle.rs`.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::engine::Engine;
use crate::error::Error;
use crate::model::postgres::types::Schema;
use crate::model::postgres::verify::{Provenance, ProvenanceInput};
use crate::render::export::ExportFormat;

use crate::model::oracle::types::OraCharset;

use super::super::progress::ProgressMode;
use super::super::{report_error, BlockRange};
use super::wal_rows::WalTable;

/// Which tuple versions to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rows {
    /// What a query returns once every transaction ended (and the undecided).
    Visible,
    /// Removed by a committed DELETE.
    Deleted,
    /// Every tuple version, with its status.
    All,
}

/// How to write the rows.
#[derive(Clone, Debug)]
pub(crate) struct ExportOptions {
    /// The output format.
    pub(crate) format: ExportFormat,
    /// A header line first (COPY and CSV).
    pub(crate) header: bool,
    /// ctid, xmin, xmax before the columns.
    pub(crate) system_columns: bool,
    /// Which rows.
    pub(crate) rows: Rows,
    /// Page size; `None` reads it from the first page header.
    pub(crate) block_size: Option<usize>,
    /// `--evidence`: the provenance of the files read, on standard error.
    pub(crate) evidence: bool,
    /// `--strict`: a block whose checksum or header fails is skipped whole
    /// (otherwise its tuples that pass their own checks are written).
    pub(crate) strict: bool,
    /// `--blocks`: the relation's blocks to read.
    pub(crate) blocks: BlockRange,
    /// When to draw the progress bar.
    pub(crate) progress: ProgressMode,
    /// `--source-column`: a column `source` saying where each row version
    /// came from (`page`, or the LSN of the WAL record).
    pub(crate) source_column: bool,
    /// `--with-generated`: write the stored generated columns too.
    pub(crate) with_generated: bool,
}

/// A PostgreSQL table as export reads it: what the catalog lookup finds
/// (or the command line gives).
pub(crate) struct Relation {
    /// The main fork's segment files, in order (`N`, `N.1`, …).
    pub(crate) segments: Vec<PathBuf>,
    /// The table's attributes (dropped ones included, defaults of added ones).
    pub(crate) schema: Schema,
    /// The TOAST relation's segment files, if it has one.
    pub(crate) toast_segments: Option<Vec<PathBuf>>,
    /// The data directory whose pg_xact and pg_multixact decide commit status.
    pub(crate) data_dir: Option<PathBuf>,
    /// The name used in INSERT statements.
    pub(crate) table_name: String,
    /// `--wal`: the WAL to read row versions gone from the pages from.
    pub(crate) wal: Option<WalTable>,
}

/// What `export` was asked to do.
#[derive(Clone, Debug)]
pub(crate) struct ExportConfig {
    /// A relation file, a datafile, or with `table` a data directory.
    pub(crate) input: PathBuf,
    /// `--engine`; `None` detects from the first block.
    pub(crate) engine: Option<Engine>,
    /// `--columns LIST`.
    pub(crate) columns: Option<String>,
    /// `--schema FILE` (read once the engine is known).
    pub(crate) schema: Option<PathBuf>,
    /// `--table-name`: the name used in INSERT statements.
    pub(crate) table_name: Option<String>,
    /// `--table`: a table found in a data directory's catalogs.
    pub(crate) table: Option<String>,
    /// `--database` of `--table`.
    pub(crate) database: Option<String>,
    /// `--toast`: the TOAST relation's files.
    pub(crate) toast: Vec<PathBuf>,
    /// `--data-dir`: whose pg_xact and pg_multixact decide commit status.
    pub(crate) data_dir: Option<PathBuf>,
    /// `--blocks` was given (PostgreSQL only).
    pub(crate) blocks_given: bool,
    /// Oracle: `--object-id`.
    pub(crate) object_id: Option<u32>,
    /// Oracle: `--oracle-charset`.
    pub(crate) charset: OraCharset,
    /// `--wal`: WAL segments, a pg_wal or archive directory, or the data
    /// directory (its pg_wal).
    pub(crate) wal: Option<PathBuf>,
    /// How to write the rows.
    pub(crate) options: ExportOptions,
}

/// `--evidence` for one file: what it was when opened, and the SHA-256 of
/// exactly the bytes read from it, in order.
pub(crate) struct Evidence {
    hash: sha2::Sha256,
    input: ProvenanceInput,
}

impl Evidence {
    pub(crate) fn start(path: &Path, file: &File) -> Evidence {
        let meta = file.metadata().ok();
        Evidence {
            hash: sha2::Sha256::default(),
            input: ProvenanceInput {
                path: crate::verify::file_name(path),
                size: meta.as_ref().map_or(0, |m| m.len()),
                mtime: meta
                    .and_then(|m| m.modified().ok())
                    .map(crate::verify::rfc3339_utc),
                bytes_read: Some(0),
                ..ProvenanceInput::default()
            },
        }
    }

    pub(crate) fn read(&mut self, bytes: &[u8]) {
        use sha2::Digest;
        self.hash.update(bytes);
        self.input.bytes_read = self.input.bytes_read.map(|n| n + bytes.len() as u64);
    }

    pub(crate) fn finish(mut self) -> ProvenanceInput {
        use sha2::Digest;
        let sum = self.hash.finalize();
        self.input.sha256 = Some(sum.iter().map(|b| format!("{b:02x}")).collect());
        self.input
    }
}

/// `--evidence`: one line `{"provenance": …}` on standard error.
pub(crate) fn write_provenance(inputs: Vec<ProvenanceInput>) {
    let provenance = Provenance {
        blockscope: env!("CARGO_PKG_VERSION").to_string(),
        arguments: std::env::args_os()
            .skip(1)
            .map(|a| crate::verify::file_name(Path::new(&a)))
            .collect(),
        inputs,
    };
    let line = serde_json::json!({ "provenance": provenance });
    report_error(&format!("{line}\n"));
}

/// How an export whose standard output closed early (`| head`) ends:
/// quietly, with exit status 1 when something was already named as skipped
/// (a closed pipe never turns 1 into 0). Any other error stays an error.
pub(crate) fn output_closed(e: Error, skipped: bool) -> Result<ExitCode, Error> {
    if super::super::is_broken_pipe(&e) {
        Ok(ExitCode::from(u8::from(skipped)))
    } else {
        Err(e)
    }
}

/// Fill `buf` from `f` as far as the file goes; the number of bytes read.
pub(crate) fn read_full(f: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match f.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}
