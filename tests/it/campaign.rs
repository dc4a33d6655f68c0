//! `s17 campaign`: plans cover every planned entry exactly once, and a small
//! campaign run with the real binary is complete after all its units, gives
//! the same 17s after a unit is cut as a kill would leave it and run again,
//! and has its missing units and misplaced checkpoint lines named.
//!
//! The small campaign: entries 0..10 of slices 28 and 30 and entries
//! 1683764..1683774 of slice 331, which hold one known 17 (at entry
//! 1683769); about 10 CPU seconds in all. (Whole slices 28 and 30 take
//! about 1 and 10 minutes: too long for the suite.)
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): a planned
//! entry in no unit or two, a unit counted done that is not: plans of several
//! lists and unit sizes (the whole catalogue at 1, 12 and 1000 core-hours
//! among them) cover every planned entry once, in order, none empty, each
//! within the bounds; bad lists and hours are refused with the item named; the
//! small campaign run with the real binary is complete and merges to the known
//! 17; a unit cut as a kill leaves it is named partial, refused by `merge`,
//! and run again gives byte-identical merged output; a deleted unit is named
//! and refused; an entry checkpointed outside its unit or twice is reported.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use s17::campaign::{CostTable, Plan, PlanSpec};

use crate::common::SLICE331_17;
use crate::common::bin::s17;
use crate::common::bin::{campaign_merge, temp, text};
use crate::common::fixture;

const SMALL: &str = "28:0..10,30:0..10,331:1683764..1683774";

fn run_on(args: &[&str], dir: &Path, more: &[&str]) -> Output {
    s17(args).arg(dir).args(more).output().unwrap()
}

