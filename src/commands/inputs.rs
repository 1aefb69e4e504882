//! The files a command reads, found and checked before they are read: a
//! relation's further segments, a file handed over that is not pages at
//! all, a `--schema` file.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::cluster::TableInfo;
use crate::error::Error;
use crate::parse::postgres::schema::MAX_SCHEMA_TEXT;
use crate::source::RelationFileName;
use crate::verify;

use super::progress;

/// Segments looked for after a relation's first file: a relation of 32 TB
/// in 1 GiB segments has 32,768.
const MAX_SEGMENTS: u64 = 1 << 16;

/// A relation's further segment files (`N.1`, `N.2`…, as long as they
/// follow one another) when `input` is its first segment (`N`, `N_fsm`…);
/// none for any other file. `map` and `verify` read them after it.
pub(crate) fn further_segments(input: &Path) -> Vec<PathBuf> {
    let first_segment = input
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(RelationFileName::parse)
        .is_some_and(|r| r.segment.is_none());
    let mut segments = Vec::new();
    if first_segment && input.is_file() {
        for n in 1..MAX_SEGMENTS {
            let next = segment_path(input, n);
            if !next.is_file() {
                break;
            }
            segments.push(next);
        }
    }
    segments
}

fn segment_path(first: &Path, n: u64) -> PathBuf {
    let mut name = first.as_os_str().to_owned();
    name.push(format!(".{n}"));
    PathBuf::from(name)
}

/// Whether `path`, named on the command line of `verify` or `map` without
/// `--engine`, is a regular file that is not pages at all
/// ([`crate::engine::not_pages`]), as `show` decides it: exit 2 from all
/// three, whatever the file is named (a JPEG copied to `base/5/16384` too).
pub(crate) fn handed_not_pages(path: &std::path::Path, block_size: Option<usize>) -> bool {
    path.as_os_str() != "-" && path.is_file() && crate::engine::not_pages(path, block_size)
}

/// What `verify` and `map` say of a file handed over that is not pages.
pub(crate) fn not_pages_message(path: &std::path::Path) -> String {
    use crate::cluster::{cluster_file, ClusterFile};
    // A data directory's own files are not pages, but `show` reads them.
    let what = match cluster_file(path) {
        Some(Ok(ClusterFile::Control(_))) => "a pg_control file",
        Some(Ok(ClusterFile::RelMap(_))) => "a pg_filenode.map file",
        _ => "",
    };
    if !what.is_empty() {
        return format!(
            "{}: not pages: {what} (`blockscope show` reads it)",
            verify::file_name(path)
        );
    }
    format!(
        "{}: not pages: no block has a PostgreSQL page header or an Oracle cache header \
         (use --engine to check it anyway)",
        verify::file_name(path)
    )
}

/// A `--schema` file's text: refused when it is not a regular file (a FIFO
/// or device could block or never end) or larger than [`MAX_SCHEMA_TEXT`],
/// of which at most one byte more is read.
pub(crate) fn read_schema(path: &Path) -> Result<String, Error> {
    not_special("--schema", path)?;
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = Vec::new();
    crate::source::open_file(path)
        .and_then(|f| f.take(MAX_SCHEMA_TEXT + 1).read_to_end(&mut bytes))
        .map_err(io_error)?;
    if bytes.len() as u64 > MAX_SCHEMA_TEXT {
        return Err(Error::Usage(format!(
            "--schema {}: larger than {MAX_SCHEMA_TEXT} bytes: not a schema file \
             (1,600 columns take well under a megabyte)",
            crate::escape::path(path)
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        io_error(io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// Refuse a path that is a FIFO, a device or a socket before it is opened:
/// opening or reading one could block for ever. What cannot be looked at is
/// left to the open that follows (its error names the path).
pub(crate) fn not_special(option: &str, path: &Path) -> Result<(), Error> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    let kind = special_kind(&meta.file_type());
    match kind {
        Some(kind) => Err(Error::Usage(format!(
            "{option} {}: is a {kind}, not a regular file (it could block or never end)",
            crate::escape::path(path)
        ))),
        None => Ok(()),
    }
}

#[cfg(unix)]
fn special_kind(t: &std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        Some("FIFO")
    } else if t.is_char_device() {
        Some("character device")
    } else if t.is_block_device() {
        Some("block device")
    } else if t.is_socket() {
        Some("socket")
    } else {
        None
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> Option<&'static str> {
    None
}

/// `blockscope: note: DATADIR: SCHEMA.NAME in database DB (oid N): PostgreSQL
/// M, file F` — the head of the note a `--table` lookup gives (the caller
/// ends the line, or adds to it).
pub(crate) fn table_found_note(
    datadir: &Path,
    info: &TableInfo,
    database: &str,
    major: u32,
) -> String {
    format!(
        "blockscope: note: {}: {}.{} in database {} (oid {}): PostgreSQL {}, file {}",
        crate::escape::path(datadir),
        crate::escape::name(&info.schema_name),
        crate::escape::name(&info.name),
        crate::escape::name(database),
        info.oid,
        major,
        info.main_segments.first().map_or_else(
            || "(none)".to_string(),
            |p| crate::escape::path(p).to_string()
        ),
    )
}

/// What a `--table` lookup left to say, on standard error: its notes
/// (`blockscope: note: DATADIR: …`, unless `--quiet`) and the catalog damage
/// it met (`blockscope: warning: DATADIR: …`, always).
pub(crate) fn table_lookup_notes<'a>(
    datadir: &Path,
    notes: impl IntoIterator<Item = &'a String>,
    info: &TableInfo,
) {
    let at = crate::escape::path(datadir);
    for n in notes {
        progress::note(&format!("blockscope: note: {at}: {n}\n"));
    }
    if let Some(e) = &info.elsewhere {
        let n = super::lookup::elsewhere_note(e);
        progress::note(&format!("blockscope: note: {at}: {n}\n"));
    }
    for u in info.damage() {
        progress::report(&format!("blockscope: warning: {at}: {u}\n"));
    }
}
