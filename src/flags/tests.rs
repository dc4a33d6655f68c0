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
    let build = THIS_BUILD.len().div_ceil(8) * 8;
    assert_eq!(
        bytes.len(),
        PROVENANCE_END + build + 10 * RECORD_LEN + CHECKSUM_LEN,
        "the layout's length"
    );
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
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
    // A flipped bit of a record, of the provenance or of the header's
    // counts.
    for at in [good.len() - 30, 40, 64, 75, 94, PROVENANCE_END + 2] {
        let mut v = good.clone();
        v[at] ^= 4;
        assert!(matches!(fault(v), FlagFault::Checksum { .. }), "byte {at}");
    }
    assert!(matches!(
        fault(good[..20].to_vec()),
        FlagFault::Length { .. }
    ));
}

/// A version 1 file (no provenance) of `records`, as the first sitting
/// wrote it: the fixed header, the records, the checksum.
fn version_1(h: FlagHeader, records: &[FlagRecord]) -> Vec<u8> {
    let v2 = to_bytes(h, records).unwrap();
    let header_len = u32_at(&v2, 12) as usize;
    let mut b = v2[..HEADER_LEN].to_vec();
    b[8..12].copy_from_slice(&1u32.to_le_bytes());
    b[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
    b.extend_from_slice(&v2[header_len..v2.len() - CHECKSUM_LEN]);
    let sum = Checksum::of(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

/// `bytes` with its checksum made again (a header that is wrong but not
/// damaged).
fn resummed(mut bytes: Vec<u8>) -> Vec<u8> {
    let body = bytes.len() - CHECKSUM_LEN;
    let sum = Checksum::of(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
    bytes
}

#[test]
fn the_provenance_reads_back_and_version_1_is_still_read() {
    let records = sample(5);
    let p = Provenance {
        plan: Provenance::fingerprint(b"# s17 campaign plan v1\n0\t28\t0\t6\t1\n"),
        planned: 6,
        checkpointed: 4,
        complete: false,
        build: "s17 0.1.0 (abc1234, x86_64-unknown-linux-gnu, cpu native)".to_string(),
    };
    let bytes = to_bytes_with(header(0), &p, &records).unwrap();
    let file = FlagFile::open(&bytes, "f").unwrap();
    assert_eq!(file.provenance(), Some(&p));
    assert_eq!(file.records().collect::<Vec<_>>(), records);
    assert!(p.describe().contains("4 of 6 entries"), "{}", p.describe());
    let complete = Provenance {
        complete: true,
        checkpointed: 6,
        build: "x".to_string(),
        ..p.clone()
    };
    let file_bytes = to_bytes_with(header(0), &complete, &records).unwrap();
    assert_eq!(u32_at(&file_bytes, 12), 104, "96 + 1 byte padded to 8");
    let file = FlagFile::open(file_bytes, "f").unwrap();
    assert_eq!(file.provenance(), Some(&complete));
    // The same records, version 1: the same header and records, no
    // provenance.
    let v1 = version_1(header(0), &records);
    assert_eq!(v1.len(), HEADER_LEN + 5 * RECORD_LEN + CHECKSUM_LEN);
    let old = FlagFile::open(v1, "old").unwrap();
    assert_eq!(*old.header(), header(5));
    assert_eq!(old.provenance(), None);
    assert_eq!(old.records().collect::<Vec<_>>(), records);
    // A version 3 is refused by name.
    let mut v3 = bytes.clone();
    v3[8] = 3;
    let err = FlagFile::open(v3, "new.s17f").err().unwrap().to_string();
    assert!(
        err.contains("new.s17f: format version 3, this program reads versions 1 to 2"),
        "{err}"
    );
}

#[test]
fn a_bad_provenance_with_a_right_checksum_is_named() {
    let good = to_bytes(header(0), &sample(2)).unwrap();
    let cases: [(usize, u8, &str); 3] = [
        (88, 2, "unknown state bits"),
        (PROVENANCE_END, 0xff, "not UTF-8"),
        (92, 1, "a build string of"),
    ];
    for (at, value, said) in cases {
        let mut v = good.clone();
        v[at] ^= value;
        match fault(resummed(v)) {
            FlagFault::Header(why) => assert!(why.contains(said), "{why}"),
            other => panic!("byte {at}: {other:?}"),
        }
    }
    // Checkpointed above planned.
    let p = Provenance {
        planned: 1,
        checkpointed: 2,
        ..Provenance::none()
    };
    assert!(to_bytes_with(header(0), &p, &[]).is_err());
}

#[test]
fn the_writer_refuses_disorder_wrong_masks_and_wrong_counts() {
    let mut records = sample(3);
    records.swap(0, 1);
    assert!(to_bytes(header(0), &records).is_err());
    let mut records = sample(3);
    records[2].mask = mask(1, 17);
    assert!(to_bytes(header(0), &records).is_err());
    let mut w = FlagWriter::new(Vec::new(), header(2), &Provenance::none()).unwrap();
    w.push(sample(1)[0]).unwrap();
    assert!(w.finish().is_err(), "one record of two");
    let bad = FlagHeader {
        covered: 901,
        ..header(0)
    };
    assert!(FlagWriter::new(Vec::new(), bad, &Provenance::none()).is_err());
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