/// Asserts that a run exited with 1 and said each of `needles`.
fn assert_refused(out: &Output, needles: &[&str]) {
    let said = text(out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    for needle in needles {
        assert!(said.contains(needle), "{needle:?}: {said}");
    }
}

/// Every unit of a plan, in order, covers the planned pieces exactly: each
/// piece's units follow each other from its start to its end, none empty,
/// each within twice H unless a single entry (and within H plus an entry).
fn check_cover(plan: &Plan, spec: &PlanSpec, hours: f64, costs: &CostTable) {
    let target = hours * 3600.0;
    let mut units = plan.units.iter().enumerate().peekable();
    for (k, range) in &spec.pieces {
        let mut at = range.start;
        while at < range.end {
            let (i, u) = units.next().expect("a unit for every planned entry");
            assert_eq!(u.number, i);
            assert_eq!((u.k, u.entries.start), (*k, at), "unit {i}");
            assert!(!u.is_empty(), "unit {i} is empty");
            let per_entry = costs.slices[*k].per_entry;
            assert!(
                u.len() == 1 || u.est_seconds <= 2.0 * target + 0.051,
                "unit {i}: {} s for {} entries",
                u.est_seconds,
                u.len()
            );
            // (units.tsv gives estimates to a tenth of a second)
            assert!(u.est_seconds <= target + per_entry + 0.051, "unit {i}");
            assert!((u.est_seconds - per_entry * u.len() as f64).abs() < 0.051);
            at = u.entries.end;
        }
        assert_eq!(at, range.end, "slice {k}: the units end with the range");
    }
    assert!(units.next().is_none(), "a unit beyond the planned entries");
}

#[test]
fn plans_cover_every_planned_entry_once_in_order() {
    let costs = CostTable::committed();
    for (list, hours) in [
        ("all", 12.0),
        ("all", 1.0),
        ("all", 1000.0),
        ("0..416", 12.0),
        (SMALL, 0.001),
        ("26,28,30", 0.01),
        ("331:1683700..1684300,28", 0.0001),
        ("415,0", 0.0005),
    ] {
        let spec = PlanSpec::parse(list, &costs).unwrap();
        let plan = Plan::new(&spec, hours, &costs).unwrap();
        check_cover(&plan, &spec, hours, &costs);
        let planned: u64 = spec.pieces.iter().map(|(_, r)| r.end - r.start).sum();
        assert_eq!(plan.entries(), planned, "{list}");
    }
    // The whole catalogue, every entry of every slice.
    let spec = PlanSpec::parse("all", &costs).unwrap();
    let plan = Plan::new(&spec, 12.0, &costs).unwrap();
    assert_eq!(plan.entries(), 986_727_817);
}

#[test]
fn plan_writes_the_units_and_the_array_script_and_refuses_bad_input() {
    let dir = temp("campaign", "plan");
    let out = run_on(
        &[
            "campaign",
            "plan",
            "--slices",
            "0..416",
            "--unit-hours",
            "12",
            "-o",
        ],
        &dir,
        &[],
    );
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(" units, ") && said.contains(" core-hours estimated"),
        "{said}"
    );
    assert!(said.contains("largest unit "), "{said}");
    let units = std::fs::read_to_string(dir.join("units.tsv")).unwrap();
    let plan = Plan::parse(&units, Path::new("units.tsv")).unwrap();
    assert!(
        plan.header.contains("slices=0..416 unit-hours=12"),
        "{}",
        plan.header
    );
    assert!(
        said.contains(&format!("{} units", plan.units.len())),
        "{said}"
    );
    let costs = CostTable::committed();
    check_cover(
        &plan,
        &PlanSpec::parse("all", &costs).unwrap(),
        12.0,
        &costs,
    );
    // The array script: chunks of at most 1000 tasks, requeue, one unit each.
    let script = std::fs::read_to_string(dir.join("campaign.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --requeue"), "{script}");
    assert!(
        script.contains("campaign run \"$dir\" \"$unit\""),
        "{script}"
    );
    let chunks = plan.units.len().div_ceil(1000);
    assert_eq!(script.matches("#   sbatch --array=0-").count(), chunks);
    assert!(!script.contains("--array=0-1000 "), "{script}");
    // A plan is not replaced by accident.
    let again = run_on(
        &[
            "campaign",
            "plan",
            "--slices",
            "28",
            "--unit-hours",
            "1",
            "-o",
        ],
        &dir,
        &[],
    );
    assert!(!again.status.success());
    assert!(
        text(&again).contains("already holds a plan"),
        "{}",
        text(&again)
    );
    // Bad lists and hours, each named.
    for (list, hours, why) in [
        (
            "28,416",
            "1",
            "--slices: \"416\": slice 416: slices are 0 to 415",
        ),
        (
            "28:0..81",
            "1",
            "--slices: \"28:0..81\": slice 28 has 80 entries",
        ),
        ("all,28", "1", "--slices: "),
        ("28", "0", "--unit-hours: 0 is not a positive number"),
        ("28", "-2", "--unit-hours: -2 is not a positive number"),
    ] {
        let hours_arg = format!("--unit-hours={hours}");
        let out = run_on(
            &["campaign", "plan", "--slices", list, &hours_arg, "-o"],
            &temp("campaign", "plan-bad"),
            &[],
        );
        // Values out of range are usage errors (issue 43: exit 1 before).
        assert_eq!(out.status.code(), Some(2), "{list} {hours}");
        assert!(text(&out).contains(why), "{list} {hours}: {}", text(&out));
    }
    let out = run_on(
        &[
            "campaign",
            "plan",
            "--slices",
            "28",
            "--unit-hours",
            "x",
            "-o",
        ],
        &temp("campaign", "plan-bad"),
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

/// The small campaign, planned and run to the end once (shared by the
/// tests, which each work on a copy).
fn finished() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        fixture(); // the tables exist before the binary runs
        let dir = temp("campaign", "finished");
        let out = run_on(
            &[
                "campaign",
                "plan",
                "--slices",
                SMALL,
                "--unit-hours",
                "0.001",
                "-o",
            ],
            &dir,
            &[],
        );
        assert!(out.status.success(), "{}", text(&out));
        // Before any run: nothing done, every unit named as not started.
        let out = run_on(&["campaign", "status"], &dir, &[]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let units = units_of(&dir);
        assert!(units > 2, "the small plan has several units");
        assert!(
            text(&out).contains(&format!("not started: 0-{}", units - 1)),
            "{}",
            text(&out)
        );
        for unit in 0..units {
            let out = run_on(
                &["campaign", "run"],
                &dir,
                &[&unit.to_string(), "--threads", "1"],
            );
            assert!(out.status.success(), "unit {unit}: {}", text(&out));
        }
        dir
    })
}

