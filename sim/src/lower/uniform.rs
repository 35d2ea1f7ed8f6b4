//! Which global atomics ptxas turns into one operation for the whole warp.
//!
//! Where every lane of a warp adds to the same word (`atomicAdd(&count[0], 1)`), ptxas counts the
//! lanes (`POPC`) or sums their values (`REDUX.SUM`) and lets one lane do one atomic: Nsight
//! Compute then counts one sector, where an atomic it does not combine costs a sector for every
//! lane that hits one word. Measured on an H100 (`scripts/gpu/results/atomics/`): integer add,
//! min, max, and, or and xor combine when the address is the same for the whole warp as far as
//! ptxas can tell (from kernel parameters, block indices, constants, and loads from such
//! addresses); exchange, compare-and-swap, increment, decrement and float add never do.
//!
//! "As far as ptxas can tell" is what this module works out from the PTX: a value is uniform
//! when every definition of it is computed from uniform values, and, for a register defined in
//! more than one place, none of them sits in code that only some lanes of a warp run (after a
//! branch on a value that differs between lanes), where lanes would end with different ones.

use crate::ir::{AtomOp, MemSpace, Op, Pred, Program, Slot, Special, NONE};

/// For each instruction, whether it is a global atomic that ptxas combines across the warp.
pub(crate) fn combined_atomics(prog: &Program) -> Vec<bool> {
    let uniform = Uniformity::of(prog);
    prog.code
        .iter()
        .map(|inst| match inst.op {
            Op::Atom {
                space: MemSpace::Global | MemSpace::Generic,
                op,
                ty,
                addr,
                ..
            } => {
                let combinable = matches!(
                    op,
                    AtomOp::Add
                        | AtomOp::Min
                        | AtomOp::Max
                        | AtomOp::And
                        | AtomOp::Or
                        | AtomOp::Xor
                );
                combinable && !ty.is_float() && ty.bytes() == 4 && uniform.slot(addr)
            }
            _ => false,
        })
        .collect()
}

/// Which registers and predicates hold the same value in every lane of a warp.
struct Uniformity {
    slots: Vec<bool>,
    preds: Vec<bool>,
}

impl Uniformity {
    fn slot(&self, s: Slot) -> bool {
        s == NONE || self.slots.get(s as usize).copied().unwrap_or(false)
    }

    fn pred(&self, p: Pred) -> bool {
        p == NONE || self.preds.get(p as usize).copied().unwrap_or(false)
    }

    /// A fixed point from "everything uniform" down: each round marks what a definition makes
    /// varying, until nothing changes.
    fn of(prog: &Program) -> Uniformity {
        let mut u = Uniformity {
            slots: vec![true; prog.n_slots as usize],
            preds: vec![true; prog.n_preds as usize],
        };
        let (slot_defs, pred_defs) = u.definitions(prog);
        loop {
            let divergent = divergent_code(prog, &u);
            let mut changed = false;
            for (pc, inst) in prog.code.iter().enumerate() {
                let guarded = inst.guard != NONE && !u.pred(inst.guard >> 1);
                let varying = |defs: usize| guarded || (divergent[pc] && defs > 1);
                for (d, uniform) in u.results(&inst.op) {
                    let defs = slot_defs.get(d as usize).copied().unwrap_or(0);
                    let slot = u.slots.get_mut(d as usize);
                    if let Some(slot) = slot.filter(|s| **s && (!uniform || varying(defs))) {
                        *slot = false;
                        changed = true;
                    }
                }
                for (p, uniform) in u.pred_results(&inst.op) {
                    let defs = pred_defs.get(p as usize).copied().unwrap_or(0);
                    let pred = u.preds.get_mut(p as usize);
                    if let Some(pred) = pred.filter(|q| **q && (!uniform || varying(defs))) {
                        *pred = false;
                        changed = true;
                    }
                }
            }
            if !changed {
                return u;
            }
        }
    }

    /// How many instructions write each register and each predicate.
    fn definitions(&self, prog: &Program) -> (Vec<usize>, Vec<usize>) {
        let mut slots = vec![0; self.slots.len()];
        let mut preds = vec![0; self.preds.len()];
        for inst in &prog.code {
            for (d, _) in self.results(&inst.op) {
                if let Some(n) = slots.get_mut(d as usize) {
                    *n += 1;
                }
            }
            for (p, _) in self.pred_results(&inst.op) {
                if let Some(n) = preds.get_mut(p as usize) {
                    *n += 1;
                }
            }
        }
        (slots, preds)
    }

