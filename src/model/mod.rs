//! Plain, serde-serialisable structures that mirror the on-disk layouts.
//! Parsers build them; renderers read them. Nothing here reads bytes.

pub mod bits;
pub mod oracle;
pub mod oracle_types;
pub mod postgres;
pub mod span;
pub mod types;
pub mod verdict;
pub mod verify;

use serde::Serialize;

/// How bad a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the page is still consistent.
    Info,
    /// Unusual but possibly legitimate.
    Warning,
    /// The page is damaged or inconsistent here.
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Something strange found while decoding: the page is still shown, and the
/// problem says where and what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub severity: Severity,
    /// Byte offset inside the page, when the problem has one.
    pub offset: Option<usize>,
    /// The field, named as the database names it (`pd_lower`, `lp[3]`, `tuple 3 t_hoff`).
    pub field: String,
    /// Problem class, stable for machines (`header`, `line-pointer`, `tuple`, `checksum`…).
    pub class: &'static str,
    pub message: String,
}

impl Problem {
    pub fn new(
        severity: Severity,
        class: &'static str,
        offset: Option<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Problem {
            severity,
            offset,
            field: field.into(),
            class,
            message: message.into(),
        }
    }
}
