//! Plain, serde-serialisable structures that mirror the on-disk layouts.
//! Parsers build them; renderers read them. Nothing here reads bytes.

pub mod bits;
pub mod carve;
pub(crate) mod decode;
pub mod diff;
pub mod map;
pub mod oracle;
pub mod page;
pub mod postgres;
pub mod span;
pub mod time;

use serde::Serialize;

/// How bad a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the page is still consistent.
    Info,
    /// Unusual but possibly legitimate.
    Warning,
    /// The page is damaged or inconsistent here.
    Error,
}

impl Severity {
    /// The level as printed and serialised: `info`, `warning`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// What kind of fault a [`Problem`] is: stable for machines, serialised (and
/// displayed) as the strings the reports have always used (`header`,
/// `line-pointer`, `zero-page`…).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProblemClass {
    // Both engines.
    /// The page or block header (PostgreSQL `PageHeaderData`, Oracle kcbh and file headers).
    Header,
    /// The stored checksum or check value disagrees with the bytes.
    Checksum,
    /// An all-zero page or block (info: never initialised, valid).
    ZeroPage,
    /// The input ends inside a page or block.
    Truncated,
    /// The input could not be read.
    Io,
    /// The page kind could not be established.
    Kind,
    /// A file found among relation files that holds no page at all (a log
    /// or text copied over it): one problem for the whole file.
    NotPages,
    // PostgreSQL.
    /// A line pointer (`ItemIdData`) against the page.
    LinePointer,
    /// A heap tuple header.
    Tuple,
    /// Tuple attributes decoded with `--columns`.
    Attrs,
    /// A btree page's special space, metapage or index tuples.
    Btree,
    /// Another access method's special space.
    Special,
    /// The visibility map against the heap (`verify --deep`).
    VisibilityMap,
    /// The free space map against the heap (`verify --deep`, notes only).
    FreeSpaceMap,
    /// A page older than a WAL record the last checkpoint covers: the write
    /// of that change never reached the file (`verify` with WAL).
    LostWrite,
    // Oracle.
    /// The tail does not repeat the header: a fractured block.
    Fractured,
    /// A block marked corrupt (seq 0xff).
    Corrupt,
    /// An encrypted block.
    Encrypted,
    /// The transaction header (ktbbh).
    Ktbbh,
    /// An ITL entry.
    Itl,
    /// The data header (kdbh).
    Kdbh,
    /// The row directory (kdbr).
    Kdbr,
    /// A row.
    Row,
    /// A column value decoded with `--columns`.
    Column,
    /// An index block's header or entries.
    Index,
    /// A block-dump trace's text.
    Trace,
    /// A trace's text disagrees with its hex.
    Crosscheck,
}

impl ProblemClass {
    /// The stable name (`line-pointer`), as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemClass::Header => "header",
            ProblemClass::Checksum => "checksum",
            ProblemClass::ZeroPage => "zero-page",
            ProblemClass::Truncated => "truncated",
            ProblemClass::Io => "io",
            ProblemClass::Kind => "kind",
            ProblemClass::NotPages => "not-pages",
            ProblemClass::LinePointer => "line-pointer",
            ProblemClass::Tuple => "tuple",
            ProblemClass::Attrs => "attrs",
            ProblemClass::Btree => "btree",
            ProblemClass::Special => "special",
            ProblemClass::VisibilityMap => "visibility-map",
            ProblemClass::FreeSpaceMap => "free-space-map",
            ProblemClass::LostWrite => "lost-write",
            ProblemClass::Fractured => "fractured",
            ProblemClass::Corrupt => "corrupt",
            ProblemClass::Encrypted => "encrypted",
            ProblemClass::Ktbbh => "ktbbh",
            ProblemClass::Itl => "itl",
            ProblemClass::Kdbh => "kdbh",
            ProblemClass::Kdbr => "kdbr",
            ProblemClass::Row => "row",
            ProblemClass::Column => "column",
            ProblemClass::Index => "index",
            ProblemClass::Trace => "trace",
            ProblemClass::Crosscheck => "crosscheck",
        }
    }
}

impl std::fmt::Display for ProblemClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ProblemClass {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Something strange found while decoding: the page is still shown, and the
/// problem says where and what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// How bad it is.
    pub severity: Severity,
    /// Byte offset inside the page, when the problem has one.
    pub offset: Option<usize>,
    /// The field, named as the database names it (`pd_lower`, `lp[3]`, `tuple 3 t_hoff`).
    pub field: String,
    /// Problem class, stable for machines (`header`, `line-pointer`, `tuple`, `checksum`…).
    pub class: ProblemClass,
    /// What is wrong, in one line.
    pub message: String,
    /// The line pointer (PostgreSQL) the problem is about, when it is about
    /// one item: the typed form of `lp[3]` / `tuple 3 …` for code that acts
    /// on it (export skips that tuple). Not serialised: `field` says it.
    #[serde(skip)]
    pub item: Option<u16>,
}

impl Problem {
    /// A problem of `class` at `offset` in `field`, saying `message`.
    pub fn new(
        severity: Severity,
        class: ProblemClass,
        offset: Option<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Problem {
            severity,
            offset,
            field: field.into(),
            class,
            message: message.into(),
            item: None,
        }
    }

    /// The same problem, about line pointer `lp` and its item.
    pub fn about_item(mut self, lp: u16) -> Self {
        self.item = Some(lp);
        self
    }
}
