//! Answers on real server pages that say only what the page proves (issue 11,
//! points 5 and 6): heap verdicts read from hint bits, and checksums read in
//! the context the page came from.

use std::path::{Path, PathBuf};

use blockscope::model::postgres::{HeapItem, PgPage};
use blockscope::model::Severity;
use blockscope::postgres::{candidate_blocks, checksum_block, fitting_blocks};
use blockscope::postgres::{parse_page, PageOptions};
use blockscope::Endian;

mod common;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures/postgres").join(rel)
}

fn page_bytes(rel: &str) -> Vec<u8> {
    std::fs::read(fixture(rel)).unwrap()
}

fn parse(rel: &str) -> PgPage {
    parse_page(&page_bytes(rel), &PageOptions::default())
}

fn verdicts(page: &PgPage) -> Vec<String> {
    page.items.iter().map(|i| i.verdict.to_string()).collect()
}

fn item(page: &PgPage, lp: u16) -> &HeapItem {
    &page.items[usize::from(lp) - 1]
}

fn verdict(page: &PgPage, lp: u16) -> String {
    item(page, lp).verdict.to_string()
}

const XMIN_COMMITTED: u16 = 0x0100;
const XMIN_INVALID: u16 = 0x0200;
const XMAX_COMMITTED: u16 = 0x0400;
const XMAX_INVALID: u16 = 0x0800;
const XMAX_LOCK_ONLY: u16 = 0x0080;
const XMAX_EXCL_LOCK: u16 = 0x0040;
const XMAX_IS_MULTI: u16 = 0x1000;

// --- verdicts (point 6) -----------------------------------------------------

#[test]
fn a_rolled_back_delete_without_its_hint_is_not_called_a_delete() {
    // delete: ids 2 and 5 deleted by 746 (committed, hinted); id 4 deleted by
    // 747, rolled back, its xmax not yet hinted.
    let page = parse("heap/delete.0.page");
    assert_eq!(
        verdict(&page, 2),
        "xmin 745 committed; deleted by 746 committed"
    );
    assert_eq!(
        verdict(&page, 4),
        "xmin 745 committed; deleted by 747 if 747 committed (commit status not on the page)"
    );
    assert_eq!(verdict(&page, 1), "xmin 745 committed; xmax invalid: live");
}

#[test]
fn an_unhinted_update_names_no_next_version() {
    let page = parse("heap/hot_update.0.page");
    assert_eq!(
        verdict(&page, 1),
        "xmin 734 committed; HOT-updated by 735 committed; next version at (0,6)"
    );
    // 738's commit is not hinted on lp 3: the update is said conditionally.
    let v = verdict(&page, 3);
    assert_eq!(
        v,
        "xmin 734 committed; HOT-updated by 738 if 738 committed (commit status not on the page)"
    );
    // The new version's own xmin is unhinted: it is live only if 738 committed.
    assert_eq!(
        verdict(&page, 9),
        "xmin 738 (commit status not on the page); xmax invalid: live if 738 committed; \
         heap-only tuple"
    );
}

#[test]
fn after_a_rolled_back_update_the_old_version_is_live() {
    // The real page of hot_update with lp 3's xmax hinted aborted, as
    // PostgreSQL hints it after the updating transaction rolled back: the
    // HEAP_HOT_UPDATED bit and t_ctid stay.
    let mut bytes = page_bytes("heap/hot_update.0.page");
    let page = parse_page(&bytes, &PageOptions::default());
    let lp_off = usize::from(item(&page, 3).id.lp_off);
    let m = u16::from_le_bytes([bytes[lp_off + 20], bytes[lp_off + 21]]) | XMAX_INVALID;
    bytes[lp_off + 20..lp_off + 22].copy_from_slice(&m.to_le_bytes());
    let page = parse_page(&bytes, &PageOptions::default());
    assert_eq!(
        verdict(&page, 3),
        "xmin 734 committed; xmax 738 aborted: live"
    );
}

#[test]
fn an_aborted_insert_is_dead_and_unhinted_ones_are_conditional() {
    // rolled_back_insert: 2-5 inserted by 750, rolled back; only 3 is hinted.
    let page = parse("heap/rolled_back_insert.0.page");
    assert_eq!(verdict(&page, 3), "xmin 750 aborted; dead (insert aborted)");
    for lp in [2, 4, 5] {
        assert_eq!(
            verdict(&page, lp),
            "xmin 750 (commit status not on the page); xmax invalid: live if 750 committed"
        );
    }
}

