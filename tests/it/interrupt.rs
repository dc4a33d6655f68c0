//! Ctrl-C (SIGINT) and SIGTERM during the commands that write resumable
//! results (issue 38), on the real binary in temporary directories: the
//! run stops after the pieces in progress with one line saying what is
//! done and how to go on, exit 130 (143 for SIGTERM), no panic; its checkpoint holds exactly
//! the pieces it says are done; the same command with `--resume` then
//! gives the output of a run never stopped. A second signal stops at once,
//! exit 130. Each test takes a few seconds on a release build.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): results
//! lost or repeated by Ctrl-C or SIGTERM on the real binary, then `--resume`.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::bin::{data, s17_at};

/// [`s17_at`] started with stderr on a pipe (no terminal: no bar, and no
/// progress line unless `progress_secs`).
fn start(dir: &Path, args: &[&str], progress_secs: Option<&str>) -> Child {
    let mut command = s17_at(dir, args);
    command.env_remove("S17_PROGRESS_SECS");
    if let Some(secs) = progress_secs {
        command.env("S17_PROGRESS_SECS", secs);
    }
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run s17")
}

/// Sends `signal` (`INT`, `TERM`) to `child`.
fn send(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -s {signal} failed");
}

/// The lines of the file at `path` (none while it does not exist).
fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|text| text.lines().map(String::from).collect())
        .unwrap_or_default()
}

fn sorted_lines(path: &Path) -> Vec<String> {
    let mut lines = lines(path);
    lines.sort();
    lines
}

