//! Inputs as sequences of blocks.
//!
//! A raw file or pipe is streamed one block at a time (never read whole);
//! text dumps are small and are decoded in memory by [`crate::input`].

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::Error;
use crate::input::{self, InputFormat};

/// How many bytes detection looks at.
const SNIFF: usize = 64 * 1024;
/// PostgreSQL's default BLCKSZ.
pub const DEFAULT_BLOCK_SIZE: usize = 8192;
/// PostgreSQL's default RELSEG_SIZE in bytes (1 GiB).
pub(crate) const DEFAULT_SEGMENT_BYTES: u64 = 1 << 30;

/// The largest block number: PostgreSQL's BlockNumber is 32 bits and
/// 0xFFFFFFFF is InvalidBlockNumber (Oracle's block numbers are smaller still).
pub(crate) const MAX_BLOCK_NUMBER: u64 = 0xFFFF_FFFE;

/// The first block number of segment `n` of `segment_bytes`-byte files of
/// `block_size`-byte blocks, or why it is past the last block number.
pub(crate) fn first_blkno_of_segment(
    n: u64,
    block_size: usize,
    segment_bytes: u64,
) -> Result<u64, String> {
    let per_segment = segment_bytes / block_size.max(1) as u64;
    match n.checked_mul(per_segment) {
        Some(first) if first <= MAX_BLOCK_NUMBER => Ok(first),
        _ => Err(format!(
            "segment {n} would start at block {} ({per_segment} blocks of {block_size} \
             bytes a segment), past the last block number, {MAX_BLOCK_NUMBER} (segments 0 to {})",
            u128::from(n) * u128::from(per_segment),
            MAX_BLOCK_NUMBER / per_segment.max(1)
        )),
    }
}

/// Linux's O_NOATIME (asm-generic; the same on x86, arm and arm64).
#[cfg(target_os = "linux")]
const O_NOATIME: i32 = 0o1_000_000;

/// Open an input for reading without updating its access time where the OS
/// allows it (Linux's O_NOATIME, which needs the file's owner or
/// CAP_FOWNER: on EPERM the file is opened plainly).
pub(crate) fn open_file(path: &Path) -> io::Result<File> {
    open_flags(path, 0)
}

/// [`open_file`] with further open flags (`flags` is ignored off Linux).
fn open_flags(path: &Path, flags: i32) -> io::Result<File> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let open = |flags| {
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(flags)
                .open(path)
        };
        match open(flags | O_NOATIME) {
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => open(flags),
            result => result,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = flags;
        File::open(path)
    }
}

/// The names in directory `path` (`.` and `..` left out), read without
/// updating its access time where the OS allows it: on Linux through a
/// descriptor opened with O_NOATIME (falling back to a plain one on EPERM,
/// when we own neither the directory nor CAP_FOWNER); elsewhere through
/// `std::fs::read_dir`.
#[cfg(target_os = "linux")]
pub(crate) fn read_dir_names(path: &Path) -> io::Result<Vec<std::ffi::OsString>> {
    use rustix::fs::{Dir, Mode, OFlags};
    use std::os::unix::ffi::OsStrExt;
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let fd = match rustix::fs::open(path, flags | OFlags::NOATIME, Mode::empty()) {
        Err(rustix::io::Errno::PERM) => rustix::fs::open(path, flags, Mode::empty())?,
        result => result?,
    };
    let mut dir = Dir::new(fd)?;
    let mut names = Vec::new();
    while let Some(entry) = dir.read() {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            names.push(std::ffi::OsStr::from_bytes(name).to_os_string());
        }
    }
    Ok(names)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn read_dir_names(path: &Path) -> io::Result<Vec<std::ffi::OsString>> {
    std::fs::read_dir(path)?
        .map(|e| e.map(|e| e.file_name()))
        .collect()
}

