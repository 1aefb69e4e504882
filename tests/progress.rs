//! What long runs say on standard error, and what a clean run need not say
//! (issue 28 point 3, issue 27 point 3): the progress bar (`--progress`,
//! `--quiet`), bookkeeping files and the free space map's drift counted in
//! verify's summary (listed with `--verbose`), and a closed output pipe
//! that keeps verify's failure.

mod common;

use std::path::{Path, PathBuf};

use common::{fixture, fixture_bytes, into_closed_pipe, run, run_with_stdin};

/// A fresh directory under the temp dir for test `tag`.
fn scratch(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("blockscope-progress-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn bookkeeping_files_are_counted_not_noted() {
    let clean = fixture("postgres/corrupt/clean");
    let out = run(&["verify", s(&clean)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stderr, "",
        "a clean directory run says nothing on stderr"
    );
    assert!(
        out.stdout
            .contains("Files skipped:     1 (not relation files; --verbose lists them)\n"),
        "{}",
        out.stdout
    );
    let verbose = run(&["verify", "--verbose", s(&clean)]);
    assert_eq!(verbose.code, 0);
    verbose.assert_stderr_has(&["PG_VERSION: skipped: PostgreSQL bookkeeping file"]);
    assert!(verbose.stdout.contains("Files skipped:     1\n"));
}

#[test]
fn a_stray_file_is_still_noted_unless_quiet() {
    let dir = scratch("stray");
    for f in ["16384", "PG_VERSION"] {
        std::fs::copy(fixture(&format!("postgres/corrupt/clean/{f}")), dir.join(f)).unwrap();
    }
    std::fs::write(dir.join("notes.txt"), b"not a relation").unwrap();
    let out = run(&["verify", s(&dir)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.assert_stderr_has(&["notes.txt: skipped: not a relation file"]);
    assert!(!out.stderr.contains("PG_VERSION"), "{}", out.stderr);
    assert!(
        out.stdout.contains("Files skipped:     2 "),
        "{}",
        out.stdout
    );
    let quiet = run(&["verify", "--quiet", s(&dir)]);
    assert_eq!((quiet.code, quiet.stderr.as_str()), (0, ""));
    assert!(quiet.stdout.contains("Files skipped:     2 "));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A copy of the clean heap whose block 0 the free space map says has
/// about 6400 bytes free (category 200).
fn fsm_drift() -> PathBuf {
    let dir = scratch("fsm");
    for f in ["16384", "16384_vm"] {
        std::fs::copy(fixture(&format!("postgres/corrupt/clean/{f}")), dir.join(f)).unwrap();
    }
    let mut fsm = fixture_bytes("postgres/corrupt/clean/16384_fsm");
    // FSM block 2 (the first leaf page), node NonLeafNodesPerPage (4095) + slot 0.
    fsm[2 * 8192 + 24 + 4 + 4095] = 200;
    std::fs::write(dir.join("16384_fsm"), &fsm).unwrap();
    dir
}

#[test]
fn free_space_map_drift_is_counted_in_the_summary() {
    let dir = fsm_drift();
    let heap = dir.join("16384");
    let args = ["verify", "--deep", "--checksums", "off", s(&heap)];
    let out = run(&args);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout.starts_with("Verification completed\n"),
        "only the summary: {}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            "FSM drift:         1 blocks (a hint PostgreSQL updates lazily: not a failure; \
             --verbose lists them)\n"
        ),
        "{}",
        out.stdout
    );
    let verbose = run(&[&args[..], &["--verbose"]].concat());
    assert_eq!(verbose.code, 0);
    assert!(
        verbose
            .stdout
            .starts_with(&format!("{}: block 0: info [free-space-map] ", s(&heap))),
        "{}",
        verbose.stdout
    );
    let json = run(&[&args[..], &["--format", "json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["schema"], 7);
    assert_eq!(v["summary"]["free_space_map_drift"], 1);
    assert_eq!(
        v["problems"].as_array().unwrap().len(),
        1,
        "JSON keeps them all"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Many all-zero pages (each an `info` line, over 8 KiB of them) before a
/// damaged file: the output closes while only notes were written.
#[test]
fn a_closed_pipe_before_the_damage_keeps_the_failure() {
    let dir = scratch("pipe");
    let zeros = dir.join("16400");
    std::fs::write(&zeros, vec![0u8; 200 * 8192]).unwrap();
    let bitflip = fixture("postgres/corrupt/bitflip/16384");
    let clean = fixture("postgres/corrupt/clean/16384");
    let (code, stderr) = into_closed_pipe(&["verify", s(&zeros), s(&bitflip)]);
    assert_eq!(
        (code, stderr.as_str()),
        (1, ""),
        "the damage comes after the close"
    );
    let (code, stderr) = into_closed_pipe(&["verify", "-f", "ndjson", s(&zeros), s(&bitflip)]);
    assert_eq!((code, stderr.as_str()), (1, ""));
    let (code, stderr) = into_closed_pipe(&["verify", s(&zeros), s(&clean)]);
    assert_eq!((code, stderr.as_str()), (0, ""), "clean stays clean");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--progress` draws the bar on standard error even into a pipe (and for
/// a small input); without it a pipe gets nothing. Standard output and the
/// exit status are the same either way.
#[test]
fn progress_is_drawn_when_forced_and_never_into_a_pipe_otherwise() {
    let heap = fixture("postgres/corrupt/clean/16384");
    let bitflip = fixture("postgres/corrupt/bitflip/16384");
    let runs: [&[&str]; 4] = [
        &["verify", s(&heap), s(&bitflip)],
        &["map", "--format", "json", s(&heap)],
        &["export", "--columns", "int4,text", s(&heap)],
        &["diff", s(&heap), s(&bitflip)],
    ];
    for args in runs {
        let plain = run(args);
        let forced = run(&[args, &["--progress"]].concat());
        assert_eq!(
            (forced.code, &forced.stdout),
            (plain.code, &plain.stdout),
            "{args:?}"
        );
        assert!(
            forced.stderr.contains(" left"),
            "{args:?}: the bar (bytes, rate, time left): {:?}",
            forced.stderr
        );
        assert!(
            !plain.stderr.contains(" left"),
            "{args:?}: {}",
            plain.stderr
        );
        let quiet = run(&[args, &["--quiet"]].concat());
        assert_eq!((quiet.code, &quiet.stdout), (plain.code, &plain.stdout));
        assert!(
            !quiet.stderr.contains(" left"),
            "{args:?}: {}",
            quiet.stderr
        );
        assert!(
            !quiet.stderr.contains("note:"),
            "{args:?}: {}",
            quiet.stderr
        );
    }
    let both = run(&["verify", "--quiet", "--progress", s(&heap)]);
    assert_eq!(both.code, 2, "{}", both.stderr);
}

/// The bar covers every long job: Oracle datafiles (`verify`, `map`),
/// standard input (bytes read, no total) and `verify --deep`'s second pass
/// (each file counted twice). Standard output and the exit status are the
/// same with the bar as without; into a pipe nothing is drawn unless forced.
#[test]
fn progress_covers_datafiles_standard_input_and_the_deep_pass() {
    let dbf = fixture("oracle/planted.dbf");
    for args in [
        &["verify", s(&dbf)][..],
        &["map", "--format", "json", s(&dbf)],
    ] {
        let plain = run(args);
        let forced = run(&[args, &["--progress"]].concat());
        assert_eq!(
            (forced.code, &forced.stdout),
            (plain.code, &plain.stdout),
            "{args:?}"
        );
        // 98304 bytes: the datafile's size is the bar's total.
        assert!(
            forced.stderr.contains("/96.00 KiB") && forced.stderr.contains(" left"),
            "{args:?}: {:?}",
            forced.stderr
        );
        assert!(
            !plain.stderr.contains(" left"),
            "{args:?}: {}",
            plain.stderr
        );
    }

    let heap = fixture("postgres/corrupt/clean/16384");
    let bytes = fixture_bytes("postgres/corrupt/clean/16384");
    let piped = run_with_stdin(&["verify", "-"], Some(&bytes));
    let forced = run_with_stdin(&["verify", "--progress", "-"], Some(&bytes));
    assert_eq!((forced.code, &forced.stdout), (piped.code, &piped.stdout));
    assert!(
        forced.stderr.contains("48.00 KiB read, "),
        "standard input: bytes read, no total: {:?}",
        forced.stderr
    );
    assert!(!forced.stderr.contains(" left"), "{:?}", forced.stderr);
    assert_eq!(piped.stderr, "");

    // 49152 bytes, read twice under --deep.
    let once = run(&["verify", "--progress", s(&heap)]);
    assert!(once.stderr.contains("/48.00 KiB "), "{:?}", once.stderr);
    let deep = run(&["verify", "--deep", "--progress", s(&heap)]);
    assert_eq!(deep.code, 0, "{}", deep.stdout);
    assert!(
        deep.stderr.contains("/96.00 KiB "),
        "the deep pass counted: {:?}",
        deep.stderr
    );
}

/// `show --quiet`: the note on how the engine was chosen is not written.
#[test]
fn show_quiet_drops_the_notes() {
    let block = fixture("oracle/damaged/tail_flipped.blk");
    let plain = run(&["show", "--format", "json", s(&block)]);
    plain.assert_stderr_has(&["blockscope: note: ", "read as Oracle blocks: "]);
    let quiet = run(&["show", "--format", "json", "--quiet", s(&block)]);
    assert_eq!((quiet.code, &quiet.stdout), (plain.code, &plain.stdout));
    assert_eq!(quiet.stderr, "");
}

/// `wal` draws the bar over the bytes of its segment files (four of 1 MiB
/// here, three with one missing), in every format; standard output and the exit status are the same
/// with it as without, a problem (a missing segment) is still written whole
/// on standard error, and into a pipe nothing is drawn unless forced.
#[test]
fn wal_progress_counts_the_segments_bytes() {
    let pg_wal = fixture("postgres/wal/datadir/pg_wal");
    let gap = scratch("walgap");
    for entry in std::fs::read_dir(&pg_wal).unwrap() {
        let path = entry.unwrap().path();
        if !path.ends_with("000000010000000000000009") {
            std::fs::copy(&path, gap.join(path.file_name().unwrap())).unwrap();
        }
    }
    for (dir, total) in [(&pg_wal, "/4.00 MiB"), (&gap, "/3.00 MiB")] {
        for format in ["table", "json", "ndjson"] {
            let args = ["wal", "--format", format, s(dir)];
            let plain = run(&args);
            let forced = run(&[&args[..], &["--progress"]].concat());
            assert_eq!(
                (forced.code, &forced.stdout),
                (plain.code, &plain.stdout),
                "{args:?}"
            );
            assert!(
                forced.stderr.contains(total) && forced.stderr.contains(" left"),
                "{args:?}: {:?}",
                forced.stderr
            );
            assert!(
                !plain.stderr.contains(" left"),
                "{args:?}: {}",
                plain.stderr
            );
            let quiet = run(&[&args[..], &["--quiet"]].concat());
            assert_eq!(
                (quiet.code, &quiet.stdout, &quiet.stderr),
                (plain.code, &plain.stdout, &plain.stderr),
                "{args:?}"
            );
            if dir == &gap && format == "table" {
                assert_eq!(plain.code, 1);
                let line = plain.stderr.lines().next().unwrap();
                assert!(line.contains("000000010000000000000009"), "{line}");
                assert!(forced.stderr.contains(line), "{:?}", forced.stderr);
            }
        }
    }
    let both = run(&["wal", "--quiet", "--progress", s(&pg_wal)]);
    assert_eq!(both.code, 2, "{}", both.stderr);
    let _ = std::fs::remove_dir_all(&gap);
}

/// `infer` draws the bar over the bytes of the pages it reads (one 8 KiB
/// page here; its TOAST file's pages counted too), forced into a pipe; the
/// proposal and the exit status are the same with it as without, and
/// `--quiet` draws nothing.
#[test]
fn infer_progress_counts_the_pages_read() {
    let page = fixture("postgres/heap/nulls.0.page");
    let heap = fixture("postgres/export/data/base/5/16384");
    let toast = fixture("postgres/export/data/base/5/16387");
    let total = |p: &Path| format!("/{}.00 KiB ", std::fs::metadata(p).unwrap().len() / 1024);
    let with_toast =
        std::fs::metadata(&heap).unwrap().len() + std::fs::metadata(&toast).unwrap().len();
    for (args, total) in [
        (vec!["infer", s(&page)], total(&page)),
        (
            vec!["infer", "--format", "json", s(&heap), "--toast", s(&toast)],
            format!("/{}.00 KiB ", with_toast / 1024),
        ),
    ] {
        let plain = run(&args);
        assert_eq!(plain.code, 0, "{}", plain.stderr);
        let forced = run(&[&args[..], &["--progress"]].concat());
        assert_eq!(
            (forced.code, &forced.stdout),
            (plain.code, &plain.stdout),
            "{args:?}"
        );
        assert!(
            forced.stderr.contains(&total) && forced.stderr.contains(" left"),
            "{args:?}: {:?}",
            forced.stderr
        );
        assert!(
            !plain.stderr.contains(" left"),
            "{args:?}: {}",
            plain.stderr
        );
        let quiet = run(&[&args[..], &["--quiet"]].concat());
        assert_eq!(
            (quiet.code, &quiet.stdout, quiet.stderr.as_str()),
            (plain.code, &plain.stdout, ""),
            "{args:?}"
        );
    }
    let both = run(&["infer", "--quiet", "--progress", s(&page)]);
    assert_eq!(both.code, 2, "{}", both.stderr);
}
