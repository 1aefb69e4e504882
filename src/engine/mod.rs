//! The engine seam: which database wrote the bytes, and the one place that
//! turns bytes into a [`Page`] of that engine.
//!
//! ```text
//!   bytes ──sniff──▶ Detection { engine, reason }
//!   bytes ──block_size──▶ page/block size (pd_pagesize_version, frmt_kcbh, OS header)
//!   bytes ──parse(engine)──▶ Page::Postgres(PgPage) | Page::Oracle(OracleBlock) | …
//! ```
//!
//! Everything engine-specific is reached from here. Each engine answers
//! through the [`EngineSpec`] trait (`spec.rs`), implemented once in its own
//! file (`postgres.rs`, `oracle.rs`); [`Engine::spec`] is the registry, and
//! the few matches left here (column lists, the `Page` accessors, the verify
//! plan) are those whose types name each engine. A third engine is one more
//! variant and one more file; the compiler names every arm it needs.

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::input::InputFormat;
use crate::model::oracle::types::{OraCharset, OraColumns};
use crate::model::postgres::types::Schema;
use crate::model::postgres::PageKind;
use crate::parse::oracle::columns;
use crate::parse::postgres::toast::ToastStore;
use crate::source::Source;

pub(crate) mod carve;
pub(crate) mod open;
mod oracle;
mod postgres;
mod sniff;
mod spec;
mod trace;
pub(crate) mod wal;
pub use crate::model::page::{Decoded, DumpFacts, Engine, Page, TextPage, TraceOrigin};
pub(crate) use crate::verify::oracle::OracleInput;
pub(crate) use sniff::sniff_block_size;
pub use sniff::{Detection, EngineScore};
use spec::EngineSpec;
pub(crate) use spec::RowStorage;
pub use spec::{ColumnSpec, ParseOptions};
pub(crate) use trace::TracePages;

impl Engine {
    /// Every engine, in detection order (the first is read when no other
    /// engine's signals win).
    pub const ALL: [Engine; 2] = [Engine::Postgres, Engine::Oracle];

