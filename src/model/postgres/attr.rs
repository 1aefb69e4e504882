//! A tuple's attributes and their values: a leaf the page model and the
//! index model share.

use serde::Serialize;

/// A value printed the way PostgreSQL's output function prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Value {
    /// The text form (`SELECT`'s output for the column).
    pub text: String,
    /// What the text is, for JSON: a number or boolean where that is exact.
    pub typed: Typed,
}

/// A finite `f64` compared by its bits (so values can be `Eq`).
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(transparent)]
pub struct Float(pub f64);

impl PartialEq for Float {
    fn eq(&self, other: &Float) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Float {}

/// The JSON shape of a [`Value`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Typed {
    /// A string (text, dates, numeric, …).
    Text,
    /// `t`/`f`.
    Bool(bool),
    /// An integer type.
    Int(i64),
    /// An unsigned integer type (oid, xid, …).
    UInt(u64),
    /// A finite float: the double nearest the text (so JSON prints the same digits).
    Float(Float),
    /// Not decoded: the text is the value's bytes as `\x…` hex.
    Hex,
}

impl Value {
    /// A `Typed::Text` value with this text.
    pub fn text(text: impl Into<String>) -> Value {
        Value {
            text: text.into(),
            typed: Typed::Text,
        }
    }

    /// `bytes` as bytea hex output (`\x…`), `Typed::Hex`.
    pub fn hex(bytes: &[u8]) -> Value {
        let mut text = String::with_capacity(2 + bytes.len() * 2);
        text.push_str("\\x");
        for b in bytes {
            text.push_str(&format!("{b:02x}"));
        }
        Value {
            text,
            typed: Typed::Hex,
        }
    }
}

/// Compression method of a compressed varlena (`ToastCompressionId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// `TOAST_PGLZ_COMPRESSION_ID` (0): pglz.
    Pglz,
    /// `TOAST_LZ4_COMPRESSION_ID` (1): LZ4.
    Lz4,
    /// Method bits 2 or 3: not defined by PostgreSQL.
    Unknown,
}

impl Compression {
    /// From the two method bits of `va_tcinfo` / `va_extinfo`.
    pub fn from_bits(bits: u32) -> Compression {
        match bits {
            0 => Compression::Pglz,
            1 => Compression::Lz4,
            _ => Compression::Unknown,
        }
    }

    /// Name as `pg_column_compression` prints it (`pglz`, `lz4`), or `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Pglz => "pglz",
            Compression::Lz4 => "lz4",
            Compression::Unknown => "unknown",
        }
    }
}

/// `varatt_external` (varatt.h): an on-disk TOAST pointer (vartag 18).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ToastPointer {
    /// Original data size, including its 4-byte header.
    pub va_rawsize: i32,
    /// External size (low 30 bits) and compression method (high 2 bits, PostgreSQL 14+).
    pub va_extinfo: u32,
    /// `va_extinfo & 0x3FFFFFFF`: bytes stored in the TOAST relation.
    pub extsize: u32,
    /// Stored compressed: external size below raw size − 4.
    pub compressed: bool,
    /// The method, when compressed.
    pub method: Option<Compression>,
    /// `chunk_id` of the value's chunks.
    pub va_valueid: u32,
    /// OID of the TOAST relation (`pg_class.oid`, not its relfilenode).
    pub va_toastrelid: u32,
    /// Chunks read back from the TOAST relation, when it was given.
    pub chunks: Option<u32>,
}

/// How an attribute is stored in the tuple.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Storage {
    /// Fixed length (`attlen` > 0).
    Plain,
    /// `attlen` -2: a NUL-terminated C string.
    Cstring,
    /// Varlena with a 1-byte header (up to 126 bytes of data, never aligned).
    Short,
    /// Varlena with a 4-byte header, uncompressed.
    #[serde(rename = "4b")]
    Long,
    /// Varlena with a 4-byte header, compressed inline.
    Compressed {
        /// Method from the top two bits of `va_tcinfo`.
        method: Compression,
        /// Uncompressed size of the data (`va_tcinfo` low 30 bits).
        rawsize: u32,
    },
    /// An on-disk TOAST pointer (`0x01 0x12` + `varatt_external`).
    ExternalToast,
    /// Another external pointer (indirect, expanded): never valid on disk.
    ExternalOther {
        /// `va_tag` (`vartag_external`): VARTAG_INDIRECT, VARTAG_EXPANDED_RO or VARTAG_EXPANDED_RW.
        vartag: u8,
    },
    /// SQL NULL (null bitmap bit clear).
    Null,
    /// Past the tuple's natts: a column added later (its missing value or NULL).
    Missing,
    /// Not read: an earlier attribute did not fit the tuple.
    #[default]
    Unread,
}

impl Storage {
    /// Short name as JSON has it.
    pub fn name(&self) -> String {
        match self {
            Storage::Plain => "plain".into(),
            Storage::Cstring => "cstring".into(),
            Storage::Short => "short".into(),
            Storage::Long => "4b".into(),
            Storage::Compressed { method, .. } => format!("compressed-{}", method.name()),
            Storage::ExternalToast => "external-toast".into(),
            Storage::ExternalOther { .. } => "external-other".into(),
            Storage::Null => "null".into(),
            Storage::Missing => "missing".into(),
            Storage::Unread => "unread".into(),
        }
    }
}

/// One attribute of a heap tuple: its bytes (as `tuple_data_split` gives
/// them) and its value (as `SELECT` prints it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Attr {
    /// `attnum` (1-based).
    pub attnum: u16,
    /// `attname`, when column names were given.
    pub name: Option<String>,
    /// The type as `format_type` names it.
    pub type_name: String,
    /// A dropped column: its bytes are skipped (and shown), it has no value in SQL.
    pub dropped: bool,
    /// Page offset of the attribute's first byte (after alignment padding).
    pub offset: Option<usize>,
    /// The raw datum, varlena header included; `None` for NULL, missing and unread.
    pub raw: Option<Vec<u8>>,
    /// How the datum is stored: fixed length, cstring, varlena header form, NULL.
    pub storage: Storage,
    /// The TOAST pointer of an external value.
    pub toast: Option<ToastPointer>,
    /// The value; `None` for SQL NULL, and for a value that could not be read
    /// (then `storage` and `problems` say why).
    pub value: Option<Value>,
    /// What went wrong or is worth knowing about this attribute.
    pub problems: Vec<String>,
}
