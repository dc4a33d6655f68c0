//! Minlex form of a full grid, its automorphisms, and isomorphisms between
//! grids.
//!
//! # Algorithm
//!
//! Any row can be relabelled to `123456789`, so the minlex grid's first row
//! is `123456789` and the relabelling is fixed once the first row `a` and
//! the column order σ are. A candidate is therefore (transposition, first
//! row `a`, second row `b` from `a`'s band, σ); the third row of the band is
//! forced and the other six rows are best placed by sorting (rows of a band
//! in increasing order, bands by their first row).
//!
//! Row 2 of a candidate at column j is `pos(π(σ(j))) + 1`, where `π(c)` is
//! the column of row `a` holding the digit that row `b` has at column `c`
//! and `pos` = σ⁻¹. The search fills σ position by position, left to right.
//! When the column at position j is not yet placed it branches over the
//! columns allowed there; then the target column π(σ(j)), if not yet placed,
//! takes the smallest free position (first free position of its stack's new
//! stack, or of the first free new stack) — the only choice that makes the
//! value at j minimal, so it needs no branching. Positions inside a new
//! stack are thus always filled in increasing order. A branch stops as soon
//! as its row 2 prefix exceeds the best one found so far; when it is
//! smaller, the best prefix is overwritten in place (and everything after it
//! forgotten), so every branch compares against one array.
//!
//! There are 2 × 9 × 2 × 3 × 3 × 2 = 648 ways to start, and each leaf is a
//! distinct transform reaching its own σ-minimal row 2: the leaves that tie
//! with the minimum are exactly the transforms mapping the grid to its
//! minlex form, so their number is the automorphism count (at most 648).

use super::transform::Transform;
use crate::grid::Grid;

const FREE: u8 = 0xff;
/// Larger than any digit: "no best value yet" in the row 2 prefix.
const UNSET: u8 = 0x0f;

/// The columns placed so far: a partial σ.
#[derive(Clone, Copy)]
struct Columns {
    /// Old column → new position, or FREE.
    pos: [u8; 9],
    /// New position → old column, or FREE.
    at: [u8; 9],
    /// Old stack → new stack, or FREE.
    new_stack: [u8; 3],
    /// New stack → old stack, or FREE.
    old_stack: [u8; 3],
    /// Positions already given out in each new stack.
    filled: [u8; 3],
}

impl Columns {
    const EMPTY: Columns = Columns {
        pos: [FREE; 9],
        at: [FREE; 9],
        new_stack: [FREE; 3],
        old_stack: [FREE; 3],
        filled: [0; 3],
    };

    #[inline]
    fn bind_stack(&mut self, old: usize, new: usize) {
        self.new_stack[old] = new as u8;
        self.old_stack[new] = old as u8;
    }

    /// Puts old column `col` at the next free position of its new stack.
    #[inline]
    fn place(&mut self, col: usize) -> u8 {
        let k = self.new_stack[col / 3] as usize;
        let p = (3 * k) as u8 + self.filled[k];
        self.filled[k] += 1;
        self.pos[col] = p;
        self.at[p as usize] = col as u8;
        p
    }
}

/// Packs nine digits (1..=9) into a `u64`, first digit most significant, so
/// integer order is lexicographic order.
#[inline]
fn pack(values: impl Iterator<Item = u8>) -> u64 {
    values.fold(0u64, |acc, v| (acc << 4) | v as u64)
}

