//! Checks of the walk and the numbering against `canon` (the full minlex
//! search, which shares no code with the walk) and against published
//! figures.

use std::sync::OnceLock;

use super::*;
use crate::canon::{Transform, minlex_grid};

/// The first grid of the catalogue (published).
const FIRST: &str =
    "123456789456789123789123456214365897365897214897214365531642978642978531978531642";

pub(crate) fn walker() -> &'static Walker {
    static WALKER: OnceLock<Walker> = OnceLock::new();
    WALKER.get_or_init(Walker::new)
}

/// The committed tables only.
pub(crate) fn committed() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| Catalogue::open(&[committed_dir()]).expect("committed tables read"))
}

/// Every grid of a walk is its own minlex form, has the band as rows 1-3,
/// and the grids strictly increase.
fn check_walk(band: usize) -> u64 {
    let walker = walker();
    let mut previous: Option<[u8; 81]> = None;
    let mut n = 0;
    walker.walk_band(band, &mut |grid| {
        let form = minlex_grid(&Grid::from_digits(*grid).expect("a grid")).0;
        assert_eq!(form.digits(), grid, "a walked grid is its own minlex form");
        assert_eq!(&grid[..27], walker.catalogue().band(band));
        if let Some(p) = previous {
            assert!(p < *grid, "grids strictly increase");
        }
        previous = Some(*grid);
        n += 1;
        Flow::Continue
    });
    n
}

#[test]
fn late_bands_walk_minlex_grids_in_order() {
    // The last bands hold few grids: a whole walk each, every grid checked.
    let total: u64 = (411..416).map(check_walk).sum();
    assert!(total > 0);
}

#[test]
fn sampled_prefixes_of_the_committed_tables_equal_a_direct_walk() {
    // Bands 002 to 008 (automorphisms, ties with other bands and stacks):
    // sampled prefixes walked again, every grid checked against canon and
    // the count against the committed table.
    let catalogue = committed();
    let mut rng = fastrand::Rng::with_seed(416);
    for band in 1..8 {
        let table = &catalogue.table(band).expect("committed").0;
        for _ in 0..2 {
            let prefix = rng.usize(..table.rows4.len());
            let mut n = 0;
            walker().walk_prefix(band, &table.rows4[prefix], &mut |grid| {
                let form = minlex_grid(&Grid::from_digits(*grid).expect("a grid")).0;
                assert_eq!(form.digits(), grid, "a walked grid is its own minlex form");
                n += 1;
                Flow::Continue
            });
            assert_eq!(
                n,
                table.count(prefix),
                "band {:03} prefix {prefix}",
                band + 1
            );
        }
    }
}

/// The backward walk is the forward walk reversed, and a grid's rank and
/// the grid of a rank found from the nearer end of the prefix
/// (`rank_in_prefix`, `nth_in_prefix`) are its place in the forward walk,
/// on sampled prefixes of bands with and without automorphisms. The counts
/// equal the committed tables, which the walk made before it cached stack
/// classes and listed band 2s first.
#[test]
fn walks_from_either_end_agree_with_the_forward_walk() {
    let catalogue = committed();
    let walker = walker();
    let mut rng = fastrand::Rng::with_seed(4253);
    for band in [0, 5, 21, 66, 100, 215, 398] {
        let table = &catalogue.table(band).expect("committed").0;
        let prefix = rng.usize(..table.rows4.len());
        let (row4, count) = (&table.rows4[prefix], table.count(prefix));
        let mut forward = Vec::new();
        walker.walk_prefix(band, row4, &mut |grid| {
            forward.push(*grid);
            Flow::Continue
        });
        let mut backward = Vec::new();
        walker.walk_prefix_rev(band, row4, &mut |grid| {
            backward.push(*grid);
            Flow::Continue
        });
        backward.reverse();
        assert_eq!(
            forward.len() as u64,
            count,
            "band {:03} prefix {prefix}",
            band + 1
        );
        assert_eq!(forward, backward, "band {:03} prefix {prefix}", band + 1);
        let n = forward.len();
        let mut ranks = vec![0, n / 2, n - 1, n.saturating_sub(2)];
        ranks.extend((0..20).map(|_| rng.usize(..n)));
        for rank in ranks {
            assert_eq!(
                walker.rank_in_prefix(band, &forward[rank], count),
                Some(rank as u64)
            );
            assert_eq!(
                walker.nth_in_prefix(band, row4, count, rank as u64),
                Some(forward[rank])
            );
        }
        assert_eq!(walker.nth_in_prefix(band, row4, count, count), None);
    }
}

