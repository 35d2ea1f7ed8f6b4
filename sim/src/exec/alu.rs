//! Integer and conversion semantics for one lane: registers hold values zero-extended to 64 bits,
//! and every operation reads only the low `ty.bits()` bits of its sources.

use super::float::{as_f64, ftz32};
use crate::ir::{mask, IntOp, IntOp3, IntUn, Rnd, Ty};
use crate::rounding::{round_bf16, round_f16, round_f32};

/// Sign-extends the low `bits` bits.
#[inline(always)]
pub(crate) fn sx(v: u64, bits: u32) -> i64 {
    let s = 64 - bits;
    ((v << s) as i64) >> s
}

/// Reads a register as type `ty`, sign- or zero-extended to 64 bits.
#[inline(always)]
pub(crate) fn ext(ty: Ty, v: u64) -> u64 {
    if ty.is_signed() {
        sx(v, ty.bits()) as u64
    } else {
        v & mask(ty.bits())
    }
}

/// A binary integer operation on one lane.
#[inline]
pub(crate) fn int2(op: IntOp, ty: Ty, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let m = mask(bits);
    let signed = ty.is_signed();
    match op {
        IntOp::Add => a.wrapping_add(b) & m,
        IntOp::Sub => a.wrapping_sub(b) & m,
        IntOp::AddSat | IntOp::SubSat => {
            let (x, y) = (sx(a, bits) as i128, sx(b, bits) as i128);
            let r = if op == IntOp::AddSat { x + y } else { x - y };
            let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
            (r.clamp(lo, hi) as u64) & m
        }
        IntOp::MulLo => a.wrapping_mul(b) & m,
        IntOp::MulHi | IntOp::MulWide => {
            let p = if signed {
                sx(a, bits) as i128 * sx(b, bits) as i128
            } else {
                (a & m) as i128 * (b & m) as i128
            };
            if op == IntOp::MulWide {
                (p as u64) & mask(bits * 2)
            } else {
                ((p >> bits) as u64) & m
            }
        }
        IntOp::Mul24Lo | IntOp::Mul24Hi => {
            let p = if signed {
                sx(a, 24) * sx(b, 24)
            } else {
                ((a & 0xff_ffff) * (b & 0xff_ffff)) as i64
            };
            let p = p as u64;
            if op == IntOp::Mul24Lo {
                p & m
            } else {
                (p >> 16) & m
            }
        }
        IntOp::Div | IntOp::Rem => {
            if b & m == 0 {
                // PTX leaves division by zero unspecified; the GPU gives all ones (and the
                // dividend for the remainder).
                return if op == IntOp::Div { m } else { a & m };
            }
            if signed {
                let (x, y) = (sx(a, bits), sx(b, bits));
                let r = if op == IntOp::Div {
                    x.wrapping_div(y)
                } else {
                    x.wrapping_rem(y)
                };
                (r as u64) & m
            } else if op == IntOp::Div {
                (a & m) / (b & m)
            } else {
                (a & m) % (b & m)
            }
        }
        IntOp::Min | IntOp::Max => {
            let less = if signed {
                sx(a, bits) < sx(b, bits)
            } else {
                a & m < b & m
            };
            let pick_a = less == (op == IntOp::Min);
            if pick_a {
                a & m
            } else {
                b & m
            }
        }
        IntOp::And => a & b & m,
        IntOp::Or => (a | b) & m,
        IntOp::Xor => (a ^ b) & m,
        IntOp::Shl => {
            let n = b & 0xffff_ffff;
            if n >= bits as u64 {
                0
            } else {
                (a << n) & m
            }
        }
        IntOp::Shr => {
            let n = (b & 0xffff_ffff).min(bits as u64);
            if signed {
                ((sx(a, bits) >> n.min(63)) as u64) & m
            } else if n >= bits as u64 {
                0
            } else {
                (a & m) >> n
            }
        }
        IntOp::Bmsk => {
            let (pos, len) = ((a & 0xffff_ffff).min(32), (b & 0xffff_ffff).min(32));
            (((1u64 << len) - 1) << pos) & 0xffff_ffff
        }
    }
}

