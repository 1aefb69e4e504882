//! `diff`'s comparison: two versions of one block, each as the JSON value
//! `show --format json` writes for it (so a golden JSON file and a page
//! decoded now compare alike, and every name is a JSON name), plus the
//! block's bytes and field spans when it was read from bytes.
//!
//! The walk: every key of the block object, in document order, old keys
//! first. Arrays of objects that all carry an identifying key (`lp`,
//! `itemoffset`, `itl`, `slot`, `row`, …) are matched element by element on
//! that key; at the top of the block they are the block's items (a change
//! names its `lp`), deeper inside an item they are paths like
//! `attrs[attnum=2].value`. Other arrays of objects are matched by position,
//! arrays of scalars (flag names) compared whole. `problems` is compared as
//! a multiset. Ignored names are skipped at any depth.
//!
//! Memory: one block pair at a time; items are matched through a hash map,
//! so a page of a thousand line pointers is not quadratic.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::model::diff::{BlockDiff, ByteRange, Change, FieldChange, ItemChange, ProblemChange};
use crate::model::span::{Region, Span};

/// Keys that identify the elements of an array, most specific first.
const ITEM_KEYS: &[&str] = &[
    "lp",
    "itemoffset",
    "itl",
    "slot",
    "row",
    "attnum",
    "col",
    "table",
    "blkno",
];

/// The field names `--ignore` gave, matched at any depth.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ignore {
    names: Vec<String>,
}

impl Ignore {
    pub(crate) fn new(names: Vec<String>) -> Ignore {
        Ignore { names }
    }

    /// A JSON key to skip.
    fn key(&self, key: &str) -> bool {
        self.names.iter().any(|n| n == key)
    }

    /// A span (a field's bytes) of an ignored field: its on-disk name is the
    /// JSON name, or the JSON name of a page header field with `pd_` before
    /// it (`lsn` is `pd_lsn`; `pagesize` and `version` share
    /// `pd_pagesize_version`).
    fn span(&self, name: &str) -> bool {
        self.names.iter().any(|n| {
            name == n
                || name.strip_prefix("pd_") == Some(n.as_str())
                || (name == "pd_pagesize_version" && (n == "pagesize" || n == "version"))
        })
    }

    /// A problem about an ignored field: its class is the name (`checksum`),
    /// or its field is the name, `pd_` and the name, or ends in ` NAME`
    /// (`tuple 3 t_xmin`).
    fn problem(&self, p: &Value) -> bool {
        let class = p.get("class").and_then(Value::as_str).unwrap_or("");
        let field = p.get("field").and_then(Value::as_str).unwrap_or("");
        self.names.iter().any(|n| {
            class == n
                || self.span(field)
                || field
                    .rsplit_once(' ')
                    .is_some_and(|(_, last)| last == n.as_str())
        })
    }
}

/// One version of a block.
pub(crate) struct Version<'a> {
    /// The block as `show --format json` writes it.
    pub value: &'a Value,
    /// Its bytes (empty when it came from a JSON document).
    pub bytes: &'a [u8],
    /// The byte spans of its decoded fields.
    pub spans: &'a [Span],
    /// When `value`'s items were written without their `attrs` (a page of a
    /// million columns would be gigabytes as one JSON value): the `attrs`
    /// of the item given, as JSON text, made when that item is compared.
    pub attrs: Option<AttrsOf<'a>>,
}

/// The `attrs` of one item of a block's `items` as JSON text (the item's
/// object without them given), or `None` when it has none.
pub(crate) type AttrsOf<'a> = &'a dyn Fn(&Value) -> Option<String>;

/// Two paired items (either may be missing) made ready to compare: with
/// their `attrs` when these were left out, else as they are.
type Complete<'f, 'a> = &'f dyn Fn(
    Option<&'a Value>,
    Option<&'a Value>,
) -> (Option<Cow<'a, Value>>, Option<Cow<'a, Value>>);

