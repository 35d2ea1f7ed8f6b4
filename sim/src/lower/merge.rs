//! Which shared-memory loads and stores of one thread ptxas merges into one wide access.
//!
//! The simulator runs PTX, where a tiled matrix multiply reads its row operand one 4-byte word at
//! a time (`ld.shared.f32 [%rd3]`, `[%rd3+4]`, `[%rd3+8]`, ...); ptxas, which knows the shared
//! arrays' placement, turns four such loads from a 16-byte aligned window into one `LDS.128`, and
//! Nsight Compute counts one instruction and its wavefronts. Measured on an H100
//! (`scripts/gpu/results/lds/merges.md`): 4-byte loads at offsets in one aligned 16-byte window
//! merge when the address is known to be 16-byte aligned (four loads, and three after a store),
//! in pairs within 8-byte windows when it is known to be 8-byte aligned, not at all when the
//! alignment is unknown; 2-byte loads and global loads do not merge. Stores merge the same way
//! where the whole window is written (a bitonic sort's `s_key[pos]`, `s_key[pos + 1]` become one
//! `STS.64`, `sim/tests/ncu/public`). Two addresses are neighbours when they differ by a constant:
//! `[%rd2]` and `[%rd4]` with `%rd4` computed as `%rd2 + 4` count as `[x]` and `[x + 4]`.
//!
//! The accesses still run one by one (their values are the same); only what is counted changes:
//! the first access of a merged group counts one access as wide as the window, the others nothing.

use crate::ir::{IntOp, IntOp3, MemSpace, MergeRole, Op, Program, Slot, NONE};
use std::collections::{BTreeMap, HashSet};

/// Known alignment of a register's value, as the log2 of bytes, up to 16 bytes.
type Alignment = u8;
const MOST: Alignment = 4;

/// Each instruction's [`MergeRole`] (`Alone` for all but merged shared accesses).
pub(crate) fn shared_merges(prog: &Program) -> Vec<MergeRole> {
    let alignment = known_alignment(prog);
    let forms = affine_forms(prog);
    let mut roles = vec![MergeRole::Alone; prog.code.len()];
    for group in candidate_groups(prog, &forms) {
        let align = group.base.alignment(&alignment);
        merge_group(&group.accesses, align, group.stores, &mut roles);
    }
    roles
}

/// Accesses of one block of straight-line code, all loads or all stores, at constant offsets
/// from one `base` under one guard, in order: `(pc, offset)`.
struct Group {
    base: Affine,
    stores: bool,
    accesses: Vec<(usize, i64)>,
}

/// Marks merged windows of `accesses` in `roles`: 16-byte windows with three or four loads (all
/// four stores) where the base is 16-byte aligned, else 8-byte windows with both words where it
/// is 8-byte aligned.
fn merge_group(accesses: &[(usize, i64)], align: Alignment, stores: bool, roles: &mut [MergeRole]) {
    let mut merged = HashSet::new();
    let quad = if stores { 4 } else { 3 };
    for (bytes, least) in [(16i64, quad), (8, 2)] {
        if align < bytes.trailing_zeros() as Alignment {
            continue;
        }
        let mut windows: BTreeMap<i64, Vec<(usize, i64)>> = BTreeMap::new();
        for &(pc, off) in accesses.iter().filter(|(pc, _)| !merged.contains(pc)) {
            windows
                .entry(off - off.rem_euclid(bytes))
                .or_default()
                .push((pc, off));
        }
        for (start, members) in windows {
            let distinct: HashSet<i64> = members.iter().map(|&(_, off)| off).collect();
            if distinct.len() < least {
                continue;
            }
            let (lead, lead_off) = members[0];
            roles[lead] = MergeRole::Leads {
                bytes: bytes as u8,
                back: (lead_off - start) as u8,
            };
            for &(pc, _) in &members[1..] {
                roles[pc] = MergeRole::Follows;
            }
            merged.extend(members.iter().map(|&(pc, _)| pc));
        }
    }
}

