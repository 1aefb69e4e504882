//! Oracle column types for `show --columns` on Oracle blocks: the names users
//! write (`number(10,2)`, `varchar2(30 char)`, `timestamp(3)`, `long raw` …),
//! what each decodes as, and the typed value a row column carries once decoded.
//!
//! Nothing here reads block bytes: `parse::oracle::columns` decodes row pieces
//! from these descriptions, renderers print the [`ColumnValue`]s it leaves in
//! the model.

use std::fmt;

use serde::Serialize;

/// An Oracle column type, as far as decoding its stored bytes goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OraType {
    /// NUMBER, NUMBER(p), NUMBER(p,s), INTEGER/INT/SMALLINT (NUMBER(38)),
    /// DECIMAL/NUMERIC, FLOAT(b) (stored as NUMBER) (§5.1).
    Number {
        /// The spelling the user wrote, for display (`number(10,2)`, `float`).
        spelling: String,
    },
    /// VARCHAR2(n) / VARCHAR: text in the database character set.
    Varchar2 {
        /// The spelling the user wrote, for display.
        spelling: String,
    },
    /// CHAR(n): blank-padded text in the database character set.
    Char {
        /// The spelling the user wrote, for display.
        spelling: String,
    },
    /// NVARCHAR2(n): text in the national character set (AL16UTF16).
    NVarchar2 {
        /// The spelling the user wrote, for display.
        spelling: String,
    },
    /// NCHAR(n): blank-padded national text.
    NChar {
        /// The spelling the user wrote, for display.
        spelling: String,
    },
    /// RAW(n): bytes, printed as Oracle prints RAW (uppercase hex).
    Raw {
        /// The spelling the user wrote, for display.
        spelling: String,
    },
    /// DATE: 7 bytes (§5.2).
    Date,
    /// TIMESTAMP(fsp): 7 or 11 bytes (§5.3); `fsp` is the fractional-second
    /// precision (default 6).
    Timestamp {
        /// Fractional-second precision.
        fsp: u8,
    },
    /// BINARY_FLOAT: 4 bytes, IEEE single in an order-preserving form.
    BinaryFloat,
    /// BINARY_DOUBLE: 8 bytes, IEEE double in an order-preserving form.
    BinaryDouble,
    /// Known but not decoded (LONG, LONG RAW, LOBs, BFILE, TIMESTAMP WITH TIME
    /// ZONE, INTERVAL, ROWID …): shown as hex with `why`.
    Opaque {
        /// The spelling the user wrote, for display.
        spelling: String,
        /// Why the bytes are not decoded.
        why: &'static str,
    },
    /// A name blockscope does not know: shown as hex, the type named.
    Unknown {
        /// The spelling the user wrote, for display.
        spelling: String,
    },
}

impl OraType {
    /// The type as it is shown next to a value (`NUMBER(10,2)`, `VARCHAR2(30)`).
    pub fn display(&self) -> String {
        match self {
            OraType::Number { spelling }
            | OraType::Varchar2 { spelling }
            | OraType::Char { spelling }
            | OraType::NVarchar2 { spelling }
            | OraType::NChar { spelling }
            | OraType::Raw { spelling }
            | OraType::Opaque { spelling, .. }
            | OraType::Unknown { spelling } => spelling.to_uppercase(),
            OraType::Date => "DATE".into(),
            OraType::Timestamp { fsp } => format!("TIMESTAMP({fsp})"),
            OraType::BinaryFloat => "BINARY_FLOAT".into(),
            OraType::BinaryDouble => "BINARY_DOUBLE".into(),
        }
    }

