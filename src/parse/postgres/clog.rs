//! pg_xact (the commit log) and pg_multixact pages: where a transaction's
//! status or a multixact's members are, and reading them out of a page.
//!
//! Both are SLRUs: pages of the cluster's block size, 32 pages a segment
//! file named by the segment number in upper-case hex, at least 4 digits
//! (`0000`, `0001`, … `1A2B3`).
//!
//! ```text
//!  pg_xact (clog.c)           2 bits a transaction: 4 per byte, BLCKSZ × 4 a page;
//!                             xid → page xid / (BLCKSZ·4), byte (xid mod BLCKSZ·4) / 4,
//!                             bits ((xid mod 4) · 2) .. +2, least significant first:
//!                             0 in progress, 1 committed, 2 aborted, 3 sub-committed
//!  pg_multixact/offsets       one u32 MultiXactOffset a multixact (PostgreSQL 9.3–18):
//!                             BLCKSZ / 4 a page; members of M = offset(M) .. offset(M+1)
//!  pg_multixact/members       groups of 4 members: 4 flag bytes, then 4 u32 xids
//!                             (20 bytes a group, BLCKSZ / 20 groups a page, the rest
//!                             of the page unused); flag byte: the member's status
//!                             (0 for key share, 1 for share, 2 for no key update,
//!                             3 for update locks; 4 no key update, 5 update)
//! ```
//!
//! Offsets wrap around 2^32 and skip 0 (offset 0 means "not yet set").
//! Everything here is pure arithmetic on bytes handed in: the files are read
//! by `cluster::xact`.

/// Pages an SLRU segment file holds (`SLRU_PAGES_PER_SEGMENT`).
pub(crate) const SLRU_PAGES_PER_SEGMENT: u64 = 32;

pub(crate) use crate::model::postgres::verdict::XactStatus;

/// Where something lives in an SLRU: segment file number, page in the
/// segment, byte offset in the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlruPos {
    /// Segment number (the file name in hex).
    pub(crate) segment: u64,
    /// Page within the segment (0..32).
    pub(crate) page: u64,
    /// Byte offset within the page.
    pub(crate) byte: usize,
}

impl SlruPos {
    fn of_page(page: u64, byte: usize) -> SlruPos {
        SlruPos {
            segment: page / SLRU_PAGES_PER_SEGMENT,
            page: page % SLRU_PAGES_PER_SEGMENT,
            byte,
        }
    }

    /// Byte offset within the segment file.
    pub(crate) fn file_offset(&self, block_size: usize) -> u64 {
        self.page * block_size as u64 + self.byte as u64
    }
}

/// The segment file name of segment `n` (`%04X`).
pub(crate) fn segment_name(n: u64) -> String {
    format!("{n:04X}")
}

/// Where pg_xact holds `xid`'s status, and the bit shift within that byte.
pub(crate) fn xact_pos(xid: u32, block_size: usize) -> (SlruPos, u8) {
    let per_page = (block_size as u64).max(1) * 4;
    let xid = u64::from(xid);
    let page = xid / per_page;
    let in_page = xid % per_page;
    (
        SlruPos::of_page(page, (in_page / 4) as usize),
        ((xid % 4) * 2) as u8,
    )
}

/// The status in the byte at [`xact_pos`].
pub(crate) fn xact_status(byte: u8, shift: u8) -> XactStatus {
    XactStatus::from_bits(byte >> (shift & 7))
}

/// Where pg_multixact/offsets holds multixact `multi`'s first member offset.
pub(crate) fn offset_pos(multi: u32, block_size: usize) -> SlruPos {
    let per_page = (block_size as u64 / 4).max(1);
    let m = u64::from(multi);
    SlruPos::of_page(m / per_page, ((m % per_page) * 4) as usize)
}

/// Bytes of one member group: 4 flag bytes and 4 xids.
const GROUP_BYTES: usize = 20;
/// Members a group holds.
const GROUP_MEMBERS: u64 = 4;

