//! Flag files: "does this ED grid have an N-clue puzzle?" for the grids of
//! one slice of the ED catalogue, keyed by catalogue position, with one
//! example puzzle per flagged grid (SPEC.md §10, "The flag";
//! ARCHITECTURE.md, "Campaigns": "Any goal, and flag files").
//!
//! A grid is named by its hi visit ([`crate::ed`]): slice K, the entry
//! whose band 2 is the grid's mid band, and its *grid index*, the position
//! of its band 3 among the entry's hi visits in the order of
//! [`crate::ed::Ed::entry_visits`] with [`crate::ed::Choices::HI`]. The
//! example puzzle is a clue mask on that hi-visit grid (catalogue band K,
//! the entry's band 2, that band 3): the digits come from the grid.
//! [`records`] turns the puzzles a `--first` campaign found (at any of the
//! three visits) into records.
//!
//! # Layout (format version 1, all integers little-endian)
//!
//! ```text
//! offset  size  field
//!      0     8  magic "S17FLAGS"
//!      8     4  format version (FORMAT_VERSION)
//!     12     4  header length (64)
//!     16     4  clues N (16..=19)
//!     20     4  kind: bit 0 first (each visit stopped at its first
//!               puzzle), bit 1 non-minimal (valid N-clue puzzles, minimal
//!               or not; else minimal ones only); other bits zero
//!     24     4  slice K (0..416)
//!     28     4  record length (24)
//!     32     8  grids in the slice
//!     40     8  grids searched: hi visit in an entry the campaign searched
//!     48     8  grids covered: hi, mid and lo visits all searched
//!     56     8  grids flagged R (the records)
//!     64  24×R  records, sorted by (entry, grid), each once:
//!                 u32 entry, u32 grid index,
//!                 u64 mask of cells 0..63, u64 mask of cells 64..80
//!                 (bits 17..63 zero); the mask has N cells
//! 64+24R     8  checksum (crate::disk::Checksum) of bytes
//!               0..64+24R
//! ```
//!
//! A flag is exact for a covered grid; a grid whose hi visit was searched
//! but not all three visits may be flagged (one of its searched visits
//! found a puzzle) or not, and then its "no" is only a lower bound. The
//! writer streams: it computes the checksum while writing and checks that
//! records come in order and that their number is the one the header
//! promised. [`FlagFile::open`] checks everything (length, version, header,
//! checksum, record order and masks): a flag file is read whole anyway.

pub mod records;

use std::io::{self, Write};

use crate::band::BANDS;
use crate::bits::Mask81;
use crate::disk::Checksum;
use crate::plan::CLUE_RANGE;

pub use records::{FlagRecords, MapError, PLACED_LEN, Placed, flag_records, place, slice_records};

/// The first 8 bytes of a flag file.
pub const MAGIC: [u8; 8] = *b"S17FLAGS";
/// The format version this program reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes of the header.
pub const HEADER_LEN: usize = 64;
/// Bytes of a record.
pub const RECORD_LEN: usize = 24;
/// Bytes of the trailing checksum.
pub const CHECKSUM_LEN: usize = 8;
/// The usual file name of slice `k`'s flags in a directory.
pub fn file_name(k: usize) -> String {
    format!("slice-{k}.s17f")
}

/// Kind bit: every visit stopped at its first puzzle.
pub const KIND_FIRST: u32 = 1;
/// Kind bit: valid puzzles, minimal or not.
pub const KIND_NON_MINIMAL: u32 = 2;

/// One flagged grid: its hi visit's entry and grid index, and an example
/// puzzle as a clue mask on the hi-visit grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlagRecord {
    pub entry: u32,
    pub grid: u32,
    pub mask: Mask81,
}

impl FlagRecord {
    fn to_bytes(self) -> [u8; RECORD_LEN] {
        let mut b = [0u8; RECORD_LEN];
        b[0..4].copy_from_slice(&self.entry.to_le_bytes());
        b[4..8].copy_from_slice(&self.grid.to_le_bytes());
        b[8..24].copy_from_slice(&self.mask.to_le_bytes());
        b
    }

    fn from_bytes(b: &[u8]) -> FlagRecord {
        FlagRecord {
            entry: u32_at(b, 0),
            grid: u32_at(b, 4),
            mask: u128::from_le_bytes(b[8..24].try_into().expect("16 bytes")),
        }
    }
}

/// A flag file's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlagHeader {
    pub clues: u32,
    /// [`KIND_FIRST`], [`KIND_NON_MINIMAL`].
    pub kind: u32,
    pub slice: u32,
    /// ED grids of the slice.
    pub grids: u64,
    /// Grids whose hi visit is in a searched entry.
    pub searched: u64,
    /// Grids whose three visits were all searched.
    pub covered: u64,
    /// Grids flagged: the records.
    pub flagged: u64,
}

