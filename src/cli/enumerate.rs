//! `s17 enumerate`: the ED catalogue (the essentially different grids), by
//! slice (band 1's index K in the band catalogue) and entry; `--which`
//! places grids and 17s. The counts file is `s17::ed::counts`.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::mpsc::sync_channel;
use std::time::{Duration, Instant};

use anyhow::bail;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use s17::band::{BANDS, Band};
use s17::ed::counts::{self, Appender};
use s17::ed::{Choices, Ed, Entry, SliceCount, Visit, choice_name};
use s17::grid::{Grid, Puzzle};

use super::common::{counted, init_threads};
use super::input::{BadLines, LineSource, is_skippable_bytes, no_items};
use super::resumable::Resumable;
use super::{Outcome, interrupt};

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["band", "all", "bands", "which"])))]
pub struct Args {
    /// The slice: catalogue index of band 1 (0-415).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u16).range(0..BANDS as i64))]
    pub band: Option<u16>,
    /// Only the entries numbered A to B-1 of the slice (from 0).
    #[arg(long, value_name = "A..B", value_parser = parse_range, requires = "band")]
    pub entries: Option<Range<u64>>,
    /// Print `K<TAB>ENTRIES<TAB>GRIDS<TAB>AUTOMORPHISMS` instead of the grids:
    /// entries walked, ED grids, and the grids by automorphism count
    /// (`1:N,2:N,…`).
    #[arg(long)]
    pub count: bool,
    /// Count every slice, one line each, into --output (resumable): the
    /// same as `--bands 0..416`.
    #[arg(long, conflicts_with_all = ["band", "bands"], requires = "output")]
    pub all: bool,
    /// Count the slices A to B-1, one line each, into --output (resumable).
    #[arg(long, value_name = "A..B", value_parser = parse_slices, conflicts_with = "band", requires = "output")]
    pub bands: Option<Range<u64>>,
    /// The counts file of --all or --bands.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// With --all or --bands: keep the slices already in --output and count
    /// the rest.
    #[arg(long, conflicts_with = "force")]
    pub resume: bool,
    /// With --all or --bands: start --output over.
    #[arg(long)]
    pub force: bool,
    /// List every visit of the entries: `ENTRY<TAB>GRID<TAB>CHOICES`
    /// (CHOICES: hi, mid, lo).
    #[arg(long, conflicts_with = "count")]
    pub visits: bool,
    /// For each grid or puzzle of the clue range of FILE ('-': stdin):
    /// where its ED class is visited.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["band", "count", "all", "visits"],
        help = format!(
            "For each grid or puzzle of {} clues of FILE ('-': stdin): \
             `LINE<TAB>CHOICE<TAB>K<TAB>ENTRY<TAB>GRID`, where its ED class is visited \
             (three lines for a grid, one for a puzzle)",
            s17::search::clue_range_text()
        ),
    )]
    pub which: Option<PathBuf>,
    /// Worker threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

pub(super) fn parse_range(text: &str) -> Result<Range<u64>, String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("expected A..B, got {text:?}"))?;
    let a: u64 = a
        .trim()
        .parse()
        .map_err(|e| format!("bad start {a:?}: {e}"))?;
    let b: u64 = if b.trim().is_empty() {
        u64::MAX
    } else {
        b.trim()
            .parse()
            .map_err(|e| format!("bad end {b:?}: {e}"))?
    };
    if a > b {
        return Err(format!("empty range {text}"));
    }
    Ok(a..b)
}

/// A range of slices (`--bands A..B`): [`parse_range`] within
/// `0..416`, an open end (`A..`) meaning the last slice.
pub(super) fn parse_slices(text: &str) -> Result<Range<u64>, String> {
    let range = parse_range(text)?;
    let end = if range.end == u64::MAX {
        BANDS as u64
    } else {
        range.end
    };
    if end > BANDS as u64 || range.start > end {
        return Err(format!("slices are 0 to {}, got {text}", BANDS - 1));
    }
    Ok(range.start..end)
}

