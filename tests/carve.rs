//! `blockscope carve`: pages and blocks planted at sector offsets in random
//! bytes are found, placed at their block numbers and grouped; the carved
//! files export as the originals do; the inputs are never written.
//!
//! The images are made at test time from committed fixtures. The live test
//! (`BLOCKSCOPE_PG_CARVE_FIXTURES=1`) runs fixtures/postgres/carve/make.sh:
//! a real PostgreSQL 15 cluster on an ext4 image, its tables dropped inside
//! the image, and a second image whose filesystem metadata is gone.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use blockscope::oracle::{parse_block, BlockOptions};
use common::{fixture_bytes, run};
use serde_json::Value;

fn tempdir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "blockscope-carve-test-{what}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// `len` pseudo-random bytes (xorshift64*), the same for the same seed.
fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        out.extend_from_slice(&x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    out.truncate(len);
    out
}

fn plant(image: &mut [u8], sector: usize, bytes: &[u8]) -> u64 {
    let at = sector * 512;
    image[at..at + bytes.len()].copy_from_slice(bytes);
    at as u64
}

fn str_path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Carve `image` into a fresh DIR: the manifest and DIR.
fn carve(image: &Path, what: &str, extra: &[&str]) -> (Value, PathBuf) {
    let out = tempdir(&format!("{what}-out")).join("out");
    let mut args = vec!["carve", str_path(image), "--out", str_path(&out)];
    assert!(!out.exists());
    args.extend_from_slice(extra);
    let r = run(&args);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let manifest: Value =
        serde_json::from_slice(&fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["schema"], 2);
    (manifest, out)
}

fn groups(manifest: &Value) -> &Vec<Value> {
    manifest["groups"].as_array().unwrap()
}

/// The group that holds the page found at image `offset`.
fn group_at(manifest: &Value, offset: u64) -> &Value {
    groups(manifest)
        .iter()
        .find(|g| {
            g["offsets"]
                .as_array()
                .unwrap()
                .iter()
                .any(|o| o.as_u64() == Some(offset))
        })
        .unwrap_or_else(|| panic!("nothing found at {offset}: {manifest:#}"))
}

#[test]
fn postgres_pages_are_placed_by_their_checksums_and_linked_to_their_toast() {
    // The export fixture's table (one heap page, TOAST pointers) and its
    // TOAST table (two pages), data checksums on: block 1 of the TOAST
    // table planted before block 0, far apart, in random bytes.
    let heap = fixture_bytes("postgres/export/data/base/5/16384");
    let toast = fixture_bytes("postgres/export/data/base/5/16387");
    let dir = tempdir("pg");
    let mut image = random_bytes(3 << 20, 7);
    let toast1 = plant(&mut image, 101, &toast[8192..]);
    let toast0 = plant(&mut image, 2049, &toast[..8192]);
    let heap0 = plant(&mut image, 4001, &heap);
    let path = dir.join("disk.img");
    fs::write(&path, &image).unwrap();

    let (manifest, out) = carve(&path, "pg", &[]);
    let t = group_at(&manifest, toast0);
    assert_eq!(t["kind"], "toast");
    assert_eq!(t["engine"], "postgres");
    assert_eq!(t["blkno_known"], true);
    assert_eq!(t["blocks"], serde_json::json!([0, 1]));
    assert_eq!(t["offsets"], serde_json::json!([toast0, toast1]));
    let h = group_at(&manifest, heap0);
    assert_eq!(h["kind"], "heap");
    assert_eq!(h["toast"], t["id"], "{manifest:#}");
    assert_eq!(t["columns"], Value::Null);
    let proposed = h["columns"]
        .as_str()
        .expect("a heap group carries infer's proposal");
    assert_eq!(groups(&manifest).len(), 2, "{manifest:#}");
    let heap_file = out.join(h["path"].as_str().unwrap());
    let toast_file = out.join(t["path"].as_str().unwrap());
    assert_eq!(fs::read(&heap_file).unwrap(), heap);
    assert_eq!(fs::read(&toast_file).unwrap(), toast);
    // The image is as it was.
    assert_eq!(fs::read(&path).unwrap(), image);

    // The carved files export as copies of the originals do.
    let copies = dir.join("copies");
    fs::create_dir_all(&copies).unwrap();
    fs::write(copies.join("16384"), &heap).unwrap();
    fs::write(copies.join("16387"), &toast).unwrap();
    let schema = common::fixture("postgres/export/t.schema.json");
    let export = |rel: &Path, toast: &Path| {
        run(&[
            "export",
            str_path(rel),
            "--schema",
            str_path(&schema),
            "--toast",
            str_path(toast),
            "-f",
            "csv",
        ])
    };
    let want = export(&copies.join("16384"), &copies.join("16387"));
    let got = export(&heap_file, &toast_file);
    assert_eq!(want.code, 0, "{}", want.stderr);
    assert_eq!(got.code, 0, "{}", got.stderr);
    assert!(got.stdout.lines().count() > 3, "{}", got.stdout);
    assert_eq!(got.stdout, want.stdout);
    got.assert_stderr_has(&["no pg_xact"]);

    // With no column list typed: the manifest's proposal reads every row,
    // and the columns the catalog also has (id, name, amount, ok, at) alike.
    // (This table has a dropped column, which a proposal shows as live, and
    // a column added with a DEFAULT, which only the catalog knows.)
    let copy = |rel: &Path, columns: &[&str]| {
        let mut args = vec!["export", str_path(rel)];
        args.extend_from_slice(columns);
        args.extend_from_slice(&["--toast", str_path(&toast_file), "-f", "copy"]);
        run(&args)
    };
    let schema_arg = ["--schema", str_path(&schema)];
    let by_catalog = copy(&heap_file, &schema_arg);
    let by_manifest = copy(&heap_file, &["--columns", proposed]);
    assert_eq!(by_manifest.code, 0, "{proposed}: {}", by_manifest.stderr);
    let head = |out: &str| -> Vec<String> {
        out.lines()
            .map(|l| l.split('\t').take(5).collect::<Vec<_>>().join("\t"))
            .collect()
    };
    assert!(head(&by_catalog.stdout).len() > 50);
    assert_eq!(
        head(&by_manifest.stdout),
        head(&by_catalog.stdout),
        "{proposed}"
    );
}