    /// The registers an instruction writes, each with whether its value is uniform given the
    /// operands'.
    fn results(&self, op: &Op) -> Vec<(Slot, bool)> {
        let all = |slots: &[Slot]| slots.iter().all(|&s| self.slot(s));
        let one = |d: Slot, uniform: bool| vec![(d, uniform)];
        match *op {
            Op::Mov { d, a } => one(d, all(&[a])),
            Op::Pack { d, parts, .. } => one(d, all(&parts)),
            Op::Unpack { ds, a, .. } => ds.iter().map(|&d| (d, all(&[a]))).collect(),
            Op::Special { d, reg } => one(d, !varies_by_lane(reg)),
            Op::Int2 { d, a, b, .. } | Op::Float2 { d, a, b, .. } => one(d, all(&[a, b])),
            Op::Int1 { d, a, .. } | Op::Float1 { d, a, .. } => one(d, all(&[a])),
            Op::Cvt { d, a, .. } | Op::Cvta { d, a, .. } => one(d, all(&[a])),
            Op::Int3 { d, a, b, c, .. }
            | Op::Fma { d, a, b, c, .. }
            | Op::Prmt { d, a, b, c, .. }
            | Op::Shf { d, a, b, c, .. }
            | Op::Lop3 { d, a, b, c, .. } => one(d, all(&[a, b, c])),
            // The carry flag is per lane and not followed here.
            Op::Carry { d, .. } => one(d, false),
            Op::Bfi {
                d, a, b, pos, len, ..
            } => one(d, all(&[a, b, pos, len])),
            Op::Selp { d, a, b, p, .. } => one(d, all(&[a, b]) && self.pred(p)),
            // A load from one address gives every lane the same value, except from a thread's
            // own memory.
            Op::Ld { space, d, addr, .. } => {
                let uniform = all(&[addr]) && !matches!(space, MemSpace::Local | MemSpace::Scratch);
                d.iter().map(|&d| (d, uniform)).collect()
            }
            Op::Redux { d, .. } | Op::Activemask { d } => one(d, true),
            // Atomics, barriers' counts, shuffles, votes, matches, elect, printf, and any writer
            // not named above: varying.
            ref other => other
                .written_slots()
                .into_iter()
                .map(|d| (d, false))
                .collect(),
        }
    }

    /// The predicates an instruction writes, each with whether it is uniform.
    fn pred_results(&self, op: &Op) -> Vec<(Pred, bool)> {
        match *op {
            Op::Setp {
                p, q, a, b, comb, ..
            } => {
                let uniform =
                    self.slot(a) && self.slot(b) && comb.is_none_or(|(_, c, _)| self.pred(c));
                vec![(p, uniform), (q, uniform)]
            }
            Op::Testp { p, a, .. } => vec![(p, self.slot(a))],
            Op::PredLogic { d, a, b, .. } => vec![(d, self.pred(a) && self.pred(b))],
            Op::PredSet { d, .. } => vec![(d, true)],
            Op::Bar { dp, .. } | Op::Vote { dp, .. } => vec![(dp, false)],
            Op::Shfl { p, .. } | Op::Match { p, .. } | Op::Elect { p, .. } => vec![(p, false)],
            _ => Vec::new(),
        }
        .into_iter()
        .filter(|(p, _)| *p != NONE)
        .collect()
    }
}

fn varies_by_lane(reg: Special) -> bool {
    matches!(
        reg,
        Special::Tid(_)
            | Special::LaneId
            | Special::LanemaskEq
            | Special::LanemaskLt
            | Special::LanemaskLe
            | Special::LanemaskGt
            | Special::LanemaskGe
    )
}

/// Instructions that only some lanes of a warp may run: the body of an `if` on a varying
/// condition (from the branch to its target) and its `else` (from the target to where the
/// unconditional branch just before the target goes), as NVRTC lays them out.
fn divergent_code(prog: &Program, u: &Uniformity) -> Vec<bool> {
    let mut divergent = vec![false; prog.code.len()];
    for (pc, inst) in prog.code.iter().enumerate() {
        let Op::Bra { target } = inst.op else {
            continue;
        };
        let target = target as usize;
        if inst.guard == NONE || u.pred(inst.guard >> 1) || target <= pc {
            continue;
        }
        divergent[pc + 1..target].fill(true);
        let join = match prog
            .code
            .get(target.wrapping_sub(1))
            .map(|i| (&i.op, i.guard))
        {
            Some((Op::Bra { target: end }, NONE)) if *end as usize > target => *end as usize,
            _ => target,
        };
        divergent[target..join.min(prog.code.len())].fill(true);
    }
    divergent
}
