//! The band table file: for each catalogue band, its minimal UAs and its
//! valid clue sets of sizes 2..=6, memory-mapped and read in place.
//!
//! The file is built by the program ([`build`], `s17 tables build`), written
//! to a temporary file and renamed, so a crash never leaves a half file under
//! the real name. [`BandTables::open`] maps it (memmap2) and checks the header
//! and sizes (cheap, no parsing, no copying). Each band's section has its
//! own checksum, checked the first time the process reads that band
//! ([`BandTables::try_band`]): a corrupt band is refused, naming the file and
//! the band, before any search reads it (0.12 ms for an average band,
//! 0.37 ms for the largest; benches/README.md). [`BandTables::verify`]
//! checks every band, the checksum of the whole file, and every list.
//! Readers are generic over `AsRef<[u8]>`, so tests can use a `Vec<u8>`.
//!
//! # Layout (format version 2, all integers little-endian)
//!
//! ```text
//! offset  size  field
//!      0     8  magic "S17BANDS"
//!      8     4  format version (FORMAT_VERSION)
//!     12     4  header length (128)
//!     16     4  band count B (416 in a complete file)
//!     20     4  smallest stored size (2)
//!     24     4  largest stored size (6)
//!     28     4  index length per list (352)
//!     32     8  file length
//!     40     8  checksum of bytes 128..file length (see Checksum)
//!     48     8  offset of bands    B × 28 bytes: 27 digits + 0
//!     56     8  offset of records  B × 64 bytes: BandRecord
//!     64     8  offset of uas      U × u32 (minimal UAs, catalogue cells)
//!     72     8  U
//!     80     8  offset of index    B × 5 × 352 × u32
//!     88     8  offset of sets     S × u32
//!     96     8  S
//!    104    24  zero
//! ```
//!
//! Sections follow the header in that order, each starting at a multiple of
//! 8 and padded with zeros. Band `b`'s list of size `k` (2..=6) is
//! `sets[start..start + len]` with `[start, len] = records[b].lists[k - 2]`,
//! sorted and sliced as described in [`crate::band::valid`]; its slice index
//! is `index[(5 b + k - 2) × 352..][..352]`, offsets relative to `start`.
//! Sizes below the band's minimum have empty lists.
//!
//! **Band sections.** Band `b`'s section is everything the file holds for
//! it: its 28 bytes in `bands`, the first 56 bytes of its record, its UAs,
//! its 5 slice indices and its 5 lists of sets, in that order.
//! `records[b].checksum` is the [`Checksum`] of those bytes. (Version 1 had
//! no per-band checksum; its files are rebuilt.)

use std::fs::{self, File};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytemuck::{Pod, Zeroable};
use memmap2::Mmap;
use rayon::prelude::*;

use crate::band::valid::{INDEX_LEN, build_index, slice_of, slices_of, sort_key};
use crate::band::{
    Band, BandCatalogue, SetList, Slice, band_to_string, band_uas, is_valid_band, minimum_size,
    valid_sets_unsorted,
};

/// The first 8 bytes of a band table file.
pub const MAGIC: [u8; 8] = *b"S17BANDS";
/// The format version this program reads and writes.
pub const FORMAT_VERSION: u32 = 2;
/// Smallest clue-set size stored in the file.
pub const MIN_STORED_SIZE: usize = 2;
/// Largest clue-set size stored in the file; larger ones come from
/// [`BandTable::set_list`] on demand.
pub const MAX_STORED_SIZE: usize = 6;
/// Number of sizes stored per band.
pub const STORED_SIZES: usize = MAX_STORED_SIZE - MIN_STORED_SIZE + 1;
/// Number of bands in a complete file.
pub const CATALOGUE_LEN: usize = 416;

const HEADER_LEN: usize = 128;
const BAND_LEN: usize = 28;
const RECORD_LEN: usize = std::mem::size_of::<BandRecord>();

/// The name of the table file in the per-user cache directory.
pub const CACHE_FILE: &str = "s17/bands.s17t";

/// Where the tables live unless the command line says otherwise
/// (`--tables`, `--path`): `$S17_TABLES` if set, else `s17/bands.s17t` in
/// the per-user cache directory (`$XDG_CACHE_HOME`, else `~/.cache` on
/// Linux; the platform's own cache directory elsewhere, as the `dirs`
/// crate finds it). Never the current directory, so `s17` run from any
/// directory finds the same tables.
pub fn default_table_path() -> Result<PathBuf, TableError> {
    match std::env::var_os("S17_TABLES") {
        Some(path) if !path.is_empty() => Ok(PathBuf::from(path)),
        _ => dirs::cache_dir()
            .map(|dir| dir.join(CACHE_FILE))
            .ok_or(TableError::NoDefaultPath),
    }
}

