//! A row piece read straight from its bytes, for `export`: the flag byte,
//! the head and next rowids, and the column data — also of a deleted piece,
//! whose header keeps its column count and columns (a DELETE sets only the
//! D flag; the dump then prints `tl: 2` and stops, the bytes stay).
//!
//! ```text
//!  fb  lb  cc  [hrid 6: F set, H clear]  [nrid 6: L clear]  columns…
//!  column: length byte 0..250, 0xfe + u16 big-endian length, 0xff NULL
//! ```

use crate::model::oracle::names::{KDRHFF, KDRHFH, KDRHFL};
use crate::reader::Endian;

/// Flag bits of `fb` (KCHDFLPN) this reader needs. H: head piece.
pub(crate) const FLAG_HEAD: u8 = KDRHFH;
/// F: first piece of the row's data.
pub(crate) const FLAG_FIRST: u8 = KDRHFF;
/// L: last piece.
pub(crate) const FLAG_LAST: u8 = KDRHFL;

/// A row piece's header and columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PieceBytes {
    /// `fb`.
    pub flag: u8,
    /// The next piece's (dba, slot), when the piece is not the last.
    pub nrid: Option<(u32, u16)>,
    /// Each column's bytes; `None` for NULL.
    pub cols: Vec<Option<Vec<u8>>>,
}

/// Read the piece at `offset` of `block`, which must end before `end`.
pub(crate) fn read_piece(block: &[u8], offset: usize, end: usize) -> Result<PieceBytes, String> {
    let end = end.min(block.len());
    let byte = |at: usize| -> Result<u8, String> {
        if at < end {
            Ok(block[at])
        } else {
            Err(format!("row piece runs past the data area at offset {at}"))
        }
    };
    let flag = byte(offset)?;
    let cc = byte(offset + 2)?;
    let mut at = offset + 3;
    let rid = |at: usize| -> Result<(u32, u16), String> {
        let mut b = [0u8; 6];
        for (i, s) in b.iter_mut().enumerate() {
            *s = byte(at + i)?;
        }
        Ok((
            Endian::Big.read_u32(&b).unwrap_or(0),
            Endian::Big.u16_from([b[4], b[5]]),
        ))
    };
    if flag & FLAG_FIRST != 0 && flag & FLAG_HEAD == 0 {
        at += 6; // hrid of a migrated row's body
    }
    let mut nrid = None;
    if flag & FLAG_LAST == 0 {
        nrid = Some(rid(at)?);
        at += 6;
    }
    let mut cols = Vec::with_capacity(usize::from(cc));
    for c in 0..cc {
        let lb = byte(at)?;
        let (len, head) = match lb {
            0xff => {
                cols.push(None);
                at += 1;
                continue;
            }
            0xfe => (
                usize::from(Endian::Big.u16_from([byte(at + 1)?, byte(at + 2)?])),
                3,
            ),
            0xfb..=0xfd => return Err(format!("column {c}: length byte 0x{lb:02x} is not valid")),
            n => (usize::from(n), 1),
        };
        let start = at + head;
        if start + len > end {
            return Err(format!(
                "column {c}: {len} bytes at offset {start} run past the data area"
            ));
        }
        cols.push(Some(block[start..start + len].to_vec()));
        at = start + len;
    }
    Ok(PieceBytes { flag, nrid, cols })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deleted_piece_keeps_its_columns() {
        // fb --HDFL-- lb 1 cc 3: 'ab', NULL, 0xc1 0x02 (NUMBER 1)
        let b = [
            0x3c, 0x01, 0x03, 0x02, b'a', b'b', 0xff, 0x02, 0xc1, 0x02, 0, 0,
        ];
        let p = read_piece(&b, 0, 10).unwrap();
        assert_eq!(p.flag & 0x10, 0x10);
        assert_eq!(
            p.cols,
            vec![Some(b"ab".to_vec()), None, Some(vec![0xc1, 0x02])]
        );
        assert!(read_piece(&b, 0, 9).is_err());
    }
}
