//! PostgreSQL column types: what a tuple decoder needs to know about each one
//! (`pg_type.typlen`, `typalign`, `typbyval`) and the names users write for
//! them — catalog names (`int4`), SQL spellings and aliases (`integer`,
//! `character varying(20)`), `format_type` output, typmods and `[]` arrays.
//!
//! Nothing here reads page bytes; the attribute splitter
//! (`parse::postgres::attrs`) and the value printers
//! (`parse::postgres::values`) work from these descriptions.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// `pg_type.typalign` / `pg_attribute.attalign`: the boundary an attribute
/// starts on, relative to the start of the tuple's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// `c`: any byte.
    Char,
    /// `s`: 2 bytes.
    Short,
    /// `i`: 4 bytes.
    Int,
    /// `d`: 8 bytes.
    Double,
}

impl Align {
    /// The alignment for a `typalign` code (`c`, `s`, `i`, `d`).
    pub fn from_char(c: char) -> Option<Align> {
        match c {
            'c' => Some(Align::Char),
            's' => Some(Align::Short),
            'i' => Some(Align::Int),
            'd' => Some(Align::Double),
            _ => None,
        }
    }

    /// The `typalign` code of this alignment.
    pub fn code(self) -> char {
        match self {
            Align::Char => 'c',
            Align::Short => 's',
            Align::Int => 'i',
            Align::Double => 'd',
        }
    }

    /// The boundary in bytes: 1, 2, 4 or 8.
    pub fn bytes(self) -> usize {
        match self {
            Align::Char => 1,
            Align::Short => 2,
            Align::Int => 4,
            Align::Double => 8,
        }
    }

    /// `att_align_nominal`: round `offset` up to this boundary.
    pub fn align(self, offset: usize) -> usize {
        let a = self.bytes();
        offset.saturating_add(a - 1) & !(a - 1)
    }
}

