//! Cell sets as bit masks, and the bit tricks the hot loops use.
//!
//! Layouts (bit i = cell i in the given coordinates):
//!
//! ```text
//! Mask27  u32   one band, cells 0..27 row-major inside the band, bits 27..32 zero
//! Mask54  u64   bands 1+2 (cells 0..54 of the grid), bits 54..64 zero
//! Mask81  u128  the whole grid, bits 81..128 zero
//! ```
//!
//! Any SIMD used by the program lives in this module (no other module
//! names `std::arch`), behind named operations with a scalar fallback. The
//! SIMD forms are chosen at run time, and the portable forms can be forced
//! (`S17_PORTABLE=1`, or [`force_portable`]): see [`kernels`]. Every SIMD
//! form has a portable twin (`*_scalar`) and a test comparing the two.
//!
//! The files, by concept:
//!
//! - [`mask`]: the mask types, their full sets and named operations
//!   ([`CellMask`]), a band's part of a grid mask;
//! - [`iter`]: the cells of a set ([`cells`]), one iterator for all three
//!   types;
//! - [`words`]: the solver's word tricks (differing words, clue cells);
//! - [`pairs`]: the XY inner loop ([`zero_and_pairs`]);
//! - [`rows`]: tables of per-cell bit vectors ([`and_rows`],
//!   [`or_rows`], [`transpose64`]);
//! - [`filing`]: sets filed into compact lists ([`file_sets`],
//!   [`unhit_cut`]);
//! - [`node`]: one pass over a hitting-set node's sets ([`node_scan`],
//!   [`cut_scan`], [`mini_row_bit`]);
//! - [`gather`]: bits moved and packed by masks ([`move_bits`],
//!   [`extract_each`]);
//! - [`kernels`]: which form of each kernel runs;
//! - `test_support` (test builds): each form of a kernel held against its
//!   definition, for the tests of the files above.

#[allow(unsafe_code)] // SIMD intrinsics: every block has a `// SAFETY:` comment
pub mod filing;
#[allow(unsafe_code)] // SIMD intrinsics: every block has a `// SAFETY:` comment
pub mod gather;
pub mod iter;
pub mod kernels;
pub mod mask;
#[allow(unsafe_code)] // SIMD intrinsics: every block has a `// SAFETY:` comment
pub mod node;
#[allow(unsafe_code)] // SIMD intrinsics: every block has a `// SAFETY:` comment
pub mod pairs;
#[allow(unsafe_code)] // SIMD intrinsics: every block has a `// SAFETY:` comment
pub mod rows;
#[allow(unsafe_code)] // SIMD intrinsics: every block has a `// SAFETY:` comment
pub mod sockets;
#[cfg(test)]
pub(crate) mod test_support;
#[allow(unsafe_code)] // SIMD intrinsics: every block has a `// SAFETY:` comment
pub mod words;

pub use filing::{CUT_SLACK, FILE_SLACK, file_sets, file_sets_scalar, unhit_cut, unhit_cut_scalar};
pub use gather::{extract_each, extract_each_scalar, move_bits, move_bits_scalar};
pub use iter::cells;
pub use kernels::{Form, KernelForms, force_portable, kernel_forms, missing_cpu_features};
pub use mask::{
    BAND_FULL, BANDS12_FULL, CellMask, GRID_FULL, Mask27, Mask54, Mask81, band_part, from_band,
};
pub use node::{NodeScan, cut_scan, cut_scan_scalar, mini_row_bit, node_scan, node_scan_scalar};
pub use pairs::{zero_and_pairs, zero_and_pairs_scalar};
pub use rows::{and_rows, and_rows_scalar, or_rows, or_rows_scalar, row_starts, transpose64};
pub use words::{differing_words, differing_words_scalar, nonzero_cells};
