//! Symmetries and minlex forms: invariance under random transforms, the
//! transform laws, automorphisms, isomorphisms carrying known 17s, and a
//! cross-check of the fast searches against the exhaustive ones.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): known 17s
//! carried onto a grid wrongly, so a wrong oracle
//! (`isomorphism_carries_known_17s`, `fast_grid_forms_agree_with_brute_force`,
//! `fast_puzzle_forms_agree_with_brute_force`).

use crate::common::GRID29;
use proptest::prelude::*;
use s17::canon::{
    Transform, automorphism_count, automorphisms, brute, isomorphism, minlex_grid, minlex_puzzle,
};
use s17::generate::random_grid;
use s17::grid::{Grid, Puzzle};

/// The most symmetric grid: 648 automorphisms.
const MOST_SYMMETRIC: &str =
    "123456789456789123789123456231564897564897231897231564312645978645978312978312645";
/// The row-shift pattern grid: 54 automorphisms.
const SHIFT_PATTERN: &str =
    "123456789456789123789123456234567891567891234891234567345678912678912345912345678";

/// `count` random clue cells of `grid`.
fn random_puzzle(grid: &Grid, count: usize, rng: &mut fastrand::Rng) -> Puzzle {
    let mut cells: Vec<u32> = (0..81).collect();
    rng.shuffle(&mut cells);
    let mask = cells[..count].iter().fold(0u128, |m, &c| m | 1 << c);
    Puzzle::from_grid(grid, mask)
}

fn known17(count: usize) -> Vec<Puzzle> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/known17.txt"))
        .expect("data/known17.txt");
    text.lines()
        .take(count)
        .map(|line| Puzzle::parse(line).unwrap())
        .collect()
}

fn grid(text: &str) -> Grid {
    Grid::parse(text).unwrap()
}

#[test]
fn the_grid_with_29_known_17s_is_its_own_minlex_form() {
    let g = grid(GRID29);
    let (form, t) = minlex_grid(&g);
    assert_eq!(form, g);
    assert_eq!(t.apply_grid(&g), g);
    assert_eq!(automorphism_count(&g), 1);
    assert_eq!(automorphisms(&g), vec![Transform::identity()]);
    assert_eq!(minlex_puzzle(&g.to_puzzle()).0, g.to_puzzle());
}

#[test]
fn symmetric_grids_have_the_expected_automorphisms() {
    for (text, expected) in [(MOST_SYMMETRIC, 648), (SHIFT_PATTERN, 54)] {
        let g = grid(text);
        assert_eq!(minlex_grid(&g).0, g, "{text} is minlex");
        let all = automorphisms(&g);
        assert_eq!(all.len(), expected);
        assert_eq!(automorphism_count(&g), expected);
        assert!(all.contains(&Transform::identity()));
        let distinct: std::collections::HashSet<_> = all.iter().collect();
        assert_eq!(distinct.len(), expected);
        for a in &all {
            assert_eq!(a.apply_grid(&g), g);
        }
        // A group: closed under composition and inverses (spot check).
        for (a, b) in all.iter().zip(all.iter().rev()).take(50) {
            assert!(distinct.contains(&a.then(b)));
            assert!(distinct.contains(&a.inverse()));
        }
        // The count does not depend on how the grid is presented.
        let mut rng = fastrand::Rng::with_seed(expected as u64);
        let moved = Transform::random(&mut rng).apply_grid(&g);
        assert_eq!(automorphism_count(&moved), expected);
    }
}

#[test]
fn fast_grid_forms_agree_with_brute_force() {
    let mut rng = fastrand::Rng::with_seed(17);
    let mut grids: Vec<Grid> = (0..5).map(|_| random_grid(&mut rng)).collect();
    for text in [GRID29, MOST_SYMMETRIC, SHIFT_PATTERN] {
        grids.push(Transform::random(&mut rng).apply_grid(&grid(text)));
    }
    for g in &grids {
        let (form, count) = brute::minlex_grid_brute(g);
        assert_eq!(minlex_grid(g).0, form, "{g}");
        assert_eq!(automorphism_count(g), count, "{g}");
    }
}

#[test]
fn fast_puzzle_forms_agree_with_brute_force() {
    let mut rng = fastrand::Rng::with_seed(18);
    let mut puzzles = known17(3);
    let g = random_grid(&mut rng);
    for count in [17, 24, 30, 45] {
        puzzles.push(random_puzzle(&g, count, &mut rng));
    }
    // A symmetric grid gives many ties.
    puzzles.push(random_puzzle(&grid(MOST_SYMMETRIC), 20, &mut rng));
    puzzles.push(Puzzle::from_digits([0; 81]));
    for p in &puzzles {
        assert_eq!(minlex_puzzle(p).0, brute::minlex_puzzle_brute(p), "{p}");
    }
}

/// The start of data/known17.txt is stored in minlex form (97 % of the
/// file is; the first exception is line 3,769), so the community standard
/// must give those lines back unchanged.
#[test]
fn known_17_forms_are_invariant() {
    let mut rng = fastrand::Rng::with_seed(19);
    for p in known17(300) {
        let (form, t) = minlex_puzzle(&p);
        assert_eq!(form, p, "stored in minlex form");
        assert_eq!(t.apply_puzzle(&p), form);
        assert_eq!(form.clue_count(), 17);
        let moved = Transform::random(&mut rng).apply_puzzle(&p);
        assert_eq!(minlex_puzzle(&moved).0, form, "{p}");
        assert_eq!(minlex_puzzle(&form).0, form);
    }
}

