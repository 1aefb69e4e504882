//! Basic/OLTP-compressed table blocks (`flag=-0------`, `ntab=2`, a symbol
//! table in table 0): decoded from bytes in both byte orders, printed as the
//! published dumps print them, never called corrupt, and read back from
//! trace text line for line. Sources in `fixtures/oracle/README.md`.

mod common;

use common::{fixture, run};
use serde_json::Value;

/// The 10.2 basic-compression block published by biti_rainy (CSDN, 2004),
/// rebuilt from its dump's offsets: 8 KiB, `tsiz: 0x1f88` (data header at
/// 0x74: three ITLs, no ASSM extension), `fcls_9ir2[4]`, one 3-column
/// symbol-table row of 66 bytes at 0x1f46 used by all 723 data rows of
/// 5 bytes each (`pri[n] = 0x1f46 − 5n`, `fseo=0x1127`).
fn biti_rainy_block(big: bool) -> Vec<u8> {
    let mut b = vec![0u8; 8192];
    let w16 = |b: &mut Vec<u8>, at: usize, v: u16| {
        let x = if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        b[at..at + 2].copy_from_slice(&x);
    };
    let w32 = |b: &mut Vec<u8>, at: usize, v: u32| {
        let x = if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        b[at..at + 4].copy_from_slice(&x);
    };
    // kcbh
    b[0] = 0x06;
    b[1] = 0xa2;
    w32(&mut b, 4, 0x02c0_0302);
    w32(&mut b, 8, 0x0005_1234);
    b[14] = 1;
    b[15] = 0x04;
    // ktbbh: DATA, 3 ITLs, MSSM
    b[20] = 1;
    w32(&mut b, 24, 0x7777);
    w32(&mut b, 28, 0x0005_1230);
    b[36] = 3;
    b[38] = 0x02;
    let p = 44 + 3 * 24;
    assert_eq!(p, 0x74);
    // kdbh
    b[p] = 0x40;
    b[p + 1] = 2;
    w16(&mut b, p + 2, 724);
    w16(&mut b, p + 4, 0xffff);
    w16(&mut b, p + 6, 0x5ce);
    w16(&mut b, p + 8, 0x1127);
    w16(&mut b, p + 10, 0xd);
    w16(&mut b, p + 12, 0xd);
    // 9iR2 header: 5 bytes whose fields are not established (left zero),
    // then the fcls and perm counts and flag_9ir2, then fcls_9ir2[4].
    b[p + 19] = 4;
    b[p + 20] = 0;
    b[p + 21] = 0x01;
    for (i, v) in [0u16, 32768, 32768, 32768].iter().enumerate() {
        w16(&mut b, p + 22 + 2 * i, *v);
    }
    // pti[0], pti[1] at 0x1e: offs, nrow
    w16(&mut b, p + 0x1e, 0);
    w16(&mut b, p + 0x20, 1);
    w16(&mut b, p + 0x22, 1);
    w16(&mut b, p + 0x24, 723);
    for i in 0..724u16 {
        w16(&mut b, p + 0x26 + 2 * usize::from(i), 0x1f46 - 5 * i);
    }
    // Symbol-table row: bindmp 02 d3 03 dc 41×20 dc 42×20 dc 43×20.
    let mut sym = vec![0x02, 0xd3, 0x03];
    for c in [0x41u8, 0x42, 0x43] {
        sym.push(0xdc);
        sym.extend(std::iter::repeat_n(c, 20));
    }
    assert_eq!(sym.len(), 66);
    b[p + 0x1f46..p + 0x1f46 + 66].copy_from_slice(&sym);
    // Data rows: flag, lock, one stored piece expanding to 3 columns, token 0.
    for i in 1..724usize {
        let at = p + 0x1f46 - 5 * i;
        b[at..at + 5].copy_from_slice(&[0x2c, 0x00, 0x01, 0x03, 0x00]);
    }
    // tail and check value
    w32(&mut b, 8188, (0x1234 << 16) | (0x06 << 8) | 1);
    let mut x = 0u16;
    for w in b.chunks(2) {
        x ^= if big {
            u16::from_be_bytes([w[0], w[1]])
        } else {
            u16::from_le_bytes([w[0], w[1]])
        };
    }
    w16(&mut b, 16, x);
    b
}