pub fn run(args: Args, quiet: bool) -> Outcome {
    init_threads(args.threads)?;
    if let Some(path) = &args.which {
        let ed = Ed::new();
        return which(&ed, path);
    }
    if args.all || args.bands.is_some() {
        let slices = args.bands.clone().unwrap_or(0..BANDS as u64);
        let ed = Ed::new();
        let output = args.output.as_deref().expect("clap requires --output");
        let slices = slices.start as usize..slices.end as usize;
        return count_slices(&ed, slices, output, args.resume, args.force, quiet);
    }
    let k = usize::from(args.band.expect("clap requires a mode"));
    let ed = Ed::new();
    let range = args.entries.clone().unwrap_or(0..u64::MAX);
    if args.count {
        let start = Instant::now();
        let bar = spinner(quiet, "entries");
        let count = count_slice(&ed, k, range, &bar);
        bar.finish_and_clear();
        // Through a locked writer: a closed stdout ends the run quietly.
        writeln!(std::io::stdout().lock(), "{}", counts::line(k, &count))?;
        if !quiet {
            eprintln!(
                "s17 enumerate: slice {k}: {}, {} in {:.1} s",
                counted(count.entries, "entry"),
                counted(count.grids, "ED grid"),
                start.elapsed().as_secs_f64()
            );
        }
        return Ok(true);
    }
    list(&ed, k, range, args.visits)?;
    Ok(true)
}

fn spinner(quiet: bool, what: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} {{pos}} {what}, {{msg}} ED grids, {{per_sec}}"
        ))
        .expect("valid template"),
    );
    bar.set_message("0");
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}

/// Entries of a slice in batches: the walk runs on its own thread while the
/// workers take the batches.
const BATCH: usize = 64;

/// Counts the hi visits of the entries of slice `k` in `range`, the entries
/// shared out among the workers. After Ctrl-C ([`interrupt::requested`])
/// the entries left are skipped: the count is then partial, and dropped
/// by the caller.
fn count_slice(ed: &Ed, k: usize, range: Range<u64>, bar: &ProgressBar) -> SliceCount {
    let (sender, receiver) = sync_channel::<Vec<Entry>>(64);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut batch = Vec::with_capacity(BATCH);
            ed.for_each_entry(k, range, |entry| {
                // After Ctrl-C the walk only runs out (it cannot stop).
                if interrupt::requested() {
                    return;
                }
                batch.push(*entry);
                if batch.len() == BATCH {
                    // A closed channel only means the workers stopped.
                    let _ = sender.send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)));
                }
            });
            if !batch.is_empty() {
                let _ = sender.send(batch);
            }
        });
        let grids = std::sync::atomic::AtomicU64::new(0);
        receiver
            .into_iter()
            .par_bridge()
            .map(|batch| {
                let mut count = SliceCount::default();
                if interrupt::requested() {
                    // The slice's count is dropped (see `count_slices`).
                    return count;
                }
                for entry in &batch {
                    count.entries += 1;
                    ed.entry_visits(k, entry, Choices::HI, |v| count.add_grid(v.automorphisms));
                }
                bar.inc(batch.len() as u64);
                let total = grids.fetch_add(count.grids, std::sync::atomic::Ordering::Relaxed);
                bar.set_message((total + count.grids).to_string());
                count
            })
            .reduce(SliceCount::default, |mut a, b| {
                a.merge(&b);
                a
            })
    })
}

