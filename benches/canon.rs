//! Minlex throughput: random grids, and the known 17-clue puzzles.
//!
//! `cargo bench --bench canon`; criterion reports elements (grids or
//! puzzles) per second.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use s17::canon::{automorphism_count, minlex_grid, minlex_puzzle};
use s17::grid::{Grid, Puzzle};

/// A random valid grid by shuffled backtracking.
fn random_grid(rng: &mut fastrand::Rng) -> Grid {
    fn fill(cells: &mut [u8; 81], cell: usize, rng: &mut fastrand::Rng) -> bool {
        if cell == 81 {
            return true;
        }
        let (r, c) = (cell / 9, cell % 9);
        let mut used = 0u16;
        for i in 0..9 {
            used |= 1 << cells[r * 9 + i];
            used |= 1 << cells[i * 9 + c];
            used |= 1 << cells[(r / 3 * 3 + i / 3) * 9 + c / 3 * 3 + i % 3];
        }
        let mut digits = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        rng.shuffle(&mut digits);
        for d in digits {
            if used & (1 << d) == 0 {
                cells[cell] = d;
                if fill(cells, cell + 1, rng) {
                    return true;
                }
                cells[cell] = 0;
            }
        }
        false
    }
    let mut cells = [0u8; 81];
    assert!(fill(&mut cells, 0, rng));
    Grid::from_digits(cells).expect("a valid grid")
}

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
