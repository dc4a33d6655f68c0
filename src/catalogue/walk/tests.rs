//! The batched walk of a band 2 against the candidate-by-candidate one
//! (`reference.rs`): the same grids, and how fast each is.

use super::*;
use crate::catalogue::tests::committed;

/// The batched walk of a band 2 against the candidate-by-candidate one:
/// the same grids, and how fast each is (thread CPU time; `cargo test
/// --release --lib catalogue::walk::tests::band2_walks -- --ignored --nocapture`).
#[test]
#[ignore]
fn band2_walks() {
    use cpu_time::ThreadTime as Instant;
    let catalogue = committed();
    let walker = catalogue.walker();
    let mut rng = fastrand::Rng::with_seed(53);
    let (mut old_ns, mut new_ns, mut grids) = (0u64, 0u64, 0u64);
    let (mut candidates, mut band2_count, mut fill_ns) = (0u64, 0u64, 0u64);
    let mut fast_fill_ns = 0u64;
    let rounds: usize = std::env::var("S17_WALKS_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400);
    for _ in 0..rounds {
        // A prefix drawn in proportion to its grids.
        let k = rng.u64(..catalogue.numbered());
        let b = catalogue.starts.partition_point(|&s| s <= k) - 1;
        let table = &catalogue.table(b).unwrap().0;
        let at = k - catalogue.starts[b];
        let prefix = table.before.partition_point(|&s| s <= at) - 1;
        let row4 = table.rows4[prefix];
        let band2s = walker.band2s(b, &row4);
        let from = rng.usize(0..band2s.len());
        for band2 in &band2s[from..band2s.len().min(from + 40)] {
            let (mut a, mut n) = (Vec::new(), Vec::new());
            let simple = std::env::var_os("S17_WALKS_BATCHED_ONLY").is_none();
            let start = Instant::now();
            if simple {
                walker.walk_band2_simple(b, &row4, band2, false, &mut |g| {
                    a.push(*g);
                    Flow::Continue
                });
            }
            old_ns += start.elapsed().as_nanos() as u64;
            let start = Instant::now();
            walker.walk_band2(b, &row4, band2, false, &mut |g| {
                n.push(*g);
                Flow::Continue
            });
            new_ns += start.elapsed().as_nanos() as u64;
            if simple {
                assert_eq!(a, n);
            }
            grids += n.len() as u64;
            let mut bands12 = [0u8; 54];
            bands12[..27].copy_from_slice(walker.catalogue().band(b));
            bands12[27..36].copy_from_slice(&row4);
            bands12[36..].copy_from_slice(&band2.rows);
            let mut listed = Vec::new();
            let start = Instant::now();
            crate::ed::fill::for_each_band3(&bands12, |band3| listed.push(*band3));
            fill_ns += start.elapsed().as_nanos() as u64;
            let mut fast = Vec::new();
            let start = Instant::now();
            band3s_under(&bands12, &[(1 << 27) - 1; 3], &mut fast);
            fast_fill_ns += start.elapsed().as_nanos() as u64;
            assert_eq!(listed, fast);
            candidates += listed.len() as u64;
            band2_count += 1;
        }
    }
    println!(
        "{grids} grids: simple {:.1} ns a grid, batched {:.1} ns a grid",
        old_ns as f64 / grids as f64,
        new_ns as f64 / grids as f64
    );
    println!(
        "{band2_count} band 2s, {candidates} candidates, their enumeration {:.1} ns a grid \
         (band3s_under {:.1} ns)",
        fill_ns as f64 / grids as f64,
        fast_fill_ns as f64 / grids as f64
    );
}

#[test]
fn the_batched_band2_walk_equals_the_simple_one() {
    // Band 2s of prefixes drawn in proportion to their grids, of the
    // first bands (automorphisms, ties), of the last ones (bands 400-416
    // with grids: stacks classed first, most band 2s refused) and of bands
    // 240-325, both directions: the same grids.
    let catalogue = committed();
    let walker = catalogue.walker();
    let mut rng = fastrand::Rng::with_seed(5353);
    let last: Vec<usize> = (399..416)
        .filter(|&b| catalogue.table(b).unwrap().0.total() > 0)
        .collect();
    for round in 0..194 {
        let (b, prefix) = if !(20..120).contains(&round) {
            let b = if round < 20 {
                round % 8
            } else if round < 154 {
                last[round % last.len()]
            } else {
                // Bands 240-325: most band 2s pass the stacks' test, few
                // list a completion.
                rng.usize(239..325)
            };
            let table = &catalogue.table(b).unwrap().0;
            (b, rng.usize(0..table.rows4.len()))
        } else {
            let k = rng.u64(..catalogue.numbered());
            let b = catalogue.starts.partition_point(|&s| s <= k) - 1;
            let table = &catalogue.table(b).unwrap().0;
            let at = k - catalogue.starts[b];
            (b, table.before.partition_point(|&s| s <= at) - 1)
        };
        let row4 = catalogue.table(b).unwrap().0.rows4[prefix];
        let band2s = walker.band2s(b, &row4);
        let from = rng.usize(0..band2s.len());
        for band2 in &band2s[from..band2s.len().min(from + 10)] {
            for reverse in [false, true] {
                let (mut simple, mut batched) = (Vec::new(), Vec::new());
                walker.walk_band2_simple(b, &row4, band2, reverse, &mut |g| {
                    simple.push(*g);
                    Flow::Continue
                });
                walker.walk_band2(b, &row4, band2, reverse, &mut |g| {
                    batched.push(*g);
                    Flow::Continue
                });
                assert_eq!(simple, batched, "band {} prefix {prefix}", b + 1);
            }
        }
    }
}

#[test]
fn the_stack_by_stack_listing_equals_the_row_by_row_one() {
    // Band 2s of random prefixes, every band 3 listed row by row
    // (`band3s_under`, all rows allowed; itself checked against
    // `for_each_band3` in `band2_walks`) and kept when its three stacks'
    // cases (`case_of`) are admitted, against `band3s_admitted`: all
    // cases admitted, random sets of cases, single cases, and a single
    // case in one stack (the one listed first) with random sets.
    let catalogue = committed();
    let walker = catalogue.walker();
    let mut rng = fastrand::Rng::with_seed(5354);
    let (mut listed, mut band2_count) = (0usize, 0usize);
    for round in 0..120 {
        let b = if round % 2 == 0 {
            rng.usize(0..416)
        } else {
            rng.usize(239..325)
        };
        let table = &catalogue.table(b).unwrap().0;
        if table.total() == 0 {
            continue;
        }
        let row4 = table.rows4[rng.usize(0..table.rows4.len())];
        let band2s = walker.band2s(b, &row4);
        if band2s.is_empty() {
            continue;
        }
        let band2 = band2s[rng.usize(0..band2s.len())];
        let mut bands12 = [0u8; 54];
        bands12[..27].copy_from_slice(walker.catalogue().band(b));
        bands12[27..36].copy_from_slice(&row4);
        bands12[36..].copy_from_slice(&band2.rows);
        let mut all = Vec::new();
        band3s_under(&bands12, &[(1 << 27) - 1; 3], &mut all);
        let every = (1u64 << 36) - 1;
        for trial in 0..11 {
            let random = |rng: &mut fastrand::Rng| rng.u64(..) & rng.u64(..) & every;
            let single =
                |rng: &mut fastrand::Rng, s| 1 << band3s::case_of(&all[rng.usize(0..all.len())], s);
            let admitted: [u64; 3] = match trial {
                0 => [every; 3],
                1..=5 => std::array::from_fn(|_| random(&mut rng)),
                6 | 7 => std::array::from_fn(|s| single(&mut rng, s)),
                // One stack with a single case (listed first), the others
                // random.
                _ => std::array::from_fn(|s| {
                    if s == trial - 8 {
                        single(&mut rng, s)
                    } else {
                        random(&mut rng)
                    }
                }),
            };
            let expected: Vec<(Band, [u8; 3])> = all
                .iter()
                .filter_map(|band3| {
                    let cases: [u8; 3] = std::array::from_fn(|s| band3s::case_of(band3, s) as u8);
                    (0..3)
                        .all(|s| admitted[s] >> cases[s] & 1 != 0)
                        .then_some((*band3, cases))
                })
                .collect();
            let mut got = vec![([0u8; 27], [9u8; 3])];
            band3s_admitted(&bands12, &admitted, &mut got);
            assert_eq!(
                got[0],
                ([0u8; 27], [9u8; 3]),
                "what was in the list is kept"
            );
            assert_eq!(got[1..], expected[..], "band {} trial {trial}", b + 1);
            // The same through the choice of listing.
            let allowed = admitted.map(band3s::rows_of_cases);
            let (mut rows, mut either) = (Vec::new(), Vec::new());
            band3s_of_cases(&bands12, &admitted, &allowed, &mut rows, &mut either);
            assert_eq!(either, expected, "band {} trial {trial}", b + 1);
            listed += expected.len();
        }
        band2_count += 1;
    }
    assert!(
        band2_count > 80 && listed > 1000,
        "{band2_count} band 2s, {listed} listed"
    );
}

#[test]
fn the_band2s_of_a_prefix_are_every_filling_that_passes_the_band2_tests() {
    // Rows 5-6 filled cell by cell here (columns, boxes, rows; first
    // digits increasing down the band), every filling kept that passes
    // `admitted_band2` (band 2's class looked up alone, band 1's
    // automorphisms): the prefix's band 2s, in the same order, on random
    // prefixes of bands across the catalogue.
    fn fill(grid: &mut [u8; 81], cell: usize, out: &mut Vec<[u8; 18]>) {
        if cell == 54 {
            out.push(grid[36..54].try_into().unwrap());
            return;
        }
        let (r, c) = (cell / 9, cell % 9);
        for d in 1..=9u8 {
            let clash = (0..9).any(|j| grid[9 * r + j] == d && j < c)
                || (0..r).any(|i| grid[9 * i + c] == d)
                || (27..cell).any(|k| k / 9 != r && k % 9 / 3 == c / 3 && grid[k] == d);
            if clash || c == 0 && d <= grid[cell - 9] {
                continue;
            }
            grid[cell] = d;
            fill(grid, cell + 1, out);
        }
        grid[cell] = 0;
    }
    let catalogue = committed();
    let walker = catalogue.walker();
    let mut rng = fastrand::Rng::with_seed(5355);
    let mut listed = 0;
    for round in 0..24 {
        let b = if round % 2 == 0 {
            rng.usize(0..416)
        } else {
            rng.usize(239..416)
        };
        let table = &catalogue.table(b).unwrap().0;
        if table.rows4.is_empty() {
            continue;
        }
        let row4 = table.rows4[rng.usize(0..table.rows4.len())];
        let mut grid = [0u8; 81];
        grid[..27].copy_from_slice(walker.catalogue().band(b));
        grid[27..36].copy_from_slice(&row4);
        let mut fillings = Vec::new();
        fill(&mut grid, 36, &mut fillings);
        let expected: Vec<Band2> = fillings
            .iter()
            .filter_map(|rows| walker.admitted_band2(b, &row4, rows))
            .collect();
        assert_eq!(walker.band2s(b, &row4), expected, "band {}", b + 1);
        listed += expected.len();
    }
    assert!(listed > 1000, "{listed} band 2s");
}
