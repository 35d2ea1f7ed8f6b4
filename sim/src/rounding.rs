//! Rounding an exact value `hi + lo` to f32, f16 or bf16 in the direction PTX names, and (in
//! `fp8`) to and from the 8-bit floats. The arithmetic (`exec`), the half literals that lowering
//! folds (`lower`) and the values a trace shows (`analyse`) round alike, so this sits below them.
//!
//! The value is squashed to one f64 with round-to-odd (which keeps a later rounding to a narrower
//! format exact for every mode), then rounded to the target in the requested direction.

pub(crate) mod fp8;

use crate::ir::Rnd;
use half::{bf16, f16};

/// The NaN a GPU's half-precision and bfloat16 arithmetic produce (`CUDART_NAN_BF16` too).
pub(crate) const NAN16: u16 = 0x7fff;

/// Squash `hi + lo` (hi the nearest f64) into one f64 rounded to odd.
#[inline]
pub(crate) fn to_odd(hi: f64, lo: f64) -> f64 {
    if lo == 0.0 || !hi.is_finite() || hi.to_bits() & 1 == 1 {
        hi
    } else if lo > 0.0 {
        hi.next_up()
    } else {
        hi.next_down()
    }
}

/// Rounds the exact value `hi + lo` to f32.
#[inline]
pub(crate) fn round_f32(hi: f64, lo: f64, rnd: Rnd) -> f32 {
    let v = to_odd(hi, lo);
    let x = v as f32;
    if rnd == Rnd::Rn || v.is_nan() || v.is_infinite() {
        return x;
    }
    if x.is_infinite() {
        // Overflow: the directed modes stop at the largest finite value on their side.
        let max = f32::MAX.copysign(x);
        return match (rnd, x > 0.0) {
            (Rnd::Rz, _) | (Rnd::Rm, true) | (Rnd::Rp, false) => max,
            _ => x,
        };
    }
    let r = v - x as f64;
    match rnd {
        Rnd::Rp if r > 0.0 => x.next_up(),
        Rnd::Rm if r < 0.0 => x.next_down(),
        Rnd::Rz if r < 0.0 && x > 0.0 => x.next_down(),
        Rnd::Rz if r > 0.0 && x < 0.0 => x.next_up(),
        _ => x,
    }
}

/// Rounds the exact value `hi + lo` to half precision in direction `rnd`.
pub(crate) fn round_f16(hi: f64, lo: f64, rnd: Rnd) -> u16 {
    round_16(hi, lo, rnd, |x| {
        let h = f16::from_f32(x);
        (h.to_bits(), h.to_f64())
    })
}

/// Rounds the exact value `hi + lo` to bfloat16 in direction `rnd`.
pub(crate) fn round_bf16(hi: f64, lo: f64, rnd: Rnd) -> u16 {
    round_16(hi, lo, rnd, |x| {
        let h = bf16::from_f32(x);
        (h.to_bits(), h.to_f64())
    })
}

/// Rounds `hi + lo` to a 16-bit float format whose `nearest` (bits and value) to an f32 is
/// rounded to nearest even. Both formats have at most 11 significant bits, so f32's 24 leave
/// room for round-to-odd.
fn round_16(hi: f64, lo: f64, rnd: Rnd, nearest: impl Fn(f32) -> (u16, f64)) -> u16 {
    let v = to_odd(hi, lo);
    if v.is_nan() {
        return NAN16;
    }
    // Round to odd again, to f32's 24 bits (still more than half's 11 + 2), so that `nearest`,
    // which rounds an f32 correctly, rounds the exact value correctly.
    let truncated = round_f32(v, 0.0, Rnd::Rz);
    let odd = if v.is_finite() && truncated as f64 != v {
        f32::from_bits(truncated.to_bits() | 1)
    } else {
        truncated
    };
    let (bits, r) = nearest(odd);
    // Both are sign and magnitude: one step up or down in magnitude is one step in the bits.
    let (smaller, larger) = (bits.wrapping_sub(1), bits.wrapping_add(1));
    match rnd {
        Rnd::Rn => bits,
        Rnd::Rz if r.abs() > v.abs() => smaller,
        Rnd::Rp if r < v => {
            if r.is_sign_negative() {
                smaller
            } else {
                larger
            }
        }
        Rnd::Rm if r > v => {
            if r.is_sign_negative() {
                larger
            } else {
                smaller
            }
        }
        _ => bits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_goes_the_way_each_mode_names() {
        // 1 + 2^-11 lies halfway between 1 and the next half, 1 + 2^-10.
        let tie = 1.0 + 2f64.powi(-11);
        assert_eq!(round_f16(tie, 0.0, Rnd::Rn), 0x3c00, "ties to even");
        assert_eq!(round_f16(tie, 1e-30, Rnd::Rn), 0x3c01, "just above the tie");
        assert_eq!(round_f16(tie, 0.0, Rnd::Rp), 0x3c01);
        assert_eq!(round_f16(tie, 0.0, Rnd::Rz), 0x3c00);
        assert_eq!(round_f16(-tie, 0.0, Rnd::Rm), 0xbc01);
        assert_eq!(round_f16(-tie, 0.0, Rnd::Rp), 0xbc00);
        assert_eq!(
            round_f16(70000.0, 0.0, Rnd::Rn),
            0x7c00,
            "overflow to infinity"
        );
        assert_eq!(round_f16(70000.0, 0.0, Rnd::Rz), 0x7bff, "largest finite");
        assert_eq!(round_f16(-70000.0, 0.0, Rnd::Rp), 0xfbff);
        assert_eq!(
            round_f16(1e-9, 0.0, Rnd::Rp),
            0x0001,
            "up to the least subnormal"
        );
        assert_eq!(round_f16(-1e-9, 0.0, Rnd::Rm), 0x8001);
        assert_eq!(round_f16(-1e-9, 0.0, Rnd::Rn), 0x8000, "negative zero");
    }

    #[test]
    fn bfloat16_rounds_to_nearest_even_and_each_mode_its_way() {
        // 1 + 2^-8 lies halfway between 1 (0x3f80) and the next bfloat16, 1 + 2^-7 (0x3f81).
        let tie = 1.0 + 2f64.powi(-8);
        assert_eq!(round_bf16(tie, 0.0, Rnd::Rn), 0x3f80, "ties to even");
        let odd_tie = 1.0 + 3.0 * 2f64.powi(-8);
        assert_eq!(
            round_bf16(odd_tie, 0.0, Rnd::Rn),
            0x3f82,
            "ties to even, upwards"
        );
        assert_eq!(
            round_bf16(tie, 1e-30, Rnd::Rn),
            0x3f81,
            "just above the tie"
        );
        assert_eq!(round_bf16(tie, 0.0, Rnd::Rp), 0x3f81);
        assert_eq!(round_bf16(tie, 0.0, Rnd::Rz), 0x3f80);
        assert_eq!(round_bf16(-tie, 0.0, Rnd::Rm), 0xbf81);
        assert_eq!(
            round_bf16(3.4e38, 0.0, Rnd::Rn),
            0x7f80,
            "overflow to infinity"
        );
        assert_eq!(round_bf16(3.4e38, 0.0, Rnd::Rz), 0x7f7f, "largest finite");
        assert_eq!(
            round_bf16(1e-45, 0.0, Rnd::Rp),
            0x0001,
            "up to the least subnormal"
        );
        assert_eq!(round_bf16(f64::NAN, 0.0, Rnd::Rn), NAN16);
    }
}
