//! Oracle's block dump text, as `alter system dump datafile N block M` writes
//! it to a trace file — model in, text out (§6 of oracle-block-format.md).
//!
//! The layout follows the release chosen with [`DumpOptions::version`] (or
//! implied by the block, else 12.1): the SCN print forms, the buffer-cache
//! lines and small spacing differences change between 10g, 11g, 12.1 and
//! 12.2+. What a block does not carry — the tablespace number, the absolute
//! file number, the buffer's memory address — comes from the options; without
//! an address, addresses print as offsets in the block (`data header at 0x64`).
//!
//! Oracle separates the `pti`/`pri` columns with tabs; published copies often
//! have them expanded, which [`DumpOptions::expand_tabs`] reproduces.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::model::oracle::names;
use crate::model::oracle::text::{scn_fsc_text, uba_text, xid_text};
use crate::model::oracle::{
    hex_string, IndexData, IndexEntry, Kcbh, Kdbh9ir2, Ktbbh, OracleBlock, OracleKind,
    OracleVersion, Rdba, RowPiece, Scn, TableData,
};
use crate::reader::Endian;

/// Which part of the trace to print.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DumpPart {
    /// The whole trace section: `Start dump data blocks …`, the buffer-cache
    /// lines, the cache header, the block, `End dump data blocks …`.
    #[default]
    Trace,
    /// From `Block header dump:` to `end_of_block_dump` (what most published
    /// dumps show); blocks without a transaction layer print their cache header.
    Block,
}

/// What the CLI decided about the dump.
#[derive(Clone, Copy, Debug, Default)]
pub struct DumpOptions {
    /// Release whose conventions to follow; `None` = implied by the block, else 12.1.
    pub version: Option<OracleVersion>,
    /// Tablespace number (`tsn:`), not stored in the block.
    pub tsn: Option<u32>,
    /// Absolute file number (`file#:`), not stored in the block.
    pub file: Option<u32>,
    /// Memory address of the buffer holding the block; `None` prints offsets.
    pub buffer: Option<u64>,
    /// Show every rdba as bigfile (`1024/N`) even when it has file bits.
    pub bigfile: bool,
    /// Include `Hex dump of block` / `Dump of memory from …`.
    pub hex: bool,
    /// How much of the trace section to print.
    pub part: DumpPart,
    /// Expand tabs to 8-column stops (as published copies of dumps show them).
    pub expand_tabs: bool,
    /// Hex digits of the buffer address as the platform prints it: 8 for a
    /// 32-bit platform, else (`None`, 16) a 64-bit one. See [`memory_lines`].
    pub address_digits: Option<usize>,
}

impl DumpOptions {
    fn version_for(&self, block: &OracleBlock) -> OracleVersion {
        self.version
            .or_else(|| block.implied_version())
            .unwrap_or(OracleVersion::V12_1)
    }
}

/// Columns up to this many bytes print on the `col` line; longer ones wrap
/// below it, 25 bytes a line (the 52-byte column of the published
/// column-encrypted dump wraps; 10-byte ones do not; 20 is inferred).
pub(crate) const INLINE_COLUMN_MAX: usize = 20;
/// Bytes per continuation line of a long column.
pub(crate) const WRAP_BYTES: usize = 25;

/// Render one block as Oracle's dump text.
pub(crate) fn render_dump(
    out: &mut dyn Write,
    block: &OracleBlock,
    data: &[u8],
    opts: &DumpOptions,
) -> io::Result<()> {
    let text = dump_text(block, data, opts);
    let text = if opts.expand_tabs {
        expand_tabs(&text)
    } else {
        text
    };
    out.write_all(text.as_bytes())
}

/// The dump as a string (lines end in `\n`).
pub fn dump_text(block: &OracleBlock, data: &[u8], opts: &DumpOptions) -> String {
    let v = opts.version_for(block);
    let mut d = Dump {
        s: String::new(),
        v,
        opts,
        block,
    };
    d.block(data);
    d.s
}

