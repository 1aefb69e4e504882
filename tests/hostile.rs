//! Hostile and broken input: inputs are never changed, huge text is refused
//! with one clear line, and every text form round-trips arbitrary bytes.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use blockscope::{decode_text as decode, InputFormat};
use proptest::prelude::*;

mod common;

use common::root;

fn blockscope(args: &[&str]) -> (i32, String, String) {
    let r = common::run(args);
    (r.code, r.stdout, r.stderr)
}

/// A read-only copy of a fixture in a fresh directory.
fn read_only_copy(rel: &str, dir: &Path) -> PathBuf {
    let src = root().join("fixtures").join(rel);
    let dst = dir.join(src.file_name().unwrap());
    fs::copy(&src, &dst).unwrap();
    let mut perms = fs::metadata(&dst).unwrap().permissions();
    perms.set_readonly(true);
    fs::set_permissions(&dst, perms).unwrap();
    dst
}

#[test]
fn show_and_verify_never_change_their_inputs() {
    let dir = std::env::temp_dir().join(format!("blockscope-ro-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let inputs = [
        read_only_copy("postgres/heap/varlena.0.page", &dir),
        read_only_copy("postgres/btree/bt_dups.1.page", &dir),
        read_only_copy("inputs/hot_update.0.od-d.txt", &dir),
        read_only_copy("oracle/planted.dbf", &dir),
        read_only_copy("oracle/trace/planted_2_9_8.trc", &dir),
        read_only_copy("postgres/corrupt/torn/16384", &dir),
    ];
    let before: Vec<(Vec<u8>, std::time::SystemTime)> = inputs
        .iter()
        .map(|p| {
            (
                fs::read(p).unwrap(),
                fs::metadata(p).unwrap().modified().unwrap(),
            )
        })
        .collect();
    for p in &inputs {
        let path = p.to_str().unwrap();
        for format in ["table", "hex", "json", "ndjson"] {
            let (code, _, err) = blockscope(&["show", path, "--format", format]);
            // Damaged pages: 1 (error-level problems reported), never 2.
            assert!(
                code == 0 || code == 1,
                "show {path} --format {format}: {err}"
            );
        }
        let (code, _, err) = blockscope(&["verify", path]);
        // 2: a text dump holds no whole raw block, and verify says so.
        assert!(
            code == 0 || code == 1 || (code == 2 && err.contains("nothing was verified")),
            "verify {path}: {err}"
        );
    }
    for (p, (bytes, mtime)) in inputs.iter().zip(&before) {
        assert!(&fs::read(p).unwrap() == bytes, "{} changed", p.display());
        assert_eq!(&fs::metadata(p).unwrap().modified().unwrap(), mtime);
    }
    // Nothing was written beside them.
    assert_eq!(fs::read_dir(&dir).unwrap().count(), inputs.len());
    for p in &inputs {
        let mut perms = fs::metadata(p).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        perms.set_readonly(false);
        fs::set_permissions(p, perms).unwrap();
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_huge_text_dump_is_refused_not_swallowed() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_blockscope"))
        .args(["show", "--input", "hex", "--format", "ndjson"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let chunk = vec![b'0'; 1 << 20];
    // 300 MiB of hex digits: more than the 256 MiB a text dump may have. The
    // tool stops reading at the limit, so later writes may fail: that is fine.
    for _ in 0..300 {
        if stdin.write_all(&chunk).is_err() {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("larger than 256 MiB"), "{err}");
}

/// `od -A d -t x1` as coreutils prints it, `*` folding included.
fn od(bytes: &[u8]) -> String {
    let mut out = String::new();
    let mut previous: Option<&[u8]> = None;
    let mut starred = false;
    for (i, line) in bytes.chunks(16).enumerate() {
        if previous == Some(line) && line.len() == 16 {
            if !starred {
                out.push_str("*\n");
                starred = true;
            }
            continue;
        }
        starred = false;
        out.push_str(&format!("{:07}", i * 16));
        for b in line {
            out.push_str(&format!(" {b:02x}"));
        }
        out.push('\n');
        previous = Some(line);
    }
    out.push_str(&format!("{:07}\n", bytes.len()));
    out
}

/// `hexdump -C`.
fn hexdump(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, line) in bytes.chunks(16).enumerate() {
        out.push_str(&format!("{:08x} ", i * 16));
        for (j, b) in line.iter().enumerate() {
            if j == 8 {
                out.push(' ');
            }
            out.push_str(&format!(" {b:02x}"));
        }
        let pad = (16 - line.len()) * 3 + usize::from(line.len() <= 8);
        out.push_str(&" ".repeat(pad));
        out.push_str("  |");
        for b in line {
            out.push(if b.is_ascii_graphic() || *b == b' ' {
                *b as char
            } else {
                '.'
            });
        }
        out.push_str("|\n");
    }
    out.push_str(&format!("{:08x}\n", bytes.len()));
    out
}

/// gdb's `x/Nbx` at an arbitrary address, 8 bytes a line.
fn gdb(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, line) in bytes.chunks(8).enumerate() {
        out.push_str(&format!("0x7f1c2a4b{:04x}:", 0x8000 + i * 8));
        for b in line {
            out.push_str(&format!("\t0x{b:02x}"));
        }
        out.push('\n');
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Whatever the bytes, each text form of them decodes back to them.
    #[test]
    fn text_forms_round_trip(
        mut bytes in proptest::collection::vec(any::<u8>(), 1..600),
        zeros in 0usize..80,
    ) {
        // Repeated lines so that od folds them with '*'.
        bytes.extend(std::iter::repeat_n(0u8, zeros));
        for (form, text) in [
            (InputFormat::Hex, hex(&bytes)),
            (InputFormat::Bytea, format!("\\x{}", hex(&bytes))),
            (InputFormat::Od, od(&bytes)),
            (InputFormat::Hexdump, hexdump(&bytes)),
            (InputFormat::Gdb, gdb(&bytes)),
        ] {
            let (decoded, _) = decode(text.as_bytes(), form)
                .unwrap_or_else(|e| panic!("{form:?}: {e}\n{text}"));
            prop_assert_eq!(&decoded, &bytes, "{:?}", form);
        }
    }
}
