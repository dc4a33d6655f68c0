//! `s17 lowest`: the lowest clue count of each grid, with a witness puzzle
//! and what was proven below it (the searches and their order are in
//! [`s17::lowest`]).
//!
//! Without `--output`, one line per grid on stdout in input order,
//! `INDEX<TAB>COUNT<TAB>PUZZLE<TAB>HOW` (INDEX as `search` numbers its
//! grids). With `--output FILE` (grids from a grid file or stdin), the
//! grids go through `scan`'s resumable driver: FILE holds `LINE<TAB>PUZZLE`,
//! the witness of each grid by its line number (none for a grid with no
//! puzzle up to the last count searched), and the same lines as without
//! `--output` go to stdout as grids finish, numbered by line.

use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context;
use rayon::prelude::*;

use s17::grid::Grid;
use s17::lowest::{COUNTS, Lowest, LowestSearch};
use s17::output::checkpoint_header;
use s17::scan::{GridFile, Part, scan};
use s17::search::{GridResult, Rank};

use super::common::{SearchArgs, counted, load_tables, open_mode, progress_bar, table_path};
use super::input::{self, BadLines, no_grid_given};
use super::resumable::Resumable;
use super::{Outcome, interrupt};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Solution grids (81 digits each); with none and no --input, grids are
    /// read from stdin (unless it is a terminal).
    #[arg(conflicts_with = "output")]
    pub grids: Vec<String>,
    /// Read grids from a file, one per line ('-' = stdin).
    #[arg(long, short = 'i', value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Resumable output file: one line `LINE<TAB>PUZZLE` per grid with its
    /// witness (LINE: the grid's line number in the --input file), and its
    /// checkpoint FILE.done, as `scan` writes them.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Continue an interrupted run of the same grid file (with --output).
    #[arg(long, requires = "output", conflicts_with = "force")]
    pub resume: bool,
    /// Overwrite FILE and FILE.done if they exist (with --output).
    #[arg(long, requires = "output")]
    pub force: bool,
    /// Worker threads (0 = all cores); grids are searched in parallel.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// Answers waiting to be printed in input order: the next position to
/// print, and finished (position → (index, answer)) entries.
type Pending = (usize, BTreeMap<usize, (usize, Lowest)>);

/// How Ctrl-C stops a run with --output.
const STOP: interrupt::Stop = interrupt::Stop {
    command: "lowest",
    first: "the grids in progress finish and are recorded, then the run stops",
    resume: "the same command with --resume continues",
    unit: "grids",
    one: "grid",
    what: "results",
};

/// The line of one grid: `INDEX<TAB>COUNT<TAB>PUZZLE<TAB>HOW` (`-` for
/// no puzzle).
pub fn result_line(index: usize, lowest: &Lowest) -> String {
    let puzzle = lowest
        .witness
        .map_or_else(|| "-".to_string(), |p| p.to_string());
    format!(
        "{index}\t{}\t{puzzle}\t{}",
        lowest.count_text(),
        lowest.describe()
    )
}

