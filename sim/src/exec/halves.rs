//! IEEE half precision: `.f16` values in the low 16 bits of a register, and `.f16x2` pairs (two
//! halves in one 32-bit register, the low one first), with PTX's rounding modes, flush-to-zero
//! and saturation.
//!
//! Every operation is computed exactly in f64 (with the error term where a sum of products needs
//! more bits), squashed to f32 with round-to-odd, which keeps the later rounding to half exact,
//! then rounded to half by the `half` crate (to nearest even) and moved one step where another
//! direction was asked for.

use super::float::{fmax, fmin, two_sum};
use crate::ir::{FMode, FOp, FUn, Rnd, Ty};
use crate::rounding::{round_f16, NAN16};
use half::f16;

/// A half's value, exactly.
#[inline]
pub(crate) fn to_f64(bits: u64) -> f64 {
    f16::from_bits(bits as u16).to_f64()
}

#[inline]
fn ftz(bits: u16) -> u16 {
    if bits & 0x7c00 == 0 {
        bits & 0x8000
    } else {
        bits
    }
}

/// Applies `.ftz` and `.sat` to a result.
#[inline]
fn finish(m: FMode, bits: u16) -> u16 {
    let bits = if m.ftz { ftz(bits) } else { bits };
    if !m.sat {
        return bits;
    }
    let x = f16::from_bits(bits);
    if x.is_nan() || x.to_f64() <= 0.0 {
        0
    } else if x.to_f64() > 1.0 {
        f16::ONE.to_bits()
    } else {
        bits
    }
}

/// Applies `f` to each half of the operands: once for `.f16`, twice for `.f16x2`.
#[inline]
fn per_half(ty: Ty, operands: [u64; 3], f: impl Fn([u16; 3]) -> u16) -> u64 {
    let at = |shift: u32| operands.map(|v| (v >> shift) as u16);
    let low = f(at(0)) as u64;
    if ty == Ty::F16x2 {
        low | (f(at(16)) as u64) << 16
    } else {
        low
    }
}

/// `add`, `sub`, `mul`, `min` and `max` on halves.
pub(crate) fn binary(op: FOp, m: FMode, ty: Ty, a: u64, b: u64) -> u64 {
    per_half(ty, [a, b, 0], |[x, y, _]| {
        let (x, y) = if m.ftz { (ftz(x), ftz(y)) } else { (x, y) };
        let (fx, fy) = (to_f64(x as u64), to_f64(y as u64));
        // Sums and products of two halves are exact in f64.
        let bits = match op {
            FOp::Add => round_f16(fx + fy, 0.0, m.rnd),
            FOp::Sub => round_f16(fx - fy, 0.0, m.rnd),
            FOp::Mul => round_f16(fx * fy, 0.0, m.rnd),
            FOp::MinNan | FOp::MaxNan if fx.is_nan() || fy.is_nan() => NAN16,
            FOp::Min | FOp::MinNan => pick(fmin(fx, fy), x, y),
            FOp::Max | FOp::MaxNan => pick(fmax(fx, fy), x, y),
            FOp::Div | FOp::Copysign => unreachable!("lowering admits no {op:?} on halves"),
        };
        finish(m, bits)
    })
}

/// Which of `x` and `y` min or max chose (`chosen` is one of their values, or NaN for both NaN).
fn pick(chosen: f64, x: u16, y: u16) -> u16 {
    if chosen.is_nan() {
        NAN16
    } else if chosen.to_bits() == to_f64(x as u64).to_bits() {
        x
    } else {
        y
    }
}

/// `fma.rn` on halves: the product is exact in f64, the sum exact as two f64s.
pub(crate) fn fma(m: FMode, ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    per_half(ty, [a, b, c], |[x, y, z]| {
        let [x, y, z] = if m.ftz {
            [ftz(x), ftz(y), ftz(z)]
        } else {
            [x, y, z]
        };
        let product = to_f64(x as u64) * to_f64(y as u64);
        let (hi, lo) = two_sum(product, to_f64(z as u64));
        let bits = if hi.is_finite() {
            round_f16(hi, lo, m.rnd)
        } else {
            round_f16(hi, 0.0, m.rnd)
        };
        finish(m, bits)
    })
}

/// `neg`, `abs` (sign bit only, NaN included, as the GPU does), and the approximate `ex2` and
/// `tanh`, computed in f64 and rounded to nearest.
pub(crate) fn unary(op: FUn, m: FMode, ty: Ty, a: u64) -> u64 {
    per_half(ty, [a, 0, 0], |[x, _, _]| {
        let x = if m.ftz { ftz(x) } else { x };
        let bits = match op {
            FUn::Neg => x ^ 0x8000,
            FUn::Abs => x & 0x7fff,
            FUn::Ex2 => round_f16(to_f64(x as u64).exp2(), 0.0, Rnd::Rn),
            FUn::Tanh => round_f16(to_f64(x as u64).tanh(), 0.0, Rnd::Rn),
            _ => unreachable!("lowering admits no {op:?} on halves"),
        };
        finish(m, bits)
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