/// The kernel's pseudo-file system `file` is on (`proc`, `sysfs`, …), if
/// any: its files say they are regular files of size 0 (or of some size
/// they do not hold) and are never relation files (`/proc/self/mem` reads
/// a process's memory).
#[cfg(target_os = "linux")]
pub(crate) fn pseudo_file_system(file: &File) -> Option<&'static str> {
    let fs = rustix::fs::fstatfs(file).ok()?;
    // linux/magic.h
    match fs.f_type as u64 {
        0x9fa0 => Some("proc"),
        0x6265_6572 => Some("sysfs"),
        0x6462_6720 => Some("debugfs"),
        0x7472_6163 => Some("tracefs"),
        0x7363_6673 => Some("securityfs"),
        0x2762_6772 | 0x6367_7270 => Some("cgroup"),
        0xcafe_4a11 => Some("bpf"),
        0x6e73_6673 => Some("nsfs"),
        0x0000_9fa2 => Some("usbdevfs"),
        _ => None,
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn pseudo_file_system(_: &File) -> Option<&'static str> {
    None
}

/// What a file that is not a regular file is (`None` for a regular file).
pub(crate) fn not_regular_kind(t: &std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    if t.is_dir() {
        return Some("a directory");
    }
    (!t.is_file()).then_some("not a regular file")
}

/// A FIFO or a block device: read in order, as a stream of pages.
pub(crate) fn is_stream(t: &std::fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        t.is_fifo() || t.is_block_device()
    }
    #[cfg(not(unix))]
    {
        let _ = t;
        false
    }
}

/// Open a file that must be a regular file holding what it says it holds
/// (a data directory's relation, catalog, pg_xact and pg_multixact files):
/// opened without blocking (a FIFO would wait for a writer for ever) and
/// without updating the access time, then refused unless the descriptor
/// is a regular file off the kernel's pseudo-file systems.
pub(crate) fn open_regular(path: &Path) -> io::Result<File> {
    let file = open_flags(path, NONBLOCK)?;
    let meta = file.metadata()?;
    if let Some(kind) = not_regular_kind(&meta.file_type()) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{kind}, not a regular file: not read"),
        ));
    }
    if let Some(fs) = pseudo_file_system(&file) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a file of the kernel's {fs} file system, not a relation file: not read"),
        ));
    }
    Ok(file)
}

/// Linux's O_NONBLOCK (asm-generic; the same on x86, arm and arm64).
#[cfg(target_os = "linux")]
const NONBLOCK: i32 = 0o4000;
#[cfg(not(target_os = "linux"))]
const NONBLOCK: i32 = 0;

/// An opened input, ready to be cut into blocks.
pub struct Source {
    /// What to call it in messages: the path, or `-` for standard input.
    pub name: PathBuf,
    /// The format actually used (after detection).
    pub format: InputFormat,
    /// Block size in bytes.
    pub block_size: usize,
    data: Data,
    /// An Oracle trace's whole text: its blocks are read by
    /// [`crate::parse::oracle::trace`], not cut by size.
    trace_text: Option<Vec<u8>>,
    /// The block numbers psql's or COPY's rows gave their pages.
    blknos: Vec<input::RowBlkno>,
    /// The caller gave the block size: [`Source::detect_block_size`] keeps it.
    size_given: bool,
    /// The opened file again (sharing its offset), when its raw blocks can
    /// be read by position: [`Blocks::seek_to`] moves to a block.
    file: Option<File>,
}

enum Data {
    Memory { bytes: Vec<u8>, pos: usize },
    Stream(Box<dyn Read>),
}

/// One block of an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// 0-based position of the block within this input.
    pub index: u64,
    /// Byte offset of the block within the (decoded) input.
    pub offset: u64,
    /// The bytes; shorter than the block size only for a truncated last block.
    pub data: Vec<u8>,
    /// The block number the input itself gave (a leading column of psql's or
    /// COPY's rows), to use as `--blkno` would be.
    pub blkno: Option<u64>,
}

