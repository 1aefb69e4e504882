//! JSON and NDJSON: pageinspect's column names and text forms.
//!
//! A PostgreSQL page becomes
//! `{engine, blkno, kind, header, items, checksum, problems}` where `header`
//! holds `page_header()`'s columns and each item `heap_page_items()`'s columns
//! followed by `heap_tuple_infomask_flags()`'s `raw_flags`/`combined_flags`
//! and a plain-words `verdict` — and, when column types were given, `attrs`.

use std::fmt::Write as _;

use serde::Serialize;

use crate::model::postgres::flags::FlagList;
use crate::model::postgres::{flags, names};
use crate::model::postgres::{
    AmData, Attr, BtItem, BtMetaPageData, BtPageOpaque, BtPageStats, ChecksumCheck, HeapItem,
    ItemPointer, PageHeader, PgPage,
};
use crate::model::Problem;

pub use super::attr::bytea_text;
use super::attr::AttrJson;

/// How the build that wrote a page laid it out (see [`PgPageJson::layout`]).
#[derive(Serialize)]
pub struct LayoutJson {
    /// `little-endian` or `big-endian`.
    pub byte_order: &'static str,
    /// `MAXIMUM_ALIGNOF`: 8, or 4 on 32-bit builds.
    pub maxalign: usize,
}

/// `page_header()` columns.
#[derive(Serialize)]
pub struct HeaderJson {
    pub lsn: String,
    /// smallint in pageinspect: values above 32767 print negative.
    pub checksum: i16,
    pub flags: i16,
    pub lower: u16,
    pub upper: u16,
    pub special: u16,
    pub pagesize: usize,
    pub version: u8,
    pub prune_xid: u32,
}

impl HeaderJson {
    pub fn from_header(h: &PageHeader) -> Self {
        HeaderJson {
            lsn: h.pd_lsn.to_string(),
            checksum: h.pd_checksum as i16,
            flags: h.pd_flags as i16,
            lower: h.pd_lower,
            upper: h.pd_upper,
            special: h.pd_special,
            pagesize: h.page_size(),
            version: h.layout_version(),
            prune_xid: h.pd_prune_xid,
        }
    }
}

/// `heap_page_items()` columns plus the infomask flags and a verdict.
#[derive(Serialize)]
pub struct HeapItemJson<'a> {
    pub lp: u16,
    pub lp_off: u16,
    pub lp_flags: u8,
    pub lp_len: u16,
    pub t_xmin: Option<u32>,
    pub t_xmax: Option<u32>,
    pub t_field3: Option<u32>,
    pub t_ctid: Option<String>,
    pub t_infomask2: Option<u16>,
    pub t_infomask: Option<u16>,
    pub t_hoff: Option<u8>,
    pub t_bits: Option<&'a str>,
    pub t_oid: Option<u32>,
    pub t_data: Option<String>,
    pub raw_flags: Option<&'a FlagList>,
    pub combined_flags: Option<&'a FlagList>,
    pub verdict: &'a crate::model::postgres::verdict::ItemVerdict,
    /// The tuple's attributes, when column types were given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attrs: Option<AttrsJson<'a>>,
}

/// A tuple's attributes as a JSON array, each made into its [`AttrJson`]
/// only while it is written: a page of a million columns is not held twice.
pub struct AttrsJson<'a>(pub &'a [Attr]);

impl Serialize for AttrsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(AttrJson::from_attr))
    }
}

impl<'a> HeapItemJson<'a> {
    pub fn from_item(item: &'a HeapItem) -> Self {
        let t = item.tuple.as_ref();
        let h = t.map(|t| &t.header);
        HeapItemJson {
            lp: item.id.lp,
            lp_off: item.id.lp_off,
            lp_flags: item.id.lp_flags.code(),
            lp_len: item.id.lp_len,
            t_xmin: h.map(|h| h.t_xmin),
            t_xmax: h.map(|h| h.t_xmax),
            t_field3: h.map(|h| h.t_field3),
            t_ctid: h.map(|h| h.t_ctid.to_string()),
            t_infomask2: h.map(|h| h.t_infomask2),
            t_infomask: h.map(|h| h.t_infomask),
            t_hoff: h.map(|h| h.t_hoff),
            t_bits: t.and_then(|t| t.t_bits.as_deref()),
            t_oid: t.and_then(|t| t.t_oid),
            t_data: t.and_then(|t| t.t_data.as_deref()).map(bytea_text),
            raw_flags: t.map(|t| &t.raw_flags),
            combined_flags: t.map(|t| &t.combined_flags),
            verdict: &item.verdict,
            attrs: item.attrs.as_deref().map(AttrsJson),
        }
    }
}