/// The search for one grid; `COLLECT` keeps every transform reaching the
/// minimum (for automorphisms), otherwise only the first.
struct Search<const COLLECT: bool> {
    /// `lines[t][r]`: row r of the grid (t = 0) or of its transpose (t = 1).
    lines: [[[u8; 9]; 9]; 2],
    // The current root: orientation, first three rows, π and the column of
    // each digit in row a.
    t: usize,
    top: [u8; 3],
    pi: [u8; 9],
    col_of_digit: [u8; 10],
    /// Best row 2 so far, digit by digit (UNSET past a fresh improvement).
    best_row2: [u8; 9],
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
            t: 0,
            top: [0; 3],
            pi: [0; 9],
            col_of_digit: [0; 10],
            best_row2: [UNSET; 9],
            best_rest: [u64::MAX; 7],
            best: Transform::identity(),
            ties: Vec::new(),
        }
    }

    fn run(&mut self) {
        for t in 0..2 {
            for a in 0..9 {
                let band = a / 3;
                for b in 3 * band..3 * band + 3 {
                    if b == a {
                        continue;
                    }
                    self.set_root(t, a, b);
                    self.step(Columns::EMPTY, 0);
                }
            }
        }
    }

    fn set_root(&mut self, t: usize, a: usize, b: usize) {
        let band = a / 3;
        let third = 3 * band
            + (0..3)
                .find(|&i| 3 * band + i != a && 3 * band + i != b)
                .unwrap();
        self.t = t;
        self.top = [a as u8, b as u8, third as u8];
        let lines = &self.lines[t];
        for (col, &d) in lines[a].iter().enumerate() {
            self.col_of_digit[d as usize] = col as u8;
        }
        for (target, &d) in self.pi.iter_mut().zip(&lines[b]) {
            *target = self.col_of_digit[d as usize];
        }
    }

    /// Position `j` of row 2: make sure a column sits there (branching if
    /// not), then score it.
    fn step(&mut self, cols: Columns, j: usize) {
        if j == 9 {
            self.leaf(&cols);
            return;
        }
        if cols.at[j] != FREE {
            self.score(cols, j);
            return;
        }
        let k = j / 3;
        if cols.old_stack[k] == FREE {
            for old in 0..3 {
                if cols.new_stack[old] == FREE {
                    let mut next = cols;
                    next.bind_stack(old, k);
                    self.step(next, j);
                }
            }
            return;
        }
        let old = cols.old_stack[k] as usize;
        for col in 3 * old..3 * old + 3 {
            if cols.pos[col] == FREE {
                let mut next = cols;
                next.place(col);
                self.score(next, j);
            }
        }
    }

    /// Places the target of position `j` greedily, compares the value there
    /// with the best row 2, and goes on if not worse.
    #[inline]
    fn score(&mut self, mut cols: Columns, j: usize) {
        let target = self.pi[cols.at[j] as usize] as usize;
        let mut p = cols.pos[target];
        if p == FREE {
            let old = target / 3;
            if cols.new_stack[old] == FREE {
                let k = (0..3)
                    .find(|&k| cols.old_stack[k] == FREE)
                    .expect("a free stack");
                cols.bind_stack(old, k);
            }
            p = cols.place(target);
        }
        let value = p + 1;
        let best = self.best_row2[j];
        if value > best {
            return;
        }
        if value < best {
            self.best_row2[j] = value;
            self.best_row2[j + 1..].fill(UNSET);
            self.best_rest = [u64::MAX; 7];
        }
        self.step(cols, j + 1);
    }

    /// A complete σ whose row 2 equals the best: finish the grid and compare.
    fn leaf(&mut self, cols: &Columns) {
        let lines = &self.lines[self.t];
        let mut label = [0u8; 10];
        for (l, &col) in label.iter_mut().zip(&self.col_of_digit).skip(1) {
            *l = cols.pos[col as usize] + 1;
        }
        let row = |r: usize| {
            pack(
                cols.at
                    .iter()
                    .map(|&c| label[lines[r][c as usize] as usize]),
            )
        };
        let top_band = self.top[0] as usize / 3;
        let mut bands = [[(0u64, 0u8); 3]; 2];
        let mut n = 0;
        for band in 0..3 {
            if band == top_band {
                continue;
            }
            for (i, slot) in bands[n].iter_mut().enumerate() {
                let r = 3 * band + i;
                *slot = (row(r), r as u8);
            }
            bands[n].sort_unstable();
            n += 1;
        }
        bands.sort_unstable_by_key(|b| b[0].0);
        let mut rest = [0u64; 7];
        let mut order = [0u8; 9];
        rest[0] = row(self.top[2] as usize);
        order[..3].copy_from_slice(&self.top);
        for (i, &(value, r)) in bands.iter().flatten().enumerate() {
            rest[1 + i] = value;
            order[3 + i] = r;
        }
        if rest > self.best_rest {
            return;
        }
        let mut digits = [0u8; 9];
        digits.copy_from_slice(&label[1..]);
        let transform =
            Transform::new(self.t == 1, order, cols.at, digits).expect("a sudoku symmetry");
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
