//! Every example command in README.md and docs/*.md is run, so the
//! documentation cannot drift from the program.
//!
//! # The convention
//!
//! A fenced block tagged `console` holds examples. Each example is a line
//! starting with `$ ` followed by the output that command prints, up to the
//! next `$ ` line or the end of the block:
//!
//! ````text
//! ```console
//! $ blockscope decode lp 0x004e9fd8 --format json | head -3
//! {
//!   "word": "lp",
//!   "value": 5152728,
//! $ blockscope show missing.page
//! blockscope: error: …
//! [exit 2]
//! ```
//! ````
//!
//! - The command is `blockscope ARGS…`, run from the repository root with
//!   the binary cargo just built. A command line ending in `\` continues on
//!   the next line.
//! - Shell subset: words in `'single'` or `"double"` quotes (in double
//!   quotes `\"`, `\\`, `\$` and `` \` `` are escapes), `\` escapes outside
//!   quotes; `< FILE` gives standard input; `printf 'TEXT' | blockscope …`
//!   gives standard input (printf's `\n`, `\t`, `\\` escapes); after
//!   blockscope, filters on its standard output: `head -N`, `tail -N`
//!   (also `-n N`) and `sed -n 'A,Bp'` / `sed -n 'Ap'`. Nothing else: no
//!   variables, no globs, no other programs.
//! - Expected output: what blockscope writes to standard output (after the
//!   filters), then what it writes to standard error, as a terminal shows
//!   both. Compared exactly, line by line.
//! - The exit status must be 0, unless the output ends with a line
//!   `[exit N]`: then it must be N.
//! - The environment is fixed: standard output is a pipe (no terminal:
//!   no colours, no width fitting), `COLUMNS=80`, standard input empty
//!   unless given.
//!
//! Blocks tagged `sh` (install, cargo commands, psql pipelines that need a
//! server) are not run. A line starting with `$ blockscope` outside a
//! `console` block is an error, so every example is one that runs.
//!
//! To rewrite the expected outputs (and `[exit N]` lines) in the markdown
//! files from what the program prints now:
//! `BLOCKSCOPE_BLESS=1 cargo test --test docs`, then review the diff.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every markdown file under docs/, in a fixed order.
fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .map(|dir| {
            dir.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .collect()
        })
        .unwrap_or_default();
    docs.sort();
    files.extend(docs);
    files
}

/// One example: the command and the lines of its expected output.
struct Example {
    /// Line number (1-based) of the `$ ` line.
    line: usize,
    /// Index one past the command's last line (its output starts here).
    out_start: usize,
    /// Index one past the last output line.
    end: usize,
    command: String,
    expected: Vec<String>,
    exit: i32,
}

fn parse_exit(line: &str) -> Option<i32> {
    line.strip_prefix("[exit ")?.strip_suffix(']')?.parse().ok()
}

/// The examples of one markdown file; errors for `$ blockscope` lines
/// outside console blocks.
fn examples(lines: &[&str], file: &str) -> Result<Vec<Example>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut fence: Option<String> = None;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            if fence.is_some() {
                fence = None;
            } else {
                fence = Some(trimmed.trim_start_matches('`').trim().to_string());
            }
            i += 1;
            continue;
        }
        if fence.as_deref() != Some("console") {
            if trimmed.starts_with("$ blockscope") || trimmed.starts_with("$ printf") {
                return Err(format!(
                    "{file}:{}: an example outside a ```console block is not run",
                    i + 1
                ));
            }
            i += 1;
            continue;
        }
        let Some(first) = line.strip_prefix("$ ") else {
            return Err(format!(
                "{file}:{}: a console block must start with a `$ ` command line",
                i + 1
            ));
        };
        let start = i;
        let mut command = first.to_string();
        i += 1;
        while command.ends_with('\\') && i < lines.len() {
            command.pop();
            command.push(' ');
            command.push_str(lines[i].trim_start());
            i += 1;
        }
        let out_start = i;
        while i < lines.len() && !lines[i].starts_with("$ ") && !lines[i].starts_with("```") {
            i += 1;
        }
        let mut expected: Vec<String> = lines[out_start..i].iter().map(|s| s.to_string()).collect();
        let mut exit = 0;
        if let Some(code) = expected.last().and_then(|l| parse_exit(l)) {
            exit = code;
            expected.pop();
        }
        out.push(Example {
            line: start + 1,
            out_start,
            end: i,
            command,
            expected,
            exit,
        });
    }
    if fence.is_some() {
        return Err(format!("{file}: a fenced block is not closed"));
    }
    Ok(out)
}

