//! Segment headers and ASSM bitmap blocks as Oracle's block dump prints them
//! (`Extent Control Header` …, `Dump of First Level Bitmap Block` …). The
//! padding of each number follows the published dumps these lines were read
//! from (fixtures/oracle/blocks/); a number wider than its field pushes the
//! rest of the line right, as C's `%-6u` does.

use std::fmt::Write as _;

use crate::model::oracle::space::{
    FileSpaceBitmap, FileSpaceHeader, FirstLevelBitmap, Highwater, SecondLevelBitmap,
    SegmentHeader, SpaceBody, UndoBlock, UndoHeader,
};
use crate::model::oracle::{FileHeader, Scn};

const DASH65: &str = "-----------------------------------------------------------------";
const DASH56: &str = "--------------------------------------------------------";

macro_rules! line {
    ($s:expr, $($arg:tt)*) => {{
        let _ = writeln!($s, $($arg)*);
    }};
}

/// The body's lines, each ending in `\n`.
pub(crate) fn space_text(body: &SpaceBody) -> String {
    let mut s = String::new();
    match body {
        SpaceBody::SegmentHeader(h) => segment_header(&mut s, h),
        SpaceBody::FirstLevelBitmap(b) => first_level(&mut s, b),
        SpaceBody::SecondLevelBitmap(b) => second_level(&mut s, b),
        SpaceBody::UndoBlock(b) => undo_block(&mut s, b),
        SpaceBody::FileSpaceHeader(h) => file_space_header(&mut s, h),
        SpaceBody::FileSpaceBitmap(b) => file_space_bitmap(&mut s, b),
        SpaceBody::Unparsed(u) => {
            for l in &u.lines {
                line!(s, "{l}");
            }
        }
    }
    s
}

/// The lines of `dump file header` (`file_hdrs`) whose form is established
/// by published dumps, from a datafile header block's `kcvfh`: the `V10
/// STYLE FILE HEADER:` summary and the checkpoint (`Checkpointed at scn:`,
/// `thread:… rba:(…)`). `scn16`: the 12.2+ form of an SCN (16 hex digits).
pub(crate) fn file_header_text(fh: &FileHeader, scn16: bool) -> String {
    let mut s = String::new();
    let scn = |v: &Scn| {
        if scn16 {
            format!("0x{:016x}", v.value())
        } else {
            format!("0x{:04x}.{:08x}", v.wrap(), v.kscnbas)
        }
    };
    let r = &fh.recovery;
    line!(s, "  V10 STYLE FILE HEADER:");
    line!(
        s,
        "          Compatibility Vsn = {}=0x{:x}",
        fh.kccfhcvn,
        fh.kccfhcvn
    );
    line!(
        s,
        "          Db ID={}=0x{:x}, Db Name='{}'",
        fh.kccfhdbi,
        fh.kccfhdbi,
        fh.kccfhdbn
    );
    line!(
        s,
        "          Activation ID={}=0x{:x}",
        r.kccfhacid,
        r.kccfhacid
    );
    line!(
        s,
        "          Control Seq={}=0x{:x}, File size={}=0x{:x}",
        fh.kccfhcsq,
        fh.kccfhcsq,
        fh.kccfhfsz,
        fh.kccfhfsz
    );
    let ty = match fh.kccfhtyp {
        1 => " CONTROL",
        3 => " DATA",
        _ => "",
    };
    line!(
        s,
        "          File Number={}, Blksiz={}, File Type={}{ty}",
        fh.kccfhfno,
        fh.kccfhbsz,
        fh.kccfhtyp
    );
    line!(
        s,
        "Checkpointed at scn:  {} {}",
        scn(&fh.kcvfhckp_scn),
        r.checkpoint_time
    );
    line!(
        s,
        " thread:{} rba:(0x{:x}.{:x}.{:x})",
        r.kcvcpthr,
        r.kcvcprba.kcrbaseq,
        r.kcvcprba.kcrbabno,
        r.kcvcprba.kcrbabof
    );
    s
}

