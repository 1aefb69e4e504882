//! The system catalogs a table lookup reads, decoded from their heap pages
//! with fixed per-major column lists (no I/O here: `cluster` finds
//! and reads the files).
//!
//! The catalogs' own rows are laid out like any table's: their columns, in
//! attnum order, are the `CATALOG(...)` structs of catalog/pg_database.h,
//! pg_class.h, pg_namespace.h, pg_attribute.h and pg_type.h of each major,
//! and of the catalogs read for some column types (pg_enum, pg_range,
//! pg_authid, and the names reg* types print: pg_proc, pg_operator,
//! pg_collation, pg_ts_config, pg_ts_dict, of which only the columns up to
//! the last one used) ([`LAYOUTS`], taken from each major's own pg_attribute
//! and checked against it by the fixtures). Before PostgreSQL 12 a catalog row's `oid` is not a
//! column but the tuple header's `t_oid` (WITH OIDS).
//!
//! Which versions of a row count: the rows a query would see once every
//! transaction has ended, by the rules export's `--rows visible` follows
//! ([`super::visibility::decide`]): hint bits first, and where they are
//! unset, the data directory's pg_xact and pg_multixact, which a caller
//! passes as an [`XactLookup`]. So the old version of a row that an aborted
//! `ALTER TABLE`, `RENAME` or `TRUNCATE` updated is the one that counts, and
//! the aborted new version is not. Where neither the hint bits nor pg_xact
//! decide (no pg_xact given, or it does not reach the xid), the rule of a
//! stopped cluster's last DDL applies, and the caller is told how many rows
//! were decided so:
//!
//! * xmin: a version whose `t_infomask` says HEAP_XMIN_INVALID without
//!   HEAP_XMIN_COMMITTED (an aborted insert) is dead; any other xmin — hinted
//!   committed, frozen, or not hinted — counts as committed, unless pg_xact
//!   says it did not commit;
//! * xmax: 0, HEAP_XMAX_INVALID, a lock only (HEAP_XMAX_LOCK_ONLY, or
//!   HEAP_XMAX_EXCL_LOCK alone) or a multixact: not deleted; HEAP_XMAX_COMMITTED:
//!   deleted; an xmax with no hint bit is taken as committed (the last DDL
//!   before a shutdown leaves exactly such rows), unless pg_xact says it did
//!   not commit;
//! * when two versions of one row (same key) are still live after that, the
//!   one with the newest xmin wins and a note says so.
//!
//! A page's checksum is checked only when the cluster has data checksums
//! (pg_control's `data_checksum_version`): after `pg_checksums --disable`
//! the server rewrites pages without updating `pd_checksum`, so a stale one
//! is not damage.

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::postgres::types::{
    Align, CatalogNames, CollName, Column, ExtType, OperName, PgType, ProcName, Schema, TypeName,
    TypeSpec,
};
use crate::model::postgres::{Attr, PageKind, Storage};
use crate::model::Severity;
use crate::reader::Endian;

use super::attrs;
use super::page::{parse_page_without_spans, PageOptions};
use super::schema::parse_columns;
use super::values;
use super::visibility::{decide, RowStatus, XactLookup};
use crate::model::postgres::flags::{
    HEAP_XMAX_COMMITTED, HEAP_XMAX_EXCL_LOCK, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI,
    HEAP_XMAX_KEYSHR_LOCK, HEAP_XMAX_LOCK_ONLY, HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID,
};
use crate::model::postgres::ItemPointer;

/// The catalogs read for a table lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Catalog {
    /// `pg_database` (shared, mapped).
    Database,
    /// `pg_class` (mapped).
    Class,
    /// `pg_namespace` (not mapped: its file is in pg_class).
    Namespace,
    /// `pg_attribute` (mapped).
    Attribute,
    /// `pg_type` (mapped).
    Type,
    /// `pg_enum` (not mapped): enum labels.
    Enum,
    /// `pg_range` (not mapped): range types' subtypes.
    Range,
    /// `pg_authid` (shared, mapped): role names, for `aclitem` values.
    Authid,
    /// `pg_proc` (mapped): function names, for `regproc`/`regprocedure`.
    Proc,
    /// `pg_operator` (not mapped): operator names, for `regoper`/`regoperator`.
    Operator,
    /// `pg_collation` (not mapped): collation names, for `regcollation`.
    Collation,
    /// `pg_ts_config` (not mapped): text search configurations, for `regconfig`.
    TsConfig,
    /// `pg_ts_dict` (not mapped): text search dictionaries, for `regdictionary`.
    TsDict,
}

impl Catalog {
    /// The catalog's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Catalog::Database => "pg_database",
            Catalog::Class => "pg_class",
            Catalog::Namespace => "pg_namespace",
            Catalog::Attribute => "pg_attribute",
            Catalog::Type => "pg_type",
            Catalog::Enum => "pg_enum",
            Catalog::Range => "pg_range",
            Catalog::Authid => "pg_authid",
            Catalog::Proc => "pg_proc",
            Catalog::Operator => "pg_operator",
            Catalog::Collation => "pg_collation",
            Catalog::TsConfig => "pg_ts_config",
            Catalog::TsDict => "pg_ts_dict",
        }
    }

    /// Its pg_class OID (also its relfilenode as initdb creates it).
    pub(crate) fn oid(self) -> u32 {
        match self {
            Catalog::Database => 1262,
            Catalog::Class => 1259,
            Catalog::Namespace => 2615,
            Catalog::Attribute => 1249,
            Catalog::Type => 1247,
            Catalog::Enum => 3501,
            Catalog::Range => 3541,
            Catalog::Authid => 1260,
            Catalog::Proc => 1255,
            Catalog::Operator => 2617,
            Catalog::Collation => 3456,
            Catalog::TsConfig => 3602,
            Catalog::TsDict => 3600,
        }
    }
}

/// The first and last major this reader has catalog layouts for.
pub(crate) const MAJORS: (u32, u32) = (10, 18);

