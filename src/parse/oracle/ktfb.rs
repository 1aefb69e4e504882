//! The KTFB file space header block (type 0x1d, block 2 of a locally
//! managed datafile) from bytes.
//!
//! The offsets are those of a published block that shows both forms, its
//! `Hex dump of block` and Oracle's text (`File Space Header Block:`, 11.2
//! on i686; fixtures/oracle/README.md names the source): after the 20-byte
//! cache header, ten native 4-byte words in the order the dump prints them —
//! `RelFno` 20, `Unit` 24, `Size` 28, `Flag` 32, `Increment` 36, `MaxSize`
//! 40, `Initial Area` 44, `Tail` 48, `First` 52, `Free` 56. Where the
//! `Deallocation scn` and the `Header Opcode` are stored is not established
//! (they were zero in that block); they are left `None` and the rest of the
//! body is not interpreted.

use crate::model::oracle::space::FileSpaceHeader;
use crate::model::span::Region;
use crate::reader::{ReadError, Reader};

/// The `Header Control:` words, in the dump's order: field, offset.
pub(crate) const FIELDS: [(&str, usize); 10] = [
    ("ktfbh.RelFno", 20),
    ("ktfbh.Unit", 24),
    ("ktfbh.Size", 28),
    ("ktfbh.Flag", 32),
    ("ktfbh.Increment", 36),
    ("ktfbh.MaxSize", 40),
    ("ktfbh.Initial Area", 44),
    ("ktfbh.Tail", 48),
    ("ktfbh.First", 52),
    ("ktfbh.Free", 56),
];

/// Read the `Header Control:` fields of a type 0x1d block.
pub(crate) fn read_file_space_header(r: &mut Reader) -> Result<FileSpaceHeader, ReadError> {
    r.set_context(Region::Header, Some("File Space Header Block".to_string()));
    let mut v = [0u32; 10];
    for (slot, (field, at)) in v.iter_mut().zip(FIELDS) {
        *slot = r.u32(at, field)?;
    }
    let [relfno, unit, size, flag, increment, maxsize, initial_area, tail, first, free] = v;
    Ok(FileSpaceHeader {
        relfno,
        unit,
        size,
        flag,
        autoextend: Some(increment != 0),
        increment,
        maxsize,
        initial_area,
        tail,
        first,
        free,
        dealloc_scn: None,
        opcode_save: None,
        from_bytes: true,
    })
}
