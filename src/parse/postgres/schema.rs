//! Column lists for the attribute decoder, from what users have at hand.
//!
//! `--columns` takes a comma-separated list; each item is
//!
//! ```text
//!  TYPE                     int4, varchar(20), numeric(10,2), text[], "timestamp with time zone"
//!  NAME TYPE                id int, "Some Col" text
//!  … default VALUE          the value of a column added later (attmissingval), for older tuples
//!  TYPE:LEN:ALIGN           a type blockscope does not print: its attlen and attalign (c/s/i/d)
//!  dropped:TYPE             a dropped column whose type is known (its bytes are shown, and decoded)
//!  -:LEN:ALIGN              a dropped column: attlen and attalign from pg_attribute
//!  generated:ITEM           a stored generated column (export leaves it out
//!                           unless --with-generated, as COPY … TO does)
//!  ~                        last item: ignore the rest of the attributes
//! ```
//!
//! `--schema FILE` reads the same items one per line (`#` comments), or JSON
//! (an array of `pg_attribute`-like objects, or an object with a `columns`
//! array such as blockscope's fixture files), or a psql table: `\d table`
//! output, or a query on pg_attribute printed aligned or with `-A`.

use crate::model::postgres::types::{Align, Column, PgType, Schema, TypeSpec};

/// Parse a `--columns` list.
pub fn parse_columns(list: &str) -> Result<Schema, String> {
    let mut schema = Schema::default();
    let items = split_top_level(list);
    let count = items.len();
    if count > MAX_HEAP_ATTRIBUTES + 1 {
        return Err(too_many(count));
    }
    for (i, item) in items.into_iter().enumerate() {
        let item = item.trim();
        if item == "~" {
            if i + 1 != count {
                return Err("`~` (ignore the rest) must be the last item".into());
            }
            schema.ignore_rest = true;
            continue;
        }
        if item.is_empty() {
            return Err(format!("item {} is empty", i + 1));
        }
        if item.eq_ignore_ascii_case("include") {
            if schema.key_columns.is_some() || schema.columns.is_empty() {
                return Err(
                    "`INCLUDE` (the index's INCLUDE columns follow) must come once, after a key column"
                        .into(),
                );
            }
            schema.key_columns = Some(schema.columns.len());
            continue;
        }
        let item = match strip_prefix_ignore_case(item, "generated:") {
            Some(rest) => {
                schema.generated.insert(schema.columns.len());
                rest.trim()
            }
            None => item,
        };
        schema
            .columns
            .push(parse_item(item).map_err(|e| format!("item {} ({item:?}): {e}", i + 1))?);
    }
    if schema.columns.is_empty() {
        return Err("no columns given".into());
    }
    if schema.columns.len() > MAX_HEAP_ATTRIBUTES {
        return Err(too_many(schema.columns.len()));
    }
    Ok(schema)
}

/// `s` without `prefix`, matched without regard to ASCII case.
fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| s.get(prefix.len()..))
        .flatten()
}

