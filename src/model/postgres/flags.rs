//! Flag words and their bit names, as the PostgreSQL headers define them.

use crate::model::bits::flag;
pub use crate::model::bits::{names, unknown_bits, Flag};

/// `t_infomask` bits by name (htup_details.h); the one definition every parser uses.
pub const HEAP_HASNULL: u16 = 0x0001;
/// `HEAP_HASVARWIDTH` (htup_details.h).
pub const HEAP_HASVARWIDTH: u16 = 0x0002;
/// `HEAP_HASEXTERNAL` (htup_details.h).
pub const HEAP_HASEXTERNAL: u16 = 0x0004;
/// `HEAP_HASOID_OLD` (htup_details.h).
pub const HEAP_HASOID_OLD: u16 = 0x0008;
/// `HEAP_XMAX_KEYSHR_LOCK` (htup_details.h).
pub const HEAP_XMAX_KEYSHR_LOCK: u16 = 0x0010;
/// `HEAP_COMBOCID` (htup_details.h).
pub const HEAP_COMBOCID: u16 = 0x0020;
/// `HEAP_XMAX_EXCL_LOCK` (htup_details.h).
pub const HEAP_XMAX_EXCL_LOCK: u16 = 0x0040;
/// `HEAP_XMAX_LOCK_ONLY` (htup_details.h).
pub const HEAP_XMAX_LOCK_ONLY: u16 = 0x0080;
/// `HEAP_XMIN_COMMITTED` (htup_details.h).
pub const HEAP_XMIN_COMMITTED: u16 = 0x0100;
/// `HEAP_XMIN_INVALID` (htup_details.h).
pub const HEAP_XMIN_INVALID: u16 = 0x0200;
/// `HEAP_XMAX_COMMITTED` (htup_details.h).
pub const HEAP_XMAX_COMMITTED: u16 = 0x0400;
/// `HEAP_XMAX_INVALID` (htup_details.h).
pub const HEAP_XMAX_INVALID: u16 = 0x0800;
/// `HEAP_XMAX_IS_MULTI` (htup_details.h).
pub const HEAP_XMAX_IS_MULTI: u16 = 0x1000;
/// `HEAP_UPDATED` (htup_details.h).
pub const HEAP_UPDATED: u16 = 0x2000;
/// `HEAP_MOVED_OFF` (htup_details.h).
pub const HEAP_MOVED_OFF: u16 = 0x4000;
/// `HEAP_MOVED_IN` (htup_details.h).
pub const HEAP_MOVED_IN: u16 = 0x8000;
/// `HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID`: xmin frozen.
pub const HEAP_XMIN_FROZEN: u16 = 0x0300;
/// `HEAP_XMAX_KEYSHR_LOCK | HEAP_XMAX_EXCL_LOCK`: a shared locker.
pub const HEAP_XMAX_SHR_LOCK: u16 = 0x0050;
/// `t_infomask2`: the number of attributes (low 11 bits).
pub const HEAP_NATTS_MASK: u16 = 0x07FF;
/// `t_infomask2`: tuple was updated and key columns modified, or tuple deleted.
pub const HEAP_KEYS_UPDATED: u16 = 0x2000;
/// `t_infomask2`: tuple was HOT-updated.
pub const HEAP_HOT_UPDATED: u16 = 0x4000;
/// `t_infomask2`: this is a heap-only tuple.
pub const HEAP_ONLY_TUPLE: u16 = 0x8000;

/// `HEAP_MOVED_OFF | HEAP_MOVED_IN`: moved by pre-9.0 VACUUM FULL.
pub const HEAP_MOVED: u16 = 0xC000;
/// `t_infomask` bits that say xmax is only a locker (htup_details.h):
/// `HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK`.
pub const HEAP_LOCK_MASK: u16 = 0x0050;

/// `lp_flags` values (itemid.h).
pub const LP_UNUSED: u8 = 0;
/// `lp_flags`: used (should always have lp_len > 0).
pub const LP_NORMAL: u8 = 1;
/// `lp_flags`: HOT redirect (should have lp_len = 0).
pub const LP_REDIRECT: u8 = 2;
/// `lp_flags`: dead, may or may not have storage.
pub const LP_DEAD: u8 = 3;