/// A column type blockscope can print the way PostgreSQL's output function
/// does, or `Other` (split by its length and alignment, shown as hex).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PgType {
    /// `bool`: one byte.
    Bool,
    /// The one-byte internal `"char"` (not `char(n)`, which is `Bpchar`).
    Char,
    /// `int2` (`smallint`).
    Int2,
    /// `int4` (`integer`).
    Int4,
    /// `int8` (`bigint`).
    Int8,
    /// `oid`.
    Oid,
    /// `regclass`, `regtype`, `regproc`, …: an OID whose name needs the catalog.
    RegOid {
        /// The type's name (`regclass`, …).
        name: &'static str,
        /// The catalogs' names, when read.
        names: Option<Arc<CatalogNames>>,
    },
    /// `xid`: a 32-bit transaction id.
    Xid,
    /// `xid8`: a 64-bit FullTransactionId.
    Xid8,
    /// `cid`: a command id.
    Cid,
    /// `float4` (`real`).
    Float4,
    /// `float8` (`double precision`).
    Float8,
    /// `numeric` (`decimal`): varlena of base-10000 digits.
    Numeric,
    /// `money`: int8 in the currency's smallest unit.
    Money,
    /// `text`.
    Text,
    /// `varchar` (`character varying`).
    Varchar,
    /// `bpchar` (`char(n)`, `character(n)`): blank-padded.
    Bpchar,
    /// `name`: fixed 64 bytes (NAMEDATALEN), NUL-padded.
    Name,
    /// `bytea`.
    Bytea,
    /// `json`: the text as entered.
    Json,
    /// `jsonb`: the binary JsonbContainer format.
    Jsonb,
    /// `xml`.
    Xml,
    /// `date`: int4 days since 2000-01-01.
    Date,
    /// `time`: int8 microseconds since midnight.
    Time,
    /// `timetz`: `time` plus an int4 zone offset in seconds.
    TimeTz,
    /// `timestamp`: int8 microseconds since 2000-01-01.
    Timestamp,
    /// `timestamptz`: int8 microseconds since 2000-01-01 UTC.
    TimestampTz,
    /// `interval`: int8 microseconds, int4 days, int4 months.
    Interval,
    /// `uuid`: 16 bytes.
    Uuid,
    /// `inet`: varlena address and netmask.
    Inet,
    /// `cidr`: `inet` layout, network addresses only.
    Cidr,
    /// `macaddr`: 6 bytes.
    Macaddr,
    /// `macaddr8`: 8 bytes.
    Macaddr8,
    /// `tid`: an ItemPointerData (block, offset).
    Tid,
    /// `pg_lsn`: an int8 WAL position.
    PgLsn,
    /// `bit(n)`: varlena bit length and bits.
    Bit,
    /// `varbit` (`bit varying`).
    Varbit,
    /// `point`: two float8.
    Point,
    /// `box`: two points, the high corner first (four float8).
    GeoBox,
    /// `line`: the coefficients A, B, C of Ax + By + C = 0 (three float8).
    Line,
    /// `lseg`: two points (four float8).
    Lseg,
    /// `path`: varlena point count, closed flag, padding, points.
    Path,
    /// `polygon`: varlena point count, bounding box, points.
    Polygon,
    /// `circle`: centre point and radius (three float8).
    Circle,
    /// `tsvector`: varlena lexeme count, WordEntry array, lexemes and positions.
    TsVector,
    /// `tsquery`: varlena item count, QueryItem array in polish notation, operands.
    TsQuery,
    /// `gtsvector`: a GiST tsvector_ops key (varlena int32 flag, then hashed
    /// words or a signature bit string).
    GtsVector,
    /// `int2vector`: a one-dimensional int2 array, printed space-separated.
    Int2Vector,
    /// `oidvector`: a one-dimensional oid array, printed space-separated.
    OidVector,
    /// `refcursor`: a cursor's name, stored as text.
    Refcursor,
    /// `txid_snapshot`: varlena nxip, xmin, xmax, in-progress ids (int64).
    TxidSnapshot,
    /// `pg_snapshot` (PostgreSQL 13+): the `txid_snapshot` layout with
    /// FullTransactionIds.
    PgSnapshot,
    /// `jsonpath` (PostgreSQL 12+): a binary path, version and `lax` flag first.
    JsonPath,
    /// `aclitem`: grantee and grantor role OIDs and the privilege bits.
    AclItem {
        /// The 16-byte form of PostgreSQL 16 and later (a 64-bit AclMode),
        /// not the 12 bytes of 10 to 15.
        wide: bool,
        /// Role names by OID, when the catalogs were read.
        names: Option<Arc<CatalogNames>>,
    },
    /// An extension's type whose layout is fixed in its sources, recognised
    /// by its `pg_type.typname` (and its length and alignment).
    Ext(ExtType),
    /// A one- or more-dimensional array of the element type.
    Array(Box<PgType>),
    /// An enum (from the catalogs): stored as the OID of its label's
    /// `pg_enum` row.
    Enum {
        /// `pg_type.oid`.
        oid: u32,
        /// `pg_type.typname`.
        name: String,
        /// (`pg_enum` row OID, `enumlabel`) of each label.
        labels: Vec<(u32, String)>,
    },
    /// A range type (from the catalogs, `pg_range.rngsubtype`): a varlena
    /// RangeType (range type OID, bounds, flags byte).
    Range {
        /// `pg_type.oid`.
        oid: u32,
        /// `pg_type.typname`.
        name: String,
        /// The bounds' type.
        subtype: Box<PgType>,
    },
    /// A multirange type (from the catalogs, PostgreSQL 14+:
    /// `pg_range.rngmultitypid`): a varlena MultirangeType (type OID, range
    /// count, offsets or lengths, flags, bounds).
    Multirange {
        /// `pg_type.oid`.
        oid: u32,
        /// `pg_type.typname`.
        name: String,
        /// The bounds' type (its range's subtype).
        subtype: Box<PgType>,
    },
    /// A composite type (from the catalogs: `pg_attribute` of `typrelid`): a
    /// varlena holding a tuple (DatumTupleFields header, null bitmap, fields).
    Composite {
        /// `pg_type.oid`.
        oid: u32,
        /// `pg_type.typname`.
        name: String,
        /// Its attributes in attnum order, dropped ones kept.
        fields: Vec<Column>,
    },
    /// A type blockscope does not print: name, `attlen`, `attalign`.
    Other {
        /// The type name as given.
        name: String,
        /// attlen: fixed length in bytes, -1 varlena, -2 cstring.
        attlen: i16,
        /// attalign: the boundary it starts on.
        align: Align,
    },
}

impl PgType {
    /// `typlen`: a positive byte count, -1 for varlena, -2 for C strings.
    pub fn attlen(&self) -> i16 {
        use PgType::*;
        match self {
            Bool | Char => 1,
            Int2 => 2,
            Int4 | Oid | RegOid { .. } | Xid | Cid | Float4 | Date => 4,
            Int8 | Xid8 | Float8 | Money | Time | Timestamp | TimestampTz | PgLsn => 8,
            TimeTz => 12,
            Interval | Uuid | Point => 16,
            GeoBox | Lseg => 32,
            Line | Circle => 24,
            Ext(ExtType::Seg) => 12,
            Ext(e) if e.is_isn() => 8,
            Name => 64,
            Macaddr | Tid => 6,
            Macaddr8 => 8,
            Numeric
            | Text
            | Varchar
            | Bpchar
            | Bytea
            | Json
            | Jsonb
            | Xml
            | Inet
            | Cidr
            | Bit
            | Varbit
            | Array(_)
            | Int2Vector
            | OidVector
            | Refcursor
            | TxidSnapshot
            | PgSnapshot
            | JsonPath
            | Range { .. }
            | Multirange { .. }
            | Composite { .. }
            | Path
            | Polygon
            | TsVector
            | TsQuery
            | GtsVector
            | Ext(_) => -1,
            Enum { .. } => 4,
            AclItem { wide: false, .. } => 12,
            AclItem { wide: true, .. } => 16,
            Other { attlen, .. } => *attlen,
        }
    }

