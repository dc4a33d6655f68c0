//! The one output rule (issue 56), case by case on the real binary: an
//! output or a companion it writes (`.lock`, `.done`, `.new`, `.times`,
//! `.cost`) is never an input, a campaign's own file or a file another
//! run holds locked, `--force` or not; `-o -` is refused where a command
//! writes a file; `-` is stdin for `search`; a missing directory is named
//! alike everywhere and never made. Each case: the exit code, the message,
//! and the inputs intact, no file left.

use std::path::Path;

use crate::common::bin::{DEMO_ENTRY, DEMO_EXHAUST, files_in, plan_in, stderr};
use crate::common::bin::{data, run_at, run_with_stdin, s17_at};

/// Runs `args` in `dir` and checks the exit `code`, that stderr's first
/// line holds `message`, and that the files of `dir` are as before, each
/// with its content.
fn refused(dir: &Path, args: &[&str], code: i32, message: &str) {
    let before: Vec<(String, Vec<u8>)> = files_in(dir)
        .into_iter()
        .filter(|n| dir.join(n).is_file())
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).unwrap();
            (n, bytes)
        })
        .collect();
    let names = files_in(dir);
    let out = run_at(dir, args);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {text}");
    let first = text.lines().next().unwrap_or_default();
    assert!(first.contains(message), "{args:?}: {text}");
    assert_eq!(files_in(dir), names, "{args:?} left a file");
    for (name, bytes) in before {
        assert_eq!(
            std::fs::read(dir.join(&name)).unwrap(),
            bytes,
            "{args:?}: {name} changed"
        );
    }
}

fn grids(dir: &Path, name: &str, n: usize) {
    let out = run_at(dir, &["generate", "-n", &n.to_string(), "--seed", "56"]);
    std::fs::write(dir.join(name), out.stdout).unwrap();
}

#[test]
fn a_companion_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    grids(d, "f2.txt.lock", 1);
    refused(
        d,
        &["scan", "f2.txt.lock", "-o", "f2.txt", "--force"],
        2,
        "s17 scan: error: f2.txt.lock would be written by this run, and it is the grid file \
         f2.txt.lock it reads (the same file): give the output another name",
    );
    let known: String = std::fs::read_to_string(data("known17.txt"))
        .unwrap()
        .lines()
        .take(3)
        .map(|l| format!("{l}\n"))
        .collect();
    for companion in ["lock", "done", "new", "times"] {
        let name = format!("v.ckpt.{companion}");
        std::fs::write(d.join(&name), &known).unwrap();
        refused(
            d,
            &["validate", &name, "--checkpoint", "v.ckpt", "--force"],
            2,
            &format!("{name} would be written by this run, and it is the known list {name}"),
        );
        std::fs::remove_file(d.join(&name)).unwrap();
    }
    std::fs::write(d.join("e.txt.cost"), &known).unwrap();
    refused(
        d,
        &[
            "exhaust",
            "--band",
            "331",
            "--entries",
            "0..1",
            "-o",
            "e.txt",
            "--known",
            "e.txt.cost",
        ],
        2,
        "e.txt.cost would be written by this run, and it is the known list e.txt.cost",
    );
}

