//! Fast band identification: the catalogue index and the cell and digit
//! maps of any band in a few tens of nanoseconds (a table lookup), where
//! [`BandCatalogue::identify`] tries all 7,776 transforms (~200 µs).
//!
//! Relabel a band so that its first row reads `123456789`: the result is one
//! of the 2,612,736 *normalised* bands, and every normalised band has a dense
//! number ([`BandIndex::number`]):
//!
//! ```text
//! number = (pattern · 216 + orders of row 1) · 216 + orders of row 2
//! ```
//!
//! where `pattern` (0..56) says which three digits row 1 holds in each box
//! (box 0 takes three of 4..9, box 1 three of 1,2,3,7,8,9, box 2 the rest),
//! and the orders are the order (0..6) of the digits inside each of the three
//! mini-rows, box 0 first. [`BandIndex::new`] fills a table of one `u32` per
//! number (10 MiB, about 0.2 s) by moving every catalogue band by every one
//! of the 6 row orders × 1,296 column orders: an entry holds the catalogue
//! index (bits 0..9) and which transform reaches it (bits 9..22).

use super::super::band::catalogue::{column_orders, transform};
use crate::band::{Band, BandCatalogue, BandId};
use crate::grid::PERMS3;

/// Number of normalised bands (first row `123456789`).
pub const NORMALISED: usize = 2_612_736;

const EMPTY: u32 = u32::MAX;
const INDEX_BITS: u32 = 9;

/// The lookup table behind fast identification. Build it once and pass it
/// around.
pub struct BandIndex {
    table: Vec<u32>,
    /// The catalogue index alone, per number: half the table's size, for
    /// [`Self::class_of`], which runs for every band of every grid walked.
    classes: Vec<u16>,
    /// Per block of 216 numbers (the bands that share rows 1-2), their
    /// largest class: [`Self::max_class_under`].
    block_max: Vec<u16>,
    column_orders: Vec<[u8; 9]>,
    /// `pattern_of[subset0 * 84 + subset1]`: the pattern number of row 1's
    /// box-0 and box-1 digit sets (ranks among the 84 three-digit subsets),
    /// or `u8::MAX`.
    pattern_of: Vec<u8>,
    /// Rank (0..84) of each 3-digit subset of 1..=9, by its 9-bit mask.
    subset_rank: [u8; 512],
    minlex: Vec<Band>,
}

impl BandIndex {
    /// Builds the table from the catalogue's 416 bands (about 0.2 s).
    pub fn new(catalogue: &BandCatalogue) -> BandIndex {
        let mut subset_rank = [u8::MAX; 512];
        let mut rank = 0u8;
        for mask in 0..512u32 {
            if mask.count_ones() == 3 {
                subset_rank[mask as usize] = rank;
                rank += 1;
            }
        }
        let mut pattern_of = vec![u8::MAX; 84 * 84];
        let mut patterns = 0u8;
        for mask0 in 0..512usize {
            for mask1 in 0..512usize {
                if subset_rank[mask0] == u8::MAX || subset_rank[mask1] == u8::MAX {
                    continue;
                }
                // Row 0 is 123456789: box b of row 1 avoids 3b+1..3b+3
                // (mask bits 3b..3b+3), and the boxes take disjoint digits.
                let mask2 = 0x1ff & !(mask0 | mask1);
                if mask0 & 0o007 != 0
                    || mask1 & 0o070 != 0
                    || mask0 & mask1 != 0
                    || mask2 & 0o700 != 0
                {
                    continue;
                }
                pattern_of[subset_rank[mask0] as usize * 84 + subset_rank[mask1] as usize] =
                    patterns;
                patterns += 1;
            }
        }
        assert_eq!(patterns, 56, "56 patterns of row 1");
        let mut index = BandIndex {
            table: vec![EMPTY; NORMALISED],
            classes: Vec::new(),
            block_max: Vec::new(),
            column_orders: column_orders(),
            pattern_of,
            subset_rank,
            minlex: catalogue.bands().to_vec(),
        };
        // Each catalogue band's images in parallel, then the table filled in
        // catalogue and transform order (the first transform reaching a
        // normalised band is kept, whatever the thread count).
        use rayon::prelude::*;
        let images: Vec<Vec<(u32, u32)>> = catalogue
            .bands()
            .par_iter()
            .enumerate()
            .map(|(k, band)| {
                let mut out = Vec::with_capacity(7776);
                for (r, rows) in PERMS3.iter().enumerate() {
                    for (c, cols) in index.column_orders.iter().enumerate() {
                        let (image, _) = transform(band, rows, cols);
                        let t = (r * 1296 + c) as u32;
                        out.push((
                            index.number_of_normalised(&image) as u32,
                            k as u32 | t << INDEX_BITS,
                        ));
                    }
                }
                out
            })
            .collect();
        let mut filled = 0usize;
        for (number, entry) in images.into_iter().flatten() {
            let slot = &mut index.table[number as usize];
            if *slot == EMPTY {
                *slot = entry;
                filled += 1;
            }
        }
        assert_eq!(filled, NORMALISED, "every normalised band is reached");
        index.classes = index
            .table
            .iter()
            .map(|&entry| (entry & ((1 << INDEX_BITS) - 1)) as u16)
            .collect();
        index.block_max = index
            .classes
            .chunks(216)
            .map(|block| block.iter().copied().max().unwrap_or(0))
            .collect();
        index
    }

