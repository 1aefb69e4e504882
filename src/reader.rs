//! The one place where page bytes become integers.
//!
//! Every read is bounds-checked and named; a read that does not fit returns a
//! [`ReadError`] saying which field was being read and where. Each successful
//! read is also recorded as a [`Span`], so the hex renderer can say which field
//! every byte belongs to without parsing anything itself.

use std::fmt;
use std::sync::Arc;

use byteorder::{BigEndian, ByteOrder, LittleEndian};

use crate::model::postgres::PageBytes;
use crate::model::span::{Region, Span};

/// Byte order of the integers in a page. PostgreSQL pages are host-native;
/// Oracle blocks carry their platform's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Endian {
    /// Least significant byte first (x86-64, most ARM).
    #[default]
    Little,
    /// Most significant byte first (SPARC Solaris, AIX, HP-UX, z/OS).
    Big,
}

/// Endian-aware reads of the leading bytes of a slice, through byteorder's
/// [`ByteOrder`]: the one seam every fixed- or run-time-order integer read of
/// the crate goes through. `None` when the slice is too short.
impl Endian {
    /// An unsigned 16-bit integer from the first 2 bytes.
    pub fn read_u16(self, b: &[u8]) -> Option<u16> {
        let b = b.get(..2)?;
        Some(match self {
            Endian::Little => LittleEndian::read_u16(b),
            Endian::Big => BigEndian::read_u16(b),
        })
    }

    /// An unsigned 32-bit integer from the first 4 bytes.
    pub fn read_u32(self, b: &[u8]) -> Option<u32> {
        let b = b.get(..4)?;
        Some(match self {
            Endian::Little => LittleEndian::read_u32(b),
            Endian::Big => BigEndian::read_u32(b),
        })
    }

    /// An unsigned 64-bit integer from the first 8 bytes.
    pub fn read_u64(self, b: &[u8]) -> Option<u64> {
        let b = b.get(..8)?;
        Some(match self {
            Endian::Little => LittleEndian::read_u64(b),
            Endian::Big => BigEndian::read_u64(b),
        })
    }

    /// A signed 16-bit integer from the first 2 bytes.
    pub fn read_i16(self, b: &[u8]) -> Option<i16> {
        self.read_u16(b).map(|v| v as i16)
    }

    /// A signed 32-bit integer from the first 4 bytes.
    pub fn read_i32(self, b: &[u8]) -> Option<i32> {
        self.read_u32(b).map(|v| v as i32)
    }

    /// A signed 64-bit integer from the first 8 bytes.
    pub fn read_i64(self, b: &[u8]) -> Option<i64> {
        self.read_u64(b).map(|v| v as i64)
    }

    /// A `BlockIdData` (`bi_hi`, then `bi_lo`: two 16-bit words in this
    /// order) from the first 4 bytes, as the `BlockNumber` it stands for.
    pub fn read_block_id(self, b: &[u8]) -> Option<u32> {
        Some(u32_from_halves(
            self.read_u16(b)?,
            self.read_u16(b.get(2..)?)?,
        ))
    }

    /// A 16-bit word from two bytes in this order (the bytes are all there).
    pub fn u16_from(self, bytes: [u8; 2]) -> u16 {
        match self {
            Endian::Little => LittleEndian::read_u16(&bytes),
            Endian::Big => BigEndian::read_u16(&bytes),
        }
    }
}

/// The 32-bit value whose high and low 16-bit halves are given (a
/// `BlockIdData`'s `bi_hi` and `bi_lo`).
pub(crate) const fn u32_from_halves(hi: u16, lo: u16) -> u32 {
    (hi as u32) << 16 | lo as u32
}

/// The 64-bit value whose high and low 32-bit halves are given (an
/// `XLogRecPtr`'s `xlogid` and `xrecoff`, an SCN's wrap and base, a
/// `FullTransactionId`'s epoch and xid).
pub(crate) const fn u64_from_halves(hi: u32, lo: u32) -> u64 {
    (hi as u64) << 32 | lo as u64
}

/// A read that ran past the end of the data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ReadError {
    pub field: String,
    pub offset: usize,
    pub needed: usize,
    pub available: usize,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "reading {} at offset {} needs {} bytes, only {} available",
            self.field,
            self.offset,
            self.needed,
            self.available
                .saturating_sub(self.offset.min(self.available))
        )
    }
}

impl std::error::Error for ReadError {}

