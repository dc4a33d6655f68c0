//! The first look for a minimal 18 around a 17 (`search --clues 18
//! --first` on a grid that holds a 17): one clue out, two in (else two
//! out, three in). With `--non-minimal`, the 17 plus a clue ([`plus_one`]).
//!
//! Take a 17 `P` of the grid and one of its clues `c`. `Q = P - c` has
//! other solutions than the grid; each differs from the grid on a set `D`
//! (which holds `c`, since `P` is unique). `Q + a + b` (cells `a`, `b`
//! outside `P`) is a valid puzzle exactly when every such `D` holds `a` or
//! `b`. The look lists the first [`SOLUTIONS`] solutions of `Q` and keeps
//! the pairs that meet all of theirs (when `Q` has no more, that alone
//! settles it; else the solver checks the pair); such a puzzle is minimal
//! when neither `Q + a` nor `Q + b` is valid (a listed `D` misses `a`,
//! another misses `b`) and no clue of `Q` can go, which the solver checks.
//! Every puzzle answered is checked by the solver (unique, no clue
//! removable) before it is kept.
//!
//! The look can only answer yes: a grid it does not settle gets the full
//! search. A 17 has hundreds of such neighbours on many grids, so on a
//! grid holding a 17 the look usually answers at once, where the rows of
//! the 18 plan may meet their first minimal 18 late.
//!
//! The first look is for the one-grid search (`search` and `scan` with
//! `--clues 18 --first`). On a grid holding a 17 the rows of the 18 plan,
//! ordered for the full search, may meet their first minimal 18 late (12
//! times the 17 search on one grid of the benchmark). So the search first
//! runs the 17 search stopped at its first 17 and, when there is one, looks
//! around it; a grid it does not settle (no 17, or none near it) gets the
//! full 18 `--first` search, and its 17 search is the price (about a tenth of
//! an 18 search on a random grid). `GridResult::first_look` holds the 17
//! search's counters and the look's time (`--stats`: `grid K first look:
//! ...`). The catalogue's `exhaust --first` does not look: one visit searches
//! one choice's rows of many grids at once, and grids holding a 17 are 49,158
//! of 5.47×10⁹.
//!
//! # `--first` in the one-grid search
//!
//! **`--first` leaves the 6-6-6 row for last** (`Searcher::deferred_row`). A
//! grid's minimal 18s lie mostly in rows with a band of 7 (of slice 28's first
//! 212, 171), and the 6-6-6 row, hi's last, is more than half the search
//! (for N = 18 it costs half to three quarters of it): with `--first` the
//! choices search their other rows first (side by side when threads are
//! idle), and only if none found a puzzle does hi's 6-6-6 row run, on the
//! state that searched hi's other rows (their fresh UAs serve it). The rows
//! searched are the same when there is no 18; when there is, the search
//! stops at the first found, wherever it lies. Before any row, a grid
//! holding a 17 gets the look above.

use crate::bits::{Mask81, cells};
use crate::grid::{Grid, Puzzle};
use crate::solver;

/// The most solutions of `P - c` listed: enough to leave the solver a
/// few pairs to check.
pub const SOLUTIONS: usize = 128;

const WORDS: usize = SOLUTIONS / 64;

/// A minimal 18 of `grid` made of the 17 `clues` (a valid puzzle of the
/// grid) with one clue out and two cells in, else two out and three in,
/// if the look finds one. Clues and cells are tried in cell order: the
/// answer is a function of the grid and the 17.
pub fn minimal_18_near(grid: &Grid, clues: Mask81) -> Option<Mask81> {
    debug_assert_eq!(clues.count_ones(), 17);
    let ones = || cells(clues).map(|c| 1u128 << c);
    ones().find_map(|out| around(grid, clues, out)).or_else(|| {
        ones().enumerate().find_map(|(i, one)| {
            ones()
                .skip(i + 1)
                .find_map(|two| around(grid, clues, one | two))
        })
    })
}

/// The 17 `clues` plus its first empty cell: a valid 18 (not minimal),
/// the answer of `--clues 18 --non-minimal --first` on a grid holding a 17.
pub fn plus_one(clues: Mask81) -> Mask81 {
    let empty = !clues & crate::bits::GRID_FULL;
    clues | empty & empty.wrapping_neg()
}