/// The items of a page: heap_page_items rows or bt_page_items rows.
#[derive(Serialize)]
#[serde(untagged)]
pub enum ItemsJson<'a> {
    Heap(Vec<HeapItemJson<'a>>),
    Btree(Vec<BtItemJson<'a>>),
    /// hash, GiST, GIN, BRIN and SP-GiST items (see [`super::index`]).
    Index(Vec<serde_json::Value>),
}

/// A PostgreSQL page as one JSON object.
#[derive(Serialize)]
pub struct PgPageJson<'a> {
    /// Always `"postgres"`.
    pub engine: &'static str,
    /// Block number of the page in its input.
    pub blkno: u64,
    /// The page kind (heap, btree, …), as detected or forced.
    pub kind: &'static str,
    /// Byte order and MAXALIGN of the build that wrote the page, when not
    /// the usual little-endian 64-bit one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<LayoutJson>,
    /// PageHeaderData (page_header() columns); `None` when the page is too short for one.
    pub header: Option<HeaderJson>,
    /// bt_metap() columns, on a btree metapage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<BtMetaJson>,
    /// bt_page_stats() columns, on other btree pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<BtStatsJson>,
    /// BTPageOpaqueData, on btree pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opaque: Option<BtOpaqueJson>,
    /// BTDeletedPageData.safexid, on deleted btree pages of PostgreSQL 14+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub safexid: Option<u64>,
    /// What the other access methods' pageinspect functions report.
    #[serde(flatten)]
    pub am: AmJson,
    /// The line pointers and what they point to, per page kind.
    pub items: ItemsJson<'a>,
    /// pd_checksum against the one computed; `None` when not checked.
    pub checksum: Option<ChecksumCheck>,
    /// What is wrong with the page.
    pub problems: &'a [Problem],
}

impl<'a> PgPageJson<'a> {
    /// The JSON view of `page`.
    pub fn from_page(page: &'a PgPage) -> Self {
        let mut json = PgPageJson {
            engine: "postgres",
            blkno: page.blkno,
            kind: page.kind.name(),
            layout: (!page.layout.is_default()).then_some(LayoutJson {
                byte_order: if page.layout.big_endian {
                    "big-endian"
                } else {
                    "little-endian"
                },
                maxalign: page.layout.max_align,
            }),
            header: page.header.as_ref().map(HeaderJson::from_header),
            meta: None,
            stats: None,
            opaque: None,
            safexid: None,
            am: AmJson::default(),
            items: ItemsJson::Heap(page.items.iter().map(HeapItemJson::from_item).collect()),
            checksum: page.checksum,
            problems: &page.problems,
        };
        match &page.am {
            Some(AmData::Btree {
                opaque,
                meta,
                stats,
                safexid,
                items,
            }) => {
                json.meta = meta.as_ref().map(BtMetaJson::from_meta);
                json.stats = stats
                    .as_ref()
                    .map(|s| BtStatsJson::new(page.blkno, s, opaque));
                json.opaque = Some(BtOpaqueJson::from_opaque(opaque));
                json.safexid = *safexid;
                json.items = ItemsJson::Btree(items.iter().map(BtItemJson::from_item).collect());
            }
            Some(am) => {
                json.am = AmJson::new(page, am);
                if let Some(items) = super::index::page_items(page) {
                    json.items =
                        ItemsJson::Index(items.iter().map(super::index::item_json).collect());
                }
            }
            None => {}
        }
        json
    }
}

