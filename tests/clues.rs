//! `--clues N` checked against oracles that share no search code: they
//! use the solver, the canonical forms and the known list, never
//! `s17::search`. Built so far: the oracles of the 18s of grids holding
//! known 17s (the known list is complete), each checked on its own.
//!
//! - **17 plus one.** The non-minimal 18s of a grid are exactly a 17 of it
//!   plus one of its 64 empty cells.
//! - **Minimal 18s near the 17s.** Every set "a known 17 less one clue,
//!   plus two cells" with one solution and no known 17 inside is a minimal
//!   18; the solver alone builds them.

mod common;

use std::collections::BTreeSet;
use std::sync::OnceLock;

use common::{fixture, golden_grids};
use rayon::prelude::*;
use s17::bits::{GRID_FULL, Mask81, cells};
use s17::grid::{Grid, Puzzle};
use s17::solver::count_solutions;
use s17::solver::reference::solutions;

// ---------------------------------------------------------------------------
// The oracles

/// A grid holding known 17s, with what the oracles say of its 18s.
struct KnownGrid {
    grid: Grid,
    /// Its known 17s (the list is complete: these are all of them).
    seventeens: Vec<Mask81>,
    /// Every known 17 plus one empty cell: all the non-minimal 18s.
    plus_one: BTreeSet<Mask81>,
    /// A known 17 less one clue plus two cells, with one solution and no
    /// known 17 inside: minimal 18s.
    near: BTreeSet<Mask81>,
}

fn bit(cell: usize) -> Mask81 {
    1u128 << cell
}

fn unique(grid: &Grid, clues: Mask81) -> bool {
    count_solutions(&Puzzle::from_grid(grid, clues), 2) == 1
}

/// Valid, and no clue can be removed keeping one solution.
fn minimal(grid: &Grid, clues: Mask81) -> bool {
    unique(grid, clues) && cells(clues).all(|c| !unique(grid, clues & !bit(c)))
}

/// The sets "a 17 of `seventeens`, less one clue, plus two cells" that
/// hold none of `seventeens`. The two cells added are taken among the 17's
/// 64 empty cells: adding back the clue removed gives the 17 plus one
/// cell, which holds a 17 and is left out anyway.
fn near_candidates(seventeens: &[Mask81]) -> Vec<Mask81> {
    let mut candidates = BTreeSet::new();
    for &k in seventeens {
        let empty: Vec<usize> = cells(GRID_FULL & !k).collect();
        for removed in cells(k) {
            let rest = k & !bit(removed);
            for (i, &a) in empty.iter().enumerate() {
                for &b in &empty[i + 1..] {
                    candidates.insert(rest | bit(a) | bit(b));
                }
            }
        }
    }
    candidates
        .into_iter()
        .filter(|&m| !seventeens.iter().any(|&k| k & m == k))
        .collect()
}

/// The near-17 candidates with one solution: minimal 18s, since the 17s of
/// the grid are all known.
fn near_seventeens(grid: &Grid, seventeens: &[Mask81]) -> BTreeSet<Mask81> {
    near_candidates(seventeens)
        .into_par_iter()
        .filter(|&m| unique(grid, m))
        .collect()
}

impl KnownGrid {
    fn new(grid: Grid) -> KnownGrid {
        let seventeens: Vec<Mask81> = fixture()
            .known
            .expected(&grid)
            .iter()
            .map(Puzzle::clue_mask)
            .collect();
        assert!(!seventeens.is_empty(), "{grid} holds no known 17");
        let plus_one = seventeens
            .iter()
            .flat_map(|&k| cells(GRID_FULL & !k).map(move |c| k | bit(c)))
            .collect();
        let near = near_seventeens(&grid, &seventeens);
        KnownGrid {
            grid,
            seventeens,
            plus_one,
            near,
        }
    }
}

/// The golden corpus with its oracles, built once.
fn golden() -> &'static [KnownGrid] {
    static GOLDEN: OnceLock<Vec<KnownGrid>> = OnceLock::new();
    GOLDEN.get_or_init(|| golden_grids().into_iter().map(KnownGrid::new).collect())
}

// ---------------------------------------------------------------------------
// The checks

/// The oracles before the search is checked against them, on the whole
/// golden corpus: the 17-plus-one sets are valid and not minimal; the
/// near-17 18s are minimal by the solver (so no clue of them is a known
/// 17's missing one: the known list's completeness agrees) and hold no
/// known 17; the counts are the ones these grids have.
#[test]
fn the_oracles_are_right() {
    let built = golden();
    for k in built {
        let g = &k.grid;
        assert!(
            k.seventeens
                .iter()
                .all(|&m| m.count_ones() == 17 && minimal(g, m))
        );
        for &m in &k.plus_one {
            assert_eq!(m.count_ones(), 18);
            assert!(unique(g, m) && !minimal(g, m), "{g}: {m:x}");
        }
        let not_minimal: Vec<&Mask81> = k.near.par_iter().filter(|&&m| !minimal(g, m)).collect();
        assert!(not_minimal.is_empty(), "{g}: {not_minimal:x?}");
        for &m in &k.near {
            assert_eq!(m.count_ones(), 18);
            assert!(!k.plus_one.contains(&m));
            assert!(!k.seventeens.iter().any(|&s| s & m == s));
        }
    }
    // The fast solver's verdicts against the plain backtracking one, on the
    // near-17 18s of two grids with one known 17 (each clue removed too)
    // and a sample of the candidates it rejected.
    let reference = |g: &Grid, m: Mask81| solutions(&Puzzle::from_grid(g, m), 2, 0).0;
    let mut rng = fastrand::Rng::with_seed(36);
    for k in [&built[1], &built[3]] {
        for &m in &k.near {
            assert_eq!(reference(&k.grid, m), 1, "{}: {m:x}", k.grid);
            for c in cells(m) {
                assert_eq!(
                    reference(&k.grid, m & !bit(c)),
                    2,
                    "{}: {m:x} - {c}",
                    k.grid
                );
            }
        }
        let rejected: Vec<Mask81> = near_candidates(&k.seventeens)
            .into_iter()
            .filter(|m| !k.near.contains(m))
            .collect();
        for _ in 0..200 {
            let m = rejected[rng.usize(..rejected.len())];
            assert_eq!(reference(&k.grid, m), 2, "{}: {m:x}", k.grid);
        }
    }
    // 64 per 17, less the 18s holding two 17s; the oracle's figures go to
    // stderr (`--nocapture`) for the record.
    for (n, k) in built.iter().enumerate() {
        let (s, p) = (k.seventeens.len(), k.plus_one.len());
        assert!(p <= 64 * s && (s > 1 || p == 64), "grid {n}: {s} 17s, {p}");
        eprintln!(
            "golden grid {n} {}: {s} known 17s, {p} 17-plus-one 18s, {} near-17 minimal 18s",
            k.grid,
            k.near.len()
        );
    }
}