    /// `typalign`.
    pub fn align(&self) -> Align {
        use PgType::*;
        match self {
            Bool | Char | Name | Uuid => Align::Char,
            Int2 | Tid => Align::Short,
            Int8
            | Xid8
            | Float8
            | Money
            | Time
            | TimeTz
            | Timestamp
            | TimestampTz
            | Interval
            | PgLsn
            | Point
            | GeoBox
            | Line
            | Lseg
            | Path
            | Polygon
            | Circle
            | TxidSnapshot
            | PgSnapshot
            | AclItem { wide: true, .. }
            | Ext(ExtType::Cube) => Align::Double,
            Ext(e) if e.is_isn() => Align::Double,
            // An array is aligned like its element, but at least on 4 bytes.
            Array(elem) if elem.align() == Align::Double => Align::Double,
            // A range is aligned like its subtype, at least on 4 bytes.
            Range { subtype, .. } | Multirange { subtype, .. }
                if subtype.align() == Align::Double =>
            {
                Align::Double
            }
            Composite { .. } => Align::Double,
            Other { align, .. } => *align,
            _ => Align::Int,
        }
    }

    /// `typbyval` on 64-bit builds.
    pub fn byval(&self) -> bool {
        matches!(self.attlen(), 1 | 2 | 4 | 8)
            && !matches!(self, PgType::Macaddr8 | PgType::Other { .. })
    }

    /// The element type's OID as `pg_type` has it (arrays carry it), when known.
    pub fn oid(&self) -> Option<u32> {
        use PgType::*;
        Some(match self {
            Bool => 16,
            Bytea => 17,
            Char => 18,
            Name => 19,
            Int8 => 20,
            Int2 => 21,
            Int4 => 23,
            Text => 25,
            Oid => 26,
            Tid => 27,
            Xid => 28,
            Cid => 29,
            Json => 114,
            Xml => 142,
            Point => 600,
            Lseg => 601,
            Path => 602,
            GeoBox => 603,
            Polygon => 604,
            Line => 628,
            Circle => 718,
            TsVector => 3614,
            TsQuery => 3615,
            GtsVector => 3642,
            Cidr => 650,
            Float4 => 700,
            Float8 => 701,
            Macaddr8 => 774,
            Money => 790,
            Macaddr => 829,
            Inet => 869,
            Bpchar => 1042,
            Varchar => 1043,
            Date => 1082,
            Time => 1083,
            Timestamp => 1114,
            TimestampTz => 1184,
            Interval => 1186,
            TimeTz => 1266,
            Bit => 1560,
            Varbit => 1562,
            Numeric => 1700,
            Uuid => 2950,
            PgLsn => 3220,
            Jsonb => 3802,
            Xid8 => 5069,
            Int2Vector => 22,
            OidVector => 30,
            Refcursor => 1790,
            TxidSnapshot => 2970,
            PgSnapshot => 5038,
            JsonPath => 4072,
            AclItem { .. } => 1033,
            RegOid { name, .. } => return REG_TYPES.iter().find(|r| r.0 == *name).map(|r| r.1),
            Enum { oid, .. }
            | Range { oid, .. }
            | Multirange { oid, .. }
            | Composite { oid, .. } => *oid,
            Array(_) | Other { .. } | Ext(_) => return None,
        })
    }

    /// The type whose `pg_type` OID is `oid` (for array elements).
    pub fn from_oid(oid: u32) -> Option<PgType> {
        use PgType::*;
        let all = [
            Bool,
            Bytea,
            Char,
            Name,
            Int8,
            Int2,
            Int4,
            Text,
            Oid,
            Tid,
            Xid,
            Cid,
            Json,
            Xml,
            Point,
            GeoBox,
            Line,
            Lseg,
            Path,
            Polygon,
            Circle,
            TsVector,
            TsQuery,
            GtsVector,
            Cidr,
            Float4,
            Float8,
            Macaddr8,
            Money,
            Macaddr,
            Inet,
            Bpchar,
            Varchar,
            Date,
            Time,
            Timestamp,
            TimestampTz,
            Interval,
            TimeTz,
            Bit,
            Varbit,
            Numeric,
            Uuid,
            PgLsn,
            Jsonb,
            Xid8,
            Int2Vector,
            OidVector,
            Refcursor,
            TxidSnapshot,
            PgSnapshot,
            JsonPath,
            AclItem {
                wide: false,
                names: None,
            },
        ];
        if let Some(t) = all.into_iter().find(|t| t.oid() == Some(oid)) {
            return Some(t);
        }
        if let Some(t) = BUILTIN_RANGES
            .iter()
            .find_map(|r| r.range_or_multirange(|r| r.0 == oid, |r| r.1 == oid))
        {
            return Some(t);
        }
        REG_TYPES
            .iter()
            .find(|r| r.1 == oid)
            .map(|r| PgType::RegOid {
                name: r.0,
                names: None,
            })
    }

