//! `s17 exhaust`: every 17 of a slice of the ED catalogue (or a range of
//! its entries), entries searched in parallel with the bands-1+2 work shared
//! by their bands 3 (`crate::exhaust`), results in a resumable output file
//! (`crate::output::ResultFiles`, checkpoint per entry).

use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{Context, bail};
use rayon::prelude::*;

use crate::band::BANDS;
use crate::ed::{Ed, Entry, counts};
use crate::exhaust::{EntryRecorder, Exhauster};
use crate::output::ResultFiles;
use crate::search::ThreadClock;

use super::common::{
    GoalArgs, SearchArgs, load_tables, open_mode, progress_bar, read_known, report_new,
    warn_untracked_new,
};
use super::enumerate::{parse_range, parse_slices};
use super::search::format_stats;
use super::{Outcome, interrupt};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The slice: catalogue index of band 1 (0-415).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u16).range(0..BANDS as i64), required_unless_present = "estimate")]
    pub band: Option<u16>,
    /// Only the entries numbered A to B-1 of the slice (from 0; `A..` to
    /// the end).
    #[arg(long, value_name = "A..B", value_parser = parse_range)]
    pub entries: Option<Range<u64>>,
    /// Output file: one line `ENTRY<TAB>PUZZLE` per 17 (PUZZLE in minlex
    /// form, each once per file). Its checkpoint is `FILE.done`.
    #[arg(
        long,
        short = 'o',
        value_name = "FILE",
        required_unless_present = "estimate"
    )]
    pub output: Option<PathBuf>,
    /// Continue an interrupted run of the same slice and entries (starts a
    /// new one if FILE and FILE.done do not exist).
    #[arg(long, conflicts_with = "force")]
    pub resume: bool,
    /// Overwrite FILE and FILE.done if they exist.
    #[arg(long)]
    pub force: bool,
    /// A list of known 17s: the 17s found whose minlex form is not in it
    /// also go to FILE.new. Pass it on every run (resumes included).
    #[arg(long, value_name = "KNOWN")]
    pub known: Option<PathBuf>,
    /// Print the stage counters at the end.
    #[arg(long)]
    pub stats: bool,
    /// Estimate the time of the whole catalogue instead: search N random
    /// entries of each slice of --bands (default all), one thread each, and
    /// print per slice `K ENTRIES GRIDS SAMPLED BANDS3 HI_GRIDS SECONDS
    /// SLICE_SECONDS ONE_GRID_SECONDS` (tab-separated; the sample's time,
    /// and the slice's estimated time: mean time per entry times its
    /// entries, from data/ed-counts.tsv), then the estimate per ED grid
    /// and, for N of 2 or more, its standard error.
    #[arg(long, value_name = "N", conflicts_with_all = ["band", "output", "resume", "force"])]
    pub estimate: Option<u64>,
    /// With --estimate: the slices sampled.
    #[arg(long, value_name = "A..B", value_parser = parse_slices, requires = "estimate")]
    pub bands: Option<Range<u64>>,
    /// With --estimate: the seed of the sample.
    #[arg(long, default_value_t = 17, requires = "estimate")]
    pub seed: u64,
    /// With --estimate: also search the ED grids of the sampled entries
    /// one by one (`s17 search`), and add their time per grid.
    #[arg(long, requires = "estimate")]
    pub compare: bool,
    /// Worker threads (0 = all cores); entries are searched in parallel.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[command(flatten)]
    pub goal: GoalArgs,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// How Ctrl-C stops a run.
const STOP: interrupt::Stop = interrupt::Stop {
    command: "exhaust",
    first: "the entries in progress finish and are recorded, then the run stops",
    resume: "the same command with --resume continues",
    unit: "entries",
    what: "results",
};

