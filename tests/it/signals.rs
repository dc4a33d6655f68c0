//! A signal at any moment of a long command (issue 56): SIGINT, SIGTERM
//! or SIGHUP sent as soon as the process catches them (before it has
//! opened its tables or read its input) and at later moments gives the
//! command's documented last line and exit code (128 + the signal), and a
//! resumable run then resumes to the output of a run never stopped.
//!
//! The moments are counted from the moment the handler is in place
//! (`crate::common::signals::wait_until_caught`), never from a guess of the
//! machine's speed: under load the runs are slower, not different.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::common::bin::s17;
use crate::common::bin::stderr;
use crate::common::signals::{exit_code, send, wait_until_caught};

/// `s17 ARGS` in `dir` (tables through `$S17_TABLES`), no progress
/// line, stdin and stdout closed, stderr on a pipe.
fn s17_quiet_in(dir: &Path, args: &[&str]) -> Command {
    let mut command = s17(args);
    command
        .current_dir(dir)
        .env_remove("S17_PROGRESS_SECS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// Runs `args` in `dir`, sends `signal` `after` the handler is in place,
/// and returns the run's output.
fn signalled(dir: &Path, args: &[&str], signal: &str, after: Duration) -> Output {
    let mut child = s17_quiet_in(dir, args).spawn().expect("run s17");
    wait_until_caught(&mut child);
    std::thread::sleep(after);
    send(&child, signal);
    child.wait_with_output().expect("wait for s17")
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let out = s17_quiet_in(dir, args)
        .stdout(Stdio::piped())
        .output()
        .expect("run s17");
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    out
}

fn sorted_lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines.sort();
    lines
}

/// The entry lines of a checkpoint (its header left out).
fn checkpointed(path: &Path) -> u64 {
    sorted_lines(path)
        .iter()
        .filter(|l| !l.starts_with('#'))
        .count() as u64
}

/// Asserts that `out` is a run stopped by `signal` whose last line is
/// `s17 COMMAND: interrupted: D of T UNIT done, WHAT in OUTPUT; RESUME`
/// (`tail` being ` UNIT done, ...` to the end); returns (D, T).
fn assert_stopped(out: &Output, signal: &str, command: &str, tail: &str) -> (u64, u64) {
    let text = stderr(out);
    assert_eq!(
        out.status.code(),
        Some(exit_code(signal)),
        "{signal}: {text}"
    );
    assert!(!text.contains("panicked"), "{text}");
    assert!(
        text.contains(&format!("s17 {command}: interrupt: ")),
        "the note of the signal: {text}"
    );
    let last = text.lines().last().unwrap_or_default();
    let counts = last
        .strip_prefix(&format!("s17 {command}: interrupted: "))
        .and_then(|rest| rest.strip_suffix(tail))
        .unwrap_or_else(|| panic!("{signal}: {text}"));
    let (done, total) = counts
        .split_once(" of ")
        .unwrap_or_else(|| panic!("{text}"));
    let (done, total) = (done.parse().unwrap(), total.parse().unwrap());
    assert!(done <= total, "{text}");
    (done, total)
}

/// Moments after the handler is in place, and the signal sent then: the
/// first ones before the tables are open or a grid read.
const MOMENTS: [(u64, &str); 5] = [
    (0, "INT"),
    (0, "TERM"),
    (20, "HUP"),
    (100, "INT"),
    (700, "TERM"),
];

#[test]
fn a_scan_signalled_at_any_moment_says_so_and_resumes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let grids = run(d, &["generate", "-n", "3", "--seed", "56"]).stdout;
    std::fs::write(d.join("g.txt"), grids).unwrap();
    run(d, &["scan", "g.txt", "-o", "whole.txt", "-q"]);

    // Each run goes on from the one before; the last one ends the scan.
    let args = [
        "scan",
        "g.txt",
        "-o",
        "cut.txt",
        "--threads",
        "1",
        "--resume",
    ];
    let tail = " grids done, results in cut.txt; the same command with --resume continues";
    let mut before = 0;
    for (ms, signal) in MOMENTS {
        let out = signalled(d, &args, signal, Duration::from_millis(ms));
        if out.status.code() == Some(0) {
            break; // the scan ended before the signal came
        }
        let (done, total) = assert_stopped(&out, signal, "scan", tail);
        assert_eq!(total, 3);
        assert!(done >= before, "{}", stderr(&out));
        assert_eq!(checkpointed(&d.join("cut.txt.done")), done, "{ms} ms");
        if ms == 0 {
            assert_eq!(done, before, "no grid starts after an early signal");
        }
        before = done;
    }
    run(d, &args);
    assert_eq!(
        sorted_lines(&d.join("cut.txt")),
        sorted_lines(&d.join("whole.txt"))
    );
    assert_eq!(checkpointed(&d.join("cut.txt.done")), 3);
}

#[test]
fn exhaust_and_enumerate_signalled_at_once_stop_before_their_first_piece() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let exhaust = [
        "exhaust",
        "--band",
        "331",
        "--entries",
        "1683760..1683772",
        "-o",
        "e.txt",
    ];
    let out = signalled(d, &exhaust, "TERM", Duration::ZERO);
    let tail = " entries done, results in e.txt; the same command with --resume continues";
    assert_eq!(assert_stopped(&out, "TERM", "exhaust", tail), (0, 12));
    assert_eq!(checkpointed(&d.join("e.txt.done")), 0);

    let enumerate = ["enumerate", "--bands", "28..31", "-o", "c.tsv"];
    let out = signalled(d, &enumerate, "INT", Duration::ZERO);
    let tail = " slices done, counts in c.tsv; the same command with --resume continues";
    assert_eq!(assert_stopped(&out, "INT", "enumerate", tail), (0, 3));
}

/// The commands that stop at once (nothing to finish) say how far they
/// went, at any moment.
#[test]
fn search_validate_and_campaign_run_signalled_at_any_moment_say_how_far_they_went() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let grid = crate::common::GRID29;
    let grids: String = (0..200).map(|_| format!("{grid}\n")).collect();
    std::fs::write(d.join("g.txt"), grids).unwrap();
    for (ms, signal) in [(0, "INT"), (0, "TERM"), (300, "INT")] {
        let args = ["search", "--input", "g.txt", "--threads", "1"];
        let out = signalled(d, &args, signal, Duration::from_millis(ms));
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(exit_code(signal)), "{text}");
        let last = text.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("s17 search: interrupted: ")
                && last.contains(" of 200 grids searched and printed; "),
            "{text}"
        );
    }

    let known = crate::common::bin::data("known17.txt");
    let args = ["validate", known.to_str().unwrap(), "--sample", "200"];
    let out = signalled(d, &args, "TERM", Duration::ZERO);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(143), "{text}");
    assert!(
        text.lines()
            .last()
            .is_some_and(|l| l.starts_with("s17 validate: interrupted: 0 of 200 grids")),
        "{text}"
    );

    let plan = [
        "campaign",
        "plan",
        "--slices",
        "331:1683760..1683790",
        "--unit-hours",
        "100",
        "-o",
        "c",
    ];
    run(d, &plan);
    for (ms, signal) in [(0, "INT"), (100, "TERM")] {
        let args = ["campaign", "run", "c", "0", "--threads", "1"];
        let out = signalled(d, &args, signal, Duration::from_millis(ms));
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(exit_code(signal)), "{text}");
        let last = text.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("s17 campaign run: interrupted: ")
                && last.ends_with(" of 30 entries checkpointed; `s17 campaign run c 0` continues"),
            "{text}"
        );
    }
}