/// Split on commas outside parentheses, brackets and double quotes.
fn split_top_level(list: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    let mut quoted = false;
    for c in list.chars() {
        match c {
            '"' => quoted = !quoted,
            '(' | '[' if !quoted => depth += 1,
            ')' | ']' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                items.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    items.push(cur);
    items
}

/// One column description (see the module docs).
pub(crate) fn parse_item(item: &str) -> Result<Column, String> {
    let item = item.trim();
    // `... default VALUE`
    let (item, missing) = match find_ci(item, " default ") {
        Some(at) => {
            let value = item.get(at + 9..).unwrap_or_default().trim();
            (
                item.get(..at).unwrap_or_default().trim(),
                Some(unquote_literal(value)),
            )
        }
        None => (item, None),
    };
    let lower = item.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("dropped:") {
        let spec = item.get(item.len() - rest.len()..).unwrap_or_default();
        let mut col = match explicit_layout(spec) {
            Some((name, attlen, align)) if name.is_empty() || name == "-" => Column {
                name: None,
                ty: None,
                attlen,
                align,
                dropped: true,
                missing: None,
            },
            _ => {
                let ty = TypeSpec::parse(spec).ok_or_else(|| {
                    format!("unknown type {spec:?} for a dropped column; give -:LEN:ALIGN")
                })?;
                Column::of(None, ty)
            }
        };
        col.dropped = true;
        return Ok(col);
    }
    if let Some((name, attlen, align)) = explicit_layout(item) {
        if name == "-" {
            return Ok(Column {
                name: None,
                ty: None,
                attlen,
                align,
                dropped: true,
                missing: None,
            });
        }
        let (col_name, type_text) = split_name(name);
        let ty = match TypeSpec::parse(type_text) {
            Some(t) => t,
            None => TypeSpec {
                ty: PgType::Other {
                    name: type_text.to_string(),
                    attlen,
                    align,
                },
                typmod: None,
            },
        };
        return Ok(Column {
            name: col_name,
            ty: Some(ty),
            attlen,
            align,
            dropped: false,
            missing,
        });
    }
    let (name, ty) = name_and_type(item)?;
    let mut col = Column::of(name, ty);
    col.missing = missing;
    Ok(col)
}

/// `TYPE` alone, or `NAME TYPE`.
fn name_and_type(item: &str) -> Result<(Option<String>, TypeSpec), String> {
    if let Some(t) = TypeSpec::parse(item) {
        return Ok((None, t));
    }
    let (name, rest) = split_name(item);
    if name.is_some() {
        if let Some(t) = TypeSpec::parse(rest) {
            return Ok((name, t));
        }
    }
    Err(format!(
        "unknown type {rest:?}; give its length and alignment as TYPE:LEN:ALIGN (e.g. geometry:-1:d)"
    ))
}

/// Split a leading column name (bare word or "quoted") from the rest.
fn split_name(item: &str) -> (Option<String>, &str) {
    let item = item.trim();
    if let Some(rest) = item.strip_prefix('"') {
        if let Some(close) = rest.find('"') {
            let name = rest.get(..close).unwrap_or_default();
            let after = rest.get(close + 1..).unwrap_or_default();
            // `"char"` alone is a type name, not a quoted column name.
            if !after.trim().is_empty() {
                return (Some(name.to_string()), after.trim());
            }
        }
        return (None, item);
    }
    match item.split_once(char::is_whitespace) {
        Some((name, rest)) if !rest.trim().is_empty() => (Some(name.to_string()), rest.trim()),
        _ => (None, item),
    }
}

/// `SOMETHING:LEN:ALIGN` → (SOMETHING, LEN, ALIGN).
fn explicit_layout(item: &str) -> Option<(&str, i16, Align)> {
    let mut parts = item.rsplitn(3, ':');
    let align = parts.next()?.trim();
    let len = parts.next()?.trim();
    let rest = parts.next().unwrap_or("").trim();
    let mut chars = align.chars();
    let align = Align::from_char(chars.next()?.to_ascii_lowercase())?;
    if chars.next().is_some() {
        return None;
    }
    let attlen: i16 = len.parse().ok()?;
    if attlen == 0 || attlen < -2 {
        return None;
    }
    Some((rest, attlen, align))
}

fn find_ci(haystack: &str, needle: &str) -> Option<usize> {
    haystack.to_ascii_lowercase().find(needle)
}

/// `'text'` → `text` (SQL quoting), anything else as it is.
fn unquote_literal(v: &str) -> String {
    let v = v.trim();
    match v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
        Some(inner) => inner.replace("''", "'"),
        None => v.to_string(),
    }
}

/// `MaxHeapAttributeNumber` (htup_details.h): no PostgreSQL table has more
/// columns, dropped ones included.
pub(crate) const MAX_HEAP_ATTRIBUTES: usize = 1600;

/// The most text a schema file may have (1,600 `pg_attribute` rows as JSON
/// take well under a megabyte); a larger file is refused before it is read whole.
pub(crate) const MAX_SCHEMA_TEXT: u64 = 4 << 20;

fn too_many(count: usize) -> String {
    format!("{count} columns: a PostgreSQL table has at most {MAX_HEAP_ATTRIBUTES} (MaxHeapAttributeNumber)")
}

/// Parse a schema file's text (JSON, a psql table, or one item per line).
pub fn parse_schema(text: &str) -> Result<Schema, String> {
    let schema = parse_schema_text(text)?;
    if schema.columns.len() > MAX_HEAP_ATTRIBUTES {
        return Err(too_many(schema.columns.len()));
    }
    Ok(schema)
}

fn parse_schema_text(text: &str) -> Result<Schema, String> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        return parse_json(trimmed);
    }
    if text.lines().any(|l| l.contains('|')) {
        return parse_table(text);
    }
    let mut schema = Schema::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        let line = line.trim_end_matches(',');
        if line.is_empty() {
            continue;
        }
        if line == "~" {
            schema.ignore_rest = true;
            continue;
        }
        schema
            .columns
            .push(parse_item(line).map_err(|e| format!("line {}: {e}", n + 1))?);
    }
    if schema.columns.is_empty() {
        return Err("no columns found".into());
    }
    Ok(schema)
}