/// Bytes of standard input read ahead by [`peek_stdin`] and not yet consumed:
/// standard input cannot be rewound, so whoever reads it next gets these first.
static STDIN_AHEAD: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// The first `len` bytes of standard input (fewer if it is shorter), without
/// consuming them: the next reader of [`stdin`] gets them again (so the engine
/// can be chosen before a command reads its input).
pub(crate) fn peek_stdin(len: usize) -> io::Result<Vec<u8>> {
    let mut ahead = STDIN_AHEAD.lock().unwrap_or_else(|e| e.into_inner());
    if ahead.len() < len {
        let missing = (len - ahead.len()) as u64;
        io::stdin().lock().take(missing).read_to_end(&mut ahead)?;
    }
    Ok(ahead[..len.min(ahead.len())].to_vec())
}

/// Standard input, after whatever [`peek_stdin`] read ahead.
pub(crate) fn stdin() -> StdinReader {
    StdinReader
}

/// Reads what [`peek_stdin`] kept, then the rest of standard input.
pub(crate) struct StdinReader;

impl Read for StdinReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        {
            let mut ahead = STDIN_AHEAD.lock().unwrap_or_else(|e| e.into_inner());
            if !ahead.is_empty() {
                let n = buf.len().min(ahead.len());
                buf[..n].copy_from_slice(&ahead[..n]);
                ahead.drain(..n);
                return Ok(n);
            }
        }
        io::stdin().lock().read(buf)
    }
}

/// What `--evidence` learns of an input while it is read: the SHA-256 of
/// exactly the bytes read, in order, and how many there were. Shared with
/// the reader that feeds it.
#[derive(Clone, Default)]
pub(crate) struct Tap(std::sync::Arc<Mutex<(sha2::Sha256, u64)>>);

impl Tap {
    /// Bytes read so far, and the lower-case hex SHA-256 of them.
    pub(crate) fn digest(&self) -> (u64, String) {
        use sha2::Digest;
        let state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let sum = state.0.clone().finalize();
        let hex = sum.iter().map(|b| format!("{b:02x}")).collect();
        (state.1, hex)
    }
}

/// A reader whose bytes also feed a [`Tap`].
struct Tapped {
    inner: Box<dyn Read>,
    tap: Tap,
}

impl Read for Tapped {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use sha2::Digest;
        let n = self.inner.read(buf)?;
        let mut state = self.tap.0.lock().unwrap_or_else(|e| e.into_inner());
        state.0.update(&buf[..n]);
        state.1 += n as u64;
        Ok(n)
    }
}

impl Source {
    /// Open `path` (`None` or `-` = standard input) in `format`
    /// (`Auto` detects), with `block_size` or one read from the first page.
    pub fn open(
        path: Option<&Path>,
        format: InputFormat,
        block_size: Option<usize>,
    ) -> Result<Source, Error> {
        Source::open_tapped(path, format, block_size, None)
    }

    /// [`Source::open`], every byte read from the input also fed to `tap`.
    pub(crate) fn open_tapped(
        path: Option<&Path>,
        format: InputFormat,
        block_size: Option<usize>,
        tap: Option<Tap>,
    ) -> Result<Source, Error> {
        let mut file = None;
        let (name, reader): (PathBuf, Box<dyn Read>) = match path {
            None => (PathBuf::from("-"), Box::new(stdin())),
            Some(p) if p.as_os_str() == "-" => (PathBuf::from("-"), Box::new(stdin())),
            Some(p) => {
                let f = open_file(p).map_err(|source| Error::Io {
                    path: p.to_path_buf(),
                    source,
                })?;
                // Tapped input is read whole, in order, for its digest.
                if tap.is_none() && f.metadata().is_ok_and(|m| m.is_file()) {
                    file = f.try_clone().ok();
                }
                (p.to_path_buf(), Box::new(f))
            }
        };
        let reader: Box<dyn Read> = match tap {
            Some(tap) => Box::new(Tapped { inner: reader, tap }),
            None => reader,
        };
        let mut src = Source::from_reader(name, reader, format, block_size)?;
        if src.format == InputFormat::Raw {
            src.file = file;
        }
        Ok(src)
    }

