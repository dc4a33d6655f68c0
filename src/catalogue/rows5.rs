//! The rows-5 lists (`NNN.r5s`): per prefix of one first band, which of
//! the rows 5 the walk goes on from hold grids, so a stream through the
//! band fills row 6 under those only ([`BandRows5`]).

use std::path::Path;

use rayon::prelude::*;

use super::CatalogueError;
use super::band_file::BandFile;
use super::frame::{frame, unframe};
use super::table::BandTable;
use super::walk::{Flow, Walker};

/// Which rows 5 hold grids, per prefix of one first band (`NNN.r5s`): a
/// stream of such a band (one without a band 2 list, `NNN.b2s`) lists each
/// prefix's rows 5 ([`Walker::for_each_row5`]: those that fit and pass the
/// class cut at cell 45, so found without filling row 6), reads one bit
/// for each, and fills row 6 and walks the band 2s under the marked ones
/// only (in bands 298-324, about one row 5 in 10-20; about 2x the plain
/// walk).
///
/// File: a header line `# s17 catalogue rows 5: first band NNN BAND, T
/// grids, C rows 5, M marked, L bytes, fnv1a64 H`, then one bit per row 5
/// of every prefix in table order, each prefix's in the walk's
/// (increasing) order, set when a grid of the prefix has that row 5 (most
/// significant bit first, the last byte padded with 0s). Reading checks
/// the header against the table, the hash, that the walk lists C rows 5
/// in all (so the bits fall to the same rows 5), that the body holds C
/// bits and M of them set, and that every prefix (the table's hold grids)
/// has a row 5 marked, and no more than its grids. That the marked rows 5
/// are exactly those with grids is how the file is made (`s17 catalogue
/// build --rows5`: each prefix walked, its count checked against the
/// table) and what a test samples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandRows5 {
    /// Catalogue index, 0-based.
    pub band: usize,
    /// The bits, most significant first.
    bits: Vec<u8>,
    /// Per prefix, its first bit (one more entry: the rows 5 in all).
    starts: Vec<u32>,
}

impl BandRows5 {
    /// The bit of row 5 number `i` (0-based, in the walk's order) of
    /// prefix `prefix`: whether grids lie under it.
    #[inline]
    pub fn marked(&self, prefix: usize, i: usize) -> bool {
        let at = self.starts[prefix] as usize + i;
        debug_assert!(at < self.starts[prefix + 1] as usize);
        self.bits[at / 8] & (0x80 >> (at % 8)) != 0
    }

    /// The number of rows 5 of prefix `prefix`.
    pub fn rows5_of(&self, prefix: usize) -> usize {
        (self.starts[prefix + 1] - self.starts[prefix]) as usize
    }