/// Build a column from pg_attribute-like fields.
fn catalog_column(
    name: Option<String>,
    type_text: Option<&str>,
    attlen: Option<i16>,
    attalign: Option<Align>,
    dropped: bool,
    missing: Option<String>,
) -> Result<Column, String> {
    let ty = type_text
        .filter(|t| !t.is_empty() && *t != "-")
        .and_then(TypeSpec::parse);
    let (attlen, align) = match (attlen, attalign, &ty) {
        (Some(l), Some(a), _) => (l, a),
        (_, _, Some(t)) => (t.ty.attlen(), t.ty.align()),
        _ => {
            return Err(format!(
                "column {}: type {:?} is not known and attlen/attalign are not given",
                name.as_deref().unwrap_or("?"),
                type_text.unwrap_or("")
            ))
        }
    };
    let ty = match (ty, type_text) {
        (Some(t), _) => Some(t),
        (None, Some(t)) if !dropped && !t.is_empty() => Some(TypeSpec {
            ty: PgType::Other {
                name: t.to_string(),
                attlen,
                align,
            },
            typmod: None,
        }),
        _ => None,
    };
    Ok(Column {
        name: name.filter(|n| !n.is_empty()),
        ty,
        attlen,
        align,
        dropped,
        missing,
    })
}

/// `attmissingval` as psql prints it: a one-element array literal.
fn missing_from_array(text: &str) -> String {
    let t = text.trim();
    let inner = t
        .strip_prefix('{')
        .and_then(|x| x.strip_suffix('}'))
        .unwrap_or(t);
    match inner.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        Some(q) => {
            let mut out = String::new();
            let mut esc = false;
            for c in q.chars() {
                if esc || c != '\\' {
                    out.push(c);
                    esc = false;
                } else {
                    esc = true;
                }
            }
            out
        }
        None => inner.to_string(),
    }
}

fn parse_json(text: &str) -> Result<Schema, String> {
    use serde_json::Value as J;
    let doc: J = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let list = match &doc {
        J::Array(a) => a,
        J::Object(o) => o
            .get("columns")
            .and_then(J::as_array)
            .ok_or("a JSON object needs a \"columns\" array")?,
        _ => return Err("expected a JSON array of columns".into()),
    };
    let str_of = |o: &serde_json::Map<String, J>, keys: &[&str]| -> Option<String> {
        keys.iter()
            .find_map(|k| o.get(*k).and_then(J::as_str).map(str::to_string))
    };
    let mut schema = Schema::default();
    for (i, item) in list.iter().enumerate() {
        let o = item
            .as_object()
            .ok_or_else(|| format!("column {}: expected an object", i + 1))?;
        if o.get("attnum").and_then(J::as_i64).is_some_and(|n| n <= 0) {
            continue;
        }
        let dropped = ["attisdropped", "dropped"]
            .iter()
            .find_map(|k| o.get(*k).and_then(J::as_bool))
            .unwrap_or(false);
        let attlen = o
            .get("attlen")
            .and_then(J::as_i64)
            .and_then(|l| i16::try_from(l).ok());
        let attalign = str_of(o, &["attalign", "align"])
            .and_then(|a| a.chars().next())
            .and_then(Align::from_char);
        let has_missing = o.get("atthasmissing").and_then(J::as_bool).unwrap_or(true);
        let missing = if has_missing {
            str_of(o, &["attmissingval", "missing", "default"]).map(|m| missing_from_array(&m))
        } else {
            None
        };
        let col = catalog_column(
            str_of(o, &["name", "attname", "column"]),
            str_of(o, &["type", "format_type", "typname", "data_type"]).as_deref(),
            attlen,
            attalign,
            dropped,
            missing,
        )
        .map_err(|e| format!("column {}: {e}", i + 1))?;
        schema.columns.push(col);
    }
    if schema.columns.is_empty() {
        return Err("no columns found".into());
    }
    Ok(schema)
}

