//! Instructions that set predicates (comparisons, tests, predicate logic, address spaces) or
//! select by one, over a warp's 32 lanes.

use super::{alu, blend, float, halves, lanes_of, Warp, FULL};
use crate::ir::*;
use crate::memory::{LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};

/// Runs one predicate instruction for the lanes in `exec`.
#[inline(always)]
pub(super) fn execute(w: &mut Warp, op: &Op, exec: u32) {
    let r = &mut w.regs[..];
    match *op {
        Op::Setp { .. } => setp(w, exec, op),
        Op::Testp { op, ty, p, a } => {
            let av = lanes_of(r, a);
            let mut t = 0u32;
            for (l, &v) in av.iter().enumerate() {
                t |= (float::testp(op, float::as_f64(ty, v)) as u32) << l;
            }
            w.preds[p as usize] = (w.preds[p as usize] & !exec) | (t & exec);
        }
        Op::Selp { d, a, b, p, neg } => {
            let pm = w.preds[p as usize] ^ if neg { FULL } else { 0 };
            let (av, bv) = (lanes_of(r, a), lanes_of(r, b));
            let out = std::array::from_fn(|l| if pm >> l & 1 != 0 { av[l] } else { bv[l] });
            blend(r, exec, d, &out);
        }
        Op::PredLogic {
            op,
            d,
            a,
            na,
            b,
            nb,
        } => {
            let x = w.preds[a as usize] ^ if na { FULL } else { 0 };
            let y = w.preds[b as usize] ^ if nb { FULL } else { 0 };
            let v = match op {
                None => x,
                Some(BoolOp::And) => x & y,
                Some(BoolOp::Or) => x | y,
                Some(BoolOp::Xor) => x ^ y,
            };
            w.preds[d as usize] = (w.preds[d as usize] & !exec) | (v & exec);
        }
        Op::PredSet { d, value } => {
            let v = if value { FULL } else { 0 };
            w.preds[d as usize] = (w.preds[d as usize] & !exec) | (v & exec);
        }
        Op::Isspacep { space, p, a } => {
            let av = lanes_of(r, a);
            let mut t = 0u32;
            for (l, &x) in av.iter().enumerate() {
                let is = match space {
                    MemSpace::Shared => x.wrapping_sub(SHARED_WINDOW) < WINDOW_SIZE,
                    MemSpace::Local => x.wrapping_sub(LOCAL_WINDOW) < WINDOW_SIZE,
                    _ => {
                        x.wrapping_sub(SHARED_WINDOW) >= WINDOW_SIZE
                            && x.wrapping_sub(LOCAL_WINDOW) >= WINDOW_SIZE
                    }
                };
                t |= (is as u32) << l;
            }
            w.preds[p as usize] = (w.preds[p as usize] & !exec) | (t & exec);
        }
        _ => unreachable!("not an instruction of this family"),
    }
}

/// A lane mask of `a cmp b` for the 32 lanes' operand pairs. Integer keys never compare
/// unordered, so the same code serves integers and floats.
/// The least normal half, 2^-14: `.ftz` comparisons take anything smaller for zero.
const HALF_MIN_NORMAL: f64 = 6.103515625e-5;

#[inline(always)]
fn compare_lanes<T: PartialOrd>(cmp: Cmp, pair: impl Fn(usize) -> (T, T)) -> u32 {
    use std::cmp::Ordering::{Equal, Greater, Less};
    macro_rules! test {
        (|$a:ident, $b:ident| $e:expr) => {{
            let mut m = 0u32;
            for l in 0..32 {
                let ($a, $b) = pair(l);
                m |= ($e as u32) << l;
            }
            m
        }};
    }
    match cmp {
        Cmp::Eq => test!(|a, b| a == b),
        Cmp::Ne => test!(|a, b| matches!(a.partial_cmp(&b), Some(Less | Greater))),
        Cmp::Lt => test!(|a, b| a < b),
        Cmp::Le => test!(|a, b| a <= b),
        Cmp::Gt => test!(|a, b| a > b),
        Cmp::Ge => test!(|a, b| a >= b),
        Cmp::Equ => test!(|a, b| !matches!(a.partial_cmp(&b), Some(Less | Greater))),
        Cmp::Neu => test!(|a, b| a != b),
        Cmp::Ltu => test!(|a, b| !matches!(a.partial_cmp(&b), Some(Greater | Equal))),
        Cmp::Leu => test!(|a, b| !matches!(a.partial_cmp(&b), Some(Greater))),
        Cmp::Gtu => test!(|a, b| !matches!(a.partial_cmp(&b), Some(Less | Equal))),
        Cmp::Geu => test!(|a, b| !matches!(a.partial_cmp(&b), Some(Less))),
        #[allow(clippy::eq_op)]
        Cmp::Num => test!(|a, b| (a == a && b == b)),
        #[allow(clippy::eq_op)]
        Cmp::Nan => test!(|a, b| (a != a || b != b)),
    }
}

/// `setp`: a comparison per lane into predicate `p` (and its negation into `q`), optionally
/// combined with another predicate.
#[inline(always)]
fn setp(w: &mut Warp, exec: u32, op: &Op) {
    let Op::Setp {
        cmp,
        ty,
        ftz,
        p,
        q,
        a,
        b,
        comb,
    } = *op
    else {
        unreachable!("setp")
    };
    let r = &w.regs[..];
    let (av, bv) = (lanes_of(r, a), lanes_of(r, b));
    let mut t = match ty {
        Ty::F32 => {
            let f = |v: u64| {
                let x = f32::from_bits(v as u32);
                if ftz {
                    float::ftz32(x)
                } else {
                    x
                }
            };
            compare_lanes(cmp, |l| (f(av[l]), f(bv[l])))
        }
        Ty::F64 => compare_lanes(cmp, |l| (f64::from_bits(av[l]), f64::from_bits(bv[l]))),
        Ty::F16 | Ty::BF16 => {
            // bfloat16 has f32's exponents, and so its least normal.
            let least_normal = if ty == Ty::BF16 {
                f32::MIN_POSITIVE as f64
            } else {
                HALF_MIN_NORMAL
            };
            let f = |v: u64| {
                let x = halves::value(ty, v);
                if ftz && x.abs() < least_normal {
                    0.0
                } else {
                    x
                }
            };
            compare_lanes(cmp, |l| (f(av[l]), f(bv[l])))
        }
        // Signedness and width decided once, outside the loop over lanes.
        _ if ty.is_signed() => {
            let bits = ty.bits();
            compare_lanes(cmp, |l| (alu::sx(av[l], bits), alu::sx(bv[l], bits)))
        }
        _ => {
            let m = mask(ty.bits());
            compare_lanes(cmp, |l| (av[l] & m, bv[l] & m))
        }
    };
    let mut f = !t;
    if let Some((op, c, nc)) = comb {
        let cv = w.preds[c as usize] ^ if nc { FULL } else { 0 };
        let apply = |x: u32| match op {
            BoolOp::And => x & cv,
            BoolOp::Or => x | cv,
            BoolOp::Xor => x ^ cv,
        };
        (t, f) = (apply(t), apply(f));
    }
    w.preds[p as usize] = (w.preds[p as usize] & !exec) | (t & exec);
    if q != NONE {
        w.preds[q as usize] = (w.preds[q as usize] & !exec) | (f & exec);
    }
}
