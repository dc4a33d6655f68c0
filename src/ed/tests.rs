//! Tests of the ED catalogue against oracles that share none of its
//! canonical-form code: minlex forms (`canon`), the slow band
//! identification, the solver, random symmetries.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): where an
//! error would lose or double a grid. A band index that gives a wrong class or
//! map: `agrees_with_the_slow_identification` (in `band_index.rs`: random
//! bands against the 7,776-transform search, maps checked cell by cell). A
//! band-3 walk that misses completions:
//! `band3_walk_counts_agree_with_the_solver` (six times the walk's count = the
//! solver's count of band-3 completions). A canonical form that depends on the
//! representative: `hi_form_is_the_same_for_every_image_of_a_grid` (random
//! symmetries; every visit has the grid's minlex form; automorphism counts
//! against `canon`). Short cuts that accept a wrong visit or miss one:
//! `short_cuts_agree_with_the_full_visits`. A slice that counts a grid twice
//! or misses one: `whole_slices_count_the_same_as_by_minlex_forms` (five whole
//! slices: every grid built on the slice's band with all six ranks ≥ K,
//! canonicalised by minlex form, against the count and its automorphism
//! split). The counts file misread or miswritten:
//! `lines_round_trip_and_bad_ones_are_named` (in `counts.rs`). `which` naming
//! the wrong entry: `listed_grids_are_found_again_from_any_image` here, and
//! `tests/it/enumerate.rs`.

use std::collections::{BTreeMap, HashSet};

use super::fill::{for_each_band2, for_each_band3};
use super::*;
use crate::band::BANDS;
use crate::canon::{Transform, automorphism_count, minlex_grid};
use crate::grid::Grid;

fn grid_of(cells: &[u8; 81]) -> Grid {
    Grid::from_digits(*cells).expect("a valid grid")
}

/// `n` random grids of `seed`, each with its bands 1+2.
pub(super) fn random_bands12(seed: u64, n: usize) -> impl Iterator<Item = (Grid, [u8; 54])> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..n).map(move |_| {
        let grid = crate::generate::random_grid(&mut rng);
        (grid, grid.digits()[..54].try_into().unwrap())
    })
}

/// The class with the given rank.
fn class_at_rank(ed: &Ed, rank: usize) -> usize {
    (0..BANDS).find(|&k| ed.rank(k) == rank).unwrap()
}

#[test]
fn band_order_is_by_n6_then_index() {
    let ed = Ed::new();
    let mut ranks: Vec<usize> = (0..BANDS).map(|k| ed.rank(k)).collect();
    ranks.sort();
    assert_eq!(ranks, (0..BANDS).collect::<Vec<_>>());
    for a in 0..BANDS {
        for b in 0..BANDS {
            let less = (ed.n6(a), a) < (ed.n6(b), b);
            assert_eq!(ed.rank(a) < ed.rank(b), less);
        }
    }
    // Known figures of the catalogue: band 0 has 729 valid 6-clue sets, the
    // band with the most has 237,762.
    assert_eq!(ed.n6(0), 729);
    assert_eq!((0..BANDS).map(|k| ed.n6(k)).max(), Some(237_762));
}

#[test]
fn band3_walk_counts_agree_with_the_solver() {
    // Bands 1+2 given, the solver counts the band-3 completions with rows in
    // every order: six times the walk's count.
    for (_, bands12) in random_bands12(11, 30) {
        let mut walk = 0;
        for_each_band3(&bands12, |_| walk += 1);
        let mut cells = [0u8; 81];
        cells[..54].copy_from_slice(&bands12);
        let puzzle = crate::grid::Puzzle::from_digits(cells);
        let solved = crate::solver::count_solutions(&puzzle, 100_000);
        assert_eq!(solved, 6 * walk);
    }
}

#[test]
fn hi_form_is_the_same_for_every_image_of_a_grid() {
    let ed = Ed::new();
    let mut rng = fastrand::Rng::with_seed(21);
    for _ in 0..40 {
        let grid = crate::generate::random_grid(&mut rng);
        let hi = ed.hi_form(grid.digits());
        let visits = ed.visits(grid.digits());
        for _ in 0..4 {
            let image = Transform::random(&mut rng).apply_grid(&grid);
            assert_eq!(ed.hi_form(image.digits()).key, hi.key);
            assert_eq!(ed.visits(image.digits()), visits);
        }
        // Every visit is a grid of the same ED class, its band 1 of the
        // slice's class.
        let form = minlex_grid(&grid).0;
        for v in &visits {
            let g = grid_of(&v.grid(&ed));
            assert_eq!(minlex_grid(&g).0, form);
        }
        assert_eq!(hi.automorphisms as usize, automorphism_count(&grid));
        // The slice holds the band of lowest rank of all six (slow
        // identification).
        let six = six_bands(grid.digits());
        let lowest = six
            .iter()
            .flatten()
            .map(|b| ed.rank(ed.catalogue().identify(b).index))
            .min();
        assert_eq!(Some(ed.rank(hi.class)), lowest);
    }
}

