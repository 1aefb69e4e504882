//! Reassembly of dumps whose lines carry offsets: od, xxd and hexdump.
//!
//! Each format parses its own lines into [`DumpLine`]s, validating them, and feeds
//! them one by one to an [`Assembler`], which places the bytes. The first offset is
//! the start of the dump. A `*` line means the line before it repeats until the
//! next offset; a bare offset ends the dump. Every other offset must be exactly
//! where the bytes before it end.
//!
//! Tools that print words (`od -x`, `od -t x2`/`x4`/`x8`, plain `hexdump`,
//! `hexdump -x`, `xxd -e`) print each in the machine's byte order, little-endian
//! on the machines people paste from (x86, ARM): the bytes of every word are
//! read back swapped. od and hexdump pad a file's last word with zero bytes and
//! end with its true length, which cuts the padding off again.
//!
//! An assembler can also run dry, checking the offsets without keeping any bytes:
//! od uses that to find the radix of its offsets before decoding for real.

use super::text::{excerpt, hex_pair, hex_run, hex_val, is_space, parse_number, Line};
use super::{InputError, InputFormat};

/// What one line of a dump says.
pub(super) enum DumpKind<'a> {
    /// A line of bytes: the offset's digits, the hex area (already checked to be
    /// whole hex pairs, possibly separated by whitespace) and how many bytes it
    /// holds. `word` is how many bytes each whitespace-separated group holds when
    /// the groups are little-endian words (their bytes swapped back), else 0.
    Data {
        offset: &'a [u8],
        hex: &'a [u8],
        count: usize,
        word: usize,
    },
    /// `*`: the previous line repeats up to the next offset.
    Repeat,
    /// A bare offset: the end of the dump.
    End { offset: &'a [u8] },
}

pub(super) struct DumpLine<'a> {
    pub line: Line<'a>,
    pub kind: DumpKind<'a>,
}

/// The ASCII column that may follow the hex pairs of an od or hexdump -C line.
pub(super) struct AsciiColumn {
    pub open: u8,
    pub close: u8,
    /// hexdump -C always prints it; od only with `-t x1z`.
    pub required: bool,
}

/// Parse the line shape od and hexdump share: `*`; a bare offset ending the
/// dump; or an offset, whitespace-separated hex pairs (or little-endian words
/// of 2, 4 or 8 bytes, all alike: `od -x`, `od -t x4`, plain `hexdump`) and an
/// optional ASCII column holding one character per byte (the padding of a
/// file's last word has none). `expected` says what a line looks
/// like, for the error when the offset is missing; `bad_pair` what must follow
/// it, for the error on a token that is not a hex pair.
pub(super) fn parse_offset_line<'a>(
    line: Line<'a>,
    format: InputFormat,
    expected: &str,
    bad_pair: &str,
    ascii: &AsciiColumn,
) -> Result<DumpLine<'a>, InputError> {
    let t = line.text;
    if t == b"*" {
        return Ok(DumpLine {
            line,
            kind: DumpKind::Repeat,
        });
    }
    let digits = hex_run(t);
    let offset = t.get(..digits).unwrap_or(&[]);
    let rest = line.rest(digits);
    if digits == 0 || rest.first().is_some_and(|&b| !is_space(b)) {
        return Err(line.error(format, 0, format!("{expected}, found {}", excerpt(t))));
    }
    if rest.is_empty() {
        return Ok(DumpLine {
            line,
            kind: DumpKind::End { offset },
        });
    }
    // The ASCII column starts at its opening character: no hex pair holds one.
    let (hex_part, column) = match rest.iter().position(|&b| b == ascii.open) {
        Some(p) => (rest.get(..p).unwrap_or(&[]), rest.get(p..)),
        None if ascii.required => {
            return Err(line.error(
                format,
                t.len(),
                format!(
                    "expected the ascii column \"{}...{}\" after the hex bytes, found the end of the line (a truncated line?)",
                    ascii.open as char, ascii.close as char
                ),
            ))
        }
        None => (rest, None),
    };
    let mut count = 0usize;
    let mut col = digits;
    // The width of the first group sets the word size of the line.
    let width = hex_part
        .split(|&b| is_space(b))
        .find(|c| !c.is_empty())
        .map_or(2, <[u8]>::len);
    let width = if matches!(width, 4 | 8 | 16) {
        width
    } else {
        2
    };
    for chunk in hex_part.split(|&b| is_space(b)) {
        if !chunk.is_empty() {
            let whole = chunk.len() == width && hex_run(chunk) == width;
            if !whole || (width == 2 && hex_pair(chunk).is_none()) {
                let what = if width == 2 {
                    bad_pair.to_string()
                } else {
                    format!("expected {width}-digit hex words like the first on the line")
                };
                return Err(line.error(
                    format,
                    col,
                    format!("{what}, found {}", excerpt(line.rest(col))),
                ));
            }
            count += width / 2;
        }
        col = col.saturating_add(chunk.len()).saturating_add(1);
    }
    let word = if width > 2 { width / 2 } else { 0 };
    if count == 0 {
        return Err(line.error(
            format,
            digits,
            format!(
                "expected hex byte pairs after the offset, found {}",
                excerpt(rest)
            ),
        ));
    }
    if let Some(column) = column {
        let inner = column
            .strip_prefix(&[ascii.open])
            .and_then(|a| a.strip_suffix(&[ascii.close]));
        // A last word padded with zero bytes has characters for the real
        // bytes only.
        let fits = inner.is_some_and(|i| {
            i.len() == count || (word > 1 && i.len() < count && i.len() > count - word)
        });
        if !fits {
            return Err(line.error(
                format,
                t.len().saturating_sub(column.len()),
                format!(
                    "expected an ascii column of {count} characters between '{}' and '{}', found {} (a truncated line?)",
                    ascii.open as char,
                    ascii.close as char,
                    excerpt(column)
                ),
            ));
        }
    }
    Ok(DumpLine {
        line,
        kind: DumpKind::Data {
            offset,
            hex: hex_part,
            count,
            word,
        },
    })
}

