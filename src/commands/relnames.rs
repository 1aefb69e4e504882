//! The relation a file of a data directory belongs to, beside its path in
//! `verify`'s and `map`'s reports (`base/5/16384 (public.orders, main
//! fork)`). A file's path says which data directory, tablespace and
//! database it is in and its file number, fork and segment
//! ([`crate::cluster::relfile`]); that database's pg_class and
//! pg_namespace, read once per run ([`Cluster::relation_names`]), say the
//! name. A file outside a data directory, or one whose catalogs cannot be
//! read or do not name it, gets no name and no word: its lines are as they
//! were.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use crate::cluster::relfile::{rel_file, RelNames, GLOBAL_TABLESPACE};
use crate::cluster::Cluster;
use crate::model::map::BlockFigures;
use crate::model::postgres::verify::{RelationName, Skipped, VerifyProblem};
use crate::verify::Report;

/// One data directory's catalogs, read as files of it are named.
struct ClusterNames {
    cluster: Cluster,
    /// pg_database: (oid, dattablespace), read on first use.
    databases: Option<Vec<(u32, u32)>>,
    /// Each database's names, read once (`None`: its catalogs could not be read).
    loaded: HashMap<u32, Option<RelNames>>,
}

impl ClusterNames {
    fn databases(&mut self) -> &[(u32, u32)] {
        let cluster = &self.cluster;
        self.databases
            .get_or_insert_with(|| cluster.database_tablespaces())
    }

    /// Database `dboid`'s names, read on first use.
    fn load(&mut self, dboid: u32) -> Option<&RelNames> {
        if !self.loaded.contains_key(&dboid) {
            let tablespace = self
                .databases()
                .iter()
                .find(|d| d.0 == dboid)
                .map_or(crate::cluster::relfile::DEFAULT_TABLESPACE, |d| d.1);
            let names = self.cluster.relation_names(dboid, tablespace).ok();
            self.loaded.insert(dboid, names);
        }
        self.loaded.get(&dboid).and_then(Option::as_ref)
    }

    /// The name of (tablespace, file number) in database `dboid`; a shared
    /// relation (`global/`) through any database's pg_class: one already
    /// read (the lowest OID), else the first of pg_database (by OID) whose
    /// catalogs read.
    fn name(&mut self, tablespace: u32, dboid: u32, node: u32) -> Option<(String, Option<String>)> {
        let key = (tablespace, node);
        let found = if tablespace == GLOBAL_TABLESPACE {
            let read = self
                .loaded
                .iter()
                .filter_map(|(oid, n)| Some((oid, n.as_ref().filter(|n| !n.is_empty())?)))
                .min_by_key(|(oid, _)| **oid)
                .map(|(_, n)| n);
            match read {
                Some(names) => names.get(&key).cloned(),
                None => {
                    let oids: Vec<u32> = self.databases().iter().map(|d| d.0).collect();
                    oids.into_iter()
                        .find_map(|oid| {
                            self.load(oid)
                                .filter(|n| !n.is_empty())
                                .map(|n| n.get(&key).cloned())
                        })
                        .flatten()
                }
            }
        } else {
            self.load(dboid)?.get(&key).cloned()
        }?;
        Some((found.name, found.toast_of))
    }
}

/// Names files by their path, reading each data directory's catalogs once.
#[derive(Default)]
pub(crate) struct Namer {
    clusters: HashMap<PathBuf, Option<ClusterNames>>,
    /// The last file asked about and its answer (a file's problems come together).
    last: Option<(String, Option<RelationName>)>,
}

impl Namer {
    /// The relation `path` belongs to, when it is a relation file in a data
    /// directory whose catalogs name it.
    pub(crate) fn name(&mut self, path: &Path) -> Option<RelationName> {
        let place = rel_file(path)?;
        let entry = self
            .clusters
            .entry(place.datadir.clone())
            .or_insert_with(|| {
                if !place.datadir.join("PG_VERSION").is_file() {
                    return None;
                }
                Some(ClusterNames {
                    cluster: Cluster::open(&place.datadir).ok()?,
                    databases: None,
                    loaded: HashMap::new(),
                })
            });
        let (name, toast_of) =
            entry
                .as_mut()?
                .name(place.tablespace, place.dboid, place.filenode)?;
        Some(RelationName {
            name,
            fork: place.fork,
            segment: place.segment,
            toast_of,
        })
    }

    /// The relation of a file as verify prints it ([`crate::verify::file_name`]:
    /// escaped); a name that needed escaping is not looked up.
    pub(crate) fn name_printed(&mut self, file: &str) -> Option<RelationName> {
        if let Some((last, name)) = &self.last {
            if last == file {
                return name.clone();
            }
        }
        let name = if file == "-" || file.contains('\\') {
            None
        } else {
            self.name(Path::new(file))
        };
        self.last = Some((file.to_string(), name.clone()));
        name
    }
}

/// A report that names each problem's relation, then hands it on.
pub(crate) struct Naming<'a, R: ?Sized> {
    pub(crate) inner: &'a mut R,
    pub(crate) namer: &'a mut Namer,
}

impl<R: Report + ?Sized> Report for Naming<'_, R> {
    fn skipped(&mut self, skipped: &Skipped) -> io::Result<()> {
        self.inner.skipped(skipped)
    }

    fn problem(&mut self, problem: &VerifyProblem) -> io::Result<()> {
        if problem.relation.is_some() {
            return self.inner.problem(problem);
        }
        let mut named = problem.clone();
        named.relation = self.namer.name_printed(&problem.file);
        self.inner.problem(&named)
    }

    fn wants_blocks(&self) -> bool {
        self.inner.wants_blocks()
    }

    fn block(&mut self, figures: &BlockFigures) -> io::Result<()> {
        self.inner.block(figures)
    }

    fn started(&mut self, total_bytes: Option<u64>) {
        self.inner.started(total_bytes)
    }

    fn advanced(&mut self, bytes: u64) {
        self.inner.advanced(bytes)
    }
}
