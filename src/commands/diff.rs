//! `diff`: two versions of pages compared block by block. Each side is read
//! the way `show` reads it and brought to the JSON value `show --format
//! json` writes for each block (or is such a document already: a golden
//! file); [`crate::diff::compare`] compares one block pair at a time, and
//! [`crate::render::diff`] writes the report as the blocks come.
//!
//! Blocks are matched by block number in one forward pass over both sides,
//! so files of pages are streamed; both sides must give their blocks in
//! ascending order (files always do). A JSON document is read whole, up to
//! [`MAX_JSON`] bytes.

use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use crate::diff::{compare, only, AttrsOf, Version};
use crate::error::Error;
use crate::model::diff::Change;
use crate::model::page::Decoded;
use crate::model::span::Span;
use crate::render::diff::DiffWriter;
use crate::render::{self};
use crate::source::RelationFileName;

use crate::diff::Ignore;
use crate::render::diff::DiffFormat;

use super::progress::{Progress, ProgressMode};
use super::show::{self, Opened, ShowConfig};
use super::{is_broken_pipe, stdout_error, BlockRange, Sink};

/// What `diff` was asked to do.
#[derive(Clone, Debug)]
pub(crate) struct DiffConfig {
    /// How every input is read, as `show --format json` would read it
    /// (`input` set per side).
    pub show: ShowConfig,
    pub old: PathBuf,
    pub new: Vec<PathBuf>,
    pub format: DiffFormat,
    pub ignore: Ignore,
    /// When to draw the progress bar.
    pub progress: ProgressMode,
}

/// The largest JSON document `diff` reads (it is read whole): 64 MiB, some
/// hundreds of pages of `show --format json`. Compare larger relations as
/// files, or keep one golden file per few pages.
pub(crate) const MAX_JSON: u64 = 64 << 20;

/// One block of one side: its JSON value, and its bytes and spans when it
/// was read from bytes. A block of a file whose blocks decode by
/// themselves comes undecoded (`value` `None`): a pair of byte-identical
/// blocks is equal without being decoded ([`Blocks::decode`] when needed).
struct Block {
    blkno: u64,
    value: Option<Value>,
    bytes: Vec<u8>,
    /// What the comparison needs of its spans ([`crate::diff::covering`]).
    spans: Vec<Span>,
    /// The decoded page, kept when `value` was written without its items'
    /// `attrs` ([`render::page_value_without_attrs`]), to make them one
    /// item at a time.
    decoded: Option<Decoded>,
}

impl Block {
    /// A decoded block: its value (without attrs when the page has them),
    /// what the comparison needs of its spans, its bytes.
    fn decoded(blkno: u64, mut d: Decoded, opts: &render::Options, ignore: &Ignore) -> Block {
        let spans = render::take_spans(&mut d);
        let spans = crate::diff::covering(&spans, d.bytes.len(), ignore);
        let (value, left_out) = render::page_value_without_attrs(&d, opts);
        let bytes = std::mem::take(&mut d.bytes);
        Block {
            blkno,
            value: Some(value),
            bytes,
            spans,
            decoded: left_out.then_some(d),
        }
    }
}

/// One input of one side.
enum Input {
    /// A file (or standard input) of pages, opened when its turn comes.
    File(PathBuf),
    /// The blocks of one input of a JSON document.
    Json { name: String, blocks: Vec<Value> },
}

impl Input {
    fn name(&self) -> String {
        match self {
            Input::File(p) => crate::escape::path(p).to_string(),
            Input::Json { name, .. } => name.clone(),
        }
    }
}

/// The blocks of one input, in order.
enum Blocks {
    File(Box<Opened>, Box<ShowConfig>),
    Json(std::vec::IntoIter<Value>, String),
}

impl Blocks {
    fn open(input: Input, cfg: &ShowConfig) -> Result<Blocks, Error> {
        match input {
            Input::File(path) => {
                let cfg = ShowConfig {
                    input: Some(path),
                    ..cfg.clone()
                };
                let opened = show::open(&cfg, true, None)?;
                Ok(Blocks::File(Box::new(opened), Box::new(cfg)))
            }
            Input::Json { name, blocks } => Ok(Blocks::Json(blocks.into_iter(), name)),
        }
    }

