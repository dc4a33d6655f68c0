//! `s17 scan`: every grid of a grid file, in parallel, results streamed to
//! a resumable output file (see `s17::output` for the file design).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;

use s17::known::{KnownSet, describe};
use s17::output::{OutputError, checkpoint_header};
use s17::scan::{GridFile, Part, Totals, scan};
use s17::search::{Goal, Searcher};

use super::common::{
    GoalArgs, SearchArgs, counted, load_tables, open_mode, report_new, table_path,
};
use super::input::{self, BadLines};
use super::resumable::Resumable;
use super::search::format_stats;
use super::{Outcome, interrupt};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Grid file: one 81-digit solution grid per line; blank lines and
    /// lines starting with '#' are skipped. `-` or none: standard input
    /// (read whole; a resume needs the same input).
    #[arg(value_name = "GRID_FILE")]
    pub grids: Option<PathBuf>,
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
    /// Print the stage counters at the end (as -v does).
    #[arg(long)]
    pub stats: bool,
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
    one: "grid",
    what: "results",
};

/// What a scan reads before it writes: its part of the grid file and
/// the known list, with their bad lines counted.
struct Input {
    grid_file: GridFile,
    known: Option<Arc<KnownSet>>,
    /// Bad lines of the grid file's part, of the known list.
    bad: u64,
    bad_known: u64,
}

/// Scans the grid file; exit 1 if a line was bad.
pub fn run(args: Args, quiet: bool) -> Outcome {
    let config = args.search.start(args.threads)?;
    let grids = args.grids.clone().unwrap_or_else(|| PathBuf::from("-"));
    let run = Resumable {
        stop: STOP,
        output: &args.output,
        quiet,
    };
    check_paths(&args, &grids, &run)?;
    let span = tracing::info_span!("scan", grids = %grids.display(), part = %args.part);
    let _enter = span.enter();
    let Some(input) = read_input(&args, &grids)? else {
        return Ok(false);
    };
    // The tables before the output: a run that cannot search leaves no
    // file behind.
    let (band_catalogue, tables) = load_tables(&args.search.tables, quiet)?;
    let goal = args.goal.goal();
    let what = goal.clues.to_string();
    let detail = header_detail(args.part, goal);
    let header = checkpoint_header("scan", input.grid_file.fingerprint, &detail);
    let mode = open_mode(args.resume, args.force);
    let mut opened = run
        .open(&header, mode, input.known.as_ref())
        .map_err(|e| explain_goal_mismatch(e, goal))?;
    let state = &opened.state;
    let todo: Vec<_> = input
        .grid_file
        .grids()
        .filter(|(line, _)| !state.done.contains(line))
        .collect();
    if args.resume {
        run.say_resuming(state, todo.len(), &what);
    }
    let (before, found_before) = (state.done.len(), state.found.len());
    tracing::info!(done = before, todo = todo.len(), "checkpoint read");
    // The last grids' rows may use the threads that run out of grids.
    let searcher = Searcher::new(&band_catalogue, &tables, config)
        .with_goal(goal)
        .with_split_rows_after(todo.len());
    let bar = run.start(todo.len(), &format!("0 {what}s"))?;
    let found = AtomicU64::new(0);
    let start = Instant::now();
    let totals = scan(
        &todo,
        Some(&mut opened.files),
        Some(interrupt::flag()),
        |grid| searcher.search(grid),
        |_, result| {
            let n = found.fetch_add(result.puzzles.len() as u64, Ordering::Relaxed)
                + result.puzzles.len() as u64;
            bar.set_message(counted(n, &what));
            bar.inc(1);
        },
    )
    .with_context(|| {
        format!(
            "scan stopped; rerun with --resume to continue {}",
            args.output.display()
        )
    })?;
    run.end(&bar, before, totals.grids, todo.len())?;
    if !quiet {
        let stages = args.stats || tracing::enabled!(tracing::Level::INFO);
        summary("scan", &what, &totals, input.bad, start.elapsed(), stages);
        if before > 0 {
            eprintln!(
                "s17 scan: {} with {} were done before this run",
                counted(before as u64, "grid"),
                counted(found_before as u64, &what)
            );
        }
        if let Some(path) = &args.known {
            report_new("scan", path, &opened.files, opened.new_before);
        }
    }
    Ok(input.bad == 0 && input.bad_known == 0)
}

/// Before anything is read or written: the output's directory exists and
/// the output is none of the scan's inputs.
fn check_paths(args: &Args, grids: &Path, run: &Resumable) -> anyhow::Result<()> {
    let tables_path = table_path(args.search.tables.tables.as_deref())?;
    let mut inputs = vec![("grid file", grids), ("band table file", &tables_path)];
    if let Some(known) = &args.known {
        inputs.push(("known list", known));
    }
    run.check(&inputs)
}