/// `pd_flags` bits (bufpage.h).
pub const PD_HAS_FREE_LINES: u16 = 0x0001;
/// `pd_flags`: not enough free space for a new tuple.
pub const PD_PAGE_FULL: u16 = 0x0002;
/// `pd_flags`: all tuples on the page are visible to everyone.
pub const PD_ALL_VISIBLE: u16 = 0x0004;

/// `btpo_flags` bits (nbtree.h).
pub const BTP_LEAF: u16 = 0x0001;
/// `btpo_flags`: root page (has no parent).
pub const BTP_ROOT: u16 = 0x0002;
/// `btpo_flags`: page has been deleted from the tree.
pub const BTP_DELETED: u16 = 0x0004;
/// `btpo_flags`: the metapage.
pub const BTP_META: u16 = 0x0008;
/// `btpo_flags`: empty, but still in the tree.
pub const BTP_HALF_DEAD: u16 = 0x0010;
/// `btpo_flags`: rightmost page of a split group.
pub const BTP_SPLIT_END: u16 = 0x0020;
/// `btpo_flags`: page has LP_DEAD tuples (deprecated).
pub const BTP_HAS_GARBAGE: u16 = 0x0040;
/// `btpo_flags`: right sibling's downlink is missing.
pub const BTP_INCOMPLETE_SPLIT: u16 = 0x0080;
/// `btpo_flags`: contains BTDeletedPageData (PostgreSQL 14+).
pub const BTP_HAS_FULLXID: u16 = 0x0100;

/// `hasho_flag` bits (hash.h).
pub const LH_OVERFLOW_PAGE: u16 = 0x0001;
/// `hasho_flag`: primary bucket page.
pub const LH_BUCKET_PAGE: u16 = 0x0002;
/// `hasho_flag`: bitmap of free overflow pages.
pub const LH_BITMAP_PAGE: u16 = 0x0004;
/// `hasho_flag`: the metapage.
pub const LH_META_PAGE: u16 = 0x0008;
/// `hasho_flag`: bucket is being populated by a split.
pub const LH_BUCKET_BEING_POPULATED: u16 = 0x0010;
/// `hasho_flag`: bucket is being split.
pub const LH_BUCKET_BEING_SPLIT: u16 = 0x0020;
/// `hasho_flag`: bucket needs cleanup after a split.
pub const LH_BUCKET_NEEDS_SPLIT_CLEANUP: u16 = 0x0040;
/// `hasho_flag`: page has LP_DEAD tuples.
pub const LH_PAGE_HAS_DEAD_TUPLES: u16 = 0x0080;

/// GIN page flags (ginblock.h): posting tree page.
pub const GIN_DATA: u16 = 0x0001;
/// GIN page flags: leaf page.
pub const GIN_LEAF: u16 = 0x0002;
/// GIN page flags: deleted page.
pub const GIN_DELETED: u16 = 0x0004;
/// GIN page flags: the metapage.
pub const GIN_META: u16 = 0x0008;
/// GIN page flags: pending list page.
pub const GIN_LIST: u16 = 0x0010;
/// GIN page flags: pending list page holding whole rows.
pub const GIN_LIST_FULLROW: u16 = 0x0020;
/// GIN page flags: a split is incomplete.
pub const GIN_INCOMPLETE_SPLIT: u16 = 0x0040;
/// GIN page flags: compressed posting lists (PostgreSQL 9.4+).
pub const GIN_COMPRESSED: u16 = 0x0080;

/// GiST page flags (gist.h): leaf page.
pub const F_LEAF: u16 = 0x0001;
/// GiST page flags: deleted page.
pub const F_DELETED: u16 = 0x0002;
/// GiST page flags: some tuples were deleted.
pub const F_TUPLES_DELETED: u16 = 0x0004;
/// GiST page flags: the page to the right has no downlink.
pub const F_FOLLOW_RIGHT: u16 = 0x0008;
/// GiST page flags: page has LP_DEAD tuples.
pub const F_HAS_GARBAGE: u16 = 0x0010;

/// SP-GiST page flags (spgist_private.h): the metapage.
pub const SPGIST_META: u16 = 0x0001;
/// SP-GiST page flags: never set, kept for on-disk compatibility.
pub const SPGIST_DELETED: u16 = 0x0002;
/// SP-GiST page flags: leaf page.
pub const SPGIST_LEAF: u16 = 0x0004;
/// SP-GiST page flags: page holds NULL keys.
pub const SPGIST_NULLS: u16 = 0x0008;

