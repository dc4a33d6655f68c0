//! The band table file: for each catalogue band (the band catalogue,
//! [`crate::band::catalogue`]), its minimal UAs and its valid clue sets of
//! sizes 2..=6, memory-mapped and read in place.
//!
//! The file is built by the program ([`build()`], `s17 tables build`), written
//! with [`crate::disk::write_atomically_with`] (a temporary file renamed
//! over it), so a crash never leaves a half file under the real name. The
//! library reports a build's progress through a callback ([`BuildProgress`])
//! and never prints; the command line draws the bar.
//! [`BandTables::open`] maps the file (memmap2) and checks the header and
//! sizes (cheap, no parsing, no copying). Each band's section has its own
//! checksum, checked the first time the process reads that band
//! ([`BandTables::try_band`]): a corrupt band is refused, naming the file
//! and the band, before any search reads it (0.12 ms for an average band,
//! 0.37 ms for the largest; benches/README.md). [`BandTables::verify`]
//! checks every band, the checksum of the whole file, and every list.
//! Readers are generic over `AsRef<[u8]>`, so tests can use a `Vec<u8>`.
//!
//! - [`format`](mod@format): the byte layout (documented there, field by
//!   field), its constants, the header and the [`Checksum`];
//! - [`build`](mod@build): compute the bands' data, encode it, write the file;
//! - [`read`]: [`BandTables`] and [`BandTable`], the file read in place;
//! - [`verify`](mod@verify): the full check of `s17 tables verify`.
//!
//! # Where it lives, how it is written, what is checked
//!
//! The file is built by `s17 tables build` or by the first command that needs
//! it (`cli::common::build_tables`; about 3 s on two cores). The atomic write
//! puts a temporary file beside it (named per process and call, so two
//! builders never share one), fsyncs it, renames it over the old file, then
//! fsyncs the directory where the platform allows; a crash never leaves a
//! half file. It lives in the per-user cache directory (`$XDG_CACHE_HOME/s17/`,
//! else `~/.cache/s17/`; `$S17_TABLES` and `--tables` override), never in the
//! current directory; the tests use `target/tmp/bands.s17t`. It is read in
//! place as plain little-endian arrays (bytemuck), after these checks:
//!
//! - **open** (cheap): magic `S17BANDS`, format version, header length,
//!   counts, section offsets and the file length; all 416 bands present. A
//!   missing file or another format version is rebuilt; anything else is
//!   refused with a message saying how to rebuild, never overwritten.
//! - **first read of a band** (once per band and process): the band's record
//!   (valid band, ranges in bounds, list sizes, monotone slice indices) and
//!   the checksum of its section (its band digits, record, UAs, slice indices
//!   and sets), stored in its record. A mismatch is refused with the file, the
//!   band and the rebuild command, before the search reads the band.
//! - **`s17 tables verify`**: every band as above, every set (size, order,
//!   slice index), and the checksum of the whole file after the header.
//!
//! The sections, in order: header (128 bytes), bands (416 × 28 bytes),
//! records (416 × 64 bytes), minimal UAs (u32 masks), slice indices
//! (416 × 5 × 352 u32), sets (u32 masks); format version 2 added the per-band
//! checksums. The valid sets of a band are 27-bit masks in catalogue cells,
//! sorted so that the sets sharing their two lowest cells form one contiguous
//! table slice, with an index from (first, second) cell to the slice.

use std::io;
use std::path::PathBuf;

pub mod build;
pub mod format;
#[allow(unsafe_code)] // the memory map (`Mmap::map`)
pub mod read;
pub mod verify;

pub use build::{
    BandData, BuildProgress, BuildSummary, build, compute_tables, encode, encode_to_vec, write_file,
};
pub use format::{
    CATALOGUE_LEN, Checksum, FORMAT_VERSION, MAGIC, MAX_STORED_SIZE, MIN_STORED_SIZE, STORED_SIZES,
};
pub use read::{BandTable, BandTables, counts_line};

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

/// How to fix a table file that cannot be read (the end of most
/// [`TableError`] messages).
const REBUILD: &str = "rebuild with `s17 tables build`";

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
    #[error("not a band table file (bad magic number); {REBUILD}")]
    Magic,
    #[error("band table format version {found}, this program reads version {expected}; {REBUILD}")]
    Version { expected: u32, found: u32 },
    #[error("band table file truncated: {found} bytes, expected {expected}; {REBUILD}")]
    Truncated { expected: u64, found: u64 },
    #[error("band table file malformed: {reason}; {REBUILD}")]
    Malformed { reason: String },
    #[error(
        "band table checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): the file is corrupt; {REBUILD}"
    )]
    Checksum { stored: u64, computed: u64 },
    #[error("band table file holds {found} bands, expected {expected}; {REBUILD}")]
    Incomplete { expected: usize, found: usize },
    #[error(
        "band tables {path}: band {band} is corrupt ({problem}); rebuild them with \
         `s17 tables build --path {path}`"
    )]
    Band {
        path: PathBuf,
        /// Position in the file (the catalogue index in a complete file).
        band: usize,
        problem: BandProblem,
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

/// What is wrong with one band's section of a table file
/// ([`TableError::Band`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BandProblem {
    #[error("not a valid band")]
    NotABand,
    #[error("catalogue index {0}")]
    CatalogueIndex(u32),
    #[error("minimum size {0}")]
    MinimumSize(usize),
    #[error("UA range out of bounds")]
    UaRange,
    #[error("size {size} sets out of bounds")]
    SetsOutOfBounds { size: usize },
    #[error("size {size} has {len} sets, minimum size is {min_size}")]
    SetCount {
        size: usize,
        len: u32,
        min_size: usize,
    },
    #[error("size {size} slice index")]
    SliceIndex { size: usize },
    #[error("checksum mismatch: stored {stored:#018x}, computed {computed:#018x}")]
    Checksum { stored: u64, computed: u64 },
}

fn malformed(reason: impl Into<String>) -> TableError {
    TableError::Malformed {
        reason: reason.into(),
    }
}
