//! The formatted bodies of space-management blocks: segment headers (`Extent
//! Control Header` of types 0x10 and 0x23) and ASSM bitmap blocks (`Dump of
//! First Level Bitmap Block`, `Dump of Second Level Bitmap Block`) into the
//! model's [`SpaceBody`].
//!
//! Each line is matched against a pattern of words: literal words must be
//! there, `{}` is a number (decimal, or hexadecimal with `0x`), `{s}` any
//! word, and a suffix after `{}` (`{},`, `{}:`) must end the word. Blanks
//! between words do not matter (Oracle pads its numbers); the renderer puts
//! them back.

use crate::error::TextError;
use crate::model::oracle::space::{
    AssmHeader, AuxEntry, DbaRange, ExtentEntry, ExtentHeader, FileSpaceBitmap, FileSpaceHeader,
    FirstLevelBitmap, FreeBlock, FreeList, Freelists, Highwater, L1Range, MapHeader,
    SecondLevelBitmap, SegmentHeader, SpaceBody, TrnCtl, TrnSlot, UndoBlock, UndoHeader,
    UndoRecord,
};

use super::grammar::{clip, Line};
use super::lines::Lines;

/// Most entries of one list (extent map, ranges, freelists) read.
const MAX_ENTRIES: usize = 65_536;

/// A value a pattern captured.
enum Val<'a> {
    N(u32),
    S(&'a str),
}

fn number(w: &str) -> Option<u32> {
    match w.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => w.parse().ok(),
    }
}

/// Match `text` against `pattern`; `None` when it does not fit.
fn fit<'a>(text: &'a str, pattern: &str) -> Option<Vec<Val<'a>>> {
    let mut words = text.split_whitespace();
    let mut out = Vec::new();
    for p in pattern.split_whitespace() {
        let w = words.next()?;
        if p == "{s}" {
            out.push(Val::S(w));
        } else if let Some(suffix) = p.strip_prefix("{}") {
            let n = w.strip_suffix(suffix)?;
            out.push(Val::N(number(n)?));
        } else if p != w {
            return None;
        }
    }
    words.next().is_none().then_some(out)
}

fn nums(v: &[Val<'_>]) -> Vec<u32> {
    v.iter()
        .filter_map(|x| match x {
            Val::N(n) => Some(*n),
            Val::S(_) => None,
        })
        .collect()
}

fn n(v: &[u32], i: usize) -> u32 {
    v.get(i).copied().unwrap_or(0)
}

struct Cursor<'l, 'a> {
    lines: &'l mut Lines<'a>,
    what: &'static str,
}

impl<'a> Cursor<'_, 'a> {
    /// The next line must fit `pattern`: its numbers.
    fn expect(&mut self, pattern: &str) -> Result<Vec<u32>, TextError> {
        self.expect_vals(pattern).map(|v| nums(&v))
    }

    fn expect_vals(&mut self, pattern: &str) -> Result<Vec<Val<'a>>, TextError> {
        let Some(l) = self.lines.peek() else {
            return Err(TextError::whole(format!(
                "{}: the trace ends where `{pattern}` was expected",
                self.what
            )));
        };
        match fit(l.text, pattern) {
            Some(v) => {
                self.lines.advance();
                Ok(v)
            }
            None => Err(self.error(l, pattern)),
        }
    }

    fn error(&self, l: Line<'_>, pattern: &str) -> TextError {
        l.error(
            l.text,
            format!(
                "{}: expected `{}`, found {:?}",
                self.what,
                pattern.replace("{}", "N").replace("{s}", "WORD"),
                clip(l.text)
            ),
        )
    }

    /// The next line, when it fits `pattern`.
    fn try_fit(&mut self, pattern: &str) -> Option<Vec<u32>> {
        let l = self.lines.peek()?;
        let v = fit(l.text, pattern)?;
        self.lines.advance();
        Some(nums(&v))
    }

    /// A line of dashes.
    fn dashes(&mut self) -> Result<(), TextError> {
        match self.lines.peek() {
            Some(l) if is_dashes(l.text) => {
                self.lines.advance();
                Ok(())
            }
            Some(l) => Err(self.error(l, "-----")),
            None => Err(TextError::whole(format!(
                "{}: the trace ends where a line of dashes was expected",
                self.what
            ))),
        }
    }

    fn try_dashes(&mut self) -> bool {
        match self.lines.peek() {
            Some(l) if is_dashes(l.text) => {
                self.lines.advance();
                true
            }
            _ => false,
        }
    }

    /// The next line's trimmed text after `prefix`, when it starts so.
    fn try_prefix(&mut self, prefix: &str) -> Option<&'a str> {
        let l = self.lines.peek()?;
        let rest = l.text.trim_start().strip_prefix(prefix)?;
        self.lines.advance();
        Some(rest.trim())
    }

    fn expect_prefix(&mut self, prefix: &str) -> Result<&'a str, TextError> {
        let l = self.lines.peek();
        self.try_prefix(prefix).ok_or_else(|| match l {
            Some(l) => self.error(l, prefix),
            None => TextError::whole(format!(
                "{}: the trace ends where `{prefix}` was expected",
                self.what
            )),
        })
    }

    fn highwater_labels(&mut self, hash: bool) -> Result<Highwater, TextError> {
        let a = self.expect("Highwater:: {} ext#: {} blk#: {} ext size: {}")?;
        let b = self.expect(&labels(hash, "blocks in seg. hdr's freelists: {}"))?;
        let c = self.expect(&labels(hash, "blocks below: {}"))?;
        let d = self.expect("mapblk {} offset: {}")?;
        Ok(Highwater {
            dba: n(&a, 0),
            ext: n(&a, 1),
            blk: n(&a, 2),
            ext_size: n(&a, 3),
            freelist_blocks: n(&b, 0),
            blocks_below: n(&c, 0),
            mapblk: n(&d, 0),
            mapblk_offset: n(&d, 1),
        })
    }
}

