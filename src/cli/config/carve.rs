//! `carve`'s arguments turned into its config, once.

use std::path::PathBuf;

use crate::engine::Engine;
use crate::error::Error;

use super::super::args::CarveArgs;
use super::super::progress::ProgressMode;

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
    pub progress: ProgressMode,
}

impl CarveConfig {
    pub(crate) fn from_args(args: &CarveArgs) -> Result<CarveConfig, Error> {
        if let Some(size) = args.block_size {
            if !(1024..=32768).contains(&size) || !size.is_power_of_two() {
                return Err(Error::Usage(format!(
                    "--block-size {size}: expected a power of two from 1024 to 32768"
                )));
            }
        }
        Ok(CarveConfig {
            inputs: args.inputs.clone(),
            out: args.out.clone(),
            engine: args.engine.into(),
            block_size: args.block_size,
            progress: ProgressMode::from_args(&args.progress),
        })
    }
}
