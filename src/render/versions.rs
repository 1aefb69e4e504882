//! The version of every JSON document blockscope writes, the `"schema": N`
//! it carries. A change to a document's keys, shape or values is a new
//! number here and a line under "Versions" in docs/json.md; the JSON
//! Schemas of the documents are in docs/schema/.
//!
//! Version 1 of every kind is the document as it was before it carried a
//! number. `verify`'s version is [`super::report::SCHEMA`].

/// `show --format json|ndjson` of pages and blocks: 2 made the document
/// `{"schema", "blocks": […]}` (several inputs: `{"schema", "inputs": […]}`)
/// whatever the block count, and NDJSON starts with `{"schema": 2}`.
pub(crate) const SHOW: u32 = 2;

/// `show global/pg_control --format json`: 2 added `schema`, gave the LSNs
/// as text (`"0/1BFC068"`) and the cluster state as pg_controldata's words.
pub(crate) const PG_CONTROL: u32 = 2;

/// `show pg_filenode.map --format json`: 2 added `schema`.
pub(crate) const PG_FILENODE_MAP: u32 = 2;

/// `map --format json|ndjson`: 2 added `schema` (the document's first key;
/// NDJSON's summary line); 3 added the summary's `relation` (the relation
/// the file belongs to, when it is in a data directory whose catalogs name it).
pub(crate) const MAP: u32 = 3;

/// `diff --format json`: 2 added `schema`.
pub(crate) const DIFF: u32 = 2;

/// `decode --format json`: 2 added `schema`.
pub(crate) const DECODE: u32 = 2;

/// `wal --format json|ndjson`: 1 is the first version
/// (`{"schema", "records": […], "problems": […]}`; NDJSON starts with
/// `{"schema": 1}`).
pub(crate) const WAL: u32 = 1;
/// `carve`'s `manifest.json`: 1 its first form; 2 adds WAL (stretches, full-page images, relfilenode).
pub(crate) const CARVE: u32 = 2;
/// `infer --format json`: 1 is the first version.
pub(crate) const INFER: u32 = 1;