    /// Like [`Source::open`] over any reader.
    pub fn from_reader(
        name: PathBuf,
        mut reader: Box<dyn Read>,
        format: InputFormat,
        block_size: Option<usize>,
    ) -> Result<Source, Error> {
        let io_err = |source| Error::Io {
            path: name.clone(),
            source,
        };
        let mut head = Vec::with_capacity(SNIFF);
        (&mut reader)
            .take(SNIFF as u64)
            .read_to_end(&mut head)
            .map_err(io_err)?;
        let requested = format;
        let mut format = match format {
            InputFormat::Auto => input::detect(&head),
            f => f,
        };
        let mut trace_text = None;
        let mut blknos = Vec::new();
        let data = if format == InputFormat::Raw {
            Data::Stream(Box::new(io::Cursor::new(head).chain(reader)))
        } else if format == InputFormat::OracleTrace {
            let text = read_text(head, reader, &name)?;
            trace_text = Some(input::utf8_text(text));
            Data::Memory {
                bytes: Vec::new(),
                pos: 0,
            }
        } else {
            // Text dumps are decoded whole; they describe a handful of pages.
            let text = read_text(head, reader, &name)?;
            let bs = block_size.unwrap_or(DEFAULT_BLOCK_SIZE);
            let decoded =
                input::decode_pages(&text, requested, bs).map_err(|source| Error::Input {
                    path: name.clone(),
                    source,
                })?;
            if let Some(note) = &decoded.note {
                let _ = writeln!(
                    io::stderr(),
                    "blockscope: note: {}: {note}",
                    crate::escape::path(&name)
                );
            }
            format = decoded.format;
            blknos = decoded.blknos;
            Data::Memory {
                bytes: decoded.bytes,
                pos: 0,
            }
        };
        let mut src = Source {
            name,
            format,
            block_size: block_size.unwrap_or(DEFAULT_BLOCK_SIZE),
            data,
            trace_text,
            blknos,
            size_given: false,
            file: None,
        };
        if let Some(bs) = block_size {
            if !(64..=(1 << 20)).contains(&bs) {
                return Err(Error::Usage(format!(
                    "block size {bs} is out of range (64 bytes to 1 MiB)"
                )));
            }
            src.size_given = true;
        }
        Ok(src)
    }

    /// Unless a block size was given, take the one `announced` reads from the
    /// first block (the formats' facts live in parse: PostgreSQL's
    /// pd_pagesize_version, Oracle's OS header or format byte; the caller
    /// chooses, so this module knows no format).
    pub fn detect_block_size(&mut self, announced: impl Fn(&[u8]) -> Option<usize>) {
        if self.size_given {
            return;
        }
        if let Some(bs) = self.first_bytes().and_then(|head| announced(&head)) {
            self.block_size = bs;
        }
    }

    /// The first 32 bytes of a stream (a page header's worth), or all of
    /// decoded text, without consuming them.
    fn first_bytes(&mut self) -> Option<Vec<u8>> {
        let first: &[u8] = match &mut self.data {
            Data::Memory { bytes, .. } => bytes,
            Data::Stream(_) => {
                // Peek by buffering the first page-header's worth.
                let Data::Stream(reader) = std::mem::replace(
                    &mut self.data,
                    Data::Memory {
                        bytes: vec![],
                        pos: 0,
                    },
                ) else {
                    return None;
                };
                let mut head = Vec::with_capacity(32);
                let mut reader = reader;
                let ok = (&mut reader).take(32).read_to_end(&mut head).is_ok();
                self.data = Data::Stream(Box::new(io::Cursor::new(head.clone()).chain(reader)));
                return ok.then_some(head);
            }
        };
        Some(first.get(..32).unwrap_or(first).to_vec())
    }

    /// The first `len` bytes of the (decoded) input, without consuming them
    /// (fewer when the input is shorter).
    pub fn head(&mut self, len: usize) -> Result<Vec<u8>, Error> {
        match &mut self.data {
            Data::Memory { bytes, pos } => {
                let start = (*pos).min(bytes.len());
                let end = start.saturating_add(len).min(bytes.len());
                Ok(bytes.get(start..end).unwrap_or_default().to_vec())
            }
            Data::Stream(_) => {
                let Data::Stream(mut reader) = std::mem::replace(
                    &mut self.data,
                    Data::Memory {
                        bytes: vec![],
                        pos: 0,
                    },
                ) else {
                    return Ok(Vec::new());
                };
                let mut head = Vec::with_capacity(len.min(1 << 20));
                let result = (&mut reader).take(len as u64).read_to_end(&mut head);
                self.data = Data::Stream(Box::new(io::Cursor::new(head.clone()).chain(reader)));
                result.map_err(|source| Error::Io {
                    path: self.name.clone(),
                    source,
                })?;
                Ok(head)
            }
        }
    }