/// (catalog, first major, last major, columns as `--columns` takes them).
pub(crate) const LAYOUTS: &[(Catalog, u32, u32, &str)] = &[
    (
        Catalog::Database,
        10,
        11,
        "datname name:64:c, datdba oid:4:i, encoding integer:4:i, datcollate name:64:c, \
         datctype name:64:c, datistemplate boolean:1:c, datallowconn boolean:1:c, \
         datconnlimit integer:4:i, datlastsysoid oid:4:i, datfrozenxid xid:4:i, \
         datminmxid xid:4:i, dattablespace oid:4:i, datacl aclitem[]:-1:i",
    ),
    (
        Catalog::Database,
        12,
        14,
        "oid oid:4:i, datname name:64:c, datdba oid:4:i, encoding integer:4:i, \
         datcollate name:64:c, datctype name:64:c, datistemplate boolean:1:c, \
         datallowconn boolean:1:c, datconnlimit integer:4:i, datlastsysoid oid:4:i, \
         datfrozenxid xid:4:i, datminmxid xid:4:i, dattablespace oid:4:i, \
         datacl aclitem[]:-1:i",
    ),
    (
        Catalog::Database,
        15,
        15,
        "oid oid:4:i, datname name:64:c, datdba oid:4:i, encoding integer:4:i, \
         datlocprovider \"char\":1:c, datistemplate boolean:1:c, datallowconn boolean:1:c, \
         datconnlimit integer:4:i, datfrozenxid xid:4:i, datminmxid xid:4:i, \
         dattablespace oid:4:i, datcollate text:-1:i, datctype text:-1:i, \
         daticulocale text:-1:i, datcollversion text:-1:i, datacl aclitem[]:-1:i",
    ),
    (
        Catalog::Database,
        16,
        16,
        "oid oid:4:i, datname name:64:c, datdba oid:4:i, encoding integer:4:i, \
         datlocprovider \"char\":1:c, datistemplate boolean:1:c, datallowconn boolean:1:c, \
         datconnlimit integer:4:i, datfrozenxid xid:4:i, datminmxid xid:4:i, \
         dattablespace oid:4:i, datcollate text:-1:i, datctype text:-1:i, \
         daticulocale text:-1:i, daticurules text:-1:i, datcollversion text:-1:i, \
         datacl aclitem[]:-1:d",
    ),
    (
        Catalog::Database,
        17,
        18,
        "oid oid:4:i, datname name:64:c, datdba oid:4:i, encoding integer:4:i, \
         datlocprovider \"char\":1:c, datistemplate boolean:1:c, datallowconn boolean:1:c, \
         dathasloginevt boolean:1:c, datconnlimit integer:4:i, datfrozenxid xid:4:i, \
         datminmxid xid:4:i, dattablespace oid:4:i, datcollate text:-1:i, \
         datctype text:-1:i, datlocale text:-1:i, daticurules text:-1:i, \
         datcollversion text:-1:i, datacl aclitem[]:-1:d",
    ),
    (
        Catalog::Class,
        10,
        10,
        "relname name:64:c, relnamespace oid:4:i, reltype oid:4:i, reloftype oid:4:i, \
         relowner oid:4:i, relam oid:4:i, relfilenode oid:4:i, reltablespace oid:4:i, \
         relpages integer:4:i, reltuples real:4:i, relallvisible integer:4:i, \
         reltoastrelid oid:4:i, relhasindex boolean:1:c, relisshared boolean:1:c, \
         relpersistence \"char\":1:c, relkind \"char\":1:c, relnatts smallint:2:s, \
         relchecks smallint:2:s, relhasoids boolean:1:c, relhaspkey boolean:1:c, \
         relhasrules boolean:1:c, relhastriggers boolean:1:c, \
         relhassubclass boolean:1:c, relrowsecurity boolean:1:c, \
         relforcerowsecurity boolean:1:c, relispopulated boolean:1:c, \
         relreplident \"char\":1:c, relispartition boolean:1:c, relfrozenxid xid:4:i, \
         relminmxid xid:4:i, relacl aclitem[]:-1:i, reloptions text[]:-1:i, \
         relpartbound pg_node_tree:-1:i",
    ),
    (
        Catalog::Class,
        11,
        11,
        "relname name:64:c, relnamespace oid:4:i, reltype oid:4:i, reloftype oid:4:i, \
         relowner oid:4:i, relam oid:4:i, relfilenode oid:4:i, reltablespace oid:4:i, \
         relpages integer:4:i, reltuples real:4:i, relallvisible integer:4:i, \
         reltoastrelid oid:4:i, relhasindex boolean:1:c, relisshared boolean:1:c, \
         relpersistence \"char\":1:c, relkind \"char\":1:c, relnatts smallint:2:s, \
         relchecks smallint:2:s, relhasoids boolean:1:c, relhasrules boolean:1:c, \
         relhastriggers boolean:1:c, relhassubclass boolean:1:c, \
         relrowsecurity boolean:1:c, relforcerowsecurity boolean:1:c, \
         relispopulated boolean:1:c, relreplident \"char\":1:c, \
         relispartition boolean:1:c, relrewrite oid:4:i, relfrozenxid xid:4:i, \
         relminmxid xid:4:i, relacl aclitem[]:-1:i, reloptions text[]:-1:i, \
         relpartbound pg_node_tree:-1:i",
    ),
    (
        Catalog::Class,
        12,
        15,
        "oid oid:4:i, relname name:64:c, relnamespace oid:4:i, reltype oid:4:i, \
         reloftype oid:4:i, relowner oid:4:i, relam oid:4:i, relfilenode oid:4:i, \
         reltablespace oid:4:i, relpages integer:4:i, reltuples real:4:i, \
         relallvisible integer:4:i, reltoastrelid oid:4:i, relhasindex boolean:1:c, \
         relisshared boolean:1:c, relpersistence \"char\":1:c, relkind \"char\":1:c, \
         relnatts smallint:2:s, relchecks smallint:2:s, relhasrules boolean:1:c, \
         relhastriggers boolean:1:c, relhassubclass boolean:1:c, \
         relrowsecurity boolean:1:c, relforcerowsecurity boolean:1:c, \
         relispopulated boolean:1:c, relreplident \"char\":1:c, \
         relispartition boolean:1:c, relrewrite oid:4:i, relfrozenxid xid:4:i, \
         relminmxid xid:4:i, relacl aclitem[]:-1:i, reloptions text[]:-1:i, \
         relpartbound pg_node_tree:-1:i",
    ),
    (
        Catalog::Class,
        16,
        17,
        "oid oid:4:i, relname name:64:c, relnamespace oid:4:i, reltype oid:4:i, \
         reloftype oid:4:i, relowner oid:4:i, relam oid:4:i, relfilenode oid:4:i, \
         reltablespace oid:4:i, relpages integer:4:i, reltuples real:4:i, \
         relallvisible integer:4:i, reltoastrelid oid:4:i, relhasindex boolean:1:c, \
         relisshared boolean:1:c, relpersistence \"char\":1:c, relkind \"char\":1:c, \
         relnatts smallint:2:s, relchecks smallint:2:s, relhasrules boolean:1:c, \
         relhastriggers boolean:1:c, relhassubclass boolean:1:c, \
         relrowsecurity boolean:1:c, relforcerowsecurity boolean:1:c, \
         relispopulated boolean:1:c, relreplident \"char\":1:c, \
         relispartition boolean:1:c, relrewrite oid:4:i, relfrozenxid xid:4:i, \
         relminmxid xid:4:i, relacl aclitem[]:-1:d, reloptions text[]:-1:i, \
         relpartbound pg_node_tree:-1:i",
    ),
    (
        Catalog::Class,
        18,
        18,
        "oid oid:4:i, relname name:64:c, relnamespace oid:4:i, reltype oid:4:i, \
         reloftype oid:4:i, relowner oid:4:i, relam oid:4:i, relfilenode oid:4:i, \
         reltablespace oid:4:i, relpages integer:4:i, reltuples real:4:i, \
         relallvisible integer:4:i, relallfrozen integer:4:i, reltoastrelid oid:4:i, \
         relhasindex boolean:1:c, relisshared boolean:1:c, relpersistence \"char\":1:c, \
         relkind \"char\":1:c, relnatts smallint:2:s, relchecks smallint:2:s, \
         relhasrules boolean:1:c, relhastriggers boolean:1:c, \
         relhassubclass boolean:1:c, relrowsecurity boolean:1:c, \
         relforcerowsecurity boolean:1:c, relispopulated boolean:1:c, \
         relreplident \"char\":1:c, relispartition boolean:1:c, relrewrite oid:4:i, \
         relfrozenxid xid:4:i, relminmxid xid:4:i, relacl aclitem[]:-1:d, \
         reloptions text[]:-1:i, relpartbound pg_node_tree:-1:i",
    ),
    (
        Catalog::Namespace,
        10,
        11,
        "nspname name:64:c, nspowner oid:4:i, nspacl aclitem[]:-1:i",
    ),
    (
        Catalog::Namespace,
        12,
        15,
        "oid oid:4:i, nspname name:64:c, nspowner oid:4:i, nspacl aclitem[]:-1:i",
    ),
    (
        Catalog::Namespace,
        16,
        18,
        "oid oid:4:i, nspname name:64:c, nspowner oid:4:i, nspacl aclitem[]:-1:d",
    ),
    (
        Catalog::Attribute,
        10,
        10,
        "attrelid oid:4:i, attname name:64:c, atttypid oid:4:i, \
         attstattarget integer:4:i, attlen smallint:2:s, attnum smallint:2:s, \
         attndims integer:4:i, attcacheoff integer:4:i, atttypmod integer:4:i, \
         attbyval boolean:1:c, attstorage \"char\":1:c, attalign \"char\":1:c, \
         attnotnull boolean:1:c, atthasdef boolean:1:c, attidentity \"char\":1:c, \
         attisdropped boolean:1:c, attislocal boolean:1:c, attinhcount integer:4:i, \
         attcollation oid:4:i, attacl aclitem[]:-1:i, attoptions text[]:-1:i, \
         attfdwoptions text[]:-1:i",
    ),
    (
        Catalog::Attribute,
        11,
        11,
        "attrelid oid:4:i, attname name:64:c, atttypid oid:4:i, \
         attstattarget integer:4:i, attlen smallint:2:s, attnum smallint:2:s, \
         attndims integer:4:i, attcacheoff integer:4:i, atttypmod integer:4:i, \
         attbyval boolean:1:c, attstorage \"char\":1:c, attalign \"char\":1:c, \
         attnotnull boolean:1:c, atthasdef boolean:1:c, atthasmissing boolean:1:c, \
         attidentity \"char\":1:c, attisdropped boolean:1:c, attislocal boolean:1:c, \
         attinhcount integer:4:i, attcollation oid:4:i, attacl aclitem[]:-1:i, \
         attoptions text[]:-1:i, attfdwoptions text[]:-1:i, attmissingval anyarray:-1:d",
    ),
    (
        Catalog::Attribute,
        12,
        13,
        "attrelid oid:4:i, attname name:64:c, atttypid oid:4:i, \
         attstattarget integer:4:i, attlen smallint:2:s, attnum smallint:2:s, \
         attndims integer:4:i, attcacheoff integer:4:i, atttypmod integer:4:i, \
         attbyval boolean:1:c, attstorage \"char\":1:c, attalign \"char\":1:c, \
         attnotnull boolean:1:c, atthasdef boolean:1:c, atthasmissing boolean:1:c, \
         attidentity \"char\":1:c, attgenerated \"char\":1:c, attisdropped boolean:1:c, \
         attislocal boolean:1:c, attinhcount integer:4:i, attcollation oid:4:i, \
         attacl aclitem[]:-1:i, attoptions text[]:-1:i, attfdwoptions text[]:-1:i, \
         attmissingval anyarray:-1:d",
    ),
    (
        Catalog::Attribute,
        14,
        15,
        "attrelid oid:4:i, attname name:64:c, atttypid oid:4:i, \
         attstattarget integer:4:i, attlen smallint:2:s, attnum smallint:2:s, \
         attndims integer:4:i, attcacheoff integer:4:i, atttypmod integer:4:i, \
         attbyval boolean:1:c, attalign \"char\":1:c, attstorage \"char\":1:c, \
         attcompression \"char\":1:c, attnotnull boolean:1:c, atthasdef boolean:1:c, \
         atthasmissing boolean:1:c, attidentity \"char\":1:c, attgenerated \"char\":1:c, \
         attisdropped boolean:1:c, attislocal boolean:1:c, attinhcount integer:4:i, \
         attcollation oid:4:i, attacl aclitem[]:-1:i, attoptions text[]:-1:i, \
         attfdwoptions text[]:-1:i, attmissingval anyarray:-1:d",
    ),
    (
        Catalog::Attribute,
        16,
        16,
        "attrelid oid:4:i, attname name:64:c, atttypid oid:4:i, attlen smallint:2:s, \
         attnum smallint:2:s, attcacheoff integer:4:i, atttypmod integer:4:i, \
         attndims smallint:2:s, attbyval boolean:1:c, attalign \"char\":1:c, \
         attstorage \"char\":1:c, attcompression \"char\":1:c, attnotnull boolean:1:c, \
         atthasdef boolean:1:c, atthasmissing boolean:1:c, attidentity \"char\":1:c, \
         attgenerated \"char\":1:c, attisdropped boolean:1:c, attislocal boolean:1:c, \
         attinhcount smallint:2:s, attstattarget smallint:2:s, attcollation oid:4:i, \
         attacl aclitem[]:-1:d, attoptions text[]:-1:i, attfdwoptions text[]:-1:i, \
         attmissingval anyarray:-1:d",
    ),
    (
        Catalog::Attribute,
        17,
        17,
        "attrelid oid:4:i, attname name:64:c, atttypid oid:4:i, attlen smallint:2:s, \
         attnum smallint:2:s, attcacheoff integer:4:i, atttypmod integer:4:i, \
         attndims smallint:2:s, attbyval boolean:1:c, attalign \"char\":1:c, \
         attstorage \"char\":1:c, attcompression \"char\":1:c, attnotnull boolean:1:c, \
         atthasdef boolean:1:c, atthasmissing boolean:1:c, attidentity \"char\":1:c, \
         attgenerated \"char\":1:c, attisdropped boolean:1:c, attislocal boolean:1:c, \
         attinhcount smallint:2:s, attcollation oid:4:i, attstattarget smallint:2:s, \
         attacl aclitem[]:-1:d, attoptions text[]:-1:i, attfdwoptions text[]:-1:i, \
         attmissingval anyarray:-1:d",
    ),
    (
        Catalog::Attribute,
        18,
        18,
        "attrelid oid:4:i, attname name:64:c, atttypid oid:4:i, attlen smallint:2:s, \
         attnum smallint:2:s, atttypmod integer:4:i, attndims smallint:2:s, \
         attbyval boolean:1:c, attalign \"char\":1:c, attstorage \"char\":1:c, \
         attcompression \"char\":1:c, attnotnull boolean:1:c, atthasdef boolean:1:c, \
         atthasmissing boolean:1:c, attidentity \"char\":1:c, attgenerated \"char\":1:c, \
         attisdropped boolean:1:c, attislocal boolean:1:c, attinhcount smallint:2:s, \
         attcollation oid:4:i, attstattarget smallint:2:s, attacl aclitem[]:-1:d, \
         attoptions text[]:-1:i, attfdwoptions text[]:-1:i, attmissingval anyarray:-1:d",
    ),
    (
        Catalog::Type,
        10,
        11,
        "typname name:64:c, typnamespace oid:4:i, typowner oid:4:i, typlen smallint:2:s, \
         typbyval boolean:1:c, typtype \"char\":1:c, typcategory \"char\":1:c, \
         typispreferred boolean:1:c, typisdefined boolean:1:c, typdelim \"char\":1:c, \
         typrelid oid:4:i, typelem oid:4:i, typarray oid:4:i, typinput regproc:4:i, \
         typoutput regproc:4:i, typreceive regproc:4:i, typsend regproc:4:i, \
         typmodin regproc:4:i, typmodout regproc:4:i, typanalyze regproc:4:i, \
         typalign \"char\":1:c, typstorage \"char\":1:c, typnotnull boolean:1:c, \
         typbasetype oid:4:i, typtypmod integer:4:i, typndims integer:4:i, \
         typcollation oid:4:i, typdefaultbin pg_node_tree:-1:i, typdefault text:-1:i, \
         typacl aclitem[]:-1:i",
    ),
    (
        Catalog::Type,
        12,
        13,
        "oid oid:4:i, typname name:64:c, typnamespace oid:4:i, typowner oid:4:i, \
         typlen smallint:2:s, typbyval boolean:1:c, typtype \"char\":1:c, \
         typcategory \"char\":1:c, typispreferred boolean:1:c, typisdefined boolean:1:c, \
         typdelim \"char\":1:c, typrelid oid:4:i, typelem oid:4:i, typarray oid:4:i, \
         typinput regproc:4:i, typoutput regproc:4:i, typreceive regproc:4:i, \
         typsend regproc:4:i, typmodin regproc:4:i, typmodout regproc:4:i, \
         typanalyze regproc:4:i, typalign \"char\":1:c, typstorage \"char\":1:c, \
         typnotnull boolean:1:c, typbasetype oid:4:i, typtypmod integer:4:i, \
         typndims integer:4:i, typcollation oid:4:i, typdefaultbin pg_node_tree:-1:i, \
         typdefault text:-1:i, typacl aclitem[]:-1:i",
    ),
    (
        Catalog::Type,
        14,
        15,
        "oid oid:4:i, typname name:64:c, typnamespace oid:4:i, typowner oid:4:i, \
         typlen smallint:2:s, typbyval boolean:1:c, typtype \"char\":1:c, \
         typcategory \"char\":1:c, typispreferred boolean:1:c, typisdefined boolean:1:c, \
         typdelim \"char\":1:c, typrelid oid:4:i, typsubscript regproc:4:i, \
         typelem oid:4:i, typarray oid:4:i, typinput regproc:4:i, typoutput regproc:4:i, \
         typreceive regproc:4:i, typsend regproc:4:i, typmodin regproc:4:i, \
         typmodout regproc:4:i, typanalyze regproc:4:i, typalign \"char\":1:c, \
         typstorage \"char\":1:c, typnotnull boolean:1:c, typbasetype oid:4:i, \
         typtypmod integer:4:i, typndims integer:4:i, typcollation oid:4:i, \
         typdefaultbin pg_node_tree:-1:i, typdefault text:-1:i, typacl aclitem[]:-1:i",
    ),
    (
        Catalog::Type,
        16,
        18,
        "oid oid:4:i, typname name:64:c, typnamespace oid:4:i, typowner oid:4:i, \
         typlen smallint:2:s, typbyval boolean:1:c, typtype \"char\":1:c, \
         typcategory \"char\":1:c, typispreferred boolean:1:c, typisdefined boolean:1:c, \
         typdelim \"char\":1:c, typrelid oid:4:i, typsubscript regproc:4:i, \
         typelem oid:4:i, typarray oid:4:i, typinput regproc:4:i, typoutput regproc:4:i, \
         typreceive regproc:4:i, typsend regproc:4:i, typmodin regproc:4:i, \
         typmodout regproc:4:i, typanalyze regproc:4:i, typalign \"char\":1:c, \
         typstorage \"char\":1:c, typnotnull boolean:1:c, typbasetype oid:4:i, \
         typtypmod integer:4:i, typndims integer:4:i, typcollation oid:4:i, \
         typdefaultbin pg_node_tree:-1:i, typdefault text:-1:i, typacl aclitem[]:-1:d",
    ),
    (
        Catalog::Enum,
        10,
        11,
        "enumtypid oid:4:i, enumsortorder real:4:i, enumlabel name:64:c",
    ),
    (
        Catalog::Enum,
        12,
        18,
        "oid oid:4:i, enumtypid oid:4:i, enumsortorder real:4:i, enumlabel name:64:c",
    ),
    (
        Catalog::Range,
        10,
        13,
        "rngtypid oid:4:i, rngsubtype oid:4:i, rngcollation oid:4:i, rngsubopc oid:4:i, \
         rngcanonical regproc:4:i, rngsubdiff regproc:4:i",
    ),
    (
        Catalog::Range,
        14,
        18,
        "rngtypid oid:4:i, rngsubtype oid:4:i, rngmultitypid oid:4:i, \
         rngcollation oid:4:i, rngsubopc oid:4:i, rngcanonical regproc:4:i, \
         rngsubdiff regproc:4:i",
    ),
    // catalog/pg_authid.h, unchanged from 10 to 18 but for the oid column
    // (12+); checked against PostgreSQL 15's pg_attribute
    // (fixtures/postgres/printed/authid_layout.txt).
    (
        Catalog::Authid,
        10,
        11,
        "rolname name:64:c, rolsuper boolean:1:c, rolinherit boolean:1:c, \
         rolcreaterole boolean:1:c, rolcreatedb boolean:1:c, rolcanlogin boolean:1:c, \
         rolreplication boolean:1:c, rolbypassrls boolean:1:c, rolconnlimit integer:4:i, \
         rolpassword text:-1:i, rolvaliduntil timestamp with time zone:8:d",
    ),
    (
        Catalog::Authid,
        12,
        18,
        "oid oid:4:i, rolname name:64:c, rolsuper boolean:1:c, rolinherit boolean:1:c, \
         rolcreaterole boolean:1:c, rolcreatedb boolean:1:c, rolcanlogin boolean:1:c, \
         rolreplication boolean:1:c, rolbypassrls boolean:1:c, rolconnlimit integer:4:i, \
         rolpassword text:-1:i, rolvaliduntil timestamp with time zone:8:d",
    ),
    // The catalogs reg* names come from: only the columns up to the last
    // one read (`~` leaves the rest, TOASTed or not, undecoded), from
    // catalog/pg_proc.h, pg_operator.h, pg_collation.h, pg_ts_config.h and
    // pg_ts_dict.h of each major; checked against each major's own
    // pg_attribute (fixtures/postgres/printed/layouts/, made by live.sh).
    (
        Catalog::Proc,
        10,
        10,
        "proname name:64:c, pronamespace oid:4:i, proowner oid:4:i, prolang oid:4:i, \
         procost real:4:i, prorows real:4:i, provariadic oid:4:i, protransform regproc:4:i, \
         proisagg boolean:1:c, proiswindow boolean:1:c, prosecdef boolean:1:c, \
         proleakproof boolean:1:c, proisstrict boolean:1:c, proretset boolean:1:c, \
         provolatile \"char\":1:c, proparallel \"char\":1:c, pronargs smallint:2:s, \
         pronargdefaults smallint:2:s, prorettype oid:4:i, proargtypes oidvector:-1:i, ~",
    ),
    (
        Catalog::Proc,
        11,
        11,
        "proname name:64:c, pronamespace oid:4:i, proowner oid:4:i, prolang oid:4:i, \
         procost real:4:i, prorows real:4:i, provariadic oid:4:i, protransform regproc:4:i, \
         prokind \"char\":1:c, prosecdef boolean:1:c, proleakproof boolean:1:c, \
         proisstrict boolean:1:c, proretset boolean:1:c, provolatile \"char\":1:c, \
         proparallel \"char\":1:c, pronargs smallint:2:s, pronargdefaults smallint:2:s, \
         prorettype oid:4:i, proargtypes oidvector:-1:i, ~",
    ),
    (
        Catalog::Proc,
        12,
        18,
        "oid oid:4:i, proname name:64:c, pronamespace oid:4:i, proowner oid:4:i, \
         prolang oid:4:i, procost real:4:i, prorows real:4:i, provariadic oid:4:i, \
         prosupport regproc:4:i, prokind \"char\":1:c, prosecdef boolean:1:c, \
         proleakproof boolean:1:c, proisstrict boolean:1:c, proretset boolean:1:c, \
         provolatile \"char\":1:c, proparallel \"char\":1:c, pronargs smallint:2:s, \
         pronargdefaults smallint:2:s, prorettype oid:4:i, proargtypes oidvector:-1:i, ~",
    ),
    (
        Catalog::Operator,
        10,
        11,
        "oprname name:64:c, oprnamespace oid:4:i, oprowner oid:4:i, oprkind \"char\":1:c, \
         oprcanmerge boolean:1:c, oprcanhash boolean:1:c, oprleft oid:4:i, \
         oprright oid:4:i, ~",
    ),
    (
        Catalog::Operator,
        12,
        18,
        "oid oid:4:i, oprname name:64:c, oprnamespace oid:4:i, oprowner oid:4:i, \
         oprkind \"char\":1:c, oprcanmerge boolean:1:c, oprcanhash boolean:1:c, \
         oprleft oid:4:i, oprright oid:4:i, ~",
    ),
    // regcollation is a type from PostgreSQL 13 on.
    (
        Catalog::Collation,
        13,
        18,
        "oid oid:4:i, collname name:64:c, collnamespace oid:4:i, collowner oid:4:i, \
         collprovider \"char\":1:c, collisdeterministic boolean:1:c, \
         collencoding integer:4:i, ~",
    ),
    (
        Catalog::TsConfig,
        10,
        11,
        "cfgname name:64:c, cfgnamespace oid:4:i, ~",
    ),
    (
        Catalog::TsConfig,
        12,
        18,
        "oid oid:4:i, cfgname name:64:c, cfgnamespace oid:4:i, ~",
    ),
    (
        Catalog::TsDict,
        10,
        11,
        "dictname name:64:c, dictnamespace oid:4:i, ~",
    ),
    (
        Catalog::TsDict,
        12,
        18,
        "oid oid:4:i, dictname name:64:c, dictnamespace oid:4:i, ~",
    ),
];