/// What is wrong with a table file, and how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("band tables not found at {path}; build them with `s17 tables build`")]
    NotFound { path: PathBuf },
    #[error(
        "no place for the band tables: no cache directory (neither $XDG_CACHE_HOME nor $HOME is set); \
         set $S17_TABLES or pass --tables PATH"
    )]
    NoDefaultPath,
    #[error("band tables {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("not a band table file (bad magic number); rebuild with `s17 tables build`")]
    Magic,
    #[error(
        "band table format version {found}, this program reads version {expected}; rebuild with `s17 tables build`"
    )]
    Version { expected: u32, found: u32 },
    #[error(
        "band table file truncated: {found} bytes, expected {expected}; rebuild with `s17 tables build`"
    )]
    Truncated { expected: u64, found: u64 },
    #[error("band table file malformed: {reason}; rebuild with `s17 tables build`")]
    Malformed { reason: String },
    #[error(
        "band table checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): the file is corrupt; rebuild with `s17 tables build`"
    )]
    Checksum { stored: u64, computed: u64 },
    #[error(
        "band table file holds {found} bands, expected {expected}; rebuild with `s17 tables build`"
    )]
    Incomplete { expected: usize, found: usize },
    #[error(
        "band tables {path}: band {band} is corrupt ({problem}); rebuild them with \
         `s17 tables build --path {path}`"
    )]
    Band {
        path: PathBuf,
        /// Position in the file (the catalogue index in a complete file).
        band: usize,
        problem: String,
    },
    #[error(
        "band table bytes are not 8-byte aligned in memory (use a memory map or an aligned buffer)"
    )]
    Misaligned,
    #[error("band table files are little-endian and this host is big-endian")]
    BigEndianHost,
}

impl TableError {
    /// True for the problems [`BandTables::open_or_build`] fixes by
    /// building the file: it is missing, or was written by another format
    /// version. Anything else is refused, never overwritten.
    pub fn is_rebuilt(&self) -> bool {
        matches!(
            self,
            TableError::NotFound { .. } | TableError::Version { .. }
        )
    }

    /// True for the errors whose message names the table file.
    pub fn names_file(&self) -> bool {
        matches!(
            self,
            TableError::NotFound { .. }
                | TableError::Io { .. }
                | TableError::NoDefaultPath
                | TableError::Band { .. }
        )
    }
}

fn malformed(reason: impl Into<String>) -> TableError {
    TableError::Malformed {
        reason: reason.into(),
    }
}

/// One band's entry in the records section (64 bytes).
///
/// ```text
/// u32 catalogue_index, u32 min_size, u32 ua_start, u32 ua_len,
/// [u32 start, u32 len] × 5   lists of sizes 2..=6 (start in the sets section)
/// u64 checksum               of the band's section (see the module note)
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct BandRecord {
    catalogue_index: u32,
    min_size: u32,
    ua_start: u32,
    ua_len: u32,
    lists: [[u32; 2]; STORED_SIZES],
    checksum: u64,
}

/// The bytes of a record that its band's checksum covers (all but the
/// checksum itself).
const RECORD_SUMMED: usize = std::mem::offset_of!(BandRecord, checksum);

/// The checksum of one band's section from its parts, as bytes of the
/// file: its 28 band bytes, the first 56 bytes of its record, its UAs, its
/// slice indices and its lists.
fn band_section_checksum(parts: &[&[u8]]) -> u64 {
    let mut sum = Checksum::new();
    for part in parts {
        sum.update(part);
    }
    sum.finish()
}

/// Words as little-endian bytes.
fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The header fields, read and written explicitly little-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Header {
    band_count: u64,
    uas_len: u64,
    sets_len: u64,
    file_len: u64,
    checksum: u64,
}

/// Byte ranges of the sections, computed from the counts alone.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Layout {
    bands: Range<usize>,
    records: Range<usize>,
    uas: Range<usize>,
    index: Range<usize>,
    sets: Range<usize>,
    file_len: usize,
}

