//! Sets filed into compact lists: those a step's cells miss, cut to the
//! cells left ([`file_sets`]), and those a hitting-set branch leaves unhit
//! ([`unhit_cut`]); AVX-512 compressing forms and portable ones.

use super::kernels::{self, Form};
use super::{Mask27, Mask54};

/// Room past the sets that [`file_sets`] may write into each output.
pub const FILE_SLACK: usize = 8;

/// Files the sets of `uas` that miss `b`, cut to `live`: those with a cell
/// left in the second band (bits 27..54) into `both`, the others into
/// `first` (as band masks). Returns how many went to each, in the order of
/// `uas`. Each output needs room for `uas.len() + FILE_SLACK` sets (the
/// room past the counts gets scratch values). With AVX-512F and VL (run
/// time), eight sets per round; otherwise [`file_sets_scalar`].
pub fn file_sets(
    uas: &[Mask54],
    (b, live): (Mask54, Mask54),
    (both, first): (&mut [Mask54], &mut [Mask27]),
) -> (usize, usize) {
    assert!(both.len() >= uas.len() + FILE_SLACK && first.len() >= uas.len() + FILE_SLACK);
    #[cfg(target_arch = "x86_64")]
    if kernels::compress_form() == Form::Avx512 {
        // SAFETY: this form is chosen only when AVX-512F and VL were
        // detected.
        return unsafe { file_sets_avx512(uas, (b, live), (both, first)) };
    }
    file_sets_scalar(uas, (b, live), (both, first))
}