/// Prints the lowest count of every grid given; exit 1 if a grid was bad.
pub fn run(args: Args, quiet: bool) -> Outcome {
    let config = args.search.start(args.threads)?;
    if let Some(output) = &args.output {
        return run_resumable(&args, output, config, quiet);
    }
    let (grids, good) = read_grids(&args)?;
    if grids.is_empty() {
        return no_grid_given(good);
    }
    let (catalogue, tables) = load_tables(&args.search.tables, quiet)?;
    let search = LowestSearch::new(&catalogue, &tables, config).with_split_rows_after(grids.len());
    let printed = std::sync::Arc::new(AtomicUsize::new(0));
    let total = grids.len();
    let watched = std::sync::Arc::clone(&printed);
    interrupt::install_at_once("lowest", move || {
        let done = watched.load(Ordering::SeqCst);
        format!(
            "{done} of {} done and printed; the others were stopped (to resume a long run, \
             give --input FILE with --output)",
            counted(total as u64, "grid")
        )
    })?;
    let bar = progress_bar(total as u64, quiet || total < 2, "grids", "none yet");
    interrupt::show_on(&bar);
    let start = Instant::now();
    let tally = Mutex::new(Tally::default());
    // Printed in input order as soon as all earlier grids are done.
    let pending: Mutex<Pending> = Mutex::new((0, BTreeMap::new()));
    grids.par_iter().enumerate().try_for_each(
        |(position, &(index, grid))| -> anyhow::Result<()> {
            let lowest = search.lowest(&grid)?;
            bar.set_message(tally.lock().expect("no panic").add(&lowest));
            bar.inc(1);
            let mut guard = pending.lock().expect("no panic while printing");
            guard.1.insert(position, (index, lowest));
            let mut out = std::io::stdout().lock();
            while let Some((index, lowest)) = {
                let next = guard.0;
                guard.1.remove(&next)
            } {
                guard.0 += 1;
                bar.suspend(|| writeln!(out, "{}", result_line(index, &lowest)))
                    .and_then(|()| out.flush())
                    .context("cannot write the results")?;
                printed.store(guard.0, Ordering::SeqCst);
            }
            Ok(())
        },
    )?;
    bar.finish_and_clear();
    if !quiet {
        tally
            .into_inner()
            .expect("no panic")
            .summary(start.elapsed());
    }
    Ok(good)
}

/// The distribution of a run's lowest counts, and its times.
#[derive(Default)]
struct Tally {
    /// Grids by lowest count (`None`: above the last count searched).
    by_count: BTreeMap<Option<usize>, u64>,
    grids: u64,
    cpu: std::time::Duration,
    worst: std::time::Duration,
}

impl Tally {
    /// Counts one grid in; returns the distribution so far (the progress
    /// bar's message).
    fn add(&mut self, lowest: &Lowest) -> String {
        *self.by_count.entry(lowest.clues()).or_default() += 1;
        self.grids += 1;
        self.cpu += lowest.cpu_time;
        self.worst = self.worst.max(lowest.cpu_time);
        self.distribution()
    }

    /// The grids by lowest count: `17: 2, 19: 3, >21: 1`.
    fn distribution(&self) -> String {
        let counts: Vec<String> = self
            .by_count
            .iter()
            .map(|(n, grids)| match n {
                Some(n) => format!("{n}: {grids}"),
                None => format!(">{}: {grids}", COUNTS.end()),
            })
            .collect();
        counts.join(", ")
    }

    /// Two lines on stderr: the distribution, then the times.
    fn summary(&self, wall: std::time::Duration) {
        eprintln!(
            "s17 lowest: {} by lowest count: {}",
            counted(self.grids, "grid"),
            self.distribution()
        );
        if self.grids > 0 {
            eprintln!(
                "s17 lowest: {:.1} s wall; {:.3} s CPU per grid, worst {:.3} s",
                wall.as_secs_f64(),
                self.cpu.as_secs_f64() / self.grids as f64,
                self.worst.as_secs_f64()
            );
        }
    }
}

/// The grids of the arguments, then of `--input` (or stdin when no grid
/// is given and stdin is no terminal), numbered from 1 in that order as
/// `search` numbers them; and whether every one was good.
fn read_grids(args: &Args) -> anyhow::Result<(Vec<(usize, Grid)>, bool)> {
    let input = match &args.input {
        Some(path) => Some(path.clone()),
        None if args.grids.is_empty() && !std::io::stdin().is_terminal() => {
            Some(PathBuf::from("-"))
        }
        None => None,
    };
    super::input::read_grids("lowest", &args.grids, input.as_deref())
}