#[test]
fn grids_with_automorphisms_get_their_count() {
    // The grid with 29 known 17s (the most of any grid) and a most symmetric
    // grid.
    let ed = Ed::new();
    for line in [
        "123456789456789123798231564234675918815943276967812435379164852582397641641528397",
        "123456789456789123789123456231564897564897231897231564312645978645978312978312645",
    ] {
        let grid = Grid::parse(line).unwrap();
        let hi = ed.hi_form(grid.digits());
        assert_eq!(
            hi.automorphisms as usize,
            automorphism_count(&grid),
            "{line}"
        );
        let mut rng = fastrand::Rng::with_seed(2);
        let image = Transform::random(&mut rng).apply_grid(&grid);
        assert_eq!(ed.visits(image.digits()), ed.visits(grid.digits()));
    }
}

/// The choices of each band 3 of an entry computed the long way: the full
/// visits of the grid.
fn choices_the_long_way(ed: &Ed, k: usize, band2: &Band) -> Vec<(Band, Choices, u32)> {
    let mut out = Vec::new();
    let mut bands12 = [0u8; 54];
    bands12[..27].copy_from_slice(ed.catalogue().band(k));
    bands12[27..].copy_from_slice(band2);
    for_each_band3(&bands12, |band3| {
        let mut grid = [0u8; 81];
        grid[..54].copy_from_slice(&bands12);
        grid[54..].copy_from_slice(band3);
        let hi = ed.hi_form(&grid);
        let mut choices = Choices::NONE;
        for v in ed.visits_of(&hi) {
            if v.class == k && v.key[..] == grid[27..] {
                choices |= Choices::of(v.choice);
            }
        }
        if !choices.is_empty() {
            let autos = if choices.contains(Choices::HI) {
                hi.automorphisms
            } else {
                1
            };
            out.push((*band3, choices, autos));
        }
    });
    out
}

#[test]
fn short_cuts_agree_with_the_full_visits() {
    let ed = Ed::new();
    let mut rng = fastrand::Rng::with_seed(8);
    let mut seen = [0usize; 3];
    for rank in [0, 1, 5, 50, 150, 250, 350, 400, 414] {
        let k = class_at_rank(&ed, rank);
        let start = rng.u64(0..200);
        ed.for_each_entry(k, start..start + 12, |entry| {
            let mut fast = Vec::new();
            ed.entry_visits(k, entry, Choices::ALL, |v| {
                fast.push((v.band3, v.choices, v.automorphisms))
            });
            let slow = choices_the_long_way(&ed, k, &entry.band2);
            assert_eq!(fast, slow, "slice {k} entry {}", entry.number);
            for (_, c, _) in &fast {
                for (i, r) in [Choices::HI, Choices::MID, Choices::LO].iter().enumerate() {
                    seen[i] += c.contains(*r) as usize;
                }
            }
        });
    }
    assert!(seen.iter().all(|&n| n > 0), "every choice met: {seen:?}");
}

#[test]
fn entries_are_numbered_in_order_and_found_again() {
    let ed = Ed::new();
    let k = class_at_rank(&ed, 300);
    let mut entries = Vec::new();
    ed.for_each_entry(k, 5..25, |e| entries.push(*e));
    assert_eq!(entries.len(), 20);
    for (i, e) in entries.iter().enumerate() {
        assert_eq!(e.number, 5 + i as u64);
        assert_eq!(ed.entry_number(k, &e.band2), Some(e.number));
    }
    assert!(entries.windows(2).all(|w| w[0].band2 < w[1].band2));
}

