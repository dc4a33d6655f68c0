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
mod catalogue;
mod common;
mod completions;
mod enumerate;
mod exhaust;
mod generate;
mod input;
mod interrupt;
mod lowest;
mod resumable;
mod scan;
mod search;
mod solve;
mod tables;
mod tune;
mod validate;

/// Finds every minimal sudoku puzzle of 17 clues (or 16 to 21) of a solution grid.
#[derive(Parser, Debug)]
#[command(
    name = "s17",
    version = concat!(env!("CARGO_PKG_VERSION"), " ", env!("S17_BUILD")),
    about,
    long_about = None
)]
pub struct Cli {
    /// More log output (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true, display_order = 1000)]
    verbose: u8,
    /// Only errors on stderr.
    #[arg(short, long, global = true, display_order = 1001)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Find every minimal puzzle of 17 clues (or of the clue range) of each solution grid.
    #[command(about = format!(
        "Find every minimal puzzle of 17 clues (or --clues {}) of each solution grid",
        s17::search::clue_range_text()
    ))]
    Search(search::Args),
    /// Search every grid of a grid file into a resumable output file.
    Scan(scan::Args),
    /// Solve puzzles (one per line), or count their solutions.
    Solve(solve::Args),
    /// The lowest clue count of each grid, with a witness puzzle.
    Lowest(lowest::Args),
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
    /// Every 17 (or of the clue range) of a slice of the ED catalogue, or of a range of its entries.
    #[command(about = format!(
        "Every 17 (or --clues {}) of a slice of the ED catalogue, or of a range of its entries",
        s17::search::clue_range_text()
    ))]
    Exhaust(exhaust::Args),
    /// Many slices of the ED catalogue as units for a cluster: plan, run, status, merge.
    Campaign(campaign::Args),
    /// Catalogue numbers: grid to number and back, in the field's minlex catalogue.
    Catalogue(catalogue::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Print the man page of s17 or of one subcommand (roff), or write them all.
    Man(completions::ManArgs),
}

impl Command {
    /// The name of a long command, one that a signal stops with a line
    /// ([`interrupt::install_early`]); `None` for the others, which a
    /// signal ends as any program.
    fn long_name(&self) -> Option<&'static str> {
        match self {
            Command::Search(_) => Some("search"),
            Command::Scan(_) => Some("scan"),
            Command::Validate(_) => Some("validate"),
            Command::Exhaust(_) => Some("exhaust"),
            Command::Enumerate(args) if args.all || args.bands.is_some() => Some("enumerate"),
            Command::Campaign(args) => args.long_name(),
            _ => None,
        }
    }
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
    // The build targets the CPU that built it (.cargo/config.toml): refuse
    // to run, with a way out, on a CPU without its instructions rather than
    // crash later.
    #[cfg(target_arch = "x86_64")]
    {
        let missing = s17::bits::missing_cpu_features();
        if !missing.is_empty() {
            eprintln!(
                "s17: error: this build uses CPU features this CPU lacks ({}); rebuild it on \
                 this machine (cargo build --release), or for a baseline with \
                 RUSTFLAGS=\"-C target-cpu=x86-64\" cargo build --release",
                missing.join(", ")
            );
            return ExitCode::from(1);
        }
    }
    // Parsed through the matches, which name the subcommand for errors.
    let matches = Cli::command()
        .try_get_matches()
        .unwrap_or_else(|e| usage_exit(e));
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| usage_exit(e));
    let name = command_path(&matches);
    init_tracing(cli.verbose, cli.quiet);
    // The long commands catch their signals before any work.
    if let Some(long) = cli.command.long_name()
        && let Err(err) = interrupt::install_early(long, cli.quiet)
    {
        eprintln!("s17 {name}: error: {err:#}");
        return ExitCode::from(1);
    }
    let result = match cli.command {
        Command::Search(args) => search::run(args, cli.quiet),
        Command::Scan(args) => scan::run(args, cli.quiet),
        Command::Solve(args) => solve::run(args, cli.quiet),
        Command::Lowest(args) => lowest::run(args, cli.quiet),
        Command::Canon(args) => canon::run(args, cli.quiet),
        Command::Generate(args) => generate::run(args),
        Command::Tables(args) => tables::run(args, cli.quiet),
        Command::Tune(args) => tune::run(args, cli.quiet),
        Command::Validate(args) => validate::run(args, cli.quiet),
        Command::Enumerate(args) => enumerate::run(args, cli.quiet),
        Command::Exhaust(args) => exhaust::run(args, cli.quiet),
        Command::Campaign(args) => campaign::run(args, cli.quiet),
        Command::Catalogue(args) => catalogue::run(args, cli.quiet),
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
            ExitCode::from(interrupt::exit_code())
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

/// The subcommand as the user typed it (`campaign run`, `scan`): the
/// prefix of every message the command prints, Ctrl-C lines included.
fn command_path(matches: &clap::ArgMatches) -> String {
    let mut names = Vec::new();
    let mut at = matches;
    while let Some((name, sub)) = at.subcommand() {
        names.push(name);
        at = sub;
    }
    names.join(" ")
}

/// Ends the run on a clap error: help and version as clap prints them;
/// a usage error prefixed like every other message (`s17 search: error:
/// ...`, the subcommand found in the arguments), its ranges in the
/// user's words, exit 2.
fn usage_exit(err: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        err.exit();
    }
    let command = Cli::command();
    let name = std::env::args()
        .skip(1)
        .find(|a| command.get_subcommands().any(|s| s.get_name() == a));
    let prefix = match name {
        Some(name) => format!("s17 {name}: "),
        None => "s17: ".to_string(),
    };
    let text = in_user_words(&err.render().to_string());
    {
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), "{prefix}{text}");
    }
    std::process::exit(2)
}

/// clap's range `A..=B` after "is not in " as "the range A to B".
fn in_user_words(text: &str) -> String {
    const MARK: &str = " is not in ";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        let (head, tail) = rest.split_at(at + MARK.len());
        out.push_str(head);
        let end = tail
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '=' | '-')))
            .unwrap_or(tail.len());
        match tail[..end].split_once("..=") {
            Some((a, b)) => out.push_str(&format!("the range {a} to {b}")),
            None => out.push_str(&tail[..end]),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
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

#[cfg(test)]
mod tests {
    #[test]
    fn ranges_are_in_the_user_s_words() {
        assert_eq!(
            super::in_user_words(
                "error: invalid value '5000' for '--chunk <N>': 5000 is not in 16..=4096\n"
            ),
            "error: invalid value '5000' for '--chunk <N>': 5000 is not in the range 16 to 4096\n"
        );
        assert_eq!(super::in_user_words("a is not in b"), "a is not in b");
    }
}
