//! Socket signatures: the GUA harvest shared by the bands 3 of a catalogue
//! entry (ARCHITECTURE.md, "The exhaustive search of an entry").
//!
//! A GUA2 socket swaps two cells of a band-3 mini-row: columns c1 and c2
//! of one stack, digits d1 and d2. The bands-1+2 parts S of its GUAs are
//! the differences of the other fillings of bands 1+2 under band 3's
//! changed gangster (column c1 gives d1 to bands 1+2 and takes d2, c2 the
//! reverse): bands 3 meet bands 1+2 only through their columns' digit
//! sets. So S depends on bands 1+2 and on the socket's **signature** (c1,
//! c2, d1, d2), not on the rest of band 3. A GUA3 socket (a mini-row
//! rotated) likewise has the signature (stack, its three digits, the
//! turn).
//!
//! Every band 3 of an entry holds, in each column, the three digits bands
//! 1 and 2 lack there, so the entry has 81 GUA2 and 162 GUA3 signatures,
//! and each band 3 has one per socket (27 and 18). [`SignatureHarvest`]
//! harvests each signature's S parts once, with the first band 3 that has
//! it, and gives them to every band 3 that has it: for that band 3, S ∪ T
//! is a UA (the other filling of bands 1+2 and its band 3 changed at the
//! socket form a grid). The harvest of a band 3 is then exactly what
//! [`crate::search::harvest::harvest_guas`] finds for it, which the tests check.
//!
//! The same reasoning hands on the fresh GUAs of failed final checks, and
//! gives the GUA bits of part 1 to all bands 3 at once: see
//! [`super::shared::classes`].

use crate::bits::{Mask27, Mask54};
use crate::grid::Grid;

use crate::search::harvest::{Gua, HarvestLimits, collect_guas, socket_parts};

/// Socket signatures of an entry: 81 GUA2, then 162 GUA3.
pub const SIGNATURES: usize = 243;

/// Sockets of one band 3, in [`crate::search::harvest::sockets`] order: per
/// mini-row (row-major), the pairs of cells 01, 02, 12, then the two
/// turns.
const SOCKETS: usize = 45;

/// The GUA2 pairs of cells of a mini-row, in socket order.
const PAIRS: [(usize, usize); 3] = [(0, 1), (0, 2), (1, 2)];

/// The signatures of an entry and the S parts of each, harvested once.
pub struct SignatureHarvest {
    /// `pos[c][d]`: the position of digit d among column c's band-3
    /// digits (sorted); 3 when d is not one of them.
    pos: [[u8; 10]; 9],
    /// Each signature's S parts, once harvested.
    parts: Vec<Option<Vec<Mask54>>>,
}

impl SignatureHarvest {
    /// The signatures of the entry whose bands 3 hold, in each column, the
    /// digits `band3` (any of them) holds there.
    pub fn new(band3: &[u8; 27]) -> Self {
        let mut pos = [[3u8; 10]; 9];
        for (c, column) in pos.iter_mut().enumerate() {
            let mut digits = [band3[c], band3[9 + c], band3[18 + c]];
            digits.sort_unstable();
            for (i, &d) in digits.iter().enumerate() {
                column[d as usize] = i as u8;
            }
        }
        SignatureHarvest {
            pos,
            parts: vec![None; SIGNATURES],
        }
    }

    /// The signature of each socket of `band3`, in socket order.
    ///
    /// # Panics
    /// If `band3` does not hold the entry's digits in some column.
    pub fn signatures(&self, band3: &[u8; 27]) -> [u8; SOCKETS] {
        let mut out = [0u8; SOCKETS];
        for (mini, sigs) in out.chunks_exact_mut(5).enumerate() {
            let (row, stack) = (mini / 3, mini % 3);
            // The positions of the mini-row's digits in their columns.
            let i: [usize; 3] = std::array::from_fn(|k| {
                let c = 3 * stack + k;
                let p = self.pos[c][band3[9 * row + c] as usize] as usize;
                assert!(p < 3, "band 3 does not complete the entry's bands 1+2");
                p
            });
            for (j, &(a, b)) in PAIRS.iter().enumerate() {
                sigs[j] = (27 * stack + 9 * j + 3 * i[a] + i[b]) as u8;
            }
            let digits = 9 * i[0] + 3 * i[1] + i[2];
            for turn in 0..2 {
                sigs[3 + turn] = (81 + 54 * stack + 2 * digits + turn) as u8;
            }
        }
        out
    }

