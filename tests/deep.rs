//! `verify` beyond one page: the block size of loose files read from their
//! pages (16 KiB and 32 KiB clusters), and `verify --deep`, amcheck's
//! cross-page checks offline, on files a real server wrote and on copies
//! with planted logical corruptions.

mod common;

use common::{fixture, fixture_bytes, run, run_with_stdin};
use serde_json::Value;

fn json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["verify", "--format", "json"];
    all.extend_from_slice(args);
    let r = run(&all);
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}\n{}\n{}", r.stdout, r.stderr));
    (r.code, v)
}

/// A scratch copy of `bytes` under a fresh directory, named `name`.
fn scratch(tag: &str, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("blockscope-deep-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn loose_files_of_16_and_32_kib_clusters_are_read_at_their_block_size() {
    for (dir, size, blocks) in [
        ("heap_16k/16384", 16384, 6),
        ("heap_32k/16384", 32768, 6),
        ("index_16k/16389", 16384, 4),
        ("index_32k/16389", 32768, 4),
    ] {
        let path = fixture(&format!("postgres/blocksize/{dir}"));
        let (code, v) = json(&[path.to_str().unwrap()]);
        assert_eq!(code, 0, "{dir}: {v}");
        let s = &v["summary"];
        assert_eq!(s["block_size"], size, "{dir}");
        assert_eq!(s["blocks"], blocks, "{dir}");
        assert_eq!(s["checksums"]["enabled"], true, "{dir}");
        assert_eq!(s["bad_checksums"], 0, "{dir}");
        // Standard input too.
        let bytes = fixture_bytes(&format!("postgres/blocksize/{dir}"));
        let r = run_with_stdin(&["verify", "--format", "json", "-"], Some(&bytes));
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["summary"]["block_size"], size, "{dir} on stdin");
        assert_eq!(r.code, 0, "{dir} on stdin: {}", r.stdout);
    }
}

