//! Integer instructions over a warp's 32 lanes: arithmetic, shifts, carries, bit fields, permutes.

use super::{alu, lanes, map1, map2, map3, put, row, write_lanes, Warp};
use crate::ir::*;

/// Runs one integer instruction for the lanes in `exec`.
#[inline(always)]
pub(super) fn execute(w: &mut Warp, op: &Op, exec: u32) {
    let r = &mut w.regs[..];
    match *op {
        Op::Int2 { op, ty, d, a, b } => int2(r, exec, op, ty, (d, a, b)),
        Op::Int1 { op, ty, d, a } => map1(r, exec, d, a, |x| alu::int1(op, ty, x)),
        Op::Int3 { op, ty, d, a, b, c } => match (op, ty) {
            (IntOp3::MadLo, Ty::S32 | Ty::U32) => map3(r, exec, d, a, b, c, |x, y, z| {
                x.wrapping_mul(y).wrapping_add(z) & 0xffff_ffff
            }),
            _ => map3(r, exec, d, a, b, c, |x, y, z| alu::int3(op, ty, x, y, z)),
        },
        Op::Carry {
            op,
            ty,
            d,
            a,
            b,
            c,
            cin,
            cout,
        } => {
            let (av, bv) = (row(r, a), row(r, b));
            let cv = if c == NONE { [0; 32] } else { row(r, c) };
            let bits = ty.bits();
            let m = mask(bits) as u128;
            let mut out = [0u64; 32];
            let mut carry = 0u32;
            for l in lanes(exec) {
                let ci = (cin && w.carry >> l & 1 != 0) as u128;
                let (x, y, z) = (av[l] as u128 & m, bv[l] as u128 & m, cv[l] as u128 & m);
                let (res, co) = match op {
                    CarryOp::Add => {
                        let s = x + y + ci;
                        (s & m, s > m)
                    }
                    CarryOp::Sub => {
                        let sub = y + ci;
                        (x.wrapping_sub(sub) & m, x < sub)
                    }
                    CarryOp::MadLo | CarryOp::MadHi => {
                        let p = x * y;
                        let p = if op == CarryOp::MadHi {
                            p >> bits
                        } else {
                            p & m
                        };
                        let s = p + z + ci;
                        (s & m, s > m)
                    }
                };
                out[l] = res as u64;
                carry |= (co as u32) << l;
            }
            put(r, d, exec, &out);
            if cout {
                w.carry = (w.carry & !exec) | carry;
            }
        }
        Op::Bfi {
            ty,
            d,
            a,
            b,
            pos,
            len,
        } => {
            let (av, bv, pv, lv) = (row(r, a), row(r, b), row(r, pos), row(r, len));
            write_lanes(r, exec, d, |l| alu::bfi(ty, av[l], bv[l], pv[l], lv[l]));
        }
        Op::Prmt { d, a, b, c, mode } => {
            map3(r, exec, d, a, b, c, |x, y, z| alu::prmt(x, y, z, mode))
        }
        Op::Shf {
            d,
            a,
            b,
            c,
            left,
            clamp,
        } => map3(r, exec, d, a, b, c, |x, y, z| {
            alu::shf(x, y, z, left, clamp)
        }),
        Op::Lop3 { d, a, b, c, lut } => {
            map3(r, exec, d, a, b, c, |x, y, z| alu::lop3(x, y, z, lut))
        }
        _ => unreachable!("not an instruction of this family"),
    }
}

/// `add`, `sub`, `mul`, logic, shifts, `min` and `max` on two operands, with loops the compiler
/// vectorises for the common types.
#[inline(always)]
fn int2(r: &mut [u64], exec: u32, op: IntOp, ty: Ty, (d, a, b): (Slot, Slot, Slot)) {
    let m = mask(ty.bits());
    match op {
        IntOp::Add => map2(r, exec, d, a, b, |x, y| x.wrapping_add(y) & m),
        IntOp::Sub => map2(r, exec, d, a, b, |x, y| x.wrapping_sub(y) & m),
        IntOp::MulLo => map2(r, exec, d, a, b, |x, y| x.wrapping_mul(y) & m),
        IntOp::And => map2(r, exec, d, a, b, |x, y| x & y & m),
        IntOp::Or => map2(r, exec, d, a, b, |x, y| (x | y) & m),
        IntOp::Xor => map2(r, exec, d, a, b, |x, y| (x ^ y) & m),
        IntOp::MulWide if ty == Ty::S32 => map2(r, exec, d, a, b, |x, y| {
            (x as i32 as i64).wrapping_mul(y as i32 as i64) as u64
        }),
        IntOp::MulWide if ty == Ty::U32 => map2(r, exec, d, a, b, |x, y| {
            (x & 0xffff_ffff) * (y & 0xffff_ffff)
        }),
        IntOp::Shl => {
            let bits = ty.bits() as u64;
            map2(r, exec, d, a, b, |x, y| {
                let n = y & 0xffff_ffff;
                if n >= bits {
                    0
                } else {
                    (x << n) & m
                }
            })
        }
        IntOp::Shr if !ty.is_signed() => {
            let bits = ty.bits() as u64;
            map2(r, exec, d, a, b, |x, y| {
                let n = y & 0xffff_ffff;
                if n >= bits {
                    0
                } else {
                    (x & m) >> n
                }
            })
        }
        IntOp::Shr => {
            let bits = ty.bits();
            map2(r, exec, d, a, b, |x, y| {
                let n = (y & 0xffff_ffff).min(bits as u64 - 1);
                ((alu::sx(x, bits) >> n) as u64) & m
            })
        }
        IntOp::Min | IntOp::Max => {
            let bits = ty.bits();
            let min = op == IntOp::Min;
            if ty.is_signed() {
                map2(r, exec, d, a, b, |x, y| {
                    let (p, q) = (alu::sx(x, bits), alu::sx(y, bits));
                    (if (p < q) == min { p } else { q }) as u64 & m
                })
            } else {
                map2(r, exec, d, a, b, |x, y| {
                    let (p, q) = (x & m, y & m);
                    if (p < q) == min {
                        p
                    } else {
                        q
                    }
                })
            }
        }
        _ => map2(r, exec, d, a, b, |x, y| alu::int2(op, ty, x, y)),
    }
}
