//! Band UAs against the gangster, exact and complete.
//!
//! Any band with the same gangster (the same digit set in each column) can
//! replace a band inside a grid. Such a band is found column by column: each
//! column's 3 digits go to the 3 rows in one of 6 orders, and every row must
//! end up holding each digit once (boxes then hold each digit once by
//! themselves, because a stack's 3 column sets are the stack's 9 digits).
//! Every other such band gives a band UA (the cells where it differs); the
//! minimal ones are those with no other UA inside them.

use super::{Band, difference, is_valid_band};
use crate::bits::{CellMask, Mask27};
use crate::grid::PERMS3;

/// Every valid band with the same gangster as `band`, `band` itself
/// included, in no particular order.
pub fn gangster_mates(band: &Band) -> Vec<Band> {
    debug_assert!(is_valid_band(band));
    let mut out = Vec::new();
    let mut current = [0u8; 27];
    fill_columns(band, 0, [0; 3], &mut current, &mut out);
    out
}

fn fill_columns(band: &Band, col: usize, rows: [u16; 3], current: &mut Band, out: &mut Vec<Band>) {
    if col == 9 {
        out.push(*current);
        return;
    }
    let digits = [band[col], band[9 + col], band[18 + col]];
    for order in &PERMS3 {
        let mut next = rows;
        let mut fits = true;
        for (row, &source) in order.iter().enumerate() {
            let bit = 1u16 << digits[source as usize];
            fits &= next[row] & bit == 0;
            next[row] |= bit;
        }
        if fits {
            for (row, &source) in order.iter().enumerate() {
                current[9 * row + col] = digits[source as usize];
            }
            fill_columns(band, col + 1, next, current, out);
        }
    }
}

/// The minimal band UAs of `band`, sorted by size, then by value.
pub fn band_uas(band: &Band) -> Vec<Mask27> {
    let differences = gangster_mates(band)
        .iter()
        .map(|mate| difference(band, mate))
        .filter(|&d| d != 0)
        .collect();
    minimal_sets(differences)
}

/// The sets of `sets` that contain no other set of `sets`, each once,
/// sorted by size, then by value.
pub fn minimal_sets(mut sets: Vec<Mask27>) -> Vec<Mask27> {
    sets.sort_unstable_by_key(|&s| (s.count_ones(), s));
    sets.dedup();
    let mut kept: Vec<Mask27> = Vec::new();
    for s in sets {
        if kept.iter().all(|&k| !k.is_subset_of(s)) {
            kept.push(s);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::band::{gangster, parse_band};

    #[test]
    fn mates_share_the_gangster() {
        let band = parse_band("123456789456789231789231564").unwrap();
        let mates = gangster_mates(&band);
        assert!(mates.contains(&band));
        // The 6 row orders always keep the gangster.
        assert!(mates.len() >= 6);
        for m in &mates {
            assert!(is_valid_band(m));
            assert_eq!(gangster(m), gangster(&band));
        }
        let uas = band_uas(&band);
        assert!(uas.iter().all(|u| u.count_ones() >= 4));
        assert!(
            uas.windows(2)
                .all(|w| (w[0].count_ones(), w[0]) < (w[1].count_ones(), w[1]))
        );
    }

    #[test]
    fn minimal_sets_drop_supersets_and_duplicates() {
        assert_eq!(
            minimal_sets(vec![0b111, 0b11, 0b1100, 0b11, 0b1101]),
            vec![0b11, 0b1100]
        );
    }
}
