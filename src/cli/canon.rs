//! `s17 canon`: the minlex canonical form of each grid or puzzle.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use s17::canon::{automorphism_count, minlex_grid, minlex_puzzle};
use s17::grid::Grid;

use super::Outcome;
use super::common::counted;
use super::input::{BadLines, LineSource, no_items};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Grids or puzzles, one per line ('-' or nothing: stdin). A line with
    /// no empty cell is a grid; anything else is a puzzle.
    pub input: Option<PathBuf>,
    /// After each grid's form, print a tab and its automorphism count.
    #[arg(long)]
    pub automorphisms: bool,
}

/// Prints the minlex form of each line; a malformed line prints an error on
/// stderr naming the line, and the run goes on (the outcome is then
/// `Ok(false)`, exit 1).
pub fn run(args: Args, quiet: bool) -> Outcome {
    let mut source = LineSource::open(args.input.as_deref())?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    let start = Instant::now();
    let (mut items, mut bad) = (0u64, BadLines::new("canon"));
    while let Some(puzzle) = source.next_puzzle(&mut out, &mut bad)? {
        items += 1;
        if puzzle.clue_count() == 81 {
            let grid = Grid::from_digits(*puzzle.digits())
                .expect("a puzzle with no repeat and no hole is a grid");
            let (form, _) = minlex_grid(&grid);
            if args.automorphisms {
                writeln!(out, "{form}\t{}", automorphism_count(&grid))?;
            } else {
                writeln!(out, "{form}")?;
            }
        } else {
            writeln!(out, "{}", minlex_puzzle(&puzzle).0)?;
        }
    }
    out.flush()?;
    bad.finish();
    let bad = bad.count();
    if items == 0 && bad == 0 {
        return Err(no_items("grid or puzzle", &source.name));
    }
    if !quiet {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "s17 canon: {} in {secs:.3} s ({:.0}/s){}",
            counted(items, "line"),
            items as f64 / secs.max(1e-9),
            if bad > 0 {
                format!(", {}", counted(bad, "bad line"))
            } else {
                String::new()
            }
        );
    }
    Ok(bad == 0)
}