/// psql table output: `\d table`, or `SELECT attname, format_type(…), attlen,
/// attalign, attisdropped … FROM pg_attribute` aligned or unaligned (`-A`).
fn parse_table(text: &str) -> Result<Schema, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| l.contains('|'));
    let (_, header) = lines.next().ok_or("no table header line")?;
    let heads: Vec<String> = header
        .split('|')
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    let find = |names: &[&str]| heads.iter().position(|h| names.contains(&h.as_str()));
    let name_at = find(&["column", "attname", "name", "column_name"]);
    let type_at = find(&["type", "format_type", "data_type", "typname"]);
    let len_at = find(&["attlen"]);
    let align_at = find(&["attalign"]);
    let dropped_at = find(&["attisdropped"]);
    let missing_at = find(&["attmissingval"]);
    let attnum_at = find(&["attnum"]);
    if type_at.is_none() && len_at.is_none() {
        return Err(format!(
            "table header {header:?} has no Type/format_type or attlen column"
        ));
    }
    let mut schema = Schema::default();
    for (n, line) in lines {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells
            .iter()
            .all(|c| c.chars().all(|ch| matches!(ch, '-' | '+' | ' ')))
        {
            continue;
        }
        let cell = |i: Option<usize>| i.and_then(|i| cells.get(i).copied()).unwrap_or("");
        if attnum_at.is_some() && cell(attnum_at).parse::<i64>().is_ok_and(|a| a <= 0) {
            continue;
        }
        let truthy = |c: &str| matches!(c, "t" | "true" | "yes" | "1");
        let missing = Some(cell(missing_at))
            .filter(|m| !m.is_empty())
            .map(missing_from_array);
        let col = catalog_column(
            Some(cell(name_at).to_string()),
            Some(cell(type_at)),
            cell(len_at).parse().ok(),
            cell(align_at).chars().next().and_then(Align::from_char),
            truthy(cell(dropped_at)),
            missing,
        )
        .map_err(|e| format!("line {}: {e}", n + 1))?;
        schema.columns.push(col);
    }
    if schema.columns.is_empty() {
        return Err("no columns found in the table".into());
    }
    Ok(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_include_item_splits_key_from_include_columns() {
        let s = parse_columns("p box, INCLUDE, id int4, label text").unwrap();
        assert_eq!(s.columns.len(), 3);
        assert_eq!(s.key_columns, Some(1));
        assert_eq!(parse_columns("int4").unwrap().key_columns, None);
        assert!(parse_columns("include, int4").is_err());
        assert!(parse_columns("int4, include, int4, include, int4").is_err());
    }

    #[test]
    fn column_lists_are_capped_at_max_heap_attributes() {
        let list = vec!["int4"; MAX_HEAP_ATTRIBUTES].join(",");
        assert_eq!(parse_columns(&list).unwrap().columns.len(), 1600);
        assert!(parse_columns(&format!("{list},~")).is_ok());
        let err = parse_columns(&format!("{list},int4"))
            .err()
            .unwrap_or_default();
        assert!(err.contains("at most 1600"), "{err}");
        let lines = vec!["int4"; 100_000].join("\n");
        assert!(parse_schema(&lines)
            .err()
            .unwrap_or_default()
            .contains("100000 columns"));
    }

    fn types(s: &Schema) -> Vec<String> {
        s.columns.iter().map(Column::type_name).collect()
    }

    #[test]
    fn column_lists() {
        let s = parse_columns("int4, varchar(20),numeric(10,2) , text[], timestamptz").unwrap();
        assert_eq!(
            types(&s),
            [
                "integer",
                "character varying(20)",
                "numeric(10,2)",
                "text[]",
                "timestamp with time zone"
            ]
        );
        let s = parse_columns("id int, \"My Col\" text, c_time time, int text").unwrap();
        let names: Vec<_> = s.columns.iter().map(|c| c.name.clone()).collect();
        assert_eq!(
            names,
            [
                Some("id".into()),
                Some("My Col".into()),
                Some("c_time".into()),
                Some("int".into())
            ]
        );
        assert_eq!(types(&s)[2], "time without time zone");
        assert_eq!(types(&s)[3], "text");
        assert_eq!(
            parse_columns("\"char\"").unwrap().columns[0]
                .ty
                .as_ref()
                .unwrap()
                .ty,
            PgType::Char
        );
    }

    #[test]
    fn dropped_unknown_defaults_and_rest() {
        let s = parse_columns("int4, -:-1:i, dropped:int8, geometry:-1:i, c int default 42, ~")
            .unwrap();
        assert!(s.ignore_rest);
        let c = &s.columns;
        assert!(c[1].dropped && c[1].ty.is_none() && c[1].attlen == -1 && c[1].align == Align::Int);
        assert!(c[2].dropped && c[2].attlen == 8 && c[2].align == Align::Double);
        assert!(matches!(
            c[3].ty.as_ref().unwrap().ty,
            PgType::Other { attlen: -1, .. }
        ));
        assert_eq!(c[4].missing.as_deref(), Some("42"));
        assert_eq!(c[4].name.as_deref(), Some("c"));
        assert_eq!(
            parse_item("d text DEFAULT 'it''s'")
                .unwrap()
                .missing
                .as_deref(),
            Some("it's")
        );
        assert!(parse_columns("int4, geometry")
            .unwrap_err()
            .contains("TYPE:LEN:ALIGN"));
        assert!(parse_columns("~, int4").is_err());
        assert!(parse_columns("").is_err());
        assert!(parse_columns("int4,,text").is_err());
    }

    #[test]
    fn fixture_json_columns() {
        let json = r#"{"columns": [
            {"attnum": 1, "name": "a", "type": "integer", "attlen": 4, "attalign": "i", "attisdropped": false},
            {"attnum": 2, "name": "........pg.dropped.2........", "type": "-", "attlen": -1, "attalign": "i", "attisdropped": true},
            {"attnum": 3, "name": "c", "type": "integer", "attlen": 4, "attalign": "i", "attisdropped": false,
             "atthasmissing": true, "attmissingval": "{42}"}
        ]}"#;
        let s = parse_schema(json).unwrap();
        assert_eq!(s.columns.len(), 3);
        assert!(s.columns[1].dropped && s.columns[1].ty.is_none());
        assert_eq!(s.columns[2].missing.as_deref(), Some("42"));
        assert_eq!(missing_from_array("{\"a \\\"b\\\"\"}"), "a \"b\"");
    }

    #[test]
    fn psql_describe_and_catalog_queries() {
        let d = r#"                        Table "public.types"
   Column    |           Type           | Collation | Nullable | Default
-------------+--------------------------+-----------+----------+---------
 id          | integer                  |           |          |
 c_varchar   | character varying(20)    |           |          |
 c_tz        | timestamp with time zone |           | not null |
Indexes:
    "types_pkey" PRIMARY KEY, btree (id)
"#;
        let s = parse_schema(d).unwrap();
        assert_eq!(
            types(&s),
            [
                "integer",
                "character varying(20)",
                "timestamp with time zone"
            ]
        );
        assert_eq!(s.columns[2].name.as_deref(), Some("c_tz"));

        let q = "attnum|attname|format_type|attlen|attalign|attisdropped\n\
                 1|a|integer|4|i|f\n\
                 2|........pg.dropped.2........|-|-1|i|t\n\
                 3|c|integer|4|i|f\n(3 rows)\n";
        let s = parse_schema(q).unwrap();
        assert_eq!(s.columns.len(), 3);
        assert!(s.columns[1].dropped);

        let lines = "# the table\nid int\nname text\n\nc numeric(10,2) default 1.50\n";
        let s = parse_schema(lines).unwrap();
        assert_eq!(types(&s), ["integer", "text", "numeric(10,2)"]);
        assert_eq!(s.columns[2].missing.as_deref(), Some("1.50"));
        assert!(parse_schema("id frobnicator\n")
            .unwrap_err()
            .starts_with("line 1"));
    }
}
