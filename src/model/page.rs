//! What the engine seam hands the renderers: which engine, one decoded
//! block of any engine ([`Page`], [`Decoded`]) and where it came from. Plain
//! data; the engine seam (`engine/`) fills it and the renderers read it.

use serde::Serialize;

use crate::model::oracle::{BlockCopy, OracleBlock, OracleVersion, TextBlock};
use crate::model::postgres::PgPage;

/// A database engine whose pages blockscope reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// PostgreSQL pages (layout version 4, 8.3 and later).
    Postgres,
    /// Oracle datafile blocks (cache header, transaction and data layers).
    Oracle,
}

/// One decoded block of any engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Page {
    /// A PostgreSQL page.
    Postgres(PgPage),
    /// An Oracle block decoded from its bytes.
    Oracle(OracleBlock),
    /// A block of an Oracle trace that carries only the formatted dump text
    /// (no `Dump of memory` section), with the block view rebuilt from the
    /// text for `--format dump` when the text allows it.
    OracleText(Box<TextPage>),
}

/// An Oracle block known only from a trace's formatted text.
#[derive(Clone, Debug, PartialEq)]
pub struct TextPage {
    /// The block's formatted dump text, as read from the trace.
    pub text: TextBlock,
    /// The block as far as the text describes it, for `--format dump`.
    pub view: Option<OracleBlock>,
    /// What the text says against itself (a text-only dump's consistency),
    /// and the differences from the block's other copy in the trace.
    pub problems: Vec<crate::model::Problem>,
}

/// What a block's surroundings say that the block does not carry, for
/// Oracle's dump text: the release, tablespace and file numbers (from the
/// datafile header or a trace's `Start dump` line), the buffer address.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DumpFacts {
    /// The Oracle release the dump text imitates.
    pub version: Option<OracleVersion>,
    /// Tablespace number (`tsn:`).
    pub tsn: Option<u32>,
    /// Absolute file number (`file#:`).
    pub file: Option<u32>,
    /// Address of the block in the buffer cache (a trace's `Dump of memory from`).
    pub buffer: Option<u64>,
    /// Hex digits of that address as the trace printed it (8 on a 32-bit
    /// platform, 16 on a 64-bit one).
    pub address_digits: Option<usize>,
}

/// One block ready to be shown: the page, its bytes (empty when the output
/// never shows them), and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// The decoded page or block.
    pub page: Page,
    /// The block's bytes; empty when the output never shows them.
    pub bytes: Vec<u8>,
    /// The trace the block was read from, if any.
    pub trace: Option<Box<TraceOrigin>>,
    /// What the surroundings said about the block, for Oracle's dump text.
    pub facts: DumpFacts,
}

/// Where in a trace a block was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceOrigin {
    /// Absolute file number (`file#:`), if the trace gives it.
    pub file: Option<u32>,
    /// Block number, if the trace gives it.
    pub block: Option<u32>,
    /// Tablespace number (`tsn:`), if the trace gives it.
    pub tsn: Option<u32>,
    /// First line of the block in the trace.
    pub line: usize,
    /// Line of `Dump of memory from`, and the address it starts at.
    pub hex_line: Option<usize>,
    /// Memory address of the first byte in the `Dump of memory from` line.
    pub hex_address: Option<u64>,
    /// The rebuilt block's tail confirmed the byte order.
    pub endian_confirmed: bool,
    /// `file#/block` as the trace labels it (`?` for what it does not say).
    pub label: String,
    /// The formatted text beside rebuilt bytes (a text-only block keeps its
    /// text in [`Page::OracleText`] instead).
    pub text: Option<TextBlock>,
    /// What the trace reader cut or merged for a block that has only text
    /// (a block with bytes carries them as problems instead).
    pub notes: Vec<String>,
    /// Which copy of the block this is, when the trace holds both the
    /// buffer cache's copy and the disk's (`Block dump from cache:` /
    /// `Block dump from disk:`).
    pub copy: Option<BlockCopy>,
}
