//! `verify`: every block of every input checked — data checksum and
//! structure — problems handed to a [`Report`] in file and block order, and
//! totals summarised.
//!
//! How a run goes:
//!
//! 1. Inputs become a list of files: a file is taken as given; a directory is
//!    walked for relation files (`16385`, `16385.1`, `16385_fsm`, `16385_vm`);
//!    a PostgreSQL data directory only in `base/`, `global/` and
//!    `pg_tblspc/`. Other files are passed over with a note.
//! 2. Whether the cluster has data checksums is decided once for the whole
//!    set (see [`ChecksumMode::Auto`]).
//! 3. Each file is read in 1 MiB chunks with positioned reads — never whole —
//!    and the chunks of a window are checked in parallel on all cores; the
//!    window's results are reported in order before the next window is read,
//!    so memory stays bounded whatever the file size.
//!
//! A block's number is `segment × blocks per segment + position in the file`;
//! the segment comes from the `.N` suffix of the file name (or `--segment`).

use std::cell::RefCell;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::input::InputFormat;
use crate::model::map::{BlockFigures, ChecksumState};
use crate::model::postgres::verify::{
    ChecksumVerdict, PgControlSummary, Provenance, ProvenanceInput, Skipped, Summary, VerifyProblem,
};
use crate::model::postgres::SIZE_OF_PAGE_HEADER;
use crate::model::{Problem, ProblemClass, Severity};
use crate::parse::postgres::check::is_btree_metapage;
use crate::parse::postgres::check::CheckedPage;
use crate::parse::postgres::checksum::pg_checksum_page;
use crate::parse::postgres::control::{parse_control_file, ControlFile};
use crate::parse::postgres::figures::page_figures;
use crate::parse::postgres::page::is_new_page;
use crate::parse::postgres::{check_page_in, PageOptions, Relation};
use crate::parse::postgres::{detect_endian, page_size_from_header};
use crate::reader::Reader;
use crate::source::{
    first_blkno_of_segment, open_file, read_at, segment_from_name, RelationFileName, Source,
    DEFAULT_BLOCK_SIZE, DEFAULT_SEGMENT_BYTES, MAX_BLOCK_NUMBER, MAX_TEXT_INPUT,
};

use super::file_name;

/// Bytes read and checked as one unit of parallel work.
const CHUNK_BYTES: usize = 1 << 20;
/// Chunks checked in parallel before their results are reported.
const WINDOW_CHUNKS: usize = 16;
/// Blocks whose headers are read one by one before the checksum probe goes parallel.
const PROBE_SEQUENTIAL: u64 = 64;

/// Whether to verify data checksums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChecksumMode {
    /// Verify every written page; pd_checksum 0 on one is a failure.
    On,
    /// Do not verify checksums (a cluster initialised without them, or one
    /// whose checksums were disabled: its pages keep stale values).
    Off,
    /// The cluster has checksums if any written page of the inputs has a
    /// non-zero pd_checksum (pages of a cluster without checksums all hold 0).
    /// Files are probed header by header until one is found; standard input
    /// is decided by its first chunk.
    Auto,
}

/// What to verify and how.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Page size; `None` = pg_control's when a data directory is given, else
    /// the size the first written page announces in pd_pagesize_version (as
    /// `show` reads it), else 8192.
    pub block_size: Option<usize>,
    /// Bytes per segment file (RELSEG_SIZE × BLCKSZ); `None` = pg_control's
    /// when a data directory is given, else 1 GiB.
    pub segment_bytes: Option<u64>,
    /// Segment number of the (single) input file, instead of its `.N` suffix.
    pub segment: Option<u64>,
    /// Whether to check pd_checksum: on, off, or as the pages say (auto).
    pub checksums: ChecksumMode,
    /// `--evidence`: record [`Provenance`] in the summary, with the SHA-256
    /// of every input's bytes as they are read.
    pub evidence: bool,
    /// `--deep`: amcheck's cross-page checks (btree structure and keys,
    /// heap xids and HOT chains, visibility map, free space map).
    pub deep: bool,
    /// `--deep --columns`: the btree key columns' types, as `show` takes them.
    pub key_columns: Option<String>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            block_size: None,
            segment_bytes: None,
            segment: None,
            checksums: ChecksumMode::Auto,
            evidence: false,
            deep: false,
            key_columns: None,
        }
    }
}

/// Where verify's findings go, in order, as they are found.
pub trait Report {
    /// An input passed over (not a relation file).
    fn skipped(&mut self, skipped: &Skipped) -> io::Result<()>;
    /// A problem, in file and block order.
    fn problem(&mut self, problem: &VerifyProblem) -> io::Result<()>;
    /// Whether [`Report::block`] is wanted: the figures of every block are
    /// then gathered as it is checked (`map`). Default: no.
    fn wants_blocks(&self) -> bool {
        false
    }
    /// The figures of one block, in file and block order, after its
    /// problems; only when [`Report::wants_blocks`] says so.
    fn block(&mut self, _figures: &BlockFigures) -> io::Result<()> {
        Ok(())
    }
    /// The run's files are known: `total_bytes` of them will be read
    /// (standard input counts none). For a progress bar; default: nothing.
    fn started(&mut self, _total_bytes: u64) {}
    /// `bytes` more of the files were read and their blocks reported, in
    /// order (a chunk of blocks at a time, never block by block).
    fn advanced(&mut self, _bytes: u64) {}
}

/// One input to check.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    File {
        path: PathBuf,
        segment: u64,
        /// Found in a directory walk, not named: read as raw pages only
        /// (a relation file is never a text dump), and a file that holds no
        /// page is one `not-pages` problem.
        walked: bool,
    },
    Stdin,
    /// An entry that could not even be looked at (permission denied, a
    /// dangling symbolic link, a loop, an unreadable directory): reported
    /// as a problem of class `io` in its place.
    Unreadable {
        path: PathBuf,
        reason: String,
    },
}

/// Settings shared by every block of one file.
struct BlockContext<'a> {
    file: &'a str,
    block_size: usize,
    /// Block number of the file's first block.
    first_blkno: u64,
    checksums: bool,
    /// The blocks came through text (a get_raw_page() copy): a checksum
    /// mismatch may be a stale buffer checksum, so it is a warning.
    from_text: bool,
    /// Block 0 is a btree metapage: every page should be a btree page.
    btree_index: bool,
    /// The file the blocks came from, read again for a block whose checksum
    /// fails (a block being written while it was read is whole on a re-read).
    /// `None` for standard input and decoded text.
    reread: Option<&'a File>,
    /// A running cluster's start LSN: a block that still fails its checksum
    /// after the re-read, whose bytes differ between the two reads and whose
    /// pd_lsn is newer was written during the run, and is counted as changed
    /// rather than reported.
    start_lsn: Option<u64>,
    /// Gather each block's [`BlockFigures`] (the report wants them).
    figures: bool,
}

/// The checked blocks of one chunk: counts and the problems found, in order.
#[derive(Default)]
struct Outcome {
    /// Blocks checked (fewer than given when a problem cap stopped it).
    blocks: u64,
    zero_pages: u64,
    bad_blocks: u64,
    bad_checksums: u64,
    changed_during_run: u64,
    problems: Vec<VerifyProblem>,
    /// Each checked block's figures, when the context asks for them.
    figures: Vec<BlockFigures>,
}

impl Outcome {
    fn add_to(self, summary: &mut Summary, report: &mut dyn Report) -> Result<(), Error> {
        summary.blocks += self.blocks;
        summary.zero_pages += self.zero_pages;
        summary.bad_blocks += self.bad_blocks;
        summary.bad_checksums += self.bad_checksums;
        summary.changed_during_run += self.changed_during_run;
        for p in &self.problems {
            if p.severity > Severity::Info {
                *summary
                    .problems_by_class
                    .entry(p.class.as_str())
                    .or_default() += 1;
            }
            report.problem(p).map_err(report_error)?;
        }
        for f in &self.figures {
            report.block(f).map_err(report_error)?;
        }
        Ok(())
    }
}

