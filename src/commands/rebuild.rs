//! `blockscope wal --rebuild` and `--history`: one block of one relation
//! rebuilt from its WAL, and every version of it listed.
//!
//! One pass over the WAL ([`WalSet::for_each`], one segment in memory at a
//! time). Each record that references the block goes through
//! [`redo::apply`]: a full-page image restores the page, a record that
//! initialises it starts it from zeros, any other record is replayed on
//! the version before it. Where a record cannot be replayed (another
//! access method, no earlier image, damaged WAL) the rebuild says so and
//! keeps the last good version; a later full-page image (or
//! initialisation) starts it again. Only the current page is kept in
//! memory; `--history` keeps one short entry per version.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;

use crate::engine::wal::WalSet;
use crate::error::Error;
use crate::model::postgres::wal::{fork_name, lsn, RelFileNode, WalRecord, BKPBLOCK_WILL_INIT};
use crate::parse::postgres::wal::redo::{self, page, Applied};
use crate::parse::postgres::wal::Item;
use crate::render::postgres::wal as render;
use crate::render::postgres::wal_desc::identify;

use super::Sink;

/// What `--rebuild` / `--history` were asked for.
#[derive(Clone, Debug, Default)]
pub(crate) struct RebuildConfig {
    /// `--history`: list the versions (else `--rebuild`: write the last).
    pub history: bool,
    /// `--output FILE`: where `--rebuild` writes the page.
    pub output: Option<PathBuf>,
    /// `--output-dir DIR`: where `--history` writes every version.
    pub output_dir: Option<PathBuf>,
    /// `--upto LSN`: only records that start before it.
    pub upto: Option<u64>,
    /// `--fork`, as a fork number.
    pub fork: u8,
}

/// What `wal` was given: the WAL and the block.
pub(crate) struct Source<'a> {
    /// Segment files and directories.
    pub paths: &'a [PathBuf],
    /// `--wal-segsize`.
    pub seg_size: Option<u64>,
    /// `--relation`.
    pub relation: Option<RelFileNode>,
    /// `--table`: its name, and its database OID and relfilenode.
    pub table: Option<(&'a str, (u32, u32))>,
    /// `--block`.
    pub block: Option<u32>,
    /// `--format json` or `ndjson`: the history as one JSON document.
    pub json: bool,
}

/// Which block of which relation.
#[derive(Clone, Copy, Debug)]
struct Target {
    /// `--relation` (all three OIDs) …
    rel: Option<RelFileNode>,
    /// … or `--table`'s database OID and relfilenode.
    table: Option<(u32, u32)>,
    fork: u8,
    blk: u32,
}

impl Target {
    fn matches(&self, b: &crate::model::postgres::wal::BlockRef) -> bool {
        b.fork == self.fork
            && b.blk == self.blk
            && self.rel.is_none_or(|r| b.rel == r)
            && self
                .table
                .is_none_or(|(db, rel)| b.rel.db == db && b.rel.rel == rel)
    }
}

/// One version of the block.
#[derive(Clone, Debug, Serialize)]
struct Version {
    /// The record's LSN (where it starts, as pg_waldump lists it).
    lsn: String,
    /// The page's LSN after it (the record's end).
    pd_lsn: String,
    /// The resource manager (pg_waldump's name).
    rmgr: String,
    /// The record type (pg_waldump's name).
    record: String,
    /// What changed from the version before.
    changes: Vec<String>,
    /// The file this version was written to (`--output-dir`).
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
}

/// Something that stopped the rebuild.
#[derive(Clone, Debug, Serialize)]
struct Stop {
    /// Where (a record's LSN, or where the WAL is damaged).
    lsn: String,
    /// The record (rmgr/type), when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<String>,
    /// Why.
    message: String,
}

/// The walk's state.
struct Walk<'a> {
    target: Target,
    config: &'a RebuildConfig,
    /// The current version (empty: none yet).
    page: Vec<u8>,
    /// Replay is stopped (a record could not be replayed) until a
    /// full-page image or an initialisation starts it again.
    stopped: bool,
    versions: Vec<Version>,
    stops: Vec<Stop>,
    /// Records for the block that were passed over while stopped.
    passed: usize,
    error: Option<Error>,
}

/// `0/16B3D28`.
fn lsn_text(pos: u64) -> String {
    lsn(pos).to_string()
}

/// `00000000-016B3D28`: an LSN as a file name.
fn lsn_file(pos: u64) -> String {
    format!("{:08X}-{:08X}", pos >> 32, pos as u32)
}

fn record_name(rec: &WalRecord) -> (String, String) {
    let rmgr = rec.rmgr_name().into_owned();
    let kind = identify(rec.rmid, rec.info)
        .map(str::to_string)
        .unwrap_or_else(|| format!("UNKNOWN (0x{:02X})", rec.info & 0xF0));
    (rmgr, kind)
}

