//! `s17 solve`: solve puzzles (one per line), or count their solutions.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use crate::grid::Puzzle;
use crate::solver::solve;

use super::Outcome;
use super::input::{LineSource, is_skippable};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle file, one 81-character puzzle per line ('-' or nothing: stdin).
    /// Anything after the first 81 characters and a separator is ignored.
    pub input: Option<PathBuf>,
    /// Print the number of solutions (up to --limit) instead of a solution.
    #[arg(long)]
    pub count: bool,
    /// With --count: stop counting at this many solutions.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,
}

/// Prints, per puzzle line, its solution (or `no solution`, or
/// `not unique` for more than one), or with `--count` the count up to the
/// limit. A malformed line prints an error on stderr naming the line, and
/// the run goes on.
pub fn run(args: Args) -> Outcome {
    let source = LineSource::open(args.input.as_deref())?;
    let name = source.name.clone();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let start = Instant::now();
    let (mut puzzles, mut bad) = (0u64, 0u64);
    for item in source.numbered_lines() {
        let (number, line) = item?;
        if is_skippable(&line) {
            continue;
        }
        let puzzle = match Puzzle::parse(&line) {
            Ok(p) => p,
            Err(e) => {
                bad += 1;
                out.flush()?;
                eprintln!("s17 solve: {name}: line {number}: {e}");
                continue;
            }
        };
        puzzles += 1;
        if args.count {
            let s = solve(&puzzle, args.limit as usize);
            writeln!(out, "{}", s.count)?;
        } else {
            let s = solve(&puzzle, 2);
            match (s.count, s.first) {
                (1, Some(grid)) => writeln!(out, "{grid}")?,
                (0, _) => writeln!(out, "no solution")?,
                _ => writeln!(out, "not unique")?,
            }
        }
    }
    out.flush()?;
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "s17 solve: {puzzles} puzzles in {secs:.3} s ({:.0} puzzles/s){}",
        puzzles as f64 / secs.max(1e-9),
        if bad > 0 {
            format!(", {bad} bad lines")
        } else {
            String::new()
        }
    );
    Ok(bad == 0)
}
