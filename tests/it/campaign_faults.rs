//! The fault matrix of a campaign's files: a cut line, a foreign line, a
//! puzzle of the wrong clue count, an entry outside its unit, a
//! checkpoint header that is not UTF-8, a missing unit, a flipped byte in
//! a flag file. Each is named (unit, file, line; or file and reason) by
//! `status` and refused by `merge` with exit 1, nothing panics, and
//! nothing is lost: the unit's files and an earlier merge's output are
//! byte for byte as they were.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use s17::campaign::Plan;
use s17::grid::Puzzle;

use crate::common::SLICE331_17;
use crate::common::bin::s17;
use crate::common::bin::{campaign_merge, temp, text};
use crate::common::fixture;

const SMALL: &str = "28:0..4,331:1683767..1683771";

fn finished() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        fixture();
        let dir = temp("campaign-faults", "finished");
        let out = s17(&[
            "campaign",
            "plan",
            "--slices",
            SMALL,
            "--unit-hours",
            "0.001",
            "-o",
        ])
        .arg(&dir)
        .output()
        .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        for unit in 0..plan(&dir).units.len() {
            let out = s17(&["campaign", "run"])
                .arg(&dir)
                .args([&unit.to_string(), "--threads", "1"])
                .output()
                .unwrap();
            assert!(out.status.success(), "unit {unit}: {}", text(&out));
        }
        dir
    })
}

fn plan(dir: &Path) -> Plan {
    let text = std::fs::read_to_string(dir.join("units.tsv")).unwrap();
    Plan::parse(&text, Path::new("units.tsv")).unwrap()
}

fn copy_of_finished(name: &str) -> PathBuf {
    let dir = temp("campaign-faults", name);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::copy(finished().join("units.tsv"), dir.join("units.tsv")).unwrap();
    for item in std::fs::read_dir(finished().join("out")).unwrap() {
        let item = item.unwrap();
        std::fs::copy(item.path(), dir.join("out").join(item.file_name())).unwrap();
    }
    dir
}

fn unit_holding(dir: &Path, k: usize, entry: u64) -> usize {
    plan(dir)
        .units
        .iter()
        .find(|u| u.k == k && u.entries.contains(&entry))
        .unwrap()
        .number
}

/// Every file of the campaign's out/, with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|i| {
            let p = i.unwrap().path();
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

/// `status` and `merge` (and `merge --partial`) of a damaged campaign:
/// each exits 1 saying every one of `needles`; the unit files and an
/// earlier output stay as they were.
fn assert_named_and_refused(dir: &Path, needles: &[&str]) {
    let before = snapshot(dir);
    let out = s17(&["campaign", "status"]).arg(dir).output().unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    for needle in needles {
        assert!(said.contains(needle), "status: {needle:?}: {said}");
    }
    let file = dir.join("17s.txt");
    std::fs::write(&file, "an earlier merge\n").unwrap();
    for more in [&[][..], &["--partial"][..]] {
        let (out, _) = campaign_merge(dir, more);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(1), "merge {more:?}: {said}");
        for needle in needles {
            assert!(said.contains(needle), "merge {more:?}: {needle:?}: {said}");
        }
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "an earlier merge\n",
            "nothing written"
        );
    }
    assert_eq!(snapshot(dir), before, "the unit files are untouched");
}

/// Replaces unit `unit`'s output with `lines` (and raises the checkpoint
/// count of `entry` by `extra`).
fn rewrite(dir: &Path, unit: usize, output: &str, entry: Option<(u64, u64)>) {
    std::fs::write(dir.join(format!("out/{unit}.txt")), output).unwrap();
    if let Some((entry, extra)) = entry {
        let path = dir.join(format!("out/{unit}.txt.done"));
        let done = std::fs::read_to_string(&path).unwrap();
        let done: String = done
            .lines()
            .map(|l| match l.split_once('\t') {
                Some((e, c)) if e == entry.to_string() => {
                    format!("{e}\t{}\n", c.parse::<u64>().unwrap() + extra)
                }
                _ => format!("{l}\n"),
            })
            .collect();
        std::fs::write(&path, done).unwrap();
    }
}

/// An 18 of the known 17's grid: the 17 and one more clue.
fn an_18() -> String {
    let p = Puzzle::parse(SLICE331_17).unwrap();
    let grid = s17::solver::solve(&p, 2).first.unwrap();
    let mut cells = *p.digits();
    let cell = cells.iter().position(|&d| d == 0).unwrap();
    cells[cell] = grid.digits()[cell];
    Puzzle::from_digits(cells).to_string()
}

#[test]
fn a_cut_line_is_named_by_unit_file_and_line() {
    let dir = copy_of_finished("cut");
    let unit = unit_holding(&dir, 331, 1683769);
    let path = dir.join(format!("out/{unit}.txt"));
    let output = std::fs::read_to_string(&path).unwrap();
    assert_eq!(output, format!("1683769\t{SLICE331_17}\n"), "the unit's 17");
    rewrite(
        &dir,
        unit,
        &format!("1683769\t{}\n", &SLICE331_17[..40]),
        None,
    );
    assert_named_and_refused(
        &dir,
        &[&format!(
            "unit {unit}: {} line 1: 40 characters after the entry, not a puzzle of 81 (a cut or foreign line)",
            path.display()
        )],
    );
}