/// Items as they are.
fn as_they_are<'a>(
    a: Option<&'a Value>,
    b: Option<&'a Value>,
) -> (Option<Cow<'a, Value>>, Option<Cow<'a, Value>>) {
    (a.map(Cow::Borrowed), b.map(Cow::Borrowed))
}

/// The item `e` with the `attrs` of JSON text `attrs`, if any.
fn with_attrs(e: &Value, attrs: Option<String>) -> Cow<'_, Value> {
    match (attrs, e) {
        (Some(text), Value::Object(m)) => {
            let mut m = m.clone();
            let a = serde_json::from_str(&text).unwrap_or(Value::Null);
            m.insert("attrs".to_string(), a);
            Cow::Owned(Value::Object(m))
        }
        _ => Cow::Borrowed(e),
    }
}

/// The block's `items` when a side left their `attrs` out: compared item
/// by item as [`block_field`] compares them, each pair completed when its
/// turn comes (one item's attributes held at a time, not the page's). Two
/// items whose `attrs` have the same text are compared without them (equal
/// values add no change).
fn items_completed<'x>(
    x: &'x Value,
    y: &'x Value,
    (fa, fb): (Option<AttrsOf<'_>>, Option<AttrsOf<'_>>),
    ignore: &Ignore,
    d: &mut BlockDiff,
) {
    let text = |e: &Value, f: Option<AttrsOf<'_>>| f.and_then(|f| f(e));
    if let (Value::Array(xs), Value::Array(ys)) = (x, y) {
        if let Some(key) = item_key(xs, ys) {
            let complete = |a: Option<&'x Value>, b: Option<&'x Value>| {
                let ta = a.and_then(|e| text(e, fa));
                let tb = b.and_then(|e| text(e, fb));
                if ta.is_some() && ta == tb {
                    return as_they_are(a, b);
                }
                (a.map(|e| with_attrs(e, ta)), b.map(|e| with_attrs(e, tb)))
            };
            items("items", key, xs, ys, ignore, &mut d.items, &complete);
            return;
        }
    }
    let all = |v: &Value, f: Option<AttrsOf<'_>>| match v {
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|e| with_attrs(e, text(e, f)).into_owned())
                .collect(),
        ),
        v => v.clone(),
    };
    block_field("items".to_string(), &all(x, fa), &all(y, fb), ignore, d);
}

/// Compare two versions of one block; the result [`BlockDiff::is_empty`]
/// when they are equal after `ignore`.
pub(crate) fn compare(
    blkno: u64,
    old: &Version<'_>,
    new: &Version<'_>,
    ignore: &Ignore,
) -> BlockDiff {
    let mut d = BlockDiff {
        input: None,
        blkno: blkno.into(),
        change: Change::Changed,
        fields: Vec::new(),
        items: Vec::new(),
        problems: Vec::new(),
        bytes: Vec::new(),
    };
    let lazy = old.attrs.is_some() || new.attrs.is_some();
    if lazy || old.value != new.value {
        match (old.value, new.value) {
            (Value::Object(a), Value::Object(b)) => {
                for key in keys(a, b) {
                    if PROVENANCE.contains(&key) || ignore.key(key) {
                        continue;
                    }
                    let (x, y) = (get(a, key), get(b, key));
                    if key == "problems" {
                        problems(x, y, ignore, &mut d.problems);
                    } else if key == "items" && lazy {
                        items_completed(x, y, (old.attrs, new.attrs), ignore, &mut d);
                    } else if key == "text" {
                        // A trace's formatted text: compared when both
                        // versions came with one, without its line numbers.
                        if !x.is_null() && !y.is_null() {
                            let (x, y) = (without_lines(x), without_lines(y));
                            block_field(key.to_string(), &x, &y, ignore, &mut d);
                        }
                    } else {
                        block_field(key.to_string(), x, y, ignore, &mut d);
                    }
                }
            }
            (a, b) => d.fields.push(FieldChange {
                field: String::new(),
                old: a.clone(),
                new: b.clone(),
            }),
        }
    }
    d.bytes = byte_ranges(old, new, ignore);
    d
}