    /// The registry: each engine's answers, implemented in its own file
    /// (`postgres.rs`, `oracle.rs`). Every method below forwards here.
    fn spec(self) -> &'static dyn EngineSpec {
        match self {
            Engine::Postgres => &postgres::Postgres,
            Engine::Oracle => &oracle::Oracle,
        }
    }

    /// The name used on the command line and in JSON (`postgres`, `oracle`).
    pub fn name(self) -> &'static str {
        self.spec().name()
    }

    /// What `--engine NAME` says in `--help`.
    pub(crate) fn help(self) -> &'static str {
        self.spec().help()
    }

    /// What its blocks are called in messages (`PostgreSQL pages`).
    pub(crate) fn blocks_noun(self) -> &'static str {
        self.spec().blocks_noun()
    }

    /// The block sizes the engine can be built with: a power of two in this
    /// range (PostgreSQL's BLCKSZ: 1 to 32 KiB; Oracle's DB_BLOCK_SIZE: 2 to
    /// 32 KiB).
    pub(crate) fn block_sizes(self) -> RangeInclusive<usize> {
        self.spec().block_sizes()
    }

    /// How the engine's files hold a table's rows, which says how `export`
    /// reads them.
    pub(crate) fn row_storage(self) -> RowStorage {
        self.spec().row_storage()
    }

    /// The engine whose data directories `--table` finds tables in, through
    /// their catalogs read offline (PostgreSQL's).
    pub(crate) fn with_catalogs() -> Engine {
        Engine::Postgres
    }

    /// A file's position in a relation gives its blocks' numbers: relation
    /// files are cut into numbered segments (`16384.2`) of a fixed number
    /// of blocks (PostgreSQL's RELSEG_SIZE).
    pub(crate) fn numbers_blocks_by_segment(self) -> bool {
        self.spec().numbers_blocks_by_segment()
    }

    /// Commit status is kept apart from the blocks, in a log of the data
    /// directory (PostgreSQL's pg_xact and pg_multixact), which `show` and
    /// `export` read when they find it.
    pub(crate) fn has_commit_log(self) -> bool {
        self.spec().has_commit_log()
    }

    /// The engine of a block image, judged from its first block (at
    /// position 0): each engine's header signals are scored independently
    /// (Oracle: OS header, type, format byte, size, rdba, tail, check value;
    /// PostgreSQL: pd_pagesize_version, the header's offsets, line pointers,
    /// special space, checksum) and the higher score wins; a tie, and
    /// anything neither engine recognises, is read as PostgreSQL pages.
    pub fn sniff(head: &[u8]) -> Detection {
        let [first, rest @ ..] = Engine::ALL.map(|e| (e, e.spec()));
        sniff::decide(head, 0, first, &rest)
    }

    /// The block size this engine's first block announces, if plausible:
    /// PostgreSQL's pd_pagesize_version; Oracle's OS header (block 0) or the
    /// cache header's format byte.
    pub fn block_size(self, head: &[u8]) -> Option<usize> {
        self.spec().block_size(head)
    }

    /// Decode one block of this engine.
    pub fn parse(self, bytes: &[u8], opts: &ParseOptions) -> Page {
        self.spec().parse(bytes, opts)
    }

    /// Whether the engine has a dump text of its own (`--format dump`).
    pub fn has_dump_text(self) -> bool {
        self.spec().has_dump_text()
    }

    /// Block number of an input's first block: `--blkno`, else (PostgreSQL)
    /// the segment number × blocks per 1 GiB segment; Oracle block numbers
    /// start at 0 (or `--blkno`).
    pub fn first_blkno(self, blkno: Option<u64>, segment: Option<u64>, block_size: usize) -> u64 {
        self.spec().first_blkno(blkno, segment, block_size)
    }

    /// The column list `spec` in this engine's type names (and, for
    /// PostgreSQL, the TOAST relation that out-of-line values are read from).
    pub fn columns(
        self,
        spec: Option<&ColumnSpec>,
        toast: &[PathBuf],
        block_size: Option<usize>,
        charset: OraCharset,
    ) -> Result<Option<Columns>, Error> {
        Ok(match self {
            Engine::Postgres => postgres::columns(spec, toast, block_size)?
                .map(|(schema, toast)| Columns::Postgres { schema, toast }),
            Engine::Oracle => {
                oracle::columns(spec, toast)?.map(|list| Columns::Oracle { list, charset })
            }
        })
    }
}

/// A column list in one engine's types, ready to split rows into values.
pub enum Columns {
    /// PostgreSQL columns (`--columns` / `--schema`).
    Postgres {
        /// The table's attributes in attnum order.
        schema: Schema,
        /// The TOAST relation's pages (`--toast`), for out-of-line values.
        toast: Option<ToastStore>,
    },
    /// Oracle columns (`--columns` / `--schema`).
    Oracle {
        /// The table's columns in column order.
        list: OraColumns,
        /// The database character set that CHAR/VARCHAR2 bytes are decoded in.
        charset: OraCharset,
    },
}

/// Decodes the blocks of one input in order: parse, split rows into columns,
/// and keep what earlier blocks said about later ones (an Oracle datafile
/// header names the tablespace and file).
pub struct Decoder {
    engine: Engine,
    opts: ParseOptions,
    columns: Option<Columns>,
    facts: DumpFacts,
}

impl Decoder {
    /// A decoder for `engine`, with the options and (optional) column list of the input.
    pub fn new(engine: Engine, opts: ParseOptions, columns: Option<Columns>) -> Decoder {
        Decoder {
            engine,
            opts,
            columns,
            facts: DumpFacts::default(),
        }
    }

    /// The engine the blocks are decoded as.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Whether block `index` of the input must be decoded even when it is
    /// outside the asked range (Oracle: the datafile header in blocks 0–1).
    pub fn reads_ahead(&self, index: u64) -> bool {
        self.engine.spec().reads_ahead(index)
    }

