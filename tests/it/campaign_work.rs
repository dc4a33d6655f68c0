//! `s17 campaign work`: pulling workers finish a campaign, one of them
//! killed mid-unit and started again, with the same unit files as one
//! uninterrupted worker; and a unit whose one entry is searched in parts
//! (`Plan::parts`), killed at many moments and run again each time, ends
//! with the same files as an uninterrupted run and the 17s `exhaust`
//! finds in the entry.
//!
//! The entries: slice 331, entries 1683756..1683776 (about 3 CPU seconds
//! in all), which hold one known 17 (at entry 1683769); entry 1683761
//! has 15 bands 3.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use crate::common::SLICE331_17;
use crate::common::bin::s17;
use crate::common::bin::{temp, text};
use crate::common::fixture;

fn plan(dir: &Path, list: &str, hours: &str) {
    fixture();
    let out = s17(&[
        "campaign",
        "plan",
        "--slices",
        list,
        "--unit-hours",
        hours,
        "-o",
    ])
    .arg(dir)
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

fn worker(dir: &Path) -> Child {
    s17(&["campaign", "work"])
        .arg(dir)
        .args(["--threads", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// The unit files that must match: every `out/UNIT.txt` and its
/// checkpoint, by name (the cost files hold times).
fn unit_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            name.ends_with(".txt") || name.ends_with(".txt.done")
        })
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn status_ok(dir: &Path) {
    let out = s17(&["campaign", "status"]).arg(dir).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("complete: every planned entry"));
}

fn merged(dir: &Path) -> String {
    let file = dir.join("17s.txt");
    let out = s17(&["campaign", "merge"])
        .arg(dir)
        .arg("-o")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    std::fs::read_to_string(file).unwrap()
}

/// Waits until some unit of `dir` has a checkpoint line (a worker is
/// mid-unit), at most `limit`.
fn wait_for_a_checkpoint(dir: &Path, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Ok(listing) = std::fs::read_dir(dir.join("out")) {
            for item in listing {
                let path = item.unwrap().path();
                if path.to_string_lossy().ends_with(".txt.done")
                    && std::fs::read_to_string(&path).is_ok_and(|t| t.lines().count() >= 2)
                {
                    return true;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

#[test]
fn two_workers_one_killed_and_restarted_finish_as_one_uninterrupted() {
    let list = "331:1683756..1683776";
    let hours = "0.00006";
    // The reference: one worker, never stopped.
    let reference = temp("campaign-work", "reference");
    plan(&reference, list, hours);
    let out = worker(&reference).wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("no unit left to claim"),
        "{}",
        text(&out)
    );
    status_ok(&reference);
    let units = std::fs::read_dir(reference.join("claims"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().unwrap() == "done")
        .count();
    assert!(units >= 4, "the plan has several units, each marked done");

    // Two workers; one killed as soon as a unit has a checkpoint line.
    let dir = temp("campaign-work", "pulled");
    plan(&dir, list, hours);
    let mut first = worker(&dir);
    let second = worker(&dir);
    assert!(wait_for_a_checkpoint(
        &dir,
        crate::common::progress_limit(600)
    ));
    first.kill().unwrap();
    let _ = first.wait();
    // Started again, it takes the claim of its dead self or goes on.
    let again = worker(&dir);
    for child in [second, again] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    status_ok(&dir);
    assert_eq!(unit_files(&dir), unit_files(&reference));
    let m = merged(&dir);
    assert_eq!(m, merged(&reference));
    assert!(m.lines().any(|l| l == SLICE331_17), "{m}");
    // Every unit done and no claim left behind.
    let left: Vec<_> = std::fs::read_dir(dir.join("claims"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| !n.ends_with(".done"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // A worker on a finished campaign has nothing to do.
    let out = worker(&dir).wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(text(&out).contains("0 units run here"), "{}", text(&out));
}

#[test]
fn a_unit_in_parts_killed_at_any_moment_ends_as_an_uninterrupted_run() {
    // One-entry units estimated at 0.1 s, units of 0.036 s: three parts.
    let list = "331:1683761..1683762,331:1683769..1683770";
    let hours = "0.00001";
    let reference = temp("campaign-work", "parts-reference");
    plan(&reference, list, hours);
    for unit in ["0", "1"] {
        let out = s17(&["campaign", "run"])
            .arg(&reference)
            .args([unit, "--threads", "1"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    let part_files = |dir: &Path| {
        std::fs::read_dir(dir.join("out"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .to_string_lossy()
                    .contains(".part")
            })
            .count()
    };
    assert_eq!(part_files(&reference), 0, "part files removed when done");
    // The same 17s as exhaust on the whole entries.
    let whole_dir = temp("campaign-work", "parts-exhaust");
    std::fs::create_dir_all(&whole_dir).unwrap();
    let whole = whole_dir.join("exhaust.txt");
    let out = s17(&["exhaust", "--band", "331", "--entries", "1683769..1683770"])
        .arg("-o")
        .arg(&whole)
        .args(["--threads", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        std::fs::read(reference.join("out/1.txt")).unwrap(),
        std::fs::read(&whole).unwrap()
    );

    // Killed first as soon as unit 0 is in its parts (its part checkpoint exists:
    // a condition, seen by a poll every 2 ms while the parts take a second
    // or more of CPU), then after growing delays until a run ends by itself.
    let dir = temp("campaign-work", "parts-killed");
    plan(&dir, list, hours);
    let start_unit = |unit: &str| {
        s17(&["campaign", "run"])
            .arg(&dir)
            .args([unit, "--threads", "1"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut child = start_unit("0");
    let limit = crate::common::progress_limit(600);
    let start = Instant::now();
    // (`0.txt.part.done` itself, not a temporary file being written: a
    // kill while one is written leaves it behind, and the next run of the
    // unit removes it, so no part file is left at the end below.)
    while !dir.join("out/0.txt.part.done").exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "unit 0 ended before a part file was seen"
        );
        assert!(start.elapsed() < limit, "no part file in {limit:?}");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    let _ = child.wait();
    let mut kills = 1;
    for unit in ["0", "1"] {
        let mut delay = Duration::from_millis(100);
        loop {
            let mut child = start_unit(unit);
            let start = Instant::now();
            let ended = loop {
                if let Some(status) = child.try_wait().unwrap() {
                    break Some(status);
                }
                if start.elapsed() >= delay {
                    break None;
                }
                std::thread::sleep(Duration::from_millis(2));
            };
            match ended {
                Some(status) => {
                    assert!(status.success());
                    break;
                }
                None => {
                    child.kill().unwrap();
                    let _ = child.wait();
                    kills += 1;
                    // Growing by a third: kills spread over the whole
                    // run (start-up, parts, recording) on a fast or a
                    // loaded machine alike.
                    delay += delay / 3;
                }
            }
        }
    }
    assert!(kills > 1, "{kills} kills");
    status_ok(&dir);
    assert_eq!(part_files(&dir), 0);
    assert_eq!(unit_files(&dir), unit_files(&reference));
    assert!(merged(&dir).lines().any(|l| l == SLICE331_17));
}

/// SIGTERM (Slurm's stop at the end of a job's time) ends a worker at once
/// with a line that says what it did: units finished, and the unit it ran
/// with its entries checkpointed as its checkpoint file holds them; a
/// worker started after it finishes the campaign.
#[test]
fn a_worker_stopped_by_a_signal_says_what_it_checkpointed() {
    let dir = temp("campaign-work", "signalled");
    plan(&dir, "331:1683756..1683776", "0.00006");
    let mut child = worker(&dir);
    crate::common::signals::wait_until_caught(&mut child);
    assert!(wait_for_a_checkpoint(
        &dir,
        crate::common::progress_limit(600)
    ));
    crate::common::signals::send(&child, "TERM");
    let out = child.wait_with_output().unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(143), "{said}");
    let line = said
        .lines()
        .find_map(|l| l.strip_prefix("s17 campaign work: interrupted: worker stopped; "))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(
        line.ends_with(&format!("`s17 campaign work {}` goes on", dir.display())),
        "{said}"
    );
    let (finished, rest) = line.split_once(" finished here").unwrap();
    let finished: u64 = finished.split(' ').next().unwrap().parse().unwrap();
    if let Some(unit) = rest.strip_prefix("; unit ") {
        // `U: D of T entries checkpointed (…)`: the unit's checkpoint
        // file holds D entries of its T.
        let (number, counts) = unit.split_once(": ").unwrap();
        let (done, total) = counts
            .split_once(" entries checkpointed")
            .unwrap()
            .0
            .split_once(" of ")
            .unwrap();
        let done: usize = done.parse().unwrap();
        let total: usize = total.parse().unwrap();
        assert!(done <= total, "{said}");
        let file = dir.join("out").join(format!("{number}.txt.done"));
        let lines = std::fs::read_to_string(&file).map_or(0, |t| t.lines().count());
        assert_eq!(lines.saturating_sub(1), done, "{said}");
        assert!(finished > 0 || done > 0, "{said}");
    } else {
        assert!(finished > 0, "{said}");
    }
    let out = worker(&dir).wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    status_ok(&dir);
}