impl FlagHeader {
    /// The header of slice `slice`'s flags of a campaign searching for
    /// `goal` (clue count and kind bits), its counts zero.
    pub fn for_goal(goal: &crate::search::Goal, slice: usize) -> FlagHeader {
        FlagHeader {
            clues: goal.clues as u32,
            kind: (goal.first as u32 * KIND_FIRST) | (goal.non_minimal as u32 * KIND_NON_MINIMAL),
            slice: slice as u32,
            grids: 0,
            searched: 0,
            covered: 0,
            flagged: 0,
        }
    }

    /// What the flag says, for people: "has a minimal 18 (first per visit)".
    pub fn describe(&self) -> String {
        format!(
            "has {} {}{}",
            if self.kind & KIND_NON_MINIMAL != 0 {
                "a valid"
            } else {
                "a minimal"
            },
            self.clues,
            if self.kind & KIND_FIRST != 0 {
                " (first per visit)"
            } else {
                ""
            }
        )
    }

    fn to_bytes(self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        let words: [(usize, u32); 6] = [
            (8, FORMAT_VERSION),
            (12, HEADER_LEN as u32),
            (16, self.clues),
            (20, self.kind),
            (24, self.slice),
            (28, RECORD_LEN as u32),
        ];
        for (at, w) in words {
            b[at..at + 4].copy_from_slice(&w.to_le_bytes());
        }
        for (at, w) in [
            (32, self.grids),
            (40, self.searched),
            (48, self.covered),
            (56, self.flagged),
        ] {
            b[at..at + 8].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// The header's own checks: clue count, kind, slice, counts in order.
    fn check(&self) -> Result<(), FlagFault> {
        let bad = |why: String| Err(FlagFault::Header(why));
        if !CLUE_RANGE.contains(&(self.clues as usize)) {
            return bad(format!("clues {} outside {CLUE_RANGE:?}", self.clues));
        }
        if self.kind & !(KIND_FIRST | KIND_NON_MINIMAL) != 0 {
            return bad(format!("unknown kind bits {:#x}", self.kind));
        }
        if self.slice as usize >= BANDS {
            return bad(format!(
                "slice {} (slices are 0 to {})",
                self.slice,
                BANDS - 1
            ));
        }
        if self.covered > self.searched || self.searched > self.grids {
            return bad(format!(
                "covered {} ≤ searched {} ≤ grids {} does not hold",
                self.covered, self.searched, self.grids
            ));
        }
        if self.flagged > self.searched {
            return bad(format!(
                "{} grids flagged of {} searched",
                self.flagged, self.searched
            ));
        }
        Ok(())
    }
}

/// What is wrong with a flag file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FlagFault {
    #[error("not a flag file (it does not start with \"S17FLAGS\")")]
    Magic,
    #[error(
        "format version {got}, this program reads version {expected}; make the file again with `s17 campaign merge`"
    )]
    Version { expected: u32, got: u32 },
    #[error("truncated or overlong: {got} bytes, the header promises {expected}")]
    Length { expected: u64, got: u64 },
    #[error(
        "checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): the file is damaged"
    )]
    Checksum { stored: u64, computed: u64 },
    #[error("bad header: {0}")]
    Header(String),
    #[error("record {index}: {why}")]
    Record { index: u64, why: String },
}

/// A flag file that cannot be read, named.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {fault}")]
pub struct FlagError {
    pub file: String,
    #[source]
    pub fault: FlagFault,
}