/// The first minimal 18 `clues - out + (the cells in)`, `out` one or two
/// clues (two or three cells in), if any.
fn around(grid: &Grid, clues: Mask81, out: Mask81) -> Option<Mask81> {
    let q = clues & !out;
    let mut diffs: Vec<Mask81> = Vec::new();
    solver::for_each_solution(&Puzzle::from_grid(grid, q), SOLUTIONS + 1, |s| {
        if s != grid {
            diffs.push(grid.difference(s));
        }
        diffs.len() < SOLUTIONS
    });
    // misses[a]: the listed solutions whose difference does not hold a.
    let mut misses = [[0u64; WORDS]; 81];
    for (i, d) in diffs.iter().enumerate() {
        for (a, miss) in misses.iter_mut().enumerate() {
            if d >> a & 1 == 0 {
                miss[i / 64] |= 1 << (i % 64);
            }
        }
    }
    let and = |x: &[u64; WORDS], y: &[u64; WORDS]| -> [u64; WORDS] {
        std::array::from_fn(|w| x[w] & y[w])
    };
    let empty = |m: &[u64; WORDS]| m.iter().all(|&w| w == 0);
    // When every solution is listed, cells (and, for three in, pairs) that
    // meet them all are enough alone, so a puzzle holding them is not
    // minimal; a partial list proves nothing of the kind.
    let complete = diffs.len() < SOLUTIONS;
    let open: Vec<usize> = (0..81)
        .filter(|&a| clues >> a & 1 == 0 && !(complete && empty(&misses[a])))
        .collect();
    let check =
        |r: Mask81| solver::other_solution(grid, r).is_none() && solver::is_minimal(grid, r);
    let bit = |a: usize| 1u128 << a;
    let three_in = out.count_ones() == 2;
    for (i, &a) in open.iter().enumerate() {
        for (j, &b) in open.iter().enumerate().skip(i + 1) {
            let ab = and(&misses[a], &misses[b]);
            if !three_in {
                if empty(&ab) && check(q | bit(a) | bit(b)) {
                    return Some(q | bit(a) | bit(b));
                }
                continue;
            }
            // Three in: no two of them may be enough already.
            if complete && empty(&ab) {
                continue;
            }
            for &c in &open[j + 1..] {
                let r = q | bit(a) | bit(b) | bit(c);
                if empty(&and(&ab, &misses[c])) && check(r) {
                    return Some(r);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::reference;

    /// A known 17 (its line of data/known17.txt).
    fn known(line: usize) -> Puzzle {
        let text = include_str!("../../data/known17.txt");
        Puzzle::parse(text.lines().nth(line - 1).expect("a line")).expect("a puzzle")
    }

    #[test]
    fn answers_are_minimal_18s_by_the_reference_solver() {
        let mut answered = 0;
        for line in [1, 100, 1000, 20000, 49158] {
            let p = known(line);
            let (count, sols) = reference::solutions(&p, 2, 1);
            assert_eq!(count, 1);
            let grid = sols[0];
            let Some(r) = minimal_18_near(&grid, p.clue_mask()) else {
                continue;
            };
            answered += 1;
            assert_eq!(r.count_ones(), 18);
            let kept = (r & p.clue_mask()).count_ones();
            assert!(
                kept == 16 || kept == 15,
                "one out two in, or two out three in"
            );
            let puzzle = Puzzle::from_grid(&grid, r);
            assert_eq!(reference::solutions(&puzzle, 2, 0).0, 1, "unique");
            for clue in cells(r) {
                let less = Puzzle::from_grid(&grid, r & !(1u128 << clue));
                assert!(reference::solutions(&less, 2, 0).0 > 1, "minimal");
            }
        }
        // The look answers on most grids holding a 17 (20 of 20 spread over
        // the known list, benches/HISTORY.md); a look that never answers
        // would pass the checks above.
        assert!(answered >= 4, "the look answered on {answered} of 5 grids");
    }

    #[test]
    fn plus_one_is_a_valid_18_holding_the_17() {
        let p = known(100);
        let grid = reference::solutions(&p, 2, 1).1[0];
        let r = plus_one(p.clue_mask());
        assert_eq!(r.count_ones(), 18);
        assert_eq!(r & p.clue_mask(), p.clue_mask());
        assert_eq!(
            reference::solutions(&Puzzle::from_grid(&grid, r), 2, 0).0,
            1
        );
    }
}