/// BRIN page types (brin_page.h), in the special space's last two bytes.
pub const BRIN_PAGETYPE_META: u16 = 0xF091;
/// BRIN page type: a range map (revmap) page.
pub const BRIN_PAGETYPE_REVMAP: u16 = 0xF092;
/// BRIN page type: a regular page of summary tuples.
pub const BRIN_PAGETYPE_REGULAR: u16 = 0xF093;

/// Page ids in the last two bytes of a special space: `HASHO_PAGE_ID` (hash.h).
pub const HASHO_PAGE_ID: u16 = 0xFF80;
/// `GIST_PAGE_ID` (gist.h).
pub const GIST_PAGE_ID: u16 = 0xFF81;
/// `SPGIST_PAGE_ID` (spgist_private.h).
pub const SPGIST_PAGE_ID: u16 = 0xFF82;
/// `MAX_BT_CYCLE_ID` (nbtree.h): a btree page's btpo_cycleid never exceeds it.
pub const MAX_BT_CYCLE_ID: u16 = 0xFF7F;

/// `SEQ_MAGIC` (sequence.c): a sequence page's special space.
pub const SEQ_MAGIC: u32 = 0x1717;

/// `BTREE_MAGIC` (nbtree.h): a btree metapage's `btm_magic`.
pub const BTREE_MAGIC: u32 = 0x053162;
/// `P_NONE` (nbtree.h): no sibling (block 0 is the metapage, never a sibling).
pub const P_NONE: u32 = 0;
/// `BT_OFFSET_MASK` (nbtree.h): a pivot or posting tuple's count in its t_tid offset.
pub const BT_OFFSET_MASK: u16 = 0x0FFF;
/// `BT_PIVOT_HEAP_TID_ATTR` (nbtree.h): a pivot tuple carries a heap TID.
pub const BT_PIVOT_HEAP_TID_ATTR: u16 = 0x1000;
/// `BT_IS_POSTING` (nbtree.h): a posting list tuple.
pub const BT_IS_POSTING: u16 = 0x2000;

/// `t_info` bits of `IndexTupleData` (itup.h): the tuple's size.
pub const INDEX_SIZE_MASK: u16 = 0x1FFF;
/// `t_info`: reserved for the access method (btree: INDEX_ALT_TID_MASK).
pub const INDEX_AM_RESERVED_BIT: u16 = 0x2000;
/// `t_info`: btree's name for [`INDEX_AM_RESERVED_BIT`] (nbtree.h): a pivot
/// tuple or a posting list tuple.
pub const INDEX_ALT_TID_MASK: u16 = 0x2000;
/// `t_info`: the tuple has variable-width attributes.
pub const INDEX_VAR_MASK: u16 = 0x4000;
/// `t_info`: the tuple has null attributes.
pub const INDEX_NULL_MASK: u16 = 0x8000;

/// `t_infomask` bits (htup_details.h), in heap_tuple_infomask_flags' order.
pub const INFOMASK: &[Flag] = &[
    flag(HEAP_HASNULL, "HEAP_HASNULL", "has null attribute(s)"),
    flag(
        HEAP_HASVARWIDTH,
        "HEAP_HASVARWIDTH",
        "has variable-width attribute(s)",
    ),
    flag(
        HEAP_HASEXTERNAL,
        "HEAP_HASEXTERNAL",
        "has external stored attribute(s)",
    ),
    flag(
        HEAP_HASOID_OLD,
        "HEAP_HASOID_OLD",
        "has an object-id field (before PostgreSQL 12)",
    ),
    flag(
        HEAP_XMAX_KEYSHR_LOCK,
        "HEAP_XMAX_KEYSHR_LOCK",
        "xmax is a key-shared locker",
    ),
    flag(HEAP_COMBOCID, "HEAP_COMBOCID", "t_cid is a combo cid"),
    flag(
        HEAP_XMAX_EXCL_LOCK,
        "HEAP_XMAX_EXCL_LOCK",
        "xmax is exclusive locker",
    ),
    flag(
        HEAP_XMAX_LOCK_ONLY,
        "HEAP_XMAX_LOCK_ONLY",
        "xmax, if valid, is only a locker",
    ),
    flag(
        HEAP_XMIN_COMMITTED,
        "HEAP_XMIN_COMMITTED",
        "t_xmin committed",
    ),
    flag(
        HEAP_XMIN_INVALID,
        "HEAP_XMIN_INVALID",
        "t_xmin invalid/aborted",
    ),
    flag(
        HEAP_XMAX_COMMITTED,
        "HEAP_XMAX_COMMITTED",
        "t_xmax committed",
    ),
    flag(
        HEAP_XMAX_INVALID,
        "HEAP_XMAX_INVALID",
        "t_xmax invalid/aborted",
    ),
    flag(
        HEAP_XMAX_IS_MULTI,
        "HEAP_XMAX_IS_MULTI",
        "t_xmax is a MultiXactId",
    ),
    flag(
        HEAP_UPDATED,
        "HEAP_UPDATED",
        "this is UPDATEd version of row",
    ),
    flag(
        HEAP_MOVED_OFF,
        "HEAP_MOVED_OFF",
        "moved to another place by pre-9.0 VACUUM FULL",
    ),
    flag(
        HEAP_MOVED_IN,
        "HEAP_MOVED_IN",
        "moved from another place by pre-9.0 VACUUM FULL",
    ),
];