#[inline]
pub(crate) fn int1(op: IntUn, ty: Ty, a: u64) -> u64 {
    let bits = ty.bits();
    let m = mask(bits);
    let v = a & m;
    match op {
        IntUn::Neg => v.wrapping_neg() & m,
        IntUn::Abs => (sx(a, bits).wrapping_abs() as u64) & m,
        IntUn::Not => !a & m,
        IntUn::Cnot => (v == 0) as u64,
        IntUn::Popc => v.count_ones() as u64,
        IntUn::Clz => (v.leading_zeros() - (64 - bits)) as u64,
        IntUn::Brev => v.reverse_bits() >> (64 - bits),
        IntUn::Bfind | IntUn::BfindShift => {
            // Most significant bit that differs from the sign (signed) or is set (unsigned).
            let x = if ty.is_signed() && sx(a, bits) < 0 {
                !a & m
            } else {
                v
            };
            if x == 0 {
                return 0xffff_ffff;
            }
            let pos = 63 - x.leading_zeros() as u64;
            if op == IntUn::BfindShift {
                bits as u64 - 1 - pos
            } else {
                pos
            }
        }
    }
}

#[inline]
pub(crate) fn int3(op: IntOp3, ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    let bits = ty.bits();
    let m = mask(bits);
    match op {
        IntOp3::MadLo => a.wrapping_mul(b).wrapping_add(c) & m,
        IntOp3::MadHi => int2(IntOp::MulHi, ty, a, b).wrapping_add(c) & m,
        IntOp3::MadWide => int2(IntOp::MulWide, ty, a, b).wrapping_add(c) & mask(bits * 2),
        IntOp3::Mad24Lo => int2(IntOp::Mul24Lo, ty, a, b).wrapping_add(c) & m,
        IntOp3::Sad => {
            let d = if ty.is_signed() {
                (sx(a, bits) as i128 - sx(b, bits) as i128).unsigned_abs() as u64
            } else {
                (a & m).abs_diff(b & m)
            };
            d.wrapping_add(c) & m
        }
        IntOp3::Bfe => {
            let pos = (b & 0xff) as u32;
            let len = (c & 0xff) as u32;
            let msb = bits - 1;
            let sbit = if !ty.is_signed() || len == 0 {
                0
            } else {
                (a >> (pos + len - 1).min(msb)) & 1
            };
            let mut d = 0u64;
            for i in 0..bits {
                let bit = if i < len && pos + i <= msb {
                    (a >> (pos + i)) & 1
                } else {
                    sbit
                };
                d |= bit << i;
            }
            d & m
        }
        IntOp3::SlctS32 => {
            if sx(c, 32) >= 0 {
                a & m
            } else {
                b & m
            }
        }
        IntOp3::SlctF32 => {
            if ftz32(f32::from_bits(c as u32)) >= 0.0 {
                a & m
            } else {
                b & m
            }
        }
    }
}