/// The pattern with `#` before the labels 10g and 11g print so in undo
/// segment headers (`#extents:`, `#blocks:`, `#maps:`, `#blocks below:`).
fn labels(hash: bool, pattern: &str) -> String {
    if !hash {
        return pattern.to_string();
    }
    pattern
        .split_whitespace()
        .enumerate()
        .map(|(i, w)| match w {
            "extents:" | "blocks:" | "maps:" => format!("#{w}"),
            "blocks" if i == 0 => "#blocks".to_string(),
            _ => w.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_dashes(t: &str) -> bool {
    let t = t.trim();
    !t.is_empty() && t.bytes().all(|b| b == b'-')
}

/// `Extent Control Header` (the marker line is consumed) through the
/// extent map and, for ASSM, the auxiliary map and L2 list, or, for MSSM,
/// the freelists.
pub(super) fn segment_header(lines: &mut Lines<'_>) -> Result<SpaceBody, TextError> {
    let mut c = Cursor {
        lines,
        what: "segment header",
    };
    // The marker line, consumed by the caller: 11.2.0.4 prints it unindented.
    let marker_unindented = c
        .lines
        .get(c.lines.last_no())
        .is_some_and(|l| !l.text.starts_with(' '));
    c.dashes()?;
    let hash = c.lines.peek().is_some_and(|l| l.text.contains("#extents:"));
    let e1 = c.expect(&labels(
        hash,
        "Extent Header:: spare1: {} spare2: {} extents: {} blocks: {}",
    ))?;
    let e2 = c.expect(&labels(hash, "last map {} maps: {} offset: {}"))?;
    let highwater = c.highwater_labels(hash)?;
    let lock = c
        .lines
        .peek()
        .map(|l| l.text.trim().to_string())
        .unwrap_or_default();
    c.lines.advance();
    let mut h = SegmentHeader {
        extent_header: ExtentHeader {
            spare1: n(&e1, 0),
            spare2: n(&e1, 1),
            extents: n(&e1, 2),
            blocks: n(&e1, 3),
            last_map: n(&e2, 0),
            maps: n(&e2, 1),
            offset: n(&e2, 2),
        },
        highwater,
        lock,
        hash_labels: hash,
        ..SegmentHeader::default()
    };
    h.layout.marker_unindented = marker_unindented;
    if c.try_dashes() {
        let mut a = AssmHeader::default();
        let low = c.lines.next_no();
        c.expect("Low HighWater Mark :")?;
        h.layout.low_hwm_no_trailing_blank = c.lines.raw(low).is_some_and(|r| !r.ends_with(' '));
        // The labels as the Extent Control Header prints them (`#blocks
        // below:` in 11.2.0.4, `blocks below:` in the older copy).
        a.low_highwater = c.highwater_labels(hash)?;
        a.l1_high_hwm = n(&c.expect("Level 1 BMB for High HWM block: {}")?, 0);
        a.l1_low_hwm = n(&c.expect("Level 1 BMB for Low HWM block: {}")?, 0);
        c.dashes()?;
        let s = c.expect("Segment Type: {} nl2: {} blksz: {} fbsz: {}")?;
        a.segment_type = n(&s, 0);
        a.nl2 = n(&s, 1);
        a.blksz = n(&s, 2);
        a.fbsz = n(&s, 3);
        a.l2_array_offset = n(&c.expect("L2 Array start offset: {}")?, 0);
        a.first_l3 = n(&c.expect("First Level 3 BMB: {}")?, 0);
        a.l2_hint = n(&c.expect("L2 Hint for inserts: {}")?, 0);
        a.last_l1 = n(&c.expect("Last Level 1 BMB: {}")?, 0);
        a.last_l2 = n(&c.expect("Last Level II BMB: {}")?, 0);
        a.last_l3 = n(&c.expect("Last Level III BMB: {}")?, 0);
        h.assm = Some(a);
    }
    let m = c.expect(&labels(
        hash,
        "Map Header:: next {} extents: {} obj#: {} flag: {}",
    ))?;
    h.map_header = MapHeader {
        next: n(&m, 0),
        extents: n(&m, 1),
        obj: n(&m, 2),
        flag: n(&m, 3),
    };
    if let Some(a) = h.assm.as_mut() {
        // `Inc # 0` (11.2.0.4) or `Inc 0 `.
        a.inc = match c.try_fit("Inc # {}") {
            Some(v) => {
                a.inc_hash = true;
                n(&v, 0)
            }
            None => n(&c.expect("Inc {}")?, 0),
        };
    }
    c.expect("Extent Map")?;
    c.dashes()?;
    while h.extent_map.len() < MAX_ENTRIES {
        let Some(e) = c.try_fit("{} length: {}") else {
            break;
        };
        h.extent_map.push(ExtentEntry {
            dba: n(&e, 0),
            length: n(&e, 1),
        });
    }
    let mut layout = std::mem::take(&mut h.layout);
    if let Some(a) = h.assm.as_mut() {
        if c.lines.peek().is_some_and(|l| l.text.is_empty()) {
            c.lines.advance();
            layout.blank_after_extent_map = true;
        }
        if c.try_fit("Auxillary Map").is_some() {
            c.dashes()?;
            while a.aux_map.len() < MAX_ENTRIES {
                let Some(e) = c.try_fit("Extent {} : L1 dba: {} Data dba: {}") else {
                    break;
                };
                a.aux_map.push(AuxEntry {
                    extent: n(&e, 0),
                    l1_dba: n(&e, 1),
                    data_dba: n(&e, 2),
                });
            }
            c.dashes()?;
        }
        // 11.2.0.4: a blank line, then the heading at the line's start.
        let blank = c.lines.peek().is_some_and(|l| l.text.is_empty());
        let heading = c.lines.get(c.lines.next_no() + usize::from(blank));
        if heading.is_some_and(|l| {
            fit(l.text, "Second Level Bitmap block DBAs").is_some()
                && blank != l.text.starts_with(' ')
        }) {
            if blank {
                c.lines.advance();
            }
            layout.l2_heading_unindented = blank;
        }
        if c.try_fit("Second Level Bitmap block DBAs").is_some() {
            c.dashes()?;
            while a.l2_dbas.len() < MAX_ENTRIES {
                let Some(e) = c.try_fit("DBA {}: {}") else {
                    break;
                };
                a.l2_dbas.push(n(&e, 1));
            }
        }
    } else if let Some(f) = c.try_fit("nfl = {}, nfb = {} typ = {} nxf = {} ccnt = {}") {
        let mut fl = Freelists {
            nfl: n(&f, 0),
            nfb: n(&f, 1),
            typ: n(&f, 2),
            nxf: n(&f, 3),
            ccnt: n(&f, 4),
            seg_lst: Vec::new(),
        };
        while fl.seg_lst.len() < MAX_ENTRIES {
            let Some(l) = c.lines.peek() else { break };
            let Some(v) = fit(l.text, "SEG LST:: flg: {s} lhd: {} ltl: {}") else {
                break;
            };
            c.lines.advance();
            let flg = match v.first() {
                Some(Val::S(s)) => s.to_string(),
                _ => String::new(),
            };
            let ns = nums(&v);
            fl.seg_lst.push(FreeList {
                flg,
                lhd: n(&ns, 0),
                ltl: n(&ns, 1),
            });
        }
        h.freelists = Some(fl);
    } else {
        h.undo = undo_header(&mut c)?;
    }
    h.layout = layout;
    Ok(SpaceBody::SegmentHeader(h))
}

fn skip_blank(c: &mut Cursor<'_, '_>) {
    while c.lines.peek().is_some_and(|l| l.text.trim().is_empty()) {
        c.lines.advance();
    }
}

fn word_at<'a>(v: &[Val<'a>], i: usize) -> String {
    v.iter()
        .filter_map(|x| match x {
            Val::S(s) => Some(*s),
            Val::N(_) => None,
        })
        .nth(i)
        .unwrap_or("")
        .to_string()
}

/// After the extent map of an undo segment header (type 0x26): `Retention
/// Table`, `TRN CTL::`, `Version:`, `FREE BLOCK POOL::`, `TRN TBL::`. `None`
/// when no `TRN CTL::` follows (the lines are left unread).
fn undo_header(c: &mut Cursor<'_, '_>) -> Result<Option<Box<UndoHeader>>, TextError> {
    let start = c.lines.next_no();
    skip_blank(c);
    let mut u = UndoHeader::default();
    if c.try_fit("Retention Table").is_some() {
        c.dashes()?;
        while u.retention.len() < MAX_ENTRIES {
            let Some(l) = c.lines.peek() else { break };
            let Some(v) = retention(l.text) else { break };
            c.lines.advance();
            u.retention.push(v);
        }
        skip_blank(c);
    }
    let Some(l) = c.lines.peek() else {
        return Ok(None);
    };
    if !l.text.trim_start().starts_with("TRN CTL::") {
        // Not an undo header: leave the lines to the trace reader.
        c.lines.rewind_to(start);
        return Ok(None);
    }
    let a = c.expect("TRN CTL:: seq: {} chd: {} ctl: {} inc: {} nfb: {}")?;
    let b = c.expect("mgc: {} xts: {} flg: {} opt: {} {s}")?;
    let d = c.expect_vals("uba: {s} scn: {s}")?;
    u.trn_ctl = TrnCtl {
        seq: n(&a, 0),
        chd: n(&a, 1),
        ctl: n(&a, 2),
        inc: n(&a, 3),
        nfb: n(&a, 4),
        mgc: n(&b, 0),
        xts: n(&b, 1),
        flg: n(&b, 2),
        opt: n(&b, 3),
        uba: word_at(&d, 0),
        scn: word_at(&d, 1),
    };
    u.version = n(&c.expect("Version: {}")?, 0);
    c.expect("FREE BLOCK POOL::")?;
    while u.free_block_pool.len() < MAX_ENTRIES {
        let Some(l) = c.lines.peek() else { break };
        let Some(v) = fit(l.text, "uba: {s} ext: {} spc: {}") else {
            break;
        };
        c.lines.advance();
        let ns = nums(&v);
        u.free_block_pool.push(FreeBlock {
            uba: word_at(&v, 0),
            ext: n(&ns, 0),
            spc: n(&ns, 1),
        });
    }
    c.expect("TRN TBL::")?;
    skip_blank(c);
    let header = "index state cflags wrap# uel scn dba parent-xid nub stmt_num";
    if c.try_fit(header).is_none() {
        c.expect(&format!("{header} cmt"))?;
        u.cmt_column = true;
    }
    c.dashes()?;
    while u.trn_tbl.len() < MAX_ENTRIES {
        let Some(l) = c.lines.peek() else { break };
        let Some(slot) = trn_slot(l.text, u.cmt_column) else {
            break;
        };
        c.lines.advance();
        u.trn_tbl.push(slot);
    }
    if c.lines
        .peek()
        .is_some_and(|l| l.text.trim_start().starts_with("EXT TRN CTL::"))
    {
        while u.ext_trn.len() < MAX_ENTRIES {
            let Some(l) = c.lines.peek() else { break };
            if super::lines::marker(l.text).is_some() {
                break;
            }
            c.lines.advance();
            u.ext_trn.push(l.text.to_string());
        }
        while u.ext_trn.last().is_some_and(|l| l.trim().is_empty()) {
            u.ext_trn.pop();
        }
    }
    Ok(Some(Box::new(u)))
}

/// ` Extent Number:0  Commit Time: 1300038179`.
fn retention(text: &str) -> Option<(u32, u64)> {
    let rest = text.trim().strip_prefix("Extent Number:")?;
    let (ext, rest) = rest.split_once(char::is_whitespace)?;
    let time = rest.trim().strip_prefix("Commit Time:")?.trim();
    Some((ext.parse().ok()?, time.parse().ok()?))
}

/// One `TRN TBL::` line, with `**` before the slot the dump was asked for.
fn trn_slot(text: &str, cmt: bool) -> Option<TrnSlot> {
    let t = text.trim_start();
    let (marked, t) = match t.strip_prefix("**") {
        Some(r) => (true, r),
        None => (false, t),
    };
    let w: Vec<&str> = t.split_whitespace().collect();
    if w.len() != if cmt { 11 } else { 10 } {
        return None;
    }
    let hex = |s: &str| u32::from_str_radix(s.strip_prefix("0x")?, 16).ok();
    Some(TrnSlot {
        index: hex(w[0])?,
        state: w[1].parse().ok()?,
        cflags: hex(w[2])?,
        wrap: hex(w[3])?,
        uel: hex(w[4])?,
        scn: w[5].starts_with("0x").then(|| w[5].to_string())?,
        dba: hex(w[6])?,
        parent_xid: w[7].starts_with("0x").then(|| w[7].to_string())?,
        nub: hex(w[8])?,
        stmt_num: hex(w[9])?,
        cmt: match w.get(10) {
            Some(c) => Some(c.parse().ok()?),
            None => None,
        },
        marked,
    })
}

/// `UNDO BLK:` (consumed; `info` is the rest of its line) through its
/// records, which end at the next marker line or the end of the trace.
pub(super) fn undo_block(lines: &mut Lines<'_>, info: &str) -> Result<SpaceBody, TextError> {
    let mut c = Cursor {
        lines,
        what: "undo block",
    };
    let mut b = UndoBlock {
        info: info.trim().to_string(),
        ..UndoBlock::default()
    };
    b.xid_indent = c
        .lines
        .peek()
        .map_or(0, |l| l.text.len() - l.text.trim_start().len());
    let v = c.expect_vals("xid: {s} seq: {} cnt: {} irb: {} icl: {} flg: {}")?;
    b.xid = word_at(&v, 0);
    let ns = nums(&v);
    (b.seq, b.cnt, b.irb, b.icl, b.flg) = (n(&ns, 0), n(&ns, 1), n(&ns, 2), n(&ns, 3), n(&ns, 4));
    skip_blank(&mut c);
    let l = c.lines.peek();
    match l {
        Some(l) if is_rec_offset_head(l.text) => c.lines.advance(),
        Some(l) => return Err(c.error(l, "Rec Offset …")),
        None => {
            return Err(TextError::whole(
                "undo block: the trace ends where `Rec Offset` was expected".to_string(),
            ))
        }
    }
    c.dashes()?;
    while b.offsets.len() < MAX_ENTRIES {
        let Some(l) = c.lines.peek() else { break };
        let w: Vec<&str> = l.text.split_whitespace().collect();
        if w.is_empty() || !w.len().is_multiple_of(2) {
            break;
        }
        let pairs: Option<Vec<(u32, u32)>> = w
            .chunks(2)
            .map(|p| Some((number(p[0])?, number(p[1])?)))
            .collect();
        let Some(pairs) = pairs else { break };
        if !w.iter().all(|x| x.starts_with("0x")) {
            break;
        }
        c.lines.advance();
        b.offsets.extend(pairs);
    }
    skip_blank(&mut c);
    while b.records.len() < MAX_ENTRIES {
        let (Some(d), Some(r)) = (c.lines.peek(), c.lines.get(c.lines.next_no() + 1)) else {
            break;
        };
        if !is_star_dashes(d.text) || !r.text.starts_with("* Rec #") {
            break;
        }
        c.lines.advance();
        c.lines.advance();
        let mut rec = record_head(r.text).ok_or_else(|| {
            r.error(
                r.text,
                format!("undo block: cannot read {:?}", clip(r.text)),
            )
        })?;
        let Some(layer) = c.lines.peek() else { break };
        if !record_layer(layer.text, &mut rec) {
            return Err(layer.error(
                layer.text,
                format!(
                    "undo block: expected `* Layer: N (NAME) opc: N rci 0x…`, found {:?}",
                    clip(layer.text)
                ),
            ));
        }
        c.lines.advance();
        while rec.lines.len() < MAX_ENTRIES {
            let Some(l) = c.lines.peek() else { break };
            if super::lines::marker(l.text).is_some() {
                break;
            }
            if is_star_dashes(l.text)
                && c.lines
                    .get(l.no + 1)
                    .is_some_and(|n| n.text.starts_with("* Rec #"))
            {
                break;
            }
            c.lines.advance();
            rec.lines.push(l.text.to_string());
        }
        for l in &rec.lines {
            if let Some(t) = l.strip_prefix("Undo type:") {
                rec.undo_type.get_or_insert_with(|| t.trim().to_string());
            } else if let Some(t) = l.strip_prefix("uba:") {
                if rec.uba.is_none() {
                    rec.uba = t.split_whitespace().next().map(str::to_string);
                }
            } else if let Some(t) = l.strip_prefix("KDO Op code:") {
                rec.kdo_op_code.get_or_insert_with(|| t.trim().to_string());
            }
        }
        b.records.push(rec);
    }
    Ok(SpaceBody::UndoBlock(b))
}

/// ` Rec Offset      Rec Offset …`.
fn is_rec_offset_head(t: &str) -> bool {
    let w: Vec<&str> = t.split_whitespace().collect();
    !w.is_empty() && w.len().is_multiple_of(2) && w.chunks(2).all(|p| p == ["Rec", "Offset"])
}

fn is_star_dashes(t: &str) -> bool {
    t.strip_prefix('*')
        .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b == b'-'))
}

