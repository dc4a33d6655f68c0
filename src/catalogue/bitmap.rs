//! The flag by catalogue number: one bit per ED grid of the minlex
//! catalogue, bit `k - 1` for number `k`, so "has this grid a minimal 18?"
//! is its number ([`Catalogue::number`], from any image) and one bit.
//! `s17 campaign bitmap` writes the file from a flag campaign's files;
//! `s17 catalogue has` reads it.
//!
//! # Layout (format version 1, all integers little-endian)
//!
//! ```text
//! offset  size  field
//!      0     8  magic "S17CATBM"
//!      8     4  format version (1)
//!     12     4  payload offset P: the header rounded up to 4,096 bytes
//!     16     8  bits N = 5,472,730,538 (the catalogue's numbers)
//!     24     4  block length S in bytes (1,048,576)
//!     28     4  blocks: ceil(ceil(N / 8) / S) = 653
//!     32     4  clues of the flag (16..=21)
//!     36     4  kind, as in flag files: bit 0 first (each visit stopped
//!               at its first puzzle), bit 1 non-minimal; other bits zero
//!     40     4  state: bit 0 complete (every slice's file, every ED grid
//!               covered, one complete campaign), else partial (made with
//!               `--partial`: a clear bit is then no answer); other bits
//!               zero
//!     44     4  flag files read
//!     48     8  plan fingerprint of the flag files (0: none, or several)
//!     56     8  bits set (grids flagged)
//!     64     8  grids covered (the flag files' covered counts, summed)
//!     72     4  build length B (1..=1024)
//!     76     4  zero
//!     80     B  build: `s17 --version` of the exporting program (UTF-8),
//!               then zero bytes up to T = 80 + B rounded up to 8
//!      T  8×blocks  the checksum of each block of the payload
//!  T+8×blocks    8  the checksum of bytes 0 .. T+8×blocks
//!  then zero bytes up to P
//!      P  ceil(N / 8)  the payload: number k is bit (k-1) mod 8 of byte
//!               (k-1) div 8, least significant bit first; block i is the
//!               bytes i×S .. min((i+1)×S, ceil(N / 8)) (the last is short)
//! ```
//!
//! The checksums are [`crate::disk::Checksum`] (the flag files' and band
//! tables'). The file is exactly P + ceil(N / 8) bytes (P + 684,091,318).
//! It is written sparse: its length set, then only the header and the
//! blocks holding a set bit written, so a test campaign's bitmap takes a few
//! kilobytes of disk (a full one, 684 MB). A reader checks the header's
//! checksum on open and each block's before its first bit is read
//! ([`Bitmap::get`]): one lookup reads at most 1 MiB of the file.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::disk::{AtomicFile, Checksum};
use crate::grid::Grid;

use super::{Catalogue, CatalogueError, ED_GRIDS};

/// The first 8 bytes of a bitmap file.
pub const MAGIC: [u8; 8] = *b"S17CATBM";
/// The format version this program writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes of a block of the payload (the unit of the checksums and of the
/// sparse write).
pub const BLOCK: usize = 1 << 20;
/// Bytes of the payload: one bit per catalogue number.
pub const PAYLOAD: u64 = ED_GRIDS.div_ceil(8);
/// Blocks of the payload.
pub const BLOCKS: usize = PAYLOAD.div_ceil(BLOCK as u64) as usize;
/// The payload's offset is a multiple of this.
pub const ALIGN: usize = 4096;
/// The longest build string.
pub const BUILD_MAX: usize = 1024;
/// Bytes of the fixed header, before the build string.
const FIXED: usize = 80;
/// Kind bit: each visit stopped at its first puzzle (as flag files).
pub const KIND_FIRST: u32 = 1;
/// Kind bit: valid puzzles, minimal or not (as flag files).
pub const KIND_NON_MINIMAL: u32 = 2;
/// State bit: complete.
pub const STATE_COMPLETE: u32 = 1;

