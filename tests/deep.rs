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
