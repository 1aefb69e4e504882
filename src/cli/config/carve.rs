//! `carve`'s arguments turned into its config, once.

use crate::commands::carve::CarveConfig;
use crate::commands::progress::ProgressMode;
use crate::error::Error;

use super::super::args::CarveArgs;

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
