//! A PostgreSQL page's figures for `map`: free space and line pointers by
//! state, read without spans after [`super::check_page_in`] has said what
//! the page is and whether its header can be trusted.

use crate::model::map::BlockFigures;
use crate::model::postgres::{LpFlags, PageKind};
use crate::reader::{Endian, Reader};

use super::check::CheckedPage;
use super::kinds::line_pointers_in_use;
use super::layout::item_ids;

/// Fill `out`'s PostgreSQL figures from page `data`, which `checked`
/// describes: `free` (pd_upper − pd_lower) and `used` when the header is
/// usable; the line pointers by state when the bytes after the header are
/// line pointers (not for metapages, FSM and VM pages and the like, which
/// keep other data there); `xmax_set` for heap pages. Every count is 0
/// where there is nothing to count.
pub(crate) fn page_figures(
    data: &[u8],
    checked: &CheckedPage,
    endian: Endian,
    out: &mut BlockFigures,
) {
    let (mut normal, mut dead, mut redirect, mut unused, mut xmax) = (0u32, 0u32, 0u32, 0u32, 0u32);
    if let (Some(h), true) = (&checked.header, checked.header_usable) {
        let free = i64::from(h.pd_upper) - i64::from(h.pd_lower);
        out.free = Some(free);
        out.used = Some(u32::try_from((data.len() as i64 - free).max(0)).unwrap_or(u32::MAX));
        if line_pointers_in_use(checked.kind, h, data, endian) {
            let r = Reader::new(data, endian);
            // Problems about the array were reported by the check itself.
            let ids = item_ids(&r, h, &mut Vec::new());
            for id in &ids {
                match id.lp_flags {
                    LpFlags::Normal => {
                        normal += 1;
                        // t_xmax: the second word of HeapTupleHeaderData.
                        if checked.kind == PageKind::Heap
                            && usize::from(id.lp_len) >= 8
                            && r.peek_u32(usize::from(id.lp_off) + 4, "t_xmax")
                                .is_ok_and(|x| x != 0)
                        {
                            xmax += 1;
                        }
                    }
                    LpFlags::Dead => dead += 1,
                    LpFlags::Redirect => redirect += 1,
                    LpFlags::Unused => unused += 1,
                }
            }
        }
    }
    out.lp_normal = Some(normal);
    out.lp_dead = Some(dead);
    out.lp_redirect = Some(redirect);
    out.lp_unused = Some(unused);
    out.xmax_set = Some(xmax);
}
