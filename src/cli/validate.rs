//! `s17 validate`: the search against the list of known 17s. Every puzzle
//! of the list is checked (17 clues, one solution), the puzzles are grouped
//! by solution grid, and each grid (or a seeded sample, each in a random
//! orientation) is searched; the 17s found must include every known one.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use rayon::prelude::*;

use s17::canon::Transform;
use s17::grid::{Grid, Puzzle};
use s17::known::{KnownIndex, KnownPuzzle, check_line, describe};
use s17::output::{Fingerprint, OpenMode, ResultFiles, checkpoint_header};
use s17::scan::{Totals, scan};
use s17::search::Searcher;
use s17::solver::count_solutions;

use super::common::{SearchArgs, counted, load_tables, progress_bar, table_path};
use super::input::{BadLines, is_skippable, no_items};
use super::resumable::Resumable;
use super::scan::summary;
use super::{Outcome, interrupt};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The known 17s, one 81-character puzzle per line (`-` or none:
    /// standard input).
    pub known: Option<PathBuf>,
    /// Search only N grids drawn at random, each in a random orientation.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Seed of the sample and of the orientations.
    #[arg(long, value_name = "S", default_value_t = 17)]
    pub seed: u64,
    /// Keep the 17s of finished grids in FILE (and FILE.done, and their
    /// search CPU times in FILE.times); a rerun with the same FILE, list,
    /// sample and seed searches only the others, and reports the times of
    /// all runs.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// With --checkpoint: go on from FILE (what a rerun does anyway; a new
    /// run if FILE does not exist).
    #[arg(long, requires = "checkpoint", conflicts_with = "force")]
    pub resume: bool,
    /// With --checkpoint: start over, replacing FILE, FILE.done and
    /// FILE.times.
    #[arg(long, requires = "checkpoint")]
    pub force: bool,
    /// Worker threads (0 = all cores); grids are searched in parallel.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// How Ctrl-C stops a validation with `--checkpoint` (which resumes by
/// itself).
const STOP: interrupt::Stop = interrupt::Stop {
    command: "validate",
    first: "the grids in progress finish and are recorded, then the validation stops",
    resume: "the same command continues",
    unit: "grids",
    one: "grid",
    what: "results",
};

/// What the comparison of one grid's search with the list found.
#[derive(Default)]
struct Report {
    expected: usize,
    found: usize,
    missed: usize,
    new: usize,
    invalid: usize,
    /// (seconds, grid) per searched grid, earlier runs' included.
    times: Vec<(f64, usize)>,
    /// How many of `times` earlier runs of the checkpoint gave.
    earlier_times: usize,
}

/// The list read and checked.
struct List {
    name: String,
    fingerprint: u64,
    good: Vec<KnownPuzzle>,
    /// Its bad lines.
    bad: u64,
}

/// The checkpoint opened: the 17s of the grids done before (each grid
/// done, with or without 17s) and their times, and the files to go on.
#[derive(Default)]
struct Resumed {
    files: Option<ResultFiles>,
    previous: BTreeMap<usize, Vec<Puzzle>>,
    earlier_times: Vec<(f64, usize)>,
    times_file: Option<Mutex<File>>,
}

/// Prints `missed`, `new` and `invalid` lines (stdout) as grids finish, and
/// a summary (stderr); exit 1 if a known 17 was missed, a 17 found is not
/// valid, or a line of the list was bad.
pub fn run(args: Args, quiet: bool) -> Outcome {
    let config = args.search.start(args.threads)?;
    let known = args.known.clone().unwrap_or_else(|| PathBuf::from("-"));
    if let Some(path) = &args.checkpoint {
        let tables_path = table_path(args.search.tables.tables.as_deref())?;
        checkpoint_run(path, quiet)
            .check(&[("known list", &known), ("band table file", &tables_path)])?;
        super::resumable::refuse_output_as_input(&times_path(path), &[("known list", &known)])?;
    }
    let span = tracing::info_span!("validate", known = %known.display());
    let _enter = span.enter();
    let start = Instant::now();
    let list = read_list(&known)?;
    let index = KnownIndex::new(&list.good);
    let grids = choose_grids(&index, args.sample, args.seed);
    let name = &list.name;
    if let Some(n) = args.sample.filter(|&n| n > index.grids()) {
        eprintln!(
            "s17 validate: warning: --sample {n} is more than the {} of {name}: \
             the whole list is searched (in random orientations)",
            counted(index.grids() as u64, "grid")
        );
    }
    if !quiet {
        eprintln!(
            "s17 validate: {} ({}) on {}, checked in {:.1} s; searching {}{}",
            counted(list.good.len() as u64, "puzzle"),
            counted(list.bad, "bad line"),
            counted(index.grids() as u64, "grid"),
            start.elapsed().as_secs_f64(),
            counted(grids.len() as u64, "grid"),
            match args.sample {
                Some(_) => format!(" (sample, seed {}, random orientations)", args.seed),
                None => String::new(),
            }
        );
    }
    // The tables before the checkpoint: a run that cannot search leaves
    // no file behind.
    let (catalogue, tables) = load_tables(&args.search.tables, quiet)?;
    let mut resumed = match &args.checkpoint {
        Some(path) => open_checkpoint(&args, path, list.fingerprint, &grids, quiet)?,
        None => Resumed::default(),
    };
    let todo: Vec<(usize, Grid)> = grids
        .iter()
        .filter(|(i, _)| !resumed.previous.contains_key(i))
        .copied()
        .collect();
    let report = Mutex::new(Report {
        earlier_times: resumed.earlier_times.len(),
        times: std::mem::take(&mut resumed.earlier_times),
        ..Report::default()
    });
    let searcher = Searcher::new(&catalogue, &tables, config).with_split_rows_after(todo.len());
    let search_start = Instant::now();
    let totals = search_grids(
        &args,
        &grids,
        &index,
        &todo,
        &mut resumed,
        &report,
        |g| searcher.search(g),
        quiet,
    )?;
    let report = report.into_inner().expect("no panic");
    if !quiet {
        let stages = tracing::enabled!(tracing::Level::INFO);
        summary(
            "validate",
            "17",
            &totals,
            list.bad,
            search_start.elapsed(),
            stages,
        );
        final_report(&report, &grids);
    }
    Ok(list.bad == 0 && report.missed == 0 && report.invalid == 0)
}

/// A validation with a checkpoint as a resumable run.
fn checkpoint_run(path: &Path, quiet: bool) -> Resumable<'_> {
    Resumable {
        stop: STOP,
        output: path,
        quiet,
    }
}

