//! Bit operations on sets of band-3 sockets (bit k: socket k), for the
//! socket checks of the search (`search::band3`, `search::shared`).
//!
//! - [`groups_hit`]: which groups of GUA bits (runs of bits, one socket or
//!   class each) hold a bit of a word, in one add.
//! - [`mini_row_clues`]: the mini-row bound of one band 3, and
//!   [`mini_row_pass`], the same bound for many bands 3 at once (eight per
//!   round with AVX-512, `mini_row_pass_avx512`; else
//!   [`mini_row_pass_scalar`]).
//!
//! # The mini-row bound from the socket bits
//!
//! The mini-row bound of the open sockets (the clues band 3 needs in the
//! mini-rows their T's lie in: one per mini-row with an open socket, two
//! where all three pairs are open) is read from the socket mask itself.
//! Sockets 0 to 35 are the mini-row sockets in class order: per stack, three
//! sockets for each pair of columns (1+2, 1+3, 2+3) and three whole
//! mini-rows, each three in the row order of the digits of its first column.
//! Pairs 1+2, 1+3 and the whole mini-rows share that order; the pairs 2+3
//! follow the second column's, and a 3-bit move per stack (`pairs12_rows`, 24
//! bits) puts them into the first's. A few shifts, ORs and two popcounts then
//! give the bound (no other socket's T lies inside one mini-row: every set of
//! 2 or 3 cells of a mini-row is a mini-row socket). With only mini-row
//! sockets open, two disjoint T's lie in different mini-rows, so the
//! disjoint-sets bound cannot exceed it and is skipped.
//!
//! In class mode (`s17 exhaust`) a survivor meets this bound for every live
//! band 3 in one compact pass (`Bands12::xy_loop` in `search::part1::xy`, in
//! the `Shared` mode): per band 3 its class mask and row moves, copied once
//! per step; its open mini-row sockets are the bits of the open classes under
//! its class mask, packed in order (`bits::extract_each`, a PEXT per class
//! word), and the bound itself is computed for all live bands 3 at once
//! (`mini_row_pass`: eight bands 3 per AVX-512 round, the row moves per stack
//! in separate vectors), giving a bit per band 3; the loop then visits only
//! the bands 3 that pass, and only they read their own state (other sockets,
//! band 3 on every GUA). The open classes themselves come from one OR of the
//! cells' rows of class bits (`bits::or_rows`, eight words held in a
//! register) and a PEXT/PDEP per word, over each class word's own run of
//! words only (bits come in class order). In class mode a step's band 3 lives
//! or dies by the bounds alone; the one-grid search still asks exactly
//! (witnesses, then a search).
//!
//! Tests: `search::band3::tests` `mini_row_clues_agree_with_the_sockets_t`
//! (against the bound built from the T's, with larger sockets added, and the
//! quick bounds against the full ones); `mini_row_pass_agrees_with_mini_row_clues`
//! here (every form, the AVX-512 one included);
//! `groups_hit_marks_exactly_the_groups_with_a_bit`; `bits::gather`
//! `extract_each_agrees_with_the_definition` and `bits::rows`
//! `or_rows_agrees_with_the_definition`.

/// The top bits of the groups of a word that hold a bit of `bits`: a
/// group is a run of bits, `top` holds the top bit of each group and `low`
/// the others. Adding a group's low bits to its bits of `bits` carries into
/// its top bit exactly when one of those is set, and never past it.
#[inline]
pub fn groups_hit(bits: u64, top: u64, low: u64) -> u64 {
    (((bits & low) + low) | bits) & top
}

/// The clues a band 3 needs in the mini-rows of the open sockets `open`
/// (bit k: socket k; the mini-row bound of
/// `search::band3`): one per mini-row with an open socket, two where the
/// three pairs of a mini-row are open. Sockets 0 to 35 are a band 3's
/// mini-row sockets numbered by class: in each stack, the groups of
/// three sockets (pairs of columns 1+2, 1+3, 2+3, then whole mini-rows)
/// come in the row order of the first column's digits, except the pairs
/// of columns 2+3, in that of the second column's; `pairs12_rows[s]`
/// moves those of stack `s` into the first's order (3 bits for each of
/// the 8 values of the 3 sockets' bits).
#[inline]
pub fn mini_row_clues(pairs12_rows: &[u32; 3], open: u64) -> usize {
    // Bits 0..3 of each 9-bit field: one stack's three rows.
    const ROWS: u64 = 0o7 | 0o7 << 9 | 0o7 << 18;
    let pairs12 = (open >> 6) & ROWS;
    let moved = |s: usize| {
        let g = (pairs12 >> (9 * s)) & 7;
        u64::from(pairs12_rows[s] >> (3 * g) & 7) << (9 * s)
    };
    let (p01, p02, p12) = (
        open & ROWS,
        (open >> 3) & ROWS,
        moved(0) | moved(1) | moved(2),
    );
    let whole = (open >> 27 & 7) | (open >> 30 & 7) << 9 | (open >> 33 & 7) << 18;
    let touched = p01 | p02 | p12 | whole;
    (touched.count_ones() + (p01 & p02 & p12).count_ones()) as usize
}