pub fn run(args: Args, quiet: bool) -> Outcome {
    let config = args.search.start(args.threads)?;
    if let Some(n) = args.estimate {
        return estimate(&args, n, config, quiet);
    }
    let k = usize::from(args.band.expect("clap requires --band"));
    let output = args.output.clone().expect("clap requires --output");
    let range = args.entries.clone().unwrap_or(0..u64::MAX);
    let entries = slice_counts()[k].0;
    if range.end != u64::MAX && range.end > entries && !quiet {
        eprintln!(
            "s17 exhaust: warning: slice {k} has {entries} entries (0..{entries}); --entries {}..{} {}",
            range.start,
            range.end,
            if range.start >= entries {
                "holds none of them: nothing to search".to_string()
            } else {
                format!(
                    "runs past its end: entries {}..{entries} are searched",
                    range.start
                )
            }
        );
    }
    let span = tracing::info_span!("exhaust", k, entries = ?range);
    let _enter = span.enter();
    let known = read_known(args.known.as_deref())?.map(Arc::new);
    // The tables before the output: a run that cannot search leaves no
    // file behind.
    let (_, tables) = load_tables(&args.search.tables, quiet)?;
    let mode = open_mode(args.resume, args.force);
    let goal = args.goal.goal();
    let header = crate::exhaust::checkpoint_header(k, &range, &config, &goal);
    let (mut files, state) = ResultFiles::open(&output, &header, mode)?;
    let new_before = match &known {
        Some(set) => files.track_new(Arc::clone(set), &state.found)?,
        None => {
            warn_untracked_new("exhaust", &files, quiet);
            0
        }
    };
    let ed = Ed::new();
    let mut todo: Vec<Entry> = Vec::new();
    ed.for_each_entry(k, range.clone(), |e| {
        if !state.done.contains(&(e.number as usize)) {
            todo.push(*e);
        }
    });
    if args.resume && !quiet {
        let r = &state.repair;
        eprintln!(
            "s17 exhaust: resuming {}: {} entries done ({} 17s kept), {} to go; dropped {} lines of unfinished entries{}",
            output.display(),
            r.kept_grids,
            r.kept_lines,
            todo.len(),
            r.dropped_lines,
            if r.partial_output {
                ", a partial last line"
            } else {
                ""
            },
        );
    }
    let exhauster = Exhauster::new(&ed, &tables, config).with_goal(goal);
    interrupt::install(STOP, quiet)?;
    let bar = progress_bar(todo.len() as u64, quiet, "entries", "0 grids, 0 17s");
    interrupt::show_on(&bar);
    let shared = Mutex::new(EntryRecorder::new(&mut files, &state.found));
    let start = Instant::now();
    let outcome = todo.par_iter().try_for_each(|entry| {
        // After Ctrl-C no entry starts; those in progress finish.
        if interrupt::requested() {
            return Ok(());
        }
        // An entry runs on one thread, with no rayon inside: its thread's
        // CPU time is its cost, whatever else the machine does.
        let clock = ThreadClock::start();
        let result = exhauster
            .search_entry(k, entry)
            .with_context(|| format!("slice {k}, entry {}", entry.number))?;
        let elapsed = clock.elapsed();
        let mut recorder = shared.lock().expect("no panic while recording");
        recorder.record(&result, elapsed)?;
        let totals = recorder.totals();
        bar.set_message(format!("{} grids, {} 17s", totals.grids, totals.puzzles));
        bar.inc(1);
        tracing::info!(
            entry = entry.number,
            grids = result.grids,
            bands3 = result.bands3,
            found = result.puzzles.len(),
            secs = elapsed.as_secs_f64(),
            "entry done"
        );
        anyhow::Ok(())
    });
    let recorder = shared.into_inner().expect("no panic while recording");
    let totals = recorder.finish()?;
    outcome.with_context(|| {
        format!(
            "exhaust stopped; rerun with --resume to continue {}",
            output.display()
        )
    })?;
    interrupt::check(STOP, state.done.len(), totals.entries, todo.len(), &output)?;
    bar.finish_and_clear();
    if !quiet {
        let wall = start.elapsed().as_secs_f64();
        // The ED grids are those the entries list (each by its hi visit);
        // the 17s are those of every grid visited, listed here or not.
        let head = format!(
            "s17 exhaust: slice {k}: {} entries, {} ED grids (listed here, by their hi visit; \
             {} bands 3 searched, on every visit), {} 17s (of every grid visited) in {wall:.1} s",
            totals.entries, totals.grids, totals.bands3, totals.puzzles,
        );
        let threads = rayon::current_num_threads();
        if totals.entries == 0 {
            // Nothing searched (every entry was done before): no rates.
            eprintln!("{head}");
        } else if totals.grids == 0 {
            // Entries searched that hold no ED grid of their own: their
            // time, but no rate per grid.
            eprintln!(
                "{head} ({:.4} s CPU, {wall:.4} s wall, no ED grid listed here to divide by, \
                 {threads} threads)",
                totals.cpu.as_secs_f64(),
            );
        } else {
            let grids = totals.grids as f64;
            eprintln!(
                "{head} ({:.4} s CPU per grid, {:.4} s wall per grid, {} threads)",
                totals.cpu.as_secs_f64() / grids,
                wall / grids,
                threads,
            );
        }
        if !state.done.is_empty() {
            eprintln!(
                "s17 exhaust: {} entries with {} 17s were done before this run",
                state.done.len(),
                state.found.len()
            );
        }
        if let Some(path) = &args.known {
            report_new("exhaust", path, &files, new_before);
        }
        if args.stats {
            eprintln!("s17 exhaust: stages: {}", format_stats(&totals.stats));
        }
    }
    Ok(true)
}

