//! The sharing of `s17 exhaust`: one catalogue entry (slice 100, entry
//! 1000: band 1 with two automorphisms, about twenty ED grids) searched
//! whole, with one bands-1+2 state for all its bands 3, against the same
//! ED grids searched one by one by the one-grid search. The catalogue-wide
//! estimate (`s17 exhaust --estimate`) is in benches/README.md.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use s17::band::BandCatalogue;
use s17::ed::{Choices, Ed};
use s17::exhaust::Exhauster;
use s17::grid::Grid;
use s17::search::{SearchConfig, Searcher};
use s17::tables::BandTables;

fn exhaust(c: &mut Criterion) {
    let path = concat!(env!("CARGO_TARGET_TMPDIR"), "/bands.s17t");
    let tables = BandTables::open_or_build(path).unwrap();
    let catalogue = BandCatalogue::new();
    let ed = Ed::new();
    let config = SearchConfig::default();
    let ex = Exhauster::new(&ed, &tables, config);
    let searcher = Searcher::new(&catalogue, &tables, config);
    let k = 100;
    let mut entry = None;
    ed.for_each_entry(k, 1000..1001, |e| entry = Some(*e));
    let entry = entry.unwrap();
    // The ED grids the entry holds (its hi visits).
    let grids: Vec<Grid> = ex
        .visits(k, &entry)
        .iter()
        .filter(|v| v.choices.contains(Choices::HI))
        .map(|v| ex.visit_grid(k, &entry, &v.band3))
        .collect();
    let mut group = c.benchmark_group("exhaust");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    let bands3 = ex.visits(k, &entry).len();
    group.bench_function(
        format!(
            "slice 100 entry 1000 whole ({} grids, {bands3} bands 3)",
            grids.len()
        ),
        |b| b.iter(|| ex.search_entry(k, &entry).unwrap().puzzles.len()),
    );
    // One thread: the one-grid search runs a grid's band-3 choices in
    // parallel on the rayon pool it is called from.
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    group.bench_function(
        format!("slice 100 entry 1000, its {} grids one by one", grids.len()),
        |b| {
            b.iter(|| {
                one.install(|| {
                    grids
                        .iter()
                        .map(|g| searcher.search(g).unwrap().puzzles.len())
                        .sum::<usize>()
                })
            })
        },
    );
    group.finish();
}

criterion_group!(benches, exhaust);
criterion_main!(benches);