    /// The dense number of a band whose first row is `123456789`.
    #[inline(always)]
    fn number_of_normalised(&self, band: &Band) -> usize {
        let mask = |row: usize, stack: usize| -> usize {
            let base = 9 * row + 3 * stack;
            (1usize << (band[base] - 1)) | (1 << (band[base + 1] - 1)) | (1 << (band[base + 2] - 1))
        };
        let pattern = self.pattern_of
            [self.subset_rank[mask(1, 0)] as usize * 84 + self.subset_rank[mask(1, 1)] as usize];
        debug_assert!(pattern != u8::MAX, "not a normalised band");
        let mut number = pattern as usize;
        for row in 1..3 {
            let mut orders = 0;
            for stack in 0..3 {
                let base = 9 * row + 3 * stack;
                orders = orders * 6 + order3(band[base], band[base + 1], band[base + 2]);
            }
            number = number * 216 + orders;
        }
        number
    }

    /// The band relabelled so its first row reads `123456789`, and the
    /// relabelling's inverse (`first_row[d - 1]` is the band digit that
    /// became `d`).
    #[inline]
    fn normalise(band: &Band) -> (Band, [u8; 9]) {
        let mut label = [0u8; 10];
        for j in 0..9 {
            label[band[j] as usize] = j as u8 + 1;
        }
        let mut out = [0u8; 27];
        for (o, &d) in out.iter_mut().zip(band.iter()) {
            *o = label[d as usize];
        }
        let mut first_row = [0u8; 9];
        first_row.copy_from_slice(&band[..9]);
        (out, first_row)
    }

    /// The number of a valid band's normalised form: [`Self::class_at`]
    /// gives its class. Computing the numbers of many bands first and
    /// looking them up after lets the table's cache misses overlap.
    #[inline]
    pub fn number(&self, band: &Band) -> u32 {
        self.number_with(|i| band[i])
    }

    /// [`Self::number`] of the band whose cell `i` (row-major) is
    /// `cell(i)`: the same without building the band (a stack read in
    /// place, for instance). The relabelling is applied as the cells are
    /// read: `label[d]` is the 0-based column of `d` in row 1.
    #[inline(always)]
    pub fn number_with(&self, cell: impl Fn(usize) -> u8) -> u32 {
        let (label, rows12) = self.rows12(&cell);
        (rows12 * 216 + row_orders(&label, &cell, 2)) as u32
    }

    /// What rows 1 and 2 of the band whose cell `i` is `cell(i)` decide:
    /// the relabelling (`label[d]`, the 0-based column of `d` in row 1)
    /// and the number's leading part, `pattern · 216 + orders of row 2`
    /// (the bands sharing rows 1 and 2 fill the block of 216 numbers
    /// after `216 ×` it).
    #[inline(always)]
    fn rows12(&self, cell: &impl Fn(usize) -> u8) -> ([u8; 10], usize) {
        let mut label = [0u8; 10];
        for j in 0..9 {
            label[cell(j) as usize] = j as u8;
        }
        let l = |i: usize| label[cell(i) as usize];
        let mask = |base: usize| (1usize << l(base)) | (1 << l(base + 1)) | (1 << l(base + 2));
        let pattern = self.pattern_of
            [self.subset_rank[mask(9)] as usize * 84 + self.subset_rank[mask(12)] as usize];
        debug_assert!(pattern != u8::MAX, "not two rows of a band");
        (label, pattern as usize * 216 + row_orders(&label, cell, 1))
    }