/// Replace tabs by spaces up to the next multiple of 8 columns.
pub fn expand_tabs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut col = 0usize;
    for ch in text.chars() {
        match ch {
            '\t' => {
                let n = 8 - col % 8;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            '\n' => {
                out.push('\n');
                col = 0;
            }
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    out
}

struct Dump<'a> {
    s: String,
    v: OracleVersion,
    opts: &'a DumpOptions,
    block: &'a OracleBlock,
}

macro_rules! line {
    ($d:expr, $($arg:tt)*) => {{
        let _ = writeln!($d.s, $($arg)*);
    }};
}

fn opt_num(v: Option<u32>) -> String {
    v.map_or("?".to_string(), |n| n.to_string())
}

impl Dump<'_> {
    fn v10(&self) -> bool {
        self.v == OracleVersion::V10
    }

    fn old(&self) -> bool {
        matches!(self.v, OracleVersion::V10 | OracleVersion::V11)
    }

    /// A memory address for a block offset: buffer + offset, or the offset.
    fn addr(&self, offset: usize) -> u64 {
        self.opts.buffer.unwrap_or(0).wrapping_add(offset as u64)
    }

    /// `(file, block)` as printed after an rdba.
    fn split(&self, rdba: u32) -> (u32, u32) {
        Rdba(rdba).split(self.opts.bigfile)
    }

    /// Absolute file number: given, else the relative one of a smallfile rdba.
    fn file_no(&self, rdba: u32) -> String {
        match self.opts.file {
            Some(f) => f.to_string(),
            None if !self.opts.bigfile && Rdba(rdba).file() != 0 => Rdba(rdba).file().to_string(),
            None => "?".to_string(),
        }
    }

    /// The cache SCN (`scn:` line).
    fn cache_scn(&self, scn: Scn) -> String {
        match self.v {
            OracleVersion::V10 | OracleVersion::V11 => {
                format!("0x{:04x}.{:08x}", scn.wrap(), scn.kscnbas)
            }
            OracleVersion::V12_1 => format!("0x{:x}.{:x}", scn.wrap(), scn.kscnbas),
            OracleVersion::V12_2 => format!("0x{:x}", scn.value()),
        }
    }

    /// The cleanout SCN with its label (`csc: 0x00.4e9aed`).
    fn csc(&self, scn: Scn) -> String {
        match self.v {
            OracleVersion::V12_2 => format!("csc:  0x{:016x}", scn.value()),
            _ => format!("csc: 0x{:02x}.{:x}", scn.wrap(), scn.kscnbas),
        }
    }

    fn block(&mut self, data: &[u8]) {
        let b = self.block;
        let trace = self.opts.part == DumpPart::Trace;
        let zero_header = Kcbh {
            type_kcbh: 0,
            frmt_kcbh: 0,
            spare1_kcbh: 0,
            spare2_kcbh: 0,
            rdba_kcbh: 0,
            bas_kcbh: 0,
            wrp_kcbh: 0,
            seq_kcbh: 0,
            flg_kcbh: 0,
            chkval_kcbh: 0,
            spare3_kcbh: 0,
        };
        let kcbh = match (&b.kcbh, b.kind) {
            (Some(h), _) => h.clone(),
            (None, OracleKind::Zero) => zero_header,
            (None, OracleKind::OsHeader) => {
                let h = b.os_header.as_ref();
                line!(
                    self,
                    "Block {} is the datafile's OS header, not an Oracle cache block: \
                     block size {}, {} blocks, magic 0x{:08x}",
                    b.blkno,
                    h.map_or(0, |h| h.block_size),
                    h.map_or(0, |h| h.block_count),
                    h.map_or(0, |h| h.magic)
                );
                return;
            }
            (None, _) if b.size == 0 && b.space.is_some() => {
                // Read from a trace's text that has a body but no cache
                // header (`alter system dump undo header` prints none).
                line!(
                    self,
                    "[blockscope: a body without a cache header (no buffer tsn:, rdba or type): \
                     its lines as read]"
                );
                if let Some(body) = &b.space {
                    self.s.push_str(&super::space::space_text(body));
                }
                self.trailing_lines();
                return;
            }
            (None, _) => {
                line!(
                    self,
                    "Block {} is not an Oracle cache block ({} bytes): nothing to dump",
                    b.blkno,
                    b.size
                );
                return;
            }
        };
        let rdba = kcbh.rdba_kcbh;
        let (_, blk) = self.split(rdba);
        let tsn = opt_num(self.opts.tsn);
        let file = self.file_no(rdba);
        if trace {
            if self.v10() {
                line!(
                    self,
                    "Start dump data blocks tsn: {tsn} file#: {file} minblk {blk} maxblk {blk}"
                );
            } else {
                line!(
                    self,
                    "Start dump data blocks tsn: {tsn} file#:{file} minblk {blk} maxblk {blk}"
                );
            }
            if kcbh.type_kcbh == 0x0b && !b.encrypted {
                line!(
                    self,
                    "Block {} (file header) not dumped: use dump file header command",
                    b.blkno
                );
                if let Some(fh) = &b.file_header {
                    line!(
                        self,
                        "[blockscope: from the block's kcvfh, the lines `dump file header` prints for it]"
                    );
                    let scn16 = self.v == OracleVersion::V12_2;
                    self.s.push_str(&super::space::file_header_text(fh, scn16));
                }
                self.end(&tsn, &file, blk);
                return;
            }
            match self.v {
                OracleVersion::V10 => {}
                OracleVersion::V11 => {
                    line!(self, "Block dump from cache:");
                    // 11.2's form (11.1 printed `tsn=4, rdba=…`).
                    line!(
                        self,
                        "Dump of buffer cache at level 4 for tsn={tsn} rdba={rdba}"
                    );
                    line!(self, "Block dump from disk:");
                }
                OracleVersion::V12_1 | OracleVersion::V12_2 => {
                    line!(self, "Block dump from cache:");
                    line!(
                        self,
                        "Dump of buffer cache at level 4 for pdb=0 tsn={tsn} rdba={rdba}"
                    );
                    line!(self, "Block dump from disk:");
                }
            }
        }
        let has_body = !b.encrypted && b.ktbbh.is_some();
        if b.encrypted {
            line!(
                self,
                "Encrypted block <{tsn}, {rdba}> content will not be dumped. Dumping header only."
            );
        }
        if trace || !has_body {
            self.cache_header(&kcbh, &tsn);
        }
        if trace && self.opts.hex && !b.encrypted {
            self.hex(data);
        }
        if !b.encrypted {
            if let Some(body) = &b.space {
                self.s.push_str(&super::space::space_text(body));
            } else if let Some(fh) = &b.file_header {
                let scn16 = self.v == OracleVersion::V12_2;
                self.s.push_str(&super::space::file_header_text(fh, scn16));
            } else if let Some(u) = &b.undecoded {
                line!(self, "[blockscope: {}]", u.note);
                // The body as hex: Oracle's own hex dump of the block, unless
                // it was printed above already.
                if u.length > 0 && !data.is_empty() && !(trace && self.opts.hex) {
                    self.hex(data);
                }
            }
        }
        if has_body {
            if let Some(t) = &b.ktbbh {
                self.block_header(&kcbh, t);
                if let Some(tab) = &b.table {
                    self.table(&kcbh, t, tab);
                } else if let Some(ix) = &b.index {
                    self.index(ix);
                }
            }
        }
        self.trailing_lines();
        if trace {
            self.end(&tsn, &file, blk);
        }
    }

    /// The lines of a trace's text after the body that the reader does not
    /// know, printed back as the trace has them.
    fn trailing_lines(&mut self) {
        for l in &self.block.trailing_lines {
            line!(self, "{l}");
        }
    }

    fn end(&mut self, tsn: &str, file: &str, blk: u32) {
        line!(
            self,
            "End dump data blocks tsn: {tsn} file#: {file} minblk {blk} maxblk {blk}"
        );
    }

    fn cache_header(&mut self, h: &Kcbh, tsn: &str) {
        let (f, blk) = self.split(h.rdba_kcbh);
        line!(
            self,
            "buffer tsn: {tsn} rdba: 0x{:08x} ({f}/{blk})",
            h.rdba_kcbh
        );
        let tail = self.block.tailchk.unwrap_or(0);
        line!(
            self,
            "scn: {} seq: 0x{:02x} flg: 0x{:02x} tail: 0x{tail:08x}",
            self.cache_scn(h.scn()),
            h.seq_kcbh,
            h.flg_kcbh
        );
        line!(
            self,
            "frmt: 0x{:02x} chkval: 0x{:04x} type: 0x{:02x}={}",
            h.frmt_kcbh & 0x0f,
            h.chkval_kcbh,
            h.type_kcbh,
            names::block_type_name(h.type_kcbh).unwrap_or("unknown")
        );
    }

    /// `Hex dump of block` with native-endian words and `Repeat N times`.
    fn hex(&mut self, data: &[u8]) {
        let big = self.block.endian == crate::model::oracle::ByteOrder::Big;
        let base = self.addr(0);
        line!(self, "Hex dump of block: st=0, typ_found=1");
        let narrow = self.opts.address_digits.is_some_and(|d| d <= 8);
        let end = base.wrapping_add(data.len() as u64);
        line!(self, "{}", memory_lines::header(base, end, narrow));
        let mut previous: Option<&[u8]> = None;
        let mut repeats = 0usize;
        for (i, chunk) in data.chunks(16).enumerate() {
            if chunk.len() == 16 && previous == Some(chunk) {
                repeats += 1;
                continue;
            }
            if repeats > 0 {
                line!(self, "{}", memory_lines::repeat(repeats));
                repeats = 0;
            }
            let mut words = String::new();
            let order = if big { Endian::Big } else { Endian::Little };
            for w in chunk.chunks(4) {
                let mut a = [0u8; 4];
                for (slot, byte) in a.iter_mut().zip(w) {
                    *slot = *byte;
                }
                let v = order.read_u32(&a).unwrap_or_default();
                let _ = write!(words, " {v:08X}");
            }
            let ascii: String = chunk
                .iter()
                .map(|&c| {
                    if (0x20..0x7f).contains(&c) {
                        c as char
                    } else {
                        '.'
                    }
                })
                .collect();
            let at = base.wrapping_add((i * 16) as u64);
            let at = match self.opts.buffer {
                // Offsets in the block (no buffer address given).
                None => format!("{at:08X}"),
                Some(_) => memory_lines::address(at, narrow),
            };
            line!(self, "{at}{words}  [{ascii}]");
            previous = Some(chunk);
        }
        if repeats > 0 {
            line!(self, "{}", memory_lines::repeat(repeats));
        }
    }

    fn block_header(&mut self, h: &Kcbh, t: &Ktbbh) {
        line!(self, "Block header dump:  0x{:08x}", h.rdba_kcbh);
        line!(self, " Object id on Block? Y");
        let typ = match t.ktbbhtyp {
            1 => "DATA",
            2 => "INDEX",
            _ => "?",
        };
        line!(
            self,
            " seg/obj: 0x{:x}  {}  itc: {}  flg: {}  typ: {} - {typ}",
            t.ktbbhsid,
            self.csc(t.ktbbhcsc),
            t.ktbbhict,
            names::ktbbh_flag_letter(t.ktbbhflg),
            t.ktbbhtyp
        );
        if t.is_assm() {
            line!(
                self,
                "     brn: {}  bdba: 0x{:x} ver: 0x01 opc: 0",
                t.ktbbhfsl,
                t.ktbbhfnx
            );
            let (inc, exflg) = t.extension.as_ref().map_or((0, 0), |e| (e.inc, e.exflg));
            line!(self, "     inc: {inc}  exflg: {exflg}");
        } else {
            line!(
                self,
                "     fsl: {}  fnx: 0x{:x} ver: 0x01",
                t.ktbbhfsl,
                t.ktbbhfnx
            );
        }
        line!(self, "{}", if self.old() { " " } else { "" });
        line!(
            self,
            " Itl           Xid                  Uba         Flag  Lck        Scn/Fsc"
        );
        for itl in &t.ktbbhitl {
            line!(
                self,
                "0x{:02x}   {}  {}  {} {:4}  {}",
                itl.itl,
                xid_text(itl),
                uba_text(itl),
                names::itl_flag_string(itl.ktbitflg),
                itl.lock_count(),
                scn_fsc_text(itl)
            );
        }
    }

    fn table(&mut self, h: &Kcbh, t: &Ktbbh, tab: &TableData) {
        let k = &tab.kdbh;
        let addr = self.addr(t.payload_offset);
        if !self.v10() {
            line!(self, "bdba: 0x{:08x}", h.rdba_kcbh);
        }
        line!(self, "data_block_dump,data header at 0x{addr:x}");
        line!(self, "===============");
        line!(self, "tsiz: 0x{:x}", k.tsiz);
        line!(self, "hsiz: 0x{:x}", k.hsiz);
        line!(self, "pbl: 0x{addr:08x}");
        if self.v10() {
            line!(self, "bdba: 0x{:08x}", h.rdba_kcbh);
        }
        line!(self, "     76543210");
        line!(self, "flag={}", names::kdbh_flag_string(k.kdbhflag));
        line!(self, "ntab={}", k.kdbhntab);
        line!(self, "nrow={}", k.kdbhnrow);
        line!(self, "frre={}", k.kdbhfrre);
        line!(self, "fsbo=0x{:x}", k.kdbhfsbo);
        line!(self, "fseo=0x{:x}", k.kdbhfseo);
        line!(self, "avsp=0x{:x}", k.kdbhavsp as u16);
        line!(self, "tosp=0x{:x}", k.kdbhtosp as u16);
        if let Some(c) = &k.kdbh9ir2 {
            self.kdbh9ir2(c);
        }
        let hdr = k.header_size();
        for e in &tab.kdbt {
            line!(
                self,
                "0x{:x}:pti[{}]\tnrow={}\toffs={}",
                hdr + 4 * e.table,
                e.table,
                e.kdbtnrow,
                e.kdbtoffs
            );
        }
        let dir = hdr + 4 * tab.kdbt.len();
        for e in &tab.kdbr {
            if e.free {
                line!(
                    self,
                    "0x{:x}:pri[{}]\tsfll={}",
                    dir + 2 * e.slot,
                    e.slot,
                    e.kdbr as i16
                );
            } else {
                line!(
                    self,
                    "0x{:x}:pri[{}]\toffs=0x{:x}",
                    dir + 2 * e.slot,
                    e.slot,
                    e.kdbr
                );
            }
        }
        line!(self, "block_row_dump:");
        for row in &tab.rows {
            self.row(row);
        }
        line!(self, "end_of_block_dump");
    }

    /// The 9iR2 compression header lines after `tosp=`. Fields the bytes do
    /// not establish (`r0_9ir2`, `mec_kdbh9ir2`, `r1_9ir2`/`shcf_kdbh9ir2`,
    /// `Archive compression:`) are printed only when a trace's text gave them.
    fn kdbh9ir2(&mut self, c: &Kdbh9ir2) {
        if let Some(v) = c.r0_9ir2 {
            line!(self, "r0_9ir2=0x{v:x}");
        }
        if let Some(v) = c.mec_kdbh9ir2 {
            line!(self, "mec_kdbh9ir2=0x{v:x}");
        }
        if let Some(v) = c.r1_9ir2 {
            line!(self, "r1_9ir2=0x{v:x}");
        }
        if let Some(v) = &c.shcf_kdbh9ir2 {
            line!(self, "              76543210");
            line!(self, "shcf_kdbh9ir2={v}");
        }
        line!(self, "          76543210");
        let flag = names::flag_9ir2_string(c.flag_9ir2);
        match c.archive_compression {
            Some(a) => line!(self, "flag_9ir2={flag}      Archive compression: {a}"),
            None => line!(self, "flag_9ir2={flag}"),
        }
        let list = |v: Vec<String>| {
            if v.is_empty() {
                "{ }".to_string()
            } else {
                format!("{{ {} }}", v.join(" "))
            }
        };
        line!(
            self,
            "fcls_9ir2[{}]={}",
            c.fcls_9ir2.len(),
            list(c.fcls_9ir2.iter().map(u16::to_string).collect())
        );
        if !c.perm_9ir2.is_empty() {
            line!(
                self,
                "perm_9ir2[{}]={}",
                c.perm_9ir2.len(),
                list(c.perm_9ir2.iter().map(u8::to_string).collect())
            );
        }
    }

    fn row(&mut self, row: &RowPiece) {
        line!(self, "tab {}, row {}, @0x{:x}", row.tab, row.row, row.offs);
        let fb = names::row_flag_string(row.flag);
        match row.cc {
            None => line!(self, "tl: {} fb: {fb} lb: 0x{:x} ", row.tl, row.lb),
            Some(cc) => line!(self, "tl: {} fb: {fb} lb: 0x{:x}  cc: {cc}", row.tl, row.lb),
        }
        if let Some(h) = row.hrid {
            line!(self, "hrid: 0x{:08x}.{:x}", h.dba, h.slot);
        }
        if let Some(n) = row.nrid {
            line!(self, "nrid:  0x{:08x}.{:x}", n.dba, n.slot);
        }
        for c in &row.cols {
            match c.len {
                None => line!(self, "col {:2}: *NULL*", c.col),
                Some(len) if len <= INLINE_COLUMN_MAX => {
                    line!(self, "col {:2}: [{len:2}]  {}", c.col, hex_string(&c.data))
                }
                Some(len) => {
                    line!(self, "col {:2}: [{len:2}]", c.col);
                    for chunk in c.data.chunks(WRAP_BYTES) {
                        line!(self, " {}", hex_string(chunk));
                    }
                }
            }
        }
        if let Some(b) = &row.bindmp {
            line!(self, "bindmp: {}", hex_string(b));
        }
    }

    fn index(&mut self, ix: &IndexData) {
        let c = &ix.kdxco;
        let leaf = ix.kdxle.is_some();
        let addr = self.addr(c.offset);
        line!(self, "{}", if self.old() { " " } else { "" });
        if leaf {
            line!(self, "Leaf block dump");
            line!(self, "===============");
        } else {
            line!(self, "Branch block dump");
            line!(self, "=================");
        }
        line!(self, "header address {addr}=0x{addr:x}");
        line!(self, "kdxcolev {}", c.kdxcolev);
        line!(self, "KDXCOLEV Flags = - - -");
        line!(self, "kdxcolok {}", c.kdxcolok);
        let iot: String = [0x40u8, 0x20, 0x10]
            .iter()
            .map(|&m| if c.kdxcoopc & m != 0 { '?' } else { '-' })
            .collect();
        line!(
            self,
            "kdxcoopc 0x{:x}: opcode={}: iot flags={iot} is converted={}",
            c.kdxcoopc,
            c.kdxcoopc & 0x0f,
            if c.kdxcoopc & 0x80 != 0 { 'Y' } else { 'N' }
        );
        line!(self, "kdxconco {}", c.kdxconco);
        line!(self, "kdxcosdc {}", c.kdxcosdc);
        line!(self, "kdxconro {}", c.kdxconro);
        line!(self, "kdxcofbo {}=0x{:x}", c.kdxcofbo, c.kdxcofbo as u16);
        line!(self, "kdxcofeo {}=0x{:x}", c.kdxcofeo, c.kdxcofeo as u16);
        line!(self, "kdxcoavs {}", c.kdxcoavs);
        let [bksz, second] = ix.kd_off_head;
        if let Some(l) = &ix.kdxle {
            line!(self, "kdxlespl {}", l.kdxlespl);
            line!(self, "kdxlende {}", l.kdxlende);
            line!(self, "kdxlenxt {}=0x{:x}", l.kdxlenxt, l.kdxlenxt);
            line!(self, "kdxleprv {}=0x{:x}", l.kdxleprv, l.kdxleprv);
            line!(self, "kdxledsz {}", l.kdxledsz);
            line!(self, "kdxlebksz {bksz}");
        }
        if let Some(br) = &ix.kdxbr {
            line!(self, "kdxbrlmc {}=0x{:x}", br.kdxbrlmc, br.kdxbrlmc);
            line!(self, "kdxbrsno {}", br.kdxbrsno);
            line!(self, "kdxbrbksz {bksz}");
            if !self.v10() {
                line!(self, "kdxbr2urrc {second}");
            }
        }
        for e in &ix.entries {
            self.index_entry(e);
        }
        if leaf {
            line!(self, "----- end of leaf block dump -----");
        } else {
            line!(self, "----- end of branch block dump -----");
        }
    }

    fn index_entry(&mut self, e: &IndexEntry) {
        match e.dba {
            Some(dba) => line!(self, "row#{}[{}] dba: {dba}=0x{dba:x}", e.row, e.offs),
            None => {
                let mut s = format!(
                    "row#{}[{}] flag: {}, lock: {}, len={}",
                    e.row,
                    e.offs,
                    names::index_flag_string(e.flag.unwrap_or(0)),
                    e.lock.unwrap_or(0),
                    e.len.unwrap_or(0)
                );
                if let Some(rowid) = &e.rowid {
                    let _ = write!(s, ", data:({}):  {}", rowid.len(), hex_string(rowid));
                }
                line!(self, "{s}");
            }
        }
        for c in &e.cols {
            match c.len {
                None if e.dba.is_some() => line!(self, "col {}; TERM", c.col),
                None => line!(self, "col {}; NULL", c.col),
                Some(len) => {
                    let mut chunks = c.data.chunks(WRAP_BYTES);
                    let first = chunks.next().map(hex_string).unwrap_or_default();
                    line!(self, "col {}; len {len}; ({len}):  {first}", c.col);
                    for chunk in chunks {
                        line!(self, " {}", hex_string(chunk));
                    }
                }
            }
        }
    }
}

