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
//! # Layout (format version 2, all integers little-endian)
//!
//! ```text
//! offset  size  field
//!      0     8  magic "S17FLAGS"
//!      8     4  format version (2)
//!     12     4  header length H = 96 + B rounded up to a multiple of 8
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
//!              provenance:
//!     64     8  plan fingerprint: the checksum (below) of the campaign's
//!               units.tsv, byte for byte, as the merge read it
//!     72     8  entries of slice K in the plan
//!     80     8  of them checkpointed when merged (≤ planned)
//!     88     4  state: bit 0 complete (every planned entry of the whole
//!               campaign checkpointed once, no problem), else partial
//!               (`merge --partial`); other bits zero
//!     92     4  build length B (1..=1024)
//!     96     B  build: `s17 --version` of the merging program (UTF-8),
//!               then zero bytes up to H
//!      H  24×R  records, sorted by (entry, grid), each once:
//!                 u32 entry, u32 grid index,
//!                 u64 mask of cells 0..63, u64 mask of cells 64..80
//!                 (bits 17..63 zero); the mask has N cells
//! H+24R     8  checksum (crate::disk::Checksum) of bytes
//!               0..H+24R
//! ```
//!
//! The checksum is the band tables' streaming one: each 8-byte
//! little-endian word `w` (the last one zero-padded) makes the state
//! `rotl(h ^ w, 23) · 0x9e3779b97f4a7c15` from the seed
//! `0x5331_3742_414e_4453`, then the byte length is mixed in the same way and
//! the state finished by `x ^= x >> 31; x *= 0xbf58476d1ce4e5b9; x ^= x >>
//! 29`. Any single changed word, so any flipped byte, changes it.
//!
//! Format version 1 (the first sitting's) is version 2 without the
//! provenance: H = 64, the records at byte 64. It is still read (its
//! provenance is "none": [`FlagFile::provenance`] gives `None`); this
//! program writes version 2 only.
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
use crate::search::plan::CLUE_RANGE;

pub use records::{FlagRecords, MapError, PLACED_LEN, Placed, flag_records, place, slice_records};

/// The first 8 bytes of a flag file.
pub const MAGIC: [u8; 8] = *b"S17FLAGS";
/// The format version this program writes (it reads 1 and 2).
pub const FORMAT_VERSION: u32 = 2;
/// The first format version, still read: no provenance.
pub const FORMAT_VERSION_1: u32 = 1;
/// Bytes of the fixed header (version 1's whole header): up to the
/// provenance.
pub const HEADER_LEN: usize = 64;
/// Bytes of version 2's header before the build string.
pub const PROVENANCE_END: usize = 96;
/// The longest build string.
pub const BUILD_MAX: usize = 1024;
/// Provenance state bit: the campaign was complete when merged.
pub const STATE_COMPLETE: u32 = 1;

/// `s17 --version` of this program: what a merge writes as its build.
pub const THIS_BUILD: &str = concat!("s17 ", env!("CARGO_PKG_VERSION"), " ", env!("S17_BUILD"));
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

/// Where a flag file came from (format version 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// The checksum of the campaign's `units.tsv` as the merge read it.
    pub plan: u64,
    /// Entries of the file's slice in the plan.
    pub planned: u64,
    /// Of them, checkpointed when merged.
    pub checkpointed: u64,
    /// The whole campaign was complete when merged (else `merge --partial`).
    pub complete: bool,
    /// `s17 --version` of the merging program.
    pub build: String,
}

impl Provenance {
    /// A provenance of this build and no plan (fingerprint 0, no entries,
    /// partial): for files made outside a campaign (tests).
    pub fn none() -> Provenance {
        Provenance {
            plan: 0,
            planned: 0,
            checkpointed: 0,
            complete: false,
            build: THIS_BUILD.to_string(),
        }
    }

    /// The plan fingerprint of a `units.tsv`'s bytes.
    pub fn fingerprint(units_tsv: &[u8]) -> u64 {
        Checksum::of(units_tsv)
    }

    /// The header length of version 2 with this build string.
    fn header_len(&self) -> usize {
        PROVENANCE_END + self.build.len().div_ceil(8) * 8
    }

    /// For people: "plan 0x…, 12 of 12 entries of the slice, complete, by s17 …".
    pub fn describe(&self) -> String {
        format!(
            "plan {:016x}, {} of {} entries of the slice checkpointed, campaign {}, made by {}",
            self.plan,
            self.checkpointed,
            self.planned,
            if self.complete { "complete" } else { "partial" },
            self.build
        )
    }