#[test]
fn a_foreign_line_is_named() {
    let dir = copy_of_finished("foreign");
    let unit = unit_holding(&dir, 28, 1);
    let path = dir.join(format!("out/{unit}.txt"));
    let mut output = std::fs::read_to_string(&path).unwrap();
    output.push_str("hello, world\n");
    let line = output.lines().count();
    rewrite(&dir, unit, &output, None);
    assert_named_and_refused(
        &dir,
        &[&format!(
            "unit {unit}: {} line {line}: not ENTRY<TAB>PUZZLE (a cut or foreign line)",
            path.display()
        )],
    );
}

#[test]
fn a_puzzle_of_the_wrong_clue_count_is_named_even_with_its_count_raised() {
    let dir = copy_of_finished("clues");
    let unit = unit_holding(&dir, 331, 1683769);
    let path = dir.join(format!("out/{unit}.txt"));
    let output = format!("1683769\t{SLICE331_17}\n1683769\t{}\n", an_18());
    rewrite(&dir, unit, &output, Some((1683769, 1)));
    assert_named_and_refused(
        &dir,
        &[&format!(
            "unit {unit}: {} line 2: a puzzle of 18 clues; the campaign searches for 17",
            path.display()
        )],
    );
}

#[test]
fn an_entry_outside_its_unit_is_named() {
    let dir = copy_of_finished("outside");
    let unit = unit_holding(&dir, 28, 0);
    let path = dir.join(format!("out/{unit}.txt"));
    let entries = plan(&dir).units[unit].entries.clone();
    rewrite(&dir, unit, &format!("70\t{SLICE331_17}\n"), None);
    assert_named_and_refused(
        &dir,
        &[&format!(
            "unit {unit}: {} line 1: entry 70 is outside the unit's entries {}..{}",
            path.display(),
            entries.start,
            entries.end
        )],
    );
}

#[test]
fn a_checkpoint_header_that_is_not_utf8_is_named_not_a_panic() {
    let dir = copy_of_finished("utf8");
    let unit = unit_holding(&dir, 28, 0);
    let path = dir.join(format!("out/{unit}.txt.done"));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[3] = 0xff;
    std::fs::write(&path, &bytes).unwrap();
    assert_named_and_refused(
        &dir,
        &[&format!(
            "unit {unit}: {} line 1: the checkpoint header is not text (a byte that is not UTF-8)",
            path.display()
        )],
    );
}

#[test]
fn a_missing_unit_is_named_and_refused_without_partial() {
    let dir = copy_of_finished("missing");
    let unit = unit_holding(&dir, 28, 2);
    for ext in ["txt", "txt.done", "txt.cost"] {
        std::fs::remove_file(dir.join(format!("out/{unit}.{ext}"))).unwrap();
    }
    let out = s17(&["campaign", "status"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("not started: {unit}\n")),
        "{}",
        text(&out)
    );
    let file = dir.join("17s.txt");
    std::fs::write(&file, "an earlier merge\n").unwrap();
    let out = s17(&["campaign", "merge"])
        .arg(&dir)
        .arg("-o")
        .arg(&file)
        .arg("--force")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains(&format!("units not started: {unit}")));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "an earlier merge\n"
    );
    // The rerun list names it.
    let list = dir.join("rerun.txt");
    let out = s17(&["campaign", "status"])
        .arg(&dir)
        .arg("--rerun")
        .arg(&list)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&list).unwrap(), format!("{unit}\n"));
}

#[test]
fn a_flipped_byte_in_a_flag_file_is_named_with_the_file() {
    let dir = temp("campaign-faults", "flag-file");
    std::fs::create_dir_all(&dir).unwrap();
    let header = s17::flags::FlagHeader {
        clues: 18,
        kind: s17::flags::KIND_FIRST,
        slice: 28,
        grids: 100,
        searched: 10,
        covered: 10,
        flagged: 1,
    };
    let record = s17::flags::FlagRecord {
        entry: 3,
        grid: 1,
        mask: (1u128 << 18) - 1,
    };
    let bytes = s17::flags::to_bytes(header, &[record]).unwrap();
    let path = dir.join("slice-28.s17f");
    for at in [40, s17::flags::HEADER_LEN + 9] {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x10;
        std::fs::write(&path, &damaged).unwrap();
        for args in [&["--count"][..], &[][..]] {
            let out = s17(&["campaign", "flags"])
                .arg(&path)
                .args(args)
                .output()
                .unwrap();
            let said = text(&out);
            assert_eq!(out.status.code(), Some(1), "{said}");
            assert!(
                said.contains(&format!("{}: checksum mismatch", path.display())),
                "{said}"
            );
        }
        assert_eq!(std::fs::read(&path).unwrap(), damaged, "the file is left");
    }
}
