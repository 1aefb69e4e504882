//! `blockscope verify` end to end on relation files a real server wrote and
//! fixtures/postgres/corrupt/corrupt.sh damaged: each damage found at the
//! right block, offset and class, with the right exit status; and the same
//! failing blocks as pg_checksums on the relation it corrupted in place.
//!
//! Set BLOCKSCOPE_CORRUPT_FIXTURES to a directory freshly written by
//! `corrupt.sh DIR` to run everything against a live server's output.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use blockscope::RelationFileName;
use serde_json::Value;

fn fixtures() -> PathBuf {
    match std::env::var_os("BLOCKSCOPE_CORRUPT_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/postgres/corrupt"),
    }
}

/// The relation files of a scenario directory, in name order.
fn relations(scenario: &str) -> Vec<PathBuf> {
    let dir = fixtures().join(scenario);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(RelationFileName::parse)
                .is_some()
        })
        .collect();
    files.sort();
    files
}

/// The one relation file of a scenario.
fn relation(scenario: &str) -> String {
    let files = relations(scenario);
    assert_eq!(files.len(), 1, "{scenario}: {files:?}");
    files[0].to_string_lossy().into_owned()
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn blockscope(args: &[&str], stdin: Option<&Path>) -> Run {
    let stdin = match stdin {
        Some(p) => Stdio::from(fs::File::open(p).unwrap()),
        None => Stdio::null(),
    };
    let out = Command::new(env!("CARGO_BIN_EXE_blockscope"))
        .args(args)
        .stdin(stdin)
        .output()
        .expect("run blockscope");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `verify --format json ARGS`: (exit status, summary, problems).
fn verify_json(args: &[&str]) -> (i32, Value, Vec<Value>) {
    let mut all = vec!["verify", "--format", "json"];
    all.extend_from_slice(args);
    let run = blockscope(&all, None);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: {e}\nstdout: {}\nstderr: {}",
            run.stdout, run.stderr
        )
    });
    assert_eq!(doc["schema"], 7, "verify JSON schema version");
    assert_eq!(doc["engine"], "postgres");
    let problems = doc["problems"].as_array().unwrap().clone();
    (run.code, doc["summary"].clone(), problems)
}