/// The bands 3 of a step, as [`mini_row_pass`] reads them: per band 3,
/// its forced sockets and its `pairs12_rows` (one vector per stack).
#[derive(Default)]
pub struct BoundLanes {
    pub forced: Vec<u64>,
    pub rows: [Vec<u64>; 3],
}

impl BoundLanes {
    pub fn clear(&mut self) {
        self.forced.clear();
        self.rows.iter_mut().for_each(Vec::clear);
    }

    pub fn push(&mut self, forced: u64, pairs12_rows: [u32; 3]) {
        self.forced.push(forced);
        for (rows, r) in self.rows.iter_mut().zip(pairs12_rows) {
            rows.push(r.into());
        }
    }
}

/// For every band 3 `i` of `lanes`: whether its [`mini_row_clues`] with
/// the sockets `open[i]` and its forced ones is at most `z`, as bit `i` of
/// `out` (cleared first). With AVX-512F and VPOPCNTDQ (run time, the form
/// of [`super::node_scan`]) eight bands 3 per round; otherwise
/// [`mini_row_pass_scalar`].
#[inline]
pub fn mini_row_pass(open: &[u64], lanes: &BoundLanes, z: usize, out: &mut Vec<u64>) {
    assert_eq!(open.len(), lanes.forced.len());
    out.clear();
    out.resize(open.len().div_ceil(64), 0);
    #[cfg(target_arch = "x86_64")]
    if super::kernels::scan_form() == super::Form::Avx512 {
        // SAFETY: this form is chosen only when AVX-512F and VPOPCNTDQ
        // were detected.
        return unsafe { mini_row_pass_avx512(open, lanes, z, out) };
    }
    mini_row_pass_scalar(open, lanes, z, out)
}

