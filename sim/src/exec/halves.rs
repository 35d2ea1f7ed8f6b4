//! 16-bit floats: IEEE half precision (`.f16`) and bfloat16 (`.bf16`) values in the low 16 bits
//! of a register, and `.f16x2`/`.bf16x2` pairs (two in one 32-bit register, the low one first),
//! with PTX's rounding modes, flush-to-zero and saturation.
//!
//! Every operation is computed exactly in f64 (with the error term where a sum of products needs
//! more bits), squashed to f32 with round-to-odd, which keeps the later rounding to half exact,
//! then rounded to the 16-bit format by the `half` crate (to nearest even) and moved one step
//! where another direction was asked for.

use super::float::{fmax, fmin, two_sum};
use crate::ir::{FMode, FOp, FUn, Rnd, Ty};
use crate::rounding::{round_bf16, round_f16, NAN16};
use half::{bf16, f16};

/// A half's value, exactly.
#[inline]
pub(crate) fn to_f64(bits: u64) -> f64 {
    f16::from_bits(bits as u16).to_f64()
}

/// The value of a 16-bit float of type `lane` (`.f16` or `.bf16`), exactly.
#[inline]
pub(crate) fn value(lane: Ty, bits: u64) -> f64 {
    if lane == Ty::BF16 {
        bf16::from_bits(bits as u16).to_f64()
    } else {
        to_f64(bits)
    }
}

/// The format's rounding of the exact value `hi + lo`.
#[inline]
fn round(lane: Ty, hi: f64, lo: f64, rnd: Rnd) -> u16 {
    if lane == Ty::BF16 {
        round_bf16(hi, lo, rnd)
    } else {
        round_f16(hi, lo, rnd)
    }
}

/// A subnormal flushed to zero of its sign.
#[inline]
fn ftz(lane: Ty, bits: u16) -> u16 {
    let exponent = if lane == Ty::BF16 { 0x7f80 } else { 0x7c00 };
    if bits & exponent == 0 {
        bits & 0x8000
    } else {
        bits
    }
}

/// Applies `.ftz` and `.sat` to a result.
#[inline]
fn finish(lane: Ty, m: FMode, bits: u16) -> u16 {
    let bits = if m.ftz { ftz(lane, bits) } else { bits };
    if !m.sat {
        return bits;
    }
    let x = value(lane, bits as u64);
    if x.is_nan() || x <= 0.0 {
        0
    } else if x > 1.0 {
        round(lane, 1.0, 0.0, Rnd::Rn)
    } else {
        bits
    }
}

/// Applies `f` to each 16-bit float of the operands: once for `.f16` and `.bf16`, twice for
/// the pairs.
#[inline]
fn per_half(ty: Ty, operands: [u64; 3], f: impl Fn([u16; 3]) -> u16) -> u64 {
    let at = |shift: u32| operands.map(|v| (v >> shift) as u16);
    let low = f(at(0)) as u64;
    if ty.is_pair() {
        low | (f(at(16)) as u64) << 16
    } else {
        low
    }
}

/// `add`, `sub`, `mul`, `min` and `max` on halves.
pub(crate) fn binary(op: FOp, m: FMode, ty: Ty, a: u64, b: u64) -> u64 {
    let lane = ty.half_lane();
    per_half(ty, [a, b, 0], |[x, y, _]| {
        let (x, y) = if m.ftz {
            (ftz(lane, x), ftz(lane, y))
        } else {
            (x, y)
        };
        let (fx, fy) = (value(lane, x as u64), value(lane, y as u64));
        // Sums of two halves are exact in f64, and so are products (of bfloat16s too: 16 bits).
        // A bfloat16 sum can span more exponents than f64 holds bits: two_sum keeps the rest.
        let bits = match op {
            FOp::Add => rounded(lane, two_sum(fx, fy), m.rnd),
            FOp::Sub => rounded(lane, two_sum(fx, -fy), m.rnd),
            FOp::Mul => round(lane, fx * fy, 0.0, m.rnd),
            FOp::MinNan | FOp::MaxNan if fx.is_nan() || fy.is_nan() => NAN16,
            FOp::Min | FOp::MinNan => pick(lane, fmin(fx, fy), x, y),
            FOp::Max | FOp::MaxNan => pick(lane, fmax(fx, fy), x, y),
            FOp::Div | FOp::Copysign => unreachable!("lowering admits no {op:?} on halves"),
        };
        finish(lane, m, bits)
    })
}

