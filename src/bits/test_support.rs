//! What the kernel tests share (test builds only): every form of a kernel
//! run on one case and held against the kernel's definition.
//!
//! A kernel has a dispatched form (what the program calls), its portable
//! twin and one or more SIMD forms; the dispatch runs only the best SIMD
//! form the CPU has, so the tests call each SIMD form directly, wherever
//! the CPU has its features (whatever the dispatch was told).

use std::fmt::{Debug, Display};

/// One form of a kernel: a closure that runs it on the case and returns
/// what the test compares.
type Run<'a, R> = Box<dyn FnOnce() -> R + 'a>;

/// The forms of a kernel on one case, each by name.
pub struct Forms<'a, R> {
    runs: Vec<(&'static str, Run<'a, R>)>,
}

impl<'a, R: PartialEq + Debug> Forms<'a, R> {
    /// The dispatched form and the portable one, which every CPU runs.
    pub fn new(dispatched: impl FnOnce() -> R + 'a, portable: impl FnOnce() -> R + 'a) -> Self {
        let runs: Vec<(&'static str, Run<'a, R>)> = vec![
            ("dispatched", Box::new(dispatched)),
            ("portable", Box::new(portable)),
        ];
        Forms { runs }
    }

    /// Adds a SIMD form, run only where this CPU has every feature of
    /// `needs` (named as `is_x86_feature_detected!` names them): `run` may
    /// call the form in an `unsafe` block on that ground.
    pub fn simd(
        mut self,
        name: &'static str,
        needs: &[&str],
        run: impl FnOnce() -> R + 'a,
    ) -> Self {
        if needs.iter().all(|&feature| cpu_has(feature)) {
            self.runs.push((name, Box::new(run)));
        }
        self
    }

    /// Each form's result, by name, in the order they were given.
    pub fn results(self) -> Vec<(&'static str, R)> {
        self.runs
            .into_iter()
            .map(|(name, run)| (name, run()))
            .collect()
    }

    /// Asserts that every form gives `expected`; `case` names the case in
    /// the message.
    pub fn assert_each(self, expected: &R, case: impl Display) {
        for (name, got) in self.results() {
            assert_eq!(&got, expected, "{name}: {case}");
        }
    }
}

/// Whether this CPU has `feature`, one of those the kernels use.
fn cpu_has(feature: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        match feature {
            "avx512f" => has!("avx512f"),
            "avx512vl" => has!("avx512vl"),
            "avx512cd" => has!("avx512cd"),
            "avx512vpopcntdq" => has!("avx512vpopcntdq"),
            "avx2" => has!("avx2"),
            "sse4.1" => has!("sse4.1"),
            "bmi2" => has!("bmi2"),
            "popcnt" => has!("popcnt"),
            _ => panic!("no kernel uses the feature {feature}"),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = feature;
        false
    }
}
