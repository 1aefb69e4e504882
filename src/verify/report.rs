//! [`Report`]: where a `verify` run's findings go, in order, as they are
//! found — one trait for every engine's checker, implemented by the
//! renderers (verify's report, `map`) and by the progress bar around them.
//!
//! What differs per engine is the finding: a PostgreSQL run reports each
//! problem as it is found ([`VerifyProblem`], the default), an Oracle run
//! each failing block with its problems ([`BlockReport`], as DBVERIFY
//! reports them). A third engine names its own finding type and implements
//! its checker against `dyn Report<ItsFinding>`; the rest of the trait
//! (skipped inputs, per-block figures for `map`, progress) is shared.
//!
//! [`BlockReport`]: crate::model::oracle::verify::BlockReport

use std::io;
use std::path::PathBuf;

use crate::error::Error;
use crate::model::map::BlockFigures;
use crate::model::postgres::verify::{Skipped, VerifyProblem};

/// Where verify's findings go, in order, as they are found. `Finding` is
/// what the engine's checker reports (see the module documentation).
pub trait Report<Finding: ?Sized = VerifyProblem> {
    /// An input passed over (not a relation file). Default: nothing.
    fn skipped(&mut self, _skipped: &Skipped) -> io::Result<()> {
        Ok(())
    }
    /// A finding, in file and block order.
    fn problem(&mut self, finding: &Finding) -> io::Result<()>;
    /// Whether [`Report::block`] is wanted: the figures of every block are
    /// then gathered as it is checked (`map`). Default: no.
    fn wants_blocks(&self) -> bool {
        false
    }
    /// The figures of one block, in file and block order; only when
    /// [`Report::wants_blocks`] says so.
    fn block(&mut self, _figures: &BlockFigures) -> io::Result<()> {
        Ok(())
    }
    /// The run's files are known: `total_bytes` of them will be read
    /// (`None`: not known, standard input is among them; `verify --deep`
    /// counts each file twice, its second pass read again). For a progress
    /// bar; default: nothing.
    fn started(&mut self, _total_bytes: Option<u64>) {}
    /// `bytes` more of the files were read and their blocks reported, in
    /// order (a chunk of blocks at a time, never block by block).
    fn advanced(&mut self, _bytes: u64) {}
}

/// A report that could not be written (the output closed or failed): the
/// error that ends the run.
pub(crate) fn report_error(source: io::Error) -> Error {
    Error::Io {
        path: PathBuf::from("<stdout>"),
        source,
    }
}
