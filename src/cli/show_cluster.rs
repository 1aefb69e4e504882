//! `show` of what a data directory holds besides pages: `global/pg_control`
//! and `pg_filenode.map` files, and `show DATADIR --table SCHEMA.NAME`, a
//! table found through the catalogs and decoded with their columns.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use serde_json::json;

use crate::engine::cluster::{cluster_file, Cluster, ClusterFile};
use crate::engine::ColumnSpec;
use crate::error::Error;
use crate::input::InputFormat;
use crate::parse::postgres::catalog::mapped_relation_name;
use crate::render::postgres::cluster::{write_control, write_relmap};
use crate::render::Format;

use super::config::{ShowConfig, TableSpec};
use super::stdout_error;

/// `show` of a pg_control or pg_filenode.map file in table, JSON or NDJSON
/// form; `None` when the input is not one (or another format was asked:
/// then it is shown as bytes like any input). Exit 1 when its CRC is wrong.
pub(crate) fn run_cluster_file(cfg: &ShowConfig) -> Result<Option<ExitCode>, Error> {
    let Some(path) = cfg.input.as_deref().filter(|p| p.as_os_str() != "-") else {
        return Ok(None);
    };
    let format = cfg.output.format;
    if !matches!(cfg.input_format, InputFormat::Auto | InputFormat::Raw)
        || cfg.engine.is_some()
        || cfg.kind.is_some()
        || !matches!(format, Format::Table | Format::Json | Format::Ndjson)
    {
        return Ok(None);
    }
    let file = match cluster_file(path) {
        None => return Ok(None),
        Some(Ok(f)) => f,
        Some(Err(e)) => return Err(Error::Usage(format!("{}: {e}", path.display()))),
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let name = path.display().to_string();
    let ok = match &file {
        ClusterFile::Control(image) => {
            match format {
                Format::Table => write_control(&mut out, image).map_err(stdout_error)?,
                _ => write_json(
                    &mut out,
                    format,
                    &json!({"file": name, "pg_control": image}),
                )?,
            }
            image.crc_ok
        }
        ClusterFile::RelMap(map) => {
            match format {
                Format::Table => {
                    write_relmap(&mut out, map, &mapped_relation_name).map_err(stdout_error)?
                }
                _ => {
                    let mappings: Vec<_> = map
                        .mappings
                        .iter()
                        .map(|m| {
                            json!({
                                "mapoid": m.mapoid,
                                "mapfilenumber": m.mapfilenumber,
                                "relname": mapped_relation_name(m.mapoid),
                            })
                        })
                        .collect();
                    let doc = json!({
                        "file": name,
                        "pg_filenode_map": {
                            "magic": map.magic,
                            "num_mappings": map.num_mappings,
                            "max_mappings": map.max_mappings,
                            "mappings": mappings,
                            "crc": map.crc,
                            "crc_computed": map.crc_computed,
                            "crc_ok": map.crc_ok,
                        }
                    });
                    write_json(&mut out, format, &doc)?
                }
            }
            map.crc_ok
        }
    };
    out.flush().map_err(stdout_error)?;
    Ok(Some(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }))
}

fn write_json(out: &mut dyn Write, format: Format, doc: &serde_json::Value) -> Result<(), Error> {
    let text = if format == Format::Ndjson {
        serde_json::to_string(doc)
    } else {
        serde_json::to_string_pretty(doc)
    }
    .map_err(|e| Error::Usage(e.to_string()))?;
    writeln!(out, "{text}").map_err(stdout_error)
}

/// `show DATADIR --table SCHEMA.NAME`: the table's segments decoded one
/// after the other as one document, with the catalog's columns and the TOAST table; what the
/// lookup noted goes to standard error.
pub(crate) fn run_table(cfg: &ShowConfig, table: &TableSpec) -> Result<ExitCode, Error> {
    let Some(datadir) = cfg.input.as_deref().filter(|p| p.is_dir()) else {
        return Err(Error::Usage(
            "--table needs a data directory as the input".into(),
        ));
    };
    let cluster = Cluster::open(datadir)?;
    let info = cluster
        .find_table(&table.database, &table.name)
        .map_err(|e| Error::Usage(format!("{}: {e}", datadir.display())))?;
    let mut err = io::stderr().lock();
    let _ = writeln!(
        err,
        "blockscope: note: {}: {}.{} in database {} (oid {}): PostgreSQL {}, file {}, {} columns{}",
        datadir.display(),
        info.schema_name,
        info.name,
        table.database,
        info.oid,
        cluster.major(),
        info.main_segments
            .first()
            .map_or_else(|| "(none)".to_string(), |p| p.display().to_string()),
        info.columns.columns.len(),
        match &info.toast_segments {
            Some(t) if !t.is_empty() => format!(", TOAST {}", t[0].display()),
            _ => String::new(),
        }
    );
    for n in &info.notes {
        let _ = writeln!(err, "blockscope: note: {}: {n}", datadir.display());
    }
    drop(err);
    let nonempty: Vec<_> = info
        .main_segments
        .iter()
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
        .collect();
    if nonempty.is_empty() {
        let _ = writeln!(
            io::stderr(),
            "blockscope: note: {}.{} has no pages",
            info.schema_name,
            info.name
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut segments = Vec::with_capacity(nonempty.len());
    for seg in nonempty {
        let mut c = cfg.clone();
        c.table = None;
        c.input = Some(seg.clone());
        c.input_format = InputFormat::Raw;
        c.block_size = Some(cluster.block_size());
        c.columns = Some(ColumnSpec::Resolved(info.columns.clone()));
        c.toast = info.toast_segments.clone().unwrap_or_default();
        c.inputs = vec![seg.clone()];
        segments.push(c);
    }
    super::show::show_segments(&segments)
}