/// Top-level keys that say where a block came from, not what it holds:
/// the block number (blocks are matched by it), and an Oracle trace's
/// origin (file, line numbers, memory address) and source form.
const PROVENANCE: &[&str] = &["blkno", "trace", "source"];

/// `v` without the keys that are line numbers in a trace file (`line`,
/// `…_line`).
fn without_lines(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| *k != "line" && !k.ends_with("_line"))
                .map(|(k, v)| (k.clone(), without_lines(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_lines).collect()),
        v => v.clone(),
    }
}

/// A block that only one version has.
pub(crate) fn only(blkno: Value, change: Change) -> BlockDiff {
    BlockDiff {
        input: None,
        blkno,
        change,
        fields: Vec::new(),
        items: Vec::new(),
        problems: Vec::new(),
        bytes: Vec::new(),
    }
}

/// The keys of two objects: the old one's in its order, then the new one's
/// that the old lacks.
fn keys<'a>(a: &'a Map<String, Value>, b: &'a Map<String, Value>) -> Vec<&'a str> {
    let mut all: Vec<&str> = a.keys().map(String::as_str).collect();
    all.extend(b.keys().map(String::as_str).filter(|k| !a.contains_key(*k)));
    all
}

fn get<'a>(m: &'a Map<String, Value>, key: &str) -> &'a Value {
    m.get(key).unwrap_or(&Value::Null)
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A value at the block level: objects are walked, arrays of identified
/// items become item changes, the rest field changes.
fn block_field(path: String, a: &Value, b: &Value, ignore: &Ignore, d: &mut BlockDiff) {
    if a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in keys(x, y) {
                if !ignore.key(key) {
                    block_field(join(&path, key), get(x, key), get(y, key), ignore, d);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => match item_key(x, y) {
            Some(key) => items(&path, key, x, y, ignore, &mut d.items, &as_they_are),
            None => fields(path, a, b, ignore, &mut d.fields),
        },
        _ => fields(path, a, b, ignore, &mut d.fields),
    }
}

/// The differing leaves under `path`.
fn fields(path: String, a: &Value, b: &Value, ignore: &Ignore, out: &mut Vec<FieldChange>) {
    if a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in keys(x, y) {
                if !ignore.key(key) {
                    fields(join(&path, key), get(x, key), get(y, key), ignore, out);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if let Some(key) = item_key(x, y) {
                for (id, ex, ey) in pair_items(key, x, y) {
                    let p = format!("{path}[{key}={}]", id_text(id));
                    fields(
                        p,
                        ex.unwrap_or(&Value::Null),
                        ey.unwrap_or(&Value::Null),
                        ignore,
                        out,
                    );
                }
            } else if x.iter().chain(y).any(|v| v.is_object() || v.is_array()) {
                for i in 0..x.len().max(y.len()) {
                    let (ex, ey) = (x.get(i), y.get(i));
                    let null = &Value::Null;
                    fields(
                        format!("{path}[{i}]"),
                        ex.unwrap_or(null),
                        ey.unwrap_or(null),
                        ignore,
                        out,
                    );
                }
            } else {
                out.push(FieldChange {
                    field: path,
                    old: a.clone(),
                    new: b.clone(),
                });
            }
        }
        _ => out.push(FieldChange {
            field: path,
            old: a.clone(),
            new: b.clone(),
        }),
    }
}

/// The key that identifies every element of both arrays (all objects, the
/// key present, not null, and unique within each array).
fn item_key(x: &[Value], y: &[Value]) -> Option<&'static str> {
    if x.is_empty() && y.is_empty() {
        return None;
    }
    if !x.iter().chain(y).all(Value::is_object) {
        return None;
    }
    ITEM_KEYS.iter().copied().find(|key| {
        [x, y].iter().all(|arr| {
            let mut seen = std::collections::HashSet::new();
            arr.iter().all(|e| match e.get(*key) {
                Some(v) if !v.is_null() => seen.insert(v.to_string()),
                _ => false,
            })
        })
    })
}

