//! The band table file: round trip, corruption caught, bad files refused
//! with a clear error, and the `s17 tables` commands on the real binary.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): a stale,
//! truncated or corrupt table file read as good
//! (`every_flipped_byte_is_caught`,
//! `a_flipped_byte_in_a_band_section_is_caught_at_its_first_read`,
//! `bad_files_are_refused_with_a_clear_error`,
//! `stale_tables_are_rebuilt_by_open_or_build`,
//! `building_reports_each_band_in_order`).

use std::path::Path;
use std::process::Command;

use s17::band::{BandCatalogue, SetList, parse_band};
use s17::tables::{
    BandData, BandTables, CATALOGUE_LEN, FORMAT_VERSION, TableError, compute_tables, encode_to_vec,
    write_file,
};

/// Bytes in an 8-byte aligned buffer, as a memory map would give them.
struct Aligned {
    words: Vec<u64>,
    len: usize,
}

impl Aligned {
    fn new(bytes: &[u8]) -> Aligned {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        Aligned {
            words,
            len: bytes.len(),
        }
    }
}

impl AsRef<[u8]> for Aligned {
    fn as_ref(&self) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(&self.words)[..self.len]
    }
}

/// A small file: four bands, the first being the one needing 6 clues.
fn small_data(catalogue: &BandCatalogue) -> Vec<BandData> {
    compute_tables(catalogue, &[0, 1, 2, 415], &mut |_| {})
}

fn open_bytes(bytes: &[u8]) -> Result<BandTables<Aligned>, TableError> {
    BandTables::from_bytes(Aligned::new(bytes))
}

/// Section starts, read from the header (offsets at 48, 56, 64, 80, 88).
fn section_starts(bytes: &[u8]) -> Vec<usize> {
    [48, 56, 64, 80, 88]
        .iter()
        .map(|&at| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize)
        .collect()
}

/// The library reports a build's progress through its callback, once per
/// band and in order (the command line draws the bar).
#[test]
fn building_reports_each_band_in_order() {
    let catalogue = BandCatalogue::new();
    let mut reports = Vec::new();
    let data = compute_tables(&catalogue, &[0, 1, 2, 415], &mut |p| {
        reports.push((p.done, p.total))
    });
    assert_eq!(data.len(), 4);
    assert_eq!(reports, [(1, 4), (2, 4), (3, 4), (4, 4)]);
}

#[test]
fn small_file_round_trips_through_bytes() {
    let catalogue = BandCatalogue::new();
    let data = small_data(&catalogue);
    let bytes = encode_to_vec(&data);
    assert_eq!(bytes.len() % 8, 0);
    let tables = open_bytes(&bytes).unwrap();
    tables.verify().unwrap();
    assert_eq!(tables.len(), data.len());
    for (position, d) in data.iter().enumerate() {
        let table = tables.band(position);
        assert_eq!(table.catalogue_index(), d.catalogue_index);
        assert_eq!(table.band(), &d.band);
        assert_eq!(table.min_size(), d.min_size);
        assert_eq!(table.uas(), &d.uas[..]);
        for (k, list) in d.lists.iter().enumerate() {
            let size = k + 2;
            assert_eq!(&table.set_list(size), list);
            assert_eq!(table.sets(size), list.sets());
            assert!(table.slices(size).eq(list.slices()));
        }
        // Size 7 is generated from the stored UAs.
        let seven = table.set_list(7);
        let direct = s17::band::valid_sets(&d.band, &d.uas, 7);
        assert_eq!(seven, direct);
        assert!(seven.sets().iter().all(|s| s.count_ones() == 7));
    }
    let all_six = tables.band(0);
    assert_eq!(
        all_six.band(),
        &parse_band("123456789456789123789123456").unwrap()
    );
    assert_eq!(
        (
            all_six.min_size(),
            all_six.sets(5).len(),
            all_six.sets(6).len()
        ),
        (6, 0, 729)
    );
}

#[test]
fn every_flipped_byte_is_caught() {
    let catalogue = BandCatalogue::new();
    let bytes = encode_to_vec(&small_data(&catalogue));
    let mut positions: Vec<usize> = (0..128).collect();
    let mut bounds = section_starts(&bytes);
    bounds.push(bytes.len());
    for w in bounds.windows(2) {
        let (start, end) = (w[0], w[1]);
        // First, last and 60 spread positions of each section, padding
        // included.
        positions.extend([start, end - 1]);
        positions.extend((0..60).map(|i| start + (end - start) * i / 60));
    }
    for at in positions {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = bytes.clone();
            bad[at] ^= flip;
            let caught = match open_bytes(&bad) {
                Err(_) => true,
                Ok(tables) => tables.verify().is_err(),
            };
            assert!(caught, "flip {flip:#x} at byte {at} went unnoticed");
        }
    }
}