/// The list at `path` (`-`: standard input), each line checked; its bad
/// lines reported. An empty list is an error.
fn read_list(path: &Path) -> anyhow::Result<List> {
    let (name, bytes) = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("cannot read <stdin>")?;
        ("<stdin>".to_string(), bytes)
    } else {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {name}"))?;
        (name, bytes)
    };
    let mut fingerprint = Fingerprint::new();
    fingerprint.update(&bytes);
    let text = String::from_utf8_lossy(s17::grid::without_bom(&bytes));
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !is_skippable(l))
        .collect();
    if lines.is_empty() {
        return Err(no_items("puzzle", &name));
    }
    let checked: Vec<_> = lines
        .par_iter()
        .map(|&(line, t)| (line, check_line(t.trim())))
        .collect();
    let mut good = Vec::with_capacity(checked.len());
    let mut bad = BadLines::new("validate");
    for (line, result) in checked {
        match result {
            Ok((puzzle, solution)) => good.push(KnownPuzzle {
                line,
                puzzle,
                solution,
            }),
            Err(e) => bad.report(format_args!("{name}: {}", describe(line, &e))),
        }
    }
    bad.finish();
    Ok(List {
        name,
        fingerprint: fingerprint.finish(),
        good,
        bad: bad.count(),
    })
}

