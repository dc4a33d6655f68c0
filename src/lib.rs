//! s17: finds every 17-clue sudoku puzzle whose unique solution is a given grid.
//!
//! The library knows nothing of the terminal; the command line (`src/cli/`)
//! is a module of the binary, `src/main.rs`.
//! See ARCHITECTURE.md for the pipeline: band catalogue and tables, UA harvest,
//! the 2X2Y part 1, band 3, the final uniqueness check.

// `unsafe` only where ARCHITECTURE.md names it: the SIMD kernels of `bits`
// and the memory map of `tables::read`, each with an `allow` on its module.
#![deny(unsafe_code)]
// The library never writes to the terminal: std's print macros and `dbg!`
// nowhere (they also panic on a closed pipe); `std::io::stdout` and
// `stderr` (clippy.toml's disallowed methods) only in the binary's `cli`,
// the printer.
#![deny(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::dbg_macro,
    clippy::disallowed_methods
)]

pub mod band;
pub mod bits;
pub mod campaign;
pub mod canon;
pub mod catalogue;
pub mod disk;
pub mod ed;
pub mod exhaust;
pub mod flags;
pub mod generate;
pub mod grid;
pub mod known;
pub mod lowest;
pub mod output;
#[cfg(feature = "python")]
pub mod python;
pub mod scan;
pub mod search;
pub mod solver;
pub mod tables;
