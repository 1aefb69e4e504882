//! A data directory read offline: its version, pg_control, relation maps and
//! the catalogs that say where a table's files are and what its columns
//! are. Files are found and read here; their bytes are decoded by
//! `parse::postgres::{control, relmap, catalog}`.

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::model::postgres::cluster::{ControlFileImage, RelMapFile};
use crate::model::postgres::types::Schema;
use crate::parse::postgres::catalog::{
    catalog_schema, column_from_attribute, one_per_key, page_rows, Catalog, CatalogRow,
    TypeCatalog, TypeRow, MAJORS,
};
use crate::parse::postgres::control::{crc_mismatch, parse_control_image};
use crate::parse::postgres::relmap::parse_relmap;
use crate::source::open_file;

/// `DEFAULTTABLESPACE_OID` (pg_default) and `GLOBALTABLESPACE_OID` (pg_global).
const DEFAULT_TABLESPACE: u32 = 1663;
const GLOBAL_TABLESPACE: u32 = 1664;
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
    /// The database or table is not in the catalogs.
    NotFound(String),
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ClusterError::NotACluster(m) | ClusterError::Catalog(m) | ClusterError::NotFound(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for ClusterError {}

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
    /// The main fork's segment files, `N`, `N.1`, … in order.
    pub main_segments: Vec<PathBuf>,
    /// The columns in attnum order; dropped columns kept (as dropped), so
    /// tuples decode; `atthasmissing` defaults carried.
    pub columns: Schema,
    /// The TOAST relation's main fork segments (through reltoastrelid).
    pub toast_segments: Option<Vec<PathBuf>>,
    /// What could not be read or is worth knowing (catalog rows skipped…).
    pub notes: Vec<String>,
}