/// Where pg_multixact/members holds member `offset`: the flag byte's and
/// the xid's positions.
pub(crate) fn member_pos(offset: u32, block_size: usize) -> (SlruPos, SlruPos) {
    let groups_per_page = (block_size / GROUP_BYTES).max(1) as u64;
    let per_page = groups_per_page * GROUP_MEMBERS;
    let o = u64::from(offset);
    let page = o / per_page;
    let group = ((o / GROUP_MEMBERS) % groups_per_page) as usize;
    let within = (o % GROUP_MEMBERS) as usize;
    let base = group * GROUP_BYTES;
    (
        SlruPos::of_page(page, base + within),
        SlruPos::of_page(page, base + 4 + within * 4),
    )
}

/// The next member offset after `o` (offsets wrap and skip 0).
pub(crate) fn next_offset(o: u32) -> u32 {
    match o.wrapping_add(1) {
        0 => 1,
        n => n,
    }
}

/// The next multixact after `m` (multixact ids wrap and skip 0).
pub(crate) fn next_multi(m: u32) -> u32 {
    next_offset(m)
}

/// A multixact member's status (`MultiXactStatus`, multixact.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemberStatus {
    /// 0: FOR KEY SHARE lock.
    ForKeyShare,
    /// 1: FOR SHARE lock.
    ForShare,
    /// 2: FOR NO KEY UPDATE lock.
    ForNoKeyUpdate,
    /// 3: FOR UPDATE lock.
    ForUpdate,
    /// 4: an UPDATE that changed no key column.
    NoKeyUpdate,
    /// 5: an UPDATE of key columns, or a DELETE.
    Update,
    /// Any other value: not a status PostgreSQL writes.
    Other(u8),
}

impl MemberStatus {
    /// The status of a member's flag byte.
    pub(crate) fn from_byte(b: u8) -> MemberStatus {
        match b {
            0 => MemberStatus::ForKeyShare,
            1 => MemberStatus::ForShare,
            2 => MemberStatus::ForNoKeyUpdate,
            3 => MemberStatus::ForUpdate,
            4 => MemberStatus::NoKeyUpdate,
            5 => MemberStatus::Update,
            n => MemberStatus::Other(n),
        }
    }

    /// `ISUPDATE_from_mxstatus`: the member updated or deleted the row
    /// (as opposed to only locking it).
    pub(crate) fn is_update(self) -> bool {
        matches!(self, MemberStatus::NoKeyUpdate | MemberStatus::Update)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xact_positions_follow_clog_c() {
        // 8 KiB pages: 32768 xids a page, 1,048,576 a segment.
        let (p, s) = xact_pos(741, 8192);
        assert_eq!((p.segment, p.page, p.byte, s), (0, 0, 185, 2));
        let (p, s) = xact_pos(32768 * 33 + 7, 8192);
        assert_eq!((p.segment, p.page, p.byte, s), (1, 1, 1, 6));
        assert_eq!(p.file_offset(8192), 8193);
        assert_eq!(segment_name(0x1a), "001A");
        assert_eq!(segment_name(0x12345), "12345");
        // byte 0b10_01_00_11: xid 0 sub-committed, 1 in progress, 2 committed, 3 aborted.
        let b = 0b1001_0011;
        assert_eq!(xact_status(b, 0), XactStatus::SubCommitted);
        assert_eq!(xact_status(b, 2), XactStatus::InProgress);
        assert_eq!(xact_status(b, 4), XactStatus::Committed);
        assert_eq!(xact_status(b, 6), XactStatus::Aborted);
    }

    #[test]
    fn multixact_positions_follow_multixact_c() {
        // 2048 offsets a page.
        let p = offset_pos(2049, 8192);
        assert_eq!((p.segment, p.page, p.byte), (0, 1, 4));
        // 409 groups, 1636 members a page.
        let (flag, xid) = member_pos(5, 8192);
        assert_eq!((flag.page, flag.byte, xid.byte), (0, 21, 28));
        let (flag, xid) = member_pos(1636, 8192);
        assert_eq!((flag.page, flag.byte, xid.byte), (1, 0, 4));
        assert_eq!(next_offset(u32::MAX), 1);
        assert!(MemberStatus::from_byte(5).is_update());
        assert!(!MemberStatus::from_byte(3).is_update());
    }
}
