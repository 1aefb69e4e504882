//! The words of a `--table` lookup that failed or went elsewhere: the
//! cluster reader says what its catalogs hold and what the user can do as
//! facts ([`Advice`]); the advice is worded here, where the command line is
//! known.

use std::fmt;

use crate::cluster::{shell_quote, Advice, FoundElsewhere, LookupError, Said};
use crate::error::Error;

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::Cluster(e) => write!(f, "{e}"),
            LookupError::NotFound(said) => {
                for s in said {
                    match s {
                        Said::Text(t) => f.write_str(t)?,
                        Said::Advice(a) => f.write_str(&advice(a))?,
                    }
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for LookupError {}

impl From<LookupError> for Error {
    fn from(e: LookupError) -> Self {
        match e {
            LookupError::Cluster(e) => e.into(),
            e @ LookupError::NotFound(_) => Error::Usage(e.to_string()),
        }
    }
}

/// One piece of advice, worded to follow the text before it.
fn advice(a: &Advice) -> String {
    match a {
        Advice::DatabaseOid => ": give its OID as --database OID to read one of them".to_string(),
        Advice::Database { name } => {
            format!(": give --database {}", name.as_deref().unwrap_or("NAME"))
        }
        Advice::FindFile { dboid } => {
            format!(": find its file (base/{dboid}/…) and give the columns with --columns")
        }
        Advice::ExportByFile {
            qualified,
            file,
            toast,
            columns,
            unread,
        } => {
            let mut out = String::new();
            if let Some(causes) = unread {
                out.push_str(&format!(
                    "\nits columns are not all readable ({}): replace each <…> below with NAME \
                     TYPE",
                    causes.join("; ")
                ));
            }
            out.push_str(&format!(
                "\nto export {qualified} by its file:\n  blockscope export {} --columns {}",
                shell_quote(&crate::escape::path(file).to_string()),
                shell_quote(columns)
            ));
            if let Some(t) = toast {
                out.push_str(&format!(
                    " --toast {}",
                    shell_quote(&crate::escape::path(t).to_string())
                ));
            }
            out
        }
        Advice::TableName { given } => {
            format!("--table {given:?}: give SCHEMA.NAME (or NAME, in public)")
        }
    }
}

/// The note for a table found in one other database alone, and read there.
pub(crate) fn elsewhere_note(e: &FoundElsewhere) -> String {
    format!(
        "{} is not in database \"postgres\": it is in database {:?} alone, and is read from \
         there (--database {})",
        e.qualified, e.database, e.database
    )
}
