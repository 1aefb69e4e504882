//! Index tuples of the access methods other than btree: hash, GiST, GIN,
//! BRIN and SP-GiST, named after their C structures (hash.h, gist.h,
//! ginblock.h, brin_tuple.h, spgist_private.h).
//!
//! ```text
//!  IndexTupleData (itup.h), the tuple of hash, GiST and GIN entry pages:
//!  | t_tid (6) | t_info (2) | [null bitmap (4), padded to 8] | key attributes …
//!  t_info: bits 0-12 size, 0x2000 AM-specific, 0x4000 has varwidth, 0x8000 has nulls
//! ```

use serde::Serialize;

use super::{Attr, ItemId, ItemPointer};

/// `IndexTupleData` (itup.h): the header every IndexTuple starts with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IndexTupleHeader {
    /// `t_tid`: heap TID on leaf tuples; downlink or AM data elsewhere.
    pub t_tid: ItemPointer,
    /// `t_info`: size plus INDEX_NULL_MASK, INDEX_VAR_MASK and the AM bit.
    pub t_info: u16,
    /// `IndexTupleSize`: t_info & INDEX_SIZE_MASK.
    pub size: u16,
    /// `INDEX_NULL_MASK` (0x8000): a null bitmap follows the header.
    pub has_nulls: bool,
    /// `INDEX_VAR_MASK` (0x4000): some attribute is variable-width.
    pub has_varwidth: bool,
    /// The AM-reserved bit 0x2000 (`INDEX_AM_RESERVED_BIT`).
    pub am_bit: bool,
    /// The null bitmap (4 bytes, bit set = not null), when has_nulls.
    pub bitmap: Option<Vec<u8>>,
    /// `IndexInfoFindDataOffset`: where the attributes start, from the tuple start.
    pub data_offset: usize,
}

/// Where an index tuple's key attributes lie in the page, for `--columns`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeyArea {
    /// Page offset of the first attribute byte.
    pub start: usize,
    /// Bytes the attributes may take.
    pub len: usize,
    /// The null bitmap (bit set = not null), if any.
    pub bitmap: Option<Vec<u8>>,
    /// Attributes stored before the keys (GIN's attnum of a multi-column index
    /// is one: an int2).
    pub skip_int2: bool,
}

/// A GIN entry tuple's posting information (ginblock.h).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum GinPosting {
    /// Internal entry page: `GinGetDownlink`.
    Downlink {
        /// Child block.
        block: u32,
    },
    /// `GinIsPostingTree`: the heap TIDs are in a posting tree.
    Tree {
        /// `GinGetPostingTree`: root block of the posting tree.
        root: u32,
    },
    /// A posting list inside the tuple (`GinGetPosting`).
    List {
        /// `GinItupIsCompressed`: varbyte-encoded (9.4+), else plain ItemPointers.
        compressed: bool,
        /// `GinGetPostingOffset`: where the list starts in the tuple.
        offset: u32,
        /// The heap TIDs.
        tids: Vec<ItemPointer>,
    },
    /// A pending-list tuple (GIN_LIST page): `t_tid` is the heap TID.
    Pending,
}

/// One BRIN column of a summary tuple (brin_tuple.h).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BrinColumn {
    /// Attribute number in the index.
    pub attnum: u16,
    /// `bv_allnulls`: every heap value in the range is NULL.
    pub allnulls: bool,
    /// `bv_hasnulls`: some heap value in the range is NULL.
    pub hasnulls: bool,
    /// The stored values (`{a .. b}`), when column types were given.
    pub value: Option<String>,
    /// Problems decoding this column's values.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// A GIN posting-list segment of a compressed data leaf page (`GinPostingList`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GinSegment {
    /// Page offset of the segment.
    pub offset: usize,
    /// `first`: the first heap TID, stored plainly.
    pub first_tid: ItemPointer,
    /// `nbytes`: bytes of varbyte-encoded deltas after it.
    pub nbytes: u16,
    /// Every TID of the segment, the first included.
    pub tids: Vec<ItemPointer>,
}

/// A GIN data (posting tree) page's contents besides its opaque data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GinDataPage {
    /// `GinDataPageGetRightBound`: the highest TID this page may hold.
    pub right_bound: ItemPointer,
    /// Compressed leaf pages: the posting-list segments.
    pub segments: Vec<GinSegment>,
    /// Uncompressed (pre-9.4) leaf pages: the plain heap TIDs.
    pub plain_tids: Vec<ItemPointer>,
}

/// `SpGistMetaPageData` (spgist_private.h).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpGistMeta {
    /// `magicNumber`: SPGIST_MAGIC_NUMBER (0xBA0BABEE).
    pub magic_number: u32,
    /// `lastUsedPages.cachedPage[]`: (blkno, freeSpace) of recently used pages.
    pub last_used_pages: Vec<(u32, i32)>,
}

