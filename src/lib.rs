//! blockscope: offline forensics of database page images — PostgreSQL pages
//! and Oracle blocks decoded, checked and rendered.
//!
//! The crate is layered the way the data flows; only the façade below and
//! the plain data types of [`model`] are public:
//!
//! ```text
//!   bytes, files, pipes, text dumps
//!        │
//!   input/source ── text dumps (hex, bytea, base64, od, xxd, hexdump -C,
//!        │          gdb, psql, COPY) to bytes; bytes to blocks
//!        ▼
//!     engine ────── which database wrote the bytes, block sizes; the one
//!        │          place that matches on the engine
//!        ▼
//!      parse ────── one parser per engine and page kind, on a checked
//!        │          reader: bytes in, model plus problems out, never a panic
//!        ▼
//!      model ────── plain data: pages, blocks, items, problems, verdicts
//!        │
//!        ├──▶ render ── tables, annotated hex, JSON, Oracle's dump text
//!        └──▶ verify ── every block of relation files and datafiles
//!
//!   cli on top: arguments to configs, once, then the rest wired together
//! ```
//!
//! A library user opens a [`Source`] (or decodes a text dump with
//! [`decode_text`]), lets [`Engine::sniff`] say which database wrote it,
//! decodes blocks with [`Engine::parse`] or a [`Decoder`], and renders them
//! with [`render_page`]; [`verify()`] checks PostgreSQL relation files. The
//! engine modules [`postgres`] and [`oracle`] hold what is particular to one
//! database: page parsers, column decoding, checksums, traces.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(unreachable_pub)]

// Every public item is documented (`missing_docs`), and everything that is
// not reachable from this façade is `pub(crate)` (`unreachable_pub`).
mod cli;
mod cluster;
mod commands;
mod diff;
mod engine;
mod error;
mod escape;
mod input;
pub mod model;
mod parse;
mod reader;
mod render;
mod source;
mod verify;

pub use error::{Error, TextError};

// The engine seam.
pub use engine::{
    ColumnSpec, Columns, Decoded, Decoder, Detection, DumpFacts, Engine, EngineScore, Page,
    ParseOptions, TextPage, TraceOrigin,
};
pub use reader::Endian;

// Opening inputs.
pub use input::{
    decode as decode_text, decode_pages as decode_text_pages, detect as detect_text,
    Decoded as DecodedText, InputError, InputFormat, RowBlkno,
};
pub use source::{Block, Blocks, RelationFileName, Source, DEFAULT_BLOCK_SIZE};

// Rendering.
pub use render::hex::render as render_hex;
pub use render::oracle::dump::{dump_text, expand_tabs, DumpOptions, DumpPart};
pub use render::{
    can_show, document as render_document, page as render_page, Format, Options, RenderOptions,
};

// Verifying.
pub use render::{postgres::verify::VerifyPrinter, report::VerifyFormat};
pub use verify::{run as verify, ChecksumMode, Report, VerifyOptions};

/// The `blockscope` command line: parse the process arguments, run the
/// command, and return its exit status (0 clean, 1 problems found, 2 usage
/// or input errors).
pub fn run_cli() -> std::process::ExitCode {
    cli::main()
}

/// PostgreSQL: pages, column decoding, checksums and pg_control.
pub mod postgres {
    pub use crate::parse::postgres::checksum::{
        candidate_blocks, checksum_block, fitting_blocks, pg_checksum_page, FittingBlocks,
    };
    pub use crate::parse::postgres::control::{
        crc32c, parse_control_file, parse_control_image, ControlFile,
    };
    pub use crate::parse::postgres::decode_page;
    pub use crate::parse::postgres::relmap::parse_relmap;
    pub use crate::parse::postgres::schema::{parse_columns, parse_schema};
    pub use crate::parse::postgres::toast::ToastStore;
    pub use crate::parse::postgres::wal::redo::mask::{
        btree_mask, heap_mask, mask_lp_flags, mask_page_content, mask_page_hint_bits,
        mask_page_lsn_and_checksum, mask_unused_space, MASK_MARKER,
    };
    pub use crate::parse::postgres::{
        check_page, detect_endian, detect_kind, page_size_from_header, parse_page,
        parse_page_without_spans, PageOptions,
    };
    pub use crate::render::postgres::json::{bytea_text, PgPageJson as PageJson};
    pub use crate::render::postgres::ndjson::append_page_line;
    pub use crate::render::postgres::table::render_page as render_table;
}

