//! Cross-checks of part 1 and part 2 against brute force on real cases:
//! with X fixed to the band-1 part of a known 17, part 1 must report
//! exactly the XY that a solver finds valid for bands 1+2 when trying every
//! Y of band 2; and for the XY of a known 17, band 3 must give exactly the
//! Z that make XYZ unique when trying every Z of band 3. The brute force
//! uses only the solver, never the tables, the UAs or the plan.

use std::path::{Path, PathBuf};

use super::*;
use crate::bits::{Mask27, Mask54};
use crate::known::{KnownIndex, check_lines};
use crate::solver::count_solutions;

const GRID29: &str =
    "123456789456789123798231564234675918815943276967812435379164852582397641641528397";

struct Case {
    catalogue: BandCatalogue,
    tables: BandTables<memmap2::Mmap>,
    grid: Grid,
    known: Vec<Puzzle>,
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
        BandTables::open_or_build(&path, false).unwrap();
        path
    })
}

fn case() -> Case {
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/data/known17.txt")).unwrap();
    let (good, _) = check_lines(text.lines().enumerate().map(|(i, l)| (i + 1, l)));
    let grid = Grid::parse(GRID29).unwrap();
    let known = KnownIndex::new(&good).expected(&grid);
    assert_eq!(known.len(), 29);
    let tables = BandTables::open_or_build(test_table_path(), false).unwrap();
    Case {
        catalogue: BandCatalogue::new(),
        tables,
        grid,
        known,
    }
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
        let (choice, counts, cells) = locate(&case, &searcher, p);
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
        state.record_valid_xy = Some(Vec::new());
        // z = 27: band 3 can always hit every open GUA, so nothing but bands
        // 1+2 decides.
        state.run_row(&one_x, &ysets, 27);
        let mut got = state.record_valid_xy.take().unwrap();
        got.sort_unstable();
        let band3 = GRID_FULL_BAND3;
        let mut expected: Vec<Mask54> = subsets27(counts.y)
            .map(|y| x as u64 | (y as u64) << 27)
            .filter(|&xy| {
                count_solutions(&Puzzle::from_grid(&state.grid, xy as u128 | band3), 2) == 1
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
        let (choice, counts, cells) = locate(&case, &searcher, p);
        if counts.z > 7 {
            continue;
        }
        let mut state = searcher.prepare_choice(&case.grid, &choice);
        let xy = cells as u64 & crate::bits::BANDS12_FULL;
        state.solve_band3(xy, counts.z);
        let mut got = state.found.clone();
        got.sort_unstable();
        let mut expected: Vec<Mask81> = subsets27(counts.z)
            .map(|z| xy as u128 | (z as u128) << 54)
            .filter(|&c| count_solutions(&Puzzle::from_grid(&state.grid, c), 2) == 1)
            .collect();
        expected.sort_unstable();
        assert!(expected.contains(&cells));
        assert_eq!(got, expected, "completions of the XY of {p}");
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} cases checked");
}
