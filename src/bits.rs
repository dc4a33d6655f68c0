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
//! Any SIMD used by the search lives in this module, behind named operations
//! with a scalar fallback. The SIMD forms are chosen at run time, and the
//! portable forms can be forced (`S17_PORTABLE=1`, or [`force_portable`]):
//! see [`kernels`].

pub mod kernels;
pub mod sockets;

pub use kernels::{Form, KernelForms, force_portable, kernel_forms};

/// A set of cells of one band.
pub type Mask27 = u32;
/// A set of cells of bands 1+2 (grid cells 0..54).
pub type Mask54 = u64;
/// A set of cells of the grid.
pub type Mask81 = u128;

/// All 27 cells of a band.
pub const BAND_FULL: Mask27 = (1 << 27) - 1;
/// All 54 cells of bands 1+2.
pub const BANDS12_FULL: Mask54 = (1 << 54) - 1;
/// All 81 cells.
pub const GRID_FULL: Mask81 = (1 << 81) - 1;

/// Iterates the set bits of a `u32`, lowest first.
#[inline]
pub fn cells27(mut mask: Mask27) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let cell = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(cell)
    })
}

/// Iterates the set bits of a `u64`, lowest first.
#[inline]
pub fn cells54(mut mask: Mask54) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let cell = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(cell)
    })
}

/// Iterates the set bits of a `u128`, lowest first.
#[inline]
pub fn cells81(mut mask: Mask81) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let cell = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(cell)
    })
}

/// The 27-cell part of a grid mask that lies in band `band`.
#[inline]
pub fn band_part(mask: Mask81, band: usize) -> Mask27 {
    ((mask >> (27 * band)) as u32) & BAND_FULL
}

/// A grid mask from a band mask placed in band `band`.
#[inline]
pub fn from_band(mask: Mask27, band: usize) -> Mask81 {
    (mask as u128) << (27 * band)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterate_and_place() {
        assert_eq!(cells27(0b1011).collect::<Vec<_>>(), vec![0, 1, 3]);
        assert_eq!(cells54(1 << 53).collect::<Vec<_>>(), vec![53]);
        assert_eq!(cells81(1 << 80 | 1).collect::<Vec<_>>(), vec![0, 80]);
        let m = from_band(0b101, 2);
        assert_eq!(cells81(m).collect::<Vec<_>>(), vec![54, 56]);
        assert_eq!(band_part(m, 2), 0b101);
        assert_eq!(band_part(m, 1), 0);
        assert_eq!(GRID_FULL.count_ones(), 81);
    }
}

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

#[cfg(test)]
mod word_tests {
    use super::*;