/// The grid file (`-`: standard input) of the part and the known list,
/// their bad lines reported; `None` when `--strict` stops at one. An
/// input with no grid to search is an error: nothing is written.
fn read_input(args: &Args, grids: &Path) -> anyhow::Result<Option<Input>> {
    let (name, grid_file) = input::read_grid_file(grids, args.part)?;
    let mut bad = BadLines::new("scan");
    for (line, err) in grid_file.bad_lines() {
        bad.report(format_args!("{name}: line {line}: {err}"));
        if args.strict {
            eprintln!("s17 scan: stopped at the first bad line (--strict)");
            return Ok(None);
        }
    }
    bad.finish();
    tracing::info!(entries = grid_file.entries.len(), "grid file read");
    if grid_file.grids().next().is_none() {
        let part = if args.part == Part::WHOLE {
            String::new()
        } else {
            format!(" (part {})", args.part)
        };
        anyhow::bail!(
            "no valid grid in {name}{part} ({}): nothing to search, so no output written (fix \
             the bad lines and run the same command)",
            counted(bad.count(), "bad line")
        );
    }
    let Some(path) = &args.known else {
        return Ok(Some(Input {
            grid_file,
            known: None,
            bad: bad.count(),
            bad_known: 0,
        }));
    };
    let (set, bad_lines) = KnownSet::read(path)?;
    // Apart from the grid file's: the known list is not scanned.
    let mut bad_known = BadLines::new("scan");
    for (line, err) in &bad_lines {
        bad_known.report(format_args!("{}: {}", path.display(), describe(*line, err)));
    }
    bad_known.finish();
    let bad_known = bad_known.count();
    if bad_known > 0 {
        eprintln!(
            "s17 scan: {} in the known list {} (--known): those puzzles count as not known",
            counted(bad_known, "bad line"),
            path.display()
        );
        if args.strict {
            eprintln!("s17 scan: stopped at the first bad line (--strict)");
            return Ok(None);
        }
    }
    Ok(Some(Input {
        grid_file,
        known: Some(Arc::new(set)),
        bad: bad.count(),
        bad_known,
    }))
}

/// The checkpoint header's detail of a scan of `part` for `goal`: `slice=`
/// as before the flag was renamed, and nothing more for every 17 (as
/// before `--clues` came), so the checkpoints of older builds resume; then
/// ` clues=N`, ` first` and ` non-minimal` for another goal.
fn header_detail(part: Part, goal: Goal) -> String {
    format!("slice={part}{goal}")
}

/// A resume refused because the checkpoint was written for another goal
/// says so; any other error is passed on.
fn explain_goal_mismatch(err: anyhow::Error, goal: Goal) -> anyhow::Error {
    if let Some(OutputError::Mismatch { path, found, .. }) = err.downcast_ref()
        && let Ok(theirs) = found.parse::<Goal>()
        && theirs != goal
    {
        return anyhow::anyhow!(
            "checkpoint {} was written by a scan with {}, and this one asks for {}: \
             resume with the same options, or pass --force to start over",
            path.display(),
            theirs.flags(),
            goal.flags()
        );
    }
    err
}

/// The end-of-run summary on stderr (no rates or stages when no grid was
/// searched: there is nothing to divide); `what` names one puzzle ("17");
/// the stage counters only with `stages` (`--stats`, `-v`).
pub(super) fn summary(
    command: &str,
    what: &str,
    totals: &Totals,
    bad: u64,
    wall: Duration,
    stages: bool,
) {
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
        "{head} ({:.3} s CPU per grid, {:.3} s wall per grid, {})",
        totals.cpu_time.as_secs_f64() / grids,
        wall.as_secs_f64() / grids,
        counted(rayon::current_num_threads() as u64, "thread"),
    );
    if stages {
        eprintln!("s17 {command}: stages: {}", format_stats(&totals.stats));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_the_goal_and_an_old_header_means_every_17() {
        let part: Part = "2/3".parse().unwrap();
        assert_eq!(header_detail(part, Goal::default()), "slice=2/3");
        let old = checkpoint_header("scan", 7, "slice=2/3");
        assert_eq!(old.parse(), Ok(Goal::default()));
        for clues in s17::search::plan::CLUE_RANGE {
            for first in [false, true] {
                for non_minimal in [false, true] {
                    let goal = Goal {
                        clues,
                        first,
                        non_minimal,
                    };
                    let header = checkpoint_header("scan", 7, &header_detail(part, goal));
                    assert_eq!(header.parse(), Ok(goal), "{header}");
                }
            }
        }
    }
}