/// Composite `t_infomask` masks, reported when all their bits are set.
pub const INFOMASK_COMBINED: &[Flag] = &[
    flag(
        HEAP_XMAX_SHR_LOCK,
        "HEAP_XMAX_SHR_LOCK",
        "xmax is a shared locker (KEYSHR | EXCL)",
    ),
    flag(
        HEAP_XMIN_FROZEN,
        "HEAP_XMIN_FROZEN",
        "xmin frozen (COMMITTED | INVALID)",
    ),
    flag(
        HEAP_MOVED,
        "HEAP_MOVED",
        "moved by pre-9.0 VACUUM FULL (OFF | IN)",
    ),
];

/// `t_infomask2` flag bits; the low 11 bits are the attribute count.
pub const INFOMASK2: &[Flag] = &[
    flag(
        HEAP_KEYS_UPDATED,
        "HEAP_KEYS_UPDATED",
        "tuple was updated and key cols modified, or tuple deleted",
    ),
    flag(
        HEAP_HOT_UPDATED,
        "HEAP_HOT_UPDATED",
        "tuple was HOT-updated",
    ),
    flag(
        HEAP_ONLY_TUPLE,
        "HEAP_ONLY_TUPLE",
        "this is heap-only tuple",
    ),
];

/// `pd_flags` (bufpage.h).
pub const PD_FLAGS: &[Flag] = &[
    flag(
        PD_HAS_FREE_LINES,
        "PD_HAS_FREE_LINES",
        "are there any unused line pointers?",
    ),
    flag(
        PD_PAGE_FULL,
        "PD_PAGE_FULL",
        "not enough free space for new tuple?",
    ),
    flag(
        PD_ALL_VISIBLE,
        "PD_ALL_VISIBLE",
        "all tuples on page are visible to everyone",
    ),
];

/// `btpo_flags` (nbtree.h).
pub const BTPO_FLAGS: &[Flag] = &[
    flag(BTP_LEAF, "BTP_LEAF", "leaf page, i.e. not internal page"),
    flag(BTP_ROOT, "BTP_ROOT", "root page (has no parent)"),
    flag(
        BTP_DELETED,
        "BTP_DELETED",
        "page has been deleted from tree",
    ),
    flag(BTP_META, "BTP_META", "meta-page"),
    flag(BTP_HALF_DEAD, "BTP_HALF_DEAD", "empty, but still in tree"),
    flag(
        BTP_SPLIT_END,
        "BTP_SPLIT_END",
        "rightmost page of split group",
    ),
    flag(
        BTP_HAS_GARBAGE,
        "BTP_HAS_GARBAGE",
        "page has LP_DEAD tuples (deprecated)",
    ),
    flag(
        BTP_INCOMPLETE_SPLIT,
        "BTP_INCOMPLETE_SPLIT",
        "right sibling's downlink is missing",
    ),
    flag(
        BTP_HAS_FULLXID,
        "BTP_HAS_FULLXID",
        "contains BTDeletedPageData",
    ),
];

