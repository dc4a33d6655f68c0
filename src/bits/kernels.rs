//! Which form of the SIMD kernels of [`crate::bits`] runs, and the switch
//! that forces the portable ones.
//!
//! Each kernel (`zero_and_pairs`, `and_rows`, `file_sets`, `unhit_cut`,
//! `node_scan`, `cut_scan`, `move_bits`) has a SIMD form and a portable
//! (scalar) form. The SIMD forms are chosen from the CPU features detected
//! at run time, once per process, unless the portable forms are forced:
//!
//! - by the environment variable `S17_PORTABLE=1`, read once, at the first
//!   kernel call (any other value, or none, leaves the choice to the CPU);
//! - by [`force_portable`], from then on, for the whole process (tests).
//!
//! [`kernel_forms`] reports the form each kernel takes; the kernels ask the
//! same functions, so the report is what runs. Three kernels take the form
//! of another, whose features they need: `or_rows` that of `file_sets`,
//! `extract_each` that of `move_bits`, and the search's `mini_row_pass`
//! that of `node_scan`. (`differing_words` is not
//! switched: its SSE2 form is chosen at compile time, SSE2 being part of
//! every x86-64.) [`missing_cpu_features`] lists the features the build
//! was compiled for that the CPU lacks, which the binary checks first.
//!
//! ```text
//! FEATURES  u32  0: not detected yet
//!                bit 0 (DETECTED): detection done
//!                bits 1..8: the features found (all clear when the
//!                portable forms are forced)
//! ```
//!
//! A feature bit is only ever set from the run-time detection, so a SIMD
//! form is never chosen on a CPU without its features; forcing only clears.

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};

/// The environment variable that forces the portable forms (value `1`).
pub const PORTABLE_VAR: &str = "S17_PORTABLE";

const DETECTED: u32 = 1;
const AVX512F: u32 = 1 << 1;
const AVX512VL: u32 = 1 << 2;
const AVX512CD: u32 = 1 << 3;
const AVX512VPOPCNTDQ: u32 = 1 << 4;
const AVX2: u32 = 1 << 5;
const SSE41: u32 = 1 << 6;
const BMI2: u32 = 1 << 7;

static FEATURES: AtomicU32 = AtomicU32::new(0);

/// The features the kernels may use (with [`DETECTED`] set).
#[inline(always)]
fn features() -> u32 {
    match FEATURES.load(Ordering::Relaxed) {
        0 => detect(),
        found => found,
    }
}

/// The first call: the CPU's features, or none when `S17_PORTABLE=1`. A
/// value stored meanwhile (by [`force_portable`]) is kept.
#[cold]
#[inline(never)]
fn detect() -> u32 {
    let portable = std::env::var_os(PORTABLE_VAR).is_some_and(|v| v == "1");
    let found = DETECTED | if portable { 0 } else { cpu_features() };
    match FEATURES.compare_exchange(0, found, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => found,
        Err(stored) => stored,
    }
}

/// The features of this CPU that some kernel uses.
fn cpu_features() -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        [
            (has!("avx512f"), AVX512F),
            (has!("avx512vl"), AVX512VL),
            (has!("avx512cd"), AVX512CD),
            (has!("avx512vpopcntdq"), AVX512VPOPCNTDQ),
            (has!("avx2"), AVX2),
            (has!("sse4.1"), SSE41),
            (has!("bmi2"), BMI2),
        ]
        .iter()
        .filter(|(present, _)| *present)
        .fold(0, |m, (_, bit)| m | bit)
    }
    #[cfg(not(target_arch = "x86_64"))]
    0
}

/// The CPU features this build was compiled to use that the running CPU
/// lacks (the ones a target-cpu setting turns on for ordinary code): the
/// binary checks them before anything else runs.
pub fn missing_cpu_features() -> Vec<&'static str> {
    #[cfg(not(target_arch = "x86_64"))]
    return Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! check {
            ($($feature:tt),*) => {{
                let mut missing = Vec::new();
                $(
                    if cfg!(target_feature = $feature)
                        && !std::arch::is_x86_feature_detected!($feature)
                    {
                        missing.push($feature);
                    }
                )*
                missing
            }};
        }
        check!(
            "popcnt",
            "sse3",
            "ssse3",
            "sse4.1",
            "sse4.2",
            "avx",
            "avx2",
            "bmi1",
            "bmi2",
            "lzcnt",
            "fma",
            "f16c",
            "movbe",
            "xsave",
            "adx",
            "sha",
            "aes",
            "pclmulqdq",
            "rdrand",
            "rdseed",
            "gfni",
            "vaes",
            "vpclmulqdq",
            "sse4a",
            "cmpxchg16b",
            "fxsr",
            "xsavec",
            "xsaveopt",
            "xsaves",
            "avx512f"
        )
    }
}