/// The text of an item's id in a path: strings without quotes.
fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// The elements of two identified arrays paired by `key`: the old array's
/// in order (with the new element of the same id, if any), then the new
/// array's elements that the old lacks.
fn pair_items<'a>(
    key: &str,
    x: &'a [Value],
    y: &'a [Value],
) -> Vec<(&'a Value, Option<&'a Value>, Option<&'a Value>)> {
    let id = |e: &'a Value| e.get(key).unwrap_or(&Value::Null);
    let in_new: HashMap<String, &Value> = y.iter().map(|e| (id(e).to_string(), e)).collect();
    let in_old: HashMap<String, &Value> = x.iter().map(|e| (id(e).to_string(), e)).collect();
    let mut pairs: Vec<_> = x
        .iter()
        .map(|e| (id(e), Some(e), in_new.get(&id(e).to_string()).copied()))
        .collect();
    pairs.extend(
        y.iter()
            .filter(|e| !in_old.contains_key(&id(e).to_string()))
            .map(|e| (id(e), None, Some(e))),
    );
    pairs
}

/// The block's items that differ (each pair made ready by `complete`).
fn items<'a>(
    path: &str,
    key: &'static str,
    x: &'a [Value],
    y: &'a [Value],
    ignore: &Ignore,
    out: &mut Vec<ItemChange>,
    complete: Complete<'_, 'a>,
) {
    for (id, ex, ey) in pair_items(key, x, y) {
        let (ex, ey) = complete(ex, ey);
        let (change, fs, item) = match (ex.as_deref(), ey.as_deref()) {
            (Some(a), Some(b)) => {
                if a == b {
                    continue;
                }
                let mut fs = Vec::new();
                if let (Value::Object(ma), Value::Object(mb)) = (a, b) {
                    for k in keys(ma, mb) {
                        if k != key && !ignore.key(k) {
                            fields(k.to_string(), get(ma, k), get(mb, k), ignore, &mut fs);
                        }
                    }
                }
                if fs.is_empty() {
                    continue;
                }
                (Change::Changed, fs, None)
            }
            (Some(a), None) => (Change::Removed, Vec::new(), Some(a.clone())),
            (None, Some(b)) => (Change::Added, Vec::new(), Some(b.clone())),
            (None, None) => continue,
        };
        out.push(ItemChange {
            array: path.to_string(),
            key: key.to_string(),
            id: id.clone(),
            change,
            fields: fs,
            item,
        });
    }
}

/// Problems of one version only (as a multiset: a problem reported twice
/// in one version and once in the other is one change), ignored ones left out.
fn problems(a: &Value, b: &Value, ignore: &Ignore, out: &mut Vec<ProblemChange>) {
    let list = |v: &Value| -> Vec<Value> {
        v.as_array()
            .map(|a| a.iter().filter(|p| !ignore.problem(p)).cloned().collect())
            .unwrap_or_default()
    };
    let (old, new) = (list(a), list(b));
    let mut counts: HashMap<String, isize> = HashMap::new();
    for p in &new {
        *counts.entry(p.to_string()).or_default() += 1;
    }
    for p in &old {
        let c = counts.entry(p.to_string()).or_default();
        if *c > 0 {
            *c -= 1;
        } else {
            out.push(ProblemChange {
                change: Change::Removed,
                problem: p.clone(),
            });
        }
    }
    for p in &new {
        let c = counts.entry(p.to_string()).or_default();
        if *c > 0 {
            *c -= 1;
            out.push(ProblemChange {
                change: Change::Added,
                problem: p.clone(),
            });
        }
    }
}

