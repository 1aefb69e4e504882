//! Renderers: model structures (and the page bytes, for hex) in, text out.
//! Nothing here parses.
//!
//! [`page`] is the one place where the engine meets the output format: a
//! new format or a new engine is one more arm there, and the compiler names
//! every arm that is missing.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::page::{Decoded, Page, TraceOrigin};

pub(crate) mod carve;
pub(crate) mod decode;
pub(crate) mod diff;
pub(crate) mod export;
mod fit;
pub(crate) mod hex;
pub(crate) mod map;
pub(crate) mod options;
pub(crate) mod oracle;
pub(crate) mod postgres;
pub(crate) mod problems;
pub(crate) mod report;
pub(crate) mod versions;
pub(crate) mod write;

use oracle::dump::{render_dump, DumpOptions};
use oracle::{json as oracle_json, table as oracle_table, trace};
use postgres::{json, ndjson, table};

pub use options::RenderOptions;

/// Output formats of `show`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One table per structure.
    Table,
    /// Annotated hex: offset, 16 bytes, ASCII, and the fields starting there.
    Hex,
    /// One JSON document, `{"schema", "blocks": [...]}`.
    Json,
    /// One JSON object per block, one per line, after a `{"schema"}` line.
    Ndjson,
    /// Oracle's block dump text.
    Dump,
    /// The block's bytes as read (after a text dump is decoded), nothing
    /// else: pg_filedump's `-b`.
    Raw,
}

impl Format {
    /// Blocks are separated by a blank line.
    pub fn separates_blocks(self) -> bool {
        matches!(self, Format::Table | Format::Hex)
    }

    /// The output shows byte spans (the hex view needs them; the parse may
    /// skip recording them otherwise).
    pub fn shows_spans(self) -> bool {
        !matches!(self, Format::Json | Format::Ndjson | Format::Raw)
    }
}

/// Everything [`page`] needs besides the page.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The output format.
    pub format: Format,
    /// What the table and hex formats show.
    pub render: RenderOptions,
    /// Oracle: show every rdba in bigfile form.
    pub bigfile: bool,
    /// Oracle: the dump options the command line fixed (`None` fields are
    /// filled from what the block's surroundings say).
    pub dump: DumpOptions,
}

/// Whether `d` can be shown in `format`: `Ok(false)` when it has nothing
/// to show there, `Err(())` when the format needs what the page lacks (the
/// bytes of a block known only from a trace's text; PostgreSQL has no dump).
#[allow(clippy::result_unit_err)]
pub fn can_show(d: &Decoded, format: Format) -> Result<bool, ()> {
    match (&d.page, format) {
        (Page::OracleText(_), Format::Hex | Format::Raw) | (Page::Postgres(_), Format::Dump) => {
            Err(())
        }
        (Page::OracleText(t), Format::Dump) => Ok(t.view.is_some()),
        _ => Ok(true),
    }
}

/// Render one block in `opts.format` (for [`Format::Json`], the block's
/// object alone, an element of the document's `blocks`: see [`document`]).
pub fn page(out: &mut dyn Write, d: &Decoded, opts: &Options) -> io::Result<()> {
    let title = d.trace.as_deref().map(trace::title);
    match (&d.page, opts.format) {
        (_, Format::Raw) => out.write_all(&d.bytes),
        (_, Format::Json) => {
            write::write_pretty(out, &page_json(&d.page, d.trace.as_deref(), opts))
        }
        (_, Format::Ndjson) => {
            write::write_line(out, &page_json(&d.page, d.trace.as_deref(), opts))
        }
        (Page::Postgres(p), Format::Table) => table::render_page(out, p, &opts.render),
        (Page::Postgres(p), Format::Hex) => {
            writeln!(out, "{}", table::title(p))?;
            hex::render(out, &d.bytes, &p.spans, &opts.render)
        }
        (Page::Postgres(_), Format::Dump) => Ok(()),
        (Page::Oracle(b), Format::Table) => {
            if let Some(title) = title {
                writeln!(out, "{title}")?;
            }
            oracle_table::render_block(out, b, opts.bigfile, &opts.render)
        }
        (Page::Oracle(b), Format::Hex) => {
            let title = title.unwrap_or_else(|| oracle_table::title(b, opts.bigfile));
            writeln!(out, "{title}")?;
            hex::render(out, &d.bytes, &b.spans, &opts.render)
        }
        (Page::Oracle(b), Format::Dump) => render_dump(out, b, &d.bytes, &dump_options(d, opts)),
        (Page::OracleText(t), Format::Table) => {
            if let Some(title) = title {
                writeln!(out, "{title}")?;
            }
            trace::text_table(out, &t.text)?;
            if !t.problems.is_empty() {
                writeln!(out, "{}", problems::table(&t.problems, &opts.render))?;
            }
            Ok(())
        }
        (Page::OracleText(_), Format::Hex) => Ok(()),
        (Page::OracleText(t), Format::Dump) => match &t.view {
            Some(view) => render_dump(out, view, &[], &dump_options(d, opts)),
            None => Ok(()),
        },
    }
}

