//! Issue 16, points 3, 4, 6 and 7: no panics on closed or full output
//! streams; `verify` never calls clean what it did not read (FIFOs, devices,
//! unreadable entries, zero blocks); file names escaped in reports; block
//! numbers and `--jobs` bounded. Every odd file is made here, at test time,
//! and the built binary is driven as a user would.

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
    mkfifo(&dir.join("16385"));
    let run = run_str(&["verify", dir.to_str().unwrap()], None);
    let out = run.out();
    assert_eq!(run.code, 0, "{out}{}", run.stderr);
    // Notes go to stderr.
    assert!(
        run.stderr
            .contains("16385: skipped: a FIFO (named pipe), not a regular file: not opened"),
        "{}",
        run.stderr
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