/// The portable form of [`mini_row_pass`], which tests compare against
/// (`out` cleared, of the right length).
pub fn mini_row_pass_scalar(open: &[u64], lanes: &BoundLanes, z: usize, out: &mut [u64]) {
    for (i, (&open, &forced)) in open.iter().zip(&lanes.forced).enumerate() {
        let rows = std::array::from_fn(|s| lanes.rows[s][i] as u32);
        let pass = mini_row_clues(&rows, open | forced) <= z;
        out[i / 64] |= (pass as u64) << (i % 64);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
fn mini_row_pass_avx512(open: &[u64], lanes: &BoundLanes, z: usize, out: &mut [u64]) {
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi64, _mm512_and_si512, _mm512_cmple_epu64_mask,
        _mm512_maskz_loadu_epi64, _mm512_or_si512, _mm512_popcnt_epi64, _mm512_set1_epi64,
        _mm512_slli_epi64, _mm512_srli_epi64, _mm512_srlv_epi64,
    };
    const ROWS: i64 = 0o7 | 0o7 << 9 | 0o7 << 18;
    let (rows, seven, limit) = (
        _mm512_set1_epi64(ROWS),
        _mm512_set1_epi64(7),
        _mm512_set1_epi64(z as i64),
    );
    let n = open.len();
    for base in (0..n).step_by(8) {
        let valid = (0xffu32 >> (8 - (n - base).min(8))) as u8;
        // SAFETY: the mask covers only lanes below n, and every vector
        // has n entries.
        let load = |v: &[u64]| unsafe {
            _mm512_maskz_loadu_epi64(valid, v.as_ptr().add(base) as *const i64)
        };
        let sockets = _mm512_or_si512(load(open), load(&lanes.forced));
        // As mini_row_clues, lane by lane.
        let pairs12 = _mm512_and_si512(_mm512_srli_epi64::<6>(sockets), rows);
        let moved = |s: usize, r: __m512i| {
            let g = match s {
                0 => pairs12,
                1 => _mm512_srli_epi64::<9>(pairs12),
                _ => _mm512_srli_epi64::<18>(pairs12),
            };
            let g = _mm512_and_si512(g, seven);
            let shift = _mm512_add_epi64(g, _mm512_add_epi64(g, g));
            let m = _mm512_and_si512(_mm512_srlv_epi64(r, shift), seven);
            match s {
                0 => m,
                1 => _mm512_slli_epi64::<9>(m),
                _ => _mm512_slli_epi64::<18>(m),
            }
        };
        let p12 = _mm512_or_si512(
            _mm512_or_si512(
                moved(0, load(&lanes.rows[0])),
                moved(1, load(&lanes.rows[1])),
            ),
            moved(2, load(&lanes.rows[2])),
        );
        let p01 = _mm512_and_si512(sockets, rows);
        let p02 = _mm512_and_si512(_mm512_srli_epi64::<3>(sockets), rows);
        let whole = _mm512_or_si512(
            _mm512_and_si512(_mm512_srli_epi64::<27>(sockets), seven),
            _mm512_or_si512(
                _mm512_slli_epi64::<9>(_mm512_and_si512(_mm512_srli_epi64::<30>(sockets), seven)),
                _mm512_slli_epi64::<18>(_mm512_and_si512(_mm512_srli_epi64::<33>(sockets), seven)),
            ),
        );
        let touched = _mm512_or_si512(_mm512_or_si512(p01, p02), _mm512_or_si512(p12, whole));
        let all_three = _mm512_and_si512(_mm512_and_si512(p01, p02), p12);
        let clues = _mm512_add_epi64(_mm512_popcnt_epi64(touched), _mm512_popcnt_epi64(all_three));
        let pass = _mm512_cmple_epu64_mask(clues, limit) & valid;
        out[base / 64] |= u64::from(pass) << (base % 64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::test_support::Forms;

    /// A mask of the low `n` bits (1..=64).
    fn low_mask(n: usize) -> u64 {
        u64::MAX >> (64 - n)
    }

    #[test]
    fn groups_hit_marks_exactly_the_groups_with_a_bit() {
        let mut rng = fastrand::Rng::with_seed(11);
        for _ in 0..2000 {
            // Random runs over the low `used` bits of a word.
            let used = rng.usize(1..=64);
            let (mut top, mut start, mut groups) = (0u64, 0, Vec::new());
            while start < used {
                let end = (start + rng.usize(1..=9)).min(used);
                top |= 1 << (end - 1);
                groups.push(start..end);
                start = end;
            }
            let low = low_mask(used) & !top;
            let bits = rng.u64(..) & rng.u64(..) & rng.u64(..) & low_mask(used);
            let expected = groups
                .iter()
                .filter(|g| (g.start..g.end).any(|b| bits >> b & 1 != 0))
                .fold(0, |m, g| m | 1 << (g.end - 1));
            assert_eq!(groups_hit(bits, top, low), expected, "{bits:x} {top:x}");
        }
    }

    /// The mini-row bounds of many bands 3 at once agree with
    /// [`mini_row_clues`] one by one, in every form (the dispatched one,
    /// the portable one, and the AVX-512 one called directly where the CPU
    /// has AVX-512F and VPOPCNTDQ), for counts of bands 3 around the lanes
    /// of a round and the bits of a word, and every `z`.
    #[test]
    fn mini_row_pass_agrees_with_mini_row_clues() {
        let mut rng = fastrand::Rng::with_seed(11);
        let (mut passed, mut failed) = (0, 0);
        for n in [0usize, 1, 5, 7, 8, 9, 15, 16, 63, 64, 65, 127, 130, 200] {
            for _ in 0..30 {
                let mut lanes = BoundLanes::default();
                let mut open = Vec::new();
                for _ in 0..n {
                    let rows = [0; 3].map(|_| rng.u32(..1 << 24));
                    // Sparse socket sets, so that the bounds spread
                    // around z.
                    lanes.push(rng.u64(..) & rng.u64(..) & rng.u64(..), rows);
                    open.push(rng.u64(..) & rng.u64(..) & rng.u64(..));
                }
                let z = rng.usize(0..12);
                // Bit i of the words: band 3 i passes; no bit past the
                // last band 3.
                let mut expected = vec![0u64; n.div_ceil(64)];
                for i in 0..n {
                    let rows = std::array::from_fn(|s| lanes.rows[s][i] as u32);
                    let pass = mini_row_clues(&rows, open[i] | lanes.forced[i]) <= z;
                    expected[i / 64] |= (pass as u64) << (i % 64);
                    (passed, failed) = (passed + pass as usize, failed + !pass as usize);
                }
                // The words a form writes (the portable and AVX-512 forms
                // want them cleared, of the right length).
                let words = |run: &dyn Fn(&mut [u64])| {
                    let mut out = vec![0; n.div_ceil(64)];
                    run(&mut out);
                    out
                };
                let forms = Forms::new(
                    || {
                        // Stale words must not leak through.
                        let mut out = vec![!0; 3];
                        mini_row_pass(&open, &lanes, z, &mut out);
                        out
                    },
                    || words(&|out| mini_row_pass_scalar(&open, &lanes, z, out)),
                );
                #[cfg(target_arch = "x86_64")]
                let forms = forms.simd("avx512", &["avx512f", "avx512vpopcntdq"], || {
                    // SAFETY: Forms runs this form only where AVX-512F and
                    // VPOPCNTDQ were detected.
                    words(&|out| unsafe { mini_row_pass_avx512(&open, &lanes, z, out) })
                });
                forms.assert_each(&expected, format_args!("n {n} z {z}"));
            }
        }
        assert!(passed > 1000 && failed > 1000, "{passed} {failed}");
    }
}