    /// The name `format_type` gives the type without a typmod.
    pub fn sql_name(&self) -> String {
        use PgType::*;
        let s = match self {
            Bool => "boolean",
            Char => "\"char\"",
            Int2 => "smallint",
            Int4 => "integer",
            Int8 => "bigint",
            Oid => "oid",
            RegOid { name, .. } => name,
            Xid => "xid",
            Xid8 => "xid8",
            Cid => "cid",
            Float4 => "real",
            Float8 => "double precision",
            Numeric => "numeric",
            Money => "money",
            Text => "text",
            Varchar => "character varying",
            Bpchar => "character",
            Name => "name",
            Bytea => "bytea",
            Json => "json",
            Jsonb => "jsonb",
            Xml => "xml",
            Date => "date",
            Time => "time without time zone",
            TimeTz => "time with time zone",
            Timestamp => "timestamp without time zone",
            TimestampTz => "timestamp with time zone",
            Interval => "interval",
            Uuid => "uuid",
            Inet => "inet",
            Cidr => "cidr",
            Macaddr => "macaddr",
            Macaddr8 => "macaddr8",
            Tid => "tid",
            PgLsn => "pg_lsn",
            Bit => "bit",
            Varbit => "bit varying",
            Point => "point",
            GeoBox => "box",
            Line => "line",
            Lseg => "lseg",
            Path => "path",
            Polygon => "polygon",
            Circle => "circle",
            TsVector => "tsvector",
            TsQuery => "tsquery",
            Int2Vector => "int2vector",
            OidVector => "oidvector",
            Refcursor => "refcursor",
            TxidSnapshot => "txid_snapshot",
            PgSnapshot => "pg_snapshot",
            JsonPath => "jsonpath",
            AclItem { .. } => "aclitem",
            GtsVector => "gtsvector",
            Ext(e) => e.name(),
            Array(elem) => return format!("{}[]", elem.sql_name()),
            Enum { name, .. }
            | Range { name, .. }
            | Multirange { name, .. }
            | Composite { name, .. } => name,
            Other { name, .. } => name,
        };
        s.to_string()
    }

    /// Whether blockscope prints values of this type (others are shown as hex).
    pub fn is_decoded(&self) -> bool {
        match self {
            PgType::Other { .. } => false,
            PgType::Array(elem) => elem.is_decoded(),
            PgType::Range { subtype, .. } | PgType::Multirange { subtype, .. } => {
                subtype.is_decoded()
            }
            PgType::Composite { fields, .. } => fields
                .iter()
                .filter(|c| !c.dropped)
                .all(|c| c.ty.as_ref().is_some_and(|t| t.ty.is_decoded())),
            _ => true,
        }
    }
}

/// Types of contrib extensions that blockscope prints: their layouts are
/// fixed in the extensions' sources, their OIDs are not (each database
/// assigns its own when the extension is created), so they are known by
/// name — `pg_type.typname` in the catalogs, the name in `--columns`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtType {
    /// `citext`: text (case-insensitive comparison only).
    Citext,
    /// `hstore`: count, HEntry array of key/value end offsets, strings.
    Hstore,
    /// `ltree`: level count, then each level's length and label.
    Ltree,
    /// `cube`: dimension and point flag, then the coordinates (float8).
    Cube,
    /// `seg`: two float4 bounds, their significant digits and extensions (12 bytes).
    Seg,
    /// ltree's `lquery`: levels, each with its variants, flags and repeat counts.
    Lquery,
    /// ltree's `ltxtquery`: items in polish notation, then the operands.
    Ltxtquery,
    /// isn's `ean13`: the EAN-13 number shifted left by one, bit 0 the
    /// invalid-check-digit flag (8 bytes, like int8); printed long.
    Ean13,
    /// isn's `isbn` (as ean13, printed in the short ISBN-10 form).
    Isbn,
    /// isn's `isbn13` (as ean13).
    Isbn13,
    /// isn's `ismn` (as ean13, printed `M-…`).
    Ismn,
    /// isn's `ismn13` (as ean13).
    Ismn13,
    /// isn's `issn` (as ean13, printed as the eight-digit ISSN).
    Issn,
    /// isn's `issn13` (as ean13).
    Issn13,
    /// isn's `upc` (as ean13, printed as the twelve-digit UPC).
    Upc,
}

impl ExtType {
    const ALL: [ExtType; 15] = [
        ExtType::Citext,
        ExtType::Hstore,
        ExtType::Ltree,
        ExtType::Cube,
        ExtType::Seg,
        ExtType::Lquery,
        ExtType::Ltxtquery,
        ExtType::Ean13,
        ExtType::Isbn,
        ExtType::Isbn13,
        ExtType::Ismn,
        ExtType::Ismn13,
        ExtType::Issn,
        ExtType::Issn13,
        ExtType::Upc,
    ];

