//! The layering rules of ARCHITECTURE.md, checked on the source itself.
//!
//! - No two files import each other, directly or through a ring (folders
//!   included: a `mod.rs` that uses its child while the child uses it is a
//!   circle too).
//! - `src/cli` imports nothing from `parse` or `reader`.
//! - Outside `src/engine` the only switch over engines is `render/mod.rs`.
//! - No room imports a room above it.
//!
//! The import graph is read from the text: `use` items (with their nested
//! braces), inline `crate::…`, `super::…` and `self::…` paths, and paths that
//! start with a child module's name. Each path is resolved to the longest
//! prefix that is a file; `#[cfg(test)]` modules are left out (tests may look
//! anywhere). Comments and string literals are blanked first.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

struct File {
    path: String,
    text: String,
    /// Child modules declared with `mod name;`.
    children: BTreeSet<String>,
    /// `use` items (re-exports or not): the name a path may end in here →
    /// the path it stands for (as written, resolved later).
    reexports: BTreeMap<String, Vec<String>>,
}

fn src_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `src/cli/config.rs` → `["cli", "config"]`; `src/cli/mod.rs` → `["cli"]`;
/// `src/lib.rs` → `[]`.
fn module_of(rel: &Path) -> Module {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_string());
    }
    parts
}

/// Blank out comments, string and char literals (keeping line structure),
/// so that paths in doc text or messages are not read as imports.
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
            }
        } else if c == b'r'
            && matches!(b.get(i + 1), Some(b'#') | Some(b'"'))
            && !ident_before(b, i)
        {
            // raw string r"…" or r#"…"#
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            j = (j + close.len()).min(b.len());
            for &x in &b[i..j] {
                out.push(if x == b'\n' { b'\n' } else { b' ' });
            }
            i = j;
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                if b[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            j = (j + 1).min(b.len());
            for &x in &b[i..j] {
                out.push(if x == b'\n' { b'\n' } else { b' ' });
            }
            i = j;
        } else if c == b'\'' {
            // a char literal ('a', '\n', '\u{1F600}') or a lifetime ('a)
            let lit_end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&x| x == b'\'')
                    .map(|p| i + 2 + p + 1)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 3)
            } else {
                // multi-byte UTF-8 char literal
                let s = &src[i + 1..];
                s.chars()
                    .next()
                    .filter(|ch| ch.len_utf8() > 1 && s[ch.len_utf8()..].starts_with('\''))
                    .map(|ch| i + 1 + ch.len_utf8() + 1)
            };
            match lit_end {
                Some(j) => {
                    out.extend(std::iter::repeat_n(b' ', j - i));
                    i = j;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// Remove `#[cfg(test)]` items (a `mod … { … }` or a single item up to its
/// closing brace or semicolon).
fn drop_test_items(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let brace = after.find('{');
        let semi = after.find(';');
        let end = match (brace, semi) {
            (Some(bp), Some(sp)) if sp < bp => sp + 1,
            (Some(bp), _) => {
                let mut depth = 0usize;
                let mut end = after.len();
                for (k, ch) in after[bp..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = bp + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, Some(sp)) => sp + 1,
            (None, None) => after.len(),
        };
        out.push_str(&"\n".repeat(after[..end].matches('\n').count()));
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path written in the file, as segment lists: `use` trees expanded,
/// plus inline paths (`a::b::c`).
fn paths(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    // use trees
    let mut rest = text;
    while let Some(at) = find_word(rest, "use") {
        let tail = &rest[at + 3..];
        let end = tail.find(';').unwrap_or(tail.len());
        expand_use(&tail[..end], &mut Vec::new(), &mut out);
        rest = &tail[end..];
    }
    // inline paths
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (pos, c) = chars[k];
        if is_ident(c) && (k == 0 || (!is_ident(chars[k - 1].1) && chars[k - 1].1 != ':')) {
            let mut segs = Vec::new();
            let mut p = pos;
            loop {
                let seg: String = text[p..].chars().take_while(|&ch| is_ident(ch)).collect();
                if seg.is_empty() {
                    break;
                }
                p += seg.len();
                segs.push(seg);
                if text[p..].starts_with("::") {
                    p += 2;
                } else {
                    break;
                }
            }
            if segs.len() > 1 {
                out.push(segs);
            }
            while k < chars.len() && chars[k].0 < p {
                k += 1;
            }
        } else {
            k += 1;
        }
    }
    out
}

fn find_word(s: &str, w: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(p) = s[from..].find(w) {
        let at = from + p;
        let before = s[..at].chars().next_back();
        let after = s[at + w.len()..].chars().next();
        if before.is_none_or(|c| !is_ident(c)) && after.is_some_and(|c| c.is_whitespace()) {
            return Some(at);
        }
        from = at + w.len();
    }
    None
}

fn expand_use(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    walk_use(tree, prefix, &mut |path, _| out.push(path));
}

/// Each leaf of a use tree, as its full path (a `self` leaf kept as written)
/// and its `as` alias.
fn walk_use(
    tree: &str,
    prefix: &mut Vec<String>,
    visit: &mut dyn FnMut(Vec<String>, Option<&str>),
) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let n = prefix.len();
        prefix.extend(head);
        let mut depth = 0;
        let mut start = 0;
        for (k, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    walk_use(&inner[start..k], prefix, visit);
                    start = k + 1;
                }
                _ => {}
            }
        }
        walk_use(&inner[start..], prefix, visit);
        prefix.truncate(n);
    } else {
        let (item, alias) = match tree.split_once(" as ") {
            Some((i, a)) => (i.trim(), Some(a.trim())),
            None => (tree, None),
        };
        if item.is_empty() {
            return;
        }
        let mut path = prefix.clone();
        path.extend(item.split("::").map(|s| s.trim().to_string()));
        visit(path, alias);
    }
}