/// `File Space Header Block:` as 10g–19c print it (9.2 has no `Deallocation
/// scn:` line; the lines a dump did not carry are left out).
fn file_space_header(s: &mut String, h: &FileSpaceHeader) {
    line!(s, "File Space Header Block:");
    line!(s, "Header Control:");
    line!(
        s,
        "RelFno: {}, Unit: {}, Size: {}, Flag: {}",
        h.relfno,
        h.unit,
        h.size,
        h.flag
    );
    if let Some(auto) = h.autoextend {
        line!(
            s,
            "AutoExtend: {}, Increment: {}, MaxSize: {}",
            if auto { "YES" } else { "NO" },
            h.increment,
            h.maxsize
        );
    }
    line!(
        s,
        "Initial Area: {}, Tail: {}, First: {}, Free: {}",
        h.initial_area,
        h.tail,
        h.first,
        h.free
    );
    if let Some(d) = &h.dealloc_scn {
        line!(s, "Deallocation scn: {d}");
    }
    if let Some(save) = &h.opcode_save {
        line!(s, "Header Opcode:");
        line!(s, "Save: {save}");
    }
    if h.from_bytes {
        line!(
            s,
            "[blockscope: Deallocation scn and Header Opcode: where the block stores them \
             is not established; not decoded]"
        );
    }
}

/// `File Space Bitmap Block:` with the bitmap lines as read.
fn file_space_bitmap(s: &mut String, b: &FileSpaceBitmap) {
    line!(s, "File Space Bitmap Block:");
    line!(s, "BitMap Control:");
    line!(
        s,
        "RelFno: {}, BeginBlock: {}, Flag: {}, First: {}, Free: {}",
        b.relfno,
        b.begin_block,
        b.flag,
        b.first,
        b.free
    );
    for l in &b.bitmap {
        line!(s, "{l}");
    }
}

/// `hash`: the labels as 10g and 11g print them in undo segment headers
/// (`  #blocks in seg. hdr's freelists:`).
fn highwater_labels(s: &mut String, h: &Highwater, hash: bool) {
    let (lead, mark) = if hash { ("  ", "#") } else { (" ", "") };
    line!(
        s,
        "      Highwater::  0x{:08x}  ext#: {:<6} blk#: {:<6} ext size: {:<5} ",
        h.dba,
        h.ext,
        h.blk,
        h.ext_size
    );
    line!(
        s,
        "{lead}{mark}blocks in seg. hdr's freelists: {:<5} ",
        h.freelist_blocks
    );
    line!(s, "{lead}{mark}blocks below: {:<5} ", h.blocks_below);
    line!(
        s,
        "  mapblk  0x{:08x}  offset: {:<5} ",
        h.mapblk,
        h.mapblk_offset
    );
}

