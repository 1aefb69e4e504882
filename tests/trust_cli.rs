//! Trustworthy answers on broken input, driven through the binary (issue 11,
//! points 1, 3 and 7): the engine chosen from scored signals survives damage,
//! exit statuses a pipeline can trust, notes on standard error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures").join(rel)
}

fn blockscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blockscope"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .expect("run blockscope")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The engine `show --format json` chose for a file.
fn show_engine(path: &Path) -> (String, Output) {
    let out = blockscope(&["show", "--format", "json", path.to_str().unwrap()]);
    let s = text(&out.stdout);
    let engine = if s.contains("\"engine\": \"oracle\"") {
        "oracle"
    } else if s.contains("\"engine\": \"postgres\"") {
        "postgres"
    } else {
        "?"
    };
    (engine.to_string(), out)
}

const DAMAGED_ORACLE: [&str; 3] = [
    "oracle/damaged/tail_flipped.blk",
    "oracle/damaged/half_zeroed.blk",
    "oracle/damaged/cut_5000.blk",
];

#[test]
fn damaged_oracle_blocks_are_still_oracle_in_show() {
    for rel in DAMAGED_ORACLE {
        let (engine, out) = show_engine(&fixture(rel));
        let stderr = text(&out.stderr);
        assert_eq!(engine, "oracle", "{rel}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "blockscope: note: {}: read as Oracle blocks: ",
                fixture(rel).display()
            )),
            "{rel}: {stderr}"
        );
        // Damaged: error-level problems, exit 1.
        assert_eq!(out.status.code(), Some(1), "{rel}: {stderr}");
        // The table view says Oracle's field names, not PostgreSQL's.
        let table = blockscope(&["show", fixture(rel).to_str().unwrap()]);
        let t = text(&table.stdout);
        assert!(t.contains("kcbh") || t.contains("type_kcbh"), "{rel}: {t}");
        assert!(!t.contains("pd_lower"), "{rel}: {t}");
    }
}

#[test]
fn damaged_oracle_blocks_are_still_oracle_in_verify() {
    for rel in DAMAGED_ORACLE {
        let out = blockscope(&["verify", fixture(rel).to_str().unwrap()]);
        let stdout = text(&out.stdout);
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("read as Oracle blocks: "),
            "{rel}: {stderr}"
        );
        if rel.ends_with("cut_5000.blk") {
            // Shorter than one Oracle block: read as Oracle, and nothing
            // verified is said so (exit 2), never a clean report.
            assert!(stderr.contains("nothing was verified"), "{rel}: {stderr}");
            assert_eq!(out.status.code(), Some(2), "{rel}: {stderr}");
            continue;
        }
        assert!(
            stdout.starts_with("DBVERIFY-style verification"),
            "{rel}: {stdout}"
        );
        assert_eq!(out.status.code(), Some(1), "{rel}: {stderr}");
        let json = blockscope(&["verify", "--format", "json", fixture(rel).to_str().unwrap()]);
        assert!(
            text(&json.stdout).contains("\"engine\": \"oracle\""),
            "{rel}"
        );
    }
}

#[test]
fn healthy_oracle_blocks_need_no_note() {
    for rel in [
        "reference/blog-oracle/block_5_907.bin",
        "oracle/typed.blk",
        "oracle/planted.dbf",
    ] {
        let (engine, out) = show_engine(&fixture(rel));
        assert_eq!(engine, "oracle", "{rel}");
        assert_eq!(text(&out.stderr), "", "{rel}");
    }
}

/// The raw bytes of the hex section of a trace whose `Dump of memory` lines
/// hold little-endian 32-bit words (`Repeat N times` repeats the line before).
fn trace_hex_le(trace: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut last: Vec<u8> = Vec::new();
    for line in trace.lines() {
        if let Some(n) = line
            .strip_prefix("Repeat ")
            .and_then(|r| r.strip_suffix(" times"))
        {
            let n: usize = n.trim().parse().unwrap();
            for _ in 0..n {
                out.extend_from_slice(&last);
            }
            continue;
        }
        let Some((words, _ascii)) = line.split_once(" [") else {
            continue;
        };
        let mut fields = words.split_whitespace();
        if fields
            .next()
            .is_none_or(|a| u64::from_str_radix(a, 16).is_err())
        {
            continue;
        }
        let row: Option<Vec<u8>> = fields
            .map(|w| u32::from_str_radix(w, 16).ok().map(u32::to_le_bytes))
            .collect::<Option<Vec<_>>>()
            .map(|ws| ws.concat());
        if let Some(row) = row {
            out.extend_from_slice(&row);
            last = row;
        }
    }
    out
}

