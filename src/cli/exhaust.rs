//! `s17 exhaust`: every 17 of a slice of the ED catalogue (or a range of
//! its entries), entries searched in parallel with the bands-1+2 work shared
//! by their bands 3 (`crate::exhaust`), results in a resumable output file
//! (`crate::scan::ResultFiles`, checkpoint per entry).

use std::collections::HashSet;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::ed::{Ed, Entry};
use crate::exhaust::Exhauster;
use crate::grid::Puzzle;
use crate::known::{KnownSet, describe};
use crate::scan::{Fingerprint, OpenMode, ResultFiles, checkpoint_header, new_path};
use crate::search::Stats;

use super::Outcome;
use super::common::{TablesArg, TuningArgs, init_threads, load_tables};
use super::enumerate::parse_range;
use super::search::format_stats;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The slice: catalogue index of band 1 (0-415).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u16).range(0..416))]
    pub band: u16,
    /// Only the entries numbered A to B-1 of the slice (from 0; `A..` to
    /// the end).
    #[arg(long, value_name = "A..B", value_parser = parse_range)]
    pub entries: Option<Range<u64>>,
    /// Output file: one line `ENTRY<TAB>PUZZLE` per 17 (PUZZLE in minlex
    /// form, each once per file). Its checkpoint is `FILE.done`.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
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
    /// Worker threads (0 = all cores); entries are searched in parallel.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[command(flatten)]
    pub tables: TablesArg,
    #[command(flatten)]
    pub tuning: TuningArgs,
}

/// What the run did, over the entries it searched.
#[derive(Default)]
struct Totals {
    entries: u64,
    grids: u64,
    bands3: u64,
    puzzles: u64,
    cpu: Duration,
    stats: Stats,
}

pub fn run(args: Args, quiet: bool) -> Outcome {
    let config = args.tuning.config()?;
    init_threads(args.threads)?;
    let k = usize::from(args.band);
    let range = args.entries.clone().unwrap_or(0..u64::MAX);
    let span = tracing::info_span!("exhaust", k, entries = ?range);
    let _enter = span.enter();
    let known = match &args.known {
        None => None,
        Some(path) => {
            let (set, bad) = KnownSet::read(path)?;
            if let Some((line, err)) = bad.first() {
                bail!("{}: {}", path.display(), describe(*line, err));
            }
            Some(Arc::new(set))
        }
    };
    let mode = match (args.resume, args.force) {
        (true, _) => OpenMode::Resume,
        (false, true) => OpenMode::Overwrite,
        (false, false) => OpenMode::Create,
    };
    // The checkpoint names the piece of work: a resume with another slice,
    // range or tuning is refused.
    let detail = format!(
        "band={k} entries={}..{}",
        range.start,
        if range.end == u64::MAX {
            String::new()
        } else {
            range.end.to_string()
        },
    );
    let mut fingerprint = Fingerprint::new();
    fingerprint.update(format!("{detail} {config:?}").as_bytes());
    let header = checkpoint_header("exhaust", fingerprint.finish(), &detail);
    let (mut files, state) = ResultFiles::open(&args.output, &header, mode)?;
    let new_before = match &known {
        Some(set) => files.track_new(Arc::clone(set), &state.found)?,
        None => 0,
    };
    let (_, tables) = load_tables(&args.tables, quiet)?;
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
        );
    }
    let exhauster = Exhauster::new(&ed, &tables, config);
    let bar = progress_bar(todo.len() as u64, quiet);
    let seen: HashSet<Puzzle> = state.found.iter().map(|(_, p)| *p).collect();
    let shared = Mutex::new((&mut files, seen, Totals::default()));
    let start = Instant::now();
    let outcome = todo.par_iter().try_for_each(|entry| {
        let entry_start = Instant::now();
        let result = exhauster
            .search_entry(k, entry)
            .with_context(|| format!("slice {k}, entry {}", entry.number))?;
        let elapsed = entry_start.elapsed();
        let mut guard = shared.lock().expect("no panic while recording");
        let (files, seen, totals) = &mut *guard;
        // Each 17 once per file: one found before (another entry, an
        // image under an automorphism) is not written again.
        let fresh: Vec<Puzzle> = result
            .puzzles
            .iter()
            .copied()
            .filter(|p| seen.insert(*p))
            .collect();
        files.record(entry.number as usize, &fresh)?;
        totals.entries += 1;
        totals.grids += result.grids;
        totals.bands3 += result.bands3;
        totals.puzzles += fresh.len() as u64;
        totals.cpu += elapsed;
        totals.stats += result.stats;
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
    let (files, _, totals) = shared.into_inner().expect("no panic while recording");
    files.sync()?;
    outcome.with_context(|| {
        format!(
            "exhaust stopped; rerun with --resume to continue {}",
            args.output.display()
        )
    })?;
    bar.finish_and_clear();
    if !quiet {
        let wall = start.elapsed().as_secs_f64();
        let grids = totals.grids.max(1) as f64;
        eprintln!(
            "s17 exhaust: slice {k}: {} entries, {} ED grids ({} bands 3), {} 17s in {wall:.1} s \
             ({:.4} s per grid of one thread, {:.4} s wall per grid, {} threads)",
            totals.entries,
            totals.grids,
            totals.bands3,
            totals.puzzles,
            totals.cpu.as_secs_f64() / grids,
            wall / grids,
            rayon::current_num_threads(),
        );
        if !state.done.is_empty() {
            eprintln!(
                "s17 exhaust: {} entries with {} 17s were done before this run",
                state.done.len(),
                state.found.len()
            );
        }
        if let Some(path) = &args.known {
            let total = files.new_lines();
            eprintln!(
                "s17 exhaust: {} new 17s (not in {}) found in this run, {total} in all in {}",
                total - new_before,
                path.display(),
                new_path(&args.output).display()
            );
        }
        if args.stats {
            eprintln!("s17 exhaust: stages: {}", format_stats(&totals.stats));
        }
    }
    Ok(true)
}

/// A progress bar on stderr: entries done, grids and 17s (the message),
/// entries/s, ETA. Hidden with `quiet` (and by indicatif when stderr is no
/// terminal).
fn progress_bar(len: u64, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {pos}/{len} entries, {msg}, {per_sec}, ETA {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message("0 grids, 0 17s");
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}