impl Layout {
    /// The layout for the given counts, or `None` if it overflows.
    fn new(band_count: u64, uas_len: u64, sets_len: u64) -> Option<Layout> {
        let mut at = HEADER_LEN as u64;
        let mut section = |len: Option<u64>| -> Option<Range<usize>> {
            let start = at;
            let end = start.checked_add(len?)?;
            at = end.checked_next_multiple_of(8)?;
            Some(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
        };
        let bands = section(band_count.checked_mul(BAND_LEN as u64))?;
        let records = section(band_count.checked_mul(RECORD_LEN as u64))?;
        let uas = section(uas_len.checked_mul(4))?;
        let index_words = band_count.checked_mul((STORED_SIZES * INDEX_LEN) as u64);
        let index = section(index_words.and_then(|w| w.checked_mul(4)))?;
        let sets = section(sets_len.checked_mul(4))?;
        Some(Layout {
            bands,
            records,
            uas,
            index,
            sets,
            file_len: usize::try_from(at).ok()?,
        })
    }

    fn encode_header(&self, header: &Header) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0..8].copy_from_slice(&MAGIC);
        let words32 = [
            FORMAT_VERSION,
            HEADER_LEN as u32,
            header.band_count as u32,
            MIN_STORED_SIZE as u32,
            MAX_STORED_SIZE as u32,
            INDEX_LEN as u32,
        ];
        for (i, w) in words32.iter().enumerate() {
            out[8 + 4 * i..12 + 4 * i].copy_from_slice(&w.to_le_bytes());
        }
        let words64 = [
            header.file_len,
            header.checksum,
            self.bands.start as u64,
            self.records.start as u64,
            self.uas.start as u64,
            header.uas_len,
            self.index.start as u64,
            self.sets.start as u64,
            header.sets_len,
        ];
        for (i, w) in words64.iter().enumerate() {
            out[32 + 8 * i..40 + 8 * i].copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// Checks the header against the byte length; returns it with its layout.
fn read_header(bytes: &[u8]) -> Result<(Header, Layout), TableError> {
    let found = bytes.len() as u64;
    if bytes.len() < MAGIC.len() {
        return Err(TableError::Truncated {
            expected: HEADER_LEN as u64,
            found,
        });
    }
    if bytes[..8] != MAGIC {
        return Err(TableError::Magic);
    }
    if bytes.len() < 12 {
        return Err(TableError::Truncated {
            expected: HEADER_LEN as u64,
            found,
        });
    }
    let version = u32_at(bytes, 8);
    if version != FORMAT_VERSION {
        return Err(TableError::Version {
            expected: FORMAT_VERSION,
            found: version,
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(TableError::Truncated {
            expected: HEADER_LEN as u64,
            found,
        });
    }
    let header = Header {
        band_count: u32_at(bytes, 16) as u64,
        file_len: u64_at(bytes, 32),
        checksum: u64_at(bytes, 40),
        uas_len: u64_at(bytes, 72),
        sets_len: u64_at(bytes, 96),
    };
    let expected_u32 = [
        (12, HEADER_LEN as u32, "header length"),
        (20, MIN_STORED_SIZE as u32, "smallest stored size"),
        (24, MAX_STORED_SIZE as u32, "largest stored size"),
        (28, INDEX_LEN as u32, "index length"),
    ];
    for (at, want, what) in expected_u32 {
        let got = u32_at(bytes, at);
        if got != want {
            return Err(malformed(format!("{what} is {got}, expected {want}")));
        }
    }
    let layout = Layout::new(header.band_count, header.uas_len, header.sets_len)
        .ok_or_else(|| malformed("section sizes overflow"))?;
    if header.file_len != layout.file_len as u64 {
        return Err(malformed(format!(
            "header says {} bytes, its counts need {}",
            header.file_len, layout.file_len
        )));
    }
    if found < header.file_len {
        return Err(TableError::Truncated {
            expected: header.file_len,
            found,
        });
    }
    if found > header.file_len {
        return Err(malformed(format!(
            "{} bytes after the end of the tables",
            found - header.file_len
        )));
    }
    let offsets = [
        (48, layout.bands.start, "bands"),
        (56, layout.records.start, "records"),
        (64, layout.uas.start, "uas"),
        (80, layout.index.start, "index"),
        (88, layout.sets.start, "sets"),
    ];
    for (at, want, what) in offsets {
        let got = u64_at(bytes, at);
        if got != want as u64 {
            return Err(malformed(format!(
                "{what} section at {got}, expected {want}"
            )));
        }
    }
    if bytes[104..HEADER_LEN].iter().any(|&b| b != 0) {
        return Err(malformed("reserved header bytes are not zero"));
    }
    Ok((header, layout))
}

/// A streaming 64-bit checksum: each 8-byte little-endian word `w` updates
/// the state as `h = rotl(h ^ w, 23) · K` (a bijection of `h` for each `w`,
/// injective in `w` for each `h`, so any change to a single word, in
/// particular any single flipped byte, always changes the result); the last
/// partial word is zero-padded and the byte length is mixed in at the end.
#[derive(Clone, Debug)]
pub struct Checksum {
    state: u64,
    pending: [u8; 8],
    pending_len: usize,
    total: u64,
}

const CHECKSUM_SEED: u64 = 0x5331_3742_414e_4453;
const CHECKSUM_K: u64 = 0x9e37_79b9_7f4a_7c15;

#[inline]
fn mix(state: u64, word: u64) -> u64 {
    (state ^ word).rotate_left(23).wrapping_mul(CHECKSUM_K)
}

impl Default for Checksum {
    fn default() -> Self {
        Checksum::new()
    }
}

impl Checksum {
    pub fn new() -> Checksum {
        Checksum {
            state: CHECKSUM_SEED,
            pending: [0; 8],
            pending_len: 0,
            total: 0,
        }
    }

    /// Adds bytes (any split of the same bytes gives the same checksum).
    pub fn update(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.pending_len > 0 {
            let take = (8 - self.pending_len).min(bytes.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&bytes[..take]);
            self.pending_len += take;
            bytes = &bytes[take..];
            if self.pending_len < 8 {
                return;
            }
            self.state = mix(self.state, u64::from_le_bytes(self.pending));
            self.pending_len = 0;
        }
        let words = bytes.chunks_exact(8);
        let rest = words.remainder();
        for w in words {
            self.state = mix(
                self.state,
                u64::from_le_bytes(w.try_into().expect("8 bytes")),
            );
        }
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// The checksum of all bytes so far.
    pub fn finish(&self) -> u64 {
        let mut state = self.state;
        if self.pending_len > 0 {
            let mut last = [0u8; 8];
            last[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
            state = mix(state, u64::from_le_bytes(last));
        }
        state = mix(state, self.total);
        state ^= state >> 31;
        state = state.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        state ^ state >> 29
    }

    /// The checksum of one byte string.
    pub fn of(bytes: &[u8]) -> u64 {
        let mut sum = Checksum::new();
        sum.update(bytes);
        sum.finish()
    }
}

/// A writer that checksums what passes through it.
struct ChecksumWriter<W> {
    inner: W,
    sum: Checksum,
}

impl<W: Write> Write for ChecksumWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.sum.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Band tables over any bytes: a memory map in the program, a `Vec<u8>` in
/// tests. Indices are positions in the file, which in a complete file are
/// catalogue indices.
pub struct BandTables<B: AsRef<[u8]>> {
    data: B,
    header: Header,
    layout: Layout,
    /// The file, for messages ("(in memory)" for tables over bytes).
    path: PathBuf,
    /// Per band: its section was checked and is good. Set once, read on
    /// every [`BandTables::try_band`] (one relaxed load).
    checked: Box<[AtomicBool]>,
}

impl BandTables<Mmap> {
    /// Maps the file at `path` and checks its header and sizes (cheap: no
    /// parsing, no copying). A file that is not complete (416 bands) is
    /// refused.
    pub fn open(path: impl AsRef<Path>) -> Result<BandTables<Mmap>, TableError> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => TableError::NotFound {
                path: path.to_path_buf(),
            },
            _ => TableError::Io {
                path: path.to_path_buf(),
                source,
            },
        })?;
        // SAFETY: the map is read-only and this program never writes a
        // table file in place (it writes a temporary file and renames it),
        // so the mapped bytes do not change while the map lives unless
        // another program modifies the file, which we document as
        // unsupported.
        let map = unsafe { Mmap::map(&file) }.map_err(|source| TableError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut tables = BandTables::from_bytes(map)?;
        tables.path = path.to_path_buf();
        if tables.len() != CATALOGUE_LEN {
            return Err(TableError::Incomplete {
                expected: CATALOGUE_LEN,
                found: tables.len(),
            });
        }
        Ok(tables)
    }

    /// Opens the tables, building them first when the file is missing or
    /// was written by another format version. Any other problem (wrong
    /// magic, truncated, incomplete) is refused rather than overwritten.
    pub fn open_or_build(
        path: impl AsRef<Path>,
        progress: bool,
    ) -> Result<BandTables<Mmap>, TableError> {
        let path = path.as_ref();
        match BandTables::open(path) {
            Err(e) if e.is_rebuilt() => {
                tracing::info!("building band tables at {}", path.display());
                build(path, progress)?;
                BandTables::open(path)
            }
            other => other,
        }
    }
}

impl<B: AsRef<[u8]>> BandTables<B> {
    /// Tables over `data`, after the cheap header and size checks.
    pub fn from_bytes(data: B) -> Result<BandTables<B>, TableError> {
        if cfg!(target_endian = "big") {
            return Err(TableError::BigEndianHost);
        }
        let bytes = data.as_ref();
        let (header, layout) = read_header(bytes)?;
        if bytes.as_ptr().align_offset(8) != 0 {
            return Err(TableError::Misaligned);
        }
        let checked = (0..header.band_count)
            .map(|_| AtomicBool::new(false))
            .collect();
        Ok(BandTables {
            data,
            header,
            layout,
            path: PathBuf::from("(in memory)"),
            checked,
        })
    }

    fn bytes(&self) -> &[u8] {
        self.data.as_ref()
    }

    fn words(&self, range: &Range<usize>) -> &[u32] {
        bytemuck::cast_slice(&self.bytes()[range.clone()])
    }

    fn records(&self) -> &[BandRecord] {
        bytemuck::cast_slice(&self.bytes()[self.layout.records.clone()])
    }

    /// Number of bands in the file.
    pub fn len(&self) -> usize {
        self.header.band_count as usize
    }

    /// True for a file with no bands.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file the tables were opened from ("(in memory)" for bytes).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// File length in bytes.
    pub fn file_len(&self) -> usize {
        self.layout.file_len
    }

    /// The checksum stored in the header.
    pub fn stored_checksum(&self) -> u64 {
        self.header.checksum
    }

    /// Total number of minimal UAs stored.
    pub fn total_uas(&self) -> usize {
        self.header.uas_len as usize
    }

    /// Total number of sets stored, all bands and sizes.
    pub fn total_sets(&self) -> usize {
        self.header.sets_len as usize
    }

    /// Band `position` (its catalogue index in a complete file); the first
    /// call for a band checks its section (see [`BandTables::try_band`]).
    ///
    /// # Panics
    /// If the position is out of range or the band's section is corrupt
    /// (the message names the file and band and says how to rebuild).
    pub fn band(&self, position: usize) -> BandTable<'_> {
        self.try_band(position).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Band `position`, or why its section is corrupt. The first call for a
    /// band in this process checks its record, slice indices and section
    /// checksum (a fraction of a millisecond: the bytes are read once); later
    /// calls only look the band up.
    pub fn try_band(&self, position: usize) -> Result<BandTable<'_>, TableError> {
        if position >= self.len() {
            return Err(malformed(format!(
                "band {position} asked of a file with {} bands",
                self.len()
            )));
        }
        if self.checked[position].load(Ordering::Relaxed) {
            return Ok(self.band_unchecked(position));
        }
        let (stored, computed) = self.section_checksums(position)?;
        if stored != computed {
            return Err(TableError::Band {
                path: self.path.clone(),
                band: position,
                problem: format!(
                    "checksum mismatch: stored {stored:#018x}, computed {computed:#018x}"
                ),
            });
        }
        self.checked[position].store(true, Ordering::Relaxed);
        Ok(self.band_unchecked(position))
    }

    /// The checksum band `position`'s record stores and the one its section
    /// has now (computed every call), after the cheap checks of its record.
    /// [`Self::try_band`] compares them the first time it reads the band.
    pub fn section_checksums(&self, position: usize) -> Result<(u64, u64), TableError> {
        self.check_record(position)
            .map_err(|problem| TableError::Band {
                path: self.path.clone(),
                band: position,
                problem,
            })?;
        let record = &self.records()[position];
        let table = self.band_unchecked(position);
        let band_bytes = &self.bytes()[self.layout.bands.start + BAND_LEN * position..][..BAND_LEN];
        // On this (little-endian) host, the words are the file's bytes.
        let mut parts: Vec<&[u8]> = vec![
            band_bytes,
            &bytemuck::bytes_of(record)[..RECORD_SUMMED],
            bytemuck::cast_slice(table.uas),
            bytemuck::cast_slice(table.index),
        ];
        parts.extend(
            (MIN_STORED_SIZE..=MAX_STORED_SIZE).map(|k| bytemuck::cast_slice(table.sets(k))),
        );
        Ok((record.checksum, band_section_checksum(&parts)))
    }

    /// The cheap checks of band `position`'s record: a valid band, ranges
    /// in bounds, list sizes against the minimum, monotone slice indices.
    fn check_record(&self, position: usize) -> Result<(), String> {
        let record = &self.records()[position];
        let band_bytes = &self.bytes()[self.layout.bands.start + BAND_LEN * position..][..BAND_LEN];
        let band: &Band = band_bytes[..27].try_into().expect("27 bytes");
        if !is_valid_band(band) || band_bytes[27] != 0 {
            return Err("not a valid band".into());
        }
        if record.catalogue_index as usize >= CATALOGUE_LEN {
            return Err(format!("catalogue index {}", record.catalogue_index));
        }
        let min_size = record.min_size as usize;
        if !(MIN_STORED_SIZE..=27).contains(&min_size) {
            return Err(format!("minimum size {min_size}"));
        }
        let uas_len = self.header.uas_len;
        if record.ua_start as u64 + record.ua_len as u64 > uas_len || record.ua_len == 0 {
            return Err("UA range out of bounds".into());
        }
        let index = self.index_of(position);
        for (k, &[start, len]) in record.lists.iter().enumerate() {
            let size = k + MIN_STORED_SIZE;
            if start as u64 + len as u64 > self.header.sets_len {
                return Err(format!("size {size} sets out of bounds"));
            }
            if (len == 0) != (size < min_size) {
                return Err(format!(
                    "size {size} has {len} sets, minimum size is {min_size}"
                ));
            }
            let list_index = &index[k * INDEX_LEN..][..INDEX_LEN];
            let monotone = list_index.windows(2).all(|w| w[0] <= w[1]);
            if list_index[0] != 0 || list_index[INDEX_LEN - 1] != len || !monotone {
                return Err(format!("size {size} slice index"));
            }
        }
        Ok(())
    }

    /// Band `position`'s 5 slice indices.
    fn index_of(&self, position: usize) -> &[u32] {
        let index_all = self.words(&self.layout.index);
        &index_all[STORED_SIZES * INDEX_LEN * position..][..STORED_SIZES * INDEX_LEN]
    }

    /// Band `position` without checks (its record must be in bounds).
    fn band_unchecked(&self, position: usize) -> BandTable<'_> {
        let record = &self.records()[position];
        let band_bytes = &self.bytes()[self.layout.bands.start + BAND_LEN * position..][..BAND_LEN];
        let uas = self.words(&self.layout.uas);
        let ua_start = record.ua_start as usize;
        BandTable {
            position,
            band: band_bytes[..27].try_into().expect("27 bytes"),
            record,
            uas: &uas[ua_start..ua_start + record.ua_len as usize],
            index: self.index_of(position),
            sets: self.words(&self.layout.sets),
        }
    }

    /// The bands, in file order.
    pub fn iter(&self) -> impl Iterator<Item = BandTable<'_>> {
        (0..self.len()).map(|i| self.band(i))
    }

    /// Checks every band's section (as [`Self::try_band`] does) and every
    /// set (size, order, slice), then the checksum of the whole file. Takes
    /// a fraction of a second.
    pub fn verify(&self) -> Result<(), TableError> {
        for position in 0..self.len() {
            let table = self.try_band(position)?;
            for size in MIN_STORED_SIZE..=MAX_STORED_SIZE {
                let sets = table.sets(size);
                let well_formed = sets
                    .iter()
                    .all(|s| s.count_ones() as usize == size && s >> 27 == 0)
                    && sets.windows(2).all(|w| sort_key(w[0]) < sort_key(w[1]))
                    && build_index(sets) == table.slice_index(size);
                if !well_formed {
                    return Err(malformed(format!(
                        "band {position}: size {size} sets out of order"
                    )));
                }
            }
        }
        let computed = Checksum::of(&self.bytes()[HEADER_LEN..self.layout.file_len]);
        if computed != self.header.checksum {
            return Err(TableError::Checksum {
                stored: self.header.checksum,
                computed,
            });
        }
        Ok(())
    }
}

/// One band of the tables, borrowed from the file.
#[derive(Clone, Copy, Debug)]
pub struct BandTable<'a> {
    position: usize,
    band: &'a Band,
    record: &'a BandRecord,
    uas: &'a [u32],
    /// The band's 5 slice indices.
    index: &'a [u32],
    /// The whole sets section.
    sets: &'a [u32],
}