fn units_of(dir: &Path) -> usize {
    let text = std::fs::read_to_string(dir.join("units.tsv")).unwrap();
    Plan::parse(&text, Path::new("units.tsv"))
        .unwrap()
        .units
        .len()
}

/// A copy of the finished campaign in a directory of its own.
fn copy_of_finished(name: &str) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for item in std::fs::read_dir(from).unwrap() {
            let item = item.unwrap();
            let target = to.join(item.file_name());
            if item.file_type().unwrap().is_dir() {
                copy(&item.path(), &target);
            } else {
                std::fs::copy(item.path(), &target).unwrap();
            }
        }
    }
    let dir = temp("campaign", name);
    copy(finished(), &dir);
    dir
}

/// The unit holding entry `entry` of slice `k`.
fn unit_holding(dir: &Path, k: usize, entry: u64) -> usize {
    let text = std::fs::read_to_string(dir.join("units.tsv")).unwrap();
    let plan = Plan::parse(&text, Path::new("units.tsv")).unwrap();
    plan.units
        .iter()
        .find(|u| u.k == k && u.entries.contains(&entry))
        .unwrap()
        .number
}

/// Runs the units of `plan` outside slice 28 (what a replan left), then
/// `campaign status` and `campaign merge`: complete, and the same merged 17.
fn run_all_but_slice_28_and_merge(dir: &Path, plan: &Plan) {
    for u in plan.units.iter().filter(|u| u.k != 28) {
        let out = run_on(
            &["campaign", "run"],
            dir,
            &[&u.number.to_string(), "--threads", "1"],
        );
        assert!(out.status.success(), "unit {}: {}", u.number, text(&out));
    }
    let out = run_on(&["campaign", "status"], dir, &[]);
    assert!(out.status.success(), "{}", text(&out));
    let (out, file) = campaign_merge(dir, &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        format!("{SLICE331_17}\n")
    );
}

#[test]
fn a_finished_campaign_is_complete_and_merges_its_17s() {
    let dir = copy_of_finished("complete");
    let out = run_on(&["campaign", "status"], &dir, &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "units: {} done, 0 partial, 0 not started",
            units_of(&dir)
        )),
        "{said}"
    );
    assert!(said.contains("entries: 30 of 30 checkpointed"), "{said}");
    assert!(said.contains("17s: 1 distinct"), "{said}");
    assert!(
        said.contains("complete: every planned entry is checkpointed exactly once"),
        "{said}"
    );
    // Per slice: each of the three ranges whole, its units, the 17 in 331.
    let out = run_on(&["campaign", "status"], &dir, &["--slices"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let rows: Vec<Vec<&str>> = said
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.len() == 10 && f[0].parse::<usize>().is_ok())
        .collect();
    assert_eq!(rows.len(), 3, "{said}");
    let plan = Plan::parse(
        &std::fs::read_to_string(dir.join("units.tsv")).unwrap(),
        Path::new("units.tsv"),
    )
    .unwrap();
    for (row, (k, puzzles)) in rows.iter().zip([("28", "0"), ("30", "0"), ("331", "1")]) {
        let units = plan.units.iter().filter(|u| u.k.to_string() == k).count();
        assert_eq!(row[..3], [k, &units.to_string(), "10"], "{said}");
        assert_eq!((row[3], row[5]), ("10", puzzles), "{said}");
    }
    let known = concat!(env!("CARGO_MANIFEST_DIR"), "/data/known17.txt");
    let (out, file) = campaign_merge(&dir, &["--known", known]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        format!("{SLICE331_17}\n")
    );
    let mut new = file.as_os_str().to_owned();
    new.push(".new");
    assert_eq!(std::fs::read_to_string(PathBuf::from(new)).unwrap(), "");
    for line in ["slice 28: 0 17s", "slice 30: 0 17s", "slice 331: 1 17\n"] {
        assert!(said.contains(line), "{said}");
    }
    // A unit run again searches nothing (entry 0 of slice 28 included: it
    // is kept on resume like any other).
    let out = run_on(&["campaign", "run"], &dir, &["0", "--threads", "1"]);
    assert!(
        text(&out).contains(": 0 entries searched"),
        "{}",
        text(&out)
    );
    assert!(run_on(&["campaign", "status"], &dir, &[]).status.success());
}

