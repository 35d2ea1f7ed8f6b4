//! Execution: warps of 32 lanes stepping through a `Program` in lockstep, with divergence and
//! reconvergence, over a register file laid out lane-contiguous (`regs[slot * 32 + lane]`).
//!
//! Reconvergence (see `warp`): lanes run grouped by PC, lowest PC first; `.sync` warp operations
//! additionally wait for the lanes their mask names.

pub(crate) mod alu;
pub(crate) mod block;
pub(crate) mod clock;
mod collective;
pub(crate) mod float;
pub(crate) mod halves;
mod memops;
mod warp;

use crate::ir::*;
use crate::memory::{LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::report::Diagnostic;
use block::BlockCx;
pub(crate) use warp::{lanes, Warp};

pub(crate) const FULL: u32 = u32::MAX;

#[inline(always)]
fn row(regs: &[u64], s: Slot) -> [u64; 32] {
    let i = s as usize * 32;
    regs[i..i + 32].try_into().expect("a row is 32 lanes")
}

#[inline(always)]
fn put(regs: &mut [u64], s: Slot, mask: u32, v: &[u64; 32]) {
    let i = s as usize * 32;
    let d: &mut [u64; 32] = (&mut regs[i..i + 32])
        .try_into()
        .expect("a row is 32 lanes");
    if mask == FULL {
        *d = *v;
    } else {
        for l in 0..32 {
            if mask >> l & 1 != 0 {
                d[l] = v[l];
            }
        }
    }
}

/// Writes `f(lane)` into row `d` for the lanes in `mask`. `f` runs for every lane and must not
/// panic for any input, since inactive lanes hold arbitrary values; computing all 32 lanes and
/// selecting keeps the loop branch-free.
#[inline(always)]
fn write_lanes(regs: &mut [u64], mask: u32, d: Slot, f: impl Fn(usize) -> u64) {
    let mut out = [0u64; 32];
    for (l, v) in out.iter_mut().enumerate() {
        *v = f(l);
    }
    blend(regs, mask, d, &out);
}

#[inline(always)]
fn blend(regs: &mut [u64], mask: u32, d: Slot, out: &[u64; 32]) {
    let i = d as usize * 32;
    let d: &mut [u64; 32] = (&mut regs[i..i + 32])
        .try_into()
        .expect("a row is 32 lanes");
    if mask == FULL {
        *d = *out;
    } else {
        for (l, v) in d.iter_mut().enumerate() {
            *v = if mask >> l & 1 != 0 { out[l] } else { *v };
        }
    }
}

#[inline(always)]
fn lanes_of(regs: &[u64], s: Slot) -> &[u64; 32] {
    let i = s as usize * 32;
    (&regs[i..i + 32]).try_into().expect("a row is 32 lanes")
}

/// Computes the result rows from the source rows in place (no copies of the sources), then
/// writes the active lanes.
#[inline(always)]
fn map1(regs: &mut [u64], mask: u32, d: Slot, a: Slot, f: impl Fn(u64) -> u64) {
    let mut out = [0u64; 32];
    let a = lanes_of(regs, a);
    for l in 0..32 {
        out[l] = f(a[l]);
    }
    blend(regs, mask, d, &out);
}

#[inline(always)]
fn map2(regs: &mut [u64], mask: u32, d: Slot, a: Slot, b: Slot, f: impl Fn(u64, u64) -> u64) {
    let mut out = [0u64; 32];
    let (a, b) = (lanes_of(regs, a), lanes_of(regs, b));
    for l in 0..32 {
        out[l] = f(a[l], b[l]);
    }
    blend(regs, mask, d, &out);
}

#[inline(always)]
fn map3(
    regs: &mut [u64],
    mask: u32,
    d: Slot,
    a: Slot,
    b: Slot,
    c: Slot,
    f: impl Fn(u64, u64, u64) -> u64,
) {
    let mut out = [0u64; 32];
    let (a, b, c) = (lanes_of(regs, a), lanes_of(regs, b), lanes_of(regs, c));
    for l in 0..32 {
        out[l] = f(a[l], b[l], c[l]);
    }
    blend(regs, mask, d, &out);
}

/// Runs `w` until all its lanes have exited or wait (at a barrier or a warp-synchronous op).
pub(crate) fn run_warp(w: &mut Warp, cx: &mut BlockCx) -> Result<(), Box<Diagnostic>> {
    let code = &cx.l.prog.code[..];
    if w.active == 0 && !w.select() {
        return Ok(());
    }
    loop {
        let inst = &code[w.pc as usize];
        w.icount += 1;
        cx.out.traffic.executed[w.pc as usize] += 1;
        if *cx.budget == 0 {
            cx.refill_budget(w, inst)?;
        }
        *cx.budget -= 1;
        let exec = if inst.guard == NONE {
            w.active
        } else {
            let p = w.preds[(inst.guard >> 1) as usize];
            w.active & if inst.guard & 1 != 0 { !p } else { p }
        };
        let mut next = w.pc + 1;
        if exec != 0 {
            let r = &mut w.regs[..];
            match &inst.op {
                Op::Nop => {}
                &Op::Nanosleep { t } => {
                    let t = row(r, t);
                    let longest = lanes(exec).map(|l| t[l] as u32 as u64).max();
                    w.clock.sleep(longest.unwrap_or(0));
                }
                &Op::Mov { d, a } => map1(r, exec, d, a, |x| x),
                &Op::Pack { d, parts, n, bits } => {
                    let m = alu::mask(bits as u32);
                    let mut out = [0u64; 32];
                    for (k, &p) in parts.iter().enumerate().take(n as usize) {
                        let v = row(r, p);
                        for l in 0..32 {
                            out[l] |= (v[l] & m) << (k as u32 * bits as u32);
                        }
                    }
                    put(r, d, exec, &out);
                }
                &Op::Unpack { ds, n, bits, a } => {
                    let v = row(r, a);
                    let m = alu::mask(bits as u32);
                    for (k, &d) in ds.iter().enumerate().take(n as usize) {
                        if d != NONE {
                            write_lanes(r, exec, d, |l| (v[l] >> (k as u32 * bits as u32)) & m);
                        }
                    }
                }
                &Op::Special { d, reg } => {
                    let now = match reg {
                        Special::Clock | Special::Clock64 | Special::GlobalTimer => {
                            w.clock.read(w.pc, w.icount)
                        }
                        _ => 0,
                    };
                    if now > cx.l.max_clock {
                        return Err(cx.clock_timeout(w, inst, now));
                    }
                    let v = cx.special(w.index, now, reg);
                    write_lanes(r, exec, d, |l| v[l]);
                }
                &Op::Int2 { op, ty, d, a, b } => {
                    let m = alu::mask(ty.bits());
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
                &Op::Int1 { op, ty, d, a } => map1(r, exec, d, a, |x| alu::int1(op, ty, x)),
                &Op::Int3 { op, ty, d, a, b, c } => match (op, ty) {
                    (IntOp3::MadLo, Ty::S32 | Ty::U32) => map3(r, exec, d, a, b, c, |x, y, z| {
                        x.wrapping_mul(y).wrapping_add(z) & 0xffff_ffff
                    }),
                    _ => map3(r, exec, d, a, b, c, |x, y, z| alu::int3(op, ty, x, y, z)),
                },
                &Op::Carry {
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
                    let m = alu::mask(bits) as u128;
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
                &Op::Bfi {
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
                &Op::Prmt { d, a, b, c, mode } => {
                    map3(r, exec, d, a, b, c, |x, y, z| alu::prmt(x, y, z, mode))
                }
                &Op::Shf {
                    d,
                    a,
                    b,
                    c,
                    left,
                    clamp,
                } => map3(r, exec, d, a, b, c, |x, y, z| {
                    alu::shf(x, y, z, left, clamp)
                }),
                &Op::Lop3 { d, a, b, c, lut } => {
                    map3(r, exec, d, a, b, c, |x, y, z| alu::lop3(x, y, z, lut))
                }
                &Op::Float2 { op, ty, m, d, a, b } => float2(r, exec, op, ty, m, d, a, b),
                &Op::Float1 { op, ty, m, d, a } => {
                    if matches!(ty, Ty::F16 | Ty::F16x2) {
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
                &Op::Fma { ty, m, d, a, b, c } => {
                    if matches!(ty, Ty::F16 | Ty::F16x2) {
                        map3(r, exec, d, a, b, c, |x, y, z| halves::fma(m, ty, x, y, z))
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
                &Op::Setp {
                    cmp,
                    ty,
                    ftz,
                    p,
                    q,
                    a,
                    b,
                    comb,
                } => {
                    let (av, bv) = (row(r, a), row(r, b));
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
                        Ty::F64 => {
                            compare_lanes(cmp, |l| (f64::from_bits(av[l]), f64::from_bits(bv[l])))
                        }
                        Ty::F16 => {
                            let f = |v: u64| {
                                let x = halves::to_f64(v);
                                if ftz && x.abs() < HALF_MIN_NORMAL {
                                    0.0
                                } else {
                                    x
                                }
                            };
                            compare_lanes(cmp, |l| (f(av[l]), f(bv[l])))
                        }
                        _ => {
                            // Order-preserving keys turn every integer comparison into an unsigned one.
                            let key = |v: u64| {
                                if ty.is_signed() {
                                    (alu::sx(v, ty.bits()) as u64) ^ (1 << 63)
                                } else {
                                    v & alu::mask(ty.bits())
                                }
                            };
                            compare_lanes(cmp, |l| (key(av[l]), key(bv[l])))
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
                &Op::Testp { op, ty, p, a } => {
                    let av = row(r, a);
                    let mut t = 0u32;
                    for (l, &v) in av.iter().enumerate() {
                        t |= (float::testp(op, float::as_f64(ty, v)) as u32) << l;
                    }
                    w.preds[p as usize] = (w.preds[p as usize] & !exec) | (t & exec);
                }
                &Op::Selp { d, a, b, p, neg } => {
                    let pm = w.preds[p as usize] ^ if neg { FULL } else { 0 };
                    let (av, bv) = (row(r, a), row(r, b));
                    write_lanes(r, exec, d, |l| if pm >> l & 1 != 0 { av[l] } else { bv[l] });
                }
                &Op::PredLogic {
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
                &Op::PredSet { d, value } => {
                    let v = if value { FULL } else { 0 };
                    w.preds[d as usize] = (w.preds[d as usize] & !exec) | (v & exec);
                }
                &Op::Cvt {
                    dt,
                    st,
                    rnd,
                    to_int,
                    ftz,
                    sat,
                    d,
                    a,
                } => {
                    if !dt.is_float() && !st.is_float() && !sat {
                        let (sbits, dbits) = (st.bits(), dt.bits());
                        let dm = alu::mask(dbits);
                        if st.is_signed() {
                            map1(r, exec, d, a, |x| (alu::sx(x, sbits) as u64) & dm)
                        } else {
                            let sm = alu::mask(sbits);
                            map1(r, exec, d, a, |x| x & sm & dm)
                        }
                    } else {
                        map1(r, exec, d, a, |x| {
                            alu::cvt(dt, st, rnd, to_int, ftz, sat, x)
                        })
                    }
                }
                &Op::Cvta { space, to, d, a } => {
                    let base = match space {
                        MemSpace::Shared => SHARED_WINDOW,
                        MemSpace::Local => LOCAL_WINDOW,
                        _ => 0,
                    };
                    if to {
                        map1(r, exec, d, a, |x| {
                            if base == 0 {
                                x
                            } else {
                                x.wrapping_sub(base) & (WINDOW_SIZE - 1)
                            }
                        })
                    } else {
                        map1(r, exec, d, a, |x| x.wrapping_add(base))
                    }
                }
                &Op::Isspacep { space, p, a } => {
                    let av = row(r, a);
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
                Op::Ld { .. } | Op::St { .. } | Op::Atom { .. } => {
                    memops::access(w, cx, inst, exec)?
                }
                &Op::Bra { target } => {
                    if exec == w.active {
                        next = target;
                    } else {
                        let stay = w.active & !exec;
                        w.park(exec, target);
                        w.park(stay, next);
                        w.active = 0;
                    }
                }
                Op::Brx { idx, targets } => {
                    let iv = row(r, *idx);
                    let stay = w.active & !exec;
                    for l in lanes(exec) {
                        let t = targets.get(iv[l] as u32 as usize).copied().unwrap_or(next);
                        w.park(1 << l, t);
                    }
                    w.park(stay, next);
                    w.active = 0;
                }
                Op::Exit => {
                    w.exited |= exec;
                    w.active &= !exec;
                    cx.exited_in_epoch += exec.count_ones();
                }
                Op::Trap => {
                    return Err(cx.trap(
                        w,
                        exec,
                        inst,
                        "the kernel executed `trap` (or `__trap()`/`brkpt`)".into(),
                    ))
                }
                &Op::AssertFail {
                    msg,
                    file,
                    line,
                    func,
                } => {
                    let lane = exec.trailing_zeros() as usize;
                    let text = collective::assert_message(w, cx, lane, msg, file, line, func);
                    let kind = crate::report::DiagnosticKind::Assert;
                    return Err(Box::new(cx.diagnostic(kind, w, lane, inst.site, text)));
                }
                &Op::Printf { fmt, args, d } => {
                    collective::printf(w, cx, inst, exec, (fmt, args, d))?
                }
                &Op::Activemask { d } => {
                    let active = w.active as u64;
                    write_lanes(r, exec, d, |_| active);
                }
                Op::Bar { .. } => {
                    collective::barrier(w, cx, inst, exec);
                    w.active &= !exec;
                }
                Op::WarpSync { .. }
                | Op::Shfl { .. }
                | Op::Vote { .. }
                | Op::Match { .. }
                | Op::Redux { .. }
                | Op::Elect { .. } => {
                    if !collective::warp_sync_op(w, cx, inst, exec)? {
                        // Wait here for the rest of the mask; the lanes re-run this instruction.
                        for l in lanes(exec) {
                            w.lane_pc[l] = w.pc;
                        }
                        w.sync_wait |= exec;
                        w.active &= !exec;
                        next = w.pc;
                    }
                }
            }
        }
        if w.active != 0 {
            w.pc = next;
            if next >= w.min_ready_pc {
                w.converge();
            }
        } else if !w.select() {
            return Ok(());
        }
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

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn float2(r: &mut [u64], exec: u32, op: FOp, ty: Ty, m: FMode, d: Slot, a: Slot, b: Slot) {
    let plain = m
        == FMode {
            rnd: Rnd::Rn,
            ftz: false,
            sat: false,
        };
    let f = |v: u64| f32::from_bits(v as u32);
    let g = f64::from_bits;
    match (ty, op, plain) {
        (Ty::F16 | Ty::F16x2, _, _) => {
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