/// Opens the checkpoint at `path` for the list of `fingerprint` (resumed
/// unless `--force`): the grids done before, their 17s and times, and
/// the times file to append to.
fn open_checkpoint(
    args: &Args,
    path: &Path,
    fingerprint: u64,
    grids: &[(usize, Grid)],
    quiet: bool,
) -> anyhow::Result<Resumed> {
    let detail = format!("sample={:?} seed={}", args.sample, args.seed);
    let header = checkpoint_header("validate", fingerprint, &detail);
    let mode = if args.force {
        OpenMode::Overwrite
    } else {
        OpenMode::Resume
    };
    // A new checkpoint finds no `FILE.times` of another: the times of this
    // run would be appended to a file of the user's (h56).
    let times = times_path(path);
    let new_run = !path.exists() && !s17::output::checkpoint_path(path).exists();
    if !args.force && new_run && times.exists() {
        anyhow::bail!(
            "{} exists, but {} and its checkpoint do not: it is no file of this run, and the \
             run would append its times to it; move it away, or pass --force to start over",
            times.display(),
            path.display()
        );
    }
    let opened = checkpoint_run(path, quiet).open(&header, mode, None)?;
    let state = opened.state;
    let mut previous: BTreeMap<usize, Vec<Puzzle>> = BTreeMap::new();
    for &i in &state.done {
        previous.entry(i).or_default();
    }
    for (i, p) in state.found {
        previous.entry(i).or_default().push(p);
    }
    if !quiet && !state.done.is_empty() {
        eprintln!(
            "s17 validate: {} done before, {} to go",
            counted(state.done.len() as u64, "grid"),
            grids.len() - state.done.len()
        );
    }
    if args.force {
        match std::fs::remove_file(&times) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("cannot remove {}", times.display()));
            }
            _ => {}
        }
    }
    let earlier_times = read_times(&times, &state.done)?;
    let times_file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&times)
        .with_context(|| format!("cannot open {}", times.display()))?;
    Ok(Resumed {
        files: Some(opened.files),
        previous,
        earlier_times,
        times_file: Some(Mutex::new(times_file)),
    })
}

/// Compares the grids done before with the list, then searches `todo`
/// (Ctrl-C stops it after the grids in progress when there is a
/// checkpoint to go on from, at once without), comparing each grid as it
/// ends and keeping its time.
#[allow(clippy::too_many_arguments)]
fn search_grids(
    args: &Args,
    grids: &[(usize, Grid)],
    index: &KnownIndex,
    todo: &[(usize, Grid)],
    resumed: &mut Resumed,
    report: &Mutex<Report>,
    search: impl Fn(&Grid) -> Result<s17::search::GridResult, s17::tables::TableError> + Sync,
    quiet: bool,
) -> anyhow::Result<Totals> {
    let times_failed = AtomicBool::new(false);
    let times_file = &resumed.times_file;
    let check = |position: usize, found: &[Puzzle], elapsed: Option<Duration>| {
        let grid = grids[position - 1].1;
        let lines = compare(
            &grid,
            &index.expected(&grid),
            found,
            &mut report.lock().expect("no panic"),
        );
        let mut out = std::io::stdout().lock();
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
        let _ = out.flush();
        if let Some(t) = elapsed {
            report
                .lock()
                .expect("no panic")
                .times
                .push((t.as_secs_f64(), position));
            // After the grid's checkpoint line: a kill loses at most the
            // time of a grid kept as finished.
            if let Some(file) = times_file {
                let line = format!("{position}\t{:.6}\n", t.as_secs_f64());
                let written = file.lock().expect("no panic").write_all(line.as_bytes());
                if written.is_err() && !times_failed.swap(true, Ordering::Relaxed) {
                    eprintln!(
                        "s17 validate: cannot write the search times ({written:?}); the 17s are kept"
                    );
                }
            }
        }
    };
    for (position, found) in &resumed.previous {
        check(*position, found, None);
    }
    let run = args
        .checkpoint
        .as_deref()
        .map(|path| checkpoint_run(path, quiet));
    let compared = Arc::new(AtomicUsize::new(0));
    let bar = match &run {
        Some(run) => run.start(todo.len(), "0 17s")?,
        None => {
            stop_at_once(Arc::clone(&compared), todo.len())?;
            progress_bar(todo.len() as u64, quiet, "grids", "0 17s")
        }
    };
    let totals = scan(
        todo,
        resumed.files.as_mut(),
        Some(interrupt::flag()),
        search,
        |position, result| {
            check(position, &result.puzzles, Some(result.cpu_time));
            let found = report.lock().expect("no panic").found as u64;
            bar.set_message(counted(found, "17"));
            bar.inc(1);
            compared.fetch_add(1, Ordering::SeqCst);
        },
    )?;
    match &run {
        Some(run) => run.end(&bar, grids.len() - todo.len(), totals.grids, todo.len())?,
        None => bar.finish_and_clear(),
    }
    Ok(totals)
}

