//! Checkpoints (`NNN.ckp`) against a plain walk: built with small
//! spacings, the committed ones sampled, a catalogue with them against one
//! without, their codes, damaged files.

use std::path::Path;

use super::*;
use crate::band::BANDS;
use crate::canon::Transform;
use crate::catalogue::tests::{committed, sub_table, walker};
use crate::catalogue::{Catalogue, committed_dir};

/// Checks the checkpoints of prefix `prefix` against the grids of a plain
/// forward walk of it (the walk is all they share): checkpoint `i` is the
/// rows 5-6 of the grid of rank `i K`, and its count the rank of the first
/// grid with those rows 5-6. Returns the number of checkpoints.
fn check_checkpoints_by_walk(
    table: &BandTable,
    checkpoints: &BandCheckpoints,
    prefix: usize,
) -> usize {
    let walker = walker();
    let mut rows56 = Vec::new();
    walker.walk_prefix(table.band, &table.rows4[prefix], &mut |grid| {
        rows56.push(<[u8; 18]>::try_from(&grid[36..54]).unwrap());
        Flow::Continue
    });
    assert_eq!(rows56.len() as u64, table.count(prefix));
    let cps = checkpoints.of_prefix(walker, table, prefix);
    assert_eq!(
        cps.len() as u64,
        (rows56.len() as u64 - 1) / checkpoints.spacing
    );
    for (i, cp) in cps.iter().enumerate() {
        let at = (i as u64 + 1) * checkpoints.spacing;
        assert_eq!(rows56[at as usize], cp.rows56, "checkpoint {}", i + 1);
        let first = rows56.iter().position(|r| *r == cp.rows56).unwrap();
        assert_eq!(first as u64, cp.before, "checkpoint {}", i + 1);
    }
    cps.len()
}

/// Grids and ranks found from the checkpoints (built here with a small
/// spacing, so that a prefix has many) equal those of the plain walk,
/// around every checkpoint and at random ranks, on sampled prefixes of
/// bands with and without automorphisms; and the checkpoints themselves
/// equal a direct walk.
#[test]
fn checkpoint_lookups_equal_the_plain_walk() {
    let walker = walker();
    let mut rng = fastrand::Rng::with_seed(5353);
    let mut automorphic = 0;
    for (band, spacing) in [(0, 300), (5, 2500), (66, 250), (215, 97), (300, 16)] {
        // Two prefixes of 3 to 20 spacings (band 001 walks slowest).
        let table = &committed().table(band).expect("committed").0;
        let fit: Vec<usize> = (0..table.rows4.len())
            .filter(|&p| (3 * spacing..20 * spacing).contains(&table.count(p)))
            .collect();
        let prefixes: Vec<usize> = (0..2).map(|_| fit[rng.usize(..fit.len())]).collect();
        let sub = sub_table(band, &prefixes);
        let path = Path::new("test.ckp");
        let checkpoints = BandCheckpoints::build(walker, &sub, spacing, path).unwrap();
        // The file round-trips.
        let bytes = checkpoints.to_bytes(walker, &sub);
        assert_eq!(
            BandCheckpoints::parse(&bytes, &sub, walker, path).unwrap(),
            checkpoints
        );
        automorphic += (walker.catalogue().automorphisms(band).len() > 1) as usize;
        for prefix in 0..sub.rows4.len() {
            let n = check_checkpoints_by_walk(&sub, &checkpoints, prefix);
            let count = sub.count(prefix);
            let mut forward = Vec::new();
            walker.walk_prefix(band, &sub.rows4[prefix], &mut |grid| {
                forward.push(*grid);
                Flow::Continue
            });
            let mut ranks: Vec<u64> = vec![0, 1, count - 1, count / 2];
            for cp in checkpoints.of_prefix(walker, &sub, prefix) {
                ranks.extend([cp.before.saturating_sub(1), cp.before, cp.before + 1]);
            }
            for i in 1..=n as u64 {
                ranks.extend([i * spacing - 1, i * spacing, i * spacing + 1]);
            }
            ranks.extend((0..10).map(|_| rng.u64(..count)));
            for rank in ranks.into_iter().filter(|&r| r < count) {
                let grid = &forward[rank as usize];
                let cp = Some(&checkpoints);
                assert_eq!(
                    super::nth(walker, &sub, cp, prefix, rank),
                    Some(*grid),
                    "band {:03} prefix {prefix} rank {rank}",
                    band + 1
                );
                assert_eq!(
                    super::rank(walker, &sub, cp, prefix, grid),
                    Some(rank),
                    "band {:03} prefix {prefix} rank {rank}",
                    band + 1
                );
                // Without checkpoints: the same.
                assert_eq!(super::rank(walker, &sub, None, prefix, grid), Some(rank));
            }
            // A rank past the prefix and a grid not minlex have none.
            assert_eq!(
                super::nth(walker, &sub, Some(&checkpoints), prefix, count),
                None
            );
            let mut not_minlex = forward[0];
            not_minlex.swap(54, 55);
            assert_eq!(
                super::rank(walker, &sub, Some(&checkpoints), prefix, &not_minlex),
                None
            );
        }
    }
    assert!(
        automorphic >= 2,
        "bands with automorphisms among those checked"
    );
}

