//! JSON writers shared by both engines' renderers and by verify's reports.

use std::io::{self, Write};

use serde::Serialize;

/// Pretty JSON of one value, newline-terminated.
pub(crate) fn write_pretty<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// The JSON document of a run: the object itself for one, an array for several.
pub(crate) fn write_document<T: Serialize>(out: &mut dyn Write, docs: &[T]) -> io::Result<()> {
    match docs {
        [one] => write_pretty(out, one),
        many => write_pretty(out, &many),
    }
}

/// One compact JSON line.
pub(crate) fn write_line<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