struct Graph {
    files: BTreeMap<Module, File>,
    edges: BTreeMap<Module, BTreeSet<Module>>,
}

fn graph() -> Graph {
    let root = src_root();
    let mut list = Vec::new();
    rs_files(&root, &mut list);
    let mut files = BTreeMap::new();
    for p in &list {
        let rel = p.strip_prefix(&root).unwrap();
        let raw = std::fs::read_to_string(p).unwrap();
        let text = drop_test_items(&strip(&raw));
        let module = module_of(rel);
        let children = text
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                let l = l.strip_prefix("pub(crate) ").unwrap_or(l);
                let l = l.strip_prefix("pub ").unwrap_or(l);
                l.strip_prefix("mod ")
                    .and_then(|r| r.strip_suffix(';'))
                    .map(|n| n.trim().to_string())
            })
            .collect();
        let reexports = reexports(&text);
        files.insert(
            module,
            File {
                path: format!("src/{}", rel.display()),
                text,
                children,
                reexports,
            },
        );
    }
    let mut edges = BTreeMap::new();
    for (module, file) in &files {
        let mut to = BTreeSet::new();
        for path in paths(&file.text) {
            let Some(abs) = absolute(module, file, &path) else {
                continue;
            };
            if let Some(target) = resolve(&files, &abs, 0) {
                if &target != module && !target.is_empty() {
                    to.insert(target);
                }
            }
        }
        edges.insert(module.clone(), to);
    }
    Graph { files, edges }
}

/// A path as written in `module`'s file, made absolute from the crate root;
/// None for paths outside the crate (std, serde, …).
fn absolute(module: &Module, file: &File, path: &[String]) -> Option<Module> {
    let first = path.first()?;
    // The module that `self` names: the file's own module.
    let here = module.clone();
    match first.as_str() {
        "crate" => Some(path[1..].to_vec()),
        "self" => {
            let mut m = here;
            m.extend(path[1..].iter().cloned());
            Some(m)
        }
        "super" => {
            let mut m = here;
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                m.pop()?;
                rest = &rest[1..];
            }
            m.extend(rest.iter().cloned());
            Some(m)
        }
        name if file.children.contains(name) => {
            let mut m = here;
            m.extend(path.iter().cloned());
            Some(m)
        }
        _ => None,
    }
}

