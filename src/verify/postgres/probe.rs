//! What the inputs say before their blocks are checked: whether the cluster
//! has data checksums (`--checksums auto`: pg_control, else the first page
//! with a checksum), the page size their pages announce, its pg_control,
//! and whether a file found in a walk holds pages at all.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::error::Error;
use crate::model::postgres::verify::{ChecksumVerdict, PgControlSummary};
use crate::model::postgres::{PD_TLI_MAX, SIZE_OF_PAGE_HEADER};
use crate::parse::postgres::checksum::pg_checksum_page;
use crate::parse::postgres::control::{parse_control_file, ControlFile};
use crate::parse::postgres::{detect_endian, page_size_from_header};
use crate::source::{open_file, read_at, DEFAULT_BLOCK_SIZE};
use crate::verify::files::{file_name, input_len, io_error};

use super::block::{announced_in, stored_checksum, ANNOUNCE_BYTES};
use super::text::text_pages;
use super::walk::Target;

/// Whether to verify data checksums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChecksumMode {
    /// Verify every written page; pd_checksum 0 on one is a failure.
    On,
    /// Do not verify checksums (a cluster initialised without them, or one
    /// whose checksums were disabled: its pages keep stale values).
    Off,
    /// The cluster has checksums if any written page of the inputs has a
    /// non-zero pd_checksum (pages of a cluster without checksums all hold 0).
    /// Files are probed header by header until one is found; standard input
    /// is decided by its first chunk.
    Auto,
}

/// Blocks whose headers are read one by one before the checksum probe goes parallel.
const PROBE_SEQUENTIAL: u64 = 64;

/// Whether to verify data checksums, and why: as `mode` says, else as
/// pg_control says (`control`, when a data directory's was read), else as
/// the pages say — standard input's first window (`stdin_head`) or the
/// files' headers.
pub(super) fn checksum_verdict(
    mode: ChecksumMode,
    control: Option<&ControlFile>,
    stdin_head: Option<&[u8]>,
    targets: &[Target],
    block_size: usize,
    blocks_per_segment: u64,
) -> Result<ChecksumVerdict, Error> {
    let given = |enabled, reason: &str| ChecksumVerdict {
        enabled,
        reason: reason.to_string(),
    };
    match mode {
        ChecksumMode::On => return Ok(given(true, "--checksums on")),
        ChecksumMode::Off => return Ok(given(false, "--checksums off")),
        ChecksumMode::Auto => {}
    }
    let from_control = control.and_then(|c| match c.data_checksum_version {
        0 | 1 => Some(ChecksumVerdict {
            enabled: c.data_checksum_version == 1,
            reason: format!(
                "pg_control: data_checksum_version {}",
                c.data_checksum_version
            ),
        }),
        // In-progress states of newer releases: let the pages decide.
        _ => None,
    });
    if let Some(verdict) = from_control {
        Ok(verdict)
    } else if let Some(head) = stdin_head {
        Ok(probe_stdin_head(head, block_size))
    } else {
        probe_files(targets, block_size, blocks_per_segment)
    }
}

/// `--checksums auto` over files: the first written page with a non-zero
/// pd_checksum, probing headers in file order.
fn probe_files(
    targets: &[Target],
    block_size: usize,
    blocks_per_segment: u64,
) -> Result<ChecksumVerdict, Error> {
    let saw_tli = AtomicBool::new(false);
    for target in targets {
        let Target::File {
            path,
            segment,
            walked,
        } = target
        else {
            continue;
        };
        let first_blkno = segment.saturating_mul(blocks_per_segment);
        let probe = FileProbe {
            path,
            first_blkno,
            block_size,
            saw_tli: &saw_tli,
        };
        if let Some(verdict) = probe.run(*walked)? {
            return Ok(verdict);
        }
    }
    if saw_tli.load(Ordering::Relaxed) {
        return Ok(ChecksumVerdict {
            enabled: false,
            reason: "auto: no written page has a checksum; small values that fail it are \
                     pd_tli, the timeline pages written before PostgreSQL 9.3 hold there"
                .to_string(),
        });
    }
    Ok(ChecksumVerdict {
        enabled: false,
        reason: "auto: no written page has pd_checksum set, as in a cluster without data checksums"
            .to_string(),
    })
}