/// The lines of a `Dump of memory` section as Oracle prints them, checked
/// against published traces (fixtures/oracle/README.md):
/// - 64-bit platforms: `Dump of memory from 0x00007F9A0BA95000 to …`
///   (`0x%016X`), and each line's address as its high 32 bits in `%X` and
///   its low 32 bits in `%08X` (`7F9A0BA95000`, `0CE00E000` for
///   `0x00000000CE00E000`);
/// - 32-bit platforms: `Dump of memory from 0x00BD2000 to 0x00BD4000`
///   (`0x%08X`), each line's address in `%X` (`BD2000`);
/// - a run of equal lines: `\tRepeat N times` (a TAB first).
pub(crate) mod memory_lines {
    /// `Dump of memory from 0x… to 0x…`.
    pub(crate) fn header(from: u64, to: u64, narrow: bool) -> String {
        if narrow {
            format!("Dump of memory from 0x{from:08X} to 0x{to:08X}")
        } else {
            format!("Dump of memory from 0x{from:016X} to 0x{to:016X}")
        }
    }

    /// A hex line's address.
    pub(crate) fn address(at: u64, narrow: bool) -> String {
        if narrow {
            format!("{at:X}")
        } else {
            format!("{:X}{:08X}", at >> 32, at & 0xffff_ffff)
        }
    }

    /// `\tRepeat N times`.
    pub(crate) fn repeat(n: usize) -> String {
        format!("\tRepeat {n} times")
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn published_forms() {
            assert_eq!(address(0x0000_7F9A_0BA9_5000, false), "7F9A0BA95000");
            assert_eq!(address(0x0000_0000_CE00_E000, false), "0CE00E000");
            assert_eq!(address(0x00BD_2000, true), "BD2000");
            assert_eq!(
                header(0x00BD_2000, 0x00BD_4000, true),
                "Dump of memory from 0x00BD2000 to 0x00BD4000"
            );
            assert_eq!(
                header(0xCE00_E000, 0xCE01_0000, false),
                "Dump of memory from 0x00000000CE00E000 to 0x00000000CE010000"
            );
            assert_eq!(repeat(464), "\tRepeat 464 times");
        }
    }
}