    fn next(&mut self, range: BlockRange, ignore: &Ignore) -> Option<Result<Block, Error>> {
        match self {
            Blocks::File(opened, _) if opened.raw_blocks() => {
                let mut bytes = Vec::new();
                let blkno = match opened.next_raw(range, &mut bytes)? {
                    Ok(blkno) => blkno,
                    Err(e) => return Some(Err(e)),
                };
                Some(Ok(Block {
                    blkno,
                    value: None,
                    bytes,
                    spans: Vec::new(),
                    decoded: None,
                }))
            }
            Blocks::File(opened, cfg) => {
                let d = match opened.next_decoded(range)? {
                    Ok(d) => d,
                    Err(e) => return Some(Err(e)),
                };
                let block = Block::decoded(0, d, &cfg.output, ignore);
                let Some(blkno) = block.value.as_ref().and_then(block_number) else {
                    return Some(Err(Error::Usage(format!(
                        "{}: a block without a block number (diff matches blocks by it)",
                        cfg.input_name()
                    ))));
                };
                Some(Ok(Block { blkno, ..block }))
            }
            Blocks::Json(values, name) => loop {
                let value = values.next()?;
                let Some(blkno) = block_number(&value) else {
                    return Some(Err(Error::Usage(format!(
                        "{name}: a block without a \"blkno\" (diff matches blocks by it)"
                    ))));
                };
                if range.contains(blkno) {
                    return Some(Ok(Block {
                        blkno,
                        value: Some(value),
                        bytes: Vec::new(),
                        spans: Vec::new(),
                        decoded: None,
                    }));
                }
            },
        }
    }
}

impl Blocks {
    /// `block` decoded, when it came undecoded: its value and spans as
    /// [`Blocks::next`] gives them for a decoded block.
    fn decode(&mut self, block: &mut Block, ignore: &Ignore) {
        if block.value.is_some() {
            return;
        }
        if let Blocks::File(opened, cfg) = self {
            let d = opened.decode(block.blkno, std::mem::take(&mut block.bytes));
            *block = Block::decoded(block.blkno, d, &cfg.output, ignore);
        }
    }

    /// Whether the blocks of `self` and `other` decode alike (the same
    /// bytes at the same block number give the same value), so that
    /// byte-identical blocks need not be decoded to be equal.
    fn decode_alike(&self, other: &Blocks) -> bool {
        match (self, other) {
            (Blocks::File(a, _), Blocks::File(b, _)) => {
                a.raw_blocks() && b.raw_blocks() && a.decodes_like(b)
            }
            _ => false,
        }
    }
}

/// A block's number: its `blkno`, or for an Oracle block known only from a
/// trace's text, the trace's block number.
fn block_number(value: &Value) -> Option<u64> {
    value
        .get("blkno")
        .or_else(|| value.get("trace")?.get("block"))
        .and_then(Value::as_u64)
}