/// A checked flag file over its bytes (a `Vec` in tests, a file's bytes or
/// a memory map in the program).
pub struct FlagFile<B: AsRef<[u8]>> {
    bytes: B,
    header: FlagHeader,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// The cells of a grid.
const ALL_CELLS: Mask81 = (1u128 << 81) - 1;

impl<B: AsRef<[u8]>> FlagFile<B> {
    /// Checks the whole file (`name` names it in errors): magic, version,
    /// layout, length, header, checksum, records in order with masks of N
    /// cells.
    pub fn open(bytes: B, name: &str) -> Result<FlagFile<B>, FlagError> {
        let fail = |fault| FlagError {
            file: name.to_string(),
            fault,
        };
        let b = bytes.as_ref();
        if b.len() < 8 || b[..8] != MAGIC {
            return Err(fail(FlagFault::Magic));
        }
        if b.len() < HEADER_LEN {
            return Err(fail(FlagFault::Length {
                expected: HEADER_LEN as u64,
                got: b.len() as u64,
            }));
        }
        let version = u32_at(b, 8);
        if version != FORMAT_VERSION {
            return Err(fail(FlagFault::Version {
                expected: FORMAT_VERSION,
                got: version,
            }));
        }
        if u32_at(b, 12) as usize != HEADER_LEN || u32_at(b, 28) as usize != RECORD_LEN {
            return Err(fail(FlagFault::Header(format!(
                "header length {} and record length {}, expected {HEADER_LEN} and {RECORD_LEN}",
                u32_at(b, 12),
                u32_at(b, 28)
            ))));
        }
        let header = FlagHeader {
            clues: u32_at(b, 16),
            kind: u32_at(b, 20),
            slice: u32_at(b, 24),
            grids: u64_at(b, 32),
            searched: u64_at(b, 40),
            covered: u64_at(b, 48),
            flagged: u64_at(b, 56),
        };
        let expected = header
            .flagged
            .checked_mul(RECORD_LEN as u64)
            .and_then(|r| r.checked_add((HEADER_LEN + CHECKSUM_LEN) as u64));
        if expected != Some(b.len() as u64) {
            return Err(fail(FlagFault::Length {
                expected: expected.unwrap_or(u64::MAX),
                got: b.len() as u64,
            }));
        }
        let body = b.len() - CHECKSUM_LEN;
        let mut sum = Checksum::new();
        sum.update(&b[..body]);
        let (stored, computed) = (u64_at(b, body), sum.finish());
        if stored != computed {
            return Err(fail(FlagFault::Checksum { stored, computed }));
        }
        header.check().map_err(fail)?;
        let file = FlagFile { bytes, header };
        let mut last: Option<FlagRecord> = None;
        for (i, r) in file.records().enumerate() {
            let why = if last.is_some_and(|l| (l.entry, l.grid) >= (r.entry, r.grid)) {
                Some("out of order or repeated".to_string())
            } else if r.mask & !ALL_CELLS != 0 || r.mask.count_ones() != header.clues {
                Some(format!(
                    "a mask of {} cells (beyond cell 80: {})",
                    r.mask.count_ones(),
                    r.mask & !ALL_CELLS != 0
                ))
            } else {
                None
            };
            if let Some(why) = why {
                return Err(fail(FlagFault::Record {
                    index: i as u64,
                    why,
                }));
            }
            last = Some(r);
        }
        Ok(file)
    }

    pub fn header(&self) -> &FlagHeader {
        &self.header
    }

    /// The records, in (entry, grid) order.
    pub fn records(&self) -> impl Iterator<Item = FlagRecord> + '_ {
        let b = self.bytes.as_ref();
        let end = HEADER_LEN + self.header.flagged as usize * RECORD_LEN;
        b[HEADER_LEN..end]
            .chunks_exact(RECORD_LEN)
            .map(FlagRecord::from_bytes)
    }
}

/// Writes a flag file as a stream: the header (with the number of records
/// to come), the records in order, the checksum.
pub struct FlagWriter<W: Write> {
    out: W,
    sum: Checksum,
    header: FlagHeader,
    written: u64,
    last: Option<(u32, u32)>,
}

fn invalid(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, why)
}

impl<W: Write> FlagWriter<W> {
    /// Starts a file of `header.flagged` records.
    pub fn new(mut out: W, header: FlagHeader) -> io::Result<FlagWriter<W>> {
        header.check().map_err(|f| invalid(f.to_string()))?;
        let bytes = header.to_bytes();
        let mut sum = Checksum::new();
        sum.update(&bytes);
        out.write_all(&bytes)?;
        Ok(FlagWriter {
            out,
            sum,
            header,
            written: 0,
            last: None,
        })
    }

    /// Writes the next record (records come sorted by (entry, grid), each
    /// once, with masks of N cells).
    pub fn push(&mut self, record: FlagRecord) -> io::Result<()> {
        let key = (record.entry, record.grid);
        if self.last.is_some_and(|l| l >= key) {
            return Err(invalid(format!(
                "flag record {key:?} after {:?}: records go in order, each once",
                self.last.expect("a last record")
            )));
        }
        if record.mask & !ALL_CELLS != 0 || record.mask.count_ones() != self.header.clues {
            return Err(invalid(format!(
                "flag record {key:?}: its mask has {} cells, not {}",
                record.mask.count_ones(),
                self.header.clues
            )));
        }
        if self.written == self.header.flagged {
            return Err(invalid(format!(
                "more than the {} flag records the header promised",
                self.header.flagged
            )));
        }
        let bytes = record.to_bytes();
        self.sum.update(&bytes);
        self.out.write_all(&bytes)?;
        self.written += 1;
        self.last = Some(key);
        Ok(())
    }

    /// Writes the checksum; the writer back.
    pub fn finish(mut self) -> io::Result<W> {
        if self.written != self.header.flagged {
            return Err(invalid(format!(
                "{} flag records written, the header promised {}",
                self.written, self.header.flagged
            )));
        }
        self.out.write_all(&self.sum.finish().to_le_bytes())?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// A whole flag file's bytes.
pub fn to_bytes(header: FlagHeader, records: &[FlagRecord]) -> io::Result<Vec<u8>> {
    let header = FlagHeader {
        flagged: records.len() as u64,
        ..header
    };
    let mut w = FlagWriter::new(Vec::new(), header)?;
    for &r in records {
        w.push(r)?;
    }
    w.finish()
}

#[cfg(test)]
mod tests;
