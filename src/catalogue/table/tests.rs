//! The table files: the counts file (`NNN.cnt`) and the text table
//! (`NNN.tsv`) read back as the table built, damaged files refused, which
//! a directory's reading takes first, and the one-off converter of the
//! text tables; damaged checkpoint files (`NNN.ckp`).

use std::path::{Path, PathBuf};

use crate::band::BANDS;
use crate::catalogue::tests::{committed, sub_table, walker};
use crate::catalogue::{
    BandCheckpoints, BandFile, BandTable, Catalogue, CatalogueError, Flow, committed_dir,
};

/// A table in the text format reads back as the table; one for another
/// band or with a count changed is refused, naming the file and the line.
#[test]
fn table_text_round_trips_and_bad_files_are_refused() {
    let walker = walker();
    let table = BandTable::build(walker, 415);
    let text = table.to_text(walker);
    let path = Path::new("416.tsv");
    assert_eq!(
        BandTable::parse_text(&text, 415, walker, path).unwrap(),
        table
    );
    // The wrong band, a count changed, rows out of order.
    assert!(BandTable::parse_text(&text, 414, walker, path).is_err());
    let changed = text.replace("\t1\n", "\t2\n");
    assert_ne!(changed, text);
    let err = BandTable::parse_text(&changed, 415, walker, path).unwrap_err();
    assert!(err.to_string().contains("416.tsv: line 1"), "{err}");
}