/// A float8 as PostgreSQL's JSON prints it: integral values without a fraction.
fn pg_float<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.fract() == 0.0 && v.abs() < 9.007_199_254_740_992e15 {
        s.serialize_i64(*v as i64)
    } else {
        s.serialize_f64(*v)
    }
}

/// `bt_metap()` columns, as the metapage's version names them: version 2
/// (PostgreSQL 10) has none of the cleanup fields, version 3 (11) has
/// `oldest_xact` (btm_oldest_btpo_xact) and `last_cleanup_num_tuples`,
/// version 4 adds `allequalimage` and carries PostgreSQL 14's name
/// `last_cleanup_num_delpages` for the word 12 and 13 call `oldest_xact`.
#[derive(Serialize)]
pub struct BtMetaJson {
    pub magic: u32,
    pub version: u32,
    pub root: u32,
    pub level: u32,
    pub fastroot: u32,
    pub fastlevel: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oldest_xact: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_cleanup_num_delpages: Option<u32>,
    #[serde(
        serialize_with = "pg_float_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_cleanup_num_tuples: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allequalimage: Option<bool>,
}

fn pg_float_opt<S: serde::Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => pg_float(v, s),
        None => s.serialize_none(),
    }
}

impl BtMetaJson {
    fn from_meta(m: &BtMetaPageData) -> Self {
        BtMetaJson {
            magic: m.btm_magic,
            version: m.btm_version,
            root: m.btm_root,
            level: m.btm_level,
            fastroot: m.btm_fastroot,
            fastlevel: m.btm_fastlevel,
            oldest_xact: (m.btm_version == 3).then_some(m.btm_last_cleanup_num_delpages),
            last_cleanup_num_delpages: (m.btm_version >= 4)
                .then_some(m.btm_last_cleanup_num_delpages),
            last_cleanup_num_tuples: (m.btm_version >= 3)
                .then_some(m.btm_last_cleanup_num_heap_tuples),
            allequalimage: (m.btm_version >= 4).then_some(m.btm_allequalimage),
        }
    }
}

/// `bt_page_stats()` columns.
#[derive(Serialize)]
pub struct BtStatsJson {
    pub blkno: u64,
    #[serde(rename = "type")]
    pub page_type: String,
    pub live_items: u32,
    pub dead_items: u32,
    pub avg_item_size: u32,
    pub page_size: u32,
    pub free_size: u32,
    pub btpo_prev: u32,
    pub btpo_next: u32,
    /// Absent on a page deleted before PostgreSQL 14, whose word holds `btpo_xact`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub btpo_level: Option<u32>,
    /// Before PostgreSQL 14, a deleted page's `btpo.xact` (the union's other member).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub btpo_xact: Option<u32>,
    pub btpo_flags: u16,
}

impl BtStatsJson {
    fn new(blkno: u64, s: &BtPageStats, o: &BtPageOpaque) -> Self {
        BtStatsJson {
            blkno,
            page_type: s.page_type.to_string(),
            live_items: s.live_items,
            dead_items: s.dead_items,
            avg_item_size: s.avg_item_size,
            page_size: s.page_size,
            free_size: s.free_size,
            btpo_prev: o.btpo_prev,
            btpo_next: o.btpo_next,
            btpo_level: (!o.holds_xact()).then_some(o.btpo_level),
            btpo_xact: o.holds_xact().then_some(o.btpo_level),
            btpo_flags: o.btpo_flags,
        }
    }
}

/// `BTPageOpaqueData` with its flag names.
#[derive(Serialize)]
pub struct BtOpaqueJson {
    pub btpo_prev: u32,
    pub btpo_next: u32,
    /// Absent on a page deleted before PostgreSQL 14, whose word holds `btpo_xact`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub btpo_level: Option<u32>,
    /// Before PostgreSQL 14, a deleted page's `btpo.xact` (the union's other member).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub btpo_xact: Option<u32>,
    pub btpo_flags: u16,
    pub btpo_cycleid: u16,
    pub flags: Vec<&'static str>,
}