/// Without `--checkpoint`, Ctrl-C stops at once (nothing is kept to go
/// on from), saying how many of the `todo` grids were searched and
/// compared (`compared`, their lines printed) and how to make a run that
/// resumes.
fn stop_at_once(compared: Arc<AtomicUsize>, todo: usize) -> anyhow::Result<()> {
    interrupt::install_at_once("validate", move || {
        format!(
            "{} of {} searched and compared with the list (their lines printed); nothing is \
             kept: with --checkpoint FILE a validation goes on from where it stopped",
            compared.load(Ordering::SeqCst),
            counted(todo as u64, "grid")
        )
    })
}

/// The lines after the summary: the comparison with the list, and the
/// CPU time per grid (the slowest grids when earlier runs timed some).
fn final_report(report: &Report, grids: &[(usize, Grid)]) {
    eprintln!(
        "s17 validate: {} known 17s expected, {} found, {} missed, {} new, {} invalid",
        report.expected, report.found, report.missed, report.new, report.invalid
    );
    let mut times = report.times.clone();
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let Some(&(max, at)) = times.last() else {
        return;
    };
    let total: f64 = times.iter().map(|t| t.0).sum();
    let mean = total / times.len() as f64;
    eprintln!(
        "s17 validate: CPU time per grid: mean {mean:.3} s, median {:.3} s, max {max:.3} s ({})",
        times[times.len() / 2].0,
        grids[at - 1].1
    );
    if report.earlier_times > 0 {
        eprintln!(
            "s17 validate: {} timed ({} in earlier runs), {:.2} CPU hours of search in all; slowest:",
            counted(times.len() as u64, "grid"),
            report.earlier_times,
            total / 3600.0
        );
        for &(secs, at) in times.iter().rev().take(5) {
            eprintln!(
                "s17 validate:   {secs:.3} s\tgrid {at}\t{}",
                grids[at - 1].1
            );
        }
    }
}

/// The file of search times beside checkpoint `FILE`: `FILE.times`, one
/// line `GRID<TAB>SECONDS` per finished grid (GRID its number in the run,
/// SECONDS its CPU time, `GridResult::cpu_time`; files of s17 before
/// 2026-11-25 hold wall times).
/// Derived data, for the report: a grid whose line a kill cut is left out
/// of the times, not of the results.
fn times_path(checkpoint: &Path) -> PathBuf {
    let mut name = checkpoint.as_os_str().to_owned();
    name.push(".times");
    name.into()
}

