//! Cross-checks of part 1 and part 2 against brute force on real cases:
//! with X fixed to the band-1 part of a known 17, part 1 must report
//! exactly the XY that a solver finds valid for bands 1+2 when trying every
//! Y of band 2; and for the XY of a known 17, band 3 must give exactly the
//! Z that make XYZ unique when trying every Z of band 3. The brute force
//! uses only the solver, never the tables, the UAs or the plan.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::*;
use crate::band::band_uas;
use crate::bits::{BANDS12_FULL, GRID_FULL, Mask27, Mask54, band_part, from_band};
use crate::canon::Transform;
use crate::known::{KnownIndex, check_lines};
use crate::solver::{count_solutions, other_solution};

const GRID29: &str =
    "123456789456789123798231564234675918815943276967812435379164852582397641641528397";

struct Case {
    catalogue: BandCatalogue,
    tables: BandTables<memmap2::Mmap>,
    grid: Grid,
    known: Vec<Puzzle>,
    /// The known list by solution grid.
    index: KnownIndex,
}

/// The band tables shared by the tests of this checkout, never the user's
/// cache: `target/tmp/bands.s17t`, where the integration tests'
/// `CARGO_TARGET_TMPDIR` points too. Unit tests have no such variable; their
/// binary is `target/<profile>/deps/s17-<hash>`.
/// Built once per test binary (the tests of this file run side by side).
fn test_table_path() -> &'static Path {
    static PATH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        let target = exe
            .ancestors()
            .nth(3)
            .expect("target/<profile>/deps/<binary>");
        let path = target.join("tmp").join("bands.s17t");
        BandTables::open_or_build(&path).unwrap();
        path
    })
}

/// The tables, the known list and the 29-17 grid, loaded once.
fn case() -> &'static Case {
    static CASE: OnceLock<Case> = OnceLock::new();
    CASE.get_or_init(|| {
        let root = env!("CARGO_MANIFEST_DIR");
        let text = std::fs::read_to_string(format!("{root}/data/known17.txt")).unwrap();
        let (good, _) = check_lines(text.lines().enumerate().map(|(i, l)| (i + 1, l)));
        let grid = Grid::parse(GRID29).unwrap();
        let index = KnownIndex::new(&good);
        let known = index.expected(&grid);
        assert_eq!(known.len(), 29);
        let tables = BandTables::open_or_build(test_table_path()).unwrap();
        Case {
            catalogue: BandCatalogue::new(),
            tables,
            grid,
            known,
            index,
        }
    })
}

/// The 29-17 grid, then `n` grids of the known list drawn with seed 18,
/// each in a random orientation.
fn golden_grids(n: usize) -> Vec<Grid> {
    let case = case();
    let grids: Vec<Grid> = case.index.entries().into_iter().map(|(g, _)| *g).collect();
    let mut rng = fastrand::Rng::with_seed(18);
    let mut out = vec![case.grid];
    for _ in 0..n {
        let grid = grids[rng.usize(..grids.len())];
        out.push(Transform::random(&mut rng).apply_grid(&grid));
    }
    out
}

/// Every k-subset of the 27 cells (Gosper's hack).
fn subsets27(k: usize) -> impl Iterator<Item = Mask27> {
    let mut next: u32 = if k == 0 { 0 } else { (1 << k) - 1 };
    let mut done = false;
    std::iter::from_fn(move || {
        if done || next >= 1 << 27 {
            return None;
        }
        let current = next;
        if current == 0 {
            done = true;
        } else {
            let c = current & current.wrapping_neg();
            let r = current + c;
            next = (((r ^ current) >> 2) / c) | r;
        }
        Some(current)
    })
}

/// The choice and row a puzzle of the case's grid belongs to.
fn locate(
    case: &Case,
    searcher: &Searcher<'_, memmap2::Mmap>,
    p: &Puzzle,
) -> (Choice, Counts, Mask81) {
    searcher
        .locate(&case.grid, p)
        .unwrap_or_else(|| panic!("{p} falls in no row of the plan"))
}

