//! The undo block header, `struct ktubh` (type 0x02 `KTU UNDO BLOCK`), from
//! bytes: what Oracle's dump prints as `UNDO BLK:` (`xid: … seq: … cnt: …
//! irb: … icl: … flg: …`) and the `Rec Offset` directory.
//!
//! The layout is BBED's, as its `map /v` and `p ktubh` print it for an 11.2
//! undo block (fixtures/oracle/README.md names the source), with the bytes of
//! the same block that BBED's `modify` echoed from offset 28:
//!
//! | offset | field | |
//! | --- | --- | --- |
//! | 20 | `ktubhxid.kxidusn` ub2 | xid: undo segment |
//! | 22 | `ktubhxid.kxidslt` ub2 | xid: slot |
//! | 24 | `ktubhxid.kxidsqn` ub4 | xid: sequence |
//! | 28 | `ktubhseq` ub2 | `seq:` |
//! | 30 | `ktubhcnt` ub1 | `cnt:` records in the block |
//! | 31 | `ktubhirb` ub1 | `irb:` |
//! | 32 | `ktubhicl` ub1 | `icl:` |
//! | 33 | `ktubhflg` ub1 | `flg:` |
//! | 34 | `ktubhidx[cnt + 1]` ub2 | record offsets |
//!
//! BBED lists `cnt + 1` directory words (`ktubhidx[9]` for `cnt` 8, the
//! struct 32 bytes long) and places the record area (`undodata`) from
//! `ktubhidx[cnt] + 20` to the tail, `ktubhidx[0] + 20` being the tail's
//! offset: the words count from offset 20, word 0 marks the end of the record
//! area, and record `n` (the dump's `0x0n`) starts at word `n`. The records'
//! own layout (`* Rec #…`, `Layer:`, the KDO undo record) is not established
//! by a published source; their bytes are left undecoded.

use crate::model::oracle::space::UndoBlock;
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{ReadError, Reader};

/// Where `struct ktubh` starts: right after the cache header; the directory
/// words count from here too.
pub(crate) const KTUBH: usize = 20;
/// The first directory word, `ktubhidx[0]`.
pub(crate) const KTUBHIDX: usize = 34;

/// `ktubh`'s fixed fields, in the dump's order: field, offset.
pub(crate) const FIELDS: [(&str, usize); 8] = [
    ("ktubh.ktubhxid.kxidusn", 20),
    ("ktubh.ktubhxid.kxidslt", 22),
    ("ktubh.ktubhxid.kxidsqn", 24),
    ("ktubh.ktubhseq", 28),
    ("ktubh.ktubhcnt", 30),
    ("ktubh.ktubhirb", 31),
    ("ktubh.ktubhicl", 32),
    ("ktubh.ktubhflg", 33),
];

/// Read the undo block header and its record directory. `body_end` is the
/// tail's offset: directory entries pointing past it are reported.
pub(crate) fn read_undo_block(
    r: &mut Reader,
    body_end: usize,
    problems: &mut Vec<Problem>,
) -> Result<UndoBlock, ReadError> {
    r.set_context(Region::Header, Some("UNDO BLK".to_string()));
    let usn = r.u16(FIELDS[0].1, FIELDS[0].0)?;
    r.show_last(format!("0x{usn:04x}"));
    let slt = r.u16(FIELDS[1].1, FIELDS[1].0)?;
    r.show_last(format!("0x{slt:03x}"));
    let sqn = r.u32(FIELDS[2].1, FIELDS[2].0)?;
    r.show_last(format!("0x{sqn:08x}"));
    let seq = r.u16(FIELDS[3].1, FIELDS[3].0)?;
    r.show_last(format!("0x{seq:x}"));
    let cnt = r.u8(FIELDS[4].1, FIELDS[4].0)?;
    r.show_last(format!("0x{cnt:x} records"));
    let irb = r.u8(FIELDS[5].1, FIELDS[5].0)?;
    r.show_last(format!("0x{irb:x}"));
    let icl = r.u8(FIELDS[6].1, FIELDS[6].0)?;
    r.show_last(format!("0x{icl:x}"));
    let flg = r.u8(FIELDS[7].1, FIELDS[7].0)?;
    r.show_last(format!("0x{flg:04x}"));
    r.set_context(Region::LinePointer, Some("Rec Offset".to_string()));
    // ub1 count: at most 256 words, inside any block size Oracle has.
    let mut words = Vec::with_capacity(usize::from(cnt) + 1);
    for i in 0..=usize::from(cnt) {
        let w = r.u16(KTUBHIDX + 2 * i, &format!("ktubh.ktubhidx[{i}]"))?;
        let at = KTUBH + usize::from(w);
        r.show_last(if i == 0 {
            format!("0x{w:04x} (end of the records, block offset {at})")
        } else {
            format!("0x{i:02x} 0x{w:04x} (block offset {at})")
        });
        words.push(w);
    }
    let dir_end = KTUBHIDX + 2 * words.len();
    let mut low = body_end;
    for (i, w) in words.iter().enumerate() {
        let at = KTUBH + usize::from(*w);
        // Word 0 of a block with no records may be unset: not a finding.
        if i == 0 && *w == 0 {
            continue;
        }
        if at > body_end || at < dir_end {
            problems.push(Problem::new(
                Severity::Warning,
                ProblemClass::Header,
                Some(KTUBHIDX + 2 * i),
                format!("ktubh.ktubhidx[{i}]"),
                format!(
                    "undo record offset 0x{w:04x} (block offset {at}) lies outside the record \
                     area ({dir_end}..{body_end})"
                ),
            ));
        } else if i > 0 {
            low = low.min(at);
        }
    }
    if cnt > 0 && low < body_end {
        r.set_context(Region::FreeSpace, None);
        r.mark(
            dir_end,
            low.saturating_sub(dir_end),
            "freespace",
            format!(
                "{} bytes between the directory and the records",
                low - dir_end
            ),
        );
        r.set_context(Region::TupleData, None);
        r.mark(
            low,
            body_end - low,
            "undodata",
            format!(
                "{} bytes of undo records 0x01–0x{cnt:02x}: not decoded (their layout is not \
                 established)",
                body_end - low
            ),
        );
    } else {
        r.set_context(Region::Unknown, None);
        r.mark(
            dir_end,
            body_end.saturating_sub(dir_end),
            "block body",
            "after the record directory: not decoded".to_string(),
        );
    }
    Ok(UndoBlock {
        info: String::new(),
        xid: format!("0x{usn:04x}.{slt:03x}.{sqn:08x}"),
        seq: u32::from(seq),
        cnt: u32::from(cnt),
        irb: u32::from(irb),
        icl: u32::from(icl),
        flg: u32::from(flg),
        xid_indent: 0,
        offsets: words
            .iter()
            .enumerate()
            .skip(1)
            .map(|(n, w)| (n as u32, u32::from(*w)))
            .collect(),
        records: Vec::new(),
        ktubhidx0: Some(u32::from(words[0])),
        from_bytes: true,
    })
}
