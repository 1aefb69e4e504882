//! `infer`: a column list proposed for a heap relation whose catalog is
//! lost, and `--columns auto` for `show` and `export`.
//!
//! The pages are read spread over the file (at most
//! [`crate::parse::postgres::infer::MAX_PAGES`] of them, by position), so a
//! relation of any size costs the same few reads; the TOAST file's first
//! [`MAX_TOAST_PAGES`] pages are read when it is given. The progress bar
//! (`--progress`, `--quiet`) counts the bytes of those pages; by default it
//! is drawn on a terminal when the files hold 256 MiB or more.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::error::Error;
use crate::model::postgres::infer::Proposal;
use crate::parse::postgres::infer::{propose, MAX_PAGES};
use crate::parse::postgres::page_size_from_header;
use crate::render::postgres::infer as render;

use super::progress::{Progress, ProgressMode};
use super::Sink;

/// TOAST pages read at most (64 MiB of 8 KiB pages).
pub(crate) const MAX_TOAST_PAGES: usize = 8192;

/// How `infer` prints its proposal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InferFormat {
    /// The list, then the evidence as `#` lines.
    Text,
    /// One JSON document.
    Json,
}

/// What `infer` was asked to do.
#[derive(Clone, Debug)]
pub(crate) struct InferConfig {
    /// The heap relation file.
    pub input: PathBuf,
    /// Its TOAST relation file.
    pub toast: Option<PathBuf>,
    /// Text or JSON.
    pub format: InferFormat,
    /// When to draw the progress bar (`--progress`, `--quiet`).
    pub progress: ProgressMode,
}