/// Problems that fail verification (warnings and errors), as (blkno, offset, class, field).
fn failures(problems: &[Value]) -> Vec<(u64, u64, String, String)> {
    problems
        .iter()
        .filter(|p| p["severity"] != "info")
        .map(|p| {
            (
                p["blkno"].as_u64().unwrap(),
                p["offset"].as_u64().unwrap(),
                p["class"].as_str().unwrap().to_string(),
                p["field"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn failure(blkno: u64, offset: u64, class: &str, field: &str) -> (u64, u64, String, String) {
    (blkno, offset, class.to_string(), field.to_string())
}

#[test]
fn a_clean_directory_of_relation_files_exits_0() {
    let dir = fixtures().join("clean");
    let (code, summary, problems) = verify_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{problems:?}");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(summary["clean"], true);
    // t (main, fsm, vm), t_pkey, other; PG_VERSION passed over with a note.
    assert_eq!(summary["files"], 5);
    assert_eq!(summary["skipped"].as_array().unwrap().len(), 1);
    assert!(summary["skipped"][0]["file"]
        .as_str()
        .unwrap()
        .ends_with("PG_VERSION"));
    assert_eq!(summary["checksums"]["enabled"], true);
    assert!(summary["blocks"].as_u64().unwrap() >= 10);
}

#[test]
fn each_clean_file_exits_0_with_checksums_on() {
    for file in relations("clean") {
        let (code, _, problems) = verify_json(&["--checksums", "on", file.to_str().unwrap()]);
        assert_eq!(code, 0, "{}: {problems:?}", file.display());
    }
}

#[test]
fn a_flipped_bit_in_tuple_data_is_a_checksum_failure() {
    let (code, summary, problems) = verify_json(&[&relation("bitflip")]);
    assert_eq!(code, 1);
    assert_eq!(
        failures(&problems),
        vec![failure(2, 8, "checksum", "pd_checksum")]
    );
    assert_eq!(problems[0]["file_offset"], 2 * 8192);
    assert_eq!(summary["bad_checksums"], 1);
    assert_eq!(summary["bad_blocks"], 1);
    assert_eq!(summary["blocks"], 6);
}

#[test]
fn a_zeroed_block_is_a_valid_new_page_and_counted() {
    let (code, summary, problems) = verify_json(&[&relation("zeroed")]);
    assert_eq!(code, 0, "{problems:?}");
    assert!(failures(&problems).is_empty());
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0]["blkno"], 3);
    assert_eq!(problems[0]["offset"], 0);
    assert_eq!(problems[0]["class"], "zero-page");
    assert_eq!(problems[0]["severity"], "info");
    assert_eq!(summary["zero_pages"], 1);
}

#[test]
fn a_torn_page_fails_its_checksum_and_its_structure() {
    let (code, _, problems) = verify_json(&[&relation("torn")]);
    assert_eq!(code, 1);
    let found = failures(&problems);
    assert_eq!(found[0], failure(1, 8, "checksum", "pd_checksum"));
    assert!(found.iter().all(|f| f.0 == 1), "{found:?}");
    assert!(
        found
            .iter()
            .any(|f| f.2 == "tuple" || f.2 == "line-pointer"),
        "no structural finding in the torn page: {found:?}"
    );
}

#[test]
fn pd_lower_above_pd_upper_is_a_header_problem() {
    let (code, summary, problems) = verify_json(&[&relation("lower_gt_upper")]);
    assert_eq!(code, 1);
    let found = failures(&problems);
    assert_eq!(found[0], failure(2, 12, "header", "pd_lower"));
    assert!(found.iter().all(|f| f.0 == 2), "{found:?}");
    // The checksum was recomputed: this page was written "correctly" by a bug.
    assert_eq!(summary["bad_checksums"], 0);
}

#[test]
fn a_line_pointer_past_the_page_end() {
    let (code, _, problems) = verify_json(&[&relation("lp_past_end")]);
    assert_eq!(code, 1);
    assert_eq!(
        failures(&problems),
        vec![failure(2, 32, "line-pointer", "lp[3]")]
    );
    assert!(problems[0]["message"]
        .as_str()
        .unwrap()
        .contains("runs past the end"));
}

#[test]
fn overlapping_line_pointers() {
    let (code, _, problems) = verify_json(&[&relation("lp_overlap")]);
    assert_eq!(code, 1);
    let overlap = problems
        .iter()
        .find(|p| p["field"] == "lp[4]")
        .expect("lp[4] reported");
    assert_eq!(overlap["blkno"], 2);
    assert_eq!(overlap["offset"], 36);
    assert_eq!(overlap["class"], "line-pointer");
    assert_eq!(overlap["message"], "item 4 overlaps item 3");
    assert!(failures(&problems).iter().all(|f| f.0 == 2));
}

#[test]
fn a_truncated_file_is_reported_and_its_whole_blocks_checked() {
    let (code, summary, problems) = verify_json(&[&relation("truncated")]);
    assert_eq!(code, 1);
    assert_eq!(
        failures(&problems),
        vec![failure(3, 0, "truncated", "file size")]
    );
    assert_eq!(problems[0]["file_offset"], 3 * 8192);
    assert_eq!(summary["blocks"], 3);
    assert_eq!(summary["truncated_files"], 1);
    assert_eq!(summary["bad_blocks"], 0);
}

#[test]
fn a_block_from_another_relation_has_the_wrong_checksum_for_its_place() {
    let (code, _, problems) = verify_json(&[&relation("moved")]);
    assert_eq!(code, 1);
    assert_eq!(
        failures(&problems),
        vec![failure(3, 8, "checksum", "pd_checksum")]
    );
}

#[test]
fn a_zero_checksum_on_a_written_page_fails_when_the_cluster_has_checksums() {
    let file = relation("checksum_zero");
    let (code, summary, problems) = verify_json(&[&file]);
    assert_eq!(code, 1);
    assert_eq!(
        failures(&problems),
        vec![failure(1, 8, "checksum", "pd_checksum")]
    );
    assert!(problems[0]["message"]
        .as_str()
        .unwrap()
        .contains("pd_checksum is 0"));
    assert_eq!(summary["checksums"]["enabled"], true);

    let (code, summary, problems) = verify_json(&["--checksums", "off", &file]);
    assert_eq!(code, 0, "{problems:?}");
    assert_eq!(summary["checksums"]["enabled"], false);
}

#[test]
fn without_any_checksum_auto_mode_does_not_verify_them() {
    // The clean heap with every pd_checksum cleared: a cluster without checksums.
    let mut bytes = fs::read(fixtures().join("clean").join(relation_name("clean", 0))).unwrap();
    for page in bytes.chunks_mut(8192) {
        page[8] = 0;
        page[9] = 0;
    }
    let dir = tempdir("nochecksums");
    let path = dir.join("16384");
    fs::write(&path, &bytes).unwrap();
    let p = path.to_str().unwrap();
    let (code, summary, problems) = verify_json(&[p]);
    assert_eq!(code, 0, "{problems:?}");
    assert_eq!(summary["checksums"]["enabled"], false);
    let (code, summary, _) = verify_json(&["--checksums", "on", p]);
    assert_eq!(code, 1);
    assert_eq!(summary["bad_checksums"], summary["blocks"]);
    fs::remove_dir_all(dir).unwrap();
}

/// The `i`-th relation file name of a scenario.
fn relation_name(scenario: &str, i: usize) -> String {
    relations(scenario)[i]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn tempdir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "blockscope-verify-test-{what}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn segment_files_number_their_blocks_from_the_suffix() {
    let file = relation("segment");
    assert!(file.ends_with(".1"), "{file}");
    // Checksums were computed for blocks 131072 and 131073: clean as segment 1.
    let (code, summary, problems) = verify_json(&["--checksums", "on", &file]);
    assert_eq!(code, 0, "{problems:?}");
    assert_eq!(summary["blocks"], 3);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0]["blkno"], 131074);
    assert_eq!(problems[0]["class"], "zero-page");

    // Read as segment 0, the same pages fail: the block number is in the checksum.
    let (code, _, problems) = verify_json(&["--segment", "0", &file]);
    assert_eq!(code, 1);
    assert_eq!(
        failures(&problems),
        vec![
            failure(0, 8, "checksum", "pd_checksum"),
            failure(1, 8, "checksum", "pd_checksum")
        ]
    );

    // Half-size segments: the .1 file starts at block 65536.
    let (_, _, problems) = verify_json(&["--segment-size", "512M", &file]);
    let blocks: Vec<u64> = failures(&problems).iter().map(|f| f.0).collect();
    assert_eq!(blocks, vec![65536, 65537]);
}

#[test]
fn a_btree_leaf_with_a_level_is_a_btree_problem() {
    let (code, _, problems) = verify_json(&[&relation("btree_level")]);
    assert_eq!(code, 1);
    assert_eq!(
        failures(&problems),
        vec![failure(1, 8184, "btree", "btpo_level")]
    );
}

/// "block N" of every pg_checksums failure line.
fn pg_checksums_failures(text: &str) -> BTreeSet<u64> {
    text.lines()
        .filter(|l| l.contains("checksum verification failed"))
        .map(|l| {
            let after = l.split(", block ").nth(1).expect("block number");
            after
                .split(':')
                .next()
                .unwrap()
                .trim()
                .parse::<u64>()
                .unwrap()
        })
        .collect()
}

#[test]
fn the_same_blocks_fail_as_with_pg_checksums() {
    let expected_text = fs::read_to_string(fixtures().join("crosscheck/pg_checksums.txt")).unwrap();
    let expected = pg_checksums_failures(&expected_text);
    assert!(!expected.is_empty());
    let (code, summary, problems) = verify_json(&[&relation("crosscheck")]);
    assert_eq!(code, 1);
    let ours: BTreeSet<u64> = problems
        .iter()
        .filter(|p| p["class"] == "checksum")
        .map(|p| p["blkno"].as_u64().unwrap())
        .collect();
    assert_eq!(ours, expected);
    assert_eq!(
        summary["bad_checksums"].as_u64().unwrap(),
        expected.len() as u64
    );
    // pg_checksums' calculated/stored pairs, as blockscope prints them.
    for line in expected_text
        .lines()
        .filter(|l| l.contains("checksum verification failed"))
    {
        let calculated = line.split("calculated checksum ").nth(1).unwrap();
        let calculated = calculated.split(' ').next().unwrap();
        let stored = line.rsplit(' ').next().unwrap();
        let text = format!("calculated checksum 0x{calculated:0>4}");
        assert!(
            problems.iter().any(|p| {
                let m = p["message"].as_str().unwrap();
                m.contains(&text) && m.ends_with(&format!("0x{stored:0>4}"))
            }),
            "{line}"
        );
    }
}

#[test]
fn a_data_directory_is_walked_only_where_relations_live() {
    let root = tempdir("datadir");
    let db = root.join("base/5");
    fs::create_dir_all(&db).unwrap();
    fs::create_dir_all(root.join("global")).unwrap();
    fs::create_dir_all(root.join("pg_wal")).unwrap();
    fs::write(root.join("PG_VERSION"), "15\n").unwrap();
    // A WAL segment name is all digits: it must not be taken for a relation.
    fs::write(root.join("pg_wal/000000010000000000000001"), [1u8; 100]).unwrap();
    for file in relations("clean") {
        fs::copy(&file, db.join(file.file_name().unwrap())).unwrap();
    }
    fs::write(db.join("pg_filenode.map"), [0u8; 512]).unwrap();
    fs::copy(
        relation("bitflip"),
        root.join("global").join(relation_name("bitflip", 0)),
    )
    .unwrap();

    let (code, summary, problems) = verify_json(&[root.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(summary["files"], 6);
    let skipped: Vec<&str> = summary["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["file"].as_str().unwrap())
        .collect();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(skipped[0].ends_with("pg_filenode.map"));
    // base/ before global/; in global, the bit flip of block 2.
    let failed: Vec<(&str, u64)> = problems
        .iter()
        .filter(|p| p["severity"] != "info")
        .map(|p| (p["file"].as_str().unwrap(), p["blkno"].as_u64().unwrap()))
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].0.contains("global"));
    assert_eq!(failed[0].1, 2);
    fs::remove_dir_all(root).unwrap();
}

#[test]
fn standard_input_is_verified_too() {
    let file = relation("bitflip");
    let run = blockscope(&["verify", "--format", "ndjson"], Some(Path::new(&file)));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["file"], "-");
    assert_eq!(lines[0]["blkno"], 2);
    assert_eq!(lines[0]["class"], "checksum");
    assert_eq!(lines[1]["schema"], 7);
    assert_eq!(lines[1]["engine"], "postgres");
    assert_eq!(lines[1]["summary"]["blocks"], 6);
    assert_eq!(lines[1]["summary"]["clean"], false);
}

#[test]
fn text_output_is_one_line_per_problem_then_the_summary() {
    let run = blockscope(&["verify", &relation("moved")], None);
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].contains(
            ": block 3 offset 8: error [checksum] pd_checksum: checksum verification failed: \
             calculated checksum 0x"
        ),
        "{}",
        lines[0]
    );
    assert!(lines.contains(&"Blocks scanned:    6"), "{}", run.stdout);
    assert!(lines.contains(&"Bad checksums:     1"));
    assert!(lines.contains(&"Result:            PROBLEMS FOUND"));
}

