//! Ctrl-C (SIGINT), and SIGTERM and SIGHUP (a batch system's stop), during
//! the long commands: `scan`, `validate`, `exhaust`, `enumerate
//! --all`/`--bands`, `search` and `campaign run`.
//!
//! **Installed first.** `cli::main` calls [`install_early`] for these
//! commands before any work (before the tables are opened or an input is
//! read), so no signal ever meets the default action (death without a
//! word). Until the command says how it stops, a first signal only sets
//! the flag (and says so); the command then stops at its first chance with
//! its own last line: a resumable run at its first piece (0 done), a run
//! that stops at once when it installs its handler ([`install_at_once`]).
//!
//! **Resumable runs** ([`install`]): the first signal sets a flag and says
//! so on stderr; the command's driver reads the flag before each grid,
//! entry or slice. A grid or entry in progress finishes and is recorded
//! (its results, then its checkpoint line, as always), no other starts;
//! `enumerate` drops the slice in progress (a slice's count is written
//! only whole). The command then clears its progress bar and ends with one
//! line (`s17 scan: interrupted: 12 of 40 grids done, results in
//! found.txt; the same command with --resume continues`). A second signal
//! ends the process at once: what is checkpointed stays valid, as after a
//! kill (`s17::output`), and the pieces not finished are searched again
//! by the resume.
//!
//! **Exit codes**: 128 + the first signal's number, as a shell reports a
//! process killed by it: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
//!
//! The handler runs on a thread of its own (signal-hook's iterator on
//! Unix, the `ctrlc` crate elsewhere, where every stop counts as Ctrl-C),
//! not in signal context, so it may print. The state is process-wide: one
//! command runs per process.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use indicatif::{HumanCount, ProgressBar};

/// Set by the first signal.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The number of the first signal (0 before one came).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The progress bar to clear around the handler's lines.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// What a signal does now; the handler and the installers take this lock
/// for their whole decision, so a signal and an install never cross.
static MODE: Mutex<Mode> = Mutex::new(Mode::Default);

/// SIGINT's number, for the exit code before any signal (and off Unix).
const SIGINT: i32 = 2;

/// The exit code of a run stopped by Ctrl-C (128 + SIGINT); see
/// [`exit_code`] for the code of the signal that came.
pub const EXIT_CODE: u8 = 130;

/// The exit code of a run stopped by the first signal: 128 + its number
/// (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
pub fn exit_code() -> u8 {
    let signal = match SIGNAL.load(Ordering::SeqCst) {
        0 => SIGINT,
        n => n,
    };
    u8::try_from(128 + signal).unwrap_or(EXIT_CODE)
}

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

/// The line of a command that stops at once, at the moment of the signal.
type Line = Box<dyn Fn() -> String + Send>;

