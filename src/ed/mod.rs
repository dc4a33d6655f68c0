//! The catalogue of essentially different (ED) grids, enumerated band by
//! band (ARCHITECTURE.md, "The catalogue of essentially different grids").
//!
//! # Band order
//!
//! Catalogue bands are ordered by the key `(n6, catalogue index)`, n6 being
//! the band's number of valid 6-clue sets (`data/band-n6.txt`, checked
//! against the band tables by a test): cheap bands first, as the one-grid
//! search ranks them. [`Ed::rank`] is a band class's position in that order.
//!
//! # Where an ED grid lives
//!
//! The six bands of a grid (three row bands, three stacks read as bands) keep
//! their classes under every symmetry, so the lowest rank among them, `m`,
//! belongs to the ED class. Its **slice** is the catalogue band `K` of rank
//! `m`. A *hi-form* of the grid is any image with
//!
//! - band 1 = catalogue band `K` exactly (the grid turned, if need be, so
//!   that a band of rank `m` lies in the rows, and mapped onto `K` by one of
//!   its isomorphisms),
//! - band 2 of rank ≤ band 3's rank (either order when they tie),
//! - the rows of bands 2 and 3 in normal order (increasing first digits).
//!
//! The **canonical hi-form** `H*` is the smallest hi-form, bands 2 and 3
//! compared as a 54-digit string. It names the grid's bands lo = band 1,
//! mid = band 2, hi = band 3 of `H*`, and so its three band-3 choices (the
//! one-grid search's partition of the 17s, ARCHITECTURE.md "The search plan
//! for one grid"): each choice is *visited* once, at
//!
//! - hi: `H*` itself (bands 1, 2 = lo, mid; band 3 = hi), slice `K`;
//! - mid: the smallest image of (lo, hi, mid) with band 1 = `K`, slice `K`;
//! - lo: the smallest image of (mid, hi, lo) with band 1 = the catalogue
//!   band of mid, slice = mid's class.
//!
//! The three visits label the bands of one grid consistently, so the three
//! searches together find every 17 of the grid (up to its automorphisms),
//! each 17 in one visit. A visit's band 1 is a catalogue band, its band 2 the
//! smallest of its images under band 1's automorphisms and of rank ≥ band 1's:
//! the **entries** of slice `K` are exactly those bands 2, numbered in the
//! order [`fill::for_each_band2`] meets them.
//!
//! # Counting
//!
//! Each ED grid has exactly one hi visit, so counting the hi visits of every
//! entry of every slice counts each ED grid once. The hi-forms of a grid are
//! in one-to-one correspondence with the symmetries that map it onto `H*`,
//! so the number of hi-forms equal to `H*` is the grid's automorphism count.
//! Most candidates are settled without building any hi-form: when band 1 is
//! the only band of the lowest rank among the six, band 1's class has no
//! automorphism and the three ranks are distinct, the candidate is its own
//! canonical form and has no automorphism (the module's tests check this
//! short cut against the full computation).
//!
//! # The visits, in a table
//!
//! ```text
//! choice  bands 1, 2, 3   slice         the visit
//! hi      lo, mid, hi     K             H* itself
//! mid     lo, hi, mid     K             the smallest image of (lo, hi, mid) with band 1 = K
//! lo      mid, hi, lo     class of mid  the smallest image of (mid, hi, lo) with band 1 = mid's catalogue band
//! ```
//!
//! The entries of a slice are numbered 0, 1, 2, … in the order in which the
//! band-2 walk meets them (increasing 27-digit strings, rows in normal
//! order). An entry lists every band 3 completing it (the band-3 walk, also in
//! increasing order); a band 3 is kept when the grid is the visit of one or
//! more choices, tagged with them. The hi-forms equal to `H*` correspond one
//! to one with the symmetries that map the grid onto itself (a hi-form *is* a
//! symmetry: transposition, which band goes first, an isomorphism onto K,
//! which band goes second, row orders); the isomorphisms onto K are one per
//! automorphism of K.
//!
//! # Why every puzzle of every ED grid is found
//!
//! The three visits of a grid are images of `H*` that keep the roles lo, mid,
//! hi of its bands, so searching visit c with choice c's clue counts searches
//! exactly the puzzles of `H*` that the plan gives to choice c; the three
//! choices partition the puzzles of `H*` (the band-3 rule of `crate::search::plan`,
//! over the order lo < mid < hi). For a grid with no automorphism each
//! puzzle is found once; with automorphisms a puzzle may be found as several
//! images, which the output's minlex forms merge. Each ED grid is counted
//! once because counting hi visits counts `H*`, which is unique per class.
//!
//! # Fast paths
//!
//! Most candidates are settled from the six ranks alone: when one band holds
//! the lowest rank alone and the three ranks of the grid's bands differ, the
//! hi-forms of the grid (and the forms of its mid and lo visits) are its
//! images under band 1's automorphisms, so the candidate is its own visit iff
//! no automorphism of band 1 makes bands 2 and 3 smaller (always, for the
//! classes without one), and its automorphism count is the number that leave
//! them as they are. Every other candidate (ties, a stack of the lowest rank)
//! builds its hi-forms in full. A test compares the short cut with the full
//! computation on sampled entries of nine slices.
//!
//! # Counts
//!
//! `s17 enumerate --count --all -o data/ed-counts.tsv --resume` writes one
//! line per slice as each slice finishes (a cut last line is dropped on
//! resume); [`counts`] is the file's one reader and writer. The sums over the
//! 416 slices are 986,727,817 entries and 5,472,730,538 grids, with the
//! published automorphism split class for class: an oracle that shares no
//! code with the enumeration.

