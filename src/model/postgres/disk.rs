//! The raw on-disk layouts PostgreSQL writes, as field offsets and sizes
//! (the C headers' `offsetof` / `sizeof` on a 64-bit build), each struct
//! checked at compile time: its fields follow one another and add up to the
//! size the C compiler gives it. The parsers read through these offsets.

/// `PageHeaderData` (bufpage.h).
pub mod page_header {
    /// `pd_lsn`: a `PageXLogRecPtr` (two uint32, high word first).
    pub const PD_LSN: usize = 0;
    /// Offset of `pd_checksum`.
    pub const PD_CHECKSUM: usize = PD_LSN + 8;
    /// Offset of `pd_flags`.
    pub const PD_FLAGS: usize = PD_CHECKSUM + 2;
    /// Offset of `pd_lower`.
    pub const PD_LOWER: usize = PD_FLAGS + 2;
    /// Offset of `pd_upper`.
    pub const PD_UPPER: usize = PD_LOWER + 2;
    /// Offset of `pd_special`.
    pub const PD_SPECIAL: usize = PD_UPPER + 2;
    /// Offset of `pd_pagesize_version`.
    pub const PD_PAGESIZE_VERSION: usize = PD_SPECIAL + 2;
    /// Offset of `pd_prune_xid`.
    pub const PD_PRUNE_XID: usize = PD_PAGESIZE_VERSION + 2;
    /// `offsetof(PageHeaderData, pd_linp)`: `SizeOfPageHeaderData`.
    pub const PD_LINP: usize = PD_PRUNE_XID + 4;
}
const _: () = assert!(page_header::PD_LINP == 24);
const _: () = assert!(page_header::PD_LINP == super::SIZE_OF_PAGE_HEADER);

/// `ItemIdData` (itemid.h): lp_off:15, lp_flags:2, lp_len:15 in one uint32.
pub const SIZE_OF_ITEM_ID_DATA: usize = 4;
const _: () = assert!(15 + 2 + 15 == SIZE_OF_ITEM_ID_DATA * 8);
const _: () = assert!(SIZE_OF_ITEM_ID_DATA == super::SIZE_OF_ITEM_ID);

/// `HeapTupleHeaderData` (htup_details.h).
pub mod heap_tuple_header {
    /// Offset of `t_xmin`.
    pub const T_XMIN: usize = 0;
    /// Offset of `t_xmax`.
    pub const T_XMAX: usize = T_XMIN + 4;
    /// `t_cid` or `t_xvac`.
    pub const T_FIELD3: usize = T_XMAX + 4;
    /// `t_ctid`: an `ItemPointerData` (bi_hi, bi_lo, ip_posid).
    pub const T_CTID: usize = T_FIELD3 + 4;
    /// Offset of `t_infomask2`.
    pub const T_INFOMASK2: usize = T_CTID + 6;
    /// Offset of `t_infomask`.
    pub const T_INFOMASK: usize = T_INFOMASK2 + 2;
    /// Offset of `t_hoff`.
    pub const T_HOFF: usize = T_INFOMASK + 2;
    /// `offsetof(HeapTupleHeaderData, t_bits)`: `SizeofHeapTupleHeader`.
    pub const T_BITS: usize = T_HOFF + 1;
}
const _: () = assert!(heap_tuple_header::T_BITS == 23);
/// `MinHeapTupleSize` is MAXALIGN(SizeofHeapTupleHeader).
const _: () = assert!(super::maxalign(heap_tuple_header::T_BITS) == super::MIN_HEAP_TUPLE_SIZE);

/// `IndexTupleData` (itup.h).
pub mod index_tuple {
    /// `t_tid`: an `ItemPointerData`.
    pub const T_TID: usize = 0;
    /// Offset of `t_info`.
    pub const T_INFO: usize = T_TID + 6;
    /// `sizeof(IndexTupleData)`.
    pub const SIZE: usize = T_INFO + 2;
}
const _: () = assert!(index_tuple::SIZE == 8);

