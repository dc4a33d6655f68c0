//! `s17 catalogue install`: checked tables (and checkpoints) copied into
//! a directory where `s17` then finds them; a bad source copies nothing.
//! `build` writes a table file, `status --band` prints one as text.

use std::path::Path;

use crate::common::bin::{BIN, data, stderr, temp};

fn s17(args: &[&str]) -> std::process::Output {
    std::process::Command::new(BIN)
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("run s17")
}

/// A source of the committed tables of the first two bands and band 300,
/// with the checkpoints of band 300 built for it.
fn source(name: &str) -> std::path::PathBuf {
    let from = temp("catalogue_install", name);
    std::fs::create_dir_all(&from).unwrap();
    for file in ["001.cnt", "002.cnt", "300.cnt"] {
        std::fs::copy(data("catalogue").join(file), from.join(file)).unwrap();
    }
    let from_text = from.to_str().unwrap();
    let out = s17(&[
        "catalogue",
        "build",
        "--checkpoints",
        "--every",
        "50",
        "--bands",
        "300",
        "--dir",
        from_text,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(from.join("300.ckp").exists());
    from
}

/// The grids of first band `band` (from 1), from its committed table's
/// header (`..., N grids, ...`).
fn band_total(band: usize) -> u64 {
    let bytes = std::fs::read(data("catalogue").join(format!("{band:03}.cnt"))).unwrap();
    let end = bytes.iter().position(|&c| c == b'\n').unwrap();
    let header = std::str::from_utf8(&bytes[..end]).unwrap();
    let field = header.split(", ").find(|f| f.ends_with(" grids")).unwrap();
    field.trim_end_matches(" grids").parse().unwrap()
}

/// `s17 catalogue install --from FROM --dir DIR`.
fn install(from: &Path, dir: &Path) -> std::process::Output {
    s17(&[
        "catalogue",
        "install",
        "--from",
        from.to_str().unwrap(),
        "--dir",
        dir.to_str().unwrap(),
    ])
}

#[test]
fn install_copies_checked_tables_where_s17_finds_them() {
    let from = source("good");
    let dir = temp("catalogue_install", "good-dest");
    let out = install(&from, &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("3 tables and 1 checkpoint files"),
        "{}",
        stderr(&out)
    );
    for file in ["001.cnt", "002.cnt", "300.cnt", "300.ckp"] {
        assert_eq!(
            std::fs::read(dir.join(file)).unwrap(),
            std::fs::read(from.join(file)).unwrap(),
            "{file}"
        );
    }
    // The installed tables number: grid 1 from them alone.
    let out = std::process::Command::new(BIN)
        .args(["catalogue", "grid", "1", "--tables", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("1\t123456789456789123789123456"));
}

/// A source holding an older checkout's text table (`NNN.tsv`) installs it
/// as the counts file `build` writes: the committed bytes, and no `.tsv`
/// beside it (a `.cnt` there would win over it).
#[test]
fn install_writes_a_text_table_as_its_counts_file() {
    let from = temp("catalogue_install", "text-source");
    std::fs::create_dir_all(&from).unwrap();
    let out = s17(&["catalogue", "status", "--band", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(from.join("002.tsv"), &out.stdout).unwrap();
    let dir = temp("catalogue_install", "text-dest");
    let out = install(&from, &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(dir.join("002.cnt")).unwrap(),
        std::fs::read(data("catalogue").join("002.cnt")).unwrap()
    );
    assert!(!dir.join("002.tsv").exists());
}

#[test]
fn a_corrupt_source_is_refused_and_nothing_copied() {
    let from = source("corrupt");
    let path = from.join("300.ckp");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&path, bytes).unwrap();
    let dir = temp("catalogue_install", "corrupt-dest");
    let out = install(&from, &dir);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("300.ckp: line 2:"),
        "{}",
        stderr(&out)
    );
    assert!(!Path::new(&dir).exists());
    // Looked up from: the file is read when its band is first used, and
    // then refused the same way; the other bands still answer.
    let tables = from.to_str().unwrap();
    let first_of_300 = (1..300).map(band_total).sum::<u64>() + 1;
    for args in [
        vec![
            "catalogue",
            "grid",
            "1",
            &first_of_300.to_string(),
            "--tables",
            tables,
        ],
        vec!["catalogue", "grid", "1", "--file", "-", "--tables", tables],
    ] {
        let out = std::process::Command::new(BIN)
            .args(&args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                let mut stdin = child.stdin.take().unwrap();
                writeln!(stdin, "{first_of_300}")?;
                drop(stdin);
                child.wait_with_output()
            })
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("300.ckp: line 2: the bytes do not match"),
            "{}",
            stderr(&out)
        );
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("1\t123456789456789123789123456"));
    }
    // No tables at all: refused, naming what to give.
    let empty = temp("catalogue_install", "empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = s17(&["catalogue", "install", "--from", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no catalogue table"),
        "{}",
        stderr(&out)
    );
}

/// `catalogue build` writes the counts file (`NNN.cnt`) of a band, the
/// committed one byte for byte, and keeps it (or a text table `NNN.tsv`
/// of an older build) on the next run.
#[test]
fn build_writes_the_committed_counts_file_and_keeps_it() {
    let dir = temp("catalogue_install", "build");
    let dir_text = dir.to_str().unwrap();
    let build = |bands: &str| {
        let out = s17(&["catalogue", "build", "--bands", bands, "--dir", dir_text]);
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    let said = build("416");
    assert!(
        said.contains("first band 416: 1 grid in 1 prefixes"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(dir.join("416.cnt")).unwrap(),
        std::fs::read(data("catalogue").join("416.cnt")).unwrap()
    );
    assert!(build("416").contains("first band 416: kept"));
    // A text table stands for its band too.
    std::fs::write(dir.join("415.tsv"), "not read by build").unwrap();
    let said = build("415..416");
    assert!(said.contains("first band 415: kept"), "{said}");
    assert!(!dir.join("415.cnt").exists());
}

/// `catalogue status --band N` prints the table of first band N as text
/// (what the text table `NNN.tsv` holds); a band out of range is refused.
#[test]
fn status_band_prints_a_table_as_text() {
    let out = s17(&["catalogue", "status", "--band", "416"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(
        lines[0],
        "# s17 catalogue table: first band 416 123456789457893612986217354, 1 grids, 1 prefixes"
    );
    let (row4, count) = lines[1].split_once('\t').unwrap();
    assert_eq!((row4.len(), count), (9, "1"), "{text}");
    let out = s17(&["catalogue", "status", "--band", "417"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