/// The checksum probe of one file.
struct FileProbe<'a> {
    path: &'a Path,
    /// Block number of the file's first block.
    first_blkno: u64,
    block_size: usize,
    /// Set when a small pd_checksum failed as a checksum: pd_tli.
    saw_tli: &'a AtomicBool,
}

impl FileProbe<'_> {
    /// The verdict when some page of the file has a checksum; `None` when
    /// none has (or the file cannot be read: its blocks report that).
    fn run(&self, walked: bool) -> Result<Option<ChecksumVerdict>, Error> {
        let path = self.path;
        let Ok(file) = open_file(path) else {
            return Ok(None);
        };
        let Ok(len) = file.metadata().and_then(|m| input_len(&file, &m)) else {
            return Ok(None);
        };
        // A file found in a walk is raw pages or not pages.
        if !walked {
            if let Some((data, _)) = text_pages(path, &file, len, self.block_size, &mut None)? {
                // A text dump of pages: its decoded pages decide.
                return Ok(self.text_dump(&data));
            }
        }
        let blocks = len / self.block_size as u64;
        let mut found = None;
        for block in 0..blocks.min(PROBE_SEQUENTIAL) {
            if self.has_checksum(&file, block).map_err(io_error(path))? {
                found = Some(block);
                break;
            }
        }
        if found.is_none() && blocks > PROBE_SEQUENTIAL {
            found = (PROBE_SEQUENTIAL..blocks)
                .into_par_iter()
                .map(|b| self.has_checksum(&file, b).map(|yes| yes.then_some(b)))
                .find_first(|r| !matches!(r, Ok(None)))
                .transpose()
                .map_err(io_error(path))?
                .flatten();
        }
        Ok(found.map(|block| ChecksumVerdict {
            enabled: true,
            reason: format!(
                "auto: block {} of {} has pd_checksum set",
                self.first_blkno + block,
                file_name(path)
            ),
        }))
    }

    /// The verdict of a text dump's decoded pages.
    fn text_dump(&self, data: &[u8]) -> Option<ChecksumVerdict> {
        let i = data
            .chunks_exact(self.block_size)
            .position(|page| stored_checksum(page).is_some_and(|c| c != 0))?;
        Some(ChecksumVerdict {
            enabled: true,
            reason: format!(
                "auto: page {i} of {} (a text dump) has pd_checksum set",
                file_name(self.path)
            ),
        })
    }

    /// Whether block `block` of `file` has a checksum: a pd_checksum above
    /// the largest pd_tli, or a smaller one that the page's bytes bear out.
    fn has_checksum(&self, file: &File, block: u64) -> io::Result<bool> {
        let at = block * self.block_size as u64;
        let mut head = [0u8; SIZE_OF_PAGE_HEADER];
        let Ok(n) = read_at(file, &mut head, at) else {
            return Ok(false);
        };
        let stored = match stored_checksum(&head) {
            Some(c) if n == head.len() && c != 0 => c,
            _ => return Ok(false),
        };
        if stored > PD_TLI_MAX {
            return Ok(true);
        }
        // A small value may be pd_tli, the timeline pages written before
        // PostgreSQL 9.3 hold there: evidence of checksums only if it is one.
        let mut page = vec![0u8; self.block_size];
        let Ok(n) = read_at(file, &mut page, at) else {
            return Ok(false);
        };
        let blkno = self.first_blkno + block;
        let valid = n == self.block_size
            && pg_checksum_page(&page, blkno, detect_endian(&page)) == Some(stored);
        if !valid {
            self.saw_tli.store(true, Ordering::Relaxed);
        }
        Ok(valid)
    }
}

fn probe_stdin_head(head: &[u8], block_size: usize) -> ChecksumVerdict {
    let found = head
        .chunks_exact(block_size)
        .position(|page| stored_checksum(page).is_some_and(|c| c != 0));
    match found {
        Some(i) => ChecksumVerdict {
            enabled: true,
            reason: format!("auto: block {i} of standard input has pd_checksum set"),
        },
        None => ChecksumVerdict {
            enabled: false,
            reason: format!(
                "auto: no written page in the first {} blocks of standard input has pd_checksum set",
                head.len() / block_size
            ),
        },
    }
}

