//! Sudoku symmetries and minlex canonical forms.
//!
//! A [`Transform`] is one of the 2 × 6⁸ row/column symmetries of the board
//! (optional transposition, band and row order, stack and column order)
//! together with a digit relabelling. The minlex form of a grid or puzzle is
//! the lexicographically smallest 81-character string among its images
//! (the community standard; a puzzle's empty cells count as 0 and its digits
//! are relabelled in order of first appearance). Two grids are isomorphic
//! exactly when their minlex forms agree, which is how the known 17s of one
//! grid are carried onto an isomorphic one ([`isomorphism`]).
//!
//! `grid_form` and `puzzle_form` hold the fast searches (their module notes
//! describe the algorithms); `brute` is the exhaustive version they are
//! tested against.

pub mod brute;
mod grid_form;
mod puzzle_form;
mod row_two;
mod transform;

pub use grid_form::{automorphism_count, automorphisms, isomorphism, minlex_grid};
pub use puzzle_form::minlex_puzzle;
pub use transform::Transform;