    /// The text of an Oracle trace input (`format` is `OracleTrace`), taken
    /// out of the source; `None` for other inputs.
    pub fn take_trace_text(&mut self) -> Option<Vec<u8>> {
        self.trace_text.take()
    }

    /// The blocks of this input, in order.
    pub fn blocks(self) -> Blocks {
        Blocks {
            data: self.data,
            block_size: self.block_size,
            index: 0,
            offset: 0,
            name: self.name,
            done: false,
            blknos: self.blknos,
            file: self.file,
        }
    }
}

/// Iterator over the blocks of a [`Source`].
pub struct Blocks {
    data: Data,
    block_size: usize,
    index: u64,
    offset: u64,
    name: PathBuf,
    done: bool,
    blknos: Vec<input::RowBlkno>,
    file: Option<File>,
}

impl Iterator for Blocks {
    type Item = Result<Block, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut data = Vec::new();
        let at = match self.next_into(&mut data)? {
            Ok(at) => at,
            Err(e) => return Some(Err(e)),
        };
        Some(Ok(Block {
            index: at.index,
            offset: at.offset,
            data,
            blkno: at.blkno,
        }))
    }
}

/// Where a block read by [`Blocks::next_into`] lies: [`Block`] without
/// its bytes.
pub struct BlockAt {
    pub index: u64,
    pub offset: u64,
    pub blkno: Option<u64>,
}

impl Blocks {
    /// Position of the next block in the input (0-based).
    pub fn next_index(&self) -> u64 {
        self.index
    }

    /// Move on to block `index` without reading the blocks before it,
    /// when the input is a regular file of raw blocks (a seek); other
    /// inputs are left as they are, their blocks to be read in turn.
    pub fn seek_to(&mut self, index: u64) {
        use std::io::{Seek, SeekFrom};
        if self.done || index <= self.index {
            return;
        }
        let Some(at) = index.checked_mul(self.block_size as u64) else {
            return;
        };
        let Some(file) = self.file.as_mut() else {
            return;
        };
        if file.seek(SeekFrom::Start(at)).is_err() {
            return;
        }
        // The file shares its offset with the one being read: read on
        // from the new place, without the bytes peeked at the start.
        let Ok(reader) = file.try_clone() else {
            return;
        };
        self.data = Data::Stream(Box::new(reader));
        self.index = index;
        self.offset = at;
    }

    /// The next block's bytes into `buf` (cleared first, its memory
    /// reused), and where it lies; `None` at the end.
    pub fn next_into(&mut self, buf: &mut Vec<u8>) -> Option<Result<BlockAt, Error>> {
        if self.done {
            return None;
        }
        buf.clear();
        match &mut self.data {
            Data::Memory { bytes, pos } => {
                let end = pos.saturating_add(self.block_size).min(bytes.len());
                buf.extend_from_slice(bytes.get(*pos..end).unwrap_or_default());
                *pos = end;
            }
            Data::Stream(reader) => {
                buf.reserve_exact(self.block_size);
                if let Err(source) = reader.take(self.block_size as u64).read_to_end(buf) {
                    self.done = true;
                    return Some(Err(Error::Io {
                        path: self.name.clone(),
                        source,
                    }));
                }
            }
        }
        if buf.is_empty() {
            self.done = true;
            return None;
        }
        if buf.len() < self.block_size {
            self.done = true;
        }
        let offset = self.offset;
        let at = BlockAt {
            index: self.index,
            offset,
            blkno: input::blkno_at(&self.blknos, offset, self.block_size),
        };
        self.index += 1;
        self.offset += buf.len() as u64;
        Some(Ok(at))
    }
}

