//! Minlex form of a puzzle: empty cells written as 0, digits relabelled in
//! order of first appearance, smallest 81-character string over all 2 × 6⁸
//! row/column symmetries.
//!
//! # Algorithm
//!
//! For each orientation and each of the 1,296 column orders σ, the rows are
//! chosen greedily, top to bottom: at output row i the candidates are the
//! unused rows of the current band (or, at a band start, every row of an
//! unused band); each is scored under the relabelling so far (new digits
//! take the next labels in order of appearance), and only the candidates
//! with the smallest value go on, ties branching. As in the grid search, a
//! branch stops when a row is worse than the best found so far, and a better
//! row overwrites the best in place (forgetting the rows after it).
//!
//! Before choosing rows, σ is pruned box by box on the first row: whichever
//! row comes first is read through σ, so once the stack order and the first
//! (or first two) stack orders are fixed, the smallest possible prefix of the
//! first row is known. The first row is always scored with a fresh
//! relabelling, so its prefix depends only on which cells hold a clue.

use super::transform::{PERMS3, Transform};
use crate::grid::Puzzle;

/// Row state along one branch of the row search.
#[derive(Clone, Copy)]
struct Rows {
    /// Input rows placed so far, in output order.
    order: [u8; 9],
    /// Bands already used (bit per input band).
    bands: u8,
    /// Rows already used (bit per input row).
    used: u16,
    /// Digit → label (0 = not seen yet).
    label: [u8; 10],
    next_label: u8,
}

struct Search {
    /// `lines[t][r]`: row r of the puzzle (t = 0) or of its transpose (t = 1).
    lines: [[[u8; 9]; 9]; 2],
    /// `clues[t][r]`: the columns of row r that hold a clue, bit c = column c.
    clues: [[u16; 9]; 2],
    t: usize,
    sigma: [u8; 9],
    /// Best rows so far, packed 4 bits per cell (u64::MAX = none yet).
    best: [u64; 9],
    best_transform: Transform,
}

impl Search {
    fn new(puzzle: &Puzzle) -> Search {
        let mut lines = [[[0u8; 9]; 9]; 2];
        let mut clues = [[0u16; 9]; 2];
        for (cell, &d) in puzzle.digits().iter().enumerate() {
            let (r, c) = (cell / 9, cell % 9);
            lines[0][r][c] = d;
            lines[1][c][r] = d;
            if d != 0 {
                clues[0][r] |= 1 << c;
                clues[1][c] |= 1 << r;
            }
        }
        Search {
            lines,
            clues,
            t: 0,
            sigma: [0; 9],
            best: [u64::MAX; 9],
            best_transform: Transform::identity(),
        }
    }

    fn run(&mut self) {
        for t in 0..2 {
            self.t = t;
            for stacks in &PERMS3 {
                for inner0 in &PERMS3 {
                    for (i, &x) in inner0.iter().enumerate() {
                        self.sigma[i] = 3 * stacks[0] + x;
                    }
                    if self.first_row_worse(3) {
                        continue;
                    }
                    for inner1 in &PERMS3 {
                        for (i, &x) in inner1.iter().enumerate() {
                            self.sigma[3 + i] = 3 * stacks[1] + x;
                        }
                        if self.first_row_worse(6) {
                            continue;
                        }
                        for inner2 in &PERMS3 {
                            for (i, &x) in inner2.iter().enumerate() {
                                self.sigma[6 + i] = 3 * stacks[2] + x;
                            }
                            let start = Rows {
                                order: [0; 9],
                                bands: 0,
                                used: 0,
                                label: [0; 10],
                                next_label: 1,
                            };
                            self.step(start, 0);
                        }
                    }
                }
            }
        }
    }