#[test]
fn a_flipped_bit_in_a_32_kib_page_is_placed_at_its_block() {
    let mut bytes = fixture_bytes("postgres/blocksize/heap_32k/16384");
    bytes[2 * 32768 + 32768 - 100] ^= 0x04;
    let path = scratch("flip32", "16384", &bytes);
    let (code, v) = json(&[path.to_str().unwrap()]);
    assert_eq!(code, 1, "{v}");
    let problems = v["problems"].as_array().unwrap();
    let checksum: Vec<&Value> = problems
        .iter()
        .filter(|p| p["class"] == "checksum")
        .collect();
    assert_eq!(checksum.len(), 1, "{problems:?}");
    assert_eq!(checksum[0]["blkno"], 2);
    assert_eq!(checksum[0]["file_offset"], 2 * 32768);
    // Read at 8 KiB, the same file is twelve blocks of which most fail.
    let (code, v) = json(&["--block-size", "8192", path.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(v["summary"]["blocks"], 24);
}

/// `verify --deep` on a planted scenario: exit status and (blkno, class, field, message) of each problem.
fn deep(args: &[&str]) -> (i32, Vec<(u64, String, String, String)>) {
    let mut all = vec!["--deep"];
    all.extend_from_slice(args);
    let (code, v) = json(&all);
    assert_eq!(v["summary"]["deep"], true);
    let problems = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["severity"] != "info")
        .map(|p| {
            (
                p["blkno"].as_u64().unwrap(),
                p["class"].as_str().unwrap().to_string(),
                p["field"].as_str().unwrap().to_string(),
                p["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (code, problems)
}

fn planted(scenario: &str) -> String {
    fixture(&format!("postgres/deep/{scenario}"))
        .to_string_lossy()
        .into_owned()
}

#[test]
fn deep_checks_find_nothing_in_what_the_server_wrote() {
    let clean = fixture("postgres/corrupt/clean");
    let (code, problems) = deep(&["--columns", "int4", clean.to_str().unwrap()]);
    assert_eq!(code, 0, "{problems:?}");
    assert!(problems.is_empty(), "{problems:?}");
    for dir in ["heap_16k", "heap_32k", "index_16k", "index_32k"] {
        let path = fixture(&format!("postgres/blocksize/{dir}"));
        let (code, problems) = deep(&["--columns", "int4", path.to_str().unwrap()]);
        assert_eq!((code, problems.len()), (0, 0), "{dir}: {problems:?}");
    }
}

#[test]
fn planted_logical_corruptions_pass_the_page_checks() {
    for s in [
        "swapped_keys",
        "broken_sibling",
        "dangling_downlink",
        "visible_dead",
    ] {
        let (code, v) = json(&[&planted(s)]);
        assert_eq!(code, 0, "{s}: one-page checks alone find nothing: {v}");
    }
}

#[test]
fn swapped_keys_are_named_by_block_and_item() {
    let (code, problems) = deep(&["--columns", "int4", &planted("swapped_keys")]);
    assert_eq!(code, 1);
    assert_eq!(problems.len(), 1, "{problems:?}");
    let (blkno, class, field, message) = &problems[0];
    assert_eq!(
        (*blkno, class.as_str(), field.as_str()),
        (1, "btree", "item 6")
    );
    assert!(
        message.contains("item order invariant violated"),
        "{message}"
    );
    assert!(
        message.contains("(5)") && message.contains("(4)"),
        "{message}"
    );
    // Without the key types the order cannot be judged: nothing is claimed.
    let (code, problems) = deep(&[&planted("swapped_keys")]);
    assert_eq!((code, problems.len()), (0, 0), "{problems:?}");
}

#[test]
fn a_broken_sibling_link_is_named_from_both_sides() {
    let (code, problems) = deep(&[&planted("broken_sibling")]);
    assert_eq!(code, 1);
    let named: Vec<(u64, &str)> = problems.iter().map(|p| (p.0, p.2.as_str())).collect();
    assert_eq!(named, [(1, "btpo_next"), (2, "btpo_prev")], "{problems:?}");
    assert!(problems
        .iter()
        .all(|p| p.1 == "btree" && p.3.contains("left link/right link pair not in agreement")));
}

#[test]
fn a_dangling_downlink_is_named_by_block_and_item() {
    let (code, problems) = deep(&[&planted("dangling_downlink")]);
    assert_eq!(code, 1);
    assert_eq!(problems.len(), 1, "{problems:?}");
    let (blkno, class, field, message) = &problems[0];
    assert_eq!(
        (*blkno, class.as_str(), field.as_str()),
        (3, "btree", "item 2 t_tid")
    );
    assert!(
        message.contains("points to block 9, past the end"),
        "{message}"
    );
}

#[test]
fn an_all_visible_page_with_a_deleted_tuple_is_named() {
    let (code, problems) = deep(&[&planted("visible_dead")]);
    assert_eq!(code, 1);
    assert_eq!(problems.len(), 1, "{problems:?}");
    let (blkno, class, field, message) = &problems[0];
    assert_eq!(
        (*blkno, class.as_str(), field.as_str()),
        (2, "visibility-map", "lp[1]")
    );
    assert!(
        message.contains("all-visible") && message.contains("xmax"),
        "{message}"
    );
}

#[test]
fn free_space_map_drift_is_a_note_never_a_failure() {
    // Heap block 0's FSM leaf set to 200 (about 6400 bytes free) in a copy.
    let dir = std::env::temp_dir().join(format!("blockscope-deep-{}-fsm", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["16384", "16384_vm"] {
        std::fs::copy(fixture(&format!("postgres/corrupt/clean/{f}")), dir.join(f)).unwrap();
    }
    let mut fsm = fixture_bytes("postgres/corrupt/clean/16384_fsm");
    // FSM block 2 (the first leaf page), node NonLeafNodesPerPage (4095) + slot 0.
    fsm[2 * 8192 + 24 + 4 + 4095] = 200;
    std::fs::write(dir.join("16384_fsm"), &fsm).unwrap();
    let (code, v) = json(&[
        "--deep",
        "--checksums",
        "off",
        dir.join("16384").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{v}");
    let notes: Vec<&Value> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["class"] == "free-space-map")
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["blkno"], 0);
    assert_eq!(notes[0]["severity"], "info");
    assert!(notes[0]["message"]
        .as_str()
        .unwrap()
        .contains("category 200"));
}