#[test]
fn a_campaign_s_own_files_and_a_locked_output_are_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    plan_in(d, "demo", "331:1683760..1683761", &[]);
    assert!(
        run_at(d, &["campaign", "run", "demo", "0", "-q"])
            .status
            .success()
    );
    let demo = d.join("demo");
    for own in [
        "demo/units.tsv",
        "demo/campaign.sbatch",
        "demo/out/0.txt",
        "demo/out/0.txt.done",
        "demo/logs/x.txt",
    ] {
        refused(
            &demo,
            &[
                "campaign",
                "merge",
                ".",
                "-o",
                &own.replacen("demo/", "", 1),
                "--force",
            ],
            2,
            "would be written by this run, and it is a file of the campaign .",
        );
    }
    let out = run_at(d, &["campaign", "status", "demo"]);
    assert!(out.status.success(), "{}", stderr(&out));
    refused(
        d,
        &[
            "campaign",
            "plan",
            "--slices",
            "28",
            "--unit-hours",
            "1",
            "-o",
            "demo/out",
            "--force",
        ],
        2,
        "demo/out would be written by this run, and it is a file of the campaign demo",
    );

    // Another run's lock (held here as a running scan holds it).
    std::fs::write(d.join("busy.txt"), "1\tpuzzle\n").unwrap();
    let lock = s17::output::OutputLock::acquire(&d.join("busy.txt")).unwrap();
    let pid = std::process::id();
    for output in ["busy.txt", "busy.txt.done", "busy.txt.new"] {
        refused(
            d,
            &["campaign", "merge", "demo", "-o", output, "--force"],
            1,
            &format!("busy.txt is in use by another run (process {pid}, lock busy.txt.lock)"),
        );
    }
    drop(lock);
    let out = run_at(
        d,
        &["campaign", "merge", "demo", "-o", "busy.txt", "--force"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn dash_is_stdin_for_grids_and_no_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    grids(d, "g.txt", 1);
    let message = "-: this command writes a file, not standard output";
    refused(d, &["scan", "g.txt", "-o", "-"], 2, message);
    refused(d, &["exhaust", "--band", "331", "-o", "-"], 2, message);
    refused(
        d,
        &["enumerate", "--bands", "28..29", "-o", "-"],
        2,
        message,
    );
    refused(
        d,
        &["validate", "g.txt", "--checkpoint", "-"],
        2,
        "--checkpoint -: ",
    );
    refused(d, &["man", "--dir", "-"], 2, "--dir -: ");

    let grid = std::fs::read_to_string(d.join("g.txt")).unwrap();
    let known = std::fs::read_to_string(data("known17.txt")).unwrap();
    let first = known.lines().next().unwrap();
    let solution = run_with_stdin(&mut s17_at(d, &["solve"]), &format!("{first}\n"));
    let solution = String::from_utf8(solution.stdout).unwrap();
    let out = run_with_stdin(
        &mut s17_at(d, &["search", "-", "--first"]),
        &format!("{grid}{solution}"),
    );
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    // Two grids from stdin, numbered; the first holds no 17 (seed 56).
    let lines = String::from_utf8(out.stdout).unwrap();
    assert!(lines.starts_with("2\t"), "{lines}{text}");
    assert!(text.contains("s17 search: no 17 in grid 1"), "{text}");
}

#[test]
fn a_missing_directory_is_named_alike_and_never_made() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    grids(d, "g.txt", 1);
    let named = |output: &str, dir: &str| {
        format!(
            "cannot write {output}: no directory {dir} (make it first, or give a file in an \
             existing directory)"
        )
    };
    let cases: [(&[&str], &str, &str); 5] = [
        (&["scan", "g.txt", "-o", "no/f.txt"], "no/f.txt", "no"),
        (
            &["exhaust", "--band", "331", "-o", "no/e.txt"],
            "no/e.txt",
            "no",
        ),
        (&["validate", "g.txt", "--checkpoint", "no/v"], "no/v", "no"),
        (
            &["enumerate", "--bands", "28..29", "-o", "no/c.tsv"],
            "no/c.tsv",
            "no",
        ),
        (
            &[
                "campaign",
                "plan",
                "--slices",
                "28",
                "--unit-hours",
                "1",
                "-o",
                "a/b/c",
            ],
            "a/b/c",
            "a/b",
        ),
    ];
    for (args, output, missing) in cases {
        refused(d, args, 1, &named(output, missing));
    }
    // A directory to write into, named the same way.
    refused(
        d,
        &["man", "--dir", "no6"],
        1,
        "cannot write into no6: no directory no6 (make it first)",
    );
}