/// The holes of `file` between `start` and `end`: byte ranges the file
/// system keeps no data for (they read as zeros), found with `lseek`'s
/// SEEK_DATA and SEEK_HOLE, without reading. Empty where the file system
/// cannot tell: every byte then counts as data and is read. Moves the
/// file's offset: for files read by position ([`read_at`]) only.
#[cfg(target_os = "linux")]
pub(crate) fn holes(file: &File, start: u64, end: u64) -> Vec<std::ops::Range<u64>> {
    use rustix::fs::{seek, SeekFrom};
    let mut found = Vec::new();
    let mut pos = start;
    while pos < end {
        let data = match seek(file, SeekFrom::Data(pos)) {
            Ok(data) => data,
            // No data at or after `pos`: a hole to the end of the file.
            Err(rustix::io::Errno::NXIO) => end,
            Err(_) => break,
        };
        if data > pos {
            found.push(pos..data.min(end));
        }
        if data >= end {
            break;
        }
        pos = match seek(file, SeekFrom::Hole(data)) {
            Ok(hole) if hole > data => hole,
            _ => break,
        };
    }
    found
}

/// No hole is known off Linux: every byte is read.
#[cfg(not(target_os = "linux"))]
pub(crate) fn holes(_: &File, _: u64, _: u64) -> Vec<std::ops::Range<u64>> {
    Vec::new()
}

/// Fill `buf` from `file` at `offset`; a short count only at end of file.
pub(crate) fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        let n = match positioned_read(file, &mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        done += n;
    }
    Ok(done)
}

#[cfg(unix)]
fn positioned_read(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn positioned_read(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// A relation fork, as its file-name suffix names it (relpath.h `forkNames`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fork {
    Main,
    Fsm,
    Vm,
    Init,
}

/// The parts of a relation file name: `16385`, `16385.3`, `16385_fsm`, `16385_vm.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RelationFileName {
    /// The relation's relfilenode (the file name's leading number).
    pub relfilenode: u64,
    /// The fork: main, `_fsm`, `_vm` or `_init`.
    pub fork: Fork,
    /// The `.N` suffix; `None` for the first segment, which has none.
    pub segment: Option<u64>,
}

