//! PostgreSQL's data directory read offline, below the commands and beside
//! the engine seam (it imports neither): its version, pg_control, relation
//! maps and the catalogs that say where a table's files are and what its
//! columns are; `xact.rs` for pg_xact and pg_multixact, `toast.rs` for a
//! TOAST relation's files. Files are found and read here; their bytes are
//! decoded by `parse::postgres::{control, relmap, catalog, clog, toast}`.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) mod relfile;
pub(crate) mod toast;
pub(crate) mod xact;

use crate::model::postgres::cluster::{ControlFileImage, RelMapFile};
use crate::model::postgres::types::{CatalogNames, Column, PgType, Schema};
use crate::parse::postgres::catalog::{
    catalog_schema, coll_name, column_from_attribute, one_per_key, oper_name, page_rows, proc_name,
    ts_name, two_versions, Catalog, CatalogRead, CatalogRow, TypeCatalog, TypeRow, Unreadable,
    ACLITEM_OID, MAJORS,
};
use crate::parse::postgres::control::{crc_mismatch, parse_control_image};
use crate::parse::postgres::regnames;
use crate::parse::postgres::relmap::parse_relmap;
use crate::parse::postgres::schema::parse_columns;
use crate::source::open_regular as open_file;
use relfile::{Named, RelNames, DEFAULT_TABLESPACE, GLOBAL_TABLESPACE};
use xact::XactLog;

/// Segment files a relation may have (32 TB at 1 GiB segments and 8 KB blocks).
const MAX_SEGMENTS: u32 = 32 * 1024;
/// Bytes read of one catalog: far more than any real catalog (a database
/// with a million columns has a pg_attribute of about 150 MB).
const MAX_CATALOG_BYTES: u64 = 1 << 30;

/// Why a data directory or a table in it could not be read.
#[derive(Debug)]
pub(crate) enum ClusterError {
    /// A file could not be opened or read.
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The directory is not a data directory this reader can read.
    NotACluster(String),
    /// A catalog could not be read well enough to answer.
    Catalog(String),
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::Io { path, source } => {
                write!(f, "{}: {source}", crate::escape::path(path))
            }
            ClusterError::NotACluster(m) | ClusterError::Catalog(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ClusterError {}

/// Why a table was not found ([`Cluster::find_table`]): the data directory
/// could not be read, or its catalogs do not lead to the table.
#[derive(Debug)]
pub(crate) enum LookupError {
    /// The data directory or a catalog could not be read.
    Cluster(ClusterError),
    /// The database, schema or table is not in the catalogs: what they say,
    /// in order, facts as text and what to do next as [`Advice`] (worded by
    /// the commands, which know the command line).
    NotFound(Vec<Said>),
}

impl From<ClusterError> for LookupError {
    fn from(e: ClusterError) -> Self {
        LookupError::Cluster(e)
    }
}

/// One piece of a [`LookupError::NotFound`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Said {
    /// What the catalogs say (or do not).
    Text(String),
    /// What the user can do next, as the facts it needs.
    Advice(Advice),
}

/// What the user can do when a lookup fails, with the facts to say it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Advice {
    /// Database directories that no readable pg_database row names: read
    /// one of them by its OID.
    DatabaseOid,
    /// The table is in another database: `name` when in one alone.
    Database {
        /// The one database that has it (`None`: several).
        name: Option<String>,
    },
    /// The table's OID is unknown: its file is somewhere under the
    /// database's directory, its columns to be given by hand.
    FindFile {
        /// `pg_database.oid`, the directory `base/OID`.
        dboid: u32,
    },
    /// The table can be exported by its file.
    ExportByFile {
        /// `schema.name`.
        qualified: String,
        /// Its main fork's first file.
        file: PathBuf,
        /// Its TOAST relation's file, if it has one.
        toast: Option<PathBuf>,
        /// Its columns as a `--columns` list (an unreadable column as
        /// `<…>`: see [`ColumnsUnread::hint_list`]).
        columns: String,
        /// Why not every column was readable, when one was not.
        unread: Option<Vec<String>>,
    },
    /// `--table` was not a schema-qualified or plain name.
    TableName {
        /// The name as given.
        given: String,
    },
}

impl From<ClusterError> for crate::error::Error {
    fn from(e: ClusterError) -> Self {
        match e {
            ClusterError::Io { path, source } => crate::error::Error::Io { path, source },
            other => crate::error::Error::Usage(other.to_string()),
        }
    }
}

/// A table found through the catalogs: its files and its columns.
#[derive(Clone, Debug)]
pub(crate) struct TableInfo {
    /// `pg_database.oid` of the table's database.
    #[allow(dead_code)]
    pub database_oid: u32,
    /// `pg_class.oid`.
    pub oid: u32,
    /// The main fork's file number (pg_class.relfilenode, or the relation map's).
    #[allow(dead_code)]
    pub relfilenode: u32,
    /// `pg_namespace.nspname`.
    pub schema_name: String,
    /// `pg_class.relname`.
    pub name: String,
    /// `pg_class.relkind`: `r` table, `t` TOAST table, `m` materialized
    /// view, `i` index.
    pub relkind: char,
    /// The main fork's segment files, `N`, `N.1`, … in order.
    pub main_segments: Vec<PathBuf>,
    /// The columns in attnum order; dropped columns kept (as dropped), so
    /// tuples decode; `atthasmissing` defaults carried. `Err` when a
    /// pg_attribute row of the table (or a pg_type row of a column's type)
    /// could not be read: what was read, and which catalog rows were not.
    pub columns: Result<Schema, Box<ColumnsUnread>>,
    /// The TOAST relation's main fork segments (through reltoastrelid).
    pub toast_segments: Option<Vec<PathBuf>>,
    /// What could not be read or is worth knowing (catalog rows skipped…).
    pub notes: Vec<String>,
    /// Found, with no database given, not in `postgres` but in one other
    /// database alone, and read from there (a note after [`Self::notes`]).
    pub elsewhere: Option<FoundElsewhere>,
    /// Every catalog page and row that could not be read (all-zero pages
    /// included, marked as such).
    pub unreadable: Vec<Unreadable>,
}

/// A table found in another database than the one looked in first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FoundElsewhere {
    /// The table's name as given.
    pub qualified: String,
    /// The database it was found in.
    pub database: String,
}

impl TableInfo {
    /// Whether a catalog page or row could not be read (an all-zero page
    /// does not count: a relation extended before a crash leaves them).
    pub(crate) fn catalog_damaged(&self) -> bool {
        self.unreadable.iter().any(|u| !u.benign)
    }

    /// The catalog pages and rows that could not be read because they are damaged.
    pub(crate) fn damage(&self) -> impl Iterator<Item = &Unreadable> {
        self.unreadable.iter().filter(|u| !u.benign)
    }
}

/// A data directory.
pub(crate) struct Cluster {
    datadir: PathBuf,
    /// PG_VERSION's text (`15`, `9.6`).
    version: String,
    major: u32,
    block_size: usize,
    /// Blocks per segment file (RELSEG_SIZE).
    relseg_size: u64,
    control: Option<ControlFileImage>,
    global_map: Option<RelMapFile>,
    /// pg_xact and pg_multixact: catalog rows whose hint bits are unset are
    /// decided by them, as export decides a table's rows.
    xact: Option<XactLog>,
    /// What was found wrong while opening (pg_control, the shared map).
    pub(crate) notes: Vec<String>,
}

