//! A `--clues 17 --first` campaign run with the real binary merges into
//! flag files whose counts and flags agree with the one-grid search.
//!
//! The campaign: the entries around the three visits of a grid with a
//! known 17 (hi: slice 331 entry 853702; mid: slice 331 entry 1683769;
//! lo: slice 210 entry 173192), a few seconds of CPU. The covered grids
//! (all three visits searched) are recomputed here from `Ed::visits` of each
//! grid, and their flags are checked against `s17 search --first` on each.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::process::Output;

use s17::canon::minlex_grid;
use s17::ed::{Choices, Ed};
use s17::flags::FlagFile;
use s17::grid::{Grid, Puzzle};

use crate::common::SLICE331_17;
use crate::common::bin::s17;
use crate::common::bin::{files_in, stdout_of_success, temp, text};
use crate::common::{fixture, grids_with_a_17};

const LIST: &str = "210:173190..173195,331:853700..853705,331:1683765..1683775";

fn ok(out: Output) -> String {
    assert!(out.status.success(), "{}", text(&out));
    text(&out)
}

fn campaign_ranges() -> BTreeMap<usize, Vec<Range<u64>>> {
    let mut ranges: BTreeMap<usize, Vec<Range<u64>>> = BTreeMap::new();
    for item in LIST.split(',') {
        let (k, r) = item.split_once(':').unwrap();
        let (a, b) = r.split_once("..").unwrap();
        ranges
            .entry(k.parse().unwrap())
            .or_default()
            .push(a.parse().unwrap()..b.parse().unwrap());
    }
    ranges
}

/// The hi-visit grids of the campaign's entries, each with whether its
/// three visits all lie in the campaign, by slice.
fn grids_by_slice(ed: &Ed) -> BTreeMap<usize, Vec<(Grid, bool)>> {
    let ranges = campaign_ranges();
    let inside = |k: usize, e: Option<u64>| {
        e.is_some_and(|e| {
            ranges
                .get(&k)
                .is_some_and(|rs| rs.iter().any(|r| r.contains(&e)))
        })
    };
    let mut out = BTreeMap::new();
    for (&k, rs) in &ranges {
        let mut grids = Vec::new();
        for r in rs {
            ed.for_each_entry(k, r.clone(), |entry| {
                ed.entry_visits(k, entry, Choices::HI, |v| {
                    let mut cells = [0u8; 81];
                    cells[..27].copy_from_slice(ed.catalogue().band(k));
                    cells[27..54].copy_from_slice(&entry.band2);
                    cells[54..].copy_from_slice(&v.band3);
                    grids.push(Grid::from_digits_unchecked(cells));
                });
            });
        }
        // Each grid's visits, from the grid itself; their entries.
        let visits: Vec<_> = grids.iter().map(|g| ed.visits(g.digits())).collect();
        let band2 = |key: &[u8; 54]| -> [u8; 27] { key[..27].try_into().unwrap() };
        let mut covered = vec![true; grids.len()];
        for which in 0..3 {
            let mut by_class: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            for (i, v) in visits.iter().enumerate() {
                by_class.entry(v[which].class).or_default().push(i);
            }
            for (c, idx) in by_class {
                let bands: Vec<[u8; 27]> =
                    idx.iter().map(|&i| band2(&visits[i][which].key)).collect();
                for (&i, e) in idx.iter().zip(ed.entry_numbers(c, &bands)) {
                    covered[i] &= inside(c, e);
                }
            }
        }
        out.insert(k, grids.into_iter().zip(covered).collect());
    }
    out
}