/// Runs of bytes that differ outside every decoded field of either version
/// (free space and unaccounted bytes count as outside; an ignored field's
/// bytes as inside). Nothing when a version has no bytes or the sizes differ.
fn byte_ranges(old: &Version<'_>, new: &Version<'_>, ignore: &Ignore) -> Vec<ByteRange> {
    let (a, b) = (old.bytes, new.bytes);
    if a.is_empty() || a.len() != b.len() || a == b {
        return Vec::new();
    }
    let mut covered = vec![false; a.len()];
    cover(&mut covered, old.spans, ignore);
    cover(&mut covered, new.spans, ignore);
    let mut ranges: Vec<ByteRange> = Vec::new();
    for i in 0..a.len() {
        if a[i] == b[i] || covered[i] {
            continue;
        }
        match ranges.last_mut() {
            Some(r) if r.offset + r.length == i => r.length += 1,
            _ => ranges.push(ByteRange {
                offset: i,
                length: 1,
            }),
        }
    }
    ranges
}

/// Marks in `covered` the bytes of `spans` that [`byte_ranges`] does not
/// report: those of a decoded field, or of an ignored one.
fn cover(covered: &mut [bool], spans: &[Span], ignore: &Ignore) {
    for s in spans {
        let decoded = !matches!(s.region, Region::FreeSpace | Region::Unknown);
        if decoded || ignore.span(&s.name) {
            let end = s.end().min(covered.len());
            if let Some(c) = covered.get_mut(s.start.min(end)..end) {
                c.fill(true);
            }
        }
    }
}

