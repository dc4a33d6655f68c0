//! Minlex form of a full grid, its automorphisms, and isomorphisms between
//! grids.
//!
//! # Algorithm
//!
//! Any row can be relabelled to `123456789`, so the minlex grid's first row
//! is `123456789` and the relabelling is fixed once the first row `a` and
//! the column order σ are. A candidate is therefore (transposition, first
//! row `a`, second row `b` from `a`'s band, σ); the third row of the band is
//! forced, and the other six rows are best placed by sorting (rows of a band
//! in increasing order, bands by their first row; rows of a grid are never
//! equal, so this order is unique).
//!
//! Row 2 depends only on σ and on how row `b` sits under row `a` (the
//! permutation π of [`super::row_two`]), whose minimal second row and the σ
//! reaching it are precomputed. So: look up the 2 × 9 × 2 = 36 roots
//! (transposition, a, b), keep those whose second row is the smallest, and
//! finish the grid for each of their σ, comparing rows 3..9 with the best.
//! The candidates that tie with the minimum are exactly the transforms
//! mapping the grid to its minlex form, so their number is the automorphism
//! count (at most 648).

use super::row_two::{RowTwoTable, pack};
use super::transform::Transform;
use crate::grid::Grid;

/// One grid's search; `COLLECT` keeps every transform reaching the minimum
/// (for automorphisms), otherwise only the first.
struct Search<const COLLECT: bool> {
    /// `lines[t][r]`: row r of the grid (t = 0) or of its transpose (t = 1).
    lines: [[[u8; 9]; 9]; 2],
    /// Best rows 3..9, packed (u64::MAX = none yet).
    best_rest: [u64; 7],
    best: Transform,
    ties: Vec<Transform>,
}

impl<const COLLECT: bool> Search<COLLECT> {
    fn new(grid: &Grid) -> Self {
        let mut lines = [[[0u8; 9]; 9]; 2];
        for (cell, &d) in grid.digits().iter().enumerate() {
            let (r, c) = (cell / 9, cell % 9);
            lines[0][r][c] = d;
            lines[1][c][r] = d;
        }
        Search {
            lines,
            best_rest: [u64::MAX; 7],
            best: Transform::identity(),
            ties: Vec::new(),
        }
    }

    fn run(&mut self) {
        let table = RowTwoTable::get();
        // Roots (t, a, b) whose second row can be the smallest.
        let mut roots = [(0u8, 0u8, 0u8, [0u8; 10]); 36];
        let mut n = 0;
        let mut best_row2 = u64::MAX;
        for t in 0..2 {
            for a in 0..9 {
                let mut col_of_digit = [0u8; 10];
                for (col, &d) in self.lines[t][a].iter().enumerate() {
                    col_of_digit[d as usize] = col as u8;
                }
                let band = a / 3;
                for b in 3 * band..3 * band + 3 {
                    if b == a {
                        continue;
                    }
                    let mut pi = [0u8; 9];
                    for (target, &d) in pi.iter_mut().zip(&self.lines[t][b]) {
                        *target = col_of_digit[d as usize];
                    }
                    let row2 = table.lookup(&pi).best;
                    if row2 < best_row2 {
                        best_row2 = row2;
                        n = 0;
                    }
                    if row2 == best_row2 {
                        roots[n] = (t as u8, a as u8, b as u8, col_of_digit);
                        n += 1;
                    }
                }
            }
        }
        for &(t, a, b, col_of_digit) in &roots[..n] {
            let (t, a, b) = (t as usize, a as usize, b as usize);
            let mut pi = [0u8; 9];
            for (target, &d) in pi.iter_mut().zip(&self.lines[t][b]) {
                *target = col_of_digit[d as usize];
            }
            for order in table.lookup(&pi).orders {
                self.finish(t, a, b, &col_of_digit, order);
            }
        }
    }

    /// A candidate whose row 2 is minimal: finish the grid and compare.
    fn finish(&mut self, t: usize, a: usize, b: usize, col_of_digit: &[u8; 10], at: &[u8; 9]) {
        let lines = &self.lines[t];
        let mut pos = [0u8; 9];
        for (j, &c) in at.iter().enumerate() {
            pos[c as usize] = j as u8;
        }
        let mut label = [0u8; 10];
        for (l, &col) in label.iter_mut().zip(col_of_digit).skip(1) {
            *l = pos[col as usize] + 1;
        }
        let row = |r: usize| pack(at.iter().map(|&c| label[lines[r][c as usize] as usize]));
        let band = a / 3;
        // The third row of the band: the offsets of a, b, c sum to 3.
        let c = 3 * band + (3 - a % 3 - b % 3);
        let third = row(c);
        if third > self.best_rest[0] {
            return;
        }
        let mut bands = [[(0u64, 0u8); 3]; 2];
        for (slot, other) in bands.iter_mut().zip((0..3).filter(|&k| k != band)) {
            for (i, entry) in slot.iter_mut().enumerate() {
                let r = 3 * other + i;
                *entry = (row(r), r as u8);
            }
            slot.sort_unstable();
        }
        bands.sort_unstable_by_key(|b| b[0].0);
        let mut rest = [third; 7];
        let mut order = [a as u8, b as u8, c as u8, 0, 0, 0, 0, 0, 0];
        for (i, &(value, r)) in bands.iter().flatten().enumerate() {
            rest[1 + i] = value;
            order[3 + i] = r;
        }
        if rest > self.best_rest {
            return;
        }
        let mut digits = [0u8; 9];
        digits.copy_from_slice(&label[1..]);
        let transform = Transform::new(t == 1, order, *at, digits).expect("a sudoku symmetry");
        if rest < self.best_rest {
            self.best_rest = rest;
            self.best = transform;
            self.ties.clear();
        }
        if COLLECT {
            self.ties.push(transform);
        }
    }
}

/// The minlex form of `grid` (the smallest 81-digit string over all 2 × 6⁸
/// row/column symmetries and digit relabellings) and a transform `t` with
/// `t.apply_grid(grid) == form`.
pub fn minlex_grid(grid: &Grid) -> (Grid, Transform) {
    let mut search = Search::<false>::new(grid);
    search.run();
    (search.best.apply_grid(grid), search.best)
}

/// Every transform `t` with `t.apply_grid(grid) == grid`, the identity
/// included.
pub fn automorphisms(grid: &Grid) -> Vec<Transform> {
    let mut search = Search::<true>::new(grid);
    search.run();
    let back = search.best.inverse();
    search.ties.iter().map(|t| t.then(&back)).collect()
}

/// The number of automorphisms of `grid` (1 for most grids, at most 648).
pub fn automorphism_count(grid: &Grid) -> usize {
    let mut search = Search::<true>::new(grid);
    search.run();
    search.ties.len()
}

/// A transform mapping `from` onto `to`, if the grids are isomorphic.
///
/// All of them are `isomorphism(from, to).then(a)` for `a` in
/// `automorphisms(to)`. A puzzle `p` of `from` maps to the puzzle
/// `t.apply_puzzle(p)` of `to`.
pub fn isomorphism(from: &Grid, to: &Grid) -> Option<Transform> {
    let (form_from, t_from) = minlex_grid(from);
    let (form_to, t_to) = minlex_grid(to);
    (form_from == form_to).then(|| t_from.then(&t_to.inverse()))
}
