//! `s17 solve`: solve puzzles (one per line), or count their solutions.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use s17::solver::{count_solutions, solve};

use super::Outcome;
use super::common::counted;
use super::input::{BadLines, LineSource, no_items};

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
/// the run goes on; the outcome is then `Ok(false)` (exit 1).
pub fn run(args: Args, quiet: bool) -> Outcome {
    let mut source = LineSource::open(args.input.as_deref())?;
    let limit = usize::try_from(args.limit).unwrap_or(usize::MAX);
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let start = Instant::now();
    let (mut puzzles, mut bad) = (0u64, BadLines::new("solve"));
    while let Some(puzzle) = source.next_puzzle(&mut out, &mut bad)? {
        puzzles += 1;
        if args.count {
            write_count(&mut out, count_solutions(&puzzle, limit))?;
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
    bad.finish();
    let bad = bad.count();
    if puzzles == 0 && bad == 0 {
        return Err(no_items("puzzle", &source.name));
    }
    if !quiet {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "s17 solve: {} in {secs:.3} s ({:.0} puzzles/s){}",
            counted(puzzles, "puzzle"),
            puzzles as f64 / secs.max(1e-9),
            if bad > 0 {
                format!(", {}", counted(bad, "bad line"))
            } else {
                String::new()
            }
        );
    }
    Ok(bad == 0)
}

/// Writes `count` and a newline (a single digit, the usual case, without
/// going through the formatter).
fn write_count(out: &mut impl Write, count: usize) -> std::io::Result<()> {
    if count < 10 {
        out.write_all(&[b'0' + count as u8, b'\n'])
    } else {
        writeln!(out, "{count}")
    }
}