enum Mode {
    /// No handler: the signal's default action.
    Default,
    /// Installed by `cli::main` before the command's work: the flag only.
    Early { command: &'static str, quiet: bool },
    /// A resumable run: the flag, the run stops after the pieces in
    /// progress.
    Resumable { stop: Stop, quiet: bool },
    /// Stops at once with the line.
    AtOnce { command: &'static str, line: Line },
}

/// Installs the handler of `command` (a long one) before any work: see
/// the module note. Later installs ([`install`], [`install_at_once`])
/// replace what it does.
pub fn install_early(command: &'static str, quiet: bool) -> anyhow::Result<()> {
    set_mode(Mode::Early { command, quiet })
}

/// Installs the handler for `stop`'s command; `quiet` drops the note of
/// the first signal (the last line is printed all the same). Called
/// before the run's progress bar is made, so that a progress line on
/// stderr tells that the handler is in place. A signal that came earlier
/// stays: the run stops at its first piece.
pub fn install(stop: Stop, quiet: bool) -> anyhow::Result<()> {
    set_mode(Mode::Resumable { stop, quiet })
}

/// Installs the handler of a command that stops at once at the first
/// signal (`search` and `validate` without `--checkpoint`, whose grids
/// are not checkpointed, and `campaign run`, whose unit is, entry by
/// entry): the bar cleared, one line
/// `s17 COMMAND: interrupted: LINE` (what was done and how to go on, from
/// `line` at that moment), exit [`exit_code`]. A signal that came
/// earlier (while the command read its input or opened its tables) stops
/// it here, with that line.
pub fn install_at_once(
    command: &'static str,
    line: impl Fn() -> String + Send + 'static,
) -> anyhow::Result<()> {
    set_mode(Mode::AtOnce {
        command,
        line: Box::new(line),
    })
}

/// Puts `mode` in place (starting the handler's thread the first time);
/// a stop-at-once mode after a signal ends the run now.
fn set_mode(mode: Mode) -> anyhow::Result<()> {
    let mut slot = MODE.lock().unwrap_or_else(|e| e.into_inner());
    if matches!(*slot, Mode::Default) {
        start_handler()?;
    }
    *slot = mode;
    if REQUESTED.load(Ordering::SeqCst)
        && let Mode::AtOnce { command, line } = &*slot
    {
        stop_at_once(command, line);
    }
    Ok(())
}

/// Starts the thread that waits for the signals.
#[cfg(unix)]
fn start_handler() -> anyhow::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
        .map_err(|e| anyhow::anyhow!("cannot install the Ctrl-C handler: {e}"))?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                on_signal(signal);
            }
        })
        .map_err(|e| anyhow::anyhow!("cannot install the Ctrl-C handler: {e}"))?;
    Ok(())
}

#[cfg(not(unix))]
fn start_handler() -> anyhow::Result<()> {
    ctrlc::set_handler(|| on_signal(SIGINT))
        .map_err(|e| anyhow::anyhow!("cannot install the Ctrl-C handler: {e}"))
}

/// What a signal does, on the handler's thread.
fn on_signal(signal: i32) {
    let mode = MODE.lock().unwrap_or_else(|e| e.into_inner());
    if REQUESTED.swap(true, Ordering::SeqCst) {
        let (command, resume) = match &*mode {
            Mode::Resumable { stop, .. } => (stop.command, stop.resume),
            Mode::Early { command, .. } => (
                *command,
                "the same command (with --resume where it takes one) continues",
            ),
            Mode::AtOnce { command, .. } => (*command, "the same command continues"),
            Mode::Default => ("", ""),
        };
        with_bar_cleared(true, || {
            eprintln!(
                "s17 {command}: interrupted again: stopped at once; what is checkpointed is \
                 kept, and {resume}"
            );
        });
        std::process::exit(i32::from(exit_code()));
    }
    SIGNAL.store(signal, Ordering::SeqCst);
    let again = again_note(signal);
    match &*mode {
        Mode::Resumable { stop, quiet: false } => with_bar_cleared(false, || {
            eprintln!("s17 {}: interrupt: {} ({again})", stop.command, stop.first);
        }),
        Mode::Early {
            command,
            quiet: false,
        } => eprintln!("s17 {command}: interrupt: the run stops before its first piece ({again})"),
        Mode::AtOnce { command, line } => stop_at_once(command, line),
        _ => {}
    }
}

/// How the first note says a second stop is asked: by Ctrl-C for
/// SIGINT, by the same signal for SIGTERM and SIGHUP (a batch system's
/// stop or a closed terminal, where no Ctrl-C is at hand).
fn again_note(signal: i32) -> &'static str {
    if signal == SIGINT {
        "Ctrl-C again stops at once"
    } else {
        "a second signal stops at once"
    }
}

/// The line of a command that stops at once, then the exit.
fn stop_at_once(command: &str, line: &Line) -> ! {
    with_bar_cleared(true, || {
        eprintln!("s17 {command}: interrupted: {}", line());
    });
    std::process::exit(i32::from(exit_code()));
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