pub mod band_index;
pub mod counts;
pub mod fill;
mod slice;
mod which;

use crate::band::{Band, BandCatalogue, BandId};
use crate::search::Rank;

pub use band_index::BandIndex;
pub use slice::{Band3Visit, Choices, Entry, SliceCount, choice_name};
pub use which::WhichError;

/// Bands 2 and 3 of a grid whose band 1 is a catalogue band: 54 digits.
pub type Key = [u8; 54];

/// The committed n6 of each catalogue band (valid 6-clue sets), catalogue
/// order.
const BAND_N6: &str = include_str!("../../data/band-n6.txt");

/// A map of a whole grid that keeps band order: a column permutation
/// (source column `c` goes to column `dest[c]`) and a relabelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ColumnMap {
    dest: [u8; 9],
    digits: [u8; 10],
}

impl ColumnMap {
    /// The map that takes `band` onto its catalogue band, from its id
    /// (`band[id.cells[i]] == id.digits[catalogue[i]]`).
    fn onto_catalogue(id: &BandId) -> ColumnMap {
        let mut dest = [0u8; 9];
        for j in 0..9 {
            dest[id.cells[j] as usize % 9] = j as u8;
        }
        let mut digits = [0u8; 10];
        for m in 1..=9 {
            digits[id.digits[m] as usize] = m as u8;
        }
        ColumnMap { dest, digits }
    }

    /// `self`, then `then`.
    fn then(&self, then: &ColumnMap) -> ColumnMap {
        let mut out = *self;
        for c in 0..9 {
            out.dest[c] = then.dest[self.dest[c] as usize];
        }
        for d in 1..=9 {
            out.digits[d] = then.digits[self.digits[d] as usize];
        }
        out
    }

    /// A band moved by the map, rows put back in normal order.
    #[inline]
    fn apply(&self, band: &[u8]) -> Band {
        let mut rows = [[0u8; 9]; 3];
        for (r, row) in rows.iter_mut().enumerate() {
            for c in 0..9 {
                row[self.dest[c] as usize] = self.digits[band[9 * r + c] as usize];
            }
        }
        rows.sort_unstable_by_key(|row| row[0]);
        let mut out = [0u8; 27];
        for r in 0..3 {
            out[9 * r..9 * r + 9].copy_from_slice(&rows[r]);
        }
        out
    }
}

/// One visit of an ED grid: the choice searched, the slice (band 1's
/// catalogue index) and the grid's bands 2 and 3 there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visit {
    pub choice: Rank,
    pub class: usize,
    pub key: Key,
}

impl Visit {
    /// The visited grid: the catalogue band, then the key.
    pub fn grid(&self, ed: &Ed) -> [u8; 81] {
        compose(ed.catalogue.band(self.class), &self.key)
    }
}

/// The canonical hi-form of a grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HiForm {
    /// The slice: catalogue index of band 1.
    pub class: usize,
    /// Bands 2 and 3.
    pub key: Key,
    /// How many hi-forms equal it: the grid's number of automorphisms.
    pub automorphisms: u32,
    /// Whether the grid was turned (transposed) to reach it.
    pub transposed: bool,
    /// The grid's bands (of the orientation reached) that play lo, mid, hi.
    pub roles: [usize; 3],
}

/// The ED catalogue's context: the band catalogue, the fast band index, the
/// band order and each band's automorphisms as column maps.
pub struct Ed {
    catalogue: BandCatalogue,
    index: BandIndex,
    rank: Vec<u16>,
    n6: Vec<u64>,
    automorphisms: Vec<Vec<ColumnMap>>,
}