/// A filesystem of 1 KB blocks may store a page's eight blocks apart: such
/// a page is not found (no piece of it is taken for a page), and its
/// neighbour stored whole is still placed by its checksum.
#[test]
fn a_page_split_across_filesystem_blocks_is_not_a_false_page() {
    let toast = fixture_bytes("postgres/export/data/base/5/16387");
    let dir = tempdir("split");
    let mut image = random_bytes(2 << 20, 11);
    let whole = plant(&mut image, 64, &toast[..8192]);
    // Block 1 in eight 1 KB pieces, each at its own place, in reverse order.
    let pieces: Vec<u64> = (0..8)
        .map(|k| {
            plant(
                &mut image,
                400 + 300 * (7 - k),
                &toast[8192 + k * 1024..][..1024],
            )
        })
        .collect();
    let path = dir.join("disk.img");
    fs::write(&path, &image).unwrap();
    let (manifest, _) = carve(&path, "split", &["--engine", "postgres"]);
    let g = group_at(&manifest, whole);
    assert_eq!(g["blocks"], serde_json::json!([0]), "{manifest:#}");
    assert_eq!(groups(&manifest).len(), 1, "{manifest:#}");
    for at in pieces {
        assert!(
            groups(&manifest).iter().all(|g| !g["offsets"]
                .as_array()
                .unwrap()
                .iter()
                .any(|o| o.as_u64() == Some(at))),
            "a piece at {at} was taken for a page"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_carved_page_is_named_and_skipped_by_export() {
    let heap = fixture_bytes("postgres/export/data/base/5/16384");
    let dir = tempdir("damaged");
    let mut image = random_bytes(1 << 20, 11);
    let at = plant(&mut image, 33, &heap);
    let path = dir.join("disk.img");
    fs::write(&path, &image).unwrap();
    let (manifest, out) = carve(&path, "damaged", &["--engine", "postgres"]);
    let file = out.join(group_at(&manifest, at)["path"].as_str().unwrap());
    // A second block: the first with its first line pointer pointing past
    // the page.
    let mut bytes = fs::read(&file).unwrap();
    let mut bad = heap.clone();
    bad[24..28].copy_from_slice(&(0x7FFFu32 | 1 << 15 | 40 << 17).to_le_bytes());
    bytes.extend_from_slice(&bad);
    fs::write(&file, &bytes).unwrap();
    let schema = common::fixture("postgres/export/t.schema.json");
    let r = run(&[
        "export",
        str_path(&file),
        "--schema",
        str_path(&schema),
        "-f",
        "csv",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    r.assert_stderr_has(&["block 1"]);
    assert!(!r.stdout.is_empty());
}

/// Oracle blocks the fixtures hold: (name, bytes).
fn oracle_blocks() -> Vec<(&'static str, Vec<u8>)> {
    let planted = fixture_bytes("oracle/planted.dbf");
    let block = |n: usize| planted[n * 8192..(n + 1) * 8192].to_vec();
    vec![
        (
            "block_5_907",
            fixture_bytes("reference/blog-oracle/block_5_907.bin"),
        ),
        (
            "undo le",
            fixture_bytes("oracle/blocks/undo_block_10g.synthetic.le.blk"),
        ),
        (
            "undo be",
            fixture_bytes("oracle/blocks/undo_block_10g.synthetic.be.blk"),
        ),
        ("planted table", block(2)),
        ("planted misplaced", block(6)),
        ("planted index", block(9)),
    ]
}

#[test]
fn oracle_blocks_are_found_with_their_rdba_and_object_id() {
    let dir = tempdir("oracle");
    let mut image = random_bytes(4 << 20, 3);
    let mut planted = Vec::new();
    for (n, (name, bytes)) in oracle_blocks().into_iter().enumerate() {
        let at = plant(&mut image, 37 + n * 1111, &bytes);
        planted.push((name, at, bytes));
    }
    // A block whose check value does not match (planted.dbf block 3) and a
    // fractured one (block 4) are not carved.
    let dbf = fixture_bytes("oracle/planted.dbf");
    let bad_check = plant(&mut image, 7001, &dbf[3 * 8192..4 * 8192]);
    let fractured = plant(&mut image, 7301, &dbf[4 * 8192..5 * 8192]);
    let path = dir.join("disk.img");
    fs::write(&path, &image).unwrap();

    let (manifest, out) = carve(&path, "oracle", &["--engine", "oracle"]);
    for (name, at, bytes) in &planted {
        let block = parse_block(bytes, &BlockOptions::default());
        let kcbh = block.kcbh.as_ref().unwrap();
        let g = group_at(&manifest, *at);
        assert_eq!(g["engine"], "oracle", "{name}");
        let i = g["offsets"]
            .as_array()
            .unwrap()
            .iter()
            .position(|o| o.as_u64() == Some(*at))
            .unwrap();
        assert_eq!(
            g["rdbas"][i],
            format!("0x{:08x}", kcbh.rdba_kcbh),
            "{name}: {g:#}"
        );
        let blkno = u64::from(kcbh.rdba_kcbh & 0x003F_FFFF);
        assert_eq!(g["blocks"][i], blkno, "{name}");
        match &block.ktbbh {
            Some(k) => assert_eq!(g["data_object_id"], k.ktbbhsid, "{name}"),
            None => assert_eq!(g["data_object_id"], Value::Null, "{name}"),
        }
        // Written at its block number in the group's file.
        let written = fs::read(out.join(g["path"].as_str().unwrap())).unwrap();
        let size = bytes.len() as u64;
        assert_eq!(
            &written[(blkno * size) as usize..((blkno + 1) * size) as usize],
            &bytes[..],
            "{name}"
        );
    }
    // The published block 5/907: its rdba says block 907.
    let g = group_at(&manifest, planted[0].1);
    assert!(g["rdbas"][0].as_str().unwrap().ends_with("38b"), "{g:#}");
    assert_eq!(g["blocks"][0], 907);
    for bad in [bad_check, fractured] {
        assert!(
            groups(&manifest).iter().all(|g| !g["offsets"]
                .as_array()
                .unwrap()
                .iter()
                .any(|o| o.as_u64() == Some(bad))),
            "{bad}: {manifest:#}"
        );
    }
}

/// fixtures/carve/sample.img, the image of docs/carve.md's examples: 256 KB
/// of random bytes with the export fixture's heap page and two TOAST pages
/// (block 1 first), the published Oracle block 5/907 and planted.dbf's
/// index block, each at a sector offset.
fn sample_image() -> Vec<u8> {
    let toast = fixture_bytes("postgres/export/data/base/5/16387");
    let dbf = fixture_bytes("oracle/planted.dbf");
    let mut image = random_bytes(256 << 10, 42);
    plant(&mut image, 9, &toast[8192..]);
    plant(&mut image, 101, &toast[..8192]);
    plant(
        &mut image,
        200,
        &fixture_bytes("postgres/export/data/base/5/16384"),
    );
    plant(
        &mut image,
        333,
        &fixture_bytes("reference/blog-oracle/block_5_907.bin"),
    );
    plant(&mut image, 400, &dbf[9 * 8192..10 * 8192]);
    image
}

#[test]
fn sample_image_fixture_is_current() {
    let path = common::fixture("carve/sample.img");
    let image = sample_image();
    if common::bless() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &image).unwrap();
    }
    assert!(
        fs::read(&path).unwrap() == image,
        "{} is stale: BLOCKSCOPE_BLESS=1 cargo test --test carve",
        path.display()
    );
}

#[test]
fn a_dry_run_writes_nothing() {
    let r = run(&["carve", "fixtures/carve/sample.img", "--dry-run"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("4 groups found (dry run"), "{}", r.stdout);
    assert!(r.stdout.contains("postgres toast"), "{}", r.stdout);
}

#[test]
fn an_image_with_nothing_in_it_exits_1() {
    let dir = tempdir("empty");
    let path = dir.join("random.img");
    fs::write(&path, random_bytes(1 << 20, 5)).unwrap();
    let out = dir.join("out");
    let r = run(&["carve", str_path(&path), "--out", str_path(&out)]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.contains("no pages or blocks found"),
        "{}",
        r.stdout
    );
    let manifest: Value =
        serde_json::from_slice(&fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["groups"], serde_json::json!([]));
}

#[test]
fn out_must_not_be_or_hold_an_input_nor_hold_files() {
    let dir = tempdir("usage");
    let image = dir.join("disk.img");
    fs::write(&image, random_bytes(4096, 9)).unwrap();
    // DIR holds the input.
    let r = run(&["carve", str_path(&image), "--out", str_path(&dir)]);
    assert_eq!(r.code, 2);
    r.assert_stderr_has(&["must not be an input"]);
    // DIR is the input.
    let r = run(&["carve", str_path(&image), "--out", str_path(&image)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    // DIR is not empty.
    let full = dir.join("full");
    fs::create_dir_all(&full).unwrap();
    fs::write(full.join("x"), "x").unwrap();
    let r = run(&["carve", str_path(&image), "--out", str_path(&full)]);
    assert_eq!(r.code, 2);
    r.assert_stderr_has(&["not empty"]);
    // A directory is not an image.
    let r = run(&["carve", str_path(&full), "--out", str_path(&dir.join("o"))]);
    assert_eq!(r.code, 2);
    r.assert_stderr_has(&["is a directory"]);
    assert_eq!(fs::read(&image).unwrap(), random_bytes(4096, 9));
}

/// The live test: a real cluster's tables dropped inside an ext4 image, and
/// the same image with its filesystem metadata destroyed.
#[test]
fn dropped_tables_come_back_from_disk_images() {
    if std::env::var("BLOCKSCOPE_PG_CARVE_FIXTURES")
        .ok()
        .as_deref()
        != Some("1")
    {
        eprintln!(
            "skipped: set BLOCKSCOPE_PG_CARVE_FIXTURES=1 (needs PostgreSQL 15 and e2fsprogs)"
        );
        return;
    }
    let dir = tempdir("live");
    let made = std::process::Command::new("bash")
        .arg(common::fixture("postgres/carve/make.sh"))
        .arg(&dir)
        .status()
        .unwrap();
    assert!(made.success());
    for image in ["dropped.img", "broken.img"] {
        let (manifest, out) = carve(&dir.join(image), image, &[]);
        // Each dropped file comes back whole, every page at its block number.
        let mut found = std::collections::HashMap::new();
        for name in ["plain", "plain_idx", "docs", "docs_toast"] {
            let original = fs::read(dir.join("original").join(name)).unwrap();
            let g = groups(&manifest)
                .iter()
                .find(|g| {
                    fs::read(out.join(g["path"].as_str().unwrap()))
                        .ok()
                        .as_ref()
                        == Some(&original)
                })
                .unwrap_or_else(|| panic!("{image}: {name} not carved"));
            let n = original.len() as u64 / 8192;
            assert_eq!(g["blocks"], serde_json::json!((0..n).collect::<Vec<_>>()));
            assert_eq!(g["blkno_known"], true);
            found.insert(name, g.clone());
        }
        assert_eq!(found["plain"]["kind"], "heap");
        assert_eq!(found["plain_idx"]["kind"], "btree");
        assert_eq!(found["docs_toast"]["kind"], "toast");
        assert_eq!(found["docs"]["toast"], found["docs_toast"]["id"]);
        let file = |name: &str| out.join(found[name]["path"].as_str().unwrap());
        let plain = run(&[
            "export",
            str_path(&file("plain")),
            "--columns",
            "id int4, name text, born date",
            "-f",
            "csv",
        ]);
        assert_eq!(plain.code, 0, "{}", plain.stderr);
        assert_eq!(
            plain.stdout,
            fs::read_to_string(dir.join("expected/plain.csv")).unwrap()
        );
        let docs = run(&[
            "export",
            str_path(&file("docs")),
            "--columns",
            "id int4, body text",
            "--toast",
            str_path(&file("docs_toast")),
            "-f",
            "csv",
        ]);
        assert_eq!(docs.code, 0, "{}", docs.stderr);
        assert_eq!(
            docs.stdout,
            fs::read_to_string(dir.join("expected/docs.csv")).unwrap()
        );

        // hot: its dropped file holds the pages of before the crash, the
        // WAL in pg_wal full-page images of every page after its update.
        // The carved relation is the WAL's newest version of each block,
        // byte for byte what PostgreSQL's recovery wrote (pd_lsn and
        // pd_checksum included); the data-file pages are listed as older.
        assert!(
            manifest["wal"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w["fpis"].as_u64().unwrap() > 0),
            "{image}: no WAL found"
        );
        let rel = fs::read_to_string(dir.join("expected/hot.relfilenode")).unwrap();
        let hot = groups(&manifest)
            .iter()
            .find(|g| g["relfilenode"] == rel.trim())
            .unwrap_or_else(|| panic!("{image}: no group of {}", rel.trim()));
        let recovered = fs::read(dir.join("original/hot_recovered")).unwrap();
        let n = recovered.len() as u64 / 8192;
        assert_eq!(hot["kind"], "heap");
        assert_eq!(hot["fork"], "main");
        assert_eq!(hot["blocks"], serde_json::json!((0..n).collect::<Vec<_>>()));
        let from_wal = hot["wal_lsns"].as_array().unwrap();
        assert!(from_wal.iter().all(|l| l.is_string()), "{hot:#}");
        let old = fs::read(dir.join("original/hot")).unwrap();
        let from_image: Vec<u64> = hot["duplicates"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["source"] == "image")
            .map(|d| d["block"].as_u64().unwrap())
            .collect();
        assert_eq!(from_image, (0..n).collect::<Vec<_>>(), "{hot:#}");
        let carved = fs::read(out.join(hot["path"].as_str().unwrap())).unwrap();
        assert!(carved != old, "{image}: hot came back in its old version");
        assert!(
            carved == recovered,
            "{image}: hot is not what recovery made"
        );
        // Its rows: every row COPY gave after recovery (the updated rows'
        // old versions come too: no pg_xact, no hint bit rules them out).
        let rows = run(&[
            "export",
            str_path(&out.join(hot["path"].as_str().unwrap())),
            "--columns",
            "id int4, note text",
            "-f",
            "csv",
        ]);
        assert_eq!(rows.code, 0, "{}", rows.stderr);
        let got: std::collections::HashSet<&str> = rows.stdout.lines().collect();
        let want = fs::read_to_string(dir.join("expected/hot.csv")).unwrap();
        assert!(want.lines().all(|l| got.contains(l)));
        assert_eq!(got.len() as u64, want.lines().count() as u64 + n);
    }
    let _ = fs::remove_dir_all(&dir);
}