/// The column list of `catalog` as PostgreSQL `major` lays it out.
pub(crate) fn catalog_schema(catalog: Catalog, major: u32) -> Option<Schema> {
    let (_, _, _, list) = LAYOUTS
        .iter()
        .find(|l| l.0 == catalog && (l.1..=l.2).contains(&major))?;
    parse_columns(list).ok()
}

/// Relations that live in a relation map (pg_class.relfilenode 0), by OID:
/// the names their maps are shown with. Every mapped relation of
/// PostgreSQL 10 through 18.
pub(crate) const MAPPED_RELATIONS: &[(u32, &str)] = &[
    (1136, "pg_pltemplate"),
    (1137, "pg_pltemplate_name_index"),
    (1213, "pg_tablespace"),
    (1214, "pg_shdepend"),
    (1232, "pg_shdepend_depender_index"),
    (1233, "pg_shdepend_reference_index"),
    (1247, "pg_type"),
    (1249, "pg_attribute"),
    (1255, "pg_proc"),
    (1259, "pg_class"),
    (1260, "pg_authid"),
    (1261, "pg_auth_members"),
    (1262, "pg_database"),
    (2396, "pg_shdescription"),
    (2397, "pg_shdescription_o_c_index"),
    (2658, "pg_attribute_relid_attnam_index"),
    (2659, "pg_attribute_relid_attnum_index"),
    (2662, "pg_class_oid_index"),
    (2663, "pg_class_relname_nsp_index"),
    (2671, "pg_database_datname_index"),
    (2672, "pg_database_oid_index"),
    (2676, "pg_authid_rolname_index"),
    (2677, "pg_authid_oid_index"),
    (2690, "pg_proc_oid_index"),
    (2691, "pg_proc_proname_args_nsp_index"),
    (2694, "pg_auth_members_role_member_index"),
    (2695, "pg_auth_members_member_role_index"),
    (2697, "pg_tablespace_oid_index"),
    (2698, "pg_tablespace_spcname_index"),
    (2703, "pg_type_oid_index"),
    (2704, "pg_type_typname_nsp_index"),
    (2836, "pg_toast_1255"),
    (2837, "pg_toast_1255_index"),
    (2846, "pg_toast_2396"),
    (2847, "pg_toast_2396_index"),
    (2964, "pg_db_role_setting"),
    (2965, "pg_db_role_setting_databaseid_rol_index"),
    (2966, "pg_toast_2964"),
    (2967, "pg_toast_2964_index"),
    (3455, "pg_class_tblspc_relfilenode_index"),
    (3592, "pg_shseclabel"),
    (3593, "pg_shseclabel_object_index"),
    (4060, "pg_toast_3592"),
    (4061, "pg_toast_3592_index"),
    (4171, "pg_toast_1247"),
    (4172, "pg_toast_1247_index"),
    (4175, "pg_toast_1260"),
    (4176, "pg_toast_1260_index"),
    (4177, "pg_toast_1262"),
    (4178, "pg_toast_1262_index"),
    (4179, "pg_toast_1136"),
    (4180, "pg_toast_1136_index"),
    (4181, "pg_toast_6000"),
    (4182, "pg_toast_6000_index"),
    (4183, "pg_toast_6100"),
    (4184, "pg_toast_6100_index"),
    (4185, "pg_toast_1213"),
    (4186, "pg_toast_1213_index"),
    (6000, "pg_replication_origin"),
    (6001, "pg_replication_origin_roiident_index"),
    (6002, "pg_replication_origin_roname_index"),
    (6100, "pg_subscription"),
    (6114, "pg_subscription_oid_index"),
    (6115, "pg_subscription_subname_index"),
    (6243, "pg_parameter_acl"),
    (6244, "pg_toast_6243"),
    (6245, "pg_toast_6243_index"),
    (6246, "pg_parameter_acl_parname_index"),
    (6247, "pg_parameter_acl_oid_index"),
    (6302, "pg_auth_members_grantor_index"),
    (6303, "pg_auth_members_oid_index"),
];

