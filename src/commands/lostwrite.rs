//! `verify`'s lost-write check: the relation files against the WAL.
//!
//! A checkpoint writes every page dirtied before its REDO location, so once
//! it is complete (pg_control names it) each block's page on disk holds at
//! least the LSN the latest change before that location gave it: redo sets
//! `PageSetLSN(page, EndRecPtr)` as the primary did. A page whose pd_lsn is
//! older than that record's end never received the write: a lost write.
//!
//! One pass over the WAL ([`WalSet::for_each`], one segment in memory at a
//! time) keeps, for every block of the run's files, only the latest record
//! before the REDO location that sets its page LSN
//! ([`effects::sets_page_lsn`]); the page's pd_lsn is read the first time
//! the block is met, and the record's description is kept only while the
//! page is older than the record. Truncations, files created anew and
//! relations or databases dropped take their blocks out of the map
//! ([`effects::removals`]). Memory grows with the number of distinct blocks,
//! not with the WAL.
//!
//! Verdicts: a block whose page is older is a `lost-write` problem; a block
//! past the end of its file is one too, unless the cluster is running (a
//! truncation may be under way) or the WAL is damaged after the change (it
//! may hide the truncation); a block whose relation file is not there at
//! all (dropped, or left out of a partial copy) gets no verdict. WAL that
//! does not reach back to a block's last change says nothing of it.

use crate::reader::{u64_from_halves, Endian};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};

use crate::engine::wal::WalSet;
use crate::error::Error;
use crate::model::postgres::verify::{LostWrite, Summary, VerifyProblem, WalCheck};
use crate::model::postgres::wal::{lsn, rmgr_name, WalRecord};
use crate::model::{ProblemClass, Severity};
use crate::parse::postgres::control::{parse_control_file, parse_control_image};
use crate::parse::postgres::wal::effects::{self, Removal};
use crate::parse::postgres::wal::{page_header, Item};
use crate::render::postgres::wal::{desc_text, problem_line};
use crate::source::{open_file, read_at};
use crate::verify::report::report_error;
use crate::verify::{file_name, Report};

use super::progress::note;

/// Where verify's WAL comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum WalSource {
    /// A data directory's `pg_wal`, when it holds segments.
    Auto,
    /// `--no-wal`: no lost-write check.
    Off,
    /// `--wal PATH…`: these segments or directories, for every input.
    Given(Vec<PathBuf>),
}

/// `FSM_FORKNUM`: the free space map is never WAL-logged page by page.
const FSM_FORK: u8 = 1;

/// Which relation files a check covers.
#[derive(Clone, Debug)]
enum Scope {
    /// Every relation of a data directory.
    DataDir(PathBuf),
    /// The segments of one relation fork in `dir` (a relation file was
    /// named); its database and tablespace when the path says them.
    Fork {
        dir: PathBuf,
        rel: u32,
        fork: u8,
        db: Option<u32>,
        spc: Option<u32>,
    },
}

/// One lost-write check to run: a WAL, a pg_control and the files.
#[derive(Clone, Debug)]
pub(crate) struct Check {
    wal: Vec<PathBuf>,
    control: PathBuf,
    scopes: Vec<Scope>,
    /// `--wal` was given: a check that cannot run is an error, not a note.
    given: bool,
}

/// A data directory, as verify's walk knows one: `PG_VERSION` and `base/`.
fn is_data_dir(dir: &Path) -> bool {
    dir.join("PG_VERSION").is_file() && dir.join("base").is_dir()
}

/// A WAL segment's name: 24 hexadecimal digits, maybe `.partial`.
fn is_segment_name(name: &str) -> bool {
    let stem = name.strip_suffix(".partial").unwrap_or(name);
    stem.len() == 24 && stem.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `pg_wal` holds at least one segment.
fn has_segments(pg_wal: &Path) -> bool {
    std::fs::read_dir(pg_wal).is_ok_and(|entries| {
        entries
            .filter_map(|e| e.ok())
            .any(|e| e.file_name().to_str().is_some_and(is_segment_name))
    })
}

/// `16384`, `16384_vm`, `16384.2`, `16384_fsm.1`: relfilenode and fork.
fn relation_name(name: &str) -> Option<(u32, u8)> {
    let stem = match name.split_once('.') {
        Some((stem, seg)) if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) => stem,
        Some(_) => return None,
        None => name,
    };
    let (rel, fork) = match stem.split_once('_') {
        Some((rel, "fsm")) => (rel, 1),
        Some((rel, "vm")) => (rel, 2),
        Some((rel, "init")) => (rel, 3),
        Some(_) => return None,
        None => (stem, 0),
    };
    if rel.is_empty() || !rel.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((rel.parse().ok()?, fork))
}

