//! Slow, obviously correct minlex forms: every one of the 2 × 6⁸
//! row/column symmetries is tried. Only prefix pruning is used (a candidate
//! is dropped at its first cell larger than the best string's). For
//! cross-checking the fast searches in tests; about a tenth of a second per
//! grid in release builds.

use crate::grid::{CELLS, Grid, Puzzle, line_orders};

/// Visits every symmetric image of `cells` (digits 0..=9, 0 = empty) with
/// digits relabelled in order of first appearance, and returns the smallest
/// string and how many of the 2 × 6⁸ symmetries reach it.
fn brute_minimum(cells: &[u8; CELLS]) -> ([u8; CELLS], usize) {
    let orders = line_orders();
    let mut best = [u8::MAX; CELLS];
    let mut count = 0;
    for transpose in [false, true] {
        let source = |r: u8, c: u8| {
            let (r, c) = if transpose { (c, r) } else { (r, c) };
            cells[9 * r as usize + c as usize]
        };
        for rows in &orders {
            for cols in &orders {
                let mut label = [0u8; 10];
                let mut next = 1;
                let mut smaller = false;
                let mut candidate = [0u8; CELLS];
                'cells: for (r, &row) in rows.iter().enumerate() {
                    for (c, &col) in cols.iter().enumerate() {
                        let d = source(row, col) as usize;
                        if d != 0 && label[d] == 0 {
                            label[d] = next;
                            next += 1;
                        }
                        let value = label[d];
                        let cell = 9 * r + c;
                        if !smaller {
                            if value > best[cell] {
                                break 'cells;
                            }
                            smaller = value < best[cell];
                        }
                        candidate[cell] = value;
                        if r == 8 && c == 8 {
                            if smaller {
                                best = candidate;
                                count = 0;
                            }
                            count += 1;
                        }
                    }
                }
            }
        }
    }
    (best, count)
}

/// The minlex form of a grid by exhaustive search, and the number of
/// symmetries reaching it (= the number of automorphisms).
pub fn minlex_grid_brute(grid: &Grid) -> (Grid, usize) {
    let (cells, count) = brute_minimum(grid.digits());
    (
        Grid::from_digits(cells).expect("a symmetric image of a grid"),
        count,
    )
}

/// The minlex form of a puzzle by exhaustive search.
pub fn minlex_puzzle_brute(puzzle: &Puzzle) -> Puzzle {
    Puzzle::from_digits(brute_minimum(puzzle.digits()).0)
}
