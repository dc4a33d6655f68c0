//! Opening the band tables and fetching one band's 6-clue slices: no
//! parsing, no copying, so this should take microseconds once the file is in
//! the page cache. Uses the tables the tests use (`target/tmp/bands.s17t`),
//! building the file first if it is missing.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use s17::tables::BandTables;

/// The band with the most valid 6-clue sets (237,762).
const BUSIEST: usize = 28;

fn tables(c: &mut Criterion) {
    let path = concat!(env!("CARGO_TARGET_TMPDIR"), "/bands.s17t");
    let tables = BandTables::open_or_build(path).expect("band tables");
    assert_eq!(tables.band(BUSIEST).sets(6).len(), 237_762);
    drop(tables);

    c.bench_function("open + band 28 six-clue slices", |b| {
        b.iter(|| {
            let tables = BandTables::open(path).unwrap();
            let band = tables.band(black_box(BUSIEST));
            let (slices, sets) = band.slices(6).fold((0usize, 0usize), |(n, s), slice| {
                (n + 1, s + slice.sets.len())
            });
            black_box((slices, sets))
        })
    });

    let tables = BandTables::open(path).unwrap();
    // What the first read of a band costs in a process: the checksum of its
    // section (the bytes in the page cache; 1.2 MB for band 28, the largest;
    // 0.32 MB on average).
    c.bench_function("band 28 section checksum (first read)", |b| {
        b.iter(|| black_box(tables.section_checksums(black_box(BUSIEST)).unwrap()))
    });
    c.bench_function("all 416 band section checksums", |b| {
        b.iter(|| {
            (0..tables.len())
                .map(|i| tables.section_checksums(black_box(i)).unwrap().1)
                .fold(0u64, |a, x| a ^ x)
        })
    });
    c.bench_function("band 28 six-clue slices (file open)", |b| {
        b.iter(|| {
            let band = tables.band(black_box(BUSIEST));
            black_box(band.slices(6).map(|s| s.sets.len()).sum::<usize>())
        })
    });
    c.bench_function("band 28 first six-clue set of each slice", |b| {
        b.iter(|| {
            let band = tables.band(black_box(BUSIEST));
            black_box(band.slices(6).map(|s| s.sets[0]).fold(0u32, |a, x| a ^ x))
        })
    });
}

criterion_group!(benches, tables);
criterion_main!(benches);