    /// The extension's type name (`pg_type.typname`).
    pub fn name(self) -> &'static str {
        match self {
            ExtType::Citext => "citext",
            ExtType::Hstore => "hstore",
            ExtType::Ltree => "ltree",
            ExtType::Cube => "cube",
            ExtType::Seg => "seg",
            ExtType::Lquery => "lquery",
            ExtType::Ltxtquery => "ltxtquery",
            ExtType::Ean13 => "ean13",
            ExtType::Isbn => "isbn",
            ExtType::Isbn13 => "isbn13",
            ExtType::Ismn => "ismn",
            ExtType::Ismn13 => "ismn13",
            ExtType::Issn => "issn",
            ExtType::Issn13 => "issn13",
            ExtType::Upc => "upc",
        }
    }

    /// One of isn's types (an 8-byte EAN-13 number).
    pub fn is_isn(self) -> bool {
        self.isn_short().is_some()
    }

    /// For isn's types, whether the type prints the short form (isn.c's
    /// `isn_out`: isbn, ismn, issn, upc) rather than `ean13_out`'s.
    pub fn isn_short(self) -> Option<bool> {
        match self {
            ExtType::Isbn | ExtType::Ismn | ExtType::Issn | ExtType::Upc => Some(true),
            ExtType::Ean13 | ExtType::Isbn13 | ExtType::Ismn13 | ExtType::Issn13 => Some(false),
            _ => None,
        }
    }

    /// The type of this name, if it is one of them.
    pub fn from_name(name: &str) -> Option<ExtType> {
        ExtType::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The type a catalog's `pg_type` row describes: the name must be one
    /// of these and `typlen`/`typalign` the extension's own (a user type
    /// that merely shares the name stays undecoded).
    pub fn from_catalog(typname: &str, typlen: i16, typalign: char) -> Option<ExtType> {
        let e = ExtType::from_name(typname)?;
        let t = PgType::Ext(e);
        (t.attlen() == typlen && t.align().code() == typalign).then_some(e)
    }
}

/// Names of the catalog objects OID-valued types point at (the roles of an
/// `aclitem`, the relations of a `regclass`, …), read from a data
/// directory's catalogs; a map left empty was not needed or not readable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CatalogNames {
    /// `pg_authid.rolname` by role OID.
    pub roles: HashMap<u32, String>,
    /// `pg_namespace.nspname` by namespace OID.
    pub namespaces: HashMap<u32, String>,
    /// `pg_class` (`relname`, `relnamespace`) by relation OID.
    pub relations: HashMap<u32, (String, u32)>,
    /// `pg_type` rows by type OID, for `regtype`.
    pub types: HashMap<u32, TypeName>,
    /// The namespaces a name is looked up in, in order: `pg_catalog`, then
    /// `public` (the default `search_path` `"$user", public`; see
    /// `docs/guide.md` for `"$user"`).
    pub search_path: Vec<u32>,
    /// (`relnamespace`, `relname`) of every relation, made once at the
    /// first visibility test (`relations` is then not changed).
    pub relation_keys: OnceLock<HashSet<(u32, String)>>,
    /// (`typnamespace`, `typname`) of every type, likewise.
    pub type_keys: OnceLock<HashSet<(u32, String)>>,
    /// The reg* types whose catalogs were read for this table beyond
    /// `regclass`, `regtype`, `regnamespace` and `regrole` (`regproc`, …):
    /// the others print as numbers.
    pub read: Vec<&'static str>,
    /// `pg_proc` rows by OID, for `regproc` and `regprocedure`.
    pub procs: HashMap<u32, ProcName>,
    /// `pg_operator` rows by OID, for `regoper` and `regoperator`.
    pub operators: HashMap<u32, OperName>,
    /// `pg_ts_config` (`cfgname`, `cfgnamespace`) by OID, for `regconfig`.
    pub ts_configs: HashMap<u32, (String, u32)>,
    /// `pg_ts_dict` (`dictname`, `dictnamespace`) by OID, for `regdictionary`.
    pub ts_dicts: HashMap<u32, (String, u32)>,
    /// `pg_collation` rows by OID, for `regcollation`.
    pub collations: HashMap<u32, CollName>,
    /// The database's `pg_database.encoding` (a collation is found by its
    /// name only when it works with it); `None` when not known.
    pub encoding: Option<i32>,
    /// Made once at the first value that needs them (the maps above are
    /// then not changed): the lookups namespace.c makes by name.
    pub lookups: OnceLock<NameLookups>,
}

/// What `regproc` and `regprocedure` read of a `pg_proc` row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcName {
    /// `proname`.
    pub proname: String,
    /// `pronamespace`.
    pub pronamespace: u32,
    /// `proargtypes` (`pronargs` of them).
    pub proargtypes: Vec<u32>,
}

/// What `regoper` and `regoperator` read of a `pg_operator` row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperName {
    /// `oprname`.
    pub oprname: String,
    /// `oprnamespace`.
    pub oprnamespace: u32,
    /// `oprleft` (0 for a prefix operator).
    pub oprleft: u32,
    /// `oprright` (0 for a postfix operator, PostgreSQL 13 and older).
    pub oprright: u32,
}

/// What `regcollation` reads of a `pg_collation` row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollName {
    /// `collname`.
    pub collname: String,
    /// `collnamespace`.
    pub collnamespace: u32,
    /// `collencoding` (-1: any).
    pub collencoding: i32,
    /// `collprovider` (`c` libc, `i` ICU, `b` builtin, `d` default).
    pub collprovider: char,
}