/// What a bitmap says and where it came from (its header).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitmapInfo {
    pub clues: u32,
    /// [`KIND_FIRST`], [`KIND_NON_MINIMAL`].
    pub kind: u32,
    /// Every ED grid covered by one complete campaign: a clear bit is "no".
    pub complete: bool,
    pub files: u32,
    pub plan: u64,
    /// Bits set (set by the writer).
    pub set: u64,
    pub covered: u64,
    pub build: String,
}

impl BitmapInfo {
    /// What a set bit says, for people: "has a minimal 18 (first per visit)".
    pub fn describe(&self) -> String {
        crate::search::Goal {
            clues: self.clues as usize,
            non_minimal: self.kind & KIND_NON_MINIMAL != 0,
            first: self.kind & KIND_FIRST != 0,
        }
        .flag_text()
    }

    /// Bytes up to the block checksums.
    fn table_at(&self) -> usize {
        FIXED + self.build.len().div_ceil(8) * 8
    }

    /// The payload's offset.
    fn payload_at(&self) -> usize {
        (self.table_at() + 8 * BLOCKS + 8).div_ceil(ALIGN) * ALIGN
    }
}

/// The answer of a bitmap for one number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The bit is set: the grid is flagged.
    Yes,
    /// The bit is clear in a complete bitmap.
    No,
    /// The bit is clear in a partial bitmap: not flagged, maybe not
    /// searched either.
    Unknown,
}

impl Answer {
    /// `yes`, `no`, `unknown`.
    pub fn word(self) -> &'static str {
        match self {
            Answer::Yes => "yes",
            Answer::No => "no",
            Answer::Unknown => "unknown",
        }
    }
}