/// Read one block, or what is left of the file when less: the bytes read.
fn read_block(file: &mut std::fs::File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Read a whole small file.
fn read_small(path: &Path, limit: u64) -> Result<Vec<u8>, ClusterError> {
    let io_err = |source| ClusterError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut buf = Vec::new();
    open_file(path)
        .map_err(io_err)?
        .take(limit)
        .read_to_end(&mut buf)
        .map_err(io_err)?;
    Ok(buf)
}

impl Cluster {
    /// Open a data directory: PG_VERSION, global/pg_control and
    /// global/pg_filenode.map. A damaged pg_control or shared map is a note
    /// (block size 8192 and initdb's file numbers are assumed), a missing
    /// PG_VERSION or a major outside 10–18 an error.
    pub(crate) fn open(datadir: &Path) -> Result<Cluster, ClusterError> {
        let version_path = datadir.join("PG_VERSION");
        if !version_path.is_file() {
            return Err(ClusterError::NotACluster(format!(
                "{}: not a PostgreSQL data directory (no PG_VERSION)",
                crate::escape::path(datadir)
            )));
        }
        let version = String::from_utf8_lossy(&read_small(&version_path, 64)?)
            .trim()
            .to_string();
        let major: u32 = version
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .ok_or_else(|| {
                ClusterError::NotACluster(format!(
                    "{}: PG_VERSION says {version:?}, not a major version",
                    crate::escape::path(&version_path)
                ))
            })?;
        if !(MAJORS.0..=MAJORS.1).contains(&major) {
            return Err(ClusterError::NotACluster(format!(
                "{}: PostgreSQL {version}: catalogs are read for {} through {}",
                crate::escape::path(datadir),
                MAJORS.0,
                MAJORS.1
            )));
        }
        let mut notes = Vec::new();
        let control_path = datadir.join("global/pg_control");
        let control = match read_small(&control_path, 8192).map(|b| parse_control_image(&b)) {
            Ok(Ok(image)) => {
                if !image.crc_ok {
                    notes.push(format!(
                        "{}: {}; its block size is used anyway",
                        crate::escape::path(&control_path),
                        crc_mismatch(&image)
                    ));
                }
                Some(image)
            }
            Ok(Err(e)) => {
                notes.push(format!(
                    "{}: {e}; block size 8192 assumed",
                    crate::escape::path(&control_path)
                ));
                None
            }
            Err(e) => {
                notes.push(format!("{e}; block size 8192 assumed"));
                None
            }
        };
        let (block_size, relseg_size) = match &control {
            Some(c)
                if c.control.blcksz.is_power_of_two()
                    && (1024..=32768).contains(&c.control.blcksz) =>
            {
                (
                    c.control.blcksz as usize,
                    u64::from(c.control.relseg_size.max(1)),
                )
            }
            _ => (8192, 131_072),
        };
        let map_path = datadir.join("global/pg_filenode.map");
        let global_map = read_map(&map_path, &mut notes);
        let xact = XactLog::open(datadir, block_size);
        Ok(Cluster {
            datadir: datadir.to_path_buf(),
            version,
            major,
            block_size,
            relseg_size,
            control,
            global_map,
            xact,
            notes,
        })
    }

    /// The major version (PG_VERSION).
    pub(crate) fn major(&self) -> u32 {
        self.major
    }

    /// BLCKSZ (pg_control's, else 8192).
    pub(crate) fn block_size(&self) -> usize {
        self.block_size
    }

    /// The control file, when it could be read.
    #[allow(dead_code)]
    pub(crate) fn control(&self) -> Option<&ControlFileImage> {
        self.control.as_ref()
    }

    /// Whether the cluster has data checksums: unless a pg_control whose
    /// CRC is right says `data_checksum_version` 0, a page's non-zero
    /// `pd_checksum` is checked.
    pub(crate) fn checksums(&self) -> bool {
        !self
            .control
            .as_ref()
            .is_some_and(|c| c.crc_ok && c.control.data_checksum_version == 0)
    }

    /// The directory holding a database's files in a tablespace.
    fn database_dir(&self, tablespace: u32, dboid: u32) -> PathBuf {
        match tablespace {
            0 | DEFAULT_TABLESPACE => self.datadir.join("base").join(dboid.to_string()),
            GLOBAL_TABLESPACE => self.datadir.join("global"),
            ts => {
                let catver = self
                    .control
                    .as_ref()
                    .map_or(0, |c| c.control.catalog_version_no);
                self.datadir
                    .join("pg_tblspc")
                    .join(ts.to_string())
                    .join(format!("PG_{}_{catver}", self.version))
                    .join(dboid.to_string())
            }
        }
    }

    /// The segment files of a relation's main fork that exist: `N`, `N.1`…
    fn segments(&self, dir: &Path, filenode: u32) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for seg in 0..MAX_SEGMENTS {
            let name = if seg == 0 {
                filenode.to_string()
            } else {
                format!("{filenode}.{seg}")
            };
            let path = dir.join(name);
            if !path.is_file() {
                break;
            }
            out.push(path);
        }
        out
    }

    /// The live rows of a catalog relation stored in `dir/filenode`, block
    /// by block: a block that cannot be read (an I/O error, a damaged page, a
    /// checksum mismatch) or a row that does not decode goes to `unreadable`
    /// and the rest is still read.
    fn read_catalog(
        &self,
        catalog: Catalog,
        dir: &Path,
        filenode: u32,
        notes: &mut Vec<String>,
        unreadable: &mut Vec<Unreadable>,
    ) -> Result<Vec<CatalogRow>, ClusterError> {
        self.read_catalog_where(catalog, dir, filenode, notes, unreadable, &mut |_| true)
    }

    /// [`Cluster::read_catalog`], keeping only the rows `keep` says yes to
    /// (asked of each row as it is read, before it is stored: a pass holds
    /// one page of the rest at most).
    fn read_catalog_where(
        &self,
        catalog: Catalog,
        dir: &Path,
        filenode: u32,
        notes: &mut Vec<String>,
        unreadable: &mut Vec<Unreadable>,
        keep: &mut dyn FnMut(&CatalogRow) -> bool,
    ) -> Result<Vec<CatalogRow>, ClusterError> {
        let schema = catalog_schema(catalog, self.major).ok_or_else(|| {
            ClusterError::Catalog(format!(
                "no {} layout for PostgreSQL {}",
                catalog.name(),
                self.major
            ))
        })?;
        let segments = self.segments(dir, filenode);
        if segments.is_empty() {
            return Err(ClusterError::Catalog(format!(
                "{}: file {} of {} is missing",
                crate::escape::path(dir),
                filenode,
                catalog.name()
            )));
        }
        let read = CatalogRead {
            log: self
                .xact
                .as_ref()
                .map(|l| l as &dyn crate::parse::postgres::visibility::XactLookup),
            checksums: self.checksums(),
        };
        let mut guessed = 0;
        let mut rows = Vec::new();
        let mut page_rows_read = Vec::new();
        let mut total = 0u64;
        let mut page = vec![0u8; self.block_size];
        for (segno, path) in segments.iter().enumerate() {
            let mut file = open_file(path).map_err(|source| ClusterError::Io {
                path: path.clone(),
                source,
            })?;
            for i in 0u64.. {
                let blkno = segno as u64 * self.relseg_size + i;
                if total >= MAX_CATALOG_BYTES {
                    notes.push(format!(
                        "{}: {} is larger than {MAX_CATALOG_BYTES} bytes; the rest is not read",
                        crate::escape::path(path),
                        catalog.name()
                    ));
                    break;
                }
                match read_block(&mut file, &mut page) {
                    Ok(0) => break,
                    Ok(n) if n < page.len() => {
                        unreadable.push(Unreadable {
                            catalog,
                            blkno,
                            lp: None,
                            key: Vec::new(),
                            reason: format!(
                                "{}: the file ends {n} bytes into the block (truncated); \
                                 that part is not read",
                                crate::escape::path(path)
                            ),
                            benign: false,
                        });
                        break;
                    }
                    Ok(n) => total += n as u64,
                    Err(e) => {
                        unreadable.push(Unreadable {
                            catalog,
                            blkno,
                            lp: None,
                            key: Vec::new(),
                            reason: format!(
                                "{}: {e}; its rows are not read",
                                crate::escape::path(path)
                            ),
                            benign: false,
                        });
                        // Past the block that could not be read.
                        let next = (i + 1) * self.block_size as u64;
                        if file.seek(SeekFrom::Start(next)).is_err() {
                            break;
                        }
                        total += self.block_size as u64;
                        continue;
                    }
                }
                guessed += page_rows(
                    catalog,
                    &schema,
                    blkno,
                    &page,
                    read,
                    &mut page_rows_read,
                    unreadable,
                );
                rows.extend(page_rows_read.drain(..).filter(|r| keep(r)));
            }
        }
        if guessed > 0 && self.xact.is_some() {
            // (Without any pg_xact the rule is the documented one, and
            // export's own note says there is no pg_xact.)
            notes.push(format!(
                "{}: {guessed} row versions with unset hint bits whose transactions pg_xact \
                 does not cover: an insert taken as committed, a delete or update as \
                 committed too (the last DDL before a clean shutdown leaves such rows)",
                catalog.name(),
            ));
        }
        Ok(rows)
    }

    /// A mapped catalog's file number: the map's, else its OID (initdb's) with a note.
    fn mapped(
        map: Option<&RelMapFile>,
        catalog: Catalog,
        what: &str,
        notes: &mut Vec<String>,
    ) -> u32 {
        match map.and_then(|m| m.filenumber(catalog.oid())) {
            Some(f) => f,
            None => {
                notes.push(format!(
                    "{what} has no entry for {}; its initdb file number {} is tried",
                    catalog.name(),
                    catalog.oid()
                ));
                catalog.oid()
            }
        }
    }

    /// The live rows of pg_database (what could not be read goes to `unreadable`).
    pub(crate) fn databases(
        &self,
        notes: &mut Vec<String>,
        unreadable: &mut Vec<Unreadable>,
    ) -> Result<Vec<CatalogRow>, ClusterError> {
        let filenode = Self::mapped(
            self.global_map.as_ref(),
            Catalog::Database,
            "global/pg_filenode.map",
            notes,
        );
        let rows = self.read_catalog(
            Catalog::Database,
            &self.datadir.join("global"),
            filenode,
            notes,
            unreadable,
        )?;
        Ok(one_per_key(
            Catalog::Database,
            rows,
            |r| r.oid("oid"),
            notes,
        ))
    }

    /// Role names by OID from pg_authid; when it cannot be read, a note and
    /// no names (roles then print as their OIDs, as `aclitemout` prints a
    /// role it does not find).
    fn roles(
        &self,
        notes: &mut Vec<String>,
        unreadable: &mut Vec<Unreadable>,
    ) -> HashMap<u32, String> {
        let filenode = Self::mapped(
            self.global_map.as_ref(),
            Catalog::Authid,
            "global/pg_filenode.map",
            notes,
        );
        let rows = match self.read_catalog(
            Catalog::Authid,
            &self.datadir.join("global"),
            filenode,
            notes,
            unreadable,
        ) {
            Ok(rows) => rows,
            Err(e) => {
                notes.push(format!("{e}; roles in aclitem values are shown as OIDs"));
                return HashMap::new();
            }
        };
        one_per_key(Catalog::Authid, rows, |r| r.oid("oid"), notes)
            .iter()
            .filter_map(|r| Some((r.oid("oid")?, r.text("rolname")?.to_string())))
            .collect()
    }

    /// The database directories under base/ that no readable pg_database row names.
    fn unnamed_database_dirs(&self, dbs: &[CatalogRow]) -> Vec<u32> {
        let known: HashSet<u32> = dbs.iter().filter_map(|r| r.oid("oid")).collect();
        let base = self.datadir.join("base");
        let mut out: Vec<u32> = crate::source::read_dir_names(&base)
            .into_iter()
            .flatten()
            .filter(|name| base.join(name).is_dir())
            .filter_map(|name| name.to_str()?.parse::<u32>().ok())
            .filter(|oid| !known.contains(oid))
            .take(100)
            .collect();
        out.sort_unstable();
        out
    }

    /// Find `qualified_name` (`schema.table`, or `table` in `public`; double
    /// quotes keep dots and case) in `database` (its name; or its OID, when
    /// no readable pg_database row has that name and `base/OID` exists).
    ///
    /// The catalogs are salvaged: a page or row that cannot be read is
    /// skipped, kept in [`TableInfo::unreadable`], and the rest is read. When
    /// the table's pg_class row is readable but its columns are not (a
    /// pg_attribute row, or the pg_type row of a column's type), the table
    /// is still returned, its `columns` saying what was read and what not.
    /// When the database's, schema's or table's own row is not readable, the
    /// error names the unreadable pages and rows and what other catalogs
    /// still say of the table.
    pub(crate) fn find_table(
        &self,
        database: &str,
        qualified_name: &str,
    ) -> Result<TableInfo, LookupError> {
        let (schema_name, name) = split_qualified(qualified_name)?;
        let mut notes = self.notes.clone();
        let mut bad: Vec<Unreadable> = Vec::new();
        let dbs = self.databases(&mut notes, &mut bad)?;
        let db_row = dbs.iter().find(|r| r.text("datname") == Some(database));
        let encoding = db_row
            .and_then(|db| db.num("encoding"))
            .and_then(|e| i32::try_from(e).ok());
        let (dboid, db_tablespace) = match db_row {
            Some(db) => (
                db.oid("oid").ok_or_else(|| {
                    ClusterError::Catalog(format!("pg_database {}: no oid", db.place()))
                })?,
                db.oid("dattablespace").unwrap_or(DEFAULT_TABLESPACE),
            ),
            None => {
                let unnamed = self.unnamed_database_dirs(&dbs);
                match database.parse::<u32>() {
                    Ok(oid) if self.datadir.join("base").join(database).is_dir() => {
                        notes.push(format!(
                            "no readable pg_database row is named {database:?}; \
                             base/{oid} is read as database {oid}"
                        ));
                        (oid, DEFAULT_TABLESPACE)
                    }
                    _ => {
                        let names: Vec<&str> =
                            dbs.iter().filter_map(|r| r.text("datname")).collect();
                        let mut msg = format!(
                            "database {database:?} is not in pg_database (it has: {})",
                            names.join(", ")
                        );
                        if damaged(&bad, Catalog::Database) {
                            msg.push_str(&format!(
                                "\n{}\nthe database's row may have been there",
                                list_unreadable(&bad, Catalog::Database)
                            ));
                            if !unnamed.is_empty() {
                                let dirs: Vec<String> =
                                    unnamed.iter().map(|o| format!("base/{o}")).collect();
                                msg.push_str(&format!(
                                    "\nno readable row names the database directories {}",
                                    dirs.join(", ")
                                ));
                                return Err(LookupError::NotFound(vec![
                                    Said::Text(msg),
                                    Said::Advice(Advice::DatabaseOid),
                                ]));
                            }
                        }
                        return Err(LookupError::NotFound(vec![Said::Text(msg)]));
                    }
                }
            }
        };
        let db_dir = self.database_dir(db_tablespace, dboid);
        let map_path = db_dir.join("pg_filenode.map");
        let db_map = read_map(&map_path, &mut notes);
        let what = crate::escape::path(&map_path).to_string();
        let class_node = Self::mapped(db_map.as_ref(), Catalog::Class, &what, &mut notes);
        let class_rows =
            self.read_catalog(Catalog::Class, &db_dir, class_node, &mut notes, &mut bad)?;
        let classes = one_per_key(Catalog::Class, class_rows, |r| r.oid("oid"), &mut notes);
        let by_oid: HashMap<u32, &CatalogRow> = classes
            .iter()
            .filter_map(|r| Some((r.oid("oid")?, r)))
            .collect();
        let mut lookup = Lookup {
            cluster: self,
            dboid,
            db_tablespace,
            db_dir: db_dir.clone(),
            db_map: db_map.as_ref(),
            by_oid: &by_oid,
            namespaces: HashMap::new(),
            encoding,
            catalogs: None,
            notes: &mut notes,
            bad: &mut bad,
        };

        // pg_namespace is not mapped: its file is in its pg_class row.
        let ns_node = unmapped_node(&by_oid, Catalog::Namespace, lookup.notes);
        let ns_rows = self.read_catalog(
            Catalog::Namespace,
            &db_dir,
            ns_node,
            lookup.notes,
            lookup.bad,
        )?;
        let namespaces = one_per_key(Catalog::Namespace, ns_rows, |r| r.oid("oid"), lookup.notes);
        lookup.namespaces = namespaces
            .iter()
            .filter_map(|r| Some((r.oid("oid")?, r.text("nspname")?.to_string())))
            .collect();
        let Some(nsp) = namespaces
            .iter()
            .find(|r| r.text("nspname") == Some(schema_name.as_str()))
            .and_then(|r| r.oid("oid"))
        else {
            let mut msg =
                format!("schema {schema_name:?} is not in pg_namespace of database {database:?}");
            let mut said = Vec::new();
            if damaged(lookup.bad, Catalog::Namespace) {
                msg.push_str(&format!(
                    "\n{}\nthe schema's row may have been there",
                    list_unreadable(lookup.bad, Catalog::Namespace)
                ));
                let known: HashSet<u32> = namespaces.iter().filter_map(|r| r.oid("oid")).collect();
                for rel in classes.iter().filter(|r| {
                    r.text("relname") == Some(name.as_str())
                        && r.oid("relnamespace").is_some_and(|n| !known.contains(&n))
                }) {
                    msg.push_str(&format!(
                        "\npg_class has a relation {name} (oid {}) in namespace {}, whose \
                         pg_namespace row is unreadable",
                        rel.oid("oid").unwrap_or(0),
                        rel.oid("relnamespace").unwrap_or(0),
                    ));
                    if let Some(advice) =
                        lookup.by_file_advice(rel, &format!("{schema_name}.{name}"))
                    {
                        said.push(Said::Text(std::mem::take(&mut msg)));
                        said.push(Said::Advice(advice));
                    }
                }
            }
            if !msg.is_empty() {
                said.push(Said::Text(msg));
            }
            return Err(LookupError::NotFound(said));
        };
        let Some(rel) = classes.iter().find(|r| {
            r.text("relname") == Some(name.as_str()) && r.oid("relnamespace") == Some(nsp)
        }) else {
            let mut msg =
                format!("table {schema_name}.{name} is not in pg_class of database {database:?}");
            if !damaged(lookup.bad, Catalog::Class) {
                return Err(LookupError::NotFound(vec![Said::Text(msg)]));
            }
            msg.push_str(&format!(
                "\n{}\nthe table's row may have been there",
                list_unreadable(lookup.bad, Catalog::Class)
            ));
            let mut said = vec![Said::Text(msg)];
            said.extend(lookup.lost_class_row_advice(nsp, &schema_name, &name));
            return Err(LookupError::NotFound(said));
        };
        let oid = rel.oid("oid").unwrap_or(0);
        let relkind = rel.char("relkind").unwrap_or('?');
        if !matches!(relkind, 'r' | 't' | 'm' | 'i') {
            return Err(LookupError::NotFound(vec![Said::Text(format!(
                "{schema_name}.{name} has relkind '{relkind}', not a relation with storage \
                 of its own (a table r, a TOAST table t, a materialized view m, an index i)"
            ))]));
        }
        let (relfilenode, dir) = self.relation_file(rel, dboid, db_tablespace, db_map.as_ref())?;
        let main_segments = self.segments(&dir, relfilenode);
        if main_segments.is_empty() {
            lookup.notes.push(format!(
                "{}: file {relfilenode} of {schema_name}.{name} does not exist",
                crate::escape::path(&dir)
            ));
        }
        let columns = lookup.columns(oid, rel.num("relnatts"));

        let toast_segments = match rel.oid("reltoastrelid").filter(|&t| t != 0) {
            None => None,
            Some(toid) => match by_oid.get(&toid) {
                Some(trow) => {
                    let (tnode, tdir) =
                        self.relation_file(trow, dboid, db_tablespace, db_map.as_ref())?;
                    Some(self.segments(&tdir, tnode))
                }
                None => {
                    let mut note = format!(
                        "the TOAST table {toid} of {schema_name}.{name} is not in pg_class; \
                         out-of-line values are not read"
                    );
                    if damaged(lookup.bad, Catalog::Class) {
                        note.push_str(&format!(
                            " ({}; unless it was rewritten, its file is {}: give it with --toast)",
                            list_unreadable(lookup.bad, Catalog::Class),
                            crate::escape::path(&db_dir.join(toid.to_string()))
                        ));
                    }
                    lookup.notes.push(note);
                    None
                }
            },
        };
        for u in bad.iter().filter(|u| u.benign && u.lp.is_some()) {
            notes.push(format!("{u}"));
        }
        Ok(TableInfo {
            database_oid: dboid,
            oid,
            relfilenode,
            schema_name,
            name,
            relkind,
            main_segments,
            columns,
            toast_segments,
            notes,
            elsewhere: None,
            unreadable: bad,
        })
    }

    /// [`Self::find_table`] in `database`, or in `postgres` when none is
    /// given; a relation that is not found there is looked up in every other
    /// database of pg_database. Found in exactly one of them with no database
    /// given, that one is used and a note says so; otherwise the error says
    /// which databases have it. Returns the database the relation was read
    /// from.
    pub(crate) fn find_table_anywhere(
        &self,
        database: Option<&str>,
        qualified_name: &str,
    ) -> Result<(TableInfo, String), LookupError> {
        let first = database.unwrap_or("postgres");
        let err = match self.find_table(first, qualified_name) {
            Ok(info) => return Ok((info, first.to_string())),
            Err(
                e @ LookupError::Cluster(ClusterError::NotACluster(_) | ClusterError::Io { .. }),
            ) => return Err(e),
            Err(e) => e,
        };
        let (mut notes, mut bad) = (Vec::new(), Vec::new());
        let Ok(dbs) = self.databases(&mut notes, &mut bad) else {
            return Err(err);
        };
        let mut found: Vec<(String, TableInfo)> = Vec::new();
        for name in dbs.iter().filter_map(|r| r.text("datname")) {
            if name == first {
                continue;
            }
            if let Ok(info) = self.find_table(name, qualified_name) {
                found.push((name.to_string(), info));
            }
        }
        if found.is_empty() {
            return Err(err);
        }
        if database.is_none() && found.len() == 1 {
            let (db, mut info) = found.remove(0);
            info.elsewhere = Some(FoundElsewhere {
                qualified: qualified_name.to_string(),
                database: db.clone(),
            });
            return Ok((info, db));
        }
        let names: Vec<String> = found.iter().map(|(n, _)| format!("{n:?}")).collect();
        let mut said = match err {
            LookupError::NotFound(said) => said,
            LookupError::Cluster(e) => vec![Said::Text(e.to_string())],
        };
        said.push(Said::Text(format!(
            "\n{qualified_name} is in database{} {}",
            if found.len() == 1 { "" } else { "s" },
            names.join(", "),
        )));
        said.push(Said::Advice(Advice::Database {
            name: (found.len() == 1).then(|| found[0].0.clone()),
        }));
        Err(LookupError::NotFound(said))
    }

    /// Every database pg_database names, as (oid, dattablespace), in OID
    /// order; empty when pg_database cannot be read.
    pub(crate) fn database_tablespaces(&self) -> Vec<(u32, u32)> {
        let (mut notes, mut bad) = (Vec::new(), Vec::new());
        let mut out: Vec<(u32, u32)> = self
            .databases(&mut notes, &mut bad)
            .unwrap_or_default()
            .iter()
            .filter_map(|r| {
                Some((
                    r.oid("oid")?,
                    r.oid("dattablespace").unwrap_or(DEFAULT_TABLESPACE),
                ))
            })
            .collect();
        out.sort_unstable();
        out
    }

    /// The names of database `dboid`'s relations by (tablespace, file
    /// number), read from its pg_class and pg_namespace once, under MVCC as
    /// every catalog is read; `db_tablespace` is its pg_database
    /// `dattablespace`. Shared relations are keyed under pg_global. A page
    /// or row that cannot be read is left out (its relations go unnamed); a
    /// catalog that cannot be read at all is an error.
    pub(crate) fn relation_names(
        &self,
        dboid: u32,
        db_tablespace: u32,
    ) -> Result<RelNames, ClusterError> {
        let (mut notes, mut bad) = (Vec::new(), Vec::new());
        let db_dir = self.database_dir(db_tablespace, dboid);
        let db_map = read_map(&db_dir.join("pg_filenode.map"), &mut notes);
        let class_node = Self::mapped(db_map.as_ref(), Catalog::Class, "", &mut notes);
        let rows = self.read_catalog(Catalog::Class, &db_dir, class_node, &mut notes, &mut bad)?;
        let classes = one_per_key(Catalog::Class, rows, |r| r.oid("oid"), &mut notes);
        let by_oid: HashMap<u32, &CatalogRow> = classes
            .iter()
            .filter_map(|r| Some((r.oid("oid")?, r)))
            .collect();
        let ns_node = unmapped_node(&by_oid, Catalog::Namespace, &mut notes);
        let ns_rows =
            self.read_catalog(Catalog::Namespace, &db_dir, ns_node, &mut notes, &mut bad)?;
        let namespaces: HashMap<u32, String> =
            one_per_key(Catalog::Namespace, ns_rows, |r| r.oid("oid"), &mut notes)
                .iter()
                .filter_map(|r| {
                    Some((
                        r.oid("oid")?,
                        crate::escape::name(r.text("nspname")?).into_owned(),
                    ))
                })
                .collect();
        let qualified = |r: &CatalogRow| {
            let schema = namespaces.get(&r.oid("relnamespace")?)?;
            Some(format!(
                "{schema}.{}",
                crate::escape::name(r.text("relname")?)
            ))
        };
        let toast_owner: HashMap<u32, String> = classes
            .iter()
            .filter_map(|r| Some((r.oid("reltoastrelid").filter(|&t| t != 0)?, qualified(r)?)))
            .collect();
        let mut names = RelNames::new();
        for rel in &classes {
            if !matches!(rel.char("relkind"), Some('r' | 't' | 'i' | 'm' | 'S')) {
                continue;
            }
            let (Some(name), Ok((node, _))) = (
                qualified(rel),
                self.relation_file(rel, dboid, db_tablespace, db_map.as_ref()),
            ) else {
                continue;
            };
            let tablespace = if rel.bool("relisshared") == Some(true) {
                GLOBAL_TABLESPACE
            } else {
                match rel.oid("reltablespace") {
                    Some(0) | None => db_tablespace,
                    Some(t) => t,
                }
            };
            let toast_of = rel.oid("oid").and_then(|o| toast_owner.get(&o).cloned());
            names.insert((tablespace, node), Named { name, toast_of });
        }
        Ok(names)
    }

    /// A relation's file number and directory, from its pg_class row.
    fn relation_file(
        &self,
        rel: &CatalogRow,
        dboid: u32,
        db_tablespace: u32,
        db_map: Option<&RelMapFile>,
    ) -> Result<(u32, PathBuf), ClusterError> {
        let oid = rel.oid("oid").unwrap_or(0);
        let shared = rel.bool("relisshared") == Some(true);
        let node = match rel.oid("relfilenode") {
            Some(0) => {
                let map = if shared {
                    self.global_map.as_ref()
                } else {
                    db_map
                };
                map.and_then(|m| m.filenumber(oid)).ok_or_else(|| {
                    ClusterError::Catalog(format!(
                        "relation {oid} is mapped (relfilenode 0) but its relation map has no entry for it"
                    ))
                })?
            }
            Some(n) => n,
            None => {
                return Err(ClusterError::Catalog(format!(
                    "pg_class {}: relfilenode unreadable",
                    rel.place()
                )))
            }
        };
        let ts = match rel.oid("reltablespace") {
            Some(0) | None => db_tablespace,
            Some(t) => t,
        };
        if shared {
            return Ok((node, self.datadir.join("global")));
        }
        Ok((node, self.database_dir(ts, dboid)))
    }
}

