//! `campaign report DIR18 --with-17 DIR17`: the survey's columns from the
//! flag files of an 18 and a 17 campaign, checked against the records
//! themselves (sets of grids, counted here); the goal of each directory
//! checked; a note when the 18 files come from two plans.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use s17::flags::{FlagHeader, FlagRecord, KIND_FIRST, Provenance, file_name, to_bytes_with};

use crate::common::bin::s17;

fn temp(name: &str) -> PathBuf {
    let dir = PathBuf::from(concat!(env!("CARGO_TARGET_TMPDIR"), "/campaign-survey")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A mask of the first `n` cells.
fn mask(n: u32) -> u128 {
    (1u128 << n) - 1
}

/// Writes slice `k`'s flag file of `clues` with the grids `keys` flagged,
/// `covered` grids covered (the whole slice when `None`).
fn write(dir: &Path, k: usize, clues: u32, keys: &[(u32, u32)], covered: Option<u64>, plan: u64) {
    let grids = s17::ed::counts::committed()[k].grids;
    let covered = covered.unwrap_or(grids);
    let header = FlagHeader {
        clues,
        kind: KIND_FIRST,
        slice: k as u32,
        grids,
        searched: covered,
        covered,
        flagged: 0,
    };
    let records: Vec<FlagRecord> = keys
        .iter()
        .map(|&(entry, grid)| FlagRecord {
            entry,
            grid,
            mask: mask(clues),
        })
        .collect();
    let provenance = Provenance {
        plan,
        ..Provenance::none()
    };
    let bytes = to_bytes_with(header, &provenance, &records).unwrap();
    std::fs::write(dir.join(file_name(k)), bytes).unwrap();
}

/// `s17 campaign report D18 --with-17 D17`: its output and its stderr.
fn survey(d18: &Path, d17: &Path) -> (std::process::Output, String) {
    let out = s17(&["campaign", "report"])
        .arg(d18)
        .arg("--with-17")
        .arg(d17)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    (out, stderr)
}

#[test]
fn the_survey_counts_each_grid_at_its_lowest_clue_count() {
    let (d17, d18) = (temp("17"), temp("18"));
    let counts = s17::ed::counts::committed();
    // Slice 415 searched whole by both; slice 414 partly.
    let f17_415 = [(0, 0), (3, 1), (9, 2)];
    let f18_415 = [(0, 0), (1, 0), (2, 5), (9, 2), (11, 0)];
    write(&d17, 415, 17, &f17_415, None, 7);
    write(&d18, 415, 18, &f18_415, None, 8);
    let f17_414 = [(5, 5)];
    let f18_414 = [(5, 5), (6, 0)];
    write(&d17, 414, 17, &f17_414, Some(100), 7);
    write(&d18, 414, 18, &f18_414, Some(90), 8);
    let (out, stderr) = survey(&d18, &d17);
    assert!(out.status.success(), "{stderr}");
    // The expected rows from the sets: lowest 17 = the 17 flags; also 18 =
    // the 17 flags among the 18 flags; lowest 18 = the 18 flags not among
    // the 17 flags; the rest only for a slice complete in both.
    let row = |k: usize, f17: &[(u32, u32)], f18: &[(u32, u32)], c: (u64, u64)| {
        let s17: BTreeSet<_> = f17.iter().collect();
        let s18: BTreeSet<_> = f18.iter().collect();
        let also = s17.intersection(&s18).count() as u64;
        let only18 = s18.difference(&s17).count() as u64;
        let grids = counts[k].grids;
        let done = c == (grids, grids);
        let rest = if done {
            (grids - s17.len() as u64 - only18).to_string()
        } else {
            "-".to_string()
        };
        let yes = if done { "yes" } else { "no" };
        (
            format!(
                "{k}\t{grids}\t{}\t{}\t{}\t{also}\t{only18}\t{rest}\t{yes}",
                c.0,
                c.1,
                s17.len()
            ),
            [grids, c.0, c.1, s17.len() as u64, also, only18],
        )
    };
    let g415 = counts[415].grids;
    let (r414, n414) = row(414, &f17_414, &f18_414, (100, 90));
    let (r415, n415) = row(415, &f17_415, &f18_415, (g415, g415));
    assert!(
        r415.ends_with(&format!("\t3\t2\t3\t{}\tyes", g415 - 6)),
        "{r415}"
    );
    let sum: Vec<u64> = n414.iter().zip(n415).map(|(a, b)| a + b).collect();
    let all = format!(
        "all\t{}\t{}\t{}\t{}\t{}\t{}\t-\tno",
        sum[0], sum[1], sum[2], sum[3], sum[4], sum[5]
    );
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "slice\ted_grids\tcovered_17\tcovered_18\tlowest_17\talso_18\tlowest_18\tlowest_19_or_more\tcomplete",
            r414.as_str(),
            r415.as_str(),
            all.as_str()
        ]
    );
    assert!(
        stderr.contains("17 for at least 4, 17 or 18 for at least 8 (lower bounds: 1 of 416 slices complete in both campaigns)"),
        "{stderr}"
    );
    // Two plans among the 18 files: said.
    write(&d18, 414, 18, &f18_414, Some(90), 9);
    let (out, stderr) = survey(&d18, &d17);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the 18 flag files come from 2 different plans"),
        "{stderr}"
    );
    // The plain report of the 18 directory says so too.
    let out = s17(&["campaign", "report"]).arg(&d18).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        stderr.contains("come from 2 different plans (plan 0000000000000008: slices 415; plan 0000000000000009: slices 414)"),
        "{stderr}"
    );
    // The directories swapped: refused, naming the file and its flag.
    let (out, stderr) = survey(&d17, &d18);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("has a minimal 18 (first per visit)\", the survey wants minimal 17s here"),
        "{stderr}"
    );
}

