//! What `diff` found between two versions of a block: plain data, built by
//! the comparison in the `diff` module and rendered by the diff renderer.
//!
//! Field names and values are those of `show --format json` (the comparison
//! runs over those documents), so a change reads the way the JSON does.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// How a block, an item or a problem differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Only in the new version.
    Added,
    /// Only in the old version.
    Removed,
    /// In both, with different fields.
    Changed,
}

impl Change {
    /// The word as serialised and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }
}

/// One field whose value differs: its path in the block's (or item's) JSON,
/// dotted (`header.lsn`, `checksum.stored`, `attrs[attnum=2].value`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldChange {
    /// The field's path.
    pub field: String,
    /// Its value in the old version (`null` when absent there).
    pub old: Value,
    /// Its value in the new version (`null` when absent there).
    pub new: Value,
}

/// An element of an array of identified items (line pointers, btree items,
/// ITLs, row slots, index entries) that differs.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemChange {
    /// The array's path in the block's JSON (`items`, `table.rows`).
    pub array: String,
    /// The key that identifies an element (`lp`, `itemoffset`, `itl`, `slot`).
    pub key: String,
    /// The element's value of that key.
    pub id: Value,
    /// Added, removed or changed.
    pub change: Change,
    /// The fields that differ (changed items).
    pub fields: Vec<FieldChange>,
    /// The whole element (added and removed items).
    pub item: Option<Value>,
}

impl Serialize for ItemChange {
    /// `{"in": ARRAY, KEY: ID, "change": …, "fields": […]}` and, for an
    /// added or removed item, `"item": {…}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("in", &self.array)?;
        m.serialize_entry(&self.key, &self.id)?;
        m.serialize_entry("change", &self.change)?;
        m.serialize_entry("fields", &self.fields)?;
        if let Some(item) = &self.item {
            m.serialize_entry("item", item)?;
        }
        m.end()
    }
}

/// A problem reported for one version only.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProblemChange {
    /// Added (only in the new version) or removed (only in the old).
    pub change: Change,
    /// The problem as `show --format json` writes it.
    pub problem: Value,
}

/// A run of bytes that differ and that no decoded field covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ByteRange {
    /// Offset of the first byte in the block.
    pub offset: usize,
    /// Number of bytes.
    pub length: usize,
}

/// One block that differs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BlockDiff {
    /// The input (its name in the new version) when several are compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// The block number both versions have (blocks are matched by it).
    pub blkno: Value,
    /// Added, removed or changed.
    pub change: Change,
    /// Fields outside the item arrays that differ.
    pub fields: Vec<FieldChange>,
    /// Items added, removed or changed.
    pub items: Vec<ItemChange>,
    /// Problems reported for one version only.
    pub problems: Vec<ProblemChange>,
    /// Changed bytes no decoded field covers (only when both versions have
    /// their bytes: not for a JSON document).
    pub bytes: Vec<ByteRange>,
}

impl BlockDiff {
    /// Nothing differs.
    pub fn is_empty(&self) -> bool {
        self.change == Change::Changed
            && self.fields.is_empty()
            && self.items.is_empty()
            && self.problems.is_empty()
            && self.bytes.is_empty()
    }
}