#[test]
fn part1_with_one_x_gives_exactly_the_valid_xy_of_brute_force() {
    let case = case();
    let searcher = Searcher::new(&case.catalogue, &case.tables, SearchConfig::default());
    let ids: Vec<_> = (0..3)
        .map(|b| case.catalogue.identify(&band_digits(&case.grid, b)))
        .collect();
    let mut checked = 0;
    for p in case.known.iter().step_by(7) {
        let (choice, counts, cells) = locate(case, &searcher, p);
        if counts.y > 6 {
            continue;
        }
        let mut state = searcher.prepare_choice(&case.grid, &choice);
        let x = crate::bits::band_part(cells, 0);
        let all_x = BandSets::for_band(
            &case.catalogue,
            &case.tables,
            &ids[choice.bands[0]],
            counts.x,
        );
        let one_x = all_x
            .only(x)
            .expect("a known 17's band-1 part is a valid set");
        let ysets = BandSets::for_band(
            &case.catalogue,
            &case.tables,
            &ids[choice.bands[1]],
            counts.y,
        );
        state.bands12.hooks.record_valid_xy = Some(Vec::new());
        // z = 27: band 3 can always hit every open GUA, so nothing but bands
        // 1+2 decides.
        state.run_row(
            &Row::single(Counts {
                x: one_x.size,
                y: ysets.size,
                z: 27,
            }),
            &one_x,
            &ysets,
        );
        let mut got = state.bands12.hooks.record_valid_xy.take().unwrap();
        got.sort_unstable();
        let band3 = GRID_FULL_BAND3;
        let mut expected: Vec<Mask54> = subsets27(counts.y)
            .map(|y| x as u64 | (y as u64) << 27)
            .filter(|&xy| {
                count_solutions(
                    &Puzzle::from_grid(state.band3().grid(), xy as u128 | band3),
                    2,
                ) == 1
            })
            .collect();
        expected.sort_unstable();
        assert!(expected.contains(&(cells as u64 & crate::bits::BANDS12_FULL)));
        assert_eq!(got, expected, "valid XY for X = {x:#x} of {p}");
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} cases checked");
}

const GRID_FULL_BAND3: Mask81 = crate::bits::GRID_FULL & !(crate::bits::BANDS12_FULL as u128);

#[test]
fn band3_gives_exactly_the_completions_of_brute_force() {
    let case = case();
    let searcher = Searcher::new(&case.catalogue, &case.tables, SearchConfig::default());
    let mut checked = 0;
    for p in case.known.iter().step_by(5) {
        let (choice, counts, cells) = locate(case, &searcher, p);
        if counts.z > 7 {
            continue;
        }
        let mut state = searcher.prepare_choice(&case.grid, &choice);
        let xy = cells as u64 & crate::bits::BANDS12_FULL;
        state.band3_mut().solve_band3(xy, counts.z);
        let mut got = state.band3().found().to_vec();
        got.sort_unstable();
        let mut expected: Vec<Mask81> = subsets27(counts.z)
            .map(|z| xy as u128 | (z as u128) << 54)
            .filter(|&c| count_solutions(&Puzzle::from_grid(state.band3().grid(), c), 2) == 1)
            .collect();
        expected.sort_unstable();
        assert!(expected.contains(&cells));
        assert_eq!(got, expected, "completions of the XY of {p}");
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} cases checked");
}

#[test]
fn every_known_17_survives_part1_and_the_bands12_check_at_its_own_z() {
    // For each 17 of the golden grids, its plan row is run with its true z
    // (so the GUA, socket and band-3 cuts all apply) over the X slice that
    // holds its X and every Y: its XY must come out of part 1 valid for
    // bands 1+2, and every XY that comes out must be.
    let case = case();
    let searcher = Searcher::new(&case.catalogue, &case.tables, SearchConfig::default());
    let band3 = GRID_FULL & !(BANDS12_FULL as u128);
    let (mut checked, mut splits) = (0, std::collections::BTreeSet::new());
    for grid in golden_grids(10) {
        let ids: Vec<_> = (0..3)
            .map(|b| case.catalogue.identify(&band_digits(&grid, b)))
            .collect();
        for p in case.index.expected(&grid) {
            let (choice, counts, cells) = searcher
                .locate(&grid, &p)
                .unwrap_or_else(|| panic!("{p} falls in no row of the plan"));
            let xy = cells as u64 & BANDS12_FULL;
            let sets = |band: usize, size: usize| {
                BandSets::for_band(&case.catalogue, &case.tables, &ids[band], size)
            };
            let xslice = sets(choice.bands[0], counts.x)
                .slice_holding(band_part(cells, 0))
                .expect("a 17's X is a valid band-1 set");
            let ysets = sets(choice.bands[1], counts.y);
            assert!(ysets.only(band_part(cells, 1)).is_some(), "{p}");
            let mut state = searcher.prepare_choice(&grid, &choice);
            state.bands12.hooks.record_valid_xy = Some(Vec::new());
            state.run_row(
                &Row::single(Counts {
                    x: xslice.size,
                    y: ysets.size,
                    z: counts.z,
                }),
                &xslice,
                &ysets,
            );
            let valid = state.bands12.hooks.record_valid_xy.take().unwrap();
            assert!(
                valid.contains(&xy),
                "grid {grid}: the XY of {p} ({counts:?}, band 3 {:?}) does not survive part 1",
                choice.band3_rank
            );
            for &v in &valid {
                let clues = v as u128 | band3;
                assert_eq!(other_solution(state.band3().grid(), clues), None, "{v:#x}");
            }
            checked += 1;
            splits.insert((choice.band3_rank, counts));
        }
    }
    // The 29 of the 29-17 grid and at least one per other grid, over the
    // three band-3 choices.
    assert!(checked >= 39, "{checked} 17s");
    let ranks: std::collections::BTreeSet<_> = splits.iter().map(|(r, _)| *r).collect();
    assert_eq!(ranks.len(), 3, "{splits:?}");
}