impl RelationFileName {
    /// `None` unless `name` (a file name, no directories) is a relation file name.
    pub fn parse(name: &str) -> Option<RelationFileName> {
        let number = |s: &str| -> Option<u64> {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        let (stem, segment) = match name.split_once('.') {
            Some((stem, suffix)) => (stem, Some(number(suffix)?)),
            None => (name, None),
        };
        let (relfilenode, fork) = [
            ("_fsm", Fork::Fsm),
            ("_vm", Fork::Vm),
            ("_init", Fork::Init),
        ]
        .iter()
        .find_map(|(suffix, fork)| stem.strip_suffix(suffix).map(|r| (r, *fork)))
        .unwrap_or((stem, Fork::Main));
        Some(RelationFileName {
            relfilenode: number(relfilenode)?,
            fork,
            segment,
        })
    }
}

/// Text dumps larger than this are refused rather than held in memory: a
/// dump of that size is a whole relation, which belongs in raw form.
pub(crate) const MAX_TEXT_INPUT: u64 = 256 << 20;

/// The rest of a text input after `head`, at most [`MAX_TEXT_INPUT`] bytes in all.
fn read_text(head: Vec<u8>, reader: Box<dyn Read>, name: &Path) -> Result<Vec<u8>, Error> {
    let mut text = head;
    let room = MAX_TEXT_INPUT.saturating_sub(text.len() as u64);
    reader
        .take(room.saturating_add(1))
        .read_to_end(&mut text)
        .map_err(|source| Error::Io {
            path: name.to_path_buf(),
            source,
        })?;
    if text.len() as u64 > MAX_TEXT_INPUT {
        return Err(Error::Usage(format!(
            "{}: text dump larger than {} MiB; convert it to raw pages first (e.g. xxd -r -p) and read that",
            crate::escape::path(name),
            MAX_TEXT_INPUT >> 20
        )));
    }
    Ok(text)
}

/// The segment number in a relation file name like `16385.3` (`None` for `16385`).
pub(crate) fn segment_from_name(path: &Path) -> Option<u64> {
    RelationFileName::parse(path.file_name()?.to_str()?)?.segment
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_numbers_come_from_the_suffix() {
        assert_eq!(segment_from_name(Path::new("base/5/16385.3")), Some(3));
        assert_eq!(segment_from_name(Path::new("16385_fsm.1")), Some(1));
        assert_eq!(segment_from_name(Path::new("16385")), None);
        assert_eq!(segment_from_name(Path::new("page.bin")), None);
        assert_eq!(segment_from_name(Path::new("heap.0.page")), None);
        assert_eq!(segment_from_name(Path::new("16385.1.2")), None);
        assert_eq!(segment_from_name(Path::new("16385_xx.1")), None);
    }

    #[test]
    fn relation_file_names() {
        let parse = RelationFileName::parse;
        assert_eq!(
            parse("16385_vm.2"),
            Some(RelationFileName {
                relfilenode: 16385,
                fork: Fork::Vm,
                segment: Some(2)
            })
        );
        assert_eq!(
            parse("16385").map(|r| (r.fork, r.segment)),
            Some((Fork::Main, None))
        );
        for bad in [
            "pg_filenode.map",
            "PG_VERSION",
            "t3_16385",
            "16385.",
            "_fsm",
            "1.x",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn raw_streams_are_cut_into_blocks_with_a_short_tail() {
        let mut data = vec![0u8; 8192 * 2 + 100];
        data[18] = 0x04;
        data[19] = 0x20;
        let src = Source::from_reader(
            PathBuf::from("x"),
            Box::new(io::Cursor::new(data)),
            InputFormat::Raw,
            None,
        )
        .unwrap();
        let blocks: Vec<Block> = src.blocks().map(|b| b.unwrap()).collect();
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[2].data.len(), 100);
        assert_eq!(blocks[1].offset, 8192);
    }

    /// What the command layer passes: either engine's announced size.
    const SNIFF_SIZE: fn(&[u8]) -> Option<usize> = |head| {
        crate::parse::postgres::page_size_from_header(head)
            .or_else(|| crate::parse::oracle::block_size_from_header(head))
    };

    #[test]
    fn oracle_block_size_comes_from_frmt_or_the_os_header() {
        let mut data = vec![0u8; 16384 * 2];
        data[0] = 0x06; // type_kcbh: trans data
        data[1] = 0xc2; // frmt_kcbh: 16 KB
        let mut src = Source::from_reader(
            PathBuf::from("x"),
            Box::new(io::Cursor::new(data)),
            InputFormat::Raw,
            None,
        )
        .unwrap();
        src.detect_block_size(SNIFF_SIZE);
        assert_eq!(src.block_size, 16384);

        let mut os = vec![0u8; 4096 * 3];
        os[1] = 0x82;
        os[20..24].copy_from_slice(&4096u32.to_be_bytes()); // block size, big-endian platform
        os[28..32].copy_from_slice(&0x7a7b_7c7du32.to_be_bytes()); // magic
        let mut src = Source::from_reader(
            PathBuf::from("x"),
            Box::new(io::Cursor::new(os)),
            InputFormat::Raw,
            None,
        )
        .unwrap();
        src.detect_block_size(SNIFF_SIZE);
        assert_eq!(src.block_size, 4096);
        assert_eq!(src.head(2).unwrap(), vec![0, 0x82]);
        assert_eq!(src.blocks().count(), 3);
    }

    #[test]
    fn block_size_is_read_from_the_page_header() {
        let mut data = vec![0u8; 4096 * 2];
        data[18] = 0x04;
        data[19] = 0x10;
        let mut src = Source::from_reader(
            PathBuf::from("x"),
            Box::new(io::Cursor::new(data)),
            InputFormat::Raw,
            None,
        )
        .unwrap();
        src.detect_block_size(SNIFF_SIZE);
        assert_eq!(src.block_size, 4096);
        assert_eq!(src.blocks().count(), 2);
    }
}