/// The name of a mapped relation.
pub(crate) fn mapped_relation_name(oid: u32) -> Option<&'static str> {
    MAPPED_RELATIONS.iter().find(|m| m.0 == oid).map(|m| m.1)
}

/// One live row of a catalog: where it is and its columns.
#[derive(Clone, Debug)]
pub(crate) struct CatalogRow {
    /// Block and line pointer.
    pub blkno: u64,
    /// Line pointer number.
    pub lp: u16,
    /// `t_xmin`, for choosing between versions.
    pub xmin: u32,
    /// `t_oid` (before PostgreSQL 12, where oid is not a column).
    pub t_oid: Option<u32>,
    /// The columns, in the layout's order.
    pub attrs: Vec<Attr>,
}

impl CatalogRow {
    fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.name.as_deref() == Some(name))
    }

    /// A column's text, `None` for NULL or a column the layout lacks.
    pub(crate) fn text(&self, name: &str) -> Option<&str> {
        self.attr(name)?.value.as_ref().map(|v| v.text.as_str())
    }

    /// A numeric column (oid, int2, int4, xid…).
    pub(crate) fn num(&self, name: &str) -> Option<i64> {
        if name == "oid" {
            if let Some(oid) = self.t_oid {
                return Some(i64::from(oid));
            }
        }
        self.text(name)?.parse().ok()
    }

    /// An OID column.
    pub(crate) fn oid(&self, name: &str) -> Option<u32> {
        self.num(name).and_then(|n| u32::try_from(n).ok())
    }

    /// A boolean column.
    pub(crate) fn bool(&self, name: &str) -> Option<bool> {
        match self.text(name)? {
            "t" => Some(true),
            "f" => Some(false),
            _ => None,
        }
    }

    /// A `"char"` column.
    pub(crate) fn char(&self, name: &str) -> Option<char> {
        self.text(name)?.chars().next()
    }

    /// The raw datum of a column (varlena header included).
    pub(crate) fn raw(&self, name: &str) -> Option<&[u8]> {
        self.attr(name)?.raw.as_deref()
    }

    /// `where`: `block B lp N`.
    pub(crate) fn place(&self) -> String {
        format!("block {} lp {}", self.blkno, self.lp)
    }
}