/// The (seconds, grid) of earlier runs for the grids of `done`, from the
/// times file at `path` (none when it does not exist); for a grid timed
/// twice, the last line. A line that is not `GRID<TAB>SECONDS` (a partial
/// last line) is left out.
fn read_times(path: &Path, done: &BTreeSet<usize>) -> anyhow::Result<Vec<(f64, usize)>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut times = BTreeMap::new();
    for line in text.split_inclusive('\n').filter(|l| l.ends_with('\n')) {
        let parsed = line.trim_end().split_once('\t').and_then(|(grid, secs)| {
            Some((grid.parse::<usize>().ok()?, secs.parse::<f64>().ok()?))
        });
        if let Some((grid, secs)) = parsed
            && done.contains(&grid)
            && secs.is_finite()
        {
            times.insert(grid, secs);
        }
    }
    Ok(times.into_iter().map(|(grid, secs)| (secs, grid)).collect())
}

/// The grids to search, numbered from 1: every grid of the list in its
/// minlex form, or `sample` of them drawn with the seed, each moved by a
/// random transform drawn from the same generator.
fn choose_grids(index: &KnownIndex, sample: Option<usize>, seed: u64) -> Vec<(usize, Grid)> {
    let all: Vec<Grid> = index.entries().into_iter().map(|(g, _)| *g).collect();
    let chosen: Vec<Grid> = match sample {
        None => all,
        Some(n) => {
            let mut rng = fastrand::Rng::with_seed(seed);
            let mut order: Vec<usize> = (0..all.len()).collect();
            rng.shuffle(&mut order);
            order.truncate(n);
            order
                .into_iter()
                .map(|i| Transform::random(&mut rng).apply_grid(&all[i]))
                .collect()
        }
    };
    chosen
        .into_iter()
        .enumerate()
        .map(|(i, g)| (i + 1, g))
        .collect()
}

/// Compares the 17s found on a grid with those the list predicts; returns
/// the report lines (`missed`, `new`, `invalid`, tab-separated with the grid).
fn compare(grid: &Grid, expected: &[Puzzle], found: &[Puzzle], report: &mut Report) -> Vec<String> {
    let mut found = found.to_vec();
    found.sort();
    let mut lines = Vec::new();
    report.expected += expected.len();
    report.found += found.len();
    for p in expected {
        if found.binary_search(p).is_err() {
            report.missed += 1;
            lines.push(format!("missed\t{grid}\t{p}"));
        }
    }
    for p in &found {
        if expected.binary_search(p).is_ok() {
            continue;
        }
        let problem = if p.clue_count() != 17 {
            Some(format!("{} clues", p.clue_count()))
        } else if !p.agrees_with(grid) {
            Some("does not agree with the grid".to_string())
        } else if count_solutions(p, 2) != 1 {
            Some("not unique".to_string())
        } else {
            None
        };
        match problem {
            None => {
                report.new += 1;
                lines.push(format!("new\t{grid}\t{p}"));
            }
            Some(why) => {
                report.invalid += 1;
                lines.push(format!("invalid\t{grid}\t{p}\t{why}"));
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use s17::generate::random_grid;

    #[test]
    fn compare_reports_missed_new_and_invalid() {
        let grid = random_grid(&mut fastrand::Rng::with_seed(1));
        let first = |n: u32| Puzzle::from_grid(&grid, (1u128 << n) - 1);
        let (a, b) = (
            first(17),
            Puzzle::from_grid(&grid, ((1u128 << 17) - 1) << 60),
        );
        let mut report = Report::default();
        let mut found = vec![first(16), b];
        found.sort();
        let lines = compare(&grid, &[a], &found, &mut report);
        assert_eq!((report.expected, report.found, report.missed), (1, 2, 1));
        // Neither found puzzle is a valid 17 (16 clues; 17 clues in three
        // rows leave many solutions).
        assert_eq!((report.new, report.invalid), (0, 2));
        assert!(lines.contains(&format!("missed\t{grid}\t{a}")));
        assert!(lines.contains(&format!("invalid\t{grid}\t{}\t16 clues", first(16))));
        assert!(lines.contains(&format!("invalid\t{grid}\t{b}\tnot unique")));
    }
}