/// `value` written like `like`: same radix, zero-padded to the same width.
fn format_offset(value: u64, radix: u32, like: &[u8]) -> String {
    let width = like.len();
    match radix {
        8 => format!("{value:0width$o}"),
        16 => format!("{value:0width$x}"),
        _ => format!("{value:0width$}"),
    }
}

fn radix_name(radix: u32) -> &'static str {
    match radix {
        8 => "octal",
        16 => "hex",
        _ => "decimal",
    }
}

/// Append the bytes of a checked hex area; with `swap`, each
/// whitespace-separated group is a little-endian word whose bytes are
/// appended in reverse.
fn push_hex_area(hex: &[u8], swap: bool, out: &mut Vec<u8>) {
    for group in hex.split(|&b| is_space(b)).filter(|g| !g.is_empty()) {
        let from = out.len();
        let mut high: Option<u8> = None;
        for value in group.iter().filter_map(|&b| hex_val(b)) {
            match high.take() {
                Some(h) => out.push(h << 4 | value),
                None => high = Some(value),
            }
        }
        if swap {
            if let Some(bytes) = out.get_mut(from..) {
                bytes.reverse();
            }
        }
    }
}

/// Places the bytes of a dump's lines, fed in order.
pub(super) struct Assembler<'a> {
    format: InputFormat,
    radix: u32,
    limit: u64,
    input_len: usize,
    /// The bytes so far; `None` in a dry run, which only checks the offsets.
    out: Option<Vec<u8>>,
    /// How many bytes there are so far.
    len: u64,
    /// The first offset.
    base: Option<u64>,
    /// The widest line so far: a narrower line followed by more was cut short.
    width: usize,
    /// The previous line of bytes and its byte count.
    previous: Option<(Line<'a>, usize)>,
    /// The word size of the previous line when it held little-endian words.
    word: usize,
    /// A `*` line waiting for the offset that ends its run.
    repeat: Option<Line<'a>>,
    /// The bare end offset, once seen.
    end: Option<Line<'a>>,
}

