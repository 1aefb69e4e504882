//! The OID-alias types printed as names (adt/regproc.c's `regclassout`,
//! `regtypeout`, `regnamespaceout`, `regroleout`, `regprocout`,
//! `regprocedureout`, `regoperout`, `regoperatorout`, `regconfigout`,
//! `regdictionaryout`, `regcollationout`), from the catalogs' names a
//! caller read ([`CatalogNames`]).
//!
//! As the server prints them: OID 0 is `-` (`0` for `regoper` and
//! `regoperator`), an OID the catalog does not hold is the number, a name is
//! quoted by `quote_identifier`'s rule (an operator's own name never is) and
//! qualified with its schema when the search path (`pg_catalog`, then
//! `public`) would not find it by its bare name: namespace.c's
//! `…IsVisible` — for `regprocedure` and `regoperator` by name and argument
//! types, for `regcollation` by name and the database's encoding — and, for
//! `regproc` and `regoper`, when the bare name finds more than one function
//! or operator (`FuncnameGetCandidates`/`OpernameGetCandidates`).

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use crate::model::postgres::types::{CatalogNames, NameLookups};

/// `pg_catalog`'s fixed OID.
const PG_CATALOG_NAMESPACE: u32 = 11;

/// The reg* types printed by name: (name, pg_type OID). The first four are
/// named whenever the catalogs were read; the others when their own catalog
/// was (`CatalogNames::read`).
pub(crate) const NAMED: &[(&str, u32)] = &[
    ("regclass", 2205),
    ("regtype", 2206),
    ("regnamespace", 4089),
    ("regrole", 4096),
    ("regproc", 24),
    ("regprocedure", 2202),
    ("regoper", 2203),
    ("regoperator", 2204),
    ("regconfig", 3734),
    ("regdictionary", 3769),
    ("regcollation", 4191),
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
    let always = NAMED[..4].iter().any(|(n, _)| *n == reg);
    if !always && !names.read.contains(&reg) {
        return None;
    }
    if oid == 0 {
        let zero = if matches!(reg, "regoper" | "regoperator") {
            "0"
        } else {
            "-"
        };
        return Some(zero.to_string());
    }
    let text = match reg {
        "regclass" => regclass(oid, names),
        "regtype" => format_type(oid, names),
        "regnamespace" => names.namespaces.get(&oid).map(|n| quote_identifier(n)),
        "regrole" => names.roles.get(&oid).map(|n| quote_identifier(n)),
        "regproc" => regproc(oid, names),
        "regprocedure" => regprocedure(oid, names),
        "regoper" => regoper(oid, names),
        "regoperator" => regoperator(oid, names),
        "regconfig" => ts_object(
            names.ts_configs.get(&oid),
            &lookups(names).config_keys,
            names,
        ),
        "regdictionary" => ts_object(names.ts_dicts.get(&oid), &lookups(names).dict_keys, names),
        "regcollation" => regcollation(oid, names),
        _ => None,
    };
    Some(text.unwrap_or_else(|| oid.to_string()))
}

/// `regconfigout`/`regdictionaryout`: the name, qualified unless
/// `TSConfigIsVisible`/`TSDictionaryIsVisible` (no namespace earlier on the
/// path has one of that name among `keys`).
fn ts_object(
    object: Option<&(String, u32)>,
    keys: &HashSet<(u32, String)>,
    names: &CatalogNames,
) -> Option<String> {
    let (name, nsp) = object?;
    let visible = is_visible(*nsp, names, |ns| keys.contains(&(ns, name.clone())));
    qualified(visible, *nsp, name, names)
}