#[test]
fn a_first_campaign_merges_into_flags_that_agree_with_the_one_grid_search() {
    fixture();
    let dir = temp("campaign-flags", "c17");
    let run = |args: &[&str]| s17(args).output().unwrap();
    let d = dir.to_str().unwrap();
    ok(run(&[
        "campaign",
        "plan",
        "--slices",
        LIST,
        "--unit-hours",
        "0.0005",
        "--clues",
        "17",
        "--first",
        "-o",
        d,
    ]));
    let units = std::fs::read_to_string(dir.join("units.tsv")).unwrap();
    assert!(
        units
            .lines()
            .next()
            .unwrap()
            .contains(" clues=17 first costs=")
    );
    let count = units.lines().filter(|l| !l.starts_with('#')).count();
    for unit in 0..count {
        ok(run(&[
            "campaign",
            "run",
            d,
            &unit.to_string(),
            "--threads",
            "2",
        ]));
    }
    let said = ok(run(&["campaign", "status", d]));
    assert!(
        said.contains("searching for: 17s, first per visit"),
        "{said}"
    );
    // Flag files never go among the campaign's own files, --force or not.
    let before = files_in(&dir);
    let out = run(&["campaign", "merge", d, "-o", d, "--force"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "-o {d}: a campaign directory; give the flag files a directory of their own"
        )),
        "{}",
        text(&out)
    );
    assert_eq!(files_in(&dir), before);
    let flags = dir.join("flags");
    let said = ok(run(&[
        "campaign",
        "merge",
        d,
        "-o",
        flags.to_str().unwrap(),
    ]));
    assert!(said.contains("slice 331: "), "{said}");

    let ed = Ed::new();
    let expected = grids_by_slice(&ed);
    let mut covered_grids = Vec::new();
    let mut flagged_covered = BTreeSet::new();
    for (&k, grids) in &expected {
        let path = flags.join(format!("slice-{k}.s17f"));
        let file = FlagFile::open(std::fs::read(&path).unwrap(), "f").unwrap();
        let h = *file.header();
        assert_eq!((h.clues, h.slice as usize), (17, k));
        assert_eq!(h.searched, grids.len() as u64, "slice {k}");
        let covered: Vec<Grid> = grids.iter().filter(|(_, c)| *c).map(|(g, _)| *g).collect();
        assert_eq!(h.covered, covered.len() as u64, "slice {k}");
        covered_grids.extend(covered.iter().map(|g| minlex_grid(g).0));
        // The printed flags: a 17 of the printed grid, one per record.
        let out = run(&["campaign", "flags", path.to_str().unwrap()]);
        let lines: Vec<String> = stdout_of_success(&out).lines().map(String::from).collect();
        assert_eq!(lines.len() as u64, h.flagged, "slice {k}");
        let noun = if h.flagged == 1 { "grid" } else { "grids" };
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains(&format!("flags: {} flagged {noun}", h.flagged)),
            "slice {k}: the count on stderr"
        );
        for line in &lines {
            let (grid, puzzle) = line.split_once('\t').unwrap();
            let (grid, puzzle) = (Grid::parse(grid).unwrap(), Puzzle::parse(puzzle).unwrap());
            assert_eq!(minlex_grid(&grid).0, grid, "printed in minlex form");
            let solved = s17::solver::solve(&puzzle, 2);
            assert_eq!((solved.count, solved.first), (1, Some(grid)), "{line}");
            assert_eq!(puzzle.clue_count(), 17);
            flagged_covered.insert(grid);
        }
        let counts = ok(run(&[
            "campaign",
            "flags",
            "--count",
            path.to_str().unwrap(),
        ]));
        assert!(
            counts.contains(&format!("{} flagged", h.flagged)),
            "{counts}"
        );
        // The provenance: the plan's fingerprint (the checksum of
        // units.tsv), the slice's entries, a complete campaign, this build.
        let p = file.provenance().expect("a version 2 file").clone();
        let units_tsv = std::fs::read(dir.join("units.tsv")).unwrap();
        assert_eq!(p.plan, s17::flags::Provenance::fingerprint(&units_tsv));
        let planned: u64 = campaign_ranges()[&k].iter().map(|r| r.end - r.start).sum();
        assert_eq!(
            (p.planned, p.checkpointed, p.complete),
            (planned, planned, true)
        );
        let version = ok(run(&["--version"]));
        assert_eq!(p.build, version.trim());
        assert!(
            counts.contains(&format!(
                "provenance: plan {:016x}, {planned} of {planned} entries of the slice checkpointed, campaign complete, made by {}",
                p.plan, p.build
            )),
            "{counts}"
        );
    }
    assert!(!covered_grids.is_empty(), "the known 17's grid at least");
    // The one-grid search on the covered grids: a grid has a 17 iff flagged.
    let input: String = covered_grids.iter().map(|g| format!("{g}\n")).collect();
    let list = dir.join("covered.txt");
    std::fs::write(&list, input).unwrap();
    let with_17 = grids_with_a_17(&list);
    let covered: BTreeSet<Grid> = covered_grids.into_iter().collect();
    let flagged: BTreeSet<Grid> = flagged_covered.intersection(&covered).copied().collect();
    assert_eq!(flagged, with_17);
    // The report: a TSV line per flag file from its header, the slice's
    // ED grids from data/ed-counts.tsv, and `all`; a lower bound here.
    let out = run(&["campaign", "report", flags.to_str().unwrap()]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("(a lower bound: 0 of 416 slices complete, 2 files)"),
        "{said}"
    );
    let counts = s17::ed::counts::committed();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let mut rows = stdout.lines();
    assert_eq!(
        rows.next(),
        Some("slice\ted_grids\tsearched\tcovered\tflagged\tcomplete")
    );
    let mut sums = [0u64; 4];
    for &k in expected.keys() {
        let h = *FlagFile::open(
            std::fs::read(flags.join(format!("slice-{k}.s17f"))).unwrap(),
            "f",
        )
        .unwrap()
        .header();
        let row = [counts[k].grids, h.searched, h.covered, h.flagged];
        let line = format!("{k}\t{}\t{}\t{}\t{}\tno", row[0], row[1], row[2], row[3]);
        assert_eq!(rows.next(), Some(line.as_str()), "{stdout}");
        for (s, r) in sums.iter_mut().zip(row) {
            *s += r;
        }
    }
    let all = format!(
        "all\t{}\t{}\t{}\t{}\tno",
        sums[0], sums[1], sums[2], sums[3]
    );
    assert_eq!(rows.next(), Some(all.as_str()));
    assert_eq!(rows.next(), None);
    // A merge of one chosen slice gives that slice's file, byte for byte.
    let one = dir.join("flags-331");
    ok(run(&[
        "campaign",
        "merge",
        d,
        "-o",
        one.to_str().unwrap(),
        "--slices",
        "331",
    ]));
    assert_eq!(
        std::fs::read(one.join("slice-331.s17f")).unwrap(),
        std::fs::read(flags.join("slice-331.s17f")).unwrap()
    );
    assert!(!one.join("slice-210.s17f").exists());
    // The same plan for every 17 refuses the units written for the first.
    ok(run(&[
        "campaign",
        "plan",
        "--slices",
        LIST,
        "--unit-hours",
        "0.0005",
        "--force",
        "-o",
        d,
    ]));
    let out = run(&["campaign", "status", d]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains(
            "unit 0: its checkpoint was written searching for 17s, first per visit, but this campaign searches for 17s, all"
        ),
        "{}",
        text(&out)
    );
    let out = run(&["campaign", "run", d, "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("another campaign's unit"),
        "{}",
        text(&out)
    );
    let known = minlex_grid(
        &s17::solver::solve(&Puzzle::parse(SLICE331_17).unwrap(), 2)
            .first
            .unwrap(),
    )
    .0;
    assert!(flagged.contains(&known), "the known 17's grid is flagged");
}