/// What pg_xact says about a transaction id: `Some(true)` committed,
/// `Some(false)` aborted, `None` unknown.
pub(crate) type XactLookup = Box<dyn Fn(u32) -> Option<bool> + Send + Sync>;

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
    xact: Option<XactLookup>,
    /// What was found wrong while opening (pg_control, the shared map).
    pub(crate) notes: Vec<String>,
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
                datadir.display()
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
                    version_path.display()
                ))
            })?;
        if !(MAJORS.0..=MAJORS.1).contains(&major) {
            return Err(ClusterError::NotACluster(format!(
                "{}: PostgreSQL {version}: catalogs are read for {} through {}",
                datadir.display(),
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
                        control_path.display(),
                        crc_mismatch(&image)
                    ));
                }
                Some(image)
            }
            Ok(Err(e)) => {
                notes.push(format!(
                    "{}: {e}; block size 8192 assumed",
                    control_path.display()
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
        Ok(Cluster {
            datadir: datadir.to_path_buf(),
            version,
            major,
            block_size,
            relseg_size,
            control,
            global_map,
            xact: None,
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

    /// Decide catalog rows whose hint bits are not set with what pg_xact says.
    #[allow(dead_code)]
    pub(crate) fn set_xact_lookup(&mut self, lookup: XactLookup) {
        self.xact = Some(lookup);
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

    /// The live rows of a catalog relation stored in `dir/filenode`.
    fn read_catalog(
        &self,
        catalog: Catalog,
        dir: &Path,
        filenode: u32,
        notes: &mut Vec<String>,
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
                dir.display(),
                filenode,
                catalog.name()
            )));
        }
        let unknown = |_: u32| None;
        let xact: &dyn Fn(u32) -> Option<bool> = match &self.xact {
            Some(f) => f.as_ref(),
            None => &unknown,
        };
        let mut rows = Vec::new();
        let mut total = 0u64;
        for (segno, path) in segments.iter().enumerate() {
            let bytes = read_small(path, MAX_CATALOG_BYTES.saturating_sub(total))?;
            total += bytes.len() as u64;
            if bytes.len() % self.block_size != 0 {
                notes.push(format!(
                    "{}: {} bytes is not a whole number of {}-byte blocks; the last {} bytes of {} are not read",
                    path.display(),
                    bytes.len(),
                    self.block_size,
                    bytes.len() % self.block_size,
                    catalog.name()
                ));
            }
            for (i, page) in bytes.chunks_exact(self.block_size).enumerate() {
                let blkno = segno as u64 * self.relseg_size + i as u64;
                page_rows(catalog, &schema, blkno, page, xact, &mut rows, notes);
            }
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

    /// The live rows of pg_database.
    pub(crate) fn databases(
        &self,
        notes: &mut Vec<String>,
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
        )?;
        Ok(one_per_key(
            Catalog::Database,
            rows,
            |r| r.oid("oid"),
            notes,
        ))
    }

    /// Find `qualified_name` (`schema.table`, or `table` in `public`; double
    /// quotes keep dots and case) in `database`.
    pub(crate) fn find_table(
        &self,
        database: &str,
        qualified_name: &str,
    ) -> Result<TableInfo, ClusterError> {
        let (schema_name, name) = split_qualified(qualified_name)?;
        let mut notes = self.notes.clone();
        let dbs = self.databases(&mut notes)?;
        let db = dbs
            .iter()
            .find(|r| r.text("datname") == Some(database))
            .ok_or_else(|| {
                let names: Vec<&str> = dbs.iter().filter_map(|r| r.text("datname")).collect();
                ClusterError::NotFound(format!(
                    "database {database:?} is not in pg_database (it has: {})",
                    names.join(", ")
                ))
            })?;
        let dboid = db
            .oid("oid")
            .ok_or_else(|| ClusterError::Catalog(format!("pg_database {}: no oid", db.place())))?;
        let db_tablespace = db.oid("dattablespace").unwrap_or(DEFAULT_TABLESPACE);
        let db_dir = self.database_dir(db_tablespace, dboid);
        let map_path = db_dir.join("pg_filenode.map");
        let db_map = read_map(&map_path, &mut notes);
        let what = format!("{}", map_path.display());
        let class_node = Self::mapped(db_map.as_ref(), Catalog::Class, &what, &mut notes);
        let class_rows = self.read_catalog(Catalog::Class, &db_dir, class_node, &mut notes)?;
        let classes = one_per_key(Catalog::Class, class_rows, |r| r.oid("oid"), &mut notes);
        let by_oid: HashMap<u32, &CatalogRow> = classes
            .iter()
            .filter_map(|r| Some((r.oid("oid")?, r)))
            .collect();

        // pg_namespace is not mapped: its file is in its pg_class row.
        let ns_node = unmapped_node(&by_oid, Catalog::Namespace, &mut notes);
        let ns_rows = self.read_catalog(Catalog::Namespace, &db_dir, ns_node, &mut notes)?;
        let namespaces = one_per_key(Catalog::Namespace, ns_rows, |r| r.oid("oid"), &mut notes);
        let nsp = namespaces
            .iter()
            .find(|r| r.text("nspname") == Some(schema_name.as_str()))
            .and_then(|r| r.oid("oid"))
            .ok_or_else(|| {
                ClusterError::NotFound(format!(
                    "schema {schema_name:?} is not in pg_namespace of database {database:?}"
                ))
            })?;
        let rel = classes
            .iter()
            .find(|r| {
                r.text("relname") == Some(name.as_str()) && r.oid("relnamespace") == Some(nsp)
            })
            .ok_or_else(|| {
                ClusterError::NotFound(format!(
                    "table {schema_name}.{name} is not in pg_class of database {database:?}"
                ))
            })?;
        let oid = rel.oid("oid").unwrap_or(0);
        let relkind = rel.char("relkind").unwrap_or('?');
        if !matches!(relkind, 'r' | 't' | 'm') {
            return Err(ClusterError::NotFound(format!(
                "{schema_name}.{name} has relkind '{relkind}', not a table with heap storage \
                 (r, t or m)"
            )));
        }
        let (relfilenode, dir) =
            self.relation_file(rel, dboid, db_tablespace, db_map.as_ref(), &mut notes)?;
        let main_segments = self.segments(&dir, relfilenode);
        if main_segments.is_empty() {
            notes.push(format!(
                "{}: file {relfilenode} of {schema_name}.{name} does not exist",
                dir.display()
            ));
        }

        // Columns: pg_attribute rows of this relation, pg_type for their types.
        let att_node = Self::mapped(db_map.as_ref(), Catalog::Attribute, &what, &mut notes);
        let att_rows = self.read_catalog(Catalog::Attribute, &db_dir, att_node, &mut notes)?;
        let type_node = Self::mapped(db_map.as_ref(), Catalog::Type, &what, &mut notes);
        let type_rows = self.read_catalog(Catalog::Type, &db_dir, type_node, &mut notes)?;
        let types: HashMap<u32, TypeRow> =
            one_per_key(Catalog::Type, type_rows, |r| r.oid("oid"), &mut notes)
                .iter()
                .filter_map(TypeRow::from_row)
                .map(|t| (t.oid, t))
                .collect();
        // Composite types' attributes: pg_attribute rows of their typrelid.
        let composite_rels: std::collections::HashSet<u32> = types
            .values()
            .filter(|t| t.typtype == 'c' && t.typrelid != 0)
            .map(|t| t.typrelid)
            .collect();
        let (att_rows, other_atts): (Vec<CatalogRow>, Vec<CatalogRow>) = att_rows
            .into_iter()
            .filter(|r| r.num("attnum").is_some_and(|n| n > 0))
            .filter(|r| {
                r.oid("attrelid")
                    .is_some_and(|a| a == oid || composite_rels.contains(&a))
            })
            .partition(|r| r.oid("attrelid") == Some(oid));
        let mut cat = TypeCatalog {
            types,
            ..TypeCatalog::default()
        };
        for row in one_per_key(
            Catalog::Attribute,
            other_atts,
            |r| Some((r.oid("attrelid")?, r.num("attnum")?)),
            &mut notes,
        ) {
            if let Some(rel) = row.oid("attrelid") {
                cat.attributes.entry(rel).or_default().push(row);
            }
        }
        let mut atts = one_per_key(
            Catalog::Attribute,
            att_rows,
            |r| r.num("attnum"),
            &mut notes,
        );
        atts.sort_by_key(|r| r.num("attnum"));
        // Enum labels and range subtypes, when the database has such types.
        let used = used_typtypes(&atts, &cat);
        if used.contains(&'e') {
            let node = unmapped_node(&by_oid, Catalog::Enum, &mut notes);
            match self.read_catalog(Catalog::Enum, &db_dir, node, &mut notes) {
                Ok(rows) => {
                    for row in one_per_key(Catalog::Enum, rows, |r| r.oid("oid"), &mut notes) {
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
                Err(e) => notes.push(format!("{e}; enum values are shown as hex")),
            }
        }
        if used.contains(&'r') || used.contains(&'m') {
            let node = unmapped_node(&by_oid, Catalog::Range, &mut notes);
            match self.read_catalog(Catalog::Range, &db_dir, node, &mut notes) {
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
                Err(e) => notes.push(format!("{e}; range values are shown as hex")),
            }
        }
        let mut columns = Schema::default();
        let relnatts = rel.num("relnatts").unwrap_or(atts.len() as i64);
        for (i, row) in atts.iter().enumerate() {
            let attnum = row.num("attnum").unwrap_or(0);
            if attnum != i as i64 + 1 {
                return Err(ClusterError::Catalog(format!(
                    "pg_attribute of {schema_name}.{name}: attribute {} is missing (next read: \
                     attnum {attnum}); a catalog row is unreadable — give the columns with --columns",
                    i + 1
                )));
            }
            let col = column_from_attribute(row, &cat, &mut notes).ok_or_else(|| {
                ClusterError::Catalog(format!(
                    "pg_attribute {} (attnum {attnum} of {schema_name}.{name}) is unreadable; \
                     give the columns with --columns",
                    row.place()
                ))
            })?;
            columns.columns.push(col);
        }
        if columns.columns.len() as i64 != relnatts {
            return Err(ClusterError::Catalog(format!(
                "pg_attribute has {} attributes of {schema_name}.{name}, pg_class.relnatts says \
                 {relnatts}: a catalog row is unreadable — give the columns with --columns",
                columns.columns.len()
            )));
        }

        let toast_segments = match rel.oid("reltoastrelid").filter(|&t| t != 0) {
            None => None,
            Some(toid) => match by_oid.get(&toid) {
                Some(trow) => {
                    let (tnode, tdir) = self.relation_file(
                        trow,
                        dboid,
                        db_tablespace,
                        db_map.as_ref(),
                        &mut notes,
                    )?;
                    Some(self.segments(&tdir, tnode))
                }
                None => {
                    notes.push(format!(
                        "the TOAST table {toid} of {schema_name}.{name} is not in pg_class; \
                         out-of-line values are not read"
                    ));
                    None
                }
            },
        };
        Ok(TableInfo {
            database_oid: dboid,
            oid,
            relfilenode,
            schema_name,
            name,
            main_segments,
            columns,
            toast_segments,
            notes,
        })
    }

    /// A relation's file number and directory, from its pg_class row.
    fn relation_file(
        &self,
        rel: &CatalogRow,
        dboid: u32,
        db_tablespace: u32,
        db_map: Option<&RelMapFile>,
        notes: &mut Vec<String>,
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
        let _ = notes;
        Ok((node, self.database_dir(ts, dboid)))
    }
}

/// The `typtype`s of the columns' types and of every type they are made of
/// (array elements, domains' base types, composites' attributes).
fn used_typtypes(atts: &[CatalogRow], cat: &TypeCatalog) -> std::collections::HashSet<char> {
    let mut seen = std::collections::HashSet::new();
    let mut out = std::collections::HashSet::new();
    let mut todo: Vec<u32> = atts.iter().filter_map(|r| r.oid("atttypid")).collect();
    while let Some(oid) = todo.pop() {
        if !seen.insert(oid) || seen.len() > 100_000 {
            continue;
        }
        let Some(t) = cat.types.get(&oid) else {
            continue;
        };
        out.insert(t.typtype);
        todo.extend([t.typelem, t.typbasetype].into_iter().filter(|&o| o != 0));
        if let Some(rows) = cat.attributes.get(&t.typrelid) {
            todo.extend(rows.iter().filter_map(|r| r.oid("atttypid")));
        }
    }
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
                    path.display(),
                    m.crc_computed,
                    m.crc
                ));
            }
            Some(m)
        }
        Ok(Err(e)) => {
            notes.push(format!("{}: {e}", path.display()));
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
fn split_qualified(q: &str) -> Result<(String, String), ClusterError> {
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
        _ => Err(ClusterError::NotFound(format!(
            "--table {q:?}: give SCHEMA.NAME (or NAME, in public)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
