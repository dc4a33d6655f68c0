//! The band catalogue: the 416 essentially different bands in minlex form.
//!
//! Two bands are equivalent when one becomes the other by relabelling digits,
//! reordering the 3 rows, reordering the 3 stacks and reordering the columns
//! inside each stack (6 · 6 · 6³ = 7,776 cell permutations, each followed by
//! the relabelling that makes the first row read `123456789`). The minlex form
//! of a band is the smallest of the 7,776 results, compared as 27-digit
//! strings; the catalogue lists the minlex forms in increasing order.
//!
//! The catalogue is generated, never pasted by hand: [`BandCatalogue::generate`]
//! visits every band whose first row is `123456789` in increasing order
//! (2,612,736 of them); the first one not yet seen is the minlex form of a
//! new class, and its whole class (at most 7,776 bands) is marked seen in a
//! bitmap. That takes about 0.3 s, so its output, the 416 minlex bands, is
//! committed as `data/bands416.txt` (a test regenerates it and compares), and
//! [`BandCatalogue::new`] reads that list. The automorphisms of each band
//! (the cell maps that take it to itself) are computed either way.
//!
//! A transform is described by the [`BandId`] convention: `cells[i]` is the
//! cell of the target band that catalogue cell `i` maps to, and
//! `digits[c]` is the target digit of catalogue digit `c`, so that
//! `target[cells[i]] == digits[catalogue[i]]` for every cell `i`.

use super::{Band, band_to_string, is_valid_band};
use crate::grid::PERMS3;
/// The 1,296 column orders that keep each stack's columns together.
pub(crate) use crate::grid::line_orders as column_orders;

/// Number of bands whose first row is `123456789`.
pub const NORMALISED_BANDS: usize = 2_612_736;

/// Number of cell permutations of a band that keep it a band.
pub const BAND_TRANSFORMS: usize = 7_776;

/// Where a band sits in the catalogue, and how the catalogue band maps to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BandId {
    /// Index in the catalogue (minlex order).
    pub index: usize,
    /// `cells[i]`: the cell of the band that catalogue cell `i` maps to.
    pub cells: [u8; 27],
    /// `digits[c]`: the band digit of catalogue digit `c` (`digits[0] == 0`).
    pub digits: [u8; 10],
}

impl BandId {
    /// A mask in catalogue coordinates, moved to the band's cells.
    pub fn to_band_mask(&self, catalogue_mask: u32) -> u32 {
        let mut out = 0;
        for cell in crate::bits::cells(catalogue_mask) {
            out |= 1 << self.cells[cell];
        }
        out
    }

    /// A mask of the band's cells, moved to catalogue coordinates.
    pub fn to_catalogue_mask(&self, band_mask: u32) -> u32 {
        let mut out = 0;
        for (catalogue_cell, &cell) in self.cells.iter().enumerate() {
            if band_mask >> cell & 1 != 0 {
                out |= 1 << catalogue_cell;
            }
        }
        out
    }
}

/// A cell and digit map that takes a catalogue band to itself:
/// `band[cells[i]] == digits[band[i]]` for every cell `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Automorphism {
    pub cells: [u8; 27],
    pub digits: [u8; 10],
}

/// The number of essentially different bands: the bands of the band
/// catalogue, the slices of the ED catalogue, the bands of a complete
/// band table file. Name it by this constant wherever it means that.
pub const BANDS: usize = 416;

/// The 416 minlex bands, their automorphisms, and the transforms used to
/// identify any band. Build it once and pass it around.
pub struct BandCatalogue {
    bands: Vec<Band>,
    automorphisms: Vec<Vec<Automorphism>>,
    /// The 1,296 column orders that keep stacks together: result column `j`
    /// is source column `column_orders[k][j]`.
    column_orders: Vec<[u8; 9]>,
}

impl Default for BandCatalogue {
    fn default() -> Self {
        BandCatalogue::new()
    }
}

/// The 416 minlex bands in minlex order, one per line: the output of
/// [`BandCatalogue::generate`] (the test `committed_list_is_generated`
/// checks it).
const MINLEX_BANDS: &str = include_str!("../../data/bands416.txt");

