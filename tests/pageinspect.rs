//! blockscope's JSON against pageinspect's, for every page the fixture script
//! saved from a real PostgreSQL server (fixtures/postgres/heap/*.json).
//!
//! Set BLOCKSCOPE_PG_FIXTURES to a directory of freshly generated fixtures
//! (fixtures/postgres/generate.sh DIR) to judge against the live server.

use std::fs;
use std::path::{Path, PathBuf};

use blockscope::postgres::PageJson as PgPageJson;
use blockscope::postgres::{parse_page, PageOptions};
use serde_json::Value;

fn fixture_dir(kind: &str) -> PathBuf {
    match std::env::var_os("BLOCKSCOPE_PG_FIXTURES") {
        Some(dir) => PathBuf::from(dir).join(kind),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/postgres")
            .join(kind),
    }
}

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = fixture_dir(kind);
    let mut v: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    v.sort();
    v
}

/// Compare every key pageinspect gave with ours; record differences.
fn compare_object(what: &str, theirs: &Value, ours: &Value, diffs: &mut Vec<String>) {
    let Some(theirs) = theirs.as_object() else {
        diffs.push(format!("{what}: pageinspect value is not an object"));
        return;
    };
    for (key, expected) in theirs {
        match ours.get(key) {
            None => diffs.push(format!("{what}.{key}: missing from our output")),
            Some(got) if got != expected => diffs.push(format!(
                "{what}.{key}: pageinspect {expected}, blockscope {got}"
            )),
            Some(_) => {}
        }
    }
}

/// Our decoding of a fixture page, as JSON, and pageinspect's document.
fn decode_fixture(json_path: &Path) -> (Value, Value, Option<i64>) {
    let doc: Value = serde_json::from_str(&fs::read_to_string(json_path).unwrap()).unwrap();
    let page_path = json_path.with_extension("page");
    let bytes = fs::read(&page_path).unwrap_or_else(|e| panic!("{}: {e}", page_path.display()));
    let blkno = doc["blkno"].as_u64().expect("blkno");
    let page = parse_page(
        &bytes,
        &PageOptions {
            blkno,
            ..PageOptions::default()
        },
    );
    // page_checksum() returns a signed smallint.
    let computed = page
        .checksum
        .and_then(|c| c.computed)
        .map(|c| i64::from(c as i16));
    let ours = serde_json::to_value(PgPageJson::from_page(&page)).unwrap();
    (doc, ours, computed)
}

/// The checks every page kind shares: page_header and page_checksum.
fn check_common(
    doc: &Value,
    ours: &Value,
    computed: Option<i64>,
    diffs: &mut Vec<String>,
) -> usize {
    if ours["kind"] == "new" {
        // page_header of an all-zero page is all zeros; page_checksum is NULL.
        if !doc["page_checksum"].is_null() {
            diffs.push("page_checksum: expected NULL for a new page".into());
        }
        return 1;
    }
    compare_object("page_header", &doc["page_header"], &ours["header"], diffs);
    if doc["page_checksum"].as_i64() != computed {
        diffs.push(format!(
            "page_checksum: pageinspect {}, blockscope {computed:?}",
            doc["page_checksum"]
        ));
    }
    doc["page_header"].as_object().map_or(0, |o| o.len()) + 1
}

fn check_fixture(json_path: &Path) -> (Vec<String>, usize) {
    let (doc, ours, computed) = decode_fixture(json_path);
    let mut diffs = Vec::new();
    let mut compared = check_common(&doc, &ours, computed, &mut diffs);

    let theirs_items = doc["heap_page_items"].as_array().expect("heap_page_items");
    let our_items = ours["items"].as_array().expect("items");
    if theirs_items.len() != our_items.len() {
        diffs.push(format!(
            "heap_page_items: pageinspect has {} rows, blockscope {}",
            theirs_items.len(),
            our_items.len()
        ));
    }
    for (t, o) in theirs_items.iter().zip(our_items) {
        compare_object(
            &format!("heap_page_items[lp {}]", t["lp"]),
            t,
            o,
            &mut diffs,
        );
        compared += t.as_object().map_or(0, |o| o.len());
    }

    for flags in doc["heap_tuple_infomask_flags"].as_array().expect("flags") {
        let lp = flags["lp"].as_u64().unwrap();
        let Some(item) = our_items.iter().find(|i| i["lp"].as_u64() == Some(lp)) else {
            diffs.push(format!("heap_tuple_infomask_flags[lp {lp}]: no such item"));
            continue;
        };
        for key in ["raw_flags", "combined_flags"] {
            if item[key] != flags[key] {
                diffs.push(format!(
                    "heap_tuple_infomask_flags[lp {lp}].{key}: pageinspect {}, blockscope {}",
                    flags[key], item[key]
                ));
            }
            compared += 1;
        }
    }

    (diffs, compared)
}

#[test]
fn every_heap_fixture_matches_pageinspect_field_for_field() {
    let fields = run_all("heap", 12, check_fixture);
    assert!(fields > 1000, "only {fields} fields compared");
}

#[test]
fn the_fixtures_cover_the_scenarios_the_issue_names() {
    let mut all = String::new();
    for f in fixtures("heap") {
        all.push_str(&fs::read_to_string(f).unwrap());
    }
    for needle in [
        "\"lp_flags\": 0",
        "\"lp_flags\": 2",
        "\"lp_flags\": 3",
        "HEAP_XMAX_IS_MULTI",
        "HEAP_XMAX_LOCK_ONLY",
        "HEAP_HOT_UPDATED",
        "HEAP_ONLY_TUPLE",
        "HEAP_XMIN_INVALID",
        "HEAP_XMIN_FROZEN",
        "HEAP_HASEXTERNAL",
        "\"t_hoff\": 32",
    ] {
        assert!(all.contains(needle), "no fixture shows {needle}");
    }
}

