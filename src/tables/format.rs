//! The band table file's format: its layout, constants, header and
//! checksum. Readers and the writer both go through these definitions.
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

use std::io::{self, Write};
use std::ops::Range;

use bytemuck::{Pod, Zeroable};

use super::{TableError, malformed};
use crate::band::BANDS;
use crate::band::valid::INDEX_LEN;

/// The first 8 bytes of a band table file.
pub const MAGIC: [u8; 8] = *b"S17BANDS";
/// The format version this program reads and writes.
pub const FORMAT_VERSION: u32 = 2;
/// Smallest clue-set size stored in the file.
pub const MIN_STORED_SIZE: usize = 2;
/// Largest clue-set size stored in the file; larger ones come from
/// [`BandTable::set_list`](super::BandTable::set_list) on demand.
pub const MAX_STORED_SIZE: usize = 6;
/// Number of sizes stored per band.
pub const STORED_SIZES: usize = MAX_STORED_SIZE - MIN_STORED_SIZE + 1;
/// Number of bands in a complete file: every band of the band catalogue.
pub const CATALOGUE_LEN: usize = BANDS;

pub(super) const HEADER_LEN: usize = 128;
pub(super) const BAND_LEN: usize = 28;
pub(super) const RECORD_LEN: usize = std::mem::size_of::<BandRecord>();

/// One band's entry in the records section (64 bytes).
///
/// ```text
/// u32 catalogue_index, u32 min_size, u32 ua_start, u32 ua_len,
/// [u32 start, u32 len] × 5   lists of sizes 2..=6 (start in the sets section)
/// u64 checksum               of the band's section (see the module note)
/// ```
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
#[repr(C)]
pub(super) struct BandRecord {
    pub(super) catalogue_index: u32,
    pub(super) min_size: u32,
    pub(super) ua_start: u32,
    pub(super) ua_len: u32,
    pub(super) lists: [[u32; 2]; STORED_SIZES],
    pub(super) checksum: u64,
}

/// The bytes of a record that its band's checksum covers (all but the
/// checksum itself).
pub(super) const RECORD_SUMMED: usize = std::mem::offset_of!(BandRecord, checksum);

/// The checksum of one band's section from its parts, as bytes of the
/// file: its 28 band bytes, the first 56 bytes of its record, its UAs, its
/// slice indices and its lists.
pub(super) fn band_section_checksum(parts: &[&[u8]]) -> u64 {
    let mut sum = Checksum::new();
    for part in parts {
        sum.update(part);
    }
    sum.finish()
}

/// Words as little-endian bytes.
pub(super) fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The header fields, read and written explicitly little-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) band_count: u64,
    pub(super) uas_len: u64,
    pub(super) sets_len: u64,
    pub(super) file_len: u64,
    pub(super) checksum: u64,
}

/// Byte ranges of the sections, computed from the counts alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    pub(super) bands: Range<usize>,
    pub(super) records: Range<usize>,
    pub(super) uas: Range<usize>,
    pub(super) index: Range<usize>,
    pub(super) sets: Range<usize>,
    pub(super) file_len: usize,
}

impl Layout {
    /// The layout for the given counts, or `None` if it overflows.
    pub(super) fn new(band_count: u64, uas_len: u64, sets_len: u64) -> Option<Layout> {
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

    pub(super) fn encode_header(&self, header: &Header) -> [u8; HEADER_LEN] {
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
pub(super) fn read_header(bytes: &[u8]) -> Result<(Header, Layout), TableError> {
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

pub use crate::disk::Checksum;

/// A writer that checksums what passes through it.
pub(super) struct ChecksumWriter<W> {
    pub(super) inner: W,
    pub(super) sum: Checksum,
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

#[cfg(test)]
mod tests {
    use super::*;

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