/// The by-name lookups, made at the first value that needs one.
fn lookups(names: &CatalogNames) -> &NameLookups {
    names.lookups.get_or_init(|| {
        let mut out = NameLookups::default();
        // The candidates a bare name finds: FuncnameGetCandidates with any
        // number of arguments, OpernameGetCandidates with any kind.
        out.proc_unique = unique_by_name(
            names.procs.iter().map(|(oid, p)| {
                out.proc_keys
                    .insert((p.pronamespace, p.proname.clone(), p.proargtypes.clone()));
                (*oid, p.proname.as_str(), p.pronamespace, &p.proargtypes[..])
            }),
            &names.search_path,
        );
        out.oper_unique = unique_by_name(
            names.operators.iter().map(|(oid, o)| {
                out.oper_keys
                    .insert((o.oprnamespace, o.oprname.clone(), o.oprleft, o.oprright));
                (
                    *oid,
                    o.oprname.as_str(),
                    o.oprnamespace,
                    (o.oprleft, o.oprright),
                )
            }),
            &names.search_path,
        );
        out.config_keys = names
            .ts_configs
            .values()
            .map(|(n, s)| (*s, n.clone()))
            .collect();
        out.dict_keys = names
            .ts_dicts
            .values()
            .map(|(n, s)| (*s, n.clone()))
            .collect();
        out.collation_keys = names
            .collations
            .iter()
            .map(|(oid, c)| {
                (
                    (c.collnamespace, c.collname.clone(), c.collencoding),
                    (*oid, c.collprovider),
                )
            })
            .collect();
        out
    })
}

/// One name's candidates so far: the first argument types met, whether
/// others were met too, and the function or operator found with the first
/// ones in the earliest namespace of the path (OID, position).
struct Candidates<K> {
    args: K,
    several: bool,
    oid: u32,
    at: usize,
}

/// For each name of `items` (OID, name, namespace, argument types): the one
/// object its bare name finds, when it finds exactly one. The candidates
/// are one per distinct argument types among the objects of that name in
/// the path's namespaces, the earliest namespace's (a later one of the
/// same argument types is hidden by it).
fn unique_by_name<'a, K: PartialEq>(
    items: impl Iterator<Item = (u32, &'a str, u32, K)>,
    path: &[u32],
) -> HashMap<String, u32> {
    let mut by_name: HashMap<&str, Candidates<K>> = HashMap::new();
    for (oid, name, nsp, args) in items {
        let Some(at) = path.iter().position(|&n| n == nsp) else {
            continue;
        };
        match by_name.entry(name) {
            Entry::Vacant(v) => {
                v.insert(Candidates {
                    args,
                    several: false,
                    oid,
                    at,
                });
            }
            Entry::Occupied(mut o) => {
                let c = o.get_mut();
                if c.args != args {
                    c.several = true;
                } else if at < c.at {
                    (c.oid, c.at) = (oid, at);
                }
            }
        }
    }
    by_name
        .into_iter()
        .filter(|(_, c)| !c.several)
        .map(|(n, c)| (n.to_string(), c.oid))
        .collect()
}

/// `regprocout`: `proname`, qualified unless the bare name finds exactly
/// this function.
fn regproc(oid: u32, names: &CatalogNames) -> Option<String> {
    let p = names.procs.get(&oid)?;
    let unique = lookups(names).proc_unique.get(&p.proname) == Some(&oid);
    qualified(unique, p.pronamespace, &p.proname, names)
}

/// `format_procedure`: `name(type,type)` with `format_type_be`'s names,
/// qualified when `FunctionIsVisible` says no: its namespace is not on the
/// path, or an earlier one has a function of that name and argument types.
/// A type the catalog does not hold (the server fails on it) makes the
/// whole value its number.
fn regprocedure(oid: u32, names: &CatalogNames) -> Option<String> {
    let p = names.procs.get(&oid)?;
    let keys = &lookups(names).proc_keys;
    let visible = is_visible(p.pronamespace, names, |ns| {
        keys.contains(&(ns, p.proname.clone(), p.proargtypes.clone()))
    });
    let mut out = qualified(visible, p.pronamespace, &p.proname, names)?;
    out.push('(');
    for (i, &t) in p.proargtypes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format_type(t, names)?);
    }
    out.push(')');
    Some(out)
}