impl Ed {
    /// Builds the context (about 0.2 s: the band index).
    pub fn new() -> Ed {
        let catalogue = BandCatalogue::new();
        let index = BandIndex::new(&catalogue);
        let n6: Vec<u64> = BAND_N6
            .lines()
            .map(|l| l.trim().parse().expect("data/band-n6.txt holds numbers"))
            .collect();
        assert_eq!(n6.len(), catalogue.len(), "data/band-n6.txt has 416 lines");
        let mut order: Vec<usize> = (0..n6.len()).collect();
        order.sort_by_key(|&k| (n6[k], k));
        let mut rank = vec![0u16; n6.len()];
        for (r, &k) in order.iter().enumerate() {
            rank[k] = r as u16;
        }
        let automorphisms = (0..catalogue.len())
            .map(|k| {
                catalogue
                    .automorphisms(k)
                    .iter()
                    .map(|a| {
                        let dest = std::array::from_fn(|j| a.cells[j] % 9);
                        ColumnMap {
                            dest,
                            digits: a.digits,
                        }
                    })
                    .collect()
            })
            .collect();
        Ed {
            catalogue,
            index,
            rank,
            n6,
            automorphisms,
        }
    }

    /// The band catalogue.
    pub fn catalogue(&self) -> &BandCatalogue {
        &self.catalogue
    }

    /// The fast band index.
    pub fn index(&self) -> &BandIndex {
        &self.index
    }

    /// Position of band class `k` in the band order (0..416).
    pub fn rank(&self, k: usize) -> usize {
        self.rank[k] as usize
    }

    /// Valid 6-clue sets of band class `k`.
    pub fn n6(&self, k: usize) -> u64 {
        self.n6[k]
    }

    /// Number of automorphisms of catalogue band `k`.
    pub fn band_automorphisms(&self, k: usize) -> usize {
        self.automorphisms[k].len()
    }

    /// The class of band 2 when it makes an entry of slice `k` (rank ≥
    /// band 1's, smallest of its images under band 1's automorphisms).
    pub fn entry_class(&self, k: usize, band2: &Band) -> Option<usize> {
        let c2 = self.index.class_of(band2);
        if self.rank[c2] < self.rank[k] {
            return None;
        }
        for a in &self.automorphisms[k][1..] {
            if a.apply(band2) < *band2 {
                return None;
            }
        }
        Some(c2)
    }

    /// Calls `f` with every hi-form of a grid (see the module note) as the
    /// map, the two bands it moves into bands 2 and 3, band 1's class and
    /// the orientation and roles, until `f` returns false.
    fn for_each_hi_form(
        &self,
        grid: &[u8; 81],
        mut f: impl FnMut(&ColumnMap, &Band, &Band, usize, bool, [usize; 3]) -> bool,
    ) {
        let bands = six_bands(grid);
        let mut ranks = [[0usize; 3]; 2];
        for o in 0..2 {
            for i in 0..3 {
                ranks[o][i] = self.rank(self.index.class_of(&bands[o][i]));
            }
        }
        let lowest = *ranks.iter().flatten().min().expect("six bands");
        for o in 0..2 {
            for i in 0..3 {
                if ranks[o][i] != lowest {
                    continue;
                }
                let id = self.index.identify(&bands[o][i]);
                let onto = ColumnMap::onto_catalogue(&id);
                let (j, k) = ((i + 1) % 3, (i + 2) % 3);
                let orders: &[(usize, usize)] = match ranks[o][j].cmp(&ranks[o][k]) {
                    std::cmp::Ordering::Less => &[(j, k)],
                    std::cmp::Ordering::Greater => &[(k, j)],
                    std::cmp::Ordering::Equal => &[(j, k), (k, j)],
                };
                for a in &self.automorphisms[id.index] {
                    let map = onto.then(a);
                    for &(j, k) in orders {
                        if !f(
                            &map,
                            &bands[o][j],
                            &bands[o][k],
                            id.index,
                            o == 1,
                            [i, j, k],
                        ) {
                            return;
                        }
                    }
                }
            }
        }
    }

    /// The canonical hi-form of a grid (any orientation or labelling).
    pub fn hi_form(&self, grid: &[u8; 81]) -> HiForm {
        let mut best: Option<HiForm> = None;
        self.for_each_hi_form(grid, |map, band2, band3, class, transposed, roles| {
            let key = join(&map.apply(band2), &map.apply(band3));
            match &mut best {
                Some(b) if key == b.key => b.automorphisms += 1,
                Some(b) if key > b.key => {}
                _ => {
                    best = Some(HiForm {
                        class,
                        key,
                        automorphisms: 1,
                        transposed,
                        roles,
                    })
                }
            }
            true
        });
        best.expect("a band of the lowest rank")
    }