/// The portable form of [`file_sets`], which tests compare against.
/// Without branches on the sets: every set is written to both lists, only
/// the right count moves.
pub fn file_sets_scalar(
    uas: &[Mask54],
    (b, live): (Mask54, Mask54),
    (both, first): (&mut [Mask54], &mut [Mask27]),
) -> (usize, usize) {
    let (mut nb, mut nf) = (0, 0);
    for &u in uas {
        let missed = u & b == 0;
        let v = u & live;
        let two = v >> 27 != 0;
        both[nb] = v;
        nb += (missed & two) as usize;
        first[nf] = v as Mask27;
        nf += (missed & !two) as usize;
    }
    (nb, nf)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
fn file_sets_avx512(
    uas: &[Mask54],
    (b, live): (Mask54, Mask54),
    (both, first): (&mut [Mask54], &mut [Mask27]),
) -> (usize, usize) {
    use std::arch::x86_64::{
        __m256i, __m512i, _mm256_maskz_compress_epi32, _mm256_storeu_si256, _mm512_and_si512,
        _mm512_cvtepi64_epi32, _mm512_loadu_si512, _mm512_maskz_compress_epi64, _mm512_set1_epi64,
        _mm512_storeu_si512, _mm512_test_epi64_mask, _mm512_testn_epi64_mask,
    };
    let (eights, tail) = uas.as_chunks::<8>();
    let (vb, vlive) = (_mm512_set1_epi64(b as i64), _mm512_set1_epi64(live as i64));
    let second = _mm512_set1_epi64(!((1i64 << 27) - 1));
    let (mut nb, mut nf) = (0, 0);
    for u in eights {
        // SAFETY: eight u64 are 64 readable bytes; loadu needs no alignment.
        let v = unsafe { _mm512_loadu_si512(u.as_ptr() as *const __m512i) };
        let missed = _mm512_testn_epi64_mask(v, vb);
        let cut = _mm512_and_si512(v, vlive);
        let two = _mm512_test_epi64_mask(cut, second);
        let (to_both, to_first) = (missed & two, missed & !two);
        // Compressed in registers, then stored whole (a compressing store
        // to memory is slow on some CPUs): the room past the counts takes
        // the rest.
        let packed = _mm512_maskz_compress_epi64(to_both, cut);
        // SAFETY: nb <= the sets read so far, and the asserted room leaves
        // eight more slots (64 bytes) past it.
        unsafe { _mm512_storeu_si512(both[nb..nb + 8].as_mut_ptr() as *mut __m512i, packed) };
        nb += to_both.count_ones() as usize;
        let packed = _mm256_maskz_compress_epi32(to_first, _mm512_cvtepi64_epi32(cut));
        // SAFETY: as above, eight u32 (32 bytes) past nf.
        unsafe { _mm256_storeu_si256(first[nf..nf + 8].as_mut_ptr() as *mut __m256i, packed) };
        nf += to_first.count_ones() as usize;
    }
    let (tb, tf) = file_sets_scalar(tail, (b, live), (&mut both[nb..], &mut first[nf..]));
    (nb + tb, nf + tf)
}

/// Room past the sets that [`unhit_cut`] may write into its output.
pub const CUT_SLACK: usize = 16;

/// The sets of `list` that miss `cell`, cut to the cells outside
/// `excluded`, into `out` in order; their count, or `None` when one of them
/// is left empty. `out` needs room for `list.len() + CUT_SLACK` sets (the
/// room past the count gets scratch values). With AVX-512F and VL (run
/// time), sixteen sets per round; otherwise [`unhit_cut_scalar`].
#[inline]
pub fn unhit_cut(
    list: &[Mask27],
    (cell, excluded): (Mask27, Mask27),
    out: &mut [Mask27],
) -> Option<usize> {
    assert!(out.len() >= list.len() + CUT_SLACK);
    #[cfg(target_arch = "x86_64")]
    if kernels::compress_form() == Form::Avx512 {
        // SAFETY: this form is chosen only when AVX-512F and VL were
        // detected.
        return unsafe { unhit_cut_avx512(list, (cell, excluded), out) };
    }
    unhit_cut_scalar(list, (cell, excluded), out)
}

/// The portable form of [`unhit_cut`], which tests compare against.
/// Without branches on the sets: every set is written, only the count of
/// those kept moves.
pub fn unhit_cut_scalar(
    list: &[Mask27],
    (cell, excluded): (Mask27, Mask27),
    out: &mut [Mask27],
) -> Option<usize> {
    let (mut n, mut empty) = (0, false);
    for &t in list {
        let missed = t & cell == 0;
        let avail = t & !excluded;
        empty |= missed & (avail == 0);
        out[n] = avail;
        n += missed as usize;
    }
    (!empty).then_some(n)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
fn unhit_cut_avx512(
    list: &[Mask27],
    (cell, excluded): (Mask27, Mask27),
    out: &mut [Mask27],
) -> Option<usize> {
    use std::arch::x86_64::{
        __m512i, _mm512_andnot_si512, _mm512_loadu_si512, _mm512_maskz_compress_epi32,
        _mm512_set1_epi32, _mm512_storeu_si512, _mm512_test_epi32_mask, _mm512_testn_epi32_mask,
    };
    let (sixteens, tail) = list.as_chunks::<16>();
    let (vcell, vexcl) = (
        _mm512_set1_epi32(cell as i32),
        _mm512_set1_epi32(excluded as i32),
    );
    let mut n = 0;
    for t in sixteens {
        // SAFETY: sixteen u32 are 64 readable bytes; loadu needs no alignment.
        let v = unsafe { _mm512_loadu_si512(t.as_ptr() as *const __m512i) };
        let missed = _mm512_testn_epi32_mask(v, vcell);
        let avail = _mm512_andnot_si512(vexcl, v);
        if missed & !_mm512_test_epi32_mask(avail, avail) != 0 {
            return None;
        }
        // Compressed in registers, then stored whole into the room.
        let packed = _mm512_maskz_compress_epi32(missed, avail);
        // SAFETY: n <= the sets read so far, and the asserted room leaves
        // sixteen more slots (64 bytes) past it.
        unsafe { _mm512_storeu_si512(out[n..n + 16].as_mut_ptr() as *mut __m512i, packed) };
        n += missed.count_ones() as usize;
    }
    unhit_cut_scalar(tail, (cell, excluded), &mut out[n..]).map(|m| n + m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::test_support::Forms;
    use crate::bits::{BAND_FULL, BANDS12_FULL};

    /// A run of [`file_sets`] in some form, on the two outputs.
    type File<'a> = &'a dyn Fn(&mut [Mask54], &mut [Mask27]) -> (usize, usize);

    #[test]
    fn file_sets_agrees_with_the_definition() {
        let mut rng = fastrand::Rng::with_seed(8);
        for n in [0, 1, 7, 8, 9, 63, 200, 1001] {
            let uas: Vec<Mask54> = (0..n)
                .map(|_| rng.u64(..) & rng.u64(..) & rng.u64(..) & BANDS12_FULL)
                .collect();
            let b = (1 << rng.u32(27..54)) | (1 << rng.u32(27..54));
            let live = (rng.u64(..) | rng.u64(..)) & BANDS12_FULL;
            let mut expected = (Vec::new(), Vec::new());
            for &u in &uas {
                let v = u & live;
                if u & b == 0 && v >> 27 != 0 {
                    expected.0.push(v);
                } else if u & b == 0 {
                    expected.1.push(v as Mask27);
                }
            }
            // One form's two lists, cut to the counts it returns.
            let filed = |file: File| {
                let (mut both, mut first) = (vec![0; n + FILE_SLACK], vec![0; n + FILE_SLACK]);
                let (nb, nf) = file(&mut both, &mut first);
                (both[..nb].to_vec(), first[..nf].to_vec())
            };
            let forms = Forms::new(
                || filed(&|both, first| file_sets(&uas, (b, live), (both, first))),
                || filed(&|both, first| file_sets_scalar(&uas, (b, live), (both, first))),
            );
            #[cfg(target_arch = "x86_64")]
            let forms = forms.simd("avx512", &["avx512f", "avx512vl"], || {
                // SAFETY: Forms runs this form only where AVX-512F and VL
                // were detected.
                filed(&|both, first| unsafe { file_sets_avx512(&uas, (b, live), (both, first)) })
            });
            forms.assert_each(&expected, format_args!("{n} sets"));
            if n > 100 {
                assert!(!expected.0.is_empty() && !expected.1.is_empty());
            }
        }
    }

    #[test]
    fn unhit_cut_agrees_with_the_definition() {
        let mut rng = fastrand::Rng::with_seed(9);
        let (mut dead, mut alive) = (0, 0);
        for round in 0..3000 {
            let n = [0, 1, 15, 16, 17, 40, 100][round % 7];
            let list: Vec<Mask27> = (0..n)
                .map(|_| (rng.u32(..) & rng.u32(..) & rng.u32(..) & BAND_FULL).max(1))
                .collect();
            let cell = 1 << rng.u32(0..27);
            let excluded = rng.u32(..) & rng.u32(..) & BAND_FULL;
            let kept: Vec<Mask27> = list
                .iter()
                .filter(|&&t| t & cell == 0)
                .map(|&t| t & !excluded)
                .collect();
            // The count, and the sets it counts.
            let expected = (!kept.contains(&0)).then_some(kept);
            dead += expected.is_none() as usize;
            alive += expected.is_some() as usize;
            let cut = |run: &dyn Fn(&mut [Mask27]) -> Option<usize>| {
                let mut out = vec![0; n + CUT_SLACK];
                run(&mut out).map(|m| out[..m].to_vec())
            };
            let forms = Forms::new(
                || cut(&|out| unhit_cut(&list, (cell, excluded), out)),
                || cut(&|out| unhit_cut_scalar(&list, (cell, excluded), out)),
            );
            #[cfg(target_arch = "x86_64")]
            let forms = forms.simd("avx512", &["avx512f", "avx512vl"], || {
                // SAFETY: Forms runs this form only where AVX-512F and VL
                // were detected.
                cut(&|out| unsafe { unhit_cut_avx512(&list, (cell, excluded), out) })
            });
            forms.assert_each(&expected, format_args!("{n} sets"));
        }
        assert!(dead > 100 && alive > 100, "{dead} dead, {alive} alive");
    }
}