#[test]
fn locks_are_locks_and_frozen_is_frozen() {
    let page = parse("heap/row_locks.0.page");
    let v = verdicts(&page);
    assert_eq!(
        v[0],
        "xmin 788 committed; locked by multixact 1 (FOR SHARE)"
    );
    assert_eq!(
        v[1],
        "xmin 788 committed; locked by 791 (FOR UPDATE), not deleted"
    );
    assert_eq!(
        v[2],
        "xmin 788 committed; locked by 792 (FOR KEY SHARE), not deleted"
    );
    assert_eq!(
        v[3],
        "xmin 788 committed; locked by 793 (FOR NO KEY UPDATE), not deleted"
    );
    for v in verdicts(&parse("heap/vacuum_freeze.0.page")) {
        assert!(
            v == "unused" || v.starts_with("xmin 759 frozen; xmax invalid: live"),
            "{v}"
        );
    }
}

/// Every heap and attrs fixture page.
fn heap_pages() -> Vec<String> {
    let mut names = Vec::new();
    for dir in ["heap", "attrs"] {
        for e in std::fs::read_dir(fixture(dir)).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".page") {
                names.push(format!("{dir}/{name}"));
            }
        }
    }
    names.sort();
    names
}

#[test]
fn every_verdict_agrees_with_the_hint_bits() {
    let mut tuples = 0;
    for name in heap_pages() {
        let page = parse(&name);
        for item in &page.items {
            let Some(t) = &item.tuple else { continue };
            tuples += 1;
            let h = &t.header;
            let m = h.t_infomask;
            let v = item.verdict.to_string();
            let xmin_hinted = m & (XMIN_COMMITTED | XMIN_INVALID) != 0;
            assert_eq!(
                v.starts_with(&format!(
                    "xmin {} (commit status not on the page)",
                    h.t_xmin
                )),
                !xmin_hinted && h.t_xmin > 2,
                "{name} lp {}: {v}",
                item.id.lp
            );
            let lock_only = m & XMAX_LOCK_ONLY != 0
                || m & (XMAX_IS_MULTI | XMAX_EXCL_LOCK | 0x0010) == XMAX_EXCL_LOCK;
            let xmax_unhinted =
                h.t_xmax != 0 && m & (XMAX_COMMITTED | XMAX_INVALID) == 0 && !lock_only;
            if xmax_unhinted && m & XMAX_IS_MULTI == 0 && m & XMIN_INVALID == 0 {
                assert!(
                    v.contains(&format!(
                        "if {} committed (commit status not on the page)",
                        h.t_xmax
                    )),
                    "{name} lp {}: {v}",
                    item.id.lp
                );
            }
            // A next version only after a committed update.
            if v.contains("next version") {
                assert!(m & XMAX_COMMITTED != 0, "{name} lp {}: {v}", item.id.lp);
            }
            // A lock is never a delete.
            if lock_only && h.t_xmax != 0 && m & XMAX_INVALID == 0 {
                assert!(v.contains("locked by"), "{name} lp {}: {v}", item.id.lp);
            }
            if m & XMAX_INVALID != 0 || h.t_xmax == 0 {
                assert!(!v.contains("deleted") && !v.contains("updated"), "{v}");
            }
        }
    }
    assert!(tuples > 500, "{tuples}");
}

// --- checksums (point 5) ----------------------------------------------------

fn checksum_problems(page: &PgPage) -> Vec<&blockscope::model::Problem> {
    page.problems
        .iter()
        .filter(|p| p.class == "checksum")
        .collect()
}

fn options(blkno: u64, blkno_known: bool, from_text: bool) -> PageOptions {
    PageOptions {
        blkno,
        blkno_known,
        from_text,
        ..PageOptions::default()
    }
}

#[test]
fn a_mismatch_on_a_relation_page_at_a_known_block_is_an_error() {
    let bytes = page_bytes("heap/full_page.1.page");
    let page = parse_page(&bytes, &options(3, true, false));
    let p = checksum_problems(&page);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].severity, Severity::Error);
    assert_eq!(
        p[0].message,
        "checksum mismatch for block 3: stored 0x1b22, computed 0x1b20"
    );
    // The right block number: no problem.
    let page = parse_page(&bytes, &options(1, true, false));
    assert!(checksum_problems(&page).is_empty());
    assert!(page.checksum.unwrap().valid);
}

#[test]
fn a_mismatch_on_a_text_copy_is_a_warning_about_buffer_copies() {
    let bytes = page_bytes("heap/full_page.1.page");
    let page = parse_page(&bytes, &options(3, true, true));
    let p = checksum_problems(&page);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].severity, Severity::Warning);
    assert!(
        p[0].message.contains("get_raw_page() copy"),
        "{}",
        p[0].message
    );
    assert!(!p[0].message.contains("--blkno"), "{}", p[0].message);
}

#[test]
fn without_a_block_number_the_fitting_ones_are_listed_not_an_error() {
    for (rel, blkno) in [
        ("heap/full_page.1.page", 1u32),
        ("heap/full_page.2.page", 2),
        ("btree/bt_pk_levels.412.page", 412),
        ("btree/bt_deleted.10.page", 10),
    ] {
        let bytes = page_bytes(rel);
        let page = parse_page(&bytes, &PageOptions::default());
        let stored = page.header.as_ref().unwrap().pd_checksum;
        let p = checksum_problems(&page);
        assert_eq!(p.len(), 1, "{rel}");
        assert_eq!(p[0].severity, Severity::Warning, "{rel}");
        assert!(
            p[0].message
                .starts_with(&format!("checksum 0x{:04x} fits block {blkno} (", stored)),
            "{rel}: {}",
            p[0].message
        );
        assert!(p[0].message.contains("pass --blkno"), "{}", p[0].message);
    }
    // Block 0 at the assumed block 0: nothing to say.
    assert!(checksum_problems(&parse("heap/delete.0.page")).is_empty());
}

