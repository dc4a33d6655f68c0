//! Random solution grids, for tests, benchmarks and tuning samples.
//!
//! A grid is filled cell by cell in a random order of candidates, always at
//! the empty cell with the fewest candidates, backtracking on dead ends. The
//! distribution is not exactly uniform over grids, which no use here needs.

use crate::grid::{CELLS, Grid, box_of, col_of, row_of};

/// A random valid grid drawn with `rng`.
pub fn random_grid(rng: &mut fastrand::Rng) -> Grid {
    let mut cells = [0u8; CELLS];
    let mut used = [[0u16; 9]; 3];
    let filled = fill(&mut cells, &mut used, rng);
    assert!(filled, "an empty grid always has a completion");
    Grid::from_digits_unchecked(cells)
}

fn fill(cells: &mut [u8; CELLS], used: &mut [[u16; 9]; 3], rng: &mut fastrand::Rng) -> bool {
    let mut best: Option<(usize, u16)> = None;
    for cell in 0..CELLS {
        if cells[cell] == 0 {
            let free =
                !(used[0][row_of(cell)] | used[1][col_of(cell)] | used[2][box_of(cell)]) & 0x1ff;
            if best.is_none_or(|(_, b)| free.count_ones() < b.count_ones()) {
                best = Some((cell, free));
            }
        }
    }
    let Some((cell, free)) = best else {
        return true;
    };
    let mut digits: Vec<u8> = (0..9).filter(|d| free & (1 << d) != 0).collect();
    rng.shuffle(&mut digits);
    let units = [row_of(cell), col_of(cell), box_of(cell)];
    for d in digits {
        let bit = 1u16 << d;
        cells[cell] = d + 1;
        for (k, &u) in units.iter().enumerate() {
            used[k][u] |= bit;
        }
        if fill(cells, used, rng) {
            return true;
        }
        for (k, &u) in units.iter().enumerate() {
            used[k][u] &= !bit;
        }
        cells[cell] = 0;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_are_valid_and_seeded() {
        let mut rng = fastrand::Rng::with_seed(7);
        let a = random_grid(&mut rng);
        assert!(Grid::from_digits(*a.digits()).is_ok());
        let b = random_grid(&mut rng);
        assert_ne!(a, b);
        assert_eq!(random_grid(&mut fastrand::Rng::with_seed(7)), a);
    }
}
