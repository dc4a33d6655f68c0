//! `campaign run` (search one unit) and `campaign work` (a worker that
//! claims and runs units until none is left or its time is up).

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context;

use s17::campaign::work::{Claim, Claimed, Claims, Holder, REFRESH};
use s17::campaign::{self, Plan, UnitRun};
use s17::ed::{Ed, Entry};
use s17::exhaust::{Exhauster, RunTotals};
use s17::search::SearchConfig;

use crate::cli::common::{counted, counted_as, init_threads, load_tables, progress_bar};
use crate::cli::resumable::say_resuming;
use crate::cli::{Outcome, interrupt};

use super::{RunArgs, WorkArgs, read_plan, usage};

/// How `campaign run` stops and goes on: at once on Ctrl-C (its unit is
/// checkpointed entry by entry), and a rerun of the unit continues.
const STOP: interrupt::Stop = interrupt::Stop {
    command: "campaign",
    first: "the unit stops at once; what is checkpointed is kept",
    resume: "the same `s17 campaign run DIR UNIT` continues",
    unit: "entries",
    one: "entry",
    what: "results",
};

pub(super) fn run_unit(args: RunArgs, quiet: bool) -> Outcome {
    init_threads(args.threads)?;
    let plan = read_plan(&args.dir)?;
    let config = SearchConfig::default();
    let run = UnitRun::open(&args.dir, &plan, args.unit, &config).map_err(usage)?;
    let unit = run.unit().clone();
    let name = format!(
        "unit {} (slice {}, entries {}..{})",
        unit.number, unit.k, unit.entries.start, unit.entries.end
    );
    let span = tracing::info_span!("campaign", unit = unit.number, k = unit.k);
    let _enter = span.enter();
    let (_, tables) = load_tables(&args.tables, quiet)?;
    let ed = Ed::new();
    let todo = run.todo(&ed);
    if !quiet && run.done_before() > 0 {
        say_resuming(STOP, &name, run.repair(), todo.len(), "puzzle");
    }
    let exhauster = Exhauster::new(&ed, &tables, config).with_goal(plan.goal);
    let what = plan.goal.description();
    let bar = progress_bar(todo.len() as u64, quiet, "entries", "0 grids, 0 puzzles");
    // Ctrl-C stops at once: the unit is checkpointed entry by entry.
    let (watched, before, planned) = (bar.clone(), unit.len() - todo.len() as u64, unit.len());
    let again = format!("s17 campaign run {} {}", args.dir.display(), unit.number);
    interrupt::install_at_once("campaign run", move || {
        format!(
            "{} of {planned} entries checkpointed; `{again}` continues",
            before + watched.position()
        )
    })?;
    let counts = std::sync::Mutex::new((0u64, 0u64));
    let totals = run
        .search(&exhauster, &todo, &s17::exhaust::driver::never, &|r, _| {
            let mut c = counts.lock().expect("no panic while counting");
            c.0 += r.grids;
            c.1 += r.puzzles.len() as u64;
            bar.set_message(format!("{} grids, {} puzzles", c.0, c.1));
            bar.inc(1);
        })
        .with_context(|| {
            format!(
                "{name} stopped; run it again to continue (`s17 campaign run {} {}`)",
                args.dir.display(),
                unit.number
            )
        })?;
    bar.finish_and_clear();
    if !quiet {
        eprintln!(
            "s17 campaign run: {name}: {} searched, {} ({}), {} ({what}), {:.1} s CPU (estimate \
             for the unit {:.1} s); {} of {} entries done",
            counted(totals.entries, "entry"),
            counted(totals.grids, "ED grid"),
            counted_as(totals.bands3, "band 3", "bands 3"),
            counted(totals.puzzles, "puzzle"),
            totals.cpu.as_secs_f64(),
            unit.est_seconds,
            unit.len() - todo.len() as u64 + totals.entries,
            unit.len(),
        );
    }
    Ok(true)
}

/// The exit code of `campaign work` stopped for time with units left
/// (EX_TEMPFAIL): the worker script requeues itself.
const EXIT_TIME_UP: u8 = 75;

