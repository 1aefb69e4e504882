//! `carve`'s summary on standard output: pages found per engine and kind,
//! and where they were written.

use std::io::{self, Write};
use std::path::Path;

use crate::model::carve::CarveManifest;

/// One line per engine and kind (pages, groups), a line for the WAL pages
/// found (stretches, full-page images restored), then the manifest's path
/// (`dir`; `None`: a dry run, nothing written).
pub(crate) fn summary(
    out: &mut dyn Write,
    manifest: &CarveManifest,
    dir: Option<&Path>,
) -> io::Result<()> {
    // (engine, kind) → (pages, groups, duplicates), in order of first sight.
    let mut rows: Vec<(&str, &str, usize, usize, usize)> = Vec::new();
    for g in &manifest.groups {
        let row = match rows
            .iter_mut()
            .find(|r| r.0 == g.engine.as_str() && r.1 == g.kind.as_str())
        {
            Some(row) => row,
            None => {
                rows.push((&g.engine, &g.kind, 0, 0, 0));
                let last = rows.len() - 1;
                &mut rows[last]
            }
        };
        row.2 += g.blocks.len();
        row.3 += 1;
        row.4 += g.duplicates.len();
    }
    rows.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    for (engine, kind, pages, groups, dups) in &rows {
        let unit = match (*engine == "oracle", *pages == 1) {
            (true, true) => "block",
            (true, false) => "blocks",
            (false, true) => "page",
            (false, false) => "pages",
        };
        write!(
            out,
            "{engine:<8} {kind:<14} {pages:>9} {unit:<6} in {}",
            plural(*groups, "group", "groups")
        )?;
        if *dups > 0 {
            write!(out, ", {} older", plural(*dups, "copy", "copies"))?;
        }
        writeln!(out)?;
    }
    if !manifest.wal.is_empty() {
        let pages: u64 = manifest.wal.iter().map(|w| w.pages).sum();
        let fpis: u64 = manifest.wal.iter().map(|w| w.fpis).sum();
        let lost: u64 = manifest.wal.iter().map(|w| w.fpis_unrestored).sum();
        let unit = if pages == 1 { "page" } else { "pages" };
        write!(
            out,
            "{:<8} {:<14} {pages:>9} {unit:<6} in {}, {}",
            "postgres",
            "wal",
            plural(manifest.wal.len(), "stretch", "stretches"),
            plural(fpis as usize, "full-page image", "full-page images")
        )?;
        if lost > 0 {
            write!(out, " ({lost} not restored)")?;
        }
        writeln!(out)?;
    }
    if rows.is_empty() && manifest.wal.is_empty() {
        writeln!(out, "no pages or blocks found")?;
    }
    let groups = plural(manifest.groups.len(), "group", "groups");
    match dir {
        Some(dir) => writeln!(
            out,
            "{groups} written, listed in {}",
            dir.join("manifest.json").display()
        ),
        None => writeln!(out, "{groups} found (dry run: nothing written)"),
    }
}