#[test]
fn isomorphism_carries_known_17s() {
    let mut rng = fastrand::Rng::with_seed(20);
    for p in known17(4) {
        let solved = s17::solver::solve(&p, 2);
        assert_eq!(solved.count, 1);
        let s = solved.first.unwrap();
        let g = Transform::random(&mut rng).apply_grid(&s);
        let t = isomorphism(&s, &g).expect("isomorphic");
        assert_eq!(t.apply_grid(&s), g);
        let image = t.apply_puzzle(&p);
        assert!(image.agrees_with(&g));
        assert_eq!(image.clue_count(), 17);
        assert_eq!(minlex_puzzle(&image).0, minlex_puzzle(&p).0);
        for a in automorphisms(&g) {
            assert!(t.then(&a).apply_puzzle(&p).agrees_with(&g));
        }
        assert_eq!(isomorphism(&s, &random_grid(&mut rng)), None);
    }
    // A symmetric grid: every automorphism gives another isomorphism.
    let g = grid(MOST_SYMMETRIC);
    let moved = Transform::random(&mut rng).apply_grid(&g);
    let t = isomorphism(&g, &moved).unwrap();
    let images: std::collections::HashSet<_> = automorphisms(&moved)
        .iter()
        .map(|a| t.then(a))
        .inspect(|u| assert_eq!(u.apply_grid(&g), moved))
        .collect();
    assert_eq!(images.len(), 648);
}

proptest! {
    #[test]
    fn transform_laws(seed in any::<u64>()) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let g = random_grid(&mut rng);
        let p = random_puzzle(&g, 17 + rng.usize(..14), &mut rng);
        let (a, b, c) = (
            Transform::random(&mut rng),
            Transform::random(&mut rng),
            Transform::random(&mut rng),
        );
        let id = Transform::identity();
        prop_assert_eq!(a.then(&b).apply_grid(&g), b.apply_grid(&a.apply_grid(&g)));
        prop_assert_eq!(a.then(&b).apply_puzzle(&p), b.apply_puzzle(&a.apply_puzzle(&p)));
        prop_assert_eq!(a.then(&b).then(&c), a.then(&b.then(&c)));
        prop_assert_eq!(a.then(&a.inverse()), id);
        prop_assert_eq!(a.inverse().then(&a), id);
        prop_assert_eq!(a.then(&id), a);
        prop_assert_eq!(id.then(&a), a);
        prop_assert_eq!(a.then(&b).inverse(), b.inverse().then(&a.inverse()));
        let image = a.apply_grid(&g);
        prop_assert!(Grid::from_digits(*image.digits()).is_ok());
        prop_assert!(a.apply_puzzle(&p).agrees_with(&image));
        for cell in 0..81 {
            prop_assert_eq!(image.digit(a.apply_cell(cell)), a.map_digit(g.digit(cell)));
        }
    }

    #[test]
    fn grid_form_is_invariant(seed in any::<u64>()) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let g = random_grid(&mut rng);
        let moved = Transform::random(&mut rng).apply_grid(&g);
        let (form, t) = minlex_grid(&g);
        let (form_moved, t_moved) = minlex_grid(&moved);
        prop_assert_eq!(form, form_moved);
        prop_assert_eq!(t.apply_grid(&g), form);
        prop_assert_eq!(t_moved.apply_grid(&moved), form);
        prop_assert_eq!(&form.to_string()[..9], "123456789");
        prop_assert!(Grid::from_digits(*form.digits()).is_ok());
        prop_assert!(form <= g && form <= moved);
        prop_assert_eq!(minlex_grid(&form).0, form);
        prop_assert_eq!(minlex_puzzle(&g.to_puzzle()).0, form.to_puzzle());
        let count = automorphism_count(&g);
        prop_assert_eq!(automorphism_count(&moved), count);
        for a in automorphisms(&g) {
            prop_assert_eq!(a.apply_grid(&g), g);
        }
        let iso = isomorphism(&g, &moved).unwrap();
        prop_assert_eq!(iso.apply_grid(&g), moved);
    }

    #[test]
    fn puzzle_form_is_invariant(seed in any::<u64>()) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let g = random_grid(&mut rng);
        let p = random_puzzle(&g, 17 + rng.usize(..14), &mut rng);
        let moved = Transform::random(&mut rng).apply_puzzle(&p);
        let (form, t) = minlex_puzzle(&p);
        let (form_moved, t_moved) = minlex_puzzle(&moved);
        prop_assert_eq!(form, form_moved);
        prop_assert_eq!(t.apply_puzzle(&p), form);
        prop_assert_eq!(t_moved.apply_puzzle(&moved), form);
        prop_assert_eq!(form.clue_count(), p.clue_count());
        prop_assert!(form.agrees_with(&t.apply_grid(&g)));
        prop_assert_eq!(minlex_puzzle(&form).0, form);
    }
}
