//! TOAST reassembly: the chunks of out-of-line values, read from the TOAST
//! relation's own files.
//!
//! A TOAST relation is a heap of tuples (chunk_id oid, chunk_seq int4,
//! chunk_data bytea). A value is every chunk whose chunk_id is the pointer's
//! `va_valueid`, concatenated in chunk_seq order (0, 1, 2, …; on disk they
//! may come in any order). The concatenation must be exactly the pointer's
//! external size; when the pointer says compressed it is `va_tcinfo` followed
//! by the compressed data.
//!
//! Opening the files builds an index — value id → (sequence number, block,
//! line pointer) of each chunk — without keeping chunk data. Fetching reads
//! the blocks again (raw files by seeking, text dumps from memory), so memory
//! stays proportional to the number of chunks, not to their size.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::input::InputFormat;
use crate::model::postgres::{PageKind, ToastPointer};
use crate::model::types::Column;
use crate::reader::Endian;
use crate::source::Source;

use super::attrs::{self, Slot, MAX_VALUE_BYTES};
use super::page::{parse_page, PageOptions};

/// Where one chunk tuple lives.
#[derive(Clone, Copy, Debug)]
struct ChunkLoc {
    seq: i32,
    file: usize,
    block: u64,
    lp: u16,
    len: usize,
    /// xmax not set (or its deleter rolled back): the current version.
    live: bool,
}

enum Pages {
    /// A raw relation file: blocks are read again by seeking.
    Raw { path: PathBuf },
    /// A text dump, decoded: its blocks kept in memory.
    Memory(Vec<Vec<u8>>),
}

struct ToastFile {
    pages: Pages,
    block_size: usize,
}

/// One chunk tuple decoded.
struct Chunk {
    id: u32,
    seq: i32,
    data: Vec<u8>,
    live: bool,
}

/// The chunks of a TOAST relation, indexed by value id.
pub struct ToastStore {
    files: Vec<ToastFile>,
    index: HashMap<u32, Vec<ChunkLoc>>,
    /// Chunk tuples found.
    pub chunks: usize,
    /// Last block read: (file, block, bytes).
    cache: Option<(usize, u64, Vec<u8>)>,
}

impl ToastStore {
    /// Index the chunks in `paths` (one relation: its segment files, or page
    /// images of it in any input format blockscope reads).
    pub fn open(paths: &[PathBuf], block_size: Option<usize>) -> Result<ToastStore, Error> {
        let mut store = ToastStore {
            files: Vec::new(),
            index: HashMap::new(),
            chunks: 0,
            cache: None,
        };
        let columns = attrs::toast_columns();
        for path in paths {
            if path.as_os_str() == "-" {
                return Err(Error::Usage(
                    "--toast needs a file (standard input cannot be read twice)".into(),
                ));
            }
            let source = Source::open(Some(path), InputFormat::Auto, block_size)?;
            let raw = source.format == InputFormat::Raw;
            let block_size = source.block_size;
            let file_no = store.files.len();
            let mut kept = Vec::new();
            for block in source.blocks() {
                let block = block?;
                for (lp, chunk) in chunks_of(&block.data, block.index, &columns) {
                    store.chunks += 1;
                    store.index.entry(chunk.id).or_default().push(ChunkLoc {
                        seq: chunk.seq,
                        file: file_no,
                        block: block.index,
                        lp,
                        len: chunk.data.len(),
                        live: chunk.live,
                    });
                }
                if !raw {
                    kept.push(block.data);
                }
            }
            store.files.push(ToastFile {
                pages: if raw {
                    Pages::Raw { path: path.clone() }
                } else {
                    Pages::Memory(kept)
                },
                block_size,
            });
        }
        Ok(store)
    }

    /// How many distinct values have chunks.
    pub fn values(&self) -> usize {
        self.index.len()
    }