impl BtOpaqueJson {
    fn from_opaque(o: &BtPageOpaque) -> Self {
        BtOpaqueJson {
            btpo_prev: o.btpo_prev,
            btpo_next: o.btpo_next,
            btpo_level: (!o.holds_xact()).then_some(o.btpo_level),
            btpo_xact: o.holds_xact().then_some(o.btpo_level),
            btpo_flags: o.btpo_flags,
            btpo_cycleid: o.btpo_cycleid,
            flags: flags::names(o.btpo_flags, flags::BTPO_FLAGS, 0xFFFF)
                .0
                .iter()
                .map(|f| f.name)
                .collect(),
        }
    }
}

/// `bt_page_items()` columns plus a verdict.
#[derive(Serialize)]
pub struct BtItemJson<'a> {
    pub itemoffset: u16,
    pub ctid: Option<String>,
    pub itemlen: Option<u16>,
    pub nulls: Option<bool>,
    pub vars: Option<bool>,
    pub data: Option<String>,
    pub dead: Option<bool>,
    pub htid: Option<String>,
    pub tids: Option<Vec<String>>,
    pub verdict: &'a str,
    /// The key attributes, when column types were given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attrs: Option<Vec<AttrJson<'a>>>,
}

impl<'a> BtItemJson<'a> {
    fn from_item(item: &'a BtItem) -> Self {
        let t = item.tuple.as_ref();
        BtItemJson {
            itemoffset: item.id.lp,
            ctid: t.map(|t| t.t_tid.to_string()),
            itemlen: t.map(|t| t.itemlen),
            nulls: t.map(|t| t.nulls),
            vars: t.map(|t| t.vars),
            data: t.map(|t| spaced_hex(&t.data)),
            dead: t.and_then(|t| t.dead),
            htid: t.and_then(|t| t.htid).map(|h| h.to_string()),
            tids: t.and_then(|t| t.tids.as_ref()).map(|v| tid_texts(v)),
            verdict: &item.verdict,
            attrs: item
                .keys
                .as_ref()
                .map(|v| v.iter().map(AttrJson::from_attr).collect()),
        }
    }
}

fn tid_texts(tids: &[ItemPointer]) -> Vec<String> {
    tids.iter().map(ItemPointer::to_string).collect()
}

/// bt_page_items' `data`: bytes as `01 00 00 00`.
pub(crate) fn spaced_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The other access methods, keyed by the pageinspect function that reports
/// the same values (or, where pageinspect has none, by what the data is).
#[derive(Serialize, Default)]
pub struct AmJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash_page_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash_page_stats: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash_metapage_info: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gin_page_opaque_info: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gin_metapage_info: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gist_page_opaque_info: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spgist_page_opaque: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brin_page_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brin_metapage_info: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brin_revmap_data: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fsm_page_contents: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility_map: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence_magic: Option<String>,
    /// hash_bitmap, gin_data_page, gin_leafpage_items, spgist_metapage.
    #[serde(flatten)]
    pub index_extras: serde_json::Map<String, serde_json::Value>,
}

