//! The directory walker: `verify`'s inputs turned into the list of files
//! to check, in order. A file is taken as given; a directory is walked for
//! relation files (`16385`, `16385.1`, `16385_fsm`, `16385_vm`), a data
//! directory only in `base/`, `global/` and `pg_tblspc/`, a tablespace only
//! in its cluster's `PG_<major>_*` directories; every directory and file
//! once however many links lead to it. Whatever else is met is noted as
//! skipped, or is an unreadable target reported in its place.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::model::postgres::verify::Skipped;
use crate::source::{segment_from_name, RelationFileName};
use crate::verify::files::{file_name, io_error, is_block_device, special_kind, unreadable};

/// One input to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Target {
    File {
        path: PathBuf,
        segment: u64,
        /// Found in a directory walk, not named: read as raw pages only
        /// (a relation file is never a text dump), and a file that holds no
        /// page is one `not-pages` problem.
        walked: bool,
    },
    Stdin,
    /// An entry that could not even be looked at (permission denied, a
    /// dangling symbolic link, a loop, an unreadable directory): reported
    /// as a problem of class `io` in its place.
    Unreadable {
        path: PathBuf,
        reason: String,
    },
}

/// Inputs → files to check, in order; directories walked, non-relation
/// files noted; `segment`: `--segment`, for a single file.
/// A data directory's `global/pg_control` is noted in `control`.
pub(super) fn collect_targets(
    inputs: &[PathBuf],
    segment: Option<u64>,
    skipped: &mut Vec<Skipped>,
    control: &mut Option<PathBuf>,
) -> Result<Vec<Target>, Error> {
    let stdin_named = inputs.iter().any(|p| p.as_os_str() == "-");
    if inputs.is_empty() || stdin_named {
        if inputs.len() > 1 {
            return Err(Error::Usage(
                "standard input (-) cannot be verified together with other inputs".to_string(),
            ));
        }
        return Ok(vec![Target::Stdin]);
    }
    let mut targets = Vec::new();
    let mut seen = Seen::default();
    for input in inputs {
        let meta = match fs::metadata(input) {
            Ok(meta) => meta,
            // A name that does not exist at all is a mistake on the command
            // line; one that exists but cannot be read is a finding.
            Err(e) if fs::symlink_metadata(input).is_err() => {
                return Err(io_error(input)(e));
            }
            Err(e) => {
                targets.push(Target::Unreadable {
                    path: input.clone(),
                    reason: unreadable(input, &e),
                });
                continue;
            }
        };
        if meta.is_dir() {
            walk(input, &mut targets, skipped, control, &mut seen)?;
        } else if let Some(kind) = special_kind(&meta).filter(|_| !is_block_device(&meta)) {
            return Err(Error::Usage(format!(
                "{}: {kind}, not a relation file: verify reads regular files and block devices \
                 (give a stream on standard input, `-`, instead)",
                file_name(input)
            )));
        } else {
            let number = segment.or_else(|| segment_from_name(input)).unwrap_or(0);
            targets.push(Target::File {
                path: input.clone(),
                segment: number,
                walked: false,
            });
        }
    }
    if targets.is_empty() {
        return Err(Error::Usage(format!(
            "no relation files to verify ({} other files passed over)",
            skipped.len()
        )));
    }
    if segment.is_some() && (inputs.len() != 1 || targets.len() != 1) {
        return Err(Error::Usage(
            "--segment applies to a single relation file; give one file, or let the .N suffix of each name say"
                .to_string(),
        ));
    }
    Ok(targets)
}

/// Directories of a data directory that hold relation files.
const RELATION_DIRS: [&str; 3] = ["base", "global", "pg_tblspc"];

/// What the walk has visited: every directory and file by device and inode,
/// so that links (`d/a → .`, `d/b → .`, two names of one file) are followed
/// into each directory and to each file once.
#[derive(Default)]
struct Seen(std::collections::HashSet<(u64, u64)>);

impl Seen {
    /// True the first time `meta`'s file is met.
    fn first(&mut self, meta: &fs::Metadata) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            self.0.insert((meta.dev(), meta.ino()))
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            true
        }
    }
}