/// The oracle count of a whole slice: every band 2 under the slice's band
/// whose six bands... every grid built on the catalogue band with all six
/// band classes of rank ≥ the slice's, canonicalised by minlex form.
fn slice_by_minlex(ed: &Ed, k: usize) -> BTreeMap<Grid, usize> {
    let r1 = ed.rank(k);
    let band1 = *ed.catalogue().band(k);
    let mut forms = BTreeMap::new();
    for_each_band2(&band1, |band2| {
        if ed.rank(ed.index().class_of(band2)) < r1 {
            return true;
        }
        let mut bands12 = [0u8; 54];
        bands12[..27].copy_from_slice(&band1);
        bands12[27..].copy_from_slice(band2);
        for_each_band3(&bands12, |band3| {
            let mut cells = [0u8; 81];
            cells[..54].copy_from_slice(&bands12);
            cells[54..].copy_from_slice(band3);
            let six = six_bands(&cells);
            if six
                .iter()
                .flatten()
                .all(|b| ed.rank(ed.index().class_of(b)) >= r1)
            {
                let grid = grid_of(&cells);
                let form = minlex_grid(&grid).0;
                forms
                    .entry(form)
                    .or_insert_with(|| automorphism_count(&grid));
            }
        });
        true
    });
    forms
}

#[test]
fn whole_slices_count_the_same_as_by_minlex_forms() {
    let ed = Ed::new();
    let mut nonempty = 0;
    // Small slices (a few seconds each) with grids of many automorphism
    // counts: rank 375 holds 59 ED grids with 1 to 108 automorphisms.
    for rank in [375, 365, 400, 410, 415] {
        let k = class_at_rank(&ed, rank);
        let count = ed.count_entries(k, 0..u64::MAX);
        let forms = slice_by_minlex(&ed, k);
        assert_eq!(count.grids, forms.len() as u64, "slice {k}");
        let mut split: BTreeMap<u32, u64> = BTreeMap::new();
        for &a in forms.values() {
            *split.entry(a as u32).or_default() += 1;
        }
        assert_eq!(
            count.by_automorphisms,
            split.into_iter().collect::<Vec<_>>()
        );
        // The listed grids are those forms.
        let mut listed = HashSet::new();
        ed.for_each_entry(k, 0..u64::MAX, |e| {
            ed.entry_visits(k, e, Choices::HI, |v| {
                let mut cells = [0u8; 81];
                cells[..27].copy_from_slice(ed.catalogue().band(k));
                cells[27..54].copy_from_slice(&e.band2);
                cells[54..].copy_from_slice(&v.band3);
                assert!(listed.insert(minlex_grid(&grid_of(&cells)).0));
            })
        });
        assert_eq!(listed.len(), forms.len());
        nonempty += (count.grids > 0) as usize;
    }
    assert!(nonempty >= 4, "these slices hold grids");
}

#[test]
fn listed_grids_are_found_again_from_any_image() {
    // `which` the long way round: a grid of an entry, moved by a random
    // symmetry, names that entry again for its hi choice; the grids listed
    // are pairwise non-isomorphic.
    let ed = Ed::new();
    let mut rng = fastrand::Rng::with_seed(4);
    let mut forms = HashSet::new();
    for rank in [0, 3, 40, 120, 260] {
        let k = class_at_rank(&ed, rank);
        let start = rng.u64(0..1000);
        ed.for_each_entry(k, start..start + 3, |entry| {
            ed.entry_visits(k, entry, Choices::HI, |v| {
                let mut cells = [0u8; 81];
                cells[..27].copy_from_slice(ed.catalogue().band(k));
                cells[27..54].copy_from_slice(&entry.band2);
                cells[54..].copy_from_slice(&v.band3);
                let grid = grid_of(&cells);
                assert!(forms.insert(minlex_grid(&grid).0));
                let image = Transform::random(&mut rng).apply_grid(&grid);
                let hi = ed.visits(image.digits())[0];
                assert_eq!((hi.class, &hi.key[..]), (k, &cells[27..]));
                let mut band2 = [0u8; 27];
                band2.copy_from_slice(&hi.key[..27]);
                assert_eq!(ed.entry_number(k, &band2), Some(entry.number));
            });
        });
    }
    assert!(forms.len() > 50, "{} grids listed", forms.len());
}

#[test]
fn committed_n6_are_the_valid_six_clue_sets() {
    // data/band-n6.txt against the band code that builds the tables.
    use rayon::prelude::*;
    let ed = Ed::new();
    let n6: Vec<u64> = (0..BANDS)
        .into_par_iter()
        .map(|k| {
            let band = ed.catalogue().band(k);
            let uas = crate::band::band_uas(band);
            crate::band::valid_sets(band, &uas, 6).len() as u64
        })
        .collect();
    for (k, &n) in n6.iter().enumerate() {
        assert_eq!(ed.n6(k), n, "band {k}");
    }
}