/// `* Rec #0xb  slt: 0x1a  objn: 45810(0x0000b2f2)  objd: 45810  tblspc: 12(0x0000000c)`.
fn record_head(text: &str) -> Option<UndoRecord> {
    let w: Vec<&str> = text.split_whitespace().collect();
    let ["*", "Rec", rec, "slt:", slt, "objn:", objn, "objd:", objd, "tblspc:", tblspc] =
        w.as_slice()
    else {
        return None;
    };
    let paren = |s: &str| -> Option<u32> { s.split('(').next()?.parse().ok() };
    Some(UndoRecord {
        rec: number(rec.strip_prefix('#')?)?,
        slt: number(slt)?,
        objn: paren(objn)?,
        objd: objd.parse().ok()?,
        tblspc: paren(tblspc)?,
        ..UndoRecord::default()
    })
}

/// `*       Layer:  11 (Row)   opc: 1   rci 0x00`.
fn record_layer(text: &str, rec: &mut UndoRecord) -> bool {
    let Some(rest) = text
        .strip_prefix('*')
        .and_then(|r| r.trim_start().strip_prefix("Layer:"))
    else {
        return false;
    };
    let Some((layer, rest)) = rest.trim_start().split_once(" (") else {
        return false;
    };
    let Some((name, rest)) = rest.split_once(')') else {
        return false;
    };
    let w: Vec<&str> = rest.split_whitespace().collect();
    let (Ok(layer), ["opc:", opc, "rci", rci]) = (layer.trim().parse(), w.as_slice()) else {
        return false;
    };
    let (Ok(opc), Some(rci)) = (opc.parse(), number(rci)) else {
        return false;
    };
    (rec.layer, rec.layer_name, rec.opc, rec.rci) = (layer, name.to_string(), opc, rci);
    true
}