impl Walk<'_> {
    fn record(&mut self, rec: &WalRecord, bytes: &[u8]) {
        if self.error.is_some() || self.config.upto.is_some_and(|u| rec.lsn >= u) {
            return;
        }
        let Some(b) = rec.blocks.iter().find(|b| self.target.matches(b)) else {
            return;
        };
        let restarts =
            b.image.as_ref().is_some_and(|i| i.apply()) || b.flags & BKPBLOCK_WILL_INIT != 0;
        if self.stopped && !restarts {
            self.passed += 1;
            return;
        }
        let before = self.page.clone();
        let (rmgr, kind) = record_name(rec);
        match redo::apply(&mut self.page, rec, bytes, b.id) {
            Ok(Applied::Skipped) => {}
            Ok(how) => {
                self.stopped = false;
                let mut changes = Vec::new();
                if how == Applied::Restored {
                    changes.push("full-page image".to_string());
                }
                describe(&before, &self.page, &mut changes);
                let mut v = Version {
                    lsn: lsn_text(rec.lsn),
                    pd_lsn: lsn_text(page::lsn(&self.page)),
                    rmgr,
                    record: kind,
                    changes,
                    file: None,
                };
                if self.config.history {
                    if let Some(dir) = &self.config.output_dir {
                        let path = dir.join(format!("{}.page", lsn_file(page::lsn(&self.page))));
                        if let Err(e) = std::fs::write(&path, &self.page) {
                            self.error = Some(Error::Io { path, source: e });
                            return;
                        }
                        v.file = Some(crate::escape::path(&path).to_string());
                    }
                    self.versions.push(v);
                }
            }
            Err(e) => {
                self.stops.push(Stop {
                    lsn: lsn_text(rec.lsn),
                    record: Some(format!("{rmgr}/{kind}")),
                    message: e.0,
                });
                // A page that never was stays absent; one that was keeps
                // its last good version.
                self.stopped = true;
            }
        }
    }

    fn problem(&mut self, p: &crate::model::postgres::wal::WalProblem) {
        if self
            .config
            .upto
            .is_some_and(|u| (u64::from(p.lsn.xlogid) << 32 | u64::from(p.lsn.xrecoff)) >= u)
        {
            return;
        }
        // Records of the block may be in the damaged part: replaying
        // later ones on this version would be a guess.
        self.stops.push(Stop {
            lsn: p.lsn.to_string(),
            record: None,
            message: format!("damaged WAL: {}", render::problem_line(p).trim_end()),
        });
        if !self.page.is_empty() {
            self.stopped = true;
        }
    }
}