/// The by-name lookups of namespace.c, made once from [`CatalogNames`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameLookups {
    /// (`pronamespace`, `proname`, `proargtypes`) of every function.
    pub proc_keys: HashSet<(u32, String, Vec<u32>)>,
    /// For each function name: the one function `regprocin` finds by the
    /// bare name, when it finds exactly one.
    pub proc_unique: HashMap<String, u32>,
    /// (`oprnamespace`, `oprname`, `oprleft`, `oprright`) of every operator.
    pub oper_keys: HashSet<(u32, String, u32, u32)>,
    /// For each operator name: the one operator `regoperin` finds by the
    /// bare name, when it finds exactly one.
    pub oper_unique: HashMap<String, u32>,
    /// (`cfgnamespace`, `cfgname`) of every text search configuration.
    pub config_keys: HashSet<(u32, String)>,
    /// (`dictnamespace`, `dictname`) of every text search dictionary.
    pub dict_keys: HashSet<(u32, String)>,
    /// (`collnamespace`, `collname`, `collencoding`) → (OID, `collprovider`).
    pub collation_keys: HashMap<(u32, String, i32), (u32, char)>,
}

/// What `format_type` reads of a `pg_type` row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeName {
    /// `typname`.
    pub typname: String,
    /// `typnamespace`.
    pub typnamespace: u32,
    /// `typelem`, when the type is a true array (`typelem` set, varlena,
    /// `typstorage` not plain), else 0.
    pub array_of: u32,
}

/// OID-alias types: (name, OID).
const REG_TYPES: &[(&str, u32)] = &[
    ("regproc", 24),
    ("regprocedure", 2202),
    ("regoper", 2203),
    ("regoperator", 2204),
    ("regclass", 2205),
    ("regtype", 2206),
    ("regconfig", 3734),
    ("regdictionary", 3769),
    ("regnamespace", 4089),
    ("regrole", 4096),
    ("regcollation", 4191),
];

/// A type as a user named it: the type plus its typmod text, for display.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeSpec {
    /// The type.
    pub ty: PgType,
    /// What was inside the parentheses (`20`, `10,2`), if anything.
    pub typmod: Option<String>,
}

impl TypeSpec {
    /// Parse a type name: catalog names, SQL names and aliases, `format_type`
    /// output, optional typmod in parentheses and trailing `[]` (any number)
    /// or a leading `_` for arrays. `None` if the name is not one blockscope
    /// knows (callers can then ask for an explicit length and alignment).
    pub fn parse(text: &str) -> Option<TypeSpec> {
        let mut s = text.trim().to_ascii_lowercase();
        let mut array = false;
        while let Some(rest) = s.strip_suffix("[]") {
            s = rest.trim_end().to_string();
            array = true;
        }
        // `integer[3]` and `int array` are arrays too.
        if let Some(open) = s.rfind('[') {
            if s.ends_with(']')
                && s.get(open + 1..s.len() - 1)?
                    .chars()
                    .all(|c| c.is_ascii_digit())
            {
                s.truncate(open);
                s = s.trim_end().to_string();
                array = true;
            }
        }
        if let Some(rest) = s.strip_suffix(" array") {
            s = rest.trim_end().to_string();
            array = true;
        }
        let mut typmod = None;
        if let (Some(open), Some(close)) = (s.find('('), s.find(')')) {
            if open < close {
                typmod = Some(
                    s.get(open + 1..close)?
                        .split_whitespace()
                        .collect::<String>(),
                );
                s = format!("{} {}", s.get(..open)?, s.get(close + 1..)?);
            }
        }
        let words: Vec<&str> = s.split_whitespace().collect();
        let name = words.join(" ");
        let mut ty = match base_type(&name, typmod.as_deref()) {
            Some(t) => t,
            None if !array => {
                // `_int4`: the catalog name of int4's array type.
                let elem = name.strip_prefix('_').and_then(|n| base_type(n, None))?;
                array = true;
                elem
            }
            None => return None,
        };
        if matches!(ty, PgType::Float4 | PgType::Float8) {
            typmod = None;
        }
        if array {
            ty = PgType::Array(Box::new(ty));
        }
        Some(TypeSpec { ty, typmod })
    }

    /// The name as `format_type(atttypid, atttypmod)` prints it.
    pub fn display(&self) -> String {
        let (elem, suffix) = match &self.ty {
            PgType::Array(e) => (e.as_ref(), "[]"),
            t => (t, ""),
        };
        let base = elem.sql_name();
        let with_mod = match (&self.typmod, elem) {
            (None, _) => base,
            (Some(m), PgType::Time | PgType::TimeTz | PgType::Timestamp | PgType::TimestampTz) => {
                let (head, tail) = base.split_once(' ').unwrap_or((base.as_str(), ""));
                format!("{head}({m}) {tail}")
            }
            (Some(m), _) => format!("{base}({m})"),
        };
        format!("{with_mod}{suffix}")
    }
}

impl fmt::Display for TypeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

/// The range types of a fresh cluster (pg_range.dat): range OID,
/// multirange OID (PostgreSQL 14+), their names, and the subtype. Named in
/// `--columns` they need no catalog.
struct BuiltinRange(u32, u32, &'static str, &'static str, PgType);

const BUILTIN_RANGES: [BuiltinRange; 6] = [
    BuiltinRange(3904, 4451, "int4range", "int4multirange", PgType::Int4),
    BuiltinRange(3906, 4532, "numrange", "nummultirange", PgType::Numeric),
    BuiltinRange(3908, 4533, "tsrange", "tsmultirange", PgType::Timestamp),
    BuiltinRange(
        3910,
        4534,
        "tstzrange",
        "tstzmultirange",
        PgType::TimestampTz,
    ),
    BuiltinRange(3912, 4535, "daterange", "datemultirange", PgType::Date),
    BuiltinRange(3926, 4536, "int8range", "int8multirange", PgType::Int8),
];

