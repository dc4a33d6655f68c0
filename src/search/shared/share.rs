//! Handing the fresh GUAs one band 3 of an entry finds to the others:
//! by socket class ([`super::Shared::share_guas`]), or, for a T no class
//! takes, by the digits of its cells ([`share_by_digits`]).
//!
//! # By gangster
//!
//! A failed final check of band 3 B gives a fresh minimal UA S ∪ T (S in
//! bands 1+2, T in band 3). The solution H that differs from the grid exactly
//! on it (for a minimal UA every other solution of its complement does) keeps
//! XY, and its band 3 is a band B' with some gangster g. Any other band 3 of
//! the entry with a socket that turns it into a band of gangster g (its cells
//! T' changed) gets the GUA (S, T'): H's bands 1+2 fill the columns exactly
//! as g needs, so they and that changed band form a grid, which differs from
//! that band 3's grid on S ∪ T'. So when XY misses S, that band 3 too must
//! hit T'. (`super::classes::ClassGuas` files every socket of every band 3 by
//! the gangster it makes; the bands-1+2 state hands each fresh GUA on after
//! the band 3's part 2. B itself gets (S, T') too when one of its own sockets
//! makes g with other cells than T.) A hand-over is left out when the class
//! already has a part inside S (XY missing S then misses that part, and the T
//! is the same). A test checks random fresh GUAs handed on this way against
//! every band 3 that gets them with the solver, and debug builds assert each
//! hand-over.
//!
//! # By digits
//!
//! A fresh GUA S ∪ T whose other solution no class makes (T spans mini-rows:
//! 4 cells or more) goes to every other band 3 of the entry with the same
//! digits as B in the cells of T. The other solution changes band 3 only in
//! T, and each row and box of band 3 keeps its set of digits there (it stays
//! a band); the same change in a band 3 with T's digits keeps its rows and
//! boxes too, and it changes the digit sets of the columns exactly as it did
//! B's, so bands 1+2 changed at S complete it as they complete B changed at
//! T. So S ∪ T is a UA of that band 3's grid as well (the test
//! `guas_shared_by_digits_are_uas_of_the_bands_that_take_them` checks each
//! share with the solver, and debug builds assert it).

use crate::band::{band_of_grid, gangster};
use crate::bits::{GRID_FULL, cells};
use crate::grid::Grid;
use crate::search::Stats;
use crate::search::band3::Band3State;
use crate::search::harvest::Gua;
use crate::solver::other_solution;

use super::Shared;
use super::classes::Fresh;

impl Shared {
    /// Files the fresh GUAs of band 3 `from` (each with the other
    /// solution its final check found) by class, counted in `stats`: a GUA of a mini-row socket gives its S part
    /// to the class bits, and so to every band 3 with the class, as the
    /// GUA of its socket of the class. A GUA of another T gives its S to
    /// the class of the gangster its other solution makes, if a socket of
    /// the entry makes it ([`super::ClassGuas::class_of_gangster`] says why that
    /// is a GUA).
    pub(in crate::search) fn share_guas(
        &mut self,
        bands3: &mut [Band3State],
        from: usize,
        fresh: Vec<(Gua, Grid)>,
        stats: &mut Stats,
    ) {
        let classes = &mut self.classes;
        let grid = *bands3[from].grid();
        for (gua, other) in fresh {
            let class = match bands3[from].class_of_t(gua.t) {
                Some(class) => class,
                None => {
                    // A fresh GUA is a minimal UA, so every other
                    // solution of its complement differs from the grid
                    // exactly on it (the difference of two solutions is a
                    // UA); the final check's may differ on more.
                    let other = if grid.difference(&other) == gua.cells() {
                        other
                    } else {
                        other_solution(&grid, GRID_FULL & !gua.cells())
                            .expect("a minimal UA has a second solution")
                    };
                    match classes.class_of_gangster(&gangster(&band_of_grid(&other, 2))) {
                        Some(class) => class,
                        None => {
                            stats.shared_guas += share_by_digits(bands3, from, gua);
                            continue;
                        }
                    }
                }
            };
            let filed = classes.add_fresh(class, gua.s);
            if filed == Fresh::Held {
                continue;
            }
            let unbitted = filed == Fresh::Unbitted;
            for (k, band3) in bands3.iter_mut().enumerate() {
                let Some(t) = band3.class_t(class) else {
                    continue;
                };
                if (k, t) == (from, gua.t) {
                    // Its final check filed it already.
                    if unbitted {
                        band3.mark_unbitted(class, gua.s);
                    }
                    continue;
                }
                let mate = Gua { s: gua.s, t };
                debug_assert!(
                    other_solution(band3.grid(), GRID_FULL & !mate.cells()).is_some(),
                    "{mate:?} is no UA of {}",
                    band3.grid()
                );
                band3.add_class_gua(class, gua.s, unbitted);
                if k != from {
                    stats.shared_guas += 1;
                }
            }
        }
    }
}