/// pg_attribute and pg_type of one database, read once for a lookup
/// (pg_attribute's rows only of the relations a lookup needed: see
/// [`Lookup::load_attributes`]).
struct DbCatalogs {
    /// pg_attribute rows (attnum > 0) by attrelid, one version per key, of
    /// the relations in `loaded`.
    attributes: HashMap<u32, Vec<CatalogRow>>,
    /// The relations whose pg_attribute rows were read (found or not).
    loaded: HashSet<u32>,
    /// pg_attribute's file number.
    attribute_node: u32,
    /// pg_type, as type resolution reads it.
    types: HashMap<u32, TypeRow>,
    /// (typname, typnamespace, typrelid) of the types that are a relation's row type.
    row_types: Vec<(String, u32, u32)>,
    /// Why pg_attribute or pg_type could not be read at all.
    errors: Vec<(Catalog, String)>,
}

/// What a table lookup in one database has read so far.
struct Lookup<'a> {
    cluster: &'a Cluster,
    dboid: u32,
    db_tablespace: u32,
    db_dir: PathBuf,
    db_map: Option<&'a RelMapFile>,
    by_oid: &'a HashMap<u32, &'a CatalogRow>,
    /// `nspname` by pg_namespace OID.
    namespaces: HashMap<u32, String>,
    /// The database's `pg_database.encoding`, when its row was read.
    encoding: Option<i32>,
    catalogs: Option<DbCatalogs>,
    notes: &'a mut Vec<String>,
    bad: &'a mut Vec<Unreadable>,
}

