//! Oracle traces (`alter system dump datafile N block M`): each block found
//! in the text becomes a [`Decoded`] — parsed from the bytes rebuilt from
//! its `Dump of memory` section and cross-checked against the formatted
//! text, or, when the trace carries only the text, kept as that text.

use crate::input::{InputError, InputFormat};
use crate::model::oracle::space::SpaceBody;
use crate::model::oracle::{OracleBlock, TextBlock};
use crate::model::{Problem, ProblemClass, Severity};
use crate::parse::oracle::trace::buffer::BlockCopy;
use crate::parse::oracle::trace::consistency::check_text;
use crate::parse::oracle::trace::crosscheck::{compare, compare_copies};
use crate::parse::oracle::trace::{read_trace, render_view};
use crate::parse::oracle::{parse_block, BlockOptions};
use crate::reader::Endian;

use super::{Decoded, DumpFacts, Page, TextPage, TraceOrigin};

/// Every block of trace `text`, in order. `endian` forces the byte order of
/// the hex words (`None` detects it per block and warns when nothing tells).
pub(crate) fn trace_pages(text: &[u8], endian: Option<Endian>) -> Result<Vec<Decoded>, InputError> {
    let mut pages = Vec::new();
    let blocks = read_trace(text, endian).map_err(|e| e.into_input(InputFormat::OracleTrace))?;
    let copies = compare_copies(&blocks);
    let id = |b: &crate::parse::oracle::trace::TraceBlock| b.block.map(|n| (b.file, n));
    let cached: Vec<_> = blocks
        .iter()
        .filter(|b| b.copy == Some(BlockCopy::Cache))
        .filter_map(id)
        .collect();
    for (tb, copy_problems) in blocks.into_iter().zip(copies) {
        let copy = tb
            .copy
            .filter(|c| *c == BlockCopy::Cache || id(&tb).is_some_and(|i| cached.contains(&i)));
        let blkno = u64::from(tb.block.unwrap_or(0));
        let mut origin = TraceOrigin {
            file: tb.file,
            block: tb.block,
            tsn: tb.tsn,
            line: tb.line,
            hex_line: tb.hex_line,
            hex_address: tb.hex_address,
            endian_confirmed: tb.endian_confirmed,
            label: tb.label(),
            text: None,
            notes: Vec::new(),
            copy,
        };
        let mut facts = DumpFacts {
            version: tb.text.as_ref().and_then(|t| t.version),
            tsn: tb.tsn,
            file: tb.file,
            buffer: tb.hex_address,
            address_digits: tb.address_digits,
        };
        if let Some(bytes) = tb.bytes {
            let mut parsed = parse_block(
                &bytes,
                &BlockOptions {
                    blkno,
                    endian: tb.endian,
                },
            );
            if endian.is_none() && !tb.endian_confirmed {
                parsed.problems.push(Problem::new(
                    Severity::Warning,
                    ProblemClass::Trace,
                    None,
                    "byte order",
                    format!(
                        "trace line {}: the rebuilt block's tail matches its header in neither \
                         byte order; read as little-endian (use --endian to choose)",
                        tb.hex_line.unwrap_or(tb.line)
                    ),
                ));
            }
            if let Some(t) = &tb.text {
                parsed.problems.extend(compare(&parsed, t));
                adopt_undo_records(&mut parsed, t);
            }
            parsed.problems.extend(copy_problems);
            // What the trace reader cut or merged (bounds, duplicate sections).
            for n in &tb.notes {
                parsed.problems.push(Problem::new(
                    Severity::Warning,
                    ProblemClass::Trace,
                    None,
                    "bounds",
                    n.clone(),
                ));
            }
            origin.text = tb.text;
            pages.push(Decoded {
                page: Page::Oracle(parsed),
                bytes,
                trace: Some(Box::new(origin)),
                facts,
            });
        } else if let Some(text) = tb.text {
            origin.notes = tb.notes;
            let view = render_view(&text, blkno);
            let mut problems = check_text(&text);
            problems.extend(copy_problems);
            if facts.buffer.is_none() {
                facts.buffer = view.as_ref().and_then(|v| {
                    let off = v.ktbbh.as_ref()?.payload_offset as u64;
                    text.data.as_ref()?.header_address.checked_sub(off)
                });
            }
            pages.push(Decoded {
                page: Page::OracleText(Box::new(TextPage {
                    text,
                    view,
                    problems,
                })),
                bytes: Vec::new(),
                trace: Some(Box::new(origin)),
                facts,
            });
        }
    }
    Ok(pages)
}

/// An undo block's records decode from the trace's text only (their byte
/// layout is not established): when the bytes' `Rec Offset` directory is
/// the text's, the text's records join the header and directory read from
/// the bytes, and `--format dump` prints them as the trace did.
fn adopt_undo_records(parsed: &mut OracleBlock, text: &TextBlock) {
    let Some(ts) = &text.space else {
        return;
    };
    if let (SpaceBody::UndoBlock(t), Some(SpaceBody::UndoBlock(b))) =
        (&ts.value, parsed.space.as_deref_mut())
    {
        if b.records.is_empty() && !t.records.is_empty() && b.offsets == t.offsets {
            b.records = t.records.clone();
            b.from_bytes = false;
        }
    }
}
