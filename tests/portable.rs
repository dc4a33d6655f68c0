//! The portable kernels forced: the switch (`S17_PORTABLE=1`, or
//! `s17::bits::force_portable`) puts every kernel of `s17::bits` in its
//! scalar form, and the search then finds exactly the known 17s of the
//! golden corpus. Every test of this file runs with the switch set
//! ([`switch`] sets it once, after noting the forms before it); the real
//! binary is checked with the environment variable. Run on a release build.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): a
//! portable kernel that disagrees with its SIMD forms, on the golden corpus.

#[path = "it/common/mod.rs"]
mod common;

use std::process::Command;
use std::sync::OnceLock;

use common::{GRID29, assert_finds_expected, fixture, golden_grids};
use s17::bits::{Form, KernelForms, force_portable, kernel_forms};
use s17::search::{SearchConfig, Searcher};

/// The kernel forms before and after forcing the portable ones.
struct Switch {
    before: KernelForms,
    after: KernelForms,
}

fn switch() -> &'static Switch {
    static SWITCH: OnceLock<Switch> = OnceLock::new();
    SWITCH.get_or_init(|| {
        let before = kernel_forms();
        force_portable();
        Switch {
            before,
            after: kernel_forms(),
        }
    })
}

/// Whether this run was started with the portable forms forced.
fn forced_by_environment() -> bool {
    std::env::var_os("S17_PORTABLE").is_some_and(|v| v == "1")
}

/// The forms the documented rules give on this CPU.
fn forms_of_this_cpu() -> KernelForms {
    #[cfg(target_arch = "x86_64")]
    let has = |feature: &str| match feature {
        "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
        "avx512vl" => std::arch::is_x86_feature_detected!("avx512vl"),
        "avx512cd" => std::arch::is_x86_feature_detected!("avx512cd"),
        "avx512vpopcntdq" => std::arch::is_x86_feature_detected!("avx512vpopcntdq"),
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "sse4.1" => std::arch::is_x86_feature_detected!("sse4.1"),
        "bmi2" => std::arch::is_x86_feature_detected!("bmi2"),
        other => panic!("{other}"),
    };
    #[cfg(not(target_arch = "x86_64"))]
    let has = |_: &str| false;
    let pairs = |words: usize| match words {
        1..=4 if has("avx512f") => Form::Avx512,
        4 if has("avx2") => Form::Avx2,
        2 if has("sse4.1") => Form::Sse41,
        _ => Form::Portable,
    };
    let and_rows = |words: usize| match words {
        4 if has("avx2") => Form::Avx2,
        _ => Form::Portable,
    };
    let either = |yes: bool, form: Form| if yes { form } else { Form::Portable };
    let compress = either(has("avx512f") && has("avx512vl"), Form::Avx512);
    let scan = either(
        has("avx512f") && has("avx512cd") && has("avx512vpopcntdq"),
        Form::Avx512,
    );
    KernelForms {
        zero_and_pairs: [1, 2, 3, 4].map(pairs),
        and_rows: [1, 2, 3, 4].map(and_rows),
        file_sets: compress,
        unhit_cut: compress,
        node_scan: scan,
        cut_scan: scan,
        move_bits: either(has("bmi2"), Form::Bmi2),
    }
}

#[test]
fn the_switch_makes_every_kernel_portable() {
    let s = switch();
    // Before the switch: what the CPU allows (all portable when this run
    // itself was started with S17_PORTABLE=1).
    if forced_by_environment() {
        assert!(s.before.all_portable(), "{}", s.before);
    } else {
        assert_eq!(s.before, forms_of_this_cpu(), "{}", s.before);
    }
    assert!(s.after.all_portable(), "{}", s.after);
    assert!(kernel_forms().all_portable());
    // On the CPUs the search is tuned for the switch changes something.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && !forced_by_environment() {
        assert_ne!(s.before, s.after);
        assert_eq!(s.before.and_rows[3], Form::Avx2);
    }
}

#[test]
fn portable_kernels_find_the_known_17s() {
    assert!(switch().after.all_portable());
    let f = fixture();
    let searcher = Searcher::new(&f.catalogue, &f.tables, SearchConfig::default());
    for grid in golden_grids() {
        assert_finds_expected(&searcher, &grid);
    }
    assert!(kernel_forms().all_portable());
}

/// `s17 search --stats GRID29`, with `S17_PORTABLE` set to `value` or
/// removed: the kernels line of its stderr, and its stdout lines, sorted.
fn search_binary(value: Option<&str>) -> (String, Vec<String>) {
    let tables = concat!(env!("CARGO_TARGET_TMPDIR"), "/bands.s17t");
    fixture();
    let mut command = Command::new(env!("CARGO_BIN_EXE_s17"));
    command.args(["search", "--stats", "--tables", tables, GRID29]);
    match value {
        Some(v) => command.env("S17_PORTABLE", v),
        None => command.env_remove("S17_PORTABLE"),
    };
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let kernels = stderr
        .lines()
        .find_map(|l| l.strip_prefix("kernels: "))
        .unwrap_or_else(|| panic!("no kernels line: {stderr}"))
        .to_string();
    let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect();
    lines.sort();
    (kernels, lines)
}

#[test]
fn the_environment_variable_switches_the_binary() {
    let expected: Vec<String> = fixture()
        .known
        .expected(&s17::grid::Grid::parse(GRID29).unwrap())
        .iter()
        .map(|p| p.to_string())
        .collect();
    let portable = kernel_forms();
    assert!(portable.all_portable());
    let (kernels, found) = search_binary(Some("1"));
    assert_eq!(kernels, portable.to_string());
    assert_eq!(found, expected);
    // Unset, or another value: the CPU's forms.
    for value in [None, Some("0")] {
        let (kernels, _) = search_binary(value);
        assert_eq!(kernels, forms_of_this_cpu().to_string(), "{value:?}");
    }
}
