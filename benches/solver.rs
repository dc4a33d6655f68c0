//! Solver throughput over the known 17-clue puzzles (data/known17.txt):
//! the uniqueness check (count up to 2) and `other_solution` on the same
//! puzzles given their grids. Reported as puzzles per second.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use s17::grid::{Grid, Puzzle};
use s17::solver::{count_solutions, other_solution, solve};

fn known17() -> Vec<Puzzle> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/known17.txt");
    let text = std::fs::read_to_string(path).expect("read data/known17.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| Puzzle::parse(l).expect("known17 puzzle"))
        .collect()
}

fn bench_known17(c: &mut Criterion) {
    let puzzles = known17();
    let with_grids: Vec<(Grid, u128)> = puzzles
        .iter()
        .map(|p| (solve(p, 1).first.expect("solvable"), p.clue_mask()))
        .collect();
    let mut group = c.benchmark_group("known17");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(puzzles.len() as u64));
    group.bench_function("count_limit_2", |b| {
        b.iter(|| {
            puzzles
                .iter()
                .filter(|p| count_solutions(black_box(p), 2) == 1)
                .count()
        })
    });
    group.bench_function("other_solution", |b| {
        b.iter(|| {
            with_grids
                .iter()
                .filter(|(g, clues)| other_solution(black_box(g), *clues).is_none())
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_known17);
criterion_main!(benches);