impl<'a> BandTable<'a> {
    /// Position in the file.
    pub fn position(&self) -> usize {
        self.position
    }

    /// Index in the band catalogue.
    pub fn catalogue_index(&self) -> usize {
        self.record.catalogue_index as usize
    }

    /// The catalogue band (minlex form).
    pub fn band(&self) -> &'a Band {
        self.band
    }

    /// The size of the smallest valid clue set.
    pub fn min_size(&self) -> usize {
        self.record.min_size as usize
    }

    /// The band's minimal UAs in catalogue coordinates, by size then value.
    pub fn uas(&self) -> &'a [u32] {
        self.uas
    }

    /// All valid sets of `size` cells, in slice order; empty below the
    /// minimum size.
    ///
    /// # Panics
    /// For sizes above 6, which are not stored: use [`BandTable::set_list`].
    pub fn sets(&self, size: usize) -> &'a [u32] {
        if size < MIN_STORED_SIZE {
            return &[];
        }
        assert!(
            size <= MAX_STORED_SIZE,
            "sets of size {size} are not stored; use set_list"
        );
        let [start, len] = self.record.lists[size - MIN_STORED_SIZE];
        &self.sets[start as usize..(start + len) as usize]
    }

    /// The slice index of the stored size `size` (2..=6).
    pub fn slice_index(&self, size: usize) -> &'a [u32] {
        assert!(
            (MIN_STORED_SIZE..=MAX_STORED_SIZE).contains(&size),
            "size {size} is not stored"
        );
        &self.index[(size - MIN_STORED_SIZE) * INDEX_LEN..][..INDEX_LEN]
    }

    /// The sets of `size` cells (2..=6) whose two lowest cells are
    /// `first` < `second`.
    pub fn slice(&self, size: usize, first: usize, second: usize) -> &'a [u32] {
        slice_of(self.sets(size), self.slice_index(size), first, second)
    }

    /// The non-empty slices of size `size` (2..=6), in (first, second) order.
    pub fn slices(&self, size: usize) -> impl Iterator<Item = Slice<'a>> + 'a {
        slices_of(self.sets(size), self.slice_index(size))
    }

    /// The sets of any size ≥ 2 as a [`SetList`]: borrowed from the file for
    /// sizes 2..=6, generated (owned) for larger sizes.
    pub fn set_list(&self, size: usize) -> SetList<'a> {
        if (MIN_STORED_SIZE..=MAX_STORED_SIZE).contains(&size) {
            SetList::borrowed(size, self.sets(size), self.slice_index(size))
        } else {
            SetList::from_sets(size, valid_sets_unsorted(self.uas, size))
        }
    }
}