    /// Whether blocks are independent of each other and of any column list,
    /// so that NDJSON can be produced in parallel ([`Engine::parse`] per block).
    pub fn independent(&self) -> bool {
        self.engine.spec().blocks_independent() && self.columns.is_none()
    }

    /// Whether each block decodes by itself, whatever the blocks before it
    /// (PostgreSQL; not Oracle, whose datafile header names the file).
    pub fn blocks_independent(&self) -> bool {
        self.engine.spec().blocks_independent()
    }

    /// The options every block is parsed with (`blkno` aside).
    pub fn options(&self) -> ParseOptions {
        self.opts
    }

    /// Decode block `blkno`.
    pub fn decode(&mut self, blkno: u64, bytes: Vec<u8>) -> Decoded {
        let mut page = self
            .engine
            .parse(&bytes, &ParseOptions { blkno, ..self.opts });
        match (&mut page, &mut self.columns) {
            (Page::Postgres(p), Some(Columns::Postgres { schema, toast })) => {
                crate::parse::postgres::decode_page(p, &bytes, schema, toast.as_mut());
            }
            (Page::Oracle(b), Some(Columns::Oracle { list, charset })) => {
                columns::decode_block(b, list, *charset);
            }
            _ => {}
        }
        if let Page::Oracle(b) = &page {
            if let Some(fh) = &b.file_header {
                self.facts.tsn = Some(fh.kcvfhtsn);
                self.facts.file = Some(u32::from(fh.kccfhfno));
            }
        }
        Decoded {
            page,
            bytes,
            trace: None,
            facts: self.facts,
        }
    }
}

/// Which engine's checker a `verify` run goes to, with what it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum VerifyPlan {
    /// PostgreSQL relation files and directories (the inputs as given).
    Postgres,
    /// Oracle datafiles and traces.
    Oracle(Vec<(PathBuf, OracleInput)>),
}

impl VerifyPlan {
    /// The engine whose room verifies the inputs.
    pub(crate) fn engine(&self) -> Engine {
        match self {
            VerifyPlan::Postgres => Engine::Postgres,
            VerifyPlan::Oracle(_) => Engine::Oracle,
        }
    }
}