fn segment_header(s: &mut String, h: &SegmentHeader) {
    let e = &h.extent_header;
    let l = &h.layout;
    let indent = if l.marker_unindented { "" } else { "  " };
    line!(s, "{indent}Extent Control Header");
    line!(s, "  {DASH65}");
    if h.hash_labels {
        line!(
            s,
            "  Extent Header:: spare1: {:<6} spare2: {:<6} #extents: {:<6} #blocks: {:<6}",
            e.spare1,
            e.spare2,
            e.extents,
            e.blocks
        );
        line!(
            s,
            "                  last map  0x{:08x}  #maps: {:<6} offset: {:<5} ",
            e.last_map,
            e.maps,
            e.offset
        );
    } else {
        line!(
            s,
            "  Extent Header:: spare1: {:<6} spare2: {:<5} extents: {:<5} blocks: {:<5} ",
            e.spare1,
            e.spare2,
            e.extents,
            e.blocks
        );
        line!(
            s,
            "                  last map  0x{:08x} maps: {:<6} offset: {:<5} ",
            e.last_map,
            e.maps,
            e.offset
        );
    }
    highwater_labels(s, &h.highwater, h.hash_labels);
    line!(s, "                   {}", h.lock);
    if let Some(a) = &h.assm {
        line!(s, "  {DASH56}");
        let blank = if l.low_hwm_no_trailing_blank { "" } else { " " };
        line!(s, "  Low HighWater Mark :{blank}");
        highwater_labels(s, &a.low_highwater, h.hash_labels);
        line!(
            s,
            "  Level 1 BMB for High HWM block: 0x{:08x}",
            a.l1_high_hwm
        );
        line!(s, "  Level 1 BMB for Low HWM block: 0x{:08x}", a.l1_low_hwm);
        line!(s, "  {DASH56}");
        line!(
            s,
            "  Segment Type: {} nl2: {:<6} blksz: {:<6} fbsz: {:<6} ",
            a.segment_type,
            a.nl2,
            a.blksz,
            a.fbsz
        );
        line!(s, "  L2 Array start offset:  0x{:08x}", a.l2_array_offset);
        line!(s, "  First Level 3 BMB:  0x{:08x}", a.first_l3);
        line!(s, "  L2 Hint for inserts:  0x{:08x}", a.l2_hint);
        line!(s, "  Last Level 1 BMB:  0x{:08x}", a.last_l1);
        line!(s, "  Last Level II BMB:  0x{:08x}", a.last_l2);
        line!(s, "  Last Level III BMB:  0x{:08x}", a.last_l3);
    }
    let m = &h.map_header;
    let (sep, mark) = if h.hash_labels {
        ("  ", "#")
    } else {
        (" ", "")
    };
    line!(
        s,
        "     Map Header:: next  0x{:08x}{sep}{mark}extents: {:<4} obj#: {:<6} flag: 0x{:08x}",
        m.next,
        m.extents,
        m.obj,
        m.flag
    );
    if let Some(a) = &h.assm {
        if a.inc_hash {
            line!(s, "  Inc # {}", a.inc);
        } else {
            line!(s, "  Inc {} ", a.inc);
        }
    }
    line!(s, "  Extent Map");
    line!(s, "  {DASH65}");
    for x in &h.extent_map {
        line!(s, "   0x{:08x}  length: {:<5} ", x.dba, x.length);
    }
    if let Some(a) = &h.assm {
        if l.blank_after_extent_map {
            s.push('\n');
        }
        line!(s, "  Auxillary Map");
        line!(s, "  {DASH56}");
        for x in &a.aux_map {
            line!(
                s,
                "   Extent {:<5} :  L1 dba:  0x{:08x} Data dba:  0x{:08x}",
                x.extent,
                x.l1_dba,
                x.data_dba
            );
        }
        line!(s, "  {DASH56}");
        if l.l2_heading_unindented {
            s.push('\n');
            line!(s, "Second Level Bitmap block DBAs");
        } else {
            line!(s, "   Second Level Bitmap block DBAs ");
        }
        line!(s, "   {DASH56}");
        for (i, d) in a.l2_dbas.iter().enumerate() {
            line!(s, "   DBA {}:   0x{d:08x}", i + 1);
        }
    }
    if let Some(u) = &h.undo {
        undo_header(s, u);
    }
    if let Some(f) = &h.freelists {
        line!(
            s,
            "  nfl = {}, nfb = {} typ = {} nxf = {} ccnt = {}",
            f.nfl,
            f.nfb,
            f.typ,
            f.nxf,
            f.ccnt
        );
        for l in &f.seg_lst {
            line!(
                s,
                "  SEG LST:: flg: {:<6} lhd: 0x{:08x} ltl: 0x{:08x} ",
                l.flg,
                l.lhd,
                l.ltl
            );
        }
    }
}

const DASH59: &str = "-----------------------------------------------------------";
const DASH96: &str =
    "------------------------------------------------------------------------------------------------";