fn name_of(p: &Path) -> Option<&str> {
    p.file_name().and_then(|n| n.to_str())
}

/// The database and tablespace a relation file's directory stands for:
/// `base/DB`, `global`, `pg_tblspc/SPC/PG_…/DB`.
fn placed(dir: &Path) -> (Option<u32>, Option<u32>) {
    let name = name_of(dir);
    if name == Some("global") {
        return (Some(0), Some(1664));
    }
    let Some(db) = name.and_then(|n| n.parse::<u32>().ok()) else {
        return (None, None);
    };
    let parent = dir.parent();
    if parent.and_then(name_of) == Some("base") {
        return (Some(db), Some(1663));
    }
    let spc = parent
        .filter(|p| name_of(p).is_some_and(|n| n.starts_with("PG_")))
        .and_then(Path::parent)
        .filter(|s| s.parent().and_then(name_of) == Some("pg_tblspc"))
        .and_then(name_of)
        .and_then(|n| n.parse::<u32>().ok());
    (Some(db), spc)
}

/// The data directory above a relation file, found by its pg_control.
fn control_above(file: &Path) -> Option<PathBuf> {
    let file = std::fs::canonicalize(file).ok()?;
    file.ancestors()
        .skip(1)
        .take(5)
        .map(|dir| dir.join("global").join("pg_control"))
        .find(|c| c.is_file())
}

/// The checks a run of `verify` makes, and notes on what it leaves out.
pub(crate) fn plan(
    inputs: &[PathBuf],
    source: &WalSource,
) -> Result<(Vec<Check>, Vec<String>), Error> {
    let mut notes = Vec::new();
    let named = !(inputs.is_empty() || inputs.iter().any(|p| p.as_os_str() == "-"));
    match source {
        WalSource::Off => Ok((Vec::new(), notes)),
        WalSource::Auto => {
            let mut checks = Vec::new();
            for dir in inputs.iter().filter(|p| named && is_data_dir(p)) {
                let pg_wal = dir.join("pg_wal");
                if !has_segments(&pg_wal) {
                    continue;
                }
                let control = dir.join("global").join("pg_control");
                if !control.is_file() {
                    notes.push(format!(
                        "{}: lost writes not checked: pg_wal is there but global/pg_control is \
                         not (the checkpoint's REDO location comes from it)",
                        file_name(dir)
                    ));
                    continue;
                }
                checks.push(Check {
                    wal: vec![pg_wal],
                    control,
                    scopes: vec![Scope::DataDir(dir.clone())],
                    given: false,
                });
            }
            Ok((checks, notes))
        }
        WalSource::Given(wal) => {
            if !named {
                return Err(Error::Usage(
                    "--wal: the lost-write check reads relation files or a data directory, not \
                     standard input"
                        .to_string(),
                ));
            }
            let mut scopes = Vec::new();
            let mut control = None;
            for input in inputs {
                if input.is_dir() {
                    if is_data_dir(input) {
                        scopes.push(Scope::DataDir(input.clone()));
                        let c = input.join("global").join("pg_control");
                        if control.is_none() && c.is_file() {
                            control = Some(c);
                        }
                    } else {
                        notes.push(format!(
                            "{}: lost writes not checked: --wal checks a data directory or \
                             relation files, not another directory",
                            file_name(input)
                        ));
                    }
                    continue;
                }
                let Some((rel, fork)) = name_of(input).and_then(relation_name) else {
                    notes.push(format!(
                        "{}: lost writes not checked: not named as a relation file",
                        file_name(input)
                    ));
                    continue;
                };
                let dir = input.parent().map(Path::to_path_buf).unwrap_or_default();
                let (db, spc) = placed(&dir);
                if control.is_none() {
                    control = control_above(input);
                }
                scopes.push(Scope::Fork {
                    dir,
                    rel,
                    fork,
                    db,
                    spc,
                });
            }
            if scopes.is_empty() {
                return Ok((Vec::new(), notes));
            }
            let control = control.ok_or_else(|| {
                Error::Usage(
                    "--wal: no global/pg_control above the inputs: the lost-write check needs the \
                     cluster's pg_control for the checkpoint's REDO location (give the data \
                     directory, or relation files inside it)"
                        .to_string(),
                )
            })?;
            Ok((
                vec![Check {
                    wal: wal.clone(),
                    control,
                    scopes,
                    given: true,
                }],
                notes,
            ))
        }
    }
}