#[test]
fn a_unit_cut_as_a_kill_leaves_it_and_run_again_gives_the_same_17s() {
    let dir = copy_of_finished("killed");
    let (out, file) = campaign_merge(&dir, &[]);
    assert!(out.status.success(), "{}", text(&out));
    let straight = std::fs::read(&file).unwrap();
    // The unit with the 17, cut as a kill in the middle of writing leaves
    // it: the checkpoint after its first entry with half a line more, the
    // output and cost lines cut in the middle of the 17's line.
    let unit = unit_holding(&dir, 331, 1683769);
    let out_path = dir.join(format!("out/{unit}.txt"));
    let done_path = dir.join(format!("out/{unit}.txt.done"));
    let cost_path = dir.join(format!("out/{unit}.txt.cost"));
    let done = std::fs::read_to_string(&done_path).unwrap();
    let lines: Vec<&str> = done.lines().collect();
    assert!(lines.len() > 3, "{done}");
    std::fs::write(
        &done_path,
        format!("{}\n{}\n{}", lines[0], lines[1], &lines[2][..3]),
    )
    .unwrap();
    let output = std::fs::read(&out_path).unwrap();
    assert!(!output.is_empty());
    std::fs::write(&out_path, &output[..output.len() / 2]).unwrap();
    let costs = std::fs::read(&cost_path).unwrap();
    std::fs::write(&cost_path, &costs[..costs.len() - 3]).unwrap();

    let out = run_on(&["campaign", "status"], &dir, &[]);
    assert_refused(&out, &[&format!("partial: {unit}\n"), "17s: 0 distinct"]);
    let (out, _) = campaign_merge(&dir, &[]);
    assert_refused(&out, &[&format!("partial units: {unit}")]);
    let (out, _) = campaign_merge(&dir, &["--partial"]);
    assert!(out.status.success(), "{}", text(&out));

    let out = run_on(
        &["campaign", "run"],
        &dir,
        &[&unit.to_string(), "--threads", "2"],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("resuming unit"), "{}", text(&out));
    // The resume line of every resumable run (cli::resumable), naming
    // what the repair dropped: the output's half line.
    assert!(
        text(&out).contains(" of unfinished entries, a partial last line"),
        "{}",
        text(&out)
    );
    assert!(run_on(&["campaign", "status"], &dir, &[]).status.success());
    let (out, file) = campaign_merge(&dir, &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read(&file).unwrap(), straight);
    // Every cost line is whole again.
    let costs = std::fs::read_to_string(&cost_path).unwrap();
    assert!(costs.lines().all(|l| l.split('\t').count() == 4), "{costs}");
}

#[test]
fn a_deleted_unit_is_named_and_refused_by_merge() {
    let dir = copy_of_finished("deleted");
    let unit = unit_holding(&dir, 30, 7);
    for ext in ["txt", "txt.done", "txt.cost"] {
        std::fs::remove_file(dir.join(format!("out/{unit}.{ext}"))).unwrap();
    }
    let out = run_on(&["campaign", "status"], &dir, &[]);
    assert_refused(&out, &[&format!("not started: {unit}\n"), "incomplete"]);
    let (out, file) = campaign_merge(&dir, &[]);
    assert_refused(&out, &[&format!("units not started: {unit}")]);
    assert!(!file.exists(), "nothing merged");
}

