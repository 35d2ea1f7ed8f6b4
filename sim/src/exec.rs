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
mod floats;
pub(crate) mod grid;
pub(crate) mod halves;
pub(crate) mod heap;
mod integer;
mod memops;
mod moves;
mod predicates;
mod steps;
mod warp;

use crate::ir::*;
use crate::report::Diagnostic;
use block::BlockCx;
pub(crate) use warp::{lanes, Warp};

pub(crate) const FULL: u32 = u32::MAX;
/// Round to nearest even, no flush to zero, no saturation: the mode of plain C arithmetic.
const PLAIN: FMode = FMode {
    rnd: Rnd::Rn,
    ftz: false,
    sat: false,
};

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
        let next = if exec != 0 {
            execute(w, cx, inst, exec)?
        } else {
            if cx.l.watch.is_some() {
                steps::branch(w, cx, inst, 0);
            }
            w.pc + 1
        };
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

/// Executes `inst` for the lanes in `exec` (not empty); returns the PC the running lanes go on
/// at. The lane-wise families run in modules of their own; what schedules lanes is `control`.
#[inline(always)]
fn execute(w: &mut Warp, cx: &mut BlockCx, inst: &Inst, exec: u32) -> Result<u32, Box<Diagnostic>> {
    match &inst.op {
        Op::Int2 { .. }
        | Op::Int1 { .. }
        | Op::Int3 { .. }
        | Op::Carry { .. }
        | Op::Bfi { .. }
        | Op::Prmt { .. }
        | Op::Shf { .. }
        | Op::Lop3 { .. } => integer::execute(w, &inst.op, exec),
        Op::Float2 { .. } | Op::Float1 { .. } | Op::Fma { .. } => {
            floats::execute(&mut w.regs, &inst.op, exec)
        }
        Op::Setp { .. }
        | Op::Testp { .. }
        | Op::Selp { .. }
        | Op::PredLogic { .. }
        | Op::PredSet { .. }
        | Op::Isspacep { .. } => predicates::execute(w, &inst.op, exec),
        Op::Mov { .. } | Op::Pack { .. } | Op::Unpack { .. } | Op::Cvt { .. } | Op::Cvta { .. } => {
            moves::execute(&mut w.regs, &inst.op, exec)
        }
        Op::Ld { .. } | Op::St { .. } | Op::Atom { .. } => memops::access(w, cx, inst, exec)?,
        _ => return control(w, cx, inst, exec),
    }
    Ok(w.pc + 1)
}

/// Instructions that read the warp's or the block's state, move lanes between PCs, wait, or stop
/// the kernel.
fn control(w: &mut Warp, cx: &mut BlockCx, inst: &Inst, exec: u32) -> Result<u32, Box<Diagnostic>> {
    let mut next = w.pc + 1;
    let r = &mut w.regs[..];
    match &inst.op {
        Op::Nop => {}
        &Op::Nanosleep { t } => {
            let t = row(r, t);
            let longest = lanes(exec).map(|l| t[l] as u32 as u64).max();
            w.clock.sleep(longest.unwrap_or(0));
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
        &Op::Activemask { d } => {
            let active = w.active as u64;
            write_lanes(r, exec, d, |_| active);
        }
        &Op::Bra { target } => {
            if cx.l.watch.is_some() {
                steps::branch(w, cx, inst, exec);
            }
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
        &Op::Printf { fmt, args, d } => collective::printf(w, cx, inst, exec, (fmt, args, d))?,
        &Op::Malloc { size, d } => heap::malloc(w, cx, exec, (size, d)),
        &Op::Free { ptr } => heap::free(w, cx, inst, exec, ptr)?,
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
        _ => unreachable!("execute() runs the other families"),
    }
    Ok(next)
}
