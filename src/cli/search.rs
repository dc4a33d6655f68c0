//! `s17 search`: the 17s (or, with `--clues N`, the puzzles of N clues) of
//! each grid given on the command line or in a file.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use rayon::prelude::*;

use s17::grid::Grid;
use s17::search::{GridResult, Searcher, Stats};

use super::common::{GoalArgs, SearchArgs, counted, load_tables};
use super::input::no_grid_given;
use super::{Outcome, interrupt};

/// Results waiting to be printed in input order: the next position to print,
/// and finished (position → (index, result)) entries.
type Pending = (usize, BTreeMap<usize, (usize, GridResult)>);

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Solution grids (81 digits each); `-` reads grids from stdin, as
    /// does giving none and no --input (unless stdin is a terminal).
    pub grids: Vec<String>,
    /// Read grids from a file, one per line ('-' = stdin).
    #[arg(long, short = 'i', value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Print the kernel forms in use, then stage counters and times per grid,
    /// band-3 choice and row of the plan (stderr).
    #[arg(long)]
    pub stats: bool,
    #[command(flatten)]
    pub goal: GoalArgs,
    /// Worker threads (0 = all cores); grids are searched in parallel.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// Prints every puzzle found, one per line; with several grids each line is
/// `INDEX<TAB>PUZZLE` (INDEX = 1-based position of the grid in the input).
pub fn run(args: Args, quiet: bool) -> Outcome {
    let config = args.search.start(args.threads)?;
    let Given { grids, good, input } = read_grids(&args)?;
    if grids.is_empty() {
        return no_grid_given(good);
    }
    let (catalogue, tables) = load_tables(&args.search.tables, quiet)?;
    // Once no grid waits (at once for fewer grids than threads), the rows
    // of the grids' choices may use the idle threads.
    let searcher = Searcher::new(&catalogue, &tables, config)
        .with_goal(args.goal.goal())
        .with_split_rows_after(grids.len());
    if args.stats {
        eprintln!("kernels: {}", s17::bits::kernel_forms());
    }
    let several = grids.len() > 1 || input.is_some();
    // Ctrl-C stops at once (nothing is checkpointed), saying how far the
    // printed results go.
    let printed = Arc::new(AtomicUsize::new(0));
    let total = grids.len();
    let watched = Arc::clone(&printed);
    interrupt::install_at_once("search", move || {
        let done = watched.load(Ordering::SeqCst);
        format!(
            "{done} of {} searched and printed; the others were stopped (a grid's search \
             does not resume: search them again)",
            counted(total as u64, "grid")
        )
    })?;
    let goal = args.goal.goal();
    // Results are printed in input order as soon as all earlier grids are done.
    // The first error (corrupt band tables, or stdout failing) stops the run.
    let pending: Mutex<Pending> = Mutex::new((0, BTreeMap::new()));
    grids.par_iter().enumerate().try_for_each(
        |(position, &(index, grid))| -> anyhow::Result<()> {
            let result = searcher.search(&grid)?;
            let mut guard = pending.lock().expect("no panic while printing");
            guard.1.insert(position, (index, result));
            let mut out = std::io::stdout().lock();
            while let Some((index, result)) = {
                let next = guard.0;
                guard.1.remove(&next)
            } {
                guard.0 += 1;
                print_result(&mut out, index, &result, several, args.stats)
                    .context("cannot write the results")?;
                // A search that finds none says so (`--first` answers
                // "is there one?" for each grid; a complete search too).
                if result.puzzles.is_empty() && !quiet {
                    eprintln!("s17 search: no {} in grid {index}", goal.clues);
                }
                printed.store(guard.0, Ordering::SeqCst);
            }
            Ok(())
        },
    )?;
    Ok(good)
}

/// The grids given, numbered from 1.
struct Given {
    grids: Vec<(usize, Grid)>,
    /// Every grid given was good.
    good: bool,
    /// The input read besides the arguments, if any.
    input: Option<PathBuf>,
}