/// Everything the file stores for one band, computed in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandData {
    pub catalogue_index: usize,
    pub band: Band,
    pub min_size: usize,
    pub uas: Vec<u32>,
    /// Lists of sizes 2..=6.
    pub lists: Vec<SetList<'static>>,
}

impl BandData {
    /// Computes the UAs and valid sets of catalogue band `catalogue_index`.
    pub fn compute(catalogue_index: usize, band: &Band) -> BandData {
        let uas = band_uas(band);
        let min_size = minimum_size(&uas);
        assert!(min_size >= MIN_STORED_SIZE, "a band needs at least 2 clues");
        let lists = (MIN_STORED_SIZE..=MAX_STORED_SIZE)
            .map(|size| SetList::from_sets(size, valid_sets_unsorted(&uas, size)))
            .collect();
        BandData {
            catalogue_index,
            band: *band,
            min_size,
            uas,
            lists,
        }
    }
}

/// Computes the data of the given catalogue bands in parallel (rayon), with
/// a progress bar on stderr when `progress` is set.
pub fn compute_tables(
    catalogue: &BandCatalogue,
    indices: &[usize],
    progress: bool,
) -> Vec<BandData> {
    let bar = if progress {
        indicatif::ProgressBar::new(indices.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "band tables {bar:40} {pos}/{len} bands [{elapsed}]",
        )
        .expect("valid template"),
    );
    let data = indices
        .par_iter()
        .with_max_len(1)
        .map(|&i| {
            let d = BandData::compute(i, catalogue.band(i));
            bar.inc(1);
            d
        })
        .collect();
    bar.finish_and_clear();
    data
}

