//! `decode`: one flag word, line pointer or Oracle value explained, every
//! bit by name. The values are read by [`crate::parse::decode`] and written
//! by [`crate::render::decode`]; this is the wiring.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use crate::error::Error;
use crate::parse::decode::explain;
use crate::render;

pub(crate) use crate::model::decode::Word;

use super::{stdout_error, Sink};

/// What `decode` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DecodeConfig {
    /// The kind of word the values are.
    pub(crate) word: Word,
    /// The values as given (an Oracle NUMBER's or DATE's are the bytes of one).
    pub(crate) values: Vec<String>,
    /// JSON instead of text.
    pub(crate) json: bool,
}

/// `decode`: every VALUE explained in turn (an Oracle NUMBER's or DATE's
/// VALUEs are the bytes of one value). Every value is checked before
/// anything is written: one bad value is a usage error and prints nothing.
pub(crate) fn run(cfg: &DecodeConfig, sink: &mut Sink) -> Result<ExitCode, Error> {
    let args = cfg;
    let bytes_of_one = matches!(args.word, Word::OracleNumber | Word::OracleDate);
    let explained = if bytes_of_one {
        vec![explain(args.word, &args.values.join(" "))?]
    } else {
        args.values
            .iter()
            .map(|v| explain(args.word, v))
            .collect::<Result<Vec<_>, Error>>()?
    };
    let mut out = BufWriter::new(sink.out());
    render::decode::write(&mut out, &explained, args.json).map_err(stdout_error)?;
    out.flush().map_err(stdout_error)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_goes_to_the_sink() {
        let mut buf = Vec::new();
        let cfg = DecodeConfig {
            word: Word::Infomask,
            values: vec!["0x0902".into()],
            json: true,
        };
        let code = run(&cfg, &mut Sink::to(&mut buf)).unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        let doc: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(doc["word"], "t_infomask");
        assert_eq!(doc["hex"], "0x0902");
        assert_eq!(doc["value"], 2306);
    }
}