/// Hands a fresh GUA of band 3 `from` that no class takes to every other
/// band 3 with the same digits in the cells of its T; returns how many
/// took it. Its other solution changes only T in band 3, and each row and
/// box of band 3 keeps its digits there; the same change in a band 3 with
/// T's digits keeps its rows and boxes too, and changes its columns'
/// digits as it changed those of `from`, so bands 1 and 2 changed at S
/// still complete it: S and T make a GUA of that band 3 as well.
fn share_by_digits(bands3: &mut [Band3State], from: usize, gua: Gua) -> u64 {
    let own = *bands3[from].grid().digits();
    let mut shared = 0;
    for (k, band3) in bands3.iter_mut().enumerate() {
        let band = band3.grid().digits();
        if k == from || cells(gua.t).any(|c| band[54 + c] != own[54 + c]) {
            continue;
        }
        debug_assert!(
            other_solution(band3.grid(), GRID_FULL & !gua.cells()).is_some(),
            "{gua:?} is no UA of {}",
            band3.grid()
        );
        band3.add_gua(gua);
        shared += 1;
    }
    shared
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::{BANDS12_FULL, Mask27};
    use crate::search::SearchConfig;
    use crate::search::harvest::minimal_ua;

    /// A fresh GUA handed on by digits is a UA of every band 3 that takes
    /// it (the solver finds the other solution), and the bands that take
    /// it are exactly those with its T's digits.
    #[test]
    fn guas_shared_by_digits_are_uas_of_the_bands_that_take_them() {
        let mut rng = fastrand::Rng::with_seed(12);
        let (mut guas, mut shared) = (0, 0);
        for seed in [3, 4, 5] {
            let grids = crate::search::signatures::tests::entry(seed);
            let config = SearchConfig::default();
            let mut bands3: Vec<Band3State> = grids
                .iter()
                .map(|&g| Band3State::new(g, Vec::new(), Vec::new(), config))
                .collect();
            for _ in 0..150 {
                // A minimal UA of the first grid with cells in both parts.
                let clues = (0..rng.usize(17..30)).fold(0u128, |m, _| m | 1 << rng.u32(..81));
                let Some(other) = other_solution(&grids[0], clues) else {
                    continue;
                };
                let ua = minimal_ua(&grids[0], grids[0].difference(&other));
                let (s, t) = (ua as u64 & BANDS12_FULL, (ua >> 54) as Mask27);
                if s == 0 || t == 0 {
                    continue;
                }
                let gua = Gua { s, t };
                let own = grids[0].digits();
                let mut takers = 0;
                for grid in &grids[1..] {
                    if cells(t).all(|c| grid.digits()[54 + c] == own[54 + c]) {
                        assert!(
                            other_solution(grid, GRID_FULL & !ua).is_some(),
                            "{gua:?} is no UA of {grid}"
                        );
                        takers += 1;
                    }
                }
                assert_eq!(share_by_digits(&mut bands3, 0, gua), takers);
                guas += 1;
                shared += takers;
            }
        }
        assert!(guas > 100 && shared > 20, "{guas} GUAs, {shared} shares");
    }
}