/// Byte ranges of the parts of band `b`'s section, read from the header
/// and its record as the format documents them (records of 64 bytes: 4
/// words, 5 `[start, len]` pairs, the u64 checksum): its band bytes, its
/// record, its UAs, its slice indices and its lists of sizes 2..=6.
fn band_section_parts(bytes: &[u8], b: usize) -> Vec<std::ops::Range<usize>> {
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let (bands, records, uas, index, sets) =
        (u64_at(48), u64_at(56), u64_at(64), u64_at(80), u64_at(88));
    let record = records + 64 * b;
    let (ua_start, ua_len) = (u32_at(record + 8), u32_at(record + 12));
    let mut parts = vec![
        bands + 28 * b..bands + 28 * b + 28,
        record..record + 64,
        uas + 4 * ua_start..uas + 4 * (ua_start + ua_len),
        index + 4 * 5 * 352 * b..index + 4 * 5 * 352 * (b + 1),
    ];
    for k in 0..5 {
        let (start, len) = (u32_at(record + 16 + 8 * k), u32_at(record + 20 + 8 * k));
        parts.push(sets + 4 * start..sets + 4 * (start + len));
    }
    parts
}

#[test]
fn a_flipped_byte_in_a_band_section_is_caught_at_its_first_read() {
    let catalogue = BandCatalogue::new();
    let bytes = encode_to_vec(&small_data(&catalogue));
    let clean = open_bytes(&bytes).unwrap();
    for b in 0..clean.len() {
        clean.try_band(b).unwrap();
    }
    for b in 0..clean.len() {
        let parts = band_section_parts(&bytes, b);
        let mut positions = Vec::new();
        for part in parts.iter().filter(|p| !p.is_empty()) {
            positions.extend([part.start, (part.start + part.end) / 2, part.end - 1]);
        }
        for at in positions {
            let mut bad = bytes.clone();
            bad[at] ^= 0x04;
            let tables = open_bytes(&bad).expect("the header is intact");
            let err = tables.try_band(b).err().unwrap_or_else(|| {
                panic!("band {b}: flip at byte {at} went unnoticed at its first read")
            });
            match &err {
                TableError::Band { band, .. } => assert_eq!(*band, b),
                other => panic!("band {b}, byte {at}: {other}"),
            }
            let message = err.to_string();
            assert!(
                message.contains(&format!("band {b} is corrupt"))
                    && message.contains("rebuild them with `s17 tables build --path"),
                "{message}"
            );
            // Still refused on the next read; the other bands are fine.
            assert!(tables.try_band(b).is_err());
            for other in (0..tables.len()).filter(|&o| o != b) {
                tables.try_band(other).unwrap();
            }
        }
        // A flip in the sets is found by the checksum alone.
        let sets = &parts[8];
        let mut bad = bytes.clone();
        bad[sets.start + 4 * (sets.len() / 8)] ^= 0x01;
        let err = open_bytes(&bad).unwrap().try_band(b).err().unwrap();
        assert!(err.to_string().contains("checksum mismatch"), "{err}");
    }
}