/// The names in `dir`, read without changing its access time; a directory
/// that cannot be read is an unreadable target, and `None`.
fn dir_names(dir: &Path, targets: &mut Vec<Target>) -> Option<Vec<std::ffi::OsString>> {
    match crate::source::read_dir_names(dir) {
        Ok(names) => Some(names),
        Err(e) => {
            targets.push(Target::Unreadable {
                path: dir.to_path_buf(),
                reason: format!("directory {}", unreadable(dir, &e)),
            });
            None
        }
    }
}

/// Walk `dir` for relation files. A data directory (it has `PG_VERSION` and
/// `base/`; `global/` may be lost, as in a partial copy) is only walked in its
/// relation directories — never into pg_xact, pg_multixact or pg_wal, whose
/// files are not pages — and its `global/pg_control` is noted in `control`
/// (the first one found).
fn walk(
    dir: &Path,
    targets: &mut Vec<Target>,
    skipped: &mut Vec<Skipped>,
    control: &mut Option<PathBuf>,
    seen: &mut Seen,
) -> Result<(), Error> {
    let is_data_dir = dir.join("PG_VERSION").is_file() && dir.join("base").is_dir();
    if is_data_dir {
        if let Ok(meta) = fs::metadata(dir) {
            // A link back to the data directory is not walked again.
            seen.first(&meta);
        }
        let pg_control = dir.join("global").join("pg_control");
        if control.is_none() && pg_control.is_file() {
            *control = Some(pg_control);
        }
        let major = major_version(dir);
        for sub in RELATION_DIRS {
            let d = dir.join(sub);
            if d.is_dir() {
                if sub == "pg_tblspc" {
                    walk_tablespaces(&d, major.as_deref(), targets, skipped, seen)?;
                } else {
                    walk_relations(&d, targets, skipped, seen)?;
                }
            }
        }
        return Ok(());
    }
    if dir.file_name().is_some_and(|n| n == "pg_tblspc") {
        let major = dir.parent().and_then(major_version);
        return walk_tablespaces(dir, major.as_deref(), targets, skipped, seen);
    }
    walk_relations(dir, targets, skipped, seen)
}

