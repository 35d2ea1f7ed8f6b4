//! IEEE arithmetic with PTX's rounding modes, flush-to-zero and saturation.
//!
//! Directed rounding of an f32 result: compute it in f64 together with the exact error (two-sum,
//! exact products, remainders by fma), squash that pair to one f64 with round-to-odd (which makes the
//! later rounding to f32 exact for every mode), then round to f32 in the requested direction.

use crate::ir::{FMode, FOp, FUn, Rnd, TestP, Ty};
use crate::rounding::{round_f32, to_odd};

/// `s + e == a + b` exactly.
#[inline]
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Rounds `hi + lo` (hi already the nearest f64) in the requested direction.
#[inline]
fn round_f64(hi: f64, lo: f64, rnd: Rnd) -> f64 {
    if lo == 0.0 || !hi.is_finite() {
        return hi;
    }
    match rnd {
        Rnd::Rn => hi,
        Rnd::Rp if lo > 0.0 => hi.next_up(),
        Rnd::Rm if lo < 0.0 => hi.next_down(),
        Rnd::Rz if lo < 0.0 && hi > 0.0 => hi.next_down(),
        Rnd::Rz if lo > 0.0 && hi < 0.0 => hi.next_up(),
        _ => hi,
    }
}

#[inline]
pub(crate) fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

#[inline]
fn ftz64(x: f64) -> f64 {
    if x.is_subnormal() {
        0.0f64.copysign(x)
    } else {
        x
    }
}

#[inline]
fn sat32(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        x
    }
}

#[inline]
fn sat64(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        x
    }
}

/// PTX min/max: a NaN operand yields the other operand, and -0 is below +0.
#[inline]
pub(crate) fn fmin<T: Float>(a: T, b: T) -> T {
    let pick_a = b.nan() || (!a.nan() && (a.lt(b) || (a.eq(b) && a.neg_sign())));
    if pick_a {
        a
    } else {
        b
    }
}

#[inline]
pub(crate) fn fmax<T: Float>(a: T, b: T) -> T {
    let pick_a = b.nan() || (!a.nan() && (b.lt(a) || (a.eq(b) && !a.neg_sign())));
    if pick_a {
        a
    } else {
        b
    }
}

pub(crate) trait Float: Copy {
    fn nan(self) -> bool;
    fn lt(self, o: Self) -> bool;
    fn eq(self, o: Self) -> bool;
    fn neg_sign(self) -> bool;
}

impl Float for f32 {
    fn nan(self) -> bool {
        self.is_nan()
    }
    fn lt(self, o: Self) -> bool {
        self < o
    }
    fn eq(self, o: Self) -> bool {
        self == o
    }
    fn neg_sign(self) -> bool {
        self.is_sign_negative()
    }
}

impl Float for f64 {
    fn nan(self) -> bool {
        self.is_nan()
    }
    fn lt(self, o: Self) -> bool {
        self < o
    }
    fn eq(self, o: Self) -> bool {
        self == o
    }
    fn neg_sign(self) -> bool {
        self.is_sign_negative()
    }
}

/// The canonical NaN the GPU produces.
const NAN32: f32 = f32::from_bits(0x7fff_ffff);
const NAN64: f64 = f64::from_bits(0x7fff_ffff_ffff_ffff);

#[inline]
pub(crate) fn bin32(op: FOp, m: FMode, a: f32, b: f32) -> f32 {
    let (a, b) = if m.ftz { (ftz32(a), ftz32(b)) } else { (a, b) };
    let r = match op {
        FOp::Add if m.rnd == Rnd::Rn => a + b,
        FOp::Sub if m.rnd == Rnd::Rn => a - b,
        FOp::Mul if m.rnd == Rnd::Rn => a * b,
        FOp::Div if m.rnd == Rnd::Rn => a / b,
        FOp::Add | FOp::Sub => {
            let b = if op == FOp::Sub { -b } else { b };
            let (hi, lo) = two_sum(a as f64, b as f64);
            round_f32(hi, lo, m.rnd)
        }
        FOp::Mul => round_f32(a as f64 * b as f64, 0.0, m.rnd),
        FOp::Div => {
            let (a64, b64) = (a as f64, b as f64);
            let q = a64 / b64;
            let rem = (-q).mul_add(b64, a64);
            round_f32(
                q,
                if q.is_finite() && b64 != 0.0 {
                    rem / b64
                } else {
                    0.0
                },
                m.rnd,
            )
        }
        FOp::Min => fmin(a, b),
        FOp::Max => fmax(a, b),
        FOp::MinNan | FOp::MaxNan if a.is_nan() || b.is_nan() => NAN32,
        FOp::MinNan => fmin(a, b),
        FOp::MaxNan => fmax(a, b),
        FOp::Copysign => b.copysign(a),
    };
    let r = if r.is_nan() && !matches!(op, FOp::Copysign) {
        NAN32
    } else {
        r
    };
    let r = if m.ftz { ftz32(r) } else { r };
    if m.sat {
        sat32(r)
    } else {
        r
    }
}

