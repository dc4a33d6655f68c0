//! The count table of one first band: every row 4 under which some minlex
//! grid of that band lies, in increasing order, with its number of grids.
//!
//! # File format (`NNN.tsv`, NNN the band's line in `data/bands416.txt`)
//!
//! ```text
//! # s17 catalogue table: first band 001 123456789456789123789123456, 1007170 grids, 38 prefixes
//! 213546897<TAB>12345
//! ...
//! ```
//!
//! One header line (band number, the band itself, the total and the number
//! of lines after it), then one line per row 4 holding grids: the row's
//! nine digits, a tab, the count. Reading checks the band against the
//! catalogue, that the rows increase, that each is a row and that the counts
//! sum to the total. Text, so that a table can be read and diffed; git
//! compresses it about four to one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::CatalogueError;
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
        use rayon::prelude::*;
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

    /// The file name of band `band` (0-based): `001.tsv` for the first.
    pub fn file_name(band: usize) -> String {
        format!("{:03}.tsv", band + 1)
    }

    /// The file's text.
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

    /// Writes the table into `dir` (through a temporary file and a rename,
    /// so a stopped build leaves no half table).
    pub fn write(&self, walker: &Walker, dir: &Path) -> Result<PathBuf, CatalogueError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CatalogueError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let path = dir.join(Self::file_name(self.band));
        let tmp = dir.join(format!("{}.tmp", Self::file_name(self.band)));
        std::fs::write(&tmp, self.to_text(walker)).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &path).map_err(io(&path))?;
        Ok(path)
    }

    /// Parses a table file's text, checked as the module note says.
    pub fn parse(
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

/// What follows `# s17 catalogue WHAT: first band NNN BAND, ` in a band
/// file's header (a table's or its checkpoints'), or why it does not
/// start so.
pub(super) fn header_rest<'a>(
    header: &'a str,
    what: &str,
    walker: &Walker,
    band: usize,
) -> Result<&'a str, String> {
    let expected = format!(
        "# s17 catalogue {what}: first band {:03} {}, ",
        band + 1,
        band_to_string(walker.catalogue().band(band))
    );
    header
        .strip_prefix(&expected)
        .ok_or_else(|| format!("the header does not start with `{}`", expected.trim_end()))
}
