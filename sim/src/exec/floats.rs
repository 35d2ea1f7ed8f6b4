//! Floating-point instructions over a warp's 32 lanes (half, single and double precision), with
//! loops for plain round-to-nearest arithmetic that need no call per lane.

use super::{float, halves, map1, map2, map3, PLAIN};
use crate::ir::*;

/// Runs one floating-point instruction for the lanes in `exec`.
#[inline(always)]
pub(super) fn execute(r: &mut [u64], op: &Op, exec: u32) {
    match *op {
        Op::Float2 { op, ty, m, d, a, b } => float2(r, exec, op, ty, m, d, a, b),
        Op::Float1 { op, ty, m, d, a } => {
            if ty.is_half() {
                map1(r, exec, d, a, |x| halves::unary(op, m, ty, x))
            } else if ty == Ty::F32 {
                map1(r, exec, d, a, |x| {
                    float::un32(op, m, f32::from_bits(x as u32)).to_bits() as u64
                })
            } else {
                map1(r, exec, d, a, |x| {
                    float::un64(op, m, f64::from_bits(x)).to_bits()
                })
            }
        }
        Op::Fma { ty, m, d, a, b, c } => {
            if ty.is_half() {
                map3(r, exec, d, a, b, c, |x, y, z| halves::fma(m, ty, x, y, z))
            } else if ty == Ty::F32 && m == PLAIN {
                map3(r, exec, d, a, b, c, |x, y, z| {
                    let f = |v: u64| f32::from_bits(v as u32);
                    float::fma32_rn(f(x), f(y), f(z)).to_bits() as u64
                })
            } else if ty == Ty::F32 {
                map3(r, exec, d, a, b, c, |x, y, z| {
                    let f = |v: u64| f32::from_bits(v as u32);
                    float::fma32(m, f(x), f(y), f(z)).to_bits() as u64
                })
            } else {
                map3(r, exec, d, a, b, c, |x, y, z| {
                    let f = f64::from_bits;
                    float::fma64(m, f(x), f(y), f(z)).to_bits()
                })
            }
        }
        _ => unreachable!("not an instruction of this family"),
    }
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn float2(r: &mut [u64], exec: u32, op: FOp, ty: Ty, m: FMode, d: Slot, a: Slot, b: Slot) {
    let plain = m == PLAIN;
    let f = |v: u64| f32::from_bits(v as u32);
    let g = f64::from_bits;
    match (ty, op, plain) {
        (Ty::F16 | Ty::F16x2 | Ty::BF16 | Ty::BF16x2, _, _) => {
            map2(r, exec, d, a, b, |x, y| halves::binary(op, m, ty, x, y))
        }
        (Ty::F32, FOp::Add, true) => map2(r, exec, d, a, b, |x, y| (f(x) + f(y)).to_bits() as u64),
        (Ty::F32, FOp::Sub, true) => map2(r, exec, d, a, b, |x, y| (f(x) - f(y)).to_bits() as u64),
        (Ty::F32, FOp::Mul, true) => map2(r, exec, d, a, b, |x, y| (f(x) * f(y)).to_bits() as u64),
        (Ty::F32, _, _) => map2(r, exec, d, a, b, |x, y| {
            float::bin32(op, m, f(x), f(y)).to_bits() as u64
        }),
        (_, FOp::Add, true) => map2(r, exec, d, a, b, |x, y| (g(x) + g(y)).to_bits()),
        (_, FOp::Mul, true) => map2(r, exec, d, a, b, |x, y| (g(x) * g(y)).to_bits()),
        _ => map2(r, exec, d, a, b, |x, y| {
            float::bin64(op, m, g(x), g(y)).to_bits()
        }),
    }
}