/// `hasho_flag` (hash.h); the low bits are the page type (LH_PAGE_TYPE).
pub const HASHO_FLAG: &[Flag] = &[
    flag(LH_OVERFLOW_PAGE, "LH_OVERFLOW_PAGE", "overflow page"),
    flag(LH_BUCKET_PAGE, "LH_BUCKET_PAGE", "primary bucket page"),
    flag(
        LH_BITMAP_PAGE,
        "LH_BITMAP_PAGE",
        "bitmap of free overflow pages",
    ),
    flag(LH_META_PAGE, "LH_META_PAGE", "metapage"),
    flag(
        LH_BUCKET_BEING_POPULATED,
        "LH_BUCKET_BEING_POPULATED",
        "bucket is being populated by a split",
    ),
    flag(
        LH_BUCKET_BEING_SPLIT,
        "LH_BUCKET_BEING_SPLIT",
        "bucket is being split",
    ),
    flag(
        LH_BUCKET_NEEDS_SPLIT_CLEANUP,
        "LH_BUCKET_NEEDS_SPLIT_CLEANUP",
        "bucket needs cleanup after a split",
    ),
    flag(
        LH_PAGE_HAS_DEAD_TUPLES,
        "LH_PAGE_HAS_DEAD_TUPLES",
        "page has LP_DEAD tuples",
    ),
];

/// GIN page flags (ginblock.h), named as gin_page_opaque_info prints them.
pub const GIN_FLAGS: &[Flag] = &[
    flag(GIN_DATA, "data", "GIN_DATA: posting tree page"),
    flag(GIN_LEAF, "leaf", "GIN_LEAF"),
    flag(GIN_DELETED, "deleted", "GIN_DELETED"),
    flag(GIN_META, "meta", "GIN_META"),
    flag(GIN_LIST, "list", "GIN_LIST: pending list page"),
    flag(GIN_LIST_FULLROW, "list_fullrow", "GIN_LIST_FULLROW"),
    flag(
        GIN_INCOMPLETE_SPLIT,
        "incomplete_split",
        "GIN_INCOMPLETE_SPLIT",
    ),
    flag(
        GIN_COMPRESSED,
        "compressed",
        "GIN_COMPRESSED: compressed posting list",
    ),
];

/// GiST page flags (gist.h), named as gist_page_opaque_info prints them.
pub const GIST_FLAGS: &[Flag] = &[
    flag(F_LEAF, "leaf", "F_LEAF"),
    flag(F_DELETED, "deleted", "F_DELETED"),
    flag(F_TUPLES_DELETED, "tuples_deleted", "F_TUPLES_DELETED"),
    flag(F_FOLLOW_RIGHT, "follow_right", "F_FOLLOW_RIGHT"),
    flag(F_HAS_GARBAGE, "has_garbage", "F_HAS_GARBAGE"),
];

/// SP-GiST page flags (spgist_private.h).
pub const SPGIST_FLAGS: &[Flag] = &[
    flag(SPGIST_META, "SPGIST_META", "metapage"),
    flag(
        SPGIST_DELETED,
        "SPGIST_DELETED",
        "never set, kept for on-disk compatibility",
    ),
    flag(SPGIST_LEAF, "SPGIST_LEAF", "leaf page"),
    flag(SPGIST_NULLS, "SPGIST_NULLS", "page holds NULL keys"),
];

/// Names as gin_page_opaque_info / gist_page_opaque_info print them: one per
/// known bit, then the remaining bits as `0x%04x`.
pub fn pageinspect_names(value: u16, table: &'static [Flag]) -> Vec<String> {
    let (set, unknown) = names(value, table, 0xFFFF);
    let mut out: Vec<String> = set.iter().map(|f| f.name.to_string()).collect();
    if unknown != 0 {
        out.push(format!("0x{unknown:04x}"));
    }
    out
}

/// heap_tuple_infomask_flags' `raw_flags` or `combined_flags`, held as the
/// set bits of their tables (no allocation, eight bytes): `raw` lists
/// [`INFOMASK`] then [`INFOMASK2`] names, `combined` [`INFOMASK_COMBINED`]
/// names, in table order.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct FlagList {
    /// Bit `i`: the `i`th name of the list's tables is in the list.
    bits: u32,
    combined: bool,
}

impl FlagList {
    /// The names, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        let tables: [&'static [Flag]; 2] = if self.combined {
            [INFOMASK_COMBINED, &[]]
        } else {
            [INFOMASK, INFOMASK2]
        };
        tables
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(i, _)| self.bits & (1 << i) != 0)
            .map(|(_, f)| f.name)
    }

    /// No name is in the list.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// The names as a Vec (tests, rare callers).
    pub fn to_vec(&self) -> Vec<&'static str> {
        self.iter().collect()
    }
}