    /// The number of rows 5 (bits) in all.
    pub fn len(&self) -> usize {
        *self.starts.last().expect("one entry at least") as usize
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of rows 5 marked (with grids).
    pub fn marked_count(&self) -> u64 {
        self.bits.iter().map(|b| b.count_ones() as u64).sum()
    }

    /// The grids of prefix `prefix` (row 4 `row4`) in increasing order,
    /// until `visit` says stop: the band 2s under its marked rows 5 walked.
    pub fn walk_prefix(
        &self,
        walker: &Walker,
        prefix: usize,
        row4: &[u8; 9],
        visit: &mut impl FnMut(&[u8; 81]) -> Flow,
    ) -> Flow {
        let (band, mut i) = (self.band, 0);
        walker.for_each_row5(band, row4, &mut |row5| {
            i += 1;
            if !self.marked(prefix, i - 1) {
                return Flow::Continue;
            }
            for band2 in &walker.band2s_under_row5(band, row4, row5) {
                if walker.walk_band2(band, row4, band2, false, visit) == Flow::Stop {
                    return Flow::Stop;
                }
            }
            Flow::Continue
        })
    }

    /// The list from the walk itself (prefixes in parallel, rayon's pool);
    /// fails when a prefix's walk does not give the table's count.
    pub fn build(
        walker: &Walker,
        table: &BandTable,
        path: &Path,
    ) -> Result<BandRows5, CatalogueError> {
        let band = table.band;
        let built: Vec<Option<Vec<bool>>> = (0..table.rows4.len())
            .into_par_iter()
            .map(|prefix| {
                let row4 = &table.rows4[prefix];
                // The rows 5 with grids, increasing (the band 2s are).
                let (mut with, mut seen) = (Vec::<[u8; 9]>::new(), 0u64);
                for band2 in walker.band2s(band, row4) {
                    let mut grids = 0u64;
                    walker.walk_band2(band, row4, &band2, false, &mut |_| {
                        grids += 1;
                        Flow::Continue
                    });
                    let row5: [u8; 9] = band2.rows[..9].try_into().expect("9 digits");
                    if grids > 0 && with.last() != Some(&row5) {
                        with.push(row5);
                    }
                    seen += grids;
                }
                let mut bits = Vec::new();
                let mut next = 0;
                walker.for_each_row5(band, row4, &mut |row5| {
                    let marked = with.get(next) == Some(row5);
                    next += marked as usize;
                    bits.push(marked);
                    Flow::Continue
                });
                assert_eq!(
                    next,
                    with.len(),
                    "every row 5 of a band 2 is one the walk lists (band {}, prefix {})",
                    band + 1,
                    prefix + 1
                );
                (seen == table.count(prefix)).then_some(bits)
            })
            .collect();
        let mut out = BandRows5 {
            band,
            bits: Vec::new(),
            starts: vec![0],
        };
        let mut at = 0usize;
        for bits in built {
            let bits = bits.ok_or_else(|| CatalogueError::Inconsistent {
                band: band + 1,
                path: path.to_path_buf(),
            })?;
            out.bits.resize((at + bits.len()).div_ceil(8), 0);
            for marked in bits {
                if marked {
                    out.bits[at / 8] |= 0x80 >> (at % 8);
                }
                at += 1;
            }
            out.starts.push(at as u32);
        }
        Ok(out)
    }
}

impl BandFile for BandRows5 {
    const EXTENSION: &'static str = "r5s";

    /// The file's bytes.
    fn to_bytes(&self, walker: &Walker, table: &BandTable) -> Vec<u8> {
        let fields = [
            format!("{} grids", table.total()),
            format!("{} rows 5", self.len()),
            format!("{} marked", self.marked_count()),
        ];
        frame("rows 5", walker, self.band, &fields, &self.bits)
    }

    /// Parses a rows-5 file of the band of `table`, checked as the note
    /// above says (the walk lists every prefix's rows 5 once: about 0.1 s
    /// a band).
    fn parse(
        bytes: &[u8],
        table: &BandTable,
        walker: &Walker,
        path: &Path,
    ) -> Result<Self, CatalogueError> {
        let band = table.band;
        let file = unframe(bytes, "rows 5", walker, band, 3, path)?;
        let bad = |line, reason| file.error(line, reason);
        file.check_grids(table.total())?;
        let count = file.number(1, "", " rows 5")?;
        let marked = file.number(2, "", " marked")?;
        let body = file.body()?;
        let mut starts = Vec::with_capacity(table.rows4.len() + 1);
        starts.push(0u32);
        for row4 in &table.rows4 {
            let mut n = 0u32;
            walker.for_each_row5(band, row4, &mut |_| {
                n += 1;
                Flow::Continue
            });
            starts.push(starts.last().expect("one") + n);
        }
        let walked = *starts.last().expect("one") as u64;
        if walked != count {
            return Err(bad(
                1,
                format!("made for {count} rows 5, the walk lists {walked}"),
            ));
        }
        if body.len() as u64 != count.div_ceil(8) {
            return Err(bad(
                2,
                format!("{} bytes of bits for {count} rows 5", body.len()),
            ));
        }
        if !count.is_multiple_of(8) && body.last().expect("bits") & (0xff >> (count % 8)) != 0 {
            return Err(bad(2, "bits set after the last row 5".into()));
        }
        let out = BandRows5 {
            band,
            bits: body.to_vec(),
            starts,
        };
        if out.marked_count() != marked {
            return Err(bad(
                1,
                format!(
                    "{marked} rows 5 marked, the body marks {}",
                    out.marked_count()
                ),
            ));
        }
        for prefix in 0..table.rows4.len() {
            let set = (0..out.rows5_of(prefix))
                .filter(|&i| out.marked(prefix, i))
                .count() as u64;
            let grids = table.count(prefix);
            if !(1..=grids).contains(&set) {
                return Err(bad(
                    2,
                    format!(
                        "prefix {} has {grids} grids and {set} rows 5 marked (1 to its grids)",
                        prefix + 1
                    ),
                ));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