impl Lookup<'_> {
    /// pg_attribute and pg_type, read on first use; a catalog that cannot
    /// be read at all is an entry in `errors`, not an error.
    fn catalogs(&mut self) -> &DbCatalogs {
        let catalogs = match self.catalogs.take() {
            Some(c) => c,
            None => self.read_catalogs(&HashSet::new()),
        };
        self.catalogs.insert(catalogs)
    }

    /// pg_type of the database, and pg_attribute's rows of the relations in
    /// `want`, read once. Every pg_attribute row is still looked at for the
    /// notes on a row with two live versions, whatever its relation.
    fn read_catalogs(&mut self, want: &HashSet<u32>) -> DbCatalogs {
        let what = crate::escape::path(&self.db_dir.join("pg_filenode.map")).to_string();
        let mut errors = Vec::new();
        let attribute_node = Cluster::mapped(self.db_map, Catalog::Attribute, &what, self.notes);
        // (attrelid, attnum) of every row with attnum > 0, as one_per_key
        // keys them, with the place and xmin of the version it keeps.
        let mut versions: HashMap<(u32, i64), (u64, u16, u32)> = HashMap::new();
        let mut twice = Vec::new();
        let mut keep = |r: &CatalogRow| {
            let (Some(rel), Some(attnum)) = (r.oid("attrelid"), r.num("attnum")) else {
                return false;
            };
            if attnum <= 0 {
                return false;
            }
            match versions.entry((rel, attnum)) {
                std::collections::hash_map::Entry::Occupied(mut old) => {
                    let (blkno, lp, xmin) = *old.get();
                    twice.push(two_versions(
                        Catalog::Attribute,
                        &(rel, attnum),
                        &format!("block {blkno} lp {lp}"),
                        &r.place(),
                    ));
                    if r.xmin.wrapping_sub(xmin) as i32 > 0 {
                        old.insert((r.blkno, r.lp, r.xmin));
                    }
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert((r.blkno, r.lp, r.xmin));
                }
            }
            want.contains(&rel)
        };
        let att_rows = match self.cluster.read_catalog_where(
            Catalog::Attribute,
            &self.db_dir,
            attribute_node,
            self.notes,
            self.bad,
            &mut keep,
        ) {
            Ok(rows) => rows,
            Err(e) => {
                errors.push((Catalog::Attribute, e.to_string()));
                Vec::new()
            }
        };
        drop(versions);
        let type_node = Cluster::mapped(self.db_map, Catalog::Type, &what, self.notes);
        let type_rows = match self.cluster.read_catalog(
            Catalog::Type,
            &self.db_dir,
            type_node,
            self.notes,
            self.bad,
        ) {
            Ok(rows) => rows,
            Err(e) => {
                errors.push((Catalog::Type, e.to_string()));
                Vec::new()
            }
        };
        let type_rows = one_per_key(Catalog::Type, type_rows, |r| r.oid("oid"), self.notes);
        let row_types = type_rows
            .iter()
            .filter_map(|r| {
                let relid = r.oid("typrelid").filter(|&t| t != 0)?;
                Some((
                    r.text("typname")?.to_string(),
                    r.oid("typnamespace")?,
                    relid,
                ))
            })
            .collect();
        let types = type_rows
            .iter()
            .filter_map(TypeRow::from_row)
            .map(|t| (t.oid, t))
            .collect();
        // The notes on two versions were made above, of every row.
        self.notes.append(&mut twice);
        let mut catalogs = DbCatalogs {
            attributes: HashMap::new(),
            loaded: want.clone(),
            attribute_node,
            types,
            row_types,
            errors,
        };
        catalogs.hold(att_rows);
        catalogs
    }

    /// Reads the pg_attribute rows a lookup of relation `oid` needs and
    /// `catalogs` does not hold yet: its own, then those of the composite
    /// types its columns' types are made of, pass by pass (one pass for
    /// each level of nesting, each keeping only the rows of the relations
    /// it looks for). The notes and unreadable blocks of pg_attribute were
    /// told by its first read: a later pass does not tell them again.
    fn load_attributes(&self, catalogs: &mut DbCatalogs, oid: u32) {
        let mut want = HashSet::from([oid]);
        want.retain(|r| !catalogs.loaded.contains(r));
        loop {
            if !want.is_empty() && !catalogs.errors.iter().any(|e| e.0 == Catalog::Attribute) {
                let (mut notes, mut bad) = (Vec::new(), Vec::new());
                let rows = self.cluster.read_catalog_where(
                    Catalog::Attribute,
                    &self.db_dir,
                    catalogs.attribute_node,
                    &mut notes,
                    &mut bad,
                    &mut |r| {
                        r.num("attnum").is_some_and(|n| n > 0)
                            && r.oid("attrelid").is_some_and(|rel| want.contains(&rel))
                    },
                );
                catalogs.hold(rows.unwrap_or_default());
            }
            catalogs.loaded.extend(want.iter().copied());
            let atts = catalogs.attributes.get(&oid).map_or(&[][..], |r| &r[..]);
            want = composite_relations(atts, catalogs);
            want.retain(|r| !catalogs.loaded.contains(r));
            if want.is_empty() {
                return;
            }
        }
    }

    /// The names of pg_proc, pg_operator, pg_ts_config, pg_ts_dict and
    /// pg_collation that the reg* types `regs` print, each catalog read once
    /// and only when one of them needs it; a type whose catalog cannot be
    /// read is not added to `names.read` (its values stay numbers) and a
    /// note says so.
    fn read_reg_names(&mut self, regs: &[&'static str], names: &mut CatalogNames) {
        let wanted = [
            (Catalog::Proc, ["regproc", "regprocedure"]),
            (Catalog::Operator, ["regoper", "regoperator"]),
            (Catalog::TsConfig, ["regconfig", "regconfig"]),
            (Catalog::TsDict, ["regdictionary", "regdictionary"]),
            (Catalog::Collation, ["regcollation", "regcollation"]),
        ];
        for (catalog, types) in wanted {
            let needed: Vec<&'static str> =
                regs.iter().copied().filter(|r| types.contains(r)).collect();
            if needed.is_empty() {
                continue;
            }
            let shown = needed.join(" and ");
            if catalog == Catalog::Collation && self.encoding.is_none() {
                self.notes.push(format!(
                    "the database's encoding is not known (no pg_database row); \
                     {shown} values are shown as OIDs"
                ));
                continue;
            }
            let node = if catalog == Catalog::Proc {
                let what = crate::escape::path(&self.db_dir.join("pg_filenode.map")).to_string();
                Cluster::mapped(self.db_map, catalog, &what, self.notes)
            } else {
                unmapped_node(self.by_oid, catalog, self.notes)
            };
            let rows =
                match self
                    .cluster
                    .read_catalog(catalog, &self.db_dir, node, self.notes, self.bad)
                {
                    Ok(rows) => one_per_key(catalog, rows, |r| r.oid("oid"), self.notes),
                    Err(e) => {
                        self.notes
                            .push(format!("{e}; {shown} values are shown as OIDs"));
                        continue;
                    }
                };
            match catalog {
                Catalog::Proc => names.procs = rows.iter().filter_map(proc_name).collect(),
                Catalog::Operator => names.operators = rows.iter().filter_map(oper_name).collect(),
                Catalog::Collation => {
                    names.collations = rows.iter().filter_map(coll_name).collect();
                    names.encoding = self.encoding;
                }
                Catalog::TsConfig => {
                    names.ts_configs = rows.iter().filter_map(|r| ts_name(r, catalog)).collect()
                }
                _ => names.ts_dicts = rows.iter().filter_map(|r| ts_name(r, catalog)).collect(),
            }
            names.read.extend(needed);
        }
    }

    /// The columns of relation `oid` (`relnatts` from its pg_class row, when
    /// known), or what was read of them and why the rest was not.
    fn columns(&mut self, oid: u32, relnatts: Option<i64>) -> Result<Schema, Box<ColumnsUnread>> {
        let mut catalogs = match self.catalogs.take() {
            Some(c) => c,
            None => self.read_catalogs(&HashSet::from([oid])),
        };
        self.load_attributes(&mut catalogs, oid);
        let result = self.columns_with(&catalogs, oid, relnatts);
        self.catalogs = Some(catalogs);
        result
    }

    fn columns_with(
        &mut self,
        catalogs: &DbCatalogs,
        oid: u32,
        relnatts: Option<i64>,
    ) -> Result<Schema, Box<ColumnsUnread>> {
        let mut atts: Vec<CatalogRow> = catalogs.attributes.get(&oid).cloned().unwrap_or_default();
        atts.sort_by_key(|r| r.num("attnum"));
        let mut cat = TypeCatalog {
            types: catalogs.types.clone(),
            ..TypeCatalog::default()
        };
        for rel in &composite_relations(&atts, catalogs) {
            if let Some(rows) = catalogs.attributes.get(rel) {
                cat.attributes.insert(*rel, rows.clone());
            }
        }
        // Enum labels and range subtypes, when the table has such types.
        let used = used_typtypes(&atts, &cat);
        if used.contains(&'e') {
            let node = unmapped_node(self.by_oid, Catalog::Enum, self.notes);
            match self
                .cluster
                .read_catalog(Catalog::Enum, &self.db_dir, node, self.notes, self.bad)
            {
                Ok(rows) => {
                    for row in one_per_key(Catalog::Enum, rows, |r| r.oid("oid"), self.notes) {
                        if let (Some(oid), Some(typ), Some(label)) =
                            (row.oid("oid"), row.oid("enumtypid"), row.text("enumlabel"))
                        {
                            cat.enums
                                .entry(typ)
                                .or_default()
                                .push((oid, label.to_string()));
                        }
                    }
                }
                Err(e) => self
                    .notes
                    .push(format!("{e}; enum values are shown as hex")),
            }
        }
        // The reg* types the columns' types are or are made of.
        let mut regs: Vec<&'static str> = Vec::new();
        walk_types(&atts, &cat.types, &cat.attributes, |oid, _| {
            regs.extend(regnames::NAMED.iter().filter(|r| r.1 == oid).map(|r| r.0));
            false
        });
        let uses = |reg: &str| regs.contains(&reg);
        let aclitem = uses_type(&atts, &cat, ACLITEM_OID);
        if aclitem || !regs.is_empty() {
            let mut names = CatalogNames::default();
            if aclitem || uses("regrole") {
                names.roles = self.cluster.roles(self.notes, self.bad);
            }
            if regs.iter().any(|r| *r != "regrole") {
                names.namespaces = self.namespaces.clone();
                names.search_path = regnames::search_path(&names.namespaces);
            }
            if uses("regclass") {
                names.relations = self
                    .by_oid
                    .iter()
                    .filter_map(|(oid, r)| {
                        Some((
                            *oid,
                            (r.text("relname")?.to_string(), r.oid("relnamespace")?),
                        ))
                    })
                    .collect();
            }
            if uses("regtype") || uses("regprocedure") || uses("regoperator") {
                names.types = catalogs
                    .types
                    .values()
                    .map(|t| (t.oid, t.type_name()))
                    .collect();
            }
            self.read_reg_names(&regs, &mut names);
            cat.names = Some(Arc::new(names));
        }
        if used.contains(&'r') || used.contains(&'m') {
            let node = unmapped_node(self.by_oid, Catalog::Range, self.notes);
            match self.cluster.read_catalog(
                Catalog::Range,
                &self.db_dir,
                node,
                self.notes,
                self.bad,
            ) {
                Ok(rows) => {
                    for row in rows {
                        if let (Some(t), Some(sub)) = (row.oid("rngtypid"), row.oid("rngsubtype")) {
                            cat.ranges.insert(t, sub);
                            if let Some(m) = row.oid("rngmultitypid").filter(|&m| m != 0) {
                                cat.multiranges.insert(m, t);
                            }
                        }
                    }
                }
                Err(e) => self
                    .notes
                    .push(format!("{e}; range values are shown as hex")),
            }
        }
        let types_damaged = damaged(self.bad, Catalog::Type)
            || catalogs.errors.iter().any(|e| e.0 == Catalog::Type);
        let last = atts.last().and_then(|r| r.num("attnum")).unwrap_or(0);
        // attnum is an int2: at most 32767 attributes, whatever relnatts says.
        let count = relnatts
            .unwrap_or(last)
            .max(last)
            .clamp(0, i64::from(i16::MAX));
        let mut columns = Schema::default();
        let mut attributes = Vec::new();
        let mut complete = true;
        let mut type_oids = Vec::new();
        for attnum in 1..=count {
            let Some(row) = atts.iter().find(|r| r.num("attnum") == Some(attnum)) else {
                attributes.push((attnum, AttrRead::Unreadable));
                complete = false;
                continue;
            };
            let typid = row.oid("atttypid").unwrap_or(0);
            if types_damaged
                && row.bool("attisdropped") != Some(true)
                && PgType::from_oid(typid).is_none()
                && !cat.types.contains_key(&typid)
            {
                type_oids.push(typid);
                attributes.push((
                    attnum,
                    AttrRead::TypeUnreadable {
                        name: row.text("attname").unwrap_or("?").to_string(),
                        typid,
                        attlen: row.num("attlen").unwrap_or(0),
                        attalign: row.char("attalign").unwrap_or('?'),
                    },
                ));
                complete = false;
                continue;
            }
            match column_from_attribute(row, &cat, self.notes) {
                Some(col) => {
                    // PostgreSQL 12+: a stored generated column.
                    if row.char("attgenerated") == Some('s') && !col.dropped {
                        columns.generated.insert(columns.columns.len());
                    }
                    attributes.push((attnum, AttrRead::Read(column_item(&col))));
                    columns.columns.push(col);
                }
                None => {
                    attributes.push((attnum, AttrRead::Unreadable));
                    complete = false;
                }
            }
        }
        let mut causes = Vec::new();
        if let Some(n) = relnatts.filter(|&n| n < last) {
            complete = false;
            causes.push(format!(
                "pg_attribute has attributes up to attnum {last}, pg_class.relnatts says {n}"
            ));
        }
        if complete {
            return Ok(columns);
        }
        let missing: Vec<i64> = attributes
            .iter()
            .filter(|a| matches!(a.1, AttrRead::Unreadable))
            .map(|a| a.0)
            .collect();
        for (catalog, e) in &catalogs.errors {
            causes.push(format!("{} could not be read: {e}", catalog.name()));
        }
        if !missing.is_empty() {
            let mut found: Vec<String> = self
                .bad
                .iter()
                .filter(|u| {
                    u.catalog == Catalog::Attribute
                        && u.key_num("attrelid").is_none_or(|o| o == i64::from(oid))
                })
                .map(|u| u.to_string())
                .collect();
            if found.is_empty() {
                found.push("no damaged pg_attribute page was found: the rows are missing".into());
            }
            causes.push(format!(
                "the pg_attribute rows of attnum {} could not be read ({})",
                join_nums(&missing),
                found.join("; ")
            ));
        }
        if !type_oids.is_empty() {
            let types: Vec<String> = type_oids.iter().map(u32::to_string).collect();
            causes.push(format!(
                "the pg_type rows of type OID {} could not be read ({})",
                types.join(", "),
                list_unreadable(self.bad, Catalog::Type)
            ));
        }
        Err(Box::new(ColumnsUnread {
            relnatts,
            attributes,
            causes,
        }))
    }

    /// How to export relation `rel` by its file when the lookup cannot
    /// reach it by name: its file, its TOAST file and the columns read.
    fn by_file_advice(&mut self, rel: &CatalogRow, qualified: &str) -> Option<Advice> {
        let oid = rel.oid("oid").unwrap_or(0);
        let Ok((node, dir)) =
            self.cluster
                .relation_file(rel, self.dboid, self.db_tablespace, self.db_map)
        else {
            return None;
        };
        let toast = rel
            .oid("reltoastrelid")
            .filter(|&t| t != 0)
            .and_then(|t| self.by_oid.get(&t).copied())
            .and_then(|t| {
                self.cluster
                    .relation_file(t, self.dboid, self.db_tablespace, self.db_map)
                    .ok()
            })
            .map(|(n, d)| d.join(n.to_string()));
        let columns = self.columns(oid, rel.num("relnatts"));
        Some(export_advice(
            qualified,
            &dir.join(node.to_string()),
            toast,
            &columns,
        ))
    }

    /// What the other catalogs still say of a table whose pg_class row is
    /// unreadable: its row type in pg_type gives its OID, that its
    /// pg_attribute rows and its file as it was created; its TOAST table's
    /// pg_class row (`pg_toast_OID`) its TOAST file.
    fn lost_class_row_advice(&mut self, nsp: u32, schema_name: &str, name: &str) -> Vec<Said> {
        let relid = self
            .catalogs()
            .row_types
            .iter()
            .find(|(typname, typnamespace, _)| typname == name && *typnamespace == nsp)
            .map(|t| t.2);
        let Some(oid) = relid else {
            return vec![
                Said::Text(format!(
                    "\nno readable pg_type row is the row type of {schema_name}.{name} either, \
                     so its OID is not known"
                )),
                Said::Advice(Advice::FindFile { dboid: self.dboid }),
            ];
        };
        let file = self.db_dir.join(oid.to_string());
        let toast_name = format!("pg_toast_{oid}");
        let toast = self
            .by_oid
            .values()
            .find(|r| r.text("relname") == Some(toast_name.as_str()))
            .and_then(|t| {
                self.cluster
                    .relation_file(t, self.dboid, self.db_tablespace, self.db_map)
                    .ok()
            })
            .map(|(n, d)| d.join(n.to_string()));
        let columns = self.columns(oid, None);
        let mut out =
            format!("\npg_type's row type of {schema_name}.{name} says its pg_class OID is {oid}");
        if !file.is_file() {
            out.push_str(&format!(
                ", but {} does not exist (the table was rewritten: TRUNCATE, VACUUM FULL, \
                 CLUSTER or ALTER TABLE … TYPE give it a new file number, which only its \
                 pg_class row knows)",
                crate::escape::path(&file)
            ));
            return vec![Said::Text(out)];
        }
        out.push_str(&format!(
            "\nunless the table was rewritten (TRUNCATE, VACUUM FULL, CLUSTER, ALTER TABLE … \
             TYPE), its file is {}, which exists",
            crate::escape::path(&file)
        ));
        vec![
            Said::Text(out),
            Said::Advice(export_advice(
                &format!("{schema_name}.{name}"),
                &file,
                toast,
                &columns,
            )),
        ]
    }
}

