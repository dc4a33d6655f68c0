//! `campaign status`: how far the campaign is, as a report on stdout.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use anyhow::Context;

use s17::campaign::{Status, UnitState, status::name_units};
use s17::output::write_atomically;

use crate::cli::Outcome;

use super::{StatusArgs, hours};

pub(super) fn status(args: StatusArgs) -> Outcome {
    let status = Status::read(&args.dir)?;
    if let Some(path) = &args.rerun {
        let list = status.to_rerun().iter().fold(String::new(), |mut s, u| {
            let _ = writeln!(s, "{u}");
            s
        });
        write_atomically(path, list.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    std::io::stdout()
        .lock()
        .write_all(report(&args.dir, &status, args.slices).as_bytes())?;
    Ok(status.complete())
}

/// The per-slice table of `status --slices` (stdout): the puzzles column
/// headed by the goal (`18s`); CPU/EST is the CPU time spent over the
/// estimate for the entries checkpointed.
fn slice_report(s: &Status) -> String {
    let puzzles = format!("{}s", s.goal.clues);
    let row = |out: &mut String, c: [&str; 10]| {
        let _ = writeln!(
            out,
            "{:>5} {:>6} {:>12} {:>12} {:>10} {:>5} {:>9} {:>9} {:>9} {:>7}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]
        );
    };
    let mut out = String::new();
    row(
        &mut out,
        [
            "slice", "units", "entries", "planned", "ED grids", &puzzles, "CPU h", "est h",
            "plan h", "CPU/est",
        ],
    );
    for slice in s.by_slice() {
        let ratio = if slice.est_done_seconds > 0.0 {
            format!("{:.2}", slice.cpu_seconds / slice.est_done_seconds)
        } else {
            "-".to_string()
        };
        row(
            &mut out,
            [
                &slice.k.to_string(),
                &slice.units.to_string(),
                &slice.checkpointed.to_string(),
                &slice.planned.to_string(),
                &slice.grids.to_string(),
                &slice.puzzles.to_string(),
                &hours(slice.cpu_seconds),
                &hours(slice.est_done_seconds),
                &hours(slice.est_seconds),
                &ratio,
            ],
        );
    }
    out
}

/// The status report (stdout), with the per-slice table if `slices`.
fn report(dir: &Path, s: &Status, slices: bool) -> String {
    let mut out = String::new();
    let w = &mut out;
    report_totals(w, dir, s);
    report_units(w, s);
    if slices {
        w.push_str(&slice_report(s));
    }
    let _ = writeln!(
        w,
        "{}",
        if s.complete() {
            "complete: every planned entry is checkpointed exactly once"
        } else {
            "incomplete"
        }
    );
    out
}

/// The campaign's totals: its goal, units, entries, ED grids, puzzles and
/// CPU time.
fn report_totals(w: &mut String, dir: &Path, s: &Status) {
    let n = |state| s.in_state(state).len();
    let (planned, checkpointed) = (s.planned(), s.checkpointed());
    let grids: u64 = s.units.iter().map(|u| u.grids).sum();
    let uncosted: u64 = s.units.iter().map(|u| u.uncosted).sum();
    let cpu: f64 = s.units.iter().map(|u| u.cpu_seconds).sum();
    let est: f64 = s.units.iter().map(|u| u.unit.est_seconds).sum();
    let est_done: f64 = s.units.iter().map(|u| u.est_done_seconds()).sum();
    let _ = writeln!(
        w,
        "campaign {}: {}",
        dir.display(),
        s.header.trim_start_matches("# ")
    );
    let _ = writeln!(w, "searching for: {}", s.goal.description());
    let _ = writeln!(
        w,
        "units: {} done, {} partial, {} not started (of {})",
        n(UnitState::Done),
        n(UnitState::Partial),
        n(UnitState::NotStarted),
        s.units.len()
    );
    let _ = writeln!(
        w,
        "entries: {checkpointed} of {planned} checkpointed ({:.2} %)",
        100.0 * checkpointed as f64 / planned.max(1) as f64
    );
    let _ = write!(w, "ED grids: {grids}");
    if uncosted > 0 {
        let _ = write!(w, " (and those of {uncosted} entries with no cost line)");
    }
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "{}s: {}{}",
        s.goal.clues,
        if s.distinct_exact() {
            format!("{} distinct", s.puzzles())
        } else {
            format!(
                "{} lines (too many to count the distinct ones here: `merge` does)",
                s.puzzles()
            )
        },
        if s.goal == s17::search::Goal::default() {
            String::new()
        } else {
            format!(" ({})", s.goal.description())
        }
    );
    let _ = writeln!(
        w,
        "CPU: {} core-hours spent; estimate {} for the entries checkpointed, {} for the plan",
        hours(cpu),
        hours(est_done),
        hours(est)
    );
}

/// The units that need attention: partial, not started, written by
/// another build, and the problems found.
fn report_units(w: &mut String, s: &Status) {
    for (state, what) in [
        (UnitState::Partial, "partial"),
        (UnitState::NotStarted, "not started"),
    ] {
        let units = s.in_state(state);
        if !units.is_empty() {
            let _ = writeln!(w, "{what}: {}", name_units(&units));
        }
    }
    let other: Vec<usize> = s
        .units
        .iter()
        .filter(|u| u.other_build)
        .map(|u| u.unit.number)
        .collect();
    if !other.is_empty() {
        let _ = writeln!(
            w,
            "note: checkpoints written by another build or tuning (this build will not resume them): {}",
            name_units(&other)
        );
    }
    for p in &s.problems {
        let _ = writeln!(w, "error: {p}");
    }
}