/// The grids of the arguments, then of `--input` (or stdin when no grid
/// is given and stdin is no terminal), numbered in that order; whether
/// every one was good; the input read. An input with no grid (and no
/// grid argument) is an error naming it.
fn read_grids(args: &Args) -> anyhow::Result<Given> {
    // `-` among the grids: standard input, as `--input -`.
    let stdin = args.grids.iter().any(|g| g == "-");
    if stdin && args.input.is_some() {
        return Err(super::Usage(
            "`-` (standard input) and --input both name an input: give one".to_string(),
        )
        .into());
    }
    let given: Vec<&String> = args.grids.iter().filter(|g| *g != "-").collect();
    // With no grid at all, read stdin unless it is a terminal (where the
    // user would wait for nothing): `cat grids.txt | s17 search`.
    let input = match &args.input {
        Some(path) => Some(path.clone()),
        None if stdin => Some(PathBuf::from("-")),
        None if given.is_empty() && !std::io::stdin().is_terminal() => Some(PathBuf::from("-")),
        None => None,
    };
    let (grids, good) = super::input::read_grids("search", &given, input.as_deref())?;
    Ok(Given { grids, good, input })
}

fn print_result(
    out: &mut impl Write,
    index: usize,
    result: &GridResult,
    several: bool,
    stats: bool,
) -> std::io::Result<()> {
    for p in &result.puzzles {
        if several {
            writeln!(out, "{index}\t{p}")?;
        } else {
            writeln!(out, "{p}")?;
        }
    }
    out.flush()?;
    if stats {
        let orientation = if result.transposed {
            "transposed"
        } else {
            "as given"
        };
        if !result.first_look.is_some_and(|l| l.found) {
            eprintln!("grid {index} searched {orientation}");
        }
        for (rank, row, s) in &result.by_row {
            eprintln!(
                "grid {index} band3={rank:?} row {}-{}-{}: {} non_minimal {} cpu {:.3}s",
                row.x,
                row.y,
                row.z,
                format_counters(s),
                s.non_minimal,
                s.cpu_time.as_secs_f64()
            );
        }
        for (rank, s) in &result.by_choice {
            eprintln!("grid {index} band3={rank:?}: {}", format_stats(s));
        }
        if let Some(look) = &result.first_look {
            eprintln!(
                "grid {index} first look: 17 search {}; look {:.3}s, {}",
                format_stats(&look.seventeen),
                look.looked.as_secs_f64(),
                if look.found { "found" } else { "none" }
            );
        }
        eprintln!("grid {index} total: {}", format_stats(&result.total()));
    }
    Ok(())
}

/// One line of stage counters and times.
pub fn format_stats(s: &Stats) -> String {
    format!(
        "{} harvest {:.3}s cpu {:.3}s total {:.3}s",
        format_counters(s),
        s.harvest_time.as_secs_f64(),
        s.cpu_time.as_secs_f64(),
        s.total_time.as_secs_f64()
    )
}

/// The stage counters of [`format_stats`], without the times: each
/// printed name of [`Stats::COUNTERS`] and its count.
pub(super) fn format_counters(s: &Stats) -> String {
    let mut line = String::new();
    for (name, count) in Stats::COUNTERS {
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&format!("{name} {}", count(s)));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counters line as it was printed before [`Stats::COUNTERS`]:
    /// each field under its old name, in the old order.
    #[test]
    fn counters_print_under_their_old_names_in_the_old_order() {
        let s = Stats {
            ua12: 1,
            guas: 2,
            steps: 3,
            dead_steps: 4,
            xy_tested: 5,
            survivors: 6,
            band3_dead: 7,
            extra_dead: 8,
            gua_dead: 9,
            bands12_checks: 10,
            valid_xy: 11,
            fresh_ua12: 12,
            band3_candidates: 13,
            final_checks: 14,
            fresh_uas: 15,
            shared_guas: 16,
            found: 17,
            non_minimal: 18,
            ..Stats::default()
        };
        assert_eq!(
            format_counters(&s),
            "ua12 1 guas 2 steps 3 dead 4 xy 5 survivors 6 band3_dead 7 extra_dead 8 \
             gua_dead 9 b12checks 10 valid_xy 11 fresh_ua12 12 band3 13 final 14 \
             fresh_ua 15 shared_gua 16 found 17"
        );
        let mut sum = s;
        sum += s;
        assert_eq!(sum.non_minimal, 36);
        assert_eq!(sum.since(&s), s);
    }
}