impl BuiltinRange {
    /// The range type when `is_range` holds of this row, the multirange
    /// type when `is_multi` does.
    fn range_or_multirange(
        &self,
        is_range: impl Fn(&Self) -> bool,
        is_multi: impl Fn(&Self) -> bool,
    ) -> Option<PgType> {
        let subtype = Box::new(self.4.clone());
        if is_range(self) {
            Some(PgType::Range {
                oid: self.0,
                name: self.2.to_string(),
                subtype,
            })
        } else if is_multi(self) {
            Some(PgType::Multirange {
                oid: self.1,
                name: self.3.to_string(),
                subtype,
            })
        } else {
            None
        }
    }
}

/// A base (non-array) type from its lowercase, single-spaced name.
fn base_type(name: &str, typmod: Option<&str>) -> Option<PgType> {
    use PgType::*;
    let name = name.trim_matches(|c| c == ' ');
    let name = name.strip_prefix("pg_catalog.").unwrap_or(name);
    Some(match name {
        "bool" | "boolean" => Bool,
        "\"char\"" => Char,
        "int2" | "smallint" | "smallserial" | "serial2" => Int2,
        "int4" | "int" | "integer" | "serial" | "serial4" => Int4,
        "int8" | "bigint" | "bigserial" | "serial8" => Int8,
        "oid" => Oid,
        "xid" => Xid,
        "xid8" => Xid8,
        "cid" => Cid,
        "float4" | "real" => Float4,
        "float8" | "double precision" | "double" => Float8,
        // float(p): 1-24 is real, 25-53 double precision.
        "float" => match typmod.and_then(|m| m.parse::<u32>().ok()) {
            Some(p) if p <= 24 => Float4,
            _ => Float8,
        },
        "numeric" | "decimal" | "dec" => Numeric,
        "money" => Money,
        "text" => Text,
        "varchar" | "character varying" | "char varying" => Varchar,
        "bpchar" | "character" | "char" | "nchar" | "national character" => Bpchar,
        "name" => Name,
        "bytea" => Bytea,
        "json" => Json,
        "jsonb" => Jsonb,
        "xml" => Xml,
        "date" => Date,
        "time" | "time without time zone" => Time,
        "timetz" | "time with time zone" => TimeTz,
        "timestamp" | "timestamp without time zone" => Timestamp,
        "timestamptz" | "timestamp with time zone" => TimestampTz,
        "uuid" => Uuid,
        "inet" => Inet,
        "cidr" => Cidr,
        "macaddr" => Macaddr,
        "macaddr8" => Macaddr8,
        "tid" => Tid,
        "pg_lsn" => PgLsn,
        "bit" => Bit,
        "varbit" | "bit varying" => Varbit,
        "point" => Point,
        "box" => GeoBox,
        "line" => Line,
        "lseg" => Lseg,
        "path" => Path,
        "polygon" => Polygon,
        "circle" => Circle,
        "tsvector" => TsVector,
        "tsquery" => TsQuery,
        "gtsvector" => GtsVector,
        "int2vector" => Int2Vector,
        "oidvector" => OidVector,
        "refcursor" => Refcursor,
        "txid_snapshot" => TxidSnapshot,
        "pg_snapshot" => PgSnapshot,
        "jsonpath" => JsonPath,
        "aclitem" => AclItem {
            wide: false,
            names: None,
        },
        n if n == "interval" || n.starts_with("interval ") => Interval,
        n => {
            if let Some(e) = ExtType::from_name(n) {
                return Some(Ext(e));
            }
            if let Some(t) = BUILTIN_RANGES
                .iter()
                .find_map(|r| r.range_or_multirange(|r| r.2 == n, |r| r.3 == n))
            {
                return Some(t);
            }
            return REG_TYPES.iter().find(|r| r.0 == n).map(|r| RegOid {
                name: r.0,
                names: None,
            });
        }
    })
}

/// One attribute of a relation, as the decoder needs it (`pg_attribute`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// `attname`, when known.
    pub name: Option<String>,
    /// The type, when known (a dropped column's type is gone from the catalog).
    pub ty: Option<TypeSpec>,
    /// `attlen`.
    pub attlen: i16,
    /// `attalign`.
    pub align: Align,
    /// `attisdropped`: the bytes are still in old tuples, the column is not.
    pub dropped: bool,
    /// `attmissingval`: the value of a column added later with a default,
    /// for tuples written before (natts smaller than this column's number).
    pub missing: Option<String>,
}

impl Column {
    /// A live column of a known type.
    pub fn of(name: Option<String>, ty: TypeSpec) -> Column {
        Column {
            name,
            attlen: ty.ty.attlen(),
            align: ty.ty.align(),
            ty: Some(ty),
            dropped: false,
            missing: None,
        }
    }