/// Groups of scalar 4-byte shared accesses that ptxas could merge: loads (or stores) at constant
/// distances from one another under one guard, in one block of straight-line code, with no store
/// between the loads (no load between the stores), no atomic, barrier or call, and no new value of
/// a register their addresses are computed from.
fn candidate_groups(prog: &Program, forms: &[Affine]) -> Vec<Group> {
    type Key = (Affine, u32, bool);
    let starts = block_starts(prog);
    let mut open: BTreeMap<Key, Vec<(usize, i64)>> = BTreeMap::new();
    let mut groups = Vec::new();
    let mut close = |open: &mut BTreeMap<Key, Vec<(usize, i64)>>, ends: &dyn Fn(&Key) -> bool| {
        let ended: Vec<Key> = open.keys().filter(|k| ends(k)).cloned().collect();
        for key in ended {
            let accesses = open.remove(&key).expect("a key just listed");
            if accesses.len() > 1 {
                let (base, _, stores) = key;
                groups.push(Group {
                    base,
                    stores,
                    accesses,
                });
            }
        }
    };
    for (pc, inst) in prog.code.iter().enumerate() {
        if starts.contains(&pc) {
            close(&mut open, &|_| true);
        }
        let access = match &inst.op {
            Op::Ld {
                space: MemSpace::Shared,
                ty,
                vec: 1,
                addr,
                off,
                ..
            } if ty.bytes() == 4 => Some((*addr, *off, false)),
            Op::St {
                space: MemSpace::Shared,
                ty,
                vec: 1,
                addr,
                off,
                ..
            } if ty.bytes() == 4 => Some((*addr, *off, true)),
            _ => None,
        };
        match (access, &inst.op) {
            (Some((addr, off, stores)), _) => {
                // A load ends the stores' groups (it may read one of them), a store the loads'.
                close(&mut open, &|k| k.2 != stores);
                let form = &forms[addr as usize];
                let base = Affine {
                    terms: form.terms.clone(),
                    constant: 0,
                };
                open.entry((base, inst.guard, stores))
                    .or_default()
                    .push((pc, form.constant + off));
            }
            (None, Op::Ld { .. } | Op::St { .. } | Op::Atom { .. } | Op::Bar { .. })
            | (None, Op::Printf { .. }) => close(&mut open, &|_| true),
            (None, op) => {
                let defined = op.written_slots();
                close(&mut open, &|k| {
                    k.0.terms.iter().any(|(atom, _)| defined.contains(atom))
                });
            }
        }
    }
    close(&mut open, &|_| true);
    groups
}

/// A register's value as other registers' values times constants plus a constant, as far as
/// moves, additions, multiplications and shifts by constants show it; registers written more than
/// once, or by anything else, stand for themselves.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Affine {
    /// `(register, factor)`, sorted by register, no zero factors.
    terms: Vec<(Slot, i64)>,
    constant: i64,
}

impl Affine {
    fn atom(slot: Slot) -> Affine {
        Affine {
            terms: vec![(slot, 1)],
            constant: 0,
        }
    }

    fn constant(value: i64) -> Affine {
        Affine {
            terms: Vec::new(),
            constant: value,
        }
    }

    fn plus(&self, other: &Affine, sign: i64) -> Affine {
        let mut terms: BTreeMap<Slot, i64> = self.terms.iter().copied().collect();
        for &(slot, factor) in &other.terms {
            *terms.entry(slot).or_default() += sign * factor;
        }
        Affine {
            terms: terms.into_iter().filter(|&(_, f)| f != 0).collect(),
            constant: self
                .constant
                .wrapping_add(sign.wrapping_mul(other.constant)),
        }
    }

    fn times(&self, k: i64) -> Affine {
        Affine {
            terms: self
                .terms
                .iter()
                .map(|&(s, f)| (s, f.wrapping_mul(k)))
                .filter(|&(_, f)| f != 0)
                .collect(),
            constant: self.constant.wrapping_mul(k),
        }
    }

    /// The alignment known for every value of the terms' sum (the constant apart).
    fn alignment(&self, known: &[Alignment]) -> Alignment {
        self.terms
            .iter()
            .map(|&(slot, factor)| {
                let of_factor = factor.trailing_zeros().min(MOST as u32) as Alignment;
                (known[slot as usize] + of_factor).min(MOST)
            })
            .min()
            .unwrap_or(MOST)
    }
}