/// Offset-addressed reader over one page or block.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    endian: Endian,
    region: Region,
    owner: Option<String>,
    spans: Vec<Span>,
    /// Spans are recorded (off when nothing will show them).
    recording: bool,
    /// One shared copy of `data`, made when a value first needs it.
    shared: Option<Arc<[u8]>>,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8], endian: Endian) -> Self {
        Reader {
            data,
            endian,
            region: Region::Header,
            owner: None,
            spans: Vec::new(),
            recording: true,
            shared: None,
        }
    }

    /// Record no spans: reads only (for output that shows no hex view).
    pub(crate) fn without_spans(mut self) -> Self {
        self.recording = false;
        self
    }

    /// Whether spans are recorded; callers skip building span values when not.
    pub(crate) fn recording(&self) -> bool {
        self.recording
    }

    pub(crate) fn len(&self) -> usize {
        self.data.len()
    }

    pub(crate) fn data(&self) -> &'a [u8] {
        self.data
    }

    /// `[at, at+len)` as [`PageBytes`] over one copy of the whole input
    /// shared by every slice taken (bounds checked by the caller's read).
    pub(crate) fn shared_bytes(&mut self, at: usize, len: usize) -> PageBytes {
        let data = self.data;
        let page = self.shared.get_or_insert_with(|| Arc::from(data));
        PageBytes::new(Arc::clone(page), at..at.saturating_add(len))
    }

    /// The byte order this reader reads integers in.
    pub(crate) fn endian(&self) -> Endian {
        self.endian
    }

    /// A 16-bit integer from two bytes in this reader's byte order.
    pub(crate) fn decode_u16(&self, bytes: [u8; 2]) -> u16 {
        self.endian.u16_from(bytes)
    }

    /// Region (for colour) and owner (e.g. "tuple 3") of the spans recorded next.
    pub(crate) fn set_context(&mut self, region: Region, owner: Option<String>) {
        self.region = region;
        self.owner = owner;
    }

    /// The bytes `[at, at+len)`, or an error naming `field`.
    pub(crate) fn bytes(
        &mut self,
        at: usize,
        len: usize,
        field: &str,
    ) -> Result<&'a [u8], ReadError> {
        let slice = self.peek(at, len, field)?;
        self.record(at, len, field, String::new());
        Ok(slice)
    }

    /// Like [`Reader::bytes`] but records no span.
    pub(crate) fn peek(&self, at: usize, len: usize, field: &str) -> Result<&'a [u8], ReadError> {
        at.checked_add(len)
            .and_then(|end| self.data.get(at..end))
            .ok_or_else(|| ReadError {
                field: field.to_string(),
                offset: at,
                needed: len,
                available: self.data.len(),
            })
    }

    pub(crate) fn u8(&mut self, at: usize, field: &str) -> Result<u8, ReadError> {
        let b = self.peek(at, 1, field)?;
        let v = b.first().copied().unwrap_or_default();
        if self.recording {
            self.record(at, 1, field, v.to_string());
        }
        Ok(v)
    }

    pub(crate) fn u16(&mut self, at: usize, field: &str) -> Result<u16, ReadError> {
        let v = self.peek_u16(at, field)?;
        if self.recording {
            self.record(at, 2, field, v.to_string());
        }
        Ok(v)
    }

    pub(crate) fn u32(&mut self, at: usize, field: &str) -> Result<u32, ReadError> {
        let v = self.peek_u32(at, field)?;
        if self.recording {
            self.record(at, 4, field, v.to_string());
        }
        Ok(v)
    }

    pub(crate) fn peek_u8(&self, at: usize, field: &str) -> Result<u8, ReadError> {
        Ok(self
            .peek(at, 1, field)?
            .first()
            .copied()
            .unwrap_or_default())
    }

    pub(crate) fn peek_u16(&self, at: usize, field: &str) -> Result<u16, ReadError> {
        let b = self.peek(at, 2, field)?;
        Ok(self.endian.read_u16(b).unwrap_or_default())
    }

    pub(crate) fn peek_u32(&self, at: usize, field: &str) -> Result<u32, ReadError> {
        let b = self.peek(at, 4, field)?;
        Ok(self.endian.read_u32(b).unwrap_or_default())
    }

    /// A `BlockIdData` at `at`, as its `BlockNumber` ([`Endian::read_block_id`]).
    pub(crate) fn peek_block_id(&self, at: usize, field: &str) -> Result<u32, ReadError> {
        let b = self.peek(at, 4, field)?;
        Ok(self.endian.read_block_id(b).unwrap_or_default())
    }

    pub(crate) fn peek_u64(&self, at: usize, field: &str) -> Result<u64, ReadError> {
        let b = self.peek(at, 8, field)?;
        Ok(self.endian.read_u64(b).unwrap_or_default())
    }

    #[allow(dead_code)] // no parser reads this width yet; the unit tests do
    pub(crate) fn peek_i16(&self, at: usize, field: &str) -> Result<i16, ReadError> {
        self.peek_u16(at, field).map(|v| v as i16)
    }

    #[allow(dead_code)] // no parser reads this width yet; the unit tests do
    pub(crate) fn peek_i32(&self, at: usize, field: &str) -> Result<i32, ReadError> {
        self.peek_u32(at, field).map(|v| v as i32)
    }

    #[allow(dead_code)] // no parser reads this width yet; the unit tests do
    pub(crate) fn u64(&mut self, at: usize, field: &str) -> Result<u64, ReadError> {
        let v = self.peek_u64(at, field)?;
        if self.recording {
            self.record(at, 8, field, v.to_string());
        }
        Ok(v)
    }

    #[allow(dead_code)] // no parser reads this width yet; the unit tests do
    pub(crate) fn i16(&mut self, at: usize, field: &str) -> Result<i16, ReadError> {
        let v = self.peek_i16(at, field)?;
        if self.recording {
            self.record(at, 2, field, v.to_string());
        }
        Ok(v)
    }

    #[allow(dead_code)] // no parser reads this width yet; the unit tests do
    pub(crate) fn i32(&mut self, at: usize, field: &str) -> Result<i32, ReadError> {
        let v = self.peek_i32(at, field)?;
        if self.recording {
            self.record(at, 4, field, v.to_string());
        }
        Ok(v)
    }

    /// Record a span that was not produced by a typed read (free space, padding…).
    pub(crate) fn mark(&mut self, at: usize, len: usize, field: &str, value: String) {
        if len > 0 && at < self.data.len() {
            let len = len.min(self.data.len() - at);
            self.record(at, len, field, value);
        }
    }

    /// Replace the display value of the most recent span (e.g. an LSN read as
    /// two words shown as `0/1576BA8`).
    pub(crate) fn show_last(&mut self, value: String) {
        if let Some(s) = self.spans.last_mut() {
            s.value = value;
        }
    }

    fn record(&mut self, at: usize, len: usize, field: &str, value: String) {
        if !self.recording {
            return;
        }
        self.spans.push(Span {
            start: at,
            len,
            region: self.region,
            owner: self.owner.clone(),
            name: field.to_string(),
            value,
        });
    }

    /// The spans recorded so far, sorted by start offset.
    pub(crate) fn into_spans(self) -> Vec<Span> {
        let mut spans = self.spans;
        spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.len)));
        spans
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounds_checked_and_named() {
        let data = [0x28, 0x00, 0x60, 0x1f, 0x01];
        let mut r = Reader::new(&data, Endian::Little);
        assert_eq!(r.u16(0, "pd_lower").unwrap(), 40);
        assert_eq!(r.u16(2, "pd_upper").unwrap(), 8032);
        let err = r.u32(2, "pd_prune_xid").unwrap_err();
        assert_eq!(err.field, "pd_prune_xid");
        assert_eq!(err.offset, 2);
        assert_eq!(err.needed, 4);
        assert!(r.u32(usize::MAX - 1, "x").is_err());
        let spans = r.into_spans();
        assert_eq!(spans.len(), 2);
        assert_eq!(spans[1].name, "pd_upper");
        assert_eq!(spans[1].value, "8032");
    }

    #[test]
    fn big_endian_reads() {
        let data = [0x20, 0x04];
        let r = Reader::new(&data, Endian::Big);
        assert_eq!(r.peek_u16(0, "x").unwrap(), 0x2004);
    }

    #[test]
    fn block_ids_and_halves_join_high_first() {
        // BlockIdData 0x0001_0002: bi_hi 1, bi_lo 2, each in the page's order.
        assert_eq!(
            Endian::Little.read_block_id(&[1, 0, 2, 0]),
            Some(0x0001_0002)
        );
        assert_eq!(
            Endian::Big.read_block_id(&[0, 1, 0, 2, 9]),
            Some(0x0001_0002)
        );
        assert_eq!(Endian::Little.read_block_id(&[1, 0, 2]), None);
        let r = Reader::new(&[0, 0, 1, 0, 2, 0], Endian::Little);
        assert_eq!(r.peek_block_id(2, "ip_blkid"), Ok(0x0001_0002));
        assert!(r.peek_block_id(3, "ip_blkid").is_err());
        assert_eq!(u32_from_halves(0xffff, 1), 0xffff_0001);
        assert_eq!(u64_from_halves(1, 0xffff_ffff), 0x1_ffff_ffff);
    }

    #[test]
    fn endian_helpers_read_both_orders_and_refuse_short_slices() {
        let b = [1, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(Endian::Little.read_u16(&b), Some(0x0201));
        assert_eq!(Endian::Big.read_u16(&b), Some(0x0102));
        assert_eq!(Endian::Little.read_u32(&b), Some(0x0403_0201));
        assert_eq!(Endian::Big.read_u32(&b), Some(0x0102_0304));
        assert_eq!(Endian::Big.read_u64(&b), Some(0x0102_0304_0506_0708));
        assert_eq!(Endian::Little.read_i32(&[0xff; 4]), Some(-1));
        assert_eq!(Endian::Big.read_u32(&b[..3]), None);
        assert_eq!(Endian::Little.read_u64(&b[..7]), None);
        assert_eq!(Endian::Big.u16_from([0x20, 0x04]), 0x2004);
        let mut r = Reader::new(&b, Endian::Big);
        assert_eq!(r.i16(0, "x").unwrap(), 0x0102);
        assert_eq!(r.u64(0, "y").unwrap(), 0x0102_0304_0506_0708);
        assert!(r.i32(6, "z").is_err());
    }
}