#[test]
fn output_order_does_not_depend_on_the_number_of_threads() {
    let dir = fixtures();
    let dir = dir.to_str().unwrap();
    let one = blockscope(&["verify", "-j", "1", "--format", "ndjson", dir], None);
    let many = blockscope(&["verify", "-j", "4", "--format", "ndjson", dir], None);
    assert_eq!(one.code, 1);
    assert_eq!(one.stdout, many.stdout);
}

#[test]
fn usage_and_io_errors_exit_2() {
    let a = relation("bitflip");
    let b = relation("moved");
    for args in [
        vec!["verify", "--segment", "1", a.as_str(), b.as_str()],
        vec!["verify", "/nonexistent/16384"],
        vec!["verify", "--block-size", "1000", a.as_str()],
        vec!["verify", "--segment-size", "12345", a.as_str()],
        vec!["verify", "-", a.as_str()],
    ] {
        let run = blockscope(&args, None);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        assert!(
            run.stderr.starts_with("blockscope: error: "),
            "{}",
            run.stderr
        );
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    }
}

fn controldata_value(text: &str, key: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.trim_start().strip_prefix(':'))
        .map(|v| v.trim().to_string())
        .unwrap_or_else(|| panic!("{key} not in pg_controldata output"))
}

#[test]
fn pg_control_is_read_as_pg_controldata_reads_it() {
    use blockscope::postgres::parse_control_file;
    let dir = fixtures().join("control");
    let text = fs::read_to_string(dir.join("pg_controldata.txt")).unwrap();
    let c = parse_control_file(&fs::read(dir.join("pg_control")).unwrap()).unwrap();
    let value = |key| controldata_value(&text, key);
    assert_eq!(
        c.pg_control_version.to_string(),
        value("pg_control version number")
    );
    assert_eq!(c.state_name(), value("Database cluster state"));
    assert_eq!(c.blcksz.to_string(), value("Database block size"));
    assert_eq!(
        c.relseg_size.to_string(),
        value("Blocks per segment of large relation")
    );
    assert_eq!(
        c.data_checksum_version.to_string(),
        value("Data page checksum version")
    );
}