/// `Dump of First Level Bitmap Block` (consumed) through its DBA ranges.
pub(super) fn first_level_bitmap(lines: &mut Lines<'_>) -> Result<SpaceBody, TextError> {
    let mut c = Cursor {
        lines,
        what: "first level bitmap block",
    };
    c.dashes()?;
    let mut b = FirstLevelBitmap::default();
    let v = c.expect("nbits : {} nranges: {} parent dba: {} poffset: {}")?;
    (b.nbits, b.nranges, b.parent_dba, b.poffset) = (n(&v, 0), n(&v, 1), n(&v, 2), n(&v, 3));
    let v = c.expect("unformatted: {} total: {} first useful block: {}")?;
    (b.unformatted, b.total, b.first_useful_block) = (n(&v, 0), n(&v, 1), n(&v, 2));
    b.owning_instance = n(&c.expect("owning instance : {}")?, 0);
    b.ownership_changed = c
        .expect_prefix("instance ownership changed at ")?
        .to_string();
    b.last_search = c.expect_prefix("Last successful Search ")?.to_string();
    let v = c.expect("Freeness Status: nf1 {} nf2 {} nf3 {} nf4 {}")?;
    b.nf = [n(&v, 0), n(&v, 1), n(&v, 2), n(&v, 3)];
    b.extent_map_block_offset = n(&c.expect("Extent Map Block Offset: {}")?, 0);
    b.first_free_datablock = n(&c.expect("First free datablock : {}")?, 0);
    b.lock_opcode = n(&c.expect("Bitmap block lock opcode {}")?, 0);
    b.locker_xid = c
        .expect_prefix("Locker xid:")?
        .trim_start_matches(':')
        .trim()
        .to_string();
    b.dealloc_scn = c.expect_prefix("Dealloc scn:")?.to_string();
    let v = c.expect_vals("Flag: {} {s}")?;
    b.flag = n(&nums(&v), 0);
    b.flag_text = match v.get(1) {
        Some(Val::S(s)) => s.trim_start_matches('(').trim_end_matches(')').to_string(),
        _ => String::new(),
    };
    let v = c.expect("Inc: {} Objd: {}")?;
    (b.inc, b.objd) = (n(&v, 0), n(&v, 1));
    b.hwm_flag = c.expect_prefix("HWM Flag:")?.to_string();
    // 11.2.0.4 prints `#blocks in seg. hdr's freelists:` here too.
    b.hash_labels = c
        .lines
        .get(c.lines.next_no() + 1)
        .is_some_and(|l| l.text.trim_start().starts_with("#blocks"));
    b.highwater = c.highwater_labels(b.hash_labels)?;
    c.dashes()?;
    c.expect("DBA Ranges :")?;
    c.dashes()?;
    while b.ranges.len() < MAX_ENTRIES {
        let Some(r) = c.try_fit("{} Length: {} Offset: {}") else {
            break;
        };
        let mut range = DbaRange {
            dba: n(&r, 0),
            length: n(&r, 1),
            offset: n(&r, 2),
            states: Vec::new(),
        };
        // 11.2.0.4: a blank line before the states.
        if c.lines.peek().is_some_and(|l| l.text.is_empty())
            && c.lines
                .get(c.lines.next_no() + 1)
                .is_some_and(|l| block_states(l.text).is_some())
        {
            c.lines.advance();
            b.blank_before_states = true;
        }
        while let Some(l) = c.lines.peek() {
            let Some(states) = block_states(l.text) else {
                break;
            };
            if range.states.len() + states.len() > MAX_ENTRIES {
                break;
            }
            c.lines.advance();
            range.states.extend(states);
        }
        b.ranges.push(range);
    }
    c.dashes()?;
    Ok(SpaceBody::FirstLevelBitmap(b))
}

