//! The rows-5 lists (`NNN.r5s`) against a direct walk, streams with them
//! against streams without, and damaged ones.

use std::path::Path;

use super::BandRows5;
use crate::band::BANDS;
use crate::catalogue::BandFile;
use crate::catalogue::frame::frame;
use crate::catalogue::tests::{committed, sub_table, walker};
use crate::catalogue::{BandTable, Catalogue, CatalogueError, Flow, committed_dir};

/// The rows 5 of a prefix that hold grids, by a plain walk of its band 2s.
fn rows5_with_grids(band: usize, row4: &[u8; 9]) -> Vec<[u8; 9]> {
    let walker = walker();
    let mut with: Vec<[u8; 9]> = Vec::new();
    for band2 in walker.band2s(band, row4) {
        let mut grids = 0;
        walker.walk_band2(band, row4, &band2, false, &mut |_| {
            grids += 1;
            Flow::Continue
        });
        let row5: [u8; 9] = band2.rows[..9].try_into().unwrap();
        if grids > 0 && with.last() != Some(&row5) {
            with.push(row5);
        }
    }
    with
}

/// The committed rows-5 lists, on sampled prefixes of every band that has
/// one, mark exactly the rows 5 where a direct walk finds grids; the bands
/// 298-324 have them.
#[test]
fn sampled_committed_rows5_lists_equal_a_direct_walk() {
    let (catalogue, walker) = (committed(), walker());
    let listed: Vec<usize> = (0..BANDS)
        .filter(|&b| catalogue.rows5_file(b).is_some())
        .collect();
    assert_eq!(listed, (297..324).collect::<Vec<_>>());
    // Band 324's file rebuilt (the walk of its 46,002 grids) byte for byte.
    let (table, path) = catalogue.table(323).unwrap();
    let built = BandRows5::build(walker, table, path).unwrap();
    assert_eq!(
        built.to_bytes(walker, table),
        std::fs::read(catalogue.rows5_file(323).unwrap()).unwrap()
    );
    let mut rng = fastrand::Rng::with_seed(5305);
    for band in listed {
        let table = &catalogue.table(band).unwrap().0;
        let list = catalogue.rows5(band).unwrap().unwrap();
        for _ in 0..4 {
            let prefix = rng.usize(..table.rows4.len());
            let row4 = &table.rows4[prefix];
            let mut rows5 = Vec::new();
            walker.for_each_row5(band, row4, &mut |row5| {
                rows5.push(*row5);
                Flow::Continue
            });
            assert_eq!(rows5.len(), list.rows5_of(prefix));
            let marked: Vec<[u8; 9]> = (0..rows5.len())
                .filter(|&i| list.marked(prefix, i))
                .map(|i| rows5[i])
                .collect();
            assert_eq!(
                marked,
                rows5_with_grids(band, row4),
                "band {band} prefix {prefix}"
            );
        }
    }
}

/// The committed catalogue without its rows-5 lists.
fn without_rows5() -> Catalogue {
    let mut catalogue = Catalogue::open(&[committed_dir()]).unwrap();
    catalogue.rows5 = (0..BANDS).map(|_| None).collect();
    catalogue
}

/// Streams through bands with a rows-5 list (from inside a band, across
/// prefixes, and over the bands' ends into bands without one) give the
/// grids of a stream without the lists, and of `grid(n)`.
#[test]
fn streams_with_rows5_lists_equal_streams_without() {
    let (with, without) = (committed(), without_rows5());
    let table = |band: usize| &with.table(band).unwrap().0;
    // (first band 1-based, first number's offset in it, grids).
    let mut ranges = vec![
        (298, table(297).before[700], 2500),
        (310, table(309).before[500], 2500),
        (315, table(314).before[700], 2500),
        (324, table(323).before[1000], 2500),
        (315, 0, 300),
    ];
    // The last grids of bands 297 (no list), 314 and 324, into 298, 315
    // and 325 (no list, a band 2 list).
    for band in [297, 314, 324] {
        ranges.push((band, table(band - 1).total() - 200, 400));
    }
    let mut rng = fastrand::Rng::with_seed(5306);
    for band in [297, 309, 323] {
        assert!(with.rows5(band).unwrap().is_some() && with.band2s(band).unwrap().is_none());
    }
    assert!(with.rows5(296).unwrap().is_none() && with.rows5(324).unwrap().is_none());
    for (band, offset, n) in ranges {
        let first = with.starts[band - 1] + offset + 1;
        let last = first + n - 1;
        let stream = |catalogue: &Catalogue| {
            let mut out = Vec::new();
            catalogue
                .stream(first, last, |number, grid| {
                    out.push((number, *grid));
                    Flow::Continue
                })
                .unwrap();
            out
        };
        let listed = stream(with);
        assert_eq!(listed.len() as u64, n);
        assert_eq!(listed, stream(&without), "band {band} from {first}");
        let numbers: Vec<u64> = (first..=last).collect();
        let grids = without.grids(&numbers).unwrap();
        for ((number, grid), (k, expected)) in listed.iter().zip(numbers.iter().zip(&grids)) {
            assert_eq!((number, grid), (k, expected.digits()));
        }
        for _ in 0..20 {
            let (number, grid) = listed[rng.usize(..listed.len())];
            assert_eq!(with.grid(number).unwrap().digits(), &grid);
        }
    }
}