    /// [`Self::number_with`] of the 36 bands that read `cell(i)` but in
    /// the last box of rows 2 and 3 (cells 15-17 and 24-26), which hold
    /// `row2`'s and `row3`'s digits in every order: `out[6 p + q]` with
    /// cell `15 + k` holding `row2[PERMS3[p][k]]` and cell `24 + k`
    /// `row3[PERMS3[q][k]]`. Those cells only move the orders of the last
    /// stack in rows 2 and 3, the number's two last base-6 digits of its
    /// two last base-216 ones: one number computed, the others derived.
    #[inline]
    pub fn numbers_of_last_box(
        &self,
        cell: impl Fn(usize) -> u8,
        row2: [u8; 3],
        row3: [u8; 3],
        out: &mut [u32; 36],
    ) {
        let at = |row: &[u8; 3], p: usize, k: usize| row[PERMS3[p][k] as usize];
        let first = |i: usize| match i {
            15..18 => at(&row2, 0, i - 15),
            24..27 => at(&row3, 0, i - 24),
            _ => cell(i),
        };
        let (label, rows12) = self.rows12(&first);
        let base = (rows12 * 216 + row_orders(&label, &first, 2)) as u32;
        let order = |row: &[u8; 3], p: usize| {
            let l = |k: usize| label[at(row, p, k) as usize];
            order3(l(0), l(1), l(2)) as u32
        };
        let base = base - 216 * order(&row2, 0) - order(&row3, 0);
        for p in 0..6 {
            let high = base + 216 * order(&row2, p);
            for q in 0..6 {
                out[6 * p + q] = high + order(&row3, q);
            }
        }
    }

    /// What rows 1 and 2 of the band whose cell `i` is `cell(i)` (cells
    /// 0-17) decide: the relabelling (`label[d]`, the 0-based column of `d`
    /// in row 1) and the block of the numbers of the bands under them:
    /// such a band's number is `216 × block + o1 · 36 + o2 · 6 + o3`,
    /// `o_s` the [`order3`] of its row 3's relabelled digits in stack `s`.
    #[inline]
    pub fn block_under(&self, cell: impl Fn(usize) -> u8) -> ([u8; 10], usize) {
        self.rows12(&cell)
    }

    /// The largest class of the valid bands of a block
    /// ([`Self::block_under`]).
    #[inline]
    pub fn max_class_of_block(&self, block: usize) -> usize {
        self.block_max[block] as usize
    }

    /// The largest class of the valid bands whose rows 1 and 2 read
    /// `cell(i)` (cells 0-17): their numbers differ in row 3's orders
    /// alone, the last base-216 digit, so they fill one block of 216.
    #[inline]
    pub fn max_class_under(&self, cell: impl Fn(usize) -> u8) -> usize {
        self.block_max[self.rows12(&cell).1] as usize
    }

    /// The catalogue index of the bands with this [`Self::number`].
    #[inline]
    pub fn class_at(&self, number: u32) -> usize {
        self.classes[number as usize] as usize
    }

    /// The catalogue index of a valid band.
    #[inline]
    pub fn class_of(&self, band: &Band) -> usize {
        self.class_at(self.number(band))
    }

    /// The catalogue index of a valid band and the maps from the catalogue
    /// band to it, as [`BandCatalogue::identify`] gives them:
    /// `band[id.cells[i]] == id.digits[catalogue[i]]`.
    pub fn identify(&self, band: &Band) -> BandId {
        let (normalised, first_row) = Self::normalise(band);
        let entry = self.table[self.number_of_normalised(&normalised)];
        let index = (entry & ((1 << INDEX_BITS) - 1)) as usize;
        let t = (entry >> INDEX_BITS) as usize;
        let rows = &PERMS3[t / 1296];
        let cols = &self.column_orders[t % 1296];
        // The normalised band is `transform(catalogue band, rows, cols)`:
        // its cell (r, j) is catalogue cell (rows[r], cols[j]).
        let catalogue = &self.minlex[index];
        let mut cells = [0u8; 27];
        for r in 0..3 {
            for j in 0..9 {
                cells[9 * rows[r] as usize + cols[j] as usize] = (9 * r + j) as u8;
            }
        }
        // `transform` relabels catalogue digit catalogue[top + cols[j]] to
        // j + 1, which the band holds as first_row[j].
        let mut digits = [0u8; 10];
        let top = 9 * rows[0] as usize;
        for j in 0..9 {
            digits[catalogue[top + cols[j] as usize] as usize] = first_row[j];
        }
        BandId {
            index,
            cells,
            digits,
        }
    }
}

