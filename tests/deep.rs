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
    assert_eq!(problems.len(), 2, "{problems:?}");
    let (blkno, class, field, message) = &problems[0];
    assert_eq!(
        (*blkno, class.as_str(), field.as_str()),
        (3, "btree", "item 2 t_tid")
    );
    assert!(
        message.contains("points to block 9, past the end"),
        "{message}"
    );
    // The leaf the downlink pointed at has none left (amcheck's
    // bt_index_parent_check would say so next, had block 9 been readable).
    let (blkno, class, field, message) = &problems[1];
    assert_eq!(
        (*blkno, class.as_str(), field.as_str()),
        (2, "btree", "downlink")
    );
    assert!(
        message.contains("leaf index block lacks downlink"),
        "{message}"
    );
}

/// What one amcheck / pg_visibility call in a scenario's amcheck/SCENARIO.txt said.
#[derive(Debug)]
struct Call {
    stmt: String,
    /// The ERROR line and its DETAIL, if the call failed.
    error: Option<String>,
    /// The rows returned (verify_heapam, pg_check_visible, pg_check_frozen).
    rows: Vec<String>,
}

fn amcheck_calls(scenario: &str) -> Vec<Call> {
    // BLOCKSCOPE_PG_DEEP_AMCHECK: a directory fixtures/postgres/deep/amcheck.sh
    // has just written, to judge against a live server.
    let path = match std::env::var_os("BLOCKSCOPE_PG_DEEP_AMCHECK") {
        Some(dir) => std::path::PathBuf::from(dir).join(format!("{scenario}.txt")),
        None => fixture(&format!("postgres/deep/amcheck/{scenario}.txt")),
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.split("\n=> ")
        .skip(1)
        .map(|call| {
            let mut lines = call.lines();
            let stmt = lines.next().unwrap().to_string();
            let rest: Vec<&str> = lines.collect();
            let error = rest
                .iter()
                .position(|l| l.starts_with("ERROR:"))
                .map(|i| rest[i..].join("\n"));
            let tid = |l: &&str| l.starts_with('(') && l.ends_with(')') && l.contains(',');
            let heapam = |l: &&str| {
                l.split('|').count() == 4 && l.split('|').next().unwrap().parse::<u64>().is_ok()
            };
            let rows = rest
                .iter()
                .filter(|l| tid(l) || heapam(l))
                .map(|l| l.to_string())
                .collect();
            if error.is_none() {
                assert!(rest.contains(&"(no error)"), "{scenario}: {call}");
            }
            Call { stmt, error, rows }
        })
        .collect()
}

/// The numbers after each `key` in `text` (`Block=2`, `tid=(1,5)`).
fn numbers_after(text: &str, key: &str) -> Vec<Vec<u64>> {
    text.match_indices(key)
        .map(|(i, _)| {
            text[i + key.len()..]
                .split(|c: char| !c.is_ascii_digit() && c != ',')
                .next()
                .unwrap_or("")
                .split(',')
                .filter_map(|n| n.parse().ok())
                .collect::<Vec<u64>>()
        })
        .filter(|v| !v.is_empty())
        .collect()
}

/// The planted corruptions as a real PostgreSQL 15's amcheck and
/// pg_visibility saw them (fixtures/postgres/deep/amcheck.sh): every block
/// (and item) they name, `verify --deep` names too.
#[test]
fn verify_deep_names_what_amcheck_names() {
    // The clean files: amcheck and pg_visibility say nothing, nor does --deep.
    for call in amcheck_calls("clean") {
        assert!(call.error.is_none() && call.rows.is_empty(), "{call:?}");
    }
    let mut detected = Vec::new();
    for scenario in [
        "swapped_keys",
        "broken_sibling",
        "dangling_downlink",
        "visible_dead",
    ] {
        let (code, problems) = deep(&["--columns", "int4", &planted(scenario)]);
        assert_eq!(code, 1, "{scenario}");
        let named = |blkno: u64, item: Option<u64>| {
            problems.iter().any(|(b, _, field, message)| {
                *b == blkno
                    && item.is_none_or(|i| {
                        field == &format!("item {i}")
                            || field == &format!("lp[{i}]")
                            || message.contains(&format!("item {i} "))
                    })
            })
        };
        for call in amcheck_calls(scenario) {
            if let Some(error) = &call.error {
                detected.push((scenario, call.stmt.clone()));
                // "index tid=(1,5)": block 1, item 5.
                for tid in numbers_after(&error.to_lowercase(), "index tid=(") {
                    assert!(
                        named(tid[0], Some(tid[1])),
                        "{scenario}: {error}: {problems:?}"
                    );
                }
                // "Block=2 left block=1": both blocks.
                for key in ["Block=", "left block="] {
                    for b in numbers_after(error, key) {
                        assert!(named(b[0], None), "{scenario}: {error}: {problems:?}");
                    }
                }
                // "could not read block 9": the downlink that points there.
                for b in numbers_after(error, "could not read block ") {
                    assert!(
                        problems
                            .iter()
                            .any(|p| p.3.contains(&format!("points to block {}", b[0]))),
                        "{scenario}: {error}: {problems:?}"
                    );
                }
            }
            for row in &call.rows {
                detected.push((scenario, call.stmt.clone()));
                // pg_check_visible's t_ctid "(2,1)"; verify_heapam's "blkno|offnum|..".
                let nums: Vec<u64> = row
                    .trim_matches(|c| c == '(' || c == ')')
                    .split([',', '|'])
                    .take(2)
                    .filter_map(|n| n.parse().ok())
                    .collect();
                assert!(
                    named(nums[0], nums.get(1).copied()),
                    "{scenario}: {row}: {problems:?}"
                );
            }
        }
    }
    // Which call found what (docs/verify.md's table says the same): the
    // dangling downlink only bt_index_parent_check, the all-visible page
    // with a deleted tuple only pg_check_visible (amcheck has no check of it).
    let found = |s: &str, f: &str| detected.iter().any(|(sc, st)| *sc == s && st.contains(f));
    assert!(found("swapped_keys", "bt_index_check("));
    assert!(found("broken_sibling", "bt_index_check("));
    assert!(!found("dangling_downlink", "bt_index_check("));
    assert!(found("dangling_downlink", "bt_index_parent_check("));
    assert!(!found("visible_dead", "bt_index"));
    assert!(!found("visible_dead", "verify_heapam"));
    assert!(found("visible_dead", "pg_check_visible"));
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