/// `0:Metadata   1:Metadata   3:75-100% free`: block numbers and states.
fn block_states(text: &str) -> Option<Vec<(u32, String)>> {
    let t = text.trim();
    let mut out: Vec<(u32, String)> = Vec::new();
    for w in t.split("   ") {
        let w = w.trim();
        if w.is_empty() {
            continue;
        }
        let (no, state) = w.split_once(':')?;
        let no: u32 = no.parse().ok()?;
        if state.is_empty() {
            return None;
        }
        out.push((no, state.to_string()));
    }
    (!out.is_empty()).then_some(out)
}

/// `Dump of Second Level Bitmap Block` (consumed) through its L1 ranges.
pub(super) fn second_level_bitmap(lines: &mut Lines<'_>) -> Result<SpaceBody, TextError> {
    let mut c = Cursor {
        lines,
        what: "second level bitmap block",
    };
    let mut b = SecondLevelBitmap::default();
    let first = c.lines.next_no();
    let v = c.expect("number: {} nfree: {} ffree: {} pdba: {}")?;
    b.no_trailing_blanks = c.lines.raw(first).is_some_and(|r| !r.ends_with(' '));
    (b.number, b.nfree, b.ffree, b.pdba) = (n(&v, 0), n(&v, 1), n(&v, 2), n(&v, 3));
    let v = match c.try_fit("Inc #: {} Objd: {}") {
        Some(v) => {
            b.inc_hash = true;
            v
        }
        None => c.expect("Inc: {} Objd: {}")?,
    };
    (b.inc, b.objd) = (n(&v, 0), n(&v, 1));
    let op = c.expect_prefix("opcode:")?;
    b.opcode = number(op).unwrap_or(0);
    b.xid = c.expect_prefix("xid:")?.to_string();
    c.expect("L1 Ranges :")?;
    c.dashes()?;
    while b.ranges.len() < MAX_ENTRIES {
        let Some(r) = c.try_fit("{} Free: {} Inst: {}") else {
            break;
        };
        b.ranges.push(L1Range {
            dba: n(&r, 0),
            free: n(&r, 1),
            inst: n(&r, 2),
        });
    }
    if c.lines.peek().is_some_and(|l| l.text.is_empty()) {
        c.lines.advance();
        b.blank_after_ranges = true;
    }
    c.dashes()?;
    Ok(SpaceBody::SecondLevelBitmap(b))
}

