//! Which plain loads are the first read of a compare-and-swap loop.
//!
//! The CUDA Programming Guide builds atomics the hardware lacks (atomicAdd on doubles before
//! sm_60, a float atomicMax) from `atomicCAS`: read the word plainly, compute the new value from
//! what was read, and CAS it in with the read value as the expected one; when another thread
//! changed the word in between, the CAS fails and the loop retries with the value the CAS saw.
//! Numba's `cuda.atomic.max` and `min` on floats compile to the same loop (a volatile load, then
//! `cmpxchg`). The plain read races with other threads' atomics on that word, and the race is
//! harmless by construction: a stale value never gets stored, because the CAS compares it with
//! the word. Race detection therefore treats such a read like an atomic against other atomics,
//! and like any read against plain stores (a plain store next to the loop still races).
//!
//! A load is such a read when the value it loads reaches, through bit copies only (`mov`, which
//! is also how `__double_as_longlong` and `__float_as_int` lower), the compare operand of an
//! `atom.cas` on the same address (the same register, up to copies and `cvta`, and the same
//! offset). The flow is followed without regard to order, which is exact for NVRTC's registers
//! (each defined once, but for the moves that carry a loop's value around).

use crate::ir::{AtomOp, Op, Program, Slot, NONE};

/// For each instruction, whether it is a one-register load whose value is the expected value of
/// a compare-and-swap on the same address.
pub(crate) fn cas_reads(prog: &Program) -> Vec<bool> {
    let n = prog.n_slots as usize;
    let mut copies: Vec<Vec<Slot>> = vec![Vec::new(); n];
    let mut defs = vec![0u32; n];
    // The single definition of a register that is a copy of another (a `mov` or `cvta`).
    let mut copy_of = vec![NONE; n];
    for inst in &prog.code {
        for d in inst.op.written_slots() {
            if let Some(c) = defs.get_mut(d as usize) {
                *c += 1;
            }
        }
        if let Op::Mov { d, a } | Op::Cvta { d, a, .. } = inst.op {
            if (d as usize) < n && (a as usize) < n {
                copy_of[d as usize] = a;
                if matches!(inst.op, Op::Mov { .. }) {
                    copies[a as usize].push(d);
                }
            }
        }
    }
    let root = |mut s: Slot| {
        for _ in 0..n {
            match copy_of.get(s as usize) {
                Some(&a) if a != NONE && defs[s as usize] == 1 => s = a,
                _ => break,
            }
        }
        s
    };
    // The expected-value registers of each CAS, with its address.
    let cases: Vec<(Slot, Slot, i64)> = prog
        .code
        .iter()
        .filter_map(|inst| match inst.op {
            Op::Atom {
                op: AtomOp::Cas,
                addr,
                off,
                b,
                ..
            } => Some((b, root(addr), off)),
            _ => None,
        })
        .collect();
    if cases.is_empty() {
        return vec![false; prog.code.len()];
    }
    prog.code
        .iter()
        .map(|inst| match inst.op {
            Op::Ld {
                vec: 1,
                d,
                addr,
                off,
                ..
            } if d[0] != NONE => {
                let reached = reached_by_copies(&copies, d[0]);
                let addr = root(addr);
                cases
                    .iter()
                    .any(|&(b, a, o)| a == addr && o == off && reached.contains(&b))
            }
            _ => false,
        })
        .collect()
}

/// `from` and every register a chain of copies carries its value to.
fn reached_by_copies(copies: &[Vec<Slot>], from: Slot) -> Vec<Slot> {
    let mut seen = vec![from];
    let mut todo = vec![from];
    while let Some(s) = todo.pop() {
        for &d in copies.get(s as usize).map_or(&[][..], |v| &v[..]) {
            if !seen.contains(&d) {
                seen.push(d);
                todo.push(d);
            }
        }
    }
    seen
}