#[test]
fn every_fixture_page_fits_its_own_block_number() {
    let mut checked = 0;
    for dir in ["heap", "btree", "other", "attrs", "toast"] {
        for e in std::fs::read_dir(fixture(dir)).unwrap() {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".page") else {
                continue;
            };
            let Some(blkno) = stem.rsplit('.').next().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            let bytes = std::fs::read(&path).unwrap();
            let stored = u16::from_le_bytes([bytes[8], bytes[9]]);
            let page = parse_page(&bytes, &options(u64::from(blkno), true, false));
            // Stale buffer copies (row_locks) and new pages have nothing to fit.
            if stored == 0 || !page.checksum.is_some_and(|c| c.valid) {
                continue;
            }
            let hash = checksum_block(&bytes, Endian::Little).unwrap();
            assert!(candidate_blocks(hash, stored).any(|b| b == blkno), "{name}");
            let fit = fitting_blocks(&bytes, stored, Endian::Little, 5).unwrap();
            if blkno <= *fit.nearest.last().unwrap() {
                assert!(fit.nearest.contains(&blkno), "{name}: {:?}", fit.nearest);
            }
            checked += 1;
        }
    }
    assert!(checked > 80, "{checked}");
}

// --- the same through the binary -------------------------------------------

/// Exit status and standard output of the binary (tests/common runs it).
fn blockscope(args: &[&str], stdin: Option<&[u8]>) -> (i32, String) {
    let run = common::run_with_stdin(args, stdin);
    (run.code, run.stdout)
}

/// The checksum problems of every page `show --format json` printed.
fn shown_checksum_problems(json: &str) -> Vec<(String, String)> {
    common::show_blocks(json)
        .iter()
        .flat_map(|p| p["problems"].as_array().cloned().unwrap_or_default())
        .filter(|p| p["class"] == "checksum")
        .map(|p| {
            (
                p["severity"].as_str().unwrap().to_string(),
                p["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn hex_text(bytes: &[u8]) -> Vec<u8> {
    let mut s: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    s.push('\n');
    s.into_bytes()
}

#[test]
fn show_reads_a_hex_copy_as_a_buffer_copy() {
    let hex = hex_text(&page_bytes("heap/full_page.1.page"));
    // The right block: clean.
    let (_, out) = blockscope(&["show", "-f", "json", "--blkno", "1"], Some(&hex));
    assert!(shown_checksum_problems(&out).is_empty(), "{out}");
    // A wrong --blkno on a text copy: a warning, and no "check --blkno" hint.
    let (_, out) = blockscope(&["show", "-f", "json", "--blkno", "3"], Some(&hex));
    let p = shown_checksum_problems(&out);
    assert_eq!(p.len(), 1, "{out}");
    assert_eq!(p[0].0, "warning");
    assert!(p[0].1.contains("get_raw_page() copy"), "{}", p[0].1);
    assert!(!p[0].1.contains("--blkno"), "{}", p[0].1);
    // No --blkno: the block numbers the checksum fits.
    let (_, out) = blockscope(&["show", "-f", "json"], Some(&hex));
    let p = shown_checksum_problems(&out);
    assert_eq!(p.len(), 1, "{out}");
    assert_eq!(p[0].0, "warning");
    assert!(
        p[0].1.starts_with("checksum 0x1b22 fits block 1 ("),
        "{}",
        p[0].1
    );
}

#[test]
fn show_judges_a_relation_file_by_its_block_positions() {
    // A relation file of the three full_page blocks, one byte of block 2 damaged.
    let dir = std::env::temp_dir().join(format!("blockscope-trust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut relation = Vec::new();
    for n in 0..3 {
        relation.extend(page_bytes(&format!("heap/full_page.{n}.page")));
    }
    relation[2 * 8192 + 5000] ^= 0x01;
    let file = dir.join("16384");
    std::fs::write(&file, &relation).unwrap();
    let (_, out) = blockscope(&["show", "-f", "json", file.to_str().unwrap()], None);
    let p = shown_checksum_problems(&out);
    assert_eq!(p.len(), 1, "{out}");
    assert_eq!(p[0].0, "error");
    assert!(
        p[0].1.starts_with("checksum mismatch for block 2: "),
        "{}",
        p[0].1
    );
    assert!(!p[0].1.contains("--blkno"), "{}", p[0].1);
    std::fs::remove_dir_all(&dir).unwrap();
}
