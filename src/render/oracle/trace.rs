//! What `show` prints around blocks read from an Oracle trace: the title
//! naming where the block was found, and the table of a block known only
//! from the trace's formatted text.

use std::io::{self, Write};

use serde_json::Value;

use crate::model::oracle::TextBlock;
use crate::model::page::TraceOrigin;

/// `trace block 5/907 (line 12), rebuilt from the hex at line 40 and …`.
pub(crate) fn title(t: &TraceOrigin) -> String {
    format!(
        "trace block {}{} (line {}){}",
        t.label,
        t.copy
            .map_or(String::new(), |c| format!(", {} copy", c.as_str())),
        t.line,
        match (t.hex_line, &t.text) {
            (Some(h), Some(_)) =>
                format!(", rebuilt from the hex at line {h} and cross-checked with the text"),
            (Some(h), None) => format!(", rebuilt from the hex at line {h} (no formatted text)"),
            (None, _) => ", formatted text only (no hex section)".to_string(),
        }
    )
}

/// A text-only block as a two-column table: every field the text carries,
/// by its path (`header.itls[0].kxidusn`); absent parts print `-`.
pub(crate) fn text_table(out: &mut dyn Write, text: &TextBlock) -> io::Result<()> {
    fn walk(path: &str, v: &Value, rows: &mut Vec<(String, String)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(&p, x, rows);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(&format!("{path}[{i}]"), x, rows);
                }
            }
            Value::Null => rows.push((path.to_string(), "-".into())),
            Value::String(s) => rows.push((path.to_string(), s.clone())),
            other => rows.push((path.to_string(), other.to_string())),
        }
    }
    let v = serde_json::to_value(text).map_err(io::Error::from)?;
    let mut rows = Vec::new();
    walk("", &v, &mut rows);
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    t.set_header(vec!["field (from the trace text)", "value"]);
    for (k, x) in rows {
        t.add_row(vec![k, x]);
    }
    writeln!(out, "{t}")
}