/// What changed between two versions of a heap page, as a person reads
/// it: header fields, line pointers added, dead, unused, redirected,
/// tuples whose header changed, tuples moved.
fn describe(old: &[u8], new: &[u8], out: &mut Vec<String>) {
    if old.len() != new.len() || old.len() < page::SIZE_OF_PAGE_HEADER {
        if page::is_new(new) {
            out.push("page of zeros".into());
        } else if out.is_empty() {
            // Initialised by the record: what it added to an empty page.
            out.push("page initialised".into());
            let mut empty = vec![0u8; new.len()];
            page::init(&mut empty, new.len().saturating_sub(page::special(new)));
            describe(&empty, new, out);
        } else {
            out.push(format!(
                "{} line pointers, pd_lower {}, pd_upper {}",
                page::max_offset(new),
                page::lower(new),
                page::upper(new)
            ));
        }
        return;
    }
    if page::is_new(old) && !page::is_new(new) {
        out.push("page initialised".into());
    }
    let field = |out: &mut Vec<String>, name: &str, a: usize, b: usize| {
        if a != b {
            out.push(format!("{name} {a}→{b}"));
        }
    };
    field(out, "pd_lower", page::lower(old), page::lower(new));
    field(out, "pd_upper", page::upper(old), page::upper(new));
    field(out, "pd_special", page::special(old), page::special(new));
    let (fa, fb) = (page::flags(old), page::flags(new));
    for (bit, name) in [
        (page::PD_HAS_FREE_LINES, "PD_HAS_FREE_LINES"),
        (page::PD_PAGE_FULL, "PD_PAGE_FULL"),
        (page::PD_ALL_VISIBLE, "PD_ALL_VISIBLE"),
    ] {
        match (fa & bit != 0, fb & bit != 0) {
            (false, true) => out.push(format!("{name} set")),
            (true, false) => out.push(format!("{name} cleared")),
            _ => {}
        }
    }
    if page::prune_xid(old) != page::prune_xid(new) {
        out.push(format!(
            "pd_prune_xid {}→{}",
            page::prune_xid(old),
            page::prune_xid(new)
        ));
    }
    let n = page::max_offset(old).max(page::max_offset(new));
    let mut moved = 0;
    // (line pointer, what happened to it), merged into runs below.
    let mut lps: Vec<(u16, String)> = Vec::new();
    let mut lines = Vec::new();
    for off in 1..=n {
        let a = page::item_id(old, off);
        let b = page::item_id(new, off);
        let state = |id: page::ItemId| match id.flags {
            page::LP_UNUSED => "unused".to_string(),
            page::LP_NORMAL => "normal".to_string(),
            page::LP_REDIRECT => format!("redirected to {}", id.off),
            _ => "dead".to_string(),
        };
        match (a, b) {
            (Some(_), None) => lps.push((off, "removed".into())),
            (a, Some(b)) if a.is_none_or(|a| !a.is_used()) && b.is_normal() => {
                lps.push((off, format!("added ({} bytes)", b.len)))
            }
            (Some(a), Some(b))
                if a.flags != b.flags || (a.flags == page::LP_REDIRECT && a.off != b.off) =>
            {
                lps.push((off, state(b)))
            }
            (Some(a), Some(b)) if a.is_normal() && b.is_normal() => {
                if a.off != b.off {
                    moved += 1;
                }
                let (ra, rb) = (page::item_range(old, off), page::item_range(new, off));
                if let (Some(ra), Some(rb)) = (ra, rb) {
                    if let Some(c) = tuple_changes(&old[ra], &new[rb]) {
                        lps.push((off, c));
                    }
                }
            }
            _ => {}
        }
    }
    let mut runs: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lps.len() {
        let mut j = i;
        while j + 1 < lps.len() && lps[j + 1].0 == lps[j].0 + 1 && lps[j + 1].1 == lps[i].1 {
            j += 1;
        }
        runs.push(if j == i {
            format!("lp {} {}", lps[i].0, lps[i].1)
        } else {
            format!("lp {}-{} {}", lps[i].0, lps[j].0, lps[i].1)
        });
        i = j + 1;
    }
    runs.append(&mut lines);
    let mut lines = runs;
    if moved > 0 {
        lines.push(format!(
            "{moved} tuple{} moved",
            if moved == 1 { "" } else { "s" }
        ));
    }
    const MOST: usize = 16;
    let more = lines.len().saturating_sub(MOST);
    out.extend(lines.into_iter().take(MOST));
    if more > 0 {
        out.push(format!("… and {more} more"));
    }
    if out.is_empty() || (out.len() == 1 && out[0] == "full-page image") {
        let same = old.get(8..) == new.get(8..);
        out.push(
            if same {
                "no change"
            } else {
                "tuple data changed"
            }
            .into(),
        );
    }
}