#[test]
fn bad_files_are_refused_with_a_clear_error() {
    let catalogue = BandCatalogue::new();
    let bytes = encode_to_vec(&small_data(&catalogue));
    for len in [
        0,
        5,
        8,
        100,
        127,
        128,
        1000,
        bytes.len() / 2,
        bytes.len() - 1,
    ] {
        let err = open_bytes(&bytes[..len])
            .err()
            .expect("truncated file opened");
        assert!(matches!(err, TableError::Truncated { .. }), "{len}: {err}");
        assert!(err.to_string().contains("s17 tables build"), "{err}");
    }
    let mut wrong_version = bytes.clone();
    wrong_version[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let err = open_bytes(&wrong_version).err().unwrap();
    assert!(
        matches!(err, TableError::Version { expected, found } if expected == FORMAT_VERSION && found == FORMAT_VERSION + 1)
    );
    assert!(err.to_string().contains("s17 tables build"), "{err}");
    let mut wrong_magic = bytes.clone();
    wrong_magic[0] = b'X';
    let err = open_bytes(&wrong_magic).err().unwrap();
    assert!(matches!(err, TableError::Magic), "{err}");
    let mut longer = bytes.clone();
    longer.extend([0u8; 8]);
    assert!(matches!(
        open_bytes(&longer).err().unwrap(),
        TableError::Malformed { .. }
    ));
    // The whole file's checksum (header bytes 40..48) is checked by verify,
    // after every band (a flip in a band's data names the band: see
    // a_flipped_byte_in_a_band_section_is_caught_at_its_first_read).
    let mut wrong_sum = bytes.clone();
    wrong_sum[40] ^= 0x10;
    let err = open_bytes(&wrong_sum).unwrap().verify().err().unwrap();
    assert!(matches!(err, TableError::Checksum { .. }), "{err}");
    assert!(err.to_string().contains("s17 tables build"), "{err}");
}

#[test]
fn files_on_disk_open_or_are_refused() {
    let catalogue = BandCatalogue::new();
    let data = small_data(&catalogue);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/small.s17t");
    write_file(&path, &data).unwrap();
    let names: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file left behind");
    // A memory map of an incomplete file is refused by open...
    let err = BandTables::open(&path).err().unwrap();
    assert!(
        matches!(
            err,
            TableError::Incomplete {
                expected: CATALOGUE_LEN,
                found: 4
            }
        ),
        "{err}"
    );
    // ...and not rebuilt over by open_or_build.
    assert!(BandTables::open_or_build(&path).is_err());
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes, encode_to_vec(&data));
    let missing = dir.path().join("missing.s17t");
    let err = BandTables::open(&missing).err().unwrap();
    assert!(matches!(err, TableError::NotFound { .. }), "{err}");
    assert!(err.to_string().contains("s17 tables build"));
    std::fs::write(&missing, b"not a table file at all").unwrap();
    assert!(matches!(
        BandTables::open_or_build(&missing).err().unwrap(),
        TableError::Magic
    ));
    assert_eq!(std::fs::read(&missing).unwrap(), b"not a table file at all");
}

fn s17(args: &[&str], tables: &Path) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_s17"));
    command
        .args(args)
        .arg("--path")
        .arg(tables)
        .env_remove("S17_TABLES");
    command.output().unwrap()
}

#[test]
fn full_tables_build_verify_stats_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bands.s17t");
    let build = s17(&["tables", "build"], &path);
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let verify = s17(&["tables", "verify"], &path);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    let stats = s17(&["tables", "stats", "--counts"], &path);
    assert!(stats.status.success());
    let text = String::from_utf8(stats.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), CATALOGUE_LEN);
    assert_eq!(lines[0], "123456789456789123789123456 6 0 729");
    assert!(lines.contains(&"123456789456789231789231564 2 51516 237762"));
    assert!(lines.windows(2).all(|w| w[0] < w[1]));
    let tables = BandTables::open(&path).unwrap();
    assert_eq!(tables.len(), CATALOGUE_LEN);
    let catalogue = BandCatalogue::new();
    for (index, table) in tables.iter().enumerate() {
        assert_eq!(table.catalogue_index(), index);
        assert_eq!(table.band(), catalogue.band(index));
    }
    // A sample of bands recomputed from scratch gives the same lists.
    for index in [0, 28, 100, 333, 415] {
        let fresh = BandData::compute(index, catalogue.band(index));
        let table = tables.band(index);
        assert_eq!(table.uas(), &fresh.uas[..]);
        assert_eq!(table.min_size(), fresh.min_size);
        for size in 2..=6 {
            assert_eq!(table.set_list(size), fresh.lists[size - 2]);
        }
    }
    let corrupt = dir.path().join("corrupt.s17t");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 4;
    std::fs::write(&corrupt, &bytes).unwrap();
    let verify = s17(&["tables", "verify"], &corrupt);
    assert_eq!(verify.status.code(), Some(1));
    let message = String::from_utf8_lossy(&verify.stderr);
    assert!(
        message.contains("checksum mismatch") && message.contains("s17 tables build"),
        "{message}"
    );
}

#[test]
fn stale_tables_are_rebuilt_by_open_or_build() {
    let catalogue = BandCatalogue::new();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bands.s17t");
    let mut stale = encode_to_vec(&small_data(&catalogue));
    stale[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    std::fs::write(&path, &stale).unwrap();
    assert!(matches!(
        BandTables::open(&path).err().unwrap(),
        TableError::Version { .. }
    ));
    let tables = BandTables::open_or_build(&path).unwrap();
    assert_eq!(tables.len(), CATALOGUE_LEN);
    tables.verify().unwrap();
    let list: SetList<'_> = tables.band(0).set_list(6);
    assert_eq!(list.len(), 729);
}