pub(super) fn report_error(source: io::Error) -> Error {
    Error::Io {
        path: PathBuf::from("<stdout>"),
        source,
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Verify `inputs` (files, directories, or `-` / nothing for standard input).
pub fn run(
    inputs: &[PathBuf],
    opts: &VerifyOptions,
    report: &mut dyn Report,
) -> Result<Summary, Error> {
    let mut summary = Summary::default();
    if opts.evidence {
        summary.provenance = Some(Provenance {
            blockscope: env!("CARGO_PKG_VERSION").to_string(),
            ..Provenance::default()
        });
    }
    let key_types = match &opts.key_columns {
        Some(list) => Some(
            crate::parse::postgres::schema::parse_columns(list)
                .and_then(|s| crate::parse::postgres::amcheck::key_types(&s))
                .map_err(|e| Error::Usage(format!("--columns: {e}")))?,
        ),
        None => None,
    };
    summary.deep = opts.deep;
    let mut control_path = None;
    let targets = collect_targets(inputs, opts, &mut summary.skipped, &mut control_path)?;
    let control = control_path.map(|path| read_control(&path));
    let trusted = control.as_ref().and_then(|(_, c)| c.as_ref().ok());

    // Standard input's first window is read ahead: its pages announce their size.
    let mut stdin_head = None;
    if targets.contains(&Target::Stdin) {
        stdin_head = Some(read_stdin_head(
            opts.block_size
                .or_else(|| trusted.map(|c| c.blcksz as usize)),
        )?);
    }
    let block_size = opts
        .block_size
        .or_else(|| trusted.map(|c| c.blcksz as usize))
        .or_else(|| match &stdin_head {
            Some(head) => head.announced,
            None => announced_block_size(&targets),
        })
        .unwrap_or(DEFAULT_BLOCK_SIZE);
    if !(1024..=32768).contains(&block_size) || !block_size.is_power_of_two() {
        return Err(Error::Usage(format!(
            "block size {block_size} is not one PostgreSQL supports (1024 to 32768, a power of two)"
        )));
    }
    let segment_bytes = opts
        .segment_bytes
        .or_else(|| trusted.map(|c| u64::from(c.relseg_size) * u64::from(c.blcksz)))
        .unwrap_or(DEFAULT_SEGMENT_BYTES);
    if segment_bytes == 0 || !segment_bytes.is_multiple_of(block_size as u64) {
        return Err(Error::Usage(format!(
            "{}segment size {segment_bytes} is not a whole number of {block_size}-byte blocks",
            if opts.segment_bytes.is_some() {
                "--segment-size: "
            } else {
                ""
            }
        )));
    }
    let blocks_per_segment = segment_bytes / block_size as u64;
    if blocks_per_segment > MAX_BLOCK_NUMBER + 1 {
        return Err(Error::Usage(format!(
            "segment size {segment_bytes} is more than {} blocks of {block_size} bytes (block \
             numbers are 32-bit)",
            MAX_BLOCK_NUMBER + 1
        )));
    }
    if let Some(n) = opts.segment {
        first_blkno_of_segment(n, block_size, segment_bytes)
            .map_err(|e| Error::Usage(format!("--segment: {e}")))?;
    }
    summary.block_size = block_size;
    summary.blocks_per_segment = blocks_per_segment;
    summary.pg_control = control.as_ref().map(|(file, c)| control_summary(file, c));
    // A running cluster: its checkpoint's REDO location, read now, is the
    // run's start LSN — every block written since has a newer pd_lsn.
    let start_lsn = trusted.filter(|c| c.running()).map(|c| c.checkpoint_redo);
    if let Some(lsn) = start_lsn {
        summary.cluster_running = true;
        summary.start_lsn = Some(lsn_text(lsn));
    }

    for s in &summary.skipped {
        report.skipped(s).map_err(report_error)?;
    }
    report.started(
        targets
            .iter()
            .filter_map(|t| match t {
                Target::File { path, .. } => fs::metadata(path).ok().map(|m| m.len()),
                _ => None,
            })
            .sum(),
    );

    let verdict = match opts.checksums {
        ChecksumMode::On => ChecksumVerdict {
            enabled: true,
            reason: "--checksums on".to_string(),
        },
        ChecksumMode::Off => ChecksumVerdict {
            enabled: false,
            reason: "--checksums off".to_string(),
        },
        ChecksumMode::Auto => {
            let from_control = trusted.and_then(|c| match c.data_checksum_version {
                0 | 1 => Some(ChecksumVerdict {
                    enabled: c.data_checksum_version == 1,
                    reason: format!(
                        "pg_control: data_checksum_version {}",
                        c.data_checksum_version
                    ),
                }),
                // In-progress states of newer releases: let the pages decide.
                _ => None,
            });
            if let Some(verdict) = from_control {
                verdict
            } else if let Some(head) = &stdin_head {
                probe_stdin_head(&head.bytes, block_size)
            } else {
                probe_files(&targets, block_size, blocks_per_segment)?
            }
        }
    };
    let checksums = verdict.enabled;
    summary.checksums = Some(verdict);

    let mut bytes_seen = 0u64;
    for target in &targets {
        match target {
            Target::File {
                path,
                segment,
                walked,
            } => {
                // A `.N` suffix past the last block number: its blocks have
                // no number to check a checksum with.
                let first_blkno = match first_blkno_of_segment(*segment, block_size, segment_bytes)
                {
                    Ok(first) => first,
                    Err(why) => {
                        let problem = io_problem(&file_name(path), 0, 0, "file", why);
                        add_io_problem(problem, &mut summary, report)?;
                        continue;
                    }
                };
                let before = summary.problems_by_class.get("not-pages").copied();
                bytes_seen += check_relation_file(
                    path,
                    *walked,
                    first_blkno,
                    block_size,
                    checksums,
                    start_lsn,
                    &mut summary,
                    report,
                )?;
                let not_pages = summary.problems_by_class.get("not-pages").copied() != before;
                if opts.deep && !not_pages {
                    let deep = super::deep::Deep {
                        key_types: key_types.as_deref(),
                        control: trusted,
                    };
                    deep_file(path, first_blkno, block_size, &deep, &mut summary, report)?;
                }
            }
            Target::Unreadable { path, reason } => {
                let problem = io_problem(&file_name(path), 0, 0, "file", reason.clone());
                add_io_problem(problem, &mut summary, report)?;
            }
            Target::Stdin => {
                let ctx = BlockContext {
                    file: "-",
                    block_size,
                    first_blkno: opts.segment.unwrap_or(0).saturating_mul(blocks_per_segment),
                    checksums,
                    from_text: false,
                    btree_index: false,
                    reread: None,
                    start_lsn: None,
                    figures: report.wants_blocks(),
                };
                let head = match stdin_head.take() {
                    Some(head) => head,
                    None => read_stdin_head(Some(block_size))?,
                };
                let mut hash = summary.provenance.is_some().then(Sha256::new);
                let size = check_stdin(head, &ctx, &mut summary, report, &mut hash)?;
                bytes_seen += size;
                summary.files += 1;
                if let Some(p) = summary.provenance.as_mut() {
                    p.inputs.push(ProvenanceInput {
                        bytes_read: None,
                        path: "-".to_string(),
                        size,
                        mtime: None,
                        sha256: hash.map(hex_digest),
                    });
                }
            }
        }
    }
    if summary.blocks == 0
        && !summary.problems_by_class.contains_key("io")
        && !summary.problems_by_class.contains_key("not-pages")
    {
        // Nothing was read: never a clean verdict.
        let hint = if opts.block_size.is_some() {
            " (is --block-size right?)"
        } else {
            ""
        };
        summary.nothing_verified = Some(if targets == [Target::Stdin] && bytes_seen == 0 {
            "standard input is empty: nothing was verified".to_string()
        } else {
            format!(
                "no whole {block_size}-byte block in the input{} ({bytes_seen} bytes in {} \
                 file{}): nothing was verified{hint}",
                if summary.files == 1 { "" } else { "s" },
                summary.files,
                if summary.files == 1 { "" } else { "s" },
            )
        });
    }
    Ok(summary)
}

/// `--deep` over one relation file: its findings reported after its
/// blocks' own, and each block with a warning or error counted once.
fn deep_file(
    path: &Path,
    first_blkno: u64,
    block_size: usize,
    deep: &super::deep::Deep,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<(), Error> {
    let name = file_name(path);
    let mut last_bad = None;
    super::deep::check_file(
        path,
        first_blkno,
        block_size,
        deep,
        &mut |blkno, problem| {
            let file_offset = blkno.saturating_sub(first_blkno) * block_size as u64;
            let p = VerifyProblem::from_problem(&name, blkno, file_offset, problem);
            if p.severity > Severity::Info {
                *summary
                    .problems_by_class
                    .entry(p.class.as_str())
                    .or_default() += 1;
                if last_bad != Some(blkno) {
                    last_bad = Some(blkno);
                    summary.deep_bad_blocks += 1;
                }
            } else if p.class == ProblemClass::FreeSpaceMap {
                summary.free_space_map_drift += 1;
            }
            report.problem(&p).map_err(report_error)
        },
    )
}

/// A problem of class `io`: something that could not be read.
fn io_problem(
    file: &str,
    blkno: u64,
    file_offset: u64,
    field: &str,
    message: String,
) -> VerifyProblem {
    VerifyProblem {
        file: file.to_string(),
        blkno,
        offset: None,
        file_offset,
        field: field.to_string(),
        class: ProblemClass::Io,
        severity: Severity::Error,
        message,
    }
}

fn add_io_problem(
    problem: VerifyProblem,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<(), Error> {
    *summary.problems_by_class.entry("io").or_default() += 1;
    report.problem(&problem).map_err(report_error)
}

/// Why `path` could not be looked at or opened.
pub(crate) fn unreadable(path: &Path, e: &io::Error) -> String {
    let link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if link && e.kind() == io::ErrorKind::NotFound {
        let to = fs::read_link(path)
            .map(|t| file_name(&t))
            .unwrap_or_default();
        return format!("not read: a symbolic link to {to}, which does not exist ({e})");
    }
    format!("not read: {e}")
}

/// `path` is gone (not a dangling symbolic link: that is damage to report).
fn removed(path: &Path, e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound && fs::symlink_metadata(path).is_err()
}

/// What a file that is neither a directory nor a regular file is.
fn special_kind(meta: &fs::Metadata) -> Option<&'static str> {
    if meta.is_dir() {
        return None;
    }
    crate::source::not_regular_kind(&meta.file_type())
}

fn is_block_device(meta: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        meta.file_type().is_block_device()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// Bytes in an opened input: its size, or for a block device its end.
pub(super) fn input_len(file: &File, meta: &fs::Metadata) -> io::Result<u64> {
    if is_block_device(meta) {
        use std::io::{Seek, SeekFrom};
        let mut f = file;
        return f.seek(SeekFrom::End(0));
    }
    Ok(meta.len())
}

/// One relation file: opened, its kind noted (a btree index if block 0 is
/// its metapage), and every block checked; the bytes it held. A file that
/// cannot be opened, or a block that cannot be read, is a problem of class
/// `io` and the run goes on.
#[allow(clippy::too_many_arguments)]
fn check_relation_file(
    path: &Path,
    walked: bool,
    first_blkno: u64,
    block_size: usize,
    checksums: bool,
    start_lsn: Option<u64>,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<u64, Error> {
    let name = file_name(path);
    let opened = fs::metadata(path).and_then(|meta| {
        if let Some(kind) = special_kind(&meta).filter(|_| !is_block_device(&meta)) {
            // Changed under us since the inputs were listed: never opened.
            return Err(io::Error::other(format!("{kind}, not a regular file")));
        }
        let file = open_file(path)?;
        if let Some(fs) = crate::source::pseudo_file_system(&file) {
            // /proc/self/mem and the like: "regular", size 0, never a relation.
            return Err(io::Error::other(format!(
                "a file of the kernel's {fs} file system, not a relation file"
            )));
        }
        let len = input_len(&file, &meta)?;
        Ok((file, len, meta.modified().ok()))
    });
    let (file, len, mtime) = match opened {
        Ok(x) => x,
        Err(e) if start_lsn.is_some() && removed(path, &e) => {
            // A running cluster drops files (a table truncated or rewritten,
            // its old files unlinked at the next checkpoint) between the
            // listing and the open: as pg_basebackup, not a failure.
            summary.skipped.push(Skipped {
                file: name,
                reason: "removed while the run went on (the cluster is running)".to_string(),
                bookkeeping: false,
            });
            return Ok(0);
        }
        Err(e) => {
            let problem = io_problem(&name, first_blkno, 0, "file", unreadable(path, &e));
            add_io_problem(problem, summary, report)?;
            return Ok(0);
        }
    };
    summary.files += 1;
    let mut hash = summary.provenance.is_some().then(Sha256::new);
    let size = check_relation_blocks(
        path,
        walked,
        &file,
        len,
        first_blkno,
        block_size,
        checksums,
        start_lsn,
        summary,
        report,
        &mut hash,
    )?;
    if let Some(p) = summary.provenance.as_mut() {
        p.inputs.push(ProvenanceInput {
            bytes_read: None,
            path: name,
            size: len,
            mtime: mtime.map(super::rfc3339_utc),
            sha256: hash.map(hex_digest),
        });
    }
    Ok(size)
}

/// The blocks of an opened relation file, `len` bytes; `hash` fed with
/// every byte read, in file order.
#[allow(clippy::too_many_arguments)]
fn check_relation_blocks(
    path: &Path,
    walked: bool,
    file: &File,
    len: u64,
    first_blkno: u64,
    block_size: usize,
    checksums: bool,
    start_lsn: Option<u64>,
    summary: &mut Summary,
    report: &mut dyn Report,
    hash: &mut Option<Sha256>,
) -> Result<u64, Error> {
    let name = file_name(path);
    let mut ctx = BlockContext {
        file: &name,
        block_size,
        first_blkno,
        checksums,
        from_text: false,
        btree_index: false,
        reread: None,
        start_lsn: None,
        figures: report.wants_blocks(),
    };
    if walked {
        if let Some(what) = not_pages(file, len, block_size) {
            // Not read to its end: no digest.
            *hash = None;
            let problem = VerifyProblem {
                file: name.clone(),
                blkno: first_blkno,
                offset: None,
                file_offset: 0,
                field: "file".to_string(),
                class: ProblemClass::NotPages,
                severity: Severity::Error,
                message: format!(
                    "not pages: none of its {} whole {block_size}-byte blocks is a PostgreSQL \
                     page (none announces a {block_size}-byte page of layout version 4, none is \
                     all zeros); {what}; not checked block by block",
                    len / block_size as u64
                ),
            };
            *summary.problems_by_class.entry("not-pages").or_default() += 1;
            report.problem(&problem).map_err(report_error)?;
            return Ok(len);
        }
    } else if let Some((data, blknos)) = text_pages(path, file, len, block_size, hash)? {
        return check_decoded(&data, &blknos, &ctx, summary, report);
    }
    ctx.reread = Some(file);
    ctx.start_lsn = start_lsn;
    if first_blkno == 0 && len >= block_size as u64 {
        let mut page = vec![0u8; block_size];
        // An unreadable block 0 is reported when the blocks are read.
        if read_at(file, &mut page, 0).is_ok() {
            ctx.btree_index = is_btree_metapage(&page, detect_endian(&page));
        }
    }
    check_file(file, len, &ctx, summary, report, hash)?;
    // A file that grew or shrank while it was read (a live cluster, a
    // file being copied): what was checked is not all of it.
    let now = file
        .metadata()
        .and_then(|meta| input_len(file, &meta))
        .unwrap_or(len);
    if now != len && start_lsn.is_some() {
        // A running cluster extends and truncates relations as it works (as
        // pg_basebackup, take it as it comes): noted, not a failure.
        let mut problem = io_problem(
            &name,
            first_blkno,
            0,
            "file size",
            format!(
                "the file changed size while it was read, as files of a running cluster do: \
                 {len} bytes when opened, {now} bytes after; blocks past {} bytes were not all \
                 checked",
                len.min(now)
            ),
        );
        problem.severity = Severity::Info;
        summary.resized_during_run += 1;
        report.problem(&problem).map_err(report_error)?;
    } else if now != len {
        let problem = io_problem(
            &name,
            first_blkno,
            0,
            "file size",
            format!(
                "the file changed size while it was read: {len} bytes when opened, {now} bytes \
                 after; blocks past {} bytes were not all checked",
                len.min(now)
            ),
        );
        add_io_problem(problem, summary, report)?;
    }
    Ok(len)
}

/// Inputs → files to check, in order; directories walked, non-relation files noted.
fn collect_targets(
    inputs: &[PathBuf],
    opts: &VerifyOptions,
    skipped: &mut Vec<Skipped>,
    control: &mut Option<PathBuf>,
) -> Result<Vec<Target>, Error> {
    let stdin_named = inputs.iter().any(|p| p.as_os_str() == "-");
    if inputs.is_empty() || stdin_named {
        if inputs.len() > 1 {
            return Err(Error::Usage(
                "standard input (-) cannot be verified together with other inputs".to_string(),
            ));
        }
        return Ok(vec![Target::Stdin]);
    }
    let mut targets = Vec::new();
    let mut seen = Seen::default();
    for input in inputs {
        let meta = match fs::metadata(input) {
            Ok(meta) => meta,
            // A name that does not exist at all is a mistake on the command
            // line; one that exists but cannot be read is a finding.
            Err(e) if fs::symlink_metadata(input).is_err() => {
                return Err(io_error(input)(e));
            }
            Err(e) => {
                targets.push(Target::Unreadable {
                    path: input.clone(),
                    reason: unreadable(input, &e),
                });
                continue;
            }
        };
        if meta.is_dir() {
            walk(input, &mut targets, skipped, control, &mut seen)?;
        } else if let Some(kind) = special_kind(&meta).filter(|_| !is_block_device(&meta)) {
            return Err(Error::Usage(format!(
                "{}: {kind}, not a relation file: verify reads regular files and block devices \
                 (give a stream on standard input, `-`, instead)",
                file_name(input)
            )));
        } else {
            let segment = opts
                .segment
                .or_else(|| segment_from_name(input))
                .unwrap_or(0);
            targets.push(Target::File {
                path: input.clone(),
                segment,
                walked: false,
            });
        }
    }
    if targets.is_empty() {
        return Err(Error::Usage(format!(
            "no relation files to verify ({} other files passed over)",
            skipped.len()
        )));
    }
    if opts.segment.is_some() && (inputs.len() != 1 || targets.len() != 1) {
        return Err(Error::Usage(
            "--segment applies to a single relation file; give one file, or let the .N suffix of each name say"
                .to_string(),
        ));
    }
    Ok(targets)
}

/// A data directory's pg_control, read and checked (see [`parse_control_file`]).
fn read_control(path: &Path) -> (String, Result<ControlFile, String>) {
    let file = file_name(path);
    let parsed = open_file(path)
        .and_then(|mut f| {
            let mut bytes = Vec::new();
            // pg_control is one 8 KiB file: read no more than a block can be.
            (&mut f).take(1 << 16).read_to_end(&mut bytes)?;
            Ok(bytes)
        })
        .map_err(|e| format!("cannot read it: {e}"))
        .and_then(|bytes| parse_control_file(&bytes));
    (file, parsed)
}

fn control_summary(file: &str, control: &Result<ControlFile, String>) -> PgControlSummary {
    match control {
        Ok(c) => PgControlSummary {
            file: file.to_string(),
            used: true,
            state: Some(c.state_name().to_string()),
            shut_down: Some(c.shut_down()),
            data_checksum_version: Some(c.data_checksum_version),
            block_size: Some(c.blcksz),
            blocks_per_segment: Some(c.relseg_size),
            error: None,
        },
        Err(e) => PgControlSummary {
            file: file.to_string(),
            used: false,
            state: None,
            shut_down: None,
            data_checksum_version: None,
            block_size: None,
            blocks_per_segment: None,
            error: Some(e.clone()),
        },
    }
}

/// Directories of a data directory that hold relation files.
const RELATION_DIRS: [&str; 3] = ["base", "global", "pg_tblspc"];

/// What the walk has visited: every directory and file by device and inode,
/// so that links (`d/a → .`, `d/b → .`, two names of one file) are followed
/// into each directory and to each file once.
#[derive(Default)]
struct Seen(std::collections::HashSet<(u64, u64)>);

impl Seen {
    /// True the first time `meta`'s file is met.
    fn first(&mut self, meta: &fs::Metadata) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            self.0.insert((meta.dev(), meta.ino()))
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            true
        }
    }
}

/// The names in `dir`, read without changing its access time; a directory
/// that cannot be read is an unreadable target, and `None`.
fn dir_names(dir: &Path, targets: &mut Vec<Target>) -> Option<Vec<std::ffi::OsString>> {
    match crate::source::read_dir_names(dir) {
        Ok(names) => Some(names),
        Err(e) => {
            targets.push(Target::Unreadable {
                path: dir.to_path_buf(),
                reason: format!("directory {}", unreadable(dir, &e)),
            });
            None
        }
    }
}

/// Walk `dir` for relation files. A data directory (it has `PG_VERSION` and
/// `base/`; `global/` may be lost, as in a partial copy) is only walked in its
/// relation directories — never into pg_xact, pg_multixact or pg_wal, whose
/// files are not pages — and its `global/pg_control` is noted in `control`
/// (the first one found).
fn walk(
    dir: &Path,
    targets: &mut Vec<Target>,
    skipped: &mut Vec<Skipped>,
    control: &mut Option<PathBuf>,
    seen: &mut Seen,
) -> Result<(), Error> {
    let is_data_dir = dir.join("PG_VERSION").is_file() && dir.join("base").is_dir();
    if is_data_dir {
        if let Ok(meta) = fs::metadata(dir) {
            // A link back to the data directory is not walked again.
            seen.first(&meta);
        }
        let pg_control = dir.join("global").join("pg_control");
        if control.is_none() && pg_control.is_file() {
            *control = Some(pg_control);
        }
        let major = major_version(dir);
        for sub in RELATION_DIRS {
            let d = dir.join(sub);
            if d.is_dir() {
                if sub == "pg_tblspc" {
                    walk_tablespaces(&d, major.as_deref(), targets, skipped, seen)?;
                } else {
                    walk_relations(&d, targets, skipped, seen)?;
                }
            }
        }
        return Ok(());
    }
    if dir.file_name().is_some_and(|n| n == "pg_tblspc") {
        let major = dir.parent().and_then(major_version);
        return walk_tablespaces(dir, major.as_deref(), targets, skipped, seen);
    }
    walk_relations(dir, targets, skipped, seen)
}

/// The major version in a data directory's PG_VERSION (`15`), read as a
/// regular file of at most a few bytes.
fn major_version(dir: &Path) -> Option<String> {
    let mut text = String::new();
    crate::source::open_regular(&dir.join("PG_VERSION"))
        .ok()?
        .take(16)
        .read_to_string(&mut text)
        .ok()?;
    let v = text.trim();
    (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')).then(|| v.to_string())
}

/// `pg_tblspc`: each entry is a link to a tablespace's location, of which
/// only the cluster's own `PG_<major>_<catversion>` directories hold its
/// relations; nothing else there is walked (a link to `/` must not walk the
/// machine). `major`: the cluster's, when PG_VERSION said; else any `PG_*`.
fn walk_tablespaces(
    dir: &Path,
    major: Option<&str>,
    targets: &mut Vec<Target>,
    skipped: &mut Vec<Skipped>,
    seen: &mut Seen,
) -> Result<(), Error> {
    let Some(mut names) = dir_names(dir, targets) else {
        return Ok(());
    };
    names.sort_by_key(|n| {
        let n = n.to_string_lossy().into_owned();
        (n.parse::<u64>().ok().is_none(), n.parse::<u64>().ok(), n)
    });
    let prefix = match major {
        Some(m) => format!("PG_{m}_"),
        None => "PG_".to_string(),
    };
    for name in names {
        let link = dir.join(&name);
        let meta = match fs::metadata(&link) {
            Ok(meta) => meta,
            Err(e) => {
                let reason = unreadable(&link, &e);
                targets.push(Target::Unreadable { path: link, reason });
                continue;
            }
        };
        if !meta.is_dir() {
            skipped.push(Skipped {
                file: file_name(&link),
                reason: "not a directory: not a tablespace".to_string(),
                bookkeeping: false,
            });
            continue;
        }
        if !seen.first(&meta) {
            skipped.push(Skipped {
                file: file_name(&link),
                reason: "a directory already walked (a link to it was followed before)".to_string(),
                bookkeeping: false,
            });
            continue;
        }
        let mut versions: Vec<PathBuf> = match crate::source::read_dir_names(&link) {
            Ok(names) => names
                .into_iter()
                .filter(|n| n.to_str().is_some_and(|n| n.starts_with(&prefix)))
                .map(|n| link.join(n))
                .filter(|p| p.is_dir())
                .collect(),
            Err(e) => {
                targets.push(Target::Unreadable {
                    path: link.clone(),
                    reason: format!("directory {}", unreadable(&link, &e)),
                });
                continue;
            }
        };
        if versions.is_empty() {
            skipped.push(Skipped {
                file: file_name(&link),
                reason: format!(
                    "no {prefix}* directory in it: not a tablespace of this cluster, not walked"
                ),
                bookkeeping: false,
            });
            continue;
        }
        versions.sort();
        for v in versions {
            walk_relations(&v, targets, skipped, seen)?;
        }
    }
    Ok(())
}

/// Every relation file under `dir` (following links, each directory and
/// file once), sorted by relfilenode, fork and segment; other files noted
/// as skipped. A relation file that is not a regular file (a FIFO, a
/// device) is an `io` problem: the relation's bytes are not there.
fn walk_relations(
    dir: &Path,
    targets: &mut Vec<Target>,
    skipped: &mut Vec<Skipped>,
    seen: &mut Seen,
) -> Result<(), Error> {
    if let Ok(meta) = fs::metadata(dir) {
        // The walk's first directory (later ones are marked when listed).
        seen.first(&meta);
    }
    let mut files: Vec<(RelationFileName, PathBuf)> = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut others: Vec<PathBuf> = Vec::new();
    let mut special: Vec<(PathBuf, &'static str)> = Vec::new();
    let mut again: Vec<(PathBuf, &'static str)> = Vec::new();
    let mut unreadable_entries: Vec<Target> = Vec::new();
    let Some(mut names) = dir_names(dir, targets) else {
        return Ok(());
    };
    // Real entries before links, each group by name: of two names of one
    // file or directory, the link is the one passed over.
    names.sort_by_cached_key(|n| {
        let link = fs::symlink_metadata(dir.join(n)).is_ok_and(|m| m.file_type().is_symlink());
        (link, n.clone())
    });
    for entry in names {
        let path = dir.join(&entry);
        let meta = match fs::metadata(&path) {
            Ok(meta) => meta,
            Err(e) => {
                let reason = unreadable(&path, &e);
                unreadable_entries.push(Target::Unreadable { path, reason });
                continue;
            }
        };
        let name = entry.to_string_lossy().into_owned();
        if let Some(kind) = special_kind(&meta) {
            if RelationFileName::parse(&name).is_some() {
                // Named as a relation, but its bytes are not a file's:
                // never opened (a FIFO would block, a device never end).
                unreadable_entries.push(Target::Unreadable {
                    path,
                    reason: format!("not read: {kind}, not a regular file"),
                });
            } else {
                special.push((path, kind));
            }
        } else if !seen.first(&meta) {
            again.push((
                path,
                if meta.is_dir() {
                    "a directory already walked (a link to it was followed before)"
                } else {
                    "a file already listed under another name (a link to it)"
                },
            ));
        } else if meta.is_dir() {
            if name == "pgsql_tmp" {
                skipped.push(Skipped {
                    file: file_name(&path),
                    reason: "temporary files directory".to_string(),
                    bookkeeping: true,
                });
            } else {
                dirs.push(path);
            }
        } else if let Some(rel) = RelationFileName::parse(&name) {
            files.push((rel, path));
        } else {
            others.push(path);
        }
    }
    files.sort();
    others.sort();
    special.sort();
    again.sort();
    unreadable_entries.sort_by(|a, b| match (a, b) {
        (Target::Unreadable { path: a, .. }, Target::Unreadable { path: b, .. }) => a.cmp(b),
        _ => std::cmp::Ordering::Equal,
    });
    // Numeric directory names (database OIDs, tablespace OIDs) in numeric order.
    dirs.sort_by_key(|d| {
        let name = d.file_name().map(|n| n.to_string_lossy().into_owned());
        let num = name.as_deref().and_then(|n| n.parse::<u64>().ok());
        (num.is_none(), num, name)
    });
    for (rel, path) in files {
        targets.push(Target::File {
            path,
            segment: rel.segment.unwrap_or(0),
            walked: true,
        });
    }
    targets.extend(unreadable_entries);
    for (path, kind) in special {
        skipped.push(Skipped {
            file: file_name(&path),
            reason: format!("{kind}, not a regular file: not opened"),
            bookkeeping: false,
        });
    }
    for (path, reason) in again {
        skipped.push(Skipped {
            file: file_name(&path),
            reason: reason.to_string(),
            bookkeeping: false,
        });
    }
    for path in others {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let (reason, bookkeeping) = match name.as_deref() {
            Some("pg_control") => (
                "the control file, not a relation (read for block size, segment size and checksums)",
                true,
            ),
            Some("PG_VERSION" | "pg_filenode.map" | "pg_internal.init") => (
                "PostgreSQL bookkeeping file, not a relation (pg_checksums skips it too)",
                true,
            ),
            Some(n) if is_temp_relation(n) => {
                ("temporary relation (pg_checksums skips these too)", true)
            }
            _ => ("not a relation file", false),
        };
        skipped.push(Skipped {
            file: file_name(&path),
            reason: reason.to_string(),
            bookkeeping,
        });
    }
    for d in dirs {
        if d.file_name().is_some_and(|n| n == "pg_tblspc") {
            // A data directory reached through a link: its tablespaces too
            // are only followed into their version directories.
            let major = d.parent().and_then(major_version);
            walk_tablespaces(&d, major.as_deref(), targets, skipped, seen)?;
        } else {
            walk_relations(&d, targets, skipped, seen)?;
        }
    }
    Ok(())
}

/// `t3_16385`, `t3_16385.1`: a temporary relation of backend 3.
fn is_temp_relation(name: &str) -> bool {
    name.strip_prefix('t')
        .and_then(|rest| rest.split_once('_'))
        .is_some_and(|(backend, rel)| {
            !backend.is_empty()
                && backend.bytes().all(|b| b.is_ascii_digit())
                && RelationFileName::parse(rel).is_some()
        })
}

/// A SHA-256 digest in lower-case hex.
fn hex_digest(hash: Sha256) -> String {
    let mut out = String::with_capacity(64);
    for b in hash.finalize() {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Read from `reader` until `buf` is full or the input ends.
fn read_full(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match reader.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// pd_lsn of a page image as one 64-bit LSN (0 without a header).
fn pd_lsn(page: &[u8]) -> u64 {
    let r = Reader::new(page, detect_endian(page));
    let half = |at| u64::from(r.peek_u32(at, "pd_lsn").unwrap_or(0));
    half(0) << 32 | half(4)
}

/// An LSN as PostgreSQL prints it, `%X/%X`.
fn lsn_text(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn as u32)
}

/// pd_checksum of a page image, if it has a header.
fn stored_checksum(page: &[u8]) -> Option<u16> {
    Reader::new(page, detect_endian(page))
        .peek_u16(8, "pd_checksum")
        .ok()
}

/// `--checksums auto` over files: the first written page with a non-zero
/// pd_checksum, probing headers in file order.
fn probe_files(
    targets: &[Target],
    block_size: usize,
    blocks_per_segment: u64,
) -> Result<ChecksumVerdict, Error> {
    let saw_tli = std::sync::atomic::AtomicBool::new(false);
    for target in targets {
        let Target::File {
            path,
            segment,
            walked,
        } = target
        else {
            continue;
        };
        // Unreadable files are reported when their blocks are read.
        let Ok(file) = open_file(path) else {
            continue;
        };
        let Ok(len) = file.metadata().and_then(|m| input_len(&file, &m)) else {
            continue;
        };
        // A file found in a walk is raw pages or not pages.
        let text = if *walked {
            None
        } else {
            text_pages(path, &file, len, block_size, &mut None)?
        };
        if let Some((data, _)) = text {
            // A text dump of pages: its decoded pages decide.
            if let Some(i) = data
                .chunks_exact(block_size)
                .position(|page| stored_checksum(page).is_some_and(|c| c != 0))
            {
                return Ok(ChecksumVerdict {
                    enabled: true,
                    reason: format!(
                        "auto: page {i} of {} (a text dump) has pd_checksum set",
                        file_name(path)
                    ),
                });
            }
            continue;
        }
        let blocks = len / block_size as u64;
        let has_checksum = |block: u64| -> io::Result<bool> {
            let mut head = [0u8; SIZE_OF_PAGE_HEADER];
            let Ok(n) = read_at(&file, &mut head, block * block_size as u64) else {
                return Ok(false);
            };
            let stored = match stored_checksum(&head) {
                Some(c) if n == head.len() && c != 0 => c,
                _ => return Ok(false),
            };
            if stored > crate::model::postgres::PD_TLI_MAX {
                return Ok(true);
            }
            // A small value may be pd_tli, the timeline pages written before
            // PostgreSQL 9.3 hold there: evidence of checksums only if it is one.
            let mut page = vec![0u8; block_size];
            let Ok(n) = read_at(&file, &mut page, block * block_size as u64) else {
                return Ok(false);
            };
            let blkno = segment.saturating_mul(blocks_per_segment) + block;
            let valid = n == block_size
                && pg_checksum_page(&page, blkno, detect_endian(&page)) == Some(stored);
            if !valid {
                saw_tli.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(valid)
        };
        let mut found = None;
        for block in 0..blocks.min(PROBE_SEQUENTIAL) {
            if has_checksum(block).map_err(io_error(path))? {
                found = Some(block);
                break;
            }
        }
        if found.is_none() && blocks > PROBE_SEQUENTIAL {
            found = (PROBE_SEQUENTIAL..blocks)
                .into_par_iter()
                .map(|b| has_checksum(b).map(|yes| yes.then_some(b)))
                .find_first(|r| !matches!(r, Ok(None)))
                .transpose()
                .map_err(io_error(path))?
                .flatten();
        }
        if let Some(block) = found {
            return Ok(ChecksumVerdict {
                enabled: true,
                reason: format!(
                    "auto: block {} of {} has pd_checksum set",
                    segment.saturating_mul(blocks_per_segment) + block,
                    file_name(path)
                ),
            });
        }
    }
    if saw_tli.load(std::sync::atomic::Ordering::Relaxed) {
        return Ok(ChecksumVerdict {
            enabled: false,
            reason: "auto: no written page has a checksum; small values that fail it are \
                     pd_tli, the timeline pages written before PostgreSQL 9.3 hold there"
                .to_string(),
        });
    }
    Ok(ChecksumVerdict {
        enabled: false,
        reason: "auto: no written page has pd_checksum set, as in a cluster without data checksums"
            .to_string(),
    })
}

/// The first chunk of standard input, read ahead to decide `--checksums auto`.
fn read_head(block_size: usize) -> Result<Vec<u8>, Error> {
    let mut head = vec![0u8; window_bytes(block_size)];
    let n = read_full(&mut crate::source::stdin(), &mut head).map_err(io_error(Path::new("-")))?;
    head.truncate(n);
    Ok(head)
}

/// Standard input's first window, or all of it decoded when it is text (hex,
/// bytea, base64, psql's or COPY's output: read as `show` reads it), with the
/// block numbers the text gave its pages.
struct StdinHead {
    bytes: Vec<u8>,
    /// Per block of `bytes`, when decoded from text.
    decoded: Option<Vec<Option<u64>>>,
    /// The page size the first pages announce (pd_pagesize_version), when
    /// no block size was given.
    announced: Option<usize>,
}

/// Standard input's first window; `block_size` when given (option or
/// pg_control), else read from the pages as `show` reads it.
fn read_stdin_head(block_size: Option<usize>) -> Result<StdinHead, Error> {
    let head = read_head(block_size.unwrap_or(DEFAULT_BLOCK_SIZE))?;
    if matches!(
        crate::input::detect(&head),
        InputFormat::Raw | InputFormat::OracleTrace
    ) {
        let announced = block_size.is_none().then(|| announced_in(&head)).flatten();
        return Ok(StdinHead {
            bytes: head,
            decoded: None,
            announced,
        });
    }
    let rest = Box::new(io::Cursor::new(head).chain(crate::source::stdin()));
    let mut source = Source::from_reader(PathBuf::from("-"), rest, InputFormat::Auto, block_size)?;
    source.detect_block_size(page_size_from_header);
    let announced = block_size.is_none().then_some(source.block_size);
    let (mut bytes, mut blknos) = (Vec::new(), Vec::new());
    for block in source.blocks() {
        let block = block?;
        bytes.extend_from_slice(&block.data);
        blknos.push(block.blkno);
    }
    Ok(StdinHead {
        bytes,
        decoded: Some(blknos),
        announced,
    })
}

/// Bytes read from the start of a file to find the page size its pages announce.
const ANNOUNCE_BYTES: usize = 256 << 10;

/// The page size announced in pd_pagesize_version by the first page of
/// `bytes` that announces one at an offset that is a multiple of the size
/// it announces (a new, all-zero block 0 announces nothing; the next
/// written page does) — the facts `show` reads, so a loose file of a
/// 16 KiB or 32 KiB cluster is cut as its pages say.
fn announced_in(bytes: &[u8]) -> Option<usize> {
    let end = bytes.len().min(ANNOUNCE_BYTES);
    (0..end).step_by(1024).find_map(|offset| {
        page_size_from_header(&bytes[offset..end]).filter(|size| offset % size == 0)
    })
}

/// The page size the first file among `targets` whose pages announce one
/// announces (raw or text dump); `None` when none does.
fn announced_block_size(targets: &[Target]) -> Option<usize> {
    targets.iter().find_map(|target| {
        let Target::File { path, walked, .. } = target else {
            return None;
        };
        let file = open_file(path).ok()?;
        let len = file.metadata().and_then(|m| input_len(&file, &m)).ok()?;
        if !walked {
            if let Ok(Some((data, _))) = text_pages(path, &file, len, DEFAULT_BLOCK_SIZE, &mut None)
            {
                return announced_in(&data);
            }
        }
        let mut head = vec![0u8; (len.min(ANNOUNCE_BYTES as u64)) as usize];
        let n = read_at(&file, &mut head, 0).ok()?;
        head.truncate(n);
        announced_in(&head)
    })
}

fn probe_stdin_head(head: &[u8], block_size: usize) -> ChecksumVerdict {
    let found = head
        .chunks_exact(block_size)
        .position(|page| stored_checksum(page).is_some_and(|c| c != 0));
    match found {
        Some(i) => ChecksumVerdict {
            enabled: true,
            reason: format!("auto: block {i} of standard input has pd_checksum set"),
        },
        None => ChecksumVerdict {
            enabled: false,
            reason: format!(
                "auto: no written page in the first {} blocks of standard input has pd_checksum set",
                head.len() / block_size
            ),
        },
    }
}

fn window_bytes(block_size: usize) -> usize {
    chunk_blocks(block_size) * block_size * WINDOW_CHUNKS
}

fn chunk_blocks(block_size: usize) -> usize {
    (CHUNK_BYTES / block_size).max(1)
}

thread_local! {
    /// Each worker's read buffer, reused from chunk to chunk.
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Every whole block of `file` (`len` bytes), a window of chunks at a time.
fn check_file(
    file: &File,
    len: u64,
    ctx: &BlockContext,
    summary: &mut Summary,
    report: &mut dyn Report,
    hash: &mut Option<Sha256>,
) -> Result<(), Error> {
    let keep = hash.is_some();
    let bs = ctx.block_size as u64;
    let whole = len / bs;
    let per_chunk = chunk_blocks(ctx.block_size) as u64;
    let chunks = whole.div_ceil(per_chunk);
    let mut next = 0u64;
    while next < chunks {
        let end = (next + WINDOW_CHUNKS as u64).min(chunks);
        // With `hash`, each chunk's bytes are kept until hashed in file order.
        type Checked = io::Result<(Outcome, Option<Vec<u8>>)>;
        let outcomes: Vec<(u64, Checked)> = (next..end)
            .into_par_iter()
            .map(|c| {
                let first = c * per_chunk;
                let count = per_chunk.min(whole - first) as usize;
                BUFFER.with(|buf| {
                    let mut buf = buf.borrow_mut();
                    buf.resize(count * ctx.block_size, 0);
                    let outcome = read_at(file, &mut buf, first * bs).map(|n| {
                        // A file that shrank while being read: check what was there.
                        let got = n - n % ctx.block_size;
                        let bytes = keep.then(|| buf[..n].to_vec());
                        (
                            check_blocks_upto(&buf[..got], first, ctx, CHUNK_PROBLEMS),
                            bytes,
                        )
                    });
                    (c, outcome)
                })
            })
            .collect();
        for (c, outcome) in outcomes {
            match outcome {
                Ok((outcome, bytes)) => {
                    if let (Some(h), Some(bytes)) = (hash.as_mut(), bytes) {
                        h.update(&bytes);
                    }
                    let first = c * per_chunk;
                    let count = per_chunk.min(whole - first);
                    let checked = outcome.blocks;
                    outcome.add_to(summary, report)?;
                    // Stopped by its problem cap: the rest one block at a time
                    // (already hashed with the chunk).
                    let rest = first + checked..first + count;
                    block_by_block(file, rest, ctx, summary, report, &mut None)?;
                    report.advanced(count * bs);
                }
                // Some block of the chunk cannot be read: block by block,
                // to report exactly which and check the others.
                Err(_) => {
                    let first = c * per_chunk;
                    let count = per_chunk.min(whole - first);
                    block_by_block(file, first..first + count, ctx, summary, report, hash)?;
                    report.advanced(count * bs);
                }
            }
        }
        next = end;
    }
    let tail = len % bs;
    if tail > 0 {
        if let Some(h) = hash.as_mut() {
            // Not checked, but read for the digest: all of the file's bytes.
            let mut rest = vec![0u8; tail as usize];
            match read_at(file, &mut rest, whole * bs) {
                Ok(n) => h.update(&rest[..n]),
                Err(_) => *hash = None,
            }
        }
        truncated(ctx, whole, len, tail, summary, report)?;
        report.advanced(tail);
    }
    Ok(())
}

/// Blocks `range` of `file` read and checked one at a time, each reported
/// at once: a block that cannot be read is an `io` problem (and the file then
/// has no digest); `hash` is fed with every byte read, in order.
fn block_by_block(
    file: &File,
    range: std::ops::Range<u64>,
    ctx: &BlockContext,
    summary: &mut Summary,
    report: &mut dyn Report,
    hash: &mut Option<Sha256>,
) -> Result<(), Error> {
    let bs = ctx.block_size as u64;
    let mut page = vec![0u8; ctx.block_size];
    for index in range {
        match read_at(file, &mut page, index * bs) {
            Ok(n) => {
                if let Some(h) = hash.as_mut() {
                    h.update(&page[..n]);
                }
                let got = n - n % ctx.block_size;
                check_blocks(&page[..got], index, ctx).add_to(summary, report)?;
            }
            Err(e) => {
                // Not all of the file was read: no digest of it.
                *hash = None;
                let problem = io_problem(
                    ctx.file,
                    ctx.first_blkno + index,
                    index * bs,
                    "block",
                    format!("the block cannot be read: {e}"),
                );
                add_io_problem(problem, summary, report)?;
                if ctx.figures {
                    let mut f = BlockFigures::empty(ctx.first_blkno + index, "unreadable");
                    f.errors = 1;
                    report.block(&f).map_err(report_error)?;
                }
            }
        }
    }
    Ok(())
}

/// Standard input, a window at a time (the first window already read as `head`).
fn check_stdin(
    head: StdinHead,
    ctx: &BlockContext,
    summary: &mut Summary,
    report: &mut dyn Report,
    hash: &mut Option<Sha256>,
) -> Result<u64, Error> {
    let bs = ctx.block_size;
    if let Some(blknos) = head.decoded {
        // The text was read by the dump decoder: no digest of it.
        *hash = None;
        return check_decoded(&head.bytes, &blknos, ctx, summary, report);
    }
    let head = head.bytes;
    let per_chunk = chunk_blocks(bs) * bs;
    let full = window_bytes(bs);
    let mut stdin = crate::source::stdin();
    let mut index = 0u64;
    let mut total = 0u64;
    // The head, when there is one, is the first window; the buffer is reused.
    let mut have_window = !head.is_empty();
    let mut window = head;
    loop {
        if !have_window {
            window.resize(full, 0);
            let n = read_full(&mut stdin, &mut window).map_err(io_error(Path::new("-")))?;
            window.truncate(n);
        }
        have_window = false;
        let len = window.len();
        total += len as u64;
        if let Some(h) = hash.as_mut() {
            h.update(&window);
        }
        let whole = len - len % bs;
        let outcomes: Vec<Outcome> = window[..whole]
            .par_chunks(per_chunk)
            .enumerate()
            .map(|(i, chunk)| {
                check_blocks_upto(
                    chunk,
                    index + (i * per_chunk / bs) as u64,
                    ctx,
                    CHUNK_PROBLEMS,
                )
            })
            .collect();
        for (i, outcome) in outcomes.into_iter().enumerate() {
            let chunk = &window[i * per_chunk..whole.min((i + 1) * per_chunk)];
            let first = index + (i * per_chunk / bs) as u64;
            let checked = outcome.blocks as usize;
            outcome.add_to(summary, report)?;
            // Stopped by its problem cap: the rest one block at a time.
            for (j, page) in chunk.chunks_exact(bs).enumerate().skip(checked) {
                check_blocks(page, first + j as u64, ctx).add_to(summary, report)?;
            }
        }
        index += (whole / bs) as u64;
        if len < full {
            if len > whole {
                truncated(ctx, index, total, (len - whole) as u64, summary, report)?;
            }
            return Ok(total);
        }
    }
}

/// Pages decoded from text (hex, bytea, base64, psql's or COPY's output: a
/// get_raw_page() copy, so a stale checksum is a warning), each under the
/// block number its row gave, else its position.
fn check_decoded(
    data: &[u8],
    blknos: &[Option<u64>],
    ctx: &BlockContext,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<u64, Error> {
    let bs = ctx.block_size;
    let whole = data.len() - data.len() % bs;
    for (i, page) in data[..whole].chunks(bs).enumerate() {
        let i = i as u64;
        let blkno = blknos
            .get(i as usize)
            .copied()
            .flatten()
            .unwrap_or(ctx.first_blkno.saturating_add(i));
        let (first, first_blkno) = if blkno >= i {
            (i, blkno - i)
        } else {
            (0, blkno)
        };
        let page_ctx = BlockContext {
            first_blkno,
            from_text: true,
            reread: None,
            start_lsn: None,
            ..*ctx
        };
        check_blocks(page, first, &page_ctx).add_to(summary, report)?;
    }
    if data.len() > whole {
        let (len, tail) = (data.len() as u64, (data.len() - whole) as u64);
        truncated(ctx, (whole / bs) as u64, len, tail, summary, report)?;
    }
    Ok(data.len() as u64)
}

/// Pages decoded from a text dump, and per page the block number its row gave.
type TextPages = (Vec<u8>, Vec<Option<u64>>);

/// A named file that holds a text dump of pages rather than the pages: its
/// pages, decoded as `show` decodes them, with the block numbers the text gave.
/// Printable bytes that are no text dump (a page overwritten by a log) stay
/// raw pages (`show` and the engine choice say so once).
fn text_pages(
    path: &Path,
    file: &File,
    len: u64,
    block_size: usize,
    hash: &mut Option<Sha256>,
) -> Result<Option<TextPages>, Error> {
    let mut head = vec![0u8; (len.min(64 << 10)) as usize];
    let Ok(n) = read_at(file, &mut head, 0) else {
        // Unreadable: reported when its blocks are read.
        return Ok(None);
    };
    head.truncate(n);
    if matches!(
        crate::input::detect(&head),
        InputFormat::Raw | InputFormat::OracleTrace
    ) {
        return Ok(None);
    }
    if len > MAX_TEXT_INPUT {
        return Err(Error::Usage(format!(
            "{}: text dump larger than {} MiB; convert it to raw pages first (e.g. xxd -r -p) \
             and verify that",
            file_name(path),
            MAX_TEXT_INPUT >> 20
        )));
    }
    let mut text = vec![0u8; len as usize];
    let n = read_at(file, &mut text, 0).map_err(io_error(path))?;
    text.truncate(n);
    let decoded = match crate::input::decode_pages(&text, InputFormat::Auto, block_size) {
        Ok(d) if d.format != InputFormat::Raw => d,
        Ok(_) => return Ok(None),
        Err(source) => {
            return Err(Error::Input {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    if let Some(h) = hash.as_mut() {
        h.update(&text);
    }
    let blknos = (0..decoded.bytes.len().div_ceil(block_size))
        .map(|i| decoded.blkno_at((i * block_size) as u64, block_size))
        .collect();
    Ok(Some((decoded.bytes, blknos)))
}

/// A file found in a walk that holds no page: at least one whole block,
/// and none of them all zeros or announcing a `block_size`-byte page of
/// layout version 4. What its first bytes look like, for the message;
/// `None` when some block is a page (or cannot be read: its blocks report
/// that). Reads blocks until one is a page: a relation whose first blocks
/// are damaged costs a read of those only.
fn not_pages(file: &File, len: u64, block_size: usize) -> Option<String> {
    let whole = len / block_size as u64;
    if whole == 0 {
        return None;
    }
    let mut buf = vec![0u8; block_size * 8];
    let mut first = Vec::new();
    let mut block = 0u64;
    while block < whole {
        let count = (whole - block).min(8) as usize;
        let bytes = &mut buf[..count * block_size];
        let n = read_at(file, bytes, block * block_size as u64).ok()?;
        if n < bytes.len() {
            return None; // shrank while read: checked as it is
        }
        if first.is_empty() {
            first = bytes[..64.min(n)].to_vec();
        }
        let is_page = |page: &[u8]| {
            page.iter().all(|&b| b == 0) || page_size_from_header(page) == Some(block_size)
        };
        if bytes.chunks_exact(block_size).any(is_page) {
            return None;
        }
        block += count as u64;
    }
    let printable = first
        .iter()
        .all(|&b| b == b'\n' || b == b'\r' || b == b'\t' || (0x20..0x7f).contains(&b));
    let head: String = first.iter().map(|&b| char::from(b)).collect();
    let line = head.lines().next().unwrap_or_default();
    Some(if printable {
        format!("it begins as text: {line:?}")
    } else {
        format!(
            "it begins with bytes {}",
            first[..16.min(first.len())]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        )
    })
}

/// A file that ends inside a block.
fn truncated(
    ctx: &BlockContext,
    whole: u64,
    len: u64,
    tail: u64,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<(), Error> {
    summary.truncated_files += 1;
    *summary.problems_by_class.entry("truncated").or_default() += 1;
    let problem = VerifyProblem {
        file: ctx.file.to_string(),
        blkno: ctx.first_blkno + whole,
        offset: Some(0),
        file_offset: whole * ctx.block_size as u64,
        field: "file size".to_string(),
        class: ProblemClass::Truncated,
        severity: Severity::Error,
        message: format!(
            "{} is {len} bytes, not a whole number of {}-byte blocks: the last {tail} bytes \
             (a partial block {}) are not checked; the {whole} whole blocks before them are",
            if ctx.file == "-" {
                "standard input"
            } else {
                "file"
            },
            ctx.block_size,
            ctx.first_blkno + whole
        ),
    };
    report.problem(&problem).map_err(report_error)
}

/// Check consecutive whole blocks; `first` is the position of the first in its file.
fn check_blocks(data: &[u8], first: u64, ctx: &BlockContext) -> Outcome {
    check_blocks_upto(data, first, ctx, usize::MAX)
}

/// Problems one parallel chunk may hold before it stops and leaves the rest
/// of its blocks to be checked one at a time, each reported at once (pages
/// of thousands of overlapping line pointers would otherwise hold millions
/// of problems per window).
const CHUNK_PROBLEMS: usize = 16 * 1024;

/// Like [`check_blocks`], stopping after the block that brings the problems
/// to `cap`: [`Outcome::checked`] says how many blocks were checked.
fn check_blocks_upto(data: &[u8], first: u64, ctx: &BlockContext, cap: usize) -> Outcome {
    let mut outcome = Outcome::default();
    let mut problems = Vec::new();
    for (i, page) in data.chunks_exact(ctx.block_size).enumerate() {
        if outcome.problems.len() >= cap {
            break;
        }
        let index = first + i as u64;
        let blkno = ctx.first_blkno + index;
        let file_offset = index * ctx.block_size as u64;
        let mut verdict = check_block(page, blkno, ctx, &mut problems);
        let mut page_lsn = pd_lsn(page);
        let mut again = None;
        if verdict.bad_checksum {
            // As pg_basebackup: read the block again before believing it.
            if let Some(file) = ctx.reread {
                let mut bytes = vec![0u8; ctx.block_size];
                if matches!(read_at(file, &mut bytes, file_offset), Ok(n) if n == bytes.len()) {
                    problems.clear();
                    verdict = check_block(&bytes, blkno, ctx, &mut problems);
                    page_lsn = pd_lsn(&bytes);
                    again = Some(bytes);
                }
            }
        }
        outcome.blocks += 1;
        // Changed during the run only when the second read shows the block
        // did change: a crashed cluster's pg_control also says "in
        // production", and there nothing writes, so a damaged block reads
        // the same twice whatever its pd_lsn says (even a forged
        // FFFFFFFF/FFFFFFFF).
        let changed = again.as_deref().is_some_and(|bytes| bytes != page);
        if verdict.bad_checksum && changed && ctx.start_lsn.is_some_and(|start| page_lsn > start) {
            // Written after the run began: its bytes are in flux (maybe torn),
            // so neither its checksum nor its structure is judged.
            outcome.changed_during_run += 1;
            problems.clear();
            if ctx.figures {
                // Its bytes as read, unjudged: no problems counted.
                let bytes = again.as_deref().unwrap_or(page);
                let mut f = block_figures(bytes, blkno, ctx, &verdict, &[]);
                f.checksum = ChecksumState::Changed;
                outcome.figures.push(f);
            }
            continue;
        }
        if ctx.figures {
            let bytes = again.as_deref().unwrap_or(page);
            outcome
                .figures
                .push(block_figures(bytes, blkno, ctx, &verdict, &problems));
        }
        outcome.zero_pages += u64::from(verdict.new);
        outcome.bad_checksums += u64::from(verdict.bad_checksum);
        if problems.iter().any(|p| p.severity > Severity::Info) {
            outcome.bad_blocks += 1;
        }
        outcome.problems.extend(
            problems
                .drain(..)
                .map(|p| VerifyProblem::from_problem(ctx.file, blkno, file_offset, p)),
        );
    }
    outcome
}

struct BlockVerdict {
    new: bool,
    bad_checksum: bool,
    /// What the structural check established (kind, header).
    checked: CheckedPage,
}

/// A checked block's figures for `map`: its kind, free space and line
/// pointers (read by [`page_figures`]), and from the check's `problems` its
/// error and warning counts and checksum state.
fn block_figures(
    page: &[u8],
    blkno: u64,
    ctx: &BlockContext,
    verdict: &BlockVerdict,
    problems: &[Problem],
) -> BlockFigures {
    let mut f = BlockFigures::empty(blkno, verdict.checked.kind.name());
    f.zero = verdict.new;
    page_figures(page, &verdict.checked, detect_endian(page), &mut f);
    for p in problems {
        match p.severity {
            Severity::Error => f.errors += 1,
            Severity::Warning => f.warnings += 1,
            Severity::Info => {}
        }
    }
    let checksum_problem = problems.iter().any(|p| p.class == ProblemClass::Checksum);
    f.checksum = if verdict.new {
        ChecksumState::NotApplicable
    } else if !ctx.checksums {
        ChecksumState::None
    } else if verdict.bad_checksum || checksum_problem {
        ChecksumState::Bad
    } else {
        ChecksumState::Ok
    };
    f
}

/// One block: checksum first (when the cluster has them), then structure —
/// except that an unusable page header is reported before the checksum.
/// The checksum reads the whole page in order, which also brings it into the
/// cache for the structural checks' scattered reads.
fn check_block(
    page: &[u8],
    blkno: u64,
    ctx: &BlockContext,
    problems: &mut Vec<Problem>,
) -> BlockVerdict {
    if is_new_page(page) {
        problems.push(Problem::new(
            Severity::Info,
            ProblemClass::ZeroPage,
            Some(0),
            "page",
            "all bytes are zero: a new page, valid (not yet initialised)",
        ));
        return BlockVerdict {
            new: true,
            bad_checksum: false,
            checked: CheckedPage {
                kind: crate::model::postgres::PageKind::New,
                header: None,
                header_usable: false,
            },
        };
    }
    let mut bad_checksum = false;
    let start = problems.len();
    if ctx.checksums {
        if let Some(p) = checksum_problem(page, blkno, ctx.from_text) {
            problems.push(p);
            bad_checksum = true;
        }
    }
    let checksum_end = problems.len();
    let opts = PageOptions {
        blkno,
        blkno_known: true,
        from_text: ctx.from_text,
        kind: None,
        endian: detect_endian(page),
    };
    let rel = Relation {
        btree_index: ctx.btree_index,
    };
    let checked = check_page_in(page, &opts, rel, problems);
    if checked.header.is_some() && !checked.header_usable {
        // The unusable header is the first cause; a checksum that fails on
        // such a page follows from it.
        problems[start..].rotate_left(checksum_end - start);
    }
    BlockVerdict {
        new: false,
        bad_checksum,
        checked,
    }
}

/// pd_checksum against pg_checksum_page for this block number: an error on
/// a relation file; on a page that came through text, a mismatch is a
/// warning, since a get_raw_page() copy can carry a stale checksum.
fn checksum_problem(page: &[u8], blkno: u64, from_text: bool) -> Option<Problem> {
    let stored = stored_checksum(page)?;
    let computed = pg_checksum_page(page, blkno, detect_endian(page));
    let (severity, message) = match computed {
        None => (
            Severity::Error,
            format!("no checksum can be computed for a {}-byte page", page.len()),
        ),
        Some(c) if stored == 0 => (
            Severity::Error,
            format!(
                "pd_checksum is 0 on a written page of a cluster with data checksums \
                 (calculated checksum 0x{c:04X} for block {blkno})"
            ),
        ),
        Some(c) if c != stored => (
            if from_text {
                Severity::Warning
            } else {
                Severity::Error
            },
            format!(
                "checksum verification failed: calculated checksum 0x{c:04X} for block {blkno} \
                 but block contains 0x{stored:04X}{}",
                if from_text {
                    "; normal for a get_raw_page() copy of a buffer changed since it was last \
                     written (PostgreSQL sets the checksum only when it writes the page out)"
                } else {
                    ""
                }
            ),
        ),
        Some(_) => return None,
    };
    Some(Problem::new(
        severity,
        ProblemClass::Checksum,
        Some(8),
        "pd_checksum",
        message,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Fork;

    #[test]
    fn arbitrary_blocks_never_panic() {
        // Random pages, some with a plausible header and a btree-sized special space.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..2000u64 {
            let mut page: Vec<u8> = (0..8192).map(|_| next() as u8).collect();
            if round % 2 == 0 {
                let lower = 24 + (next() % 400) as u16;
                page[12..14].copy_from_slice(&lower.to_le_bytes());
                page[14..16].copy_from_slice(&(4000u16 + (next() % 4000) as u16).to_le_bytes());
                page[16..18].copy_from_slice(&8176u16.to_le_bytes());
                page[18..20].copy_from_slice(&0x2004u16.to_le_bytes());
            }
            for btree_index in [false, true] {
                let ctx = BlockContext {
                    file: "x",
                    block_size: 8192,
                    first_blkno: 0,
                    checksums: true,
                    from_text: false,
                    btree_index,
                    reread: None,
                    start_lsn: None,
                    figures: false,
                };
                let mut problems = Vec::new();
                check_block(&page, round % 5, &ctx, &mut problems);
                is_btree_metapage(&page, detect_endian(&page));
            }
        }
    }

    #[test]
    fn temporary_relations_are_recognised() {
        assert!(is_temp_relation("t3_16385"));
        assert!(is_temp_relation("t12_16385_fsm.1"));
        assert!(!is_temp_relation("t_16385"));
        assert!(!is_temp_relation("16385"));
        assert!(!is_temp_relation("tx_1"));
    }

    #[test]
    fn fork_order_sorts_main_before_fsm_and_vm() {
        let mut names: Vec<RelationFileName> =
            ["16385_vm", "16385.1", "16385_fsm", "16385", "16384"]
                .iter()
                .filter_map(|n| RelationFileName::parse(n))
                .collect();
        names.sort();
        let forks: Vec<(u64, Fork, Option<u64>)> = names
            .iter()
            .map(|n| (n.relfilenode, n.fork, n.segment))
            .collect();
        assert_eq!(
            forks,
            vec![
                (16384, Fork::Main, None),
                (16385, Fork::Main, None),
                (16385, Fork::Main, Some(1)),
                (16385, Fork::Fsm, None),
                (16385, Fork::Vm, None),
            ]
        );
    }

    /// Block 5 of the crash fixture's heap (a PostgreSQL 15 page written
    /// after its cluster's last checkpoint) with one bit flipped at `at`.
    fn damaged_block(at: usize) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/postgres/neverlie/crash/base/5/16384");
        let bytes = std::fs::read(path).unwrap();
        let mut page = bytes[5 * 8192..6 * 8192].to_vec();
        page[at] ^= 0x10;
        page
    }

    /// check_blocks on `first_read` (block 5) whose re-read gives `second_read`.
    fn check_with_reread(first_read: &[u8], second_read: &[u8], what: &str) -> Outcome {
        let path =
            std::env::temp_dir().join(format!("blockscope-reread-{what}-{}", std::process::id()));
        std::fs::write(&path, second_read).unwrap();
        let file = File::open(&path).unwrap();
        let ctx = BlockContext {
            file: "x",
            block_size: 8192,
            first_blkno: 5,
            checksums: true,
            from_text: false,
            btree_index: false,
            reread: Some(&file),
            // The crash fixture's checkpoint REDO location: the page is newer.
            start_lsn: Some(0x017B_3928),
            figures: false,
        };
        let outcome = check_blocks(first_read, 0, &ctx);
        std::fs::remove_file(&path).unwrap();
        outcome
    }

    #[test]
    fn a_newer_block_counts_as_changed_only_when_the_second_read_differs() {
        let first = damaged_block(4000);
        assert!(pd_lsn(&first) > 0x017B_3928);
        // Read the same twice: nothing wrote it, so the damage is reported.
        let same = check_with_reread(&first, &first, "same");
        assert_eq!(
            (same.changed_during_run, same.bad_checksums, same.bad_blocks),
            (0, 1, 1)
        );
        // Written between the reads (and still failing): changed.
        let other = damaged_block(4100);
        let changed = check_with_reread(&first, &other, "changed");
        assert_eq!((changed.changed_during_run, changed.bad_checksums), (1, 0));
        assert!(changed.problems.is_empty());
        // A forged pd_lsn of FFFFFFFF/FFFFFFFF on a block read the same twice buys nothing.
        let mut forged = first.clone();
        forged[..8].copy_from_slice(&[0xFF; 8]);
        let f = check_with_reread(&forged, &forged, "forged");
        assert_eq!((f.changed_during_run, f.bad_checksums), (0, 1));
    }
}