/// Not a stable interface: btree redo of WAL records, reachable only so
/// that `tests/btredo.rs` can judge it against a real cluster's pages.
#[doc(hidden)]
pub mod wal_redo {
    use std::path::PathBuf;

    use crate::model::postgres::wal::WalRecord;
    use crate::parse::postgres::wal::redo;

    /// Replay `rec` on block `block_id`'s page (empty when none is known):
    /// `"restored"` (a full-page image), `"skipped"` (the page is newer) or
    /// `"replayed"`; Err says why it cannot be replayed.
    pub fn apply(
        page: &mut Vec<u8>,
        rec: &WalRecord,
        bytes: &[u8],
        block_id: u8,
    ) -> Result<&'static str, String> {
        Ok(
            match redo::apply(page, rec, bytes, block_id).map_err(|e| e.0)? {
                redo::Applied::Restored => "restored",
                redo::Applied::Skipped => "skipped",
                redo::Applied::Redone => "replayed",
            },
        )
    }

    /// The page of block `block_id`'s full-page image, if it has one (also
    /// an image written only for `wal_consistency_checking`).
    pub fn block_image(
        rec: &WalRecord,
        bytes: &[u8],
        block_id: u8,
    ) -> Result<Option<Vec<u8>>, String> {
        redo::block_image(rec, bytes, block_id).map_err(|e| e.0)
    }

    /// nbtxlog.c's `btree_mask`.
    pub fn btree_mask(page: &mut [u8]) {
        redo::mask::btree_mask(page, 0)
    }

    /// A Btree record's name as pg_waldump prints it.
    pub fn info_name(info: u8) -> &'static str {
        redo::btree::info_name(info)
    }

    /// Every record of the WAL segments in `paths` (files, `pg_wal` or data
    /// directories) in WAL order, with its assembled bytes; the problems
    /// met on the way as text.
    pub fn for_each_record(
        paths: &[PathBuf],
        f: &mut dyn FnMut(&WalRecord, &[u8]),
    ) -> Result<Vec<String>, crate::Error> {
        use crate::parse::postgres::wal::Item;
        let set = crate::engine::wal::WalSet::open(paths, None)?;
        let mut problems = Vec::new();
        set.for_each(None, None, &mut |item| match item {
            Item::Record(rec, bytes) => f(rec, bytes),
            Item::Problem(p) => problems.push(format!("{}: {}", p.class, p.message)),
        });
        Ok(problems)
    }
}

/// Oracle: datafile blocks, column decoding, check values, DBVERIFY-style
/// checks and block-dump traces.
pub mod oracle {
    pub use crate::parse::oracle::checksum::{compute_chkval, xor16};
    pub use crate::parse::oracle::columns::decode_block as decode_columns;
    pub use crate::parse::oracle::trace::buffer::{BlockCopy, BufferHeader};
    pub use crate::parse::oracle::trace::consistency::check_text as check_trace_text;
    pub use crate::parse::oracle::trace::crosscheck::compare as crosscheck;
    pub use crate::parse::oracle::trace::crosscheck::compare_copies as compare_trace_copies;
    pub use crate::parse::oracle::trace::{
        read_trace, rebuilt_blocks, render_view, RebuiltBlock, TraceBlock,
    };
    pub use crate::parse::oracle::verify::{verify_block, DatafileVerifier, Expected};
    pub use crate::parse::oracle::{
        block_size_from_header, detect_endian, looks_like_oracle, parse_block, BlockOptions,
    };
    pub use crate::render::oracle::json::block_json;
    pub use crate::render::oracle::table::render_block as render_table;
    pub use crate::render::oracle::verify::{write_dbv_report, write_summary};
}