/// `regoperout`: the operator's name, else `schema.name` (the schema
/// quoted, the name never) unless the bare name finds exactly this
/// operator.
fn regoper(oid: u32, names: &CatalogNames) -> Option<String> {
    let o = names.operators.get(&oid)?;
    if lookups(names).oper_unique.get(&o.oprname) == Some(&oid) {
        return Some(o.oprname.clone());
    }
    let schema = names.namespaces.get(&o.oprnamespace)?;
    Some(format!("{}.{}", quote_identifier(schema), o.oprname))
}

/// `format_operator`: `name(left,right)`, `NONE` for a missing side,
/// `schema.` before it when `OperatorIsVisible` says no.
fn regoperator(oid: u32, names: &CatalogNames) -> Option<String> {
    let o = names.operators.get(&oid)?;
    let keys = &lookups(names).oper_keys;
    let visible = is_visible(o.oprnamespace, names, |ns| {
        keys.contains(&(ns, o.oprname.clone(), o.oprleft, o.oprright))
    });
    let mut out = String::new();
    if !visible {
        let schema = names.namespaces.get(&o.oprnamespace)?;
        out.push_str(&quote_identifier(schema));
        out.push('.');
    }
    let side = |t: u32| match t {
        0 => Some("NONE".to_string()),
        t => format_type(t, names),
    };
    out.push_str(&format!(
        "{}({},{})",
        o.oprname,
        side(o.oprleft)?,
        side(o.oprright)?
    ));
    Some(out)
}

/// `regcollationout`: `collname`, qualified unless `CollationGetCollid`
/// finds this collation by its bare name: in the first namespace of the
/// path that has a collation of that name for the database's encoding, or
/// for any encoding (an ICU one only where ICU supports the encoding).
fn regcollation(oid: u32, names: &CatalogNames) -> Option<String> {
    let c = names.collations.get(&oid)?;
    let encoding = names.encoding?;
    let keys = &lookups(names).collation_keys;
    let mut found = None;
    for &ns in &names.search_path {
        let exact = keys.get(&(ns, c.collname.clone(), encoding));
        let any = || {
            keys.get(&(ns, c.collname.clone(), -1))
                .filter(|(_, provider)| *provider != 'i' || icu_supports(encoding))
        };
        if let Some((o, _)) = exact.or_else(any) {
            found = Some(*o);
            break;
        }
    }
    let on_path = names.search_path.contains(&c.collnamespace);
    qualified(
        on_path && found == Some(oid),
        c.collnamespace,
        &c.collname,
        names,
    )
}