/// The orders (0..6) of the relabelled digits inside each box of row
/// `row` (0-based) of the band whose cell `i` is `cell(i)`, as three
/// base-6 digits.
#[inline(always)]
fn row_orders(label: &[u8; 10], cell: &impl Fn(usize) -> u8, row: usize) -> usize {
    let l = |i: usize| label[cell(i) as usize];
    let mut orders = 0;
    for stack in 0..3 {
        let base = 9 * row + 3 * stack;
        orders = orders * 6 + order3(l(base), l(base + 1), l(base + 2));
    }
    orders
}

/// The order (0..6) of three distinct digits: 2 · (rank of the first) +
/// (whether the third is below the second).
#[inline]
pub fn order3(a: u8, b: u8, c: u8) -> usize {
    2 * ((b < a) as usize + (c < a) as usize) + (c < b) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::band::is_valid_band;

    fn random_band(rng: &mut fastrand::Rng) -> Band {
        let grid = crate::generate::random_grid(rng);
        let mut band = [0u8; 27];
        band.copy_from_slice(&grid.digits()[27 * rng.usize(0..3)..][..27]);
        band
    }

    #[test]
    fn agrees_with_the_slow_identification() {
        let catalogue = BandCatalogue::new();
        let index = BandIndex::new(&catalogue);
        let mut rng = fastrand::Rng::with_seed(5);
        for _ in 0..300 {
            let band = random_band(&mut rng);
            assert!(is_valid_band(&band));
            let fast = index.identify(&band);
            let slow = catalogue.identify(&band);
            assert_eq!(fast.index, slow.index);
            assert_eq!(index.class_of(&band), slow.index);
            let (normalised, _) = BandIndex::normalise(&band);
            assert_eq!(
                index.number(&band) as usize,
                index.number_of_normalised(&normalised)
            );
            let minlex = catalogue.band(fast.index);
            for i in 0..27 {
                assert_eq!(
                    band[fast.cells[i] as usize],
                    fast.digits[minlex[i] as usize]
                );
            }
        }
        for (k, band) in catalogue.bands().iter().enumerate() {
            assert_eq!(index.class_of(band), k);
        }
    }

    #[test]
    fn numbers_of_the_last_box_orders_equal_the_plain_numbers() {
        let catalogue = BandCatalogue::new();
        let index = BandIndex::new(&catalogue);
        let mut rng = fastrand::Rng::with_seed(36);
        for _ in 0..200 {
            let band = random_band(&mut rng);
            let sorted = |at: usize| {
                let mut row = [band[at], band[at + 1], band[at + 2]];
                row.sort_unstable();
                row
            };
            let (row2, row3) = (sorted(15), sorted(24));
            let mut out = [0u32; 36];
            index.numbers_of_last_box(|i| band[i], row2, row3, &mut out);
            for p in 0..6 {
                for q in 0..6 {
                    let mut other = band;
                    for k in 0..3 {
                        other[15 + k] = row2[PERMS3[p][k] as usize];
                        other[24 + k] = row3[PERMS3[q][k] as usize];
                    }
                    assert_eq!(out[6 * p + q], index.number(&other));
                }
            }
        }
    }

    #[test]
    fn the_largest_class_under_two_rows_bounds_every_third_row() {
        let catalogue = BandCatalogue::new();
        let index = BandIndex::new(&catalogue);
        let mut rng = fastrand::Rng::with_seed(216);
        for _ in 0..200 {
            let band = random_band(&mut rng);
            let max = index.max_class_under(|i| band[i]);
            let mut seen = 0;
            for p in 0..216 {
                let mut other = band;
                for box_ in 0..3 {
                    let perm = PERMS3[[p / 36, p / 6 % 6, p % 6][box_]];
                    for k in 0..3 {
                        other[18 + 3 * box_ + k] = band[18 + 3 * box_ + perm[k] as usize];
                    }
                }
                seen = seen.max(index.class_of(&other));
            }
            assert_eq!(max, seen);
        }
    }
}