    /// What to call the type in output: `format_type`'s name, or `-` for a
    /// dropped column of unknown type.
    pub fn type_name(&self) -> String {
        match &self.ty {
            Some(t) => t.display(),
            None => format!("- (attlen {}, attalign {})", self.attlen, self.align.code()),
        }
    }
}

/// The column list of a relation, in attribute-number order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schema {
    /// The attributes, attnum 1 first.
    pub columns: Vec<Column>,
    /// `~` at the end of a column list: attributes past the list are not
    /// decoded and not reported (pg_filedump's convention).
    pub ignore_rest: bool,
    /// An `INCLUDE` item in the list: the index's key columns are the ones
    /// before it, the rest are its INCLUDE columns (stored in leaf tuples).
    pub key_columns: Option<usize>,
    /// The stored generated columns (`pg_attribute.attgenerated = 's'`, or
    /// `generated:` in a column list), as indexes into `columns`: `export`
    /// leaves them out as `COPY … TO` does, unless asked for them.
    pub generated: BTreeSet<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> TypeSpec {
        TypeSpec::parse(s).unwrap_or_else(|| panic!("{s} should parse"))
    }

    #[test]
    fn aliases_and_format_type_names() {
        assert_eq!(parse("int").ty, PgType::Int4);
        assert_eq!(parse("INTEGER").ty, PgType::Int4);
        assert_eq!(parse("int8").ty, PgType::Int8);
        assert_eq!(parse("double precision").ty, PgType::Float8);
        assert_eq!(parse("float(10)").ty, PgType::Float4);
        assert_eq!(parse("float").ty, PgType::Float8);
        assert_eq!(parse("timestamp with time zone").ty, PgType::TimestampTz);
        assert_eq!(parse("timestamp(3) with time zone").ty, PgType::TimestampTz);
        assert_eq!(parse("time  without   time zone").ty, PgType::Time);
        assert_eq!(parse("\"char\"").ty, PgType::Char);
        assert_eq!(parse("char").ty, PgType::Bpchar);
        assert_eq!(parse("interval year to month").ty, PgType::Interval);
        assert_eq!(
            parse("regclass").ty,
            PgType::RegOid {
                name: "regclass",
                names: None
            }
        );
        assert_eq!(parse("hstore").ty, PgType::Ext(ExtType::Hstore));
        assert_eq!(parse("citext[]").display(), "citext[]");
        assert_eq!(parse("tsvector").ty, PgType::TsVector);
        assert_eq!(parse("lquery").ty, PgType::Ext(ExtType::Lquery));
        assert_eq!(parse("isbn13").ty, PgType::Ext(ExtType::Isbn13));
        assert_eq!(parse("upc").ty.attlen(), 8);
        assert!(TypeSpec::parse("geometry").is_none());
        assert!(TypeSpec::parse("").is_none());
    }

    #[test]
    fn typmods_and_arrays() {
        let v = parse("character varying(20)");
        assert_eq!(v.ty, PgType::Varchar);
        assert_eq!(v.typmod.as_deref(), Some("20"));
        assert_eq!(v.display(), "character varying(20)");
        assert_eq!(parse("numeric( 10, 2 )").display(), "numeric(10,2)");
        assert_eq!(parse("varchar(5)").display(), "character varying(5)");
        assert_eq!(
            parse("timestamptz(3)").display(),
            "timestamp(3) with time zone"
        );
        let a = parse("text[]");
        assert_eq!(a.ty, PgType::Array(Box::new(PgType::Text)));
        assert_eq!(a.display(), "text[]");
        assert_eq!(parse("int4[][]").display(), "integer[]");
        assert_eq!(parse("_int8").ty, PgType::Array(Box::new(PgType::Int8)));
        assert_eq!(parse("integer array").display(), "integer[]");
        assert_eq!(parse("int[3]").display(), "integer[]");
    }

    #[test]
    fn layout_matches_pg_type() {
        assert_eq!(
            (PgType::Int8.attlen(), PgType::Int8.align()),
            (8, Align::Double)
        );
        assert_eq!(
            (PgType::Name.attlen(), PgType::Name.align()),
            (64, Align::Char)
        );
        assert_eq!(
            (PgType::TimeTz.attlen(), PgType::TimeTz.align()),
            (12, Align::Double)
        );
        assert_eq!(
            (PgType::Macaddr.attlen(), PgType::Macaddr.align()),
            (6, Align::Int)
        );
        assert_eq!(parse("int8[]").ty.align(), Align::Double);
        assert_eq!(parse("bool[]").ty.align(), Align::Int);
        assert!(PgType::Int8.byval() && !PgType::TimeTz.byval() && !PgType::Text.byval());
    }

    #[test]
    fn oids_round_trip() {
        for oid in [16, 20, 21, 23, 25, 1043, 1700, 3802, 2205] {
            assert_eq!(PgType::from_oid(oid).and_then(|t| t.oid()), Some(oid));
        }
        assert_eq!(PgType::from_oid(99999), None);
    }

    #[test]
    fn alignment() {
        assert_eq!(Align::Double.align(9), 16);
        assert_eq!(Align::Int.align(4), 4);
        assert_eq!(Align::Short.align(5), 6);
        assert_eq!(Align::Char.align(5), 5);
    }
}
