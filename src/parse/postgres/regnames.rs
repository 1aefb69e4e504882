//! The OID-alias types printed as names (adt/regproc.c's `regclassout`,
//! `regtypeout`, `regnamespaceout`, `regroleout`), from the catalogs'
//! names a caller read ([`CatalogNames`]).
//!
//! As the server prints them: OID 0 is `-`, an OID the catalog does not
//! hold is the number, a name is quoted by `quote_identifier`'s rule and
//! qualified with its schema when the search path (`pg_catalog`, then
//! `public`) would not find it by its bare name. The other reg* types
//! (`regproc`, `regoper`, …) need catalogs not read here and stay numbers.

use std::collections::HashMap;

use crate::model::postgres::types::CatalogNames;

/// `pg_catalog`'s fixed OID.
const PG_CATALOG_NAMESPACE: u32 = 11;

/// The reg* types printed by name: (name, pg_type OID).
pub(crate) const NAMED: &[(&str, u32)] = &[
    ("regclass", 2205),
    ("regtype", 2206),
    ("regnamespace", 4089),
    ("regrole", 4096),
];

/// The default `search_path` (`"$user", public`) as the server resolves
/// it: `pg_catalog` first, then the namespace named `public`, if any. A
/// schema named as the session's role cannot be known from the files and
/// is not looked in.
pub(crate) fn search_path(namespaces: &HashMap<u32, String>) -> Vec<u32> {
    let mut path = vec![PG_CATALOG_NAMESPACE];
    let mut public: Vec<u32> = namespaces
        .iter()
        .filter(|(_, n)| n.as_str() == "public")
        .map(|(oid, _)| *oid)
        .collect();
    public.sort_unstable();
    path.extend(public.first());
    path
}

/// The text of `oid` as reg* type `reg` prints it, or `None` when this
/// type is not printed by name here (the caller prints the number).
pub(crate) fn reg_out(reg: &str, oid: u32, names: &CatalogNames) -> Option<String> {
    if !NAMED.iter().any(|(n, _)| *n == reg) {
        return None;
    }
    if oid == 0 {
        return Some("-".to_string());
    }
    let text = match reg {
        "regclass" => regclass(oid, names),
        "regtype" => format_type(oid, names),
        "regnamespace" => names.namespaces.get(&oid).map(|n| quote_identifier(n)),
        _ => names.roles.get(&oid).map(|n| quote_identifier(n)),
    };
    Some(text.unwrap_or_else(|| oid.to_string()))
}

/// `regclassout`: `relname`, qualified when not visible.
fn regclass(oid: u32, names: &CatalogNames) -> Option<String> {
    let (relname, nsp) = names.relations.get(&oid)?;
    let keys = names.relation_keys.get_or_init(|| {
        names
            .relations
            .values()
            .map(|(n, s)| (*s, n.clone()))
            .collect()
    });
    let visible = is_visible(*nsp, names, |ns| keys.contains(&(ns, relname.clone())));
    qualified(visible, *nsp, relname, names)
}

/// `format_type_be`: SQL's names of the built-in types, arrays as the
/// element's name and `[]`, others by `typname`, qualified when not
/// visible.
fn format_type(oid: u32, names: &CatalogNames) -> Option<String> {
    let t = names.types.get(&oid)?;
    let (elem, suffix) = if t.array_of != 0 {
        (t.array_of, "[]")
    } else {
        (oid, "")
    };
    let name = match sql_type_name(elem) {
        Some(n) => n.to_string(),
        None => {
            let e = names.types.get(&elem)?;
            let keys = names.type_keys.get_or_init(|| {
                names
                    .types
                    .values()
                    .map(|o| (o.typnamespace, o.typname.clone()))
                    .collect()
            });
            let visible = is_visible(e.typnamespace, names, |ns| {
                keys.contains(&(ns, e.typname.clone()))
            });
            qualified(visible, e.typnamespace, &e.typname, names)?
        }
    };
    Some(format!("{name}{suffix}"))
}

/// format_type.c's names of types whose `typname` is not their SQL name
/// (without a typmod).
fn sql_type_name(oid: u32) -> Option<&'static str> {
    Some(match oid {
        1560 => "bit",
        16 => "boolean",
        1042 => "character",
        700 => "real",
        701 => "double precision",
        21 => "smallint",
        23 => "integer",
        20 => "bigint",
        1700 => "numeric",
        1186 => "interval",
        1083 => "time without time zone",
        1266 => "time with time zone",
        1114 => "timestamp without time zone",
        1184 => "timestamp with time zone",
        1562 => "bit varying",
        1043 => "character varying",
        18 => "\"char\"",
        _ => return None,
    })
}

/// namespace.c's `RelationIsVisible` / `TypeIsVisible`: the object's
/// namespace is on the search path and no namespace before it has an
/// object of the same name (`has_name`).
fn is_visible(nsp: u32, names: &CatalogNames, has_name: impl Fn(u32) -> bool) -> bool {
    for &ns in &names.search_path {
        if ns == nsp {
            return true;
        }
        if has_name(ns) {
            return false;
        }
    }
    false
}