/// `campaign report DIR --svg FILE`: the TSV on stdout as without it, and a
/// picture: an SVG document whose title holds the totals, one dot per slice
/// present (and one in the legend); an existing FILE kept without
/// `--force`; `--svg -` refused (stdout carries the TSV).
#[test]
fn the_report_draws_its_totals_and_one_dot_per_slice() {
    let dir = temp("svg");
    let d18 = dir.join("flags");
    std::fs::create_dir_all(&d18).unwrap();
    write(&d18, 414, 18, &[(0, 0), (1, 0)], Some(3), 7);
    write(&d18, 415, 18, &[], None, 7);
    let svg = dir.join("r.svg");
    let plain = s17(&["campaign", "report"]).arg(&d18).output().unwrap();
    assert!(plain.status.success());
    let out = s17(&["campaign", "report"])
        .arg(&d18)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(out.stdout, plain.stdout, "--svg changes nothing on stdout");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.trim_start().starts_with("<svg"),
        "{}",
        &text[..80.min(text.len())]
    );
    assert!(text.trim_end().ends_with("</svg>"));
    assert_eq!(well_formed(&text), Ok(()), "the SVG's tags nest");
    assert_eq!(
        text.matches("<circle").count(),
        2 + 1,
        "one dot a slice and the legend's"
    );
    assert!(
        text.contains("at least 2 (lower bound: 1 of 416 slices complete"),
        "the totals in the title"
    );
    // Kept without --force; replaced with it.
    std::fs::write(&svg, "mine").unwrap();
    let again = s17(&["campaign", "report"])
        .arg(&d18)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists (--force to overwrite)"));
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), "mine");
    let forced = s17(&["campaign", "report"])
        .arg(&d18)
        .arg("--svg")
        .arg(&svg)
        .arg("--force")
        .output()
        .unwrap();
    assert!(forced.status.success());
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<circle"));
    let dash = s17(&["campaign", "report"])
        .arg(&d18)
        .args(["--svg", "-"])
        .output()
        .unwrap();
    assert_eq!(dash.status.code(), Some(2));
}

/// Checks that the elements of an XML text nest: every start tag closed by
/// its own end tag (`<?…?>` and `<!…>` skipped); `Err` names the first
/// mismatch.
fn well_formed(text: &str) -> Result<(), String> {
    let mut open: Vec<&str> = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        let end = rest[i..].find('>').ok_or("a tag never ends")? + i;
        let tag = &rest[i + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            match open.pop() {
                Some(o) if o == name.trim() => {}
                o => return Err(format!("</{name}> closes {o:?}")),
            }
        } else if !tag.ends_with('/') {
            open.push(tag.split_whitespace().next().unwrap_or(""));
        }
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("never closed: {open:?}"))
    }
}

/// `campaign report` refuses a directory whose flag files disagree: a
/// file named for one slice that holds another, and files of two flags
/// (17 and 18): exit 1, the file named, nothing on stdout.
#[test]
fn a_report_refuses_a_misnamed_file_and_files_of_two_flags() {
    let dir = temp("misnamed");
    write(&dir, 415, 18, &[(0, 0)], None, 8);
    std::fs::rename(dir.join(file_name(415)), dir.join(file_name(414))).unwrap();
    let out = s17(&["campaign", "report"]).arg(&dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{}: holds slice 415, not 414", file_name(414))),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "{stderr}");

    let dir = temp("two-flags");
    write(&dir, 414, 17, &[(5, 5)], Some(100), 7);
    write(&dir, 415, 18, &[(0, 0)], None, 8);
    let out = s17(&["campaign", "report"]).arg(&dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{}: its flag is \"", file_name(415)))
            && stderr.contains("the other files' \""),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "{stderr}");

    // The survey with the directories swapped: the 17 file where 18s are
    // due, refused before any line.
    let (d17, d18) = (temp("swapped-17"), temp("swapped-18"));
    write(&d17, 414, 17, &[(5, 5)], Some(100), 7);
    write(&d18, 414, 18, &[(5, 5)], Some(100), 8);
    let (out, stderr) = survey(&d17, &d18);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("swapped-18/slice-414.s17f: its flag is \"has a minimal 18")
            && stderr.contains("the survey wants minimal 17s here"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "{stderr}");
}