/// Prints the ED grids (or every visit) of the entries in `range`, in
/// entry order.
fn list(ed: &Ed, k: usize, range: Range<u64>, visits: bool) -> anyhow::Result<()> {
    let wanted = if visits { Choices::ALL } else { Choices::HI };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut batch: Vec<Entry> = Vec::with_capacity(1024);
    let mut flush = |batch: &mut Vec<Entry>| -> anyhow::Result<()> {
        let lines: Vec<String> = batch
            .par_iter()
            .map(|entry| {
                let mut text = String::new();
                ed.entry_visits(k, entry, wanted, |v| {
                    let mut grid = [0u8; 81];
                    grid[..27].copy_from_slice(ed.catalogue().band(k));
                    grid[27..54].copy_from_slice(&entry.band2);
                    grid[54..].copy_from_slice(&v.band3);
                    let grid = Grid::from_digits_unchecked(grid);
                    if visits {
                        text.push_str(&format!(
                            "{}\t{grid}\t{}\n",
                            entry.number,
                            v.choices.names()
                        ));
                    } else {
                        text.push_str(&format!("{grid}\n"));
                    }
                });
                text
            })
            .collect();
        batch.clear();
        for text in lines {
            out.write_all(text.as_bytes())?;
        }
        Ok(())
    };
    let mut result = Ok(());
    ed.for_each_entry(k, range, |entry| {
        if result.is_err() {
            return;
        }
        batch.push(*entry);
        if batch.len() == batch.capacity() {
            result = flush(&mut batch);
        }
    });
    result?;
    flush(&mut batch)?;
    out.flush()?;
    Ok(())
}

/// How Ctrl-C stops `--all` and `--bands`.
const STOP: interrupt::Stop = interrupt::Stop {
    command: "enumerate",
    first: "the slice in progress is dropped (a count is written only whole), then the run \
            stops",
    resume: "the same command with --resume continues",
    unit: "slices",
    one: "slice",
    what: "counts",
};

/// Counts the slices into `output`, one line per slice as it finishes
/// (a resumable run: `cli::resumable`).
fn count_slices(
    ed: &Ed,
    slices: Range<usize>,
    output: &Path,
    resume: bool,
    force: bool,
    quiet: bool,
) -> Outcome {
    let run = Resumable {
        stop: STOP,
        output,
        quiet,
    };
    run.check(&[])?;
    // One run per counts file, as for the result files.
    let _lock = s17::output::OutputLock::acquire(output)?;
    let (done, mut file) = open_counts(output, resume, force)?;
    let todo: Vec<usize> = slices.clone().filter(|k| !done.contains_key(k)).collect();
    let before = slices.len() - todo.len();
    let mut total: SliceCount = done.values().fold(SliceCount::default(), |mut a, b| {
        a.merge(b);
        a
    });
    let bar = run.start(todo.len(), &format!("{} ED grids", total.grids))?;
    let start = Instant::now();
    let (this_run, slices_done) = count_todo(ed, &todo, &mut file, &mut total, &bar)?;
    drop(file);
    run.end(&bar, before, slices_done, todo.len())?;
    let all = counts::read(output)?;
    counts::write(output, &all)?;
    if !quiet {
        say_counted(output, &all, &this_run, start.elapsed().as_secs_f64());
    }
    Ok(true)
}

/// The counts file at `output` opened: the slices counted before (with
/// `resume`; none with `force` or a new file) and the file to append to.
fn open_counts(
    output: &Path,
    resume: bool,
    force: bool,
) -> anyhow::Result<(BTreeMap<usize, SliceCount>, Appender)> {
    let done = if output.exists() {
        if resume {
            counts::read(output)?
        } else if force {
            BTreeMap::new()
        } else {
            bail!(
                "{} exists: pass --resume to go on with it, or --force to start over",
                output.display()
            );
        }
    } else {
        BTreeMap::new()
    };
    let file = if done.is_empty() {
        Appender::create(output)?
    } else {
        Appender::append_to(output)?
    };
    Ok((done, file))
}

/// Counts the slices of `todo` in turn, each written to `file` whole (a
/// slice with a Ctrl-C before its end is dropped); `total` goes on from
/// the slices counted before. Returns this run's count and its slices.
fn count_todo(
    ed: &Ed,
    todo: &[usize],
    file: &mut Appender,
    total: &mut SliceCount,
    bar: &ProgressBar,
) -> anyhow::Result<(SliceCount, u64)> {
    let mut this_run = SliceCount::default();
    let mut slices_done = 0;
    for &k in todo {
        let slice_start = Instant::now();
        let count = count_slice(ed, k, 0..u64::MAX, &ProgressBar::hidden());
        if interrupt::requested() {
            break;
        }
        file.push(k, &count)?;
        slices_done += 1;
        tracing::info!(
            slice = k,
            entries = count.entries,
            grids = count.grids,
            seconds = slice_start.elapsed().as_secs_f64(),
            "slice counted"
        );
        total.merge(&count);
        this_run.merge(&count);
        bar.inc(1);
        bar.set_message(format!("{} ED grids", total.grids));
    }
    Ok((this_run, slices_done))
}