fn longest_file(files: &BTreeMap<Module, File>, path: &[String]) -> Option<Module> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|m| files.contains_key(m))
}

/// The file a path's item really lives in: the longest file prefix, followed
/// through that file's `use` items (an imported name is an alias, not a use
/// of the importing file's own code).
fn resolve(files: &BTreeMap<Module, File>, path: &[String], depth: usize) -> Option<Module> {
    let file_mod = longest_file(files, path)?;
    let rest = &path[file_mod.len()..];
    if depth < 8 {
        if let Some(first) = rest.first() {
            let file = &files[&file_mod];
            if let Some(target) = file.reexports.get(first) {
                if let Some(mut abs) = absolute(&file_mod, file, target) {
                    abs.extend(rest[1..].iter().cloned());
                    if abs != path {
                        return resolve(files, &abs, depth + 1);
                    }
                }
            }
        }
    }
    Some(file_mod)
}

/// `use a::b::{self, C, D as E};` → {b: a::b, C: a::b::C, E: a::b::D}: a
/// child's `super::C` names `a::b::C`, whether or not the parent re-exports
/// it.
fn reexports(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(at) = find_word(rest, "use") {
        let tail = &rest[at + 4..];
        let end = tail.find(';').unwrap_or(tail.len());
        named_uses(&tail[..end], &mut Vec::new(), &mut out);
        rest = &tail[end..];
    }
    out
}

/// The names a use tree brings into scope, each with the path it names.
fn named_uses(tree: &str, prefix: &mut Vec<String>, out: &mut BTreeMap<String, Vec<String>>) {
    walk_use(tree, prefix, &mut |mut path, alias| {
        if path.len() > 1 && path.last().is_some_and(|s| s == "self") {
            path.pop();
        }
        let name = alias.map(str::to_string).or_else(|| path.last().cloned());
        if let Some(name) = name.filter(|n| n != "*" && n != "_") {
            out.insert(name, path);
        }
    });
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

/// Strongly connected components with more than one file (Tarjan, iterative).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    let nodes: Vec<&Module> = edges.keys().collect();
    let idx: BTreeMap<&Module, usize> = nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let adj: Vec<Vec<usize>> = nodes
        .iter()
        .map(|m| {
            edges[*m]
                .iter()
                .filter_map(|t| idx.get(t).copied())
                .collect()
        })
        .collect();
    let n = nodes.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on = vec![false; n];
    let mut stack = Vec::new();
    let mut counter = 0;
    let mut out = Vec::new();
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(start, 0)];
        index[start] = counter;
        low[start] = counter;
        counter += 1;
        stack.push(start);
        on[start] = true;
        while let Some(&mut (v, ref mut next)) = call.last_mut() {
            if *next < adj[v].len() {
                let w = adj[v][*next];
                *next += 1;
                if index[w] == usize::MAX {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on[w] = true;
                    call.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(parent, _)) = call.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().unwrap();
                        on[w] = false;
                        comp.push(nodes[w].clone());
                        if w == v {
                            break;
                        }
                    }
                    if comp.len() > 1 {
                        comp.sort();
                        out.push(comp);
                    }
                }
            }
        }
    }
    out
}

#[test]
fn no_import_circles_between_files() {
    let g = graph();
    let found = cycles(&g.edges);
    let text: Vec<String> = found
        .iter()
        .map(|c| {
            let members: Vec<String> = c.iter().map(|m| g.files[m].path.clone()).collect();
            let links: Vec<String> = c
                .iter()
                .flat_map(|a| {
                    g.edges[a]
                        .iter()
                        .filter(|b| c.contains(b))
                        .map(move |b| format!("{} → {}", name(a), name(b)))
                })
                .collect();
            format!("  {}\n    {}", members.join(", "), links.join("\n    "))
        })
        .collect();
    assert!(
        found.is_empty(),
        "{} import circle(s):\n{}",
        found.len(),
        text.join("\n")
    );
}