/// A block whose format byte is 0x02 (no block size in its top bits, as
/// blocks formatted before 10g and some file-space headers since keep it):
/// still an Oracle block, with no note. The real KTFB header of a published
/// 11g dump, written out as the raw block it dumps.
#[test]
fn format_byte_without_block_size_is_still_oracle() {
    let trace = std::fs::read_to_string(fixture("oracle/blocks/ktfb_header_11g_i686.trc")).unwrap();
    let bytes = trace_hex_le(&trace);
    assert_eq!(bytes.len(), 8192);
    assert_eq!(&bytes[..2], &[0x1d, 0x02]);
    let path = tempdir().join("ktfb_frmt02.blk");
    std::fs::write(&path, &bytes).unwrap();
    let (engine, out) = show_engine(&path);
    assert_eq!(engine, "oracle", "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    let table = text(&blockscope(&["show", path.to_str().unwrap()]).stdout);
    assert!(
        table.contains("format 2, block size not encoded"),
        "{table}"
    );
}

#[test]
fn postgres_pages_healthy_and_damaged_stay_postgres() {
    let dir = fixture("postgres/corrupt");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let case = entry.unwrap().path();
        let file = case.join("16384");
        if !file.is_file() {
            continue;
        }
        n += 1;
        let (engine, out) = show_engine(&file);
        assert_eq!(engine, "postgres", "{}", file.display());
        assert!(
            !text(&out.stderr).contains("read as Oracle"),
            "{}",
            file.display()
        );
        let v = blockscope(&["verify", "--format", "json", file.to_str().unwrap()]);
        assert!(
            text(&v.stdout).contains("\"engine\": \"postgres\""),
            "{}",
            file.display()
        );
    }
    assert!(n >= 10, "{n} corrupt fixtures");
}

#[test]
fn verify_engine_can_be_forced() {
    let blk = fixture("oracle/damaged/half_zeroed.blk");
    let p = blk.to_str().unwrap();
    let pg = blockscope(&["verify", "--engine", "postgres", "--format", "json", p]);
    assert!(text(&pg.stdout).contains("\"engine\": \"postgres\""));
    let ora = blockscope(&["verify", "--engine", "oracle", "--format", "json", p]);
    assert!(text(&ora.stdout).contains("\"engine\": \"oracle\""));
    // Forced, nothing to explain.
    assert_eq!(text(&ora.stderr), "");
    let clean = fixture("postgres/corrupt/clean/16384");
    let forced = blockscope(&[
        "verify",
        "--engine",
        "oracle",
        "--format",
        "json",
        clean.to_str().unwrap(),
    ]);
    assert!(text(&forced.stdout).contains("\"engine\": \"oracle\""));
    let dir = blockscope(&[
        "verify",
        "--engine",
        "oracle",
        fixture("postgres/corrupt/clean").to_str().unwrap(),
    ]);
    assert_eq!(dir.status.code(), Some(2));
}