/// A catalogue with checkpoints for some bands (built into a temporary
/// directory, the tables committed) numbers as one without.
#[test]
fn a_catalogue_with_checkpoints_numbers_as_one_without() {
    let walker = walker();
    let dir = std::env::temp_dir().join(format!("s17-catalogue-ckp-{}", std::process::id()));
    let bands = [300, 398, 415];
    for band in bands {
        let table = &committed().table(band).expect("committed").0;
        BandCheckpoints::build(walker, table, 40, Path::new("x"))
            .unwrap()
            .write(walker, table, &dir)
            .unwrap();
    }
    let with = Catalogue::open(&[dir.clone(), committed_dir()]).unwrap();
    let plain = committed();
    let mut rng = fastrand::Rng::with_seed(4040);
    for band in bands {
        assert!(with.checkpoints(band).unwrap().is_some());
        let start = plain.starts[band];
        let total = plain.table(band).unwrap().0.total();
        for _ in 0..15 {
            let k = start + rng.u64(1..=total);
            let grid = with.grid(k).unwrap();
            assert_eq!(grid, plain.grid(k).unwrap(), "grid {k}");
            let image = Transform::random(&mut rng).apply_grid(&grid);
            assert_eq!(with.number(&image).unwrap(), k);
        }
    }
    // A corrupt file is refused naming it, its line and why: by the check
    // of every file (`catalogue install`'s), and by any lookup in its band
    // (read on first use: opening the catalogue does not read it), while
    // the other bands still answer.
    let path = dir.join(BandCheckpoints::file_name(300));
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(!bytes.ends_with(b"\n"), "checkpoints after the header");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let refused = |what: &str| {
        let with = Catalogue::open(&[dir.clone(), committed_dir()]).unwrap();
        let k = plain.starts[300] + 1;
        let errors = [
            with.check_band_files()
                .expect_err("a corrupt file is refused"),
            with.grid(k).expect_err("a number of its band is refused"),
            with.number(&plain.grid(k).unwrap())
                .expect_err("so is a grid"),
            with.grids_each(&[k])
                .pop()
                .unwrap()
                .expect_err("and in a batch"),
        ];
        for err in errors {
            assert!(err.is_file_error());
            let err = err.to_string();
            assert!(err.contains(what), "{err}");
        }
        assert_eq!(with.grid(1).unwrap(), plain.grid(1).unwrap());
    };
    refused("301.ckp: line 2: the bytes do not match");
    let text = String::from_utf8_lossy(&bytes).replace("every 40 grids", "every 41 grids");
    std::fs::write(&path, text.as_bytes()).unwrap();
    refused("301.ckp: line 1:");
    // A file of version 1 (offsets in 7 bits) is refused with what to do.
    let text = String::from_utf8_lossy(&bytes).replace("checkpoints v2:", "checkpoints:");
    std::fs::write(&path, text.as_bytes()).unwrap();
    refused("301.ckp: line 1: checkpoints of version 1, which this s17 no longer reads: install");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A checkpoint's offset (Rice code, 16 bits from 128 on) and rows 5-6
/// read back as written, one after another, for offsets around each
/// length of the code; a cut code reads as none.
#[test]
fn checkpoint_codes_read_back() {
    let (walker, table) = (walker(), &committed().table(0).unwrap().0);
    let row4 = &table.rows4[3];
    let band2s = walker.band2s(0, row4);
    let offsets = [
        0u64, 1, 7, 8, 9, 63, 64, 127, 128, 129, 1799, 40_000, 65_535,
    ];
    let mut bits = Bits::default();
    for (i, &offset) in offsets.iter().enumerate() {
        let rows = &band2s[i * 7 % band2s.len()].rows;
        encode(&mut bits, walker, 0, row4, rows, offset);
    }
    let mut at = 0;
    for (i, &offset) in offsets.iter().enumerate() {
        let target = 70_000 + i as u64;
        let (cp, next) = decode(&bits.bytes, at, walker, 0, row4, target).unwrap();
        assert_eq!(cp.before, target - offset);
        assert_eq!(cp.rows56, band2s[i * 7 % band2s.len()].rows);
        at = next;
    }
    assert!(at.div_ceil(8) == bits.bytes.len());
    // Offsets of 0, 8 and 128: 4, 5 and 32 bits before rows 5-6.
    for (offset, width) in [(0, 4), (8, 5), (128, 32)] {
        let mut bits = Bits::default();
        encode(&mut bits, walker, 0, row4, &band2s[0].rows, offset);
        let mut rows = Bits::default();
        encode_rows56(&mut rows, walker, 0, row4, &band2s[0].rows);
        assert_eq!(bits.len(), width + rows.len(), "offset {offset}");
    }
    // An escaped offset cut inside its 16 bits.
    let mut bits = Bits::default();
    encode(&mut bits, walker, 0, row4, &band2s[0].rows, 40_000);
    assert!(decode(&bits.bytes, 0, walker, 0, row4, 70_000).is_some());
    assert!(decode(&bits.bytes[..3], 0, walker, 0, row4, 70_000).is_none());
}

/// The committed checkpoints, on sampled prefixes of a few of the bands
/// that have them, equal a direct walk of the prefix (the walk is all they
/// share with the builder).
#[test]
fn sampled_committed_checkpoints_equal_a_direct_walk() {
    let catalogue = committed();
    let built: Vec<usize> = (0..BANDS)
        .filter(|&b| catalogue.checkpoint_file(b).is_some())
        .collect();
    assert!(!built.is_empty(), "checkpoints are committed");
    let mut rng = fastrand::Rng::with_seed(3000);
    let mut checked = 0;
    for _ in 0..3 {
        let band = built[rng.usize(..built.len())];
        let (table, _) = catalogue.table(band).unwrap();
        let checkpoints = catalogue.checkpoints(band).unwrap().unwrap();
        let with: Vec<usize> = (0..table.rows4.len())
            .filter(|&p| table.count(p) > checkpoints.spacing)
            .collect();
        if with.is_empty() {
            continue;
        }
        let prefix = with[rng.usize(..with.len())];
        checked += check_checkpoints_by_walk(table, checkpoints, prefix);
    }
    assert!(checked > 0);
}