/// How to export a table by its file: its file, its TOAST file and its
/// columns as far as they were read.
fn export_advice(
    qualified: &str,
    file: &Path,
    toast: Option<PathBuf>,
    columns: &Result<Schema, Box<ColumnsUnread>>,
) -> Advice {
    let list = match columns {
        Ok(schema) => schema
            .columns
            .iter()
            .map(column_item)
            .collect::<Vec<_>>()
            .join(", "),
        Err(c) => c.hint_list(),
    };
    Advice::ExportByFile {
        qualified: qualified.to_string(),
        file: file.to_path_buf(),
        toast,
        columns: list,
        unread: columns.as_ref().err().map(|c| c.causes.clone()),
    }
}

/// Whether `catalog` had a damaged page or row (an all-zero page does not count).
fn damaged(bad: &[Unreadable], catalog: Catalog) -> bool {
    bad.iter().any(|u| u.catalog == catalog && !u.benign)
}

/// `pg_class block 3: checksum mismatch …; pg_class block 7 lp 2: …`, or a
/// plain statement when nothing of `catalog` was unreadable.
fn list_unreadable(bad: &[Unreadable], catalog: Catalog) -> String {
    let all: Vec<String> = bad
        .iter()
        .filter(|u| u.catalog == catalog)
        .map(|u| u.to_string())
        .collect();
    if all.is_empty() {
        format!("no page of {} was found damaged", catalog.name())
    } else {
        format!("unreadable: {}", all.join("; "))
    }
}