/// `campaign merge -o -` prints what `-o FILE` writes (and takes no known
/// list, whose new 17s go beside a file); a merge into a file holds its
/// lock as `scan` does (the lock file names the merge's process); `status
/// --slices` heads its puzzle column by the campaign's goal.
#[test]
fn campaign_merge_prints_with_dash_and_locks_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    plan_in(d, "demo", DEMO_ENTRY, &[]);
    let out = run_at(d, &["campaign", "run", "demo", "0", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut child = s17_at(d, &["campaign", "merge", "demo", "-o", "17s.txt"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    assert!(child.wait().unwrap().success());
    let file = std::fs::read_to_string(d.join("17s.txt")).unwrap();
    assert_eq!(file, format!("{}\n", crate::common::SLICE331_17));
    let lock = std::fs::read_to_string(d.join("17s.txt.lock")).unwrap();
    assert_eq!(
        lock.trim(),
        pid.to_string(),
        "the merge held 17s.txt's lock"
    );

    let out = run_at(d, &["campaign", "merge", "demo", "-o", "-"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8(out.stdout.clone()).unwrap(), file);
    assert!(
        stderr(&out).contains("into standard output"),
        "{}",
        stderr(&out)
    );
    assert!(!d.join("-").exists() && !d.join("-.lock").exists());
    let known = data("known17.txt");
    refused(
        d,
        &[
            "campaign",
            "merge",
            "demo",
            "-o",
            "-",
            "--known",
            known.to_str().unwrap(),
        ],
        2,
        "-o - with --known",
    );

    plan_in(d, "c18", "28:0..2", &["--clues", "18"]);
    for (campaign, goal) in [("demo", "17s"), ("c18", "18s")] {
        let out = run_at(d, &["campaign", "status", campaign, "--slices"]);
        let said = String::from_utf8(out.stdout).unwrap();
        let head = said
            .lines()
            .find(|l| l.trim_start().starts_with("slice "))
            .unwrap_or_else(|| panic!("{said}"));
        assert_eq!(
            head.split_whitespace()
                .filter(|w| w.ends_with("s") && w.len() == 3)
                .collect::<Vec<_>>(),
            [goal],
            "{head}"
        );
    }
}

/// A file of the user's that bears the name of an output's lock
/// (`e.txt.lock`, not an input of the run) is never overwritten by the
/// lock's process id, `--force` or not; a lock file left by an earlier
/// run (a process id) is taken as before. Found by the transcript of
/// issue 56 (h56): `exhaust -o e.txt` wrote its pid over `e.txt.lock`.
#[test]
fn a_file_named_as_a_lock_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    grids(d, "g.txt", 1);
    std::fs::copy(d.join("g.txt"), d.join("e.txt.lock")).unwrap();
    std::fs::copy(d.join("g.txt"), d.join("f.txt.lock")).unwrap();
    let not_a_lock = |lock: &str| format!("{lock} exists and is no lock file of s17");
    let exhaust = DEMO_EXHAUST;
    refused(d, &exhaust, 2, &not_a_lock("e.txt.lock"));
    let forced: Vec<&str> = exhaust.iter().copied().chain(["--force"]).collect();
    refused(d, &forced, 2, &not_a_lock("e.txt.lock"));
    refused(
        d,
        &["scan", "g.txt", "-o", "f.txt"],
        2,
        &not_a_lock("f.txt.lock"),
    );
    let known = data("known17.txt");
    let known = known.to_str().unwrap();
    refused(
        d,
        &["validate", known, "--checkpoint", "f.txt", "--force"],
        2,
        &not_a_lock("f.txt.lock"),
    );
    // A lock file of an earlier run (killed: its process id) is no refusal.
    std::fs::write(d.join("h.txt.lock"), "4194300\n").unwrap();
    let out = run_at(d, &["scan", "g.txt", "-o", "h.txt", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// An output file that is an existing directory is refused before
/// anything is made (no `DIR.lock` left), as `scan`, `exhaust` and
/// `validate` refuse it (`input_edges.rs`): a 17 campaign's own directory
/// given to `merge -o` said "Is a directory (os error 21)" and left
/// `demo.lock` (h56).
#[test]
fn a_directory_as_an_output_file_is_refused_leaving_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    grids(d, "g.txt", 1);
    plan_in(d, "demo", DEMO_ENTRY, &[]);
    let out = run_at(d, &["campaign", "run", "demo", "0", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::create_dir(d.join("sub")).unwrap();
    let merge = ["campaign", "merge", "demo", "-o", "demo", "--force"];
    let is_dir = |name: &str| format!("{name} is a directory; give the output a file name");
    refused(d, &merge, 1, &is_dir("demo"));
    let merge = ["campaign", "merge", "demo", "-o", "sub", "--force"];
    refused(d, &merge, 1, &is_dir("sub"));
    let bitmap = ["campaign", "bitmap", "demo", "-o", "sub", "--force"];
    refused(d, &bitmap, 1, &is_dir("sub"));
}

/// The writers outside the campaign's run: `campaign bitmap -o`,
/// `catalogue build --dir` and `catalogue install --dir` made missing
/// parents (`no/`), which no help says (h56); each is refused naming the
/// directory, as the others are, and makes nothing.
#[test]
fn bitmap_and_catalogue_make_no_missing_parent() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    plan_in(d, "f17", DEMO_ENTRY, &["--first"]);
    for args in [
        &["campaign", "run", "f17", "0", "-q"][..],
        &["campaign", "merge", "f17", "-o", "flags", "-q"],
    ] {
        let out = run_at(d, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let named = |output: &str| {
        format!(
            "cannot write {output}: no directory no (make it first, or give a file in an \
             existing directory)"
        )
    };
    let bitmap = [
        "campaign",
        "bitmap",
        "flags",
        "-o",
        "no/b.bits",
        "--partial",
    ];
    refused(d, &bitmap, 1, &named("no/b.bits"));
    let build = ["catalogue", "build", "--bands", "1..1", "--dir", "no/x"];
    refused(d, &build, 1, &named("no/x"));
    let from = data("catalogue");
    let install = [
        "catalogue",
        "install",
        "--from",
        from.to_str().unwrap(),
        "--dir",
        "no/x",
    ];
    refused(d, &install, 1, &named("no/x"));
    assert!(!d.join("no").exists());
}

/// A `FILE.new` of no run (neither `FILE` nor `FILE.done` there) is not
/// replaced by a new run's new 17s, `--resume` or not; `--force` starts
/// over as it says; nor is a `FILE.times` of no run appended to by
/// `validate --checkpoint FILE`. h56: `scan g.txt -o f.txt --known K`
/// emptied a `f.txt.new` of the user's, exit 0; `validate` appended a
/// line to a `v.ckpt.times`.
#[test]
fn a_stray_new_file_is_not_replaced_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    grids(d, "g.txt", 1);
    std::fs::copy(d.join("g.txt"), d.join("f.txt.new")).unwrap();
    let known = data("known17.txt");
    let known = known.to_str().unwrap();
    let stray = "f.txt.new exists, but f.txt and its checkpoint do not";
    for resume in [&[][..], &["--resume"]] {
        let args: Vec<&str> = ["scan", "g.txt", "-o", "f.txt", "--known", known]
            .into_iter()
            .chain(resume.iter().copied())
            .collect();
        refused(d, &args, 1, stray);
    }
    let forced = [
        "scan", "g.txt", "-o", "f.txt", "--known", known, "--force", "-q",
    ];
    let out = run_at(d, &forced);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // The same for `validate --checkpoint`'s `FILE.times` (appended to).
    std::fs::copy(d.join("g.txt"), d.join("v.ckpt.times")).unwrap();
    let validate = [
        "validate",
        known,
        "--sample",
        "1",
        "--checkpoint",
        "v.ckpt",
        "-q",
    ];
    let stray = "v.ckpt.times exists, but v.ckpt and its checkpoint do not";
    refused(d, &validate, 1, stray);
    let forced: Vec<&str> = validate.into_iter().chain(["--force"]).collect();
    let out = run_at(d, &forced);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
