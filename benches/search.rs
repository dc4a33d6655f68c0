//! The full search of one grid (all three band-3 choices), one thread, on
//! random grids from a fixed seed. Slow by nature: a few seconds a grid, so
//! the sample is small. Run: `cargo bench --bench search`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use s17::band::BandCatalogue;
use s17::generate::random_grid;
use s17::search::{SearchConfig, Searcher};
use s17::tables::BandTables;

fn search(c: &mut Criterion) {
    let root = env!("CARGO_MANIFEST_DIR");
    let tables = BandTables::open_or_build(PathBuf::from(format!("{root}/data/bands.s17t")), false)
        .expect("band tables");
    let catalogue = BandCatalogue::new();
    let searcher = Searcher::new(&catalogue, &tables, SearchConfig::default());
    // Seed 1: the same grids as `s17 generate --seed 1`.
    let mut rng = fastrand::Rng::with_seed(1);
    let grids: Vec<_> = (0..2).map(|_| random_grid(&mut rng)).collect();
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for (i, grid) in grids.iter().enumerate() {
        group.bench_function(format!("random grid {} (seed 1)", i + 1), |b| {
            b.iter(|| black_box(searcher.search(black_box(grid)).puzzles.len()))
        });
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
