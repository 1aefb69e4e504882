//! `carve`: find pages and blocks in byte images and write them out by
//! relation.
//!
//! Each image is read once, [`CHUNK`] bytes at a time, each chunk in parts
//! read and probed on every core (each part read with the largest block
//! size more, so a page starting near its end is seen whole;
//! [`crate::engine::carve::scan`]). Only a small signature of each page
//! found is kept; when the groups are known ([`crate::engine::carve::plan`])
//! each page is read again from the image and written at its block number.
//! Inputs are opened read-only; `--out` may be neither an input nor hold one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rayon::prelude::*;

use crate::engine::carve::{plan, scan, wal, Hit, Planned, Wanted, MAX_BLOCK, STEP};
use crate::engine::Engine;
use crate::error::Error;
use crate::model::carve::CarveManifest;
use crate::render;
use crate::render::versions;
use crate::source::{open_file, read_at};

use super::progress::{self, Progress, ProgressMode};
use super::{is_broken_pipe, stdout_error, Sink};

/// Bytes probed per window (8 MiB): large reads, a few windows in memory.
pub(crate) const CHUNK: usize = 8 << 20;

/// What `carve` was asked to do.
#[derive(Clone, Debug)]
pub(crate) struct CarveConfig {
    /// The images, scanned one after the other.
    pub inputs: Vec<PathBuf>,
    /// `--out`: where the groups and manifest.json go; `None` with
    /// `--dry-run`: nothing is written.
    pub out: Option<PathBuf>,
    /// `--engine`; `None` looks for every engine's pages.
    pub engine: Option<Engine>,
    /// `--block-size`; `None` takes any size the pages announce.
    pub block_size: Option<usize>,
    /// When to draw the progress bar.
    pub progress: ProgressMode,
}