/// A block, ordered so that a database, a relation and a fork are ranges:
/// database, relfilenode, tablespace, fork, block number.
type Key = (u32, u32, u32, u8, u32);

/// What the file holds at a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PageAt {
    /// The fork's first file is not there.
    NoFile,
    /// The file ends before the block.
    PastEnd,
    /// The page's pd_lsn.
    Lsn(u64),
}

/// The latest record before the REDO location that set a block's LSN.
struct Entry {
    lsn: u64,
    end: u64,
    rmid: u8,
    fpi: bool,
    page: PageAt,
    /// The record's description, kept while the page is older than it.
    desc: Option<Box<str>>,
}

/// Relation files: where a block is, and its pd_lsn.
struct Files<'a> {
    scopes: &'a [Scope],
    block_size: u64,
    blocks_per_segment: u64,
    /// A data directory's tablespaces' `PG_<major>_…` directories.
    tablespaces: HashMap<(usize, u32), Option<PathBuf>>,
    /// The file last read, and its length.
    open: Option<(PathBuf, Option<(File, u64)>)>,
}

/// `16384`, `16384_vm.1`.
fn file_for(rel: u32, fork: u8, segno: u64) -> String {
    let fork = match fork {
        0 => "",
        1 => "_fsm",
        2 => "_vm",
        3 => "_init",
        _ => "_?",
    };
    if segno == 0 {
        format!("{rel}{fork}")
    } else {
        format!("{rel}{fork}.{segno}")
    }
}

impl Files<'_> {
    /// The directory holding the block's relation, if a scope covers it.
    fn dir(&mut self, k: &Key) -> Option<PathBuf> {
        let (db, rel, spc, fork, _) = *k;
        let scopes = self.scopes;
        for (i, scope) in scopes.iter().enumerate() {
            match scope {
                Scope::Fork {
                    dir,
                    rel: r,
                    fork: f,
                    db: d,
                    spc: s,
                } => {
                    if *r == rel
                        && *f == fork
                        && d.is_none_or(|d| d == db)
                        && s.is_none_or(|s| s == spc)
                    {
                        return Some(dir.clone());
                    }
                }
                Scope::DataDir(root) => {
                    return match spc {
                        1664 => Some(root.join("global")),
                        1663 => Some(root.join("base").join(db.to_string())),
                        _ => self
                            .tablespaces
                            .entry((i, spc))
                            .or_insert_with(|| tablespace_dir(root, spc))
                            .as_ref()
                            .map(|t| t.join(db.to_string())),
                    };
                }
            }
        }
        None
    }

    /// The block's relation file segment and the block's offset in it, if
    /// a scope covers it.
    fn place(&mut self, k: &Key) -> Option<(PathBuf, PathBuf, u64)> {
        let dir = self.dir(k)?;
        let (_, rel, _, fork, blk) = *k;
        let segno = u64::from(blk) / self.blocks_per_segment;
        let offset = u64::from(blk) % self.blocks_per_segment * self.block_size;
        Some((
            dir.join(file_for(rel, fork, 0)),
            dir.join(file_for(rel, fork, segno)),
            offset,
        ))
    }

    /// The page at the block: its pd_lsn, or why there is none.
    fn page(&mut self, first: &Path, segment: &Path, offset: u64) -> PageAt {
        if std::fs::metadata(first).is_err() {
            return PageAt::NoFile;
        }
        if self.open.as_ref().is_none_or(|(p, _)| p != segment) {
            let opened = open_file(segment)
                .ok()
                .and_then(|f| f.metadata().ok().map(|m| (f, m.len())));
            self.open = Some((segment.to_path_buf(), opened));
        }
        let Some((_, Some((file, len)))) = &self.open else {
            return PageAt::PastEnd;
        };
        if offset + self.block_size > *len {
            return PageAt::PastEnd;
        }
        let mut word = [0u8; 8];
        match read_at(file, &mut word, offset) {
            // PageXLogRecPtr: xlogid, then xrecoff.
            Ok(8) => PageAt::Lsn(u64_from_halves(
                Endian::Little.read_u32(&word).unwrap_or(0),
                Endian::Little.read_u32(&word[4..]).unwrap_or(0),
            )),
            _ => PageAt::PastEnd,
        }
    }
}

