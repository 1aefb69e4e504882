//! `verify` of PostgreSQL relation files: every block checked — data
//! checksum and structure — problems handed to a [`Report`] in file and
//! block order, and totals summarised.
//!
//! How a run goes, one file per job:
//!
//! 1. `walk.rs`: inputs become a list of files: a file is taken as given; a
//!    directory is walked for relation files (`16385`, `16385.1`,
//!    `16385_fsm`, `16385_vm`); a PostgreSQL data directory only in `base/`,
//!    `global/` and `pg_tblspc/`. Other files are passed over with a note.
//! 2. `probe.rs`: the page size, pg_control, and whether the cluster has
//!    data checksums are decided once for the whole set (see
//!    [`ChecksumMode::Auto`]); `text.rs` reads what is not raw pages (text
//!    dumps, standard input's first window).
//! 3. `schedule.rs`: each file is read in 1 MiB chunks with positioned reads
//!    — never whole — and the chunks of a window are checked in parallel on
//!    all cores; the window's results are reported in order before the next
//!    window is read, so memory stays bounded whatever the file size.
//! 4. `block.rs`: each block's checksum and structure.
//!
//! This file decides the run's settings and takes each file through those
//! steps. A block's number is `segment × blocks per segment + position in
//! the file`; the segment comes from the `.N` suffix of the file name (or
//! `--segment`).

mod block;
mod probe;
mod schedule;
mod text;
mod walk;

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::model::postgres::verify::{
    Provenance, ProvenanceInput, Skipped, Summary, VerifyProblem,
};
use crate::model::postgres::Lsn;
use crate::model::{ProblemClass, Severity};
use crate::parse::postgres::amcheck::KeyType;
use crate::parse::postgres::check::is_btree_metapage;
use crate::parse::postgres::control::ControlFile;
use crate::parse::postgres::detect_endian;
use crate::source::{
    first_blkno_of_segment, open_file, read_at, DEFAULT_BLOCK_SIZE, DEFAULT_SEGMENT_BYTES,
    MAX_BLOCK_NUMBER,
};
use crate::verify::deep::{Deep, DeepEvent};
use crate::verify::files::{
    file_name, hex_digest, input_len, is_block_device, removed, rfc3339_utc, special_kind,
};
use crate::verify::report::{report_error, Report};

use block::BlockContext;
use probe::{announced_block_size, checksum_verdict, control_summary, not_pages, read_control};
use schedule::{add_io_problem, check_decoded, check_file, check_stdin, io_problem, window_bytes};
use text::{read_stdin_head, text_pages, StdinHead};
use walk::{collect_targets, Target};

/// Why a file could not be read, as verify words it (for every engine).
pub(crate) use crate::verify::files::unreadable;
pub use probe::ChecksumMode;

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