    fn check(&self) -> Result<(), FlagFault> {
        let bad = |why: String| Err(FlagFault::Header(why));
        if self.build.is_empty() || self.build.len() > BUILD_MAX {
            return bad(format!(
                "a build string of {} bytes (1 to {BUILD_MAX})",
                self.build.len()
            ));
        }
        if self.checkpointed > self.planned {
            return bad(format!(
                "{} entries checkpointed of {} planned",
                self.checkpointed, self.planned
            ));
        }
        Ok(())
    }
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
        crate::search::Goal {
            clues: self.clues as usize,
            non_minimal: self.kind & KIND_NON_MINIMAL != 0,
            first: self.kind & KIND_FIRST != 0,
        }
        .flag_text()
    }

    /// The header's bytes: version 2 with `provenance`.
    fn to_bytes(self, provenance: &Provenance) -> Vec<u8> {
        let len = provenance.header_len();
        let mut b = vec![0u8; len];
        b[0..8].copy_from_slice(&MAGIC);
        let words: [(usize, u32); 8] = [
            (8, FORMAT_VERSION),
            (12, len as u32),
            (16, self.clues),
            (20, self.kind),
            (24, self.slice),
            (28, RECORD_LEN as u32),
            (88, provenance.complete as u32 * STATE_COMPLETE),
            (92, provenance.build.len() as u32),
        ];
        for (at, w) in words {
            b[at..at + 4].copy_from_slice(&w.to_le_bytes());
        }
        for (at, w) in [
            (32, self.grids),
            (40, self.searched),
            (48, self.covered),
            (56, self.flagged),
            (64, provenance.plan),
            (72, provenance.planned),
            (80, provenance.checkpointed),
        ] {
            b[at..at + 8].copy_from_slice(&w.to_le_bytes());
        }
        b[PROVENANCE_END..PROVENANCE_END + provenance.build.len()]
            .copy_from_slice(provenance.build.as_bytes());
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

/// What is wrong with a flag file: found reading one, or refused writing one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FlagFault {
    #[error("not a flag file (it does not start with \"S17FLAGS\")")]
    Magic,
    #[error(
        "format version {got}, this program reads versions 1 to {expected}; make the file again with `s17 campaign merge`"
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
    /// Written: a record (entry, grid) not after the one before it.
    #[error("flag record {key:?} after {last:?}: records go in order, each once")]
    Order { key: (u32, u32), last: (u32, u32) },
    /// Written: a record whose mask is not N cells.
    #[error("flag record {key:?}: its mask has {cells} cells, not {clues}")]
    Mask {
        key: (u32, u32),
        cells: u32,
        clues: u32,
    },
    /// Written: more records than the header promised.
    #[error("more than the {promised} flag records the header promised")]
    TooMany { promised: u64 },
    /// Written: fewer records than the header promised.
    #[error("{written} flag records written, the header promised {promised}")]
    TooFew { written: u64, promised: u64 },
}

