//! `carve`'s manifest: what was found in a byte image and where each
//! relation (PostgreSQL) or segment (Oracle) it found was written.
//! Plain data; `commands::carve` fills it, serde writes it as
//! `DIR/manifest.json` (its JSON Schema: docs/schema/carve.schema.json).

use serde::Serialize;

/// `DIR/manifest.json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CarveManifest {
    /// The version of this document (see docs/json.md).
    pub schema: u32,
    /// One entry per relation file written, in the order written.
    pub groups: Vec<CarveGroup>,
    /// The stretches of PostgreSQL WAL found, in image order.
    pub wal: Vec<CarveWal>,
}

/// A stretch of WAL found in an image: WAL pages whose xlp_pageaddr
/// advance with their offset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CarveWal {
    /// The image, as given on the command line.
    pub image: String,
    /// Image byte offset of its first page.
    pub offset: u64,
    /// Bytes from its first page to the end of its last.
    pub length: u64,
    /// WAL pages found in it.
    pub pages: u64,
    /// xlp_tli.
    pub timeline: u32,
    /// xlp_sysid of a long page header in it (decimal), when it holds one.
    pub system_identifier: Option<String>,
    /// The segment size it was read with (a long header's, else 16 MB).
    pub segment_size: u64,
    /// The WAL positions (`X/X`) of its first byte and of its end.
    pub lsn_range: [String; 2],
    /// Records decoded.
    pub records: u64,
    /// The LSNs of the first and last record decoded.
    pub record_lsn_range: Option<[String; 2]>,
    /// Full-page images restored from its records.
    pub fpis: u64,
    /// Full-page images that could not be restored (lz4, zstd, damaged).
    pub fpis_unrestored: u64,
}

/// One group of pages found together: one relation file under `DIR`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CarveGroup {
    /// The group's number, from 1, unique in the manifest.
    pub id: u32,
    /// `postgres` or `oracle`.
    pub engine: String,
    /// What the pages hold: `heap`, `toast`, `btree`, `hash`, `gist`, … for
    /// PostgreSQL; `table`, `index`, `undo`, … for Oracle.
    pub kind: String,
    /// The image the pages were found in, as given on the command line.
    pub image: String,
    /// The written file, relative to `DIR`.
    pub path: String,
    /// The block number of each page written: PostgreSQL's from the
    /// checksum (or the order in the image when `blkno_known` is false),
    /// Oracle's from the rdba. Each page sits at `block × size` in the file.
    pub blocks: Vec<u64>,
    /// The block numbers come from the pages themselves (PostgreSQL: the
    /// checksum; Oracle: the rdba), not from their order in the image.
    pub blkno_known: bool,
    /// The image byte offset of each page, in the order of `blocks` (of a
    /// full-page image: where its WAL record starts).
    pub offsets: Vec<u64>,
    /// Oracle: each block's rdba (`0x` and 8 hex digits), in the order of
    /// `blocks`; `null` for PostgreSQL.
    pub rdbas: Option<Vec<String>>,
    /// Oracle: the data object id of the segment (ktbbh's `seg/obj`); `null`
    /// for PostgreSQL and for blocks that carry none.
    pub data_object_id: Option<u32>,
    /// The oldest and newest pd_lsn (PostgreSQL, `X/X`) or SCN (Oracle,
    /// `0xWRAP.BASE`) among the pages written.
    pub lsn_range: Option<[String; 2]>,
    /// PostgreSQL heap groups written: the column list `infer` proposes, in
    /// `--columns` syntax; `None` otherwise.
    pub columns: Option<String>,
    /// The id of the group holding this relation's TOAST chunks, when found.
    pub toast: Option<u32>,
    /// Older copies of blocks written (a page seen twice): not written,
    /// listed here.
    pub duplicates: Vec<CarveDuplicate>,
    /// PostgreSQL: `spcNode/dbNode/relNode` when WAL records named the
    /// relation (its full-page images are in the group).
    pub relfilenode: Option<String>,
    /// With `relfilenode`: the fork (`main`, `fsm`, `vm`, `init`).
    pub fork: Option<String>,
    /// Per written block, in the order of `blocks`: the LSN of the WAL
    /// record whose full-page image was written, `null` for a page found
    /// as such in the image; `null` when no block came from WAL.
    pub wal_lsns: Option<Vec<Option<String>>>,
}

/// A copy of a block that was not written because a newer one was.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CarveDuplicate {
    /// The block number it has in the group.
    pub block: u64,
    /// Its image byte offset (of a full-page image: of its record).
    pub offset: u64,
    /// Its pd_lsn or SCN, as in `lsn_range`.
    pub lsn: String,
    /// `image` (a page found in the image) or `wal` (a full-page image:
    /// `offset` is where its record starts).
    pub source: String,
    /// `wal`: the LSN of the record holding the image.
    pub record_lsn: Option<String>,
}
