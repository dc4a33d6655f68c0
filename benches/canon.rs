//! Minlex throughput: random grids, and the known 17-clue puzzles.
//!
//! `cargo bench --bench canon`; criterion reports elements (grids or
//! puzzles) per second.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use s17::canon::{automorphism_count, minlex_grid, minlex_puzzle};
use s17::generate::random_grid;
use s17::grid::{Grid, Puzzle};

fn known17(count: usize) -> Vec<Puzzle> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/known17.txt");
    let text = std::fs::read_to_string(path).expect("data/known17.txt");
    text.lines()
        .take(count)
        .map(|line| Puzzle::parse(line).expect("a puzzle"))
        .collect()
}

fn grids(c: &mut Criterion) {
    let mut rng = fastrand::Rng::with_seed(2024);
    let grids: Vec<Grid> = (0..1000).map(|_| random_grid(&mut rng)).collect();
    let mut group = c.benchmark_group("canon");
    group.throughput(Throughput::Elements(grids.len() as u64));
    group.bench_function("minlex_grid x1000", |b| {
        b.iter(|| {
            for g in &grids {
                black_box(minlex_grid(black_box(g)));
            }
        })
    });
    group.bench_function("automorphism_count x1000", |b| {
        b.iter(|| {
            for g in &grids {
                black_box(automorphism_count(black_box(g)));
            }
        })
    });
    group.finish();
}

fn puzzles(c: &mut Criterion) {
    // Every 49th known 17: a spread over the (sorted) file.
    let puzzles: Vec<Puzzle> = known17(usize::MAX)
        .into_iter()
        .step_by(49)
        .take(1000)
        .collect();
    let mut group = c.benchmark_group("canon");
    group.throughput(Throughput::Elements(puzzles.len() as u64));
    group.sample_size(10);
    group.bench_function("minlex_puzzle known17 x1000", |b| {
        b.iter(|| {
            for p in &puzzles {
                black_box(minlex_puzzle(black_box(p)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, grids, puzzles);
criterion_main!(benches);