    /// Parse one type name; `None` when `text` does not start like a type
    /// blockscope knows (the caller may then read its first word as a name).
    pub fn parse(text: &str) -> Option<OraType> {
        let norm = normalise(text);
        if norm.is_empty() {
            return None;
        }
        let (base, args) = match norm.split_once('(') {
            Some((b, rest)) => {
                let inner = rest.strip_suffix(')').or_else(|| {
                    // `timestamp(3) with time zone`: the parenthesis is inside.
                    rest.split_once(')').map(|(i, _)| i)
                })?;
                (b.trim().to_string(), Some(inner.trim().to_string()))
            }
            None => (norm.clone(), None),
        };
        let tail = norm
            .split_once(')')
            .map(|(_, t)| t.trim().to_string())
            .unwrap_or_default();
        let nums: Option<Vec<i64>> = args.as_deref().map(|a| {
            a.split(',')
                .filter_map(|p| {
                    p.split_whitespace()
                        .next()
                        .and_then(|n| n.parse::<i64>().ok())
                })
                .collect()
        });
        let args_ok = |max: usize| match (&args, &nums) {
            (None, _) => true,
            (Some(a), Some(n)) => {
                !n.is_empty() && n.len() <= max && n.len() == a.split(',').count()
            }
            _ => false,
        };
        let spelling = norm.clone();
        let ty = match base.as_str() {
            "number" | "numeric" | "decimal" | "dec"
                if args_ok(2) || args.as_deref() == Some("*") =>
            {
                OraType::Number { spelling }
            }
            "number" if args.as_deref().is_some_and(|a| a.starts_with("*,")) => {
                OraType::Number { spelling }
            }
            "integer" | "int" | "smallint" if args.is_none() => OraType::Number { spelling },
            "float" | "real" if args_ok(1) => OraType::Number { spelling },
            "double precision" if args.is_none() => OraType::Number { spelling },
            "varchar2" | "varchar" | "character varying" | "char varying" if args_ok(1) => {
                OraType::Varchar2 { spelling }
            }
            "char" | "character" if args_ok(1) => OraType::Char { spelling },
            "nvarchar2" | "national character varying" | "nchar varying" if args_ok(1) => {
                OraType::NVarchar2 { spelling }
            }
            "nchar" | "national character" | "national char" if args_ok(1) => {
                OraType::NChar { spelling }
            }
            "raw" if args_ok(1) => OraType::Raw { spelling },
            "date" if args.is_none() => OraType::Date,
            "timestamp" if args_ok(1) && tail.is_empty() => {
                let fsp = nums.as_ref().and_then(|n| n.first().copied()).unwrap_or(6);
                if !(0..=9).contains(&fsp) {
                    return None;
                }
                OraType::Timestamp { fsp: fsp as u8 }
            }
            "timestamp with time zone" | "timestamp with local time zone" => OraType::Opaque {
                spelling,
                why: "time-zone timestamps are not decoded (their zone bytes are not established)",
            },
            "timestamp" if tail.starts_with("with") => OraType::Opaque {
                spelling,
                why: "time-zone timestamps are not decoded (their zone bytes are not established)",
            },
            "binary_float" if args.is_none() => OraType::BinaryFloat,
            "binary_double" if args.is_none() => OraType::BinaryDouble,
            "long" | "long varchar" if args.is_none() => OraType::Opaque {
                spelling,
                why: "LONG is not decoded",
            },
            "long raw" if args.is_none() => OraType::Opaque {
                spelling,
                why: "LONG RAW is not decoded",
            },
            "clob" | "nclob" | "blob" | "bfile" if args.is_none() => OraType::Opaque {
                spelling,
                why: "a LOB column holds a locator (and maybe inline data), not decoded",
            },
            "rowid" | "urowid" if args_ok(1) => OraType::Opaque {
                spelling,
                why: "ROWID columns are not decoded",
            },
            b if b.starts_with("interval ") => OraType::Opaque {
                spelling,
                why: "INTERVAL types are not decoded",
            },
            _ => return None,
        };
        Some(ty)
    }
}