/// Whether a version counts when neither its hint bits nor pg_xact decide
/// it (the fallback rule in the module docs); `xact` is what pg_xact says,
/// `Some(true)` committed, `Some(false)` not committed, `None` unknown.
fn visible(infomask: u16, xmin: u32, xmax: u32, xact: &dyn Fn(u32) -> Option<bool>) -> bool {
    let xmin_committed = infomask & HEAP_XMIN_COMMITTED != 0;
    if infomask & HEAP_XMIN_INVALID != 0 && !xmin_committed {
        return false;
    }
    if !xmin_committed && xact(xmin) == Some(false) {
        return false;
    }
    if xmax == 0 || infomask & HEAP_XMAX_INVALID != 0 {
        return true;
    }
    let lock_only = infomask & HEAP_XMAX_LOCK_ONLY != 0
        || infomask & (HEAP_XMAX_IS_MULTI | HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK)
            == HEAP_XMAX_EXCL_LOCK;
    if lock_only || infomask & HEAP_XMAX_IS_MULTI != 0 {
        return true;
    }
    if infomask & HEAP_XMAX_COMMITTED != 0 {
        return false;
    }
    xact(xmax) == Some(false)
}

/// Whether version `h` at `tid` counts, and whether its hint bits or `log`
/// decided that as export's `--rows visible` would (`false`: they did not,
/// and the fallback rule in the module docs decided).
fn version_counts(
    h: &crate::model::postgres::HeapTupleHeader,
    tid: ItemPointer,
    log: Option<&dyn XactLookup>,
) -> (bool, bool) {
    match decide(h, tid, log).status {
        RowStatus::Live => (true, true),
        RowStatus::Deleted { .. } | RowStatus::Updated { .. } | RowStatus::Aborted { .. } => {
            (false, true)
        }
        RowStatus::Undecided { .. } => {
            let status = |xid: u32| {
                log.and_then(|l| l.xact_status(xid).ok())
                    .map(|s| s.committed())
            };
            (visible(h.t_infomask, h.t_xmin, h.t_xmax, &status), false)
        }
    }
}

/// A catalog page or row that could not be read, where it is and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unreadable {
    /// The catalog.
    pub catalog: Catalog,
    /// Its block number.
    pub blkno: u64,
    /// The line pointer, for one row; `None` for the whole page.
    pub lp: Option<u16>,
    /// What could still be read of the row's identifying columns
    /// (`attrelid`, `attnum`, `relname`…), to say whose row it was.
    pub key: Vec<(String, String)>,
    /// Why.
    pub reason: String,
    /// Not damage, but named when a row is missing: an all-zero page (what
    /// a relation extended before a crash also leaves), or a value stored
    /// out of line in the catalog's TOAST table (which is not read).
    pub benign: bool,
}

impl Unreadable {
    /// The value of an identifying column that could be read.
    pub(crate) fn key_num(&self, name: &str) -> Option<i64> {
        self.key
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.parse().ok())
    }
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} block {}", self.catalog.name(), self.blkno)?;
        if let Some(lp) = self.lp {
            write!(f, " lp {lp}")?;
        }
        if !self.key.is_empty() {
            let key: Vec<String> = self.key.iter().map(|(k, v)| format!("{k} {v}")).collect();
            write!(f, " ({})", key.join(", "))?;
        }
        write!(f, ": {}", self.reason)
    }
}

/// The columns that say whose a catalog row is, read from a row that is
/// otherwise unreadable.
fn key_columns(catalog: Catalog) -> &'static [&'static str] {
    match catalog {
        Catalog::Database => &["oid", "datname"],
        Catalog::Class => &["oid", "relname", "relnamespace"],
        Catalog::Namespace => &["oid", "nspname"],
        Catalog::Attribute => &["attrelid", "attnum", "attname"],
        Catalog::Type => &["oid", "typname"],
        Catalog::Enum => &["oid", "enumtypid"],
        Catalog::Range => &["rngtypid"],
        Catalog::Authid => &["oid", "rolname"],
        Catalog::Proc => &["oid", "proname"],
        Catalog::Operator => &["oid", "oprname"],
        Catalog::Collation => &["oid", "collname"],
        Catalog::TsConfig => &["oid", "cfgname"],
        Catalog::TsDict => &["oid", "dictname"],
    }
}