/// `File Space Header Block:` (consumed) through `Header Opcode:` / `Save:`
/// (type 0x1d). The `AutoExtend:`, `Deallocation scn:` and opcode lines are
/// optional: 9.2 prints fewer lines than 10g and later.
pub(super) fn file_space_header(lines: &mut Lines<'_>) -> Result<SpaceBody, TextError> {
    let mut c = Cursor {
        lines,
        what: "file space header block",
    };
    let mut h = FileSpaceHeader::default();
    c.expect("Header Control:")?;
    let v = c.expect("RelFno: {}, Unit: {}, Size: {}, Flag: {}")?;
    (h.relfno, h.unit, h.size, h.flag) = (n(&v, 0), n(&v, 1), n(&v, 2), n(&v, 3));
    if let Some(l) = c.lines.peek() {
        if let Some(v) = fit(l.text, "AutoExtend: {s} Increment: {}, MaxSize: {}") {
            let auto = match v.first() {
                Some(Val::S("YES,")) => true,
                Some(Val::S("NO,")) => false,
                _ => return Err(c.error(l, "AutoExtend: YES|NO, Increment: {}, MaxSize: {}")),
            };
            c.lines.advance();
            let v = nums(&v);
            (h.autoextend, h.increment, h.maxsize) = (Some(auto), n(&v, 0), n(&v, 1));
        }
    }
    let v = c.expect("Initial Area: {}, Tail: {}, First: {}, Free: {}")?;
    (h.initial_area, h.tail, h.first, h.free) = (n(&v, 0), n(&v, 1), n(&v, 2), n(&v, 3));
    h.dealloc_scn = c.try_prefix("Deallocation scn:").map(str::to_string);
    if c.try_fit("Header Opcode:").is_some() {
        h.opcode_save = Some(c.expect_prefix("Save:")?.to_string());
    }
    Ok(SpaceBody::FileSpaceHeader(h))
}

