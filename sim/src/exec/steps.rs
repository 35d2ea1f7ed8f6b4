//! The steps of a watched launch's watched threads (`analyse::provenance::thread`): each load,
//! store and atomic of global or shared memory with its element and value, and each conditional
//! branch with the comparison behind it. Called only in a watched launch that names threads.

use super::block::BlockCx;
use super::Warp;
use crate::analyse::provenance::{
    thread::{Access, BranchStep, MemoryStep, Step, ThreadTrace},
    Computation, Operand, Place, WatchCx,
};
use crate::ir::{Inst, MemSpace, Op, NONE};
use crate::memory::{SHARED_WINDOW, WINDOW_SIZE};

/// The watched lanes among `lanes_of` of warp `w`: (lane, index of its trace).
fn watched_lanes(w: &Warp, cx: &BlockCx, wc: &WatchCx, lanes_of: u32) -> Vec<(usize, usize)> {
    let [bx, by, _] = cx.l.block_dim;
    let mut out = Vec::new();
    for (i, t) in wc.watch.threads.iter().enumerate() {
        if t.block != cx.block || t.thread[0] >= bx || t.thread[1] >= by {
            continue;
        }
        let linear = t.thread[0] + t.thread[1] * bx + t.thread[2] * bx * by;
        let lane = (linear % 32) as usize;
        if linear / 32 == w.index && lanes_of >> lane & 1 != 0 {
            out.push((lane, i));
        }
    }
    out
}

fn traces<'a>(cx: &'a mut BlockCx, wc: &WatchCx) -> &'a mut Vec<ThreadTrace> {
    if cx.out.threads.is_empty() {
        cx.out.threads = wc
            .watch
            .threads
            .iter()
            .map(|&t| ThreadTrace::new(t))
            .collect();
    }
    &mut cx.out.threads
}

/// What a memory access of the watched lanes in `exec` did, after it ran: `values[k]` is the
/// register (or, for an atomic, the value left) of vector part `k` for a lane.
pub(super) struct AccessSeen<'a> {
    pub access: Access,
    pub space: MemSpace,
    pub ty: crate::ir::Ty,
    pub parts: usize,
    pub addrs: &'a [u64; 32],
    pub value: &'a dyn Fn(&Warp, usize, usize) -> u64,
}

/// Records the watched lanes' part of a global or shared access.
pub(super) fn memory(w: &Warp, cx: &mut BlockCx, inst: &Inst, exec: u32, seen: &AccessSeen) {
    let Some(wc) = cx.l.watch else { return };
    if wc.watch.threads.is_empty() {
        return;
    }
    let watched = watched_lanes(w, cx, wc, exec);
    if watched.is_empty() {
        return;
    }
    let location = cx.location(inst.site);
    let instruction = wc.instruction(inst.ptx_line);
    let eb = seen.ty.bytes() as u64;
    for (lane, i) in watched {
        for k in 0..seen.parts {
            let at = seen.addrs[lane] + k as u64 * eb;
            let Some(place) = place(cx, wc, seen.space, at, seen.ty.bytes()) else {
                continue;
            };
            let step = Step::Memory(MemoryStep {
                access: seen.access,
                place,
                ty: seen.ty,
                bits: (seen.value)(w, lane, k),
                location: location.clone(),
                instruction: instruction.clone(),
            });
            traces(cx, wc)[i].push(step);
        }
    }
}

fn place(cx: &BlockCx, wc: &WatchCx, space: MemSpace, at: u64, bytes: u32) -> Option<Place> {
    match space {
        MemSpace::Global | MemSpace::Const => Some(wc.watch.place(at)),
        MemSpace::Shared => Some(super::memops::watch::shared_place(cx, at, bytes)),
        MemSpace::Generic if at.wrapping_sub(SHARED_WINDOW) < WINDOW_SIZE => Some(
            super::memops::watch::shared_place(cx, at - SHARED_WINDOW, bytes),
        ),
        MemSpace::Generic => Some(wc.watch.place(at)),
        _ => None,
    }
}