/// `pg_tblspc/SPC/PG_<major>_<catversion>` of a data directory.
fn tablespace_dir(root: &Path, spc: u32) -> Option<PathBuf> {
    let major = std::fs::read_to_string(root.join("PG_VERSION")).ok()?;
    let prefix = format!("PG_{}_", major.trim());
    let link = root.join("pg_tblspc").join(spc.to_string());
    let mut names: Vec<String> = std::fs::read_dir(&link)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(&prefix))
        .collect();
    names.sort();
    names.first().map(|n| link.join(n))
}

/// What the cluster's pg_control says for the check.
struct Control {
    redo: u64,
    /// Data checksums or wal_log_hints: heap2 VISIBLE sets the heap page's LSN.
    hints_logged: bool,
    /// `in production`: running, or stopped without a clean shutdown.
    running: bool,
    system_identifier: u64,
}

fn read_control(path: &Path) -> Result<Control, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", file_name(path)))?;
    let file = parse_control_file(&bytes).map_err(|e| format!("{}: {e}", file_name(path)))?;
    let image = parse_control_image(&bytes).map_err(|e| format!("{}: {e}", file_name(path)))?;
    Ok(Control {
        redo: file.checkpoint_redo,
        hints_logged: file.data_checksum_version > 0 || image.control.wal_log_hints,
        running: file.running(),
        system_identifier: image.control.system_identifier,
    })
}

/// The system identifier in the first segment's long page header.
fn wal_system_identifier(set: &WalSet) -> Option<u64> {
    let first = set.segments(None, None).into_iter().next()?;
    let file = open_file(&first.path).ok()?;
    let mut head = [0u8; 40];
    let n = read_at(&file, &mut head, 0).ok()?;
    page_header(&head[..n])?.xlp_sysid
}

/// What one pass over the WAL found.
struct Pass {
    blocks: BTreeMap<Key, Entry>,
    check: WalCheck,
    /// The latest damage before a record: a truncation may hide there.
    last_damage: Option<u64>,
    /// The first damage, for a note.
    first_damage: Option<String>,
}

fn remove_range(map: &mut BTreeMap<Key, Entry>, lo: Key, hi: Key) {
    let keys: Vec<Key> = map.range(lo..=hi).map(|(k, _)| *k).collect();
    for k in keys {
        map.remove(&k);
    }
}

/// The pass: every record in WAL order.
fn pass(set: &WalSet, control: &Control, files: &mut Files<'_>) -> Pass {
    let block_size = files.block_size as usize;
    let mut out = Pass {
        blocks: BTreeMap::new(),
        check: WalCheck::default(),
        last_damage: None,
        first_damage: None,
    };
    // Problems not yet followed by a record: the end of the WAL, unless a
    // record comes after them.
    let mut pending: Vec<(u64, String)> = Vec::new();
    set.for_each(None, None, &mut |item| match item {
        Item::Problem(p) => {
            let at = u64::from(p.lsn.xlogid) << 32 | u64::from(p.lsn.xrecoff);
            pending.push((at, problem_line(&p)));
        }
        Item::Record(rec, bytes) => {
            for (at, line) in pending.drain(..) {
                out.check.wal_problems += 1;
                out.last_damage = Some(out.last_damage.map_or(at, |d| d.max(at)));
                out.first_damage.get_or_insert(line);
            }
            out.check.records += 1;
            if out.check.first_lsn.is_none() {
                out.check.first_lsn = Some(lsn(rec.lsn).to_string());
            }
            out.check.last_lsn = Some(lsn(rec.lsn).to_string());
            record(rec, bytes, control, files, &mut out.blocks, block_size);
        }
    });
    out
}

