//! blockscope's JSON against pageinspect's, for every page the fixture script
//! saved from a real PostgreSQL server (fixtures/postgres/heap/*.json).
//!
//! Set BLOCKSCOPE_PG_FIXTURES to a directory of freshly generated fixtures
//! (fixtures/postgres/generate.sh DIR) to judge against the live server.

use std::fs;
use std::path::{Path, PathBuf};

use blockscope::parse::postgres::{parse_page, PageOptions};
use blockscope::render::json::PgPageJson;
use serde_json::Value;

fn fixture_dir() -> PathBuf {
    match std::env::var_os("BLOCKSCOPE_PG_FIXTURES") {
        Some(dir) => PathBuf::from(dir).join("heap"),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/postgres/heap"),
    }
}

fn fixtures() -> Vec<PathBuf> {
    let dir = fixture_dir();
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

fn check_fixture(json_path: &Path) -> (Vec<String>, usize) {
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
    let ours = serde_json::to_value(PgPageJson::from_page(&page)).unwrap();
    let mut diffs = Vec::new();
    let mut compared = 0;

    compare_object(
        "page_header",
        &doc["page_header"],
        &ours["header"],
        &mut diffs,
    );
    compared += doc["page_header"].as_object().map_or(0, |o| o.len());

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

    // page_checksum() returns a signed smallint.
    let expected = doc["page_checksum"].as_i64().expect("page_checksum");
    let computed = page
        .checksum
        .and_then(|c| c.computed)
        .map(|c| i64::from(c as i16));
    if computed != Some(expected) {
        diffs.push(format!(
            "page_checksum: pageinspect {expected}, blockscope {computed:?}"
        ));
    }
    compared += 1;
    (diffs, compared)
}

#[test]
fn every_heap_fixture_matches_pageinspect_field_for_field() {
    let files = fixtures();
    assert!(
        files.len() >= 12,
        "expected the generated heap fixtures in {}, found {}",
        fixture_dir().display(),
        files.len()
    );
    let mut failures = Vec::new();
    let mut fields = 0;
    for f in &files {
        let (diffs, compared) = check_fixture(f);
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
    assert!(fields > 1000, "only {fields} fields compared");
}

#[test]
fn the_fixtures_cover_the_scenarios_the_issue_names() {
    let mut all = String::new();
    for f in fixtures() {
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