    #[test]
    fn differing_words_matches_scalar() {
        let mut rng = fastrand::Rng::with_seed(17);
        for _ in 0..1000 {
            let a: [u32; 28] = std::array::from_fn(|_| rng.u32(..3) << 29);
            let b: [u32; 28] = std::array::from_fn(|_| rng.u32(..3) << 29);
            assert_eq!(differing_words(&a, &b), differing_words_scalar(&a, &b));
            assert_eq!(differing_words(&a, &a), 0);
        }
        let mut b = [0u32; 28];
        b[27] = 1 << 31;
        b[3] = 5;
        assert_eq!(differing_words(&[0; 28], &b), 1 << 27 | 1 << 3);
    }
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
mod byte_tests {
    use super::*;

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

#[cfg(test)]
mod transpose_tests {
    #[test]
    fn transpose64_matches_the_definition() {
        let mut rng = fastrand::Rng::with_seed(64);
        for _ in 0..50 {
            let m: [u64; 64] = std::array::from_fn(|_| rng.u64(..) & rng.u64(..));
            let mut t = m;
            super::transpose64(&mut t);
            for (k, &row) in m.iter().enumerate() {
                for (c, &column) in t.iter().enumerate() {
                    assert_eq!(column >> k & 1, row >> c & 1, "row {k} column {c}");
                }
            }
            super::transpose64(&mut t);
            assert_eq!(t, m);
        }
    }
}

/// The XY inner loop of the search: appends to `out` every index pair
/// `(i, j)` with `xs[i] & ys[j]` zero in all `W` words, Y taken in blocks
/// of `chunk` so that a block stays in cache while every X passes over it.
/// With `W` at most 4 and AVX-512F, four X against eight Y per round, Y
/// word-major (blocks of `chunk` rounded down to a multiple of 8, at most
/// 256); else with `W = 4` and AVX2, or `W = 2` and SSE4.1, one 256-bit or
/// 128-bit test per pair (all detected at run time); otherwise, or when
/// the portable forms are forced ([`kernels`]), [`zero_and_pairs_scalar`].
pub fn zero_and_pairs<const W: usize>(
    xs: &[[u64; W]],
    ys: &[[u64; W]],
    chunk: usize,
    out: &mut Vec<(u32, u32)>,
) {
    match kernels::pairs_form(W) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: this form is chosen only when AVX-512F was detected.
        Form::Avx512 => unsafe { zero_and_pairs_avx512(xs, ys, chunk, out) },
        #[cfg(target_arch = "x86_64")]
        Form::Avx2 => {
            let xs4: &[[u64; 4]] = xs.as_flattened().as_chunks::<4>().0;
            let ys4: &[[u64; 4]] = ys.as_flattened().as_chunks::<4>().0;
            // SAFETY: this form is chosen only when AVX2 was detected.
            unsafe { zero_and_pairs_avx2(xs4, ys4, chunk, out) }
        }
        #[cfg(target_arch = "x86_64")]
        Form::Sse41 => {
            let xs2: &[[u64; 2]] = xs.as_flattened().as_chunks::<2>().0;
            let ys2: &[[u64; 2]] = ys.as_flattened().as_chunks::<2>().0;
            // SAFETY: this form is chosen only when SSE4.1 was detected.
            unsafe { zero_and_pairs_sse41(xs2, ys2, chunk, out) }
        }
        _ => zero_and_pairs_scalar(xs, ys, chunk, out),
    }
}

/// The portable form of [`zero_and_pairs`], which tests compare against.
pub fn zero_and_pairs_scalar<const W: usize>(
    xs: &[[u64; W]],
    ys: &[[u64; W]],
    chunk: usize,
    out: &mut Vec<(u32, u32)>,
) {
    for (block, ys) in ys.chunks(chunk.max(1)).enumerate() {
        let base = (block * chunk) as u32;
        for (i, a) in xs.iter().enumerate() {
            for (j, b) in ys.iter().enumerate() {
                let mut acc = 0;
                for w in 0..W {
                    acc |= a[w] & b[w];
                }
                if acc == 0 {
                    out.push((i as u32, base + j as u32));
                }
            }
        }
    }
}

/// Most Y vectors the AVX-512 loop turns word-major at once.
const OCTET_BLOCK: usize = 256;
/// X vectors the AVX-512 loop tests against each octet of Y it loads.
const XS_PER_PASS: usize = 4;
// The AVX-512 loop keeps an octet's zero lanes for every X of a pass in
// one u32, and a bit per octet of a block in another.
const _: () = assert!(XS_PER_PASS * 8 <= 32 && OCTET_BLOCK / 8 <= 32);

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn zero_and_pairs_avx512<const W: usize>(
    xs: &[[u64; W]],
    ys: &[[u64; W]],
    chunk: usize,
    out: &mut Vec<(u32, u32)>,
) {
    use std::arch::x86_64::{
        __m512i, _mm512_and_si512, _mm512_loadu_si512, _mm512_set1_epi64,
        _mm512_ternarylogic_epi64, _mm512_testn_epi64_mask,
    };
    // Y in octets, word-major: word w of eight Y in one register. Blocks of
    // at most OCTET_BLOCK Y, a multiple of 8, turned on the stack.
    let chunk = chunk.clamp(8, OCTET_BLOCK) & !7;
    let mut octets = [[0u64; 32]; OCTET_BLOCK / 8];
    for (block, ys) in ys.chunks(chunk).enumerate() {
        let base = (block * chunk) as u32;
        let n = ys.len().div_ceil(8);
        for (k, y) in ys.iter().enumerate() {
            for w in 0..W {
                octets[k / 8][8 * w + k % 8] = y[w];
            }
        }
        let octets = &octets[..n];
        // Lanes past the last Y (left from an earlier block) are never
        // reported.
        let last_lanes = (0xffu32 >> (8 * n - ys.len())) as u8;
        // XS_PER_PASS X per pass: each octet is loaded once for them all.
        for (h, group) in xs.chunks(XS_PER_PASS).enumerate() {
            let x: [[__m512i; W]; XS_PER_PASS] = std::array::from_fn(|k| {
                group[k.min(group.len() - 1)].map(|w| _mm512_set1_epi64(w as i64))
            });
            // The zero lanes of each octet (byte k: those of X k), pushed
            // after the loop (no call in it: the registers stay put), and
            // the octets with any (`live`, a bit each): pairs are rare, a
            // few per pass, so only those octets are read again.
            let mut zeros = [0u32; OCTET_BLOCK / 8];
            let mut live = 0u32;
            for (p, octet) in octets.iter().enumerate() {
                // SAFETY: an octet is four times 64 readable bytes.
                let y: [__m512i; W] = std::array::from_fn(|w| unsafe {
                    _mm512_loadu_si512(octet[8 * w..].as_ptr() as *const __m512i)
                });
                let mut z = 0u32;
                for (k, x) in x.iter().enumerate() {
                    // OR over the words of x_w AND y_w (0xF8: A | B & C).
                    let mut t = _mm512_and_si512(x[0], y[0]);
                    for w in 1..W {
                        t = _mm512_ternarylogic_epi64::<0xF8>(t, x[w], y[w]);
                    }
                    z |= u32::from(_mm512_testn_epi64_mask(t, t)) << (8 * k);
                }
                zeros[p] = z;
                live |= u32::from(z != 0) << p;
            }
            zeros[n - 1] &= u32::from(last_lanes) * 0x0101_0101;
            live &= !(u32::from(zeros[n - 1] == 0) << (n - 1));
            if live == 0 {
                continue;
            }
            for k in 0..group.len() {
                let i = (XS_PER_PASS * h + k) as u32;
                let mut octets_live = live;
                while octets_live != 0 {
                    let p = octets_live.trailing_zeros() as usize;
                    octets_live &= octets_live - 1;
                    let (mut z, j) = ((zeros[p] >> (8 * k)) & 0xff, base + 8 * p as u32);
                    while z != 0 {
                        out.push((i, j + z.trailing_zeros()));
                        z &= z - 1;
                    }
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn zero_and_pairs_avx2(xs: &[[u64; 4]], ys: &[[u64; 4]], chunk: usize, out: &mut Vec<(u32, u32)>) {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_testz_si256};
    for (block, ys) in ys.chunks(chunk.max(1)).enumerate() {
        let base = (block * chunk) as u32;
        for (i, a) in xs.iter().enumerate() {
            // SAFETY: [u64; 4] is 32 readable bytes; loadu needs no alignment.
            let va = unsafe { _mm256_loadu_si256(a.as_ptr() as *const __m256i) };
            for (j, b) in ys.iter().enumerate() {
                // SAFETY: as above.
                let vb = unsafe { _mm256_loadu_si256(b.as_ptr() as *const __m256i) };
                if _mm256_testz_si256(va, vb) != 0 {
                    out.push((i as u32, base + j as u32));
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.1")]
fn zero_and_pairs_sse41(xs: &[[u64; 2]], ys: &[[u64; 2]], chunk: usize, out: &mut Vec<(u32, u32)>) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_testz_si128};
    for (block, ys) in ys.chunks(chunk.max(1)).enumerate() {
        let base = (block * chunk) as u32;
        for (i, a) in xs.iter().enumerate() {
            // SAFETY: [u64; 2] is 16 readable bytes; loadu needs no alignment.
            let va = unsafe { _mm_loadu_si128(a.as_ptr() as *const __m128i) };
            for (j, b) in ys.iter().enumerate() {
                // SAFETY: as above.
                let vb = unsafe { _mm_loadu_si128(b.as_ptr() as *const __m128i) };
                if _mm_testz_si128(va, vb) != 0 {
                    out.push((i as u32, base + j as u32));
                }
            }
        }
    }
}

#[cfg(test)]
mod pair_tests {
    use super::*;

    /// Random vectors with few bits, so that a fair share of pairs AND to
    /// zero, in every word count the search uses.
    fn vectors<const W: usize>(rng: &mut fastrand::Rng, n: usize) -> Vec<[u64; W]> {
        (0..n)
            .map(|_| std::array::from_fn(|_| rng.u64(..) & rng.u64(..) & rng.u64(..) & rng.u64(..)))
            .collect()
    }

    fn check<const W: usize>(seed: u64) {
        let mut rng = fastrand::Rng::with_seed(seed);
        for (nx, ny, chunk) in [
            (0, 5, 16),
            (7, 0, 16),
            (37, 300, 64),
            (100, 257, 256),
            (3, 1000, 16),
            (50, 77, 20),
        ] {
            let mut xs = vectors::<W>(&mut rng, nx);
            let ys = vectors::<W>(&mut rng, ny);
            // An X that hits every set pairs with every Y (no Y past the
            // end may come out).
            if let Some(x) = xs.get_mut(nx / 2) {
                *x = [0; W];
            }
            let mut fast = Vec::new();
            zero_and_pairs(&xs, &ys, chunk, &mut fast);
            let mut slow = Vec::new();
            zero_and_pairs_scalar(&xs, &ys, chunk, &mut slow);
            // The plain definition, pair by pair.
            let mut direct = Vec::new();
            for (i, a) in xs.iter().enumerate() {
                for (j, b) in ys.iter().enumerate() {
                    if (0..W).all(|w| a[w] & b[w] == 0) {
                        direct.push((i as u32, j as u32));
                    }
                }
            }
            // In the same order when the fast loops keep the blocks (their
            // blocks are a multiple of 8, at most 256).
            if chunk % 8 == 0 && chunk <= 256 {
                assert_eq!(fast, slow, "W = {W}, {nx} x {ny}, chunk {chunk}");
            }
            fast.sort_unstable();
            direct.sort_unstable();
            assert_eq!(fast, direct, "W = {W}, {nx} x {ny}, chunk {chunk}");
            if nx * ny > 1000 {
                assert!(!direct.is_empty() && direct.len() < nx * ny);
            }
        }
    }

    #[test]
    fn zero_and_pairs_agrees_with_the_definition() {
        check::<1>(1);
        check::<2>(2);
        check::<3>(3);
        check::<4>(4);
    }
}

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
    b: Mask54,
    live: Mask54,
    both: &mut [Mask54],
    first: &mut [Mask27],
) -> (usize, usize) {
    assert!(both.len() >= uas.len() + FILE_SLACK && first.len() >= uas.len() + FILE_SLACK);
    #[cfg(target_arch = "x86_64")]
    if kernels::compress_form() == Form::Avx512 {
        // SAFETY: this form is chosen only when AVX-512F and VL were
        // detected.
        return unsafe { file_sets_avx512(uas, b, live, both, first) };
    }
    file_sets_scalar(uas, b, live, both, first)
}

/// The portable form of [`file_sets`], which tests compare against.
/// Without branches on the sets: every set is written to both lists, only
/// the right count moves.
pub fn file_sets_scalar(
    uas: &[Mask54],
    b: Mask54,
    live: Mask54,
    both: &mut [Mask54],
    first: &mut [Mask27],
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
    b: Mask54,
    live: Mask54,
    both: &mut [Mask54],
    first: &mut [Mask27],
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
    let (tb, tf) = file_sets_scalar(tail, b, live, &mut both[nb..], &mut first[nf..]);
    (nb + tb, nf + tf)
}

#[cfg(test)]
mod file_tests {
    use super::*;

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
            for fast in [true, false] {
                let mut both = vec![0; n + FILE_SLACK];
                let mut first = vec![0; n + FILE_SLACK];
                let (nb, nf) = if fast {
                    file_sets(&uas, b, live, &mut both, &mut first)
                } else {
                    file_sets_scalar(&uas, b, live, &mut both, &mut first)
                };
                assert_eq!(&both[..nb], &expected.0[..], "{n} sets, fast {fast}");
                assert_eq!(&first[..nf], &expected.1[..], "{n} sets, fast {fast}");
            }
            if n > 100 {
                assert!(!expected.0.is_empty() && !expected.1.is_empty());
            }
        }
    }
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
    cell: Mask27,
    excluded: Mask27,
    out: &mut [Mask27],
) -> Option<usize> {
    assert!(out.len() >= list.len() + CUT_SLACK);
    #[cfg(target_arch = "x86_64")]
    if kernels::compress_form() == Form::Avx512 {
        // SAFETY: this form is chosen only when AVX-512F and VL were
        // detected.
        return unsafe { unhit_cut_avx512(list, cell, excluded, out) };
    }
    unhit_cut_scalar(list, cell, excluded, out)
}

/// The portable form of [`unhit_cut`], which tests compare against.
/// Without branches on the sets: every set is written, only the count of
/// those kept moves.
pub fn unhit_cut_scalar(
    list: &[Mask27],
    cell: Mask27,
    excluded: Mask27,
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
    cell: Mask27,
    excluded: Mask27,
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
    unhit_cut_scalar(tail, cell, excluded, &mut out[n..]).map(|m| n + m)
}

#[cfg(test)]
mod cut_tests {
    use super::*;

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
            let expected = (!kept.contains(&0)).then_some(kept.len());
            dead += expected.is_none() as usize;
            alive += expected.is_some() as usize;
            for fast in [true, false] {
                let mut out = vec![0; n + CUT_SLACK];
                let got = if fast {
                    unhit_cut(&list, cell, excluded, &mut out)
                } else {
                    unhit_cut_scalar(&list, cell, excluded, &mut out)
                };
                assert_eq!(got, expected, "{n} sets, fast {fast}");
                if let Some(m) = got {
                    assert_eq!(&out[..m], &kept[..], "{n} sets, fast {fast}");
                }
            }
        }
        assert!(dead > 100 && alive > 100, "{dead} dead, {alive} alive");
    }
}

/// The family bit of a band set `t` for the mini-row bound of the
/// hitting-set search: mini-row r holds band cells 3r..3r + 3 (rows of nine
/// cells, boxes of three columns); a set inside mini-row r with 3-bit local
/// mask s gets bit 7r + s - 1, any other set (and the empty set) 0.
#[inline]
pub fn mini_row_bit(t: Mask27) -> u64 {
    // For t = 0, r = 10 and local = 0: the shift wraps (debug builds
    // check overflow), and the bit is 0.
    let r = t.trailing_zeros() / 3;
    let local = t >> (3 * r);
    let inside = local.wrapping_sub(1) < 7;
    (inside as u64) << ((7 * r).wrapping_add(local.wrapping_sub(1)) & 63)
}

/// What one pass over the unhit sets of a hitting-set node tells: the
/// first set with the fewest cells, the sets taken greedily pairwise
/// disjoint (their count and union), and the OR of the [`mini_row_bit`]s
/// of the sets of at most three cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeScan {
    pub best: Mask27,
    pub disjoint: usize,
    pub union: Mask27,
    pub family: u64,
}

/// Scans the sets of a hitting-set node (non-empty list, non-empty sets):
/// `None` as soon as more than `left` of them are greedily pairwise
/// disjoint (in list order, a set taken when it misses the union of those
/// taken before). With AVX-512F, CD and VPOPCNTDQ (run time), sixteen sets
/// per round; otherwise [`node_scan_scalar`].
#[inline]
pub fn node_scan(list: &[Mask27], left: usize) -> Option<NodeScan> {
    #[cfg(target_arch = "x86_64")]
    if kernels::scan_form() == Form::Avx512 {
        // SAFETY: this form is chosen only when AVX-512F, CD and
        // VPOPCNTDQ were detected.
        return unsafe { node_scan_avx512(list, left) };
    }
    node_scan_scalar(list, left)
}

/// The portable form of [`node_scan`], which tests compare against. Few
/// branches on the sets: they are hard to predict.
pub fn node_scan_scalar(list: &[Mask27], left: usize) -> Option<NodeScan> {
    let (mut best, mut best_len) = (0, u32::MAX);
    let (mut union, mut disjoint, mut family) = (0, 0, 0);
    for &t in list {
        let new = t & union == 0;
        union |= if new { t } else { 0 };
        disjoint += new as usize;
        if disjoint > left {
            return None;
        }
        let len = t.count_ones();
        if len <= 3 {
            family |= mini_row_bit(t);
        }
        let smaller = len < best_len;
        best = if smaller { t } else { best };
        best_len = if smaller { len } else { best_len };
    }
    Some(NodeScan {
        best,
        disjoint,
        union,
        family,
    })
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
fn node_scan_avx512(list: &[Mask27], left: usize) -> Option<NodeScan> {
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi32, _mm512_and_si512, _mm512_cmple_epu32_mask,
        _mm512_cmplt_epu32_mask, _mm512_lzcnt_epi32, _mm512_mask_min_epu32,
        _mm512_maskz_loadu_epi32, _mm512_maskz_sllv_epi32, _mm512_mullo_epi32, _mm512_or_si512,
        _mm512_popcnt_epi32, _mm512_reduce_or_epi32, _mm512_set1_epi32, _mm512_setzero_si512,
        _mm512_srli_epi32, _mm512_srlv_epi32, _mm512_sub_epi32, _mm512_testn_epi32_mask,
    };
    let (one, three, seven) = (
        _mm512_set1_epi32(1),
        _mm512_set1_epi32(3),
        _mm512_set1_epi32(7),
    );
    let mut min_key = _mm512_set1_epi32(-1);
    let (mut lo, mut hi) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    let (mut union, mut disjoint) = (0u32, 0usize);
    for base in (0..list.len()).step_by(16) {
        let valid = lanes_in(list, base);
        // SAFETY: the mask covers only sets of the list.
        let v: __m512i =
            unsafe { _mm512_maskz_loadu_epi32(valid, list.as_ptr().add(base) as *const i32) };
        // The greedy disjoint sets: only the sets that miss the union so
        // far are visited, in order, without branches on them.
        let mut free = _mm512_testn_epi32_mask(v, _mm512_set1_epi32(union as i32)) & valid;
        while free != 0 {
            let t = list[base + free.trailing_zeros() as usize];
            let new = t & union == 0;
            union |= if new { t } else { 0 };
            disjoint += new as usize;
            free &= free - 1;
        }
        if disjoint > left {
            return None;
        }
        let len = _mm512_popcnt_epi32(v);
        min_key = _mm512_mask_min_epu32(min_key, valid, min_key, size_keys(len, base));
        // Mini-row bits of the sets of at most three cells.
        let small = _mm512_cmple_epu32_mask(len, three) & valid;
        if small != 0 {
            let low = _mm512_and_si512(v, _mm512_sub_epi32(_mm512_setzero_si512(), v));
            let tz = _mm512_sub_epi32(_mm512_set1_epi32(31), _mm512_lzcnt_epi32(low));
            // tz / 3 for tz < 27.
            let r = _mm512_srli_epi32::<17>(_mm512_mullo_epi32(tz, _mm512_set1_epi32(0xAAAB)));
            let local = _mm512_srlv_epi32(v, _mm512_mullo_epi32(r, three));
            let local1 = _mm512_sub_epi32(local, one);
            let inside = _mm512_cmplt_epu32_mask(local1, seven) & small;
            let bit = _mm512_add_epi32(_mm512_mullo_epi32(r, seven), local1);
            let low_half = _mm512_cmplt_epu32_mask(bit, _mm512_set1_epi32(32)) & inside;
            lo = _mm512_or_si512(lo, _mm512_maskz_sllv_epi32(low_half, one, bit));
            let high_bit = _mm512_sub_epi32(bit, _mm512_set1_epi32(32));
            hi = _mm512_or_si512(
                hi,
                _mm512_maskz_sllv_epi32(inside & !low_half, one, high_bit),
            );
        }
    }
    let family =
        _mm512_reduce_or_epi32(lo) as u32 as u64 | (_mm512_reduce_or_epi32(hi) as u32 as u64) << 32;
    Some(NodeScan {
        best: best_set(list, min_key),
        disjoint,
        union,
        family,
    })
}

/// Cuts every set of a hitting-set node (non-empty list) to `field`:
/// `None` when one is left empty, else the first set with the fewest cells
/// after the cut. With AVX-512F and VPOPCNTDQ (run time), sixteen sets per
/// round; otherwise [`cut_scan_scalar`].
#[inline]
pub fn cut_scan(list: &mut [Mask27], field: Mask27) -> Option<Mask27> {
    #[cfg(target_arch = "x86_64")]
    if kernels::scan_form() == Form::Avx512 {
        // SAFETY: this form is chosen only when AVX-512F, CD and
        // VPOPCNTDQ were detected.
        return unsafe { cut_scan_avx512(list, field) };
    }
    cut_scan_scalar(list, field)
}

/// The portable form of [`cut_scan`], which tests compare against.
pub fn cut_scan_scalar(list: &mut [Mask27], field: Mask27) -> Option<Mask27> {
    let (mut best, mut best_len) = (0, u32::MAX);
    for t in list.iter_mut() {
        *t &= field;
        if *t == 0 {
            return None;
        }
        let len = t.count_ones();
        let smaller = len < best_len;
        best = if smaller { *t } else { best };
        best_len = if smaller { len } else { best_len };
    }
    Some(best)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
fn cut_scan_avx512(list: &mut [Mask27], field: Mask27) -> Option<Mask27> {
    use std::arch::x86_64::{
        __m512i, _mm512_and_si512, _mm512_mask_min_epu32, _mm512_mask_storeu_epi32,
        _mm512_maskz_loadu_epi32, _mm512_popcnt_epi32, _mm512_set1_epi32, _mm512_test_epi32_mask,
    };
    let vfield = _mm512_set1_epi32(field as i32);
    let mut min_key = _mm512_set1_epi32(-1);
    for base in (0..list.len()).step_by(16) {
        let valid = lanes_in(list, base);
        let at = list[base..].as_mut_ptr() as *mut i32;
        // SAFETY: the mask covers only sets of the list.
        let v: __m512i = unsafe { _mm512_maskz_loadu_epi32(valid, at) };
        let v = _mm512_and_si512(v, vfield);
        if _mm512_test_epi32_mask(v, v) != valid {
            return None;
        }
        // SAFETY: as above.
        unsafe { _mm512_mask_storeu_epi32(at, valid, v) };
        min_key = _mm512_mask_min_epu32(
            min_key,
            valid,
            min_key,
            size_keys(_mm512_popcnt_epi32(v), base),
        );
    }
    Some(best_set(list, min_key))
}

/// Bits of a set's index in the keys that find a node's best set.
#[cfg(target_arch = "x86_64")]
const KEY_INDEX_BITS: u32 = 26;

/// The lanes of the sixteen sets of `list` from `base` on that exist.
#[cfg(target_arch = "x86_64")]
#[inline]
fn lanes_in(list: &[Mask27], base: usize) -> u16 {
    assert!(list.len() < 1 << KEY_INDEX_BITS);
    match list.len() - base {
        16.. => !0,
        n => (1 << n) - 1,
    }
}

/// Per lane, the key of the set at `base` + lane with `len` cells: the
/// size above the index, so that the least key is the first smallest set.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn size_keys(len: std::arch::x86_64::__m512i, base: usize) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::{
        _mm512_add_epi32, _mm512_or_si512, _mm512_set1_epi32, _mm512_setr_epi32, _mm512_slli_epi32,
    };
    let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let index = _mm512_add_epi32(lanes, _mm512_set1_epi32(base as i32));
    _mm512_or_si512(_mm512_slli_epi32::<{ KEY_INDEX_BITS }>(len), index)
}

/// The set of `list` whose key ([`size_keys`]) is the least in `keys`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn best_set(list: &[Mask27], keys: std::arch::x86_64::__m512i) -> Mask27 {
    let key = std::arch::x86_64::_mm512_reduce_min_epu32(keys);
    list[(key & ((1 << KEY_INDEX_BITS) - 1)) as usize]
}

