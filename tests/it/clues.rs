//! `--clues N` on the real binary, checked against oracles that share no
//! search code: they use the solver, the canonical forms and the known
//! list, never `s17::search` (its options table gives the tuning flags).
//!
//! - **17 plus one.** On grids holding known 17s (the known list is
//!   complete), the non-minimal 18s are exactly a known 17 plus one of its
//!   64 empty cells: `--clues 18 --non-minimal` prints all of them and
//!   otherwise only minimal 18s; `--clues 18` prints none of them, and
//!   everything else the non-minimal run prints.
//! - **Minimal 18s near the 17s.** Every set "a known 17 less one clue,
//!   plus two cells" with one solution and no known 17 inside is a minimal
//!   18; the solver alone builds them, and `--clues 18` prints each.
//! - **Every puzzle printed** has N clues, agrees with the grid, has one
//!   solution and is minimal (each clue removed: two solutions or more)
//!   unless `--non-minimal`; `--first` prints at most one.
//! - **No 16**: `--clues 16` prints nothing on grids holding 17s and on
//!   random grids.
//! - **Invariance**: a grid, its transpose and a random relabelling and
//!   reordering give the same 18s in minlex form (and exactly the images
//!   of each other's); so do tuning variants and the portable kernels.
//! - **`--first`** prints one puzzle of the full search, and nothing
//!   exactly when the full search prints nothing.
//!   On grids holding 17s it answers by its first look around a 17.
//! - **`scan --clues 18`** writes what `search --clues 18` prints, and
//!   refuses to resume with other `--clues`, `--first` or `--non-minimal`.
//!
//! Each (grid, flags) is searched once for the whole file, and every
//! output is checked as it comes. A full 18 search costs 2 to 60 s of CPU
//! per grid, so CI searches a sample (three grids of the golden corpus,
//! two random grids; said at [`SEARCHED`] and `random_18_grids`, about 2
//! to 3 minutes of CPU in all, release build); the oracles run in full,
//! and the ignored test `the_whole_golden_corpus` runs the 18 checks on
//! the whole corpus (`cargo test --release --test it clues:: -- --ignored`).
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): an 18
//! answered by the first look that is not a minimal puzzle of the grid, or a
//! look that never answers (`first_looks_around_a_17`: the corpus grids
//! answered by the look, around their known 17s;
//! `first_prints_a_puzzle_of_the_full_search`: the answer is one of the full
//! search's 18s).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

use crate::common::{GRID29, fixture, golden_grids};
use rayon::prelude::*;
use s17::bits::{GRID_FULL, Mask81, cells};
use s17::canon::{Transform, minlex_puzzle};
use s17::grid::{Grid, Puzzle};
use s17::search::TUNING_OPTIONS;
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
/// True if the puzzle `inner` is a subset of the puzzle `outer`.
fn within(inner: Mask81, outer: Mask81) -> bool {
    inner & outer == inner
}

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
        .filter(|&m| !seventeens.iter().any(|&k| within(k, m)))
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

    fn puzzles(&self, masks: &BTreeSet<Mask81>) -> BTreeSet<Puzzle> {
        masks
            .iter()
            .map(|&m| Puzzle::from_grid(&self.grid, m))
            .collect()
    }
}

/// The golden corpus (`crate::common::golden_grids`: the 29-17 grid, then ten
/// grids with one or two known 17s) with its oracles, built once (about
/// 10 s of CPU, most of it the 29-17 grid's near-17 18s).
fn golden() -> &'static [KnownGrid] {
    static GOLDEN: OnceLock<Vec<KnownGrid>> = OnceLock::new();
    GOLDEN.get_or_init(|| golden_grids().into_iter().map(KnownGrid::new).collect())
}

/// The grids of the golden corpus whose 18s CI searches (positions in
/// [`golden`]). Sampled: a full 18 search costs 3 to 60 s of CPU per
/// grid, so CI takes three of the cheapest (3, 11 and 5 s on one thread),
/// grid 6 among them for its two known 17s (18s holding both count once
/// in the 17-plus-one set). The whole corpus, the 29-17 grid included, is
/// the ignored test `the_whole_golden_corpus`.
const SEARCHED: [usize; 3] = [3, 6, 8];