/// What is wrong with a bitmap file.
#[derive(Debug, thiserror::Error)]
pub enum BitmapFault {
    #[error("not a catalogue bitmap (it does not start with \"S17CATBM\")")]
    Magic,
    #[error("format version {0}, this program reads version {FORMAT_VERSION}")]
    Version(u32),
    #[error("truncated or overlong: {got} bytes, the header promises {expected}")]
    Length { expected: u64, got: u64 },
    #[error("bad header: {0}")]
    Header(String),
    #[error("checksum mismatch in {0}: the file is damaged")]
    Checksum(String),
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// A bitmap file that cannot be read or written, named.
#[derive(Debug, thiserror::Error)]
#[error("{}: {fault}", file.display())]
pub struct BitmapError {
    pub file: PathBuf,
    #[source]
    pub fault: BitmapFault,
}

/// A lookup that failed: the grid's number, or the bitmap.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error(transparent)]
    Catalogue(#[from] CatalogueError),
    #[error(transparent)]
    Bitmap(#[from] BitmapError),
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// The length of block `i` of the payload.
fn block_len(i: usize) -> usize {
    (PAYLOAD - (i * BLOCK) as u64).min(BLOCK as u64) as usize
}

/// The checksum of a block of zeros of `len` bytes.
fn zero_checksum(len: usize) -> u64 {
    let mut sum = Checksum::new();
    let zeros = [0u8; 4096];
    let mut left = len;
    while left > 0 {
        let n = left.min(zeros.len());
        sum.update(&zeros[..n]);
        left -= n;
    }
    sum.finish()
}

/// The bits of a bitmap being made, block by block: a block takes memory
/// from its first set bit until it is written ([`BitmapWriter::flush_below`]).
pub struct BitmapWriter {
    /// The file being filled, beside the bitmap's path; renamed over it by
    /// [`Self::finish`], removed if the writer is dropped before.
    out: AtomicFile,
    blocks: Vec<Option<Box<[u8]>>>,
    sums: Vec<u64>,
    /// Blocks below this are written (or zero) and final.
    done: usize,
    set: u64,
    payload_at: u64,
}

impl BitmapWriter {
    /// Starts `path` (a file beside it, renamed over it by
    /// [`Self::finish`]: `path` is untouched until then) at its full
    /// length, all bits clear; `info` gives the header's length (its build
    /// string).
    pub fn create(path: &Path, info: &BitmapInfo) -> Result<BitmapWriter, BitmapError> {
        check_info(info).map_err(|fault| BitmapError {
            file: path.to_path_buf(),
            fault,
        })?;
        let payload_at = info.payload_at() as u64;
        let fail = |file: &Path, e: io::Error| BitmapError {
            file: file.to_path_buf(),
            fault: BitmapFault::Io(e),
        };
        let mut out = AtomicFile::create(path).map_err(|e| fail(path, e))?;
        // Dropped on an error, `out` removes its file.
        let temporary = out.temporary().to_path_buf();
        out.file()
            .set_len(payload_at + PAYLOAD)
            .map_err(|e| fail(&temporary, e))?;
        let zero = zero_checksum(BLOCK);
        let mut sums = vec![zero; BLOCKS];
        sums[BLOCKS - 1] = zero_checksum(block_len(BLOCKS - 1));
        Ok(BitmapWriter {
            out,
            blocks: (0..BLOCKS).map(|_| None).collect(),
            sums,
            done: 0,
            set: 0,
            payload_at,
        })
    }

    /// Sets the bit of `number` (1..=N); false when it was set already.
    /// A number in a block already written is a bug of the caller (numbers
    /// come in increasing blocks): it panics.
    pub fn set(&mut self, number: u64) -> bool {
        assert!((1..=ED_GRIDS).contains(&number), "number {number}");
        let byte = (number - 1) / 8;
        let (i, at) = (
            (byte / BLOCK as u64) as usize,
            (byte % BLOCK as u64) as usize,
        );
        assert!(i >= self.done, "number {number} in a block already written");
        let block = self.blocks[i].get_or_insert_with(|| vec![0u8; block_len(i)].into());
        let bit = 1u8 << ((number - 1) % 8);
        let was = block[at] & bit != 0;
        block[at] |= bit;
        self.set += !was as u64;
        !was
    }

    /// Bits set so far.
    pub fn count(&self) -> u64 {
        self.set
    }

    /// Writes and frees the blocks wholly below `number` (no later
    /// [`Self::set`] may fall there): memory stays a few blocks when the
    /// numbers come in increasing order.
    pub fn flush_below(&mut self, number: u64) -> Result<(), BitmapError> {
        let upto = (((number.max(1) - 1) / 8) / BLOCK as u64) as usize;
        while self.done < upto.min(BLOCKS) {
            let i = self.done;
            if let Some(block) = self.blocks[i].take() {
                self.sums[i] = Checksum::of(&block);
                let at = self.payload_at + (i * BLOCK) as u64;
                let file = self.out.file();
                file.seek(SeekFrom::Start(at))
                    .and_then(|_| file.write_all(&block))
                    .map_err(|e| BitmapError {
                        file: self.out.temporary().to_path_buf(),
                        fault: BitmapFault::Io(e),
                    })?;
            }
            self.done += 1;
        }
        Ok(())
    }

    /// Writes every block left, then the header (with the bits set), syncs
    /// the file and renames it over `path`; the bits set.
    pub fn finish(mut self, info: &BitmapInfo) -> Result<u64, BitmapError> {
        self.flush_below(ED_GRIDS + 8 * BLOCK as u64)?;
        let info = BitmapInfo {
            set: self.set,
            ..info.clone()
        };
        let header = header_bytes(&info, &self.sums);
        let temporary = self.out.temporary().to_path_buf();
        let mut out = self.out;
        let written = {
            let file = out.file();
            file.seek(SeekFrom::Start(0))
                .and_then(|_| file.write_all(&header))
        };
        written
            .and_then(|()| out.commit())
            .map_err(|e| BitmapError {
                file: temporary,
                fault: BitmapFault::Io(e),
            })?;
        Ok(self.set)
    }
}

fn check_info(info: &BitmapInfo) -> Result<(), BitmapFault> {
    let bad = |why: String| Err(BitmapFault::Header(why));
    if info.build.is_empty() || info.build.len() > BUILD_MAX {
        return bad(format!(
            "a build string of {} bytes (1 to {BUILD_MAX})",
            info.build.len()
        ));
    }
    if !(16..=21).contains(&info.clues) {
        return bad(format!("clues {} (16 to 21)", info.clues));
    }
    if info.kind & !(KIND_FIRST | KIND_NON_MINIMAL) != 0 {
        return bad(format!("unknown kind bits {:#x}", info.kind));
    }
    if info.set > ED_GRIDS || info.covered > ED_GRIDS {
        return bad(format!(
            "{} bits set and {} grids covered of {ED_GRIDS}",
            info.set, info.covered
        ));
    }
    Ok(())
}

/// The header's bytes, up to the payload.
fn header_bytes(info: &BitmapInfo, sums: &[u64]) -> Vec<u8> {
    let table = info.table_at();
    let mut b = vec![0u8; info.payload_at()];
    b[0..8].copy_from_slice(&MAGIC);
    for (at, w) in [
        (8, FORMAT_VERSION),
        (12, info.payload_at() as u32),
        (24, BLOCK as u32),
        (28, BLOCKS as u32),
        (32, info.clues),
        (36, info.kind),
        (40, info.complete as u32 * STATE_COMPLETE),
        (44, info.files),
        (72, info.build.len() as u32),
    ] {
        b[at..at + 4].copy_from_slice(&w.to_le_bytes());
    }
    for (at, w) in [
        (16, ED_GRIDS),
        (48, info.plan),
        (56, info.set),
        (64, info.covered),
    ] {
        b[at..at + 8].copy_from_slice(&w.to_le_bytes());
    }
    b[FIXED..FIXED + info.build.len()].copy_from_slice(info.build.as_bytes());
    for (i, s) in sums.iter().enumerate() {
        b[table + 8 * i..table + 8 * i + 8].copy_from_slice(&s.to_le_bytes());
    }
    let end = table + 8 * BLOCKS;
    let sum = Checksum::of(&b[..end]);
    b[end..end + 8].copy_from_slice(&sum.to_le_bytes());
    b
}

/// A bitmap file open for lookups: its header checked, each block checked
/// before its first bit is read.
pub struct Bitmap {
    file: File,
    path: PathBuf,
    info: BitmapInfo,
    payload_at: u64,
    sums: Vec<u64>,
    checked: Vec<bool>,
}

impl Bitmap {
    /// Opens and checks `path`: magic, version, layout, length, the header's
    /// checksum.
    pub fn open(path: &Path) -> Result<Bitmap, BitmapError> {
        let fail = |fault: BitmapFault| BitmapError {
            file: path.to_path_buf(),
            fault,
        };
        let mut file = File::open(path).map_err(|e| fail(e.into()))?;
        let len = file.metadata().map_err(|e| fail(e.into()))?.len();
        let mut head = vec![0u8; (FIXED as u64).min(len) as usize];
        file.read_exact(&mut head).map_err(|e| fail(e.into()))?;
        if head.len() < 8 || head[..8] != MAGIC {
            return Err(fail(BitmapFault::Magic));
        }
        if head.len() < FIXED {
            return Err(fail(BitmapFault::Length {
                expected: FIXED as u64,
                got: len,
            }));
        }
        let version = u32_at(&head, 8);
        if version != FORMAT_VERSION {
            return Err(fail(BitmapFault::Version(version)));
        }
        let payload_at = u32_at(&head, 12) as u64;
        let bad = |why: String| fail(BitmapFault::Header(why));
        let build_len = u32_at(&head, 72) as usize;
        if u64_at(&head, 16) != ED_GRIDS
            || u32_at(&head, 24) as usize != BLOCK
            || u32_at(&head, 28) as usize != BLOCKS
            || !(1..=BUILD_MAX).contains(&build_len)
        {
            return Err(bad(format!(
                "{} bits in {} blocks of {} bytes, a build of {build_len} bytes \
                 (this program: {ED_GRIDS} bits, {BLOCKS} blocks of {BLOCK} bytes)",
                u64_at(&head, 16),
                u32_at(&head, 28),
                u32_at(&head, 24)
            )));
        }
        let table = FIXED + build_len.div_ceil(8) * 8;
        let expected_at = (table + 8 * BLOCKS + 8).div_ceil(ALIGN) * ALIGN;
        if payload_at != expected_at as u64 {
            return Err(bad(format!(
                "payload at byte {payload_at}, the layout puts it at {expected_at}"
            )));
        }
        if len != payload_at + PAYLOAD {
            return Err(fail(BitmapFault::Length {
                expected: payload_at + PAYLOAD,
                got: len,
            }));
        }
        let mut rest = vec![0u8; table + 8 * BLOCKS + 8 - FIXED];
        file.read_exact(&mut rest).map_err(|e| fail(e.into()))?;
        head.extend_from_slice(&rest);
        let end = table + 8 * BLOCKS;
        if Checksum::of(&head[..end]) != u64_at(&head, end) {
            return Err(fail(BitmapFault::Checksum("the header".to_string())));
        }
        let (build, pad) = head[FIXED..table].split_at(build_len);
        let Ok(build) = std::str::from_utf8(build) else {
            return Err(bad("the build string is not UTF-8".to_string()));
        };
        if pad.iter().any(|&x| x != 0) || u32_at(&head, 76) != 0 {
            return Err(bad("bytes that must be zero are not".to_string()));
        }
        let state = u32_at(&head, 40);
        if state & !STATE_COMPLETE != 0 {
            return Err(bad(format!("unknown state bits {state:#x}")));
        }
        let info = BitmapInfo {
            clues: u32_at(&head, 32),
            kind: u32_at(&head, 36),
            complete: state & STATE_COMPLETE != 0,
            files: u32_at(&head, 44),
            plan: u64_at(&head, 48),
            set: u64_at(&head, 56),
            covered: u64_at(&head, 64),
            build: build.to_string(),
        };
        check_info(&info).map_err(fail)?;
        let sums = (0..BLOCKS).map(|i| u64_at(&head, table + 8 * i)).collect();
        Ok(Bitmap {
            file,
            path: path.to_path_buf(),
            info,
            payload_at,
            sums,
            checked: vec![false; BLOCKS],
        })
    }

    /// The header.
    pub fn info(&self) -> &BitmapInfo {
        &self.info
    }

    /// The bit of catalogue number `number` (1..=N), its block checked
    /// first if it was not yet.
    pub fn get(&mut self, number: u64) -> Result<bool, BitmapError> {
        assert!((1..=ED_GRIDS).contains(&number), "number {number}");
        let byte = (number - 1) / 8;
        let i = (byte / BLOCK as u64) as usize;
        let fail = |fault: BitmapFault| BitmapError {
            file: self.path.clone(),
            fault,
        };
        let mut b = [0u8; 1];
        if !self.checked[i] {
            let mut block = vec![0u8; block_len(i)];
            self.file
                .seek(SeekFrom::Start(self.payload_at + (i * BLOCK) as u64))
                .and_then(|_| self.file.read_exact(&mut block))
                .map_err(|e| fail(e.into()))?;
            if Checksum::of(&block) != self.sums[i] {
                return Err(fail(BitmapFault::Checksum(format!(
                    "block {i} (numbers {} to {})",
                    (i * BLOCK * 8) as u64 + 1,
                    (((i + 1) * BLOCK * 8) as u64).min(ED_GRIDS)
                ))));
            }
            self.checked[i] = true;
            b[0] = block[(byte % BLOCK as u64) as usize];
        } else {
            self.file
                .seek(SeekFrom::Start(self.payload_at + byte))
                .and_then(|_| self.file.read_exact(&mut b))
                .map_err(|e| fail(e.into()))?;
        }
        Ok(b[0] & (1 << ((number - 1) % 8)) != 0)
    }

    /// The answer for catalogue number `number`.
    pub fn answer(&mut self, number: u64) -> Result<Answer, BitmapError> {
        Ok(match (self.get(number)?, self.info.complete) {
            (true, _) => Answer::Yes,
            (false, true) => Answer::No,
            (false, false) => Answer::Unknown,
        })
    }

    /// "Has this grid the flag?" from any image of it: its catalogue number
    /// and the answer.
    pub fn lookup(
        &mut self,
        catalogue: &Catalogue,
        grid: &Grid,
    ) -> Result<(u64, Answer), LookupError> {
        let number = catalogue.number(grid)?;
        Ok((number, self.answer(number)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(complete: bool) -> BitmapInfo {
        BitmapInfo {
            clues: 18,
            kind: KIND_FIRST,
            complete,
            files: 2,
            plan: 0x1234,
            set: 0,
            covered: 77,
            build: "s17 test".to_string(),
        }
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("s17-bitmap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    /// Numbers at block edges and the ends, set in increasing order with
    /// flushes between; read back bit by bit around each; the file sparse.
    #[test]
    fn bits_written_are_read_back_and_the_rest_is_clear() {
        let path = temp("round.bits");
        let per_block = (BLOCK * 8) as u64;
        let numbers = [
            1,
            2,
            9,
            per_block,
            per_block + 1,
            100 * per_block + 77,
            ED_GRIDS - 1,
            ED_GRIDS,
        ];
        let mut w = BitmapWriter::create(&path, &info(false)).unwrap();
        for &n in &numbers {
            w.flush_below(n).unwrap();
            assert!(w.set(n));
            assert!(!w.set(n), "set twice");
        }
        assert_eq!(w.finish(&info(false)).unwrap(), numbers.len() as u64);
        let mut b = Bitmap::open(&path).unwrap();
        assert_eq!(
            *b.info(),
            BitmapInfo {
                set: numbers.len() as u64,
                ..info(false)
            }
        );
        for &n in &numbers {
            for m in n.saturating_sub(9).max(1)..=(n + 9).min(ED_GRIDS) {
                assert_eq!(b.get(m).unwrap(), numbers.contains(&m), "number {m}");
            }
        }
        assert_eq!(b.answer(3).unwrap(), Answer::Unknown);
        assert_eq!(b.answer(2).unwrap(), Answer::Yes);
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.len(), b.payload_at + PAYLOAD);
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            assert!(meta.blocks() * 512 < 16 << 20, "sparse: {}", meta.blocks());
        }
        let mut w = BitmapWriter::create(&path, &info(true)).unwrap();
        w.set(5);
        w.finish(&info(true)).unwrap();
        let mut b = Bitmap::open(&path).unwrap();
        assert_eq!(b.answer(4).unwrap(), Answer::No);
        assert_eq!(b.answer(5).unwrap(), Answer::Yes);
        let _ = std::fs::remove_file(&path);
    }

    /// A damaged file is refused by name: magic, version, length, a byte of
    /// the header, a byte of a block.
    #[test]
    fn damaged_bitmaps_are_refused_by_name() {
        let path = temp("damaged.bits");
        let mut w = BitmapWriter::create(&path, &info(false)).unwrap();
        w.set(12_345);
        w.finish(&info(false)).unwrap();
        let good = Bitmap::open(&path).unwrap();
        let payload_at = good.payload_at;
        drop(good);
        let patch = |at: u64, byte: u8| {
            let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            f.seek(SeekFrom::Start(at)).unwrap();
            f.write_all(&[byte]).unwrap();
        };
        let said = |path: &Path| match Bitmap::open(path).and_then(|mut b| b.get(12_345)) {
            Ok(_) => panic!("accepted"),
            Err(e) => {
                assert_eq!(e.file, path);
                e.to_string()
            }
        };
        patch(payload_at + 12_344 / 8, 0);
        assert!(said(&path).contains("checksum mismatch in block 0"));
        patch(payload_at + 12_344 / 8, 1 << (12_344 % 8));
        patch(60, 1);
        assert!(said(&path).contains("checksum mismatch in the header"));
        patch(60, 0);
        patch(8, 2);
        assert!(said(&path).contains("format version 2"));
        patch(8, 1);
        patch(0, b'X');
        assert!(said(&path).contains("not a catalogue bitmap"));
        patch(0, b'S');
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(payload_at + PAYLOAD - 1).unwrap();
        assert!(said(&path).contains("truncated or overlong"));
        f.set_len(100).unwrap();
        assert!(said(&path).contains("truncated or overlong"));
        let _ = std::fs::remove_file(&path);
    }
}