/// Forces the portable form of every kernel, for the rest of the process
/// (calls already running finish in the form they started in).
pub fn force_portable() {
    FEATURES.store(DETECTED, Ordering::Relaxed);
}

/// One form of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// The scalar form, on every CPU.
    Portable,
    Sse41,
    Avx2,
    Bmi2,
    Avx512,
}

impl Form {
    pub fn name(self) -> &'static str {
        match self {
            Form::Portable => "portable",
            Form::Sse41 => "sse4.1",
            Form::Avx2 => "avx2",
            Form::Bmi2 => "bmi2",
            Form::Avx512 => "avx512",
        }
    }
}

/// `form` when every feature of `needs` is there, else the portable form.
#[inline(always)]
fn when(needs: u32, form: Form) -> Form {
    if features() & needs == needs {
        form
    } else {
        Form::Portable
    }
}

/// The form of `zero_and_pairs` for vectors of `words` words: AVX-512F up
/// to 4 words; else AVX2 at 4 words, SSE4.1 at 2.
#[inline(always)]
pub(super) fn pairs_form(words: usize) -> Form {
    let f = features();
    if words <= 4 && f & AVX512F != 0 {
        Form::Avx512
    } else if words == 4 && f & AVX2 != 0 {
        Form::Avx2
    } else if words == 2 && f & SSE41 != 0 {
        Form::Sse41
    } else {
        Form::Portable
    }
}

/// The form of `and_rows` for rows of `words` words: AVX2 at 4 words.
#[inline(always)]
pub(super) fn and_rows_form(words: usize) -> Form {
    if words == 4 {
        when(AVX2, Form::Avx2)
    } else {
        Form::Portable
    }
}

/// The form of `file_sets` and `unhit_cut`: AVX-512F and VL.
#[inline(always)]
pub(super) fn compress_form() -> Form {
    when(AVX512F | AVX512VL, Form::Avx512)
}

/// The form of `node_scan` and `cut_scan`: AVX-512F, CD and VPOPCNTDQ.
#[inline(always)]
pub(crate) fn scan_form() -> Form {
    when(AVX512F | AVX512CD | AVX512VPOPCNTDQ, Form::Avx512)
}

/// The form of `move_bits`: BMI2 (PEXT and PDEP).
#[inline(always)]
pub(super) fn move_bits_form() -> Form {
    when(BMI2, Form::Bmi2)
}

/// The form each kernel takes now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelForms {
    /// `zero_and_pairs` (the XY loop) for vectors of 1, 2, 3 and 4 words.
    pub zero_and_pairs: [Form; 4],
    /// `and_rows` for rows of 1, 2, 3 and 4 words.
    pub and_rows: [Form; 4],
    pub file_sets: Form,
    pub unhit_cut: Form,
    pub node_scan: Form,
    pub cut_scan: Form,
    pub move_bits: Form,
}

impl KernelForms {
    /// Every form, in the order of the fields.
    pub fn all(&self) -> impl Iterator<Item = Form> + '_ {
        self.zero_and_pairs
            .iter()
            .chain(&self.and_rows)
            .copied()
            .chain([
                self.file_sets,
                self.unhit_cut,
                self.node_scan,
                self.cut_scan,
                self.move_bits,
            ])
    }

    /// True when every kernel runs its portable form.
    pub fn all_portable(&self) -> bool {
        self.all().all(|f| f == Form::Portable)
    }
}

/// `zero_and_pairs=avx512,avx512,avx512,avx512 and_rows=... file_sets=...`
impl fmt::Display for KernelForms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |forms: &[Form; 4]| forms.map(Form::name).join(",");
        write!(
            f,
            "zero_and_pairs={} and_rows={} file_sets={} unhit_cut={} node_scan={} cut_scan={} move_bits={}",
            list(&self.zero_and_pairs),
            list(&self.and_rows),
            self.file_sets.name(),
            self.unhit_cut.name(),
            self.node_scan.name(),
            self.cut_scan.name(),
            self.move_bits.name()
        )
    }
}

/// The form each kernel takes now (after the switch, if it was set).
pub fn kernel_forms() -> KernelForms {
    KernelForms {
        zero_and_pairs: [1, 2, 3, 4].map(pairs_form),
        and_rows: [1, 2, 3, 4].map(and_rows_form),
        file_sets: compress_form(),
        unhit_cut: compress_form(),
        node_scan: scan_form(),
        cut_scan: scan_form(),
        move_bits: move_bits_form(),
    }
}