    /// The external bytes of the value `p` points to (`extsize` bytes, still
    /// compressed if the pointer says so) and how many chunks made them.
    pub fn fetch(&mut self, p: &ToastPointer) -> Result<(Vec<u8>, u32), String> {
        let extsize = p.extsize as usize;
        if extsize > MAX_VALUE_BYTES {
            return Err(format!(
                "TOAST value {} is {extsize} bytes, over blockscope's limit of {MAX_VALUE_BYTES}",
                p.va_valueid
            ));
        }
        let Some(locs) = self.index.get(&p.va_valueid) else {
            return Err(format!(
                "TOAST value {}: no chunks with this chunk_id in the --toast files (relation {} expected)",
                p.va_valueid, p.va_toastrelid
            ));
        };
        // One location per sequence number: the live version when there are several.
        let mut by_seq: Vec<ChunkLoc> = Vec::new();
        let mut sorted = locs.clone();
        sorted.sort_by_key(|l| (l.seq, !l.live));
        for loc in sorted {
            if by_seq.last().is_none_or(|l| l.seq != loc.seq) {
                by_seq.push(loc);
            }
        }
        for (expected, loc) in by_seq.iter().enumerate() {
            if i64::from(loc.seq) != expected as i64 {
                return Err(format!(
                    "TOAST value {}: chunk {} is missing (found chunk_seq {} next)",
                    p.va_valueid, expected, loc.seq
                ));
            }
        }
        let total: usize = by_seq.iter().map(|l| l.len).sum();
        if total != extsize {
            return Err(format!(
                "TOAST value {}: {} chunks hold {total} bytes, the pointer says {extsize}",
                p.va_valueid,
                by_seq.len()
            ));
        }
        let columns = attrs::toast_columns();
        let mut out = Vec::with_capacity(extsize);
        for loc in &by_seq {
            let page = self.block(loc.file, loc.block)?;
            let chunk = chunks_of(page, loc.block, &columns)
                .into_iter()
                .find(|(lp, _)| *lp == loc.lp)
                .map(|(_, c)| c)
                .ok_or_else(|| {
                    format!(
                        "TOAST value {}: chunk {} at block {} lp {} is gone on re-reading",
                        p.va_valueid, loc.seq, loc.block, loc.lp
                    )
                })?;
            out.extend_from_slice(&chunk.data);
        }
        Ok((out, by_seq.len() as u32))
    }

    fn block(&mut self, file: usize, block: u64) -> Result<&[u8], String> {
        let cached = matches!(&self.cache, Some((f, b, _)) if *f == file && *b == block);
        if !cached {
            let f = self
                .files
                .get(file)
                .ok_or_else(|| format!("no --toast file number {file}"))?;
            let bytes = match &f.pages {
                Pages::Memory(pages) => usize::try_from(block)
                    .ok()
                    .and_then(|b| pages.get(b))
                    .cloned()
                    .ok_or_else(|| format!("block {block} is not in the --toast input"))?,
                Pages::Raw { path } => read_block(path, block, f.block_size)?,
            };
            self.cache = Some((file, block, bytes));
        }
        Ok(self
            .cache
            .as_ref()
            .map(|(_, _, b)| b.as_slice())
            .unwrap_or_default())
    }
}

fn read_block(path: &Path, block: u64, block_size: usize) -> Result<Vec<u8>, String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut f = File::open(path).map_err(err)?;
    f.seek(SeekFrom::Start(block.saturating_mul(block_size as u64)))
        .map_err(err)?;
    let mut buf = vec![0u8; block_size];
    f.read_exact(&mut buf).map_err(err)?;
    Ok(buf)
}

/// The chunk tuples of one TOAST page, by line pointer.
fn chunks_of(page: &[u8], blkno: u64, columns: &[Column]) -> Vec<(u16, Chunk)> {
    let parsed = parse_page(
        page,
        &PageOptions {
            blkno,
            ..PageOptions::default()
        },
    );
    if parsed.kind != PageKind::Heap {
        return Vec::new();
    }
    let mut out = Vec::new();
    for item in &parsed.items {
        let Some(t) = &item.tuple else { continue };
        let Some(data) =
            page.get(t.data_offset..usize::from(item.id.lp_off) + usize::from(item.id.lp_len))
        else {
            continue;
        };
        let bitmap = attrs::tuple_bitmap(page, &item.id, t);
        let (slots, _, err) = attrs::layout(data, usize::from(t.header.natts()), bitmap, columns);
        if err.is_some() {
            continue;
        }
        let field = |i: usize| match slots.get(i) {
            Some(&Slot::Present { off, len, .. }) => data.get(off..off + len),
            _ => None,
        };
        let (Some(id), Some(seq), Some(raw)) = (field(0), field(1), field(2)) else {
            continue;
        };
        let (Ok(id), Ok(seq)) = (<[u8; 4]>::try_from(id), <[u8; 4]>::try_from(seq)) else {
            continue;
        };
        let Ok(chunk) = attrs::plain_varlena_data(raw) else {
            continue;
        };
        const HEAP_XMAX_INVALID: u16 = 0x0800;
        let live = t.header.t_xmax == 0 || t.header.t_infomask & HEAP_XMAX_INVALID != 0;
        out.push((
            item.id.lp,
            Chunk {
                id: Endian::Little.read_u32(&id).unwrap_or_default(),
                seq: Endian::Little.read_i32(&seq).unwrap_or_default(),
                data: chunk.to_vec(),
                live,
            },
        ));
    }
    out
}
