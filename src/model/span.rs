//! Byte ranges of a page labelled with the field they hold, for the hex view.

use serde::Serialize;

/// Which part of a page a byte belongs to (used for colour and folding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Region {
    /// The page header (PageHeaderData; Oracle's cache and block headers).
    Header,
    /// The line pointer array (ItemIdData; Oracle's row directory).
    LinePointer,
    /// Between pd_lower and pd_upper: unused.
    FreeSpace,
    /// A tuple's or row's header.
    TupleHeader,
    /// A tuple's or row's column data.
    TupleData,
    /// The special space at pd_special (access-method data; Oracle's tailchk).
    Special,
    /// An index metapage's contents (hash, SP-GiST).
    Meta,
    /// Bytes no parsed structure accounts for.
    Unknown,
}

impl Region {
    /// The region's name as the hex legend prints it.
    pub fn label(self) -> &'static str {
        match self {
            Region::Header => "page header",
            Region::LinePointer => "line pointers",
            Region::FreeSpace => "free space",
            Region::TupleHeader => "tuple header",
            Region::TupleData => "tuple data",
            Region::Special => "special space",
            Region::Meta => "metapage",
            Region::Unknown => "unaccounted bytes",
        }
    }
}

/// `len` bytes at `start` hold field `name` (of `owner`, e.g. "tuple 3"),
/// whose decoded value reads `value`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    /// Offset of the first byte in the page.
    pub start: usize,
    /// Number of bytes.
    pub len: usize,
    /// The part of the page the bytes are in.
    pub region: Region,
    /// The structure the field belongs to (`tuple 3`, `itl 1`), if not the page.
    pub owner: Option<String>,
    /// The field's name as the database names it (`pd_lower`, `t_infomask`).
    pub name: String,
    /// The field's decoded value, as shown.
    pub value: String,
}

impl Span {
    /// One past the last byte: `start + len`.
    pub fn end(&self) -> usize {
        self.start.saturating_add(self.len)
    }
}
