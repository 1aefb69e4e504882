//! The TOAST relation's files (`--toast`): the I/O half of TOAST reassembly.
//!
//! [`ToastStore::open`] reads each file once through [`Source`] (raw segment
//! files or page images in any input format blockscope reads), hands every
//! page to the parser's index ([`index_page`]), and keeps what is needed to
//! read a block again: the path of a raw file (blocks are read back by
//! seeking, so memory stays proportional to the number of chunks), or the
//! decoded pages of a text dump. The parser asks for blocks through
//! [`ToastPages`]; it never opens a file itself.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::input::InputFormat;
use crate::parse::postgres::toast::{ToastIndex, ToastPages, ToastStore};
use crate::parse::postgres::toast_page::index_page;
use crate::source::Source;

enum Pages {
    /// A raw relation file: blocks are read again by seeking.
    Raw { path: PathBuf, file: Option<File> },
    /// A text dump, decoded: its blocks kept in memory.
    Memory(Vec<Vec<u8>>),
}

struct ToastFile {
    pages: Pages,
    block_size: usize,
}

/// The `--toast` inputs, as [`ToastPages`].
struct ToastFiles {
    files: Vec<ToastFile>,
    /// The last raw block read: (file, block) and its bytes.
    cached: Option<(usize, u64)>,
    buf: Vec<u8>,
}

impl ToastPages for ToastFiles {
    fn page(&mut self, file: usize, block: u64) -> Result<&[u8], String> {
        let ToastFiles { files, cached, buf } = self;
        let f = files
            .get_mut(file)
            .ok_or_else(|| format!("no --toast file number {file}"))?;
        match &mut f.pages {
            Pages::Memory(pages) => usize::try_from(block)
                .ok()
                .and_then(|b| pages.get(b))
                .map(Vec::as_slice)
                .ok_or_else(|| format!("block {block} is not in the --toast input")),
            Pages::Raw { path, file: handle } => {
                if *cached != Some((file, block)) {
                    *cached = None;
                    read_block(path, handle, block, f.block_size, buf)?;
                    *cached = Some((file, block));
                }
                Ok(buf.as_slice())
            }
        }
    }
}

fn read_block(
    path: &Path,
    handle: &mut Option<File>,
    block: u64,
    block_size: usize,
    buf: &mut Vec<u8>,
) -> Result<(), String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let f = match handle {
        Some(f) => f,
        None => handle.insert(crate::source::open_regular(path).map_err(err)?),
    };
    f.seek(SeekFrom::Start(block.saturating_mul(block_size as u64)))
        .map_err(err)?;
    buf.clear();
    buf.resize(block_size, 0);
    f.read_exact(buf).map_err(err)
}

impl ToastStore {
    /// Index the chunks in `paths` (one relation: its segment files, or page
    /// images of it in any input format blockscope reads).
    pub fn open(paths: &[PathBuf], block_size: Option<usize>) -> Result<ToastStore, Error> {
        ToastStore::open_with(paths, block_size, Vec::new())
    }

    /// [`ToastStore::open`], and `extra` pages of the same relation held in
    /// memory (chunk tuples found elsewhere, in the WAL: `export --wal`),
    /// indexed after the files as one more input.
    pub fn open_with(
        paths: &[PathBuf],
        block_size: Option<usize>,
        extra: Vec<Vec<u8>>,
    ) -> Result<ToastStore, Error> {
        let mut index = ToastIndex::new();
        let mut files = Vec::new();
        for path in paths {
            if path.as_os_str() == "-" {
                return Err(Error::Usage(
                    "--toast needs a file (standard input cannot be read twice)".into(),
                ));
            }
            let mut source = Source::open(Some(path), InputFormat::Auto, block_size)?;
            source.detect_block_size(crate::parse::postgres::page_size_from_header);
            let raw = source.format == InputFormat::Raw;
            let block_size = source.block_size;
            let file_no = files.len();
            let mut kept = Vec::new();
            for block in source.blocks() {
                let block = block?;
                index_page(&mut index, file_no, block.index, &block.data);
                if !raw {
                    kept.push(block.data);
                }
            }
            files.push(ToastFile {
                pages: if raw {
                    Pages::Raw {
                        path: path.clone(),
                        file: None,
                    }
                } else {
                    Pages::Memory(kept)
                },
                block_size,
            });
        }
        if !extra.is_empty() {
            let file_no = files.len();
            for (block, page) in extra.iter().enumerate() {
                index_page(&mut index, file_no, block as u64, page);
            }
            files.push(ToastFile {
                block_size: extra.first().map_or(0, Vec::len),
                pages: Pages::Memory(extra),
            });
        }
        let pages = ToastFiles {
            files,
            cached: None,
            buf: Vec::new(),
        };
        Ok(ToastStore::new(index, Box::new(pages)))
    }
}