#[test]
fn checkpoint_lines_outside_their_unit_or_twice_are_errors() {
    let dir = copy_of_finished("misplaced");
    let unit = unit_holding(&dir, 28, 0);
    let done_path = dir.join(format!("out/{unit}.txt.done"));
    let mut done = std::fs::read_to_string(&done_path).unwrap();
    done.push_str("70\t0\n");
    std::fs::write(&done_path, &done).unwrap();
    let out = run_on(&["campaign", "status"], &dir, &[]);
    let outside =
        format!("error: unit {unit}: entry 70 is checkpointed outside the unit's entries 0..");
    assert_refused(&out, &[&outside]);
    let (out, _) = campaign_merge(&dir, &[]);
    assert_refused(&out, &["entry 70 is checkpointed outside"]);

    // An entry of the unit twice.
    let first = done.lines().nth(1).unwrap().to_string();
    let done = done.replace("70\t0\n", &format!("{first}\n"));
    std::fs::write(&done_path, &done).unwrap();
    let entry = first.split('\t').next().unwrap();
    let out = run_on(&["campaign", "status"], &dir, &[]);
    assert_refused(
        &out,
        &[&format!(
            "error: unit {unit}: entry {entry} is checkpointed twice"
        )],
    );
    // Running the unit again repairs it.
    let out = run_on(
        &["campaign", "run"],
        &dir,
        &[&unit.to_string(), "--threads", "1"],
    );
    assert!(out.status.success(), "{}", text(&out));
    let out = run_on(&["campaign", "status"], &dir, &[]);
    assert!(out.status.success(), "{}", text(&out));
    let puzzles: BTreeSet<String> = std::fs::read_to_string(campaign_merge(&dir, &[]).1)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(puzzles, BTreeSet::from([SLICE331_17.to_string()]));
}