    /// The GUAs of search grid `grid` (the entry's bands 1+2 and one of
    /// its bands 3), as [`crate::search::harvest::harvest_guas`] finds them, each
    /// signature's S parts harvested only the first time a band 3 has it.
    pub fn guas(&mut self, grid: &Grid, limits: &HarvestLimits) -> Vec<Gua> {
        let band3: [u8; 27] = grid.digits()[54..].try_into().expect("27 cells");
        let sigs = self.signatures(&band3);
        let parts = &mut self.parts;
        collect_guas(grid, |k, t, changed| {
            parts[sigs[k] as usize]
                .get_or_insert_with(|| socket_parts(grid, t, changed, limits))
                .clone()
        })
    }

    /// How many signatures have been harvested.
    pub fn harvested(&self) -> usize {
        self.parts.iter().flatten().count()
    }
}

// Socket classes. A band 3 has 36 mini-row sockets: the 27 pairs of cells
// and the 9 whole mini-rows of its rows (the two turns of a mini-row have
// one T). Which bands-1+2 parts S make GUAs with a socket depends only on
// how the socket changes band 3's gangster, so the sockets of all bands 3
// of an entry fall into 162 classes (81 pair signatures, 81 mini-row
// signatures with the two turns together), and a band 3 has each of its
// 36 sockets in a different class: the classes number a band 3's mini-row
// sockets (`search::band3`), and the class bits of an entry
// (`search::shared::classes`) are kept by class.

/// Socket classes: 81 pairs of cells, then 81 mini-rows.
pub const CLASSES: usize = 162;

/// Words of a [`ClassMask`].
pub const CLASS_WORDS: usize = CLASSES.div_ceil(64);

/// A set of classes (bit c of word c / 64 for class c).
pub type ClassMask = [u64; CLASS_WORDS];

/// Mini-row sockets of a band 3, one per class.
pub const CLASS_SOCKETS: usize = 36;

/// The 36 mini-row sockets of `band3` with their classes, by class: the
/// socket numbers of a band 3 (the T of socket k is the k-th T).
pub fn socket_classes(band3: &[u8; 27]) -> [(u8, Mask27); CLASS_SOCKETS] {
    let classes = classes_in_socket_order(band3);
    let mut out = [(0u8, 0 as Mask27); CLASS_SOCKETS];
    for mini in 0..9 {
        let base = 9 * (mini / 3) + 3 * (mini % 3);
        for (j, (a, b)) in [(0, 1), (0, 2), (1, 2)].into_iter().enumerate() {
            out[4 * mini + j] = (classes[5 * mini + j], 1 << (base + a) | 1 << (base + b));
        }
        // The two turns (sockets 3 and 4 of the mini-row) have one class.
        out[4 * mini + 3] = (classes[5 * mini + 3], 0b111 << base);
    }
    out.sort_unstable();
    out
}

/// The class of a signature ([`SIGNATURES`]): itself
/// for a pair, the turns of a mini-row together.
fn class_of_signature(sig: u8) -> u8 {
    if sig < 81 { sig } else { 81 + (sig - 81) / 2 }
}

