//! `show` of what a data directory holds besides pages: `global/pg_control`
//! and `pg_filenode.map` files, and `show DATADIR --table SCHEMA.NAME`, a
//! table found through the catalogs and decoded with their columns.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use serde_json::json;

use crate::cluster::{
    cluster_file, column_item, shell_quote, AttrRead, Cluster, ClusterFile, TableInfo,
};
use crate::engine::{ColumnSpec, Engine};
use crate::error::Error;
use crate::input::InputFormat;
use crate::model::postgres::types::{Column, Schema};
use crate::parse::postgres::catalog::mapped_relation_name;
use crate::render::postgres::cluster::{write_control, write_relmap};
use crate::render::Format;

use super::config::{ShowConfig, TableSpec};
use crate::commands::inputs::{table_found_note, table_lookup_notes};
use crate::commands::progress;
use crate::commands::{stdout_error, Sink};

/// `show` of a pg_control or pg_filenode.map file in table, JSON or NDJSON
/// form; `None` when the input is not one (or another format was asked:
/// then it is shown as bytes like any input). Exit 1 when its CRC is wrong.
pub(crate) fn run_cluster_file(
    cfg: &ShowConfig,
    sink: &mut Sink,
) -> Result<Option<ExitCode>, Error> {
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
        Some(Err(e)) => return Err(Error::Usage(format!("{}: {e}", crate::escape::path(path)))),
    };
    let mut out = BufWriter::new(sink.out());
    let name = crate::escape::path(path).to_string();
    let ok = match &file {
        ClusterFile::Control(image) => {
            match format {
                Format::Table => write_control(&mut out, image).map_err(stdout_error)?,
                _ => write_json(
                    &mut out,
                    format,
                    &json!({
                        "schema": crate::render::versions::PG_CONTROL,
                        "file": name,
                        "pg_control": image,
                    }),
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
                        "schema": crate::render::versions::PG_FILENODE_MAP,
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

/// The segments `show DATADIR --table SCHEMA.NAME` decodes one after the
/// other as one document: one config each, with the catalog's columns and
/// the TOAST table; what the lookup noted goes to standard error. `None`
/// when the table has no pages.
pub(crate) fn table_segments(
    cfg: &ShowConfig,
    table: &TableSpec,
) -> Result<Option<TableSegments>, Error> {
    let Some(datadir) = cfg.input.as_deref().filter(|p| p.is_dir()) else {
        return Err(Error::Usage(
            "--table needs a data directory as the input".into(),
        ));
    };
    let cluster = Cluster::open(datadir)?;
    let (info, database) = cluster
        .find_table_anywhere(table.database.as_deref(), &table.name)
        .map_err(|e| Error::Usage(format!("{}: {e}", crate::escape::path(datadir))))?;
    let given = match &cfg.columns {
        Some(spec) => {
            match Engine::with_catalogs().columns(
                Some(spec),
                &[],
                cfg.block_size,
                Default::default(),
            )? {
                Some(crate::engine::Columns::Postgres { schema, .. }) => Some(schema),
                _ => None,
            }
        }
        None => None,
    };
    progress::note(&format!(
        "{}, {}{}\n",
        table_found_note(datadir, &info, &database, cluster.major()),
        match &info.columns {
            Ok(s) => format!("{} columns", s.columns.len()),
            Err(_) => "columns not all readable".to_string(),
        },
        match &info.toast_segments {
            Some(t) if !t.is_empty() => format!(", TOAST {}", crate::escape::path(&t[0])),
            _ => String::new(),
        }
    ));
    table_lookup_notes(datadir, &info.notes, &info);
    let mut err = io::stderr().lock();
    let (columns, fallback) = table_columns(
        &info,
        given,
        &crate::escape::path(datadir).to_string(),
        &mut err,
    )?;
    drop(err);
    let nonempty: Vec<_> = info
        .main_segments
        .iter()
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
        .collect();
    if nonempty.is_empty() {
        progress::note(&format!(
            "blockscope: note: {}.{} has no pages\n",
            crate::escape::name(&info.schema_name),
            crate::escape::name(&info.name)
        ));
        return Ok(None);
    }
    let mut segments = Vec::with_capacity(nonempty.len());
    for seg in nonempty {
        let mut c = cfg.clone();
        c.table = None;
        c.input = Some(seg.clone());
        c.input_format = InputFormat::Raw;
        c.block_size = Some(cluster.block_size());
        c.columns = Some(ColumnSpec::Resolved(columns.clone()));
        c.toast = info.toast_segments.clone().unwrap_or_default();
        c.inputs = vec![seg.clone()];
        segments.push(c);
    }
    Ok(Some(TableSegments {
        segments,
        incomplete: fallback || info.catalog_damaged(),
    }))
}

/// A table's segments to show, found with `--table`.
pub(crate) struct TableSegments {
    /// One config per segment file that holds pages, in order.
    pub(crate) segments: Vec<ShowConfig>,
    /// Catalog rows were not read (damaged, or columns given in their
    /// place): the run exits 1 whatever the pages say.
    pub(crate) incomplete: bool,
}

/// The columns to read a table found with `--table` with, and whether they
/// stand in for catalog rows that could not be read.
///
/// - The catalog's columns, when they were all read and none were given.
/// - Columns given with `--columns`/`--schema` replace the catalog's (the
///   user said what they are; a catalog can be readable and still not be
///   the one the pages were written with); a note says so, and where they
///   differ from the catalog's.
/// - When a pg_attribute row of the table (or the pg_type row of a
///   column's type) could not be read, the columns given are used instead,
///   with a warning naming the unreadable catalog rows (`true`: the caller
///   exits 1); without them, the error names those rows, lists the columns
///   that were read, and gives the command line to rerun with `--columns`.
pub(crate) fn table_columns(
    info: &TableInfo,
    given: Option<Schema>,
    datadir: &str,
    err: &mut dyn Write,
) -> Result<(Schema, bool), Error> {
    let table = format!(
        "{}.{}",
        crate::escape::name(&info.schema_name),
        crate::escape::name(&info.name)
    );
    match (&info.columns, given) {
        (Ok(catalog), None) => Ok((catalog.clone(), false)),
        (Ok(catalog), Some(given)) => {
            if !progress::quiet() {
                let _ = writeln!(
                    err,
                    "blockscope: note: {datadir}: the columns given replace the catalog's"
                );
            }
            if let Some(d) = first_difference(&catalog.columns, &given.columns) {
                let _ = writeln!(
                    err,
                    "blockscope: warning: {datadir}: the columns given differ from what \
                     pg_attribute says of {table}: {d}"
                );
            }
            Ok((given, false))
        }
        (Err(unread), Some(given)) => {
            let _ = writeln!(
                err,
                "blockscope: warning: {datadir}: {table}: {}; the columns given are used \
                 instead, with the files its pg_class row names",
                unread.causes.join("; "),
            );
            let given_live = given.columns.len();
            if let Some(n) = unread.relnatts.filter(|&n| n != given_live as i64) {
                let _ = writeln!(
                    err,
                    "blockscope: warning: {datadir}: pg_class.relnatts says {table} has {n} \
                     attributes (dropped ones included), the columns given are {given_live}"
                );
            }
            for (attnum, a) in &unread.attributes {
                let AttrRead::Read(item) = a else { continue };
                let Some(g) = given.columns.get(*attnum as usize - 1) else {
                    continue;
                };
                let read = crate::parse::postgres::schema::parse_columns(item)
                    .ok()
                    .and_then(|s| s.columns.into_iter().next());
                if read.is_some_and(|r| !same_type(&r, g)) {
                    let _ = writeln!(
                        err,
                        "blockscope: warning: {datadir}: attnum {attnum} of {table} is {item} in \
                         pg_attribute, given as {}",
                        column_item(g)
                    );
                }
            }
            Ok((given, true))
        }
        (Err(unread), None) => {
            let mut words: Vec<String> = std::env::args_os()
                .skip(1)
                .map(|a| shell_quote(&a.to_string_lossy()))
                .collect();
            words.insert(0, "blockscope".into());
            words.push("--columns".into());
            words.push(shell_quote(&unread.hint_list()));
            let read: Vec<String> = unread
                .attributes
                .iter()
                .map(|(attnum, a)| match a {
                    AttrRead::Read(item) => format!("  attnum {attnum}: {item}"),
                    AttrRead::Unreadable => format!("  attnum {attnum}: (unreadable)"),
                    AttrRead::TypeUnreadable {
                        name,
                        typid,
                        attlen,
                        attalign,
                    } => format!(
                        "  attnum {attnum}: {name} (type OID {typid} unreadable; attlen \
                         {attlen}, attalign {attalign})"
                    ),
                })
                .collect();
            Err(Error::Usage(format!(
                "{datadir}: {table}: {}\n\
                 its pg_class row was read (relnatts {}); its columns as pg_attribute has them:\n\
                 {}\n\
                 to read its files with the columns given by hand, replace each <…> below with \
                 the column's NAME TYPE (a dropped column: -:LEN:ALIGN) and run:\n  {}",
                unread.causes.join("; "),
                unread
                    .relnatts
                    .map_or_else(|| "unknown".to_string(), |n| n.to_string()),
                read.join("\n"),
                words.join(" ")
            )))
        }
    }
}

/// Whether two columns read tuples alike: dropped or not, length,
/// alignment and type (names are not compared: `--columns` may leave them out).
fn same_type(a: &Column, b: &Column) -> bool {
    a.dropped == b.dropped
        && a.attlen == b.attlen
        && a.align == b.align
        && (a.dropped || a.ty.as_ref().map(|t| &t.ty) == b.ty.as_ref().map(|t| &t.ty))
}

/// The first place where the columns given read tuples differently from the catalog's.
fn first_difference(catalog: &[Column], given: &[Column]) -> Option<String> {
    for (i, (c, g)) in catalog.iter().zip(given).enumerate() {
        if !same_type(c, g) {
            return Some(format!(
                "attnum {} is {} in pg_attribute, given as {}",
                i + 1,
                column_item(c),
                column_item(g)
            ));
        }
    }
    (catalog.len() != given.len()).then(|| {
        format!(
            "pg_attribute has {} attributes (dropped ones included), the columns given are {}",
            catalog.len(),
            given.len()
        )
    })
}
