//! Random bytes through the datum decoders, jsonb and pglz: never a panic
//! (moved here from tests/attrs.rs, whose `robustness` tests go through the
//! public API; these units are private).

use proptest::prelude::*;

use super::{jsonb, pglz, values};
use crate::model::postgres::types::{PgType, TypeSpec};

/// The column types of tests/attrs.rs's robustness tests.
const TYPES: &[&str] = &[
    "bool",
    "\"char\"",
    "int2",
    "int4",
    "int8",
    "oid",
    "float4",
    "float8",
    "numeric",
    "money",
    "text",
    "varchar(5)",
    "char(3)",
    "name",
    "bytea",
    "json",
    "jsonb",
    "date",
    "time",
    "timetz",
    "timestamp",
    "timestamptz",
    "interval",
    "uuid",
    "inet",
    "cidr",
    "macaddr",
    "macaddr8",
    "tid",
    "pg_lsn",
    "bit",
    "varbit",
    "point",
    "line",
    "lseg",
    "box",
    "path",
    "polygon",
    "circle",
    "tsvector",
    "tsquery",
    "citext",
    "hstore",
    "ltree",
    "cube",
    "seg",
    "lquery",
    "ltxtquery",
    "ean13",
    "isbn",
    "upc",
    "tsvector[]",
    "int4[]",
    "text[]",
    "numeric[]",
    "jsonb[]",
    "hstore:-1:i",
    "dropped:int8",
    "-:-1:i",
    "x:3:c",
    "y:-2:c",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_datums_of_every_type(
        t in 0usize..51,
        data in proptest::collection::vec(any::<u8>(), 0..80),
    ) {
        let spec = TypeSpec::parse(TYPES[t]).unwrap();
        let _ = values::decode(&spec.ty, &data);
        let _ = values::decode(&PgType::Array(Box::new(spec.ty)), &data);
    }

    #[test]
    fn random_jsonb_and_pglz(
        data in proptest::collection::vec(any::<u8>(), 0..200),
        rawsize in 0usize..5000,
    ) {
        let _ = jsonb::to_text(&data);
        let _ = pglz::decompress(&data, rawsize);
    }
}