/// One record: the blocks it takes away, then the blocks it sets.
fn record(
    rec: &WalRecord,
    bytes: &[u8],
    control: &Control,
    files: &mut Files<'_>,
    blocks: &mut BTreeMap<Key, Entry>,
    block_size: usize,
) {
    for removal in effects::removals(rec, bytes, block_size) {
        match removal {
            Removal::Fork { rel, fork, from } => remove_range(
                blocks,
                (rel.db, rel.rel, rel.spc, fork, from),
                (rel.db, rel.rel, rel.spc, fork, u32::MAX),
            ),
            Removal::Relation(rel) => remove_range(
                blocks,
                (rel.db, rel.rel, rel.spc, 0, 0),
                (rel.db, rel.rel, rel.spc, u8::MAX, u32::MAX),
            ),
            Removal::Database(db) => remove_range(
                blocks,
                (db, 0, 0, 0, 0),
                (db, u32::MAX, u32::MAX, u8::MAX, u32::MAX),
            ),
        }
    }
    if rec.lsn >= control.redo {
        return;
    }
    for b in &rec.blocks {
        if b.fork == FSM_FORK || !effects::sets_page_lsn(rec, bytes, b, control.hints_logged) {
            continue;
        }
        let key = (b.rel.db, b.rel.rel, b.rel.spc, b.fork, b.blk);
        let page = match blocks.get(&key) {
            Some(e) => e.page,
            None => match files.place(&key) {
                Some((first, segment, offset)) => files.page(&first, &segment, offset),
                None => continue,
            },
        };
        let older = match page {
            PageAt::Lsn(l) => l < rec.end,
            PageAt::PastEnd => true,
            PageAt::NoFile => false,
        };
        blocks.insert(
            key,
            Entry {
                lsn: rec.lsn,
                end: rec.end,
                rmid: rec.rmid,
                fpi: b.image.is_some(),
                page,
                desc: older.then(|| desc_text(rec, bytes).into_boxed_str()),
            },
        );
    }
}

/// Run the lost-write checks after verify's own: their problems to
/// `report`, their figures into `summary`. A check of a data directory's
/// own pg_wal that cannot run is a note; one asked for with `--wal` is an
/// error.
pub(crate) fn run_checks(
    checks: &[Check],
    summary: &mut Summary,
    report: &mut dyn Report,
) -> Result<(), Error> {
    for check in checks {
        match run_check(check, summary, report)? {
            Ok((figures, damage)) => {
                if let Some(line) = damage {
                    note(&format!(
                        "blockscope: note: lost-write check: {} WAL problem{} before the last \
                         record (the records there were not read); the first: {}",
                        figures.wal_problems,
                        if figures.wal_problems == 1 { "" } else { "s" },
                        line.trim_start_matches("blockscope: wal: ")
                    ));
                }
                if figures.lost_writes > 0 {
                    *summary.problems_by_class.entry("lost-write").or_default() +=
                        figures.lost_writes;
                }
                summary.wal.push(figures);
            }
            Err(why) if check.given => return Err(Error::Usage(format!("--wal: {why}"))),
            Err(why) => note(&format!(
                "blockscope: note: lost writes not checked: {why}\n"
            )),
        }
    }
    Ok(())
}