/// A hash overflow-bitmap page (hash.h `HashPageGetBitmap`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HashBitmap {
    /// Bits the page holds (8 × (pd_lower − header)).
    pub bits: u32,
    /// Bit numbers set: overflow pages in use.
    pub bits_set: Vec<u32>,
}

/// One SP-GiST node of an inner tuple (`SpGistNodeTupleData`, an IndexTuple).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpGistNode {
    /// `t_tid`: the downlink (block, offset), invalid when the node is empty.
    pub downlink: ItemPointer,
    /// `t_info` size of the node tuple.
    pub size: u16,
    /// The label bytes, or None when the label is NULL.
    pub label: Option<Vec<u8>>,
}

/// What an index item holds, per access method.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "type")]
pub enum IndexBody {
    /// A hash index tuple: the heap TID and the 32-bit hash code.
    Hash {
        /// `_hash_get_indextuple_hashkey`.
        hash: u32,
    },
    /// A GiST tuple: a key (union key on inner pages) and its TID.
    Gist {
        /// The whole tuple's bytes (gist_page_items_bytea's `key_data`).
        key_data: Vec<u8>,
        /// Inner pages: the child block (`t_tid` block).
        downlink: Option<u32>,
        /// How many of the keys are key columns, the rest INCLUDE columns
        /// (when the column list says so).
        key_columns: Option<usize>,
    },
    /// A GIN entry-tree or pending-list tuple.
    GinEntry {
        /// The key's attribute number (multi-column indexes only).
        attnum: Option<u16>,
        /// The key bytes as stored (after the header, before the posting list).
        key_data: Vec<u8>,
        /// `GinNullCategory`, when the tuple has a null bitmap.
        category: Option<u8>,
        /// The posting information.
        posting: GinPosting,
    },
    /// A GIN posting-tree internal item (`PostingItem`).
    GinPostingItem {
        /// `child_blkno`.
        child_blkno: u32,
        /// `key`: the high key of the child.
        key: ItemPointer,
    },
    /// A BRIN summary tuple (`BrinTuple`).
    Brin {
        /// `bt_blkno`: first heap block of the range.
        blknum: u32,
        /// `bt_info`: data offset and flag bits.
        bt_info: u8,
        /// `BRIN_PLACEHOLDER_MASK`.
        placeholder: bool,
        /// `BRIN_EMPTY_RANGE_MASK` (PostgreSQL 16+).
        empty: bool,
        /// `BRIN_NULLS_MASK`: a null bitmap follows.
        has_nulls_mask: bool,
        /// The stored values' bytes (from the data offset).
        data: Vec<u8>,
        /// Per column, when the number of columns is known.
        columns: Vec<BrinColumn>,
    },
    /// A live SP-GiST inner tuple (`SpGistInnerTupleData`).
    SpGistInner {
        /// `allTheSame`.
        all_the_same: bool,
        /// `nNodes`.
        n_nodes: u16,
        /// `prefixSize`.
        prefix_size: u16,
        /// `size`.
        size: u16,
        /// The prefix datum's bytes.
        prefix: Option<Vec<u8>>,
        /// The nodes.
        nodes: Vec<SpGistNode>,
    },
    /// A live SP-GiST leaf tuple (`SpGistLeafTupleData`).
    SpGistLeaf {
        /// `size`.
        size: u32,
        /// `SGLT_GET_NEXTOFFSET`: next tuple of the chain, 0 at its end.
        next_offset: u16,
        /// `SGLT_GET_HASNULLMASK`.
        has_nulls: bool,
        /// `heapPtr`.
        heap_ptr: ItemPointer,
        /// The leaf datum's bytes.
        datum: Vec<u8>,
    },
    /// An SP-GiST redirect, dead or placeholder tuple (`SpGistDeadTupleData`).
    SpGistDead {
        /// `size`.
        size: u32,
        /// `pointer`: where a redirect leads.
        pointer: ItemPointer,
        /// `xid`: the transaction that made it.
        xid: u32,
    },
    /// No tuple: unused or dead line pointer without storage.
    None,
    /// The tuple could not be read.
    Unreadable {
        /// Why.
        reason: String,
    },
}

/// One index item: line pointer, tuple and what they say.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IndexItem {
    /// The line pointer (`ItemIdData`); for GIN posting items, lp is the item number.
    pub id: ItemId,
    /// The IndexTupleData header, for IndexTuple-based tuples.
    pub header: Option<IndexTupleHeader>,
    /// What the tuple holds.
    pub body: IndexBody,
    /// SP-GiST tuple state (`LIVE`, `REDIRECT`, `DEAD`, `PLACEHOLDER`).
    pub tupstate: Option<&'static str>,
    /// Where the key attributes lie, for `--columns`.
    pub key_area: Option<KeyArea>,
    /// The key attributes, when column types were given.
    pub keys: Option<Vec<Attr>>,
    /// Plain words: what the tuple is (live, dead, redirect, posting list of N…).
    pub verdict: String,
}