/// The grids of [`SEARCHED`] with their oracles.
fn corpus() -> Vec<&'static KnownGrid> {
    SEARCHED.iter().map(|&k| &golden()[k]).collect()
}

// ---------------------------------------------------------------------------
// The binary

fn tables() -> &'static str {
    fixture();
    concat!(env!("CARGO_TARGET_TMPDIR"), "/bands.s17t")
}

fn s17(args: &[&str], dir: Option<&Path>, portable: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_s17"));
    command.args(args);
    command.env_remove("RUST_LOG");
    match portable {
        true => command.env("S17_PORTABLE", "1"),
        false => command.env_remove("S17_PORTABLE"),
    };
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    command.output().unwrap()
}

fn stdout_lines(out: &Output, what: &str) -> Vec<String> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{what}: {stderr}");
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// What a search is asked: the clue count, `--first`, `--non-minimal`, the
/// tuning flags and whether the portable kernels are forced.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Ask {
    clues: usize,
    first: bool,
    non_minimal: bool,
    tuning: Vec<String>,
    portable: bool,
}

impl Ask {
    fn clues(clues: usize) -> Ask {
        Ask {
            clues,
            ..Ask::default()
        }
    }

    fn first(self) -> Ask {
        Ask {
            first: true,
            ..self
        }
    }

    fn non_minimal(self) -> Ask {
        Ask {
            non_minimal: true,
            ..self
        }
    }

    /// The flags of the ask (and the tables), after the subcommand.
    fn flags(&self) -> Vec<String> {
        let mut flags = vec!["--tables".to_string(), tables().to_string()];
        flags.extend(["--clues".to_string(), self.clues.to_string()]);
        if self.first {
            flags.push("--first".into());
        }
        if self.non_minimal {
            flags.push("--non-minimal".into());
        }
        flags.extend(self.tuning.iter().cloned());
        flags
    }
}