/// `BTPageOpaqueData` (nbtree.h).
pub mod bt_page_opaque {
    /// Offset of `btpo_prev`.
    pub const BTPO_PREV: usize = 0;
    /// Offset of `btpo_next`.
    pub const BTPO_NEXT: usize = BTPO_PREV + 4;
    /// Offset of `btpo_level`.
    pub const BTPO_LEVEL: usize = BTPO_NEXT + 4;
    /// Offset of `btpo_flags`.
    pub const BTPO_FLAGS: usize = BTPO_LEVEL + 4;
    /// Offset of `btpo_cycleid`.
    pub const BTPO_CYCLEID: usize = BTPO_FLAGS + 2;
    /// The size of the whole structure (`sizeof`).
    pub const SIZE: usize = BTPO_CYCLEID + 2;
}
const _: () = assert!(bt_page_opaque::SIZE == 16);

/// `BTMetaPageData` (nbtree.h), version 4, on a 64-bit build.
pub mod bt_meta_page {
    /// Offset of `btm_magic`.
    pub const BTM_MAGIC: usize = 0;
    /// Offset of `btm_version`.
    pub const BTM_VERSION: usize = BTM_MAGIC + 4;
    /// Offset of `btm_root`.
    pub const BTM_ROOT: usize = BTM_VERSION + 4;
    /// Offset of `btm_level`.
    pub const BTM_LEVEL: usize = BTM_ROOT + 4;
    /// Offset of `btm_fastroot`.
    pub const BTM_FASTROOT: usize = BTM_LEVEL + 4;
    /// Offset of `btm_fastlevel`.
    pub const BTM_FASTLEVEL: usize = BTM_FASTROOT + 4;
    /// `btm_last_cleanup_num_delpages` (`btm_oldest_btpo_xact` before 14).
    pub const BTM_LAST_CLEANUP_NUM_DELPAGES: usize = BTM_FASTLEVEL + 4;
    /// A float8: 8-aligned on a 64-bit build (at 28 on a 32-bit one).
    pub const BTM_LAST_CLEANUP_NUM_HEAP_TUPLES: usize =
        (BTM_LAST_CLEANUP_NUM_DELPAGES + 4 + 7) & !7;
    /// Offset of `btm_allequalimage`.
    pub const BTM_ALLEQUALIMAGE: usize = BTM_LAST_CLEANUP_NUM_HEAP_TUPLES + 8;
    /// `sizeof(BTMetaPageData)`: the bool, padded to the struct's 8-byte alignment.
    pub const SIZE: usize = (BTM_ALLEQUALIMAGE + 1 + 7) & !7;
}
const _: () = assert!(bt_meta_page::BTM_LAST_CLEANUP_NUM_HEAP_TUPLES == 32);
const _: () = assert!(bt_meta_page::SIZE == 48);

/// `HashPageOpaqueData` (hash.h).
pub mod hash_page_opaque {
    /// Offset of `hasho_prevblkno`.
    pub const HASHO_PREVBLKNO: usize = 0;
    /// Offset of `hasho_nextblkno`.
    pub const HASHO_NEXTBLKNO: usize = HASHO_PREVBLKNO + 4;
    /// Offset of `hasho_bucket`.
    pub const HASHO_BUCKET: usize = HASHO_NEXTBLKNO + 4;
    /// Offset of `hasho_flag`.
    pub const HASHO_FLAG: usize = HASHO_BUCKET + 4;
    /// Offset of `hasho_page_id`.
    pub const HASHO_PAGE_ID: usize = HASHO_FLAG + 2;
    /// The size of the whole structure (`sizeof`).
    pub const SIZE: usize = HASHO_PAGE_ID + 2;
}
const _: () = assert!(hash_page_opaque::SIZE == 16);

