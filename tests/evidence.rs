//! `verify --evidence`: the provenance block — version, arguments, and per
//! input its path, size, mtime and the SHA-256 of the bytes read — checked
//! against the files themselves.

mod common;

use std::path::PathBuf;

use serde_json::Value;
use sha2::{Digest, Sha256};

const RELATION: &str = "fixtures/postgres/corrupt/clean/16384";

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The summary document of a `verify -f json` run.
fn summary(args: &[&str], stdin: Option<&[u8]>) -> (i32, Value) {
    let run = common::run_with_stdin(args, stdin);
    let doc: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    (run.code, doc["summary"].clone())
}

/// A scratch file under the target directory, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn scratch(name: &str, bytes: &[u8]) -> Scratch {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("evidence-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    Scratch(path)
}

#[test]
fn a_relation_file_s_digest_size_path_and_mtime() {
    let bytes = common::fixture_bytes("postgres/corrupt/clean/16384");
    let (code, s) = summary(&["verify", "--evidence", "-f", "json", RELATION], None);
    assert_eq!(code, 0);
    let p = &s["provenance"];
    assert_eq!(p["blockscope"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        p["arguments"],
        serde_json::json!(["verify", "--evidence", "-f", "json", RELATION])
    );
    let inputs = p["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0]["path"], RELATION);
    assert_eq!(inputs[0]["size"], bytes.len() as u64);
    assert_eq!(inputs[0]["sha256"], sha256_hex(&bytes));
    let mtime = inputs[0]["mtime"].as_str().unwrap();
    assert!(
        mtime.len() >= 20 && mtime.ends_with('Z') && mtime.as_bytes()[10] == b'T',
        "{mtime}"
    );
}

#[test]
fn without_evidence_there_is_no_provenance() {
    let (_, s) = summary(&["verify", "-f", "json", RELATION], None);
    assert!(s.get("provenance").is_none());
    let run = common::run(&["verify", RELATION]);
    assert!(!run.stdout.contains("Provenance"));
}

#[test]
fn text_and_ndjson_carry_the_same_digest() {
    let digest = sha256_hex(&common::fixture_bytes("postgres/corrupt/clean/16384"));
    let run = common::run(&["verify", "--evidence", RELATION]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let provenance = run
        .stdout
        .find("Provenance\n")
        .expect("a provenance section");
    assert!(provenance < run.stdout.find("Verification completed").unwrap());
    assert!(run
        .stdout
        .contains(&format!("  sha256:          {digest}\n")));
    assert!(run
        .stdout
        .contains(&format!("Input:             {RELATION}\n")));
    let run = common::run(&["verify", "--evidence", "-f", "ndjson", RELATION]);
    let last: Value = serde_json::from_str(run.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["schema"], 7);
    assert_eq!(last["summary"]["provenance"]["inputs"][0]["sha256"], digest);
}

/// More than two of verify's 16 MiB windows, read in parallel chunks: the
/// digest is still of the file's bytes in order, the partial last block
/// included.
#[test]
fn a_file_of_several_windows_and_a_partial_block() {
    let page = common::fixture_bytes("postgres/corrupt/clean/16384");
    let mut bytes = Vec::with_capacity(34 << 20);
    let mut i = 0u8;
    while bytes.len() < 33 << 20 {
        let start = bytes.len();
        bytes.extend_from_slice(&page);
        // Each copy differs, so that chunks out of order change the digest.
        bytes[start + 100] = i;
        i = i.wrapping_add(1);
    }
    bytes.extend_from_slice(&page[..100]);
    let file = scratch("windows", &bytes);
    let path = file.0.to_str().unwrap();
    let (code, s) = summary(
        &[
            "verify",
            "--evidence",
            "--checksums",
            "off",
            "-f",
            "json",
            path,
        ],
        None,
    );
    assert_eq!(code, 1, "a partial block is a failure");
    assert_eq!(s["truncated_files"], 1);
    let input = &s["provenance"]["inputs"][0];
    assert_eq!(input["path"], path);
    assert_eq!(input["size"], bytes.len() as u64);
    assert_eq!(input["sha256"], sha256_hex(&bytes));
}

#[test]
fn standard_input_s_digest_is_of_the_stream() {
    let page = common::fixture_bytes("postgres/corrupt/clean/16384");
    // Several windows through the pipe as well.
    let bytes: Vec<u8> = page.iter().copied().cycle().take(40 << 20).collect();
    let (_, s) = summary(
        &[
            "verify",
            "--evidence",
            "--checksums",
            "off",
            "-f",
            "json",
            "-",
        ],
        Some(&bytes),
    );
    let input = &s["provenance"]["inputs"][0];
    assert_eq!(input["path"], "-");
    assert_eq!(input["size"], bytes.len() as u64);
    assert!(input.get("mtime").is_none());
    assert_eq!(input["sha256"], sha256_hex(&bytes));
}

/// Oracle datafiles and traces carry the same provenance: the digest of
/// the file's bytes (a datafile) or of the trace text read.
#[test]
fn oracle_datafile_and_trace_digests() {
    let (code, s) = summary(
        &[
            "verify",
            "--evidence",
            "-f",
            "json",
            "fixtures/oracle/planted.dbf",
            "fixtures/oracle/trace/planted_2_9_8.trc",
        ],
        None,
    );
    assert_eq!(code, 1, "planted.dbf has failing blocks");
    let inputs = &s["provenance"]["inputs"];
    for (i, name) in ["planted.dbf", "trace/planted_2_9_8.trc"]
        .iter()
        .enumerate()
    {
        let bytes = common::fixture_bytes(&format!("oracle/{name}"));
        assert_eq!(inputs[i]["path"], format!("fixtures/oracle/{name}"));
        assert_eq!(inputs[i]["size"], bytes.len() as u64);
        assert_eq!(inputs[i]["sha256"], sha256_hex(&bytes));
        assert!(inputs[i]["mtime"].is_string());
    }
    assert_eq!(s["provenance"]["arguments"][1], "--evidence");
    let run = common::run(&["verify", "--evidence", "fixtures/oracle/planted.dbf"]);
    let digest = sha256_hex(&common::fixture_bytes("oracle/planted.dbf"));
    assert!(run
        .stdout
        .contains(&format!("  sha256:          {digest}\n")));
}

/// `show --evidence`: each input's provenance after its blocks, in every
/// format, with the SHA-256 of exactly the bytes read.
#[test]
fn show_evidence_gives_each_input_s_provenance() {
    let page = "fixtures/postgres/heap/delete.0.page";
    let page_bytes = common::fixture_bytes("postgres/heap/delete.0.page");
    let rel_bytes = common::fixture_bytes("postgres/corrupt/clean/16384");

    // JSON: the several-inputs form, one element per input, provenance last.
    let run = common::run(&["show", "--evidence", "-f", "json", page, RELATION]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["schema"], 2);
    let inputs = doc["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 2);
    for (element, (path, bytes)) in inputs
        .iter()
        .zip([(page, &page_bytes), (RELATION, &rel_bytes)])
    {
        assert_eq!(element["input"], path);
        assert!(!element["blocks"].as_array().unwrap().is_empty());
        let p = &element["provenance"];
        assert_eq!(p["blockscope"], env!("CARGO_PKG_VERSION"));
        assert_eq!(p["arguments"][0], "show");
        let input = &p["inputs"][0];
        assert_eq!(input["path"], path);
        assert_eq!(input["size"], bytes.len() as u64);
        assert_eq!(input["bytes_read"], bytes.len() as u64);
        assert_eq!(input["sha256"], sha256_hex(bytes));
        assert!(input["mtime"].as_str().unwrap().ends_with('Z'));
    }

    // NDJSON: a provenance line after the input's blocks.
    let run = common::run(&["show", "--evidence", "-f", "ndjson", page]);
    assert!(run.stdout.starts_with("{\"schema\":2}\n"));
    let last: Value = serde_json::from_str(run.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        last["provenance"]["inputs"][0]["sha256"],
        sha256_hex(&page_bytes)
    );

    // Standard input: its size is the bytes read; no mtime.
    let run = common::run_with_stdin(&["show", "--evidence", "-f", "ndjson"], Some(&page_bytes));
    let last: Value = serde_json::from_str(run.stdout.lines().last().unwrap()).unwrap();
    let input = &last["provenance"]["inputs"][0];
    assert_eq!(input["path"], "-");
    assert_eq!(input["size"], page_bytes.len() as u64);
    assert!(input.get("mtime").is_none());
    assert_eq!(input["sha256"], sha256_hex(&page_bytes));

    // Tables: a provenance section after the input's blocks.
    let run = common::run(&["show", "--evidence", page]);
    let at = run
        .stdout
        .find("Provenance\n")
        .expect("a provenance section");
    assert!(run.stdout[at..].contains(&sha256_hex(&page_bytes)));
    assert!(run.stdout.starts_with(&format!("==> {page} <==")));

    // Without --evidence, one input's JSON is as before: no provenance.
    let run = common::run(&["show", "-f", "json", page]);
    assert!(!run.stdout.contains("provenance"));
}
