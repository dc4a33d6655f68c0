//! The XY inner loop of part 1: the pairs of bit vectors that AND to zero,
//! in an AVX-512, AVX2, SSE4.1 or portable form.

use super::kernels::{self, Form};

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

/// The AVX2 and SSE4.1 forms of the loop, one test of a whole vector per
/// pair: the same loop on a register of 4 words or of 2.
macro_rules! zero_and_pairs_testz {
    ($($name:ident: $feature:literal, $words:literal words, $vector:ident, $load:ident, $testz:ident;)*) => {$(
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feature)]
        fn $name(
            xs: &[[u64; $words]],
            ys: &[[u64; $words]],
            chunk: usize,
            out: &mut Vec<(u32, u32)>,
        ) {
            use std::arch::x86_64::{$load, $testz, $vector};
            for (block, ys) in ys.chunks(chunk.max(1)).enumerate() {
                let base = (block * chunk) as u32;
                for (i, a) in xs.iter().enumerate() {
                    // SAFETY: a vector is a register's worth of readable
                    // bytes; loadu needs no alignment.
                    let va = unsafe { $load(a.as_ptr() as *const $vector) };
                    for (j, b) in ys.iter().enumerate() {
                        // SAFETY: as above.
                        let vb = unsafe { $load(b.as_ptr() as *const $vector) };
                        if $testz(va, vb) != 0 {
                            out.push((i as u32, base + j as u32));
                        }
                    }
                }
            }
        }
    )*};
}

zero_and_pairs_testz! {
    zero_and_pairs_avx2: "avx2", 4 words, __m256i, _mm256_loadu_si256, _mm256_testz_si256;
    zero_and_pairs_sse41: "sse4.1", 2 words, __m128i, _mm_loadu_si128, _mm_testz_si128;
}

#[cfg(test)]
mod pair_tests {
    use super::*;
    use crate::bits::test_support::Forms;

    /// Random vectors with few bits, so that a fair share of pairs AND to
    /// zero, in every word count the search uses.
    fn vectors<const W: usize>(rng: &mut fastrand::Rng, n: usize) -> Vec<[u64; W]> {
        (0..n)
            .map(|_| std::array::from_fn(|_| rng.u64(..) & rng.u64(..) & rng.u64(..) & rng.u64(..)))
            .collect()
    }

    /// The pairs one form of the loop finds.
    fn found(run: impl FnOnce(&mut Vec<(u32, u32)>)) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        run(&mut out);
        out
    }

    /// The vectors of `W` words as vectors of `N` words (`N` = `W`).
    #[cfg(target_arch = "x86_64")]
    fn as_words<const N: usize, const W: usize>(v: &[[u64; W]]) -> &[[u64; N]] {
        v.as_flattened().as_chunks().0
    }

    /// `forms` with each SIMD form of the loop for vectors of `W` words.
    #[cfg(target_arch = "x86_64")]
    fn with_simd_forms<'a, const W: usize>(
        forms: Forms<'a, Vec<(u32, u32)>>,
        xs: &'a [[u64; W]],
        ys: &'a [[u64; W]],
        chunk: usize,
    ) -> Forms<'a, Vec<(u32, u32)>> {
        // SAFETY (each form): Forms runs it only where its features were
        // detected.
        let avx512 = move || found(|out| unsafe { zero_and_pairs_avx512(xs, ys, chunk, out) });
        let (x4, y4) = (as_words(xs), as_words(ys));
        let avx2 = move || found(|out| unsafe { zero_and_pairs_avx2(x4, y4, chunk, out) });
        let (x2, y2) = (as_words(xs), as_words(ys));
        let sse41 = move || found(|out| unsafe { zero_and_pairs_sse41(x2, y2, chunk, out) });
        match W {
            1 | 3 => forms.simd("avx512", &["avx512f"], avx512),
            2 => forms
                .simd("avx512", &["avx512f"], avx512)
                .simd("sse4.1", &["sse4.1"], sse41),
            4 => forms
                .simd("avx512", &["avx512f"], avx512)
                .simd("avx2", &["avx2"], avx2),
            _ => forms,
        }
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
            // The plain definition, pair by pair.
            let mut direct = Vec::new();
            for (i, a) in xs.iter().enumerate() {
                for (j, b) in ys.iter().enumerate() {
                    if (0..W).all(|w| a[w] & b[w] == 0) {
                        direct.push((i as u32, j as u32));
                    }
                }
            }
            direct.sort_unstable();
            let forms = Forms::new(
                || found(|out| zero_and_pairs(&xs, &ys, chunk, out)),
                || found(|out| zero_and_pairs_scalar(&xs, &ys, chunk, out)),
            );
            #[cfg(target_arch = "x86_64")]
            let forms = with_simd_forms(forms, &xs, &ys, chunk);
            let mut results = forms.results();
            let slow = results[1].1.clone();
            // In the portable form's order where a form keeps the blocks:
            // the AVX2 and SSE4.1 forms always, the AVX-512 one (and the
            // dispatch, which may run it) when the blocks are a multiple
            // of 8, at most 256.
            let in_blocks = chunk % 8 == 0 && chunk <= 256;
            for (form, got) in &mut results {
                if in_blocks || !matches!(*form, "dispatched" | "avx512") {
                    assert_eq!(*got, slow, "{form}, W = {W}, {nx} x {ny}, chunk {chunk}");
                }
                got.sort_unstable();
                assert_eq!(*got, direct, "{form}, W = {W}, {nx} x {ny}, chunk {chunk}");
            }
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