#[test]
fn show_exit_status_says_what_was_found() {
    let clean = blockscope(&["show", "fixtures/postgres/corrupt/clean/16384"]);
    assert_eq!(clean.status.code(), Some(0));
    assert_eq!(text(&clean.stderr), "");
    let bad = blockscope(&["show", "fixtures/postgres/corrupt/pd_lower_9000/16384"]);
    assert_eq!(bad.status.code(), Some(1));

    // Not pages at all: an executable, random bytes.
    let ls = blockscope(&["show", "/bin/ls"]);
    assert_eq!(ls.status.code(), Some(2), "{}", text(&ls.stderr));
    assert!(
        text(&ls.stderr).contains("not pages"),
        "{}",
        text(&ls.stderr)
    );
    let dir = tempdir();
    let random = dir.join("random.bin");
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let bytes: Vec<u8> = (0..8192)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(&random, &bytes).unwrap();
    let r = blockscope(&["show", random.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
    // Truncated hex.
    let hex = dir.join("cut.hex");
    let page = std::fs::read(fixture("postgres/corrupt/clean/16384")).unwrap();
    let digits: String = page[..1500].iter().map(|b| format!("{b:02x}")).collect();
    std::fs::write(&hex, &digits[..2999]).unwrap();
    let h = blockscope(&["show", hex.to_str().unwrap()]);
    assert_eq!(h.status.code(), Some(2), "{}", text(&h.stderr));
}

fn tempdir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("blockscope-trust-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `blockscope ARGS | head -1` under `pipefail`: blockscope's own status.
fn piped_status(args: &str) -> i32 {
    let bin = env!("CARGO_BIN_EXE_blockscope");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -o pipefail; '{bin}' {args} | head -1 >/dev/null; echo \"${{PIPESTATUS[0]}}\""
        ))
        .current_dir(root())
        .output()
        .expect("bash");
    assert_eq!(text(&out.stderr), "", "{args}: a broken pipe ends quietly");
    text(&out.stdout).trim().parse().unwrap()
}

#[test]
fn a_closed_pipe_keeps_the_status() {
    // The first line is a problem: never 0.
    assert_eq!(
        piped_status("verify fixtures/postgres/corrupt/bitflip/16384 fixtures/postgres/corrupt/pd_lower_9000/16384"),
        1
    );
    assert_eq!(piped_status("verify fixtures/oracle/planted.dbf"), 1);
    // show of a damaged page whose first block already has errors.
    assert_eq!(
        piped_status("show --blocks 2 fixtures/postgres/corrupt/pd_lower_9000/16384"),
        1
    );
    assert_eq!(
        piped_status("show fixtures/postgres/corrupt/clean/16384"),
        0
    );
}

#[test]
fn verify_notes_go_to_stderr() {
    // Bookkeeping files are noted only with --verbose (tests/progress.rs).
    let out = blockscope(&["verify", "--verbose", "fixtures/postgres/corrupt/clean"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains("note"), "{stdout}");
    assert!(stdout.starts_with("Verification completed"), "{stdout}");
    assert!(
        text(&out.stderr)
            .contains("blockscope: note: fixtures/postgres/corrupt/clean/PG_VERSION: skipped: "),
        "{}",
        text(&out.stderr)
    );
}

/// `verify` with the input on standard input chooses the engine as it does
/// for a named file, and reports the same.
#[test]
fn verify_on_standard_input_chooses_the_engine_as_for_a_file() {
    for rel in [
        "reference/blog-oracle/block_5_907.bin",
        "oracle/damaged/tail_flipped.blk",
        "oracle/planted.dbf",
        "oracle/trace/block_5_907.trc",
        "postgres/corrupt/lp_past_end/16384",
    ] {
        let path = fixture(rel);
        let named = blockscope(&["verify", "--format", "json", path.to_str().unwrap()]);
        let piped = std::process::Command::new(env!("CARGO_BIN_EXE_blockscope"))
            .args(["verify", "--format", "json"])
            .stdin(std::fs::File::open(&path).unwrap())
            .output()
            .unwrap();
        assert_eq!(piped.status.code(), named.status.code(), "{rel}");
        let doc = |out: &[u8]| -> serde_json::Value { serde_json::from_slice(out).unwrap() };
        let (a, b) = (doc(&named.stdout), doc(&piped.stdout));
        assert_eq!(a["engine"], b["engine"], "{rel}");
        let blocks = |d: &serde_json::Value| -> Vec<u64> {
            d["problems"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p["severity"] == "error")
                .map(|p| p["blkno"].as_u64().unwrap())
                .collect()
        };
        assert_eq!(blocks(&a), blocks(&b), "{rel}: failing blocks");
    }
}