/// The major version in a data directory's PG_VERSION (`15`), read as a
/// regular file of at most a few bytes.
fn major_version(dir: &Path) -> Option<String> {
    let mut text = String::new();
    crate::source::open_regular(&dir.join("PG_VERSION"))
        .ok()?
        .take(16)
        .read_to_string(&mut text)
        .ok()?;
    let v = text.trim();
    (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')).then(|| v.to_string())
}

/// `pg_tblspc`: each entry is a link to a tablespace's location, of which
/// only the cluster's own `PG_<major>_<catversion>` directories hold its
/// relations; nothing else there is walked (a link to `/` must not walk the
/// machine). `major`: the cluster's, when PG_VERSION said; else any `PG_*`.
fn walk_tablespaces(
    dir: &Path,
    major: Option<&str>,
    targets: &mut Vec<Target>,
    skipped: &mut Vec<Skipped>,
    seen: &mut Seen,
) -> Result<(), Error> {
    let Some(mut names) = dir_names(dir, targets) else {
        return Ok(());
    };
    names.sort_by_key(|n| {
        let n = n.to_string_lossy().into_owned();
        (n.parse::<u64>().ok().is_none(), n.parse::<u64>().ok(), n)
    });
    let prefix = match major {
        Some(m) => format!("PG_{m}_"),
        None => "PG_".to_string(),
    };
    for name in names {
        let link = dir.join(&name);
        let meta = match fs::metadata(&link) {
            Ok(meta) => meta,
            Err(e) => {
                let reason = unreadable(&link, &e);
                targets.push(Target::Unreadable { path: link, reason });
                continue;
            }
        };
        if !meta.is_dir() {
            skipped.push(Skipped {
                file: file_name(&link),
                reason: "not a directory: not a tablespace".to_string(),
                bookkeeping: false,
            });
            continue;
        }
        if !seen.first(&meta) {
            skipped.push(Skipped {
                file: file_name(&link),
                reason: "a directory already walked (a link to it was followed before)".to_string(),
                bookkeeping: false,
            });
            continue;
        }
        let mut versions: Vec<PathBuf> = match crate::source::read_dir_names(&link) {
            Ok(names) => names
                .into_iter()
                .filter(|n| n.to_str().is_some_and(|n| n.starts_with(&prefix)))
                .map(|n| link.join(n))
                .filter(|p| p.is_dir())
                .collect(),
            Err(e) => {
                targets.push(Target::Unreadable {
                    path: link.clone(),
                    reason: format!("directory {}", unreadable(&link, &e)),
                });
                continue;
            }
        };
        if versions.is_empty() {
            skipped.push(Skipped {
                file: file_name(&link),
                reason: format!(
                    "no {prefix}* directory in it: not a tablespace of this cluster, not walked"
                ),
                bookkeeping: false,
            });
            continue;
        }
        versions.sort();
        for v in versions {
            walk_relations(&v, targets, skipped, seen)?;
        }
    }
    Ok(())
}

/// Every relation file under `dir` (following links, each directory and
/// file once), sorted by relfilenode, fork and segment; other files noted
/// as skipped. A relation file that is not a regular file (a FIFO, a
/// device) is an `io` problem: the relation's bytes are not there.
fn walk_relations(
    dir: &Path,
    targets: &mut Vec<Target>,
    skipped: &mut Vec<Skipped>,
    seen: &mut Seen,
) -> Result<(), Error> {
    if let Ok(meta) = fs::metadata(dir) {
        // The walk's first directory (later ones are marked when listed).
        seen.first(&meta);
    }
    let Some(mut names) = dir_names(dir, targets) else {
        return Ok(());
    };
    // Real entries before links, each group by name: of two names of one
    // file or directory, the link is the one passed over.
    names.sort_by_cached_key(|n| {
        let link = fs::symlink_metadata(dir.join(n)).is_ok_and(|m| m.file_type().is_symlink());
        (link, n.clone())
    });
    let mut entries = Entries::default();
    for name in names {
        entries.add(dir.join(&name), &name, skipped, seen);
    }
    let dirs = entries.into_targets(targets, skipped);
    for d in dirs {
        if d.file_name().is_some_and(|n| n == "pg_tblspc") {
            // A data directory reached through a link: its tablespaces too
            // are only followed into their version directories.
            let major = d.parent().and_then(major_version);
            walk_tablespaces(&d, major.as_deref(), targets, skipped, seen)?;
        } else {
            walk_relations(&d, targets, skipped, seen)?;
        }
    }
    Ok(())
}

/// The entries of one directory, sorted into what the walk does with them.
#[derive(Default)]
struct Entries {
    /// Relation files, to check.
    files: Vec<(RelationFileName, PathBuf)>,
    /// Directories, to walk after this one's files.
    dirs: Vec<PathBuf>,
    /// Regular files that are not relation files.
    others: Vec<PathBuf>,
    /// Neither file nor directory (FIFOs, devices, sockets), not named as
    /// a relation.
    special: Vec<(PathBuf, &'static str)>,
    /// Met before under another name (a link), and why that matters.
    again: Vec<(PathBuf, &'static str)>,
    /// Entries that could not be looked at, or relation names whose bytes
    /// are not a file's.
    unreadable: Vec<Target>,
}

impl Entries {
    /// Sort one entry, `path` (named `entry` in its directory), into its
    /// place; a temporary files directory is noted in `skipped` at once.
    fn add(
        &mut self,
        path: PathBuf,
        entry: &std::ffi::OsStr,
        skipped: &mut Vec<Skipped>,
        seen: &mut Seen,
    ) {
        let meta = match fs::metadata(&path) {
            Ok(meta) => meta,
            Err(e) => {
                let reason = unreadable(&path, &e);
                self.unreadable.push(Target::Unreadable { path, reason });
                return;
            }
        };
        let name = entry.to_string_lossy().into_owned();
        if let Some(kind) = special_kind(&meta) {
            if RelationFileName::parse(&name).is_some() {
                // Named as a relation, but its bytes are not a file's:
                // never opened (a FIFO would block, a device never end).
                self.unreadable.push(Target::Unreadable {
                    path,
                    reason: format!("not read: {kind}, not a regular file"),
                });
            } else {
                self.special.push((path, kind));
            }
        } else if !seen.first(&meta) {
            self.again.push((
                path,
                if meta.is_dir() {
                    "a directory already walked (a link to it was followed before)"
                } else {
                    "a file already listed under another name (a link to it)"
                },
            ));
        } else if meta.is_dir() {
            if name == "pgsql_tmp" {
                skipped.push(Skipped {
                    file: file_name(&path),
                    reason: "temporary files directory".to_string(),
                    bookkeeping: true,
                });
            } else {
                self.dirs.push(path);
            }
        } else if let Some(rel) = RelationFileName::parse(&name) {
            self.files.push((rel, path));
        } else {
            self.others.push(path);
        }
    }

    /// The relation files and unreadable entries onto `targets`, the
    /// others noted in `skipped`, each group sorted; the directories left
    /// to walk, in order (numeric names — database and tablespace OIDs —
    /// in numeric order).
    fn into_targets(
        mut self,
        targets: &mut Vec<Target>,
        skipped: &mut Vec<Skipped>,
    ) -> Vec<PathBuf> {
        self.files.sort();
        self.others.sort();
        self.special.sort();
        self.again.sort();
        self.unreadable.sort_by(|a, b| match (a, b) {
            (Target::Unreadable { path: a, .. }, Target::Unreadable { path: b, .. }) => a.cmp(b),
            _ => std::cmp::Ordering::Equal,
        });
        self.dirs.sort_by_key(|d| {
            let name = d.file_name().map(|n| n.to_string_lossy().into_owned());
            let num = name.as_deref().and_then(|n| n.parse::<u64>().ok());
            (num.is_none(), num, name)
        });
        for (rel, path) in self.files {
            targets.push(Target::File {
                path,
                segment: rel.segment.unwrap_or(0),
                walked: true,
            });
        }
        targets.extend(self.unreadable);
        let skip = |path: &Path, reason: String, bookkeeping| Skipped {
            file: file_name(path),
            reason,
            bookkeeping,
        };
        for (path, kind) in self.special {
            skipped.push(skip(
                &path,
                format!("{kind}, not a regular file: not opened"),
                false,
            ));
        }
        for (path, reason) in self.again {
            skipped.push(skip(&path, reason.to_string(), false));
        }
        for path in self.others {
            let (reason, bookkeeping) = other_file(&path);
            skipped.push(skip(&path, reason.to_string(), bookkeeping));
        }
        self.dirs
    }
}

/// Why a regular file that is not a relation file is passed over, and
/// whether it is PostgreSQL's own bookkeeping (noted only with `--verbose`).
fn other_file(path: &Path) -> (&'static str, bool) {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    match name.as_deref() {
        Some("pg_control") => (
            "the control file, not a relation (read for block size, segment size and checksums)",
            true,
        ),
        Some("PG_VERSION" | "pg_filenode.map" | "pg_internal.init") => (
            "PostgreSQL bookkeeping file, not a relation (pg_checksums skips it too)",
            true,
        ),
        Some(n) if is_temp_relation(n) => {
            ("temporary relation (pg_checksums skips these too)", true)
        }
        _ => ("not a relation file", false),
    }
}

/// `t3_16385`, `t3_16385.1`: a temporary relation of backend 3.
fn is_temp_relation(name: &str) -> bool {
    name.strip_prefix('t')
        .and_then(|rest| rest.split_once('_'))
        .is_some_and(|(backend, rel)| {
            !backend.is_empty()
                && backend.bytes().all(|b| b.is_ascii_digit())
                && RelationFileName::parse(rel).is_some()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Fork;

    #[test]
    fn temporary_relations_are_recognised() {
        assert!(is_temp_relation("t3_16385"));
        assert!(is_temp_relation("t12_16385_fsm.1"));
        assert!(!is_temp_relation("t_16385"));
        assert!(!is_temp_relation("16385"));
        assert!(!is_temp_relation("tx_1"));
    }

    #[test]
    fn fork_order_sorts_main_before_fsm_and_vm() {
        let mut names: Vec<RelationFileName> =
            ["16385_vm", "16385.1", "16385_fsm", "16385", "16384"]
                .iter()
                .filter_map(|n| RelationFileName::parse(n))
                .collect();
        names.sort();
        let forks: Vec<(u64, Fork, Option<u64>)> = names
            .iter()
            .map(|n| (n.relfilenode, n.fork, n.segment))
            .collect();
        assert_eq!(
            forks,
            vec![
                (16384, Fork::Main, None),
                (16385, Fork::Main, None),
                (16385, Fork::Main, Some(1)),
                (16385, Fork::Fsm, None),
                (16385, Fork::Vm, None),
            ]
        );
    }
}