#[test]
fn the_first_grid_is_number_one() {
    let catalogue = committed();
    let first = Grid::parse(FIRST).unwrap();
    assert_eq!(catalogue.grid(1).unwrap(), first);
    let mut rng = fastrand::Rng::with_seed(53);
    let image = Transform::random(&mut rng).apply_grid(&first);
    assert_eq!(catalogue.number(&image).unwrap(), 1);
}

#[test]
fn band_001_holds_the_published_count() {
    // gsf's catalogue: 1,007,170 grids have first band 001.
    let (table, _) = committed()
        .table(0)
        .expect("the table of band 001 is committed");
    assert_eq!(table.total(), 1_007_170);
}

#[test]
fn number_and_grid_are_inverse_over_the_committed_tables() {
    let catalogue = committed();
    let last = catalogue.numbered();
    assert!(last >= 1_007_170);
    // Band 001 is the slowest band to walk (about 0.3 s a prefix): a few.
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..6 {
        let k = rng.u64(1..=last);
        let grid = catalogue.grid(k).unwrap();
        assert_eq!(minlex_grid(&grid).0, grid, "grid {k} is minlex");
        let image = Transform::random(&mut rng).apply_grid(&grid);
        assert_eq!(catalogue.number(&image).unwrap(), k);
    }
}

#[test]
fn a_stream_gives_consecutive_grids() {
    // Every band's table is committed (nothing lies past the last number):
    // a catalogue of the first two, so the stream runs past its tables.
    let catalogue = &first_bands(2, "stream");
    let last = catalogue.numbered();
    let first = last - 150;
    let mut expected = first;
    let mut previous: Option<[u8; 81]> = None;
    catalogue
        .stream(first, last + 20, |n, grid| {
            assert_eq!(n, expected);
            expected += 1;
            if let Some(p) = previous {
                assert!(p < *grid);
            }
            previous = Some(*grid);
            if n <= last && (n % 50 == 0 || n == last) {
                assert_eq!(catalogue.grid(n).unwrap().digits(), grid);
            }
            Flow::Continue
        })
        .unwrap();
    // Past the tables, the walk goes on on its own.
    assert_eq!(expected, last + 21);
}