impl PartialEq<Vec<&str>> for FlagList {
    fn eq(&self, other: &Vec<&str>) -> bool {
        self.iter().eq(other.iter().copied())
    }
}

impl std::fmt::Debug for FlagList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl serde::Serialize for FlagList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// heap_tuple_infomask_flags(t_infomask, t_infomask2): (raw_flags, combined_flags).
pub fn infomask_flags(t_infomask: u16, t_infomask2: u16) -> (FlagList, FlagList) {
    // INFOMASK's names are its 16 bits in order and INFOMASK2's the top
    // three bits of t_infomask2 (checked at compile time below), so the
    // list's bits are the words' bits.
    const _: () = {
        let mut i = 0;
        while i < 16 {
            assert!(INFOMASK[i].mask == 1 << i);
            i += 1;
        }
        assert!(INFOMASK.len() == 16 && INFOMASK2.len() == 3);
        assert!(INFOMASK2[0].mask == 0x2000);
        assert!(INFOMASK2[1].mask == 0x4000);
        assert!(INFOMASK2[2].mask == 0x8000);
        assert!(INFOMASK_COMBINED.len() == 3);
    };
    let raw = u32::from(t_infomask) | (u32::from(t_infomask2 >> 13) << 16);
    let mut combined = 0u32;
    for (i, f) in INFOMASK_COMBINED.iter().enumerate() {
        if t_infomask & f.mask == f.mask {
            combined |= 1 << i;
        }
    }
    (
        FlagList {
            bits: raw,
            combined: false,
        },
        FlagList {
            bits: combined,
            combined: true,
        },
    )
}

/// `NAME | NAME | unknown 0x0800` for a flag word, or `none`.
pub fn join(value: u16, table: &'static [Flag], considered: u16) -> String {
    let (set, unknown) = names(value, table, considered);
    let mut parts: Vec<String> = set
        .iter()
        .filter(|f| f.mask.count_ones() == 1)
        .map(|f| f.name.to_string())
        .collect();
    if unknown != 0 {
        parts.push(format!("unknown 0x{unknown:04x}"));
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(" | ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infomask_2050_is_hasvarwidth_xmax_invalid() {
        let (raw, combined) = infomask_flags(2050, 2);
        assert_eq!(raw.to_vec(), ["HEAP_HASVARWIDTH", "HEAP_XMAX_INVALID"]);
        assert!(combined.is_empty());
    }

    #[test]
    fn frozen_is_reported_raw_and_combined() {
        // Verified against heap_tuple_infomask_flags(2816, 0).
        let (raw, combined) = infomask_flags(2816, 0);
        assert_eq!(
            raw.to_vec(),
            [
                "HEAP_XMIN_COMMITTED",
                "HEAP_XMIN_INVALID",
                "HEAP_XMAX_INVALID"
            ]
        );
        assert_eq!(combined.to_vec(), ["HEAP_XMIN_FROZEN"]);
    }

    /// The bit arithmetic of `infomask_flags` names exactly the flags whose
    /// masks are set, for every t_infomask and every t_infomask2 flag
    /// combination (natts bits included).
    #[test]
    fn raw_flags_are_the_set_masks() {
        for t_infomask in 0..=u16::MAX {
            for t_infomask2 in [0u16, 4, 0x07FF, 0x2004, 0x4003, 0x8001, 0xE7FF] {
                let (raw, _) = infomask_flags(t_infomask, t_infomask2);
                let want: Vec<&str> = INFOMASK
                    .iter()
                    .filter(|f| t_infomask & f.mask != 0)
                    .chain(INFOMASK2.iter().filter(|f| t_infomask2 & f.mask != 0))
                    .map(|f| f.name)
                    .collect();
                assert_eq!(raw, want, "{t_infomask:#06x} {t_infomask2:#06x}");
            }
        }
    }

    #[test]
    fn unknown_bits_are_called_out() {
        assert_eq!(
            join(0x0009, PD_FLAGS, 0xFFFF),
            "PD_HAS_FREE_LINES | unknown 0x0008"
        );
        assert_eq!(join(0, PD_FLAGS, 0xFFFF), "none");
        // natts bits are not flags: leave them out of consideration.
        assert_eq!(join(0x1802, INFOMASK2, !0x07FF), "unknown 0x1800");
    }
}