#[inline]
pub(crate) fn bin64(op: FOp, m: FMode, a: f64, b: f64) -> f64 {
    let (a, b) = if m.ftz { (ftz64(a), ftz64(b)) } else { (a, b) };
    let r = match op {
        FOp::Add | FOp::Sub => {
            let b = if op == FOp::Sub { -b } else { b };
            let (hi, lo) = two_sum(a, b);
            round_f64(hi, lo, m.rnd)
        }
        FOp::Mul => {
            let p = a * b;
            round_f64(
                p,
                if m.rnd == Rnd::Rn {
                    0.0
                } else {
                    a.mul_add(b, -p)
                },
                m.rnd,
            )
        }
        FOp::Div => {
            let q = a / b;
            if m.rnd == Rnd::Rn || !q.is_finite() || b == 0.0 {
                q
            } else {
                let rem = (-q).mul_add(b, a);
                round_f64(q, rem / b, m.rnd)
            }
        }
        FOp::Min => fmin(a, b),
        FOp::Max => fmax(a, b),
        FOp::MinNan | FOp::MaxNan if a.is_nan() || b.is_nan() => NAN64,
        FOp::MinNan => fmin(a, b),
        FOp::MaxNan => fmax(a, b),
        FOp::Copysign => b.copysign(a),
    };
    let r = if r.is_nan() && !matches!(op, FOp::Copysign) {
        NAN64
    } else {
        r
    };
    if m.sat {
        sat64(r)
    } else {
        r
    }
}

/// `fma.rn.f32` without `.ftz` or `.sat` (what `a * b + c` compiles to): `fma32` with the mode
/// known, so that the warp's loop over lanes needs no call.
#[inline(always)]
pub(crate) fn fma32_rn(a: f32, b: f32, c: f32) -> f32 {
    let (hi, lo) = two_sum(a as f64 * b as f64, c as f64);
    // Rounding to odd first makes the one rounding to f32 exact (see the module's comment).
    let r = if hi.is_finite() {
        to_odd(hi, lo) as f32
    } else {
        a.mul_add(b, c)
    };
    if r.is_nan() {
        NAN32
    } else {
        r
    }
}

#[inline]
pub(crate) fn fma32(m: FMode, a: f32, b: f32, c: f32) -> f32 {
    let (a, b, c) = if m.ftz {
        (ftz32(a), ftz32(b), ftz32(c))
    } else {
        (a, b, c)
    };
    // The product of two f32 is exact in f64; two-sum then gives the exact sum.
    let p = a as f64 * b as f64;
    let (hi, lo) = two_sum(p, c as f64);
    let r = if hi.is_finite() {
        round_f32(hi, lo, m.rnd)
    } else {
        a.mul_add(b, c)
    };
    let r = if r.is_nan() { NAN32 } else { r };
    let r = if m.ftz { ftz32(r) } else { r };
    if m.sat {
        sat32(r)
    } else {
        r
    }
}

#[inline]
pub(crate) fn fma64(m: FMode, a: f64, b: f64, c: f64) -> f64 {
    let r = a.mul_add(b, c);
    let r = if m.rnd == Rnd::Rn || !r.is_finite() {
        r
    } else {
        // Exact: a*b = p + ep; p + c = s + es; the residual's sign decides the direction.
        let p = a * b;
        let ep = a.mul_add(b, -p);
        let (s, es) = two_sum(p, c);
        round_f64(r, (s - r) + es + ep, m.rnd)
    };
    let r = if r.is_nan() { NAN64 } else { r };
    if m.sat {
        sat64(r)
    } else {
        r
    }
}

