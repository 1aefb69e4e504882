//! One behaviour everywhere: what `show`, `verify` and `map` do alike with
//! a file that is not pages, a data directory, a relation's segments, a
//! truncated file, colour, standard input on a terminal; the table views'
//! values and flag names; and `show --format raw` / `--format hex
//! --absolute`, judged against `dd`'s cut of the same bytes.
//!
//! Terminal behaviour is tested through `script -qec CMD /dev/null`
//! (util-linux), which gives the command a pseudo-terminal.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{fixture, run, Run};

const BLCKSZ: usize = 8192;

/// A fresh directory under the system's temporary directory.
fn tempdir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blockscope-behave-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A JPEG-like file of three blocks and a bit: a JFIF header, then
/// pseudo-random bytes (a JPEG's entropy-coded data looks like that), then
/// the end-of-image marker.
fn jpeg(dir: &Path) -> PathBuf {
    let mut bytes = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10];
    bytes.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    bytes.extend((0..3 * BLCKSZ).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 32) as u8
    }));
    bytes.extend_from_slice(&[0xff, 0xd9]);
    let path = dir.join("photo.jpg");
    std::fs::write(&path, bytes).unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_file_that_is_not_pages_exits_2_from_show_verify_and_map() {
    let dir = tempdir("jpeg");
    let jpg = jpeg(&dir);
    for command in ["show", "verify", "map"] {
        let r = run(&[command, s(&jpg)]);
        assert_eq!(r.code, 2, "{command}: {}", r.stderr);
        r.assert_stderr_has(&["photo.jpg: not pages: no block has a PostgreSQL page header"]);
    }
    // verify names it and still checks the other files it was given.
    let clean = fixture("postgres/corrupt/clean/16384");
    let r = run(&["verify", s(&jpg), s(&clean)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stdout.contains("Files scanned:     1\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("Result:            clean"),
        "{}",
        r.stdout
    );
    r.assert_stderr_has(&["photo.jpg: not pages"]);
    // --engine checks it anyway: then it is damage, exit 1.
    let forced = run(&["verify", "--engine", "postgres", s(&jpg)]);
    assert_eq!(forced.code, 1, "{}", forced.stderr);
    let forced = run(&["map", "--engine", "postgres", s(&jpg)]);
    assert_eq!(forced.code, 1, "{}", forced.stderr);
    // Pages whose first block is damaged beyond recognition are still pages.
    let mut bytes = std::fs::read(&clean).unwrap();
    let garbage: Vec<u8> = std::fs::read(&jpg).unwrap()[..BLCKSZ].to_vec();
    bytes[..BLCKSZ].copy_from_slice(&garbage);
    let torn = dir.join("torn.pages");
    std::fs::write(&torn, &bytes).unwrap();
    for command in ["verify", "map"] {
        let r = run(&[command, s(&torn)]);
        assert_eq!(r.code, 1, "{command}: {}", r.stderr);
        assert!(!r.stderr.contains("not pages"), "{command}: {}", r.stderr);
    }
    // The JPEG's bytes in a file named as a relation file (copied to
    // base/5/16385): not pages all the same, exit 2 from all three.
    let overwritten = dir.join("16385");
    std::fs::copy(&jpg, &overwritten).unwrap();
    for command in ["show", "verify", "map"] {
        let r = run(&[command, s(&overwritten)]);
        assert_eq!(r.code, 2, "{command}: {}", r.stderr);
        r.assert_stderr_has(&["16385: not pages: no block has a PostgreSQL page header"]);
    }
    // A data directory's pg_control is not pages either; show reads it.
    let control = "fixtures/postgres/catalog/18/datadir/global/pg_control";
    for command in ["verify", "map"] {
        let r = run(&[command, control]);
        assert_eq!(r.code, 2, "{command}: {}", r.stderr);
        r.assert_stderr_has(&[
            "pg_control: not pages: a pg_control file (`blockscope show` reads it)",
        ]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn show_of_a_data_directory_without_table_says_to_use_table() {
    let r = run(&["show", "fixtures/postgres/catalog/18/datadir"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "blockscope: error: fixtures/postgres/catalog/18/datadir: a directory; show decodes a \
         file of pages: give a relation file (e.g. base/5/16384), or a data directory's table \
         with --table SCHEMA.NAME (and --database NAME)\n"
    );
    assert!(!r.stderr.contains("os error"));
}

/// A relation of two segments in a directory of its own.
fn two_segments(what: &str) -> (PathBuf, PathBuf) {
    let dir = tempdir(what);
    std::fs::copy(fixture("postgres/corrupt/clean/16384"), dir.join("16384")).unwrap();
    std::fs::copy(
        fixture("postgres/corrupt/segment/16384.1"),
        dir.join("16384.1"),
    )
    .unwrap();
    (dir.join("16384"), dir)
}

fn verify_json(args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["verify", "--format", "json"];
    all.extend_from_slice(args);
    let r = run(&all);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    (r.code, doc)
}

#[test]
fn verify_follows_a_relations_segments_as_map_does() {
    let (first, dir) = two_segments("segments");
    let (code, doc) = verify_json(&[s(&first)]);
    assert_eq!(code, 0, "{doc}");
    // 6 blocks of 16384 and 3 of 16384.1 (blocks 131072..131074).
    assert_eq!(doc["summary"]["files"], 2, "{doc}");
    assert_eq!(doc["summary"]["blocks"], 9, "{doc}");
    let zero = &doc["problems"][0];
    assert_eq!(zero["blkno"], 131_074);
    assert!(
        zero["file"].as_str().unwrap().ends_with("16384.1"),
        "{zero}"
    );
    // Named too, the segment is verified once.
    let (_, doc) = verify_json(&[s(&first), s(&dir.join("16384.1"))]);
    assert_eq!(doc["summary"]["files"], 2, "{doc}");
    assert_eq!(doc["summary"]["blocks"], 9, "{doc}");
    // --segment names one file: nothing is added.
    let (_, doc) = verify_json(&["--segment", "0", s(&first)]);
    assert_eq!(doc["summary"]["files"], 1, "{doc}");
    assert_eq!(doc["summary"]["blocks"], 6, "{doc}");
    // map reads the same files.
    let r = run(&["map", "--format", "json", s(&first)]);
    let map: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(map["summary"]["files"].as_array().unwrap().len(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_svg_map_shows_a_truncated_file_as_the_terminal_map_does() {
    let dir = tempdir("truncated");
    let cut = dir.join("16384");
    let bytes = std::fs::read(fixture("postgres/corrupt/clean/16384")).unwrap();
    std::fs::write(&cut, &bytes[..3 * BLCKSZ + 1000]).unwrap();
    let term = run(&["map", s(&cut)]);
    let line = term
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("problem: "))
        .unwrap_or_else(|| panic!("{}", term.stdout))
        .to_string();
    assert!(line.contains("truncated"), "{line}");
    let svg = run(&["map", "--format", "svg", s(&cut)]);
    assert!(
        svg.stdout.contains(&format!(">problem: {line}</text>")),
        "{}",
        svg.stdout
    );
    // The picture grew to hold the line and still ends as SVG.
    assert!(svg.stdout.trim_end().ends_with("</svg>"));
    // A whole file: no problem lines, in either view.
    let whole = run(&[
        "map",
        "--format",
        "svg",
        "fixtures/postgres/corrupt/clean/16384",
    ]);
    assert!(!whole.stdout.contains("problem"), "{}", whole.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `blockscope ARGS` on a pseudo-terminal (its stdin, stdout and stderr),
/// with `env` set, ended after `seconds`: everything it wrote.
fn on_terminal(args: &str, env: &[(&str, &str)], seconds: u32) -> String {
    let bin = env!("CARGO_BIN_EXE_blockscope");
    let mut cmd = Command::new("timeout");
    cmd.arg(seconds.to_string())
        .args(["script", "-qec", &format!("{bin} {args}"), "/dev/null"])
        .current_dir(common::root())
        .env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .env_remove("COLUMNS")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .expect("timeout and script (util-linux) are needed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const ESC: &str = "\x1b[";

#[test]
fn no_color_and_term_dumb_turn_off_every_coloured_view_on_a_terminal() {
    let hex = "show fixtures/postgres/heap/hot_update.0.page --format hex";
    let map = "map fixtures/postgres/corrupt/bitflip/16384";
    for view in [hex, map] {
        assert!(
            on_terminal(view, &[], 20).contains(ESC),
            "{view}: no colour"
        );
        for env in [("NO_COLOR", "1"), ("TERM", "dumb")] {
            let out = on_terminal(view, &[env], 20);
            assert!(out.contains("0 "), "{view} {env:?}: {out}");
            assert!(!out.contains(ESC), "{view} {env:?}: coloured");
        }
        // An explicit --color always wins over the environment, as in ripgrep.
        let args: Vec<&str> = view.split(' ').chain(["--color", "always"]).collect();
        let forced = common::command()
            .args(&args)
            .env("NO_COLOR", "1")
            .env("TERM", "dumb")
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&forced.stdout).contains(ESC),
            "{view}"
        );
    }
}

#[test]
fn with_no_input_on_a_terminal_show_and_verify_say_they_read_standard_input() {
    for command in ["show", "verify", "map"] {
        let out = on_terminal(command, &[], 3);
        assert!(
            out.contains("blockscope: note: reading standard input (a terminal)"),
            "{command}: {out:?}"
        );
    }
    // In a pipe, nothing is said.
    let r = common::run_with_stdin(&["show"], Some(b""));
    assert!(!r.stderr.contains("reading standard input"), "{}", r.stderr);
}

#[test]
fn the_expanded_table_view_keeps_char_padding() {
    // On an 80-column terminal the values table is drawn as records;
    // types.0.page row 1 has c_char char(5) = 'ab'.
    let out = on_terminal(
        "show fixtures/postgres/heap/types.0.page --schema \
         fixtures/postgres/attrs/types.schema.json",
        &[("COLUMNS", "80"), ("NO_COLOR", "1")],
        20,
    );
    let lines: Vec<&str> = out.split("\r\n").collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("column") && l.ends_with("│ c_char"))
        .unwrap_or_else(|| panic!("{out}"));
    let value = lines[at..].iter().find(|l| l.starts_with("value")).unwrap();
    assert!(value.ends_with("│ ab   "), "{value:?}");
}

#[test]
fn the_narrow_view_prints_heap_only_tuple_whole() {
    let r = run(&["show", "fixtures/postgres/heap/vacuum_pruned.0.page"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("UPDATED HEAP_ONLY_TUPLE"), "{}", r.stdout);
    assert!(!r.stdout.contains(" ONLY_TUPLE"), "{}", r.stdout);
    // The other names still lose their HEAP_ prefix.
    assert!(r.stdout.contains("HASVARWIDTH XMIN_COMMITTED"));
}

/// `blockscope ARGS`'s standard output as bytes, and its status.
fn bytes_of(args: &[&str]) -> (i32, Vec<u8>) {
    let out = common::command()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), out.stdout)
}

/// `dd if=PATH bs=BS skip=N count=K`: the bytes of blocks N..N+K.
fn dd(path: &Path, bs: usize, skip: usize, count: usize) -> Vec<u8> {
    let out = Command::new("dd")
        .arg(format!("if={}", path.display()))
        .arg(format!("bs={bs}"))
        .arg(format!("skip={skip}"))
        .arg(format!("count={count}"))
        .arg("status=none")
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout
}

#[test]
fn raw_writes_the_selected_blocks_bytes_as_dd_cuts_them() {
    let rel = fixture("postgres/corrupt/clean/16384");
    let (code, one) = bytes_of(&["show", s(&rel), "--format", "raw", "--block", "2"]);
    assert_eq!(code, 0);
    assert_eq!(one, dd(&rel, BLCKSZ, 2, 1));
    let (_, two) = bytes_of(&["show", s(&rel), "--format", "raw", "--blocks", "3..4"]);
    assert_eq!(two, dd(&rel, BLCKSZ, 3, 2));
    let (_, all) = bytes_of(&["show", s(&rel), "--format", "raw"]);
    assert_eq!(all, std::fs::read(&rel).unwrap());
    // A segment's blocks are numbered from its suffix.
    let seg = fixture("postgres/corrupt/segment/16384.1");
    let (_, b) = bytes_of(&["show", s(&seg), "--format", "raw", "--block", "131073"]);
    assert_eq!(b, dd(&seg, BLCKSZ, 1, 1));
    // Oracle: block 3 of a datafile.
    let dbf = fixture("oracle/planted.dbf");
    let (_, o) = bytes_of(&["show", s(&dbf), "--format", "raw", "--block", "3"]);
    assert_eq!(o, dd(&dbf, BLCKSZ, 3, 1));
    // A text dump of a page comes back as the page's bytes.
    let page = std::fs::read(fixture("postgres/heap/hot_update.0.page")).unwrap();
    for form in ["hex", "bytea", "base64", "od-d", "xxd", "hexdump", "gdb"] {
        let text = fixture(&format!("inputs/hot_update.0.{form}.txt"));
        let (code, raw) = bytes_of(&["show", s(&text), "--format", "raw"]);
        assert_eq!(code, 0, "{form}");
        assert!(raw == page, "{form}: {} bytes differ", raw.len());
    }
    // Several inputs: their blocks one after the other, no titles.
    let (_, both) = bytes_of(&[
        "show",
        "fixtures/postgres/heap/hot_update.0.page",
        "fixtures/inputs/hot_update.0.hex.txt",
        "--format",
        "raw",
    ]);
    assert_eq!(both, [page.clone(), page].concat());
}

#[test]
fn raw_is_not_written_to_a_terminal() {
    let out = on_terminal(
        "show fixtures/postgres/heap/hot_update.0.page --format raw",
        &[],
        20,
    );
    assert!(
        out.contains("--format raw writes the blocks' bytes"),
        "{out:?}"
    );
    // Not one byte of the page (its pd_lsn starts with four zero bytes; a
    // text line never holds NUL).
    assert!(!out.contains('\0'));
    let r: Run = run(&[
        "show",
        "fixtures/postgres/heap/hot_update.0.page",
        "--format",
        "raw",
        "--evidence",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn absolute_offsets_are_the_files_as_pg_filedump_a_prints_them() {
    let seg = "fixtures/postgres/corrupt/segment/16384.1";
    let (_, rel) = bytes_of(&["show", seg, "--format", "hex", "--block", "131073"]);
    let (code, abs) = bytes_of(&[
        "show",
        seg,
        "--format",
        "hex",
        "--block",
        "131073",
        "--absolute",
    ]);
    assert_eq!(code, 0);
    let rel = String::from_utf8(rel).unwrap();
    let abs = String::from_utf8(abs).unwrap();
    // The second block of the file starts at 0x2000 of it (pg_filedump -a
    // counts in the file read, not in the relation).
    let first = abs.lines().nth(1).unwrap();
    assert!(
        first.starts_with("00002000  00 00 00 00 58 e2 7a 01"),
        "{first}"
    );
    // Every row: the page offset plus 0x2000; the rest of the row unchanged.
    let mut rows = 0;
    for (a, r) in abs.lines().zip(rel.lines()).skip(1) {
        match (a.split_once("  "), r.split_once("  ")) {
            (Some((ao, arest)), Some((ro, rrest))) if ro != "*" => {
                let ro = u64::from_str_radix(ro, 16).unwrap();
                assert_eq!(u64::from_str_radix(ao, 16).unwrap(), ro + 0x2000, "{a}");
                assert_eq!(arest, rrest);
                rows += 1;
            }
            _ => assert_eq!(
                a.trim_start_matches('*').trim_start(),
                r.trim_start_matches('*').trim_start()
            ),
        }
    }
    assert!(rows > 100, "{rows}");
    // Only the hex view has offsets.
    let r = run(&["show", seg, "--absolute"]);
    assert_eq!(r.code, 2);
    r.assert_stderr_has(&["--absolute changes the offsets of --format hex"]);
}
