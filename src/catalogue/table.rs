//! The count table of one first band: every row 4 under which some minlex
//! grid of that band lies, in increasing order, with its number of grids.
//!
//! # File format (`NNN.cnt`, NNN the band's line in `data/bands416.txt`)
//!
//! ```text
//! # s17 catalogue counts: first band 001 123456789456789123789123456, 1007170 grids, 124 prefixes, 126 candidates, 252 bytes, fnv1a64 7d63faac11ccdd9c
//! <binary body>
//! ```
//!
//! One text header line (the band, its total, the number of row 4s
//! holding grids, the number of row 4 candidates of the band, the number
//! of bytes after the line and the FNV-1a 64 hash of those bytes), then
//! the count of every row 4 candidate of the band, zeros included, in the
//! order of [`Walker::for_each_row4`] (increasing), each a 16-bit
//! little-endian number (the largest prefix holds 62,887 grids). The rows
//! 4 are not stored: reading lists the candidates again (the walk's own,
//! so a table cannot name a row that is not one). Reading checks the
//! header (band, candidates against the walk's, length, hash), that the
//! body holds two bytes a candidate and no more, and that the counts sum
//! to the total over as many nonzero counts as the header's prefixes. All
//! 416 bands: 790,171 candidates, 1.64 MB, 1.08 MB under `gzip -9`
//! (LEB128 varints would take 1.49 MB, but 1.12 MB under `gzip -9`).
//!
//! # The text format (`NNN.tsv`), still read
//!
//! ```text
//! # s17 catalogue table: first band 001 123456789456789123789123456, 1007170 grids, 124 prefixes
//! 213546897<TAB>12345
//! ...
//! ```
//!
//! One header line (band number, the band itself, the total and the number
//! of lines after it), then one line per row 4 holding grids: the row's
//! nine digits, a tab, the count. Tables were committed and built so until
//! 2026-11-29 (9.6 MB for all bands); a directory's `NNN.tsv` is read when
//! it has no `NNN.cnt` of the band ([`BandTable::to_text`] still writes
//! it, to read or diff a table). Reading checks the band against the
//! catalogue, that the rows increase, that each is a row and that the
//! counts sum to the total.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::CatalogueError;
#[cfg(test)]
use super::frame::fnv1a64;
use super::frame::header_rest;
use super::frame::{frame, unframe, write_band_file};
use super::walk::{Flow, Walker};
use crate::band::band_to_string;

/// The counts of one first band.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandTable {
    /// Catalogue index, 0-based (the file and the user say `b + 1`).
    pub band: usize,
    /// Row 4 of each prefix holding grids, increasing.
    pub rows4: Vec<[u8; 9]>,
    /// `before[i]`: grids of the band before prefix `i`; one more entry
    /// than `rows4`, the last the band's total.
    pub before: Vec<u64>,
}

impl BandTable {
    /// The number of minlex grids with this first band.
    pub fn total(&self) -> u64 {
        *self.before.last().expect("a table has a total")
    }

    /// The grids under one prefix.
    pub fn count(&self, prefix: usize) -> u64 {
        self.before[prefix + 1] - self.before[prefix]
    }

    /// The table from the walk itself: every minlex grid of the band
    /// visited once. Row 4 candidates are counted in parallel (rayon's
    /// pool).
    pub fn build(walker: &Walker, band: usize) -> BandTable {
        let mut candidates = Vec::new();
        walker.for_each_row4(band, |row| {
            candidates.push(*row);
            Flow::Continue
        });
        let counts: Vec<u64> = candidates
            .par_iter()
            .map(|row4| {
                let mut n = 0u64;
                walker.walk_prefix(band, row4, &mut |_| {
                    n += 1;
                    Flow::Continue
                });
                n
            })
            .collect();
        let mut table = BandTable {
            band,
            rows4: Vec::new(),
            before: vec![0],
        };
        for (row4, n) in candidates.iter().zip(counts) {
            if n > 0 {
                table.rows4.push(*row4);
                table.before.push(table.total() + n);
            }
        }
        table
    }

    /// The file name of band `band` (0-based): `001.cnt` for the first.
    pub fn file_name(band: usize) -> String {
        format!("{:03}.cnt", band + 1)
    }

    /// The name of band `band`'s file in the text format: `001.tsv`.
    pub fn text_file_name(band: usize) -> String {
        format!("{:03}.tsv", band + 1)
    }

    /// The file's bytes (`NNN.cnt`). Every row 4 of the table must be a
    /// candidate of its band ([`Walker::for_each_row4`]), as those of a
    /// table built or read are.
    pub fn to_bytes(&self, walker: &Walker) -> Vec<u8> {
        let mut body = Vec::new();
        let (mut next, mut candidates) = (0usize, 0u64);
        walker.for_each_row4(self.band, |row4| {
            let mut count = 0;
            if self.rows4.get(next) == Some(row4) {
                count = self.count(next);
                next += 1;
            }
            let count = u16::try_from(count).expect("a prefix holds at most 62,887 grids");
            body.extend_from_slice(&count.to_le_bytes());
            candidates += 1;
            Flow::Continue
        });
        assert_eq!(
            next,
            self.rows4.len(),
            "every row 4 of a table is a candidate of its band"
        );
        let fields = [
            format!("{} grids", self.total()),
            format!("{} prefixes", self.rows4.len()),
            format!("{candidates} candidates"),
        ];
        frame("counts", walker, self.band, &fields, &body)
    }

