//! Tests of the band-3 state: its socket checks and band 3 on every GUA
//! against direct answers from the GUA list and brute force.
//!
//! What they guard (ARCHITECTURE.md, "Where a puzzle could be lost"): a
//! valid XY filtered out by the socket checks. `band3_can_take_agrees_with_brute_force`
//! (the socket check and its short cuts against a brute-force hitting set),
//! `survivor_check_agrees_with_every_gua` (in both modes),
//! `mini_row_clues_agree_with_the_sockets_t`.

use super::index::STAGE1_CELLS;
use super::*;
use crate::band::band_uas;
use crate::bits::{BAND_FULL, BANDS12_FULL, cells};
use crate::generate::random_grid;
use crate::search::harvest::harvest_guas;
use crate::search::hitting::MiniRowBound;
use crate::search::sets::BAND1;
use crate::search::shared::classes::{ClassGuas, Fresh};

/// Whether at most `z` cells hit every set: branch on a cell of the
/// first set not hit yet (a hitting set holds one).
fn brute(sets: &[Mask27], clues: Mask27, z: usize) -> bool {
    match sets.iter().find(|&&t| t & clues == 0) {
        None => true,
        Some(_) if z == 0 => false,
        Some(&t) => cells(t).any(|c| brute(sets, clues | 1 << c, z - 1)),
    }
}

/// A random grid, its band 3's UAs and its band-3 state with the GUAs
/// of the default harvest.
fn harvested_state(rng: &mut fastrand::Rng) -> (Grid, Vec<Mask27>, Band3State) {
    let limits = SearchConfig::default().harvest_limits();
    let grid = random_grid(rng);
    let band3: [u8; 27] = grid.digits()[54..].try_into().unwrap();
    let uas = band_uas(&band3);
    let state = Band3State::new(
        grid,
        harvest_guas(&grid, &limits),
        uas.clone(),
        SearchConfig::default(),
    );
    (grid, uas, state)
}

/// A survivor's way through band 3 (its open sockets, then band 3 on
/// every GUA, in two stages by the size of the parts) answers exactly
/// whether `z` clues can hit the band-3 part of every GUA that XY
/// misses and band 3's own UAs, read directly from the GUA list: on
/// harvested grids with many added GUAs of every size, so that the
/// slice's view holds small and large parts (random sets, not UAs:
/// this checks the index, not soundness), fresh GUAs joining a slice
/// included.
#[test]
fn survivor_check_agrees_with_every_gua() {
    use crate::search::hitting::can_hit;
    let mut rng = fastrand::Rng::with_seed(41);
    let (mut yes, mut no, mut staged) = (0, 0, 0);
    let random_cells = |rng: &mut fastrand::Rng, from: u64, n: usize| {
        let cells: Vec<usize> = (0..64).filter(|&c| from >> c & 1 != 0).collect();
        (0..n).fold(0u64, |m, _| m | 1 << cells[rng.usize(..cells.len())])
    };
    // Its T holds two cells or more, as a UA's part in a band does (a
    // T of one cell would lie in one mini-row without being a
    // mini-row socket's).
    let gua = |rng: &mut fastrand::Rng| {
        let (ns, nt) = (rng.usize(10..24), rng.usize(2..13));
        let t = loop {
            let t = random_cells(rng, BAND_FULL as u64, nt) as Mask27;
            if t.count_ones() >= 2 {
                break t;
            }
        };
        Gua {
            s: random_cells(rng, BANDS12_FULL, ns),
            t,
        }
    };
    // A GUA filed in the state and, if its T is a mini-row socket's,
    // in the class bits (fresh or not), as `Bands12` does.
    let file = |state: &mut Band3State, classes: &mut ClassGuas, g: Gua, fresh: bool| {
        state.add_gua(g);
        let Some(class) = state.class_of_t(g.t).filter(|_| state.class_mode) else {
            return;
        };
        if !fresh {
            classes.add(class, g.s);
        } else if classes.add_fresh(class, g.s) == Fresh::Unbitted {
            state.mark_unbitted(class, g.s);
        }
    };
    // A random GUA of a mini-row socket.
    let class_gua = |rng: &mut fastrand::Rng, state: &Band3State| {
        let (_, t) = state.sockets.class_sockets[rng.usize(..CLASS_SOCKETS)];
        let n = rng.usize(14..26);
        Gua {
            s: random_cells(rng, BANDS12_FULL, n),
            t,
        }
    };
    // Class mode (bits shared by class, all or some of them) and the
    // one-grid search's bits per band 3.
    for (class_mode, limit) in [(true, 4096), (true, 60), (false, 0)] {
        let (grid, uas, mut state) = harvested_state(&mut rng);
        if class_mode {
            state.use_class_bits();
        }
        let mut classes = ClassGuas::new(limit);
        classes.add_sockets(&grid);
        for (class, s) in state.class_parts() {
            classes.add(class, s);
        }
        for _ in 0..600 {
            let g = gua(&mut rng);
            file(&mut state, &mut classes, g, false);
        }
        for _ in 0..100 {
            let g = class_gua(&mut rng, &state);
            file(&mut state, &mut classes, g, false);
        }
        for _ in 0..20 {
            // An X slice: its pair and live cells in band 1.
            let pair = random_cells(&mut rng, BAND1, 2) as Mask27;
            let live = random_cells(&mut rng, BAND1 & !(pair as u64), 12) as Mask27;
            classes.prepare_x_slice(pair, live);
            let unbitted = if class_mode { classes.unbitted() } else { &[] };
            state.prepare_x_slice(pair, live, unbitted);
            for round in 0..60 {
                if round == 30 {
                    // Fresh GUAs join the slice.
                    for k in 0..40 {
                        let g = gua(&mut rng);
                        file(&mut state, &mut classes, g, true);
                        if k % 4 == 0 {
                            let g = class_gua(&mut rng, &state);
                            file(&mut state, &mut classes, g, true);
                        }
                    }
                }
                let z = rng.usize(5..=9);
                let (nx, ny) = (rng.usize(2..7), rng.usize(4..11));
                let x = random_cells(&mut rng, live as u64, nx);
                let y = random_cells(&mut rng, BANDS12_FULL & !BAND1, ny);
                let step_classes = class_mode.then(|| classes.step_forced(y));
                let Some(forced) = state.step_forced(y, z, step_classes.as_ref()) else {
                    continue;
                };
                let xy = pair as u64 | x | y;
                let open = class_mode.then(|| classes.open_classes(x | y));
                let class_open = open
                    .as_ref()
                    .map_or(0, |c| state.sockets.class_sockets_of(c));
                let passes = state.survivor_passes(x | y, xy, forced, z, class_open);
                let index = &state.gua_index;
                let mut required: Vec<Mask27> = (0..index.s.len())
                    .filter(|&k| index.s[k] & xy == 0)
                    .map(|k| index.parts[index.all.part[k] as usize].0)
                    .collect();
                staged += required.iter().any(|t| t.count_ones() > STAGE1_CELLS) as usize;
                required.extend(&uas);
                let expected = can_hit(&required, 0, 0, z, &mut Vec::new());
                assert_eq!(passes, expected, "grid {grid}, xy {xy:#x}, z {z}");
                if expected { yes += 1 } else { no += 1 }
            }
        }
        state.end_slice();
        classes.end_slice();
    }
    assert!(yes > 100 && no > 100 && staged > 500, "{yes} {no} {staged}");
}