#[test]
fn numbers_without_tables_are_refused_naming_the_command() {
    // Every band's table is committed: a catalogue of the first two only.
    let catalogue = &first_bands(2, "refused");
    assert_eq!(catalogue.bands_numbered(), 2);
    let beyond = catalogue.numbered() + 1;
    let err = catalogue.grid(beyond).unwrap_err().to_string();
    assert!(err.contains("s17 catalogue build --bands"), "{err}");
    assert!(matches!(
        catalogue.grid(0),
        Err(CatalogueError::OutOfRange(0))
    ));
    assert!(matches!(
        catalogue.grid(ED_GRIDS + 1),
        Err(CatalogueError::OutOfRange(_))
    ));
    // A random grid's first band is almost never among the first few.
    let mut rng = fastrand::Rng::with_seed(11);
    let mut refused = 0;
    for _ in 0..20 {
        let grid = crate::generate::random_grid(&mut rng);
        match catalogue.number(&grid) {
            Ok(n) => assert!(n <= catalogue.numbered()),
            Err(CatalogueError::NotBuilt {
                missing, needed, ..
            }) => {
                assert!(missing <= needed);
                refused += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(refused > 0);
}

/// A catalogue of the committed tables of the first `n` bands only (in a
/// temporary directory named by `tag`).
fn first_bands(n: usize, tag: &str) -> Catalogue {
    let dir = std::env::temp_dir().join(format!("s17-catalogue-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for band in 0..n {
        let name = BandTable::file_name(band);
        std::fs::copy(committed_dir().join(&name), dir.join(&name)).unwrap();
    }
    Catalogue::open(std::slice::from_ref(&dir)).unwrap()
}

#[test]
fn the_committed_tables_cover_the_catalogue_with_its_published_prefixes() {
    // Every first band's table is committed; their counts sum to the
    // number of ED grids (Felgenhauer and Jarvis; Russell and Jarvis), and
    // their four-row prefixes holding grids number 652,408 (G. Penet's
    // virtual catalogue): two figures the walk did not start from.
    let catalogue = committed();
    assert_eq!(catalogue.bands_numbered(), 416);
    assert_eq!(catalogue.numbered(), ED_GRIDS);
    let (mut grids, mut prefixes) = (0, 0);
    for band in 0..416 {
        let (table, _) = catalogue.table(band).expect("committed");
        grids += table.total();
        prefixes += table.rows4.len();
    }
    assert_eq!(grids, 5_472_730_538);
    assert_eq!(prefixes, 652_408);
    // The last number is a grid, and numbers back.
    let last = catalogue.grid(ED_GRIDS).unwrap();
    assert_eq!(catalogue.number(&last).unwrap(), ED_GRIDS);
}

/// Speed of grid, number and canon on 10,000 random numbers of the
/// committed range (`S17_TIMINGS_N` others), in the thread's CPU time, so
/// that a loaded machine does not skew it (run by hand: `cargo test
/// --release --lib catalogue::tests::timings -- --ignored --nocapture`;
/// with `S17_TIMINGS_BUILT=1`, numbers of the bands with checkpoints
/// only).
#[test]
#[ignore]
fn timings() {
    use cpu_time::ThreadTime as Instant;
    let catalogue = committed();
    let mut rng = fastrand::Rng::with_seed(2026);
    let samples: usize = std::env::var("S17_TIMINGS_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    // Checkpoints are read on a band's first use: all read before timing.
    catalogue.check_band_files().unwrap();
    // `S17_TIMINGS_BUILT`: numbers of the bands with checkpoints only.
    let built: Vec<usize> = (0..catalogue.bands_numbered())
        .filter(|&b| catalogue.checkpoint_file(b).is_some())
        .collect();
    let only_built = std::env::var_os("S17_TIMINGS_BUILT").is_some();
    let built_total: u64 = built
        .iter()
        .map(|&b| catalogue.table(b).unwrap().0.total())
        .sum();
    if only_built {
        assert!(built_total > 0, "no band has checkpoints");
        println!(
            "numbers of the {} bands with checkpoints ({built_total} grids)",
            built.len()
        );
    }
    let draw = |rng: &mut fastrand::Rng| {
        if !only_built {
            return rng.u64(1..=catalogue.numbered());
        }
        let mut at = rng.u64(..built_total);
        for &b in &built {
            let total = catalogue.table(b).unwrap().0.total();
            if at < total {
                return catalogue.starts[b] + at + 1;
            }
            at -= total;
        }
        unreachable!()
    };
    let (mut grid_ns, mut number_ns, mut canon_ns) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..samples {
        let k = draw(&mut rng);
        let start = Instant::now();
        let grid = catalogue.grid(k).unwrap();
        grid_ns.push(start.elapsed().as_nanos() as u64);
        let image = Transform::random(&mut rng).apply_grid(&grid);
        let start = Instant::now();
        let n = catalogue.number(&image).unwrap();
        number_ns.push(start.elapsed().as_nanos() as u64);
        assert_eq!(n, k);
        let start = Instant::now();
        let form = minlex_grid(&image).0;
        canon_ns.push(start.elapsed().as_nanos() as u64);
        assert_eq!(form, grid);
    }
    let mut numbers = Vec::new();
    let start = Instant::now();
    let first = rng.u64(1..=catalogue.numbered() - 200_000);
    catalogue
        .stream(first, first + 199_999, |_, grid| {
            numbers.push(grid[80]);
            Flow::Continue
        })
        .unwrap();
    let rate = numbers.len() as f64 / start.elapsed().as_secs_f64();
    for (name, mut v) in [
        ("grid", grid_ns),
        ("number", number_ns),
        ("canon", canon_ns),
    ] {
        v.sort_unstable();
        let mean = v.iter().sum::<u64>() as f64 / v.len() as f64;
        println!(
            "{name}: mean {:.1} µs, median {:.1} µs, p99 {:.1} µs, worst {:.1} µs",
            mean / 1e3,
            v[v.len() / 2] as f64 / 1e3,
            v[v.len() * 99 / 100] as f64 / 1e3,
            v[v.len() - 1] as f64 / 1e3
        );
    }
    println!("stream: 200,000 grids from {first} at {rate:.0} grids/s");
}

/// Numbers of random grids of the committed tables, several in one
/// prefix, repeated, and a grid beyond the tables: the batches answer as
/// the single-grid path does, and the grids are `canon`'s forms.
#[test]
fn batches_answer_as_one_grid_at_a_time_and_as_canon() {
    let catalogue = committed();
    let last = catalogue.numbered();
    let mut rng = fastrand::Rng::with_seed(531);
    // Band 001 (the slowest walk) only at its end.
    let mut numbers = vec![1_007_170, 1_007_171, last];
    for _ in 0..6 {
        let k = rng.u64(1_007_171..last - 40);
        numbers.extend([k, k + 1, k + 2, k + 37, k]);
    }
    rng.shuffle(&mut numbers);
    let grids = catalogue.grids(&numbers).unwrap();
    let mut images = Vec::new();
    for (&k, grid) in numbers.iter().zip(&grids) {
        assert_eq!(minlex_grid(grid).0, *grid, "grid {k} is minlex");
        images.push(Transform::random(&mut rng).apply_grid(grid));
    }
    // The single-grid path agrees, for a few.
    for (&k, grid) in numbers.iter().zip(&grids).take(8) {
        assert_eq!(catalogue.grid(k).unwrap(), *grid);
        assert_eq!(catalogue.number_of_minlex(grid.digits()).unwrap(), k);
    }
    // Any image numbers back; the minlex forms too, in one batch.
    let back: Vec<u64> = catalogue
        .numbers_each(&images)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(back, numbers);
    let forms: Vec<Grid> = images.iter().map(|g| minlex_grid(g).0).collect();
    assert_eq!(catalogue.numbers_of_minlex(&forms).unwrap(), numbers);
    // A grid whose first band has no table fails alone, in its place: on
    // a catalogue of the first three bands (every band is committed).
    let partial = first_bands(3, "batch");
    let plast = partial.numbered();
    let beyond = loop {
        let grid = crate::generate::random_grid(&mut rng);
        if matches!(partial.number(&grid), Err(CatalogueError::NotBuilt { .. })) {
            break grid;
        }
    };
    let known = [1_007_170, 1_007_171];
    let mut mixed: Vec<Grid> = known
        .iter()
        .map(|k| images[numbers.iter().position(|n| n == k).unwrap()])
        .collect();
    mixed.insert(1, beyond);
    let answers = partial.numbers_each(&mixed);
    assert!(matches!(answers[1], Err(CatalogueError::NotBuilt { .. })));
    assert_eq!(answers[0].as_ref().unwrap(), &known[0]);
    assert_eq!(answers[2].as_ref().unwrap(), &known[1]);
    assert!(
        partial
            .numbers_of_minlex(&[minlex_grid(&beyond).0])
            .is_err()
    );
    // Numbers out of range or beyond the tables fail alone too.
    let answers = partial.grids_each(&[known[1], 0, plast + 1, ED_GRIDS + 1, known[0]]);
    assert!(matches!(answers[1], Err(CatalogueError::OutOfRange(0))));
    assert!(matches!(
        answers[2],
        Err(CatalogueError::BeyondTables { .. })
    ));
    assert!(matches!(answers[3], Err(CatalogueError::OutOfRange(_))));
    assert_eq!(
        answers[0].as_ref().unwrap(),
        &catalogue.grid(known[1]).unwrap()
    );
    assert_eq!(
        answers[4].as_ref().unwrap(),
        &catalogue.grid(known[0]).unwrap()
    );
    assert!(matches!(
        catalogue.grids_each(&[last + 1])[0],
        Err(CatalogueError::OutOfRange(_))
    ));
    assert!(catalogue.grids_each(&[]).is_empty());
}

/// s17's own catalogue crosses the field's: the ED grids of slice `k`
/// (rows 1-3 catalogue band `k`, hi visits) numbered in one batch are
/// distinct, as many as the slice's count in `data/ed-counts.tsv`, and
/// each number's grid is `canon` of the enumerated grid. Returns the
/// number of grids.
fn check_slice(catalogue: &Catalogue, k: usize) -> u64 {
    use crate::ed::{Choices, Ed};
    let ed = Ed::new();
    let mut grids = Vec::new();
    ed.for_each_entry(k, 0..u64::MAX, |entry| {
        ed.entry_visits(k, entry, Choices::HI, |v| {
            let mut grid = [0u8; 81];
            grid[..27].copy_from_slice(ed.catalogue().band(k));
            grid[27..54].copy_from_slice(&entry.band2);
            grid[54..].copy_from_slice(&v.band3);
            grids.push(Grid::from_digits_unchecked(grid));
        });
    });
    let expected = crate::ed::counts::committed()[k].grids;
    assert_eq!(grids.len() as u64, expected, "slice {k}: enumerated");
    let numbers =
        catalogue.numbers_of_minlex(&grids.iter().map(|g| minlex_grid(g).0).collect::<Vec<_>>());
    let numbers = numbers.unwrap();
    let mut distinct = numbers.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), grids.len(), "slice {k}: distinct numbers");
    let back = catalogue.grids(&numbers).unwrap();
    for (grid, form) in grids.iter().zip(&back) {
        assert_eq!(
            minlex_grid(grid).0,
            *form,
            "slice {k}: grid(number) = canon"
        );
    }
    expected
}

#[test]
fn small_slices_of_s17s_own_catalogue_number_one_to_one() {
    // Slices 026 and 029 (28,528 and 26,868 entries, 123 and 102 grids):
    // their grids' first bands are at most their own, all committed.
    let catalogue = committed();
    assert_eq!(check_slice(catalogue, 26) + check_slice(catalogue, 29), 225);
}

/// The same on a bigger slice, by hand: `S17_SLICE=13 cargo test --release
/// --lib catalogue::tests::a_whole_slice -- --ignored --nocapture` (the
/// tables of first bands up to the slice's are needed; `S17_CATALOGUE`
/// names more).
#[test]
#[ignore]
fn a_whole_slice_numbers_one_to_one() {
    use cpu_time::ProcessTime as Instant;
    let k: usize = std::env::var("S17_SLICE")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(13);
    let catalogue = Catalogue::open(&default_dirs()).unwrap();
    let start = Instant::now();
    let n = check_slice(&catalogue, k);
    println!(
        "slice {k}: {n} ED grids numbered one to one, {:.1} s CPU",
        start.elapsed().as_secs_f64()
    );
}

/// A table of some prefixes of a committed band only (for building
/// checkpoints of a big band in test time).
pub(crate) fn sub_table(band: usize, prefixes: &[usize]) -> BandTable {
    let table = &committed().table(band).expect("committed").0;
    let mut sub = BandTable {
        band,
        rows4: Vec::new(),
        before: vec![0],
    };
    for &p in prefixes {
        sub.rows4.push(table.rows4[p]);
        sub.before.push(sub.total() + table.count(p));
    }
    sub
}

/// Streaming rates over three ranges of 200,000 numbers (start, middle and
/// end of the catalogue), thread CPU time (`cargo test --release --lib
/// catalogue::tests::stream_rates -- --ignored --nocapture`;
/// `S17_STREAM_RANGES`, e.g. `13`: only the first and third ranges).
#[test]
#[ignore]
fn stream_rates() {
    use cpu_time::ThreadTime as Instant;
    // `S17_STREAM_TABLES`: another directory of tables (lists tried out).
    let other = std::env::var_os("S17_STREAM_TABLES")
        .map(|dir| Catalogue::open(&[dir.into()]).expect("tables read"));
    let catalogue = other.as_ref().unwrap_or_else(|| committed());
    let last = catalogue.numbered();
    let which = std::env::var("S17_STREAM_RANGES").unwrap_or_else(|_| "123".into());
    let ranges = [1, last / 2 - 99_999, last - 199_999];
    for (i, first) in ranges.into_iter().enumerate() {
        if !which.contains(char::from(b'1' + i as u8)) {
            continue;
        }
        let mut n = 0u64;
        let start = Instant::now();
        catalogue
            .stream(first, first + 199_999, |_, _| {
                n += 1;
                Flow::Continue
            })
            .unwrap();
        let seconds = start.elapsed().as_secs_f64();
        assert_eq!(n, 200_000);
        println!(
            "stream {first}..{}: {:.0} grids/s ({seconds:.3} s)",
            first + 199_999,
            n as f64 / seconds
        );
    }
    // `S17_STREAM_BANDS`, e.g. `160,300`: 100,000 numbers (or up to the
    // last) from the first of each of these first bands.
    let bands = std::env::var("S17_STREAM_BANDS").unwrap_or_default();
    for band in bands.split(',').filter(|b| !b.is_empty()) {
        let band: usize = band.parse().expect("a first band, from 1");
        let first = catalogue.starts[band - 1] + 1;
        let end = (first + 99_999).min(last);
        let mut n = 0u64;
        let start = Instant::now();
        catalogue
            .stream(first, end, |_, _| {
                n += 1;
                Flow::Continue
            })
            .unwrap();
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "band {band:03}: {n} grids from {first}: {:.0} grids/s ({seconds:.3} s); {} grids \
             from band {band:03} on",
            n as f64 / seconds,
            last + 1 - first
        );
    }
}
