//! Help that fits the hand: every command's `-h` and `--help` wrap to the
//! terminal (80 columns in a real pseudo-terminal, `COLUMNS` or 100 in a
//! pipe), `-h` is one screen, `--help` lists every option under its
//! heading; `decode` takes several values; the manual pages shipped in
//! `man/` are what `blockscope man` generates now
//! (`BLOCKSCOPE_BLESS=1 cargo test --test help` rewrites them).

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use common::{bless, command, root, run};

/// The most lines `-h` may take at 80 columns: one screen.
const SCREEN: usize = 40;

/// Every command `blockscope --help` lists (bar `help`), and the top level
/// as the empty string.
fn commands() -> Vec<String> {
    let help = run(&["--help"]).stdout;
    let mut names = vec![String::new()];
    names.extend(
        help.lines()
            .skip_while(|l| *l != "Commands:")
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .filter_map(|l| l.split_whitespace().next())
            .filter(|name| *name != "help")
            .map(str::to_string),
    );
    assert!(names.len() >= 8, "commands found: {names:?}");
    names
}

fn argv<'a>(name: &'a str, flag: &'a str) -> Vec<&'a str> {
    if name.is_empty() {
        vec![flag]
    } else {
        vec![name, flag]
    }
}

/// What the binary prints for `args` on a pseudo-terminal of 80 columns and
/// 24 rows (util-linux `script`), carriage returns removed.
fn on_terminal(args: &[&str]) -> String {
    on_terminal_of(80, args)
}

fn on_terminal_of(columns: usize, args: &[&str]) -> String {
    let line = format!(
        "stty cols {columns} rows 24; exec {} {}",
        env!("CARGO_BIN_EXE_blockscope"),
        args.join(" ")
    );
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env_remove("COLUMNS")
        .current_dir(root())
        .output()
        .expect("run script(1) from util-linux");
    assert!(out.status.success(), "script -qec {line:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().replace('\r', "")
}

/// The widest line, in characters (the help is ASCII but for a few
/// one-column symbols like `…` and `×`).
fn widest(text: &str) -> (usize, String) {
    text.lines()
        .map(|l| (l.chars().count(), l.to_string()))
        .max()
        .unwrap_or_default()
}

#[test]
fn every_help_wraps_to_an_80_column_terminal() {
    for name in commands() {
        for flag in ["-h", "--help"] {
            let args = argv(&name, flag);
            let text = on_terminal(&args);
            assert!(text.contains("Usage: blockscope"), "{args:?}: {text}");
            let (width, line) = widest(&text);
            assert!(width <= 80, "{args:?}: a line of {width} columns: {line:?}");
        }
    }
}

#[test]
fn short_help_is_one_screen_and_long_help_is_longer() {
    let mut longest = 0;
    for name in commands() {
        let short = on_terminal(&argv(&name, "-h"));
        let long = on_terminal(&argv(&name, "--help"));
        let lines = short.lines().count();
        assert!(lines <= SCREEN, "{name} -h: {lines} lines:\n{short}");
        assert!(
            long.lines().count() > lines,
            "{name}: --help is not longer than -h"
        );
        longest = longest.max(lines);
    }
    // `show -h` was 170 lines of up to 516 characters before the headings.
    assert!(longest > 20, "no -h of any size: {longest}");
}

#[test]
fn help_in_a_pipe_wraps_to_columns_else_to_100() {
    for name in commands() {
        let args = argv(&name, "--help");
        let plain = command().args(&args).output().unwrap();
        let text = String::from_utf8(plain.stdout).unwrap();
        let (width, line) = widest(&text);
        assert!(width <= 100, "{args:?} in a pipe: {width}: {line:?}");
        let narrow = command().args(&args).env("COLUMNS", "60").output().unwrap();
        let text = String::from_utf8(narrow.stdout).unwrap();
        let (width, line) = widest(&text);
        assert!(width <= 60, "{args:?} with COLUMNS=60: {width}: {line:?}");
    }
    // A pipe without COLUMNS gets 100 columns; so does a terminal wider
    // than that.
    let piped = run(&["show", "--help"]).stdout;
    assert!(
        widest(&piped).0 > 90,
        "show --help in a pipe: {}",
        widest(&piped).0
    );
    let wide = on_terminal_of(200, &["show", "--help"]);
    let (width, line) = widest(&wide);
    assert!(
        (91..=100).contains(&width),
        "on 200 columns: {width}: {line:?}"
    );
}

/// The long options of a help text, in order (`--name` at the start of an
/// option line).
fn options(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let t = t
                .strip_prefix('-')
                .filter(|r| !r.starts_with('-'))
                .map_or(t, |r| r.get(3..).unwrap_or(""));
            let name = t.strip_prefix("--")?;
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(name.len());
            (l.len() - l.trim_start().len() <= 6).then(|| name[..end].to_string())
        })
        .collect()
}

/// The options under each heading of a help text.
fn sections(help: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in help.lines() {
        if headings(line).len() == 1 {
            out.push((line.to_string(), Vec::new()));
        } else if let Some((_, opts)) = out.last_mut() {
            opts.extend(options(line));
        }
    }
    out
}