#[cfg(test)]
mod scan_tests {
    use super::*;

    #[test]
    fn mini_row_bit_by_definition() {
        let definition = |t: Mask27| {
            let rows: Vec<u32> = (0..9).filter(|r| t >> (3 * r) & 7 != 0).collect();
            match rows[..] {
                [r] => 1u64 << (7 * r + (t >> (3 * r) & 7) - 1),
                _ => 0,
            }
        };
        let mut rng = fastrand::Rng::with_seed(5);
        let mut inside = 0;
        for k in 0..20_000u32 {
            let t = match k {
                0..63 => (k % 7 + 1) << (3 * (k / 7)),
                _ => rng.u32(..) & rng.u32(..) & BAND_FULL & ((1 << rng.u32(1..28)) - 1),
            };
            inside += (definition(t) != 0) as usize;
            assert_eq!(mini_row_bit(t), definition(t), "{t:#x}");
        }
        assert_eq!(mini_row_bit(0), 0);
        assert!(inside > 100, "{inside}");
    }

    #[test]
    fn node_scan_agrees_with_the_definition() {
        let mut rng = fastrand::Rng::with_seed(17);
        let (mut dead, mut alive, mut family, mut cuts) = (0, 0, 0, 0);
        for round in 0..4000 {
            let n = [1, 2, 15, 16, 17, 33, 60, 100][round % 8];
            let list: Vec<Mask27> = (0..n)
                .map(|_| match rng.u32(0..3) {
                    // A set inside one mini-row, or any small set.
                    0 => rng.u32(1..8) << (3 * rng.u32(0..9)),
                    1 => (1 << rng.u32(0..27)) | (1 << rng.u32(0..27)),
                    _ => (rng.u32(..) & rng.u32(..) & BAND_FULL).max(1),
                })
                .collect();
            let left = rng.usize(0..12);
            // The definition, the plain way.
            let mut taken = 0;
            let mut union = 0;
            let mut over = false;
            for &t in &list {
                if t & union == 0 {
                    union |= t;
                    taken += 1;
                    if taken > left {
                        over = true;
                        break;
                    }
                }
            }
            let expected = (!over).then(|| {
                let least = list.iter().map(|t| t.count_ones()).min().unwrap();
                NodeScan {
                    best: *list.iter().find(|t| t.count_ones() == least).unwrap(),
                    disjoint: taken,
                    union,
                    family: list
                        .iter()
                        .filter(|t| t.count_ones() <= 3)
                        .fold(0, |f, &t| f | mini_row_bit(t)),
                }
            });
            dead += over as usize;
            alive += !over as usize;
            family += expected.is_some_and(|s| s.family != 0) as usize;
            assert_eq!(node_scan(&list, left), expected, "{list:x?} left {left}");
            assert_eq!(
                node_scan_scalar(&list, left),
                expected,
                "{list:x?} left {left}"
            );
            // The cut to a field: every set cut, the first smallest after.
            let field = rng.u32(..) | rng.u32(..);
            let cut: Vec<Mask27> = list.iter().map(|&t| t & field).collect();
            let least = cut.iter().map(|t| t.count_ones()).min().unwrap();
            let expected =
                (least > 0).then(|| *cut.iter().find(|t| t.count_ones() == least).unwrap());
            cuts += expected.is_some() as usize;
            let (mut fast, mut slow) = (list.clone(), list.clone());
            assert_eq!(cut_scan(&mut fast, field), expected, "{list:x?} {field:x}");
            assert_eq!(
                cut_scan_scalar(&mut slow, field),
                expected,
                "{list:x?} {field:x}"
            );
            if expected.is_some() {
                assert_eq!((&fast, &slow), (&cut, &cut), "{list:x?} {field:x}");
            }
        }
        assert!(
            dead > 500 && alive > 500 && family > 500 && cuts > 500,
            "{dead} {alive} {family} {cuts}"
        );
    }
}