/// A data directory holding the bit-flipped heap and `pg_control`.
fn data_directory_with_control(what: &str, control: &[u8]) -> PathBuf {
    let root = tempdir(what);
    fs::create_dir_all(root.join("base/5")).unwrap();
    fs::create_dir_all(root.join("global")).unwrap();
    fs::write(root.join("PG_VERSION"), "15\n").unwrap();
    fs::write(root.join("global/pg_control"), control).unwrap();
    fs::copy(
        relation("bitflip"),
        root.join("base/5").join(relation_name("bitflip", 0)),
    )
    .unwrap();
    root
}

#[test]
fn a_data_directory_s_pg_control_decides_checksums_and_sizes() {
    let control = fs::read(fixtures().join("control/pg_control")).unwrap();
    let root = data_directory_with_control("control", &control);
    let (code, summary, problems) = verify_json(&[root.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        failures(&problems),
        vec![failure(2, 8, "checksum", "pd_checksum")]
    );
    assert_eq!(summary["pg_control"]["used"], true);
    assert_eq!(summary["pg_control"]["state"], "shut down");
    assert_eq!(summary["pg_control"]["shut_down"], true);
    assert_eq!(
        summary["checksums"]["reason"],
        "pg_control: data_checksum_version 1"
    );
    assert_eq!(summary["block_size"], 8192);
    assert_eq!(summary["blocks_per_segment"], 131072);
    fs::remove_dir_all(root).unwrap();

    // A damaged pg_control is not trusted: the pages decide instead.
    let mut damaged = control.clone();
    damaged[40] ^= 0xFF;
    let root = data_directory_with_control("badcontrol", &damaged);
    let (code, summary, _) = verify_json(&[root.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(summary["pg_control"]["used"], false);
    assert!(summary["pg_control"]["error"]
        .as_str()
        .unwrap()
        .contains("CRC-32C"));
    assert!(summary["checksums"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("auto: block 0 of"));
    fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_cluster_not_shut_down_cleanly_gets_a_warning() {
    use blockscope::postgres::crc32c;
    let mut control = fs::read(fixtures().join("control/pg_control")).unwrap();
    // DBState DB_IN_PRODUCTION (6), and the CRC made right again.
    control[16..20].copy_from_slice(&6u32.to_le_bytes());
    let float_at = control
        .windows(8)
        .position(|w| w == 1234567.0f64.to_le_bytes())
        .unwrap();
    let crc_at = float_at + 80;
    let crc = crc32c(&control[..crc_at]);
    control[crc_at..crc_at + 4].copy_from_slice(&crc.to_le_bytes());
    let root = data_directory_with_control("inproduction", &control);
    let run = blockscope(&["verify", root.to_str().unwrap()], None);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("pg_control:        in production; data_checksum_version 1"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains("Warning:           the cluster was not shut down cleanly"));
    fs::remove_dir_all(root).unwrap();
}

// --- The problem budget: damaged the way disks damage files (damage.sh) ---

fn committed(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .to_string_lossy()
        .into_owned()
}

/// The problem lines of block `blkno` of `file` in text output.
fn block_lines(stdout: &str, file: &str, blkno: u64) -> Vec<String> {
    let tag = format!("{file}: block {blkno}");
    stdout
        .lines()
        .filter(|l| {
            l.strip_prefix(&tag)
                .is_some_and(|rest| rest.starts_with(' ') || rest.starts_with(':'))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn a_block_overwritten_by_a_log_says_its_header_is_unusable_once() {
    let file = committed("fixtures/postgres/corrupt/logline/16384");
    let run = blockscope(&["verify", &file], None);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines = block_lines(&run.stdout, &file, 2);
    assert!(lines.len() <= 25, "{}", run.stdout);
    assert!(lines[0].contains("[header]"), "{}", run.stdout);
    let unusable: Vec<_> = lines.iter().filter(|l| l.contains("not usable")).collect();
    assert_eq!(unusable.len(), 1, "{}", run.stdout);
    assert!(!run.stdout.contains("[line-pointer]"), "{}", run.stdout);
    // The checksum follows from the damage: it comes after the header.
    let checksum = lines.iter().position(|l| l.contains("[checksum]")).unwrap();
    assert!(checksum > 0);
    // Only block 2 is bad.
    for b in [0, 1, 3, 4, 5] {
        assert!(
            block_lines(&run.stdout, &file, b).is_empty(),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn pd_lower_9000_is_one_header_problem_not_a_thousand_line_pointers() {
    let file = committed("fixtures/postgres/corrupt/pd_lower_9000/16384");
    let run = blockscope(&["verify", &file], None);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines = block_lines(&run.stdout, &file, 2);
    assert!(lines.len() <= 4, "{}", run.stdout);
    assert!(
        lines[0].contains("[header] pd_lower: pd_lower 9000 is above pd_upper"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("[line-pointer]"), "{}", run.stdout);
    let (code, summary, problems) = verify_json(&[&file]);
    assert_eq!(code, 1);
    assert_eq!(summary["problems_by_class"]["header"], 1, "{summary}");
    assert_eq!(problems[0]["class"], "header");
}

#[test]
fn repeated_line_pointer_faults_collapse_into_a_count() {
    let file = committed("fixtures/postgres/corrupt/lp_text/16384");
    let run = blockscope(&["verify", &file], None);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines = block_lines(&run.stdout, &file, 2);
    assert!(lines.len() <= 25, "{}", run.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("more like it in this block")),
        "{}",
        run.stdout
    );
    // --all-problems: one line each, as many as JSON keeps.
    let all = blockscope(&["verify", "--all-problems", &file], None);
    let all_lines = block_lines(&all.stdout, &file, 2);
    assert!(all_lines.len() > lines.len(), "{}", all.stdout);
    assert!(!all.stdout.contains("more like it"));
    let (_, _, problems) = verify_json(&[&file]);
    assert_eq!(problems.len(), all_lines.len());
    // The collapsed counts add up to every problem.
    let counted: usize = lines
        .iter()
        .map(|l| match l.rsplit_once("(and ") {
            Some((_, rest)) => 1 + rest.split(' ').next().unwrap().parse::<usize>().unwrap(),
            None => 1,
        })
        .sum();
    assert_eq!(counted, problems.len(), "{}", run.stdout);
}

#[test]
fn an_executable_written_over_a_relation_file_stays_readable() {
    // dd if=/bin/ls of=16384 (over the whole file; it grows to ls's size).
    let ls = ["/bin/ls", "/usr/bin/ls", env!("CARGO_BIN_EXE_blockscope")]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .unwrap();
    let dir = tempdir("ls-over-relation");
    let file = dir.join("16384");
    let mut bytes = fs::read(committed("fixtures/postgres/corrupt/clean/16384")).unwrap();
    let exe = fs::read(ls).unwrap();
    if exe.len() > bytes.len() {
        bytes.resize(exe.len(), 0);
    }
    bytes[..exe.len()].copy_from_slice(&exe);
    fs::write(&file, &bytes).unwrap();
    let file = file.to_string_lossy().into_owned();
    // No block of it is a page any more: not pages, exit 2, whatever the
    // file is named (as `show` says of it).
    let plain = blockscope(&["verify", &file], None);
    assert_eq!(plain.code, 2, "{}", plain.stderr);
    assert!(
        plain.stderr.contains("16384: not pages"),
        "{}",
        plain.stderr
    );
    // Checked as PostgreSQL blocks anyway: each block's damage, readable.
    let run = blockscope(&["verify", "--engine", "postgres", &file], None);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let blocks = (bytes.len() / 8192) as u64;
    let mut total = 0;
    for b in 0..blocks {
        let lines = block_lines(&run.stdout, &file, b);
        assert!(lines.len() <= 25, "block {b}: {lines:#?}");
        if let Some(first) = lines.first() {
            if run.stdout.contains("not usable") && lines.iter().any(|l| l.contains("not usable")) {
                assert!(first.contains("[header]"), "block {b}: {lines:#?}");
            }
        }
        total += lines.len();
    }
    assert!(total <= 25 * blocks as usize + 1, "{total}");
    let (_, _, problems) = verify_json(&["--engine", "postgres", &file]);
    assert!(problems.len() >= total - 1);
    fs::remove_dir_all(&dir).ok();
}

/// The problem lines (`  error …`) of Oracle block `blkno` in a DBVERIFY-style report.
fn oracle_block_lines(stdout: &str, blkno: u64) -> Vec<String> {
    let head = format!("Page {blkno} ");
    let mut lines = Vec::new();
    let mut inside = false;
    for l in stdout.lines() {
        if l.starts_with("Page ") {
            inside = l.starts_with(&head);
        } else if l.is_empty() {
            inside = false;
        } else if inside && l.starts_with("  ") {
            lines.push(l.to_string());
        }
    }
    lines
}

#[test]
fn oracle_blocks_keep_the_first_cause_visible_too() {
    let file = committed("fixtures/oracle/damaged/logline.dbf");
    let run = blockscope(&["verify", &file], None);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines = oracle_block_lines(&run.stdout, 2);
    assert!(!lines.is_empty() && lines.len() <= 25, "{}", run.stdout);
    assert!(lines[0].contains("[checksum]"), "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("more like it in this block")),
        "{lines:#?}"
    );
    let all = blockscope(&["verify", "--all-problems", &file], None);
    assert!(oracle_block_lines(&all.stdout, 2).len() > lines.len());
    // JSON keeps every problem.
    let json = blockscope(&["verify", "--format", "json", &file], None);
    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
    let doc = if doc.is_array() { &doc[0] } else { &doc };
    let in_block_2 = doc["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["blkno"] == 2 && p["severity"] != "info")
        .count();
    assert_eq!(in_block_2, oracle_block_lines(&all.stdout, 2).len());

    let torn = blockscope(
        &[
            "verify",
            &committed("fixtures/oracle/damaged/torn_half.dbf"),
        ],
        None,
    );
    assert_eq!(torn.code, 1);
    let lines = oracle_block_lines(&torn.stdout, 2);
    assert!(lines.len() <= 25, "{}", torn.stdout);
    assert!(lines[0].contains("[fractured]"), "{lines:#?}");
}

#[test]
fn show_collapses_repeats_too_unless_all_problems() {
    let file = committed("fixtures/postgres/corrupt/lp_text/16384");
    let run = blockscope(&["show", "--block", "2", &file], None);
    assert!(
        run.stdout.contains("more like it in this block"),
        "{}",
        run.stdout
    );
    let all = blockscope(&["show", "--block", "2", "--all-problems", &file], None);
    assert!(!all.stdout.contains("more like it"), "{}", all.stdout);
    assert!(all.stdout.lines().count() > run.stdout.lines().count());
}

/// show's parse and verify's walk judge a page with the same checks: on
/// every block of the damaged fixtures, the header, line pointer and btree
/// special-space problems are the same, in the same order and words.
#[test]
fn show_and_verify_judge_a_page_alike() {
    use blockscope::model::{Problem, ProblemClass};
    use blockscope::postgres::{check_page, parse_page, PageOptions};
    fn structural(problems: &[Problem]) -> Vec<&Problem> {
        problems
            .iter()
            .filter(|p| match p.class {
                ProblemClass::Header | ProblemClass::LinePointer => true,
                ProblemClass::Btree => p.field.starts_with("btpo_") || p.field == "btm_magic",
                _ => false,
            })
            .collect()
    }
    let mut blocks = 0;
    for scenario in [
        "logline",
        "lp_text",
        "pd_lower_9000",
        "lower_gt_upper",
        "lp_overlap",
        "lp_past_end",
        "torn",
        "btree_level",
        "clean",
    ] {
        for file in relations(scenario) {
            let bytes = fs::read(&file).unwrap();
            for (i, page) in bytes.chunks_exact(8192).enumerate() {
                let opts = PageOptions {
                    blkno: i as u64,
                    ..PageOptions::default()
                };
                let full = parse_page(page, &opts);
                let mut fast = Vec::new();
                check_page(page, &opts, &mut fast);
                assert_eq!(
                    structural(&full.problems),
                    structural(&fast),
                    "{} block {i}",
                    file.display()
                );
                blocks += 1;
            }
        }
    }
    assert!(blocks > 40, "{blocks}");
}

/// A file found in a directory walk is pages or not pages, never a text
/// dump: a server log copied over a relation file (20,000 bytes) and a
/// file of hex digits are each one `not-pages` problem, and the run goes on
/// to the other files' damage and its summary (before: the log died as
/// `base64 input, line 1 …`, exit 2, and the hex digits were decoded).
/// The run's status is 2, as for such a file named on the command line.
#[test]
fn a_walked_file_that_is_not_pages_is_one_problem_and_the_run_goes_on() {
    let root = tempdir("notpages");
    let db = root.join("base/5");
    fs::create_dir_all(&db).unwrap();
    fs::create_dir_all(root.join("global")).unwrap();
    fs::write(root.join("PG_VERSION"), "15\n").unwrap();
    for file in relations("clean") {
        fs::copy(&file, db.join(file.file_name().unwrap())).unwrap();
    }
    fs::copy(
        relation("bitflip"),
        root.join("global").join(relation_name("bitflip", 0)),
    )
    .unwrap();
    let log = b"2026-11-24 02:14:59.812 UTC [4242] LOG:  checkpoint starting: time\n"
        .iter()
        .copied()
        .cycle()
        .take(20_000)
        .collect::<Vec<u8>>();
    fs::write(db.join("16389"), &log).unwrap();
    let hex: Vec<u8> = b"0123456789abcdef"
        .iter()
        .copied()
        .cycle()
        .take(16384)
        .collect();
    fs::write(db.join("16391"), &hex).unwrap();

    for args in [vec![], vec!["--format", "json"], vec!["--format", "ndjson"]] {
        let mut all = vec!["verify", root.to_str().unwrap()];
        all.extend_from_slice(&args);
        let r = blockscope(&all, None);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("error"), "{args:?}: {}", r.stderr);
        assert!(
            r.stdout.contains("Blocks scanned") || r.stdout.contains("\"blocks\""),
            "{args:?}: the summary is written: {}",
            r.stdout
        );
    }
    let (code, summary, problems) = verify_json(&[root.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(summary["problems_by_class"]["not-pages"], 2, "{summary}");
    let not_pages: Vec<&Value> = problems
        .iter()
        .filter(|p| p["class"] == "not-pages")
        .collect();
    assert_eq!(not_pages.len(), 2, "{problems:?}");
    assert!(not_pages[0]["file"].as_str().unwrap().ends_with("16389"));
    let message = not_pages[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("not pages: none of its 2 whole 8192-byte blocks is a PostgreSQL page")
            && message.contains("it begins as text: \"2026-11-24 02:14:59.812 UTC [4242] LOG:"),
        "{message}"
    );
    assert_eq!(not_pages[0]["severity"], "error");
    assert!(not_pages[1]["file"].as_str().unwrap().ends_with("16391"));
    // The other files' damage is still found: the bit flip of global's block 2.
    assert!(
        problems
            .iter()
            .any(|p| p["class"] == "checksum" && p["file"].as_str().unwrap().contains("global")),
        "{problems:?}"
    );
    // No truncated problem for the log's tail: the file is one problem.
    assert!(
        summary["problems_by_class"].get("truncated").is_none(),
        "{summary}"
    );
    // Named on the command line, the hex file is still a text dump to
    // decode: what it decodes to is not pages either, exit 2 as from show.
    let r = blockscope(&["verify", db.join("16391").to_str().unwrap()], None);
    assert!(!r.stdout.contains("not-pages"), "{}", r.stdout);
    assert_eq!(r.code, 2, "{}", r.stderr);
    fs::remove_dir_all(root).unwrap();
}

/// A text input that decodes to less than one block: a `truncated` problem
/// is streamed, then nothing is verified (exit 2). The JSON document is
/// closed all the same, and every NDJSON line is whole: a CI job parsing
/// the output never meets half a document.
#[test]
fn nothing_verified_still_closes_the_json_document() {
    let sample = "fixtures/inputs/samples/sample-512.base64.txt";
    let (code, summary, problems) = verify_json(&[sample]);
    assert_eq!(code, 2);
    assert_eq!(summary["blocks"], 0);
    assert_eq!(summary["clean"], false);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0]["class"], "truncated");
    let run = blockscope(&["verify", "--format", "ndjson", sample], None);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("nothing was verified"),
        "{}",
        run.stderr
    );
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert_eq!(lines[1]["summary"]["blocks"], 0);
    // Text: no summary for a run that verified nothing, as before.
    let run = blockscope(&["verify", sample], None);
    assert_eq!(run.code, 2);
    assert!(!run.stdout.contains("Result:"), "{}", run.stdout);
}
