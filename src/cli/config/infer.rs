//! `infer`'s arguments as a validated config.

use std::path::PathBuf;

use crate::commands::infer::{InferConfig, InferFormat};
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
    crate::cli::progress::note(&note);
    Ok(list)
}
