//! The one place where page bytes become integers.
//!
//! Every read is bounds-checked and named; a read that does not fit returns a
//! [`ReadError`] saying which field was being read and where. Each successful
//! read is also recorded as a [`Span`], so the hex renderer can say which field
//! every byte belongs to without parsing anything itself.

use std::fmt;

use crate::model::span::{Region, Span};

/// Byte order of the integers in a page. PostgreSQL pages are host-native;
/// Oracle blocks carry their platform's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Endian {
    #[default]
    Little,
    Big,
}

/// A read that ran past the end of the data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
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
pub struct Reader<'a> {
    data: &'a [u8],
    endian: Endian,
    region: Region,
    owner: Option<String>,
    spans: Vec<Span>,
    /// Spans are recorded (off when nothing will show them).
    recording: bool,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], endian: Endian) -> Self {
        Reader {
            data,
            endian,
            region: Region::Header,
            owner: None,
            spans: Vec::new(),
            recording: true,
        }
    }

    /// Record no spans: reads only (for output that shows no hex view).
    pub fn without_spans(mut self) -> Self {
        self.recording = false;
        self
    }

    /// Whether spans are recorded; callers skip building span values when not.
    pub fn recording(&self) -> bool {
        self.recording
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// A 16-bit integer from two bytes in this reader's byte order.
    pub fn decode_u16(&self, bytes: [u8; 2]) -> u16 {
        match self.endian {
            Endian::Little => u16::from_le_bytes(bytes),
            Endian::Big => u16::from_be_bytes(bytes),
        }
    }

    /// Region (for colour) and owner (e.g. "tuple 3") of the spans recorded next.
    pub fn set_context(&mut self, region: Region, owner: Option<String>) {
        self.region = region;
        self.owner = owner;
    }

    /// The bytes `[at, at+len)`, or an error naming `field`.
    pub fn bytes(&mut self, at: usize, len: usize, field: &str) -> Result<&'a [u8], ReadError> {
        let slice = self.peek(at, len, field)?;
        self.record(at, len, field, String::new());
        Ok(slice)
    }

    /// Like [`Reader::bytes`] but records no span.
    pub fn peek(&self, at: usize, len: usize, field: &str) -> Result<&'a [u8], ReadError> {
        at.checked_add(len)
            .and_then(|end| self.data.get(at..end))
            .ok_or_else(|| ReadError {
                field: field.to_string(),
                offset: at,
                needed: len,
                available: self.data.len(),
            })
    }

    pub fn u8(&mut self, at: usize, field: &str) -> Result<u8, ReadError> {
        let b = self.peek(at, 1, field)?;
        let v = b.first().copied().unwrap_or_default();
        if self.recording {
            self.record(at, 1, field, v.to_string());
        }
        Ok(v)
    }

    pub fn u16(&mut self, at: usize, field: &str) -> Result<u16, ReadError> {
        let v = self.peek_u16(at, field)?;
        if self.recording {
            self.record(at, 2, field, v.to_string());
        }
        Ok(v)
    }

    pub fn u32(&mut self, at: usize, field: &str) -> Result<u32, ReadError> {
        let v = self.peek_u32(at, field)?;
        if self.recording {
            self.record(at, 4, field, v.to_string());
        }
        Ok(v)
    }

    pub fn peek_u8(&self, at: usize, field: &str) -> Result<u8, ReadError> {
        Ok(self
            .peek(at, 1, field)?
            .first()
            .copied()
            .unwrap_or_default())
    }

    pub fn peek_u16(&self, at: usize, field: &str) -> Result<u16, ReadError> {
        let b = self.peek(at, 2, field)?;
        Ok(self.decode_u16([b[0], b[1]]))
    }

    pub fn peek_u32(&self, at: usize, field: &str) -> Result<u32, ReadError> {
        let b = self.peek(at, 4, field)?;
        let mut a = [0u8; 4];
        a.copy_from_slice(b);
        Ok(match self.endian {
            Endian::Little => u32::from_le_bytes(a),
            Endian::Big => u32::from_be_bytes(a),
        })
    }

    pub fn peek_u64(&self, at: usize, field: &str) -> Result<u64, ReadError> {
        let b = self.peek(at, 8, field)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(match self.endian {
            Endian::Little => u64::from_le_bytes(a),
            Endian::Big => u64::from_be_bytes(a),
        })
    }

    /// Record a span that was not produced by a typed read (free space, padding…).
    pub fn mark(&mut self, at: usize, len: usize, field: &str, value: String) {
        if len > 0 && at < self.data.len() {
            let len = len.min(self.data.len() - at);
            self.record(at, len, field, value);
        }
    }

    /// Replace the display value of the most recent span (e.g. an LSN read as
    /// two words shown as `0/1576BA8`).
    pub fn show_last(&mut self, value: String) {
        if let Some(s) = self.spans.last_mut() {
            s.value = value;
        }
    }

    /// Widen the most recent span to `len` bytes and give it a new name and value.
    pub fn widen_last(&mut self, start: usize, len: usize, field: &str, value: String) {
        if let Some(s) = self.spans.last_mut() {
            s.start = start;
            s.len = len;
            s.name = field.to_string();
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
    pub fn into_spans(self) -> Vec<Span> {
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
}