/// How a catalog's pages are read: the cluster's commit status lookups and
/// whether it has data checksums.
#[derive(Clone, Copy)]
pub(crate) struct CatalogRead<'a> {
    /// pg_xact and pg_multixact of the data directory, when it has them.
    pub log: Option<&'a dyn XactLookup>,
    /// The cluster has data checksums (pg_control's `data_checksum_version`
    /// is not 0, or pg_control could not be read): a checksum mismatch makes
    /// a page unreadable. Without them a stale `pd_checksum` (left by
    /// `pg_checksums --disable`) is not checked.
    pub checksums: bool,
}

/// The live rows of one page of `catalog`, decoded with `schema`; a page or
/// row that cannot be read (a damaged header, a checksum mismatch, a page
/// that is not a heap page, a column that does not decode) goes to
/// `unreadable`, and the rest of the page is still read. Returns how many
/// versions neither their hint bits nor pg_xact decided (the fallback rule
/// in the module docs decided them).
pub(crate) fn page_rows(
    catalog: Catalog,
    schema: &Schema,
    blkno: u64,
    data: &[u8],
    read: CatalogRead,
    rows: &mut Vec<CatalogRow>,
    unreadable: &mut Vec<Unreadable>,
) -> u64 {
    let mut guessed = 0;
    let page_damage = |reason: String, benign: bool| Unreadable {
        catalog,
        blkno,
        lp: None,
        key: Vec::new(),
        reason,
        benign,
    };
    let mut page = parse_page_without_spans(
        data,
        &PageOptions {
            blkno,
            blkno_known: true,
            ..PageOptions::default()
        },
    );
    if page.kind == PageKind::New {
        if data.iter().all(|&b| b == 0) {
            unreadable.push(page_damage("all zeros; no rows read".into(), true));
        }
        return guessed;
    }
    if page.kind != PageKind::Heap {
        unreadable.push(page_damage(
            format!("not a heap page ({:?}); its rows are not read", page.kind),
            false,
        ));
        return guessed;
    }
    if let Some(p) = page.problems.iter().find(|p| {
        p.severity == Severity::Error
            && p.field.starts_with("pd_")
            && (read.checksums || p.field != "pd_checksum")
    }) {
        let reason = if p.field == "pd_checksum" {
            format!("{}; its rows are not read", p.message)
        } else {
            format!(
                "page header unusable ({}: {}); its rows are not read",
                p.field, p.message
            )
        };
        unreadable.push(page_damage(reason, false));
        return guessed;
    }
    super::kinds::decode_page(&mut page, data, schema, None);
    for item in page.items {
        let Some(t) = &item.tuple else {
            if item.id.lp_flags == crate::model::postgres::LpFlags::Normal && item.id.lp_len > 0 {
                unreadable.push(Unreadable {
                    lp: Some(item.id.lp),
                    reason: format!(
                        "no readable tuple at lp_off {}, lp_len {}; the row is skipped",
                        item.id.lp_off, item.id.lp_len
                    ),
                    ..page_damage(String::new(), false)
                });
            }
            continue;
        };
        let h = &t.header;
        let tid = ItemPointer {
            block: blkno as u32,
            offset: item.id.lp,
        };
        let (counts, decided) = version_counts(h, tid, read.log);
        guessed += u64::from(!decided);
        if !counts {
            continue;
        }
        let attrs = item.attrs.unwrap_or_default();
        let bad = attrs.iter().find(|a| {
            a.storage == Storage::Unread
                || (!a.problems.is_empty() && a.value.is_none() && a.storage != Storage::Null)
        });
        if let Some(a) = bad {
            // Whose row it was, from the identifying columns that still read.
            let mut key = Vec::new();
            for &k in key_columns(catalog) {
                if k == "oid" {
                    if let Some(oid) = t.t_oid {
                        key.push((k.to_string(), oid.to_string()));
                        continue;
                    }
                }
                let good = attrs
                    .iter()
                    .take_while(|x| !std::ptr::eq(*x, a))
                    .find(|x| x.name.as_deref() == Some(k));
                if let Some(v) = good.and_then(|x| x.value.as_ref()) {
                    key.push((k.to_string(), v.text.clone()));
                }
            }
            unreadable.push(Unreadable {
                lp: Some(item.id.lp),
                key,
                reason: format!(
                    "column {} unreadable{}; the row is skipped",
                    a.name.as_deref().unwrap_or("?"),
                    a.problems
                        .first()
                        .map(|p| format!(" ({p})"))
                        .unwrap_or_default()
                ),
                benign: a.storage == Storage::ExternalToast,
                ..page_damage(String::new(), false)
            });
            continue;
        }
        rows.push(CatalogRow {
            blkno,
            lp: item.id.lp,
            xmin: h.t_xmin,
            t_oid: t.t_oid,
            attrs,
        });
    }
    guessed
}

/// Keep one version per key: the newest xmin where several remain (with a note).
pub(crate) fn one_per_key<K: std::hash::Hash + Eq + Clone + std::fmt::Debug>(
    catalog: Catalog,
    rows: Vec<CatalogRow>,
    key: impl Fn(&CatalogRow) -> Option<K>,
    notes: &mut Vec<String>,
) -> Vec<CatalogRow> {
    let mut by_key: HashMap<K, CatalogRow> = HashMap::new();
    let mut order = Vec::new();
    for row in rows {
        let Some(k) = key(&row) else { continue };
        match by_key.get_mut(&k) {
            Some(old) => {
                notes.push(two_versions(catalog, &k, &old.place(), &row.place()));
                if row.xmin.wrapping_sub(old.xmin) as i32 > 0 {
                    *old = row;
                }
            }
            None => {
                order.push(k.clone());
                by_key.insert(k, row);
            }
        }
    }
    order
        .into_iter()
        .filter_map(|k| by_key.remove(&k))
        .collect()
}

/// The note of [`one_per_key`] on two live versions of the row of key `k`
/// (at places `old` and `new`).
pub(crate) fn two_versions(
    catalog: Catalog,
    k: &dyn std::fmt::Debug,
    old: &str,
    new: &str,
) -> String {
    format!(
        "{}: two live versions of row {k:?} ({old} and {new}); the one with the newer xmin is used",
        catalog.name(),
    )
}

/// What `regproc`/`regprocedure` need of a pg_proc row, by its OID; `None`
/// when a column is missing or `proargtypes` does not hold `pronargs` OIDs.
pub(crate) fn proc_name(row: &CatalogRow) -> Option<(u32, ProcName)> {
    let args = row
        .text("proargtypes")?
        .split_whitespace()
        .map(|a| a.parse().ok())
        .collect::<Option<Vec<u32>>>()?;
    if row.num("pronargs")? != args.len() as i64 {
        return None;
    }
    let p = ProcName {
        proname: row.text("proname")?.to_string(),
        pronamespace: row.oid("pronamespace")?,
        proargtypes: args,
    };
    Some((row.oid("oid")?, p))
}

/// What `regoper`/`regoperator` need of a pg_operator row, by its OID.
pub(crate) fn oper_name(row: &CatalogRow) -> Option<(u32, OperName)> {
    let o = OperName {
        oprname: row.text("oprname")?.to_string(),
        oprnamespace: row.oid("oprnamespace")?,
        oprleft: row.oid("oprleft")?,
        oprright: row.oid("oprright")?,
    };
    Some((row.oid("oid")?, o))
}

/// What `regcollation` needs of a pg_collation row, by its OID.
pub(crate) fn coll_name(row: &CatalogRow) -> Option<(u32, CollName)> {
    let c = CollName {
        collname: row.text("collname")?.to_string(),
        collnamespace: row.oid("collnamespace")?,
        collencoding: i32::try_from(row.num("collencoding")?).ok()?,
        collprovider: row.char("collprovider")?,
    };
    Some((row.oid("oid")?, c))
}

/// (name, namespace) of a pg_ts_config or pg_ts_dict row, by its OID.
pub(crate) fn ts_name(row: &CatalogRow, catalog: Catalog) -> Option<(u32, (String, u32))> {
    let (name, nsp) = match catalog {
        Catalog::TsConfig => ("cfgname", "cfgnamespace"),
        _ => ("dictname", "dictnamespace"),
    };
    let named = (row.text(name)?.to_string(), row.oid(nsp)?);
    Some((row.oid("oid")?, named))
}

