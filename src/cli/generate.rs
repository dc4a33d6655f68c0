//! `s17 generate`: random solution grids, one per line (for samples,
//! benchmarks and tuning).

use std::io::{BufWriter, Write};

use s17::generate::random_grid;

use super::Outcome;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How many grids.
    #[arg(long, short = 'n', default_value_t = 10)]
    pub count: usize,
    /// Seed of the random generator (the same seed gives the same grids).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(args: Args) -> Outcome {
    let mut rng = fastrand::Rng::with_seed(args.seed);
    let mut out = BufWriter::new(std::io::stdout().lock());
    for _ in 0..args.count {
        writeln!(out, "{}", random_grid(&mut rng))?;
    }
    out.flush()?;
    Ok(true)
}