/// The mini-row bound read from the socket bits equals the one built
/// from the open sockets' T's, and the quick bounds agree with the
/// full ones, on random socket sets of harvested grids (sockets past
/// the mini-row ones included).
#[test]
fn mini_row_clues_agree_with_the_sockets_t() {
    let mut rng = fastrand::Rng::with_seed(32);
    let mut seen = [0usize; 10];
    for _ in 0..4 {
        let (grid, _, mut state) = harvested_state(&mut rng);
        // Sockets of larger T's (random sets: the bound reads T's only).
        while state.sockets.socket_t.len() < CLASS_SOCKETS + 12 {
            let t: Mask27 = (0..rng.usize(4..=7)).fold(0, |t, _| t | 1 << rng.usize(..27));
            if t.count_ones() < 4 {
                continue;
            }
            let s = rng.u64(..) & BANDS12_FULL;
            state.add_gua(Gua { s, t });
        }
        let sockets = state.sockets.socket_t.len();
        for _ in 0..3000 {
            let mut open: Sockets = 0;
            for _ in 0..rng.usize(0..=24) {
                open |= 1 << rng.usize(..sockets);
            }
            let mut bound = MiniRowBound::default();
            for s in cells(open) {
                bound.add(state.sockets.socket_t[s]);
            }
            let clues = state.sockets.mini_row_clues(open);
            assert_eq!(clues, bound.clues(), "open {open:#x}, grid {grid}");
            for z in clues.saturating_sub(1)..=clues + 1 {
                let pass = state.sockets.bounds_allow(open, z).is_some();
                assert_eq!(
                    state.sockets.bounds_pass(open, z),
                    pass,
                    "open {open:#x}, z {z}"
                );
            }
            seen[clues.min(9)] += 1;
        }
    }
    // Bounds from none to many, with mini-rows needing two.
    assert!(seen[0] > 0 && seen[9] > 0, "{seen:?}");
}

/// The socket check of part 1 (and its short cuts: mini-row bound,
/// dominated sockets, disjoint sets, witnesses) answers exactly whether
/// `z` clues can hit the open sockets' T's and band 3's own UAs, on
/// random socket sets of harvested grids, bounds met exactly included.
#[test]
fn band3_can_take_agrees_with_brute_force() {
    let mut rng = fastrand::Rng::with_seed(31);
    let (mut tight, mut yes, mut no) = (0, 0, 0);
    for _ in 0..4 {
        let (grid, uas, mut state) = harvested_state(&mut rng);
        let sockets = state.sockets.socket_t.len();
        assert!(sockets > 8, "a grid has sockets");
        for _ in 0..1500 {
            let mut open: Sockets = 0;
            for _ in 0..rng.usize(0..=8) {
                open |= 1 << rng.usize(..sockets);
            }
            let z = rng.usize(1..=7);
            let mut sets: Vec<Mask27> = cells(open).map(|s| state.sockets.socket_t[s]).collect();
            sets.extend(&uas);
            let expected = brute(&sets, 0, z);
            tight += (state.sockets.mini_row_clues(open) == z) as usize;
            if expected {
                yes += 1
            } else {
                no += 1
            }
            assert_eq!(
                state.band3_can_take(open, z),
                expected,
                "open {open:#x}, z {z}, grid {grid}"
            );
        }
    }
    // The sample meets every case: feasible, infeasible, bound = z.
    assert!(tight > 50 && yes > 500 && no > 500, "{tight} {yes} {no}");
}