/// The summary of a count (stderr): the file's slices in all, then this
/// run's, in `seconds`.
fn say_counted(
    output: &Path,
    all: &BTreeMap<usize, SliceCount>,
    this_run: &SliceCount,
    seconds: f64,
) {
    let mut sum = SliceCount::default();
    for c in all.values() {
        sum.merge(c);
    }
    eprintln!(
        "s17 enumerate: {} in {}: {}, {} ({})",
        counted(all.len() as u64, "slice"),
        output.display(),
        counted(sum.entries, "entry"),
        counted(sum.grids, "ED grid"),
        sum.split_text(),
    );
    eprintln!(
        "s17 enumerate: this run: {}, {} in {seconds:.1} s ({:.0} grids/s on {})",
        counted(this_run.entries, "entry"),
        counted(this_run.grids, "ED grid"),
        this_run.grids as f64 / seconds.max(1e-9),
        counted(rayon::current_num_threads() as u64, "thread")
    );
}

/// `--which`: the visits of each line's grid, or the one visit of each 17.
fn which(ed: &Ed, path: &Path) -> Outcome {
    let mut source = LineSource::open(Some(path))?;
    let name = source.name.clone();
    let mut items: Vec<(usize, Puzzle)> = Vec::new();
    let mut bad = BadLines::new("enumerate");
    while let Some((number, line)) = source.next_line()? {
        if is_skippable_bytes(line) {
            continue;
        }
        match Puzzle::parse_bytes(line) {
            Ok(p) => items.push((number, p)),
            Err(e) => bad.report(format_args!("{name}: line {number}: {e}")),
        }
    }
    if items.is_empty() && bad.count() == 0 {
        return Err(no_items("grid or puzzle", &name));
    }
    let placed: Vec<Result<Vec<Visit>, String>> = items
        .par_iter()
        .map(|(_, puzzle)| {
            if puzzle.clue_count() == 81 {
                let grid = Grid::from_digits(*puzzle.digits()).map_err(|e| e.to_string())?;
                Ok(ed.visits(grid.digits()).to_vec())
            } else {
                ed.which_puzzle(puzzle)
                    .map(|(_, v)| vec![v])
                    .map_err(|e| e.to_string())
            }
        })
        .collect();
    // Entry numbers: one walk per slice for all its queries.
    let mut by_slice: BTreeMap<usize, Vec<Band>> = BTreeMap::new();
    for visits in placed.iter().flatten() {
        for v in visits {
            by_slice.entry(v.class).or_default().push(band2_of(v));
        }
    }
    let numbers: BTreeMap<(usize, Band), u64> = by_slice
        .into_par_iter()
        .flat_map_iter(|(k, bands)| {
            let numbers = ed.entry_numbers(k, &bands);
            bands
                .into_iter()
                .zip(numbers)
                .map(move |(b, n)| ((k, b), n.expect("a visit's band 2 is an entry")))
        })
        .collect();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for ((number, _), result) in items.iter().zip(&placed) {
        match result {
            Ok(visits) => {
                for v in visits {
                    let entry = numbers[&(v.class, band2_of(v))];
                    let grid = Grid::from_digits_unchecked(v.grid(ed));
                    writeln!(
                        out,
                        "{number}\t{}\t{}\t{entry}\t{grid}",
                        choice_name(v.choice),
                        v.class
                    )?;
                }
            }
            Err(e) => {
                out.flush()?;
                bad.report(format_args!("{name}: line {number}: {e}"));
            }
        }
    }
    out.flush()?;
    bad.finish();
    Ok(bad.count() == 0)
}

fn band2_of(v: &Visit) -> Band {
    let mut band = [0u8; 27];
    band.copy_from_slice(&v.key[..27]);
    band
}