/// What a block of `len` bytes keeps of its `spans` for [`byte_ranges`]:
/// one span for each run of bytes they cover there (a page of a million
/// fields keeps a few spans, not a million). Its [`Version`] gives the
/// same byte ranges as with all its spans.
pub(crate) fn covering(spans: &[Span], len: usize, ignore: &Ignore) -> Vec<Span> {
    let mut covered = vec![false; len];
    cover(&mut covered, spans, ignore);
    let mut out: Vec<Span> = Vec::new();
    for (i, _) in covered.iter().enumerate().filter(|(_, &c)| c) {
        match out.last_mut() {
            Some(s) if s.end() == i => s.len += 1,
            _ => out.push(Span {
                start: i,
                len: 1,
                region: Region::TupleData,
                owner: None,
                name: String::new(),
                value: String::new(),
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn diff(a: Value, b: Value, ignore: &[&str]) -> BlockDiff {
        let ig = Ignore::new(ignore.iter().map(|s| s.to_string()).collect());
        compare(
            0,
            &Version {
                value: &a,
                bytes: &[],
                spans: &[],
                attrs: None,
            },
            &Version {
                value: &b,
                bytes: &[],
                spans: &[],
                attrs: None,
            },
            &ig,
        )
    }

    /// Items whose `attrs` are made one at a time compare exactly as the
    /// same items with their `attrs` inline: a changed value, an item on
    /// one side only, equal attributes, and one side a JSON document.
    #[test]
    fn attrs_made_per_item_compare_as_inline_ones() {
        let item = |lp: u64, v: &str| {
            json!({"lp": lp, "t_xmin": 5, "attrs": [
                {"attnum": 1, "value": v, "raw": "\\x0561"},
                {"attnum": 2, "value": null, "raw": null}]})
        };
        let a = json!({"blkno": 0, "items": [item(1, "a"), item(2, "b"), item(3, "c")], "problems": []});
        let b = json!({"blkno": 0, "items": [item(1, "a"), item(2, "z"), item(4, "d")], "problems": []});
        let strip = |v: &Value| {
            let mut v = v.clone();
            for i in v["items"].as_array_mut().unwrap() {
                i.as_object_mut().unwrap().shift_remove("attrs");
            }
            v
        };
        let attrs_in = |full: Value| {
            move |item: &Value| {
                let lp = item["lp"].as_u64()?;
                let found = full["items"].as_array()?.iter().find(|i| i["lp"] == lp)?;
                Some(found["attrs"].to_string())
            }
        };
        let (fa, fb) = (attrs_in(a.clone()), attrs_in(b.clone()));
        let (sa, sb) = (strip(&a), strip(&b));
        let version = |value, attrs| Version {
            value,
            bytes: &[],
            spans: &[],
            attrs,
        };
        let ig = Ignore::default();
        let inline = compare(0, &version(&a, None), &version(&b, None), &ig);
        assert_eq!(inline.items.len(), 3, "{inline:?}");
        let lazy = compare(0, &version(&sa, Some(&fa)), &version(&sb, Some(&fb)), &ig);
        assert_eq!(lazy, inline);
        let mixed = compare(0, &version(&a, None), &version(&sb, Some(&fb)), &ig);
        assert_eq!(mixed, inline);
        let same = compare(0, &version(&sa, Some(&fa)), &version(&sa, Some(&fa)), &ig);
        assert!(same.is_empty(), "{same:?}");
    }

    #[test]
    fn header_items_and_ignores() {
        let a = json!({"blkno": 0, "header": {"lsn": "0/1", "lower": 28},
            "items": [{"lp": 1, "t_xmin": 5}, {"lp": 2, "t_xmin": 5}], "problems": []});
        let b = json!({"blkno": 0, "header": {"lsn": "0/2", "lower": 32},
            "items": [{"lp": 1, "t_xmin": 6}, {"lp": 3, "t_xmin": 6}], "problems": []});
        let d = diff(a.clone(), b.clone(), &[]);
        let f: Vec<&str> = d.fields.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(f, ["header.lsn", "header.lower"]);
        let items: Vec<(String, Change)> = d
            .items
            .iter()
            .map(|i| (i.id.to_string(), i.change))
            .collect();
        assert_eq!(
            items,
            [
                ("1".into(), Change::Changed),
                ("2".into(), Change::Removed),
                ("3".into(), Change::Added)
            ]
        );
        assert_eq!(d.items[0].fields[0].field, "t_xmin");
        let d = diff(a, b, &["lsn", "t_xmin"]);
        assert_eq!(d.fields.len(), 1);
        assert_eq!(d.items.len(), 2, "lp 1 differs only in t_xmin");
        assert!(!d.is_empty());
    }

    #[test]
    fn nested_items_problems_and_bytes() {
        let a = json!({"items": [{"lp": 1, "attrs": [{"attnum": 1, "value": 1}]}],
            "problems": [{"class": "checksum", "field": "pd_checksum", "message": "x"}]});
        let b = json!({"items": [{"lp": 1, "attrs": [{"attnum": 1, "value": 2}]}],
            "problems": []});
        let d = diff(a.clone(), b.clone(), &[]);
        assert_eq!(d.items[0].fields[0].field, "attrs[attnum=1].value");
        assert_eq!(d.problems.len(), 1);
        assert_eq!(d.problems[0].change, Change::Removed);
        let d = diff(a, b, &["checksum", "value"]);
        assert!(d.is_empty());

        let (x, mut y) = (vec![0u8; 32], vec![0u8; 32]);
        y[3] = 1;
        y[10] = 1;
        y[11] = 1;
        let span = Span {
            start: 0,
            len: 8,
            region: Region::Header,
            owner: None,
            name: "pd_lsn".into(),
            value: String::new(),
        };
        let v = json!({});
        let spans = [span];
        let ranges = byte_ranges(
            &Version {
                value: &v,
                bytes: &x,
                spans: &spans,
                attrs: None,
            },
            &Version {
                value: &v,
                bytes: &y,
                spans: &[],
                attrs: None,
            },
            &Ignore::default(),
        );
        assert_eq!(
            ranges,
            [ByteRange {
                offset: 10,
                length: 2
            }]
        );
    }
}