/// Writes tables for `data` (in that order) to `out`, checksumming the
/// payload as it is written, then seeking back to write the header.
pub fn encode<W: Write + Seek>(data: &[BandData], out: W) -> io::Result<()> {
    let uas_len: usize = data.iter().map(|d| d.uas.len()).sum();
    let sets_len: usize = data.iter().flat_map(|d| &d.lists).map(|l| l.len()).sum();
    if sets_len > u32::MAX as usize || uas_len > u32::MAX as usize {
        return Err(io::Error::other("too many sets for the table format"));
    }
    let layout = Layout::new(data.len() as u64, uas_len as u64, sets_len as u64)
        .ok_or_else(|| io::Error::other("table layout overflows"))?;
    let mut out = BufWriter::with_capacity(1 << 20, out);
    out.write_all(&[0u8; HEADER_LEN])?;
    let mut w = ChecksumWriter {
        inner: &mut out,
        sum: Checksum::new(),
    };
    let mut at = HEADER_LEN;
    pad_to(&mut w, &mut at, layout.bands.start)?;
    for d in data {
        w.write_all(&d.band)?;
        w.write_all(&[0])?;
    }
    at = layout.bands.end;
    pad_to(&mut w, &mut at, layout.records.start)?;
    let (mut ua_start, mut set_start) = (0u32, 0u32);
    for d in data {
        let mut record = BandRecord {
            catalogue_index: d.catalogue_index as u32,
            min_size: d.min_size as u32,
            ua_start,
            ua_len: d.uas.len() as u32,
            lists: [[0; 2]; STORED_SIZES],
            checksum: 0,
        };
        ua_start += d.uas.len() as u32;
        for (slot, list) in record.lists.iter_mut().zip(&d.lists) {
            *slot = [set_start, list.len() as u32];
            set_start += list.len() as u32;
        }
        let mut words = vec![
            record.catalogue_index,
            record.min_size,
            record.ua_start,
            record.ua_len,
        ];
        words.extend(record.lists.iter().flatten());
        let record_bytes = le_bytes(&words);
        debug_assert_eq!(record_bytes.len(), RECORD_SUMMED);
        let mut band = [0u8; BAND_LEN];
        band[..27].copy_from_slice(&d.band);
        let index: Vec<u32> = d
            .lists
            .iter()
            .flat_map(|l| l.slice_index())
            .copied()
            .collect();
        let (uas, index) = (le_bytes(&d.uas), le_bytes(&index));
        let lists: Vec<Vec<u8>> = d.lists.iter().map(|l| le_bytes(l.sets())).collect();
        let mut parts: Vec<&[u8]> = vec![&band, &record_bytes, &uas, &index];
        parts.extend(lists.iter().map(Vec::as_slice));
        record.checksum = band_section_checksum(&parts);
        w.write_all(&record_bytes)?;
        w.write_all(&record.checksum.to_le_bytes())?;
    }
    at = layout.records.end;
    pad_to(&mut w, &mut at, layout.uas.start)?;
    for d in data {
        write_words(&mut w, &d.uas)?;
    }
    at = layout.uas.end;
    pad_to(&mut w, &mut at, layout.index.start)?;
    for list in data.iter().flat_map(|d| &d.lists) {
        write_words(&mut w, list.slice_index())?;
    }
    at = layout.index.end;
    pad_to(&mut w, &mut at, layout.sets.start)?;
    for list in data.iter().flat_map(|d| &d.lists) {
        write_words(&mut w, list.sets())?;
    }
    at = layout.sets.end;
    pad_to(&mut w, &mut at, layout.file_len)?;
    let header = Header {
        band_count: data.len() as u64,
        uas_len: uas_len as u64,
        sets_len: sets_len as u64,
        file_len: layout.file_len as u64,
        checksum: w.sum.finish(),
    };
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&layout.encode_header(&header))?;
    out.flush()
}