/// `campaign work DIR`: claims units one after another
/// (`s17::campaign::work`) and runs each as `campaign run` does.
pub(super) fn work(args: WorkArgs, quiet: bool) -> Outcome {
    init_threads(args.threads)?;
    let plan = read_plan(&args.dir)?;
    let config = SearchConfig::default();
    let deadline = args
        .stop_after
        .map(|d| Instant::now() + d.saturating_sub(args.margin));
    let time_up = || deadline.is_some_and(|d| Instant::now() >= d);
    let claims = Claims::new(&args.dir, args.stale_after)?;
    let me = claims.me().describe();
    let (_, tables) = load_tables(&args.tables, quiet)?;
    let ed = Ed::new();
    let exhauster = Exhauster::new(&ed, &tables, config).with_goal(plan.goal);
    // A signal ends the worker at once: its unit is checkpointed entry by
    // entry, and its claim is stale once the process is gone.
    let dir = args.dir.display().to_string();
    let progress = Arc::new(WorkProgress::default());
    let watched = Arc::clone(&progress);
    interrupt::install_at_once("campaign work", move || {
        format!(
            "worker stopped; {}; `s17 campaign work {dir}` goes on",
            watched.describe()
        )
    })?;
    let worker = Worker {
        progress: &progress,
        dir: &args.dir,
        plan: &plan,
        config: &config,
        ed: &ed,
        exhauster: &exhauster,
        me: &me,
        quiet,
        time_up: &time_up,
    };
    let units = plan.units.len();
    let (mut cursor, mut finished, mut ran) = (0usize, 0u64, 0u64);
    let mut held = Vec::new();
    'scan: loop {
        held.clear();
        for step in 0..units {
            if time_up() {
                break 'scan;
            }
            let number = (cursor + step) % units;
            let claim = match claims.try_claim(number)? {
                Claimed::Won(claim) => claim,
                Claimed::Done => continue,
                Claimed::Held(holder) => {
                    held.push((number, holder));
                    continue;
                }
            };
            cursor = number;
            let Some(done) = worker.run_claimed(number, claim)? else {
                continue;
            };
            ran += 1;
            finished += u64::from(done);
            continue 'scan;
        }
        break;
    }
    let left = if time_up() {
        "time is up"
    } else {
        "no unit left to claim"
    };
    let mut line = format!("{me}: {left}; {ran} units run here, {finished} finished");
    if !time_up() {
        line += &held_by_others(&held);
    }
    worker.say(line);
    if time_up() {
        // Everything is synced and the claims given back.
        std::process::exit(i32::from(EXIT_TIME_UP));
    }
    Ok(true)
}

/// What `campaign work` runs each claimed unit with.
struct Worker<'a, B: AsRef<[u8]> + Sync> {
    dir: &'a Path,
    plan: &'a Plan,
    config: &'a SearchConfig,
    ed: &'a Ed,
    exhauster: &'a Exhauster<'a, B>,
    /// This worker, as its claims describe it.
    me: &'a str,
    /// What it has done so far, for the line of a signal's stop.
    progress: &'a WorkProgress,
    quiet: bool,
    time_up: &'a (dyn Fn() -> bool + Sync),
}