/// `hi + lo` from `two_sum` rounded, or `hi` alone where it overflowed (its `lo` is NaN then).
#[inline]
fn rounded(lane: Ty, (hi, lo): (f64, f64), rnd: Rnd) -> u16 {
    if hi.is_finite() {
        round(lane, hi, lo, rnd)
    } else {
        round(lane, hi, 0.0, rnd)
    }
}

/// Which of `x` and `y` min or max chose (`chosen` is one of their values, or NaN for both NaN).
fn pick(lane: Ty, chosen: f64, x: u16, y: u16) -> u16 {
    if chosen.is_nan() {
        NAN16
    } else if chosen.to_bits() == value(lane, x as u64).to_bits() {
        x
    } else {
        y
    }
}

/// `fma.rn` on halves: the product is exact in f64, the sum exact as two f64s.
pub(crate) fn fma(m: FMode, ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    let lane = ty.half_lane();
    per_half(ty, [a, b, c], |[x, y, z]| {
        let [x, y, z] = if m.ftz {
            [ftz(lane, x), ftz(lane, y), ftz(lane, z)]
        } else {
            [x, y, z]
        };
        let product = value(lane, x as u64) * value(lane, y as u64);
        let bits = rounded(lane, two_sum(product, value(lane, z as u64)), m.rnd);
        finish(lane, m, bits)
    })
}

/// `neg`, `abs` (sign bit only, NaN included, as the GPU does), and the approximate `ex2` and
/// `tanh`, computed in f64 and rounded to nearest.
pub(crate) fn unary(op: FUn, m: FMode, ty: Ty, a: u64) -> u64 {
    let lane = ty.half_lane();
    per_half(ty, [a, 0, 0], |[x, _, _]| {
        let x = if m.ftz { ftz(lane, x) } else { x };
        let bits = match op {
            FUn::Neg => x ^ 0x8000,
            FUn::Abs => x & 0x7fff,
            FUn::Ex2 => round(lane, value(lane, x as u64).exp2(), 0.0, Rnd::Rn),
            FUn::Tanh => round(lane, value(lane, x as u64).tanh(), 0.0, Rnd::Rn),
            _ => unreachable!("lowering admits no {op:?} on halves"),
        };
        finish(lane, m, bits)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RN: FMode = FMode {
        rnd: Rnd::Rn,
        ftz: false,
        sat: false,
    };

    fn h(x: f32) -> u64 {
        f16::from_f32(x).to_bits() as u64
    }

    #[test]
    fn pairs_compute_each_half_alone() {
        let pair = |lo: f32, hi: f32| h(lo) | h(hi) << 16;
        let sum = binary(FOp::Add, RN, Ty::F16x2, pair(1.5, -2.0), pair(0.25, 8.0));
        assert_eq!(sum, pair(1.75, 6.0));
        let fused = fma(
            RN,
            Ty::F16x2,
            pair(2.0, 3.0),
            pair(4.0, 0.5),
            pair(1.0, -1.0),
        );
        assert_eq!(fused, pair(9.0, 0.5));
        assert_eq!(
            unary(FUn::Neg, RN, Ty::F16x2, pair(1.0, -0.0)),
            pair(-1.0, 0.0)
        );
    }

    #[test]
    fn fma_rounds_once_and_saturation_and_nan_follow_the_gpu() {
        // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20: a separate multiply would round the 2^-20 away
        // and the subtraction then give 2^-9 exactly.
        let x = h(1.0 + 2f32.powi(-10));
        let minus = h(-(1.0 + 2f32.powi(-9)));
        assert_eq!(fma(RN, Ty::F16, x, x, minus), h(2f32.powi(-20)));
        let sat = FMode { sat: true, ..RN };
        assert_eq!(binary(FOp::Add, sat, Ty::F16, h(0.75), h(0.5)), h(1.0));
        assert_eq!(binary(FOp::Sub, sat, Ty::F16, h(0.25), h(0.5)), 0);
        let nan = binary(FOp::Sub, RN, Ty::F16, h(f32::INFINITY), h(f32::INFINITY));
        assert_eq!(nan, NAN16 as u64);
        assert_eq!(binary(FOp::Min, RN, Ty::F16, nan, h(3.0)), h(3.0));
        assert_eq!(binary(FOp::Max, RN, Ty::F16, h(-0.0), h(0.0)), h(0.0));
    }
}