/// A tuple's header fields that changed, if any did.
fn tuple_changes(a: &[u8], b: &[u8]) -> Option<String> {
    if a == b {
        return None;
    }
    let mut parts = Vec::new();
    let u32f = |t: &[u8], at| page::u32_at(t, at);
    let u16f = |t: &[u8], at| page::u16_at(t, at);
    if a.len() >= 23 && b.len() >= 23 {
        if u32f(a, 0) != u32f(b, 0) {
            parts.push(format!("t_xmin {}→{}", u32f(a, 0), u32f(b, 0)));
        }
        if u32f(a, 4) != u32f(b, 4) {
            parts.push(format!("t_xmax {}→{}", u32f(a, 4), u32f(b, 4)));
        }
        let ctid = |t: &[u8]| {
            format!(
                "({},{})",
                (u32::from(u16f(t, 12)) << 16) | u32::from(u16f(t, 14)),
                u16f(t, 16)
            )
        };
        if a[12..18] != b[12..18] {
            parts.push(format!("t_ctid {}→{}", ctid(a), ctid(b)));
        }
        if u16f(a, 18) != u16f(b, 18) {
            parts.push(format!(
                "t_infomask2 0x{:04X}→0x{:04X}",
                u16f(a, 18),
                u16f(b, 18)
            ));
        }
        if u16f(a, 20) != u16f(b, 20) {
            parts.push(format!(
                "t_infomask 0x{:04X}→0x{:04X}",
                u16f(a, 20),
                u16f(b, 20)
            ));
        }
        if a.len() != b.len() || a[23..] != b[23..] {
            parts.push("data".into());
        }
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// Is `out` (to be written) one of the inputs or inside one?
fn inside_inputs(out: &Path, inputs: &[PathBuf]) -> Option<PathBuf> {
    let resolve = |p: &Path| -> Option<PathBuf> {
        if let Ok(c) = p.canonicalize() {
            return Some(c);
        }
        let parent = p
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Some(parent.canonicalize().ok()?.join(p.file_name()?))
    };
    let out = resolve(out)?;
    inputs.iter().find_map(|i| {
        let i = i.canonicalize().ok()?;
        (out == i || out.starts_with(&i)).then_some(i)
    })
}

/// A line on standard error.
fn say(sink: &Sink, line: String) {
    sink.report(&format!("{line}\n"));
}

/// Run `wal --rebuild` / `--history`.
pub(crate) fn run(
    config: &Source<'_>,
    r: &RebuildConfig,
    sink: &mut Sink,
) -> Result<ExitCode, Error> {
    let table = config.table.map(|(_, t)| t);
    let blk = config
        .block
        .ok_or_else(|| Error::Usage("--rebuild and --history need --block N".into()))?;
    if table.is_none() && config.relation.is_none() {
        return Err(Error::Usage(
            "--rebuild and --history need --table SCHEMA.NAME or --relation SPC/DB/REL".into(),
        ));
    }
    for out in r.output.iter().chain(r.output_dir.iter()) {
        if let Some(i) = inside_inputs(out, config.paths) {
            return Err(Error::Usage(format!(
                "{}: inside the input {}; write the page somewhere else",
                crate::escape::path(out),
                crate::escape::path(&i)
            )));
        }
    }
    if let Some(dir) = &r.output_dir {
        std::fs::create_dir_all(dir).map_err(|e| Error::Io {
            path: dir.clone(),
            source: e,
        })?;
    }
    let set = WalSet::open(config.paths, config.seg_size)?;
    let target = Target {
        rel: config.relation,
        table,
        fork: r.fork,
        blk,
    };
    let mut walk = Walk {
        target,
        config: r,
        page: Vec::new(),
        stopped: false,
        versions: Vec::new(),
        stops: Vec::new(),
        passed: 0,
        error: None,
    };
    set.for_each(None, r.upto, &mut |item| match item {
        Item::Record(rec, bytes) => walk.record(rec, bytes),
        Item::Problem(p) => walk.problem(&p),
    });
    if let Some(e) = walk.error {
        return Err(e);
    }
    let what = format!(
        "block {blk} of {}{}",
        match (config.relation, config.table) {
            (Some(rel), _) => rel.to_string(),
            (None, Some((name, _))) => name.to_string(),
            _ => String::new(),
        },
        if r.fork == 0 {
            String::new()
        } else {
            format!(" ({} fork)", fork_name(r.fork))
        }
    );
    for s in &walk.stops {
        say(
            sink,
            format!(
                "blockscope: {}: {}{}: cannot replay: {}",
                what,
                s.lsn,
                s.record
                    .as_deref()
                    .map(|r| format!(" {r}"))
                    .unwrap_or_default(),
                s.message
            ),
        );
    }
    if walk.stopped && !walk.page.is_empty() {
        say(sink, format!(
            "blockscope: {what}: stopped at the version of {} ({} later record{} for the block not replayed)",
            lsn_text(page::lsn(&walk.page)),
            walk.passed,
            if walk.passed == 1 { "" } else { "s" }
        ));
    }
    let failed = walk.stopped || !walk.stops.is_empty() && walk.page.is_empty();
    if r.history {
        let mut out = io::BufWriter::new(sink.out());
        let w = |e: io::Error| super::stdout_error(e);
        match config.json {
            false => {
                for v in &walk.versions {
                    writeln!(
                        out,
                        "{:<12} {:<12} {:<28} {}",
                        v.lsn,
                        v.pd_lsn,
                        format!("{}/{}", v.rmgr, v.record),
                        v.changes.join(", ")
                    )
                    .map_err(w)?;
                }
            }
            true => {
                #[derive(Serialize)]
                struct Doc<'a> {
                    schema: u32,
                    block: u32,
                    fork: String,
                    versions: &'a [Version],
                    stops: &'a [Stop],
                }
                let doc = Doc {
                    schema: 1,
                    block: blk,
                    fork: fork_name(r.fork),
                    versions: &walk.versions,
                    stops: &walk.stops,
                };
                let text = serde_json::to_string(&doc).unwrap_or_default();
                writeln!(out, "{text}").map_err(w)?;
            }
        }
        out.flush().map_err(w)?;
    }
    if walk.page.is_empty() {
        say(sink, format!(
            "blockscope: {what}: no full-page image or initialisation of the block in the WAL{}; nothing written",
            r.upto.map(|u| format!(" before {}", lsn_text(u))).unwrap_or_default()
        ));
        return Ok(ExitCode::from(1));
    }
    if let Some(path) = &r.output {
        std::fs::write(path, &walk.page).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