#[test]
fn every_set_harvested_at_the_default_limits_is_unavoidable() {
    // On the search grid of every band-3 choice of several grids (the 29-17
    // grid, three known grids, twenty random grids): every UA12, band-3 UA
    // and GUA has a second solution outside it.
    let case = case();
    let searcher = Searcher::new(&case.catalogue, &case.tables, SearchConfig::default());
    let limits = SearchConfig::default().harvest_limits();
    let mut grids = golden_grids(3);
    let mut rng = fastrand::Rng::with_seed(18);
    grids.extend((0..20).map(|_| crate::generate::random_grid(&mut rng)));
    let (mut ua12s, mut band3s, mut guas) = (0, 0, 0);
    for grid in &grids {
        let (_, plan) = searcher.plan_of(grid).unwrap();
        for choice in plan {
            let search_grid = reorder_bands(grid, choice.bands);
            let unavoidable =
                |set: Mask81| set != 0 && other_solution(&search_grid, GRID_FULL & !set).is_some();
            for u in harvest::harvest_ua12(&search_grid, &limits) {
                assert_eq!(u & !BANDS12_FULL, 0, "{u:#x}");
                assert!(unavoidable(u as u128), "UA12 {u:#x} of {search_grid}");
                ua12s += 1;
            }
            for t in band_uas(&band_digits(&search_grid, 2)) {
                assert!(
                    unavoidable(from_band(t, 2)),
                    "band-3 UA {t:#x} of {search_grid}"
                );
                band3s += 1;
            }
            for g in harvest::harvest_guas(&search_grid, &limits) {
                assert!(g.s != 0 && g.t != 0, "{g:?}");
                assert!(unavoidable(g.cells()), "GUA {g:?} of {search_grid}");
                guas += 1;
            }
        }
    }
    assert!(
        ua12s > 5000 && band3s > 200 && guas > 5000,
        "{ua12s} UA12, {band3s} band-3 UAs, {guas} GUAs"
    );
}

/// With the rows of a choice free to run on idle threads (a lone grid on
/// a two-thread pool), the search of the 29-17 grid still gives exactly
/// its 29 known 17s, whichever rows were taken by the other thread.
#[test]
fn split_rows_give_exactly_the_known_17s() {
    let (case, pool, expected) = split_case();
    let searcher =
        Searcher::new(&case.catalogue, &case.tables, SearchConfig::default()).with_split_rows(true);
    for _ in 0..2 {
        let result = pool
            .install(|| searcher.search_as_given(&case.grid))
            .unwrap();
        assert_eq!(result.puzzles, expected);
        // Every choice's rows were timed, on whichever thread ran them.
        assert!(
            result
                .by_choice
                .iter()
                .all(|(_, s)| s.cpu_time > Duration::ZERO)
        );
        let choices: Duration = result.by_choice.iter().map(|(_, s)| s.cpu_time).sum();
        assert!(result.cpu_time >= choices);
    }
}