/// What a column's type needs from `pg_type`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TypeRow {
    /// `oid`.
    pub oid: u32,
    /// `typname`.
    pub typname: String,
    /// `typnamespace`.
    pub typnamespace: u32,
    /// `typstorage`.
    pub typstorage: char,
    /// `typlen`.
    pub typlen: i16,
    /// `typalign`.
    pub typalign: char,
    /// `typtype`: b base, d domain, e enum, c composite, r range, m multirange, p pseudo.
    pub typtype: char,
    /// `typelem`: the element type of an array.
    pub typelem: u32,
    /// `typbasetype`: a domain's base type.
    pub typbasetype: u32,
    /// `typrelid`: a composite type's pg_class row.
    pub typrelid: u32,
}

impl TypeRow {
    /// What `format_type` (for `regtype`) needs of the row: a true array
    /// (`typelem` set, varlena, storage not plain: not `int2vector` or
    /// `oidvector`) prints as its element.
    pub(crate) fn type_name(&self) -> TypeName {
        let array = self.typelem != 0 && self.typlen == -1 && self.typstorage != 'p';
        TypeName {
            typname: self.typname.clone(),
            typnamespace: self.typnamespace,
            array_of: if array { self.typelem } else { 0 },
        }
    }

    /// From a pg_type row.
    pub(crate) fn from_row(row: &CatalogRow) -> Option<TypeRow> {
        Some(TypeRow {
            oid: row.oid("oid")?,
            typname: row.text("typname")?.to_string(),
            typnamespace: row.oid("typnamespace").unwrap_or(0),
            typstorage: row.char("typstorage").unwrap_or('p'),
            typlen: i16::try_from(row.num("typlen")?).ok()?,
            typalign: row.char("typalign")?,
            typtype: row.char("typtype")?,
            typelem: row.oid("typelem").unwrap_or(0),
            typbasetype: row.oid("typbasetype").unwrap_or(0),
            typrelid: row.oid("typrelid").unwrap_or(0),
        })
    }
}

/// What type resolution reads of a database's catalogs: pg_type, and for
/// user types pg_enum's labels, pg_range's subtypes and the pg_attribute
/// rows of composite types.
#[derive(Default)]
pub(crate) struct TypeCatalog {
    /// pg_type rows by OID.
    pub types: HashMap<u32, TypeRow>,
    /// Enum labels (`pg_enum` row OID, `enumlabel`) by `enumtypid`.
    pub enums: HashMap<u32, Vec<(u32, String)>>,
    /// `rngsubtype` by `rngtypid`.
    pub ranges: HashMap<u32, u32>,
    /// `rngtypid` by `rngmultitypid` (PostgreSQL 14+).
    pub multiranges: HashMap<u32, u32>,
    /// pg_attribute rows (attnum > 0) by `attrelid`, of composite types' relations.
    pub attributes: HashMap<u32, Vec<CatalogRow>>,
    /// Role names (pg_authid), for `aclitem` values, and the names reg*
    /// types print, when read.
    pub names: Option<Arc<CatalogNames>>,
}

/// `aclitem`'s pg_type OID.
pub(crate) const ACLITEM_OID: u32 = 1033;

/// How deep types may nest (a composite of a composite of an array…) before
/// resolution stops: a damaged catalog may point a type at itself.
const MAX_TYPE_DEPTH: u32 = 16;

/// The type blockscope decodes for pg_type OID `oid` (`depth` types deep): a built-in type by its
/// fixed OID, an array through `typelem`, a domain through `typbasetype`, an
/// enum with its pg_enum labels, a range with its pg_range subtype, a
/// multirange through its range, a composite with its attributes, the
/// extension types blockscope prints by their name (`ExtType`); others are
/// `Other` and shown as hex.
fn resolve_depth(oid: u32, cat: &TypeCatalog, depth: u32) -> Option<PgType> {
    if depth > MAX_TYPE_DEPTH {
        return None;
    }
    if oid == ACLITEM_OID {
        // 12 bytes up to PostgreSQL 15, 16 from 16 on.
        return Some(PgType::AclItem {
            wide: cat.types.get(&oid).is_some_and(|r| r.typlen == 16),
            names: cat.names.clone(),
        });
    }
    if let Some(t) = PgType::from_oid(oid) {
        if let PgType::RegOid { name, .. } = t {
            return Some(PgType::RegOid {
                name,
                names: cat.names.clone(),
            });
        }
        return Some(t);
    }
    let row = cat.types.get(&oid)?;
    match row.typtype {
        'd' if row.typbasetype != 0 => resolve_depth(row.typbasetype, cat, depth + 1),
        'b' if row.typlen == -1 && row.typelem != 0 => {
            let elem = match resolve_depth(row.typelem, cat, depth + 1) {
                Some(e) => e,
                None => other(cat.types.get(&row.typelem)?),
            };
            Some(PgType::Array(Box::new(elem)))
        }
        'e' => Some(PgType::Enum {
            oid,
            name: row.typname.clone(),
            labels: cat.enums.get(&oid).cloned().unwrap_or_default(),
        }),
        'r' => {
            let sub = cat
                .ranges
                .get(&oid)
                .and_then(|&s| resolve_depth(s, cat, depth + 1));
            Some(match sub {
                Some(subtype) => PgType::Range {
                    oid,
                    name: row.typname.clone(),
                    subtype: Box::new(subtype),
                },
                None => other(row),
            })
        }
        'm' => {
            let sub = cat
                .multiranges
                .get(&oid)
                .and_then(|r| cat.ranges.get(r))
                .and_then(|&s| resolve_depth(s, cat, depth + 1));
            Some(match sub {
                Some(subtype) => PgType::Multirange {
                    oid,
                    name: row.typname.clone(),
                    subtype: Box::new(subtype),
                },
                None => other(row),
            })
        }
        'c' if row.typrelid != 0 => Some(
            composite_fields(row.typrelid, cat, depth)
                .map(|fields| PgType::Composite {
                    oid,
                    name: row.typname.clone(),
                    fields,
                })
                .unwrap_or_else(|| other(row)),
        ),
        'b' => Some(
            ExtType::from_catalog(&row.typname, row.typlen, row.typalign)
                .map(PgType::Ext)
                .unwrap_or_else(|| other(row)),
        ),
        _ => Some(other(row)),
    }
}

/// A composite type's attributes, attnum 1, 2, … (`None` when one is missing
/// or unreadable).
fn composite_fields(relid: u32, cat: &TypeCatalog, depth: u32) -> Option<Vec<Column>> {
    let mut rows: Vec<&CatalogRow> = cat.attributes.get(&relid)?.iter().collect();
    rows.sort_by_key(|r| r.num("attnum"));
    let mut fields = Vec::with_capacity(rows.len());
    for (i, row) in rows.into_iter().enumerate() {
        if row.num("attnum") != Some(i as i64 + 1) {
            return None;
        }
        let mut notes = Vec::new();
        fields.push(column_depth(row, cat, depth + 1, &mut notes)?);
    }
    Some(fields)
}

fn other(row: &TypeRow) -> PgType {
    PgType::Other {
        name: row.typname.clone(),
        attlen: row.typlen,
        align: Align::from_char(row.typalign).unwrap_or(Align::Int),
    }
}

/// The typmod as `format_type` shows it inside parentheses, when the type has one.
pub(crate) fn typmod_text(ty: &PgType, typmod: i32) -> Option<String> {
    let elem = match ty {
        PgType::Array(e) => e.as_ref(),
        t => t,
    };
    match elem {
        PgType::Varchar | PgType::Bpchar if typmod >= 4 => Some((typmod - 4).to_string()),
        PgType::Numeric if typmod >= 4 => {
            let t = typmod - 4;
            Some(format!(
                "{},{}",
                (t >> 16) & 0xFFFF,
                ((t & 0x7FF) ^ 1024) - 1024
            ))
        }
        PgType::Time | PgType::TimeTz | PgType::Timestamp | PgType::TimestampTz if typmod >= 0 => {
            Some(typmod.to_string())
        }
        PgType::Bit | PgType::Varbit if typmod >= 0 => Some(typmod.to_string()),
        _ => None,
    }
}

/// A table's column from its pg_attribute row.
pub(crate) fn column_from_attribute(
    row: &CatalogRow,
    cat: &TypeCatalog,
    notes: &mut Vec<String>,
) -> Option<Column> {
    column_depth(row, cat, 0, notes)
}