/// The engine of `verify`'s inputs. Given (`--engine`): every input goes to
/// that engine (Oracle: traces as traces, other files as datafiles).
/// Detected: Oracle when every input is an Oracle datafile or trace (a
/// regular file whose first block scores as an Oracle block, or a trace),
/// PostgreSQL when none is; a mix is refused. Also returns, per input whose
/// engine was not clear-cut, the note that says why it was chosen.
pub(crate) fn verify_plan(
    inputs: &[PathBuf],
    engine: Option<Engine>,
) -> Result<(VerifyPlan, Vec<(PathBuf, String)>), Error> {
    let mut notes = Vec::new();
    if engine == Some(Engine::Postgres) {
        return Ok((VerifyPlan::Postgres, notes));
    }
    let mut oracle = Vec::new();
    let reads_stdin = inputs.is_empty() || inputs.iter().all(|p| p.as_os_str() == "-");
    if reads_stdin {
        // Standard input: its first bytes decide, and are kept for the checker.
        let head = crate::source::peek_stdin(64 << 10).map_err(|source| Error::Io {
            path: PathBuf::from("-"),
            source,
        })?;
        let stdin = PathBuf::from("-");
        if head.is_empty() {
            // Nothing to choose from: the checker says nothing was verified.
            return Ok((VerifyPlan::Postgres, notes));
        }
        let format = crate::input::detect(&head);
        if format == InputFormat::OracleTrace {
            return Ok((VerifyPlan::Oracle(vec![(stdin, OracleInput::Trace)]), notes));
        }
        // A text dump: its decoded first block decides (text is read whole
        // anyway, within the text-input limit).
        let head = if format == InputFormat::Raw {
            head
        } else {
            let text = crate::source::peek_stdin(crate::source::MAX_TEXT_INPUT as usize).map_err(
                |source| Error::Io {
                    path: stdin.clone(),
                    source,
                },
            )?;
            crate::input::decode_pages(&text, InputFormat::Auto, 8192)
                .map(|d| d.bytes)
                .unwrap_or(head)
        };
        let detection = match engine {
            Some(e) => Detection::given(e),
            None => Engine::sniff(&head),
        };
        if let Some(note) = detection.note() {
            notes.push((stdin.clone(), note));
        }
        return Ok(match detection.engine {
            Engine::Oracle => (
                VerifyPlan::Oracle(vec![(stdin, OracleInput::Datafile)]),
                notes,
            ),
            Engine::Postgres => (VerifyPlan::Postgres, notes),
        });
    }
    // Inputs that cannot be read (a dangling link, no permission): they
    // join the run the readable inputs choose, which reports them (`io`).
    let mut undecided = Vec::new();
    for path in inputs {
        let dangling = !path.exists() && path.symlink_metadata().is_ok();
        if dangling {
            undecided.push(path.clone());
            continue;
        }
        if !path.is_file() {
            if engine == Some(Engine::Oracle) {
                return Err(Error::Usage(format!(
                    "verify --engine oracle: {} is not a datafile or trace (give files)",
                    path.display()
                )));
            }
            continue;
        }
        // An unreadable file is verify's to report (class `io`), not a reason
        // to stop. Opened and identified as every command opens its input.
        let req = open::OpenRequest {
            input: Some(path),
            input_format: InputFormat::Auto,
            block_size: None,
            tap: None,
            engine,
            endian: None,
        };
        let Ok(identified) = open::identify(req) else {
            undecided.push(path.clone());
            continue;
        };
        match identified {
            open::Identified::Trace { .. } => oracle.push((path.clone(), OracleInput::Trace)),
            open::Identified::Blocks {
                engine, detection, ..
            } => {
                if let Some(note) = detection.as_ref().and_then(Detection::note) {
                    notes.push((path.clone(), note));
                }
                if engine == Engine::Oracle {
                    oracle.push((path.clone(), OracleInput::Datafile));
                }
            }
        }
    }
    if oracle.is_empty() {
        return Ok((VerifyPlan::Postgres, notes));
    }
    if oracle.len() + undecided.len() == inputs.len() && !undecided.is_empty() {
        oracle.extend(undecided.into_iter().map(|p| (p, OracleInput::Datafile)));
        // In the order given.
        oracle.sort_by_key(|(p, _)| inputs.iter().position(|i| i == p));
    }
    if oracle.len() != inputs.len() {
        return Err(Error::Usage(
            "verify: give Oracle datafiles and traces, or PostgreSQL files, not both in one run \
             (or choose with --engine)"
                .into(),
        ));
    }
    Ok((VerifyPlan::Oracle(oracle), notes))
}

/// Whether the regular file at `path`, handed over directly, is not pages
/// at all — what makes `show` exit 2, decided the same way so that `verify`
/// and `map` exit 2 on it too: its first block shows no header signal of
/// either engine ([`Detection::no_header`]) and no block of it decodes as a
/// page kind its engine knows ([`Page::recognised`]: an all-zero block is a
/// new page, so a file of zeros is pages). Read block by block (bounded
/// memory), stopping at the first block that is a page; a file that cannot
/// be opened or read, a trace, and an input of no bytes are left to the
/// checker (`false`), which reports them as it always has.
pub(crate) fn not_pages(path: &Path, block_size: Option<usize>) -> bool {
    let Ok(mut source) = Source::open(Some(path), InputFormat::Auto, block_size) else {
        return false;
    };
    source.detect_block_size(sniff_block_size);
    if source.take_trace_text().is_some() {
        return false;
    }
    let Ok(head) = source.head(source.block_size) else {
        return false;
    };
    let detection = Engine::sniff(&head);
    if head.is_empty() || !detection.no_header() {
        return false;
    }
    let opts = ParseOptions {
        from_text: source.format != InputFormat::Raw,
        ..ParseOptions::default()
    };
    for block in source.blocks() {
        let Ok(block) = block else {
            return false;
        };
        let opts = ParseOptions {
            blkno: block.index,
            ..opts
        };
        if detection.engine.parse(&block.data, &opts).recognised() {
            return false;
        }
    }
    true
}