impl OraType {
    /// What the declaration limits, read from the spelling: `number(5,2)` →
    /// precision 5, scale 2; `integer` → 38, 0; `varchar2(10 char)` → 10
    /// characters; `raw(16)` → 16 bytes. Nothing for types without a limit.
    pub fn declared(&self) -> Declared {
        let spelling = match self {
            OraType::Number { spelling }
            | OraType::Varchar2 { spelling }
            | OraType::Char { spelling }
            | OraType::NVarchar2 { spelling }
            | OraType::NChar { spelling }
            | OraType::Raw { spelling } => spelling.as_str(),
            _ => return Declared::default(),
        };
        let mut d = Declared::default();
        let base = spelling.split('(').next().unwrap_or("");
        let args: Vec<&str> = spelling
            .split_once('(')
            .and_then(|(_, r)| r.split(')').next())
            .map(|a| a.split(',').map(str::trim).collect())
            .unwrap_or_default();
        match self {
            OraType::Number { .. } => {
                if matches!(base, "integer" | "int" | "smallint") {
                    d.precision = Some(38);
                    d.scale = Some(0);
                } else if matches!(base, "number" | "numeric" | "decimal" | "dec") {
                    d.precision = args.first().and_then(|p| p.parse().ok());
                    d.scale = match args.get(1) {
                        Some(s) => s.parse().ok(),
                        None if !args.is_empty() => Some(0),
                        None => None,
                    };
                }
            }
            OraType::Char { .. } | OraType::NChar { .. } if args.is_empty() => {
                d.length = Some(1);
            }
            _ => {
                if let Some(a) = args.first() {
                    let mut words = a.split_whitespace();
                    d.length = words.next().and_then(|n| n.parse().ok());
                    d.in_chars = matches!(self, OraType::NVarchar2 { .. } | OraType::NChar { .. })
                        || words.next() == Some("char");
                }
            }
        }
        d
    }
}

/// The limits a declaration puts on stored values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    /// Maximum length (bytes, or characters when `in_chars`).
    pub length: Option<u32>,
    /// `length` counts characters (`CHAR` semantics), not bytes.
    pub in_chars: bool,
    /// NUMBER precision.
    pub precision: Option<u32>,
    /// NUMBER scale.
    pub scale: Option<i32>,
}

/// Lowercase, single spaces, no spaces just inside or before parentheses.
fn normalise(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let joined = words.join(" ").to_lowercase();
    joined
        .replace(" (", "(")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(" ,", ",")
        .replace(", ", ",")
}

impl fmt::Display for OraType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

/// One entry of the column list: an optional name and a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OraColumn {
    /// Column name, when given.
    pub name: Option<String>,
    /// Declared type.
    pub ty: OraType,
}

/// The column list given with `--columns` for Oracle rows.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct OraColumns {
    /// Columns in table order.
    pub cols: Vec<OraColumn>,
    /// The list ended with `~`: columns past it are expected and not a problem.
    pub rest_ignored: bool,
}

/// The most columns an Oracle table can have (1000, the limit of every
/// release before 23ai's MAX_COLUMNS=EXTENDED).
pub const MAX_ORACLE_COLUMNS: usize = 1000;

impl OraColumns {
    /// Parse `number,varchar2(20),id number(10,2),date,~`: entries separated by
    /// commas outside parentheses; each a type, or a name then a type. A name
    /// blockscope does not know as a type is kept and decoded as hex.
    pub fn parse(list: &str) -> Result<OraColumns, String> {
        let mut entries = Vec::new();
        let mut depth = 0i32;
        let mut cur = String::new();
        for ch in list.chars() {
            match ch {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return Err(format!("unbalanced ')' in {list:?}"));
            }
            if ch == ',' && depth == 0 {
                entries.push(std::mem::take(&mut cur));
            } else {
                cur.push(ch);
            }
        }
        if depth != 0 {
            return Err(format!("unbalanced '(' in {list:?}"));
        }
        entries.push(cur);
        if entries.len() > MAX_ORACLE_COLUMNS + 1 {
            return Err(format!(
                "{} columns: an Oracle table has at most {MAX_ORACLE_COLUMNS}",
                entries.len()
            ));
        }
        let mut out = OraColumns::default();
        let count = entries.len();
        for (i, e) in entries.iter().enumerate() {
            let e = e.trim();
            if e.is_empty() {
                return Err(format!("column {} is empty in {list:?}", i + 1));
            }
            if e == "~" {
                if i + 1 != count {
                    return Err("`~` (ignore the remaining columns) must come last".into());
                }
                out.rest_ignored = true;
                continue;
            }
            out.cols.push(parse_entry(e));
        }
        if out.cols.len() > MAX_ORACLE_COLUMNS {
            return Err(format!(
                "{} columns: an Oracle table has at most {MAX_ORACLE_COLUMNS}",
                out.cols.len()
            ));
        }
        Ok(out)
    }
}

