//! Word tricks of the solver: where two arrays of words differ (SSE2), and
//! the cells of a digit array that hold a clue.

use super::Mask81;

/// The positions where two arrays of 28 words differ: bit `i` set when
/// `a[i] != b[i]`. With SSE2 (part of every x86_64) four words at a time;
/// elsewhere a scalar loop.
#[inline(always)]
pub fn differing_words(a: &[u32; 28], b: &[u32; 28]) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: the function only needs SSE2, which this build enables
        // (checked by the cfg above).
        unsafe { differing_words_sse2(a, b) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    differing_words_scalar(a, b)
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn differing_words_sse2(a: &[u32; 28], b: &[u32; 28]) -> u32 {
    use std::arch::x86_64::{__m128i, _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_movemask_ps};
    let lanes = |w: &[u32; 28], chunk: usize| -> __m128i {
        let four: [u32; 4] = w[4 * chunk..4 * chunk + 4].try_into().expect("4 words");
        bytemuck::cast(four)
    };
    let mut equal = 0u32;
    for chunk in 0..7 {
        let same = _mm_cmpeq_epi32(lanes(a, chunk), lanes(b, chunk));
        equal |= (_mm_movemask_ps(_mm_castsi128_ps(same)) as u32) << (4 * chunk);
    }
    !equal & 0xfff_ffff
}

/// The scalar form of [`differing_words`].
#[inline(always)]
pub fn differing_words_scalar(a: &[u32; 28], b: &[u32; 28]) -> u32 {
    let mut differ = 0;
    for i in 0..28 {
        differ |= ((a[i] != b[i]) as u32) << i;
    }
    differ
}

/// The cells holding a non-zero byte: bit `i` set when `bytes[i] != 0`
/// (the clue cells of a puzzle's digits), eight bytes at a time.
#[inline]
pub fn nonzero_cells(bytes: &[u8; 81]) -> Mask81 {
    let mut mask = ((bytes[80] != 0) as Mask81) << 80;
    for chunk in 0..10 {
        let eight: [u8; 8] = bytes[8 * chunk..8 * chunk + 8].try_into().expect("8 bytes");
        mask |= (nonzero_byte_bits(u64::from_le_bytes(eight)) as Mask81) << (8 * chunk);
    }
    mask
}

/// Bit `k` set when byte `k` of `x` is not zero. Adding 0x7f to the low 7
/// bits of a byte sets its high bit unless they are all zero; one multiply
/// then gathers the 8 high bits into the top byte.
#[inline(always)]
fn nonzero_byte_bits(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let high = (((x & LOW7) + LOW7) | x) & !LOW7;
    (high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::GRID_FULL;
    use crate::bits::test_support::Forms;

    /// Both forms of `differing_words` (the dispatched one is SSE2 on
    /// every x86-64) against the definition.
    #[test]
    fn differing_words_matches_scalar() {
        let definition =
            |a: &[u32; 28], b: &[u32; 28]| (0..28).fold(0, |m, i| m | ((a[i] != b[i]) as u32) << i);
        let mut rng = fastrand::Rng::with_seed(17);
        for _ in 0..1000 {
            let a: [u32; 28] = std::array::from_fn(|_| rng.u32(..3) << 29);
            let b: [u32; 28] = std::array::from_fn(|_| rng.u32(..3) << 29);
            Forms::new(
                || differing_words(&a, &b),
                || differing_words_scalar(&a, &b),
            )
            .assert_each(&definition(&a, &b), format_args!("{a:x?} {b:x?}"));
            assert_eq!(differing_words(&a, &a), 0);
        }
        let mut b = [0u32; 28];
        b[27] = 1 << 31;
        b[3] = 5;
        assert_eq!(differing_words(&[0; 28], &b), 1 << 27 | 1 << 3);
    }

    #[test]
    fn nonzero_cells_matches_scalar() {
        let mut rng = fastrand::Rng::with_seed(81);
        for _ in 0..1000 {
            let zeros = rng.u8(..10);
            let bytes: [u8; 81] = std::array::from_fn(|_| rng.u8(..10).saturating_sub(zeros));
            let expected = (0..81).fold(0, |m, i| m | ((bytes[i] != 0) as Mask81) << i);
            assert_eq!(nonzero_cells(&bytes), expected);
        }
        assert_eq!(nonzero_cells(&[255; 81]), GRID_FULL);
    }
}