/// The largest block any engine has (32 KiB).
pub(crate) const MAX_BLOCK_SIZE: usize = 32768;

/// `--block-size n` for `engine` (`None`: not yet known, any engine's size
/// passes; the engine's own range is checked again once it is known, before
/// any block is read).
pub(crate) fn check_block_size(
    n: Option<usize>,
    engine: Option<Engine>,
) -> Result<Option<usize>, Error> {
    let Some(n) = n else {
        return Ok(None);
    };
    let engines = match engine {
        Some(e) => vec![e],
        None => Engine::ALL.to_vec(),
    };
    let first = engines.iter().map(|e| *e.block_sizes().start()).min();
    let last = engines.iter().map(|e| *e.block_sizes().end()).max();
    let range = first.unwrap_or(0)..=last.unwrap_or(MAX_BLOCK_SIZE);
    if range.contains(&n) && n.is_power_of_two() {
        return Ok(Some(n));
    }
    let what: Vec<&str> = engines.iter().map(|e| e.blocks_noun()).collect();
    Err(Error::Usage(format!(
        "--block-size: {n} is not a block size ({} are a power of two from {} to {} bytes)",
        what.join(" and "),
        range.start(),
        range.end()
    )))
}

impl Page {
    /// The engine that wrote this page.
    pub fn engine(&self) -> Engine {
        match self {
            Page::Postgres(_) => Engine::Postgres,
            Page::Oracle(_) | Page::OracleText(_) => Engine::Oracle,
        }
    }

    /// Whether the page was recognised as a page kind of its engine (a block
    /// known from a trace's text counts as recognised).
    pub fn recognised(&self) -> bool {
        match self {
            Page::Postgres(p) => p.kind != PageKind::Unknown,
            Page::Oracle(b) => b.kind != crate::model::oracle::OracleKind::Unknown,
            Page::OracleText(_) => true,
        }
    }

    /// The byte spans of the page's decoded fields (recorded when the parse
    /// was asked to; none for a block known only from text).
    pub fn spans(&self) -> &[crate::model::span::Span] {
        match self {
            Page::Postgres(p) => &p.spans,
            Page::Oracle(b) => &b.spans,
            Page::OracleText(_) => &[],
        }
    }