impl<B: AsRef<[u8]> + Sync> Worker<'_, B> {
    fn say(&self, line: String) {
        if !self.quiet {
            eprintln!("s17 campaign work: {line}");
        }
    }

    /// Runs the claimed unit `number` until it is done, the time is up or
    /// the claim is lost; finishes the claim when the unit is done. `None`
    /// when another run writes the unit (it is left to that run), else
    /// whether the unit is done.
    fn run_claimed(&self, number: usize, claim: Claim) -> anyhow::Result<Option<bool>> {
        let run = match UnitRun::open(self.dir, self.plan, number, self.config) {
            Ok(run) => run,
            Err(campaign::CampaignError::Output(s17::output::OutputError::Locked(e))) => {
                // Another run writes it (claimed another way): theirs.
                self.say(format!("unit {number}: {e}; leaving it"));
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        };
        let unit = run.unit().clone();
        let todo = run.todo(self.ed);
        self.progress
            .start(number, unit.len(), unit.len() - todo.len() as u64);
        self.say(format!(
            "{}: unit {number} (slice {}, entries {}..{}): {} to search{}",
            self.me,
            unit.k,
            unit.entries.start,
            unit.entries.end,
            counted(todo.len() as u64, "entry"),
            if run.done_before() > 0 {
                format!(", {} done before", run.done_before())
            } else {
                String::new()
            }
        ));
        let (totals, lost) = self.search_holding(run, &claim, &todo).with_context(|| {
            format!(
                "unit {number} stopped; a worker (or `s17 campaign run {} {number}`) continues it",
                self.dir.display()
            )
        })?;
        let whole = totals.entries == todo.len() as u64;
        self.say(format!(
            "unit {number}: {} searched, {} ({:.1} s CPU){}",
            counted(totals.entries, "entry"),
            counted(totals.puzzles, "puzzle"),
            totals.cpu.as_secs_f64(),
            if whole { ", done" } else { ", given back" }
        ));
        if whole {
            claim.finish()?;
            self.progress.finished();
        } else if lost {
            self.say(format!(
                "unit {number}: its claim was taken as stale by another worker"
            ));
        }
        Ok(Some(whole))
    }

    /// Searches `todo` of `run` while a second thread refreshes `claim`
    /// every [`REFRESH`]; stops when the time is up or a refresh fails.
    /// The totals, and whether the claim was lost.
    fn search_holding(
        &self,
        run: UnitRun,
        claim: &Claim,
        todo: &[Entry],
    ) -> Result<(RunTotals, bool), campaign::CampaignError> {
        let lost = AtomicBool::new(false);
        let beating = AtomicBool::new(true);
        let totals = std::thread::scope(|scope| {
            scope.spawn(|| {
                let mut last = Instant::now();
                while beating.load(Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                    if last.elapsed() >= REFRESH {
                        last = Instant::now();
                        if !claim.refresh() {
                            lost.store(true, Ordering::Relaxed);
                        }
                    }
                }
            });
            let stop = || (self.time_up)() || lost.load(Ordering::Relaxed);
            let totals = run.search(self.exhauster, todo, &stop, &|_, _| {
                self.progress.entry_done();
            });
            beating.store(false, Ordering::Relaxed);
            totals
        })?;
        Ok((totals, lost.load(Ordering::Relaxed)))
    }
}

/// What a worker has done, shared with the signal handler's line: units
/// it finished, and the unit it runs with its entries checkpointed.
#[derive(Default)]
struct WorkProgress {
    finished: AtomicU64,
    /// The unit it runs, plus one (0: none yet, or between units).
    unit: AtomicUsize,
    entries: AtomicU64,
    checkpointed: AtomicU64,
}

impl WorkProgress {
    fn start(&self, unit: usize, entries: u64, checkpointed: u64) {
        self.entries.store(entries, Ordering::SeqCst);
        self.checkpointed.store(checkpointed, Ordering::SeqCst);
        self.unit.store(unit + 1, Ordering::SeqCst);
    }

    fn entry_done(&self) {
        self.checkpointed.fetch_add(1, Ordering::SeqCst);
    }

    fn finished(&self) {
        self.unit.store(0, Ordering::SeqCst);
        self.finished.fetch_add(1, Ordering::SeqCst);
    }

    /// `N units finished here; unit U: D of T entries checkpointed`.
    fn describe(&self) -> String {
        let finished = self.finished.load(Ordering::SeqCst);
        let mut line = format!("{} finished here", counted(finished, "unit"));
        if let Some(unit) = self.unit.load(Ordering::SeqCst).checked_sub(1) {
            let _ = write!(
                line,
                "; unit {unit}: {} of {} entries checkpointed (its claim is stale once this \
                 process is gone)",
                self.checkpointed.load(Ordering::SeqCst),
                self.entries.load(Ordering::SeqCst)
            );
        }
        line
    }
}

/// The closing line's list of units other workers hold: `""` for none,
/// else `; held by other workers: …` naming the first ten.
fn held_by_others(held: &[(usize, Holder)]) -> String {
    let mut line = String::new();
    if held.is_empty() {
        return line;
    }
    let list: Vec<String> = held
        .iter()
        .take(10)
        .map(|(u, h)| format!("{u} ({})", h.describe()))
        .collect();
    let _ = write!(line, "; held by other workers: {}", list.join(", "));
    if held.len() > 10 {
        let _ = write!(line, " and {} more", held.len() - 10);
    }
    line
}