/// The rooms from top to bottom; a room may import rooms at its own rank or
/// below (input and source sit beside parse).
fn rank(room: &str) -> Option<u8> {
    Some(match room {
        "cli" => 6,
        "commands" => 5,
        "engine" => 4,
        "render" | "verify" | "diff" => 3,
        "parse" | "input" | "source" => 2,
        "reader" | "escape" => 1,
        "model" => 0,
        _ => return None,
    })
}

#[test]
fn rooms_only_import_downward() {
    let g = graph();
    let mut bad = Vec::new();
    for (from, to) in &g.edges {
        let (Some(a), Some(fr)) = (from.first(), from.first().and_then(|r| rank(r))) else {
            continue;
        };
        for t in to {
            let Some(b) = t.first() else { continue };
            if a == b {
                continue;
            }
            if let Some(tr) = rank(b) {
                if tr > fr {
                    bad.push(format!("{} → {}", g.files[from].path, g.files[t].path));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "imports that point up:\n  {}",
        bad.join("\n  ")
    );
}

#[test]
fn cli_imports_nothing_from_parse_or_reader() {
    let g = graph();
    let bad: Vec<String> = g
        .edges
        .iter()
        .filter(|(from, _)| from.first().is_some_and(|r| r == "cli"))
        .flat_map(|(from, to)| {
            to.iter()
                .filter(|t| t.first().is_some_and(|r| r == "parse" || r == "reader"))
                .map(|t| format!("{} → {}", g.files[from].path, g.files[t].path))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        bad.is_empty(),
        "cli reaching below the commands:\n  {}",
        bad.join("\n  ")
    );
}

#[test]
fn engines_are_switched_on_only_in_the_seam_and_render_page() {
    let g = graph();
    let bad: Vec<&str> = g
        .files
        .iter()
        .filter(|(m, f)| {
            m.first().is_none_or(|r| r != "engine")
                && f.path != "src/render/mod.rs"
                && (f.text.contains("Engine::Oracle") || f.text.contains("Engine::Postgres"))
        })
        .map(|(_, f)| f.path.as_str())
        .collect();
    assert!(
        bad.is_empty(),
        "a switch over engines outside the seam: {bad:?}"
    );
}

#[test]
fn the_reader_sees_the_paths_it_is_meant_to() {
    // The parser of this test, on a sample with every form it must read.
    let exports = reexports("pub use self::x::{A, B as C};\npub use y::D;\nuse z::{self, E};");
    assert_eq!(exports["A"], ["self", "x", "A"]);
    assert_eq!(exports["C"], ["self", "x", "B"]);
    assert_eq!(exports["D"], ["y", "D"]);
    assert_eq!(exports["z"], ["z"]);
    assert_eq!(exports["E"], ["z", "E"]);
    let sample = r#"
        use crate::a::{b::{C, d}, e as f};
        use super::g;
        mod h;
        fn x() { crate::i::j(); h::k(); let s = "crate::not::this"; }
        // crate::nor::this
        #[cfg(test)]
        mod tests { use crate::tests_only::X; }
    "#;
    let text = drop_test_items(&strip(sample));
    let got = paths(&text);
    let has = |p: &[&str]| {
        got.iter()
            .any(|g| g.iter().map(String::as_str).eq(p.iter().copied()))
    };
    assert!(has(&["crate", "a", "b", "C"]), "{got:?}");
    assert!(has(&["crate", "a", "b", "d"]));
    assert!(has(&["crate", "a", "e"]));
    assert!(has(&["super", "g"]));
    assert!(has(&["crate", "i", "j"]));
    assert!(has(&["h", "k"]));
    assert!(!got.iter().any(|g| g
        .iter()
        .any(|s| s == "not" || s == "nor" || s == "tests_only")));
}