/// `campaign plan --replan`: units not started are cut again by costs
/// corrected from the `.cost` records (measured over planned per slice,
/// pooled with the campaign-wide ratio; computed here from the records
/// independently), started units are kept as they were, every entry is
/// still planned once, and the campaign run to its end merges to the same
/// 17 as the uninterrupted one.
#[test]
fn replan_cuts_what_is_left_by_the_measured_costs_and_merges_the_same() {
    let dir = copy_of_finished("replan");
    let read = |dir: &Path| {
        Plan::parse(
            &std::fs::read_to_string(dir.join("units.tsv")).unwrap(),
            Path::new("units.tsv"),
        )
        .unwrap()
    };
    let before = read(&dir);
    // Units of slices 30 and 331 not started: their files removed.
    let gone: Vec<usize> = before
        .units
        .iter()
        .filter(|u| u.k != 28)
        .map(|u| u.number)
        .collect();
    assert!(!gone.is_empty());
    for &n in &gone {
        for ext in ["", ".done", ".cost", ".lock", ".new"] {
            let _ = std::fs::remove_file(dir.join(format!("out/{n}.txt{ext}")));
        }
    }
    // The oracle: slice 28's measured and planned seconds from its records.
    let costs = CostTable::committed();
    let (mut lines, mut secs) = (0.0, 0.0);
    for u in before.units.iter().filter(|u| u.k == 28) {
        let text = std::fs::read_to_string(dir.join(format!("out/{}.txt.cost", u.number))).unwrap();
        for line in text.lines() {
            lines += 1.0;
            secs += line.split('\t').nth(3).unwrap().parse::<f64>().unwrap();
        }
    }
    assert_eq!(lines, 10.0);
    let ratio = secs / (lines * costs.slices[28].per_entry);
    let out = run_on(&["campaign", "plan", "--replan", "-o"], &dir, &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("1 slice"), "{said}");
    assert!(said.contains("slice 28: 10 entries"), "{said}");
    let after = read(&dir);
    assert!(after.header.contains("replanned: "), "{}", after.header);
    assert_eq!(after.goal, before.goal);
    // Started units unchanged; the others cover the same entries again.
    for u in before.units.iter().filter(|u| u.k == 28) {
        assert_eq!(after.units[u.number], *u);
    }
    let spec = PlanSpec::parse(SMALL, &costs).unwrap();
    let cover: BTreeSet<(usize, u64)> = after
        .units
        .iter()
        .flat_map(|u| u.entries.clone().map(move |e| (u.k, e)))
        .collect();
    let want: BTreeSet<(usize, u64)> = spec
        .pieces
        .iter()
        .flat_map(|(k, r)| r.clone().map(move |e| (*k, e)))
        .collect();
    assert_eq!(cover, want);
    assert_eq!(after.entries(), 30, "no entry planned twice");
    assert!(after.units.len() >= before.units.len());
    // The new units of slice 30: the table's cost times the campaign-wide
    // ratio (slice 28's alone is the whole campaign's measure).
    for u in after.units.iter().filter(|u| u.k == 30) {
        let want = costs.slices[30].per_entry * ratio * u.len() as f64;
        assert!(
            (u.est_seconds - want).abs() <= 0.051 + 1e-6 * want,
            "{u:?}: {want}"
        );
    }
    // Run what is left: complete, and the same merged 17 as before.
    run_all_but_slice_28_and_merge(&dir, &after);
    // --replan with --slices or --force is refused as usage.
    let out = run_on(
        &["campaign", "plan", "--replan", "--slices", "28", "-o"],
        &dir,
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

/// The entries a plan's units cover, each unit's once.
fn covered(plan: &Plan) -> Vec<(usize, u64)> {
    let mut all: Vec<(usize, u64)> = plan
        .units
        .iter()
        .flat_map(|u| u.entries.clone().map(move |e| (u.k, e)))
        .collect();
    all.sort_unstable();
    all
}

#[test]
fn per_entry_plans_and_replans_cover_the_entries_once_and_merge_the_same() {
    let read = |dir: &Path| {
        Plan::parse(
            &std::fs::read_to_string(dir.join("units.tsv")).unwrap(),
            Path::new("units.tsv"),
        )
        .unwrap()
    };
    let costs = CostTable::committed();
    let spec = PlanSpec::parse(SMALL, &costs).unwrap();
    let want: Vec<(usize, u64)> = spec
        .pieces
        .iter()
        .flat_map(|(k, r)| r.clone().map(move |e| (*k, e)))
        .collect();
    // A fresh plan by each entry's bands 3: every entry once, in order;
    // each slice's planned cost its table's.
    let dir = temp("campaign", "per-entry");
    let out = run_on(
        &[
            "campaign",
            "plan",
            "--slices",
            SMALL,
            "--unit-hours",
            "0.001",
            "--per-entry",
            "-o",
        ],
        &dir,
        &[],
    );
    assert!(out.status.success(), "{}", text(&out));
    let plan = read(&dir);
    assert!(
        plan.header.contains("per entry by its bands 3"),
        "{}",
        plan.header
    );
    assert_eq!(covered(&plan), want);
    for (i, u) in plan.units.iter().enumerate() {
        assert_eq!(u.number, i);
        assert!(u.len() == 1 || u.est_seconds <= 1.5 * 3.6 + 0.051, "{u:?}");
    }
    for (k, r) in &spec.pieces {
        let sum: f64 = plan
            .units
            .iter()
            .filter(|u| u.k == *k)
            .map(|u| u.est_seconds)
            .sum();
        let table = costs.slices[*k].per_entry * (r.end - r.start) as f64;
        assert!((sum / table - 1.0).abs() < 0.05, "slice {k}: {sum} {table}");
    }
    // A running campaign re-planned per entry: started units kept, the
    // rest cut again, every entry once; run to the end it merges the same.
    let dir = copy_of_finished("replan-per-entry");
    let before = read(&dir);
    for u in before.units.iter().filter(|u| u.k != 28) {
        for ext in ["", ".done", ".cost", ".lock", ".new"] {
            let _ = std::fs::remove_file(dir.join(format!("out/{}.txt{ext}", u.number)));
        }
    }
    let out = run_on(
        &["campaign", "plan", "--replan", "--per-entry", "-o"],
        &dir,
        &[],
    );
    assert!(out.status.success(), "{}", text(&out));
    let after = read(&dir);
    assert!(
        after
            .header
            .contains("per entry by its bands 3; replanned: "),
        "{}",
        after.header
    );
    for u in before.units.iter().filter(|u| u.k == 28) {
        assert_eq!(after.units[u.number], *u);
    }
    assert_eq!(covered(&after), want);
    run_all_but_slice_28_and_merge(&dir, &after);
}
