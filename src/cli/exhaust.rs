//! `s17 exhaust`: every 17 of a slice of the ED catalogue (or a range of
//! its entries), entries searched in parallel with the bands-1+2 work shared
//! by their bands 3 (`s17::exhaust`), results in a resumable output file
//! (`s17::output::ResultFiles`, checkpoint per entry).

use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use indicatif::ProgressBar;

use s17::band::BANDS;
use s17::ed::{Ed, Entry};
use s17::exhaust::estimate::{self, slice_counts};
use s17::exhaust::{Exhauster, RunTotals, checkpoint_header, driver};
use s17::search::{SearchConfig, Searcher};

use super::common::{
    GoalArgs, SearchArgs, counted, counted_as, load_tables, open_mode, progress_bar, read_known,
    report_new, table_path,
};
use super::enumerate::{parse_range, parse_slices};
use super::resumable::{Opened, Resumable, refuse_output_as_input};
use super::search::format_counters;
use super::{Outcome, Usage, interrupt};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The slice: catalogue index of band 1 (0-415).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u16).range(0..BANDS as i64), required_unless_present = "estimate")]
    pub band: Option<u16>,
    /// Only the entries numbered A to B-1 of the slice (from 0; `A..` to
    /// the end).
    #[arg(long, value_name = "A..B", value_parser = parse_range)]
    pub entries: Option<Range<u64>>,
    /// Output file: one line `ENTRY<TAB>PUZZLE` per puzzle found (a 17, or
    /// of --clues N; PUZZLE in minlex form, each once per file). Its
    /// checkpoint is `FILE.done`.
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
    one: "entry",
    what: "results",
};

pub fn run(args: Args, quiet: bool) -> Outcome {
    let config = args.search.start(args.threads)?;
    match args.estimate {
        Some(n) => estimate(&args, n, config, quiet),
        None => exhaust(&args, config, quiet),
    }
}

/// The entries of slice `k` that `--entries` asks for (`..u64::MAX`: to
/// the slice's end); a range that runs past the slice's end is a usage
/// error, in the slice's own numbers.
fn entry_range(k: usize, entries: Option<Range<u64>>) -> anyhow::Result<Range<u64>> {
    let range = entries.unwrap_or(0..u64::MAX);
    let count = slice_counts()[k].0;
    let open = range.end == u64::MAX;
    if range.start >= count || (!open && range.end > count) {
        let given = if open {
            format!("{}..", range.start)
        } else {
            format!("{}..{}", range.start, range.end)
        };
        return Err(Usage(format!(
            "--entries {given}: slice {k} has {}, numbered 0 to {} (give A..B with B at most {count})",
            counted(count, "entry"),
            count.saturating_sub(1),
        ))
        .into());
    }
    Ok(range)
}

/// `exhaust --band K -o FILE`: the entries of the slice not done yet,
/// searched in parallel into the result files.
fn exhaust(args: &Args, config: SearchConfig, quiet: bool) -> Outcome {
    let k = usize::from(args.band.expect("clap requires --band"));
    let output = args.output.clone().expect("clap requires --output");
    let range = entry_range(k, args.entries.clone())?;
    let tables_path = table_path(args.search.tables.tables.as_deref())?;
    let mut inputs = vec![("band table file", tables_path.as_path())];
    if let Some(known) = &args.known {
        inputs.push(("known list", known.as_path()));
    }
    refuse_output_as_input(&output, &inputs)?;
    let span = tracing::info_span!("exhaust", k, entries = ?range);
    let _enter = span.enter();
    let known = read_known(args.known.as_deref())?.map(Arc::new);
    // The tables before the output: a run that cannot search leaves no
    // file behind.
    let (_, tables) = load_tables(&args.search.tables, quiet)?;
    let run = Resumable {
        stop: STOP,
        output: &output,
        quiet,
    };
    let goal = args.goal.goal();
    let header = checkpoint_header(k, &range, &config, &goal);
    let mode = open_mode(args.resume, args.force);
    let mut opened = run.open(&header, mode, known.as_ref())?;
    let ed = Ed::new();
    let mut todo: Vec<Entry> = Vec::new();
    ed.for_each_entry(k, range, |e| {
        if !opened.state.done.contains(&(e.number as usize)) {
            todo.push(*e);
        }
    });
    if args.resume {
        let what = goal.clues.to_string();
        run.say_resuming(&opened.state, todo.len(), &what);
    }
    let exhauster = Exhauster::new(&ed, &tables, config).with_goal(goal);
    let what = goal.clues.to_string();
    let bar = run.start(todo.len(), &format!("0 grids, 0 {what}s"))?;
    let start = Instant::now();
    let totals =
        search_entries(&exhauster, (k, &what), &todo, &mut opened, &bar).with_context(|| {
            format!(
                "exhaust stopped; rerun with --resume to continue {}",
                output.display()
            )
        })?;
    let before = opened.state.done.len();
    run.end(&bar, before, totals.entries, todo.len())?;
    if !quiet {
        summary((k, &what), &totals, start.elapsed().as_secs_f64(), &opened);
        if let Some(path) = &args.known {
            report_new("exhaust", path, &opened.files, opened.new_before);
        }
        if args.stats {
            // The entries' thread CPU time: the stats' own cpu and total
            // times are those of one-grid searches, not kept here.
            eprintln!(
                "s17 exhaust: stages: {} harvest {:.3}s cpu {:.3}s",
                format_counters(&totals.stats),
                totals.stats.harvest_time.as_secs_f64(),
                totals.cpu.as_secs_f64()
            );
        }
    }
    Ok(true)
}