/// For each word `w`: the bits of `x[w]` at the set bits of `from[w]`,
/// moved in order to the set bits of `to[w]` (the k-th selected bit goes
/// to the k-th set bit of `to[w]`; `to[w]` needs as many set bits as
/// `from[w]`); the OR over the words. With BMI2 (run time) a PEXT and a
/// PDEP per word; otherwise [`move_bits_scalar`].
#[inline]
pub fn move_bits(x: &[u64], from: &[u64], to: &[u64]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if kernels::move_bits_form() == Form::Bmi2 {
        // SAFETY: this form is chosen only when BMI2 was detected.
        return unsafe { move_bits_bmi2(x, from, to) };
    }
    move_bits_scalar(x, from, to)
}

/// The portable form of [`move_bits`], which tests compare against.
pub fn move_bits_scalar(x: &[u64], from: &[u64], to: &[u64]) -> u64 {
    let mut out = 0;
    for ((&x, &from), &to) in x.iter().zip(from).zip(to) {
        let (mut from, mut to) = (from, to);
        while from != 0 {
            let (f, t) = (from & from.wrapping_neg(), to & to.wrapping_neg());
            out |= if x & f != 0 { t } else { 0 };
            (from, to) = (from ^ f, to ^ t);
        }
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn move_bits_bmi2(x: &[u64], from: &[u64], to: &[u64]) -> u64 {
    use std::arch::x86_64::{_pdep_u64, _pext_u64};
    let mut out = 0;
    for ((&x, &from), &to) in x.iter().zip(from).zip(to) {
        out |= _pdep_u64(_pext_u64(x, from), to);
    }
    out
}

/// The OR, into `out`, of the rows of the cells of `cells` (row `c` is
/// `rows[c * stride..]`, as many words as `out`). With AVX-512F (run time,
/// the form of [`file_sets`]) eight words at a time, held in a register
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
    for c in cells54(cells) {
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

/// For each mask `m` of `masks`: the bits of `x` at the set bits of `m`,
/// packed in order from bit 0 (word 0's first, at most 64 in all), into
/// `out` (cleared first). With BMI2 (run time, the form of
/// [`move_bits`]) a PEXT per word, the whole loop compiled for it;
/// otherwise [`extract_each_scalar`].
#[inline]
pub fn extract_each<const W: usize>(x: &[u64; W], masks: &[[u64; W]], out: &mut Vec<u64>) {
    #[cfg(target_arch = "x86_64")]
    if kernels::move_bits_form() == Form::Bmi2 {
        // SAFETY: this form is chosen only when BMI2 was detected.
        return unsafe { extract_each_bmi2(x, masks, out) };
    }
    extract_each_scalar(x, masks, out)
}

/// The portable form of [`extract_each`], which tests compare against.
pub fn extract_each_scalar<const W: usize>(x: &[u64; W], masks: &[[u64; W]], out: &mut Vec<u64>) {
    out.clear();
    out.extend(masks.iter().map(|m| {
        let (mut packed, mut at) = (0, 0);
        for (&x, &m) in x.iter().zip(m) {
            for b in cells54(m) {
                packed |= (x >> b & 1) << at;
                at += 1;
            }
        }
        packed
    }));
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2,popcnt")]
fn extract_each_bmi2<const W: usize>(x: &[u64; W], masks: &[[u64; W]], out: &mut Vec<u64>) {
    use std::arch::x86_64::_pext_u64;
    out.clear();
    out.extend(masks.iter().map(|m| {
        let (mut packed, mut at) = (0, 0);
        for (&x, &m) in x.iter().zip(m) {
            // A shift of 64 (a full word before) leaves nothing to add.
            packed |= _pext_u64(x, m).checked_shl(at).unwrap_or(0);
            at += m.count_ones();
        }
        packed
    }));
}

#[cfg(test)]
mod move_tests {
    use super::*;

    #[test]
    fn move_bits_agrees_with_the_definition() {
        let mut rng = fastrand::Rng::with_seed(23);
        let mut moved = 0;
        for round in 0..3000 {
            let words = round % 9;
            let (mut x, mut from, mut to) = (vec![], vec![], vec![]);
            for _ in 0..words {
                let f = rng.u64(..) & rng.u64(..);
                // `to`: as many bits as `from`, anywhere.
                let mut t = 0u64;
                while t.count_ones() < f.count_ones() {
                    t |= 1 << rng.u32(0..64);
                }
                x.push(rng.u64(..));
                from.push(f);
                to.push(t);
            }
            // The definition: the k-th bit of `from` to the k-th of `to`.
            let mut expected = 0;
            for w in 0..words {
                let fb: Vec<u32> = (0..64).filter(|b| from[w] >> b & 1 != 0).collect();
                let tb: Vec<u32> = (0..64).filter(|b| to[w] >> b & 1 != 0).collect();
                for (k, &b) in fb.iter().enumerate() {
                    if x[w] >> b & 1 != 0 {
                        expected |= 1 << tb[k];
                    }
                }
            }
            moved += (expected != 0) as usize;
            assert_eq!(move_bits(&x, &from, &to), expected);
            assert_eq!(move_bits_scalar(&x, &from, &to), expected);
        }
        assert!(moved > 2000, "{moved}");
    }

    #[test]
    fn extract_each_agrees_with_the_definition() {
        let mut rng = fastrand::Rng::with_seed(24);
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        let mut nonzero = 0;
        for _ in 0..300 {
            let x: [u64; 3] = std::array::from_fn(|_| rng.u64(..));
            // At most 64 bits in all, spread over the three words.
            let masks: Vec<[u64; 3]> = (0..rng.usize(0..40))
                .map(|_| {
                    let mut m = [0u64; 3];
                    for _ in 0..rng.usize(0..=64) {
                        m[rng.usize(..3)] |= 1 << rng.u32(0..64);
                    }
                    m
                })
                .collect();
            extract_each(&x, &masks, &mut fast);
            extract_each_scalar(&x, &masks, &mut slow);
            for (k, m) in masks.iter().enumerate() {
                // The definition: the selected bits of x, in order.
                let bits = (0..192).filter(|&b| m[b / 64] >> (b % 64) & 1 != 0);
                let expected = bits
                    .enumerate()
                    .fold(0u64, |e, (at, b)| e | (x[b / 64] >> (b % 64) & 1) << at);
                nonzero += (expected != 0) as usize;
                assert_eq!((fast[k], slow[k]), (expected, expected), "{m:x?}");
            }
        }
        assert!(nonzero > 1000, "{nonzero}");
    }

    /// `or_rows` in the form that runs here (AVX-512 where the CPU has it)
    /// and the portable form against the definition, for every width up
    /// to 64 words (the tails of the eight-word rounds) and random cells.
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
                    .map(|w| cells54(cells).fold(0, |m, c| m | rows[c * stride + w]))
                    .collect();
                // Stale words in `out` must not leak through.
                let mut fast = vec![!0; words];
                or_rows(&rows, stride, cells, &mut fast);
                let starts: Vec<usize> = cells54(cells).map(|c| c * stride).collect();
                let mut slow = vec![!0; words];
                or_rows_scalar(&rows, &starts, &mut slow);
                assert_eq!((&fast, &slow), (&expected, &expected), "{words} {cells:x}");
            }
        }
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
mod and_rows_tests {
    use super::*;

    fn check<const W: usize>(rng: &mut fastrand::Rng) {
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
        let (mut fast, mut slow) = (vec![1, 2, 3], vec![4]);
        and_rows(&rows, all, sets.iter().copied(), &mut fast);
        and_rows_scalar(&rows, all, sets.iter().copied(), &mut slow);
        assert_eq!(fast, expected, "W = {W}");
        assert_eq!(slow, expected, "W = {W}");
    }

    #[test]
    fn and_rows_agrees_with_the_definition() {
        let mut rng = fastrand::Rng::with_seed(31);
        for _ in 0..200 {
            check::<1>(&mut rng);
            check::<2>(&mut rng);
            check::<4>(&mut rng);
        }
    }
}
