//! JSON writers shared by both engines' renderers and by verify's reports.

use std::io::{self, Write};

use serde::Serialize;

/// Pretty JSON of one value, newline-terminated.
pub(crate) fn write_pretty<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// One compact JSON line.
pub(crate) fn write_line<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// Pretty JSON of one value as serde_json writes it `depth` levels deep
/// inside an enclosing document (every line after the first indented by two
/// spaces a level), without a trailing newline. JSON text never holds a raw
/// newline inside a string, so indenting after each newline is exact.
pub(crate) fn write_pretty_at<T: Serialize>(
    out: &mut dyn Write,
    value: &T,
    depth: usize,
) -> io::Result<()> {
    let mut indented = Indent { out, depth };
    serde_json::to_writer_pretty(&mut indented, value).map_err(io::Error::from)
}

/// Writes through, adding `depth` two-space indents after each newline.
struct Indent<'a> {
    out: &'a mut dyn Write,
    depth: usize,
}

impl Write for Indent<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let mut rest = buf;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            self.out.write_all(&rest[..=i])?;
            for _ in 0..self.depth {
                self.out.write_all(b"  ")?;
            }
            rest = &rest[i + 1..];
        }
        self.out.write_all(rest)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// A pretty JSON array written one element at a time, byte for byte as
/// serde_json's pretty printer writes the whole array: `[]` when empty,
/// else `[`, each element on its own lines one level deeper, `]`.
#[derive(Debug)]
pub(crate) struct ArrayWriter {
    /// Nesting depth of the array itself (0: the document).
    depth: usize,
    len: usize,
}

impl ArrayWriter {
    /// Writes `[`.
    pub(crate) fn open(out: &mut dyn Write, depth: usize) -> io::Result<Self> {
        out.write_all(b"[")?;
        Ok(ArrayWriter { depth, len: 0 })
    }

    /// One more element.
    pub(crate) fn push<T: Serialize>(&mut self, out: &mut dyn Write, value: &T) -> io::Result<()> {
        out.write_all(if self.len == 0 { b"\n" } else { b",\n" })?;
        for _ in 0..=self.depth {
            out.write_all(b"  ")?;
        }
        self.len += 1;
        write_pretty_at(out, value, self.depth + 1)
    }

    /// Writes `]` (after a newline and the array's indent when not empty).
    pub(crate) fn close(self, out: &mut dyn Write) -> io::Result<()> {
        if self.len > 0 {
            out.write_all(b"\n")?;
            for _ in 0..self.depth {
                out.write_all(b"  ")?;
            }
        }
        out.write_all(b"]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Doc {
        a: u32,
        list: Vec<Vec<u32>>,
        empty: Vec<u32>,
        s: &'static str,
    }

    fn doc(i: u32) -> Doc {
        Doc {
            a: i,
            list: vec![vec![1, 2], vec![]],
            empty: vec![],
            s: "x\ny",
        }
    }

    /// The streamed array is byte-identical to serde_json's pretty array.
    #[test]
    fn streamed_array_matches_serde_json() {
        for n in 0..4 {
            let docs: Vec<Doc> = (0..n).map(doc).collect();
            for depth in 0..3 {
                let mut streamed = Vec::new();
                let mut array = ArrayWriter::open(&mut streamed, depth).unwrap();
                for d in &docs {
                    array.push(&mut streamed, d).unwrap();
                }
                array.close(&mut streamed).unwrap();
                let whole = serde_json::to_string_pretty(&docs).unwrap();
                let whole = whole.replace('\n', &format!("\n{}", "  ".repeat(depth)));
                assert_eq!(
                    String::from_utf8(streamed).unwrap(),
                    whole,
                    "n={n} depth={depth}"
                );
            }
        }
    }
}