/// What every file of one run is checked with, decided once.
struct Plan<'a> {
    block_size: usize,
    /// Bytes per segment file.
    segment_bytes: u64,
    blocks_per_segment: u64,
    /// Whether pd_checksum is verified.
    checksums: bool,
    /// A running cluster's start LSN (see [`BlockContext::start_lsn`]).
    start_lsn: Option<Lsn>,
    /// `--segment`: standard input's segment number.
    segment: Option<u64>,
    /// `--deep`, with what it knows.
    deep: Option<Deep<'a>>,
    /// The report wants every block's figures.
    figures: bool,
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
    let key_types = key_types(opts.key_columns.as_deref())?;
    summary.deep = opts.deep;
    let mut control_path = None;
    let targets = collect_targets(
        inputs,
        opts.segment,
        &mut summary.skipped,
        &mut control_path,
    )?;
    let control = control_path.map(|path| read_control(&path));
    let trusted = control.as_ref().and_then(|(_, c)| c.as_ref().ok());

    // Standard input's first window is read ahead: its pages announce their size.
    let given = opts
        .block_size
        .or_else(|| trusted.map(|c| c.blcksz as usize));
    let mut stdin_head = None;
    if targets.contains(&Target::Stdin) {
        let window = window_bytes(given.unwrap_or(DEFAULT_BLOCK_SIZE));
        stdin_head = Some(read_stdin_head(given, window)?);
    }
    let block_size = given
        .or_else(|| match &stdin_head {
            Some(head) => head.announced,
            None => announced_block_size(&targets),
        })
        .unwrap_or(DEFAULT_BLOCK_SIZE);
    let segment_bytes = segment_bytes(opts, trusted, block_size)?;
    let blocks_per_segment = segment_bytes / block_size as u64;
    summary.block_size = block_size;
    summary.blocks_per_segment = blocks_per_segment;
    summary.pg_control = control.as_ref().map(|(file, c)| control_summary(file, c));
    // A running cluster: its checkpoint's REDO location, read now, is the
    // run's start LSN — every block written since has a newer pd_lsn.
    let start_lsn = trusted
        .filter(|c| c.running())
        .map(|c| Lsn::from(c.checkpoint_redo));
    if let Some(lsn) = start_lsn {
        summary.cluster_running = true;
        summary.start_lsn = Some(lsn.to_string());
    }

    for s in &summary.skipped {
        report.skipped(s).map_err(report_error)?;
    }
    // Standard input's size is not known; `--deep` reads each file twice.
    let passes = if opts.deep { 2 } else { 1 };
    report.started(
        (!targets.contains(&Target::Stdin)).then(|| total_bytes(&targets).saturating_mul(passes)),
    );

    let verdict = checksum_verdict(
        opts.checksums,
        trusted,
        stdin_head.as_ref().map(|head| head.bytes.as_slice()),
        &targets,
        block_size,
        blocks_per_segment,
    )?;
    let plan = Plan {
        block_size,
        segment_bytes,
        blocks_per_segment,
        checksums: verdict.enabled,
        start_lsn,
        segment: opts.segment,
        deep: opts.deep.then_some(Deep {
            key_types: key_types.as_deref(),
            control: trusted,
        }),
        figures: report.wants_blocks(),
    };
    summary.checksums = Some(verdict);

    let mut bytes_seen = 0u64;
    for target in &targets {
        bytes_seen += match target {
            Target::File {
                path,
                segment,
                walked,
            } => check_target_file(path, *segment, *walked, &plan, &mut summary, report)?,
            Target::Unreadable { path, reason } => {
                let problem = io_problem(&file_name(path), 0, 0, "file", reason.clone());
                add_io_problem(problem, &mut summary, report)?;
                0
            }
            Target::Stdin => check_stdin_input(stdin_head.take(), &plan, &mut summary, report)?,
        };
    }
    let stdin_only = targets == [Target::Stdin];
    summary.nothing_verified = nothing_verified(&summary, stdin_only, bytes_seen, opts.block_size);
    Ok(summary)
}

/// `--deep --columns`: the btree key columns' types.
fn key_types(columns: Option<&str>) -> Result<Option<Vec<KeyType>>, Error> {
    let Some(list) = columns else {
        return Ok(None);
    };
    crate::parse::postgres::schema::parse_columns(list)
        .and_then(|s| crate::parse::postgres::amcheck::key_types(&s))
        .map(Some)
        .map_err(|e| Error::Usage(format!("--columns: {e}")))
}