/// The classes of the sockets of `band3`, in [`crate::search::harvest::sockets`]
/// order.
pub(in crate::search) fn classes_in_socket_order(band3: &[u8; 27]) -> [u8; 45] {
    let sigs = SignatureHarvest::new(band3).signatures(band3);
    sigs.map(class_of_signature)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::bits::{BANDS12_FULL, GRID_FULL};
    use crate::grid::Puzzle;
    use crate::search::SearchConfig;
    use crate::search::harvest::harvest_guas;
    use crate::solver::{for_each_solution, other_solution};

    /// A random grid's bands 1+2 and every band 3 that completes them
    /// (found by the solver: no code shared with the ED walks).
    pub(in crate::search) fn entry(seed: u64) -> Vec<Grid> {
        let mut rng = fastrand::Rng::with_seed(seed);
        let grid = crate::generate::random_grid(&mut rng);
        let puzzle = Puzzle::from_grid(&grid, BANDS12_FULL as u128);
        let mut grids = Vec::new();
        for_each_solution(&puzzle, 100_000, |g| {
            grids.push(*g);
            true
        });
        assert!(grids.contains(&grid));
        grids
    }

    fn band3(grid: &Grid) -> [u8; 27] {
        grid.digits()[54..].try_into().unwrap()
    }

    /// Harvesting once per signature gives each band 3 exactly the GUAs
    /// of its own harvest, each of them a UA of that band 3's grid, and
    /// harvests fewer sockets than one harvest per band 3.
    #[test]
    fn shared_harvest_gives_each_band_3_its_own_guas() {
        let limits = SearchConfig::default().harvest_limits();
        let (mut bands, mut harvested) = (0, 0);
        for seed in [1, 2] {
            let grids = entry(seed);
            let mut harvest = SignatureHarvest::new(&band3(&grids[0]));
            for grid in grids.iter().take(12) {
                let mut shared = harvest.guas(grid, &limits);
                let mut own = harvest_guas(grid, &limits);
                shared.sort();
                own.sort();
                assert_eq!(shared, own, "band 3 of {grid}");
                for g in shared.iter().step_by(5) {
                    assert!(
                        other_solution(grid, GRID_FULL & !g.cells()).is_some(),
                        "{g:?} is no UA of {grid}"
                    );
                }
                bands += 1;
            }
            harvested += harvest.harvested();
        }
        assert!(bands >= 8, "only {bands} bands 3");
        assert!(
            harvested < SOCKETS * bands * 2 / 3,
            "{harvested} signatures harvested for {bands} bands 3"
        );
    }

    /// A band 3's 45 sockets have 45 distinct signatures; two bands 3 of
    /// an entry share the signature of a socket exactly when they change
    /// the gangster the same way (the same columns and digits move).
    #[test]
    fn signatures_name_the_gangster_change() {
        let grids = entry(3);
        let harvest = SignatureHarvest::new(&band3(&grids[0]));
        // A socket's gangster change: each column's digit set after it.
        let change = |changed: &[u8; 27]| -> [u16; 9] {
            let mut cols = [0u16; 9];
            for (c, &d) in changed.iter().enumerate() {
                cols[c % 9] |= 1 << d;
            }
            cols
        };
        let mut by_sig: Vec<Option<[u16; 9]>> = vec![None; SIGNATURES];
        let mut shared = 0;
        for grid in grids.iter().take(20) {
            let sigs = harvest.signatures(&band3(grid));
            let mut distinct = sigs.to_vec();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), SOCKETS);
            for (k, (_, changed)) in crate::search::harvest::sockets(grid).iter().enumerate() {
                let g = change(changed);
                match by_sig[sigs[k] as usize] {
                    Some(seen) => {
                        assert_eq!(seen, g, "signature {} of {grid}", sigs[k]);
                        shared += 1;
                    }
                    None => by_sig[sigs[k] as usize] = Some(g),
                }
            }
        }
        // Distinct signatures change the gangster differently.
        let mut changes: Vec<[u16; 9]> = by_sig.iter().flatten().copied().collect();
        let n = changes.len();
        changes.sort();
        changes.dedup();
        assert_eq!(changes.len(), n, "two signatures make one change");
        assert!(shared > 100, "only {shared} sockets share a signature");
    }
}