    /// True when, with σ fixed on positions `0..len`, every row read first
    /// would start worse than the best first row. A first row is `0` at an
    /// empty cell and `1, 2, 3, ...` at its clues, so only the clue pattern
    /// of the prefix matters: fewer clues early is smaller.
    fn first_row_worse(&self, len: usize) -> bool {
        let best = self.best[0];
        if best == u64::MAX {
            return false;
        }
        // The best first row's clue pattern on positions 0..len, as bits
        // from the most significant (position 0) down.
        let mut best_pattern = 0u16;
        for j in 0..len {
            let nibble = (best >> (4 * (8 - j))) & 0xf;
            best_pattern = (best_pattern << 1) | (nibble != 0) as u16;
        }
        self.clues[self.t].iter().all(|&row| {
            let mut pattern = 0u16;
            for j in 0..len {
                pattern = (pattern << 1) | ((row >> self.sigma[j]) & 1);
            }
            pattern > best_pattern
        })
    }

    /// The value of input row `r` read through σ under the labels of
    /// `rows`, and the labels after it.
    #[inline]
    fn score(&self, rows: &Rows, r: usize) -> (u64, [u8; 10], u8) {
        let line = &self.lines[self.t][r];
        let mut label = rows.label;
        let mut next = rows.next_label;
        let mut value = 0u64;
        for &c in &self.sigma {
            let d = line[c as usize] as usize;
            let mut l = 0;
            if d != 0 {
                if label[d] == 0 {
                    label[d] = next;
                    next += 1;
                }
                l = label[d];
            }
            value = (value << 4) | l as u64;
        }
        (value, label, next)
    }

    fn step(&mut self, rows: Rows, i: usize) {
        if i == 9 {
            self.leaf(&rows);
            return;
        }
        let mut scored = [(0u64, [0u8; 10], 0u8, 0u8); 9];
        let mut n = 0;
        let mut consider = |r: usize, this: &Self| {
            let (value, label, next) = this.score(&rows, r);
            scored[n] = (value, label, next, r as u8);
            n += 1;
        };
        if i.is_multiple_of(3) {
            for band in 0..3 {
                if rows.bands & (1 << band) == 0 {
                    for r in 3 * band..3 * band + 3 {
                        consider(r, self);
                    }
                }
            }
        } else {
            let band = rows.order[i - 1] as usize / 3;
            for r in 3 * band..3 * band + 3 {
                if rows.used & (1 << r) == 0 {
                    consider(r, self);
                }
            }
        }
        let scored = &scored[..n];
        let min = scored.iter().map(|s| s.0).min().expect("a candidate row");
        if min > self.best[i] {
            return;
        }
        if min < self.best[i] {
            self.best[i] = min;
            self.best[i + 1..].fill(u64::MAX);
        }
        for &(value, label, next_label, r) in scored {
            if value != min {
                continue;
            }
            let mut next = rows;
            next.order[i] = r;
            next.bands |= 1 << (r / 3);
            next.used |= 1 << r;
            next.label = label;
            next.next_label = next_label;
            self.step(next, i + 1);
        }
    }

    /// A complete row order whose string equals the best: remember how.
    fn leaf(&mut self, rows: &Rows) {
        let mut label = rows.label;
        let mut next = rows.next_label;
        for l in label.iter_mut().skip(1) {
            if *l == 0 {
                *l = next;
                next += 1;
            }
        }
        let mut digits = [0u8; 9];
        digits.copy_from_slice(&label[1..]);
        self.best_transform =
            Transform::new(self.t == 1, rows.order, self.sigma, digits).expect("a sudoku symmetry");
    }
}

/// The minlex form of `puzzle` (empty cells as 0, digits relabelled in order
/// of first appearance) and a transform `t` with `t.apply_puzzle(puzzle) ==
/// form`. For a full grid this is the grid's minlex form.
pub fn minlex_puzzle(puzzle: &Puzzle) -> (Puzzle, Transform) {
    let mut search = Search::new(puzzle);
    search.run();
    let t = search.best_transform;
    (t.apply_puzzle(puzzle), t)
}