/// The page size the first file among `targets` whose pages announce one
/// announces (raw or text dump); `None` when none does.
pub(super) fn announced_block_size(targets: &[Target]) -> Option<usize> {
    targets.iter().find_map(|target| {
        let Target::File { path, walked, .. } = target else {
            return None;
        };
        let file = open_file(path).ok()?;
        let len = file.metadata().and_then(|m| input_len(&file, &m)).ok()?;
        if !walked {
            if let Ok(Some((data, _))) = text_pages(path, &file, len, DEFAULT_BLOCK_SIZE, &mut None)
            {
                return announced_in(&data);
            }
        }
        let mut head = vec![0u8; (len.min(ANNOUNCE_BYTES as u64)) as usize];
        let n = read_at(&file, &mut head, 0).ok()?;
        head.truncate(n);
        announced_in(&head)
    })
}

/// A file found in a walk that holds no page: at least one whole block,
/// and none of them all zeros or announcing a `block_size`-byte page of
/// layout version 4. What its first bytes look like, for the message;
/// `None` when some block is a page (or cannot be read: its blocks report
/// that). Reads blocks until one is a page: a relation whose first blocks
/// are damaged costs a read of those only.
pub(super) fn not_pages(file: &File, len: u64, block_size: usize) -> Option<String> {
    let whole = len / block_size as u64;
    if whole == 0 {
        return None;
    }
    let mut buf = vec![0u8; block_size * 8];
    let mut first = Vec::new();
    let mut block = 0u64;
    while block < whole {
        let count = (whole - block).min(8) as usize;
        let bytes = &mut buf[..count * block_size];
        let n = read_at(file, bytes, block * block_size as u64).ok()?;
        if n < bytes.len() {
            return None; // shrank while read: checked as it is
        }
        if first.is_empty() {
            first = bytes[..64.min(n)].to_vec();
        }
        let is_page = |page: &[u8]| {
            page.iter().all(|&b| b == 0) || page_size_from_header(page) == Some(block_size)
        };
        if bytes.chunks_exact(block_size).any(is_page) {
            return None;
        }
        block += count as u64;
    }
    let printable = first
        .iter()
        .all(|&b| b == b'\n' || b == b'\r' || b == b'\t' || (0x20..0x7f).contains(&b));
    let head: String = first.iter().map(|&b| char::from(b)).collect();
    let line = head.lines().next().unwrap_or_default();
    Some(if printable {
        format!("it begins as text: {line:?}")
    } else {
        format!(
            "it begins with bytes {}",
            first[..16.min(first.len())]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        )
    })
}

/// A data directory's pg_control, read and checked (see [`parse_control_file`]).
pub(super) fn read_control(path: &Path) -> (String, Result<ControlFile, String>) {
    let file = file_name(path);
    let parsed = open_file(path)
        .and_then(|mut f| {
            let mut bytes = Vec::new();
            // pg_control is one 8 KiB file: read no more than a block can be.
            (&mut f).take(1 << 16).read_to_end(&mut bytes)?;
            Ok(bytes)
        })
        .map_err(|e| format!("cannot read it: {e}"))
        .and_then(|bytes| parse_control_file(&bytes));
    (file, parsed)
}

pub(super) fn control_summary(
    file: &str,
    control: &Result<ControlFile, String>,
) -> PgControlSummary {
    match control {
        Ok(c) => PgControlSummary {
            file: file.to_string(),
            used: true,
            state: Some(c.state_name().to_string()),
            shut_down: Some(c.shut_down()),
            data_checksum_version: Some(c.data_checksum_version),
            block_size: Some(c.blcksz),
            blocks_per_segment: Some(c.relseg_size),
            error: None,
        },
        Err(e) => PgControlSummary {
            file: file.to_string(),
            used: false,
            state: None,
            shut_down: None,
            data_checksum_version: None,
            block_size: None,
            blocks_per_segment: None,
            error: Some(e.clone()),
        },
    }
}