/// Every register's [`Affine`] form.
fn affine_forms(prog: &Program) -> Vec<Affine> {
    let n = prog.n_slots as usize;
    let mut constant = vec![None; n];
    for (slot, value) in &prog.consts {
        if let crate::ir::ConstVal::Bits(bits) = value {
            constant[*slot as usize] = Some(*bits as i64);
        }
    }
    let mut definition = vec![None; n];
    let mut definitions = vec![0u32; n];
    for (pc, inst) in prog.code.iter().enumerate() {
        for d in inst.op.written_slots() {
            if let Some(count) = definitions.get_mut(d as usize) {
                *count += 1;
                definition[d as usize] = Some(pc);
            }
        }
    }
    let mut forms: Vec<Option<Affine>> = vec![None; n];
    (0..n as Slot)
        .map(|slot| {
            let cx = FormCx {
                prog,
                constant: &constant,
                definition: &definition,
                definitions: &definitions,
            };
            cx.form(slot, &mut forms, 0)
        })
        .collect()
}

struct FormCx<'a> {
    prog: &'a Program,
    constant: &'a [Option<i64>],
    definition: &'a [Option<usize>],
    definitions: &'a [u32],
}

impl FormCx<'_> {
    /// `slot`'s form, memoised in `forms`; chains deeper than a few dozen stand for themselves.
    fn form(&self, slot: Slot, forms: &mut Vec<Option<Affine>>, depth: u32) -> Affine {
        if let Some(k) = self.constant.get(slot as usize).copied().flatten() {
            return Affine::constant(k);
        }
        if let Some(Some(form)) = forms.get(slot as usize) {
            return form.clone();
        }
        let single = self.definitions.get(slot as usize) == Some(&1);
        let form = match self.definition.get(slot as usize).copied().flatten() {
            Some(pc) if single && depth < 32 => {
                self.of_op(slot, &self.prog.code[pc].op, forms, depth)
            }
            _ => Affine::atom(slot),
        };
        if let Some(memo) = forms.get_mut(slot as usize) {
            *memo = Some(form.clone());
        }
        form
    }

    fn of_op(&self, slot: Slot, op: &Op, forms: &mut Vec<Option<Affine>>, depth: u32) -> Affine {
        let mut f = |s: Slot| self.form(s, forms, depth + 1);
        let known = |s: Slot| self.constant.get(s as usize).copied().flatten();
        match *op {
            Op::Mov { a, .. } | Op::Cvta { a, .. } => f(a),
            Op::Cvt { a, dt, st, .. } if !dt.is_float() && !st.is_float() => f(a),
            Op::Int2 { op, a, b, .. } => match op {
                IntOp::Add => f(a).plus(&f(b), 1),
                IntOp::Sub => f(a).plus(&f(b), -1),
                IntOp::MulLo | IntOp::MulWide => match (known(a), known(b)) {
                    (_, Some(k)) => f(a).times(k),
                    (Some(k), _) => f(b).times(k),
                    _ => Affine::atom(slot),
                },
                IntOp::Shl => match known(b) {
                    Some(k) if (0..32).contains(&k) => f(a).times(1 << k),
                    _ => Affine::atom(slot),
                },
                _ => Affine::atom(slot),
            },
            Op::Int3 {
                op: IntOp3::MadLo | IntOp3::MadWide,
                a,
                b,
                c,
                ..
            } => match (known(a), known(b)) {
                (_, Some(k)) => f(a).times(k).plus(&f(c), 1),
                (Some(k), _) => f(b).times(k).plus(&f(c), 1),
                _ => Affine::atom(slot),
            },
            _ => Affine::atom(slot),
        }
    }
}

/// Instructions that start a block: branch targets and those after a branch or an exit.
fn block_starts(prog: &Program) -> HashSet<usize> {
    let mut starts = HashSet::new();
    for (pc, inst) in prog.code.iter().enumerate() {
        match &inst.op {
            Op::Bra { target } => {
                starts.insert(*target as usize);
                starts.insert(pc + 1);
            }
            Op::Brx { targets, .. } => {
                starts.extend(targets.iter().map(|&t| t as usize));
                starts.insert(pc + 1);
            }
            Op::Exit | Op::Trap => {
                starts.insert(pc + 1);
            }
            _ => {}
        }
    }
    starts
}

