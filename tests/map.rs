//! `blockscope map`: every block's figures against what the test reads from
//! the raw bytes itself (pd_lower, pd_upper, the line pointer words, t_xmax;
//! Oracle's kdbh avsp), and every block's error count against the problems
//! `blockscope verify` reports for it — over the PostgreSQL relation files of
//! fixtures/postgres/corrupt (a real server's, damaged in known ways), copies
//! damaged here with `dd` as disks damage files, a relation in two segments,
//! single pages, and the Oracle datafiles. The SVG is rendered by resvg.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use common::{fixture, run};

const BS: usize = 8192;

fn u16_at(b: &[u8], at: usize) -> usize {
    usize::from(u16::from_le_bytes([b[at], b[at + 1]]))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// What a PostgreSQL relation's pages hold, for the test's own reading.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Rel {
    Heap,
    Btree,
    /// FSM and VM forks: no line pointers.
    Map,
}

/// The figures of one PostgreSQL page as this test reads them from its bytes.
#[derive(Debug, PartialEq)]
struct Raw {
    zero: bool,
    free: Option<i64>,
    lp: [u64; 4], // normal, dead, redirect, unused
    xmax_set: u64,
}

fn raw_pg(page: &[u8], rel: Rel) -> Raw {
    let mut raw = Raw {
        zero: page.iter().all(|&b| b == 0),
        free: None,
        lp: [0; 4],
        xmax_set: 0,
    };
    if raw.zero {
        return raw;
    }
    let (lower, upper, special) = (u16_at(page, 12), u16_at(page, 14), u16_at(page, 16));
    let version = u16_at(page, 18);
    let sane = lower >= 24
        && lower <= upper
        && upper <= special
        && special <= page.len()
        && version & 0xFF00 == page.len()
        && version & 0xFF == 4;
    if !sane {
        return raw;
    }
    raw.free = Some(upper as i64 - lower as i64);
    let lines = match rel {
        Rel::Heap => true,
        // btpo_flags: BTP_DELETED 0x4, BTP_META 0x8 keep other data there.
        Rel::Btree => u16_at(page, special + 12) & 0xC == 0,
        Rel::Map => false,
    };
    if !lines {
        return raw;
    }
    for i in 0..(lower - 24) / 4 {
        let word = u32_at(page, 24 + 4 * i);
        let (off, flags, len) = (
            (word & 0x7FFF) as usize,
            (word >> 15) & 3,
            (word >> 17) as usize,
        );
        match flags {
            1 => {
                raw.lp[0] += 1;
                if rel == Rel::Heap
                    && len >= 8
                    && off + 8 <= page.len()
                    && u32_at(page, off + 4) != 0
                {
                    raw.xmax_set += 1;
                }
            }
            3 => raw.lp[1] += 1,
            2 => raw.lp[2] += 1,
            _ => raw.lp[3] += 1,
        }
    }
    raw
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Error- and warning-level problems `verify --format ndjson` reports per block.
fn verify_counts(args: &[&str]) -> BTreeMap<u64, (u64, u64)> {
    let mut all = vec!["verify", "--format", "ndjson"];
    all.extend_from_slice(args);
    let out = run(&all);
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    let mut counts = BTreeMap::new();
    for p in json_lines(&out.stdout) {
        let (Some(blkno), Some(severity)) = (p["blkno"].as_u64(), p["severity"].as_str()) else {
            continue;
        };
        let e = counts.entry(blkno).or_insert((0, 0));
        match severity {
            "error" => e.0 += 1,
            "warning" => e.1 += 1,
            _ => {}
        }
    }
    counts
}

/// `map --format ndjson`: the blocks, the summary, the exit status.
fn map_ndjson(args: &[&str]) -> (Vec<Value>, Value, i32) {
    let mut all = vec!["map", "--format", "ndjson"];
    all.extend_from_slice(args);
    let out = run(&all);
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    let mut lines = json_lines(&out.stdout);
    let last = lines.pop().expect("a summary line");
    assert_eq!(last["schema"], 3, "the summary line carries the schema");
    let summary = last["summary"].clone();
    (lines, summary, out.code)
}

/// Every block of a PostgreSQL relation file mapped: each block against the
/// test's reading of `bytes` and against verify's problems for it.
fn check_pg_file(path: &Path, rel: Rel, first_blkno: u64, bytes: &[u8]) {
    let p = path.to_str().unwrap();
    let (blocks, summary, code) = map_ndjson(&[p]);
    let verify = verify_counts(&[p]);
    assert_eq!(blocks.len(), bytes.len() / BS, "{p}");
    let mut any_errors = false;
    for (i, (b, page)) in blocks.iter().zip(bytes.chunks_exact(BS)).enumerate() {
        let blkno = first_blkno + i as u64;
        let raw = raw_pg(page, rel);
        let at = format!("{p} block {blkno}: {b}");
        assert_eq!(b["blkno"], blkno, "{at}");
        assert_eq!(b["zero"], raw.zero, "{at}");
        assert_eq!(b["free"].as_i64(), raw.free, "{at}");
        let lp =
            ["lp_normal", "lp_dead", "lp_redirect", "lp_unused"].map(|k| b[k].as_u64().unwrap());
        assert_eq!(lp, raw.lp, "{at}");
        assert_eq!(b["xmax_set"], raw.xmax_set, "{at}");
        let (errors, warnings) = verify.get(&blkno).copied().unwrap_or((0, 0));
        assert_eq!(b["errors"], errors, "{at}");
        assert_eq!(b["warnings"], warnings, "{at}");
        any_errors |= errors > 0;
        if raw.zero {
            assert_eq!(b["kind"], "new", "{at}");
            assert_eq!(b["checksum"], "not-applicable", "{at}");
        }
    }
    assert_eq!(summary["blocks"], blocks.len() as u64);
    assert_eq!(summary["engine"], "postgresql");
    // Exit 1 exactly when verify fails (a block with errors, a partial block).
    let verify_code = run(&["verify", p]).code;
    assert_eq!(code, verify_code, "{p}");
    if any_errors {
        assert_eq!(code, 1, "{p}");
    }
}

fn rel_of(name: &str) -> Option<Rel> {
    if name.contains("_fsm") || name.contains("_vm") {
        return Some(Rel::Map);
    }
    let base = name.split('.').next()?;
    match base {
        "16384" | "16391" => Some(Rel::Heap),
        "16389" => Some(Rel::Btree),
        _ => None,
    }
}

#[test]
fn every_block_of_the_fixture_relations() {
    let corrupt = fixture("postgres/corrupt");
    let mut files = 0;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&corrupt)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            let Some(rel) = rel_of(&name) else { continue };
            let bytes = std::fs::read(&path).unwrap();
            if name.contains('.') {
                // A later segment given alone: its block numbers come from the suffix.
                let seg: u64 = name.rsplit('.').next().unwrap().parse().unwrap();
                check_pg_file(&path, rel, seg * 131_072, &bytes);
            } else {
                check_pg_file(&path, rel, 0, &bytes);
            }
            files += 1;
        }
    }
    assert!(files >= 20, "only {files} relation files found");
}