/// `carve` wired to the sink: the progress bar and notes on standard error,
/// the summary on the sink's output. Exit status 0 when pages were found,
/// 1 when none were.
pub(crate) fn run(config: &CarveConfig, sink: &mut Sink) -> Result<ExitCode, Error> {
    let mut progress = Terminal {
        mode: config.progress,
        progress: Progress::none(),
    };
    let manifest = carve(config, &mut progress)?;
    drop(progress);
    match render::carve::summary(sink.out(), &manifest, config.out.as_deref()) {
        Err(e) if is_broken_pipe(&stdout_error(e.kind().into())) => {}
        Err(e) => return Err(stdout_error(e)),
        Ok(()) => {}
    }
    Ok(if manifest.groups.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The progress bar and notes of a run on the terminal.
struct Terminal {
    mode: ProgressMode,
    progress: Progress,
}

impl CarveSink for Terminal {
    fn started(&mut self, total: u64) {
        self.progress = Progress::start(self.mode, total);
    }

    fn advanced(&mut self, bytes: u64) {
        self.progress.inc(bytes);
    }

    fn note(&mut self, line: &str) {
        progress::note(line);
    }
}

/// Where `carve` reports its progress and notes.
pub(crate) trait CarveSink {
    /// The run will read `total` bytes.
    fn started(&mut self, total: u64);
    /// `bytes` more were read and probed.
    fn advanced(&mut self, bytes: u64);
    /// A note for standard error (ends with a newline).
    fn note(&mut self, line: &str);
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Carve every input into `config.out` (with none, write nothing); the
/// manifest, as written.
pub(crate) fn carve(
    config: &CarveConfig,
    sink: &mut dyn CarveSink,
) -> Result<CarveManifest, Error> {
    let mut images = Vec::new();
    for path in &config.inputs {
        let file = open_file(path).map_err(io_error(path))?;
        if file.metadata().map_err(io_error(path))?.is_dir() {
            return Err(Error::Usage(format!(
                "{}: is a directory; carve reads images (files or block devices)",
                path.display()
            )));
        }
        let len = image_len(&file).map_err(io_error(path))?;
        images.push((path, file, len));
    }
    if let Some(out) = &config.out {
        prepare_out(&config.inputs, out)?;
    }
    let wanted = Wanted {
        engine: config.engine,
        block_size: config.block_size,
    };
    sink.started(images.iter().map(|(_, _, len)| len).sum());
    let mut manifest = CarveManifest {
        schema: versions::CARVE,
        groups: Vec::new(),
        wal: Vec::new(),
    };
    for (path, file, len) in &images {
        let hits = scan_image(file, *len, &wanted, path, sink);
        let read = |offset: u64, buf: &mut [u8]| read_at(file, buf, offset).unwrap_or(0);
        let mut image_wal = wal(&hits, &read);
        for (stretch, decoded) in image_wal.stretches.iter().zip(&image_wal.decoded) {
            for why in &decoded.unrestored {
                sink.note(&format!(
                    "blockscope: note: {}: WAL at offset {}: {why}; not restored\n",
                    path.display(),
                    stretch.offset
                ));
            }
        }
        for mut entry in image_wal.manifest() {
            entry.image = path.display().to_string();
            manifest.wal.push(entry);
        }
        let first_id = manifest.groups.len() as u32 + 1;
        for planned in plan(&hits, &mut image_wal, *len, first_id) {
            if let Some(out) = &config.out {
                write_group(file, path, out, &planned)?;
            }
            let mut group = planned.group;
            group.image = path.display().to_string();
            manifest.groups.push(group);
        }
    }
    let Some(out) = &config.out else {
        return Ok(manifest);
    };
    propose_columns(&mut manifest, out, sink);
    let at = out.join("manifest.json");
    let mut text = serde_json::to_string_pretty(&manifest).map_err(|e| Error::Io {
        path: at.clone(),
        source: io::Error::other(e),
    })?;
    text.push('\n');
    fs::write(&at, text).map_err(io_error(&at))?;
    Ok(manifest)
}

/// The size of a file or block device: where a seek to the end lands.
fn image_len(file: &File) -> io::Result<u64> {
    use std::io::Seek;
    let mut f = file;
    let len = f.seek(io::SeekFrom::End(0))?;
    f.seek(io::SeekFrom::Start(0))?;
    Ok(len)
}

/// Create `out` (empty, or new) and refuse it when it is an input, holds
/// one, or lies inside one.
fn prepare_out(inputs: &[PathBuf], out: &Path) -> Result<(), Error> {
    fs::create_dir_all(out).map_err(io_error(out))?;
    let out_real = fs::canonicalize(out).map_err(io_error(out))?;
    for input in inputs {
        let real = fs::canonicalize(input).map_err(io_error(input))?;
        if real == out_real || real.starts_with(&out_real) || out_real.starts_with(&real) {
            return Err(Error::Usage(format!(
                "--out {}: must not be an input, hold one or lie inside one ({})",
                out.display(),
                input.display()
            )));
        }
    }
    if fs::read_dir(out).map_err(io_error(out))?.next().is_some() {
        return Err(Error::Usage(format!(
            "--out {}: not empty; carve writes into a new or empty directory",
            out.display()
        )));
    }
    Ok(())
}

/// Every page and block found in one image, in image order.
///
/// The image is taken [`CHUNK`] bytes at a time; each chunk is cut into
/// parts (a multiple of [`STEP`] each), and every part is read (with up to
/// [`MAX_BLOCK`] bytes more) and probed by its own task, so the copying out
/// of the page cache is spread over the cores as the probing is. The
/// parts' buffers are allocated once.
fn scan_image(
    file: &File,
    len: u64,
    wanted: &Wanted,
    path: &Path,
    sink: &mut dyn CarveSink,
) -> Vec<Hit> {
    let mut hits: Vec<Hit> = Vec::new();
    let mut last_end = 0u64;
    let parts = rayon::current_num_threads().max(1) * 4;
    let part_max = CHUNK.div_ceil(parts).div_ceil(STEP) * STEP;
    let mut bufs: Vec<Vec<u8>> = (0..parts)
        .map(|_| vec![0u8; part_max + MAX_BLOCK])
        .collect();
    let mut offset = 0u64;
    while offset < len {
        let probe_len = usize::try_from(len - offset).map_or(CHUNK, |n| n.min(CHUNK));
        let part = probe_len.div_ceil(parts).div_ceil(STEP) * STEP;
        let found: Vec<io::Result<Vec<Hit>>> = bufs
            .par_iter_mut()
            .enumerate()
            .filter(|(p, _)| p * part < probe_len)
            .map(|(p, buf)| {
                let start = p * part;
                let end = (start + part).min(probe_len);
                let want = (part + MAX_BLOCK).min(buf.len());
                let n = read_at(file, &mut buf[..want], offset + start as u64)?;
                Ok(scan(wanted, &buf[..n], end - start, offset + start as u64))
            })
            .collect();
        let end = offset + probe_len as u64;
        if let Some(Err(e)) = found.iter().find(|r| r.is_err()) {
            // A failing disk: say which bytes were not read, go on.
            sink.note(&format!(
                "blockscope: note: {}: bytes {}..{} could not be read ({e}); skipped\n",
                path.display(),
                offset,
                end
            ));
        } else {
            for hit in found.into_iter().flatten().flatten() {
                // A page found inside one already found (across parts or
                // chunks) is part of it.
                if hit.offset() >= last_end {
                    last_end = hit.offset() + hit.len();
                    hits.push(hit);
                }
            }
        }
        sink.advanced(probe_len as u64);
        offset = end;
    }
    hits
}

/// Write one group: each page read again from the image and written at
/// `block × size`; holes left sparse (they read as zero pages).
fn write_group(
    image: &File,
    image_path: &Path,
    out: &Path,
    planned: &Planned,
) -> Result<(), Error> {
    let at = out.join(&planned.group.path);
    if let Some(dir) = at.parent() {
        fs::create_dir_all(dir).map_err(io_error(dir))?;
    }
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&at)
        .map_err(io_error(&at))?;
    let size = planned.size;
    let mut page = vec![0u8; size as usize];
    let mut end = 0;
    for (n, (&block, &offset)) in planned
        .group
        .blocks
        .iter()
        .zip(&planned.group.offsets)
        .enumerate()
    {
        if let Some(Some(image)) = planned.wal_pages.get(n) {
            // An empty page (none kept) stays a hole.
            if image.len() as u64 == size {
                write_at(&file, image, block * size).map_err(io_error(&at))?;
            }
            end = end.max((block + 1) * size);
            continue;
        }
        let n = read_at(image, &mut page, offset).map_err(io_error(image_path))?;
        if n < page.len() {
            return Err(Error::Io {
                path: image_path.to_path_buf(),
                source: io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the page at offset {offset} is no longer whole"),
                ),
            });
        }
        write_at(&file, &page, block * size).map_err(io_error(&at))?;
        end = end.max((block + 1) * size);
    }
    file.set_len(end).map_err(io_error(&at))?;
    let mut file = file;
    file.flush().map_err(io_error(&at))?;
    Ok(())
}

#[cfg(unix)]
fn write_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
}