#[inline]
pub(crate) fn un32(op: FUn, m: FMode, a: f32) -> f32 {
    let a = if m.ftz { ftz32(a) } else { a };
    let r = match op {
        FUn::Neg => return -a,
        FUn::Abs => return a.abs(),
        FUn::Sqrt if m.rnd == Rnd::Rn => a.sqrt(),
        FUn::Sqrt => {
            let a64 = a as f64;
            let s = a64.sqrt();
            let rem = (-s).mul_add(s, a64);
            round_f32(
                s,
                if s > 0.0 && s.is_finite() {
                    rem / (2.0 * s)
                } else {
                    0.0
                },
                m.rnd,
            )
        }
        FUn::Rcp | FUn::RcpApprox => bin32(
            FOp::Div,
            FMode {
                ftz: false,
                sat: false,
                ..m
            },
            1.0,
            a,
        ),
        FUn::Rsqrt => (1.0 / (a as f64).sqrt()) as f32,
        FUn::Ex2 => (a as f64).exp2() as f32,
        FUn::Lg2 => (a as f64).log2() as f32,
        FUn::Sin => (a as f64).sin() as f32,
        FUn::Cos => (a as f64).cos() as f32,
        FUn::Tanh => (a as f64).tanh() as f32,
    };
    let r = if r.is_nan() { NAN32 } else { r };
    let r = if m.ftz { ftz32(r) } else { r };
    if m.sat {
        sat32(r)
    } else {
        r
    }
}

#[inline]
pub(crate) fn un64(op: FUn, m: FMode, a: f64) -> f64 {
    let a = if m.ftz { ftz64(a) } else { a };
    let r = match op {
        FUn::Neg => return -a,
        FUn::Abs => return a.abs(),
        FUn::Sqrt => {
            let s = a.sqrt();
            if m.rnd == Rnd::Rn || !s.is_finite() || s == 0.0 {
                s
            } else {
                round_f64(s, (-s).mul_add(s, a), m.rnd)
            }
        }
        FUn::Rcp | FUn::RcpApprox => bin64(
            FOp::Div,
            FMode {
                ftz: false,
                sat: false,
                ..m
            },
            1.0,
            a,
        ),
        FUn::Rsqrt => 1.0 / a.sqrt(),
        FUn::Ex2 => a.exp2(),
        FUn::Lg2 => a.log2(),
        FUn::Sin => a.sin(),
        FUn::Cos => a.cos(),
        FUn::Tanh => a.tanh(),
    };
    let r = if r.is_nan() { NAN64 } else { r };
    if m.ftz {
        ftz64(r)
    } else {
        r
    }
}

pub(crate) fn testp(op: TestP, x: f64) -> bool {
    match op {
        TestP::Finite => x.is_finite(),
        TestP::Infinite => x.is_infinite(),
        TestP::Number => !x.is_nan(),
        TestP::NotANumber => x.is_nan(),
        TestP::Normal => x.is_normal(),
        TestP::Subnormal => x.is_subnormal(),
    }
}

/// Reads a register as a float of type `ty`, widened to f64 (exactly).
#[inline]
pub(crate) fn as_f64(ty: Ty, bits: u64) -> f64 {
    match ty {
        Ty::F32 => f32::from_bits(bits as u32) as f64,
        Ty::F16 | Ty::BF16 => super::halves::value(ty, bits),
        Ty::E4M3 | Ty::E5M2 => crate::rounding::fp8::value(ty, bits),
        _ => f64::from_bits(bits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inline_fma_is_the_general_one_in_its_mode() {
        let plain = FMode {
            rnd: Rnd::Rn,
            ftz: false,
            sat: false,
        };
        let tiny = f32::from_bits(1);
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.5,
            1.0 + f32::EPSILON,
            3.0e38,
            -3.0e38,
            tiny,
            f32::MIN_POSITIVE,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            0.1,
            1e-20,
        ];
        for &a in &values {
            for &b in &values {
                for &c in &values {
                    let (want, got) = (fma32(plain, a, b, c), fma32_rn(a, b, c));
                    assert_eq!(want.to_bits(), got.to_bits(), "fma({a}, {b}, {c})");
                }
            }
        }
        // A product whose exact sum with c is a tie at f32 precision, decided by the low part.
        let a = 1.0 + f32::EPSILON;
        assert_eq!(fma32_rn(a, a, -1.0), fma32(plain, a, a, -1.0));
    }
}
