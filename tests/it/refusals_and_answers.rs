//! What a new user trips on, round 3 (issue 43), on the real binary in
//! temporary directories: outputs that are inputs, runs that leave files
//! they should not, stdin as `-`, out-of-range values, and the answer of
//! every command.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::bin::{BIN, run_with_stdin, shared_tables};
use crate::common::bin::{files_in, stderr};
use crate::common::{FIRST_KNOWN17, QUICK_GRID};

/// `s17 ARGS` in `dir` on the shared tables (through `$S17_TABLES`).
fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .current_dir(dir)
        .args(args)
        .env("S17_TABLES", shared_tables())
        .env_remove("RUST_LOG")
        .env_remove("S17_PROGRESS_SECS");
    command
}

fn s17(dir: &Path, args: &[&str]) -> Output {
    run_with_stdin(&mut command(dir, args), "")
}

/// Asserts that `out` exited with `code` and its stderr starts with
/// `first`.
fn assert_exit(out: &Output, code: i32, first: &str) {
    let text = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{text}");
    assert!(text.starts_with(first), "{first}\n{text}");
}

/// A run whose output (or checkpoint, or FILE.new) is one of its inputs,
/// by the same path, another path or a link, is refused before anything
/// is written, even with --force.
#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("grids.txt"), format!("{QUICK_GRID}\n")).unwrap();
    std::fs::write(d.join("list.txt"), format!("{FIRST_KNOWN17}\n")).unwrap();
    std::os::unix::fs::symlink("grids.txt", d.join("link.txt")).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    let before = files_in(d);
    for (args, output, input) in [
        (
            &["scan", "grids.txt", "-o", "grids.txt", "--force"][..],
            "grids.txt",
            "grid file grids.txt",
        ),
        (
            &["scan", "link.txt", "-o", "grids.txt", "--force"],
            "grids.txt",
            "grid file link.txt",
        ),
        (
            &["scan", "sub/../grids.txt", "-o", "grids.txt", "--resume"],
            "grids.txt",
            "grid file sub/../grids.txt",
        ),
        (
            &["scan", "grids.txt", "-o", "grids", "--force"],
            "grids.txt",
            "grid file grids.txt",
        ),
        (
            &["scan", "grids.txt", "-o", "s.txt", "--known", "s.txt.new"],
            "s.txt.new",
            "known list s.txt.new",
        ),
        (
            &[
                "exhaust",
                "--band",
                "28",
                "--entries",
                "0..1",
                "-o",
                "list.txt",
                "--known",
                "list.txt",
                "--force",
            ],
            "list.txt",
            "known list list.txt",
        ),
        (
            &["validate", "list.txt", "--checkpoint", "list.txt"],
            "list.txt",
            "known list list.txt",
        ),
        (
            &["validate", "list", "--checkpoint", "list"],
            "list.txt",
            "known list list",
        ),
    ] {
        // `grids` and `list` name the inputs through their side files.
        if args.contains(&"grids") {
            std::fs::rename(d.join("grids.txt"), d.join("grids.done")).unwrap();
            let out = s17(d, &["scan", "grids.done", "-o", "grids", "--force"]);
            std::fs::rename(d.join("grids.done"), d.join("grids.txt")).unwrap();
            assert_exit(
                &out,
                2,
                "s17 scan: error: grids.done would be written by this run, and it is the grid file grids.done it reads (the same file)",
            );
            continue;
        }
        if args.contains(&"list") {
            std::fs::rename(d.join("list.txt"), d.join("list.times")).unwrap();
            let out = s17(d, &["validate", "list.times", "--checkpoint", "list"]);
            std::fs::rename(d.join("list.times"), d.join("list.txt")).unwrap();
            assert_exit(
                &out,
                2,
                "s17 validate: error: list.times would be written by this run, and it is the known list list.times it reads (the same file)",
            );
            continue;
        }
        let out = s17(d, args);
        if args[0] == "scan" && args.contains(&"s.txt.new") {
            // FILE.new must exist to be the same file.
            assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
            continue;
        }
        let first = format!(
            "s17 {}: error: {output} would be written by this run, and it is the {input} it reads (the same file)",
            args[0]
        );
        assert_exit(&out, 2, &first);
        assert_eq!(files_in(d), before, "{args:?}");
    }
    assert_eq!(
        std::fs::read_to_string(d.join("grids.txt")).unwrap(),
        format!("{QUICK_GRID}\n")
    );
}

