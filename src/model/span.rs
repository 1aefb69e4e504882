//! Byte ranges of a page labelled with the field they hold, for the hex view.

use serde::Serialize;

/// Which part of a page a byte belongs to (used for colour and folding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Region {
    Header,
    LinePointer,
    FreeSpace,
    TupleHeader,
    TupleData,
    Special,
    Unknown,
}

impl Region {
    pub fn label(self) -> &'static str {
        match self {
            Region::Header => "page header",
            Region::LinePointer => "line pointers",
            Region::FreeSpace => "free space",
            Region::TupleHeader => "tuple header",
            Region::TupleData => "tuple data",
            Region::Special => "special space",
            Region::Unknown => "unaccounted bytes",
        }
    }
}

/// `len` bytes at `start` hold field `name` (of `owner`, e.g. "tuple 3"),
/// whose decoded value reads `value`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    pub start: usize,
    pub len: usize,
    pub region: Region,
    pub owner: Option<String>,
    pub name: String,
    pub value: String,
}

impl Span {
    pub fn end(&self) -> usize {
        self.start.saturating_add(self.len)
    }
}