impl BandCatalogue {
    /// The catalogue from the committed list of minlex bands, with the
    /// automorphisms of each (a few milliseconds).
    pub fn new() -> BandCatalogue {
        let column_orders = column_orders();
        let bands: Vec<Band> = MINLEX_BANDS
            .lines()
            .map(|line| super::parse_band(line).expect("data/bands416.txt holds valid bands"))
            .collect();
        assert_eq!(
            bands.len(),
            BANDS,
            "data/bands416.txt holds the 416 minlex bands"
        );
        let automorphisms = bands
            .iter()
            .map(|band| automorphisms_of(band, &column_orders))
            .collect();
        BandCatalogue {
            bands,
            automorphisms,
            column_orders,
        }
    }

    /// Generates the catalogue from scratch (about 0.3 s in release): the
    /// oracle of the committed list that [`Self::new`] reads.
    pub fn generate() -> BandCatalogue {
        let column_orders = column_orders();
        let mut seen = vec![0u64; (362_880 * 216usize).div_ceil(64)];
        let mut bands = Vec::new();
        let mut automorphisms = Vec::new();
        let mut band = [0u8; 27];
        for (cell, digit) in band.iter_mut().take(9).zip(1..) {
            *cell = digit;
        }
        let mut used = Used::first_row();
        let mut visit = |band: &Band| {
            let index = normalised_index(band);
            if seen[index / 64] >> (index % 64) & 1 != 0 {
                return;
            }
            let mut autos = Vec::new();
            for rows in &PERMS3 {
                for cols in &column_orders {
                    let (image, digits) = transform(band, rows, cols);
                    let i = normalised_index(&image);
                    seen[i / 64] |= 1 << (i % 64);
                    if image == *band {
                        autos.push(Automorphism {
                            cells: cell_map(rows, cols),
                            digits,
                        });
                    }
                }
            }
            bands.push(*band);
            automorphisms.push(autos);
        };
        fill_normalised(&mut band, 9, &mut used, &mut visit);
        BandCatalogue {
            bands,
            automorphisms,
            column_orders,
        }
    }

    /// Number of catalogue bands (416).
    pub fn len(&self) -> usize {
        self.bands.len()
    }

    /// Always false: the catalogue is never empty.
    pub fn is_empty(&self) -> bool {
        self.bands.is_empty()
    }

    /// Catalogue band `index`, in minlex form.
    pub fn band(&self, index: usize) -> &Band {
        &self.bands[index]
    }

    /// All catalogue bands, in increasing (minlex) order.
    pub fn bands(&self) -> &[Band] {
        &self.bands
    }

    /// The automorphisms of catalogue band `index`, the identity first.
    pub fn automorphisms(&self, index: usize) -> &[Automorphism] {
        &self.automorphisms[index]
    }

    /// The minlex form of any valid band.
    ///
    /// # Panics
    /// If `band` is not a valid band (see [`is_valid_band`]).
    pub fn minlex(&self, band: &Band) -> Band {
        self.canonical(band).0
    }

    /// The catalogue index of a valid band and the maps from the catalogue
    /// band to it: `band[id.cells[i]] == id.digits[catalogue[i]]`.
    ///
    /// # Panics
    /// If `band` is not a valid band (see [`is_valid_band`]).
    pub fn identify(&self, band: &Band) -> BandId {
        let (minlex, rows, cols, label) = self.canonical(band);
        let index = self
            .bands
            .binary_search(&minlex)
            .unwrap_or_else(|_| panic!("minlex band {} missing", band_to_string(&minlex)));
        let mut digits = [0u8; 10];
        for d in 1..=9u8 {
            digits[label[d as usize] as usize] = d;
        }
        BandId {
            index,
            cells: cell_map(&rows, &cols),
            digits,
        }
    }

