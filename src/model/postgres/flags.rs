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

/// `t_infomask` bits (htup_details.h), in heap_tuple_infomask_flags' order.
pub const INFOMASK: &[Flag] = &[
    flag(0x0001, "HEAP_HASNULL", "has null attribute(s)"),
    flag(
        0x0002,
        "HEAP_HASVARWIDTH",
        "has variable-width attribute(s)",
    ),
    flag(
        0x0004,
        "HEAP_HASEXTERNAL",
        "has external stored attribute(s)",
    ),
    flag(
        0x0008,
        "HEAP_HASOID_OLD",
        "has an object-id field (before PostgreSQL 12)",
    ),
    flag(
        0x0010,
        "HEAP_XMAX_KEYSHR_LOCK",
        "xmax is a key-shared locker",
    ),
    flag(0x0020, "HEAP_COMBOCID", "t_cid is a combo cid"),
    flag(0x0040, "HEAP_XMAX_EXCL_LOCK", "xmax is exclusive locker"),
    flag(
        0x0080,
        "HEAP_XMAX_LOCK_ONLY",
        "xmax, if valid, is only a locker",
    ),
    flag(0x0100, "HEAP_XMIN_COMMITTED", "t_xmin committed"),
    flag(0x0200, "HEAP_XMIN_INVALID", "t_xmin invalid/aborted"),
    flag(0x0400, "HEAP_XMAX_COMMITTED", "t_xmax committed"),
    flag(0x0800, "HEAP_XMAX_INVALID", "t_xmax invalid/aborted"),
    flag(0x1000, "HEAP_XMAX_IS_MULTI", "t_xmax is a MultiXactId"),
    flag(0x2000, "HEAP_UPDATED", "this is UPDATEd version of row"),
    flag(
        0x4000,
        "HEAP_MOVED_OFF",
        "moved to another place by pre-9.0 VACUUM FULL",
    ),
    flag(
        0x8000,
        "HEAP_MOVED_IN",
        "moved from another place by pre-9.0 VACUUM FULL",
    ),
];

/// Composite `t_infomask` masks, reported when all their bits are set.
pub const INFOMASK_COMBINED: &[Flag] = &[
    flag(
        0x0050,
        "HEAP_XMAX_SHR_LOCK",
        "xmax is a shared locker (KEYSHR | EXCL)",
    ),
    flag(
        0x0300,
        "HEAP_XMIN_FROZEN",
        "xmin frozen (COMMITTED | INVALID)",
    ),
    flag(
        0xC000,
        "HEAP_MOVED",
        "moved by pre-9.0 VACUUM FULL (OFF | IN)",
    ),
];

/// `t_infomask2` flag bits; the low 11 bits are the attribute count.
pub const INFOMASK2: &[Flag] = &[
    flag(
        0x2000,
        "HEAP_KEYS_UPDATED",
        "tuple was updated and key cols modified, or tuple deleted",
    ),
    flag(0x4000, "HEAP_HOT_UPDATED", "tuple was HOT-updated"),
    flag(0x8000, "HEAP_ONLY_TUPLE", "this is heap-only tuple"),
];

/// `pd_flags` (bufpage.h).
pub const PD_FLAGS: &[Flag] = &[
    flag(
        0x0001,
        "PD_HAS_FREE_LINES",
        "are there any unused line pointers?",
    ),
    flag(
        0x0002,
        "PD_PAGE_FULL",
        "not enough free space for new tuple?",
    ),
    flag(
        0x0004,
        "PD_ALL_VISIBLE",
        "all tuples on page are visible to everyone",
    ),
];

/// `btpo_flags` (nbtree.h).
pub const BTPO_FLAGS: &[Flag] = &[
    flag(0x0001, "BTP_LEAF", "leaf page, i.e. not internal page"),
    flag(0x0002, "BTP_ROOT", "root page (has no parent)"),
    flag(0x0004, "BTP_DELETED", "page has been deleted from tree"),
    flag(0x0008, "BTP_META", "meta-page"),
    flag(0x0010, "BTP_HALF_DEAD", "empty, but still in tree"),
    flag(0x0020, "BTP_SPLIT_END", "rightmost page of split group"),
    flag(
        0x0040,
        "BTP_HAS_GARBAGE",
        "page has LP_DEAD tuples (deprecated)",
    ),
    flag(
        0x0080,
        "BTP_INCOMPLETE_SPLIT",
        "right sibling's downlink is missing",
    ),
    flag(0x0100, "BTP_HAS_FULLXID", "contains BTDeletedPageData"),
];

/// `hasho_flag` (hash.h); the low bits are the page type (LH_PAGE_TYPE).
pub const HASHO_FLAG: &[Flag] = &[
    flag(0x0001, "LH_OVERFLOW_PAGE", "overflow page"),
    flag(0x0002, "LH_BUCKET_PAGE", "primary bucket page"),
    flag(0x0004, "LH_BITMAP_PAGE", "bitmap of free overflow pages"),
    flag(0x0008, "LH_META_PAGE", "metapage"),
    flag(
        0x0010,
        "LH_BUCKET_BEING_POPULATED",
        "bucket is being populated by a split",
    ),
    flag(0x0020, "LH_BUCKET_BEING_SPLIT", "bucket is being split"),
    flag(
        0x0040,
        "LH_BUCKET_NEEDS_SPLIT_CLEANUP",
        "bucket needs cleanup after a split",
    ),
    flag(0x0080, "LH_PAGE_HAS_DEAD_TUPLES", "page has LP_DEAD tuples"),
];

/// GIN page flags (ginblock.h), named as gin_page_opaque_info prints them.
pub const GIN_FLAGS: &[Flag] = &[
    flag(0x0001, "data", "GIN_DATA: posting tree page"),
    flag(0x0002, "leaf", "GIN_LEAF"),
    flag(0x0004, "deleted", "GIN_DELETED"),
    flag(0x0008, "meta", "GIN_META"),
    flag(0x0010, "list", "GIN_LIST: pending list page"),
    flag(0x0020, "list_fullrow", "GIN_LIST_FULLROW"),
    flag(0x0040, "incomplete_split", "GIN_INCOMPLETE_SPLIT"),
    flag(
        0x0080,
        "compressed",
        "GIN_COMPRESSED: compressed posting list",
    ),
];

/// GiST page flags (gist.h), named as gist_page_opaque_info prints them.
pub const GIST_FLAGS: &[Flag] = &[
    flag(0x0001, "leaf", "F_LEAF"),
    flag(0x0002, "deleted", "F_DELETED"),
    flag(0x0004, "tuples_deleted", "F_TUPLES_DELETED"),
    flag(0x0008, "follow_right", "F_FOLLOW_RIGHT"),
    flag(0x0010, "has_garbage", "F_HAS_GARBAGE"),
];

/// SP-GiST page flags (spgist_private.h).
pub const SPGIST_FLAGS: &[Flag] = &[
    flag(0x0001, "SPGIST_META", "metapage"),
    flag(
        0x0002,
        "SPGIST_DELETED",
        "never set, kept for on-disk compatibility",
    ),
    flag(0x0004, "SPGIST_LEAF", "leaf page"),
    flag(0x0008, "SPGIST_NULLS", "page holds NULL keys"),
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