#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Pipe,
    Input,
}

/// Splits a command line into words and the operators `|` and `<`.
fn tokenize(s: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    tokens.push(Token::Word(std::mem::take(&mut word)));
                    in_word = false;
                }
            }
            '|' | '<' if !in_word => {
                tokens.push(if c == '|' { Token::Pipe } else { Token::Input });
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unclosed single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('"' | '\\' | '$' | '`')) => word.push(e),
                            Some(e) => {
                                word.push('\\');
                                word.push(e);
                            }
                            None => return Err("unclosed double quote".into()),
                        },
                        Some('$' | '`') => {
                            return Err("no variables or substitutions in examples".into())
                        }
                        Some(c) => word.push(c),
                        None => return Err("unclosed double quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(e) => word.push(e),
                    None => return Err("a trailing backslash".into()),
                }
            }
            '$' | '`' | ';' | '&' | '>' | '*' | '?' | '(' | ')' => {
                return Err(format!("`{c}` is not in the examples' shell subset"));
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        tokens.push(Token::Word(word));
    }
    Ok(tokens)
}

/// printf's escapes that examples use.
fn printf(format: &str) -> Result<Vec<u8>, String> {
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('\\') => out.push('\\'),
                other => return Err(format!("printf escape \\{other:?} is not supported")),
            }
        } else if c == '%' {
            return Err("printf conversions are not supported".into());
        } else {
            out.push(c);
        }
    }
    Ok(out.into_bytes())
}

enum Filter {
    Head(usize),
    Tail(usize),
    /// 1-based inclusive line range.
    Lines(usize, usize),
}

fn count_arg(args: &[String]) -> Result<usize, String> {
    let n = match args {
        [a] => a.strip_prefix('-').unwrap_or(""),
        [flag, n] if flag == "-n" => n.as_str(),
        _ => "",
    };
    n.parse()
        .map_err(|_| format!("expected -N or -n N, got {args:?}"))
}

fn filter(words: &[String]) -> Result<Filter, String> {
    let (name, args) = words.split_first().ok_or("an empty pipeline stage")?;
    match name.as_str() {
        "head" => Ok(Filter::Head(count_arg(args)?)),
        "tail" => Ok(Filter::Tail(count_arg(args)?)),
        "sed" => {
            let script = match args {
                [n, s] if n == "-n" => s,
                _ => return Err("only `sed -n 'A,Bp'` is supported".into()),
            };
            let range = script
                .strip_suffix('p')
                .ok_or("only `sed -n 'A,Bp'` is supported")?;
            let (a, b) = range.split_once(',').unwrap_or((range, range));
            let a: usize = a.parse().map_err(|_| format!("bad sed line {a:?}"))?;
            let b: usize = b.parse().map_err(|_| format!("bad sed line {b:?}"))?;
            Ok(Filter::Lines(a, b))
        }
        other => Err(format!("`{other}` is not a supported filter")),
    }
}