/// Records a conditional branch for the watched lanes among the warp's running ones: `taken`
/// holds the lanes that jump.
pub(super) fn branch(w: &Warp, cx: &mut BlockCx, inst: &Inst, taken: u32) {
    let Some(wc) = cx.l.watch else { return };
    let Op::Bra { target } = inst.op else { return };
    if inst.guard == NONE || wc.watch.threads.is_empty() {
        return;
    }
    let watched = watched_lanes(w, cx, wc, w.active);
    for (lane, i) in watched {
        let step = Step::Branch(BranchStep {
            location: cx.location(inst.site),
            taken: taken >> lane & 1 != 0,
            backward: target <= w.pc,
            condition: condition(w, cx, wc, inst, lane),
        });
        traces(cx, wc)[i].push(step);
    }
}

/// The `setp` that set the branch's predicate on the straight code before it, with its operands
/// where they still hold what the comparison read.
fn condition(
    w: &Warp,
    cx: &BlockCx,
    wc: &WatchCx,
    inst: &Inst,
    lane: usize,
) -> Option<Computation> {
    let prog = cx.l.prog;
    let def = wc.defs.predicate_writer(prog, inst.guard >> 1, w.pc)?;
    let setp = &prog.code[def as usize];
    let Op::Setp { ty, a, b, .. } = setp.op else {
        return None;
    };
    let operands = [a, b]
        .iter()
        .map(|&s| Operand {
            ty,
            bits: (s != NONE && wc.defs.unchanged(prog, s, def, w.pc))
                .then(|| w.regs[s as usize * 32 + lane]),
            loaded_from: wc
                .defs
                .reaching(prog, s, def)
                .and_then(|ld| super::memops::watch::loaded_from(w, cx, wc, ld, lane)),
        })
        .collect();
    Some(Computation {
        instruction: wc.instruction(setp.ptx_line),
        location: cx.location(setp.site),
        operands,
        loaded_from: None,
    })
}

/// Whether this launch watches threads: the memory path asks before it gathers what it saw.
pub(super) fn any_watched(cx: &BlockCx) -> bool {
    cx.l.watch.is_some_and(|wc| !wc.watch.threads.is_empty())
}

/// Records what the watched lanes among `exec` got from a shuffle that just ran: the lane it
/// came from and the value, as a load from that lane.
pub(super) fn shuffle(w: &Warp, cx: &mut BlockCx, inst: &Inst, exec: u32) {
    let Some(wc) = cx.l.watch else { return };
    let Op::Shfl {
        mode, d, a, b, c, ..
    } = inst.op
    else {
        return;
    };
    if wc.watch.threads.is_empty() {
        return;
    }
    // The lane operands are read after the shuffle wrote its destination.
    let known = d != b && d != c;
    let reg = |s: u32, lane: usize| w.regs[s as usize * 32 + lane];
    // A shuffle moves bits: the value's type is that of the instruction that computed it.
    let prog = cx.l.prog;
    let type_at = |pc: u32| crate::analyse::provenance::operands(&prog.code[pc as usize].op).1;
    let made = wc.defs.reaching(prog, a, w.pc).and_then(type_at);
    // Else the first instruction after it that reads what it got (through a `mov`, as NVRTC
    // moves a float's bits into the shuffle's register and back), as `add.f32` does.
    let used = || {
        let mut value = d;
        for pc in (w.pc + 1..prog.code.len() as u32).take(8) {
            match prog.code[pc as usize].op {
                Op::Mov { d: to, a: from } if from == value => value = to,
                ref op if crate::analyse::provenance::operands(op).0.contains(&value) => {
                    return type_at(pc);
                }
                _ => {}
            }
        }
        None
    };
    let ty = made.or_else(used).unwrap_or(crate::ir::Ty::U32);
    for (lane, i) in watched_lanes(w, cx, wc, exec) {
        let source =
            known.then(|| super::collective::shfl_source(mode, lane, reg(b, lane), reg(c, lane)));
        let step = Step::Memory(MemoryStep {
            access: Access::Load,
            place: Place {
                space: crate::analyse::provenance::Space::Lane,
                address: 0,
                name: None,
                index: source.map(|(from, _)| from as u64),
            },
            ty,
            bits: reg(d, lane) & 0xffff_ffff,
            location: cx.location(inst.site),
            instruction: wc.instruction(inst.ptx_line),
        });
        traces(cx, wc)[i].push(step);
    }
}