fn undo_header(s: &mut String, u: &UndoHeader) {
    line!(s, "  ");
    if !u.retention.is_empty() {
        line!(s, " Retention Table ");
        line!(s, "  {DASH59}");
        for (ext, time) in &u.retention {
            line!(s, " Extent Number:{ext}  Commit Time: {time}");
        }
        line!(s, "  ");
    }
    let t = &u.trn_ctl;
    line!(
        s,
        "  TRN CTL:: seq: 0x{:04x} chd: 0x{:04x} ctl: 0x{:04x} inc: 0x{:08x} nfb: 0x{:04x}",
        t.seq,
        t.chd,
        t.ctl,
        t.inc,
        t.nfb
    );
    line!(
        s,
        "            mgc: 0x{:04x} xts: 0x{:04x} flg: 0x{:04x} opt: {} (0x{:08x})",
        t.mgc,
        t.xts,
        t.flg,
        t.opt,
        t.opt
    );
    line!(s, "            uba: {} scn: {}", t.uba, t.scn);
    line!(s, "Version: 0x{:02x}", u.version);
    line!(s, "  FREE BLOCK POOL::");
    for f in &u.free_block_pool {
        line!(
            s,
            "    uba: {} ext: 0x{:<2x} spc: 0x{:<6x}",
            f.uba,
            f.ext,
            f.spc
        );
    }
    line!(s, "  TRN TBL::");
    line!(s, " ");
    let cmt = if u.cmt_column { "    cmt" } else { "" };
    line!(
        s,
        "  index  state cflags  wrap#    uel         scn            dba            parent-xid    nub     stmt_num{cmt}"
    );
    line!(s, "  {DASH96}");
    for x in &u.trn_tbl {
        let _ = write!(
            s,
            "{}0x{:02x}   {:>2}    0x{:02x}  0x{:04x}  0x{:04x}  {}  0x{:08x}  {}  0x{:08x}   0x{:08x}",
            if x.marked { "** " } else { "   " },
            x.index,
            x.state,
            x.cflags,
            x.wrap,
            x.uel,
            x.scn,
            x.dba,
            x.parent_xid,
            x.nub,
            x.stmt_num
        );
        if let Some(c) = x.cmt {
            let _ = write!(s, "  {c}");
        }
        s.push('\n');
    }
    for l in &u.ext_trn {
        line!(s, "{l}");
    }
}

fn undo_block(s: &mut String, b: &UndoBlock) {
    line!(s, " ");
    line!(s, "{}", "*".repeat(80));
    line!(s, "UNDO BLK:  {}", b.info);
    line!(
        s,
        "{}xid: {}  seq: 0x{:<3x} cnt: 0x{:<3x} irb: 0x{:<3x} icl: 0x{:<3x} flg: 0x{:04x}",
        " ".repeat(b.xid_indent.min(8)),
        b.xid,
        b.seq,
        b.cnt,
        b.irb,
        b.icl,
        b.flg
    );
    line!(s, " ");
    line!(
        s,
        " Rec Offset      Rec Offset      Rec Offset      Rec Offset      Rec Offset"
    );
    line!(s, "{}", "-".repeat(75));
    for chunk in b.offsets.chunks(5) {
        for (rec, off) in chunk {
            let _ = write!(s, "0x{rec:02x} 0x{off:04x}     ");
        }
        s.push('\n');
    }
    s.push('\n');
    s.push('\n');
    if b.from_bytes {
        line!(
            s,
            "[blockscope: the undo records (`* Rec #…`) are not decoded from bytes: their \
             layout is not established by a published source]"
        );
    }
    for r in &b.records {
        line!(s, "*-----------------------------");
        line!(
            s,
            "* Rec #0x{:x}  slt: 0x{:02x}  objn: {}(0x{:08x})  objd: {}  tblspc: {}(0x{:08x})",
            r.rec,
            r.slt,
            r.objn,
            r.objn,
            r.objd,
            r.tblspc,
            r.tblspc
        );
        line!(
            s,
            "*       Layer: {:>3} ({})   opc: {}   rci 0x{:02x}   ",
            r.layer,
            r.layer_name,
            r.opc,
            r.rci
        );
        for l in &r.lines {
            line!(s, "{l}");
        }
    }
}