/// Several blocks as one JSON document, as `show --format json` writes
/// that of one input: `{"schema", "blocks": [...]}` whatever their number.
pub fn document(out: &mut dyn Write, blocks: &[Decoded], opts: &Options) -> io::Result<()> {
    #[derive(Serialize)]
    struct Document<'a> {
        schema: u32,
        blocks: Vec<PageJson<'a>>,
    }
    let blocks = blocks
        .iter()
        .map(|d| page_json(&d.page, d.trace.as_deref(), opts))
        .collect();
    write::write_pretty(
        out,
        &Document {
            schema: versions::SHOW,
            blocks,
        },
    )
}

/// `show`'s JSON and NDJSON streamed, one block at a time, to the bytes
/// [`document`] writes (JSON of several inputs: the `blocks` array of
/// one). Nothing is written before [`JsonPages::start`], so that an input
/// that cannot be opened leaves no half document; no block is held, so
/// memory does not grow with the input.
#[derive(Default)]
pub(crate) struct JsonPages {
    /// Written at the start: the document's head (JSON) or the header line
    /// (NDJSON).
    head: Vec<u8>,
    /// Written at the end, after the array.
    tail: &'static [u8],
    /// The nesting depth of the `blocks` array; `None` when there is none
    /// (NDJSON, the other formats).
    depth: Option<usize>,
    started: bool,
    array: Option<write::ArrayWriter>,
}

impl JsonPages {
    /// The document of one input in `format`: JSON's `{"schema": N,
    /// "blocks": [...]}`, NDJSON's `{"schema": N}` line before the blocks'
    /// lines; nothing for the other formats.
    pub(crate) fn document(format: Format) -> Self {
        match format {
            Format::Json => JsonPages {
                head: format!("{{\n  \"schema\": {},\n  \"blocks\": ", versions::SHOW).into_bytes(),
                tail: b"\n}\n",
                depth: Some(1),
                ..JsonPages::default()
            },
            Format::Ndjson => JsonPages {
                head: header_line(),
                ..JsonPages::default()
            },
            _ => JsonPages::default(),
        }
    }

    /// The `blocks` array of one of several inputs, at nesting `depth`
    /// (its head written by the caller).
    pub(crate) fn nested(depth: usize) -> Self {
        JsonPages {
            depth: Some(depth),
            ..JsonPages::default()
        }
    }

    /// Write the head (once), and open the array.
    pub(crate) fn start(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        out.write_all(&self.head)?;
        if let Some(depth) = self.depth {
            self.array = Some(write::ArrayWriter::open(out, depth)?);
        }
        Ok(())
    }

    /// One more block.
    pub(crate) fn push(
        &mut self,
        out: &mut dyn Write,
        d: Decoded,
        opts: &Options,
    ) -> io::Result<()> {
        self.start(out)?;
        match &mut self.array {
            Some(array) => array.push(out, &page_json(&d.page, d.trace.as_deref(), opts)),
            None => page(out, &d, opts),
        }
    }

    /// End the array (`[]` when no block came) and the document.
    pub(crate) fn finish(mut self, out: &mut dyn Write) -> io::Result<()> {
        self.start(out)?;
        if let Some(array) = self.array.take() {
            array.close(out)?;
        }
        out.write_all(self.tail)
    }
}

/// The first line of `show --format ndjson`: `{"schema": N}`.
pub(crate) fn header_line() -> Vec<u8> {
    format!("{{\"schema\":{}}}\n", versions::SHOW).into_bytes()
}

/// The JSON value `show --format json` writes for `d`, read back from its
/// text (so it equals the value a golden file of it parses to, numbers
/// included).
pub(crate) fn page_value(d: &Decoded, opts: &Options) -> serde_json::Value {
    value_of(&page_json(&d.page, d.trace.as_deref(), opts))
}

