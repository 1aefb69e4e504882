//! `infer`'s arguments as a validated config.

use crate::commands::infer::{InferConfig, InferFormat};
use crate::commands::progress::ProgressMode;
use crate::error::Error;

use super::super::args::{InferArgs, InferFormatArg};

impl InferConfig {
    /// `infer FILE [--toast FILE] [--format …]`: the inputs must be files
    /// (not a directory, not standard input: the pages are read spread over
    /// the file).
    pub(crate) fn from_args(args: &InferArgs) -> Result<InferConfig, Error> {
        for (what, path) in [
            ("FILE", Some(&args.input)),
            ("--toast", args.toast.as_ref()),
        ] {
            if let Some(path) = path {
                if path.as_os_str() == "-" {
                    return Err(Error::Usage(format!(
                        "infer {what}: reads pages spread over a file; give a file, not standard input"
                    )));
                }
                super::not_special(what, path)?;
            }
        }
        Ok(InferConfig {
            input: args.input.clone(),
            toast: args.toast.clone(),
            format: match args.format {
                InferFormatArg::Text => InferFormat::Text,
                InferFormatArg::Json => InferFormat::Json,
            },
            progress: ProgressMode::from_args(&args.progress),
        })
    }
}
