//! Names PostgreSQL's functions give to page types and line pointers.

use super::{ItemId, LpFlags};

/// `LH_PAGE_TYPE`: the page-type bits of hasho_flag.
pub const LH_PAGE_TYPE: u16 = 0x000F;

/// `hash_page_type()`'s answer for a hash page.
pub fn hash_page_type(flag: u16) -> &'static str {
    match flag & LH_PAGE_TYPE {
        0x0008 => "metapage",
        0x0002 => "bucket",
        0x0001 => "overflow",
        0x0004 => "bitmap",
        _ => "unused",
    }
}

/// `brin_page_type()`'s answer.
pub fn brin_page_type(page_type: u16) -> String {
    match page_type {
        0xF091 => "meta".to_string(),
        0xF092 => "revmap".to_string(),
        0xF093 => "regular".to_string(),
        other => format!("unknown ({other:02x})"),
    }
}

/// `NORMAL 8152+39`, `REDIRECT → 7`, `DEAD`, `UNUSED`.
pub fn describe_item_id(id: &ItemId) -> String {
    match id.lp_flags {
        LpFlags::Redirect => format!("REDIRECT → {}", id.lp_off),
        f if id.lp_off == 0 && id.lp_len == 0 => f.short().to_string(),
        f => format!("{} {}+{}", f.short(), id.lp_off, id.lp_len),
    }
}
