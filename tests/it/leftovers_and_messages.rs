//! Leftovers and messages (first found by a new user's round 4, issue
//! 56): a resumed run removes the temporary files a kill left beside its
//! outputs (and only those); a flag merge says what its words mean where
//! it prints them; a missing directory is named; `--force` never reaches
//! the workers' script or claims; a goal without a cost table is refused
//! with the way to plan it.

use std::path::Path;

use crate::common::bin::{DEMO_ENTRY, DEMO_EXHAUST, files_in, plan_in, s17, stderr, temp, text};

/// The 17 entry of README's campaign example (a fraction of a second).
const ENTRY: &str = DEMO_ENTRY;

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = s17(args).current_dir(dir).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    text(&out)
}

/// A fresh directory `tag` holding README's one-entry campaign `demo`,
/// planned and its one unit run.
fn demo_run(tag: &str) -> std::path::PathBuf {
    let d = temp("leftovers_and_messages", tag);
    std::fs::create_dir_all(&d).unwrap();
    plan_in(&d, "demo", ENTRY, &[]);
    ok(&d, &["campaign", "run", "demo", "0", "--threads", "1"]);
    d
}

/// What `write_atomically` leaves when a process dies between filling a
/// temporary and renaming it (`NAME.tmpPID.K`), of a process long gone.
const STALE: [&str; 4] = [
    "0.txt.tmp4000001.0",
    "0.txt.done.tmp4000001.1",
    "0.txt.part.done.tmp4000001.2",
    "0.txt.cost.tmp4000001.3",
];

#[test]
fn a_resumed_run_removes_the_temporaries_a_kill_left_and_nothing_else() {
    let d = demo_run("temporaries");
    let out = d.join("demo/out");
    let done = files_in(&out);
    let results = std::fs::read_to_string(out.join("0.txt")).unwrap();
    assert_eq!(results.lines().count(), 1, "the entry's 17: {results}");
    // A unit finished, then the leftovers of an earlier killed run, and
    // files of other names that only look alike.
    let alike = [
        "0.txt.tmpnotes",
        "10.txt.tmp4000001.0",
        "0.txt.old.tmp4000001.0",
    ];
    for name in STALE.iter().chain(&alike) {
        std::fs::write(out.join(name), "half a file").unwrap();
    }
    let said = ok(&d, &["campaign", "run", "demo", "0", "--threads", "1"]);
    let mut expected: Vec<String> = done.clone();
    expected.extend(alike.iter().map(|s| s.to_string()));
    expected.sort();
    assert_eq!(files_in(&out), expected, "{said}");
    assert_eq!(std::fs::read_to_string(out.join("0.txt")).unwrap(), results);
    let status = ok(&d, &["campaign", "status", "demo"]);
    assert!(
        status.contains("complete: every planned entry is checkpointed exactly once"),
        "{status}"
    );

    // exhaust --resume alike, before its first entry.
    ok(&d, &DEMO_EXHAUST);
    for name in ["e.txt.tmp4000001.0", "e.txt.done.tmp4000001.5"] {
        std::fs::write(d.join(name), "half a file").unwrap();
    }
    ok(&d, &[&DEMO_EXHAUST[..], &["--resume"]].concat());
    assert!(!d.join("e.txt.tmp4000001.0").exists() && !d.join("e.txt.done.tmp4000001.5").exists());
    assert_eq!(std::fs::read_to_string(d.join("e.txt")).unwrap(), results);
}

#[test]
fn a_flag_merge_says_what_covered_and_hi_visit_mean_and_where_the_others_are() {
    let d = temp("leftovers_and_messages", "flag-words");
    std::fs::create_dir_all(&d).unwrap();
    // One entry at 18 --first: its grid's hi visit lies elsewhere, so the
    // 18 it finds is flagged outside the campaign.
    plan_in(&d, "f18", ENTRY, &["--clues", "18", "--first"]);
    ok(&d, &["campaign", "run", "f18", "0", "--threads", "1"]);
    let said = ok(&d, &["campaign", "merge", "f18", "-o", "flags"]);
    assert!(
        said.contains("0 covered (all three visits searched: the flag exact)"),
        "{said}"
    );
    assert!(
        said.contains(
            "also 1 grid flagged by a mid or lo visit whose hi visit (the visit that lists and \
             files an ED grid) is outside the campaign: in no flag file, the puzzle only in f18/out"
        ),
        "{said}"
    );
    assert!(said.contains("\"The words of that output\""), "{said}");
    let commands =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("COMMANDS.md")).unwrap();
    assert!(commands.contains("The words of that output"));
    // The puzzle is there, as said: one minimal 18.
    let unit = std::fs::read_to_string(d.join("f18/out/0.txt")).unwrap();
    let puzzle = unit
        .lines()
        .next()
        .expect("the 18")
        .split('\t')
        .nth(1)
        .unwrap();
    assert_eq!(
        puzzle.bytes().filter(|b| b.is_ascii_digit()).count(),
        18,
        "{unit}"
    );
}

#[test]
fn a_directory_to_write_into_is_named_when_missing_or_a_file() {
    let d = temp("leftovers_and_messages", "dirs");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("pf"), "mine").unwrap();
    let run = |args: &[&str]| s17(args).current_dir(&d).output().unwrap();
    let out = run(&["man", "--dir", "nodir6"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "s17 man: error: cannot write into nodir6: no directory nodir6 (make it first)\n"
    );
    for args in [
        &["man", "--dir", "pf"][..],
        &[
            "campaign",
            "plan",
            "--slices",
            ENTRY,
            "--unit-hours",
            "12",
            "-o",
            "pf",
        ],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&out).contains(
                "error: -o pf: a file, not a directory (give a directory, or a name that does \
                 not exist yet)"
            ) || stderr(&out).contains("error: --dir pf: a file, not a directory"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_eq!(std::fs::read_to_string(d.join("pf")).unwrap(), "mine");
    assert_eq!(files_in(&d), ["pf"]);
}

#[test]
fn force_never_reaches_the_workers_script_nor_their_claims() {
    let d = demo_run("work-files");
    std::fs::create_dir_all(d.join("demo/claims")).unwrap();
    std::fs::write(d.join("demo/claims/0.done"), "done\n").unwrap();
    let script = std::fs::read(d.join("demo/work.sbatch")).unwrap();
    for output in ["demo/work.sbatch", "demo/claims/0.done", "demo/claims"] {
        let out = s17(&["campaign", "merge", "demo", "-o", output, "--force"])
            .current_dir(&d)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{output}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("it is a file of the campaign demo"),
            "{output}: {}",
            stderr(&out)
        );
    }
    assert_eq!(std::fs::read(d.join("demo/work.sbatch")).unwrap(), script);
    assert_eq!(
        std::fs::read_to_string(d.join("demo/claims/0.done")).unwrap(),
        "done\n"
    );
}

/// A campaign of a goal without a committed cost table is refused as bad
/// input (exit 2, nothing made), naming the `--costs FILE` way to plan it.
#[test]
fn a_goal_without_a_cost_table_is_refused_with_the_way_to_plan_it() {
    let d = temp("leftovers_and_messages", "no-costs");
    std::fs::create_dir_all(&d).unwrap();
    let args = [
        "campaign",
        "plan",
        "--slices",
        "28",
        "--clues",
        "19",
        "--unit-hours",
        "1",
        "-o",
        "c19",
    ];
    let out = s17(&args).current_dir(&d).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("no cost table for a campaign of 19s"),
        "{said}"
    );
    assert!(said.contains("--costs data/ed-costs-19.tsv"), "{said}");
    assert!(!d.join("c19").exists(), "nothing made");
}