/// One check; `Ok(Err(why))` when it cannot run.
#[allow(clippy::type_complexity)]
fn run_check(
    check: &Check,
    summary: &Summary,
    report: &mut dyn Report,
) -> Result<Result<(WalCheck, Option<String>), String>, Error> {
    let control = match read_control(&check.control) {
        Ok(c) => c,
        Err(e) => return Ok(Err(format!("pg_control not usable: {e}"))),
    };
    let set = match WalSet::open(&check.wal, None) {
        Ok(set) => set,
        Err(e) => return Ok(Err(e.to_string())),
    };
    if let Some(sysid) = wal_system_identifier(&set).filter(|&s| s != control.system_identifier) {
        return Ok(Err(format!(
            "the WAL is of another cluster: its system identifier is {sysid}, {}'s is {}",
            file_name(&check.control),
            control.system_identifier
        )));
    }
    let mut files = Files {
        scopes: &check.scopes,
        block_size: summary.block_size as u64,
        blocks_per_segment: summary.blocks_per_segment.max(1),
        tablespaces: HashMap::new(),
        open: None,
    };
    let Pass {
        blocks,
        check: mut figures,
        last_damage,
        first_damage,
    } = pass(&set, &control, &mut files);
    figures.wal = check.wal.iter().map(|p| file_name(p)).collect();
    figures.pg_control = file_name(&check.control);
    let redo = lsn(control.redo).to_string();
    figures.checkpoint_redo = redo.clone();

    let mut lost = Vec::new();
    for (key, e) in &blocks {
        match e.page {
            PageAt::NoFile => figures.blocks_without_file += 1,
            PageAt::PastEnd if control.running || last_damage.is_some_and(|d| d > e.lsn) => {
                figures.blocks_without_verdict += 1
            }
            PageAt::PastEnd => {
                figures.blocks_checked += 1;
                lost.push((*key, e));
            }
            PageAt::Lsn(l) => {
                figures.blocks_checked += 1;
                if l < e.end {
                    lost.push((*key, e));
                }
            }
        }
    }
    figures.lost_writes = lost.len() as u64;
    let mut problems: Vec<VerifyProblem> = lost
        .into_iter()
        .filter_map(|(key, e)| {
            let (_, segment, offset) = files.place(&key)?;
            Some(problem(
                &file_name(&segment),
                u64::from(key.4),
                offset,
                e,
                &redo,
            ))
        })
        .collect();
    problems.sort_by(|a, b| (&a.file, a.blkno).cmp(&(&b.file, b.blkno)));
    for p in &problems {
        report.problem(p).map_err(report_error)?;
    }
    let damage = first_damage.filter(|_| figures.wal_problems > 0);
    Ok(Ok((figures, damage)))
}

/// The problem for a lost write of block `blkno` at `offset` in `file`.
fn problem(file: &str, blkno: u64, offset: u64, e: &Entry, redo: &str) -> VerifyProblem {
    let rmgr = rmgr_name(e.rmid).into_owned();
    let desc = e.desc.as_deref().unwrap_or("").to_string();
    let record = format!(
        "WAL record {} ({rmgr} {desc}{})",
        lsn(e.lsn),
        if e.fpi {
            ", with a full-page image"
        } else {
            ""
        }
    );
    let page_lsn = match e.page {
        PageAt::Lsn(l) => Some(lsn(l).to_string()),
        _ => None,
    };
    let message = match &page_lsn {
        Some(page) => format!(
            "page LSN {page} is older than the end {} of {record}, which changed this block \
             before the checkpoint's REDO location {redo}: the page never received that write",
            lsn(e.end)
        ),
        None => format!(
            "the file ends before this block, which {record} changed before the checkpoint's \
             REDO location {redo} and no later truncation removed: the block never reached \
             the file"
        ),
    };
    VerifyProblem {
        file: file.to_string(),
        blkno,
        offset: Some(0),
        file_offset: offset,
        field: "pd_lsn".to_string(),
        class: ProblemClass::LostWrite,
        severity: Severity::Error,
        message,
        wal: Some(LostWrite {
            page_lsn,
            record_lsn: lsn(e.lsn).to_string(),
            record_end: lsn(e.end).to_string(),
            rmgr,
            desc,
            fpi: e.fpi,
            checkpoint_redo: redo.to_string(),
        }),
        relation: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relation_file_names() {
        assert_eq!(relation_name("16384"), Some((16384, 0)));
        assert_eq!(relation_name("16384_vm"), Some((16384, 2)));
        assert_eq!(relation_name("16384_fsm.3"), Some((16384, 1)));
        assert_eq!(relation_name("16384.1"), Some((16384, 0)));
        assert_eq!(relation_name("pg_control"), None);
        assert_eq!(relation_name("16384_xx"), None);
        assert_eq!(relation_name("16384."), None);
        assert_eq!(file_for(16384, 2, 0), "16384_vm");
        assert_eq!(file_for(16384, 0, 3), "16384.3");
    }

    #[test]
    fn directories_say_database_and_tablespace() {
        assert_eq!(placed(Path::new("d/base/5")), (Some(5), Some(1663)));
        assert_eq!(placed(Path::new("d/global")), (Some(0), Some(1664)));
        assert_eq!(
            placed(Path::new("d/pg_tblspc/16390/PG_15_202209061/5")),
            (Some(5), Some(16390))
        );
        assert_eq!(placed(Path::new("copies")), (None, None));
    }
}