/// encnames.c's `is_encoding_supported_by_icu`: every server encoding but
/// SQL_ASCII (0), EUC_JIS_2004 (5), MULE_INTERNAL (7), LATIN10 (17) and
/// WIN874 (21).
fn icu_supports(encoding: i32) -> bool {
    (0..=34).contains(&encoding) && ![0, 5, 7, 17, 21].contains(&encoding)
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
    use crate::model::postgres::types::{CollName, OperName, ProcName, TypeName};

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

    fn proc(name: &str, nsp: u32, args: &[u32]) -> ProcName {
        ProcName {
            proname: name.into(),
            pronamespace: nsp,
            proargtypes: args.to_vec(),
        }
    }

    fn oper(name: &str, nsp: u32, left: u32, right: u32) -> OperName {
        OperName {
            oprname: name.into(),
            oprnamespace: nsp,
            oprleft: left,
            oprright: right,
        }
    }

    /// The fixture's names plus pg_proc, pg_operator, the text search
    /// catalogs and pg_collation, all read.
    fn all_names() -> CatalogNames {
        let mut n = names();
        n.read = NAMED[4..].iter().map(|r| r.0).collect();
        n.namespaces.insert(4000, "hidden".into());
        n.procs.insert(1299, proc("now", 11, &[]));
        n.procs.insert(177, proc("int4pl", 11, &[23, 23]));
        n.procs.insert(6000, proc("now", 2200, &[]));
        n.procs.insert(6001, proc("over", 2200, &[23]));
        n.procs.insert(6002, proc("over", 2200, &[25]));
        n.procs.insert(6003, proc("f", 4000, &[23]));
        n.procs.insert(6004, proc("Quoted Fn", 2200, &[25, 1009]));
        n.procs.insert(6005, proc("lost", 2200, &[424242]));
        n.operators.insert(551, oper("+", 11, 23, 23));
        n.operators.insert(554, oper("+", 11, 0, 23));
        n.operators.insert(607, oper("||/", 11, 0, 23));
        n.operators.insert(7000, oper("+", 2200, 25, 25));
        n.operators.insert(7001, oper("###", 4000, 23, 23));
        n.operators.insert(7002, oper("###", 2200, 23, 23));
        n.ts_configs.insert(13000, ("english".into(), 11));
        n.ts_configs.insert(13001, ("english".into(), 2200));
        n.ts_configs.insert(13002, ("cfg".into(), 4000));
        n.ts_dicts.insert(3765, ("simple".into(), 11));
        n.ts_dicts.insert(13100, ("Mine".into(), 2200));
        let coll = |name: &str, nsp: u32, enc: i32, provider: char| CollName {
            collname: name.into(),
            collnamespace: nsp,
            collencoding: enc,
            collprovider: provider,
        };
        n.collations.insert(100, coll("default", 11, -1, 'd'));
        n.collations.insert(950, coll("C", 11, -1, 'c'));
        n.collations.insert(14000, coll("C", 2200, -1, 'c'));
        n.collations.insert(14001, coll("en_US", 11, 6, 'c'));
        n.collations.insert(14002, coll("en_US", 2200, -1, 'c'));
        n.collations.insert(14003, coll("und-x-icu", 11, -1, 'i'));
        n.collations.insert(14004, coll("und-x-icu", 2200, 0, 'c'));
        n.encoding = Some(6);
        n
    }

    #[test]
    fn regproc_is_qualified_unless_its_bare_name_is_unique() {
        let n = all_names();
        // pg_catalog.now() hides public.now() (same arguments).
        assert_eq!(reg_out("regproc", 1299, &n).unwrap(), "now");
        assert_eq!(reg_out("regproc", 6000, &n).unwrap(), "public.now");
        assert_eq!(reg_out("regproc", 177, &n).unwrap(), "int4pl");
        // Two over(…): not unique, though both are visible.
        assert_eq!(reg_out("regproc", 6001, &n).unwrap(), "public.over");
        assert_eq!(reg_out("regproc", 6003, &n).unwrap(), "hidden.f");
        assert_eq!(reg_out("regproc", 6004, &n).unwrap(), "\"Quoted Fn\"");
        assert_eq!(reg_out("regproc", 0, &n).unwrap(), "-");
        assert_eq!(reg_out("regproc", 99, &n).unwrap(), "99");
    }

    #[test]
    fn regprocedure_names_its_argument_types() {
        let n = all_names();
        assert_eq!(
            reg_out("regprocedure", 177, &n).unwrap(),
            "int4pl(integer,integer)"
        );
        assert_eq!(reg_out("regprocedure", 1299, &n).unwrap(), "now()");
        assert_eq!(reg_out("regprocedure", 6000, &n).unwrap(), "public.now()");
        assert_eq!(reg_out("regprocedure", 6002, &n).unwrap(), "over(text)");
        assert_eq!(
            reg_out("regprocedure", 6003, &n).unwrap(),
            "hidden.f(integer)"
        );
        assert_eq!(
            reg_out("regprocedure", 6004, &n).unwrap(),
            "\"Quoted Fn\"(text,text[])"
        );
        // An argument type the catalog does not hold: the number.
        assert_eq!(reg_out("regprocedure", 6005, &n).unwrap(), "6005");
        assert_eq!(reg_out("regprocedure", 0, &n).unwrap(), "-");
    }

    #[test]
    fn regoper_and_regoperator() {
        let n = all_names();
        assert_eq!(reg_out("regoper", 551, &n).unwrap(), "pg_catalog.+");
        assert_eq!(reg_out("regoper", 7000, &n).unwrap(), "public.+");
        assert_eq!(reg_out("regoper", 607, &n).unwrap(), "||/");
        // public.### is the only one on the path: the bare name finds it.
        assert_eq!(reg_out("regoper", 7002, &n).unwrap(), "###");
        assert_eq!(reg_out("regoper", 7001, &n).unwrap(), "hidden.###");
        assert_eq!(reg_out("regoper", 0, &n).unwrap(), "0");
        assert_eq!(reg_out("regoper", 98, &n).unwrap(), "98");
        assert_eq!(
            reg_out("regoperator", 551, &n).unwrap(),
            "+(integer,integer)"
        );
        assert_eq!(reg_out("regoperator", 554, &n).unwrap(), "+(NONE,integer)");
        assert_eq!(reg_out("regoperator", 7000, &n).unwrap(), "+(text,text)");
        assert_eq!(
            reg_out("regoperator", 7001, &n).unwrap(),
            "hidden.###(integer,integer)"
        );
        assert_eq!(reg_out("regoperator", 0, &n).unwrap(), "0");
    }

    #[test]
    fn regconfig_and_regdictionary() {
        let n = all_names();
        assert_eq!(reg_out("regconfig", 13000, &n).unwrap(), "english");
        assert_eq!(reg_out("regconfig", 13001, &n).unwrap(), "public.english");
        assert_eq!(reg_out("regconfig", 13002, &n).unwrap(), "hidden.cfg");
        assert_eq!(reg_out("regdictionary", 3765, &n).unwrap(), "simple");
        assert_eq!(reg_out("regdictionary", 13100, &n).unwrap(), "\"Mine\"");
        assert_eq!(reg_out("regconfig", 0, &n).unwrap(), "-");
        assert_eq!(reg_out("regdictionary", 97, &n).unwrap(), "97");
    }

    #[test]
    fn regcollation_follows_the_database_encoding() {
        let mut n = all_names();
        assert_eq!(reg_out("regcollation", 100, &n).unwrap(), "\"default\"");
        assert_eq!(reg_out("regcollation", 950, &n).unwrap(), "\"C\"");
        assert_eq!(reg_out("regcollation", 14000, &n).unwrap(), "public.\"C\"");
        // pg_catalog's en_US is for UTF8 (6): it hides public's in UTF8…
        assert_eq!(reg_out("regcollation", 14001, &n).unwrap(), "\"en_US\"");
        assert_eq!(
            reg_out("regcollation", 14002, &n).unwrap(),
            "public.\"en_US\""
        );
        // …and does not work in LATIN1 (8), where public's is found.
        n.encoding = Some(8);
        assert_eq!(
            reg_out("regcollation", 14001, &n).unwrap(),
            "pg_catalog.\"en_US\""
        );
        assert_eq!(reg_out("regcollation", 14002, &n).unwrap(), "\"en_US\"");
        // An ICU collation does not work in SQL_ASCII (0): public's is found.
        let mut n = all_names();
        assert_eq!(reg_out("regcollation", 14003, &n).unwrap(), "\"und-x-icu\"");
        n.encoding = Some(0);
        assert_eq!(
            reg_out("regcollation", 14003, &n).unwrap(),
            "pg_catalog.\"und-x-icu\""
        );
        assert_eq!(reg_out("regcollation", 14004, &n).unwrap(), "\"und-x-icu\"");
        assert_eq!(reg_out("regcollation", 0, &n).unwrap(), "-");
        assert_eq!(reg_out("regcollation", 96, &n).unwrap(), "96");
    }

    #[test]
    fn a_type_whose_catalog_was_not_read_is_a_number() {
        let mut n = all_names();
        n.read.retain(|r| *r != "regoper");
        assert_eq!(reg_out("regoper", 551, &n), None);
        assert_eq!(reg_out("regoper", 0, &n), None);
        assert!(reg_out("regoperator", 551, &n).is_some());
    }
}