/// The committed whole count (`data/ed-counts.tsv`): entries and grids
/// per slice.
fn slice_counts() -> Vec<(u64, u64)> {
    counts::committed()
        .iter()
        .map(|c| (c.entries, c.grids))
        .collect()
}

/// The sampling variance of a slice's estimate (its entries times the mean
/// of `secs`, the seconds of entries sampled uniformly without
/// replacement from its `entries`): entries² s² / n, times the share of
/// entries not sampled; `None` with fewer than two sampled.
fn slice_variance(secs: &[f64], entries: u64) -> Option<f64> {
    let n = secs.len();
    if n as u64 >= entries {
        // Every entry was searched.
        return Some(0.0);
    }
    if n < 2 {
        return None;
    }
    let mean = secs.iter().sum::<f64>() / n as f64;
    let s2 = secs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let entries = entries as f64;
    Some(entries * entries * s2 / n as f64 * (1.0 - n as f64 / entries))
}

/// `--estimate N`: the stratified sample, a line per slice, then the
/// estimate for the whole ED catalogue on stderr, with its standard error
/// when every slice has two or more entries sampled.
fn estimate(args: &Args, n: u64, config: crate::search::SearchConfig, quiet: bool) -> Outcome {
    use crate::search::Searcher;
    let counts = slice_counts();
    let slices = args.bands.clone().unwrap_or(0..counts.len() as u64);
    if slices.end > counts.len() as u64 {
        bail!(
            "--bands {}..{}: slices are 0..{}",
            slices.start,
            slices.end,
            counts.len()
        );
    }
    let (band_catalogue, tables) = load_tables(&args.search.tables, quiet)?;
    let ed = Ed::new();
    let goal = args.goal.goal();
    let exhauster = Exhauster::new(&ed, &tables, config).with_goal(goal);
    let searcher = Searcher::new(&band_catalogue, &tables, config).with_goal(goal);
    // The sampled entries of each slice (distinct, uniform, seeded); the
    // walks to them run in parallel.
    let range = slices.start as usize..slices.end as usize;
    if !quiet {
        eprintln!(
            "s17 exhaust: walking to {n} sampled entries of each slice of {}..{} (about 3 minutes for all 416 slices)",
            slices.start, slices.end
        );
    }
    let jobs: Vec<(usize, Entry)> = range
        .clone()
        .into_par_iter()
        .flat_map_iter(|k| {
            let entries = counts[k].0;
            let mut rng = fastrand::Rng::with_seed(args.seed ^ (k as u64) << 32);
            let mut numbers: Vec<u64> = if entries <= n {
                (0..entries).collect()
            } else {
                let mut set = std::collections::BTreeSet::new();
                while (set.len() as u64) < n {
                    set.insert(rng.u64(..entries));
                }
                set.into_iter().collect()
            };
            numbers.sort();
            let mut found = Vec::new();
            if let Some(&last) = numbers.last() {
                ed.for_each_entry(k, 0..last + 1, |e| {
                    if numbers.binary_search(&e.number).is_ok() {
                        found.push((k, *e));
                    }
                });
            }
            found
        })
        .collect();
    let bar = progress_bar(jobs.len() as u64, quiet, "entries", "0 ED grids");
    let grids_done = std::sync::atomic::AtomicU64::new(0);
    // Per entry: exhaust seconds, hi grids, bands 3, one-grid seconds.
    let results: Vec<(usize, f64, u64, u64, f64)> = jobs
        .par_iter()
        .map(|(k, e)| {
            let clock = ThreadClock::start();
            let r = exhauster.search_entry(*k, e)?;
            let secs = clock.elapsed().as_secs_f64();
            let mut one_grid = 0.0;
            if args.compare {
                for v in exhauster.visits(*k, e) {
                    if v.choices.contains(crate::ed::Choices::HI) {
                        let grid = exhauster.visit_grid(*k, e, &v.band3);
                        one_grid += searcher.search(&grid)?.cpu_time.as_secs_f64();
                    }
                }
            }
            let grids =
                r.grids + grids_done.fetch_add(r.grids, std::sync::atomic::Ordering::Relaxed);
            bar.set_message(format!("{grids} ED grids"));
            bar.inc(1);
            Ok((*k, secs, r.grids, r.bands3, one_grid))
        })
        .collect::<Result<_, crate::tables::TableError>>()?;
    bar.finish_and_clear();
    println!(
        "# K\tENTRIES\tGRIDS\tSAMPLED\tBANDS3\tHI_GRIDS\tSECONDS\tSLICE_SECONDS\tONE_GRID_SECONDS"
    );
    let (mut total, mut sampled_secs, mut sampled_grids, mut one_grid) = (0.0, 0.0, 0u64, 0.0);
    // The sampling variance of the estimate (slices of two or more
    // sampled entries; `None` if any slice has fewer).
    let mut variance = Some(0.0);
    for (k, &(entries, slice_grids)) in counts.iter().enumerate().take(range.end).skip(range.start)
    {
        let mine: Vec<_> = results.iter().filter(|r| r.0 == k).collect();
        let secs: f64 = mine.iter().map(|r| r.1).sum();
        let grids: u64 = mine.iter().map(|r| r.2).sum();
        let bands3: u64 = mine.iter().map(|r| r.3).sum();
        let one: f64 = mine.iter().map(|r| r.4).sum();
        let slice_secs = if mine.is_empty() {
            0.0
        } else {
            secs / mine.len() as f64 * entries as f64
        };
        total += slice_secs;
        variance = variance
            .zip(slice_variance(
                &mine.iter().map(|r| r.1).collect::<Vec<_>>(),
                entries,
            ))
            .map(|(v, w)| v + w);
        sampled_secs += secs;
        sampled_grids += grids;
        one_grid += one;
        println!(
            "{k}\t{entries}\t{slice_grids}\t{}\t{bands3}\t{grids}\t{secs:.3}\t{slice_secs:.0}\t{one:.3}",
            mine.len()
        );
    }
    let grids: u64 = counts[range].iter().map(|c| c.1).sum();
    let error = match variance {
        Some(v) => format!(
            ", standard error {:.4} (the spread of the sampled entries within their slices)",
            v.sqrt() / grids.max(1) as f64
        ),
        None => String::new(),
    };
    eprintln!(
        "s17 exhaust: estimate over slices {}..{}: {} entries sampled ({:.1} s of search, {} ED grids in them); \
         {:.3e} s for {} ED grids = {:.4} s per grid (one thread){error}",
        slices.start,
        slices.end,
        results.len(),
        sampled_secs,
        sampled_grids,
        total,
        grids,
        total / grids.max(1) as f64
    );
    if args.compare && sampled_grids > 0 {
        eprintln!(
            "s17 exhaust: the sample's {} ED grids searched one by one: {:.4} s per grid; \
             exhaust on the same entries: {:.4} s per grid of theirs",
            sampled_grids,
            one_grid / sampled_grids as f64,
            sampled_secs / sampled_grids as f64
        );
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::slice_variance;

    /// The variance against the textbook formula on small cases, brute
    /// force over every sample: the mean of the squared errors of the
    /// slice estimate over all samples of two entries equals it.
    #[test]
    fn slice_variance_is_the_variance_of_the_estimate() {
        let all = [0.5, 1.0, 4.0, 2.5, 0.25];
        let entries = all.len() as u64;
        let total: f64 = all.iter().sum();
        let (mut squared, mut samples, mut predicted) = (0.0, 0.0, 0.0);
        for i in 0..all.len() {
            for j in i + 1..all.len() {
                let estimate = (all[i] + all[j]) / 2.0 * entries as f64;
                squared += (estimate - total).powi(2);
                predicted += slice_variance(&[all[i], all[j]], entries).unwrap();
                samples += 1.0;
            }
        }
        // The estimator of the variance is unbiased: its mean over the
        // samples is the true variance.
        assert!((squared / samples - predicted / samples).abs() < 1e-9);
        assert_eq!(slice_variance(&[1.0], 5), None);
        assert_eq!(slice_variance(&all, entries), Some(0.0));
    }
}