/// A grid file with no valid grid leaves no file, so the same command
/// runs once it is fixed; a missing grid file is called so, and a missing
/// output directory is named.
#[test]
fn a_scan_with_nothing_to_search_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("g.txt"), "bad\n").unwrap();
    let out = s17(d, &["scan", "g.txt", "-o", "out.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("s17 scan: error: no valid grid in g.txt (1 bad line): nothing to search, so no output written"),
        "{}",
        stderr(&out)
    );
    assert_eq!(files_in(d), ["g.txt"]);
    std::fs::write(d.join("g.txt"), format!("{QUICK_GRID}\n")).unwrap();
    let out = s17(d, &["scan", "g.txt", "-o", "out.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = s17(d, &["scan", "missing.txt", "-o", "m.txt"]);
    assert_exit(
        &out,
        1,
        "s17 scan: error: cannot read the grid file: missing.txt: ",
    );
    let out = s17(d, &["scan", "g.txt", "-o", "no/dir/m.txt"]);
    assert_exit(
        &out,
        1,
        "s17 scan: error: cannot write no/dir/m.txt: no directory no/dir (make it first",
    );
    assert_eq!(
        files_in(d),
        ["g.txt", "out.txt", "out.txt.done", "out.txt.lock"]
    );
}

/// `-`, or no file, is standard input for `scan` and `validate`, as for
/// every command.
#[test]
fn stdin_is_dash_or_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let grid = format!("{QUICK_GRID}\n");
    for (args, name) in [
        (&["scan", "-", "-o", "a.txt"][..], "a.txt"),
        (&["scan", "-o", "b.txt"], "b.txt"),
    ] {
        let out = run_with_stdin(&mut command(d, args), &grid);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(d.join(name).exists());
    }
    let out = run_with_stdin(&mut command(d, &["scan", "-o", "c.txt"]), "");
    assert_exit(
        &out,
        1,
        "s17 scan: error: no grid in <stdin> (it is empty, or holds only blank and '#' lines)",
    );
    for args in [&["validate", "-"][..], &["validate"]] {
        let out = run_with_stdin(&mut command(d, args), &format!("{FIRST_KNOWN17}\n"));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("1 known 17s expected, 1 found, 0 missed"),
            "{}",
            stderr(&out)
        );
    }
}