/// Run `infer`, the proposal written to the sink's output: 0 the list
/// splits every tuple read, 1 some tuples do not split, 2 (an error) no heap
/// tuple at all.
pub(crate) fn run(cfg: &InferConfig, sink: &mut Sink) -> Result<ExitCode, Error> {
    let proposal = infer_with(&cfg.input, cfg.toast.as_deref(), cfg.progress)?;
    let name = crate::escape::path(&cfg.input).to_string();
    let mut out = BufWriter::new(sink.out());
    match cfg.format {
        InferFormat::Text => render::text(&mut out, &name, &proposal),
        InferFormat::Json => render::json(&mut out, &name, &proposal),
    }
    .and_then(|()| out.flush())
    .map_err(|source| Error::Io {
        path: PathBuf::from("<stdout>"),
        source,
    })?;
    Ok(if proposal.tuples_fitting == proposal.tuples {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `--columns auto`: the proposed list for `input` (its TOAST file the
/// first of `toast`) and the note that tells it on standard error.
pub(crate) fn auto_columns(input: &Path, toast: &[PathBuf]) -> Result<(String, String), Error> {
    let p = infer_file(input, toast.first().map(PathBuf::as_path))?;
    let note = format!(
        "blockscope: note: {}: --columns auto: {} (inferred from {} tuples of {} pages; \
         `blockscope infer` says why)\n",
        crate::escape::path(input),
        p.columns,
        p.tuples,
        p.pages_sampled
    );
    Ok((p.columns, note))
}

/// The proposal for a relation file and its TOAST file; an error if no
/// heap tuple is found.
pub(crate) fn infer_file(input: &Path, toast: Option<&Path>) -> Result<Proposal, Error> {
    infer_with(input, toast, ProgressMode::Off)
}

/// [`infer_file`] with the progress bar `mode` asks for: its total is the
/// bytes of the pages read, drawn (by default) when the files they are
/// spread over hold [`super::progress::THRESHOLD`] bytes or more.
fn infer_with(input: &Path, toast: Option<&Path>, mode: ProgressMode) -> Result<Proposal, Error> {
    let heap = Plan::of(input, MAX_PAGES)?;
    let toast_plan = toast
        .map(|path| Plan::of(path, MAX_TOAST_PAGES))
        .transpose()?;
    let plans = std::iter::once(&heap).chain(toast_plan.as_ref());
    let (files, reads) = plans.fold((0, 0), |(f, r), p| (f + p.len, r + p.read_bytes()));
    let progress = Progress::sampling(mode, files, reads);
    let pages = heap.read(&progress)?;
    let toast_pages = match &toast_plan {
        Some(plan) => plan.read(&progress)?,
        None => Pages {
            pages: Vec::new(),
            total: 0,
        },
    };
    drop(progress);
    let page_refs: Vec<&[u8]> = pages.pages.iter().map(Vec::as_slice).collect();
    let toast_refs: Vec<&[u8]> = toast_pages.pages.iter().map(Vec::as_slice).collect();
    let mut p = propose(&page_refs, &toast_refs);
    // The pages were already a spread over the file: say so in its terms.
    p.pages = pages.total;
    if toast_pages.total > toast_pages.pages.len() {
        p.notes.push(format!(
            "only the first {} of the TOAST file's {} pages were read",
            toast_pages.pages.len(),
            toast_pages.total
        ));
    }
    if p.tuples == 0 {
        return Err(Error::Usage(format!(
            "{}: no heap tuple in {} pages: nothing to infer columns from",
            crate::escape::path(input),
            pages.total
        )));
    }
    Ok(p)
}

/// Pages read from a file: at most `max`, spread evenly over it (the first
/// and last included) when it has more.
struct Pages {
    pages: Vec<Vec<u8>>,
    /// Whole pages in the file.
    total: usize,
}

/// The pages to read from one file, opened.
struct Plan<'a> {
    path: &'a Path,
    file: File,
    /// The file's length in bytes.
    len: u64,
    /// The page size its first page header gives (8192 when it gives none).
    size: u64,
    /// Whole pages in the file.
    total: usize,
    /// The pages read, by number.
    picks: Vec<usize>,
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl<'a> Plan<'a> {
    /// At most `max` pages of `path`, spread evenly over it.
    fn of(path: &'a Path, max: usize) -> Result<Plan<'a>, Error> {
        let io_err = io_error(path);
        let mut file: File = crate::source::open_file(path).map_err(&io_err)?;
        let len = file.metadata().map_err(&io_err)?.len();
        let mut head = [0u8; 24];
        let n = file.read(&mut head).map_err(&io_err)?;
        let size = page_size_from_header(&head[..n]).unwrap_or(8192) as u64;
        let total = (len / size) as usize;
        let picks: Vec<usize> = if total <= max {
            (0..total).collect()
        } else {
            let mut v: Vec<usize> = (0..max).map(|i| i * (total - 1) / (max - 1)).collect();
            v.dedup();
            v
        };
        Ok(Plan {
            path,
            file,
            len,
            size,
            total,
            picks,
        })
    }

    /// The bytes [`Plan::read`] reads.
    fn read_bytes(&self) -> u64 {
        self.picks.len() as u64 * self.size
    }

    /// The pages, each counted on `progress` as it is read.
    fn read(&self, progress: &Progress) -> Result<Pages, Error> {
        let io_err = io_error(self.path);
        let mut f = &self.file;
        let mut pages = Vec::with_capacity(self.picks.len());
        let mut next = u64::MAX;
        for &i in &self.picks {
            let at = i as u64 * self.size;
            if at != next {
                f.seek(SeekFrom::Start(at)).map_err(&io_err)?;
            }
            let mut page = vec![0u8; self.size as usize];
            f.read_exact(&mut page).map_err(&io_err)?;
            pages.push(page);
            progress.inc(self.size);
            next = at + self.size;
        }
        Ok(Pages {
            pages,
            total: self.total,
        })
    }
}

/// A `--columns` list as given, or for `auto` the list `infer` proposes for
/// `input` (with its TOAST file, the first of `toast`), told on stderr.
pub(crate) fn columns_list(
    list: &str,
    input: Option<&std::path::Path>,
    toast: &[PathBuf],
) -> Result<String, Error> {
    if !list.trim().eq_ignore_ascii_case("auto") {
        return Ok(list.to_string());
    }
    let Some(input) = input.filter(|p| p.as_os_str() != "-") else {
        return Err(Error::Usage(
            "--columns auto reads pages spread over a relation file; give a file, not standard input"
                .into(),
        ));
    };
    let (list, note) = crate::commands::infer::auto_columns(input, toast)?;
    super::progress::note(&note);
    Ok(list)
}
