//! The band 2 lists (`NNN.b2s`): per prefix of one first band, the band
//! 2s (rows 5-6) that hold grids, so a stream through the band walks only
//! those ([`BandBand2s`]).

use std::path::Path;

use rayon::prelude::*;

use super::CatalogueError;
use super::band_file::BandFile;
use super::checkpoint::{Bits, decode_rows56, encode_rows56, read_bits};
use super::frame::{frame, unframe};
use super::table::BandTable;
use super::walk::{Band2, Flow, Walker};

/// The band 2s that hold grids, per prefix of one first band (`NNN.b2s`):
/// a stream of such a band walks these band 2s only, skipping the filling
/// of rows 5-6 and the band 2s the walk would refuse (most of them in the
/// last bands: 150,595 of 6.6 million listed in bands 335-416).
///
/// File: a header line `# s17 catalogue band 2s: first band NNN BAND, T
/// grids, M band 2s, L bytes, fnv1a64 H`, then per prefix in table order
/// (bits, most significant first, the last byte padded with 0s): the
/// number of its band 2s with grids (Elias gamma), then each one's rows
/// 5-6 coded as a checkpoint's are (no offset), increasing. Reading checks
/// the header against the table, the hash, that every code is a filling of
/// rows 5-6 that passes the walk's band-2 tests, that a prefix's increase
/// and number between 1 and its grids, and that the body ends with the
/// last. That these are exactly the band 2s with grids is how the file is
/// made (`s17 catalogue build --band2s`: each prefix walked, its count
/// checked against the table) and what a test samples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandBand2s {
    /// Catalogue index, 0-based.
    pub band: usize,
    band2s: Vec<Band2>,
    /// Per prefix, where its band 2s start in `band2s` (one more entry).
    starts: Vec<u32>,
}

impl BandBand2s {
    /// The band 2s with grids of prefix `prefix`, increasing.
    pub fn of_prefix(&self, prefix: usize) -> &[Band2] {
        &self.band2s[self.starts[prefix] as usize..self.starts[prefix + 1] as usize]
    }

    /// The number of band 2s listed.
    pub fn len(&self) -> usize {
        self.band2s.len()
    }

    /// Whether none is (a band with no grid).
    pub fn is_empty(&self) -> bool {
        self.band2s.is_empty()
    }

    /// The list from the walk itself (prefixes in parallel, rayon's pool);
    /// fails when a prefix's walk does not give the table's count.
    pub fn build(
        walker: &Walker,
        table: &BandTable,
        path: &Path,
    ) -> Result<BandBand2s, CatalogueError> {
        let band = table.band;
        let built: Vec<Option<Vec<Band2>>> = (0..table.rows4.len())
            .into_par_iter()
            .map(|prefix| {
                let row4 = &table.rows4[prefix];
                let (mut kept, mut seen) = (Vec::new(), 0u64);
                for band2 in walker.band2s(band, row4) {
                    let mut grids = 0u64;
                    walker.walk_band2(band, row4, &band2, false, &mut |_| {
                        grids += 1;
                        Flow::Continue
                    });
                    if grids > 0 {
                        kept.push(band2);
                    }
                    seen += grids;
                }
                (seen == table.count(prefix)).then_some(kept)
            })
            .collect();
        let mut out = BandBand2s {
            band,
            band2s: Vec::new(),
            starts: vec![0],
        };
        for kept in built {
            let kept = kept.ok_or_else(|| CatalogueError::Inconsistent {
                band: band + 1,
                path: path.to_path_buf(),
            })?;
            out.band2s.extend(kept);
            out.starts.push(out.band2s.len() as u32);
        }
        Ok(out)
    }
}

impl BandFile for BandBand2s {
    const EXTENSION: &'static str = "b2s";

    /// The file's bytes.
    fn to_bytes(&self, walker: &Walker, table: &BandTable) -> Vec<u8> {
        let mut body = Bits::default();
        for (prefix, row4) in table.rows4.iter().enumerate() {
            let band2s = self.of_prefix(prefix);
            gamma(&mut body, band2s.len() as u64);
            for band2 in band2s {
                encode_rows56(&mut body, walker, self.band, row4, &band2.rows);
            }
        }
        let fields = [
            format!("{} grids", table.total()),
            format!("{} band 2s", self.band2s.len()),
        ];
        frame("band 2s", walker, self.band, &fields, &body.bytes)
    }

    /// Parses a band 2 file of the band of `table`, checked as the note
    /// above says.
    fn parse(
        bytes: &[u8],
        table: &BandTable,
        walker: &Walker,
        path: &Path,
    ) -> Result<Self, CatalogueError> {
        let band = table.band;
        let file = unframe(bytes, "band 2s", walker, band, 2, path)?;
        let bad = |line, reason| file.error(line, reason);
        file.check_grids(table.total())?;
        let count = file.number(1, "", " band 2s")?;
        let body = file.body()?;
        let mut out = BandBand2s {
            band,
            band2s: Vec::with_capacity(count.min(1 << 24) as usize),
            starts: vec![0],
        };
        let mut at = 0usize;
        for (prefix, row4) in table.rows4.iter().enumerate() {
            let wrong = |at: usize, what: &str| {
                bad(2, format!("byte {}: prefix {} {what}", at / 8, prefix + 1))
            };
            let n = read_gamma(body, &mut at)
                .filter(|&n| n <= table.count(prefix))
                .ok_or_else(|| wrong(at, "has no number of band 2s (1 to its grids)"))?;
            for i in 0..n {
                let rows = decode_rows56(body, &mut at, walker, band, row4)
                    .ok_or_else(|| wrong(at, &format!("band 2 {} is not a filling", i + 1)))?;
                let band2 = walker.admitted_band2(band, row4, &rows).ok_or_else(|| {
                    wrong(at, &format!("band 2 {} is not one the walk lists", i + 1))
                })?;
                if i > 0 && band2.rows <= out.band2s.last().expect("one before").rows {
                    return Err(wrong(
                        at,
                        &format!("band 2 {} is not above the one before", i + 1),
                    ));
                }
                out.band2s.push(band2);
            }
            out.starts.push(out.band2s.len() as u32);
        }
        if out.band2s.len() as u64 != count {
            return Err(bad(
                1,
                format!("{count} band 2s, the body holds {}", out.band2s.len()),
            ));
        }
        if at.div_ceil(8) != body.len()
            || body
                .last()
                .is_some_and(|&l| !at.is_multiple_of(8) && l & (0xff >> (at % 8)) != 0)
        {
            return Err(bad(2, "bits left after the last band 2".into()));
        }
        Ok(out)
    }
}

/// Appends `n` (at least 1) in Elias gamma: as many 0 bits as its bits
/// but one, then its bits.
fn gamma(out: &mut Bits, n: u64) {
    assert!(n > 0, "a prefix of the table has a band 2 with grids");
    let bits = 64 - n.leading_zeros();
    out.push(0, bits - 1);
    out.push(n, bits);
}

/// An Elias gamma number at bit `at`.
fn read_gamma(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut zeros = 0;
    while read_bits(bytes, at, 1)? == 0 {
        zeros += 1;
        if zeros > 40 {
            return None;
        }
    }
    Some(1 << zeros | read_bits(bytes, at, zeros)?)
}

#[cfg(test)]
mod tests;
