//! `s17 scan`: every grid of a grid file, in parallel, results streamed to
//! a resumable output file (see `crate::output` for the file design).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::known::{KnownSet, describe};
use crate::output::{OutputError, ResultFiles, checkpoint_header};
use crate::scan::{GridFile, Part, Totals, scan};
use crate::search::{Goal, Searcher};

use super::common::{
    GoalArgs, SearchArgs, counted, load_tables, open_mode, progress_bar, report_new,
    warn_untracked_new,
};
use super::input::{BadLines, no_items};
use super::search::format_stats;
use super::{Outcome, interrupt};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Grid file: one 81-digit solution grid per line; blank lines and
    /// lines starting with '#' are skipped.
    #[arg(value_name = "GRID_FILE")]
    pub grids: PathBuf,
    /// Output file: one line `LINE<TAB>PUZZLE` per puzzle found, LINE being
    /// the grid's line number in the grid file. Its checkpoint is
    /// `FILE.done`, whose header names the grid file, the part and the
    /// --clues, --first and --non-minimal of the scan.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    /// Continue an interrupted scan of the same grid file and part (starts
    /// a new one if FILE and FILE.done do not exist).
    #[arg(long, conflicts_with = "force")]
    pub resume: bool,
    /// Overwrite FILE and FILE.done if they exist.
    #[arg(long)]
    pub force: bool,
    /// Scan only the K-th of N equal contiguous parts of the grid file's
    /// grid lines (line numbers stay those of the whole file).
    // `--slice` is the old name, still accepted (a hidden alias).
    #[arg(long, value_name = "K/N", default_value = "1/1", alias = "slice")]
    pub part: Part,
    /// Stop at the first bad line instead of reporting and skipping it.
    #[arg(long)]
    pub strict: bool,
    /// A list of known 17s (one puzzle per line): the 17s found whose
    /// minlex form is not in it also go to FILE.new, and are counted in the
    /// summary. Pass it on every run of the scan (resumes included).
    #[arg(long, value_name = "KNOWN")]
    pub known: Option<PathBuf>,
    /// Worker threads (0 = all cores); grids are searched in parallel.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[command(flatten)]
    pub goal: GoalArgs,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// How Ctrl-C stops a scan.
const STOP: interrupt::Stop = interrupt::Stop {
    command: "scan",
    first: "the grids in progress finish and are recorded, then the scan stops",
    resume: "the same command with --resume continues",
    unit: "grids",
    what: "results",
};

/// Scans the grid file; exit 1 if a line was bad.
pub fn run(args: Args, quiet: bool) -> Outcome {
    let config = args.search.start(args.threads)?;
    let span = tracing::info_span!("scan", grids = %args.grids.display(), part = %args.part);
    let _enter = span.enter();
    let name = args.grids.display().to_string();
    let grid_file = GridFile::read(&args.grids, args.part).context("cannot read the catalogue")?;
    if grid_file.total_entries == 0 {
        return Err(no_items("grid", &name));
    }
    let mut bad = BadLines::new("scan");
    for (line, err) in grid_file.bad_lines() {
        bad.report(format_args!("{name}: line {line}: {err}"));
        if args.strict {
            eprintln!("s17 scan: stopped at the first bad line (--strict)");
            return Ok(false);
        }
    }
    bad.finish();
    let bad = bad.count();
    let mut bad_known = 0;
    let known = match &args.known {
        None => None,
        Some(path) => {
            let (set, bad_lines) = KnownSet::read(path)?;
            // Apart from the grid file's: the known list is not scanned.
            let mut bad = BadLines::new("scan");
            for (line, err) in &bad_lines {
                bad.report(format_args!("{}: {}", path.display(), describe(*line, err)));
            }
            bad.finish();
            bad_known = bad.count();
            if bad_known > 0 {
                eprintln!(
                    "s17 scan: {bad_known} bad lines in the known list {} (--known): those \
                     puzzles count as not known",
                    path.display()
                );
            }
            if args.strict && bad_known > 0 {
                eprintln!("s17 scan: stopped at the first bad line (--strict)");
                return Ok(false);
            }
            Some(Arc::new(set))
        }
    };
    // The tables before the output: a run that cannot search leaves no
    // file behind.
    let (band_catalogue, tables) = load_tables(&args.search.tables, quiet)?;
    let mode = open_mode(args.resume, args.force);
    let goal = args.goal.goal();
    let what = format!("{}s", goal.clues);
    let header = checkpoint_header(
        "scan",
        grid_file.fingerprint,
        &header_detail(args.part, goal),
    );
    let (mut files, state) =
        ResultFiles::open(&args.output, &header, mode).map_err(|e| other_goal(e, goal))?;
    let new_before = match &known {
        Some(set) => files.track_new(Arc::clone(set), &state.found)?,
        None => {
            warn_untracked_new("scan", &files, quiet);
            0
        }
    };
    let todo: Vec<_> = grid_file
        .grids()
        .filter(|(line, _)| !state.done.contains(line))
        .collect();
    if args.resume && !quiet {
        let r = &state.repair;
        eprintln!(
            "s17 scan: resuming {}: {} grids done ({} {what} kept), {} to go; dropped {} lines of unfinished grids{}{}",
            args.output.display(),
            r.kept_grids,
            r.kept_lines,
            todo.len(),
            r.dropped_lines,
            if r.partial_output {
                ", a partial last line"
            } else {
                ""
            },
            if r.dropped_entries > 0 {
                format!(", {} checkpoint entries", r.dropped_entries)
            } else {
                String::new()
            },
        );
    }
    tracing::info!(
        entries = grid_file.entries.len(),
        done = state.done.len(),
        todo = todo.len(),
        "catalogue read"
    );

    // The last grids' rows may use the threads that run out of grids.
    let searcher = Searcher::new(&band_catalogue, &tables, config)
        .with_goal(goal)
        .with_split_rows_after(todo.len());
    interrupt::install(STOP, quiet)?;
    let bar = progress_bar(todo.len() as u64, quiet, "grids", &format!("0 {what}"));
    interrupt::show_on(&bar);
    let found = AtomicU64::new(0);
    let start = Instant::now();
    let totals = scan(
        &todo,
        Some(&mut files),
        Some(interrupt::flag()),
        |grid| searcher.search(grid),
        |_, result| {
            let n = found.fetch_add(result.puzzles.len() as u64, Ordering::Relaxed)
                + result.puzzles.len() as u64;
            bar.set_message(format!("{n} {what}"));
            bar.inc(1);
        },
    )
    .with_context(|| {
        format!(
            "scan stopped; rerun with --resume to continue {}",
            args.output.display()
        )
    })?;
    interrupt::check(
        STOP,
        state.done.len(),
        totals.grids,
        todo.len(),
        &args.output,
    )?;
    bar.finish_and_clear();
    if !quiet {
        summary(
            "scan",
            &goal.clues.to_string(),
            &totals,
            bad,
            start.elapsed(),
        );
        if !state.done.is_empty() {
            eprintln!(
                "s17 scan: {} grids with {} {what} were done before this run",
                state.done.len(),
                state.found.len()
            );
        }
        if let Some(path) = &args.known {
            report_new("scan", path, &files, new_before);
        }
    }
    Ok(bad == 0 && bad_known == 0)
}