/// `validate --checkpoint` has `--force` (to start over) and `--resume`
/// (what a rerun does anyway), as `scan` does.
#[test]
fn validate_checkpoint_has_force_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("list.txt"), format!("{FIRST_KNOWN17}\n")).unwrap();
    std::fs::write(d.join("ck.txt"), "not ours\n").unwrap();
    let out = s17(d, &["validate", "list.txt", "--checkpoint", "ck.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "s17 validate: error: ck.txt exists but has no checkpoint ck.txt.done, so it is not \
             a resumable output; pass --force to overwrite it"
        ),
        "{}",
        stderr(&out)
    );
    let out = s17(
        d,
        &["validate", "list.txt", "--checkpoint", "ck.txt", "--force"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = s17(
        d,
        &["validate", "list.txt", "--checkpoint", "ck.txt", "--resume"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 grid done before, 0 to go"),
        "{}",
        stderr(&out)
    );
    let out = s17(d, &["validate", "list.txt", "--force"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// A campaign plan of slice 28 into `c` (the campaign tests' set-up).
const PLAN_28: [&str; 8] = [
    "campaign",
    "plan",
    "--slices",
    "28",
    "--unit-hours",
    "1",
    "-o",
    "c",
];

/// `campaign merge -o FILE` refuses an existing FILE without --force, as
/// `scan`, `exhaust` and `enumerate` do, and an output that is its known
/// list always.
#[test]
fn campaign_merge_refuses_an_existing_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_eq!(s17(d, &PLAN_28).status.code(), Some(0));
    std::fs::write(d.join("17s.txt"), "mine\n").unwrap();
    let out = s17(d, &["campaign", "merge", "c", "-o", "17s.txt"]);
    assert_exit(
        &out,
        1,
        "s17 campaign merge: error: 17s.txt already exists; pass --force to overwrite it",
    );
    assert_eq!(
        std::fs::read_to_string(d.join("17s.txt")).unwrap(),
        "mine\n"
    );
    let out = s17(
        d,
        &[
            "campaign", "merge", "c", "-o", "17s.txt", "--known", "17s.txt", "--force",
        ],
    );
    assert_exit(
        &out,
        2,
        "s17 campaign merge: error: 17s.txt would be written by this run, and it is the known list 17s.txt it reads",
    );
    // With --force, the merge itself runs (and finds the campaign not run).
    let out = s17(d, &["campaign", "merge", "c", "-o", "17s.txt", "--force"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not started"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(d.join("17s.txt")).unwrap(),
        "mine\n"
    );
}

/// `enumerate --which` on an empty input names it (exit 1), and a listing
/// cut by `head` ends quietly.
#[test]
fn enumerate_names_an_empty_input_and_ends_quietly_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("empty.txt"), "").unwrap();
    let out = s17(d, &["enumerate", "--which", "empty.txt"]);
    assert_exit(
        &out,
        1,
        "s17 enumerate: error: no grid or puzzle in empty.txt (it is empty, or holds only blank and '#' lines)",
    );
    let out = Command::new("sh")
        .current_dir(d)
        .arg("-c")
        .arg(format!(
            "{BIN} enumerate --band 347 | head -1; echo \"exit ${{PIPESTATUS:-0}}\""
        ))
        .output()
        .unwrap();
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    let status = command(d, &["enumerate", "--band", "347"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map(|mut child| {
            drop(child.stdout.take());
            child.wait_with_output().unwrap()
        })
        .unwrap();
    assert_eq!(status.status.code(), Some(0), "{}", stderr(&status));
    assert!(status.stderr.is_empty(), "{}", stderr(&status));
}

/// `search --first` answers "is there one?" on stderr when there is
/// none (not with -q); `--threads` past 4 per core is cut, with a
/// warning; out-of-range campaign values are usage errors.
#[test]
fn every_command_answers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // This grid has no 17 (a random grid).
    let out = s17(d, &["search", "--first", QUICK_GRID]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "s17 search: no 17 in grid 1\n");
    assert!(out.stdout.is_empty());
    let out = s17(d, &["-q", "search", "--first", QUICK_GRID]);
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
    let out = s17(d, &["search", "--threads", "100000", QUICK_GRID]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("s17: warning: --threads 100000 is more than 4 per core; using "),
        "{}",
        stderr(&out)
    );
    let out = s17(
        d,
        &[
            "campaign",
            "plan",
            "--slices",
            "999",
            "--unit-hours",
            "1",
            "-o",
            "c",
        ],
    );
    assert_exit(
        &out,
        2,
        "s17 campaign plan: error: --slices: \"999\": slice 999: slices are 0 to 415",
    );
    assert_eq!(s17(d, &PLAN_28).status.code(), Some(0));
    let out = s17(d, &["campaign", "run", "c", "99"]);
    assert_exit(
        &out,
        2,
        "s17 campaign run: error: no unit 99 in c: the plan has units 0 to 0",
    );
}

/// Sends SIGINT to `child` `secs` after it catches the signal (its
/// handler is in place before any work; a wait on that condition, not on
/// the machine's speed).
fn interrupt_after(child: &mut std::process::Child, secs: f64) {
    crate::common::signals::wait_until_caught(child);
    std::thread::sleep(std::time::Duration::from_secs_f64(secs));
    crate::common::signals::send(child, "INT");
}

/// Ctrl-C during `search` and `campaign run` exits 130 with a line that
/// says what was done and how to go on.
#[test]
fn ctrl_c_says_what_was_done() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let grids: String = (0..200).map(|_| format!("{QUICK_GRID}\n")).collect();
    std::fs::write(d.join("g.txt"), grids).unwrap();
    let mut child = command(d, &["search", "--input", "g.txt", "--threads", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    interrupt_after(&mut child, 0.5);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let text = stderr(&out);
    // The last line (a signal before the command's work is told first).
    let last = text.lines().last().unwrap_or_default();
    assert!(last.starts_with("s17 search: interrupted: "), "{text}");
    assert!(
        text.contains(" of 200 grids searched and printed; "),
        "{text}"
    );
    // A unit of slice 331 (entries of a few seconds each).
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
    assert_eq!(s17(d, &plan).status.code(), Some(0));
    let mut child = command(d, &["campaign", "run", "c", "0", "--threads", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    interrupt_after(&mut child, 0.5);
    let out = child.wait_with_output().unwrap();
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{text}");
    // The last line (a signal before the command's work is told first).
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("s17 campaign run: interrupted: "),
        "{text}"
    );
    assert!(
        text.contains(" of 30 entries checkpointed; `s17 campaign run c 0` continues"),
        "{text}"
    );
}

/// Ctrl-C during `validate` without `--checkpoint` (nothing to go on
/// from) exits 130 with a line that says how far it went and how to make
/// a run that resumes.
#[test]
fn ctrl_c_in_validate_without_checkpoint_says_what_was_done() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let known = crate::common::bin::data("known17.txt");
    let args = [
        "validate",
        known.to_str().unwrap(),
        "--sample",
        "200",
        "--threads",
        "1",
    ];
    let mut child = command(d, &args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    interrupt_after(&mut child, 0.5);
    let out = child.wait_with_output().unwrap();
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{text}");
    let last = text.lines().last().unwrap_or_default();
    assert!(last.starts_with("s17 validate: interrupted: "), "{text}");
    assert!(
        last.ends_with(
            " of 200 grids searched and compared with the list (their lines printed); \
             nothing is kept: with --checkpoint FILE a validation goes on from where it stopped"
        ),
        "{text}"
    );
    assert_eq!(files_in(d), Vec::<String>::new());
}

/// `enumerate --bands` checks its output as the other resumable runs do:
/// a missing directory is named, and nothing is written.
#[test]
fn enumerate_bands_names_a_missing_output_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = s17(d, &["enumerate", "--bands", "0..1", "-o", "no/dir/c.tsv"]);
    assert_exit(
        &out,
        1,
        "s17 enumerate: error: cannot write no/dir/c.tsv: no directory no/dir (make it first",
    );
    assert_eq!(files_in(d), Vec::<String>::new());
}
