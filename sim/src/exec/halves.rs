//! IEEE half precision: `.f16` values in the low 16 bits of a register, and `.f16x2` pairs (two
//! halves in one 32-bit register, the low one first), with PTX's rounding modes, flush-to-zero
//! and saturation.
//!
//! Every operation is computed exactly in f64 (with the error term where a sum of products needs
//! more bits), squashed to f32 with round-to-odd, which keeps the later rounding to half exact,
//! then rounded to half by the `half` crate (to nearest even) and moved one step where another
//! direction was asked for.

use super::float::{fmax, fmin, round_f32, to_odd, two_sum};
use crate::ir::{FMode, FOp, FUn, Rnd, Ty};
use half::f16;

/// The NaN a GPU's half-precision arithmetic produces.
const NAN16: u16 = 0x7fff;

/// A half's value, exactly.
#[inline]
pub(crate) fn to_f64(bits: u64) -> f64 {
    f16::from_bits(bits as u16).to_f64()
}

/// Rounds the exact value `hi + lo` to half precision in direction `rnd`.
pub(crate) fn round(hi: f64, lo: f64, rnd: Rnd) -> u16 {
    let v = to_odd(hi, lo);
    if v.is_nan() {
        return NAN16;
    }
    // Round to odd again, to f32's 24 bits (still more than half's 11 + 2), so that `from_f32`,
    // which rounds an f32 correctly, rounds the exact value correctly.
    let truncated = round_f32(v, 0.0, Rnd::Rz);
    let odd = if v.is_finite() && truncated as f64 != v {
        f32::from_bits(truncated.to_bits() | 1)
    } else {
        truncated
    };
    let nearest = f16::from_f32(odd);
    let (r, bits) = (nearest.to_f64(), nearest.to_bits());
    // Halves are sign and magnitude: one step up or down in magnitude is one step in the bits.
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
            FOp::Add => round(fx + fy, 0.0, m.rnd),
            FOp::Sub => round(fx - fy, 0.0, m.rnd),
            FOp::Mul => round(fx * fy, 0.0, m.rnd),
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
            round(hi, lo, m.rnd)
        } else {
            round(hi, 0.0, m.rnd)
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
            FUn::Ex2 => round(to_f64(x as u64).exp2(), 0.0, Rnd::Rn),
            FUn::Tanh => round(to_f64(x as u64).tanh(), 0.0, Rnd::Rn),
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
    fn rounding_goes_the_way_each_mode_names() {
        // 1 + 2^-11 lies halfway between 1 and the next half, 1 + 2^-10.
        let tie = 1.0 + 2f64.powi(-11);
        assert_eq!(round(tie, 0.0, Rnd::Rn), 0x3c00, "ties to even");
        assert_eq!(round(tie, 1e-30, Rnd::Rn), 0x3c01, "just above the tie");
        assert_eq!(round(tie, 0.0, Rnd::Rp), 0x3c01);
        assert_eq!(round(tie, 0.0, Rnd::Rz), 0x3c00);
        assert_eq!(round(-tie, 0.0, Rnd::Rm), 0xbc01);
        assert_eq!(round(-tie, 0.0, Rnd::Rp), 0xbc00);
        assert_eq!(round(70000.0, 0.0, Rnd::Rn), 0x7c00, "overflow to infinity");
        assert_eq!(round(70000.0, 0.0, Rnd::Rz), 0x7bff, "largest finite");
        assert_eq!(round(-70000.0, 0.0, Rnd::Rp), 0xfbff);
        assert_eq!(
            round(1e-9, 0.0, Rnd::Rp),
            0x0001,
            "up to the least subnormal"
        );
        assert_eq!(round(-1e-9, 0.0, Rnd::Rm), 0x8001);
        assert_eq!(round(-1e-9, 0.0, Rnd::Rn), 0x8000, "negative zero");
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