/// Exit status: 0 when every block pair is equal (after `--ignore`), 1 when
/// some block differs or is on one side only, 2 on an error.
pub(crate) fn run(cfg: &DiffConfig, sink: &mut Sink) -> Result<ExitCode, Error> {
    let old = inputs(&cfg.old)?;
    let mut new = Vec::new();
    for path in &cfg.new {
        new.extend(inputs(path)?);
    }
    if old.len() != new.len() {
        return Err(Error::Usage(format!(
            "{} has {} input{}, the new side {}: a JSON document of several inputs pairs \
             with as many new inputs, in the same order",
            crate::escape::path(&cfg.old),
            old.len(),
            if old.len() == 1 { "" } else { "s" },
            new.len()
        )));
    }
    let several = old.len() > 1;
    let new_name = cfg
        .new
        .iter()
        .map(|p| crate::escape::path(p).to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let total = old
        .iter()
        .chain(&new)
        .filter_map(|i| match i {
            Input::File(p) => std::fs::metadata(p).ok().filter(|m| m.is_file()),
            Input::Json { .. } => None,
        })
        .map(|m| m.len())
        .sum();
    let progress = Progress::start(cfg.progress, total);
    let mut out = BufWriter::new(sink.out());
    let result = (|| -> Result<bool, Error> {
        let mut w = DiffWriter::open(
            &mut out,
            cfg.format,
            &crate::escape::path(&cfg.old).to_string(),
            &new_name,
        )
        .map_err(stdout_error)?;
        for (a, b) in old.into_iter().zip(new) {
            let title = several.then(|| b.name());
            let show = same_position(&cfg.show, &a, &b);
            let a = Blocks::open(a, &show)?;
            let b = Blocks::open(b, &show)?;
            compare_input(cfg, a, b, title, &mut w, &mut out, &progress)?;
        }
        drop(progress);
        // Every block is compared: the answer stands even when the pipe
        // closes before the summary is written.
        let equal = w.equal();
        match w
            .finish(&mut out)
            .and_then(|()| out.flush())
            .map_err(stdout_error)
        {
            Err(e) if !is_broken_pipe(&e) => Err(e),
            _ => Ok(equal),
        }
    })();
    match result {
        Ok(true) => Ok(ExitCode::SUCCESS),
        Ok(false) => Ok(ExitCode::from(1)),
        // Closed before every block was compared: not known to be equal.
        Err(e) if is_broken_pipe(&e) => Ok(ExitCode::from(1)),
        Err(e) => Err(e),
    }
}

/// Compare the blocks of one input pair, matched by block number in one
/// forward pass.
fn compare_input(
    cfg: &DiffConfig,
    mut a: Blocks,
    mut b: Blocks,
    title: Option<String>,
    w: &mut DiffWriter,
    out: &mut dyn Write,
    progress: &Progress,
) -> Result<(), Error> {
    let range = cfg.show.range;
    let mut last = (None, None);
    let next = |side: &mut Blocks, last: &mut Option<u64>, name: String| {
        let block = side.next(range, &cfg.ignore).transpose()?;
        if let (Some(b), Some(prev)) = (&block, *last) {
            if b.blkno < prev {
                return Err(Error::Usage(format!(
                    "{name}: block {} comes after block {prev}: diff needs the blocks of \
                     each input in ascending block-number order",
                    b.blkno
                )));
            }
        }
        if let Some(b) = &block {
            *last = Some(b.blkno);
        }
        Ok(block)
    };
    let (an, bn) = (side_name(&cfg.old, &a), side_name(&cfg.old, &b));
    let alike = a.decode_alike(&b);
    let mut x = next(&mut a, &mut last.0, an.clone())?;
    let mut y = next(&mut b, &mut last.1, bn.clone())?;
    let mut compared = 0u64;
    loop {
        let d = match (&mut x, &mut y) {
            (None, None) => break,
            (Some(p), Some(q)) if p.blkno == q.blkno => {
                progress.inc((p.bytes.len() + q.bytes.len()) as u64);
                let d = if alike && p.value.is_none() && q.value.is_none() && p.bytes == q.bytes {
                    // The same bytes decode to the same value: equal, as
                    // `compare` would find after decoding both.
                    only(p.blkno.into(), Change::Changed)
                } else {
                    a.decode(p, &cfg.ignore);
                    b.decode(q, &cfg.ignore);
                    let (fp, fq) = (attrs_of(p), attrs_of(q));
                    compare(
                        p.blkno,
                        &version(p, fp.as_ref().map(|f| f as _)),
                        &version(q, fq.as_ref().map(|f| f as _)),
                        &cfg.ignore,
                    )
                };
                x = next(&mut a, &mut last.0, an.clone())?;
                y = next(&mut b, &mut last.1, bn.clone())?;
                d
            }
            (Some(p), q) if q.as_ref().is_none_or(|q| p.blkno < q.blkno) => {
                progress.inc(p.bytes.len() as u64);
                let d = only(p.blkno.into(), Change::Removed);
                x = next(&mut a, &mut last.0, an.clone())?;
                d
            }
            (_, Some(q)) => {
                progress.inc(q.bytes.len() as u64);
                let d = only(q.blkno.into(), Change::Added);
                y = next(&mut b, &mut last.1, bn.clone())?;
                d
            }
            (_, None) => unreachable!("handled above"),
        };
        compared += 1;
        let d = crate::model::diff::BlockDiff {
            input: title.clone(),
            ..d
        };
        progress.output(|| w.block(out, &d)).map_err(stdout_error)?;
    }
    if compared == 0 {
        return Err(Error::Usage(format!(
            "{an} and {bn}: no blocks to compare (inputs empty or --blocks outside them)"
        )));
    }
    Ok(())
}

/// How both files of a pair are read: at the same place in a relation, so
/// that byte-identical files compare equal whatever they are called. The
/// place is the one the first relation file's name gives (OLD's before
/// NEW's): `16392` and its copy `copy2` are both blocks 0 on of a relation
/// file, their checksums checked at those block numbers; `16392.1` and a
/// copy `16392.2` are both segment 1, with a note.
fn same_position(cfg: &ShowConfig, a: &Input, b: &Input) -> ShowConfig {
    let (Input::File(pa), Input::File(pb)) = (a, b) else {
        return cfg.clone();
    };
    let relation = |p: &PathBuf| {
        p.file_name()
            .and_then(|n| n.to_str())
            .and_then(RelationFileName::parse)
            .map(|r| r.segment.unwrap_or(0))
    };
    let (sa, sb) = (relation(pa), relation(pb));
    if let (Some(x), Some(y)) = (sa, sb) {
        if x != y {
            let _ = writeln!(
                io::stderr(),
                "blockscope: note: {} and {} are named as segments {x} and {y} of a relation; \
                 both are read as segment {x}, so that only their bytes are compared",
                crate::verify::file_name(pa),
                crate::verify::file_name(pb)
            );
        }
    }
    let position_name = match (sa, sb) {
        (Some(_), _) => Some(pa.clone()),
        (None, Some(_)) => Some(pb.clone()),
        (None, None) => None,
    };
    ShowConfig {
        position_name,
        ..cfg.clone()
    }
}

fn version<'a>(b: &'a Block, attrs: Option<AttrsOf<'a>>) -> Version<'a> {
    Version {
        value: b.value.as_ref().unwrap_or(&Value::Null),
        bytes: &b.bytes,
        spans: &b.spans,
        attrs,
    }
}

/// The maker of a block's items' `attrs`, when its value left them out.
fn attrs_of(b: &Block) -> Option<impl Fn(&Value) -> Option<String> + '_> {
    let d = b.decoded.as_ref()?;
    Some(move |item: &Value| render::item_attrs(d, item))
}