fn column_depth(
    row: &CatalogRow,
    cat: &TypeCatalog,
    depth: u32,
    notes: &mut Vec<String>,
) -> Option<Column> {
    let attlen = i16::try_from(row.num("attlen")?).ok()?;
    let align = Align::from_char(row.char("attalign")?)?;
    if row.bool("attisdropped") == Some(true) {
        return Some(Column {
            name: None,
            ty: None,
            attlen,
            align,
            dropped: true,
            missing: None,
        });
    }
    let name = row.text("attname")?.to_string();
    let typid = row.oid("atttypid")?;
    let ty = match resolve_depth(typid, cat, depth) {
        Some(t) => t,
        None => {
            notes.push(format!(
                "column {name}: type OID {typid} is not in pg_type; its values are shown as hex"
            ));
            PgType::Other {
                name: format!("type {typid}"),
                attlen,
                align,
            }
        }
    };
    let typmod = row.num("atttypmod").unwrap_or(-1) as i32;
    let spec = TypeSpec {
        typmod: typmod_text(&ty, typmod),
        ty,
    };
    let mut col = Column {
        name: Some(name),
        ty: Some(spec),
        attlen,
        align,
        dropped: false,
        missing: None,
    };
    if row.bool("atthasmissing") == Some(true) {
        if let Some(raw) = row.raw("attmissingval") {
            match missing_value(raw, &col) {
                Ok(v) => col.missing = Some(v),
                Err(e) => notes.push(format!(
                    "column {}: attmissingval unreadable ({e}); older rows show it as missing",
                    col.name.as_deref().unwrap_or("?")
                )),
            }
        }
    }
    Some(col)
}

/// `attmissingval`: a one-element array of the column's type, as its text.
fn missing_value(raw: &[u8], col: &Column) -> Result<String, String> {
    let data = attrs::plain_varlena_data(raw)?;
    let word = |at: usize| -> Result<u32, String> {
        data.get(at..at + 4)
            .and_then(|b| Endian::Little.read_u32(b))
            .ok_or_else(|| "array header runs past the end".to_string())
    };
    let (ndim, dataoffset) = (word(0)?, word(4)?);
    if ndim != 1 || word(12)? != 1 {
        return Err(format!("{ndim} dimensions; one element expected"));
    }
    if dataoffset != 0 {
        return Err("the element is NULL".into());
    }
    // Header (4-byte varlena header + ndim, dataoffset, elemtype, dim,
    // lbound) MAXALIGNed; offsets count from the varlena header.
    let at = Align::Double.align(4 + 20) - 4;
    let rest = data.get(at..).ok_or("array data runs past the end")?;
    let elem = match col.attlen {
        n if n > 0 => rest.get(..n as usize).ok_or("element runs past the end")?,
        -1 => {
            let (payload, _) = super::datum::inner_varlena(rest, 0)?;
            payload
        }
        _ => {
            let end = rest.iter().position(|&b| b == 0).ok_or("no NUL")?;
            &rest[..end]
        }
    };
    let ty = col.ty.as_ref().map(|t| &t.ty).ok_or("no type")?;
    match values::decode(ty, elem) {
        Ok(v) => Ok(v.text),
        Err(_) => Ok(values::bytea_out(elem)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A column as pg_attribute describes it: attname, attlen, attalign.
    type Row = (String, i16, char);

    /// The rows of a `layout.txt` (`relname|attnum|attname|typname|attlen|attalign`,
    /// as the fixture scripts write pg_attribute), those of one catalog or all.
    fn layout_rows(text: &str, catalog: Option<&str>) -> Vec<Row> {
        text.lines()
            .map(|l| l.split('|').collect::<Vec<_>>())
            .filter(|f| catalog.is_none_or(|c| f[0] == c))
            .map(|f| {
                (
                    f[2].to_string(),
                    f[4].parse().unwrap(),
                    f[5].chars().next().unwrap(),
                )
            })
            .collect()
    }

    /// A layout's columns as [`layout_rows`] gives them.
    fn schema_rows(schema: &Schema) -> Vec<Row> {
        schema
            .columns
            .iter()
            .map(|c| (c.name.clone().unwrap(), c.attlen, c.align.code()))
            .collect()
    }

    /// Each major's layouts are its own pg_attribute's rows of the five
    /// catalogs (fixtures/postgres/catalog/MAJOR/layout.txt, made by a real
    /// server of that major).
    #[test]
    fn layouts_are_each_majors_own() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for major in MAJORS.0..=MAJORS.1 {
            let path = root.join(format!("fixtures/postgres/catalog/{major}/layout.txt"));
            let text = std::fs::read_to_string(&path).unwrap();
            for catalog in [
                Catalog::Database,
                Catalog::Class,
                Catalog::Namespace,
                Catalog::Attribute,
                Catalog::Type,
            ] {
                let want = layout_rows(&text, Some(catalog.name()));
                let schema = catalog_schema(catalog, major).unwrap();
                let got = schema_rows(&schema);
                assert_eq!(got, want, "{} of PostgreSQL {major}", catalog.name());
            }
        }
    }

    /// pg_enum's and pg_range's layouts are those of PostgreSQL 12 and 18's
    /// own pg_attribute (fixtures/postgres/catalog/types/MAJOR/layout.txt,
    /// made by types.sh).
    #[test]
    fn enum_and_range_layouts_are_the_servers() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for major in [12, 18] {
            let path = root.join(format!(
                "fixtures/postgres/catalog/types/{major}/layout.txt"
            ));
            let text = std::fs::read_to_string(&path).unwrap();
            for catalog in [Catalog::Enum, Catalog::Range] {
                let want = layout_rows(&text, Some(catalog.name()));
                assert!(!want.is_empty());
                let schema = catalog_schema(catalog, major).unwrap();
                let got = schema_rows(&schema);
                assert_eq!(got, want, "{} of PostgreSQL {major}", catalog.name());
            }
        }
    }

    /// pg_authid's layout is PostgreSQL 15's own pg_attribute
    /// (fixtures/postgres/printed/authid_layout.txt, made by its make.sh);
    /// before 12 the same without the oid column.
    #[test]
    fn authid_layout_is_the_servers() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text =
            std::fs::read_to_string(root.join("fixtures/postgres/printed/authid_layout.txt"))
                .unwrap();
        let want = layout_rows(&text, None);
        assert_eq!(want.len(), 12);
        for major in MAJORS.0..=MAJORS.1 {
            let schema = catalog_schema(Catalog::Authid, major).unwrap();
            let got = schema_rows(&schema);
            let skip = usize::from(major < 12);
            assert_eq!(got[..], want[skip..], "pg_authid of PostgreSQL {major}");
        }
    }

    /// The layouts of the catalogs reg* names come from, up to their last
    /// column read, are the servers' own pg_attribute
    /// (fixtures/postgres/printed/layouts/MAJOR.txt, made by
    /// fixtures/postgres/printed/live.sh --keep with a real server of each
    /// major 10 to 18); pg_collation only from 13, which has regcollation.
    #[test]
    fn reg_name_layouts_are_the_servers() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut majors = 0;
        for major in MAJORS.0..=MAJORS.1 {
            let path = root.join(format!("fixtures/postgres/printed/layouts/{major}.txt"));
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            majors += 1;
            for catalog in [
                Catalog::Proc,
                Catalog::Operator,
                Catalog::Collation,
                Catalog::TsConfig,
                Catalog::TsDict,
            ] {
                let Some(schema) = catalog_schema(catalog, major) else {
                    assert!(catalog == Catalog::Collation && major < 13, "{major}");
                    continue;
                };
                assert!(schema.ignore_rest);
                let want: Vec<Row> = layout_rows(&text, Some(catalog.name()))
                    .into_iter()
                    .take(schema.columns.len())
                    .collect();
                let got = schema_rows(&schema);
                assert_eq!(got, want, "{} of PostgreSQL {major}", catalog.name());
            }
        }
        assert_eq!(majors, MAJORS.1 - MAJORS.0 + 1, "layouts of every major");
    }

    #[test]
    fn visibility_rule() {
        let none = |_: u32| None;
        let aborted = |_: u32| Some(false);
        assert!(visible(0x0900, 5, 0, &none));
        assert!(!visible(0x0200, 5, 0, &none));
        assert!(!visible(0x0000, 5, 0, &aborted));
        assert!(visible(0x0000, 5, 0, &none));
        assert!(!visible(0x0500, 5, 6, &none));
        assert!(!visible(0x0100, 5, 6, &none));
        assert!(visible(0x0100, 5, 6, &aborted));
        assert!(visible(0x0180, 5, 6, &none));
    }
}