/// A rows-5 list reads back as built; one for another band or table, cut
/// short, with a byte changed, with a wrong header, or with bits that do
/// not fit the walk or the table is refused, naming the file, the line and
/// why; a table whose count disagrees with the walk is refused by the
/// build.
#[test]
fn a_damaged_rows5_list_is_refused() {
    let walker = walker();
    let band = 319;
    let table = &committed().table(band).expect("committed").0;
    let mut prefixes: Vec<usize> = (0..table.rows4.len())
        .filter(|&p| table.count(p) >= 2)
        .take(3)
        .collect();
    prefixes.push(
        (0..table.rows4.len())
            .find(|&p| table.count(p) == 1)
            .expect("a prefix of one grid"),
    );
    let sub = sub_table(band, &prefixes);
    let path = Path::new("dir/320.r5s");
    let list = BandRows5::build(walker, &sub, path).unwrap();
    assert!(list.len() > 8 && list.marked_count() >= 3, "{list:?}");
    let bytes = list.to_bytes(walker, &sub);
    assert_eq!(BandRows5::parse(&bytes, &sub, walker, path).unwrap(), list);
    let fault = |bytes: &[u8], table: &BandTable| match BandRows5::parse(bytes, table, walker, path)
    {
        Err(e @ CatalogueError::Format { .. }) => {
            assert!(e.to_string().starts_with("dir/320.r5s: line "), "{e}");
            let CatalogueError::Format { line, reason, .. } = e else {
                unreachable!()
            };
            (line, reason)
        }
        other => panic!("{other:?}"),
    };
    // Another table of the band; another band.
    let (line, reason) = fault(&bytes, table);
    assert_eq!(line, 1);
    assert!(reason.starts_with("made for "), "{reason}");
    let other = sub_table(band + 1, &[0]);
    let (line, reason) = fault(&bytes, &other);
    assert_eq!(line, 1);
    assert!(
        reason
            .starts_with("the header does not start with `# s17 catalogue rows 5: first band 321"),
        "{reason}"
    );
    // A byte changed, the file cut, a wrong header.
    let mut changed = bytes.clone();
    *changed.last_mut().unwrap() ^= 0x40;
    assert_eq!(
        fault(&changed, &sub),
        (2, "the bytes do not match the header's hash".to_string())
    );
    let cut = &bytes[..bytes.len() - 1];
    let body = list.bits.len();
    assert_eq!(
        fault(cut, &sub),
        (
            2,
            format!("{} bytes after the header, it says {body}", body - 1)
        )
    );
    let text = String::from_utf8_lossy(&bytes).replace("rows 5: first", "rows five: first");
    assert_eq!(fault(text.as_bytes(), &sub).0, 1);
    // Bits that do not fit: one row 5 more than the walk lists; a prefix
    // with grids and none marked; one with no grid and one marked.
    let reframe = |bits: &[u8], rows5: usize, marked: u64| {
        let fields = [
            format!("{} grids", sub.total()),
            format!("{rows5} rows 5"),
            format!("{marked} marked"),
        ];
        frame("rows 5", walker, band, &fields, bits)
    };
    let (n, m) = (list.len(), list.marked_count());
    let mut longer = list.bits.clone();
    longer.push(0);
    assert_eq!(
        fault(&reframe(&longer, n + 8, m), &sub),
        (1, format!("made for {} rows 5, the walk lists {n}", n + 8))
    );
    assert_eq!(
        fault(&reframe(&list.bits, n, m + 1), &sub),
        (1, format!("{} rows 5 marked, the body marks {m}", m + 1))
    );
    let mut cleared = list.clone();
    for i in 0..cleared.rows5_of(1) {
        let at = cleared.starts[1] as usize + i;
        cleared.bits[at / 8] &= !(0x80 >> (at % 8));
    }
    let gone = m - cleared.marked_count();
    assert!(gone > 0);
    assert_eq!(
        fault(&reframe(&cleared.bits, n, m - gone), &sub),
        (
            2,
            format!(
                "prefix 2 has {} grids and 0 rows 5 marked (1 to its grids)",
                sub.count(1)
            )
        )
    );
    let mut extra = list.clone();
    let unmarked = (0..extra.rows5_of(3))
        .find(|&i| !extra.marked(3, i))
        .expect("a row 5 without grids");
    let at = extra.starts[3] as usize + unmarked;
    extra.bits[at / 8] |= 0x80 >> (at % 8);
    assert_eq!(
        fault(&reframe(&extra.bits, n, m + 1), &sub),
        (
            2,
            "prefix 4 has 1 grids and 2 rows 5 marked (1 to its grids)".to_string()
        )
    );
    // A table whose count disagrees with the walk.
    let mut wrong = sub.clone();
    wrong.before[2] += 1;
    wrong.before[3] += 1;
    wrong.before[4] += 1;
    match BandRows5::build(walker, &wrong, path) {
        Err(CatalogueError::Inconsistent { band: 320, path: p }) => assert_eq!(p, path),
        other => panic!("{other:?}"),
    }
}

/// The band 2s under each row 5 the walk lists, in order, are the
/// prefix's band 2s (sampled prefixes of sampled bands).
#[test]
fn the_band2s_under_the_rows5_are_the_prefix_band2s() {
    let (catalogue, walker) = (committed(), walker());
    let mut rng = fastrand::Rng::with_seed(5307);
    for band in [0, 100, 250, 314, 319, 323, 360, 415] {
        let table = &catalogue.table(band).unwrap().0;
        for _ in 0..3 {
            let row4 = &table.rows4[rng.usize(..table.rows4.len())];
            let mut under = Vec::new();
            let mut rows5 = 0;
            walker.for_each_row5(band, row4, &mut |row5| {
                rows5 += 1;
                let band2s = walker.band2s_under_row5(band, row4, row5);
                assert!(band2s.iter().all(|b2| b2.rows[..9] == row5[..]));
                under.extend(band2s);
                Flow::Continue
            });
            assert!(rows5 > 0);
            assert_eq!(under, walker.band2s(band, row4), "band {band}");
        }
    }
}