/// `GISTPageOpaqueData` (gist.h).
pub mod gist_page_opaque {
    /// `nsn`: a `PageXLogRecPtr`.
    pub const NSN: usize = 0;
    /// Offset of `rightlink`.
    pub const RIGHTLINK: usize = NSN + 8;
    /// Offset of `flags`.
    pub const FLAGS: usize = RIGHTLINK + 4;
    /// Offset of `gist_page_id`.
    pub const GIST_PAGE_ID: usize = FLAGS + 2;
    /// The size of the whole structure (`sizeof`).
    pub const SIZE: usize = GIST_PAGE_ID + 2;
}
const _: () = assert!(gist_page_opaque::SIZE == 16);

/// `GinPageOpaqueData` (ginblock.h).
pub mod gin_page_opaque {
    /// Offset of `rightlink`.
    pub const RIGHTLINK: usize = 0;
    /// Offset of `maxoff`.
    pub const MAXOFF: usize = RIGHTLINK + 4;
    /// Offset of `flags`.
    pub const FLAGS: usize = MAXOFF + 2;
    /// The size of the whole structure (`sizeof`).
    pub const SIZE: usize = FLAGS + 2;
}
const _: () = assert!(gin_page_opaque::SIZE == 8);

/// `BrinSpecialSpace` (brin_page.h): `uint16 vector[MAXALIGN(1) / sizeof(uint16)]`,
/// the flags in its next-to-last word and the page type in its last.
pub mod brin_special_space {
    /// `sizeof(BrinSpecialSpace)` on a 64-bit build (4 on a 32-bit one).
    pub const SIZE: usize = crate::model::postgres::MAXALIGN;
    /// The flags, counted back from the end of the page.
    pub const FLAGS_FROM_END: usize = 4;
    /// The page type, counted back from the end of the page.
    pub const PAGE_TYPE_FROM_END: usize = 2;
}
const _: () = assert!(brin_special_space::SIZE == 8);
const _: () =
    assert!(brin_special_space::FLAGS_FROM_END == brin_special_space::PAGE_TYPE_FROM_END + 2);

/// `SpGistPageOpaqueData` (spgist_private.h).
pub mod spgist_page_opaque {
    /// Offset of `flags`.
    pub const FLAGS: usize = 0;
    /// Offset of `n_redirection`.
    pub const N_REDIRECTION: usize = FLAGS + 2;
    /// Offset of `n_placeholder`.
    pub const N_PLACEHOLDER: usize = N_REDIRECTION + 2;
    /// Offset of `spgist_page_id`.
    pub const SPGIST_PAGE_ID: usize = N_PLACEHOLDER + 2;
    /// The size of the whole structure (`sizeof`).
    pub const SIZE: usize = SPGIST_PAGE_ID + 2;
}
const _: () = assert!(spgist_page_opaque::SIZE == 8);

/// The fixed head of `ControlFileData` (pg_control.h) that every version
/// since 9.3 shares; the fields after it move between versions and are read
/// by the version's layout.
pub mod control_file {
    /// Offset of `system_identifier`.
    pub const SYSTEM_IDENTIFIER: usize = 0;
    /// Offset of `pg_control_version`.
    pub const PG_CONTROL_VERSION: usize = SYSTEM_IDENTIFIER + 8;
    /// Offset of `catalog_version_no`.
    pub const CATALOG_VERSION_NO: usize = PG_CONTROL_VERSION + 4;
    /// Offset of `state`.
    pub const STATE: usize = CATALOG_VERSION_NO + 4;
    /// `time`: a `pg_time_t` (int64), 8-aligned after the 4-byte `state`.
    pub const TIME: usize = (STATE + 4 + 7) & !7;
    /// `checkPoint`: an `XLogRecPtr`.
    pub const CHECK_POINT: usize = TIME + 8;
}
const _: () = assert!(control_file::TIME == 24);
const _: () = assert!(control_file::CHECK_POINT == 32);
