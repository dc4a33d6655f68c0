//! The integration tests, one binary (one link, one fixture): a module per
//! file, each checking what its name says, sharing `common`. Only
//! `tests/portable.rs` is a target of its own (it switches the kernels of
//! its whole process to their portable forms). Run one file's tests with
//! `cargo test --release --test it NAME::`. Most run the real `s17` (the
//! runner, a fixture, the golden corpus and the shared constants are in
//! `common`); tests needing the band tables build them once at
//! `target/tmp/bands.s17t`; `readme` runs the README's common tasks.

mod common;

mod architecture;
mod bands;
mod campaign;
mod campaign_bitmap;
mod campaign_faults;
mod campaign_flags;
mod campaign_survey;
mod campaign_work;
mod canon;
mod catalogue_install;
mod cli;
mod clues;
mod completions;
mod enumerate;
mod exhaust;
mod exhaust_clues;
mod input_edges;
mod interrupt;
mod layers;
mod leftovers_and_messages;
mod lowest;
mod options;
mod outputs;
mod readme;
mod refusals_and_answers;
mod scan;
mod search;
mod search_cli;
mod settings;
mod signals;
mod solver;
mod tables;
mod tune;
mod validate;