/// Waits until the file at `path` has `n` lines, `child` still running
/// (otherwise the signal would come after the end and prove nothing).
fn wait_for_lines(child: &mut Child, path: &Path, n: usize) {
    let limit = crate::common::progress_limit(600);
    let deadline = Instant::now() + limit;
    while lines(path).len() < n {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before {} had {n} lines",
            path.display()
        );
        assert!(Instant::now() < deadline, "no progress in {limit:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Starts `s17 ARGS` in `dir`, sends `signal` once `checkpoint` has
/// `lines` lines (its header and the first piece done), and waits for
/// the end.
fn interrupted_run(
    dir: &Path,
    args: &[&str],
    checkpoint: &str,
    lines: usize,
    signal: &str,
) -> Output {
    let mut child = start(dir, args, None);
    wait_for_lines(&mut child, &dir.join(checkpoint), lines);
    send(&child, signal);
    child.wait_with_output().expect("wait for s17")
}

/// What an interrupted run says: `s17 COMMAND: interrupted: D of T UNIT
/// done, WHAT in OUTPUT; RESUME`.
struct Said {
    command: &'static str,
    unit: &'static str,
    what: &'static str,
    resume: &'static str,
}

const WITH_RESUME: &str = "the same command with --resume continues";

/// Asserts that `out` is an interrupted run as `said`, stopped by
/// `signal`: exit 128 + the signal (130 SIGINT, 143 SIGTERM), the note
/// of the signal, then the last line, no panic; returns (D, T), with at
/// least one piece done and not all.
fn assert_interrupted(out: &Output, said: &Said, signal: &str) -> (u64, u64) {
    let text = String::from_utf8_lossy(&out.stderr);
    let code = crate::common::signals::exit_code(signal);
    assert_eq!(out.status.code(), Some(code), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    let command = said.command;
    assert!(
        text.contains(&format!("s17 {command}: interrupt: "))
            && text.contains(if signal == "INT" {
                "(Ctrl-C again stops at once)"
            } else {
                "(a second signal stops at once)"
            }),
        "{text}"
    );
    let last = text.lines().last().unwrap_or_default();
    let rest = last
        .strip_prefix(&format!("s17 {command}: interrupted: "))
        .unwrap_or_else(|| panic!("{text}"));
    let (counts, tail) = rest
        .split_once(&format!(" {} done, {} in ", said.unit, said.what))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(tail.ends_with(&format!("; {}", said.resume)), "{text}");
    let (done, total) = counts
        .split_once(" of ")
        .unwrap_or_else(|| panic!("{text}"));
    let number = |n: &str| n.replace(',', "").parse::<u64>().unwrap();
    let (done, total) = (number(done), number(total));
    assert!(0 < done && done < total, "{text}");
    (done, total)
}

/// The entry lines of a checkpoint (`FILE.done`; its header left out).
fn checkpointed(path: &Path) -> usize {
    lines(path).iter().filter(|l| !l.starts_with('#')).count()
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let out = s17_at(dir, args).output().expect("run s17");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `args` (whose output is `cut.txt`) in `dir`, sends `signal` once
/// its checkpoint has a first piece, and checks that the run stopped as
/// `said`, with `total` pieces and exactly the pieces it calls done in its
/// checkpoint; then runs `args` and `resume` (the flags that continue)
/// and checks that the output is that of a run never stopped (`whole.txt`),
/// every piece checkpointed. Returns the pieces done by the first run, and
/// the second run.
fn stop_then_resume(
    dir: &Path,
    args: &[&str],
    signal: &str,
    said: &Said,
    total: u64,
    resume: &[&str],
) -> (u64, Output) {
    let out = interrupted_run(dir, args, "cut.txt.done", 2, signal);
    let (done, all) = assert_interrupted(&out, said, signal);
    assert_eq!(all, total);
    let checkpoint = dir.join("cut.txt.done");
    assert_eq!(checkpointed(&checkpoint), done as usize);
    let out = run(dir, &[args, resume].concat());
    assert_eq!(
        sorted_lines(&dir.join("cut.txt")),
        sorted_lines(&dir.join("whole.txt"))
    );
    assert_eq!(checkpointed(&checkpoint), total as usize);
    (done, out)
}

/// A temporary directory with `n` random grids in `g.txt`.
fn with_grids(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let grids = run(
        dir.path(),
        &["generate", "-n", &n.to_string(), "--seed", "38"],
    )
    .stdout;
    std::fs::write(dir.path().join("g.txt"), grids).unwrap();
    dir
}

#[test]
fn a_scan_stopped_by_ctrl_c_says_what_is_done_and_resumes() {
    let dir = with_grids(6);
    let d = dir.path();
    run(d, &["scan", "g.txt", "-o", "whole.txt", "-q"]);

    let args = ["scan", "g.txt", "-o", "cut.txt", "--threads", "1"];
    let said = Said {
        command: "scan",
        unit: "grids",
        what: "results",
        resume: WITH_RESUME,
    };
    let (done, out) = stop_then_resume(d, &args, "INT", &said, 6, &["--resume"]);
    let text = String::from_utf8_lossy(&out.stderr);
    // One grid or more, as the signal fell (a loaded machine may send it
    // before the second grid starts).
    let grids = if done == 1 { "grid" } else { "grids" };
    assert!(
        text.contains(&format!("{done} {grids} done"))
            && text.contains(&format!("{} to go", 6 - done)),
        "{text}"
    );
}

/// SIGTERM (what Slurm sends at the end of a job's time) stops as Ctrl-C
/// does, exit 143.
#[test]
fn an_exhaust_stopped_by_sigterm_resumes_to_the_whole_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Entries of slice 331 around one that holds a known 17.
    let slice = ["exhaust", "--band", "331", "--entries", "1683760..1683772"];
    run(d, &[&slice[..], &["-o", "whole.txt", "-q"]].concat());
    assert!(
        !lines(&d.join("whole.txt")).is_empty(),
        "the range holds a 17"
    );

    let args = [&slice[..], &["-o", "cut.txt", "--threads", "1"]].concat();
    let said = Said {
        command: "exhaust",
        unit: "entries",
        what: "results",
        resume: WITH_RESUME,
    };
    stop_then_resume(d, &args, "TERM", &said, 12, &["--resume", "-q"]);
}

/// `validate --checkpoint` resumes by itself: the hint says the same
/// command goes on.
#[test]
fn a_validation_stopped_by_ctrl_c_goes_on_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Three grids of the first 300 known 17s (a second or so each).
    let known: Vec<String> = lines(&data("known17.txt")).into_iter().take(300).collect();
    std::fs::write(d.join("known.txt"), known.join("\n") + "\n").unwrap();
    let sample = ["validate", "known.txt", "--sample", "3", "--seed", "38"];
    run(
        d,
        &[&sample[..], &["--checkpoint", "whole.txt", "-q"]].concat(),
    );

    let args = [&sample[..], &["--checkpoint", "cut.txt", "--threads", "1"]].concat();
    let said = Said {
        command: "validate",
        unit: "grids",
        what: "results",
        resume: "the same command continues",
    };
    let (_, out) = stop_then_resume(d, &args, "INT", &said, 3, &["-q"]);
    assert!(out.stdout.is_empty(), "no known 17 missed, none new");
}

/// `enumerate --bands`: the slice in progress is dropped (a count is
/// written whole or not at all); the resumed file is the committed count
/// of those slices.
#[test]
fn an_enumeration_stopped_by_ctrl_c_keeps_whole_slices_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let committed: Vec<String> = lines(&data("ed-counts.tsv"))
        .into_iter()
        .filter(|l| {
            l.starts_with('#')
                || l.split('\t')
                    .next()
                    .and_then(|k| k.parse::<u64>().ok())
                    .is_some_and(|k| (28..31).contains(&k))
        })
        .collect();
    assert_eq!(committed.len(), 4);

    let args = [
        "enumerate",
        "--bands",
        "28..31",
        "-o",
        "c.tsv",
        "--threads",
        "1",
    ];
    let out = interrupted_run(d, &args, "c.tsv", 2, "INT");
    let said = Said {
        command: "enumerate",
        unit: "slices",
        what: "counts",
        resume: WITH_RESUME,
    };
    let (done, total) = assert_interrupted(&out, &said, "INT");
    assert_eq!(total, 3);
    let kept = lines(&d.join("c.tsv"));
    assert_eq!(kept.len(), 1 + done as usize, "{kept:?}");
    assert!(kept.iter().all(|l| committed.contains(l)), "{kept:?}");

    run(d, &[&args[..], &["--resume", "-q"]].concat());
    assert_eq!(lines(&d.join("c.tsv")), committed);
}

/// A second Ctrl-C stops at once, in the middle of a grid (a search for
/// 18s, seconds long): exit 130, a line saying so, and files as a kill
/// leaves them (the grid not finished is not checkpointed).
#[test]
fn a_second_ctrl_c_stops_at_once() {
    let dir = with_grids(1);
    let d = dir.path();
    let args = [
        "scan",
        "g.txt",
        "-o",
        "out.txt",
        "--clues",
        "18",
        "--threads",
        "1",
    ];
    let mut child = start(d, &args, Some("0.05"));
    let (sender, receiver) = mpsc::channel();
    let stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let _ = sender.send(line.expect("utf-8 stderr"));
        }
    });
    let limit = crate::common::progress_limit(600);
    let mut seen = Vec::new();
    let mut wait_for = |start: &str| {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = receiver
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("no {start:?} line after {seen:?}: {e}"));
            seen.push(line);
            if seen.last().unwrap().starts_with(start) {
                return;
            }
        }
    };
    // A progress line: the search runs, with the handler in place.
    wait_for("s17: 0 of 1 grids");
    send(&child, "INT");
    wait_for("s17 scan: interrupt: ");
    send(&child, "INT");
    wait_for("s17 scan: interrupted again: stopped at once; what is checkpointed is kept");
    let status = child.wait().unwrap();
    reader.join().unwrap();
    seen.extend(receiver.try_iter());
    assert_eq!(status.code(), Some(130), "{seen:?}");
    assert!(!seen.iter().any(|l| l.contains("panicked")), "{seen:?}");
    assert!(lines(&d.join("out.txt")).is_empty());
    assert_eq!(checkpointed(&d.join("out.txt.done")), 0);
    assert_eq!(lines(&d.join("out.txt.done")).len(), 1, "the header only");
}
