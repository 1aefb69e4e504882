//! `map`: one picture of a whole file. The blocks are checked by `verify`'s
//! own per-block code (one pass, the same parallel windows and bounded
//! memory), each block's figures handed to [`crate::render::map`].
//!
//! A relation file's further segments (`16385.1`, `16385.2`…) are read
//! after it. Exit status: 0 clean, 1 when a block has errors (as `verify`
//! decides), 2 on usage and input errors.

use std::io::{self, BufWriter, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::cluster::Cluster;
use crate::engine::{verify_plan, Engine, VerifyPlan};
use crate::error::Error;
use crate::render::map::{MapFormat, MapOptions, MapPrinter, Shade};
use crate::verify::oracle::{verify_datafile, verify_trace, DatafileOptions, OracleInput};
use crate::verify::{self, ChecksumMode, VerifyOptions};

use super::inputs::{
    further_segments, handed_not_pages, not_pages_message, table_found_note, table_lookup_notes,
};
use super::progress::{self, Progress, ProgressMode, ProgressReport};
use super::relnames::{Namer, Naming};
use super::{is_broken_pipe, note_terminal_stdin, stdout_error, Sink};

/// What `map` was asked to do.
#[derive(Clone, Debug)]
pub(crate) struct MapConfig {
    /// A relation file, pages, a datafile or trace; `None` or `-`: stdin;
    /// with `table`, a data directory.
    pub(crate) input: Option<PathBuf>,
    /// `--engine`; `None` detects from the first block.
    pub(crate) engine: Option<Engine>,
    /// `--block-size`.
    pub(crate) block_size: Option<usize>,
    /// The picture's format.
    pub(crate) format: MapFormat,
    /// What the cells' shade shows.
    pub(crate) shade: Shade,
    /// Colour the terminal grid.
    pub(crate) color: bool,
    /// `--table`: a table found in a data directory's catalogs.
    pub(crate) table: Option<String>,
    /// `--database` of `--table`.
    pub(crate) database: Option<String>,
    /// `--checksums`.
    pub(crate) checksums: ChecksumMode,
    /// `--segment-size`.
    pub(crate) segment_size: Option<u64>,
    /// `--segment`.
    pub(crate) segment: Option<u64>,
    /// When to draw the progress bar.
    pub(crate) progress: ProgressMode,
}

impl MapConfig {
    /// The verify pass `map` runs: verify's per-block checks with the map's
    /// input options; `table_block_size` is the cluster's when `--table` found
    /// the relation.
    fn verify_options(&self, table_block_size: Option<usize>) -> VerifyOptions {
        VerifyOptions {
            block_size: self.block_size.or(table_block_size),
            segment_bytes: self.segment_size,
            segment: self.segment,
            checksums: self.checksums,
            evidence: false,
            deep: false,
            key_columns: None,
        }
    }
}

/// Run `map`.
pub(crate) fn run(cfg: &MapConfig, sink: &mut Sink) -> Result<ExitCode, Error> {
    let args = cfg;
    let progress_mode = cfg.progress;
    let (inputs, table) = match &args.table {
        Some(name) => {
            let t = table_inputs(args, name)?;
            if t.files.is_empty() {
                sink.note(&format!("blockscope: note: {} has no pages\n", t.title));
            }
            (t.files, Some((t.title, t.block_size)))
        }
        None => (inputs(args)?, None),
    };
    if inputs.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let engine = args.engine;
    // The file handed over is not pages at all: exit 2, as `show` gives.
    if let Some(first) = inputs.first() {
        if table.is_none() && engine.is_none() && handed_not_pages(first, args.block_size) {
            return Err(Error::Usage(not_pages_message(first)));
        }
    }
    let (plan, notes) = verify_plan(&inputs, engine)?;
    crate::engine::check_block_size(args.block_size, Some(plan.engine()))?;
    for (path, note) in notes {
        sink.note(&format!(
            "blockscope: note: {}: {note}\n",
            crate::escape::path(&path)
        ));
    }
    // The relation the file belongs to, when it is in a data directory
    // whose catalogs name it.
    let mut namer = Namer::default();
    let relation = match plan {
        VerifyPlan::Postgres => inputs.first().and_then(|p| namer.name(p)),
        VerifyPlan::Oracle(_) => None,
    };
    let is_tty = io::stdout().is_terminal();
    let opts = MapOptions {
        format: args.format,
        color: args.color,
        width: width(is_tty),
        shade: args.shade,
        title: match &table {
            Some((title, _)) => title.clone(),
            None => {
                let file = inputs
                    .first()
                    .map_or("-".to_string(), |p| verify::file_name(p));
                match &relation {
                    Some(r) => format!("{file} ({r})"),
                    None => file,
                }
            }
        },
    };
    let mut printer = MapPrinter::new(BufWriter::new(sink.out()), opts);
    printer.summary.relation = relation;
    let failed = match plan {
        VerifyPlan::Postgres => {
            let options = args.verify_options(table.as_ref().map(|t| t.1));
            let mut naming = Naming {
                inner: &mut printer,
                namer: &mut namer,
            };
            let mut report = ProgressReport::new(&mut naming, progress_mode);
            let run = verify::run(&inputs, &options, &mut report);
            drop(report);
            let summary = match run {
                Ok(summary) => summary,
                Err(e) if is_broken_pipe(&e) => return Ok(ExitCode::from(1)),
                Err(e) => return Err(e),
            };
            if let Some(why) = summary.nothing_verified.clone() {
                return Err(Error::Usage(why));
            }
            printer.summary.engine = "postgresql";
            printer.summary.block_size = summary.block_size;
            summary.failed()
        }
        VerifyPlan::Oracle(files) => {
            let mut clean = true;
            let progress = Progress::open(progress_mode, progress::datafile_bytes(&files));
            for (path, kind) in &files {
                let opts = DatafileOptions {
                    block_size: args.block_size,
                    ..DatafileOptions::default()
                };
                let report = &mut ProgressReport::sharing(&mut printer, &progress);
                let result = match kind {
                    OracleInput::Trace => verify_trace(path, None, false, report),
                    OracleInput::Datafile => verify_datafile(path, &opts, report),
                };
                let verdict = match result {
                    Ok(x) => x,
                    Err(e) if is_broken_pipe(&e) => return Ok(ExitCode::from(1)),
                    Err(e) => return Err(e),
                };
                clean &= verdict.summary.clean();
                printer.summary.block_size = verdict.block_size;
            }
            printer.summary.engine = "oracle";
            !clean
        }
    };
    printer.summary.files = inputs.iter().map(|p| verify::file_name(p)).collect();
    match printer.finish() {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(stdout_error(e)),
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The files to read: the input, and after a relation file's first segment
/// its further segments, as long as they follow one another.
fn inputs(args: &MapConfig) -> Result<Vec<PathBuf>, Error> {
    let Some(input) = args.input.clone().filter(|p| p.as_os_str() != "-") else {
        if args.input.is_none() {
            note_terminal_stdin();
        }
        return Ok(vec![PathBuf::from("-")]);
    };
    if input.is_dir() {
        return Err(Error::Usage(format!(
            "{}: a directory; map draws one relation or datafile: give its file (the further \
             segments N.1, N.2… are read with it), or a data directory's table with --table \
             SCHEMA.NAME",
            verify::file_name(&input)
        )));
    }
    let mut inputs = vec![input.clone()];
    if args.segment.is_some() {
        return Ok(inputs);
    }
    inputs.extend(further_segments(&input));
    Ok(inputs)
}

/// A data directory's table, as `--table` finds it in the catalogs.
struct TableFiles {
    /// Its segments that hold pages, in order.
    files: Vec<PathBuf>,
    /// `schema.name`, the picture's title.
    title: String,
    /// The cluster's block size (pg_control).
    block_size: usize,
}

/// `map DATADIR --table SCHEMA.NAME`: the table's main fork segments from
/// the catalogs, read offline as `show DATADIR --table` reads them; what
/// the lookup noted goes to standard error.
fn table_inputs(args: &MapConfig, name: &str) -> Result<TableFiles, Error> {
    let Some(datadir) = args.input.as_deref().filter(|p| p.is_dir()) else {
        return Err(Error::Usage(
            "--table needs a data directory as the input".into(),
        ));
    };
    let cluster = Cluster::open(datadir)?;
    let (info, database) = cluster
        .find_table_anywhere(args.database.as_deref(), name)
        .map_err(|e| Error::Usage(format!("{}: {e}", crate::escape::path(datadir))))?;
    progress::note(&format!(
        "{}\n",
        table_found_note(datadir, &info, &database, cluster.major())
    ));
    table_lookup_notes(datadir, &info.notes, &info);
    // The picture needs the files only: columns that could not be read
    // from pg_attribute do not stop it.
    if let Err(unread) = &info.columns {
        progress::note(&format!(
            "blockscope: note: {}: the pages of {}.{} are drawn without its columns: {}\n",
            crate::escape::path(datadir),
            crate::escape::name(&info.schema_name),
            crate::escape::name(&info.name),
            unread.causes.join("; ")
        ));
    }
    let files = info
        .main_segments
        .iter()
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
        .cloned()
        .collect();
    Ok(TableFiles {
        files,
        title: format!(
            "{}.{}",
            crate::escape::name(&info.schema_name),
            crate::escape::name(&info.name)
        ),
        block_size: cluster.block_size(),
    })
}

/// The terminal's width: `COLUMNS` when set, else what the terminal says,
/// else 80.
fn width(is_tty: bool) -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&w| w > 0)
        .or_else(|| {
            is_tty
                .then(|| comfy_table::Table::new().width())
                .flatten()
                .map(usize::from)
        })
        .unwrap_or(80)
        .min(1000)
}
