//! Helpers shared by the integration tests: fixtures, the built binary and
//! golden files. Each test file takes what it needs (`mod common;`).

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository's root (where fixtures/ and tests/golden/ are).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The path of `rel` under fixtures/.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures").join(rel)
}

/// The bytes of `rel` under fixtures/.
pub fn fixture_bytes(rel: &str) -> Vec<u8> {
    let path = fixture(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Copy the files under `from` to `to`, recursively, directories made as
/// needed (a fixture's data directory into a temporary one a test may damage).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Overwrite `count` bytes of `bytes` at places drawn from `seed` (an
/// xorshift state, advanced), each with a byte drawn from it: damage
/// anywhere, the same on every run.
pub fn scramble(bytes: &mut [u8], seed: &mut u64, count: usize) {
    for _ in 0..count {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let at = (*seed % bytes.len() as u64) as usize;
        bytes[at] = (*seed >> 32) as u8;
    }
}

/// Whether golden files and generated fixtures are to be rewritten
/// (`BLOCKSCOPE_BLESS=1`).
pub fn bless() -> bool {
    std::env::var_os("BLOCKSCOPE_BLESS").is_some()
}

/// The built `blockscope` binary, run from the repository's root with no
/// terminal width (`COLUMNS` removed).
pub fn command() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_blockscope"));
    cmd.current_dir(root()).env_remove("COLUMNS");
    cmd
}

/// What one run of the binary gave.
pub struct Run {
    /// Exit status (-1 when killed by a signal).
    pub code: i32,
    /// Standard output, lossily as text.
    pub stdout: String,
    /// Standard error, lossily as text.
    pub stderr: String,
}

impl Run {
    /// Panics, showing the whole of stderr, unless stderr holds every one of
    /// `needles`.
    #[track_caller]
    pub fn assert_stderr_has(&self, needles: &[&str]) {
        for needle in needles {
            assert!(
                self.stderr.contains(needle),
                "stderr lacks {needle:?}:\n{}",
                self.stderr
            );
        }
    }
}

/// Run the binary with `args` and no standard input.
pub fn run(args: &[&str]) -> Run {
    run_with_stdin(args, None)
}

/// Run the binary with `args` writing into a pipe whose reading end is
/// already closed (a `| head` that has gone): its exit status and standard
/// error.
pub fn into_closed_pipe(args: &[&str]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = command()
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .output()
        .expect("run blockscope");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run the binary with `args`, `stdin` piped in when given (else none).
pub fn run_with_stdin(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = command()
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run blockscope");
    if let Some(data) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        // The binary may stop reading early (a usage error); that is its answer.
        let _ = pipe.write_all(data);
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Compare `actual` with tests/golden/NAME; `BLOCKSCOPE_BLESS=1` rewrites it.
pub fn golden(name: &str, actual: &str) {
    let path: PathBuf = root().join("tests/golden").join(name);
    if bless() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless it with BLOCKSCOPE_BLESS=1)", path.display()));
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{name} differs from its golden file at line {}:\n  golden: {:?}\n  actual: {:?}",
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}

/// The blocks of a `show --format json` document of one input
/// (`{"schema": 2, "blocks": [...]}`).
pub fn show_blocks(stdout: &str) -> Vec<serde_json::Value> {
    let doc: serde_json::Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("show's JSON: {e}: {}", &stdout[..stdout.len().min(200)]));
    assert_eq!(doc["schema"], 2, "show's JSON carries its schema");
    match doc.get("blocks") {
        Some(serde_json::Value::Array(blocks)) => blocks.clone(),
        _ => panic!("show's JSON has no blocks array"),
    }
}

/// The one block of a `show --format json` document of one block.
pub fn show_block(stdout: &str) -> serde_json::Value {
    let mut blocks = show_blocks(stdout);
    assert_eq!(blocks.len(), 1, "one block shown");
    blocks.remove(0)
}

/// The block lines of `show --format ndjson`, after its `{"schema": 2}`
/// line.
pub fn show_lines(stdout: &str) -> Vec<serde_json::Value> {
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("{\"schema\":2}"), "NDJSON's first line");
    lines
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}