/// Why a flag file could not be written: what it was given breaks a rule
/// of the format (the [`FlagFault`] reading would report), or the writer
/// under it failed.
#[derive(Debug, thiserror::Error)]
pub enum FlagWriteError {
    #[error(transparent)]
    Fault(#[from] FlagFault),
    #[error(transparent)]
    Io(#[from] io::Error),
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
    /// Where the records start.
    header_len: usize,
    provenance: Option<Provenance>,
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
        if version != FORMAT_VERSION && version != FORMAT_VERSION_1 {
            return Err(fail(FlagFault::Version {
                expected: FORMAT_VERSION,
                got: version,
            }));
        }
        // The length the header promises, then the checksum, then the
        // layout: a flipped byte is named as damage wherever it is.
        let header_len = u32_at(b, 12) as usize;
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
            .and_then(|r| r.checked_add(header_len as u64 + CHECKSUM_LEN as u64));
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
        let lengths_ok = match version {
            FORMAT_VERSION_1 => header_len == HEADER_LEN,
            _ => (PROVENANCE_END + 8..=PROVENANCE_END + BUILD_MAX).contains(&header_len),
        };
        if !lengths_ok || u32_at(b, 28) as usize != RECORD_LEN {
            return Err(fail(FlagFault::Header(format!(
                "header length {header_len} and record length {} in a version {version} file",
                u32_at(b, 28)
            ))));
        }
        header.check().map_err(fail)?;
        let provenance = if version == FORMAT_VERSION_1 {
            None
        } else {
            Some(read_provenance(&b[..header_len]).map_err(fail)?)
        };
        let file = FlagFile {
            bytes,
            header,
            header_len,
            provenance,
        };
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

    /// Where the file came from; `None` for a version 1 file.
    pub fn provenance(&self) -> Option<&Provenance> {
        self.provenance.as_ref()
    }

    /// The records, in (entry, grid) order.
    pub fn records(&self) -> impl Iterator<Item = FlagRecord> + '_ {
        let b = self.bytes.as_ref();
        let end = self.header_len + self.header.flagged as usize * RECORD_LEN;
        b[self.header_len..end]
            .chunks_exact(RECORD_LEN)
            .map(FlagRecord::from_bytes)
    }
}

/// The provenance of a version 2 header (`h`, the whole header, its
/// length checked), checked: state bits, build length, UTF-8, zero padding.
fn read_provenance(h: &[u8]) -> Result<Provenance, FlagFault> {
    let bad = |why: String| Err(FlagFault::Header(why));
    let state = u32_at(h, 88);
    if state & !STATE_COMPLETE != 0 {
        return bad(format!("unknown state bits {state:#x}"));
    }
    let len = u32_at(h, 92) as usize;
    if len == 0 || PROVENANCE_END + len.div_ceil(8) * 8 != h.len() {
        return bad(format!(
            "a build string of {len} bytes in a header of {} bytes",
            h.len()
        ));
    }
    let (build, pad) = h[PROVENANCE_END..].split_at(len);
    if pad.iter().any(|&x| x != 0) {
        return bad("bytes after the build string are not zero".to_string());
    }
    let Ok(build) = std::str::from_utf8(build) else {
        return bad("the build string is not UTF-8".to_string());
    };
    let provenance = Provenance {
        plan: u64_at(h, 64),
        planned: u64_at(h, 72),
        checkpointed: u64_at(h, 80),
        complete: state & STATE_COMPLETE != 0,
        build: build.to_string(),
    };
    provenance.check()?;
    Ok(provenance)
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

impl<W: Write> FlagWriter<W> {
    /// Starts a file of `header.flagged` records (format version 2).
    pub fn new(
        mut out: W,
        header: FlagHeader,
        provenance: &Provenance,
    ) -> Result<FlagWriter<W>, FlagWriteError> {
        header.check()?;
        provenance.check()?;
        let bytes = header.to_bytes(provenance);
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
    pub fn push(&mut self, record: FlagRecord) -> Result<(), FlagWriteError> {
        let key = (record.entry, record.grid);
        if let Some(last) = self.last
            && last >= key
        {
            return Err(FlagFault::Order { key, last }.into());
        }
        if record.mask & !ALL_CELLS != 0 || record.mask.count_ones() != self.header.clues {
            return Err(FlagFault::Mask {
                key,
                cells: record.mask.count_ones(),
                clues: self.header.clues,
            }
            .into());
        }
        if self.written == self.header.flagged {
            return Err(FlagFault::TooMany {
                promised: self.header.flagged,
            }
            .into());
        }
        let bytes = record.to_bytes();
        self.sum.update(&bytes);
        self.out.write_all(&bytes)?;
        self.written += 1;
        self.last = Some(key);
        Ok(())
    }

    /// Writes the checksum; the writer back.
    pub fn finish(mut self) -> Result<W, FlagWriteError> {
        if self.written != self.header.flagged {
            return Err(FlagFault::TooFew {
                written: self.written,
                promised: self.header.flagged,
            }
            .into());
        }
        self.out.write_all(&self.sum.finish().to_le_bytes())?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// A whole flag file's bytes, of no campaign ([`Provenance::none`]).
pub fn to_bytes(header: FlagHeader, records: &[FlagRecord]) -> Result<Vec<u8>, FlagFault> {
    to_bytes_with(header, &Provenance::none(), records)
}

/// A whole flag file's bytes.
pub fn to_bytes_with(
    header: FlagHeader,
    provenance: &Provenance,
    records: &[FlagRecord],
) -> Result<Vec<u8>, FlagFault> {
    let header = FlagHeader {
        flagged: records.len() as u64,
        ..header
    };
    let write = || -> Result<Vec<u8>, FlagWriteError> {
        let mut w = FlagWriter::new(Vec::new(), header, provenance)?;
        for &r in records {
            w.push(r)?;
        }
        w.finish()
    };
    write().map_err(|e| match e {
        FlagWriteError::Fault(fault) => fault,
        FlagWriteError::Io(e) => unreachable!("writing to a Vec: {e}"),
    })
}

#[cfg(test)]
mod tests;