fn parse_entry(e: &str) -> OraColumn {
    if let Some(ty) = OraType::parse(e) {
        return OraColumn { name: None, ty };
    }
    if let Some((name, rest)) = e.split_once(char::is_whitespace) {
        if let Some(ty) = OraType::parse(rest) {
            return OraColumn {
                name: Some(name.to_string()),
                ty,
            };
        }
        if !rest.contains('(') || name.contains('(') {
            return OraColumn {
                name: Some(name.to_string()),
                ty: OraType::Unknown {
                    spelling: normalise(rest),
                },
            };
        }
    }
    OraColumn {
        name: None,
        ty: OraType::Unknown {
            spelling: normalise(e),
        },
    }
}

/// How a [`ColumnValue`]'s text is to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueForm {
    /// The value as Oracle prints it (NUMBER digits, DATE, text, RAW hex).
    Text,
    /// The column's bytes as hex pairs: the type is not decoded or the bytes
    /// are not valid for it (`note` says which).
    Hex,
}

impl ValueForm {
    /// Whether the value is `Text`.
    pub fn is_text(&self) -> bool {
        *self == ValueForm::Text
    }
}

fn form_is_hex<S: serde::Serializer>(form: &ValueForm, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bool(*form == ValueForm::Hex)
}

/// A row column decoded with its declared type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ColumnValue {
    /// The column's name, when the list gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The declared type (`NUMBER`, `VARCHAR2(20)`), or `?` past the list.
    #[serde(rename = "type")]
    pub type_name: String,
    /// The value; `None` for SQL NULL.
    pub value: Option<String>,
    /// Whether `value` is the decoded value or hex; in JSON `"hex": true`
    /// when hex (as PostgreSQL attrs have it), absent otherwise.
    #[serde(
        rename = "hex",
        serialize_with = "form_is_hex",
        skip_serializing_if = "ValueForm::is_text"
    )]
    pub form: ValueForm,
    /// Why the value is hex, or what else to know about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A column not stored in a row piece because it and every column after it
/// are NULL (trailing NULLs are omitted from `cc`, §4.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AbsentColumn {
    /// Column number, from 0.
    pub col: usize,
    /// Column name, when the list gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Declared type (`NUMBER`, `VARCHAR2(20)`).
    #[serde(rename = "type")]
    pub type_name: String,
}

/// The database character set VARCHAR2, CHAR (and their names) are stored in.
/// NVARCHAR2 and NCHAR are read as AL16UTF16 (UTF-16 big-endian), the
/// national character set of every database since 9i unless created UTF8.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OraCharset {
    /// UTF-8 (the default database character set since 12.2).
    #[default]
    Al32Utf8,
    /// ISO 8859-1: every byte is the code point of the same number.
    We8Iso8859P1,
    /// 7-bit ASCII: bytes above 0x7f are invalid.
    Us7Ascii,
}

