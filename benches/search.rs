//! The search, whole and in its hot parts. Run: `cargo bench --bench search`
//! (results and how to read them: benches/README.md).
//!
//! - `search/*`: the full search of one grid (all three band-3 choices, the
//!   cheaper orientation), one thread: random grids from seed 1 (the same
//!   grids as `s17 generate --seed 1`) and the solution grid of the first
//!   puzzle of data/known17.txt.
//! - `search/random grid 1 (seed 1), --clues 18`: the full search for
//!   every minimal 18 of random grid 1, one thread (its 6-6-6 row is most
//!   of it: issue 45).
//! - `xy_inner_loop/*`: the XY inner loop alone on the vectors of a real
//!   step (the step with the most pairs of the costly row, fewest clues in
//!   band 3, of the first choice of random grid 1),
//!   with the run-time dispatch (AVX-512F or AVX2 where present) and the
//!   scalar form.
//! - `band3/*`: band 3 and the final checks for the bands-1+2 part of a known
//!   17 (harvest excluded).
//! - `final_check/*`: the uniqueness check of one 17-clue puzzle against its
//!   grid, as the final check runs it.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use s17::band::BandCatalogue;
use s17::bits::{zero_and_pairs, zero_and_pairs_scalar};
use s17::generate::random_grid;
use s17::grid::{Grid, Puzzle};
use s17::known::{KnownIndex, check_lines};
use s17::search::bench_hooks::{Band3Case, recorded_step};
use s17::search::{Goal, SearchConfig, Searcher};
use s17::solver::other_solution;
use s17::tables::BandTables;

const GRID29: &str =
    "123456789456789123798231564234675918815943276967812435379164852582397641641528397";
/// The solution of the first puzzle of data/known17.txt.
const KNOWN1: &str =
    "953168742862734951417952836746893125281645397395271468138529674574386219629417583";

fn known_17s_of(grid: &Grid) -> Vec<Puzzle> {
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/data/known17.txt")).expect("known17.txt");
    let (good, _) = check_lines(text.lines().enumerate().map(|(i, l)| (i + 1, l)));
    KnownIndex::new(&good).expected(grid)
}

fn benches(c: &mut Criterion) {
    // The tables the tests use (target/tmp), never the user's cache.
    let tables = BandTables::open_or_build(concat!(env!("CARGO_TARGET_TMPDIR"), "/bands.s17t"))
        .expect("band tables");
    let catalogue = BandCatalogue::new();
    let searcher = Searcher::new(&catalogue, &tables, SearchConfig::default());
    let mut rng = fastrand::Rng::with_seed(1);
    let grids: Vec<_> = (0..2).map(|_| random_grid(&mut rng)).collect();
    let grid29 = Grid::parse(GRID29).expect("grid");
    let known29 = known_17s_of(&grid29);

    // One thread: the search runs its band-3 choices on the rayon pool it
    // is called from, so it gets a pool of one.
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for (i, grid) in grids.iter().enumerate() {
        group.bench_function(format!("random grid {} (seed 1)", i + 1), |b| {
            b.iter(|| {
                one.install(|| black_box(searcher.search(black_box(grid)).unwrap().puzzles.len()))
            })
        });
    }
    let known1 = Grid::parse(KNOWN1).expect("grid");
    group.bench_function("grid of known17.txt line 1", |b| {
        b.iter(|| {
            one.install(|| black_box(searcher.search(black_box(&known1)).unwrap().puzzles.len()))
        })
    });
    let searcher18 =
        Searcher::new(&catalogue, &tables, SearchConfig::default()).with_goal(Goal::all(18));
    group.bench_function("random grid 1 (seed 1), --clues 18", |b| {
        b.iter(|| {
            one.install(|| {
                black_box(
                    searcher18
                        .search(black_box(&grids[0]))
                        .unwrap()
                        .puzzles
                        .len(),
                )
            })
        })
    });
    group.finish();

    let (vx, vy) = recorded_step(&searcher, &grids[0]);
    let mut group = c.benchmark_group("xy_inner_loop");
    let name = format!("{} x {} pairs", vx.len(), vy.len());
    let mut out = Vec::new();
    group.bench_function(format!("dispatch, {name}"), |b| {
        b.iter(|| {
            out.clear();
            zero_and_pairs(black_box(&vx), black_box(&vy), 256, &mut out);
            out.len()
        })
    });
    group.bench_function(format!("scalar, {name}"), |b| {
        b.iter(|| {
            out.clear();
            zero_and_pairs_scalar(black_box(&vx), black_box(&vy), 256, &mut out);
            out.len()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("band3");
    group.sample_size(20);
    for p in known29.iter().take(3) {
        group.bench_function(format!("XY of {p}"), |b| {
            b.iter_batched(
                || Band3Case::new(&searcher, &grid29, p).expect("a known 17 of the grid"),
                |case| black_box(case.run()),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();

    let mut group = c.benchmark_group("final_check");
    group.bench_function(format!("{} known 17s of one grid", known29.len()), |b| {
        b.iter(|| {
            known29
                .iter()
                .filter(|p| other_solution(&grid29, black_box(p.clue_mask())).is_none())
                .count()
        })
    });
    group.finish();
}

criterion_group!(search, benches);
criterion_main!(search);