/// A line of the KTFB bitmap: words of 16 hex digits.
fn is_bitmap_line(text: &str) -> bool {
    let mut words = text.split_whitespace().peekable();
    words.peek().is_some()
        && words.all(|w| w.len() == 16 && w.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `File Space Bitmap Block:` (consumed), `BitMap Control:` and the bitmap
/// lines (type 0x1e).
pub(super) fn file_space_bitmap(lines: &mut Lines<'_>) -> Result<SpaceBody, TextError> {
    let mut c = Cursor {
        lines,
        what: "file space bitmap block",
    };
    let mut b = FileSpaceBitmap::default();
    c.expect("BitMap Control:")?;
    let v = c.expect("RelFno: {}, BeginBlock: {}, Flag: {}, First: {}, Free: {}")?;
    (b.relfno, b.begin_block, b.flag, b.first, b.free) =
        (n(&v, 0), n(&v, 1), n(&v, 2), n(&v, 3), n(&v, 4));
    while b.bitmap.len() < MAX_ENTRIES {
        match c.lines.peek() {
            Some(l) if is_bitmap_line(l.text) => {
                b.bitmap.push(l.text.trim_end().to_string());
                c.lines.advance();
            }
            _ => break,
        }
    }
    Ok(SpaceBody::FileSpaceBitmap(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_fit_padded_words() {
        let v = fit(
            "  Extent Header:: spare1: 0      spare2: 0     extents: 1     blocks: 7     ",
            "Extent Header:: spare1: {} spare2: {} extents: {} blocks: {}",
        )
        .map(|v| nums(&v));
        assert_eq!(v, Some(vec![0, 0, 1, 7]));
        assert!(fit("DBA 1:   0x01800081", "DBA {}: {}").is_some());
        assert!(fit(
            "nfl = 2, nfb = 1 typ = 1 nxf = 0 ccnt = 1",
            "nfl = {}, nfb = {} typ = {} nxf = {} ccnt = {}"
        )
        .is_some());
        assert!(fit("Extent Map extra", "Extent Map").is_none());
        assert_eq!(
            block_states("   4:75-100% free   5:FULL"),
            Some(vec![(4, "75-100% free".into()), (5, "FULL".into())])
        );
        assert_eq!(block_states("  Extent Map"), None);
    }
}