fn write_block(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("blockscope-oracomp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn squeeze(s: &str) -> String {
    s.split_whitespace().collect()
}

/// The published dump's lines (from `tsiz:` to the symbol-table row's
/// `bindmp:`), minus the three header fields not decoded from bytes.
fn published_lines() -> Vec<String> {
    let text =
        std::fs::read_to_string(fixture("oracle/trace/published_10g_compressed.excerpt.txt"))
            .unwrap();
    text.lines()
        .skip_while(|l| !l.starts_with("tsiz:"))
        .filter(|l| {
            !l.starts_with("pbl:")
                && !l.starts_with("r0_9ir2=")
                && !l.starts_with("mec_kdbh9ir2=")
                && !l.starts_with("r1_9ir2=")
                && !l.trim().is_empty()
        })
        .map(squeeze)
        .collect()
}

#[test]
fn compressed_block_decodes_in_both_byte_orders_and_is_not_corrupt() {
    for big in [false, true] {
        let p = write_block(&format!("biti-{big}.blk"), &biti_rainy_block(big));
        let path = p.to_str().unwrap();
        let r = run(&["show", "--format", "json", path]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let blocks = common::show_blocks(&r.stdout);
        let b = &blocks[0];
        let problems = b["problems"].as_array().unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        let t = &b["table"];
        assert_eq!(t["kdbh"]["hsiz"], 0x5ce);
        let c = &t["kdbh"]["kdbh9ir2"];
        assert_eq!(c["flag_9ir2"], 1);
        assert_eq!(c["fcls_9ir2"], serde_json::json!([0, 32768, 32768, 32768]));
        assert_eq!(c["size"], 16);
        let rows = t["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 724);
        // Every data row expands to the symbol-table row's three columns.
        let last = &rows[723];
        assert_eq!(last["tab"], 1);
        assert_eq!(last["row"], 722);
        assert_eq!(last["tl"], 5);
        assert_eq!(last["bindmp"], "2c 00 01 03 00");
        let cols = last["cols"].as_array().unwrap();
        assert_eq!(cols.len(), 3);
        assert_eq!(cols[2]["data"], ["43"; 20].join(" "));

        let r = run(&["verify", path]);
        assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    }
}

#[test]
fn compressed_block_prints_as_the_published_dump() {
    let p = write_block("biti-dump.blk", &biti_rainy_block(false));
    let r = run(&[
        "show",
        "--format",
        "dump",
        "--oracle-version",
        "10g",
        p.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let ours: Vec<String> = r.stdout.lines().map(squeeze).collect();
    for want in published_lines() {
        assert!(
            ours.iter()
                .any(|l| *l == want || (want.starts_with("bindmp:") && l.starts_with(&want))),
            "published line {want:?} not printed:\n{}",
            r.stdout
        );
    }
    assert!(r.stdout.contains("\nflag=-0------\n"), "{}", r.stdout);
}

#[test]
fn compressed_dump_text_round_trips_line_for_line() {
    // Bytes → dump text → structures → the same text.
    let p = write_block("biti-rt.blk", &biti_rainy_block(false));
    let first = run(&[
        "show",
        "--format",
        "dump",
        "--oracle-tsn",
        "4",
        "--oracle-version",
        "10g",
        p.to_str().unwrap(),
    ]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let trc = write_block("biti-rt.trc", first.stdout.as_bytes());
    let second = run(&[
        "show",
        "--format",
        "dump",
        "--oracle-version",
        "10g",
        trc.to_str().unwrap(),
    ]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(second.stdout, first.stdout);
}

#[test]
fn published_header_fields_read_back_from_text() {
    // The fields the bytes do not give (`r0_9ir2`, `mec_kdbh9ir2`,
    // `r1_9ir2`), as the published dump prints them, inserted into our dump
    // of the rebuilt block: read from text, kept, printed back in place.
    let p = write_block("biti-hdr.blk", &biti_rainy_block(false));
    let first = run(&[
        "show",
        "--format",
        "dump",
        "--oracle-tsn",
        "4",
        "--oracle-version",
        "10g",
        p.to_str().unwrap(),
    ]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let excerpt =
        std::fs::read_to_string(fixture("oracle/trace/published_10g_compressed.excerpt.txt"))
            .unwrap();
    let extra: Vec<&str> = excerpt
        .lines()
        .filter(|l| {
            l.starts_with("r0_9ir2=") || l.starts_with("mec_kdbh9ir2=") || l.starts_with("r1_9ir2=")
        })
        .collect();
    assert_eq!(extra.len(), 3);
    let text = first.stdout.replacen(
        "tosp=0xd\n",
        &format!("tosp=0xd\n{}\n", extra.join("\n")),
        1,
    );
    let trc = write_block("biti-hdr.trc", text.as_bytes());
    let path = trc.to_str().unwrap();
    let j = run(&["show", "--format", "json", path]);
    assert_eq!(j.code, 0, "{}", j.stderr);
    let blocks = common::show_blocks(&j.stdout);
    let b = &blocks[0];
    let s = b.to_string();
    assert!(s.contains("\"mec_kdbh9ir2\":1"), "{s}");
    assert!(s.contains("\"r1_9ir2\":0"), "{s}");
    let d = run(&["show", "--format", "dump", "--oracle-version", "10g", path]);
    assert_eq!(d.code, 0, "{}", d.stderr);
    assert_eq!(d.stdout, text);
}

#[test]
fn a_cut_compression_header_is_reported_not_a_panic() {
    let mut b = biti_rainy_block(false);
    // fcls count 255: the arrays and directories no longer fit as claimed.
    b[0x74 + 19] = 0xff;
    let p = write_block("biti-cut.blk", &b);
    let r = run(&["show", "--format", "json", p.to_str().unwrap()]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

#[test]
fn compressed_fixture_is_current() {
    // `fixtures/oracle/compressed_10g.blk` (used by docs/oracle.md) is the
    // little-endian rebuild above; `BLOCKSCOPE_BLESS=1` rewrites it.
    let want = biti_rainy_block(false);
    let path = fixture("oracle/compressed_10g.blk");
    if common::bless() {
        std::fs::write(&path, &want).unwrap();
    }
    assert_eq!(std::fs::read(&path).unwrap(), want);
}

#[test]
fn a_trace_with_hex_agrees_with_its_own_text() {
    // `--oracle-hex` prints the bytes and the text; reading that trace back,
    // the cross-check of text against bytes finds nothing to report.
    let r = run(&[
        "show",
        "--format",
        "dump",
        "--oracle-hex",
        "--oracle-tsn",
        "4",
        fixture("oracle/compressed_10g.blk").to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Dump of memory"), "{}", r.stdout);
    let trc = write_block("biti-hex.trc", r.stdout.as_bytes());
    let v = run(&["verify", trc.to_str().unwrap()]);
    assert_eq!(v.code, 0, "{}\n{}", v.stdout, v.stderr);
    let problems = |path: &str| -> Vec<Value> {
        let j = run(&["show", "--format", "json", path]);
        assert!(j.code == 0 || j.code == 1, "{}", j.stderr);
        let b = common::show_blocks(&j.stdout)[0].clone();
        b["problems"].as_array().unwrap().clone()
    };
    assert!(problems(trc.to_str().unwrap()).is_empty());
    // The same trace with one fcls_9ir2 entry and one bindmp: edited in its
    // text: both reported against the bytes.
    let edited = r
        .stdout
        .replace(
            "fcls_9ir2[4]={ 0 32768 32768 32768 }",
            "fcls_9ir2[4]={ 0 32768 32768 1 }",
        )
        .replacen("bindmp: 2c 00 01 03 00", "bindmp: 2c 00 01 03 01", 1);
    let trc = write_block("biti-hex-edited.trc", edited.as_bytes());
    let found = problems(trc.to_str().unwrap());
    let fields: Vec<&str> = found.iter().filter_map(|p| p["field"].as_str()).collect();
    assert_eq!(fields, ["fcls_9ir2", "tab 1, row 0 bindmp"], "{found:?}");
}

#[test]
fn export_skips_a_compressed_block_and_says_so() {
    // Its rows are symbol-table references; export does not follow them
    // (rather than write the stored bytes as if they were columns).
    let r = run(&[
        "export",
        "--engine",
        "oracle",
        "--object-id",
        "30583",
        "--columns",
        "a varchar2,b varchar2,c varchar2",
        fixture("oracle/compressed_10g.blk").to_str().unwrap(),
    ]);
    assert!(r.stdout.trim().is_empty(), "{}", r.stdout);
    assert!(r.stderr.contains("a compressed block"), "{}", r.stderr);
}
