//! Which shared-memory loads of one thread ptxas merges into one wide load.
//!
//! The simulator runs PTX, where a tiled matrix multiply reads its row operand one 4-byte word at
//! a time (`ld.shared.f32 [%rd3]`, `[%rd3+4]`, `[%rd3+8]`, ...); ptxas, which knows the shared
//! arrays' placement, turns four such loads from a 16-byte aligned window into one `LDS.128`, and
//! Nsight Compute counts one instruction and its wavefronts. Measured on an H100
//! (`scripts/gpu/results/lds/merges.md`): 4-byte loads from one base register at offsets in one
//! aligned 16-byte window merge when the base is known to be 16-byte aligned (four loads, and
//! three after a store), in pairs within 8-byte windows when it is known to be 8-byte aligned, not
//! at all when the alignment is unknown; 2-byte loads and global loads do not merge.
//!
//! The loads still run one by one (their values are the same); only what is counted changes:
//! the first load of a merged group counts one access as wide as the window, the others nothing.

use crate::ir::{IntOp, IntOp3, MemSpace, Op, Program, Slot, NONE};
use std::collections::{BTreeMap, HashSet};

/// How a shared-memory load is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MergeRole {
    /// As itself.
    Alone,
    /// As one access of `bytes` at its lanes' addresses less `back` bytes: the merged load.
    Leads { bytes: u8, back: u8 },
    /// Not at all: the load that leads its group counts it.
    Follows,
}

/// Known alignment of a register's value, as the log2 of bytes, up to 16 bytes.
type Alignment = u8;
const MOST: Alignment = 4;

/// Each instruction's [`MergeRole`] (`Alone` for all but merged shared loads).
pub(crate) fn shared_load_merges(prog: &Program) -> Vec<MergeRole> {
    let alignment = known_alignment(prog);
    let mut roles = vec![MergeRole::Alone; prog.code.len()];
    for group in candidate_groups(prog) {
        let align = alignment[group.addr as usize];
        merge_group(&group.loads, align, &mut roles);
    }
    roles
}

/// Loads of one block of straight-line code from one base register under one guard, in order:
/// `(pc, offset)`.
struct Group {
    addr: Slot,
    loads: Vec<(usize, i64)>,
}

/// Marks merged windows of `loads` in `roles`: 16-byte windows with three or four loads where the
/// base is 16-byte aligned, else 8-byte windows with both words where it is 8-byte aligned.
fn merge_group(loads: &[(usize, i64)], align: Alignment, roles: &mut [MergeRole]) {
    let mut merged = HashSet::new();
    for (bytes, least) in [(16i64, 3usize), (8, 2)] {
        if align < bytes.trailing_zeros() as Alignment {
            continue;
        }
        let mut windows: BTreeMap<i64, Vec<(usize, i64)>> = BTreeMap::new();
        for &(pc, off) in loads.iter().filter(|(pc, _)| !merged.contains(pc)) {
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

/// Groups of scalar 4-byte shared loads that ptxas could merge: same base register and guard,
/// in one block of straight-line code, with no store, atomic, barrier or call between them and
/// no new value of the base.
fn candidate_groups(prog: &Program) -> Vec<Group> {
    let starts = block_starts(prog);
    let mut open: BTreeMap<(Slot, u32), Vec<(usize, i64)>> = BTreeMap::new();
    let mut groups = Vec::new();
    let mut close = |open: &mut BTreeMap<(Slot, u32), Vec<(usize, i64)>>,
                     keep: &dyn Fn(Slot) -> bool| {
        let ended: Vec<_> = open
            .keys()
            .filter(|(addr, _)| !keep(*addr))
            .copied()
            .collect();
        for key in ended {
            let loads = open.remove(&key).expect("a key just listed");
            if loads.len() > 1 {
                groups.push(Group { addr: key.0, loads });
            }
        }
    };
    for (pc, inst) in prog.code.iter().enumerate() {
        if starts.contains(&pc) {
            close(&mut open, &|_| false);
        }
        match &inst.op {
            Op::Ld {
                space: MemSpace::Shared,
                ty,
                vec: 1,
                addr,
                off,
                ..
            } if ty.bytes() == 4 => {
                open.entry((*addr, inst.guard))
                    .or_default()
                    .push((pc, *off));
            }
            Op::St { .. } | Op::Atom { .. } | Op::Bar { .. } | Op::Printf { .. } => {
                close(&mut open, &|_| false)
            }
            op => {
                let defined = defined_slots(op);
                close(&mut open, &|addr| !defined.contains(&addr));
            }
        }
    }
    close(&mut open, &|_| false);
    groups
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

/// The registers an instruction writes (`NONE` where a destination is unused).
fn defined_slots(op: &Op) -> Vec<Slot> {
    match *op {
        Op::Mov { d, .. }
        | Op::Pack { d, .. }
        | Op::Special { d, .. }
        | Op::Int2 { d, .. }
        | Op::Int1 { d, .. }
        | Op::Int3 { d, .. }
        | Op::Carry { d, .. }
        | Op::Bfi { d, .. }
        | Op::Prmt { d, .. }
        | Op::Shf { d, .. }
        | Op::Lop3 { d, .. }
        | Op::Float2 { d, .. }
        | Op::Float1 { d, .. }
        | Op::Fma { d, .. }
        | Op::Selp { d, .. }
        | Op::Cvt { d, .. }
        | Op::Cvta { d, .. }
        | Op::Atom { d, .. }
        | Op::Bar { d, .. }
        | Op::Shfl { d, .. }
        | Op::Vote { d, .. }
        | Op::Match { d, .. }
        | Op::Redux { d, .. }
        | Op::Activemask { d, .. }
        | Op::Elect { d, .. }
        | Op::Printf { d, .. } => vec![d],
        Op::Ld { d, .. } => d.to_vec(),
        Op::Unpack { ds, .. } => ds.to_vec(),
        _ => Vec::new(),
    }
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
        .flat_map(|i| defined_slots(&i.op))
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
            return defined_slots(other).into_iter().map(|d| (d, 0)).collect();
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
        merge_group(&loads, 4, &mut roles);
        let leads = roles
            .iter()
            .filter(|r| matches!(r, MergeRole::Leads { bytes: 16, back: 0 }));
        assert_eq!(leads.count(), 4);
        assert_eq!(
            roles.iter().filter(|r| **r == MergeRole::Follows).count(),
            12
        );

        let mut roles = vec![MergeRole::Alone; 16];
        merge_group(&loads[..4], 3, &mut roles);
        assert_eq!(roles[0], MergeRole::Leads { bytes: 8, back: 0 });
        assert_eq!(roles[2], MergeRole::Leads { bytes: 8, back: 0 });

        let mut roles = vec![MergeRole::Alone; 16];
        merge_group(&loads[..4], 2, &mut roles);
        assert!(roles.iter().all(|r| *r == MergeRole::Alone));

        // Three loads after a store, at offsets 4, 8 and 12 of a 16-byte window.
        let mut roles = vec![MergeRole::Alone; 16];
        merge_group(&[(5, 4), (6, 8), (7, 12)], 4, &mut roles);
        assert_eq!(roles[5], MergeRole::Leads { bytes: 16, back: 4 });
    }
}