/// The headings of a help text (`Name:` alone on a line), in order.
fn headings(help: &str) -> Vec<&str> {
    help.lines()
        .filter(|l| !l.starts_with(' ') && l.ends_with(':') && !l.contains(' '))
        .collect()
}

#[test]
fn long_help_lists_every_option_and_short_help_counts_the_rest() {
    for name in commands().into_iter().filter(|n| !n.is_empty()) {
        let short = run(&[&name, "-h"]).stdout;
        let long = run(&[&name, "--help"]).stdout;
        let all: BTreeSet<String> = options(&long).into_iter().collect();
        let shown: BTreeSet<String> = options(&short).into_iter().collect();
        assert!(all.contains("help"), "{name}: {all:?}");
        assert!(
            shown.is_subset(&all),
            "{name}: -h {shown:?} ⊄ --help {all:?}"
        );
        let hidden = all.len() - shown.len();
        if hidden == 0 {
            assert!(!short.contains("more option"), "{name} -h:\n{short}");
        } else {
            let plural = if hidden == 1 { "option" } else { "options" };
            let footer = format!("{hidden} more {plural}, and every option in full: --help");
            assert!(
                short.contains(&footer),
                "{name} -h lacks {footer:?}:\n{short}"
            );
            assert!(!long.contains("more option"), "{name} --help:\n{long}");
        }
    }
}

#[test]
fn show_groups_its_options_under_headings() {
    let long = run(&["show", "--help"]).stdout;
    assert_eq!(
        headings(&long),
        [
            "Arguments:",
            "Options:",
            "Input:",
            "Selection:",
            "Output:",
            "PostgreSQL:",
            "Oracle:",
            "Examples:"
        ]
    );
    // Each option under the heading it belongs to.
    let under = |heading: &str, option: &str| {
        let section = sections(&long);
        let found = section.iter().find(|(h, _)| h == heading);
        assert!(
            found.is_some_and(|(_, opts)| opts.iter().any(|o| o == option)),
            "--{option} not under {heading}: {section:?}"
        );
    };
    under("Input:", "input");
    under("Input:", "columns");
    under("Selection:", "blocks");
    under("Output:", "format");
    under("PostgreSQL:", "table");
    under("PostgreSQL:", "toast");
    under("Oracle:", "oracle-tsn");
    under("Oracle:", "oracle-charset");
    for flag in ["-h", "--help"] {
        for name in ["verify", "map", "export", "diff"] {
            let text = run(&[name, flag]).stdout;
            for h in headings(&text) {
                assert!(
                    [
                        "Arguments:",
                        "Options:",
                        "Input:",
                        "Selection:",
                        "Output:",
                        "PostgreSQL:",
                        "Oracle:",
                        "Examples:"
                    ]
                    .contains(&h),
                    "{name} {flag}: heading {h}"
                );
            }
        }
    }
}

/// The options that only shape `show --format dump`'s text.
const DUMP_ONLY: [&str; 7] = [
    "oracle-version",
    "oracle-tsn",
    "oracle-file",
    "oracle-buffer",
    "oracle-hex",
    "dump-part",
    "expand-tabs",
];