/// For every register, the alignment its value is known to have wherever it is defined: a
/// flow-insensitive fixed point from the constants (shared variables' offsets among them)
/// through moves, additions, multiplications and shifts. Anything else is unknown (1 byte).
fn known_alignment(prog: &Program) -> Vec<Alignment> {
    let n = prog.n_slots as usize;
    let mut constant = vec![None; n];
    for (slot, value) in &prog.consts {
        if let crate::ir::ConstVal::Bits(bits) = value {
            constant[*slot as usize] = Some(*bits);
        }
    }
    let of_constant = |bits: u64| bits.trailing_zeros().min(MOST as u32) as Alignment;
    let mut align: Vec<Alignment> = (0..n)
        .map(|s| constant[s].map_or(MOST, of_constant))
        .collect();
    let defined: HashSet<Slot> = prog
        .code
        .iter()
        .flat_map(|i| i.op.written_slots())
        .collect();
    // Registers never written here (and not constants) hold what nobody vouches for.
    for (s, a) in align.iter_mut().enumerate() {
        if constant[s].is_none() && !defined.contains(&(s as Slot)) {
            *a = 0;
        }
    }
    loop {
        let mut changed = false;
        for inst in &prog.code {
            for (d, value) in transfer(&inst.op, &align, &constant) {
                if d != NONE && value < align[d as usize] {
                    align[d as usize] = value;
                    changed = true;
                }
            }
        }
        if !changed {
            return align;
        }
    }
}

/// The alignment each register an instruction writes gets from it.
fn transfer(op: &Op, align: &[Alignment], constant: &[Option<u64>]) -> Vec<(Slot, Alignment)> {
    let a = |s: Slot| align[s as usize];
    let shift = |s: Slot| constant[s as usize].map_or(0, |k| k.min(MOST as u64) as Alignment);
    let value = match *op {
        Op::Mov { d, a: src } => return vec![(d, a(src))],
        Op::Cvt {
            d, a: src, to_int, ..
        } if !to_int => return vec![(d, a(src))],
        Op::Cvta { d, a: src, .. } => return vec![(d, a(src))],
        Op::Int2 {
            op, d, a: x, b: y, ..
        } => match op {
            IntOp::Add | IntOp::Sub => (d, a(x).min(a(y))),
            IntOp::MulLo | IntOp::MulWide | IntOp::Mul24Lo => (d, (a(x) + a(y)).min(MOST)),
            IntOp::Shl => (d, (a(x) + shift(y)).min(MOST)),
            IntOp::And => (d, a(x).max(a(y))),
            IntOp::Or | IntOp::Xor | IntOp::Min | IntOp::Max => (d, a(x).min(a(y))),
            _ => (d, 0),
        },
        Op::Int3 {
            op,
            d,
            a: x,
            b: y,
            c,
            ..
        } => match op {
            IntOp3::MadLo | IntOp3::MadWide | IntOp3::Mad24Lo => {
                (d, (a(x) + a(y)).min(MOST).min(a(c)))
            }
            _ => (d, 0),
        },
        ref other => {
            return other.written_slots().into_iter().map(|d| (d, 0)).collect();
        }
    };
    vec![value]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_of_three_or_four_merge_at_sixteen_bytes_and_pairs_at_eight() {
        let loads: Vec<(usize, i64)> = (0..16).map(|k| (k as usize, 4 * k)).collect();
        let mut roles = vec![MergeRole::Alone; 16];
        merge_group(&loads, 4, false, &mut roles);
        let leads = roles
            .iter()
            .filter(|r| matches!(r, MergeRole::Leads { bytes: 16, back: 0 }));
        assert_eq!(leads.count(), 4);
        assert_eq!(
            roles.iter().filter(|r| **r == MergeRole::Follows).count(),
            12
        );

        let mut roles = vec![MergeRole::Alone; 16];
        merge_group(&loads[..4], 3, false, &mut roles);
        assert_eq!(roles[0], MergeRole::Leads { bytes: 8, back: 0 });
        assert_eq!(roles[2], MergeRole::Leads { bytes: 8, back: 0 });

        let mut roles = vec![MergeRole::Alone; 16];
        merge_group(&loads[..4], 2, false, &mut roles);
        assert!(roles.iter().all(|r| *r == MergeRole::Alone));

        // Three loads after a store, at offsets 4, 8 and 12 of a 16-byte window.
        let mut roles = vec![MergeRole::Alone; 16];
        merge_group(&[(5, 4), (6, 8), (7, 12)], 4, false, &mut roles);
        assert_eq!(roles[5], MergeRole::Leads { bytes: 16, back: 4 });
    }
}