fn check_btree_fixture(json_path: &Path) -> (Vec<String>, usize) {
    let (doc, ours, computed) = decode_fixture(json_path);
    let mut diffs = Vec::new();
    let mut compared = check_common(&doc, &ours, computed, &mut diffs);
    if ours["kind"] != "btree" {
        diffs.push(format!(
            "kind: expected btree, blockscope says {}",
            ours["kind"]
        ));
    }
    if doc.get("bt_metap").is_some() {
        compare_object("bt_metap", &doc["bt_metap"], &ours["meta"], &mut diffs);
        compared += doc["bt_metap"].as_object().map_or(0, |o| o.len());
    }
    if doc.get("bt_page_stats").is_some() {
        compare_object(
            "bt_page_stats",
            &doc["bt_page_stats"],
            &ours["stats"],
            &mut diffs,
        );
        compared += doc["bt_page_stats"].as_object().map_or(0, |o| o.len());
    }
    if let Some(theirs) = doc.get("bt_page_items").and_then(Value::as_array) {
        let our_items = ours["items"].as_array().cloned().unwrap_or_default();
        if theirs.len() != our_items.len() {
            diffs.push(format!(
                "bt_page_items: pageinspect has {} rows, blockscope {}",
                theirs.len(),
                our_items.len()
            ));
        }
        for (t, o) in theirs.iter().zip(&our_items) {
            compare_object(
                &format!("bt_page_items[{}]", t["itemoffset"]),
                t,
                o,
                &mut diffs,
            );
            compared += t.as_object().map_or(0, |o| o.len());
        }
    }
    (diffs, compared)
}

/// pageinspect functions whose output the JSON carries under the same name.
const AM_FUNCTIONS: &[&str] = &[
    "hash_page_type",
    "hash_page_stats",
    "hash_metapage_info",
    "gin_page_opaque_info",
    "gin_metapage_info",
    "gist_page_opaque_info",
    "brin_page_type",
    "brin_metapage_info",
    "brin_revmap_data",
    "fsm_page_contents",
];

fn check_other_fixture(json_path: &Path) -> (Vec<String>, usize) {
    let (doc, ours, computed) = decode_fixture(json_path);
    let mut diffs = Vec::new();
    let mut compared = check_common(&doc, &ours, computed, &mut diffs);
    let expected_kind = doc["expected_kind"].as_str().expect("expected_kind");
    if ours["kind"] != expected_kind {
        diffs.push(format!(
            "kind: expected {expected_kind}, blockscope says {}",
            ours["kind"]
        ));
    }
    compared += 1;
    if expected_kind == "new" {
        return (diffs, compared);
    }
    for f in AM_FUNCTIONS {
        if let Some(theirs) = doc.get(*f) {
            if &ours[*f] != theirs {
                diffs.push(format!(
                    "{f}: pageinspect {theirs}, blockscope {}",
                    ours[*f]
                ));
            }
            compared += 1;
        }
    }
    if let Some(rows) = doc.get("pg_visibility_map").and_then(Value::as_array) {
        let ours_map = ours["visibility_map"]["blocks"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for row in rows {
            let ours_row = ours_map.iter().find(|b| b["blkno"] == row["blkno"]);
            let (v, f) = ours_row.map_or((false, false), |b| {
                (
                    b["all_visible"].as_bool().unwrap_or(false),
                    b["all_frozen"].as_bool().unwrap_or(false),
                )
            });
            if Some(v) != row["all_visible"].as_bool() || Some(f) != row["all_frozen"].as_bool() {
                diffs.push(format!(
                    "pg_visibility_map[{}]: pageinspect {row}, blockscope ({v}, {f})",
                    row["blkno"]
                ));
            }
            compared += 1;
        }
    }
    (diffs, compared)
}

fn run_all(kind: &str, min: usize, check: fn(&Path) -> (Vec<String>, usize)) -> usize {
    let files = fixtures(kind);
    assert!(
        files.len() >= min,
        "expected at least {min} {kind} fixtures, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    let mut fields = 0;
    for f in &files {
        let (diffs, compared) = check(f);
        fields += compared;
        for d in diffs {
            failures.push(format!("{}: {d}", f.file_name().unwrap().to_string_lossy()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences from pageinspect:\n{}",
        failures.len(),
        failures.join("\n")
    );
    fields
}

#[test]
fn every_btree_fixture_matches_pageinspect_field_for_field() {
    let fields = run_all("btree", 40, check_btree_fixture);
    assert!(fields > 5000, "only {fields} fields compared");
}

#[test]
fn every_other_page_kind_is_recognised_and_matches_pageinspect() {
    let fields = run_all("other", 25, check_other_fixture);
    assert!(fields > 100, "only {fields} fields compared");
}

#[test]
fn the_btree_fixtures_cover_what_the_issue_names() {
    let mut all = String::new();
    for f in fixtures("btree") {
        all.push_str(&fs::read_to_string(f).unwrap());
    }
    for needle in [
        "\"bt_metap\"",
        "\"type\": \"r\"",
        "\"type\": \"i\"",
        "\"type\": \"l\"",
        "\"type\": \"d\"",
        "\"tids\": [",
        "\"btpo_level\": 2",
    ] {
        assert!(all.contains(needle), "no btree fixture shows {needle}");
    }
}
