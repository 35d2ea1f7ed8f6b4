//! Which instruction computed the value a register holds at a given instruction, found in the code
//! alone: only where it is certain, on the straight run of code that ends there (no branch lands
//! in between, so every path to the use passed the definition), with an unpredicated definition.

use crate::ir::{IntOp, Op, Program, Slot, Ty, NONE};

/// Where branches land in one kernel's code.
pub(crate) struct Definitions {
    landing: Vec<bool>,
}

impl Definitions {
    pub(crate) fn new(prog: &Program) -> Definitions {
        let mut landing = vec![false; prog.code.len() + 1];
        for inst in &prog.code {
            match &inst.op {
                Op::Bra { target } => landing[*target as usize] = true,
                Op::Brx { targets, .. } => {
                    for &t in targets.iter() {
                        landing[t as usize] = true;
                    }
                }
                _ => {}
            }
        }
        Definitions { landing }
    }

    /// The instruction that wrote `slot` last before `at` on every path to `at`, through copies
    /// (`mov`) to the instruction that computed the value; `None` where that is not certain.
    pub(crate) fn reaching(&self, prog: &Program, slot: Slot, at: u32) -> Option<u32> {
        let def = self.writer(prog, slot, at)?;
        match prog.code[def as usize].op {
            Op::Mov { a, .. } => self.reaching(prog, a, def).or(Some(def)),
            _ => Some(def),
        }
    }

    fn writer(&self, prog: &Program, slot: Slot, at: u32) -> Option<u32> {
        if slot == NONE || self.landing[at as usize] {
            return None;
        }
        for pc in (0..at).rev() {
            let inst = &prog.code[pc as usize];
            if inst.op.written_slots().contains(&slot) {
                return (inst.guard == NONE).then_some(pc);
            }
            if self.landing[pc as usize] {
                return None;
            }
        }
        None
    }

    /// The unpredicated `setp` that wrote predicate `pred` last before `at`, on the straight code
    /// that ends at `at`; `None` where that is not certain.
    pub(crate) fn predicate_writer(&self, prog: &Program, pred: u32, at: u32) -> Option<u32> {
        if self.landing[at as usize] {
            return None;
        }
        for pc in (0..at).rev() {
            let inst = &prog.code[pc as usize];
            if let Op::Setp { p, q, .. } = inst.op {
                if p == pred || q == pred {
                    return (inst.guard == NONE && q != pred).then_some(pc);
                }
            }
            if self.landing[pc as usize] {
                return None;
            }
        }
        None
    }

    /// Whether `slot` holds at `to` what it held just after `from`: straight code between, and
    /// no instruction after `from` and before `to` writes it.
    pub(crate) fn unchanged(&self, prog: &Program, slot: Slot, from: u32, to: u32) -> bool {
        ((from + 1)..to).all(|pc| {
            !self.landing[pc as usize] && !prog.code[pc as usize].op.written_slots().contains(&slot)
        }) && !self.landing[to as usize]
    }
}

/// The source registers of an instruction that computes a value, with their type where the
/// instruction names one. Loads have none (their address is followed apart), nor instructions
/// whose inputs come from elsewhere (shuffles, votes, special registers).
pub(crate) fn operands(op: &Op) -> (Vec<Slot>, Option<Ty>) {
    match *op {
        Op::Mov { a, .. } | Op::Cvta { a, .. } => (vec![a], None),
        Op::Int1 { ty, a, .. } | Op::Float1 { ty, a, .. } => (vec![a], Some(ty)),
        Op::Int2 { ty, a, b, .. } | Op::Float2 { ty, a, b, .. } => (vec![a, b], Some(ty)),
        Op::Int3 { ty, a, b, c, .. } | Op::Fma { ty, a, b, c, .. } => (vec![a, b, c], Some(ty)),
        Op::Carry { ty, a, b, c, .. } => {
            let mut slots = vec![a, b];
            slots.extend((c != NONE).then_some(c));
            (slots, Some(ty))
        }
        Op::Bfi {
            ty, a, b, pos, len, ..
        } => (vec![a, b, pos, len], Some(ty)),
        Op::Prmt { a, b, c, .. } | Op::Shf { a, b, c, .. } | Op::Lop3 { a, b, c, .. } => {
            (vec![a, b, c], Some(Ty::U32))
        }
        Op::Selp { a, b, .. } => (vec![a, b], None),
        Op::Cvt { st, a, .. } => (vec![a], Some(st)),
        Op::Pack { parts, n, .. } => (parts[..n as usize].to_vec(), None),
        _ => (Vec::new(), None),
    }
}

/// The signed integer type of the value an instruction computes, where the PTX says it is signed
/// (`sub.s32`, `cvt.rzi.s32.f32`): C's `int` is stored with `st.u32`, so the store alone would
/// show -3 as 4294967293. `None` for anything else (a `mul.wide`'s result is twice its type).
pub(crate) fn signed_result(op: &Op) -> Option<Ty> {
    let ty = match *op {
        Op::Int2 {
            op: IntOp::MulWide, ..
        } => return None,
        Op::Int1 { ty, .. } | Op::Int2 { ty, .. } | Op::Int3 { ty, .. } | Op::Carry { ty, .. } => {
            ty
        }
        Op::Cvt { dt, .. } => dt,
        _ => return None,
    };
    ty.is_signed().then_some(ty)
}
