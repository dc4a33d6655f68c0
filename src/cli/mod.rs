//! The command line: one file per subcommand, each with `run(args)`.
//!
//! Exit codes: 0 success, 1 bad input (a malformed line, a failed check) or
//! another runtime error, 2 usage (clap's own code), 130 a run stopped by
//! Ctrl-C or SIGTERM (`interrupt`). A closed stdout (broken
//! pipe, e.g. `s17 canon | head`) ends the run quietly with 0. A closed
//! stderr (`s17 solve bad.txt 2>&1 | head -1`) drops the messages and the
//! run goes on to its own exit code ([`eprintln!`] below).

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// std's `eprintln!` for the command line, minus its panic: a line on
/// stderr that is dropped when stderr is closed (std's macro panics, exit
/// 101), so the run ends as it would have with nobody reading stderr.
/// Defined before the `mod` lines, it takes the place of std's macro in
/// every file of `src/cli/`.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod campaign;
mod canon;
mod common;
mod completions;
mod enumerate;
mod exhaust;
mod generate;
mod input;
mod interrupt;
mod resumable;
mod scan;
mod search;
mod solve;
mod tables;
mod tune;
mod validate;

/// Finds every 17-clue sudoku puzzle of a solution grid.
#[derive(Parser, Debug)]
#[command(name = "s17", version, about, long_about = None)]
pub struct Cli {
    /// More log output (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// Only errors on stderr.
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Find every 17-clue puzzle of each solution grid.
    Search(search::Args),
    /// Search every grid of a grid file into a resumable output file.
    Scan(scan::Args),
    /// Solve puzzles (one per line), or count their solutions.
    Solve(solve::Args),
    /// Print the minlex canonical form of grids and puzzles (one per line).
    Canon(canon::Args),
    /// Print random solution grids (seeded), one per line.
    Generate(generate::Args),
    /// Time a sample of grids under every combination of tuning values.
    Tune(tune::Args),
    /// Check the known 17s and search their grids: every known 17 must be found.
    Validate(validate::Args),
    /// Build, verify or describe the band tables (~/.cache/s17/bands.s17t).
    Tables(tables::Args),
    /// The catalogue of essentially different grids, by slice and entry.
    Enumerate(enumerate::Args),
    /// Every 17 of a slice of the ED catalogue (or a range of its entries).
    Exhaust(exhaust::Args),
    /// Many slices of the ED catalogue as units for a cluster: plan, run, status, merge.
    Campaign(campaign::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Print the man page of s17 or of one subcommand (roff), or write them all.
    Man(completions::ManArgs),
}

/// Outcome of a subcommand: `Ok(true)` all input was good, `Ok(false)` some
/// input was bad (exit 1, the run went on), `Err` the run failed.
pub type Outcome = anyhow::Result<bool>;

/// A usage error found after parsing (a value out of range for the data
/// it names, an output that is one of the run's inputs): exit 2, as
/// clap's own.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Usage(pub String);

/// Entry point of the binary.
pub fn main() -> ExitCode {
    // Parsed through the matches, which name the subcommand for errors.
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let name = matches.subcommand_name().unwrap_or_default();
    init_tracing(cli.verbose, cli.quiet);
    let result = match cli.command {
        Command::Search(args) => search::run(args, cli.quiet),
        Command::Scan(args) => scan::run(args, cli.quiet),
        Command::Solve(args) => solve::run(args, cli.quiet),
        Command::Canon(args) => canon::run(args, cli.quiet),
        Command::Generate(args) => generate::run(args),
        Command::Tables(args) => tables::run(args, cli.quiet),
        Command::Tune(args) => tune::run(args, cli.quiet),
        Command::Validate(args) => validate::run(args, cli.quiet),
        Command::Enumerate(args) => enumerate::run(args, cli.quiet),
        Command::Exhaust(args) => exhaust::run(args, cli.quiet),
        Command::Campaign(args) => campaign::run(args, cli.quiet),
        Command::Completions(args) => completions::run_completions(args),
        Command::Man(args) => completions::run_man(args),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) if err.is::<interrupt::Interrupted>() => {
            // Ctrl-C: what is done and how to go on, not an error.
            eprintln!("s17 {name}: {err}");
            ExitCode::from(interrupt::EXIT_CODE)
        }
        Err(err) if err.chain().any(|cause| cause.is::<Usage>()) => {
            eprintln!("s17 {name}: error: {err:#}");
            ExitCode::from(2)
        }
        Err(err) => {
            // Named like the subcommand's own messages (`s17 scan: FILE:
            // line N: ...`), so a log of several runs says which failed.
            eprintln!("s17 {name}: error: {err:#}");
            ExitCode::from(1)
        }
    }
}

fn init_tracing(verbose: u8, quiet: bool) {
    use tracing_subscriber::EnvFilter;
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    // Colour only on a terminal, and never with NO_COLOR set (no-color.org).
    // A failed write (a closed stderr) is dropped: the subscriber's own
    // report of it would panic in std's `eprintln!`.
    let stderr_is_terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(stderr_is_terminal && !no_color)
        .with_writer(std::io::stderr)
        .log_internal_errors(false)
        .with_target(false)
        .try_init();
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