    /// The smallest image of `band` under the 7,776 transforms, with the
    /// row order, column order and relabelling (band digit → minlex digit)
    /// that give it.
    fn canonical(&self, band: &Band) -> (Band, [u8; 3], [u8; 9], [u8; 10]) {
        assert!(
            is_valid_band(band),
            "not a valid band: {}",
            band_to_string(band)
        );
        let mut best = [10u8; 27];
        let mut best_rows = PERMS3[0];
        let mut best_cols = self.column_orders[0];
        let mut best_label = [0u8; 10];
        for rows in &PERMS3 {
            let top = &band[9 * rows[0] as usize..][..9];
            let middle = &band[9 * rows[1] as usize..][..9];
            let bottom = &band[9 * rows[2] as usize..][..9];
            for cols in &self.column_orders {
                let mut label = [0u8; 10];
                for (j, &c) in cols.iter().enumerate() {
                    label[top[c as usize] as usize] = j as u8 + 1;
                }
                // Row 0 of every image is 123456789: compare rows 1 and 2.
                let mut less = false;
                for (k, &c) in cols.iter().chain(cols.iter()).enumerate() {
                    let row = if k < 9 { middle } else { bottom };
                    let d = label[row[c as usize] as usize];
                    if d != best[9 + k] {
                        less = d < best[9 + k];
                        break;
                    }
                }
                if less {
                    best = transform(band, rows, cols).0;
                    best_rows = *rows;
                    best_cols = *cols;
                    best_label = label;
                }
            }
        }
        (best, best_rows, best_cols, best_label)
    }
}

/// The transforms that take a band with first row `123456789` to itself,
/// in the order [`BandCatalogue::generate`] meets them (the identity first).
fn automorphisms_of(band: &Band, column_orders: &[[u8; 9]]) -> Vec<Automorphism> {
    let mut autos = Vec::new();
    for rows in &PERMS3 {
        let top = 9 * rows[0] as usize;
        for cols in column_orders {
            // The relabelling that makes row 0 of the image read
            // 123456789, and its inverse.
            let (mut label, mut digits) = ([0u8; 10], [0u8; 10]);
            for (j, &c) in cols.iter().enumerate() {
                let d = band[top + c as usize];
                label[d as usize] = j as u8 + 1;
                digits[j + 1] = d;
            }
            // Row 0 then matches the band's: compare rows 1 and 2,
            // stopping at the first difference.
            let same = (1..3).all(|r| {
                let source = 9 * rows[r] as usize;
                (0..9).all(|j| label[band[source + cols[j] as usize] as usize] == band[9 * r + j])
            });
            if same {
                autos.push(Automorphism {
                    cells: cell_map(rows, cols),
                    digits,
                });
            }
        }
    }
    autos
}

/// Result cell `9r + j` comes from source cell `9 rows[r] + cols[j]`.
fn cell_map(rows: &[u8; 3], cols: &[u8; 9]) -> [u8; 27] {
    let mut cells = [0u8; 27];
    for r in 0..3 {
        for j in 0..9 {
            cells[9 * r + j] = 9 * rows[r] + cols[j];
        }
    }
    cells
}

/// The band moved by (rows, cols) and relabelled so its first row reads
/// `123456789`, with the map from the result's digits to the source's.
pub(crate) fn transform(band: &Band, rows: &[u8; 3], cols: &[u8; 9]) -> (Band, [u8; 10]) {
    let mut label = [0u8; 10];
    let mut digits = [0u8; 10];
    let top = 9 * rows[0] as usize;
    for (j, &c) in cols.iter().enumerate() {
        let d = band[top + c as usize];
        label[d as usize] = j as u8 + 1;
        digits[j + 1] = d;
    }
    let mut out = [0u8; 27];
    for r in 0..3 {
        for j in 0..9 {
            out[9 * r + j] = label[band[9 * rows[r] as usize + cols[j] as usize] as usize];
        }
    }
    (out, digits)
}

/// Digits used so far while filling a band cell by cell.
struct Used {
    rows: [u16; 3],
    columns: [u16; 9],
    boxes: [u16; 3],
}