    /// For a grid whose band 1 is catalogue band `k` and that is one of its
    /// hi-forms: its number of automorphisms if it is the canonical
    /// hi-form, else `None` (stops at the first smaller hi-form).
    pub fn own_hi_form(&self, grid: &[u8; 81]) -> Option<u32> {
        let (band2, band3) = (&grid[27..54], &grid[54..]);
        let mut automorphisms = 0;
        let mut smaller = false;
        self.for_each_hi_form(grid, |map, b2, b3, _, _, _| {
            let order = map
                .apply(b2)
                .as_slice()
                .cmp(band2)
                .then_with(|| map.apply(b3).as_slice().cmp(band3));
            match order {
                std::cmp::Ordering::Less => smaller = true,
                std::cmp::Ordering::Equal => automorphisms += 1,
                std::cmp::Ordering::Greater => {}
            }
            !smaller
        });
        debug_assert!(
            smaller || automorphisms > 0,
            "the grid is one of its hi-forms"
        );
        (!smaller).then_some(automorphisms)
    }

    /// For bands 2 and 3 under catalogue band `k`: how many of band `k`'s
    /// automorphisms leave them as they are, if none makes them smaller
    /// (else `None`).
    pub fn smallest_image(&self, k: usize, band2: &Band, band3: &Band) -> Option<u32> {
        let mut same = 1;
        for a in &self.automorphisms[k][1..] {
            let order = a
                .apply(band2)
                .cmp(band2)
                .then_with(|| a.apply(band3).cmp(band3));
            match order {
                std::cmp::Ordering::Less => return None,
                std::cmp::Ordering::Equal => same += 1,
                std::cmp::Ordering::Greater => {}
            }
        }
        Some(same)
    }

    /// The three visits of a grid's ED class: hi, mid, lo (see the module
    /// note).
    pub fn visits(&self, grid: &[u8; 81]) -> [Visit; 3] {
        let hi = self.hi_form(grid);
        self.visits_of(&hi)
    }

    /// The three visits from a canonical hi-form.
    pub fn visits_of(&self, hi: &HiForm) -> [Visit; 3] {
        let (lo_band, rest) = (self.catalogue.band(hi.class), &hi.key);
        let mid_band = &rest[..27];
        let hi_band = &rest[27..];
        let smallest = |maps: &mut dyn Iterator<Item = ColumnMap>, b2: &[u8], b3: &[u8]| {
            maps.map(|m| join(&m.apply(b2), &m.apply(b3)))
                .min()
                .expect("the identity at least")
        };
        let mid_key = smallest(
            &mut self.automorphisms[hi.class].iter().copied(),
            hi_band,
            mid_band,
        );
        let mut mid_as_band = [0u8; 27];
        mid_as_band.copy_from_slice(mid_band);
        let id = self.index.identify(&mid_as_band);
        let onto = ColumnMap::onto_catalogue(&id);
        let lo_key = smallest(
            &mut self.automorphisms[id.index].iter().map(|a| onto.then(a)),
            hi_band,
            lo_band,
        );
        [
            Visit {
                choice: Rank::Hi,
                class: hi.class,
                key: hi.key,
            },
            Visit {
                choice: Rank::Mid,
                class: hi.class,
                key: mid_key,
            },
            Visit {
                choice: Rank::Lo,
                class: id.index,
                key: lo_key,
            },
        ]
    }
}

impl Default for Ed {
    fn default() -> Self {
        Ed::new()
    }
}

/// The six bands of a grid: `[0]` its row bands, `[1]` its stacks read as
/// bands (the bands of the transposed grid).
pub fn six_bands(grid: &[u8; 81]) -> [[Band; 3]; 2] {
    let mut out = [[[0u8; 27]; 3]; 2];
    for b in 0..3 {
        out[0][b].copy_from_slice(&grid[27 * b..27 * b + 27]);
        out[1][b] = stack_band(grid, b);
    }
    out
}

/// Stack `s` of a grid read as a band: its row `r` is column `3s + r`.
#[inline]
pub fn stack_band(grid: &[u8; 81], s: usize) -> Band {
    let mut band = [0u8; 27];
    for r in 0..3 {
        for c in 0..9 {
            band[9 * r + c] = grid[9 * c + 3 * s + r];
        }
    }
    band
}

/// Bands 2 and 3 side by side.
fn join(band2: &Band, band3: &Band) -> Key {
    let mut key = [0u8; 54];
    key[..27].copy_from_slice(band2);
    key[27..].copy_from_slice(band3);
    key
}

/// A grid from its band 1 and the key.
pub fn compose(band1: &Band, key: &Key) -> [u8; 81] {
    let mut grid = [0u8; 81];
    grid[..27].copy_from_slice(band1);
    grid[27..].copy_from_slice(key);
    grid
}

#[cfg(test)]
mod tests;
