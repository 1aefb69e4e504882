//! Where a relation file sits in a data directory, read from its path alone
//! (`DATADIR/base/DBOID/FILENODE[_FORK][.SEGMENT]`, `DATADIR/global/…`,
//! `DATADIR/pg_tblspc/TSOID/PG_MAJOR_CATVER/DBOID/…`), and the names of one
//! database's relations by file, as [`super::Cluster::relation_names`]
//! reads them from its catalogs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `DEFAULTTABLESPACE_OID` (pg_default) and `GLOBALTABLESPACE_OID` (pg_global).
pub(crate) const DEFAULT_TABLESPACE: u32 = 1663;
pub(crate) const GLOBAL_TABLESPACE: u32 = 1664;

/// A relation file's place in a data directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RelFile {
    /// The data directory (`.` when the path starts at `base/`).
    pub datadir: PathBuf,
    /// The tablespace: 1663 under `base/`, 1664 under `global/`, the OID
    /// under `pg_tblspc/`.
    pub tablespace: u32,
    /// The database's OID (0 under `global/`).
    pub dboid: u32,
    /// The file number (`relfilenode`, or the relation map's).
    pub filenode: u32,
    /// `main`, `fsm`, `vm` or `init`.
    pub fork: &'static str,
    /// The segment (`.N`; 0 without a suffix).
    pub segment: u64,
}

/// A number as PostgreSQL writes it in a file name: digits, no sign, no
/// leading zero.
fn number<T: std::str::FromStr + ToString>(text: &str) -> Option<T> {
    let n: T = text.parse().ok()?;
    (n.to_string() == text).then_some(n)
}

/// `FILENODE[_FORK][.SEGMENT]`: the file number, fork and segment.
pub(crate) fn file_name_parts(name: &str) -> Option<(u32, &'static str, u64)> {
    let (stem, segment) = match name.split_once('.') {
        Some((stem, seg)) => (stem, number::<u64>(seg).filter(|&s| s > 0)?),
        None => (name, 0),
    };
    let (node, fork) = match stem.split_once('_') {
        Some((node, "fsm")) => (node, "fsm"),
        Some((node, "vm")) => (node, "vm"),
        Some((node, "init")) => (node, "init"),
        Some(_) => return None,
        None => (stem, "main"),
    };
    let filenode = number::<u32>(node).filter(|&n| n != 0)?;
    Some((filenode, fork, segment))
}

/// The place of `path` in a data directory, when its path says it is a
/// relation file in one (the directory's PG_VERSION is not checked here).
pub(crate) fn rel_file(path: &Path) -> Option<RelFile> {
    let name = path.file_name()?.to_str()?;
    let (filenode, fork, segment) = file_name_parts(name)?;
    let dir = path.parent()?;
    let dir_name = dir.file_name()?.to_str()?;
    let up = dir.parent()?;
    let at = |p: &Path| {
        if p.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            p.to_path_buf()
        }
    };
    let file = |datadir, tablespace, dboid| RelFile {
        datadir,
        tablespace,
        dboid,
        filenode,
        fork,
        segment,
    };
    if dir_name == "global" {
        return Some(file(at(up), GLOBAL_TABLESPACE, 0));
    }
    let dboid = number::<u32>(dir_name).filter(|&n| n != 0)?;
    let up_name = up.file_name()?.to_str()?;
    if up_name == "base" {
        return Some(file(at(up.parent()?), DEFAULT_TABLESPACE, dboid));
    }
    if !up_name.starts_with("PG_") {
        return None;
    }
    let ts_dir = up.parent()?;
    let tablespace = number::<u32>(ts_dir.file_name()?.to_str()?)?;
    let tblspc = ts_dir.parent()?;
    if tblspc.file_name()? != "pg_tblspc" {
        return None;
    }
    Some(file(at(tblspc.parent()?), tablespace, dboid))
}

/// A relation as its catalogs name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Named {
    /// `nspname.relname`, escaped.
    pub name: String,
    /// A TOAST table's owner, `nspname.relname`, escaped.
    pub toast_of: Option<String>,
}

/// One database's relations by (tablespace, file number); shared relations
/// under [`GLOBAL_TABLESPACE`].
pub(crate) type RelNames = HashMap<(u32, u32), Named>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places() {
        let f = rel_file(Path::new("d/base/5/16384_fsm.2")).unwrap();
        assert_eq!(
            (
                f.datadir,
                f.tablespace,
                f.dboid,
                f.filenode,
                f.fork,
                f.segment
            ),
            (PathBuf::from("d"), 1663, 5, 16384, "fsm", 2)
        );
        let f = rel_file(Path::new("base/5/16384")).unwrap();
        assert_eq!(
            (f.datadir, f.fork, f.segment),
            (PathBuf::from("."), "main", 0)
        );
        let f = rel_file(Path::new("/x/global/1262_vm")).unwrap();
        assert_eq!(
            (f.datadir, f.tablespace, f.dboid),
            (PathBuf::from("/x"), 1664, 0)
        );
        let f = rel_file(Path::new("/x/pg_tblspc/16385/PG_15_202209061/5/16407.1")).unwrap();
        assert_eq!(
            (f.datadir, f.tablespace, f.dboid, f.segment),
            (PathBuf::from("/x"), 16385, 5, 1)
        );
        for bad in [
            "16384",
            "d/x/5/16384",
            "d/base/05/16384",
            "d/base/5/016384",
            "d/base/5/16384.0",
            "d/base/5/16384_x",
            "d/base/5/0",
            "d/base/5/pg_filenode.map",
            "/x/pg_tblspc/16385/other/5/1",
            "/x/other/16385/PG_15_1/5/1",
        ] {
            assert_eq!(rel_file(Path::new(bad)), None, "{bad}");
        }
    }
}
