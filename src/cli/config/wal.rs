//! `wal`'s arguments turned into a [`WalConfig`]: LSNs, the relation and
//! the rmgr names parsed and checked once.

use crate::commands::progress::ProgressMode;
use crate::commands::rebuild::RebuildConfig;
use crate::commands::wal::{WalConfig, WalFilter, WalFormat};
use crate::error::Error;
use crate::model::postgres::wal::{RelFileNode, FORK_NAMES, RMGR_NAMES};

use super::super::args::{WalArgs, WalFormatArg};

/// `X/Y` in hexadecimal, as PostgreSQL prints an LSN.
pub(crate) fn parse_lsn(option: &str, text: &str) -> Result<u64, Error> {
    let bad = || {
        Error::Usage(format!(
            "{option} {text:?}: give an LSN as PostgreSQL prints it (e.g. 0/1548F40)"
        ))
    };
    let (hi, lo) = text.trim().split_once('/').ok_or_else(bad)?;
    let hi = u32::from_str_radix(hi, 16).map_err(|_| bad())?;
    let lo = u32::from_str_radix(lo, 16).map_err(|_| bad())?;
    Ok((u64::from(hi) << 32) | u64::from(lo))
}

fn parse_relation(text: &str) -> Result<RelFileNode, Error> {
    let parts: Vec<Option<u32>> = text.split('/').map(|p| p.parse().ok()).collect();
    match parts.as_slice() {
        [Some(spc), Some(db), Some(rel)] => Ok(RelFileNode {
            spc: *spc,
            db: *db,
            rel: *rel,
        }),
        _ => Err(Error::Usage(format!(
            "--relation {text:?}: give TABLESPACE/DATABASE/RELFILENODE as OIDs (e.g. 1663/5/16384)"
        ))),
    }
}

fn parse_rmgr(name: &str) -> Result<u8, Error> {
    RMGR_NAMES
        .iter()
        .position(|n| n.eq_ignore_ascii_case(name.trim()))
        .map(|i| i as u8)
        .ok_or_else(|| {
            Error::Usage(format!(
                "--rmgr {name:?}: not a resource manager; one of {}",
                RMGR_NAMES.join(", ")
            ))
        })
}

impl WalConfig {
    pub(crate) fn from_args(args: &WalArgs) -> Result<WalConfig, Error> {
        if let Some(size) = args.wal_segsize {
            if !size.is_power_of_two() || !(1 << 20..=1 << 30).contains(&size) {
                return Err(Error::Usage(format!(
                    "--wal-segsize {size}: a WAL segment is a power of two from 1MB to 1GB"
                )));
            }
        }
        let filter = WalFilter {
            relation: args.relation.as_deref().map(parse_relation).transpose()?,
            block: args.block,
            rmgrs: args
                .rmgr
                .iter()
                .map(|n| parse_rmgr(n))
                .collect::<Result<_, _>>()?,
            start: args
                .start
                .as_deref()
                .map(|t| parse_lsn("--start", t))
                .transpose()?,
            end: args
                .end
                .as_deref()
                .map(|t| parse_lsn("--end", t))
                .transpose()?,
            xid: args.xid,
        };
        if args.table.is_some() && args.paths.len() != 1 {
            return Err(Error::Usage(
                "--table: give one PATH, the data directory whose catalogs name the table".into(),
            ));
        }
        let rebuild = rebuild_config(args)?;
        Ok(WalConfig {
            rebuild,
            paths: args.paths.clone(),
            seg_size: args.wal_segsize,
            table: args.table.clone().map(|t| (t, args.database.clone())),
            filter,
            progress: ProgressMode::from_args(&args.progress),
            format: match args.format {
                WalFormatArg::Table => WalFormat::Table,
                WalFormatArg::Json => WalFormat::Json,
                WalFormatArg::Ndjson => WalFormat::Ndjson,
            },
        })
    }
}

/// `--rebuild` / `--history` and their options, checked.
fn rebuild_config(args: &WalArgs) -> Result<Option<RebuildConfig>, Error> {
    if !args.rebuild && !args.history {
        if args.upto.is_some() {
            return Err(Error::Usage(
                "--upto goes with --rebuild or --history".into(),
            ));
        }
        return Ok(None);
    }
    if args.table.is_none() && args.relation.is_none() {
        return Err(Error::Usage(
            "--rebuild and --history need --table SCHEMA.NAME or --relation SPC/DB/REL".into(),
        ));
    }
    let fork = FORK_NAMES
        .iter()
        .position(|n| *n == args.fork)
        .ok_or_else(|| {
            Error::Usage(format!(
                "--fork {:?}: one of {}",
                args.fork,
                FORK_NAMES.join(", ")
            ))
        })? as u8;
    Ok(Some(RebuildConfig {
        history: args.history,
        output: args.output.clone(),
        output_dir: args.output_dir.clone(),
        upto: args
            .upto
            .as_deref()
            .map(|t| parse_lsn("--upto", t))
            .transpose()?,
        fork,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lsns_and_relations() {
        assert_eq!(parse_lsn("--start", "0/1548F40").unwrap(), 0x0154_8F40);
        assert_eq!(parse_lsn("--start", "1/0").unwrap(), 1 << 32);
        assert!(parse_lsn("--start", "1548F40").is_err());
        assert_eq!(parse_relation("1663/5/16384").unwrap().rel, 16384);
        assert!(parse_relation("1663/5").is_err());
        assert_eq!(parse_rmgr("heap2").unwrap(), 9);
    }
}