fn join_nums(n: &[i64]) -> String {
    n.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// A word for a POSIX shell: as is when plain, else in single quotes.
pub(crate) fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// What was read of one attribute of a table whose columns are not all readable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum AttrRead {
    /// Read: the column as `--columns` takes it.
    Read(String),
    /// Its pg_attribute row was not read.
    Unreadable,
    /// Its pg_attribute row was read, but its type's pg_type row was not.
    TypeUnreadable {
        /// `attname`.
        name: String,
        /// `atttypid`.
        typid: u32,
        /// `attlen`.
        attlen: i64,
        /// `attalign`.
        attalign: char,
    },
}

/// A table whose pg_class row was read but whose columns were not all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ColumnsUnread {
    /// `pg_class.relnatts`.
    pub relnatts: Option<i64>,
    /// Attnum 1, 2, … and what was read of each.
    pub attributes: Vec<(i64, AttrRead)>,
    /// The catalog pages and rows that could not be read, and what follows.
    pub causes: Vec<String>,
}

impl ColumnsUnread {
    /// The columns as `--columns` takes them, an unreadable one as
    /// `<attnum N: unreadable>` (or, when only its type is, `<NAME: type OID
    /// T, attlen L, attalign A>`), to be filled in by hand.
    pub(crate) fn hint_list(&self) -> String {
        self.attributes
            .iter()
            .map(|(attnum, a)| match a {
                AttrRead::Read(item) => item.clone(),
                AttrRead::Unreadable => format!("<attnum {attnum}: unreadable>"),
                AttrRead::TypeUnreadable {
                    name,
                    typid,
                    attlen,
                    attalign,
                } => format!("<{name}: type OID {typid}, attlen {attlen}, attalign {attalign}>"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A column as a `--columns` item: `NAME TYPE [default VALUE]`, a dropped
/// one `-:LEN:ALIGN`, a type the list does not know by name `NAME
/// TYPNAME:LEN:ALIGN` (shown as hex).
pub(crate) fn column_item(col: &Column) -> String {
    if col.dropped {
        return format!("-:{}:{}", col.attlen, col.align.code());
    }
    let name = col.name.as_deref().unwrap_or("?");
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '$');
    let name = if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    };
    let ty = col.ty.as_ref().map(|t| t.display()).unwrap_or_default();
    let mut item = format!("{name} {ty}");
    let round_trip = parse_columns(&item).ok().is_some_and(|s| {
        s.columns.len() == 1
            && s.columns[0].attlen == col.attlen
            && s.columns[0].ty.as_ref().map(|t| &t.ty) == col.ty.as_ref().map(|t| &t.ty)
    });
    if !round_trip {
        let typname: String = ty
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let typname = if typname.is_empty() {
            "other".into()
        } else {
            typname
        };
        item = format!("{name} {typname}:{}:{}", col.attlen, col.align.code());
    }
    // A default with a comma cannot be written in a list (the list is split
    // on commas); one with a quote or outer spaces is quoted as a literal.
    if let Some(m) = col.missing.as_deref().filter(|m| !m.contains(',')) {
        if m.contains('\'') || m.trim() != m || m.is_empty() {
            item.push_str(&format!(" default '{}'", m.replace('\'', "''")));
        } else {
            item.push_str(&format!(" default {m}"));
        }
    }
    item
}

impl DbCatalogs {
    /// Keeps pg_attribute rows read: one version per (attrelid, attnum),
    /// by attrelid (the notes on two versions were made at the first read).
    fn hold(&mut self, rows: Vec<CatalogRow>) {
        let mut told = Vec::new();
        let rows = one_per_key(
            Catalog::Attribute,
            rows,
            |r| Some((r.oid("attrelid")?, r.num("attnum")?)),
            &mut told,
        );
        #[cfg(test)]
        tests::ATTRIBUTES_HELD.with(|n| n.set(n.get() + rows.len()));
        for row in rows {
            if let Some(rel) = row.oid("attrelid") {
                self.attributes.entry(rel).or_default().push(row);
            }
        }
    }
}

/// Walk the columns `atts`' types and every type they are made of (array
/// elements, domains' base types, composites' attributes, as far as
/// `attributes` holds them), each once and at most 100,000 of them, calling
/// `visit` with each type's OID and its `types` row when there is one;
/// stops early when `visit` says so, and says whether it did.
fn walk_types(
    atts: &[CatalogRow],
    types: &HashMap<u32, TypeRow>,
    attributes: &HashMap<u32, Vec<CatalogRow>>,
    mut visit: impl FnMut(u32, Option<&TypeRow>) -> bool,
) -> bool {
    let mut seen = HashSet::new();
    let mut todo: Vec<u32> = atts.iter().filter_map(|r| r.oid("atttypid")).collect();
    while let Some(oid) = todo.pop() {
        if !seen.insert(oid) || seen.len() > 100_000 {
            continue;
        }
        let t = types.get(&oid);
        if visit(oid, t) {
            return true;
        }
        let Some(t) = t else {
            continue;
        };
        todo.extend([t.typelem, t.typbasetype].into_iter().filter(|&o| o != 0));
        if let Some(rows) = attributes.get(&t.typrelid) {
            todo.extend(rows.iter().filter_map(|r| r.oid("atttypid")));
        }
    }
    false
}

/// The relations of the composite types that columns `atts`' types are or
/// are made of, as far as `catalogs` holds them.
fn composite_relations(atts: &[CatalogRow], catalogs: &DbCatalogs) -> HashSet<u32> {
    let mut rels = HashSet::new();
    walk_types(atts, &catalogs.types, &catalogs.attributes, |_, t| {
        if let Some(t) = t.filter(|t| t.typtype == 'c' && t.typrelid != 0) {
            rels.insert(t.typrelid);
        }
        false
    });
    rels
}

/// Whether type `want` is a column's type or one they are made of.
fn uses_type(atts: &[CatalogRow], cat: &TypeCatalog, want: u32) -> bool {
    walk_types(atts, &cat.types, &cat.attributes, |oid, _| oid == want)
}

/// The `typtype`s of the columns' types and of every type they are made of.
fn used_typtypes(atts: &[CatalogRow], cat: &TypeCatalog) -> HashSet<char> {
    let mut out = HashSet::new();
    walk_types(atts, &cat.types, &cat.attributes, |_, t| {
        out.extend(t.map(|t| t.typtype));
        false
    });
    out
}

/// A catalog that is not mapped: its file number from its pg_class row, else
/// its OID (initdb's) with a note.
fn unmapped_node(
    by_oid: &HashMap<u32, &CatalogRow>,
    catalog: Catalog,
    notes: &mut Vec<String>,
) -> u32 {
    by_oid
        .get(&catalog.oid())
        .and_then(|r| r.oid("relfilenode"))
        .filter(|&n| n != 0)
        .unwrap_or_else(|| {
            notes.push(format!(
                "pg_class has no row for {}; file {} is tried",
                catalog.name(),
                catalog.oid()
            ));
            catalog.oid()
        })
}

/// Read a relation map; a damaged or missing one is a note.
fn read_map(path: &Path, notes: &mut Vec<String>) -> Option<RelMapFile> {
    match read_small(path, 1024).map(|b| parse_relmap(&b)) {
        Ok(Ok(m)) => {
            if !m.crc_ok {
                notes.push(format!(
                    "{}: CRC-32C 0x{:08x} does not match the stored 0x{:08x}; its entries are used anyway",
                    crate::escape::path(path),
                    m.crc_computed,
                    m.crc
                ));
            }
            Some(m)
        }
        Ok(Err(e)) => {
            notes.push(format!("{}: {e}", crate::escape::path(path)));
            None
        }
        Err(e) => {
            notes.push(e.to_string());
            None
        }
    }
}

/// `schema.name` → (schema, name); a bare name is in `public`; `"…"` quotes
/// an identifier (keeping dots and case).
fn split_qualified(q: &str) -> Result<(String, String), LookupError> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = q.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            '"' => quoted = !quoted,
            '.' if !quoted => parts.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    parts.push(cur);
    match parts.as_slice() {
        [n] if !n.is_empty() => Ok(("public".into(), n.clone())),
        [s, n] if !s.is_empty() && !n.is_empty() => Ok((s.clone(), n.clone())),
        _ => Err(LookupError::NotFound(vec![Said::Advice(
            Advice::TableName {
                given: q.to_string(),
            },
        )])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// pg_attribute rows a lookup in this thread kept, over all its passes.
        pub(super) static ATTRIBUTES_HELD: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// A table lookup keeps the pg_attribute rows of the table and of the
    /// composite types its columns are made of (here `pair`, `pair[]` and
    /// the row type of table `item`), not every row of the database.
    #[test]
    fn lookup_keeps_only_the_pg_attribute_rows_it_needs() {
        let datadir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/postgres/catalog/types/18/datadir");
        let cluster = Cluster::open(&datadir).unwrap();
        ATTRIBUTES_HELD.with(|n| n.set(0));
        let info = cluster.find_table("postgres", "public.kinds").unwrap();
        let held = ATTRIBUTES_HELD.with(|n| n.get());
        // kinds' 17 columns, pair's 4 attributes (one dropped), item's 2.
        assert_eq!(held, 17 + 4 + 2, "{:?}", info.notes);
        let mut notes = Vec::new();
        let mut bad = Vec::new();
        let db_dir = cluster.database_dir(DEFAULT_TABLESPACE, 5);
        let all = cluster
            .read_catalog(Catalog::Attribute, &db_dir, 1249, &mut notes, &mut bad)
            .unwrap();
        assert!(all.len() > 2000, "{}", all.len());
    }

    #[test]
    fn qualified_names() {
        let s = |q: &str| split_qualified(q).map_err(|e| e.to_string());
        assert_eq!(s("app.big").unwrap(), ("app".into(), "big".into()));
        assert_eq!(s("t").unwrap(), ("public".into(), "t".into()));
        assert_eq!(
            s("\"A.b\".\"x\"\"y\"").unwrap(),
            ("A.b".into(), "x\"y".into())
        );
        assert!(s("a.b.c").is_err());
        assert!(s("").is_err());
        // The advice is a fact the commands word, not text.
        let Err(LookupError::NotFound(said)) = split_qualified("a.b.c") else {
            panic!("a.b.c is not a table name");
        };
        assert_eq!(
            said,
            vec![Said::Advice(Advice::TableName {
                given: "a.b.c".into()
            })]
        );
    }

    /// A column read from pg_attribute, written as a `--columns` item, reads
    /// back as the same column.
    #[test]
    fn column_items_read_back() {
        let list = "id integer, \"My Col\" numeric(10,2), t3 time(3) without time zone, \
                    -:4:i, tags text[], n int default 42, q text default 'it''s', \
                    h hstore:-1:i";
        let schema = parse_columns(list).unwrap();
        let items: Vec<String> = schema.columns.iter().map(column_item).collect();
        let again = parse_columns(&items.join(", ")).unwrap();
        assert_eq!(again, schema, "{items:?}");
        assert_eq!(items[1], "\"My Col\" numeric(10,2)");
        assert_eq!(items[3], "-:4:i");
        assert_eq!(items[6], "q text default 'it''s'");
    }

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_quote("base/5/16405"), "base/5/16405");
        assert_eq!(shell_quote("id integer"), "'id integer'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}

/// A data directory file that is not relation pages, as read.
#[derive(Debug)]
pub(crate) enum ClusterFile {
    /// `global/pg_control`.
    Control(Box<ControlFileImage>),
    /// `pg_filenode.map` (global or a database's).
    RelMap(RelMapFile),
}

/// The control file or relation map at `path`, recognised by its name
/// (`pg_control`, `pg_filenode.map`: then a file that does not read as one
/// is an error) or by its content (8192 bytes whose CRC holds in a known
/// pg_control layout; 512 or 524 bytes with the relation map magic and a
/// CRC that holds). `None`: neither.
pub(crate) fn cluster_file(path: &Path) -> Option<Result<ClusterFile, String>> {
    let name = path.file_name()?.to_str()?;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let by_name = matches!(name, "pg_control" | "pg_filenode.map");
    let len = meta.len();
    if !by_name && !matches!(len, 512 | 524 | 8192) {
        return None;
    }
    let bytes = match read_small(path, 8192) {
        Ok(b) => b,
        Err(e) if by_name => return Some(Err(e.to_string())),
        Err(_) => return None,
    };
    match name {
        "pg_control" => {
            Some(parse_control_image(&bytes).map(|c| ClusterFile::Control(Box::new(c))))
        }
        "pg_filenode.map" => Some(parse_relmap(&bytes).map(ClusterFile::RelMap)),
        _ => match bytes.len() {
            8192 => parse_control_image(&bytes)
                .ok()
                .filter(|c| c.crc_ok)
                .map(|c| Ok(ClusterFile::Control(Box::new(c)))),
            _ => parse_relmap(&bytes)
                .ok()
                .filter(|m| m.crc_ok)
                .map(|m| Ok(ClusterFile::RelMap(m))),
        },
    }
}

/// Whether a data directory's server is running, as far as its files say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ServerState {
    /// `postmaster.pid` names a process that is alive (and, where its
    /// working directory can be read, works in this data directory).
    Running {
        /// The postmaster's process id.
        pid: u32,
    },
    /// No live postmaster, but pg_control's state is not "shut down": the
    /// server crashed, was stopped with `-m immediate`, or lost power.
    NotShutDown {
        /// pg_control's state, in pg_controldata's words.
        state: &'static str,
    },
    /// Shut down cleanly, or nothing is known (no readable pg_control).
    Stopped,
}

impl ServerState {
    /// What a data directory's `postmaster.pid` and `global/pg_control` say.
    pub(crate) fn of(datadir: &Path) -> ServerState {
        if let Some(pid) = live_postmaster(datadir) {
            return ServerState::Running { pid };
        }
        match trusted_control(datadir) {
            Some(c) if !matches!(c.control.state, 1 | 2) => ServerState::NotShutDown {
                state: crate::model::postgres::cluster::db_state_name(c.control.state),
            },
            _ => ServerState::Stopped,
        }
    }

    /// The note export writes about it (`None` for a stopped cluster).
    pub(crate) fn note(&self) -> Option<String> {
        match self {
            ServerState::Running { pid } => Some(format!(
                "the cluster is running (postmaster.pid: pid {pid}): its files change while \
                 they are read, so rows may be missing or repeated; stop the server (or \
                 export a copy of the stopped cluster) for a consistent result"
            )),
            ServerState::NotShutDown { state } => Some(format!(
                "the cluster was not shut down cleanly (pg_control: {state}, no server \
                 running): what changed since its last checkpoint may be only in its WAL, so \
                 recent rows may be missing or shown as they were before"
            )),
            ServerState::Stopped => None,
        }
    }
}

/// `datadir/global/pg_control` when it reads and its CRC is right.
fn trusted_control(datadir: &Path) -> Option<ControlFileImage> {
    read_small(&datadir.join("global/pg_control"), 8192)
        .ok()
        .and_then(|b| parse_control_image(&b).ok())
        .filter(|c| c.crc_ok)
}

/// Whether the pages of a data directory carry checksums: unless its
/// pg_control (CRC right) says `data_checksum_version` 0, as it does after
/// `pg_checksums --disable`, which leaves every page's old `pd_checksum` in
/// place, stale once the page is written again.
pub(crate) fn has_checksums(datadir: &Path) -> bool {
    trusted_control(datadir).is_none_or(|c| c.control.data_checksum_version != 0)
}

/// The pid in `datadir/postmaster.pid` when that process is alive. Where
/// `/proc` tells, the process must be alive and, when its working directory
/// can be read, work in `datadir` (a postmaster changes into its data
/// directory): a lock file left by a crash whose pid was reused by another
/// program does not count. Without `/proc` the lock file alone counts.
fn live_postmaster(datadir: &Path) -> Option<u32> {
    let text = read_small(&datadir.join("postmaster.pid"), 4096).ok()?;
    let pid: u32 = String::from_utf8_lossy(&text)
        .lines()
        .next()?
        .trim()
        .parse()
        .ok()
        .filter(|&p| p > 0)?;
    let proc_dir = Path::new("/proc");
    if !proc_dir.join("self").exists() {
        return Some(pid);
    }
    let entry = proc_dir.join(pid.to_string());
    if !entry.is_dir() {
        return None;
    }
    match (
        std::fs::read_link(entry.join("cwd")),
        datadir.canonicalize(),
    ) {
        (Ok(cwd), Ok(dir)) if cwd != dir => None,
        _ => Some(pid),
    }
}