impl AmJson {
    pub fn new(page: &PgPage, am: &AmData) -> Self {
        use serde_json::json;
        let mut j = AmJson::default();
        super::index::am_extras(am, &mut j.index_extras);
        match am {
            AmData::Btree { .. } => {}
            AmData::Hash {
                opaque,
                meta,
                stats,
                ..
            } => {
                j.hash_page_type = Some(names::hash_page_type(opaque.hasho_flag));
                j.hash_page_stats = stats.map(|s| {
                    json!({
                        "live_items": s.live_items,
                        "dead_items": s.dead_items,
                        "page_size": s.page_size,
                        "free_size": s.free_size,
                        "hasho_prevblkno": opaque.hasho_prevblkno,
                        "hasho_nextblkno": opaque.hasho_nextblkno,
                        "hasho_bucket": opaque.hasho_bucket,
                        "hasho_flag": opaque.hasho_flag,
                        "hasho_page_id": opaque.hasho_page_id,
                    })
                });
                j.hash_metapage_info = meta.as_ref().map(|m| {
                    let ntuples =
                        if m.hashm_ntuples.fract() == 0.0 && m.hashm_ntuples.abs() < 9.0e15 {
                            json!(m.hashm_ntuples as i64)
                        } else {
                            json!(m.hashm_ntuples)
                        };
                    json!({
                        "magic": m.hashm_magic,
                        "version": m.hashm_version,
                        "ntuples": ntuples,
                        "ffactor": m.hashm_ffactor,
                        "bsize": m.hashm_bsize,
                        "bmsize": m.hashm_bmsize,
                        "bmshift": m.hashm_bmshift,
                        "maxbucket": m.hashm_maxbucket,
                        "highmask": m.hashm_highmask,
                        "lowmask": m.hashm_lowmask,
                        "ovflpoint": m.hashm_ovflpoint,
                        "firstfree": m.hashm_firstfree,
                        "nmaps": m.hashm_nmaps,
                        "procid": m.hashm_procid,
                        "spares": m.hashm_spares,
                        "mapp": m.hashm_mapp,
                    })
                });
            }
            AmData::Gin { opaque, meta, .. } => {
                j.gin_page_opaque_info = Some(json!({
                    "rightlink": opaque.rightlink,
                    "maxoff": opaque.maxoff,
                    "flags": flags::pageinspect_names(opaque.flags, flags::GIN_FLAGS),
                }));
                j.gin_metapage_info = meta.map(|m| {
                    json!({
                        "pending_head": m.head,
                        "pending_tail": m.tail,
                        "tail_free_size": m.tail_free_size,
                        "n_pending_pages": m.n_pending_pages,
                        "n_pending_tuples": m.n_pending_heap_tuples,
                        "n_total_pages": m.n_total_pages,
                        "n_entry_pages": m.n_entry_pages,
                        "n_data_pages": m.n_data_pages,
                        "n_entries": m.n_entries,
                        "version": m.gin_version,
                    })
                });
            }
            AmData::Gist { opaque, .. } => {
                j.gist_page_opaque_info = Some(json!({
                    "lsn": page.header.as_ref().map(|h| h.pd_lsn.to_string()),
                    "nsn": opaque.nsn.to_string(),
                    "rightlink": opaque.rightlink,
                    "flags": flags::pageinspect_names(opaque.flags, flags::GIST_FLAGS),
                }));
            }
            AmData::SpGist { opaque, .. } => {
                j.spgist_page_opaque = Some(json!({
                    "flags": opaque.flags,
                    "nRedirection": opaque.n_redirection,
                    "nPlaceholder": opaque.n_placeholder,
                    "spgist_page_id": opaque.spgist_page_id,
                    "flag_names": flags::pageinspect_names(opaque.flags, flags::SPGIST_FLAGS),
                }));
            }
            AmData::Brin {
                special: sp,
                meta,
                revmap,
                ..
            } => {
                j.brin_page_type = Some(names::brin_page_type(sp.page_type));
                j.brin_metapage_info = meta.map(|m| {
                    json!({
                        "magic": format!("0x{:08X}", m.brin_magic),
                        "version": m.brin_version,
                        "pagesperrange": m.pages_per_range,
                        "lastrevmappage": m.last_revmap_page,
                    })
                });
                j.brin_revmap_data = revmap.as_ref().map(|v| tid_texts(v));
            }
            AmData::Sequence { magic } => j.sequence_magic = Some(format!("0x{magic:04x}")),
            AmData::Fsm(fsm) => {
                // fsm_page_contents(): one "node: value" line per non-zero node.
                let mut text = String::new();
                for (node, value) in &fsm.nodes {
                    let _ = writeln!(text, "{node}: {value}");
                }
                let _ = writeln!(text, "fp_next_slot: {}", fsm.fp_next_slot);
                j.fsm_page_contents = Some(text);
            }
            AmData::Vm(vm) => {
                let blocks: Vec<serde_json::Value> = vm
                    .blocks
                    .iter()
                    .map(|(b, v, f)| json!({"blkno": b, "all_visible": v, "all_frozen": f}))
                    .collect();
                j.visibility_map = Some(json!({
                    "first_heap_block": vm.first_heap_block,
                    "blocks": blocks,
                }));
            }
        }
        j
    }
}
