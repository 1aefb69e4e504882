//! Oracle traces (`alter system dump datafile N block M`): each block found
//! in the text becomes a [`Decoded`] — parsed from the bytes rebuilt from
//! its `Dump of memory` section and cross-checked against the formatted
//! text, or, when the trace carries only the text, kept as that text.

use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

use crate::input::{InputError, InputFormat};
use crate::model::oracle::space::SpaceBody;
use crate::model::oracle::{OracleBlock, TextBlock};
use crate::model::{Problem, ProblemClass, Severity};
use crate::parse::oracle::trace::buffer::BlockCopy;
use crate::parse::oracle::trace::consistency::check_text;
use crate::parse::oracle::trace::crosscheck::compare;
use crate::parse::oracle::trace::render_view;
use crate::parse::oracle::trace::split::{self, Found};
use crate::parse::oracle::{parse_block, BlockOptions};
use crate::reader::Endian;

use super::{Decoded, DumpFacts, Page, TextPage, TraceOrigin};

/// How many decoded blocks wait for the reader of a trace's blocks at most.
const AHEAD: usize = 2;

/// The blocks of an Oracle trace, decoded one at a time as they are asked
/// for: a thread reads the text a second time (after [`split::plan`] read it
/// whole) and decodes each block it finds, at most [`AHEAD`] ahead of the
/// reader, so that memory is bounded by a block, not by the trace.
pub(crate) struct TracePages {
    rx: Receiver<Decoded>,
    worker: Option<JoinHandle<()>>,
}

impl TracePages {
    /// Plan trace `text` (the whole text read once: a grammar error anywhere
    /// refuses it before a block is shown), then start decoding its blocks.
    /// `endian` forces the byte order of the hex words (`None` detects it per
    /// block and warns when nothing tells).
    pub(crate) fn open(text: Vec<u8>, endian: Option<Endian>) -> Result<TracePages, InputError> {
        let plan =
            split::plan(&text, endian).map_err(|e| e.into_input(InputFormat::OracleTrace))?;
        let (tx, rx) = sync_channel(AHEAD);
        let worker = std::thread::Builder::new()
            .name("trace".into())
            .spawn(move || {
                // The text was read without error once: it reads the same again.
                let _ = plan.each(&text, |found| match decode(found, endian) {
                    Some(d) => tx.send(d).is_ok(),
                    None => true,
                });
            })
            .map_err(|e| InputError {
                format: InputFormat::OracleTrace,
                line: None,
                offset: None,
                message: format!("cannot start the thread that decodes its blocks: {e}"),
            })?;
        let worker = Some(worker);
        Ok(TracePages { rx, worker })
    }
}

impl Iterator for TracePages {
    type Item = Decoded;

    fn next(&mut self) -> Option<Decoded> {
        match self.rx.recv() {
            Ok(d) => Some(d),
            Err(_) => {
                // Every block sent; a panic of the reader is this thread's.
                if let Some(Err(panic)) = self.worker.take().map(JoinHandle::join) {
                    std::panic::resume_unwind(panic);
                }
                None
            }
        }
    }
}

/// One block found in a trace, decoded (`None`: it has neither bytes nor
/// text).
fn decode(found: Found, endian: Option<Endian>) -> Option<Decoded> {
    let Found {
        block: tb,
        copy_problems,
        cached,
    } = found;
    Some({
        let copy = tb.copy.filter(|c| *c == BlockCopy::Cache || cached);
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
            Decoded {
                page: Page::Oracle(parsed),
                bytes,
                trace: Some(Box::new(origin)),
                facts,
            }
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
            Decoded {
                page: Page::OracleText(Box::new(TextPage {
                    text,
                    view,
                    problems,
                })),
                bytes: Vec::new(),
                trace: Some(Box::new(origin)),
                facts,
            }
        } else {
            return None;
        }
    })
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