impl Used {
    fn first_row() -> Used {
        let mut used = Used {
            rows: [0; 3],
            columns: [0; 9],
            boxes: [0; 3],
        };
        for c in 0..9 {
            let bit = 1 << (c + 1);
            used.rows[0] |= bit;
            used.columns[c] |= bit;
            used.boxes[c / 3] |= bit;
        }
        used
    }
}

/// Visits every band with first row `123456789` in increasing order, by
/// filling cells `cell..27` with increasing digits.
fn fill_normalised(band: &mut Band, cell: usize, used: &mut Used, visit: &mut impl FnMut(&Band)) {
    if cell == 27 {
        visit(band);
        return;
    }
    let (row, col, stack) = (cell / 9, cell % 9, (cell % 9) / 3);
    let taken = used.rows[row] | used.columns[col] | used.boxes[stack];
    for d in 1..=9u8 {
        let bit = 1u16 << d;
        if taken & bit != 0 {
            continue;
        }
        band[cell] = d;
        used.rows[row] |= bit;
        used.columns[col] |= bit;
        used.boxes[stack] |= bit;
        fill_normalised(band, cell + 1, used, visit);
        used.rows[row] ^= bit;
        used.columns[col] ^= bit;
        used.boxes[stack] ^= bit;
    }
}

/// A dense index (< 9! · 216) of a band whose first row is `123456789`:
/// the rank of row 1 as a permutation, then the order of each row-2
/// mini-row among the 6 orders of its digits.
fn normalised_index(band: &Band) -> usize {
    let row1 = &band[9..18];
    let mut rank = 0usize;
    for i in 0..9 {
        let smaller_after = row1[i + 1..].iter().filter(|&&d| d < row1[i]).count();
        rank = rank * (9 - i) + smaller_after;
    }
    for stack in 0..3 {
        let [a, b, c] = [
            band[18 + 3 * stack],
            band[19 + 3 * stack],
            band[20 + 3 * stack],
        ];
        let first = (b < a) as usize + (c < a) as usize;
        rank = rank * 6 + 2 * first + (c < b) as usize;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::band::parse_band;

    #[test]
    fn catalogue_has_416_classes_covering_every_normalised_band() {
        let catalogue = BandCatalogue::new();
        assert_eq!(catalogue.len(), 416);
        assert!(catalogue.bands().windows(2).all(|w| w[0] < w[1]));
        let covered: usize = (0..catalogue.len())
            .map(|i| BAND_TRANSFORMS / catalogue.automorphisms(i).len())
            .sum();
        assert_eq!(covered, NORMALISED_BANDS);
        for (i, band) in catalogue.bands().iter().enumerate() {
            assert_eq!(catalogue.minlex(band), *band);
            let id = catalogue.identify(band);
            assert_eq!(id.index, i);
            for a in catalogue.automorphisms(i) {
                for cell in 0..27 {
                    assert_eq!(band[a.cells[cell] as usize], a.digits[band[cell] as usize]);
                }
            }
        }
        let first = parse_band("123456789456789123789123456").unwrap();
        assert_eq!(*catalogue.band(0), first);
    }

    #[test]
    fn committed_list_is_generated() {
        // The oracle: the brute-force generation. Same bands, same
        // automorphisms in the same order.
        let generated = BandCatalogue::generate();
        let committed = BandCatalogue::new();
        assert_eq!(generated.bands(), committed.bands());
        for i in 0..generated.len() {
            assert_eq!(
                generated.automorphisms(i),
                committed.automorphisms(i),
                "band {i}"
            );
        }
    }

    #[test]
    fn normalised_index_is_injective_on_a_sample() {
        let catalogue = BandCatalogue::new();
        let mut seen = std::collections::HashSet::new();
        for band in catalogue.bands() {
            for cols in catalogue.column_orders.iter().step_by(7) {
                let (image, _) = transform(band, &[0, 1, 2], cols);
                seen.insert((normalised_index(&image), image));
            }
        }
        let indices: std::collections::HashSet<_> = seen.iter().map(|x| x.0).collect();
        assert_eq!(indices.len(), seen.len());
    }
}
