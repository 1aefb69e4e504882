//! JSON for Oracle blocks: the model's structures under Oracle's own names
//! (`kcbh.type_kcbh`, `ktbbh.ktbbhitl[0].kxidusn`, `table.kdbh.kdbhnrow` …) with
//! numbers as JSON numbers, plus — beside each raw value — the form Oracle's
//! dump prints (`"xid": "0x0007.01d.000001d0"`, `"fb": "--H-FL--"`).
//! The schema is documented in the README ("Oracle JSON").

use serde_json::{json, Map, Value};

use crate::model::oracle::{OracleBlock, Rdba};
use crate::parse::oracle::ktb::{scn_fsc_text, uba_text, xid_text};
use crate::parse::oracle::names;

/// One block as a JSON value: `{"engine": "oracle", "blkno": …, "kind": …, "kcbh": {…}, …}`.
pub fn block_json(block: &OracleBlock, bigfile: bool) -> Value {
    let mut v = serde_json::to_value(block).unwrap_or(Value::Null);
    let Value::Object(map) = &mut v else {
        return v;
    };
    let mut out = Map::new();
    out.insert("engine".into(), json!("oracle"));
    out.extend(std::mem::take(map));

    if let (Some(h), Some(Value::Object(k))) = (&block.kcbh, out.get_mut("kcbh")) {
        let (file, blk) = Rdba(h.rdba_kcbh).split(bigfile);
        let (flag_names, _) = names::kcbh_flag_names(h.flg_kcbh);
        k.insert(
            "type_name".into(),
            json!(names::block_type_name(h.type_kcbh).unwrap_or("unknown")),
        );
        k.insert("block_size".into(), json!(h.block_size()));
        k.insert(
            "rdba".into(),
            json!({"hex": format!("0x{:08x}", h.rdba_kcbh), "file": file, "block": blk}),
        );
        k.insert("scn".into(), json!(h.scn().value()));
        k.insert("flg_names".into(), json!(flag_names));
    }
    if let Some(t) = &block.ktbbh {
        if let Some(Value::Object(k)) = out.get_mut("ktbbh") {
            k.insert(
                "flg".into(),
                json!(names::ktbbh_flag_letter(t.ktbbhflg).to_string()),
            );
            k.insert("csc".into(), json!(t.ktbbhcsc.value()));
            if let Some(Value::Array(itls)) = k.get_mut("ktbbhitl") {
                for (j, itl) in itls.iter_mut().zip(&t.ktbbhitl) {
                    if let Value::Object(m) = j {
                        m.insert("xid".into(), json!(xid_text(itl)));
                        m.insert("uba".into(), json!(uba_text(itl)));
                        m.insert("flag".into(), json!(names::itl_flag_string(itl.ktbitflg)));
                        m.insert("lck".into(), json!(itl.lock_count()));
                        m.insert("scn_fsc".into(), json!(scn_fsc_text(itl)));
                    }
                }
            }
        }
    }
    if let Some(tab) = &block.table {
        if let Some(Value::Object(t)) = out.get_mut("table") {
            if let Some(Value::Array(rows)) = t.get_mut("rows") {
                for (j, row) in rows.iter_mut().zip(&tab.rows) {
                    if let Value::Object(m) = j {
                        m.insert("fb".into(), json!(names::row_flag_string(row.flag)));
                    }
                }
            }
        }
    }
    if let Some(ix) = &block.index {
        if let Some(Value::Object(t)) = out.get_mut("index") {
            if let Some(Value::Array(entries)) = t.get_mut("entries") {
                for (j, e) in entries.iter_mut().zip(&ix.entries) {
                    if let (Value::Object(m), Some(f)) = (j, e.flag) {
                        m.insert("flag_string".into(), json!(names::index_flag_string(f)));
                    }
                }
            }
        }
    }
    Value::Object(out)
}