#[test]
fn diff_lists_and_takes_no_dump_text_options() {
    let long = options(&run(&["diff", "--help"]).stdout);
    for option in DUMP_ONLY {
        assert!(!long.contains(&option.to_string()), "diff lists --{option}");
    }
    // The Oracle options that change diff's JSON stay.
    for option in ["oracle-bigfile", "oracle-charset", "endian"] {
        assert!(long.contains(&option.to_string()), "diff lacks --{option}");
    }
    let page = "fixtures/postgres/diff/inserted.page";
    let r = run(&["diff", page, page, "--oracle-tsn", "4"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    r.assert_stderr_has(&["--oracle-tsn"]);
    let r = run(&["diff", page, page, "--oracle-bigfile", "--endian", "big"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // show keeps every one of them.
    let show = options(&run(&["show", "--help"]).stdout);
    for option in DUMP_ONLY {
        assert!(show.contains(&option.to_string()), "show lacks --{option}");
    }
}

#[test]
fn decode_explains_several_values_in_turn() {
    let one = |v: &str| run(&["decode", "infomask", v]).stdout;
    let both = run(&["decode", "infomask", "0x0902", "0x0b02"]);
    assert_eq!(both.code, 0, "{}", both.stderr);
    assert_eq!(both.stdout, one("0x0902") + &one("0x0b02"));
    // A negative smallint is a value, not an option.
    let r = run(&["decode", "infomask2", "2", "-32768"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("t_infomask2 32768 (0x8000)"),
        "{}",
        r.stdout
    );

    // JSON: one value, one object (as before); several, an array of them.
    let json =
        |args: &[&str]| -> serde_json::Value { serde_json::from_str(&run(args).stdout).unwrap() };
    let single = json(&["decode", "lp", "0x004e9fd8", "-f", "json"]);
    assert!(single.is_object());
    let list = json(&["decode", "lp", "0x004e9fd8", "0x0001005f", "-f", "json"]);
    assert_eq!(list[0], single);
    assert_eq!(list[1]["lp_flags_name"], "LP_REDIRECT");
    assert_eq!(list.as_array().map(Vec::len), Some(2));
    let rowids = json(&[
        "decode",
        "rowid",
        "AAASO6AAMAAAAw2AAA",
        "00000C36.0000.000C",
        "-f",
        "json",
    ]);
    assert_eq!(rowids.as_array().map(Vec::len), Some(2));

    // One bad value: a usage error before anything is written.
    let r = run(&["decode", "infomask", "0x0902", "nonsense"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    r.assert_stderr_has(&["\"nonsense\""]);
    // An Oracle NUMBER's VALUEs are the bytes of one number.
    let n = run(&["decode", "oracle-number", "c2", "4a", "46"]);
    assert_eq!(n.code, 0, "{}", n.stderr);
    assert!(
        n.stdout.starts_with("NUMBER c2 4a 46 = 7369\n"),
        "{}",
        n.stdout
    );
}

#[test]
fn shipped_man_pages_are_what_the_program_generates() {
    let dir = std::env::temp_dir().join(format!("blockscope-man-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let r = run(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names = |d: &std::path::Path| -> BTreeSet<String> {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".1"))
            .collect()
    };
    let generated = names(&dir);
    let mut expected: BTreeSet<String> = commands()
        .iter()
        .map(|c| match c.as_str() {
            "" => "blockscope.1".to_string(),
            c => format!("blockscope-{c}.1"),
        })
        .collect();
    assert_eq!(generated, expected);
    let shipped = root().join("man");
    if bless() {
        std::fs::create_dir_all(&shipped).unwrap();
        for name in names(&shipped).difference(&generated) {
            std::fs::remove_file(shipped.join(name)).unwrap();
        }
        for name in &generated {
            std::fs::copy(dir.join(name), shipped.join(name)).unwrap();
        }
    }
    assert_eq!(
        names(&shipped),
        generated,
        "man/ differs from `blockscope man --dir` (bless with BLOCKSCOPE_BLESS=1)"
    );
    for name in std::mem::take(&mut expected) {
        let now = std::fs::read(dir.join(&name)).unwrap();
        let kept = std::fs::read(shipped.join(&name)).unwrap();
        assert!(
            now == kept,
            "man/{name} is stale: BLOCKSCOPE_BLESS=1 cargo test --test help, then review the diff"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();

    // One page on standard output: the same bytes.
    let show = run(&["man", "show"]);
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert_eq!(
        show.stdout.as_bytes(),
        std::fs::read(shipped.join("blockscope-show.1")).unwrap()
    );
    let top = run(&["man"]).stdout;
    assert!(top.contains(".TH blockscope 1"), "{top}");
    assert!(top.contains("blockscope\\-show(1)"), "{top}");
    let r = run(&["man", "nosuch"]);
    assert_eq!(r.code, 2);
    r.assert_stderr_has(&["no command \"nosuch\"", "show"]);
}

/// Every shipped manual page, rendered as man-db renders it for an
/// 80-column terminal, fits it: no example or option line runs past.
#[test]
fn every_man_page_fits_80_columns() {
    let mut pages: Vec<_> = std::fs::read_dir(root().join("man"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "1"))
        .collect();
    pages.sort();
    assert!(pages.len() > 10, "{pages:?}");
    for page in pages {
        let mut groff = Command::new("groff")
            .args(["-k", "-man", "-Tutf8", "-rLL=80n", "-P-cbou"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("run groff");
        use std::io::Write;
        groff
            .stdin
            .take()
            .unwrap()
            .write_all(&std::fs::read(&page).unwrap())
            .unwrap();
        let out = groff.wait_with_output().unwrap();
        let (width, line) = widest(&String::from_utf8_lossy(&out.stdout));
        assert!(
            width <= 80,
            "{}: a line of {width} columns: {line:?}",
            page.display()
        );
    }
}

#[test]
fn man_pages_are_valid_roff_with_every_option_and_the_examples() {
    let page = run(&["man", "show"]).stdout;
    // groff (Debian's groff-base) as man-db runs it (preconv for UTF-8),
    // with every warning on.
    let mut groff = Command::new("groff")
        .args(["-k", "-man", "-Tutf8", "-ww", "-rLL=80n", "-P-cbou"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run groff");
    use std::io::Write;
    groff
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let out = groff.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "groff warned");
    // Rendered: the headings, every option and each example on a line of its own.
    let plain = &text;
    for heading in [
        "INPUT",
        "SELECTION",
        "OUTPUT",
        "POSTGRESQL",
        "ORACLE",
        "EXAMPLES",
    ] {
        assert!(plain.contains(heading), "no {heading} in:\n{text}");
    }
    for option in options(&run(&["show", "--help"]).stdout) {
        assert!(
            page.contains(&format!("\\-\\-{}", option.replace('-', "\\-"))),
            "--{option}"
        );
    }
    assert!(
        plain
            .lines()
            .any(|l| l.trim() == "blockscope show base/5/16384 --block 0"),
        "{plain}"
    );
}
