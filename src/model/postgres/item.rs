//! Line pointers and item pointers (itemid.h, itemptr.h): a leaf the page
//! model and the index and verdict models share.

use std::fmt;

use serde::{Serialize, Serializer};

/// `ItemPointerData` (itemptr.h): block id as two uint16 halves + offset number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ItemPointer {
    /// `ip_blkid`: bi_hi << 16 | bi_lo.
    pub block: u32,
    /// `ip_posid`.
    pub offset: u16,
}

impl fmt::Display for ItemPointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.block, self.offset)
    }
}

impl Serialize for ItemPointer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `lp_flags` (itemid.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LpFlags {
    /// `LP_UNUSED` (0): unused, lp_len 0.
    Unused,
    /// `LP_NORMAL` (1): in use, lp_len > 0.
    Normal,
    /// `LP_REDIRECT` (2): HOT redirect, lp_off holds the target offset number.
    Redirect,
    /// `LP_DEAD` (3): dead, with or without storage.
    Dead,
}

impl LpFlags {
    /// `lp_flags` from the low two bits of `bits`.
    pub fn from_bits(bits: u32) -> LpFlags {
        match bits & 3 {
            0 => LpFlags::Unused,
            1 => LpFlags::Normal,
            2 => LpFlags::Redirect,
            _ => LpFlags::Dead,
        }
    }

    /// Numeric `lp_flags` value (0–3).
    pub fn code(self) -> u8 {
        match self {
            LpFlags::Unused => 0,
            LpFlags::Normal => 1,
            LpFlags::Redirect => 2,
            LpFlags::Dead => 3,
        }
    }

    /// `LP_NORMAL` etc.
    pub fn name(self) -> &'static str {
        match self {
            LpFlags::Unused => "LP_UNUSED",
            LpFlags::Normal => "LP_NORMAL",
            LpFlags::Redirect => "LP_REDIRECT",
            LpFlags::Dead => "LP_DEAD",
        }
    }

    /// `NORMAL` etc.
    pub fn short(self) -> &'static str {
        &self.name()[3..]
    }
}

impl Serialize for LpFlags {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.code())
    }
}

/// `ItemIdData` (itemid.h): a 32-bit bitfield, lp_off:15, lp_flags:2, lp_len:15.
/// GCC allocates the first member in the least significant bits on
/// little-endian hosts and in the most significant bits on big-endian ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ItemId {
    /// 1-based offset number of this line pointer.
    pub lp: u16,
    /// The 32-bit `ItemIdData` word as stored.
    pub raw: u32,
    /// `lp_off`: offset to the tuple from the page start.
    pub lp_off: u16,
    /// `lp_flags`: state of the line pointer.
    pub lp_flags: LpFlags,
    /// `lp_len`: byte length of the tuple.
    pub lp_len: u16,
}

impl ItemId {
    /// Splits the `ItemIdData` word `raw` of line pointer `lp` into lp_off, lp_flags, lp_len.
    pub fn from_word(lp: u16, raw: u32) -> ItemId {
        ItemId {
            lp,
            raw,
            lp_off: (raw & 0x7FFF) as u16,
            lp_flags: LpFlags::from_bits(raw >> 15),
            lp_len: ((raw >> 17) & 0x7FFF) as u16,
        }
    }

    /// Splits the `ItemIdData` word `raw` (read in the page's byte order) as
    /// a big-endian host lays the bitfield out: lp_off in the top 15 bits,
    /// then lp_flags, then lp_len in the low 15 bits.
    pub fn from_word_big_endian(lp: u16, raw: u32) -> ItemId {
        ItemId {
            lp,
            raw,
            lp_off: ((raw >> 17) & 0x7FFF) as u16,
            lp_flags: LpFlags::from_bits(raw >> 15),
            lp_len: (raw & 0x7FFF) as u16,
        }
    }

    /// [`ItemId::from_word`] or [`ItemId::from_word_big_endian`].
    pub fn from_word_in(lp: u16, raw: u32, big_endian: bool) -> ItemId {
        if big_endian {
            ItemId::from_word_big_endian(lp, raw)
        } else {
            ItemId::from_word(lp, raw)
        }
    }

    /// `ItemIdHasStorage`.
    pub fn has_storage(&self) -> bool {
        self.lp_len != 0
    }
}
