//! Recording the stores that hit watched elements (`analyse::provenance`), in a watched launch
//! only: the thread, the line, what was stored, and the instruction that computed it.

use super::{atom_apply, store_value, Kind, Req};
use crate::analyse::provenance::{
    signed_result, thread::Access, Computation, ElementStores, Operand, Place, Space, StoreEvent,
    WatchCx,
};
use crate::exec::block::BlockCx;
use crate::exec::{lanes, Warp};
use crate::ir::{mask, Inst, MemSpace, Op, Slot, Ty, NONE};
use crate::memory::{SHARED_WINDOW, WINDOW_SIZE};

/// Records every lane's store (or atomic) of this instruction that touches a watched element.
pub(super) fn record(
    w: &Warp,
    cx: &mut BlockCx,
    inst: &Inst,
    req: &Req,
    exec: u32,
    addrs: &[u64; 32],
) {
    let Some(wc) = cx.l.watch else {
        return;
    };
    if cx.out.watched.is_empty() {
        cx.out.watched = wc
            .watch
            .elements
            .iter()
            .map(|&e| ElementStores::new(e))
            .collect();
    }
    let eb = req.elem_bytes() as u64;
    for l in lanes(exec) {
        for k in 0..req.vec as usize {
            let at = addrs[l] + k as u64 * eb;
            for (i, e) in wc.watch.elements.iter().enumerate() {
                let end = e.address + e.bytes as u64;
                if at >= end || e.address >= at + eb {
                    continue;
                }
                let event = event(w, cx, wc, inst, req, (l, k), at, (e.address, end));
                cx.out.watched[i].push(event);
            }
        }
    }
}

/// One lane's store of vector part `k` at `at`, seen from the element `[start, end)`.
#[allow(clippy::too_many_arguments)]
fn event(
    w: &Warp,
    cx: &BlockCx,
    wc: &WatchCx,
    inst: &Inst,
    req: &Req,
    (lane, k): (usize, usize),
    at: u64,
    (start, end): (u64, u64),
) -> StoreEvent {
    let reg = |s: Slot| {
        if s == NONE {
            0
        } else {
            w.regs[s as usize * 32 + lane]
        }
    };
    let mut ty = req.ty;
    let (bits, computed_by) = if req.kind == Kind::Atom {
        // The atomic has run: its destination holds the old value.
        let old = reg(req.regs[0]);
        let new = atom_apply(req.atom, req.ty, old, reg(req.b), reg(req.c));
        let operand = |bits| Operand {
            ty: req.ty,
            bits: Some(bits),
            loaded_from: None,
        };
        let mut operands = vec![operand(reg(req.b))];
        if req.regs[0] != NONE {
            operands.insert(0, operand(old));
        }
        let computation = Computation {
            instruction: wc.instruction(inst.ptx_line),
            location: cx.location(inst.site),
            operands,
            loaded_from: None,
        };
        (new, Some(computation))
    } else {
        let slot = req.regs[k];
        let def = wc.defs.reaching(cx.l.prog, slot, w.pc);
        let signed = def.and_then(|d| signed_result(&cx.l.prog.code[d as usize].op));
        if let Some(signed) = signed.filter(|s| shown_signed(req.ty, *s)) {
            ty = signed;
        }
        let computed = def.map(|def| computation(w, cx, wc, def, lane));
        (store_value(w, req, k, lane), computed)
    };
    let whole = at <= start && at + req.elem_bytes() as u64 >= end;
    let bits = if whole {
        let shift = (start - at) * 8;
        let width = (end - start) * 8;
        (bits >> shift)
            & if width >= 64 {
                u64::MAX
            } else {
                (1 << width) - 1
            }
    } else {
        bits
    };
    StoreEvent {
        block: cx.block,
        thread: cx.l.thread_index(w.thread_linear(lane)),
        location: cx.location(inst.site),
        instruction: wc.instruction(inst.ptx_line),
        ty,
        bits,
        whole,
        computed_by,
    }
}

/// Whether a value an instruction computed as `signed` is shown so when stored as `stored`: an
/// unsigned integer store of the same width (`st.u32` of a `sub.s32`).
fn shown_signed(stored: Ty, signed: Ty) -> bool {
    !stored.is_float() && !stored.is_signed() && stored.bytes() == signed.bytes()
}

