//! The ED catalogue's hot parts: band identification (the table lookup
//! against the 7,776-transform search), the band-3 walk of one entry, and
//! the count of a run of entries of two slices (one whose band 1 has no
//! automorphism, one with 108). Grids per second per core for the whole
//! catalogue are in benches/README.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use s17::band::Band;
use s17::ed::fill::for_each_band3;
use s17::ed::{Choices, Ed};

fn ed(c: &mut Criterion) {
    let ed = Ed::new();
    let mut rng = fastrand::Rng::with_seed(1);
    let bands: Vec<Band> = (0..64)
        .map(|_| {
            let grid = s17::generate::random_grid(&mut rng);
            let mut band = [0u8; 27];
            band.copy_from_slice(&grid.digits()[27 * rng.usize(0..3)..][..27]);
            band
        })
        .collect();
    c.bench_function("band class, table lookup (64 bands)", |b| {
        b.iter(|| {
            bands
                .iter()
                .map(|band| ed.index().class_of(black_box(band)))
                .sum::<usize>()
        })
    });
    c.bench_function("band id with cell map, table lookup (64 bands)", |b| {
        b.iter(|| {
            bands
                .iter()
                .map(|band| ed.index().identify(black_box(band)).cells[5] as usize)
                .sum::<usize>()
        })
    });
    c.bench_function("band id, 7,776 transforms (1 band)", |b| {
        b.iter(|| ed.catalogue().identify(black_box(&bands[0])).index)
    });

    // Entries 1000.. of slice 100 (band 1 with 2 automorphisms, low rank:
    // many ED grids per entry) and slice 200 (no automorphism, high rank).
    for (k, n) in [(100usize, 200u64), (200, 200), (0, 50)] {
        let mut entries = Vec::new();
        ed.for_each_entry(k, 1000..1000 + n, |e| entries.push(*e));
        let first = entries[0];
        let mut bands12 = [0u8; 54];
        bands12[..27].copy_from_slice(ed.catalogue().band(k));
        bands12[27..].copy_from_slice(&first.band2);
        c.bench_function(&format!("band-3 walk, slice {k} entry 1000"), |b| {
            b.iter(|| {
                let mut n = 0;
                for_each_band3(black_box(&bands12), |_| n += 1);
                n
            })
        });
        // The grids (hi visits) of the entries, then all their visits.
        for (what, choices) in [("count", Choices::HI), ("all visits of", Choices::ALL)] {
            c.bench_function(&format!("{what} {n} entries of slice {k}"), |b| {
                b.iter(|| {
                    let mut visits = 0u64;
                    for e in &entries {
                        ed.entry_visits(k, e, choices, |_| visits += 1);
                    }
                    visits
                })
            });
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = ed
}
criterion_main!(benches);
