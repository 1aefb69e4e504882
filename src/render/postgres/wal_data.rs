//! Little-endian reads of a WAL record's main data or block data, for the
//! record descriptions.

use crate::model::postgres::wal::RelFileNode;
use crate::reader::Endian;

/// Little-endian reads at offsets of a record's main data; `None` past its end.
pub(super) struct Data<'a>(pub(super) &'a [u8]);

impl Data<'_> {
    pub(super) fn u8(&self, o: usize) -> Option<u8> {
        self.0.get(o).copied()
    }
    pub(super) fn u16(&self, o: usize) -> Option<u16> {
        Endian::Little.read_u16(self.0.get(o..)?)
    }
    pub(super) fn u32(&self, o: usize) -> Option<u32> {
        Endian::Little.read_u32(self.0.get(o..)?)
    }
    pub(super) fn i32(&self, o: usize) -> Option<i32> {
        self.u32(o).map(|v| v as i32)
    }
    pub(super) fn u64(&self, o: usize) -> Option<u64> {
        Endian::Little.read_u64(self.0.get(o..)?)
    }
    pub(super) fn i64(&self, o: usize) -> Option<i64> {
        self.u64(o).map(|v| v as i64)
    }
    pub(super) fn rel(&self, o: usize) -> Option<RelFileNode> {
        Some(RelFileNode {
            spc: self.u32(o)?,
            db: self.u32(o + 4)?,
            rel: self.u32(o + 8)?,
        })
    }
}