fn apply(filter: &Filter, text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let kept: &[&str] = match *filter {
        Filter::Head(n) => &lines[..n.min(lines.len())],
        Filter::Tail(n) => &lines[lines.len().saturating_sub(n)..],
        Filter::Lines(a, b) => {
            let a = a.max(1) - 1;
            let b = b.min(lines.len());
            if a >= b {
                &[]
            } else {
                &lines[a..b]
            }
        }
    };
    let mut out = kept.join("\n");
    if !kept.is_empty() {
        out.push('\n');
    }
    out
}

/// What an example printed: its output lines and exit status.
fn run(command: &str) -> Result<(Vec<String>, i32), String> {
    let tokens = tokenize(command)?;
    let mut stages: Vec<Vec<Token>> = vec![Vec::new()];
    for t in tokens {
        if t == Token::Pipe {
            stages.push(Vec::new());
        } else {
            stages.last_mut().unwrap().push(t);
        }
    }
    let words = |stage: Vec<Token>| -> Result<Vec<String>, String> {
        stage
            .into_iter()
            .map(|t| match t {
                Token::Word(w) => Ok(w),
                _ => Err("`<` only right after blockscope's arguments".to_string()),
            })
            .collect()
    };
    let mut stages = stages.into_iter();
    let mut first = stages.next().unwrap_or_default();
    let mut stdin: Option<Vec<u8>> = None;
    if matches!(first.first(), Some(Token::Word(w)) if w == "printf") {
        let w = words(first)?;
        let [_, format] = w.as_slice() else {
            return Err("printf takes one argument here".into());
        };
        stdin = Some(printf(format)?);
        first = stages
            .next()
            .ok_or("printf must be piped into blockscope")?;
    }
    // `< FILE` at the end of blockscope's stage.
    let n = first.len();
    if n >= 2 && first[n - 2] == Token::Input {
        let Some(Token::Word(file)) = first.pop() else {
            return Err("`<` needs a file".into());
        };
        first.pop();
        if stdin.is_some() {
            return Err("two standard inputs".into());
        }
        stdin = Some(std::fs::read(root().join(&file)).map_err(|e| format!("{file}: {e}"))?);
    }
    let args = words(first)?;
    let (program, args) = args.split_first().ok_or("an empty command")?;
    if program != "blockscope" {
        return Err(format!("the command must be blockscope, not `{program}`"));
    }
    let filters = stages
        .map(|s| words(s).and_then(|w| filter(&w)))
        .collect::<Result<Vec<_>, _>>()?;

    let mut child = Command::new(env!("CARGO_BIN_EXE_blockscope"))
        .args(args)
        .current_dir(root())
        .env("COLUMNS", "80")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run blockscope: {e}"))?;
    if let Some(data) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        // A command that stops reading early closes the pipe: not an error.
        let _ = pipe.write_all(&data);
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let mut stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    for f in &filters {
        stdout = apply(f, &stdout);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines = stdout
        .lines()
        .chain(stderr.lines())
        .map(str::to_string)
        .collect();
    Ok((lines, out.status.code().unwrap_or(-1)))
}

/// The first line where two outputs differ, for the failure message.
fn first_difference(expected: &[String], actual: &[String]) -> String {
    let n = expected.len().max(actual.len());
    for i in 0..n {
        let e = expected.get(i).map_or("<end of output>", |s| s.as_str());
        let a = actual.get(i).map_or("<end of output>", |s| s.as_str());
        if e != a {
            return format!(
                "output line {}:\n    expected: {e}\n    actual:   {a}",
                i + 1
            );
        }
    }
    String::from("(same lines)")
}

#[test]
fn documented_examples_print_what_the_docs_say() {
    let bless = std::env::var_os("BLOCKSCOPE_BLESS").is_some();
    let mut failures = Vec::new();
    let mut total = 0;
    for path in doc_files() {
        let name = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let lines: Vec<&str> = text.lines().collect();
        let examples = match examples(&lines, &name) {
            Ok(e) => e,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let mut rewritten: Vec<String> = Vec::new();
        let mut copied = 0;
        for ex in &examples {
            total += 1;
            let (actual, code) = match run(&ex.command) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{name}:{}: `{}`: {e}", ex.line, ex.command));
                    continue;
                }
            };
            if bless {
                rewritten.extend(lines[copied..ex.out_start].iter().map(|s| s.to_string()));
                rewritten.extend(actual.iter().cloned());
                if code != 0 {
                    rewritten.push(format!("[exit {code}]"));
                }
                copied = ex.end;
            } else if actual != ex.expected || code != ex.exit {
                let detail = if code != ex.exit {
                    format!("exit status {code}, the docs say {}", ex.exit)
                } else {
                    first_difference(&ex.expected, &actual)
                };
                failures.push(format!("{name}:{}: `{}`\n  {detail}", ex.line, ex.command));
            }
        }
        if bless && !examples.is_empty() {
            rewritten.extend(lines[copied..].iter().map(|s| s.to_string()));
            let mut new_text = rewritten.join("\n");
            if text.ends_with('\n') {
                new_text.push('\n');
            }
            if new_text != text {
                std::fs::write(&path, new_text).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }
    assert!(total > 0, "no documented examples found");
    assert!(
        failures.is_empty(),
        "{} of {total} documented examples fail (rewrite the outputs with \
         `BLOCKSCOPE_BLESS=1 cargo test --test docs` if the change is intended):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_shell_subset_reads_quotes_pipes_and_redirections() {
    assert_eq!(
        tokenize(r#"blockscope show "a b" 'c|d' e\ f < x | head -3"#).unwrap(),
        vec![
            Token::Word("blockscope".into()),
            Token::Word("show".into()),
            Token::Word("a b".into()),
            Token::Word("c|d".into()),
            Token::Word("e f".into()),
            Token::Input,
            Token::Word("x".into()),
            Token::Pipe,
            Token::Word("head".into()),
            Token::Word("-3".into()),
        ]
    );
    assert!(tokenize("blockscope show $HOME").is_err());
    assert!(tokenize("blockscope show x > y").is_err());
    assert_eq!(apply(&Filter::Head(2), "a\nb\nc\n"), "a\nb\n");
    assert_eq!(apply(&Filter::Tail(2), "a\nb\nc\n"), "b\nc\n");
    assert_eq!(apply(&Filter::Lines(2, 2), "a\nb\nc\n"), "b\n");
    assert_eq!(parse_exit("[exit 2]"), Some(2));
    let lines = [
        "text",
        "```console",
        "$ blockscope a \\",
        "    b",
        "out",
        "[exit 1]",
        "$ blockscope c",
        "```",
    ];
    let ex = examples(&lines, "t.md").unwrap();
    assert_eq!(ex.len(), 2);
    assert_eq!(ex[0].command, "blockscope a  b");
    assert_eq!(ex[0].expected, vec!["out".to_string()]);
    assert_eq!(ex[0].exit, 1);
    assert!(ex[1].expected.is_empty());
    assert!(examples(&["$ blockscope x"], "t.md").is_err());
}

/// Relative links in the documentation point at files inside the repository.
#[test]
fn links_point_at_files_in_the_repository() {
    let repo = root().canonicalize().unwrap();
    let mut bad = Vec::new();
    for path in doc_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let dir = path.parent().unwrap();
        for (i, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("](") {
                rest = &rest[at + 2..];
                let Some(end) = rest.find(')') else { break };
                let target = &rest[..end];
                rest = &rest[end..];
                if target.contains("://")
                    || target.starts_with('#')
                    || target.starts_with("mailto:")
                {
                    continue;
                }
                let file = target.split('#').next().unwrap_or("");
                let resolved = dir.join(file).canonicalize();
                if !resolved.is_ok_and(|p| p.starts_with(&repo)) {
                    bad.push(format!("{}:{}: {target}", path.display(), i + 1));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "links to files that are not in the repository:\n{}",
        bad.join("\n")
    );
}