/// `quote_qualified_identifier`: the name alone when visible, else
/// `schema.name`; `None` when the schema is not known.
fn qualified(visible: bool, nsp: u32, name: &str, names: &CatalogNames) -> Option<String> {
    if visible {
        return Some(quote_identifier(name));
    }
    let schema = names.namespaces.get(&nsp)?;
    Some(format!(
        "{}.{}",
        quote_identifier(schema),
        quote_identifier(name)
    ))
}

/// ruleutils.c's `quote_identifier`: the name as is when it is lower-case
/// ASCII letters, digits and `_`, not starting with a digit, and not a
/// keyword other than an unreserved one; else in double quotes, with
/// quotes doubled.
pub(crate) fn quote_identifier(name: &str) -> String {
    let safe = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b == b'_')
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && NON_UNRESERVED_KEYWORDS.binary_search(&name).is_err();
    if safe {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// parser/kwlist.h's keywords that are not UNRESERVED_KEYWORD (reserved,
/// column-name and type-or-function-name keywords), sorted.
const NON_UNRESERVED_KEYWORDS: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "between",
    "bigint",
    "binary",
    "bit",
    "boolean",
    "both",
    "case",
    "cast",
    "char",
    "character",
    "check",
    "coalesce",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "dec",
    "decimal",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "exists",
    "extract",
    "false",
    "fetch",
    "float",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "greatest",
    "group",
    "grouping",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "inout",
    "int",
    "integer",
    "intersect",
    "interval",
    "into",
    "is",
    "isnull",
    "join",
    "lateral",
    "leading",
    "least",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "national",
    "natural",
    "nchar",
    "none",
    "normalize",
    "not",
    "notnull",
    "null",
    "nullif",
    "numeric",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "out",
    "outer",
    "overlaps",
    "overlay",
    "placing",
    "position",
    "precision",
    "primary",
    "real",
    "references",
    "returning",
    "right",
    "row",
    "select",
    "session_user",
    "setof",
    "similar",
    "smallint",
    "some",
    "substring",
    "symmetric",
    "table",
    "tablesample",
    "then",
    "time",
    "timestamp",
    "to",
    "trailing",
    "treat",
    "trim",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "values",
    "varchar",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::postgres::types::TypeName;

    #[test]
    fn keywords_are_sorted() {
        assert!(NON_UNRESERVED_KEYWORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn quote_identifier_quotes_as_the_server() {
        assert_eq!(quote_identifier("plain"), "plain");
        assert_eq!(quote_identifier("_x1"), "_x1");
        assert_eq!(quote_identifier("Mixed"), "\"Mixed\"");
        assert_eq!(quote_identifier("1x"), "\"1x\"");
        assert_eq!(quote_identifier("a\"b"), "\"a\"\"b\"");
        assert_eq!(quote_identifier("default"), "\"default\"");
        assert_eq!(quote_identifier("char"), "\"char\"");
        // Unreserved keywords are not quoted.
        assert_eq!(quote_identifier("simple"), "simple");
        assert_eq!(quote_identifier("text"), "text");
    }

    fn names() -> CatalogNames {
        let mut n = CatalogNames {
            search_path: vec![11, 2200],
            ..CatalogNames::default()
        };
        n.namespaces.insert(11, "pg_catalog".into());
        n.namespaces.insert(2200, "public".into());
        n.namespaces.insert(3000, "Odd".into());
        n.relations.insert(1259, ("pg_class".into(), 11));
        n.relations.insert(5000, ("pg_class".into(), 2200));
        n.relations.insert(5001, ("t".into(), 3000));
        n.types.insert(
            25,
            TypeName {
                typname: "text".into(),
                typnamespace: 11,
                array_of: 0,
            },
        );
        n.types.insert(
            1009,
            TypeName {
                typname: "_text".into(),
                typnamespace: 11,
                array_of: 25,
            },
        );
        n.types.insert(
            23,
            TypeName {
                typname: "int4".into(),
                typnamespace: 11,
                array_of: 0,
            },
        );
        n.roles.insert(10, "Role 1".into());
        n
    }

    #[test]
    fn regclass_qualifies_what_the_path_does_not_find() {
        let n = names();
        assert_eq!(reg_out("regclass", 1259, &n).unwrap(), "pg_class");
        assert_eq!(reg_out("regclass", 5000, &n).unwrap(), "public.pg_class");
        assert_eq!(reg_out("regclass", 5001, &n).unwrap(), "\"Odd\".t");
        assert_eq!(reg_out("regclass", 0, &n).unwrap(), "-");
        assert_eq!(reg_out("regclass", 77, &n).unwrap(), "77");
    }

    #[test]
    fn regtype_regrole_regnamespace() {
        let n = names();
        assert_eq!(reg_out("regtype", 23, &n).unwrap(), "integer");
        assert_eq!(reg_out("regtype", 1009, &n).unwrap(), "text[]");
        assert_eq!(reg_out("regrole", 10, &n).unwrap(), "\"Role 1\"");
        assert_eq!(reg_out("regnamespace", 3000, &n).unwrap(), "\"Odd\"");
        assert_eq!(reg_out("regproc", 10, &n), None);
    }
}