/// `--output FILE`: the grid file through `scan`'s resumable driver.
fn run_resumable(
    args: &Args,
    output: &Path,
    config: s17::search::SearchConfig,
    quiet: bool,
) -> Outcome {
    let grids = args.input.clone().unwrap_or_else(|| PathBuf::from("-"));
    let run = Resumable {
        stop: STOP,
        output,
        quiet,
    };
    let tables_path = table_path(args.search.tables.tables.as_deref())?;
    run.check(&[("grid file", &grids), ("band table file", &tables_path)])?;
    let (grid_file, bad) = read_grid_file(&grids)?;
    let (catalogue, tables) = load_tables(&args.search.tables, quiet)?;
    let header = checkpoint_header("lowest", grid_file.fingerprint, &lowest_detail());
    let mut opened = run.open(&header, open_mode(args.resume, args.force), None)?;
    let todo: Vec<_> = grid_file
        .grids()
        .filter(|(line, _)| !opened.state.done.contains(line))
        .collect();
    if args.resume {
        run.say_resuming(&opened.state, todo.len(), "witness line");
    }
    let before = opened.state.done.len();
    let search = LowestSearch::new(&catalogue, &tables, config).with_split_rows_after(todo.len());
    let bar = run.start(todo.len(), "none yet")?;
    let start = Instant::now();
    // The driver hands on grid results; each grid's own answer waits here
    // for its line.
    let answers: Mutex<HashMap<Grid, Vec<Lowest>>> = Mutex::new(HashMap::new());
    let grid_of: HashMap<usize, Grid> = todo.iter().copied().collect();
    let tally = Mutex::new(Tally::default());
    let totals = scan(
        &todo,
        Some(&mut opened.files),
        Some(interrupt::flag()),
        |grid| {
            let lowest = search.lowest(grid)?;
            let result = GridResult {
                puzzles: lowest.witness.into_iter().collect(),
                by_choice: vec![(Rank::Hi, lowest.stats)],
                cpu_time: lowest.cpu_time,
                ..GridResult::default()
            };
            let mut answers = answers.lock().expect("no panic");
            answers.entry(*grid).or_default().push(lowest);
            Ok(result)
        },
        |line, _| {
            let lowest = grid_of.get(&line).and_then(|g| {
                let mut answers = answers.lock().expect("no panic");
                answers.get_mut(g).and_then(Vec::pop)
            });
            if let Some(lowest) = lowest {
                bar.set_message(tally.lock().expect("no panic").add(&lowest));
                let text = result_line(line, &lowest);
                bar.suspend(|| {
                    let mut out = std::io::stdout().lock();
                    let _ = writeln!(out, "{text}").and_then(|()| out.flush());
                });
            }
            bar.inc(1);
        },
    )
    .with_context(|| {
        format!(
            "lowest stopped; rerun with --resume to continue {}",
            output.display()
        )
    })?;
    run.end(&bar, before, totals.grids, todo.len())?;
    if !quiet {
        say_lowest_done(tally.into_inner().expect("no panic"), start, before, output);
    }
    Ok(bad.count() == 0)
}

/// The grid file of `--input` (`-`: stdin) read whole, its bad lines
/// reported; refused when it holds no valid grid.
fn read_grid_file(grids: &Path) -> anyhow::Result<(GridFile, BadLines)> {
    let (name, grid_file) = input::read_grid_file(grids, Part::WHOLE)?;
    let mut bad = BadLines::new("lowest");
    for (line, err) in grid_file.bad_lines() {
        bad.report(format_args!("{name}: line {line}: {err}"));
    }
    bad.finish();
    anyhow::ensure!(
        grid_file.grids().next().is_some(),
        "no valid grid in {name}: nothing to search, so no output written"
    );
    Ok((grid_file, bad))
}

/// The summary of a resumable run (stderr): the tally, and the grids done
/// by runs before.
fn say_lowest_done(tally: Tally, start: Instant, before: usize, output: &Path) {
    tally.summary(start.elapsed());
    if before > 0 {
        eprintln!(
            "s17 lowest: {} were done before this run (their witnesses are in {})",
            counted(before as u64, "grid"),
            output.display()
        );
    }
}

/// The checkpoint header's detail: the counts searched, so that a run
/// after the search takes more counts starts over.
fn lowest_detail() -> String {
    format!("counts={}..={}", COUNTS.start(), COUNTS.end())
}