/// The counts file of a built table reads back as the table; one for
/// another band, cut short, with a byte changed or more, with a header
/// that disagrees with the walk or the counts, or with a body of the wrong
/// length is refused, naming the file, the line and why.
#[test]
fn table_counts_round_trip_and_bad_files_are_refused() {
    let walker = walker();
    let band = 415;
    let table = BandTable::build(walker, band);
    let mut candidates = 0;
    walker.for_each_row4(band, |_| {
        candidates += 1;
        Flow::Continue
    });
    assert!(candidates > table.rows4.len(), "candidates without grids");
    let bytes = table.to_bytes(walker);
    let path = Path::new("416.cnt");
    assert_eq!(BandTable::parse(&bytes, band, walker, path).unwrap(), table);
    let end = bytes.iter().position(|&c| c == b'\n').unwrap();
    let header = std::str::from_utf8(&bytes[..end]).unwrap().to_string();
    let body = bytes.len() - end - 1;
    assert_eq!(body, 2 * candidates, "two bytes a count");
    assert!(header.starts_with("# s17 catalogue counts: first band 416 "));
    assert!(
        header.contains(&format!(
            ", {} grids, {} prefixes, {candidates} candidates, {body} bytes, fnv1a64 ",
            table.total(),
            table.rows4.len()
        )),
        "{header}"
    );
    let fault = |bytes: &[u8]| match BandTable::parse(bytes, band, walker, path) {
        Err(e @ CatalogueError::Format { .. }) => {
            let text = e.to_string();
            assert!(text.starts_with("416.cnt: line "), "{text}");
            let CatalogueError::Format { line, reason, .. } = e else {
                unreachable!()
            };
            (line, reason)
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(fault(b"# s17"), (1, "no header line".to_string()));
    // The wrong band.
    let (line, reason) = match BandTable::parse(&bytes, band - 1, walker, path) {
        Err(CatalogueError::Format { line, reason, .. }) => (line, reason),
        other => panic!("{other:?}"),
    };
    assert_eq!(line, 1);
    assert!(
        reason.starts_with("the header does not start with"),
        "{reason}"
    );
    // Cut short, a byte more, a byte changed.
    assert_eq!(
        fault(&bytes[..bytes.len() - 1]),
        (
            2,
            format!("{} bytes after the header, it says {body}", body - 1)
        )
    );
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        fault(&longer),
        (
            2,
            format!("{} bytes after the header, it says {body}", body + 1)
        )
    );
    let mut changed = bytes.clone();
    *changed.last_mut().unwrap() ^= 1;
    assert_eq!(
        fault(&changed),
        (2, "the bytes do not match the header's hash".to_string())
    );
    // Header fields that disagree with the walk or the counts.
    let with_header = |from: &str, to: &str| {
        let mut b = header.replacen(from, to, 1).into_bytes();
        assert_ne!(b, header.as_bytes(), "{from}");
        b.extend_from_slice(&bytes[end..]);
        b
    };
    let more = with_header(
        &format!("{candidates} candidates"),
        &format!("{} candidates", candidates + 1),
    );
    assert_eq!(
        fault(&more),
        (
            1,
            format!(
                "the header says {} candidates, the band has {candidates}",
                candidates + 1
            )
        )
    );
    let total = table.total();
    let grids = with_header(&format!("{total} grids"), &format!("{} grids", total + 1));
    assert_eq!(
        fault(&grids),
        (
            1,
            format!(
                "the header says {} grids in {} prefixes, the counts {total} in {}",
                total + 1,
                table.rows4.len(),
                table.rows4.len()
            )
        )
    );
    assert_eq!(
        fault(&with_header(" bytes, ", " bytez, ")),
        (1, "the header has no `N bytes`".to_string())
    );
    // A body that agrees with its header's length and hash but not with
    // the band's candidates: a byte or a count too few or too many.
    let head = &header[..header.find(&format!(", {body} bytes")).unwrap()];
    let with_body = |b: &[u8]| {
        let mut out = format!(
            "{head}, {} bytes, fnv1a64 {:016x}\n",
            b.len(),
            super::fnv1a64(b)
        )
        .into_bytes();
        out.extend_from_slice(b);
        out
    };
    assert_eq!(with_body(&bytes[end + 1..]), bytes);
    for length in [body - 2, body - 1, body + 1, body + 2] {
        let mut other = bytes[end + 1..].to_vec();
        other.resize(length, 0);
        assert_eq!(
            fault(&with_body(&other)),
            (
                2,
                format!("{length} bytes of counts for {candidates} candidates (2 bytes a count)")
            )
        );
    }
}

/// In one directory a band's counts file wins over its text table; a
/// directory with the text table only is read from it (users' caches
/// hold them); a text table that is not text is refused naming it.
#[test]
fn a_directory_reads_its_counts_file_first_then_its_text_table() {
    let walker = walker();
    let dir = std::env::temp_dir().join(format!("s17-catalogue-tsv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let table = &committed().table(0).expect("committed").0;
    std::fs::write(dir.join("001.tsv"), table.to_text(walker)).unwrap();
    let text_only = Catalogue::open(std::slice::from_ref(&dir)).unwrap();
    let (read, path) = text_only.table(0).expect("read from the text table");
    assert_eq!(read, table);
    assert_eq!(path, &dir.join("001.tsv"));
    assert_eq!(text_only.bands_numbered(), 1);
    table.write(walker, &dir).unwrap();
    // A broken text table beside the counts file is not read.
    std::fs::write(dir.join("001.tsv"), b"\xff").unwrap();
    let both = Catalogue::open(std::slice::from_ref(&dir)).unwrap();
    let (read, path) = both.table(0).expect("read from the counts file");
    assert_eq!(read, table);
    assert_eq!(path, &dir.join("001.cnt"));
    std::fs::remove_file(dir.join("001.cnt")).unwrap();
    let err = Catalogue::open(std::slice::from_ref(&dir)).err().unwrap();
    assert!(
        err.to_string().ends_with("001.tsv: line 1: not UTF-8 text"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Converts the text tables (`NNN.tsv`) of a directory (`S17_CONVERT_DIR`,
/// default the committed `data/catalogue`) to counts files (`NNN.cnt`)
/// beside them, each read back and compared with the text table; the
/// text tables are left for `git rm`. Run by hand once (2026-11-29): `cargo
/// test --release --lib catalogue::table::tests::convert_text_tables --
/// --ignored`.
#[test]
#[ignore]
fn convert_text_tables() {
    let walker = walker();
    let dir = std::env::var_os("S17_CONVERT_DIR").map_or_else(committed_dir, PathBuf::from);
    let mut converted = 0;
    for band in 0..BANDS {
        let path = dir.join(BandTable::text_file_name(band));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let table = BandTable::parse_text(&text, band, walker, &path).unwrap();
        let written = table.write(walker, &dir).unwrap();
        let bytes = std::fs::read(&written).unwrap();
        assert_eq!(
            BandTable::parse(&bytes, band, walker, &written).unwrap(),
            table,
            "{}",
            written.display()
        );
        converted += 1;
    }
    assert!(converted > 0, "no text table in {}", dir.display());
    eprintln!("{converted} tables converted in {}", dir.display());
}

/// A checkpoint file without a header line, of a spacing of 0, cut short
/// or with a byte changed is refused, naming the line and the fault.
#[test]
fn a_damaged_checkpoint_file_is_refused() {
    let walker = walker();
    let (band, spacing) = (300, 16);
    let table = &committed().table(band).expect("committed").0;
    let prefix = (0..table.rows4.len())
        .find(|&p| table.count(p) >= 3 * spacing)
        .expect("a prefix of 3 spacings");
    let sub = sub_table(band, &[prefix]);
    let path = Path::new("test.ckp");
    let checkpoints = BandCheckpoints::build(walker, &sub, spacing, path).unwrap();
    let bytes = checkpoints.to_bytes(walker, &sub);
    let fault = |bytes: &[u8]| match BandCheckpoints::parse(bytes, &sub, walker, path) {
        Err(CatalogueError::Format { line, reason, .. }) => (line, reason),
        other => panic!("{other:?}"),
    };
    assert_eq!(fault(b"# s17"), (1, "no header line".to_string()));
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let spacing_0 = text.replacen(&format!("every {spacing} grids"), "every 0 grids", 1);
    assert_eq!(
        fault(spacing_0.as_bytes()),
        (1, "a spacing of 0 grids".to_string())
    );
    let body = bytes.len() - text.find('\n').unwrap() - 1;
    assert_eq!(
        fault(&bytes[..bytes.len() - 1]),
        (
            2,
            format!("{} bytes after the header, it says {body}", body - 1)
        )
    );
    let mut changed = bytes.clone();
    *changed.last_mut().unwrap() ^= 1;
    assert_eq!(
        fault(&changed),
        (2, "the bytes do not match the header's hash".to_string())
    );
}