/// The encoded tables for `data` as bytes.
pub fn encode_to_vec(data: &[BandData]) -> Vec<u8> {
    let mut cursor = io::Cursor::new(Vec::new());
    encode(data, &mut cursor).expect("writing to memory cannot fail");
    cursor.into_inner()
}

/// Writes the zero bytes from `*at` up to section start `start`.
fn pad_to<W: Write>(w: &mut W, at: &mut usize, start: usize) -> io::Result<()> {
    debug_assert!(*at <= start && start - *at < 8);
    w.write_all(&[0u8; 8][..start - *at])?;
    *at = start;
    Ok(())
}

fn write_words<W: Write>(w: &mut W, words: &[u32]) -> io::Result<()> {
    let mut buffer = Vec::with_capacity(4 * words.len().min(1 << 14));
    for chunk in words.chunks(1 << 14) {
        buffer.clear();
        buffer.extend(chunk.iter().flat_map(|x| x.to_le_bytes()));
        w.write_all(&buffer)?;
    }
    Ok(())
}

/// Writes tables to `path` atomically: a temporary file next to it, synced,
/// then renamed over it.
pub fn write_file(path: impl AsRef<Path>, data: &[BandData]) -> Result<(), TableError> {
    let path = path.as_ref();
    let io_error = |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(io_error)?;
    }
    // Unique per process and per call: two threads (or processes) building
    // the same file at once each write their own temporary file, and the
    // last rename wins with a complete file.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp{}.{call}", std::process::id()));
    let temporary = path.with_file_name(name);
    let result = (|| {
        let mut file = File::create(&temporary)?;
        encode(data, &mut file)?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result.map_err(io_error)
}

/// What [`build`] did.
#[derive(Clone, Debug)]
pub struct BuildSummary {
    pub bands: usize,
    pub file_len: u64,
    pub elapsed: Duration,
}

/// Builds the complete tables (all 416 bands) and writes them to `path`.
pub fn build(path: impl AsRef<Path>, progress: bool) -> Result<BuildSummary, TableError> {
    let path = path.as_ref();
    let start = Instant::now();
    let catalogue = BandCatalogue::new();
    let indices: Vec<usize> = (0..catalogue.len()).collect();
    let data = compute_tables(&catalogue, &indices, progress);
    write_file(path, &data)?;
    let file_len = fs::metadata(path)
        .map_err(|source| TableError::Io {
            path: path.to_path_buf(),
            source,
        })?
        .len();
    tracing::info!(
        "band tables: {} bands, {} bytes, {:.1} s",
        data.len(),
        file_len,
        start.elapsed().as_secs_f64()
    );
    Ok(BuildSummary {
        bands: data.len(),
        file_len,
        elapsed: start.elapsed(),
    })
}

/// The `stats --counts` line of a band: `BAND27 MIN N5 N6`.
pub fn counts_line(table: &BandTable<'_>) -> String {
    format!(
        "{} {} {} {}",
        band_to_string(table.band()),
        table.min_size(),
        table.sets(5).len(),
        table.sets(6).len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_is_split_independent_and_catches_flips() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let whole = Checksum::of(&bytes);
        for split in [0, 1, 7, 8, 9, 500, 999, 1000] {
            let mut sum = Checksum::new();
            sum.update(&bytes[..split]);
            sum.update(&bytes[split..]);
            assert_eq!(sum.finish(), whole);
        }
        let mut flipped = bytes.clone();
        flipped[999] ^= 1;
        assert_ne!(Checksum::of(&flipped), whole);
        assert_ne!(Checksum::of(&bytes[..999]), whole);
    }

    #[test]
    fn layout_is_aligned() {
        let layout = Layout::new(3, 17, 1001).unwrap();
        for r in [
            &layout.bands,
            &layout.records,
            &layout.uas,
            &layout.index,
            &layout.sets,
        ] {
            assert_eq!(r.start % 8, 0);
        }
        assert_eq!(layout.file_len % 8, 0);
        assert!(Layout::new(u64::MAX, 0, 0).is_none());
    }
}
