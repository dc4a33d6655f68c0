//! Tables of bit vectors, one row per cell: the OR ([`or_rows`]) or AND
//! ([`and_rows`]) of the rows of a set's cells, and the 64 × 64 bit
//! transpose that turns per-set bits into per-cell rows.

use super::kernels::{self, Form};
use super::{Mask27, Mask54};

/// Transposes a 64 × 64 bit matrix in place: afterwards bit k of `m[c]` is
/// what bit c of `m[k]` was. Six rounds of block swaps (32-bit blocks, then
/// 16, ..., 1), no memory traffic beyond the 64 words.
pub fn transpose64(m: &mut [u64; 64]) {
    const MASKS: [u64; 6] = [
        0x0000_0000_ffff_ffff,
        0x0000_ffff_0000_ffff,
        0x00ff_00ff_00ff_00ff,
        0x0f0f_0f0f_0f0f_0f0f,
        0x3333_3333_3333_3333,
        0x5555_5555_5555_5555,
    ];
    for (round, &mask) in MASKS.iter().enumerate() {
        let j = 32 >> round;
        for block in m.chunks_exact_mut(2 * j) {
            // Swap the high j-bit halves of the first j rows' blocks with
            // the low halves of the next j rows'.
            let (low, high) = block.split_at_mut(j);
            for (a, b) in low.iter_mut().zip(high.iter_mut()) {
                let t = ((*a >> j) ^ *b) & mask;
                *a ^= t << j;
                *b ^= t;
            }
        }
    }
}

/// The OR, into `out`, of the rows of the cells of `cells` (row `c` is
/// `rows[c * stride..]`, as many words as `out`). With AVX-512F (run time,
/// the form of `file_sets`) eight words at a time, held in a register
/// over the rows; otherwise [`or_rows_scalar`].
#[inline]
pub fn or_rows(rows: &[u64], stride: usize, cells: Mask54, out: &mut [u64]) {
    let (starts, n) = row_starts(cells, stride);
    // The starts grow with the cells: the last row is the one to check.
    if n > 0 {
        let last = starts[n - 1];
        assert!(
            last + out.len() <= rows.len(),
            "row {} out of bounds",
            last / stride
        );
    }
    #[cfg(target_arch = "x86_64")]
    if kernels::compress_form() == Form::Avx512 {
        // SAFETY: this form is chosen only when AVX-512F was detected, and
        // every row was checked to lie inside `rows`.
        return unsafe { or_rows_avx512(rows, &starts[..n], out) };
    }
    or_rows_scalar(rows, &starts[..n], out)
}

/// Where the row of each cell of `cells` starts in a table of rows
/// `stride` words apart, in cell order: the first `n` entries, with `n`.
#[inline]
pub fn row_starts(cells: Mask54, stride: usize) -> ([usize; 54], usize) {
    let mut starts = [0usize; 54];
    let mut n = 0;
    for c in super::cells(cells) {
        starts[n] = c * stride;
        n += 1;
    }
    (starts, n)
}

/// The portable form of [`or_rows`] (rows by their starts in `rows`).
pub fn or_rows_scalar(rows: &[u64], starts: &[usize], out: &mut [u64]) {
    out.fill(0);
    for &start in starts {
        for (o, &r) in out.iter_mut().zip(&rows[start..]) {
            *o |= r;
        }
    }
}

/// # Safety
/// AVX-512F, and `rows[start..start + out.len()]` in bounds for every
/// start.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn or_rows_avx512(rows: &[u64], starts: &[usize], out: &mut [u64]) {
    use std::arch::x86_64::{
        _mm512_mask_storeu_epi64, _mm512_maskz_loadu_epi64, _mm512_or_si512, _mm512_setzero_si512,
    };
    for base in (0..out.len()).step_by(8) {
        let lanes = (0xffu32 >> (8 - (out.len() - base).min(8))) as u8;
        let mut acc = _mm512_setzero_si512();
        for &start in starts {
            // SAFETY: the caller checked the row; the mask stays inside it.
            let row = unsafe {
                _mm512_maskz_loadu_epi64(lanes, rows.as_ptr().add(start + base) as *const i64)
            };
            acc = _mm512_or_si512(acc, row);
        }
        // SAFETY: the mask stays inside `out`.
        unsafe { _mm512_mask_storeu_epi64(out.as_mut_ptr().add(base) as *mut i64, lanes, acc) };
    }
}

