//! `decode`'s findings: one flag word, line pointer or Oracle value
//! explained, in the shapes its JSON takes.

use serde::Serialize;

/// The words `decode` explains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Word {
    /// Heap tuple t_infomask.
    Infomask,
    /// Heap tuple t_infomask2.
    Infomask2,
    /// A line pointer (ItemIdData) as a 32-bit integer.
    Lp,
    /// Page header pd_flags.
    PdFlags,
    /// Btree page btpo_flags.
    BtpoFlags,
    /// Oracle relative data block address.
    OracleRdba,
    /// Oracle row flag byte.
    OracleFb,
    /// Oracle cache header flag byte `flg_kcbh`.
    OracleFlg,
    /// Oracle ITL flag word `ktbitflg`.
    OracleItlFlag,
    /// Oracle NUMBER bytes.
    OracleNumber,
    /// Oracle DATE or TIMESTAMP bytes.
    OracleDate,
    /// Oracle ROWID, extended or restricted.
    Rowid,
}

/// One flag of a decoded word.
#[derive(Serialize)]
pub(crate) struct FlagJson {
    pub(crate) mask: String,
    pub(crate) name: &'static str,
    pub(crate) meaning: &'static str,
}

#[derive(Serialize)]
pub(crate) struct DecodedWord {
    pub(crate) word: &'static str,
    pub(crate) value: u64,
    pub(crate) hex: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) natts: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lp_off: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lp_flags: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lp_flags_name: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lp_len: Option<u16>,
    pub(crate) flags: Vec<FlagJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) combined_flags: Option<Vec<FlagJson>>,
    pub(crate) unknown_bits: String,
}

/// An Oracle word or value as JSON (one shape per kind of word).
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum OracleWord {
    Rdba {
        word: &'static str,
        value: u32,
        hex: String,
        smallfile: FileBlock,
        bigfile: FileBlock,
        dump: String,
    },
    Fb {
        word: &'static str,
        value: u8,
        hex: String,
        fb: String,
        flags: Vec<OracleFlag>,
    },
    Flg {
        word: &'static str,
        value: u8,
        hex: String,
        flags: Vec<OracleFlag>,
        unknown_bits: String,
    },
    ItlFlag {
        word: &'static str,
        value: u16,
        hex: String,
        flag: String,
        lck: u16,
        flags: Vec<OracleFlag>,
    },
    Number {
        word: &'static str,
        /// The exponent byte (the first), for the text.
        #[serde(skip)]
        first: Option<u8>,
        bytes: String,
        value: String,
        negative: bool,
        exponent: i32,
        digits: Vec<u8>,
    },
    Date {
        word: &'static str,
        bytes: String,
        value: String,
    },
    Rowid {
        word: &'static str,
        rowid: String,
        format: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        data_object_id: Option<u32>,
        relative_file: u32,
        block: u32,
        row: u32,
    },
}

#[derive(Serialize)]
pub(crate) struct FileBlock {
    pub(crate) file: u32,
    pub(crate) block: u32,
}

/// One flag of an Oracle word (`letter` for those the dump prints as letters).
#[derive(Serialize)]
pub(crate) struct OracleFlag {
    pub(crate) mask: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) letter: Option<String>,
    pub(crate) name: &'static str,
    pub(crate) meaning: &'static str,
}

/// What `decode` found: a PostgreSQL word or an Oracle word.
pub(crate) enum Explained {
    Postgres(DecodedWord),
    Oracle(OracleWord),
}

/// The JSON of one explained word, whichever kind it is.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum ExplainedJson<'a> {
    Postgres(&'a DecodedWord),
    Oracle(&'a OracleWord),
}

impl Explained {
    pub(crate) fn json(&self) -> ExplainedJson<'_> {
        match self {
            Explained::Postgres(d) => ExplainedJson::Postgres(d),
            Explained::Oracle(v) => ExplainedJson::Oracle(v),
        }
    }
}