/// Checks what a search printed for `grid` under `ask`: no line twice, at
/// most one with `--first`, and each an N-clue puzzle of the grid with one
/// solution, minimal unless `--non-minimal`.
fn check_printed(grid: &Grid, ask: &Ask, found: &[Puzzle]) {
    let distinct: BTreeSet<&Puzzle> = found.iter().collect();
    assert_eq!(distinct.len(), found.len(), "{grid} {ask:?}: a line twice");
    assert!(!ask.first || found.len() <= 1, "{grid} {ask:?}: {found:?}");
    let bad: Vec<&Puzzle> = found
        .par_iter()
        .filter(|p| {
            let m = p.clue_mask();
            p.clue_count() != ask.clues
                || !p.agrees_with(grid)
                || !unique(grid, m)
                || (!ask.non_minimal && !minimal(grid, m))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{grid} {ask:?}: not valid {}-clue{} puzzles of the grid: {bad:?}",
        ask.clues,
        if ask.non_minimal { "" } else { " minimal" }
    );
}

/// `s17 search ASK GRID`'s puzzles, each checked by [`check_printed`].
/// Each (grid, ask) is run once for the whole file (tests share runs).
fn search(grid: &Grid, ask: &Ask) -> Arc<BTreeSet<Puzzle>> {
    type Runs = Mutex<HashMap<(Grid, Ask), Arc<OnceLock<Arc<BTreeSet<Puzzle>>>>>>;
    static RUNS: OnceLock<Runs> = OnceLock::new();
    let cell = {
        let mut runs = RUNS.get_or_init(Runs::default).lock().unwrap();
        Arc::clone(runs.entry((*grid, ask.clone())).or_default())
    };
    Arc::clone(cell.get_or_init(|| {
        let mut args = vec!["search".to_string()];
        args.extend(ask.flags());
        args.push(grid.to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = s17(&args, None, ask.portable);
        let found: Vec<Puzzle> = stdout_lines(&out, &format!("{args:?}"))
            .iter()
            .map(|l| Puzzle::parse(l).unwrap_or_else(|e| panic!("{args:?}: {l:?}: {e}")))
            .collect();
        check_printed(grid, ask, &found);
        Arc::new(found.into_iter().collect())
    }))
}

/// `count` random grids of `s17 generate --seed SEED`.
fn random_grids(count: usize, seed: u64) -> Vec<Grid> {
    let (n, seed) = (count.to_string(), seed.to_string());
    let out = s17(&["generate", "-n", &n, "--seed", &seed], None, false);
    let grids: Vec<Grid> = stdout_lines(&out, "generate")
        .iter()
        .map(|l| Grid::parse(l).unwrap())
        .collect();
    assert_eq!(grids.len(), count);
    grids
}

/// Random grids whose full 18 search is run (the `--first` check's
/// "nothing" side: a random grid almost never holds an 18). Sampled for
/// CI: grids 11 and 12 of `generate -n 12 --seed 36`, whose 18 searches
/// take about 2 s each on one thread (grid 1 takes 20 s, and holds two
/// minimal 18s: it is in the ignored test `the_whole_golden_corpus`).
fn random_18_grids() -> Vec<Grid> {
    random_grids(12, 36)[10..].to_vec()
}

// ---------------------------------------------------------------------------
// The checks

/// The oracles before the search is checked against them, on the whole
/// golden corpus: the 17-plus-one sets are valid and not minimal; the
/// near-17 18s are minimal by the solver (so no clue of them is a known
/// 17's missing one: the known list's completeness agrees) and hold no
/// known 17; the plain backtracking solver agrees with the fast one on a
/// sample.
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
            assert!(!k.seventeens.iter().any(|&s| within(s, m)));
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

/// Every known 17 plus one cell comes out of `--clues 18 --non-minimal`,
/// and the non-minimal puzzles it prints are exactly those; `--clues 18`
/// prints what it prints less those.
#[test]
fn eighteen_is_every_17_plus_one_and_the_minimal_18s() {
    for k in corpus() {
        check_plus_one(k);
    }
}

/// Every near-17 minimal 18 of the oracle comes out of `--clues 18`.
#[test]
fn the_minimal_18s_near_the_17s_are_found() {
    for k in corpus() {
        check_near(k);
    }
}

/// The two checks above on every grid of the golden corpus, the 29-17
/// grid included, and the invariance check on a random grid holding 18s:
/// the CI sample's full version (minutes; `cargo test --release --test
/// clues -- --ignored`). The number of minimal 18s of each grid goes to
/// stderr (`--nocapture`).
#[test]
#[ignore]
fn the_whole_golden_corpus() {
    for (n, k) in golden().iter().enumerate() {
        check_plus_one(k);
        check_near(k);
        let found = search(&k.grid, &Ask::clues(18));
        eprintln!("golden grid {n} {}: {} minimal 18s", k.grid, found.len());
    }
    check_invariance(&random_grids(1, 36)[0]);
}

/// [`eighteen_is_every_17_plus_one_and_the_minimal_18s`] on one grid.
fn check_plus_one(k: &KnownGrid) {
    {
        let all = search(&k.grid, &Ask::clues(18).non_minimal());
        let plus_one = k.puzzles(&k.plus_one);
        let not_minimal: BTreeSet<Puzzle> = all
            .par_iter()
            .filter(|p| !minimal(&k.grid, p.clue_mask()))
            .copied()
            .collect();
        let missed: Vec<&Puzzle> = plus_one.difference(&all).collect();
        assert!(missed.is_empty(), "{}: 17 + 1 missed: {missed:?}", k.grid);
        assert_eq!(not_minimal, plus_one, "{}", k.grid);
        let minimal_only = search(&k.grid, &Ask::clues(18));
        let expected: BTreeSet<Puzzle> = all.difference(&plus_one).copied().collect();
        assert_eq!(*minimal_only, expected, "{}", k.grid);
    }
}

/// [`the_minimal_18s_near_the_17s_are_found`] on one grid.
fn check_near(k: &KnownGrid) {
    {
        let found = search(&k.grid, &Ask::clues(18));
        let near = k.puzzles(&k.near);
        let missed: Vec<&Puzzle> = near.difference(&found).collect();
        assert!(
            missed.is_empty(),
            "{}: {} of {} near-17 minimal 18s missed: {missed:?}",
            k.grid,
            missed.len(),
            near.len()
        );
        assert!(found.len() >= near.len());
    }
}

/// `--clues 17` prints the known 17s, as the default does, with or without
/// `--non-minimal` (every valid 17 is minimal).
#[test]
fn seventeen_is_the_known_17s() {
    for k in corpus() {
        let known: BTreeSet<Mask81> = k.seventeens.iter().copied().collect();
        let known = k.puzzles(&known);
        assert_eq!(*search(&k.grid, &Ask::clues(17)), known);
        assert_eq!(*search(&k.grid, &Ask::clues(17).non_minimal()), known);
    }
}

/// No 16 exists: `--clues 16` prints nothing on the golden corpus and on
/// random grids.
#[test]
fn sixteen_finds_nothing() {
    let mut grids = golden_grids();
    grids.extend(random_grids(NO_16_RANDOM, 16));
    for grid in &grids {
        let found = search(grid, &Ask::clues(16));
        assert!(found.is_empty(), "{grid}: {found:?}");
    }
}

/// Random grids of the `--clues 16` check; a search for 16s is cheap (its
/// rows need bands of 6 or more), so a few.
const NO_16_RANDOM: usize = 4;

/// The minlex forms of a set of puzzles.
fn minlex_set(puzzles: &BTreeSet<Puzzle>) -> BTreeSet<Puzzle> {
    puzzles.par_iter().map(|p| minlex_puzzle(p).0).collect()
}

/// A grid, its transpose and a random relabelling and reordering of it
/// (rows in bands, bands, columns in stacks, stacks; no transposition)
/// have the same 18s in minlex form, and the 18s of each image are the
/// images of the grid's. Sampled: the cheapest grid of the corpus (its
/// 18s: the 64 17-plus-one ones aside, 27 minimal ones).
#[test]
fn the_18s_do_not_depend_on_the_grid_s_form() {
    check_invariance(&corpus()[0].grid);
}

/// [`the_18s_do_not_depend_on_the_grid_s_form`] on one grid.
fn check_invariance(grid: &Grid) {
    let grid = *grid;
    let mut rng = fastrand::Rng::with_seed(36);
    let t = loop {
        let t = Transform::random(&mut rng);
        if !t.transposed() {
            break t;
        }
    };
    let found = search(&grid, &Ask::clues(18));
    assert!(!found.is_empty(), "{grid} holds 18s");
    let forms = minlex_set(&found);
    let transposed = search(&grid.transposed(), &Ask::clues(18));
    let moved = search(&t.apply_grid(&grid), &Ask::clues(18));
    assert_eq!(minlex_set(&transposed), forms, "{grid} transposed");
    assert_eq!(minlex_set(&moved), forms, "{grid} under {t:?}");
    let images: BTreeSet<Puzzle> = found.iter().map(Puzzle::transposed).collect();
    assert_eq!(*transposed, images);
    let images: BTreeSet<Puzzle> = found.iter().map(|p| t.apply_puzzle(p)).collect();
    assert_eq!(*moved, images);
}

/// Two non-default values of each tuning option (the low and the high
/// side of its default where the range has them). A new option must be
/// added here.
fn tuning_variants() -> Vec<Vec<String>> {
    let values = |name: &str| -> [usize; 2] {
        match name {
            "chunk" => [16, 4096],
            "ua-limit" => [16, 128],
            "gua-limit" => [0, 64],
            "ua12-digits" => [2, 5],
            "gua-digits" => [2, 5],
            "fillings" => [3, 100_000],
            other => panic!("no test values for the tuning option --{other}"),
        }
    };
    let mut variants = Vec::new();
    for option in &TUNING_OPTIONS {
        for value in values(option.name) {
            assert_ne!(value, option.default, "--{}", option.name);
            assert!((option.min..=option.max).contains(&value));
            variants.push(vec![format!("--{}", option.name), value.to_string()]);
        }
    }
    variants
}

/// Every tuning variant and the portable kernels give the 18s of the
/// default setting, on two grids: the cheapest grid of the corpus and a
/// random grid.
#[test]
fn tuning_and_portable_kernels_find_the_same_18s() {
    let grids = [corpus()[0].grid, random_18_grids()[0]];
    for grid in &grids {
        let default = search(grid, &Ask::clues(18));
        let portable = Ask {
            portable: true,
            ..Ask::clues(18)
        };
        assert_eq!(search(grid, &portable), default, "{grid} portable");
    }
    for tuning in tuning_variants() {
        let ask = Ask {
            tuning,
            ..Ask::clues(18)
        };
        for grid in &grids {
            let found = search(grid, &ask);
            assert_eq!(found, search(grid, &Ask::clues(18)), "{grid} {ask:?}");
        }
    }
}

/// `found_first` (what `--first` printed) is one puzzle of `full` when
/// `full` has any, else nothing.
fn check_first(grid: &Grid, found_first: &BTreeSet<Puzzle>, full: &BTreeSet<Puzzle>) {
    match found_first.first() {
        None => assert!(full.is_empty(), "{grid}: --first printed nothing"),
        Some(p) => {
            assert_eq!(found_first.len(), 1, "{grid}: {found_first:?}");
            assert!(
                full.contains(p),
                "{grid}: --first printed {p}, not found in full"
            );
        }
    }
}

/// `--first` against the full search, with and without `--non-minimal`,
/// on the corpus (18s everywhere) and on random grids (almost surely
/// none).
#[test]
fn first_prints_a_puzzle_of_the_full_search() {
    let mut grids: Vec<Grid> = corpus().iter().map(|k| k.grid).collect();
    grids.extend(random_18_grids());
    for (n, grid) in grids.iter().enumerate() {
        let mut asks = vec![Ask::clues(18)];
        // A random grid holds no 17, so no non-minimal 18 either.
        if n < corpus().len() {
            asks.push(Ask::clues(18).non_minimal());
        }
        for ask in asks {
            let full = search(grid, &ask);
            check_first(grid, &search(grid, &ask.clone().first()), &full);
        }
    }
}

/// On grids holding 17s, `--clues 18 --first` answers by its first look
/// around a 17 (one clue out, two in, or two out, three in; `--stats` says
/// so), not by the full search: a look that never answered would leave
/// [`first_prints_a_puzzle_of_the_full_search`] passing. What it prints is
/// checked there (a puzzle of the full search) and by [`check_printed`].
#[test]
fn first_looks_around_a_17() {
    for k in corpus() {
        let mut args = vec!["search".to_string(), "--stats".to_string()];
        args.extend(Ask::clues(18).first().flags());
        args.push(k.grid.to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = s17(&args, None, false);
        let printed = stdout_lines(&out, "search --first --stats");
        assert_eq!(printed.len(), 1, "{}: {printed:?}", k.grid);
        let p = Puzzle::parse(&printed[0]).unwrap();
        check_printed(&k.grid, &Ask::clues(18).first(), std::slice::from_ref(&p));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let look = stderr
            .lines()
            .find(|l| l.contains("first look: 17 search"))
            .unwrap_or_else(|| panic!("{}: no first look in {stderr}", k.grid));
        assert!(look.ends_with(", found"), "{}: {look}", k.grid);
        // Around a known 17: all but one or two of its clues are kept.
        let kept = k
            .seventeens
            .iter()
            .map(|&m| (m & p.clue_mask()).count_ones())
            .max();
        assert!(matches!(kept, Some(15 | 16)), "{}: {p}", k.grid);
    }
}

/// `--clues 19 --first` on a grid holding 17s prints a minimal 19 of it
/// (checked like every output); clue counts outside 16 to 21 are refused,
/// and the help says that range.
#[test]
fn nineteen_first_and_the_range_of_clues() {
    let k = corpus()[0];
    let found = search(&k.grid, &Ask::clues(19).first());
    assert_eq!(found.len(), 1, "{}", k.grid);
    for clues in ["15", "22", "0"] {
        let out = s17(
            &["search", "--tables", tables(), "--clues", clues, GRID29],
            None,
            false,
        );
        assert_eq!(out.status.code(), Some(2), "--clues {clues}");
        assert!(out.stdout.is_empty());
    }
    let range = s17::search::plan::CLUE_RANGE;
    let words = format!("{} to {}", range.start(), range.end());
    for command in ["search", "scan"] {
        let help = s17(&[command, "--help"], None, false);
        let help = String::from_utf8(help.stdout).unwrap();
        assert!(help.contains(&words), "{command} --help: {help}");
    }
}

/// `scan --clues 18` writes `LINE<TAB>PUZZLE` for what `search --clues 18`
/// prints of each grid (with `--first`: a puzzle of it per grid that has
/// one), and a resume with other `--clues`, `--first` or `--non-minimal` is
/// refused, leaving the files as they were; a resume with the same options
/// goes through. Sampled: the grid file holds two corpus grids and a
/// random one.
#[test]
fn scan_with_clues_is_the_search() {
    let grids = [corpus()[0].grid, random_18_grids()[1], corpus()[2].grid];
    let dir = tempfile::tempdir().unwrap();
    let text: String = grids.iter().map(|g| format!("{g}\n")).collect();
    std::fs::write(
        dir.path().join("grids.txt"),
        format!("# three grids\n{text}"),
    )
    .unwrap();
    let scan = |ask: &Ask, more: &[&str]| {
        let mut args = vec!["scan".to_string(), "grids.txt".into()];
        args.extend(ask.flags());
        args.extend(more.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        s17(&args, Some(dir.path()), false)
    };
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    // The puzzles of each grid line (lines 2, 3 and 4 of the file).
    let lines = |name: &str| -> Vec<BTreeSet<Puzzle>> {
        let mut per_grid = vec![BTreeSet::new(); grids.len()];
        for line in String::from_utf8(read(name)).unwrap().lines() {
            let (number, puzzle) = line.split_once('\t').expect("LINE<TAB>PUZZLE");
            let k = number.parse::<usize>().unwrap() - 2;
            assert!(per_grid[k].insert(Puzzle::parse(puzzle).unwrap()), "{line}");
        }
        per_grid
    };

    let out = scan(&Ask::clues(18), &["-o", "full.txt"]);
    stdout_lines(&out, "scan --clues 18");
    for (grid, found) in grids.iter().zip(lines("full.txt")) {
        assert_eq!(found, *search(grid, &Ask::clues(18)), "{grid}");
    }
    let out = scan(&Ask::clues(18).first(), &["-o", "first.txt"]);
    stdout_lines(&out, "scan --clues 18 --first");
    for (grid, found) in grids.iter().zip(lines("first.txt")) {
        check_first(grid, &found, &search(grid, &Ask::clues(18)));
    }

    let before = (read("full.txt"), read("full.txt.done"));
    for other in [
        Ask::clues(17),
        Ask::clues(19),
        Ask::clues(18).first(),
        Ask::clues(18).non_minimal(),
    ] {
        let out = scan(&other, &["-o", "full.txt", "--resume"]);
        assert_ne!(out.status.code(), Some(0), "resumed with {other:?}");
        assert_eq!(
            (read("full.txt"), read("full.txt.done")),
            before,
            "{other:?}"
        );
    }
    let out = scan(&Ask::clues(17), &["-o", "first.txt", "--resume"]);
    assert_ne!(
        out.status.code(),
        Some(0),
        "--first file resumed by --clues 17"
    );
    let out = scan(&Ask::clues(18), &["-o", "full.txt", "--resume"]);
    stdout_lines(&out, "scan --clues 18 --resume");
    assert_eq!((read("full.txt"), read("full.txt.done")), before);
}
