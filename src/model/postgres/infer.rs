//! What `infer` proposes for a heap relation whose catalog is lost: one
//! guess per attribute, each with its candidate types ranked by confidence,
//! and the whole as a `--columns` list.

use serde::Serialize;

/// The proposal for one relation.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Proposal {
    /// The column list in `--columns` syntax (`int4, text, dropped:int4`);
    /// empty when no tuple was found.
    pub columns: String,
    /// The largest attribute count (`t_infomask2 & HEAP_NATTS_MASK`) of any
    /// tuple read.
    pub natts: u16,
    /// Pages given.
    pub pages: usize,
    /// Pages read (an even spread over those given).
    pub pages_sampled: usize,
    /// Heap tuples (LP_NORMAL) read from the sampled pages.
    pub tuples: usize,
    /// Tuples the layout search ran on (a spread over `tuples`).
    pub tuples_searched: usize,
    /// Tuples whose attributes the proposal splits exactly, out of `tuples`.
    pub tuples_fitting: usize,
    /// One entry per attribute, in attnum order.
    pub attributes: Vec<AttributeGuess>,
    /// What the reader should know: columns added later, all-null columns,
    /// values stored in TOAST without `--toast`.
    pub notes: Vec<String>,
}

/// The guess for one attribute.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttributeGuess {
    /// 1-based, as `pg_attribute.attnum`.
    pub attnum: u16,
    /// This attribute's `--columns` item (`int4`, `dropped:int4`).
    pub item: String,
    /// `pg_attribute.attlen` of the layout found (-1: varlena).
    pub attlen: i16,
    /// `pg_attribute.attalign` of the layout found (`c`, `s`, `i`, `d`).
    pub attalign: char,
    /// Tuples with a value in this attribute.
    pub values: usize,
    /// Tuples whose null bitmap says NULL here.
    pub nulls: usize,
    /// Tuples with fewer attributes (written before the column was added).
    pub missing: usize,
    /// Values stored out of line (TOAST pointers).
    pub external: usize,
    /// Values stored compressed inline.
    pub compressed: usize,
    /// The column looks dropped: its values stop at one transaction id and
    /// every later tuple has NULL here.
    pub dropped: bool,
    /// Candidate types, most likely first.
    pub candidates: Vec<Candidate>,
}

/// One candidate type for an attribute.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// The type as `--columns` takes it (`int4`, `timestamptz`, `int8[]`).
    #[serde(rename = "type")]
    pub type_name: String,
    /// 0 to 1: the share of values that fit the type, weighed by how common
    /// the type is.
    pub confidence: f64,
    /// Why, in one line.
    pub why: String,
}
