//! The `blockscope` binary end to end: golden outputs, exit codes, error lines.
//!
//! Golden files live in tests/golden/. To change one deliberately, run
//! `BLOCKSCOPE_BLESS=1 cargo test --test cli` and review the diff.

use std::process::{Command, Stdio};

mod common;

use common::{golden, Run as Output};

fn fixture(rel: &str) -> String {
    common::fixture(rel).to_string_lossy().into_owned()
}

fn blockscope(args: &[&str], stdin: Option<&[u8]>) -> Output {
    common::run_with_stdin(args, stdin)
}

fn ok(args: &[&str]) -> String {
    let out = blockscope(args, None);
    assert_eq!(out.code, 0, "blockscope {args:?} failed: {}", out.stderr);
    assert!(out.stderr.is_empty(), "unexpected stderr: {}", out.stderr);
    out.stdout
}

/// `show` of a page with error-level problems: exit 1 (problems reported).
fn with_problems(args: &[&str]) -> String {
    let out = blockscope(args, None);
    assert_eq!(out.code, 1, "blockscope {args:?}: {}", out.stderr);
    assert!(out.stderr.is_empty(), "unexpected stderr: {}", out.stderr);
    out.stdout
}

const MYTABLE: &str = "reference/blog-postgres/mytable.0.od.txt";

#[test]
fn golden_table_of_the_published_heap_page() {
    golden("mytable.table.txt", &ok(&["show", &fixture(MYTABLE)]));
}

#[test]
fn golden_hex_of_the_published_heap_page() {
    golden(
        "mytable.hex.txt",
        &ok(&["show", &fixture(MYTABLE), "--format", "hex"]),
    );
}

#[test]
fn golden_json_of_the_published_heap_page() {
    golden(
        "mytable.json",
        &ok(&["show", &fixture(MYTABLE), "--format", "json"]),
    );
}

#[test]
fn golden_decode_words() {
    let mut all = String::new();
    for args in [
        ["decode", "infomask", "2050"],
        ["decode", "infomask", "0x0b02"],
        ["decode", "infomask2", "0x8007"],
        ["decode", "infomask2", "0x1802"],
        ["decode", "lp", "0x004e9fd8"],
        ["decode", "lp", "0x0001005f"],
        ["decode", "pd-flags", "5"],
        ["decode", "pd-flags", "0x0009"],
        ["decode", "btpo-flags", "3"],
    ] {
        all.push_str(&format!("$ blockscope {}\n", args.join(" ")));
        all.push_str(&ok(&args));
    }
    golden("decode.txt", &all);
}

#[test]
fn decode_json_names_every_bit() {
    let out = ok(&["decode", "infomask", "2816", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], 2);
    let names: Vec<&str> = v["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "HEAP_XMIN_COMMITTED",
            "HEAP_XMIN_INVALID",
            "HEAP_XMAX_INVALID"
        ]
    );
    assert_eq!(v["combined_flags"][0]["name"], "HEAP_XMIN_FROZEN");
    let lp = ok(&["decode", "lp", "0x004e9fd8", "-f", "json"]);
    let v: serde_json::Value = serde_json::from_str(&lp).unwrap();
    assert_eq!(
        (
            v["lp_off"].as_u64(),
            v["lp_flags"].as_u64(),
            v["lp_len"].as_u64()
        ),
        (Some(8152), Some(1), Some(39))
    );
}

#[test]
fn standard_input_works_like_a_file() {
    let text = std::fs::read(fixture(MYTABLE)).unwrap();
    let piped = blockscope(&["show", "--format", "json"], Some(&text));
    assert_eq!(piped.code, 0, "{}", piped.stderr);
    let dash = blockscope(&["show", "-", "--format", "json"], Some(&text));
    let file = ok(&["show", &fixture(MYTABLE), "--format", "json"]);
    assert_eq!(piped.stdout, file);
    assert_eq!(dash.stdout, file);
}