impl<'a> Assembler<'a> {
    /// An assembler reading offsets in `radix` that expands `*` runs to at most
    /// `limit` bytes of output; `input_len` is only for messages.
    pub(crate) fn new(
        format: InputFormat,
        radix: u32,
        limit: u64,
        input_len: usize,
        dry: bool,
    ) -> Assembler<'a> {
        Assembler {
            format,
            radix,
            limit,
            input_len,
            out: if dry {
                None
            } else {
                Some(Vec::with_capacity(input_len / 3))
            },
            len: 0,
            base: None,
            width: 0,
            previous: None,
            word: 0,
            repeat: None,
            end: None,
        }
    }

    pub(crate) fn push(&mut self, dump_line: DumpLine<'a>) -> Result<(), InputError> {
        let format = self.format;
        let line = dump_line.line;
        if let Some(end) = &self.end {
            return Err(line.error(
                format,
                0,
                format!(
                    "expected nothing after the final offset on line {}, found {}",
                    end.no,
                    excerpt(line.text)
                ),
            ));
        }
        let offset_text = match dump_line.kind {
            DumpKind::Repeat => {
                if self.previous.is_none() {
                    return Err(line.error(
                        format,
                        0,
                        "expected a line of bytes before the '*' repeat line, found \"*\""
                            .to_string(),
                    ));
                }
                self.repeat = Some(line);
                return Ok(());
            }
            DumpKind::Data { offset, .. } | DumpKind::End { offset } => offset,
        };
        let Some(offset) = parse_number(offset_text, self.radix) else {
            return Err(line.error(
                format,
                0,
                format!(
                    "expected a {} offset of at most 64 bits, found {}",
                    radix_name(self.radix),
                    excerpt(offset_text)
                ),
            ));
        };
        let start = *self.base.get_or_insert(offset);
        let expected = start.saturating_add(self.len);
        let padding = expected.saturating_sub(offset);
        if matches!(dump_line.kind, DumpKind::End { .. })
            && self.repeat.is_none()
            && padding > 0
            && padding < self.word as u64
        {
            // od and hexdump pad the last word with zero bytes; the end offset
            // says how many of them are real.
            self.len -= padding;
            if let Some(out) = &mut self.out {
                out.truncate(out.len().saturating_sub(padding as usize));
            }
        } else if offset != expected {
            self.bridge(&line, offset, offset_text, expected)?;
        }
        self.repeat = None;
        match dump_line.kind {
            DumpKind::Data {
                hex, count, word, ..
            } => {
                if let Some(out) = &mut self.out {
                    push_hex_area(hex, word > 0, out);
                }
                self.word = word;
                self.len = self.len.saturating_add(count as u64);
                self.width = self.width.max(count);
                self.previous = Some((line, count));
            }
            _ => self.end = Some(line),
        }
        Ok(())
    }

    /// `offset` on `line` is not `expected`: fill a `*` run up to it, or fail.
    fn bridge(
        &mut self,
        line: &Line<'a>,
        offset: u64,
        offset_text: &[u8],
        expected: u64,
    ) -> Result<(), InputError> {
        let format = self.format;
        let shown = String::from_utf8_lossy(offset_text);
        let expected_text = format_offset(expected, self.radix, offset_text);
        if offset < expected {
            return Err(line.error(
                format,
                0,
                format!(
                    "offset {shown} on line {} goes backwards: expected offset {expected_text}",
                    line.no
                ),
            ));
        }
        let gap = offset - expected;
        match (&self.repeat, &self.previous) {
            (Some(star), Some((_, unit))) => {
                let unit = *unit as u64;
                let wanted = self.len.saturating_add(gap);
                if wanted > self.limit {
                    return Err(line.error(
                        format,
                        0,
                        format!(
                            "offset {shown} on line {} is implausibly far: filling the '*' run from line {} would make {wanted} bytes of output, more than the {} allowed for {} bytes of input",
                            line.no, star.no, self.limit, self.input_len
                        ),
                    ));
                }
                if unit == 0 || !gap.is_multiple_of(unit) {
                    return Err(line.error(
                        format,
                        0,
                        format!(
                            "offset {shown} on line {} does not end the '*' run from line {} after a whole number of repeated {unit}-byte lines: expected a multiple of {unit} bytes after offset {expected_text}",
                            line.no, star.no
                        ),
                    ));
                }
                if let Some(out) = &mut self.out {
                    let from = out.len().saturating_sub(unit as usize);
                    let repeated = out.get(from..).map(<[u8]>::to_vec).unwrap_or_default();
                    out.reserve(usize::try_from(gap).unwrap_or(0));
                    for _ in 0..gap / unit {
                        out.extend_from_slice(&repeated);
                    }
                }
                self.len = wanted;
                Ok(())
            }
            (_, Some((prev, count))) if *count < self.width => Err(prev.error(
                format,
                0,
                format!(
                    "expected {} bytes on line {} like the lines before it, found {count} (a truncated line?): the next offset is {shown}",
                    self.width, prev.no
                ),
            )),
            _ => Err(line.error(
                format,
                0,
                format!(
                    "offset {shown} on line {} skips {gap} bytes with no '*' line before it: expected offset {expected_text}",
                    line.no
                ),
            )),
        }
    }

    /// The bytes, once every line is in. A dry run gives no bytes.
    pub(crate) fn finish(self) -> Result<Vec<u8>, InputError> {
        if let Some(star) = self.repeat {
            return Err(star.error(
                self.format,
                0,
                format!(
                    "expected an offset line after the '*' repeat line {}, found the end of the input",
                    star.no
                ),
            ));
        }
        if self.len == 0 {
            return Err(InputError::whole(
                self.format,
                "expected lines of an offset followed by bytes, found no data".to_string(),
            ));
        }
        Ok(self.out.unwrap_or_default())
    }
}