#[cfg(windows)]
fn write_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        done +=
            std::os::windows::fs::FileExt::seek_write(file, &buf[done..], offset + done as u64)?;
    }
    Ok(())
}

/// Each written PostgreSQL heap group's proposed column list (`infer`, with
/// its TOAST group's file when one was linked); a group whose tuples give
/// no proposal keeps `null`, with a note.
fn propose_columns(manifest: &mut CarveManifest, out: &Path, sink: &mut dyn CarveSink) {
    let paths: Vec<(u32, String)> = manifest
        .groups
        .iter()
        .map(|g| (g.id, g.path.clone()))
        .collect();
    let path_of = |id: u32| {
        paths
            .iter()
            .find(|(g, _)| *g == id)
            .map(|(_, p)| out.join(p))
    };
    for group in &mut manifest.groups {
        if group.engine != "postgres" || group.kind != "heap" {
            continue;
        }
        let toast = group.toast.and_then(path_of);
        match super::infer::infer_file(&out.join(&group.path), toast.as_deref()) {
            Ok(p) if p.tuples > 0 => group.columns = Some(p.columns),
            Ok(_) => {}
            Err(e) => sink.note(&format!(
                "blockscope: note: {}: no column list proposed: {e}\n",
                crate::escape::path(&out.join(&group.path))
            )),
        }
    }
}