fn first_level(s: &mut String, b: &FirstLevelBitmap) {
    line!(s, "Dump of First Level Bitmap Block");
    line!(s, " --------------------------------");
    line!(
        s,
        "   nbits : {} nranges: {:<9} parent dba:  0x{:08x}   poffset: {:<5} ",
        b.nbits,
        b.nranges,
        b.parent_dba,
        b.poffset
    );
    line!(
        s,
        "   unformatted: {:<7} total: {:<9} first useful block: {:<6} ",
        b.unformatted,
        b.total,
        b.first_useful_block
    );
    line!(s, "   owning instance : {}", b.owning_instance);
    line!(
        s,
        "   instance ownership changed at {}",
        b.ownership_changed
    );
    line!(s, "   Last successful Search {}", b.last_search);
    line!(
        s,
        "   Freeness Status:  nf1 {:<6} nf2 {:<6} nf3 {:<6} nf4 {:<6} ",
        b.nf[0],
        b.nf[1],
        b.nf[2],
        b.nf[3]
    );
    line!(
        s,
        "   Extent Map Block Offset: {} ",
        b.extent_map_block_offset
    );
    line!(
        s,
        "   First free datablock : {:<6} ",
        b.first_free_datablock
    );
    line!(s, "   Bitmap block lock opcode {}", b.lock_opcode);
    line!(s, "   Locker xid:     :  {}", b.locker_xid);
    line!(s, "   Dealloc scn: {} ", b.dealloc_scn);
    line!(s, "   Flag: 0x{:08x} ({})", b.flag, b.flag_text);
    line!(s, "   Inc: {} Objd: {} ", b.inc, b.objd);
    line!(s, "  HWM Flag: {}", b.hwm_flag);
    highwater_labels(s, &b.highwater, b.hash_labels);
    line!(s, "  {DASH56}");
    line!(s, "  DBA Ranges :");
    line!(s, "  {DASH56}");
    for r in &b.ranges {
        line!(
            s,
            "   0x{:08x}  Length: {:<6} Offset: {:<6} ",
            r.dba,
            r.length,
            r.offset
        );
        if b.blank_before_states {
            s.push('\n');
        }
        for chunk in r.states.chunks(4) {
            let parts: Vec<String> = chunk.iter().map(|(n, st)| format!("{n}:{st}")).collect();
            line!(s, "   {}", parts.join("   "));
        }
    }
    line!(s, "  {DASH56}");
}

fn second_level(s: &mut String, b: &SecondLevelBitmap) {
    let end = if b.no_trailing_blanks { "" } else { " " };
    line!(s, "Dump of Second Level Bitmap Block");
    line!(
        s,
        "   number: {:<7} nfree: {:<7} ffree: {:<6} pdba:     0x{:08x}{end}",
        b.number,
        b.nfree,
        b.ffree,
        b.pdba
    );
    let inc = if b.inc_hash { "Inc #:" } else { "Inc:" };
    line!(s, "   {inc} {} Objd: {}", b.inc, b.objd);
    line!(s, "  opcode:{}{end}", b.opcode);
    if b.xid.is_empty() {
        line!(s, " xid:{end}");
    } else {
        line!(s, " xid: {}", b.xid);
    }
    line!(s, "  L1 Ranges :");
    line!(s, "  {DASH56}");
    for r in &b.ranges {
        line!(
            s,
            "   0x{:08x}  Free: {} Inst: {}{end}",
            r.dba,
            r.free,
            r.inst
        );
    }
    if b.blank_after_ranges {
        s.push('\n');
    }
    line!(s, "  {DASH56}");
}