impl OraCharset {
    /// Oracle's name for the character set.
    pub fn name(self) -> &'static str {
        match self {
            OraCharset::Al32Utf8 => "AL32UTF8",
            OraCharset::We8Iso8859P1 => "WE8ISO8859P1",
            OraCharset::Us7Ascii => "US7ASCII",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_lists_are_capped() {
        let list = vec!["number"; MAX_ORACLE_COLUMNS].join(",");
        assert_eq!(
            OraColumns::parse(&list).unwrap().cols.len(),
            MAX_ORACLE_COLUMNS
        );
        let err = OraColumns::parse(&format!("{list},number"))
            .err()
            .unwrap_or_default();
        assert!(err.contains("at most 1000"), "{err}");
    }

    fn t(s: &str) -> OraType {
        OraType::parse(s).unwrap_or_else(|| panic!("{s}"))
    }

    #[test]
    fn names_and_aliases() {
        assert!(matches!(t("number"), OraType::Number { .. }));
        assert!(matches!(t("NUMBER(10, 2)"), OraType::Number { .. }));
        assert!(matches!(t("integer"), OraType::Number { .. }));
        assert!(matches!(t("float(126)"), OraType::Number { .. }));
        assert!(matches!(t("varchar2(30 char)"), OraType::Varchar2 { .. }));
        assert!(matches!(t("varchar2(30 byte)"), OraType::Varchar2 { .. }));
        assert!(matches!(t("varchar"), OraType::Varchar2 { .. }));
        assert!(matches!(t("char(1)"), OraType::Char { .. }));
        assert!(matches!(t("nchar"), OraType::NChar { .. }));
        assert!(matches!(t("nvarchar2(10)"), OraType::NVarchar2 { .. }));
        assert!(matches!(t("raw(16)"), OraType::Raw { .. }));
        assert_eq!(t("date"), OraType::Date);
        assert_eq!(t("timestamp"), OraType::Timestamp { fsp: 6 });
        assert_eq!(t("timestamp(3)"), OraType::Timestamp { fsp: 3 });
        assert_eq!(t("binary_float"), OraType::BinaryFloat);
        assert_eq!(t("BINARY_DOUBLE"), OraType::BinaryDouble);
        assert!(matches!(t("long raw"), OraType::Opaque { .. }));
        assert!(matches!(t("long"), OraType::Opaque { .. }));
        assert!(matches!(t("blob"), OraType::Opaque { .. }));
        assert!(matches!(
            t("timestamp(3) with time zone"),
            OraType::Opaque { .. }
        ));
        assert!(OraType::parse("timestamp(12)").is_none());
        assert!(OraType::parse("xmltype").is_none());
        assert!(OraType::parse("number(a)").is_none());
    }

    #[test]
    fn lists() {
        let l = OraColumns::parse("id number(10,2), name varchar2(20), date, long raw, ~").unwrap();
        assert!(l.rest_ignored);
        assert_eq!(l.cols.len(), 4);
        assert_eq!(l.cols[0].name.as_deref(), Some("id"));
        assert_eq!(l.cols[0].ty.display(), "NUMBER(10,2)");
        assert_eq!(l.cols[1].name.as_deref(), Some("name"));
        assert_eq!(l.cols[2].name, None);
        assert!(matches!(l.cols[3].ty, OraType::Opaque { .. }));
        let u = OraColumns::parse("xmltype,doc sdo_geometry").unwrap();
        assert_eq!(
            u.cols[0].ty,
            OraType::Unknown {
                spelling: "xmltype".into()
            }
        );
        assert_eq!(u.cols[1].name.as_deref(), Some("doc"));
        assert!(OraColumns::parse("number(1").is_err());
        assert!(OraColumns::parse("number,,date").is_err());
        assert!(OraColumns::parse("~,number").is_err());
    }

    #[test]
    fn declared_limits() {
        let d = |s: &str| t(s).declared();
        assert_eq!(d("number(5,2)").precision, Some(5));
        assert_eq!(d("number(5,2)").scale, Some(2));
        assert_eq!(d("number(5)").scale, Some(0));
        assert_eq!(d("number(*,2)").precision, None);
        assert_eq!(d("number(*,2)").scale, Some(2));
        assert_eq!(d("number"), Declared::default());
        assert_eq!(d("integer").precision, Some(38));
        assert_eq!(d("varchar2(10)").length, Some(10));
        assert!(!d("varchar2(10 byte)").in_chars);
        assert!(d("varchar2(10 char)").in_chars);
        assert!(d("nvarchar2(4)").in_chars);
        assert_eq!(d("char").length, Some(1));
        assert_eq!(d("raw(16)").length, Some(16));
        assert_eq!(d("date"), Declared::default());
    }
}