fn side_name(_old: &Path, b: &Blocks) -> String {
    match b {
        Blocks::File(_, cfg) => cfg.input_name(),
        Blocks::Json(_, name) => name.clone(),
    }
}

/// The inputs `path` stands for: itself (a file of pages), or the inputs
/// of the JSON document it holds.
fn inputs(path: &Path) -> Result<Vec<Input>, Error> {
    let name = crate::escape::path(path).to_string();
    let Some(text) = json_text(path)? else {
        return Ok(vec![Input::File(path.to_path_buf())]);
    };
    let not_show = |why: &str| {
        Error::Usage(format!(
            "{name}: not a document of `blockscope show --format json` or ndjson ({why})"
        ))
    };
    let doc: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        // NDJSON: a block a line, `{"input": NAME}` lines between inputs.
        Err(e) => {
            let mut lines = Vec::new();
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                lines.push(
                    serde_json::from_str::<Value>(line).map_err(|_| not_show(&e.to_string()))?,
                );
            }
            return ndjson_inputs(&name, lines);
        }
    };
    let is_block = |v: &Value| v.get("engine").is_some() && block_number(v).is_some();
    // One input's `{"input", "blocks"}` (several inputs' documents).
    let input = |mut i: Value| {
        let input = i.get("input").and_then(Value::as_str).map(str::to_string);
        match (input, i.get_mut("blocks").map(Value::take)) {
            (Some(name), Some(Value::Array(blocks))) if blocks.iter().all(is_block) => {
                Ok(Input::Json { name, blocks })
            }
            _ => Err(not_show("an array of neither blocks nor inputs")),
        }
    };
    match doc {
        // Schema 2: `{"schema", "blocks"}`, or `{"schema", "inputs"}`.
        Value::Object(mut o) if o.contains_key("schema") && !o.contains_key("engine") => {
            match (o.remove("blocks"), o.remove("inputs")) {
                (Some(Value::Array(blocks)), None) if blocks.iter().all(is_block) => {
                    Ok(vec![Input::Json { name, blocks }])
                }
                (None, Some(Value::Array(inputs))) => inputs.into_iter().map(input).collect(),
                _ => Err(not_show("neither `blocks` nor `inputs` in it")),
            }
        }
        // Schema 1 (unversioned): one block's object, an array of blocks, or
        // an array of inputs.
        Value::Object(_) if is_block(&doc) => Ok(vec![Input::Json {
            name,
            blocks: vec![doc],
        }]),
        Value::Array(items) if items.iter().all(is_block) => Ok(vec![Input::Json {
            name,
            blocks: items,
        }]),
        Value::Array(items) => items.into_iter().map(input).collect(),
        _ => Err(not_show("no block in it")),
    }
}

