//! Filling bands: every band 2 under a band 1, every band 3 under bands 1+2.
//!
//! Both walks fill cells row by row with increasing digits, so they visit
//! their bands in increasing order (as 27-digit strings). Rows come in
//! *normal order*: increasing first digits (a band's rows can be reordered
//! freely, so each band is visited once, in this form).
//!
//! Band 2 under band 1: cell by cell with row, box and column masks. Band 3
//! under bands 1+2: column c must take the three digits missing from column
//! c; a row takes one digit of each column, chosen as a triple per stack (the
//! first two stacks' triples disjoint, the third forced); rows 0 and 1 fix
//! row 2.

use crate::band::Band;

/// Every band 2 that fits under `band1` (no digit repeats in a column of
/// bands 1+2), rows in normal order, in increasing order, until `visit`
/// returns false.
pub fn for_each_band2(band1: &Band, mut visit: impl FnMut(&Band) -> bool) {
    let mut columns = [0u16; 9];
    for (cell, &d) in band1.iter().enumerate() {
        columns[cell % 9] |= 1 << d;
    }
    let mut walk = Band2Walk {
        band: [0; 27],
        rows: [0; 3],
        boxes: [0; 3],
        columns,
    };
    walk.fill(0, &mut visit);
}

struct Band2Walk {
    band: Band,
    rows: [u16; 3],
    boxes: [u16; 3],
    columns: [u16; 9],
}

impl Band2Walk {
    /// False when the visit asked to stop.
    fn fill(&mut self, cell: usize, visit: &mut impl FnMut(&Band) -> bool) -> bool {
        if cell == 27 {
            return visit(&self.band);
        }
        let (row, col) = (cell / 9, cell % 9);
        let stack = col / 3;
        let mut free = 0x3fe & !(self.rows[row] | self.boxes[stack] | self.columns[col]);
        if col == 0 && row > 0 {
            // Normal order: first digits increase down the band.
            free &= !((2u16 << self.band[cell - 9]) - 1);
        }
        while free != 0 {
            let d = free.trailing_zeros() as u8;
            let bit = free & free.wrapping_neg();
            free ^= bit;
            self.band[cell] = d;
            self.rows[row] |= bit;
            self.boxes[stack] |= bit;
            self.columns[col] |= bit;
            let go_on = self.fill(cell + 1, visit);
            self.rows[row] ^= bit;
            self.boxes[stack] ^= bit;
            self.columns[col] ^= bit;
            if !go_on {
                return false;
            }
        }
        true
    }
}

/// The digits each column of band 3 must hold under bands 1+2 (54 digits,
/// row-major): bit `d` for digit `d`.
pub fn band3_columns(bands12: &[u8; 54]) -> [u16; 9] {
    let mut columns = [0x3feu16; 9];
    for (cell, &d) in bands12.iter().enumerate() {
        columns[cell % 9] &= !(1 << d);
    }
    columns
}

/// Every band 3 that completes bands 1+2 (54 digits, row-major), rows in
/// normal order, in increasing order.
///
/// Column `c` of band 3 holds exactly the three digits missing from column
/// `c` of bands 1+2; those of the three columns of a stack are disjoint, so
/// boxes take care of themselves, and once rows 0 and 1 are permutations,
/// row 2 (the last digit left in each column) is one too. A row takes one
/// digit of each column: it is chosen as a triple per stack, the first two
/// stacks' triples disjoint, the third stack's triple then forced (the
/// digits left, one in each of its columns, or no row).
pub fn for_each_band3(bands12: &[u8; 54], mut visit: impl FnMut(&Band)) {
    let columns = band3_columns(bands12);
    let mut band = [0u8; 27];
    // Normal order: row 0 opens with column 0's smallest digit, row 1 with
    // its middle one.
    for_each_row(&columns, &mut |row0| {
        let mut rest = columns;
        for c in 0..9 {
            rest[c] &= !(1 << row0[c]);
        }
        for_each_row(&rest, &mut |row1| {
            band[..9].copy_from_slice(row0);
            band[9..18].copy_from_slice(row1);
            for c in 0..9 {
                band[18 + c] = (rest[c] & !(1 << row1[c])).trailing_zeros() as u8;
            }
            visit(&band);
        });
    });
}

/// Every row (one digit of each column's set, nine different digits) whose
/// column 0 takes that column's smallest digit, in increasing order.
#[inline]
fn for_each_row(columns: &[u16; 9], visit: &mut impl FnMut(&[u8; 9])) {
    let mut row = [0u8; 9];
    let first = columns[0] & columns[0].wrapping_neg();
    row[0] = first.trailing_zeros() as u8;
    for d1 in bits(columns[1]) {
        for d2 in bits(columns[2]) {
            let stack0 = first | d1 | d2;
            for d3 in bits(columns[3] & !stack0) {
                for d4 in bits(columns[4] & !stack0) {
                    for d5 in bits(columns[5] & !stack0) {
                        let left = 0x3fe & !(stack0 | d3 | d4 | d5);
                        let (d6, d7, d8) =
                            (left & columns[6], left & columns[7], left & columns[8]);
                        if d6.count_ones() != 1 || d7.count_ones() != 1 || d8.count_ones() != 1 {
                            continue;
                        }
                        for (cell, bit) in [d1, d2, d3, d4, d5, d6, d7, d8].into_iter().enumerate()
                        {
                            row[cell + 1] = bit.trailing_zeros() as u8;
                        }
                        visit(&row);
                    }
                }
            }
        }
    }
}

/// The single bits of a mask, lowest first.
#[inline]
fn bits(mut mask: u16) -> impl Iterator<Item = u16> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let bit = mask & mask.wrapping_neg();
            mask ^= bit;
            bit
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::band::is_valid_band;

    fn band1() -> Band {
        crate::band::parse_band("123456789456789123789123456").unwrap()
    }

    #[test]
    fn band2_walk_gives_increasing_valid_normal_bands() {
        let b1 = band1();
        let mut previous: Option<Band> = None;
        let mut count = 0;
        for_each_band2(&b1, |b2| {
            assert!(is_valid_band(b2));
            assert!(b2[0] < b2[9] && b2[9] < b2[18]);
            for c in 0..9 {
                for r in 0..3 {
                    assert!((0..3).all(|s| b1[9 * s + c] != b2[9 * r + c]));
                }
            }
            if let Some(p) = previous {
                assert!(p < *b2);
            }
            previous = Some(*b2);
            count += 1;
            true
        });
        assert!(count > 0);
    }

    #[test]
    fn band3_walk_matches_brute_force_on_a_grid() {
        // Bands 1+2 of a random grid: band 3 of the grid (rows sorted) is
        // among the completions, and every completion is a valid band
        // keeping columns free of repeats.
        for (grid, bands12) in super::super::tests::random_bands12(3, 20) {
            let mut own: Vec<&[u8]> = grid.digits()[54..].chunks(9).collect();
            own.sort();
            let own: Vec<u8> = own.concat();
            let mut seen_own = false;
            let mut all = Vec::new();
            for_each_band3(&bands12, |b3| {
                assert!(is_valid_band(b3));
                assert!(b3[0] < b3[9] && b3[9] < b3[18]);
                let mut cells = [0u8; 81];
                cells[..54].copy_from_slice(&bands12);
                cells[54..].copy_from_slice(b3);
                assert!(crate::grid::Grid::from_digits(cells).is_ok());
                seen_own |= b3[..] == own[..];
                all.push(*b3);
            });
            assert!(seen_own);
            assert!(all.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