    /// Parses a counts file (`NNN.cnt`), checked as the module note says.
    pub fn parse(
        bytes: &[u8],
        band: usize,
        walker: &Walker,
        path: &Path,
    ) -> Result<BandTable, CatalogueError> {
        let file = unframe(bytes, "counts", walker, band, 3, path)?;
        let bad = |line, reason| file.error(line, reason);
        let total = file.number(0, "", " grids")?;
        let prefixes = file.number(1, "", " prefixes")?;
        let candidates = file.number(2, "", " candidates")?;
        let mut rows = Vec::new();
        walker.for_each_row4(band, |row4| {
            rows.push(*row4);
            Flow::Continue
        });
        if candidates != rows.len() as u64 {
            return Err(bad(
                1,
                format!(
                    "the header says {candidates} candidates, the band has {}",
                    rows.len()
                ),
            ));
        }
        let body = file.body()?;
        let mut table = BandTable {
            band,
            rows4: Vec::new(),
            before: vec![0],
        };
        if body.len() != 2 * rows.len() {
            return Err(bad(
                2,
                format!(
                    "{} bytes of counts for {} candidates (2 bytes a count)",
                    body.len(),
                    rows.len()
                ),
            ));
        }
        for (row4, count) in rows.iter().zip(body.chunks_exact(2)) {
            let count = u16::from_le_bytes([count[0], count[1]]) as u64;
            if count > 0 {
                table.rows4.push(*row4);
                table.before.push(table.total() + count);
            }
        }
        if table.rows4.len() as u64 != prefixes || table.total() != total {
            return Err(bad(
                1,
                format!(
                    "the header says {total} grids in {prefixes} prefixes, the counts {} in {}",
                    table.total(),
                    table.rows4.len()
                ),
            ));
        }
        Ok(table)
    }

    /// The table in the text format (`NNN.tsv`, the module note).
    pub fn to_text(&self, walker: &Walker) -> String {
        let mut text = format!(
            "# s17 catalogue table: first band {:03} {}, {} grids, {} prefixes\n",
            self.band + 1,
            band_to_string(walker.catalogue().band(self.band)),
            self.total(),
            self.rows4.len()
        );
        for (i, row) in self.rows4.iter().enumerate() {
            for d in row {
                text.push((b'0' + d) as char);
            }
            let _ = writeln!(text, "\t{}", self.count(i));
        }
        text
    }

    /// Writes the table's counts file into `dir` (through a temporary file and a rename,
    /// so a stopped build leaves no half table).
    pub fn write(&self, walker: &Walker, dir: &Path) -> Result<PathBuf, CatalogueError> {
        write_band_file(dir, &Self::file_name(self.band), &self.to_bytes(walker))
    }

    /// Parses a table in the text format (`NNN.tsv`), checked as the
    /// module note says.
    pub fn parse_text(
        text: &str,
        band: usize,
        walker: &Walker,
        path: &Path,
    ) -> Result<BandTable, CatalogueError> {
        let bad = |line: usize, reason: String| CatalogueError::Format {
            path: path.to_path_buf(),
            line,
            reason,
        };
        let mut lines = text.lines();
        let header = lines.next().ok_or_else(|| bad(1, "empty file".into()))?;
        let rest = header_rest(header, "table", walker, band).map_err(|r| bad(1, r))?;
        let numbers: Vec<&str> = rest.split(", ").collect();
        let field = |i: usize, unit: &str| -> Result<u64, CatalogueError> {
            numbers
                .get(i)
                .and_then(|f| f.strip_suffix(unit))
                .and_then(|f| f.parse().ok())
                .ok_or_else(|| bad(1, format!("the header has no `N{unit}`")))
        };
        let (total, prefixes) = (field(0, " grids")?, field(1, " prefixes")?);
        let mut table = BandTable {
            band,
            rows4: Vec::new(),
            before: vec![0],
        };
        for (i, line) in lines.enumerate() {
            let number = i + 2;
            let (row, count) = line
                .split_once('\t')
                .ok_or_else(|| bad(number, "expected ROW4<TAB>COUNT".into()))?;
            let digits = row.as_bytes();
            let mut row4 = [0u8; 9];
            let mut seen = 0u16;
            if digits.len() != 9 {
                return Err(bad(number, format!("`{row}` is not a row of 9 digits")));
            }
            for (d, &c) in row4.iter_mut().zip(digits) {
                *d = c.wrapping_sub(b'0');
                if !(1..=9).contains(d) || seen >> *d & 1 != 0 {
                    return Err(bad(number, format!("`{row}` is not a row of 9 digits")));
                }
                seen |= 1 << *d;
            }
            if table.rows4.last().is_some_and(|last| *last >= row4) {
                return Err(bad(number, "rows 4 must increase".into()));
            }
            let count: u64 = count
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| bad(number, format!("`{count}` is not a positive count")))?;
            table.rows4.push(row4);
            table.before.push(table.total() + count);
        }
        if table.rows4.len() as u64 != prefixes || table.total() != total {
            return Err(bad(
                1,
                format!(
                    "the header says {total} grids in {prefixes} prefixes, the lines {} in {}",
                    table.total(),
                    table.rows4.len()
                ),
            ));
        }
        Ok(table)
    }
}

#[cfg(test)]
mod tests;
