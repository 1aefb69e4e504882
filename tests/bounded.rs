//! Issue 16, points 3, 4, 6 and 7: no panics on closed or full output
//! streams; `verify` never calls clean what it did not read (FIFOs, devices,
//! unreadable entries, zero blocks); file names escaped in reports; block
//! numbers and `--jobs` bounded. Every odd file is made here, at test time,
//! and the built binary is driven as a user would.

mod common;

use std::fs::{self, File};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_blockscope");

/// A clean 6-block relation file of the committed fixtures.
fn clean_relation() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/postgres/corrupt/clean/16384")
}

/// A fresh, empty directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("blockscope-bounded-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

impl Run {
    fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// Run with `stdin` (empty when `None`), failing the test after 30 s
/// (a FIFO opened by mistake would block forever).
fn run(args: &[&std::ffi::OsStr], stdin: Option<&[u8]>) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut input = child.stdin.take().unwrap();
        let _ = input.write_all(stdin.unwrap_or_default());
    }
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("blockscope {args:?} did not finish in 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run_str(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    run(&args, stdin)
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

// Point 3: output streams.

#[test]
fn completions_into_a_full_device_exit_2_without_a_panic() {
    let out = Command::new(BIN)
        .args(["completions", "bash"])
        .stdout(File::create("/dev/full").unwrap())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
}

#[test]
fn completions_and_help_into_a_closed_pipe_end_quietly() {
    for args in [
        &["completions", "bash"][..],
        &["completions", "zsh"],
        &["--help"],
    ] {
        let mut child = Command::new(BIN)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader goes away before anything is read
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}

#[test]
fn a_closed_or_full_stderr_is_not_a_panic() {
    // An error to report, with nowhere to report it: stderr's reader dropped.
    let mut child = Command::new(BIN)
        .args(["verify", "/nonexistent/16384"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(2));
    // Both streams full.
    let status = Command::new(BIN)
        .args(["completions", "bash"])
        .stdout(File::create("/dev/full").unwrap())
        .stderr(File::create("/dev/full").unwrap())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
    // A usage error from the argument parser into a full stderr.
    let status = Command::new(BIN)
        .args(["verify", "--no-such-option"])
        .stderr(File::create("/dev/full").unwrap())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
}

// Point 4: verify never says clean about what it did not read.

#[test]
fn special_files_in_a_directory_are_skipped_with_a_note_never_opened() {
    let dir = temp_dir("fifo-dir");
    fs::copy(clean_relation(), dir.join("16384")).unwrap();
    mkfifo(&dir.join("notes.fifo"));
    let run = run_str(&["verify", dir.to_str().unwrap()], None);
    let out = run.out();
    assert_eq!(run.code, 0, "{out}{}", run.stderr);
    // Notes go to stderr.
    assert!(
        run.stderr
            .contains("notes.fifo: skipped: a FIFO (named pipe), not a regular file: not opened"),
        "{}",
        run.stderr
    );
    assert!(out.contains("Blocks scanned:    6"), "{out}");
    // Issue 27, point 12: one named as a relation file is that relation's
    // bytes missing: an `io` problem, never clean (and never opened).
    mkfifo(&dir.join("16385"));
    let run = run_str(&["verify", dir.to_str().unwrap()], None);
    let out = run.out();
    assert_eq!(run.code, 1, "{out}{}", run.stderr);
    assert!(
        out.contains(
            "16385: block 0: error [io] file: not read: a FIFO (named pipe), not a regular file"
        ),
        "{out}"
    );
    assert!(out.contains("Blocks scanned:    6"), "{out}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn special_files_named_explicitly_are_refused() {
    let dir = temp_dir("fifo-named");
    let fifo = dir.join("16385");
    mkfifo(&fifo);
    for (path, kind) in [
        (fifo.to_str().unwrap(), "a FIFO (named pipe)"),
        ("/dev/null", "a character device"),
        ("/dev/zero", "a character device"),
    ] {
        let run = run_str(&["verify", path], None);
        assert_eq!(run.code, 2, "{path}: {}", run.out());
        assert!(run.stderr.contains(kind), "{path}: {}", run.stderr);
        assert!(!run.out().contains("clean"), "{path}: {}", run.out());
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unreadable_entries_are_io_problems_and_the_run_goes_on() {
    let dir = temp_dir("unreadable");
    symlink("/nonexistent/blockscope", dir.join("16383")).unwrap();
    symlink("16384.lock-target-missing", dir.join(".#16384")).unwrap();
    symlink("loop", dir.join("loop")).unwrap();
    fs::copy(clean_relation(), dir.join("16390")).unwrap();
    let run = run_str(&["verify", dir.to_str().unwrap()], None);
    let out = run.out();
    assert_eq!(run.code, 1, "{out}{}", run.stderr);
    assert!(
        out.contains(
            "16383: block 0: error [io] file: not read: a symbolic link to /nonexistent/blockscope"
        ),
        "{out}"
    );
    assert!(out.contains(".#16384: block 0: error [io]"), "{out}");
    assert!(out.contains("loop: block 0: error [io]"), "{out}");
    // The file after them was read, and the summary is there.
    assert!(out.contains("Blocks scanned:    6"), "{out}");
    assert!(out.contains("Problems by class: io 3"), "{out}");
    assert!(out.contains("Result:            PROBLEMS FOUND"), "{out}");
    // Named explicitly, with a readable file after it: the same.
    let lock = dir.join(".#16384");
    let good = dir.join("16390");
    let run = run_str(
        &["verify", lock.to_str().unwrap(), good.to_str().unwrap()],
        None,
    );
    assert_eq!(run.code, 1, "{}{}", run.out(), run.stderr);
    assert!(run.out().contains("Blocks scanned:    6"), "{}", run.out());
    // JSON: the class is `io` and the verdict is not clean.
    let run = run_str(&["verify", "-f", "json", dir.to_str().unwrap()], None);
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(doc["summary"]["clean"], false);
    assert_eq!(doc["summary"]["problems_by_class"]["io"], 3);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_without_read_permission_is_an_io_problem() {
    if is_root() {
        eprintln!("skipped: running as root, where mode 000 does not stop reading");
        return;
    }
    let dir = temp_dir("chmod");
    let locked = dir.join("16384");
    fs::copy(clean_relation(), &locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    fs::copy(clean_relation(), dir.join("16390")).unwrap();
    let run = run_str(&["verify", dir.to_str().unwrap()], None);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o644)).unwrap();
    let out = run.out();
    assert_eq!(run.code, 1, "{out}{}", run.stderr);
    assert!(
        out.contains("16384: block 0: error [io] file: not read: Permission denied"),
        "{out}"
    );
    assert!(out.contains("Blocks scanned:    6"), "{out}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn zero_blocks_read_is_exit_2_with_the_reason() {
    let run = run_str(&["verify"], Some(b""));
    assert_eq!(run.code, 2, "{}", run.out());
    assert!(
        run.stderr
            .contains("standard input is empty: nothing was verified"),
        "{}",
        run.stderr
    );
    let run = run_str(&["verify", "-"], Some(&[1u8; 100]));
    assert_eq!(run.code, 2, "{}", run.out());
    assert!(
        run.stderr.contains("nothing was verified"),
        "{}",
        run.stderr
    );

    let dir = temp_dir("zero");
    let small = dir.join("16384");
    fs::write(&small, vec![0u8; 8192]).unwrap();
    let run = run_str(
        &["verify", "--block-size", "16384", small.to_str().unwrap()],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.out());
    assert!(
        run.stderr.contains("no whole 16384-byte block"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--block-size"), "{}", run.stderr);
    let empty = dir.join("16385");
    File::create(&empty).unwrap();
    let run = run_str(&["verify", empty.to_str().unwrap()], None);
    assert_eq!(run.code, 2, "{}", run.out());

    // An Oracle trace of formatted text only: no block bytes.
    let trace = dir.join("text_only.trc");
    let full = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/oracle/trace/block_5_907.trc"),
    )
    .unwrap();
    let text: String = full
        .lines()
        .filter(|l| {
            let first = l.split_whitespace().next().unwrap_or("");
            let hex = first.len() >= 8 && first.bytes().all(|b| b.is_ascii_hexdigit());
            !l.contains("Dump of memory") && !hex && !l.trim_start().starts_with("Repeat")
        })
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(&trace, text).unwrap();
    let run = run_str(&["verify", trace.to_str().unwrap()], None);
    assert_eq!(run.code, 2, "{}{}", run.out(), run.stderr);
    assert!(
        run.stderr.contains("nothing was verified"),
        "{}",
        run.stderr
    );
    fs::remove_dir_all(&dir).unwrap();
}

// Point 6: file names are escaped.

#[test]
fn file_names_are_escaped_in_text_and_json() {
    let dir = temp_dir("names");
    let odd = dir.join(std::ffi::OsStr::from_bytes(
        b"db\x1b[2J\nok: \xe2\x80\xae\xff",
    ));
    fs::create_dir(&odd).unwrap();
    // A relation that ends inside a block: one problem line naming it.
    let mut bytes = fs::read(clean_relation()).unwrap();
    bytes.truncate(8192 + 100);
    fs::write(odd.join("16384"), bytes).unwrap();
    let run = run_str(&["verify", dir.to_str().unwrap()], None);
    let out = run.out();
    assert_eq!(run.code, 1, "{out}{}", run.stderr);
    assert!(!run.stdout.contains(&0x1b), "{out}");
    assert!(!out.contains('\u{202e}'), "{out}");
    assert!(!run.stdout.contains(&0xff), "{out}");
    let line = out.lines().find(|l| l.contains("[truncated]")).unwrap();
    assert!(
        line.contains(r"db\x1b[2J\x0aok: \u{202e}\xff/16384: block 1"),
        "{line}"
    );

    let run = run_str(&["verify", "-f", "json", dir.to_str().unwrap()], None);
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let file = doc["problems"][0]["file"].as_str().unwrap();
    assert!(
        file.ends_with(r"db\x1b[2J\x0aok: \u{202e}\xff/16384"),
        "{file}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

// Point 7: limits.

#[test]
fn block_numbers_are_32_bit() {
    let page = clean_relation();
    let page = page.to_str().unwrap();
    for args in [
        &["show", page, "--blkno", "4294967295"][..],
        &["show", page, "--block", "4294967295"],
        &["show", page, "--blocks", "0..4294967296"],
        &["show", page, "--blocks", "18446744073709551615"],
    ] {
        let run = run_str(args, None);
        assert_eq!(run.code, 2, "{args:?}: {}", run.out());
        assert!(
            run.stderr.contains("is not a block number"),
            "{args:?}: {}",
            run.stderr
        );
    }
    // The largest valid block number is accepted.
    let run = run_str(
        &[
            "show",
            page,
            "--blkno",
            "4294967294",
            "--blocks",
            "4294967294",
        ],
        None,
    );
    // Accepted: decoded (its checksum belongs to block 0, so exit 1), not a usage error.
    assert_ne!(run.code, 2, "{}", run.stderr);
}

#[test]
fn jobs_are_bounded() {
    let page = clean_relation();
    let page = page.to_str().unwrap();
    for jobs in ["0", "100000"] {
        let run = run_str(&["verify", "--jobs", jobs, page], None);
        assert_eq!(run.code, 2, "--jobs {jobs}: {}", run.out());
        assert!(run.stderr.contains("--jobs"), "{}", run.stderr);
    }
    let run = run_str(&["verify", "--jobs", "1", page], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

// Issue 27, point 10: every option value is checked before any work.

/// Run under a 2 GiB address-space limit (`prlimit`), failing after 30 s:
/// a value that makes the binary allocate or loop without bound shows.
fn run_limited(args: &[&str]) -> Run {
    let mut all = vec!["--as=2147483648", BIN];
    all.extend_from_slice(args);
    let mut child = Command::new("prlimit")
        .args(&all)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("blockscope {args:?} did not finish in 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A usage error: exit 2, one `blockscope: error:` line naming `option`,
/// nothing on standard output, no panic.
fn assert_refused(args: &[&str], option: &str) {
    let run = run_limited(args);
    assert_eq!(run.code, 2, "{args:?}: {}{}", run.out(), run.stderr);
    assert!(run.stdout.is_empty(), "{args:?}: {}", run.out());
    assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: {}", run.stderr);
    assert!(
        lines[0].starts_with("blockscope: error: ") && lines[0].contains(option),
        "{args:?}: {}",
        run.stderr
    );
}

#[test]
fn hostile_block_sizes_are_refused_by_every_command() {
    let rel = clean_relation();
    let rel = rel.to_str().unwrap();
    let oracle = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/oracle/planted.dbf");
    let oracle = oracle.to_str().unwrap();
    let hostile = [
        "0",
        "1",
        "16",
        "1000",
        "8191",
        "65536",
        "4294967296",
        "18446744073709551615",
    ];
    for bs in hostile {
        for args in [
            &["show", rel, "--block-size", bs][..],
            &["verify", rel, "--block-size", bs],
            &["map", rel, "--block-size", bs],
            &["diff", rel, rel, "--block-size", bs],
            &["export", rel, "--columns", "int4", "--block-size", bs],
            &[
                "export",
                oracle,
                "--object-id",
                "1",
                "--columns",
                "a number",
                "--block-size",
                bs,
            ],
            &["verify", oracle, "--block-size", bs],
            &["map", oracle, "--block-size", bs],
            &["show", oracle, "--block-size", bs],
        ] {
            assert_refused(args, "--block-size");
        }
    }
    // 1 KiB is a PostgreSQL page size but no Oracle block size: refused
    // once the datafile is known to be Oracle's.
    for args in [
        &[
            "export",
            oracle,
            "--object-id",
            "1",
            "--columns",
            "a number",
            "--block-size",
            "1024",
        ][..],
        &["verify", oracle, "--block-size", "1024"],
        &["map", oracle, "--block-size", "1024"],
        &["show", oracle, "--engine", "oracle", "--block-size", "1024"],
    ] {
        assert_refused(args, "Oracle blocks are a power of two from 2048");
    }
}

#[test]
fn segments_past_the_last_block_number_are_refused() {
    let rel = clean_relation();
    let rel = rel.to_str().unwrap();
    for args in [
        &["verify", rel, "--segment", "32768"][..],
        &["verify", rel, "--segment", "18446744073709551615"],
        &["verify", rel, "--segment", "1024", "--segment-size", "32G"],
        &["show", rel, "--segment", "32768"],
        &["map", rel, "--segment", "32768"],
        // With 32 KiB blocks a 1 GiB segment has 32,768: 131,071 is the last.
        &[
            "verify",
            rel,
            "--segment",
            "131072",
            "--block-size",
            "32768",
        ],
    ] {
        assert_refused(args, "--segment");
    }
    for args in [
        &["verify", rel, "--segment-size", "1000"][..],
        &["verify", rel, "--segment-size", "16384T"],
        &[
            "verify",
            rel,
            "--block-size",
            "8192",
            "--segment-size",
            "12K",
        ],
        &["map", rel, "--segment-size", "16384T"],
    ] {
        assert_refused(args, "--segment-size");
    }
    assert_refused(
        &["show", rel, "--oracle-buffer", "0xffffffffffffff00"],
        "--oracle-buffer",
    );
    // The last segment is accepted (its checksums belong to segment 0: exit 1).
    let run = run_limited(&["verify", rel, "--segment", "32767"]);
    assert_eq!(run.code, 1, "{}{}", run.out(), run.stderr);
    // A `.N` suffix past the last block number is a problem of that file.
    let dir = temp_dir("segment-name");
    fs::copy(clean_relation(), dir.join("16384.40000")).unwrap();
    fs::copy(clean_relation(), dir.join("16390")).unwrap();
    let run = run_limited(&["verify", dir.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}{}", run.out(), run.stderr);
    assert!(
        run.out()
            .contains("16384.40000: block 0: error [io] file: segment 40000"),
        "{}",
        run.out()
    );
    assert!(run.out().contains("Blocks scanned:    6"), "{}", run.out());
    fs::remove_dir_all(&dir).unwrap();
}

// Issue 27, point 12: trees are walked once, safely.

fn fixture_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

#[test]
fn link_loops_and_a_tablespace_link_to_root_are_walked_once() {
    let dir = temp_dir("loops");
    let data = dir.join("data");
    common::copy_tree(&fixture_path("fixtures/postgres/catalog/18/datadir"), &data);
    let once = run_str(&["verify", "-f", "json", data.to_str().unwrap()], None);
    let once: serde_json::Value = serde_json::from_slice(&once.stdout).unwrap();
    let blocks = once["summary"]["blocks"].clone();
    assert!(blocks.as_u64().unwrap() > 0, "{once}");
    // Two links to the directory they are in: the walk would double at
    // every level, for ever.
    let db = data.join("base/5");
    symlink(".", db.join("a")).unwrap();
    symlink(".", db.join("b")).unwrap();
    symlink("../..", db.join("up")).unwrap();
    // A second name of a relation file.
    let first = fs::read_dir(&db)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .find(|n| {
            n.to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .unwrap();
    symlink(&first, db.join("99999")).unwrap();
    // A tablespace link to the root of the machine.
    fs::create_dir_all(data.join("pg_tblspc")).unwrap();
    symlink("/", data.join("pg_tblspc/16999")).unwrap();
    let run = run_limited(&["verify", "-f", "json", data.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}{}", run.out(), run.stderr);
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(doc["summary"]["blocks"], blocks, "{doc}");
    let skipped = doc["summary"]["skipped"].to_string();
    for note in [
        "no PG_18_* directory in it: not a tablespace of this cluster, not walked",
        "a directory already walked",
        "a file already listed under another name",
    ] {
        assert!(skipped.contains(note), "{note}: {skipped}");
    }
    assert!(skipped.contains("16999"), "{skipped}");
    assert!(skipped.contains("99999"), "{skipped}");
    // pg_tblspc given by itself: the same rule.
    let run = run_limited(&["verify", data.join("pg_tblspc").to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}{}", run.out(), run.stderr);
    assert!(
        run.stderr.contains("no relation files to verify"),
        "{}",
        run.stderr
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_tablespace_is_walked_in_its_version_directory() {
    let dir = temp_dir("tblspc");
    let data = dir.join("data");
    common::copy_tree(&fixture_path("fixtures/postgres/catalog/18/datadir"), &data);
    let location = dir.join("location");
    fs::create_dir_all(location.join("PG_18_202506291/5")).unwrap();
    fs::create_dir_all(location.join("other/5")).unwrap();
    fs::copy(clean_relation(), location.join("PG_18_202506291/5/70000")).unwrap();
    fs::copy(clean_relation(), location.join("other/5/70001")).unwrap();
    fs::create_dir_all(data.join("pg_tblspc")).unwrap();
    symlink(&location, data.join("pg_tblspc/70002")).unwrap();
    let run = run_limited(&["verify", "-f", "json", data.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let skipped = doc["summary"]["skipped"].to_string();
    assert!(!skipped.contains("70001"), "{skipped}");
    let plain = run_limited(&[
        "verify",
        "-f",
        "json",
        location.join("PG_18_202506291").to_str().unwrap(),
    ]);
    let plain: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    let without = run_limited(&[
        "verify",
        "-f",
        "json",
        fixture_path("fixtures/postgres/catalog/18/datadir")
            .to_str()
            .unwrap(),
    ]);
    let without: serde_json::Value = serde_json::from_slice(&without.stdout).unwrap();
    assert_eq!(
        doc["summary"]["files"].as_u64().unwrap(),
        without["summary"]["files"].as_u64().unwrap() + plain["summary"]["files"].as_u64().unwrap(),
        "{doc}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_relation_file_that_is_a_kernel_file_or_a_device_is_never_clean() {
    let dir = temp_dir("pseudo");
    let data = dir.join("data");
    common::copy_tree(&fixture_path("fixtures/postgres/export/data"), &data);
    let db = data.join("base/5");
    fs::copy(clean_relation(), db.join("16390")).unwrap();
    symlink("/proc/self/mem", db.join("16391")).unwrap();
    symlink("/dev/null", db.join("16392")).unwrap();
    symlink("/dev/zero", db.join("16393")).unwrap();
    let run = run_limited(&["verify", db.to_str().unwrap()]);
    let out = run.out();
    assert_eq!(run.code, 1, "{out}{}", run.stderr);
    assert!(
        out.contains(
            "16391: block 0: error [io] file: not read: a file of the kernel's proc file system"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "16392: block 0: error [io] file: not read: a character device, not a regular file"
        ),
        "{out}"
    );
    assert!(out.contains("16393: block 0: error [io]"), "{out}");
    assert!(out.contains("Problems by class: io 3"), "{out}");
    // export: a relation file that is one of them is refused, not 0 rows.
    let schema = fixture_path("fixtures/postgres/export/t.schema.json");
    for n in ["16391", "16392", "16393"] {
        let path = db.join(n);
        let run = run_limited(&[
            "export",
            path.to_str().unwrap(),
            "--schema",
            schema.to_str().unwrap(),
        ]);
        assert_eq!(run.code, 2, "{n}: {}{}", run.out(), run.stderr);
        assert!(run.stdout.is_empty(), "{n}: {}", run.out());
        assert!(
            run.stderr.contains("not a relation file: nothing exported"),
            "{n}: {}",
            run.stderr
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fifo_in_pg_xact_does_not_hang_export() {
    let dir = temp_dir("xact-fifo");
    let data = dir.join("data");
    common::copy_tree(&fixture_path("fixtures/postgres/export/data"), &data);
    let rel = data.join("base/5/16384");
    let schema = fixture_path("fixtures/postgres/export/t.schema.json");
    let args = [
        "export",
        rel.to_str().unwrap(),
        "--schema",
        schema.to_str().unwrap(),
        "--rows",
        "all",
    ];
    let with_log = run_limited(&args);
    fs::remove_file(data.join("pg_xact/0000")).unwrap();
    mkfifo(&data.join("pg_xact/0000"));
    // Finishes (run_limited fails the test after 30 s) without the log:
    // the same rows, the status of unhinted ones undecided.
    let run = run_limited(&args);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    assert_eq!(
        run.out().lines().count(),
        with_log.out().lines().count(),
        "{}",
        run.stderr
    );
    fs::remove_dir_all(&dir).unwrap();
}

// Issue 27, point 13: forensically sound.

/// Access time of `path` (not following a last link), in nanoseconds.
fn atime(path: &Path) -> i128 {
    use std::os::unix::fs::MetadataExt;
    let m = fs::symlink_metadata(path).unwrap();
    i128::from(m.atime()) * 1_000_000_000 + i128::from(m.atime_nsec())
}

/// Every file and directory under `dir` (and itself), links not followed.
fn tree(dir: &Path, out: &mut Vec<PathBuf>) {
    out.push(dir.to_path_buf());
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            tree(&entry.path(), out);
        } else {
            out.push(entry.path());
        }
    }
}

#[test]
fn nothing_read_has_its_access_time_changed() {
    let dir = temp_dir("atime");
    let data = dir.join("data");
    common::copy_tree(&fixture_path("fixtures/postgres/export/data"), &data);
    fs::create_dir_all(data.join("global")).unwrap();
    fs::copy(
        fixture_path("fixtures/postgres/catalog/15/pg_control"),
        data.join("global/pg_control"),
    )
    .unwrap();
    let mut paths = Vec::new();
    tree(&data, &mut paths);
    // Access times far older than the modification times: relatime (and
    // strictatime) would update every one of them on a read.
    let status = Command::new("touch")
        .args(["-a", "-h", "-d", "2001-02-03 04:05:06"])
        .args(&paths)
        .status()
        .unwrap();
    assert!(status.success());
    let before: Vec<i128> = paths.iter().map(|p| atime(p)).collect();
    let rel = data.join("base/5/16384");
    let rel = rel.to_str().unwrap();
    let schema = fixture_path("fixtures/postgres/export/t.schema.json");
    for args in [
        &["verify", data.to_str().unwrap()][..],
        &["verify", "--deep", data.to_str().unwrap()],
        &[
            "export",
            rel,
            "--schema",
            schema.to_str().unwrap(),
            "--rows",
            "all",
        ],
        &["map", rel],
        &["show", rel],
        &["diff", rel, rel],
    ] {
        let run = run_limited(args);
        assert!(run.code == 0 || run.code == 1, "{args:?}: {}", run.stderr);
        for (p, t) in paths.iter().zip(&before) {
            assert_eq!(
                atime(p),
                *t,
                "{args:?} changed the access time of {}",
                p.display()
            );
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn outside_names_are_escaped_in_every_output() {
    let dir = temp_dir("escape");
    // ESC, an OSC title sequence ended by BEL, a newline, and the text `\x1b`.
    let raw = b"t\x1b]0;owned\x07\n\\x1b";
    let escaped = r"t\x1b]0;owned\x07\x0a\\x1b";
    let odd = dir.join(std::ffi::OsStr::from_bytes(raw));
    fs::copy(clean_relation(), &odd).unwrap();
    let odd2 = dir.join(std::ffi::OsStr::from_bytes(b"copy\x1b[2J"));
    fs::copy(clean_relation(), &odd2).unwrap();
    let export_rel = dir.join(std::ffi::OsStr::from_bytes(b"e\x1b[31m\x07"));
    fs::copy(
        fixture_path("fixtures/postgres/export/data/base/5/16384"),
        &export_rel,
    )
    .unwrap();
    let schema = fixture_path("fixtures/postgres/export/t.schema.json");
    let o = odd.as_os_str();
    let o2 = odd2.as_os_str();
    let os = std::ffi::OsStr::new;
    for (args, wants) in [
        // show's title per input
        (vec![os("show"), os("--blocks"), os("0"), o, o2], escaped),
        // diff's header
        (vec![os("diff"), o, o2], escaped),
        // map's title line
        (vec![os("map"), o], escaped),
        // export's stderr names the file (skipped TOAST values)
        (
            vec![
                os("export"),
                export_rel.as_os_str(),
                os("--schema"),
                schema.as_os_str(),
            ],
            r"e\x1b[31m\x07",
        ),
        // an error line
        (vec![os("show"), os("--input"), os("hex"), o], escaped),
    ] {
        let run = run(&args, None);
        // export's rows are data (this table holds control characters).
        let stdout = if args[0] == "export" {
            Vec::new()
        } else {
            run.stdout.clone()
        };
        let all = [stdout, run.stderr.clone().into_bytes()].concat();
        assert!(
            !all.contains(&0x1b) && !all.contains(&0x07),
            "{args:?}: a raw control byte got out:\n{}{}",
            run.out(),
            run.stderr
        );
        // In JSON the escape's backslashes are themselves escaped.
        let text = String::from_utf8_lossy(&all).replace(r"\\", r"\");
        let want = wants.replace(r"\\", r"\");
        assert!(text.contains(&want), "{args:?}: {want} not in\n{text}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn catalog_lookup_messages_escape_the_data_directory() {
    let dir = temp_dir("escape-datadir");
    let data = dir.join(std::ffi::OsStr::from_bytes(b"data\x1b[2J\x07"));
    common::copy_tree(&fixture_path("fixtures/postgres/catalog/18/datadir"), &data);
    for args in [
        &["export", data.to_str().unwrap(), "--table", "public.nosuch"][..],
        &["show", data.to_str().unwrap(), "--table", "public.nosuch"],
        &["map", data.to_str().unwrap(), "--table", "public.nosuch"],
    ] {
        let run = run_limited(args);
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.out(), run.stderr);
        assert!(
            !run.stderr.contains('\x1b') && !run.stderr.contains('\x07'),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains(r"data\x1b[2J\x07"),
            "{args:?}: {}",
            run.stderr
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}
