//! Bits gathered and moved by masks: [`move_bits`] (PEXT then PDEP per
//! word) and [`extract_each`] (PEXT per mask); BMI2 forms and portable ones.

use super::kernels::{self, Form};

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
            for b in super::cells(m) {
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
            // The BMI2 form called directly, whatever the dispatch runs.
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("bmi2") {
                // SAFETY: BMI2 was detected.
                assert_eq!(unsafe { move_bits_bmi2(&x, &from, &to) }, expected, "bmi2");
            }
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
            // The BMI2 form called directly, whatever the dispatch runs.
            let mut direct = slow.clone();
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("popcnt")
            {
                // SAFETY: BMI2 and POPCNT were detected.
                unsafe { extract_each_bmi2(&x, &masks, &mut direct) };
            }
            for (k, m) in masks.iter().enumerate() {
                // The definition: the selected bits of x, in order.
                let bits = (0..192).filter(|&b| m[b / 64] >> (b % 64) & 1 != 0);
                let expected = bits
                    .enumerate()
                    .fold(0u64, |e, (at, b)| e | (x[b / 64] >> (b % 64) & 1) << at);
                nonzero += (expected != 0) as usize;
                assert_eq!((fast[k], slow[k]), (expected, expected), "{m:x?}");
                assert_eq!(direct[k], expected, "bmi2 {m:x?}");
            }
        }
        assert!(nonzero > 1000, "{nonzero}");
    }
}
