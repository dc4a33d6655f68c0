//! One pass over the unhit sets of a hitting-set node ([`node_scan`],
//! [`cut_scan`]) and the mini-row family bit of a set; AVX-512 forms and
//! portable ones.

use super::Mask27;
use super::kernels::{self, Form};

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
    use crate::bits::BAND_FULL;

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

    /// True when this CPU has the features of the AVX-512 scans, whatever
    /// the dispatch was told: the tests call that form directly.
    #[cfg(target_arch = "x86_64")]
    fn avx512_scans() -> bool {
        use std::arch::is_x86_feature_detected as has;
        has!("avx512f") && has!("avx512cd") && has!("avx512vpopcntdq")
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
            // The AVX-512 form called directly, whatever the dispatch runs.
            #[cfg(target_arch = "x86_64")]
            if avx512_scans() {
                // SAFETY: the features were detected.
                let got = unsafe { node_scan_avx512(&list, left) };
                assert_eq!(got, expected, "avx512: {list:x?} left {left}");
            }
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
            #[cfg(target_arch = "x86_64")]
            if avx512_scans() {
                let mut direct = list.clone();
                // SAFETY: the features were detected.
                let got = unsafe { cut_scan_avx512(&mut direct, field) };
                assert_eq!(got, expected, "avx512: {list:x?} {field:x}");
                if expected.is_some() {
                    assert_eq!(direct, cut, "avx512: {list:x?} {field:x}");
                }
            }
        }
        assert!(
            dead > 500 && alive > 500 && family > 500 && cuts > 500,
            "{dead} {alive} {family} {cuts}"
        );
    }
}