/// Bytes per segment file: `--segment-size`, else pg_control's, else 1 GiB;
/// checked against `block_size` (itself checked first), as is `--segment`.
fn segment_bytes(
    opts: &VerifyOptions,
    control: Option<&ControlFile>,
    block_size: usize,
) -> Result<u64, Error> {
    if !(1024..=32768).contains(&block_size) || !block_size.is_power_of_two() {
        return Err(Error::Usage(format!(
            "block size {block_size} is not one PostgreSQL supports (1024 to 32768, a power of two)"
        )));
    }
    let segment_bytes = opts
        .segment_bytes
        .or_else(|| control.map(|c| u64::from(c.relseg_size) * u64::from(c.blcksz)))
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
    if segment_bytes / block_size as u64 > MAX_BLOCK_NUMBER + 1 {
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
    Ok(segment_bytes)
}

/// The size of the files among `targets` (for the progress bar).
fn total_bytes(targets: &[Target]) -> u64 {
    targets
        .iter()
        .filter_map(|t| match t {
            Target::File { path, .. } => fs::metadata(path).ok().map(|m| m.len()),
            _ => None,
        })
        .sum()
}

/// Why nothing was verified, when nothing was (no block read, and no file
/// that could not be read or held no pages): never a clean verdict.
fn nothing_verified(
    summary: &Summary,
    stdin_only: bool,
    bytes_seen: u64,
    block_size_given: Option<usize>,
) -> Option<String> {
    if summary.blocks != 0
        || summary.problems_by_class.contains_key("io")
        || summary.problems_by_class.contains_key("not-pages")
    {
        return None;
    }
    if stdin_only && bytes_seen == 0 {
        return Some("standard input is empty: nothing was verified".to_string());
    }
    let hint = if block_size_given.is_some() {
        " (is --block-size right?)"
    } else {
        ""
    };
    let plural = if summary.files == 1 { "" } else { "s" };
    Some(format!(
        "no whole {}-byte block in the input{plural} ({bytes_seen} bytes in {} \
         file{plural}): nothing was verified{hint}",
        summary.block_size, summary.files,
    ))
}

/// A relation file of the run, at segment `segment`: its blocks, then with
/// `--deep` its cross-page checks (not of a file that holds no pages); the
/// bytes it held.
fn check_target_file(
    path: &Path,
    segment: u64,
    walked: bool,
    plan: &Plan,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<u64, Error> {
    // A `.N` suffix past the last block number: its blocks have no number
    // to check a checksum with.
    let first_blkno = match first_blkno_of_segment(segment, plan.block_size, plan.segment_bytes) {
        Ok(first) => first,
        Err(why) => {
            let problem = io_problem(&file_name(path), 0, 0, "file", why);
            add_io_problem(problem, summary, report)?;
            return Ok(0);
        }
    };
    let before = summary.problems_by_class.get("not-pages").copied();
    let size = check_relation_file(path, walked, first_blkno, plan, summary, report)?;
    let not_pages = summary.problems_by_class.get("not-pages").copied() != before;
    if let Some(deep) = plan.deep.as_ref() {
        let read = match not_pages {
            false => deep_file(path, first_blkno, plan.block_size, deep, summary, report)?,
            true => 0,
        };
        // The progress bar counts every file twice under `--deep`: what its
        // second pass did not count (a fork, a file of no pages) is done.
        report.advanced(
            fs::metadata(path)
                .map_or(0, |m| m.len())
                .saturating_sub(read),
        );
    }
    Ok(size)
}

/// Standard input (its first window already read as `head`, when it was):
/// raw pages or a decoded text dump; the bytes it held.
fn check_stdin_input(
    head: Option<StdinHead>,
    plan: &Plan,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<u64, Error> {
    let bs = plan.block_size;
    let ctx = BlockContext {
        file: "-",
        block_size: bs,
        first_blkno: plan
            .segment
            .unwrap_or(0)
            .saturating_mul(plan.blocks_per_segment),
        checksums: plan.checksums,
        from_text: false,
        btree_index: false,
        reread: None,
        start_lsn: None,
        figures: plan.figures,
    };
    let head = match head {
        Some(head) => head,
        None => read_stdin_head(Some(bs), window_bytes(bs))?,
    };
    let mut hash = summary.provenance.is_some().then(Sha256::new);
    let size = match head.decoded {
        Some(blknos) => {
            // The text was read by the dump decoder: no digest of it.
            hash = None;
            check_decoded(&head.bytes, &blknos, &ctx, summary, report)?
        }
        None => check_stdin(head.bytes, &ctx, summary, report, &mut hash)?,
    };
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
    Ok(size)
}

/// `--deep` over one relation file: its findings reported after its
/// blocks' own, and each block with a warning or error counted once; the
/// bytes its pass reported to the progress bar.
fn deep_file(
    path: &Path,
    first_blkno: u64,
    block_size: usize,
    deep: &Deep,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<u64, Error> {
    let name = file_name(path);
    let mut last_bad = None;
    let mut read = 0u64;
    crate::verify::deep::check_file(path, first_blkno, block_size, deep, &mut |event| {
        let (blkno, problem) = match event {
            DeepEvent::Read(bytes) => {
                read += bytes;
                report.advanced(bytes);
                return Ok(());
            }
            DeepEvent::Found(blkno, problem) => (blkno, problem),
        };
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
    })?;
    Ok(read)
}

/// An opened relation file.
struct Opened<'a> {
    path: &'a Path,
    /// The name as reports print it.
    name: String,
    file: File,
    /// Bytes in it when opened.
    len: u64,
    /// Found in a directory walk (see [`Target::File`]).
    walked: bool,
    /// Block number of its first block.
    first_blkno: u64,
}

/// One relation file: opened, its kind noted (a btree index if block 0 is
/// its metapage), and every block checked; the bytes it held. A file that
/// cannot be opened, or a block that cannot be read, is a problem of class
/// `io` and the run goes on.
fn check_relation_file(
    path: &Path,
    walked: bool,
    first_blkno: u64,
    plan: &Plan,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<u64, Error> {
    let name = file_name(path);
    let (file, len, mtime) = match open_relation(path) {
        Ok(x) => x,
        Err(e) if plan.start_lsn.is_some() && removed(path, &e) => {
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
    let opened = Opened {
        path,
        name,
        file,
        len,
        walked,
        first_blkno,
    };
    let size = check_relation_blocks(&opened, plan, summary, report, &mut hash)?;
    if let Some(p) = summary.provenance.as_mut() {
        p.inputs.push(ProvenanceInput {
            bytes_read: None,
            path: opened.name,
            size: len,
            mtime: mtime.map(rfc3339_utc),
            sha256: hash.map(hex_digest),
        });
    }
    Ok(size)
}

/// A relation file opened read-only: the file, its length and its
/// modification time. Never opened when it is no longer a regular file or
/// block device, or is a file of a kernel pseudo file system.
fn open_relation(path: &Path) -> io::Result<(File, u64, Option<std::time::SystemTime>)> {
    let meta = fs::metadata(path)?;
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
}

/// The blocks of an opened relation file; `hash` fed with every byte read,
/// in file order.
fn check_relation_blocks(
    rel: &Opened,
    plan: &Plan,
    summary: &mut Summary,
    report: &mut dyn Report,
    hash: &mut Option<Sha256>,
) -> Result<u64, Error> {
    let (file, len, block_size) = (&rel.file, rel.len, plan.block_size);
    let mut ctx = BlockContext {
        file: &rel.name,
        block_size,
        first_blkno: rel.first_blkno,
        checksums: plan.checksums,
        from_text: false,
        btree_index: false,
        reread: None,
        start_lsn: None,
        figures: plan.figures,
    };
    if rel.walked {
        if let Some(what) = not_pages(file, len, block_size) {
            // Not read to its end: no digest.
            *hash = None;
            *summary.problems_by_class.entry("not-pages").or_default() += 1;
            let problem = not_pages_problem(rel, block_size, &what);
            report.problem(&problem).map_err(report_error)?;
            return Ok(len);
        }
    } else if let Some((data, blknos)) = text_pages(rel.path, file, len, block_size, hash)? {
        return check_decoded(&data, &blknos, &ctx, summary, report);
    }
    ctx.reread = Some(file);
    ctx.start_lsn = plan.start_lsn;
    if rel.first_blkno == 0 && len >= block_size as u64 {
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
    if now != len {
        resized(rel, now, plan.start_lsn.is_some(), summary, report)?;
    }
    Ok(len)
}

/// The one problem of a walked file that holds no page (`what` its first
/// bytes look like).
fn not_pages_problem(rel: &Opened, block_size: usize, what: &str) -> VerifyProblem {
    VerifyProblem {
        file: rel.name.clone(),
        blkno: rel.first_blkno,
        offset: None,
        file_offset: 0,
        field: "file".to_string(),
        class: ProblemClass::NotPages,
        severity: Severity::Error,
        message: format!(
            "not pages: none of its {} whole {block_size}-byte blocks is a PostgreSQL \
             page (none announces a {block_size}-byte page of layout version 4, none is \
             all zeros); {what}; not checked block by block",
            rel.len / block_size as u64
        ),
        wal: None,
        relation: None,
    }
}

/// A file that was `rel.len` bytes when opened and `now` after it was read:
/// a note in a running cluster (which extends and truncates relations as it
/// works; as pg_basebackup, take it as it comes), else an `io` problem.
fn resized(
    rel: &Opened,
    now: u64,
    running: bool,
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<(), Error> {
    let len = rel.len;
    let (name, first_blkno) = (&rel.name, rel.first_blkno);
    if running {
        let mut problem = io_problem(
            name,
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
        report.problem(&problem).map_err(report_error)
    } else {
        let problem = io_problem(
            name,
            first_blkno,
            0,
            "file size",
            format!(
                "the file changed size while it was read: {len} bytes when opened, {now} bytes \
                 after; blocks past {} bytes were not all checked",
                len.min(now)
            ),
        );
        add_io_problem(problem, summary, report)
    }
}