/// `diff`'s JSON value of a block: [`page_value`], except that the heap
/// items of a PostgreSQL page split into columns are written without their
/// `attrs` (`true` then), which [`item_attrs`] makes one item at a time: a
/// page of 1.87 million columns is gigabytes as one JSON value.
pub(crate) fn page_value_without_attrs(d: &Decoded, opts: &Options) -> (serde_json::Value, bool) {
    let Page::Postgres(p) = &d.page else {
        return (page_value(d, opts), false);
    };
    let mut page = json::PgPageJson::from_page(p);
    let mut left_out = false;
    if let json::ItemsJson::Heap(items) = &mut page.items {
        for item in items.iter_mut() {
            left_out |= item.attrs.take().is_some();
        }
    }
    if !left_out {
        return (page_value(d, opts), false);
    }
    (value_of(&PageJson::Postgres(page)), true)
}

/// The `attrs` of the heap item `item` (its JSON object, by its `lp`) of a
/// block [`page_value_without_attrs`] left them out of, as the JSON text
/// [`page_value`] reads them from.
pub(crate) fn item_attrs(d: &Decoded, item: &serde_json::Value) -> Option<String> {
    let Page::Postgres(p) = &d.page else {
        return None;
    };
    let lp = item.get("lp")?.as_u64()?;
    let found = usize::try_from(lp)
        .ok()
        .and_then(|lp| p.items.get(lp.checked_sub(1)?))
        .filter(|i| u64::from(i.id.lp) == lp)
        .or_else(|| p.items.iter().find(|i| u64::from(i.id.lp) == lp))?;
    serde_json::to_string(&json::AttrsJson(found.attrs.as_deref()?)).ok()
}

/// The byte spans of a decoded block, taken out of it.
pub(crate) fn take_spans(d: &mut Decoded) -> Vec<crate::model::span::Span> {
    match &mut d.page {
        Page::Postgres(p) => std::mem::take(&mut p.spans),
        Page::Oracle(b) => std::mem::take(&mut b.spans),
        Page::OracleText(_) => Vec::new(),
    }
}

/// `v` as the JSON value its text reads back as (the text written, then
/// read: numbers and strings exactly as a JSON document gives them).
fn value_of<T: Serialize>(v: &T) -> serde_json::Value {
    let text = serde_json::to_string(v).unwrap_or_else(|_| "null".to_string());
    serde_json::from_str(&text).unwrap_or(serde_json::Value::Null)
}

/// One block's JSON line appended to `buf` (the parallel NDJSON path).
pub(crate) fn append_ndjson(buf: &mut Vec<u8>, page: &Page, opts: &Options) {
    match page {
        Page::Postgres(p) => ndjson::append_page_line(buf, p),
        Page::Oracle(_) | Page::OracleText(_) => {
            // Writing to a Vec cannot fail.
            let _ = write::write_line(buf, &page_json(page, None, opts));
        }
    }
}

/// The JSON of one block, whichever engine wrote it.
#[derive(Serialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum PageJson<'a> {
    Postgres(json::PgPageJson<'a>),
    Oracle(oracle_json::OracleBlockJson<'a>),
    OracleText(oracle_json::TraceTextJson<'a>),
}

fn page_json<'a>(page: &'a Page, trace: Option<&'a TraceOrigin>, opts: &Options) -> PageJson<'a> {
    match page {
        Page::Postgres(p) => PageJson::Postgres(json::PgPageJson::from_page(p)),
        Page::Oracle(b) => {
            PageJson::Oracle(oracle_json::OracleBlockJson::new(b, opts.bigfile, trace))
        }
        Page::OracleText(t) => {
            PageJson::OracleText(oracle_json::TraceTextJson::new(&t.text, &t.problems, trace))
        }
    }
}

/// The dump options for `d`: the command line's, completed by what the
/// block's surroundings say.
fn dump_options(d: &Decoded, opts: &Options) -> DumpOptions {
    let (base, f) = (opts.dump, d.facts);
    // Without `Start dump data blocks tsn:`, the cache header's `buffer tsn:`
    // (the same tablespace number: both print the buffer's tsn).
    let text = match &d.page {
        Page::OracleText(t) => Some(&t.text),
        _ => d.trace.as_ref().and_then(|t| t.text.as_ref()),
    };
    let buffer_tsn = text.and_then(|t| t.cache.as_ref()).map(|c| c.tsn);
    DumpOptions {
        version: base.version.or(f.version),
        tsn: base.tsn.or(f.tsn).or(buffer_tsn),
        file: base.file.or(f.file),
        buffer: base.buffer.or(f.buffer),
        address_digits: base.address_digits.or(f.address_digits),
        ..base
    }
}