/// The thread clock counts this thread's work and not its waiting: a
/// paused or descheduled search is not charged for the pause.
#[test]
fn the_thread_clock_counts_work_not_waiting() {
    let clock = ThreadClock::start();
    std::thread::sleep(Duration::from_millis(300));
    let slept = clock.elapsed();
    assert!(slept < Duration::from_millis(100), "{slept:?}");
    // A fixed amount of work (a chain of 10^8 dependent multiply-adds,
    // about 0.1 s of CPU at 4 GHz), not a wall-time loop: on a loaded
    // machine a wall-time loop gets a small share of a core, the same work
    // only takes longer.
    let clock = ThreadClock::start();
    let mut x = 1u64;
    for _ in 0..100_000_000u64 {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
    }
    let worked = clock.elapsed();
    assert!(worked > Duration::from_millis(20), "{worked:?}");
}

/// The 29-17 grid's case, a two-thread pool and its known 17s, sorted.
fn split_case() -> (&'static Case, rayon::ThreadPool, Vec<Puzzle>) {
    let case = case();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut expected = case.known.clone();
    expected.sort();
    (case, pool, expected)
}

/// `with_split_rows_after(2)`: the rows stay on one state per choice
/// while a grid waits, and may go to idle threads from the moment the
/// second (last) grid starts; both searches give exactly the 29 known
/// 17s of the 29-17 grid.
#[test]
fn rows_split_once_the_last_grid_has_started() {
    let (case, pool, expected) = split_case();
    let searcher = Searcher::new(&case.catalogue, &case.tables, SearchConfig::default())
        .with_split_rows_after(2);
    assert!(!searcher.split_now());
    let first = pool.install(|| searcher.search_as_given(&case.grid));
    assert!(!searcher.split_now(), "one grid of two started");
    assert_eq!(first.unwrap().puzzles, expected);
    let second = pool.install(|| searcher.search_as_given(&case.grid));
    assert!(searcher.split_now(), "the last grid started");
    assert_eq!(second.unwrap().puzzles, expected);
}

#[test]
fn grid_sets_of_7_and_8_are_exactly_the_valid_sets_of_brute_force() {
    // A set of cells of a band is a valid band clue set exactly when, with
    // the other two bands given in full, the grid is the only completion
    // (the completions are the bands with the same gangster that agree with
    // the set): every 7- and 8-subset of two bands of the 29-17 grid, tried
    // with the solver, against the sets the search builds on demand.
    let case = case();
    let ids: Vec<_> = (0..3)
        .map(|b| case.catalogue.identify(&band_digits(&case.grid, b)))
        .collect();
    let sets = GridSets::new();
    for (band, size) in [(0, 7), (1, 8), (2, 7), (0, 8)] {
        let build = || BandSets::for_band(&case.catalogue, &case.tables, &ids[band], size);
        let mut got: Vec<Mask27> = sets.get(band, size, build).full_sets().collect();
        got.sort_unstable();
        let others = GRID_FULL & !from_band(crate::bits::BAND_FULL, band);
        let want: Vec<Mask27> = subsets27(size)
            .filter(|&s| other_solution(&case.grid, others | from_band(s, band)).is_none())
            .collect();
        assert_eq!(got.len(), want.len(), "band {band}, size {size}");
        assert_eq!(got, want, "band {band}, size {size}");
        // Built once: the second ask is the same list.
        let again = sets.get(band, size, || unreachable!("built already"));
        assert_eq!(again.len(), want.len());
    }
}

/// With `--first`, the 18 search leaves the 6-6-6 row (hi's, the costliest)
/// for last, after every other row of every choice: on grid 1 of `s17
/// generate --seed 36`, whose minimal 18s lie in rows of mid and lo, it
/// stops at one of them without searching the 6-6-6 row (11.5 s of CPU
/// when that row came at the end of hi's rows, 2.7 s since).
#[test]
fn first_leaves_the_6_6_6_row_for_last() {
    let case = case();
    let searcher = Searcher::new(&case.catalogue, &case.tables, SearchConfig::default())
        .with_goal(Goal::first_of(18));
    let grid = crate::generate::random_grid(&mut fastrand::Rng::with_seed(36));
    let result = searcher.search(&grid).unwrap();
    assert_eq!(result.puzzles.len(), 1, "{grid} has a minimal 18");
    let clues = result.puzzles[0].clue_mask();
    assert_eq!(clues.count_ones(), 18);
    assert!(other_solution(&grid, clues).is_none(), "not unique");
    assert!(crate::solver::is_minimal(&grid, clues), "not minimal");
    let six = Counts { x: 6, y: 6, z: 6 };
    assert!(
        result.by_row.iter().all(|(_, counts, _)| *counts != six),
        "the 6-6-6 row was searched"
    );
    assert!(result.by_row.iter().any(|(rank, _, _)| *rank != Rank::Hi));
}