/// The instruction at `def` that computed a stored value, with its operands as the store found
/// them where they are certain to be the ones it used.
fn computation(w: &Warp, cx: &BlockCx, wc: &WatchCx, def: u32, lane: usize) -> Computation {
    let prog = cx.l.prog;
    let inst = &prog.code[def as usize];
    let (slots, ty) = crate::analyse::provenance::operands(&inst.op);
    let written = inst.op.written_slots();
    let operands = slots
        .iter()
        .map(|&s| {
            let kept = !written.contains(&s) && wc.defs.unchanged(prog, s, def, w.pc);
            Operand {
                ty: ty.unwrap_or(crate::ir::Ty::U32),
                bits: kept.then(|| w.regs[s as usize * 32 + lane]),
                loaded_from: wc
                    .defs
                    .reaching(prog, s, def)
                    .and_then(|ld| loaded_from(w, cx, wc, ld, lane)),
            }
        })
        .collect();
    Computation {
        instruction: wc.instruction(inst.ptx_line),
        location: cx.location(inst.site),
        operands,
        loaded_from: loaded_from(w, cx, wc, def, lane),
    }
}

/// Where the load at `ld` read, when its address register still holds the address it used.
pub(in crate::exec) fn loaded_from(
    w: &Warp,
    cx: &BlockCx,
    wc: &WatchCx,
    ld: u32,
    lane: usize,
) -> Option<Place> {
    let prog = cx.l.prog;
    let inst = &prog.code[ld as usize];
    let Op::Ld {
        space,
        ty,
        addr,
        off,
        ref d,
        ..
    } = inst.op
    else {
        return None;
    };
    if addr == NONE || d.contains(&addr) || !wc.defs.unchanged(prog, addr, ld, w.pc) {
        return None;
    }
    let at = w.regs[addr as usize * 32 + lane].wrapping_add(off as u64);
    match space {
        MemSpace::Global | MemSpace::Const => Some(wc.watch.place(at)),
        MemSpace::Shared => Some(shared_place(cx, at, ty.bytes())),
        MemSpace::Generic if at.wrapping_sub(SHARED_WINDOW) < WINDOW_SIZE => {
            Some(shared_place(cx, at - SHARED_WINDOW, ty.bytes()))
        }
        MemSpace::Generic => Some(wc.watch.place(at)),
        _ => None,
    }
}

/// The `__shared__` variable holding byte `offset`, counted in elements of the load's size.
pub(in crate::exec) fn shared_place(cx: &BlockCx, offset: u64, element_bytes: u32) -> Place {
    let var =
        cx.l.prog
            .shared_vars
            .iter()
            .find(|v| offset.wrapping_sub(v.offset as u64) < v.size as u64);
    Place {
        space: Space::Shared,
        address: offset,
        name: var.map(|v| super::demangle_shared(&v.name)),
        index: var.map(|v| (offset - v.offset as u64) / element_bytes.max(1) as u64),
    }
}

/// Hands the watched threads' part of this access to `steps`: the value each lane loaded, stored
/// or left (an atomic's new value, from the old one its destination now holds).
pub(super) fn steps(
    w: &Warp,
    cx: &mut BlockCx,
    inst: &Inst,
    req: &Req,
    space: MemSpace,
    exec: u32,
    addrs: &[u64; 32],
) {
    let reg = |w: &Warp, s: Slot, lane: usize| match s {
        NONE => 0,
        s => w.regs[s as usize * 32 + lane],
    };
    let value = |w: &Warp, lane: usize, k: usize| match req.kind {
        Kind::Atom => atom_apply(
            req.atom,
            req.ty,
            reg(w, req.regs[0], lane),
            reg(w, req.b, lane),
            reg(w, req.c, lane),
        ),
        Kind::Load => reg(w, req.regs[k], lane) & mask(req.ty.bits()),
        Kind::Store => store_value(w, req, k, lane),
    };
    let access = match req.kind {
        Kind::Load => Access::Load,
        Kind::Store => Access::Store,
        Kind::Atom => Access::Atomic,
    };
    let seen = crate::exec::steps::AccessSeen {
        access,
        space,
        ty: req.ty,
        parts: req.vec as usize,
        addrs,
        value: &value,
    };
    crate::exec::steps::memory(w, cx, inst, exec, &seen);
}