#[test]
fn malformed_input_is_one_error_line_and_exit_2() {
    let bad = b"0000000 00 00 zz 00\n0000016 00 00 00 00\n";
    let out = blockscope(&["show", "--input", "od"], Some(bad));
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("blockscope: error: "),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("line 1"), "{}", out.stderr);
}

#[test]
fn missing_file_is_exit_2() {
    let out = blockscope(&["show", "/nonexistent/16385"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("/nonexistent/16385"), "{}", out.stderr);
}

#[test]
fn empty_input_is_exit_2() {
    let out = blockscope(&["show"], Some(b""));
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}

#[test]
fn bad_decode_value_is_exit_2() {
    let out = blockscope(&["decode", "infomask", "70000"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("16-bit"), "{}", out.stderr);
}

#[test]
fn completions_are_generated() {
    let out = ok(&["completions", "bash"]);
    assert!(out.contains("blockscope"));
}

#[test]
fn a_closed_pipe_ends_quietly_with_exit_0() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_blockscope"))
        .args([
            "show",
            "--format",
            "json",
            &fixture("postgres/heap/full_page.0.page"),
        ])
        .args(["--block-size", "8192"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close our end before reading anything: the writer gets EPIPE.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Golden table and hex renderings of btree pages: (fixture, block number).
const BTREE_GOLDENS: &[(&str, &str)] = &[
    ("bt_pk_levels.0", "0"),     // metapage of a 3-level index
    ("bt_pk_levels.412", "412"), // root (internal, level 2)
    ("bt_pk_levels.3", "3"),     // internal page, level 1
    ("bt_pk_small.1", "1"),      // root that is also the only leaf
    ("bt_dups.1", "1"),          // leaf of posting-list tuples with a high key
    ("bt_deleted.2", "2"),       // deleted page (BTP_DELETED | BTP_HAS_FULLXID)
];

#[test]
fn golden_btree_pages() {
    for (name, blkno) in BTREE_GOLDENS {
        let page = fixture(&format!("postgres/btree/{name}.page"));
        golden(
            &format!("btree/{name}.table.txt"),
            &ok(&["show", &page, "--blkno", blkno]),
        );
        golden(
            &format!("btree/{name}.hex.txt"),
            &ok(&["show", &page, "--blkno", blkno, "--format", "hex"]),
        );
    }
}

#[test]
fn golden_other_page_kinds() {
    let mut all = String::new();
    for (name, blkno) in [
        ("hash_idx.0", "0"),
        ("hash_idx.10", "10"),
        ("gin_idx.0", "0"),
        ("gist_idx.1", "1"),
        ("spgist_idx.0", "0"),
        ("brin_idx.0", "0"),
        ("fsm.2", "2"),
        ("vm.0", "0"),
        ("sequence.0", "0"),
        ("zero_page.13", "13"),
    ] {
        let page = fixture(&format!("postgres/other/{name}.page"));
        all.push_str(&format!("$ blockscope show {name}.page --blkno {blkno}\n"));
        all.push_str(&ok(&["show", &page, "--blkno", blkno]));
    }
    golden("other-kinds.table.txt", &all);
}

#[test]
fn kind_can_be_forced() {
    let page = fixture("postgres/heap/plain_insert.0.page");
    let out = with_problems(&["show", &page, "--kind", "btree", "--format", "json"]);
    let v = common::show_block(&out);
    assert_eq!(v["kind"], "btree");
    // A heap page read as btree: its "special space" is tuple bytes, and it says so.
    assert!(!v["problems"].as_array().unwrap().is_empty());
}

/// Tuple attributes: the types fixture split with its own column list
/// (the fixture JSON is a valid --schema), as a table and as annotated hex.
#[test]
fn golden_attrs_of_the_types_page() {
    let page = fixture("postgres/heap/types.0.page");
    let schema = fixture("postgres/heap/types.0.json");
    golden(
        "attrs/types.table.txt",
        &ok(&["show", &page, "--schema", &schema]),
    );
    golden(
        "attrs/types.hex.txt",
        &ok(&["show", &page, "--schema", &schema, "--format", "hex"]),
    );
}

/// TOASTed and compressed values read back, as JSON.
#[test]
fn golden_attrs_of_the_varlena_page_with_its_toast() {
    let mut args = vec![
        "show".to_string(),
        fixture("postgres/heap/varlena.0.page"),
        "--columns".to_string(),
        "id int, kind text, v_default text, v_plain text, v_external text, v_lz4 text".to_string(),
        "--format".to_string(),
        "json".to_string(),
    ];
    for blk in 0..3 {
        args.push("--toast".to_string());
        args.push(fixture(&format!("postgres/toast/varlena_toast.{blk}.page")));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ok(&args);
    golden("attrs/varlena.json", &out);
    let v = common::show_block(&out);
    let lp6 = &v["items"][5]["attrs"][2];
    assert_eq!(lp6["storage"], "external-toast");
    assert_eq!(lp6["toast"]["method"], "pglz");
    assert_eq!(lp6["toast"]["chunks"], 6);
    assert_eq!(lp6["value"].as_str().unwrap().len(), 20480);
}

#[test]
fn columns_that_do_not_fit_are_a_problem_not_a_crash() {
    let page = fixture("postgres/heap/plain_insert.0.page");
    // (id int, name text) read as (int8, int8): the second int8 runs past the end.
    let out = with_problems(&["show", &page, "--columns", "int8,int8", "--format", "json"]);
    let v = common::show_block(&out);
    let problems = v["problems"].as_array().unwrap();
    assert!(problems.iter().any(|p| p["class"] == "attrs"), "{out}");
    assert_eq!(v["items"][0]["attrs"][1]["storage"], "unread");
    // Too few columns: the rest is reported, not guessed.
    let out = ok(&["show", &page, "--columns", "int4", "--format", "json"]);
    assert!(out.contains("the column list 1"), "{out}");
}

#[test]
fn bad_column_lists_and_toast_without_columns_are_usage_errors() {
    let page = fixture("postgres/heap/plain_insert.0.page");
    let out = blockscope(&["show", &page, "--columns", "int4,frobnicator"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--columns: item 2"), "{}", out.stderr);
    assert!(out.stderr.contains("TYPE:LEN:ALIGN"), "{}", out.stderr);
    let toast = fixture("postgres/toast/varlena_toast.0.page");
    let out = blockscope(&["show", &page, "--toast", &toast], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--toast needs"), "{}", out.stderr);
}

/// `show --format ndjson` of a file has its workers read the blocks by
/// position; from standard input they come in order on one thread. Both
/// give the same lines, with block ranges and `--blkno` too, and for a
/// file that ends inside a block.
#[test]
fn ndjson_of_a_file_read_by_position_equals_ndjson_of_the_same_bytes_piped() {
    let bytes = std::fs::read(common::fixture(
        "postgres/catalog/types/18/datadir/base/5/1259",
    ))
    .unwrap();
    assert!(bytes.len() >= 8 * 8192);
    let dir = std::env::temp_dir().join(format!("blockscope-positional-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cut = bytes.len() - 8192 + 100;
    for (name, data) in [("whole", &bytes[..]), ("cut", &bytes[..cut])] {
        let file = dir.join(name);
        std::fs::write(&file, data).unwrap();
        let file = file.to_str().unwrap();
        for extra in [
            &[][..],
            &["--blocks", "2..5"],
            &["--blocks", "6..100"],
            &["--blkno", "40", "--blocks", "42..44"],
            &["--blkno", "40", "--blocks", "0..3"],
        ] {
            let mut args = vec!["show", "--format", "ndjson"];
            args.extend_from_slice(extra);
            let mut by_path = args.clone();
            by_path.push(file);
            args.push("-");
            let positional = common::run(&by_path);
            let piped = common::run_with_stdin(&args, Some(data));
            assert_eq!(positional.code, piped.code, "{name} {extra:?}");
            assert_eq!(positional.stdout, piped.stdout, "{name} {extra:?}");
            if extra.is_empty() {
                assert_eq!(
                    common::show_lines(&positional.stdout).len(),
                    data.len().div_ceil(8192)
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