/// The checkpoint header's detail of a scan of `part` for `goal`: `slice=`
/// as before the flag was renamed, and nothing more for every 17 (as
/// before `--clues` came), so the checkpoints of older builds resume; then
/// ` clues=N`, ` first` and ` non-minimal` for another goal.
fn header_detail(part: Part, goal: Goal) -> String {
    let mut detail = format!("slice={part}");
    if goal != Goal::default() {
        detail += &format!(" clues={}", goal.clues);
        if goal.first {
            detail += " first";
        }
        if goal.non_minimal {
            detail += " non-minimal";
        }
    }
    detail
}

/// The goal a checkpoint header of [`header_detail`] names.
fn header_goal(header: &str) -> Goal {
    let mut goal = Goal::default();
    for word in header.split_whitespace() {
        match word {
            "first" => goal.first = true,
            "non-minimal" => goal.non_minimal = true,
            _ => {
                if let Some(n) = word.strip_prefix("clues=").and_then(|n| n.parse().ok()) {
                    goal.clues = n;
                }
            }
        }
    }
    goal
}

/// A goal as the flags that ask for it.
fn goal_flags(goal: Goal) -> String {
    let mut flags = format!("--clues {}", goal.clues);
    if goal.first {
        flags += " --first";
    }
    if goal.non_minimal {
        flags += " --non-minimal";
    }
    flags
}

/// A resume refused because the checkpoint was written for another goal
/// says so; any other error is passed on.
fn other_goal(err: OutputError, goal: Goal) -> anyhow::Error {
    if let OutputError::Mismatch { path, found, .. } = &err {
        let theirs = header_goal(found);
        if theirs != goal {
            return anyhow::anyhow!(
                "checkpoint {} was written by a scan with {}, and this one asks for {}: \
                 resume with the same options, or pass --force to start over",
                path.display(),
                goal_flags(theirs),
                goal_flags(goal)
            );
        }
    }
    err.into()
}

/// The end-of-run summary on stderr (no rates or stages when no grid was
/// searched: there is nothing to divide); `what` names one puzzle ("17").
pub(super) fn summary(command: &str, what: &str, totals: &Totals, bad: u64, wall: Duration) {
    let head = format!(
        "s17 {command}: {} searched, {}, {} found in {:.1} s",
        counted(totals.grids, "grid"),
        counted(bad, "bad line"),
        counted(totals.puzzles, what),
        wall.as_secs_f64(),
    );
    if totals.grids == 0 {
        eprintln!("{head}");
        return;
    }
    let grids = totals.grids as f64;
    eprintln!(
        "{head} ({:.3} s CPU per grid, {:.3} s wall per grid, {} threads)",
        totals.cpu_time.as_secs_f64() / grids,
        wall.as_secs_f64() / grids,
        rayon::current_num_threads(),
    );
    eprintln!("s17 {command}: stages: {}", format_stats(&totals.stats));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_the_goal_and_an_old_header_means_every_17() {
        let part: Part = "2/3".parse().unwrap();
        assert_eq!(header_detail(part, Goal::default()), "slice=2/3");
        let old = checkpoint_header("scan", 7, "slice=2/3");
        assert_eq!(header_goal(&old), Goal::default());
        for clues in crate::plan::CLUE_RANGE {
            for first in [false, true] {
                for non_minimal in [false, true] {
                    let goal = Goal {
                        clues,
                        first,
                        non_minimal,
                    };
                    let header = checkpoint_header("scan", 7, &header_detail(part, goal));
                    assert_eq!(header_goal(&header), goal, "{header}");
                }
            }
        }
    }
}