/// For each set of `sets` (cells of a band), the AND of `all` and the rows
/// of `rows` at its cells, into `out` (cleared first) one after another.
/// With `W = 4` and AVX2 (run time) one 256-bit AND per cell; otherwise
/// [`and_rows_scalar`].
#[inline]
pub fn and_rows<const W: usize>(
    rows: &[[u64; W]],
    all: [u64; W],
    sets: impl ExactSizeIterator<Item = Mask27>,
    out: &mut Vec<u64>,
) {
    #[cfg(target_arch = "x86_64")]
    if kernels::and_rows_form(W) == Form::Avx2 {
        let rows4: &[[u64; 4]] = rows.as_flattened().as_chunks::<4>().0;
        let all4: [u64; 4] = std::array::from_fn(|w| all[w]);
        // SAFETY: this form is chosen only when AVX2 was detected.
        unsafe { and_rows_avx2(rows4, all4, sets, out) };
        return;
    }
    and_rows_scalar(rows, all, sets, out)
}

/// The portable form of [`and_rows`], which tests compare against.
pub fn and_rows_scalar<const W: usize>(
    rows: &[[u64; W]],
    all: [u64; W],
    sets: impl Iterator<Item = Mask27>,
    out: &mut Vec<u64>,
) {
    out.clear();
    for set in sets {
        let mut v = all;
        let mut cells = set;
        while cells != 0 {
            let row = &rows[cells.trailing_zeros() as usize];
            for w in 0..W {
                v[w] &= row[w];
            }
            cells &= cells - 1;
        }
        out.extend_from_slice(&v);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn and_rows_avx2(
    rows: &[[u64; 4]],
    all: [u64; 4],
    sets: impl ExactSizeIterator<Item = Mask27>,
    out: &mut Vec<u64>,
) {
    use std::arch::x86_64::{__m256i, _mm256_and_si256, _mm256_loadu_si256, _mm256_storeu_si256};
    out.clear();
    out.resize(4 * sets.len(), 0);
    // SAFETY: [u64; 4] is 32 readable bytes; loadu needs no alignment.
    let all = unsafe { _mm256_loadu_si256(all.as_ptr() as *const __m256i) };
    for (dst, set) in out.as_chunks_mut::<4>().0.iter_mut().zip(sets) {
        let mut v = all;
        let mut cells = set;
        while cells != 0 {
            let row = &rows[cells.trailing_zeros() as usize];
            // SAFETY: as above.
            v = _mm256_and_si256(v, unsafe {
                _mm256_loadu_si256(row.as_ptr() as *const __m256i)
            });
            cells &= cells - 1;
        }
        // SAFETY: dst is 32 writable bytes; storeu needs no alignment.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr() as *mut __m256i, v) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::BAND_FULL;
    use crate::bits::test_support::Forms;

    #[test]
    fn transpose64_matches_the_definition() {
        let mut rng = fastrand::Rng::with_seed(64);
        for _ in 0..50 {
            let m: [u64; 64] = std::array::from_fn(|_| rng.u64(..) & rng.u64(..));
            let mut t = m;
            transpose64(&mut t);
            for (k, &row) in m.iter().enumerate() {
                for (c, &column) in t.iter().enumerate() {
                    assert_eq!(column >> k & 1, row >> c & 1, "row {k} column {c}");
                }
            }
            transpose64(&mut t);
            assert_eq!(t, m);
        }
    }

    /// `or_rows` in every form (the dispatched one, the portable one, the
    /// AVX-512 one called directly where the CPU has it) against the
    /// definition, for every width up to 64 words (the tails of the
    /// eight-word rounds) and random cells.
    #[test]
    fn or_rows_agrees_with_the_definition() {
        let mut rng = fastrand::Rng::with_seed(25);
        let stride = 64;
        let rows: Vec<u64> = (0..54 * stride)
            .map(|_| rng.u64(..) & rng.u64(..) & rng.u64(..))
            .collect();
        for words in 0..=stride {
            for _ in 0..10 {
                let cells = rng.u64(..) & rng.u64(..) & ((1 << 54) - 1);
                let expected: Vec<u64> = (0..words)
                    .map(|w| crate::bits::cells(cells).fold(0, |m, c| m | rows[c * stride + w]))
                    .collect();
                let starts: Vec<usize> = crate::bits::cells(cells).map(|c| c * stride).collect();
                // Stale words in `out` must not leak through.
                let ored = |run: &dyn Fn(&mut [u64])| {
                    let mut out = vec![!0; words];
                    run(&mut out);
                    out
                };
                let forms = Forms::new(
                    || ored(&|out| or_rows(&rows, stride, cells, out)),
                    || ored(&|out| or_rows_scalar(&rows, &starts, out)),
                );
                #[cfg(target_arch = "x86_64")]
                let forms = forms.simd("avx512", &["avx512f"], || {
                    // SAFETY: Forms runs this form only where AVX-512F was
                    // detected, and every row lies in `rows`.
                    ored(&|out| unsafe { or_rows_avx512(&rows, &starts, out) })
                });
                forms.assert_each(&expected, format_args!("{words} {cells:x}"));
            }
        }
    }

    fn check_and_rows<const W: usize>(rng: &mut fastrand::Rng) {
        let rows: Vec<[u64; W]> = (0..27)
            .map(|_| std::array::from_fn(|_| rng.u64(..) | rng.u64(..)))
            .collect();
        let all: [u64; W] = std::array::from_fn(|_| rng.u64(..) | rng.u64(..));
        let sets: Vec<Mask27> = (0..rng.usize(0..300))
            .map(|_| rng.u32(..) & rng.u32(..) & BAND_FULL)
            .collect();
        let mut expected = Vec::new();
        for &set in &sets {
            let v: [u64; W] = std::array::from_fn(|w| {
                (0..27)
                    .filter(|&c| set >> c & 1 != 0)
                    .fold(all[w], |v, c| v & rows[c][w])
            });
            expected.extend_from_slice(&v);
        }
        // Stale words in `out` must not stay.
        let anded = |run: &dyn Fn(&mut Vec<u64>)| {
            let mut out = vec![1, 2, 3];
            run(&mut out);
            out
        };
        let forms = Forms::new(
            || anded(&|out| and_rows(&rows, all, sets.iter().copied(), out)),
            || anded(&|out| and_rows_scalar(&rows, all, sets.iter().copied(), out)),
        );
        #[cfg(target_arch = "x86_64")]
        let forms = if W == 4 {
            let rows4: &[[u64; 4]] = rows.as_flattened().as_chunks::<4>().0;
            let all4: [u64; 4] = std::array::from_fn(|w| all[w]);
            let (sets, anded) = (&sets, &anded);
            forms.simd("avx2", &["avx2"], move || {
                // SAFETY: Forms runs this form only where AVX2 was detected.
                anded(&|out| unsafe { and_rows_avx2(rows4, all4, sets.iter().copied(), out) })
            })
        } else {
            forms
        };
        forms.assert_each(&expected, format_args!("W = {W}"));
    }

    #[test]
    fn and_rows_agrees_with_the_definition() {
        let mut rng = fastrand::Rng::with_seed(31);
        for _ in 0..200 {
            check_and_rows::<1>(&mut rng);
            check_and_rows::<2>(&mut rng);
            check_and_rows::<4>(&mut rng);
        }
    }
}
