//! The flag file format: round trips, and every kind of damage named.

use proptest::prelude::*;

use super::*;

fn header(flagged: u64) -> FlagHeader {
    FlagHeader {
        clues: 18,
        kind: KIND_FIRST,
        slice: 28,
        grids: 1000,
        searched: 900,
        covered: 800,
        flagged,
    }
}

/// A mask of `n` cells chosen by `seed`.
fn mask(seed: u64, n: u32) -> Mask81 {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut m: Mask81 = 0;
    while m.count_ones() < n {
        m |= 1u128 << rng.usize(0..81);
    }
    m
}

fn sample(n: usize) -> Vec<FlagRecord> {
    (0..n)
        .map(|i| FlagRecord {
            entry: (i / 3) as u32 * 7,
            grid: (i % 3) as u32,
            mask: mask(i as u64, 18),
        })
        .collect()
}

fn fault(bytes: Vec<u8>) -> FlagFault {
    FlagFile::open(bytes, "f.s17f")
        .err()
        .expect("refused")
        .fault
}

#[test]
fn a_file_reads_back_and_names_its_flag() {
    let records = sample(10);
    let bytes = to_bytes(header(0), &records).unwrap();
    assert_eq!(
        bytes.len(),
        HEADER_LEN + 10 * RECORD_LEN + CHECKSUM_LEN,
        "the layout's length"
    );
    let file = FlagFile::open(&bytes, "f.s17f").unwrap();
    assert_eq!(*file.header(), header(10));
    assert_eq!(file.records().collect::<Vec<_>>(), records);
    assert_eq!(
        file.header().describe(),
        "has a minimal 18 (first per visit)"
    );
    // An empty file (nothing flagged) is fine too.
    let empty = to_bytes(header(0), &[]).unwrap();
    assert_eq!(FlagFile::open(empty, "e").unwrap().records().count(), 0);
}

#[test]
fn damage_is_named_with_the_file() {
    let good = to_bytes(header(0), &sample(4)).unwrap();
    let err = FlagFile::open(good[..good.len() - 1].to_vec(), "f.s17f")
        .err()
        .unwrap();
    assert!(err.to_string().starts_with("f.s17f: truncated"), "{err}");
    let mut v = good.clone();
    v[8] = 9;
    assert_eq!(
        fault(v),
        FlagFault::Version {
            expected: FORMAT_VERSION,
            got: 9
        }
    );
    let mut v = good.clone();
    v[0] = b'X';
    assert_eq!(fault(v), FlagFault::Magic);
    // A flipped bit of a record or of the header's counts.
    for at in [HEADER_LEN + 30, 40] {
        let mut v = good.clone();
        v[at] ^= 4;
        assert!(matches!(fault(v), FlagFault::Checksum { .. }), "byte {at}");
    }
    assert!(matches!(
        fault(good[..20].to_vec()),
        FlagFault::Length { .. }
    ));
}

#[test]
fn the_writer_refuses_disorder_wrong_masks_and_wrong_counts() {
    let mut records = sample(3);
    records.swap(0, 1);
    assert!(to_bytes(header(0), &records).is_err());
    let mut records = sample(3);
    records[2].mask = mask(1, 17);
    assert!(to_bytes(header(0), &records).is_err());
    let mut w = FlagWriter::new(Vec::new(), header(2)).unwrap();
    w.push(sample(1)[0]).unwrap();
    assert!(w.finish().is_err(), "one record of two");
    let bad = FlagHeader {
        covered: 901,
        ..header(0)
    };
    assert!(FlagWriter::new(Vec::new(), bad).is_err());
}

proptest! {
    #[test]
    fn any_records_round_trip(
        keys in proptest::collection::btree_set((0u32..1_000_000, 0u32..300), 0..40),
        seed in any::<u64>(),
        clues in 16u32..=19,
    ) {
        let records: Vec<FlagRecord> = keys
            .iter()
            .enumerate()
            .map(|(i, &(entry, grid))| FlagRecord { entry, grid, mask: mask(seed ^ i as u64, clues) })
            .collect();
        let h = FlagHeader { clues, kind: KIND_FIRST | KIND_NON_MINIMAL, slice: 415, grids: 100, searched: 50, covered: 40, flagged: 0 };
        let bytes = to_bytes(h, &records).unwrap();
        let file = FlagFile::open(&bytes, "p").unwrap();
        prop_assert_eq!(file.header().flagged, records.len() as u64);
        prop_assert_eq!(file.records().collect::<Vec<_>>(), records);
    }

    #[test]
    fn any_flipped_byte_is_refused(at in any::<prop::sample::Index>(), bit in 0u8..8) {
        let good = to_bytes(header(0), &sample(6)).unwrap();
        let mut bytes = good.clone();
        bytes[at.index(good.len())] ^= 1 << bit;
        prop_assert!(FlagFile::open(bytes, "p").is_err());
    }
}