    /// The problems found on the page (for a block known only from text:
    /// what the text says against itself).
    pub fn problems(&self) -> &[crate::model::Problem] {
        match self {
            Page::Postgres(p) => &p.problems,
            Page::Oracle(b) => &b.problems,
            Page::OracleText(t) => &t.problems,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An 8 KiB Oracle table block with a tail that repeats its header.
    fn oracle_block() -> Vec<u8> {
        let mut b = vec![0u8; 8192];
        b[0] = 0x06; // type_kcbh: trans data
        b[1] = 0xa2; // frmt_kcbh: 8 KiB
        b[8..12].copy_from_slice(&0x1234_5678u32.to_le_bytes()); // bas_kcbh
        b[14] = 0x01; // seq_kcbh
                      // tail: low half of the SCN base, type, seq (little-endian word)
        b[8188] = 0x01;
        b[8189] = 0x06;
        b[8190..8192].copy_from_slice(&[0x78, 0x56]);
        b
    }

    fn postgres_page(size: usize) -> Vec<u8> {
        let mut p = vec![0u8; size];
        p[12..14].copy_from_slice(&24u16.to_le_bytes()); // pd_lower
        p[14..16].copy_from_slice(&(size as u16).to_le_bytes()); // pd_upper
        p[16..18].copy_from_slice(&(size as u16).to_le_bytes()); // pd_special
        p[18..20].copy_from_slice(&((size as u16) | 4).to_le_bytes()); // pd_pagesize_version
        p
    }

    #[test]
    fn oracle_blocks_are_sniffed_as_oracle() {
        let d = Engine::sniff(&oracle_block());
        assert_eq!(d.engine, Engine::Oracle);
        assert_eq!(sniff_block_size(&oracle_block()), Some(8192));
    }

    #[test]
    fn detection_keeps_a_score_per_engine() {
        let d = Engine::sniff(&oracle_block());
        let engines: Vec<Engine> = d.scores.iter().map(|s| s.engine).collect();
        assert_eq!(engines, Engine::ALL.to_vec());
        assert!(d.score(Engine::Oracle) >= 4);
        assert!(d.score(Engine::Oracle) > d.score(Engine::Postgres));
        assert!(!d.no_header());
        let d = Engine::sniff(&postgres_page(8192));
        assert!(d.score(Engine::Postgres) >= 2);
        assert!(Detection::given(Engine::Oracle).scores.is_empty());
    }

    #[test]
    fn block_sizes_are_checked_per_engine() {
        assert_eq!(check_block_size(Some(1024), None).unwrap(), Some(1024));
        assert_eq!(check_block_size(None, Some(Engine::Oracle)).unwrap(), None);
        let e = check_block_size(Some(1024), Some(Engine::Oracle)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--block-size: 1024 is not a block size (Oracle blocks are a power of two from \
             2048 to 32768 bytes)"
        );
        let e = check_block_size(Some(3000), None).unwrap_err();
        assert!(e
            .to_string()
            .contains("(PostgreSQL pages and Oracle blocks are a power of two from 1024 to 32768"));
        for e in Engine::ALL {
            assert_eq!(
                Engine::ALL.iter().filter(|x| x.name() == e.name()).count(),
                1
            );
            assert!(e.block_sizes().contains(&8192));
        }
        assert!(Engine::ALL.iter().all(|e| e.name() != "auto"));
    }

    #[test]
    fn postgres_pages_and_anything_else_are_postgres() {
        assert_eq!(Engine::sniff(&postgres_page(8192)).engine, Engine::Postgres);
        assert_eq!(Engine::sniff(&[]).engine, Engine::Postgres);
        assert_eq!(Engine::sniff(&[0xff; 100]).engine, Engine::Postgres);
        assert_eq!(sniff_block_size(&postgres_page(4096)), Some(4096));
        assert_eq!(Engine::Oracle.block_size(&postgres_page(4096)), None);
    }

    #[test]
    fn a_damaged_tail_does_not_flip_the_engine_but_is_noted() {
        let mut b = oracle_block();
        b[8189] = 0x07; // tail type differs from the header's
        let d = Engine::sniff(&b);
        assert_eq!(d.engine, Engine::Oracle);
        assert!(!d.clear);
        assert!(d.note().unwrap().starts_with("read as Oracle blocks: "));
        assert!(Engine::sniff(&oracle_block()).clear);
        // The format byte alone still gives the block size.
        assert_eq!(Engine::Oracle.block_size(&b), Some(8192));
    }

    #[test]
    fn the_os_header_gives_oracle_and_its_block_size_in_either_order() {
        let mut os = vec![0u8; 4096];
        os[1] = 0x82;
        os[20..24].copy_from_slice(&4096u32.to_be_bytes());
        os[28..32].copy_from_slice(&0x7a7b_7c7du32.to_be_bytes());
        assert_eq!(Engine::Oracle.block_size(&os), Some(4096));
        assert_eq!(Engine::sniff(&os).engine, Engine::Oracle);
        let mut le = vec![0u8; 2048];
        le[20..24].copy_from_slice(&2048u32.to_le_bytes());
        le[28..32].copy_from_slice(&0x7a7b_7c7du32.to_le_bytes());
        assert_eq!(sniff_block_size(&le), Some(2048));
    }

    #[test]
    fn parse_goes_to_the_engine() {
        let opts = ParseOptions {
            blkno: 3,
            ..ParseOptions::default()
        };
        assert_eq!(
            Engine::Postgres.parse(&postgres_page(8192), &opts).engine(),
            Engine::Postgres
        );
        let Page::Oracle(b) = Engine::Oracle.parse(&oracle_block(), &opts) else {
            panic!("not an Oracle page");
        };
        assert_eq!(b.blkno, 3);
    }
}