/// A copy of a clean relation, damaged with `dd` as disks damage files.
#[test]
fn dd_damaged_copies() {
    let dir = tempdir("dd");
    let clean = fixture("postgres/corrupt/clean/16384");
    let path = dir.join("16384");
    std::fs::copy(&clean, &path).unwrap();
    let dd = |args: &[&str]| {
        let status = Command::new("dd")
            .args(args)
            .arg(format!("of={}", path.display()))
            .args(["conv=notrunc", "status=none"])
            .status()
            .expect("dd");
        assert!(status.success());
    };
    // Block 4 zeroed (a lost write of a whole block).
    dd(&["if=/dev/zero", "bs=8192", "seek=4", "count=1"]);
    // Block 1 torn: its second half from block 3 (8 sectors of another write).
    dd(&[
        &format!("if={}", clean.display()),
        "bs=4096",
        "skip=7",
        "seek=3",
        "count=1",
    ]);
    // Block 5: its last 512-byte sector zeroed.
    dd(&["if=/dev/zero", "bs=512", "seek=95", "count=1"]);
    let bytes = std::fs::read(&path).unwrap();
    check_pg_file(&path, Rel::Heap, 0, &bytes);
    let (blocks, summary, code) = map_ndjson(&[path.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(blocks[4]["zero"], true);
    assert_eq!(blocks[1]["checksum"], "bad");
    assert_eq!(blocks[5]["checksum"], "bad");
    assert_eq!(blocks[0]["checksum"], "ok");
    assert_eq!(summary["zero_blocks"], 1);
    assert!(summary["damaged_blocks"].as_u64().unwrap() >= 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A relation file and its second segment: both read, in order, from the first's name.
#[test]
fn all_segments_of_a_relation() {
    let dir = tempdir("segments");
    std::fs::copy(fixture("postgres/corrupt/clean/16384"), dir.join("16384")).unwrap();
    std::fs::copy(
        fixture("postgres/corrupt/segment/16384.1"),
        dir.join("16384.1"),
    )
    .unwrap();
    let first = dir.join("16384");
    let (blocks, summary, code) = map_ndjson(&[first.to_str().unwrap()]);
    let blknos: Vec<u64> = blocks
        .iter()
        .map(|b| b["blkno"].as_u64().unwrap())
        .collect();
    assert_eq!(blknos, vec![0, 1, 2, 3, 4, 5, 131_072, 131_073, 131_074]);
    assert_eq!(code, 0, "{summary}");
    assert_eq!(summary["files"].as_array().unwrap().len(), 2);
    assert_eq!(blocks[8]["zero"], true);
    assert!(blocks[..8].iter().all(|b| b["checksum"] == "ok"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Single pages and pages put together: heap pages with HOT redirects and
/// dead items, a btree index's pages in one file.
#[test]
fn pages_and_concatenated_pages() {
    for name in ["hot_update.0", "vacuum_pruned.0", "delete.0", "row_locks.0"] {
        let path = fixture(&format!("postgres/heap/{name}.page"));
        let bytes = std::fs::read(&path).unwrap();
        check_pg_file(&path, Rel::Heap, 0, &bytes);
    }
    let dir = tempdir("btree");
    let mut bytes = Vec::new();
    for i in 0..=10 {
        bytes.extend(
            std::fs::read(fixture(&format!("postgres/btree/bt_deleted.{i}.page"))).unwrap(),
        );
    }
    let path = dir.join("bt_deleted");
    std::fs::write(&path, &bytes).unwrap();
    check_pg_file(&path, Rel::Btree, 0, &bytes);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn redirects_and_dead_items_are_counted() {
    // The fixtures' pageinspect rows say which states their line pointers have.
    for name in ["hot_update.0", "vacuum_pruned.0"] {
        let page = fixture(&format!("postgres/heap/{name}.page"));
        let (blocks, _, _) = map_ndjson(&[page.to_str().unwrap()]);
        let doc: Value = serde_json::from_slice(
            &std::fs::read(fixture(&format!("postgres/heap/{name}.json"))).unwrap(),
        )
        .unwrap();
        let items = doc["heap_page_items"].as_array().expect("heap_page_items");
        let count = |flag: u64| items.iter().filter(|i| i["lp_flags"] == flag).count() as u64;
        assert_eq!(blocks[0]["lp_normal"], count(1), "{name}");
        assert_eq!(blocks[0]["lp_redirect"], count(2), "{name}");
        assert_eq!(blocks[0]["lp_dead"], count(3), "{name}");
        assert_eq!(blocks[0]["lp_unused"], count(0), "{name}");
    }
}

/// Oracle datafiles: zero blocks, kinds and table blocks' avsp read here,
/// errors against verify's report.
#[test]
fn oracle_datafiles() {
    for name in [
        "planted.dbf",
        "damaged/torn_half.dbf",
        "damaged/logline.dbf",
    ] {
        let path = fixture(&format!("oracle/{name}"));
        let p = path.to_str().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let (blocks, summary, code) = map_ndjson(&[p]);
        let verify = verify_counts(&[p]);
        assert_eq!(blocks.len(), bytes.len() / BS, "{name}");
        assert_eq!(summary["engine"], "oracle");
        let mut damaged = 0;
        for (i, (b, block)) in blocks.iter().zip(bytes.chunks_exact(BS)).enumerate() {
            let at = format!("{name} block {i}: {b}");
            assert_eq!(b["blkno"], i as u64, "{at}");
            assert_eq!(b["zero"], block.iter().all(|&x| x == 0), "{at}");
            let (errors, warnings) = verify.get(&(i as u64)).copied().unwrap_or((0, 0));
            assert_eq!(b["errors"], errors, "{at}");
            assert_eq!(b["warnings"], warnings, "{at}");
            damaged += u64::from(errors > 0);
            // A table block (type 6, ktbbhtyp 1): kdbh after the 20-byte kcbh,
            // the 24-byte ktbbh, 24 bytes per ITL (count at 36) and, when the
            // ktbbh flag (at 38) has 0x30, 8 bytes of ASSM extension; avsp at +10.
            if b["kind"] == "table" {
                let itc = usize::from(block[36]);
                let kdbh = 44 + 24 * itc + if block[38] & 0x30 != 0 { 8 } else { 0 };
                let avsp = i16::from_le_bytes([block[kdbh + 10], block[kdbh + 11]]);
                assert_eq!(b["free"], i64::from(avsp), "{at}");
                assert_eq!(block[0], 6, "{at}");
            }
            if i == 0 {
                assert_eq!(b["kind"], "os-header", "{at}");
            }
        }
        assert_eq!(summary["damaged_blocks"], damaged);
        assert_eq!(code, i32::from(damaged > 0), "{name}");
    }
}

#[test]
fn json_document_is_the_ndjson_lines() {
    let p = fixture("postgres/corrupt/torn/16384");
    let p = p.to_str().unwrap();
    let out = run(&["map", "--format", "json", p]);
    assert_eq!(out.code, 1);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["schema"], 3);
    let (blocks, summary, _) = map_ndjson(&[p]);
    assert_eq!(doc["blocks"], Value::Array(blocks));
    assert_eq!(doc["summary"], summary);
    // Byte for byte what serde_json's pretty printer writes.
    assert_eq!(
        out.stdout,
        serde_json::to_string_pretty(&doc).unwrap() + "\n"
    );
}

#[test]
fn terminal_grid_in_a_pipe_is_plain() {
    let p = fixture("postgres/corrupt/bitflip/16384");
    let out = run(&["map", p.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert!(!out.stdout.contains('\x1b'), "{}", out.stdout);
    let grid = out.stdout.lines().nth(1).unwrap();
    // Block 2 carries the bit flip.
    assert_eq!(
        grid.split_whitespace().collect::<Vec<_>>(),
        ["0", &grid[2..]]
    );
    assert_eq!(grid.chars().nth(2 + 2), Some('X'), "{grid}");
    assert!(out.stdout.contains("legend:"));
    // Forced colour has escape codes; NO_COLOR does not override --color always.
    let out = run(&["map", "--color", "always", p.to_str().unwrap()]);
    assert!(out.stdout.contains("\x1b["));
    let never = common::command()
        .args(["map", "--color", "auto", p.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&never.stdout).contains('\x1b'));
}

/// A file of many blocks: cells aggregate blocks, the grid fits COLUMNS.
#[test]
fn large_files_aggregate_and_fit_the_width() {
    let dir = tempdir("large");
    let clean = std::fs::read(fixture("postgres/corrupt/clean/16384")).unwrap();
    let bitflip = std::fs::read(fixture("postgres/corrupt/bitflip/16384")).unwrap();
    // 6,000 blocks of a clean relation (checksums do not match their new
    // numbers: --checksums off), one damaged block's structure kept.
    let mut bytes = Vec::new();
    for i in 0..1000 {
        bytes.extend_from_slice(if i == 500 { &bitflip } else { &clean });
    }
    // Make block 3001 structurally broken: pd_lower above pd_upper.
    let at = 3001 * BS + 12;
    bytes[at..at + 2].copy_from_slice(&9000u16.to_le_bytes());
    let path = dir.join("big");
    std::fs::write(&path, &bytes).unwrap();
    let p = path.to_str().unwrap();
    for width in [40usize, 80, 132] {
        let out = common::command()
            .args(["map", "--checksums", "off", p])
            .env("COLUMNS", width.to_string())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let text = String::from_utf8(out.stdout).unwrap();
        let head = text.lines().next().unwrap();
        assert!(head.contains("6000 blocks"), "{head}");
        let per_cell: u64 = head
            .rsplit(", ")
            .next()
            .and_then(|t| t.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{head}"));
        assert!(per_cell > 1, "{head}");
        let rows: Vec<&str> = text
            .lines()
            .skip(1)
            .take_while(|l| !l.starts_with("legend"))
            .collect();
        let cells: usize = rows
            .iter()
            .map(|r| r.split_whitespace().nth(1).unwrap().len())
            .sum();
        assert_eq!(cells as u64, 6000u64.div_ceil(per_cell), "{text}");
        for r in &rows {
            assert!(r.chars().count() <= width, "{width}: {r}");
        }
        // Row labels step by cells a row × blocks a cell.
        let labels: Vec<u64> = rows
            .iter()
            .map(|r| r.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        let step = labels[1] - labels[0];
        assert!(labels.windows(2).all(|w| w[1] - w[0] == step), "{labels:?}");
        // The damaged block's cell is marked.
        let flat: String = rows
            .iter()
            .map(|r| r.split_whitespace().nth(1).unwrap())
            .collect();
        let cell = (3001 / per_cell) as usize;
        assert_eq!(flat.chars().nth(cell), Some('X'), "{text}");
        assert_eq!(flat.matches('X').count(), 1, "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--shade dead`: cells shaded by the share of line pointers dead or
/// holding a tuple with t_xmax set, read here from the page.
#[test]
fn shade_dead_shows_what_vacuum_may_reclaim() {
    const RAMP: [char; 9] = ['.', ':', '-', '=', '+', '*', '#', '%', '@'];
    for name in [
        "vacuum_pruned.0",
        "delete.0",
        "hot_update.0",
        "plain_insert.0",
    ] {
        let path = fixture(&format!("postgres/heap/{name}.page"));
        let raw = raw_pg(&std::fs::read(&path).unwrap(), Rel::Heap);
        let fraction = (raw.lp[1] + raw.xmax_set) as f64 / (raw.lp[0] + raw.lp[1]) as f64;
        let out = run(&[
            "map",
            "--shade",
            "dead",
            "--checksums",
            "off",
            path.to_str().unwrap(),
        ]);
        let grid = out.stdout.lines().nth(1).unwrap();
        let want = RAMP[((fraction * 9.0) as usize).min(8)];
        assert_eq!(grid, format!("0 {want}"), "{name}: {raw:?}\n{}", out.stdout);
        assert!(out.stdout.contains("dead or xmax set"), "{}", out.stdout);
    }
}

fn svg_of(args: &[&str]) -> (String, i32) {
    let mut all = vec!["map", "--format", "svg"];
    all.extend_from_slice(args);
    let out = run(&all);
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    (out.stdout, out.code)
}

/// Parsed as XML, every cell's hover title read back, rendered by resvg.
fn check_svg(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not well-formed: {e}"));
    let titles: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .filter_map(|r| r.children().find(|c| c.has_tag_name("title")))
        .map(|t| t.text().unwrap_or("").to_string())
        .collect();
    let opt = resvg::usvg::Options::default();
    let tree = resvg::usvg::Tree::from_str(svg, &opt).expect("usvg parses the map");
    let size = tree.size().to_int_size();
    assert!(size.width() > 0 && size.height() > 0);
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    // Something was drawn: not every pixel is the white background.
    assert!(pixmap.pixels().iter().any(|p| p.red() < 200));
    titles
}

#[test]
fn svg_parses_renders_and_says_what_each_cell_holds() {
    let p = fixture("postgres/corrupt/bitflip/16384");
    let (svg, code) = svg_of(&[p.to_str().unwrap()]);
    assert_eq!(code, 1);
    let titles = check_svg(&svg);
    assert_eq!(titles.len(), 6, "{titles:?}");
    assert!(titles[2].starts_with("block 2: heap"), "{}", titles[2]);
    assert!(titles[2].contains("1 error"), "{}", titles[2]);
    assert!(svg.contains("one cell = 1 block"));
    // A damaged cell is red.
    assert!(svg.contains("#d62728\"><title>block 2"));
}

#[test]
fn svg_escapes_file_names_and_aggregates_large_files() {
    let dir = tempdir("svg");
    let path = dir.join("a<b>&\"c'.rel");
    let clean = std::fs::read(fixture("postgres/corrupt/clean/16384")).unwrap();
    let mut bytes = Vec::new();
    for _ in 0..2000 {
        bytes.extend_from_slice(&clean);
    }
    std::fs::write(&path, &bytes).unwrap();
    let (svg, _) = svg_of(&["--checksums", "off", path.to_str().unwrap()]);
    assert!(
        svg.contains("a&lt;b&gt;&amp;&quot;c&apos;.rel"),
        "{}",
        &svg[..600]
    );
    let titles = check_svg(&svg);
    assert!(
        titles.len() <= 64 * 64 && titles.len() >= 12_000 / 4,
        "{}",
        titles.len()
    );
    assert!(svg.contains("one cell = 4 blocks"), "{}", &svg[..800]);
    assert!(
        titles[1].starts_with("blocks 4–7 (4 blocks): heap"),
        "{}",
        titles[1]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn usage_errors_exit_2() {
    let out = run(&["map", fixture("postgres/corrupt").to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("directory"), "{}", out.stderr);
    let out = run(&["map", "/nonexistent/16384"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
}

fn tempdir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blockscope-map-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `name|database|database oid|table oid|relfilenode|…` lines of a catalog
/// fixture's tables.txt (written by its make.sh from the server's pg_class).
fn catalog_tables(major: u32) -> Vec<Vec<String>> {
    let text =
        std::fs::read_to_string(fixture(&format!("postgres/catalog/{major}/tables.txt"))).unwrap();
    text.lines()
        .map(|l| l.split('|').map(str::to_string).collect())
        .collect()
}

#[test]
fn a_data_directorys_table_found_through_its_catalogs() {
    let datadir = fixture("postgres/catalog/18/datadir");
    let d = datadir.to_str().unwrap();
    let tables = catalog_tables(18);
    assert!(!tables.is_empty());
    let mut mapped = 0;
    for t in &tables {
        let (name, database, db_oid, relfilenode) = (&t[0], &t[1], &t[2], &t[4]);
        let file = datadir.join(format!("base/{db_oid}/{relfilenode}"));
        // The committed data directory holds database postgres's files only.
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        if bytes.is_empty() {
            continue;
        }
        let out = run(&[
            "map",
            d,
            "--table",
            name,
            "--database",
            database,
            "-f",
            "ndjson",
        ]);
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        assert!(
            out.stderr.contains(&file.display().to_string()),
            "{}",
            out.stderr
        );
        let mut lines = json_lines(&out.stdout);
        let summary = lines.pop().unwrap()["summary"].clone();
        assert_eq!(lines.len(), bytes.len() / BS, "{name}");
        assert_eq!(summary["files"][0], file.display().to_string());
        for (i, (b, page)) in lines.iter().zip(bytes.chunks_exact(BS)).enumerate() {
            let raw = raw_pg(page, Rel::Heap);
            let at = format!("{name} block {i}: {b}");
            assert_eq!(b["blkno"], i as u64, "{at}");
            assert_eq!(b["free"].as_i64(), raw.free, "{at}");
            let lp = ["lp_normal", "lp_dead", "lp_redirect", "lp_unused"]
                .map(|k| b[k].as_u64().unwrap());
            assert_eq!(lp, raw.lp, "{at}");
            assert_eq!(b["xmax_set"], raw.xmax_set, "{at}");
            mapped += 1;
        }
        // The same figures as the map of the file itself.
        let direct = run(&["map", file.to_str().unwrap(), "-f", "ndjson"]);
        let direct_blocks = json_lines(&direct.stdout);
        assert_eq!(&direct_blocks[..lines.len()], &lines[..], "{name}");
        // The picture is titled by the table.
        let term = run(&["map", d, "--table", name, "--database", database]);
        assert!(
            term.stdout.starts_with(&format!("{name}: ")),
            "{}",
            term.stdout
        );
    }
    assert!(mapped > 0);
    let out = run(&["map", d, "--table", "public.nope"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("public.nope is not in pg_class"),
        "{}",
        out.stderr
    );
    let out = run(&[
        "map",
        fixture("postgres/corrupt/clean/16384").to_str().unwrap(),
        "--table",
        "t",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
}

/// A trace's blocks in order, as its formatted text gives them: block number
/// (`rdba: 0x… (file/block)` of the `buffer` line), free space (`avsp=0x…`
/// of a table block, `kdxcoavs N` of an index block) and rows (`nrow=N`,
/// `kdxconro N`).
fn trace_text_blocks(text: &str) -> Vec<(u64, i64, u64)> {
    let mut blocks: Vec<(u64, i64, u64)> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with("buffer tsn:") {
            let inside = line.rsplit_once('(').unwrap().1.trim_end_matches(')');
            let blkno = inside.split_once('/').unwrap().1.parse().unwrap();
            blocks.push((blkno, -1, 0));
        } else if let Some(h) = line.strip_prefix("avsp=0x") {
            blocks.last_mut().unwrap().1 = i64::from_str_radix(h, 16).unwrap();
        } else if let Some(n) = line.strip_prefix("kdxcoavs ") {
            blocks.last_mut().unwrap().1 = n.parse().unwrap();
        } else if let Some(n) = line.strip_prefix("nrow=") {
            blocks.last_mut().unwrap().2 = n.parse().unwrap();
        } else if let Some(n) = line.strip_prefix("kdxconro ") {
            blocks.last_mut().unwrap().2 = n.parse().unwrap();
        }
    }
    blocks
}

#[test]
fn oracle_traces_are_mapped_block_by_block() {
    for name in [
        "planted_2_9_8.trc",
        "planted_2_9_8.utf16le-bom.trc",
        "block_5_907.trc",
        "published_11g_32bit_4_13171.trc",
        "published_19c_12_3126.trc",
        "published_19c_12_3126.disk-differs.trc",
    ] {
        let path = fixture(&format!("oracle/trace/{name}"));
        let p = path.to_str().unwrap();
        let (blocks, summary, code) = map_ndjson(&[p]);
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).replace('\0', "");
        let expected = trace_text_blocks(&text);
        assert_eq!(blocks.len(), expected.len(), "{name}");
        assert_eq!(summary["engine"], "oracle");
        assert_eq!(summary["blocks"], expected.len() as u64);
        // Errors and warnings per block number, as verify reports them.
        let verify = verify_counts(&[p]);
        let mut counted: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
        for (b, (blkno, free, rows)) in blocks.iter().zip(&expected) {
            let at = format!("{name}: {b}");
            assert_eq!(b["blkno"], *blkno, "{at}");
            assert_eq!(b["free"], *free, "{at}");
            let listed = b["rows_live"].as_u64().unwrap() + b["rows_deleted"].as_u64().unwrap();
            assert_eq!(listed, *rows, "{at}");
            let e = counted.entry(*blkno).or_default();
            e.0 += b["errors"].as_u64().unwrap();
            e.1 += b["warnings"].as_u64().unwrap();
        }
        counted.retain(|_, v| *v != (0, 0));
        assert_eq!(counted, verify, "{name}");
        let failed = counted.values().any(|v| v.0 > 0);
        assert_eq!(code, i32::from(failed), "{name}");
        assert_eq!(run(&["verify", p]).code, code, "{name}");
        // The pictures draw the same blocks.
        let (svg, _) = svg_of(&[p]);
        let titles = check_svg(&svg);
        assert_eq!(titles.len(), expected.len(), "{name}: {titles:?}");
        for (t, (blkno, _, _)) in titles.iter().zip(&expected) {
            assert!(t.starts_with(&format!("block {blkno}: ")), "{name}: {t}");
        }
    }
    // A trace of formatted text only has no bytes to check: an error, as in verify.
    let text_only = fixture("oracle/trace/published_11g_32bit_4_13171.text.trc");
    let out = run(&["map", text_only.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("no block bytes"), "{}", out.stderr);
}

/// Whether `prog` is on PATH.
fn on_path(prog: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(prog))
            .find(|p| p.is_file())
    })
}

/// Issue 17: `map` of a 256 MiB relation (the fixture's pages repeated)
/// under an address-space limit of half its size, in every picture format:
/// the blocks stream past, only the bounded grid is held.
#[test]
fn a_large_relation_is_mapped_in_bounded_memory() {
    if on_path("prlimit").is_none() {
        eprintln!("prlimit not found: the memory-bounded map test is skipped");
        return;
    }
    const LIMIT: u64 = 128 << 20;
    let dir = tempdir("bounded");
    let path = dir.join("16384");
    let pages = std::fs::read(fixture("postgres/corrupt/clean/16384")).unwrap();
    let copies = (256 << 20) / pages.len() + 1;
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for _ in 0..copies {
            f.write_all(&pages).unwrap();
        }
    }
    let blocks = (copies * pages.len() / BS) as u64;
    assert!(blocks * BS as u64 >= 2 * LIMIT);
    for format in ["term", "svg", "json"] {
        let out = Command::new("prlimit")
            .arg(format!("--as={LIMIT}"))
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_blockscope"))
            .args([
                "map",
                "--checksums",
                "off",
                "--color",
                "never",
                "-f",
                format,
            ])
            .arg(&path)
            .env("MALLOC_ARENA_MAX", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{format}: {stderr}");
        match format {
            "term" => assert!(
                stdout.contains(&format!("{blocks} blocks of 8192 bytes")),
                "{stdout}"
            ),
            "svg" => {
                let titles = check_svg(&stdout);
                assert!(titles.len() <= 64 * 64, "{}", titles.len());
            }
            _ => {
                let doc: Value = serde_json::from_str(&stdout).unwrap();
                assert_eq!(doc["summary"]["blocks"], blocks);
                assert_eq!(doc["blocks"].as_array().unwrap().len() as u64, blocks);
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 17: the SVG opened by a real browser. Runs when `chromium` is on
/// PATH (Debian's package); otherwise says it is skipped. CI does not
/// install it (155 MB of packages, 480 MB on disk): there resvg renders every
/// SVG of this file. Chromium takes a
/// screenshot of the map of a damaged relation, and its DOM of the file
/// shows no XML parse error (a browser draws those into the page instead of
/// failing).
#[test]
fn svg_opens_in_a_headless_browser() {
    let Some(chromium) = on_path("chromium") else {
        eprintln!("chromium not found on PATH: the headless-browser SVG test is skipped");
        return;
    };
    let dir = tempdir("chromium");
    let svg_path = dir.join("map.svg");
    let png_path = dir.join("map.png");
    let (svg, _) = svg_of(&[fixture("postgres/corrupt/bitflip/16384").to_str().unwrap()]);
    std::fs::write(&svg_path, &svg).unwrap();
    let browser = |extra: &[String]| {
        let profile = dir.join(format!("profile-{}", extra.len()));
        std::fs::create_dir_all(&profile).unwrap();
        let mut child = Command::new(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(extra)
            .arg(&svg_path)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > std::time::Duration::from_secs(180) {
                let _ = child.kill();
                panic!("chromium did not finish in 180 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        child.wait_with_output().unwrap()
    };
    let shot = browser(&[format!("--screenshot={}", png_path.display())]);
    let stderr = String::from_utf8_lossy(&shot.stderr);
    assert!(shot.status.success(), "{:?}: {stderr}", shot.status);
    let png = std::fs::read(&png_path).unwrap_or_else(|e| panic!("no screenshot ({e}): {stderr}"));
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let (w, h) = (u32_at_be(&png, 16), u32_at_be(&png, 20));
    assert!(
        w > 0 && h > 0 && png.len() > 1000,
        "{w}x{h}, {} bytes",
        png.len()
    );
    let dom = browser(&["--dump-dom".to_string()]);
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.status.success(),
        "{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    assert!(dom_text.contains("<svg"), "{dom_text}");
    assert!(!dom_text.contains("parsererror"), "{dom_text}");
    assert!(dom_text.contains("block 2: heap"), "{dom_text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn u32_at_be(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
