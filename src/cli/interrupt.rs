//! Ctrl-C (SIGINT), and SIGTERM and SIGHUP (a batch system's stop), during
//! the commands that write resumable results: `scan`, `validate
//! --checkpoint`, `exhaust` and `enumerate --all`/`--bands`.
//!
//! The first signal sets a flag and says so on stderr; the command's
//! driver reads the flag before each grid, entry or slice. A grid or
//! entry in progress finishes and is recorded (its results, then its
//! checkpoint line, as always), no other starts; `enumerate` drops the
//! slice in progress (a slice's count is written only whole). The command
//! then clears its progress bar and ends with one line (`s17 scan:
//! interrupted: 12 of 40 grids done, results in found.txt; the same
//! command with --resume continues`), exit 130. A second signal ends the
//! process at once, exit 130: what is checkpointed stays valid, as after
//! a kill (`crate::output`), and the pieces not finished are searched
//! again by the resume.
//!
//! The handler runs on a thread of its own (the `ctrlc` crate), not in
//! signal context, so it may print. The flag is process-wide: one command
//! runs per process.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{HumanCount, ProgressBar};

/// Set by the first signal.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The progress bar to clear around the handler's lines.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// The exit code of an interrupted run (128 + SIGINT, as a shell reports
/// a process killed by Ctrl-C).
pub const EXIT_CODE: u8 = 130;

/// How a command stops and continues, for its lines.
#[derive(Clone, Copy, Debug)]
pub struct Stop {
    /// The subcommand (`scan`).
    pub command: &'static str,
    /// What the first signal does, after "interrupt: " (`the grids in
    /// progress finish and are recorded, then the scan stops`).
    pub first: &'static str,
    /// How to continue (`the same command with --resume continues`).
    pub resume: &'static str,
    /// The pieces (`grids`, `entries`, `slices`), and one of them.
    pub unit: &'static str,
    pub one: &'static str,
    /// What the output holds (`results`, `counts`).
    pub what: &'static str,
}

/// Installs the handler for `stop`'s command; `quiet` drops the note of
/// the first signal (the last line is printed all the same). Called
/// before the run's progress bar is made, so that a progress line on
/// stderr tells that the handler is in place.
pub fn install(stop: Stop, quiet: bool) -> anyhow::Result<()> {
    ctrlc::set_handler(move || {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            with_bar_cleared(true, || {
                eprintln!(
                    "s17 {}: interrupted again: stopped at once; what is checkpointed is kept, \
                     and {}",
                    stop.command, stop.resume
                );
            });
            std::process::exit(i32::from(EXIT_CODE));
        }
        if !quiet {
            with_bar_cleared(false, || {
                eprintln!(
                    "s17 {}: interrupt: {} (Ctrl-C again stops at once)",
                    stop.command, stop.first
                );
            });
        }
    })
    .map_err(|e| anyhow::anyhow!("cannot install the Ctrl-C handler: {e}"))
}

/// Installs the handler of a command that stops at once at the first
/// signal (`search` and `validate` without `--checkpoint`, whose grids
/// are not checkpointed, and `campaign run`, whose unit is, entry by
/// entry): the bar cleared, one line
/// `s17 COMMAND: interrupted: LINE` (what was done and how to go on, from
/// `line` at that moment), exit [`EXIT_CODE`].
pub fn install_at_once(
    command: &'static str,
    line: impl Fn() -> String + Send + 'static,
) -> anyhow::Result<()> {
    ctrlc::set_handler(move || {
        with_bar_cleared(true, || {
            eprintln!("s17 {command}: interrupted: {}", line());
        });
        std::process::exit(i32::from(EXIT_CODE));
    })
    .map_err(|e| anyhow::anyhow!("cannot install the Ctrl-C handler: {e}"))
}

/// Runs `print` with the progress bar (if one is shown) cleared, then
/// draws it again unless `finish`.
fn with_bar_cleared(finish: bool, print: impl FnOnce()) {
    let bar = BAR.lock().ok().and_then(|bar| bar.clone());
    match bar {
        Some(bar) if finish => {
            bar.finish_and_clear();
            print();
        }
        Some(bar) => bar.suspend(print),
        None => print(),
    }
}

/// Shows the handler's lines around `bar` (the run's progress bar).
pub fn show_on(bar: &ProgressBar) {
    if let Ok(mut slot) = BAR.lock() {
        *slot = Some(bar.clone());
    }
}

/// True once a signal came.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// The flag, for a library driver's `stop`.
pub fn flag() -> &'static AtomicBool {
    &REQUESTED
}

/// An interrupted run, for the command's last line (printed by
/// `cli::main` as `s17 COMMAND: interrupted: ...`, exit [`EXIT_CODE`]).
#[derive(Debug, thiserror::Error)]
#[error(
    "interrupted: {} of {} {unit} done, {what} in {output}; {resume}",
    HumanCount(*done),
    HumanCount(*total)
)]
pub struct Interrupted {
    pub done: u64,
    pub total: u64,
    /// `grids`, `entries`, `slices`.
    pub unit: &'static str,
    /// `results`, `counts`.
    pub what: &'static str,
    pub output: String,
    pub resume: &'static str,
}

/// After a run's driver: `Err(Interrupted)`, with the progress bar
/// cleared, when a signal came before the pieces were all done (`before`
/// done by earlier runs, `done` of this run's `todo`), `output` being the
/// run's output; `Ok` otherwise (no signal, or one after the last piece:
/// the run is whole).
pub fn check(
    stop: Stop,
    before: usize,
    done: u64,
    todo: usize,
    output: &Path,
) -> anyhow::Result<()> {
    let (done, total) = (before as u64 + done, (before + todo) as u64);
    if !requested() || done >= total {
        return Ok(());
    }
    with_bar_cleared(true, || {});
    Err(Interrupted {
        done,
        total,
        unit: stop.unit,
        what: stop.what,
        output: output.display().to_string(),
        resume: stop.resume,
    }
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_line_says_what_is_done_and_how_to_go_on() {
        let line = Interrupted {
            done: 1234,
            total: 5000,
            unit: "grids",
            what: "results",
            output: "found.txt".to_string(),
            resume: "the same command with --resume continues",
        }
        .to_string();
        assert_eq!(
            line,
            "interrupted: 1,234 of 5,000 grids done, results in found.txt; the same command \
             with --resume continues"
        );
    }
}