/// The inputs of an NDJSON document: blocks, with `{"input": NAME}` lines
/// starting each input of several.
fn ndjson_inputs(name: &str, lines: Vec<Value>) -> Result<Vec<Input>, Error> {
    let mut inputs: Vec<Input> = Vec::new();
    for v in lines {
        // Schema 2's first line `{"schema": N}`, and `--evidence`'s
        // `{"provenance": …}` after an input's blocks: no blocks.
        let only = |key: &str| {
            v.as_object()
                .is_some_and(|o| o.len() == 1 && o.contains_key(key))
        };
        if only("schema") || only("provenance") {
            continue;
        }
        let title = v
            .as_object()
            .filter(|o| o.len() == 1)
            .and_then(|o| o.get("input"))
            .and_then(Value::as_str);
        match (title, inputs.last_mut()) {
            (Some(t), _) => inputs.push(Input::Json {
                name: t.to_string(),
                blocks: Vec::new(),
            }),
            (None, Some(Input::Json { blocks, .. })) => blocks.push(v),
            (None, _) => inputs.push(Input::Json {
                name: name.to_string(),
                blocks: vec![v],
            }),
        }
    }
    Ok(inputs)
}

/// The text of `path` when it holds JSON (its first non-blank byte is `{`
/// or `[`, which starts no page and no text dump), read whole up to
/// [`MAX_JSON`]; `None` for anything else, which `show`'s reader takes.
fn json_text(path: &Path) -> Result<Option<String>, Error> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let stdin = path.as_os_str() == "-";
    let head = if stdin {
        crate::source::peek_stdin(4096).map_err(io_error)?
    } else {
        let mut head = Vec::new();
        crate::source::open_file(path)
            .and_then(|f| f.take(4096).read_to_end(&mut head))
            .map_err(io_error)?;
        head
    };
    let first = head.iter().find(|b| !b.is_ascii_whitespace());
    if !matches!(first, Some(b'{' | b'[')) {
        return Ok(None);
    }
    let reader: Box<dyn Read> = if stdin {
        Box::new(crate::source::stdin())
    } else {
        Box::new(crate::source::open_file(path).map_err(io_error)?)
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_JSON + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > MAX_JSON {
        return Err(Error::Usage(format!(
            "{}: a JSON document larger than {} MiB: diff reads JSON whole; compare the \
             pages themselves, or keep golden files of fewer pages",
            crate::escape::path(path),
            MAX_JSON >> 20
        )));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| io_error(io::Error::new(io::ErrorKind::InvalidData, "not UTF-8")))
}