pub(crate) fn bfi(ty: Ty, a: u64, b: u64, pos: u64, len: u64) -> u64 {
    let bits = ty.bits() as u64;
    let (pos, len) = (pos & 0xff, len & 0xff);
    let mut f = b & mask(bits as u32);
    for i in 0..len {
        if pos + i >= bits {
            break;
        }
        f = (f & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
    }
    f
}

pub(crate) fn prmt(a: u64, b: u64, c: u64, mode: u8) -> u64 {
    let x = (a & 0xffff_ffff) | (b & 0xffff_ffff) << 32;
    let byte = |i: u64| (x >> ((i & 7) * 8)) & 0xff;
    if mode == 0 {
        let mut d = 0;
        for i in 0..4 {
            let sel = (c >> (4 * i)) & 0xf;
            let mut v = byte(sel & 7);
            if sel & 8 != 0 {
                v = if v & 0x80 != 0 { 0xff } else { 0 };
            }
            d |= v << (8 * i);
        }
        return d;
    }
    // Byte sources for d.b0..d.b3, per mode and selector (PTX ISA, prmt).
    const TABLE: [[[u64; 4]; 4]; 6] = [
        [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
        [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
        [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
        [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
        [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
    ];
    let row = TABLE[mode as usize - 1][(c & 3) as usize];
    (0..4).fold(0, |d, i| d | byte(row[i]) << (8 * i))
}

pub(crate) fn shf(a: u64, b: u64, c: u64, left: bool, clamp: bool) -> u64 {
    let n = if clamp {
        (c & 0xffff_ffff).min(32)
    } else {
        c & 31
    };
    let x = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    if left {
        ((x << n) >> 32) & 0xffff_ffff
    } else {
        (x >> n) & 0xffff_ffff
    }
}

pub(crate) fn lop3(a: u64, b: u64, c: u64, lut: u8) -> u64 {
    let mut r = 0u64;
    for i in 0..8 {
        if lut >> i & 1 != 0 {
            let pa = if i & 4 != 0 { a } else { !a };
            let pb = if i & 2 != 0 { b } else { !b };
            let pc = if i & 1 != 0 { c } else { !c };
            r |= pa & pb & pc;
        }
    }
    r & 0xffff_ffff
}

fn int_from_float(dt: Ty, v: f64, rnd: Rnd, sat: bool) -> u64 {
    let r = match rnd {
        Rnd::Rn => v.round_ties_even(),
        Rnd::Rz => v.trunc(),
        Rnd::Rm => v.floor(),
        Rnd::Rp => v.ceil(),
    };
    let _ = sat;
    // Float to integer saturates, and NaN gives 0, as Rust's `as` does.
    let bits = dt.bits();
    let out = match dt {
        Ty::S8 => r as i8 as u64,
        Ty::S16 => r as i16 as u64,
        Ty::S32 => r as i32 as u64,
        Ty::S64 => r as i64 as u64,
        Ty::U8 => r as u8 as u64,
        Ty::U16 => r as u16 as u64,
        Ty::U32 => r as u32 as u64,
        _ => r as u64,
    };
    out & mask(bits)
}

fn float_to_bits(dt: Ty, hi: f64, lo: f64, rnd: Rnd) -> u64 {
    match dt {
        Ty::F32 => round_f32(hi, lo, rnd).to_bits() as u64,
        Ty::F16 => round_f16(hi, lo, rnd) as u64,
        Ty::BF16 => round_bf16(hi, lo, rnd) as u64,
        // Only `cvt.rn.satfinite` writes FP8, from an f32 or a half: exact in `hi`.
        Ty::E4M3 | Ty::E5M2 => crate::rounding::fp8::round(dt, hi),
        _ => {
            if lo == 0.0 || rnd == Rnd::Rn {
                hi.to_bits()
            } else {
                let r = match rnd {
                    Rnd::Rp if lo > 0.0 => hi.next_up(),
                    Rnd::Rm if lo < 0.0 => hi.next_down(),
                    Rnd::Rz if (lo < 0.0) == (hi > 0.0) => {
                        if hi > 0.0 {
                            hi.next_down()
                        } else {
                            hi.next_up()
                        }
                    }
                    _ => hi,
                };
                r.to_bits()
            }
        }
    }
}

/// `cvt.dt.st` with optional rounding (`to_int`: the `.rni`-style integer rounding of a float).
#[allow(clippy::too_many_arguments)]
pub(crate) fn cvt(
    dt: Ty,
    st: Ty,
    rnd: Option<Rnd>,
    to_int: bool,
    ftz: bool,
    sat: bool,
    a: u64,
) -> u64 {
    match (dt.is_float(), st.is_float()) {
        (false, false) => {
            let v = ext(st, a);
            if sat {
                // Clamp to the destination's range.
                let (lo, hi): (i128, i128) = if dt.is_signed() {
                    (-(1i128 << (dt.bits() - 1)), (1i128 << (dt.bits() - 1)) - 1)
                } else {
                    (0, (1i128 << dt.bits()) - 1)
                };
                let x = if st.is_signed() {
                    v as i64 as i128
                } else {
                    v as i128
                };
                return (x.clamp(lo, hi) as u64) & mask(dt.bits());
            }
            if dt.is_signed() {
                sx(v, dt.bits()) as u64
            } else {
                v & mask(dt.bits())
            }
        }
        (false, true) => {
            let mut x = as_f64(st, a);
            if ftz && st == Ty::F32 {
                x = ftz32(x as f32) as f64;
            }
            let r = int_from_float(dt, x, rnd.unwrap_or(Rnd::Rz), sat);
            if dt.is_signed() {
                sx(r, dt.bits()) as u64
            } else {
                r
            }
        }
        (true, false) => {
            let rnd = rnd.unwrap_or(Rnd::Rn);
            let v = ext(st, a);
            let (hi, lo) = if st.is_signed() {
                let i = v as i64;
                let hi = i as f64;
                (hi, (i as i128 - hi as i128) as f64)
            } else {
                let hi = v as f64;
                (hi, (v as i128 - hi as i128) as f64)
            };
            let mut bits = float_to_bits(dt, hi, lo, rnd);
            if sat && dt == Ty::F32 {
                bits = f32::from_bits(bits as u32).clamp(0.0, 1.0).to_bits() as u64;
            }
            bits
        }
        (true, true) => {
            let mut x = as_f64(st, a);
            if ftz && st == Ty::F32 {
                x = ftz32(x as f32) as f64;
            }
            if x.is_nan() {
                return match dt {
                    Ty::F32 => 0x7fff_ffff,
                    // E5M2 is an f16's high byte: widening it keeps a NaN's payload, as the GPU does.
                    Ty::F16 if st == Ty::E5M2 => (a & 0xff) << 8,
                    Ty::F16 | Ty::BF16 => 0x7fff,
                    Ty::E4M3 | Ty::E5M2 => crate::rounding::fp8::NAN,
                    _ => 0x7fff_ffff_ffff_ffff,
                };
            }
            if to_int {
                x = match rnd.unwrap_or(Rnd::Rn) {
                    Rnd::Rn => x.round_ties_even(),
                    Rnd::Rz => x.trunc(),
                    Rnd::Rm => x.floor(),
                    Rnd::Rp => x.ceil(),
                };
            }
            if sat {
                x = if x.is_nan() || x <= 0.0 {
                    0.0
                } else {
                    x.min(1.0)
                };
            }
            let bits = float_to_bits(
                dt,
                x,
                0.0,
                if to_int {
                    Rnd::Rn
                } else {
                    rnd.unwrap_or(Rnd::Rn)
                },
            );
            if ftz && dt == Ty::F32 {
                ftz32(f32::from_bits(bits as u32)).to_bits() as u64
            } else if dt == st && matches!(dt, Ty::F16 | Ty::BF16) && !to_int && !sat {
                // A plain half-to-half conversion changes nothing;
                // `.rzi`/`.rmi`/... round to an integer and `.sat` clamps, as for any float.
                a & 0xffff
            } else {
                bits
            }
        }
    }
}

#[cfg(test)]
mod half_rounding_tests {
    use super::*;

    #[test]
    fn half_to_half_conversions_round_to_integers_when_asked() {
        let half = |x: f32| half::f16::from_f32(x).to_bits() as u64;
        let cvt16 = |rnd, x| cvt(Ty::F16, Ty::F16, Some(rnd), true, false, false, half(x));
        assert_eq!(cvt16(Rnd::Rz, 0.75), half(0.0), "trunc");
        assert_eq!(cvt16(Rnd::Rp, 0.25), half(1.0), "ceil");
        assert_eq!(cvt16(Rnd::Rm, -0.25), half(-1.0), "floor");
        assert_eq!(cvt16(Rnd::Rn, 2.5), half(2.0), "to nearest even");
        assert_eq!(
            cvt(Ty::F16, Ty::F16, None, false, false, false, half(0.75)),
            half(0.75)
        );
    }
}
