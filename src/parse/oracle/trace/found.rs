//! One block found in a trace: the leaf the trace reader and the copy
//! cross-check share.

use crate::model::oracle::TextBlock;
use crate::reader::Endian;

use super::buffer::{BlockCopy, BufferHeader};

/// One block found in a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceBlock {
    /// First line of the block in the trace.
    pub line: usize,
    /// Absolute file number (`file#:` of `Start dump data blocks`), if given.
    pub file: Option<u32>,
    /// Block number: from the text's rdba, else the rebuilt bytes' rdba,
    /// else `minblk` plus the block's position.
    pub block: Option<u32>,
    /// Tablespace number, if the trace gives it.
    pub tsn: Option<u32>,
    /// The bytes rebuilt from the `Dump of memory` section.
    pub bytes: Option<Vec<u8>>,
    /// Byte order of the hex words (given, or detected from the tail).
    pub endian: Option<Endian>,
    /// Whether the byte order was confirmed by the rebuilt block's tail.
    pub endian_confirmed: bool,
    /// Line of `Dump of memory from`, and the memory address it starts at.
    pub hex_line: Option<usize>,
    /// Memory address of the first byte in the `Dump of memory from` line.
    pub hex_address: Option<u64>,
    /// The formatted part, when the trace has one for this block.
    pub text: Option<TextBlock>,
    /// What the reader cut or merged for this block (bounds, duplicate
    /// sections), each naming its trace line; empty for an ordinary trace.
    pub notes: Vec<String>,
    /// `Block dump from cache:` or `Block dump from disk:` before the block.
    pub copy: Option<BlockCopy>,
    /// The `BH (…)` buffer header line before the block, if any.
    pub buffer_header: Option<BufferHeader>,
    /// Hex digits of the address in `Dump of memory from 0x…` (8 on 32-bit
    /// platforms, 16 on 64-bit ones).
    pub address_digits: Option<usize>,
}
