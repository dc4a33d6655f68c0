//! The band 2 lists (`NNN.b2s`) against a direct walk, and damaged ones.

use std::path::Path;

use super::BandBand2s;
use crate::band::BANDS;
use crate::catalogue::BandFile;
use crate::catalogue::tests::{committed, sub_table, walker};
use crate::catalogue::{BandTable, CatalogueError, Flow};

/// The committed band 2 lists, on sampled prefixes of sampled bands that
/// have them, are the band 2s where a direct walk finds grids, and a
/// stream through such a prefix gives the plain walk's grids (the walk is
/// all they share with the builder).
#[test]
fn sampled_committed_band2_lists_equal_a_direct_walk() {
    let (catalogue, walker) = (committed(), walker());
    let listed: Vec<usize> = (0..BANDS)
        .filter(|&b| catalogue.band2s_file(b).is_some())
        .collect();
    assert!(listed.len() >= 80, "band 2 lists are committed");
    let mut rng = fastrand::Rng::with_seed(5300);
    let mut checked = 0;
    for _ in 0..6 {
        let band = listed[rng.usize(..listed.len())];
        let table = &catalogue.table(band).unwrap().0;
        let list = catalogue.band2s(band).unwrap().unwrap();
        if table.rows4.is_empty() {
            continue;
        }
        for _ in 0..3 {
            let prefix = rng.usize(..table.rows4.len());
            let row4 = &table.rows4[prefix];
            let mut plain = Vec::new();
            let mut with_grids = Vec::new();
            for band2 in walker.band2s(band, row4) {
                let before = plain.len();
                walker.walk_band2(band, row4, &band2, false, &mut |grid| {
                    plain.push(*grid);
                    Flow::Continue
                });
                if plain.len() > before {
                    with_grids.push(band2);
                }
            }
            assert_eq!(
                list.of_prefix(prefix),
                &with_grids[..],
                "band {band} prefix {prefix}"
            );
            let first = catalogue.starts[band] + table.before[prefix] + 1;
            let mut streamed = Vec::new();
            catalogue
                .stream(first, first + table.count(prefix) - 1, |_, grid| {
                    streamed.push(*grid);
                    Flow::Continue
                })
                .unwrap();
            assert_eq!(streamed, plain, "band {band} prefix {prefix}");
            checked += 1;
        }
    }
    assert!(checked >= 10);
}

/// A band 2 list reads back as built; one for another table, with a byte
/// changed, or with its band 2s out of order is refused, naming the line
/// and why.
#[test]
fn a_damaged_band2_list_is_refused() {
    let walker = walker();
    let band = 330;
    let table = &committed().table(band).expect("committed").0;
    let prefix = (0..table.rows4.len())
        .find(|&p| table.count(p) >= 3)
        .expect("a prefix of 3 grids");
    let sub = sub_table(band, &[prefix]);
    let path = Path::new("test.b2s");
    let list = BandBand2s::build(walker, &sub, path).unwrap();
    assert!(list.len() >= 2, "{}", list.len());
    let bytes = list.to_bytes(walker, &sub);
    assert_eq!(BandBand2s::parse(&bytes, &sub, walker, path).unwrap(), list);
    let fault =
        |bytes: &[u8], table: &BandTable| match BandBand2s::parse(bytes, table, walker, path) {
            Err(CatalogueError::Format { line, reason, .. }) => (line, reason),
            other => panic!("{other:?}"),
        };
    assert_eq!(fault(&bytes, table).0, 1);
    let mut changed = bytes.clone();
    *changed.last_mut().unwrap() ^= 1;
    assert_eq!(
        fault(&changed, &sub),
        (2, "the bytes do not match the header's hash".to_string())
    );
    let mut swapped = list.clone();
    swapped.band2s.swap(0, 1);
    let reason = fault(&swapped.to_bytes(walker, &sub), &sub).1;
    assert!(
        reason.ends_with("band 2 2 is not above the one before"),
        "{reason}"
    );
}