/// Searches the entries `todo` of slice `k` into the result files
/// ([`driver::run_entries`]); after Ctrl-C no entry starts, and those in
/// progress finish.
fn search_entries<B: AsRef<[u8]> + Sync>(
    exhauster: &Exhauster<'_, B>,
    (k, what): (usize, &str),
    todo: &[Entry],
    opened: &mut Opened,
    bar: &ProgressBar,
) -> anyhow::Result<RunTotals> {
    let sinks = driver::Sinks {
        files: &mut opened.files,
        found: &opened.state.found,
        costs: None,
        stop: &interrupt::requested,
    };
    let totals = driver::run_entries(exhauster, k, todo, sinks, &|result, elapsed, totals| {
        bar.set_message(format!(
            "{}, {}",
            counted(totals.grids, "grid"),
            counted(totals.puzzles, what)
        ));
        bar.inc(1);
        tracing::info!(
            entry = result.entry,
            grids = result.grids,
            bands3 = result.bands3,
            found = result.puzzles.len(),
            secs = elapsed.as_secs_f64(),
            "entry done"
        );
    })?;
    Ok(totals)
}

/// The end-of-run lines on stderr: what this run searched and found, its
/// time per ED grid (when it listed some), and what earlier runs did.
fn summary((k, what): (usize, &str), totals: &RunTotals, wall: f64, opened: &Opened) {
    // An ED grid is listed by the entry of its hi visit; the 17s are
    // those of every grid an entry visits, listed there or not.
    let head = format!(
        "s17 exhaust: slice {k}: {} searched ({} visited, {} listed there), {} found in \
         {wall:.1} s",
        counted(totals.entries, "entry"),
        counted_as(totals.bands3, "band 3", "bands 3"),
        counted(totals.grids, "ED grid"),
        counted(totals.puzzles, what),
    );
    let threads = counted(rayon::current_num_threads() as u64, "thread");
    let cpu = totals.cpu.as_secs_f64();
    if totals.entries == 0 {
        // Nothing searched (every entry was done before): no rates.
        eprintln!("{head}");
    } else if totals.grids == 0 {
        eprintln!(
            "{head} ({cpu:.4} s CPU, {wall:.4} s wall, no ED grid listed here to divide by, \
             {threads})"
        );
    } else {
        let grids = totals.grids as f64;
        eprintln!(
            "{head} ({:.4} s CPU per ED grid, {:.4} s wall per ED grid, {threads})",
            cpu / grids,
            wall / grids,
        );
    }
    let state = &opened.state;
    if !state.done.is_empty() {
        eprintln!(
            "s17 exhaust: {} with {} were done before this run",
            counted(state.done.len() as u64, "entry"),
            counted(state.found.len() as u64, what),
        );
    }
}

/// `--estimate N`: the stratified sample (`s17::exhaust::estimate`), a
/// line per slice on stdout, then the estimate for the slices on stderr.
fn estimate(args: &Args, n: u64, config: SearchConfig, quiet: bool) -> Outcome {
    let slices = args.bands.clone().unwrap_or(0..BANDS as u64);
    let slices = slices.start as usize..slices.end as usize;
    let (band_catalogue, tables) = load_tables(&args.search.tables, quiet)?;
    let ed = Ed::new();
    let goal = args.goal.goal();
    let exhauster = Exhauster::new(&ed, &tables, config).with_goal(goal);
    let searcher = Searcher::new(&band_catalogue, &tables, config).with_goal(goal);
    if !quiet {
        eprintln!(
            "s17 exhaust: walking to {n} sampled entries of each slice of {}..{} (about 3 \
             minutes for all 416 slices)",
            slices.start, slices.end
        );
    }
    let jobs = estimate::sample(&ed, slices.clone(), n, args.seed);
    let bar = progress_bar(jobs.len() as u64, quiet, "entries", "0 ED grids");
    let compare = args.compare.then_some(&searcher);
    let e = estimate::estimate(&exhauster, compare, &jobs, slices.clone(), |grids| {
        bar.set_message(counted(grids, "ED grid"));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "# K\tENTRIES\tGRIDS\tSAMPLED\tBANDS3\tHI_GRIDS\tSECONDS\tSLICE_SECONDS\tONE_GRID_SECONDS"
    )?;
    for s in &e.slices {
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{:.3}\t{:.0}\t{:.3}",
            s.k,
            s.entries,
            s.grids,
            s.sampled,
            s.bands3,
            s.hi_grids,
            s.secs,
            s.slice_secs,
            s.one_grid
        )?;
    }
    out.flush()?;
    let error = match e.standard_error() {
        Some(error) => format!(
            ", standard error {error:.4} (the spread of the sampled entries within their slices)"
        ),
        None => String::new(),
    };
    // A Julian year of CPU seconds.
    const CORE_YEAR: f64 = 365.25 * 24.0 * 3600.0;
    eprintln!(
        "s17 exhaust: estimate over slices {}..{}{}: {} sampled ({:.1} s of search, {} in \
         them); {:.3e} s for {} = {:.4} s per grid (one thread), {:.1} core-years{error}",
        slices.start,
        slices.end,
        goal,
        counted(e.sampled_entries as u64, "entry"),
        e.sampled_secs,
        counted(e.sampled_grids, "ED grid"),
        e.total,
        counted(e.grids, "ED grid"),
        e.per_grid(),
        e.total / CORE_YEAR,
    );
    if args.compare && e.sampled_grids > 0 {
        let grids = e.sampled_grids as f64;
        eprintln!(
            "s17 exhaust: the sample's {} searched one by one: {:.4} s per grid; exhaust on \
             the same entries: {:.4} s per grid of theirs ({:.2} times less)",
            counted(e.sampled_grids, "ED grid"),
            e.one_grid / grids,
            e.sampled_secs / grids,
            e.one_grid / e.sampled_secs.max(f64::MIN_POSITIVE),
        );
    }
    Ok(true)
}
