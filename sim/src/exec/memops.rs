//! Loads, stores and atomics: address resolution per lane, bounds and alignment checks, the memory
//! figures of each request, and race tracking on shared memory.
//!
//! Every lane is checked before any lane's access happens, so a faulting instruction has no effect,
//! as on a GPU that stops the kernel at it.

use super::block::BlockCx;
use super::{alu, float, lanes, Warp, FULL};
use crate::analyse::locks::LockWrite;
use crate::analyse::{self, Access};
use crate::ir::*;
use crate::memory::figures::{count_distinct, shared_wavefronts};
use crate::memory::{global_miss, Allocation, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::report::{
    AccessFault, AccessOp, BadAccess, Diagnostic, DiagnosticKind, MemorySpace, RacePlace,
};

mod granule;
mod miss;
mod races;
mod unwritten;
pub(crate) use unwritten::Unwritten;
pub(super) mod watch;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Load,
    Store,
    Atom,
}

/// The instruction's operands, decoded once.
struct Req {
    kind: Kind,
    ty: Ty,
    vec: u8,
    regs: [Slot; 4],
    atom: AtomOp,
    b: Slot,
    c: Slot,
}

impl Req {
    fn elem_bytes(&self) -> u32 {
        self.ty.bytes()
    }
    fn bytes(&self) -> u32 {
        self.ty.bytes() * self.vec as u32
    }
}

/// What the instruction at `pc` does to memory, as race detection sees it.
fn access_kind(cx: &BlockCx, pc: u32, req: &Req) -> analyse::Kind {
    match req.kind {
        Kind::Load if cx.l.cas_reads[pc as usize] => analyse::Kind::CasRead,
        Kind::Load => analyse::Kind::Read,
        Kind::Store => analyse::Kind::Write,
        Kind::Atom => analyse::Kind::Atomic,
    }
}

fn what(req: &Req) -> AccessOp {
    match req.kind {
        Kind::Load => AccessOp::Load,
        Kind::Store => AccessOp::Store,
        Kind::Atom => AccessOp::Atomic,
    }
}

/// The access of `req` by lanes `bad` (the first of them at `address`) as the diagnostic that
/// stops the kernel: the facts, and the sentence rendered from them.
#[allow(clippy::too_many_arguments)]
fn bad_access(
    w: &Warp,
    cx: &BlockCx,
    inst: &Inst,
    req: &Req,
    bad: u32,
    address: u64,
    space: MemorySpace,
    fault: AccessFault,
) -> Box<Diagnostic> {
    let kind = match fault {
        AccessFault::Misaligned => DiagnosticKind::Misaligned,
        _ => DiagnosticKind::OutOfBounds,
    };
    let access = BadAccess {
        space,
        op: what(req),
        bytes: req.bytes(),
        address,
        lanes: bad,
        warp: w.index,
        fault,
    };
    let lane = bad.trailing_zeros() as usize;
    let mut d = cx.diagnostic(kind, w, lane, inst.site, access.message());
    d.access = Some(Box::new(access));
    Box::new(d)
}

pub(super) fn access(
    w: &mut Warp,
    cx: &mut BlockCx,
    inst: &Inst,
    exec: u32,
) -> Result<(), Box<Diagnostic>> {
    let (space, req, addr, off) = match inst.op {
        Op::Ld {
            space,
            ty,
            vec,
            d,
            addr,
            off,
        } => (
            space,
            Req {
                kind: Kind::Load,
                ty,
                vec,
                regs: d,
                atom: AtomOp::Add,
                b: NONE,
                c: NONE,
            },
            addr,
            off,
        ),
        Op::St {
            space,
            ty,
            vec,
            v,
            addr,
            off,
        } => (
            space,
            Req {
                kind: Kind::Store,
                ty,
                vec,
                regs: v,
                atom: AtomOp::Add,
                b: NONE,
                c: NONE,
            },
            addr,
            off,
        ),
        Op::Atom {
            space,
            op,
            ty,
            d,
            addr,
            off,
            b,
            c,
        } => (
            space,
            Req {
                kind: Kind::Atom,
                ty,
                vec: 1,
                regs: [d, NONE, NONE, NONE],
                atom: op,
                b,
                c,
            },
            addr,
            off,
        ),
        _ => unreachable!("access() is called for memory instructions"),
    };
    let mut addrs = [0u64; 32];
    if addr != NONE {
        let base = &w.regs[addr as usize * 32..addr as usize * 32 + 32];
        for l in 0..32 {
            addrs[l] = base[l].wrapping_add(off as u64);
        }
    } else {
        addrs = [off as u64; 32];
    }
    let done = match space {
        MemSpace::Global => global(w, cx, inst, &req, exec, &addrs, true),
        MemSpace::Const => global(w, cx, inst, &req, exec, &addrs, false),
        MemSpace::Shared => shared(w, cx, inst, &req, exec, &addrs),
        MemSpace::Local => local(
            w,
            cx,
            inst,
            &req,
            exec,
            &addrs,
            cx.l.prog.local_frame as u64,
        ),
        MemSpace::Scratch => local(
            w,
            cx,
            inst,
            &req,
            exec,
            &addrs,
            cx.l.prog.local_total as u64,
        ),
        MemSpace::KernelParam => {
            param(w, cx, &req, exec, &addrs);
            Ok(())
        }
        MemSpace::Generic => {
            let (mut sh, mut lo) = (0u32, 0u32);
            let mut shared_addrs = [0u64; 32];
            let mut local_addrs = [0u64; 32];
            for l in lanes(exec) {
                let a = addrs[l];
                if a.wrapping_sub(SHARED_WINDOW) < WINDOW_SIZE {
                    sh |= 1 << l;
                    shared_addrs[l] = a - SHARED_WINDOW;
                } else if a.wrapping_sub(LOCAL_WINDOW) < WINDOW_SIZE {
                    lo |= 1 << l;
                    local_addrs[l] = a - LOCAL_WINDOW;
                }
            }
            let gl = exec & !sh & !lo;
            if gl != 0 {
                global(w, cx, inst, &req, gl, &addrs, true)?;
            }
            if sh != 0 {
                shared(w, cx, inst, &req, sh, &shared_addrs)?;
            }
            if lo != 0 {
                local(
                    w,
                    cx,
                    inst,
                    &req,
                    lo,
                    &local_addrs,
                    cx.l.prog.local_frame as u64,
                )?;
            }
            Ok(())
        }
    };
    // Only a watched launch (`Machine::launch_watched`) records stores.
    let global_store =
        matches!(space, MemSpace::Global | MemSpace::Generic) && req.kind != Kind::Load;
    if cx.l.watch.is_some() && global_store && done.is_ok() {
        watch::record(w, cx, inst, &req, exec, &addrs);
    }
    if done.is_ok() && super::steps::any_watched(cx) {
        watch::steps(w, cx, inst, &req, space, exec, &addrs);
    }
    done
}

fn misaligned(
    w: &Warp,
    cx: &BlockCx,
    inst: &Inst,
    req: &Req,
    exec: u32,
    addrs: &[u64; 32],
    space: MemorySpace,
) -> Option<Box<Diagnostic>> {
    // Access sizes are powers of two, so alignment is a mask test.
    let n = req.bytes() as u64;
    let mut bad = 0u32;
    for (l, a) in addrs.iter().enumerate() {
        bad |= ((a & (n - 1) != 0) as u32) << l;
    }
    bad &= exec;
    if bad == 0 {
        return None;
    }
    let at = addrs[bad.trailing_zeros() as usize];
    Some(bad_access(
        w,
        cx,
        inst,
        req,
        bad,
        at,
        space,
        AccessFault::Misaligned,
    ))
}

#[inline]
fn store_value(w: &Warp, req: &Req, k: usize, lane: usize) -> u64 {
    w.regs[req.regs[k] as usize * 32 + lane] & mask(req.ty.bits())
}

/// The new value of an atomic read-modify-write, given the old one and the operands.
fn atom_apply(op: AtomOp, ty: Ty, old: u64, b: u64, c: u64) -> u64 {
    let bits = ty.bits();
    let m = mask(bits);
    match (op, ty) {
        (AtomOp::Add, Ty::F32) => {
            let f = |v: u64| float::ftz32(f32::from_bits(v as u32));
            float::ftz32(f(old) + f(b)).to_bits() as u64
        }
        (AtomOp::Add, Ty::F64) => (f64::from_bits(old) + f64::from_bits(b)).to_bits(),
        (AtomOp::Add, _) => old.wrapping_add(b) & m,
        (AtomOp::Min | AtomOp::Max, Ty::F32) => {
            let (x, y) = (f32::from_bits(old as u32), f32::from_bits(b as u32));
            let op = if op == AtomOp::Min {
                FOp::Min
            } else {
                FOp::Max
            };
            float::bin32(
                op,
                FMode {
                    rnd: Rnd::Rn,
                    ftz: false,
                    sat: false,
                },
                x,
                y,
            )
            .to_bits() as u64
        }
        (AtomOp::Min | AtomOp::Max, Ty::F64) => {
            let op = if op == AtomOp::Min {
                FOp::Min
            } else {
                FOp::Max
            };
            float::bin64(
                op,
                FMode {
                    rnd: Rnd::Rn,
                    ftz: false,
                    sat: false,
                },
                f64::from_bits(old),
                f64::from_bits(b),
            )
            .to_bits()
        }
        (AtomOp::Min, _) => alu::int2(IntOp::Min, ty, old, b),
        (AtomOp::Max, _) => alu::int2(IntOp::Max, ty, old, b),
        (AtomOp::And, _) => old & b & m,
        (AtomOp::Or, _) => (old | b) & m,
        (AtomOp::Xor, _) => (old ^ b) & m,
        (AtomOp::Exch, _) => b & m,
        (AtomOp::Cas, _) => {
            if old & m == b & m {
                c & m
            } else {
                old & m
            }
        }
        (AtomOp::Inc, _) => {
            if old & m >= b & m {
                0
            } else {
                (old + 1) & m
            }
        }
        (AtomOp::Dec, _) => {
            if old & m == 0 || old & m > b & m {
                b & m
            } else {
                (old - 1) & m
            }
        }
    }
}

fn global(
    w: &mut Warp,
    cx: &mut BlockCx,
    inst: &Inst,
    req: &Req,
    exec: u32,
    addrs: &[u64; 32],
    counted: bool,
) -> Result<(), Box<Diagnostic>> {
    if let Some(d) = misaligned(w, cx, inst, req, exec, addrs, MemorySpace::Global) {
        return Err(d);
    }
    if exec == FULL
        && req.vec == 1
        && req.kind != Kind::Atom
        && global_full_warp(w, cx, inst, req, addrs, counted)
    {
        return Ok(());
    }
    let len = req.bytes() as u64;
    let mem = cx.l.mem;
    // Usually every lane is inside one allocation: one lookup for the warp's address range.
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for (l, &a) in addrs.iter().enumerate() {
        let on = exec >> l & 1 != 0;
        lo = lo.min(if on { a } else { u64::MAX });
        hi = hi.max(if on { a } else { 0 });
    }
    let uniform = mem.find(lo, (hi - lo).saturating_add(len));
    let mut allocs: [Option<&Allocation>; 32] = [None; 32];
    if uniform.is_none() {
        let mut bad = 0u32;
        for l in lanes(exec) {
            allocs[l] = mem.find(addrs[l], len);
            bad |= (allocs[l].is_none() as u32) << l;
        }
        if bad != 0 {
            let a = addrs[bad.trailing_zeros() as usize];
            let mut miss = global_miss(mem, a, len);
            if let Some(allocation) = miss.allocation_mut() {
                miss::name(&cx.l.view(), allocation);
            }
            let fault = AccessFault::Global { miss };
            let d = bad_access(w, cx, inst, req, bad, a, MemorySpace::Global, fault);
            if !granule::goes_on(mem, cx.l.past_the_end, bad, addrs, len, &mut allocs) {
                return Err(d);
            }
            let (key, d) = granule::reported(*d, inst.site);
            cx.report(key, d);
        }
    }
    if counted {
        track_global(w, cx, inst, req, exec, addrs);
    }
    let alloc_of = |l: usize| {
        uniform
            .or(allocs[l])
            .expect("every lane's allocation was found")
    };
    if counted {
        // Aligned accesses of up to 32 bytes lie in one sector each; in the usual case lanes
        // go up in address, so counting changes counts distinct sectors.
        let per_lane = len.div_ceil(32).min(2);
        let mut sectors = [0u64; 64];
        let mut n = 0;
        let (mut changes, mut sorted, mut prev) = (0u64, true, None::<u64>);
        for l in lanes(exec) {
            for k in 0..per_lane {
                let sector = (addrs[l] >> 5) + k;
                sectors[n] = sector;
                n += 1;
                if let Some(p) = prev {
                    sorted &= p <= sector;
                    changes += (p != sector) as u64;
                }
                prev = Some(sector);
            }
        }
        let distinct = if sorted {
            changes + (n > 0) as u64
        } else {
            count_distinct(&mut sectors[..n])
        };
        match uniform {
            Some(al) => model_traffic(cx, req.kind, al.base, &sectors[..n]),
            None => {
                for l in lanes(exec) {
                    let first = addrs[l] >> 5;
                    let last = (addrs[l] + len - 1) >> 5;
                    model_traffic(
                        cx,
                        req.kind,
                        alloc_of(l).base,
                        &[first, last][..(last - first + 1) as usize],
                    );
                }
            }
        }
        if req.kind == Kind::Atom {
            let mut at = [0u64; 32];
            let mut k = 0;
            for l in lanes(exec) {
                at[k] = addrs[l];
                k += 1;
            }
            at[..k].sort_unstable();
            let mut unique = at[..k].to_vec();
            unique.dedup();
            cx.out.traffic.atomic(&unique);
        }
        cx.out.traffic.warp_request(w.index, req.kind == Kind::Load);
        let f = &mut cx.out.site_figures[inst.site as usize];
        match req.kind {
            Kind::Load => {
                f.global_load_requests += 1;
                f.global_load_sectors += distinct;
            }
            Kind::Store => {
                f.global_store_requests += 1;
                f.global_store_sectors += distinct;
            }
            Kind::Atom => {
                f.global_atomic_requests += 1;
                f.global_atomic_sectors += if cx.l.prog.combined_atomics[w.pc as usize] {
                    1
                } else {
                    atomic_sectors(exec, addrs)
                };
            }
        }
    }
    let eb = req.elem_bytes();
    if req.kind == Kind::Load && req.vec == 1 {
        let d = req.regs[0] as usize * 32;
        let row = &mut w.regs[d..d + 32];
        match uniform {
            Some(al) if req.ty.bits() == 32 => {
                for l in lanes(exec) {
                    row[l] = al.load(addrs[l] - al.base, 4);
                }
            }
            _ => {
                for l in lanes(exec) {
                    let al = alloc_of(l);
                    row[l] = alu::ext(req.ty, al.load(addrs[l] - al.base, eb));
                }
            }
        }
        return Ok(());
    }
    for l in lanes(exec) {
        let al = alloc_of(l);
        let off = addrs[l] - al.base;
        match req.kind {
            Kind::Load => {
                for k in 0..req.vec as usize {
                    let v = al.load(off + (k as u64) * eb as u64, eb);
                    w.regs[req.regs[k] as usize * 32 + l] = alu::ext(req.ty, v);
                }
            }
            Kind::Store => {
                for k in 0..req.vec as usize {
                    al.store(off + (k as u64) * eb as u64, eb, store_value(w, req, k, l));
                }
            }
            Kind::Atom => {
                // Kernels with global atomics run one block at a time, so this read-modify-write
                // cannot interleave with another thread's.
                let old = al.load(off, eb);
                let b = w.regs[req.b as usize * 32 + l];
                let c = if req.c == NONE {
                    0
                } else {
                    w.regs[req.c as usize * 32 + l]
                };
                al.store(off, eb, atom_apply(req.atom, req.ty, old, b, c));
                if req.regs[0] != NONE {
                    w.regs[req.regs[0] as usize * 32 + l] = alu::ext(req.ty, old);
                }
            }
        }
    }
    Ok(())
}

/// The common case, branch-free: a full warp, one element per lane, all in one allocation.
/// Returns false (having done nothing) when the accesses span allocations or leave them.
fn global_full_warp(
    w: &mut Warp,
    cx: &mut BlockCx,
    inst: &Inst,
    req: &Req,
    addrs: &[u64; 32],
    counted: bool,
) -> bool {
    let len = req.bytes() as u64;
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for &a in addrs {
        lo = lo.min(a);
        hi = hi.max(a);
    }
    let Some(al) = cx.l.mem.find(lo, (hi - lo).saturating_add(len)) else {
        return false;
    };
    if counted {
        track_global(w, cx, inst, req, FULL, addrs);
    }
    if counted {
        // Accesses are aligned and at most 8 bytes: one sector per lane.
        let (mut distinct, mut lines) = (1u64, 1u64);
        let mut sorted = true;
        for l in 1..32 {
            let (p, s) = (addrs[l - 1] >> 5, addrs[l] >> 5);
            distinct += (p != s) as u64;
            lines += (p >> 2 != s >> 2) as u64;
            sorted &= p <= s;
        }
        let mut sectors = addrs.map(|a| a >> 5);
        if !sorted {
            distinct = count_distinct(&mut sectors);
            lines = crate::memory::traffic::distinct_lines(&sectors);
        }
        model_traffic_lines(cx, req.kind, al.base, &sectors, lines);
        cx.out.traffic.warp_request(w.index, req.kind == Kind::Load);
        let f = &mut cx.out.site_figures[inst.site as usize];
        if req.kind == Kind::Load {
            f.global_load_requests += 1;
            f.global_load_sectors += distinct;
        } else {
            f.global_store_requests += 1;
            f.global_store_sectors += distinct;
        }
    }
    let (eb, base) = (req.elem_bytes(), al.base);
    let slot = req.regs[0] as usize * 32;
    let row = &mut w.regs[slot..slot + 32];
    if req.kind == Kind::Load {
        for l in 0..32 {
            row[l] = alu::ext(req.ty, al.load(addrs[l] - base, eb));
        }
    } else {
        let m = mask(req.ty.bits());
        for l in 0..32 {
            al.store(addrs[l] - base, eb, row[l] & m);
        }
    }
    true
}

/// Sectors Nsight Compute counts for a global atomic the warp does lane by lane: each sector
/// once for every lane that hits its busiest word (lanes on one word take turns; lanes on
/// different words of a sector go together). Measured on an H100:
/// `scripts/gpu/results/atomics/sectors.md`.
fn atomic_sectors(exec: u32, addrs: &[u64; 32]) -> u64 {
    let mut words = [0u64; 32];
    let mut n = 0;
    for l in lanes(exec) {
        words[n] = addrs[l] >> 2;
        n += 1;
    }
    let words = &mut words[..n];
    words.sort_unstable();
    words
        .chunk_by(|a, b| a >> 3 == b >> 3)
        .map(|sector| {
            let busiest_word = sector.chunk_by(|a, b| a == b).map(<[u64]>::len).max();
            busiest_word.unwrap_or(0) as u64
        })
        .sum()
}

/// The time model's counts for one global request: the sectors it touched (any order, repeats
/// allowed) within the allocation at `base`.
fn model_traffic(cx: &mut BlockCx, kind: Kind, base: u64, sectors: &[u64]) {
    let lines = crate::memory::traffic::distinct_lines(sectors);
    model_traffic_lines(cx, kind, base, sectors, lines);
}

/// `model_traffic` where the caller has counted the distinct 128-byte lines of `sectors`.
fn model_traffic_lines(cx: &mut BlockCx, kind: Kind, base: u64, sectors: &[u64], lines: u64) {
    let (read, written) = match kind {
        Kind::Load => (true, false),
        Kind::Store => (false, true),
        Kind::Atom => (true, true),
    };
    cx.l.sectors.mark(base, sectors, read, written);
    cx.out.traffic.request(sectors, lines, kind == Kind::Load);
    if kind == Kind::Store {
        cx.out.traffic.store_lines += lines;
    }
}

/// Race tracking of one global request (const space is read-only and not tracked).
fn track_global(w: &Warp, cx: &mut BlockCx, inst: &Inst, req: &Req, exec: u32, addrs: &[u64; 32]) {
    *cx.stamp = cx.stamp.wrapping_add(1);
    let stamp = *cx.stamp;
    let len = req.bytes();
    let kind = access_kind(cx, w.pc, req);
    let tids = std::array::from_fn(|l| w.thread_linear(l) as u16);
    let run = Access {
        tid: 0,
        wsync: w.wsync,
        stamp,
        site: inst.site,
        kind,
    };
    // A run leaves nothing for `track_lock`: it holds plain accesses by threads without a lock.
    if cx
        .global_shadow
        .check_run(cx.epoch, exec, addrs, len, &run, &tids)
    {
        return;
    }
    for l in lanes(exec) {
        let acc = Access {
            tid: tids[l],
            ..run
        };
        if let Some(conflict) = cx.global_shadow.check(cx.epoch, addrs[l], len, &acc) {
            let launch = cx.l.view();
            let place = crate::analyse::global::global_place(&launch, addrs[l], len as u64);
            let what = crate::analyse::global::describe_global(&launch, &place);
            let space = DiagnosticKind::GlobalRace;
            races::report(
                cx,
                races::Found {
                    space,
                    what,
                    place,
                    acc: &acc,
                    conflict,
                },
            );
        }
        track_lock(w, cx, req, l, addrs[l], acc.tid);
    }
}

/// Follows spin locks (`analyse::locks`): a compare-and-swap or exchange may take one, and a
/// write of the lock word by its holder may give it back.
fn track_lock(w: &Warp, cx: &mut BlockCx, req: &Req, lane: usize, addr: u64, tid: u16) {
    let swaps = req.kind == Kind::Atom && matches!(req.atom, AtomOp::Cas | AtomOp::Exch);
    let writes = req.kind != Kind::Load && req.vec == 1;
    if !writes || !(swaps || cx.global_shadow.locks.holds(tid)) {
        return;
    }
    let eb = req.elem_bytes();
    let Some(al) = cx.l.mem.find(addr, eb as u64) else {
        return;
    };
    let old = al.load(addr - al.base, eb);
    let reg = |s: Slot| {
        if s == NONE {
            0
        } else {
            w.regs[s as usize * 32 + lane]
        }
    };
    let new = if req.kind == Kind::Atom {
        atom_apply(req.atom, req.ty, old, reg(req.b), reg(req.c))
    } else {
        store_value(w, req, 0, lane)
    };
    cx.global_shadow.locks.step(&LockWrite {
        tid,
        addr,
        old,
        new,
        swaps,
    });
}

/// The `__shared__` variable holding byte `off` of the block's shared memory, and the byte in it.
fn shared_place(cx: &BlockCx, off: u64) -> RacePlace {
    let variable =
        cx.l.prog
            .shared_vars
            .iter()
            .find(|v| off >= v.offset as u64 && off < (v.offset + v.size) as u64);
    match variable {
        Some(v) => RacePlace::Shared {
            variable: Some(demangle_shared(&v.name)),
            byte: off - v.offset as u64,
        },
        None => RacePlace::Shared {
            variable: None,
            byte: off,
        },
    }
}

fn shared_var_name(cx: &BlockCx, off: u64) -> String {
    let prog = cx.l.prog;
    if let Some(v) = prog
        .shared_vars
        .iter()
        .find(|v| off >= v.offset as u64 && off < (v.offset + v.size) as u64)
    {
        return format!(
            "`{}` (byte {} of it)",
            demangle_shared(&v.name),
            off - v.offset as u64
        );
    }
    if off >= prog.dynamic_shared_offset as u64 {
        return format!(
            "dynamic shared memory (byte {})",
            off - prog.dynamic_shared_offset as u64
        );
    }
    format!("shared memory byte {off}")
}

/// `_ZZ9transposeE4tile` -> `tile`: the name the student wrote.
pub(crate) fn demangle_shared(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("_ZZ") {
        if let Some(pos) = rest.find('E') {
            let tail = &rest[pos + 1..];
            let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse::<usize>() {
                if let Some(s) = tail.get(digits.len()..digits.len() + n) {
                    return s.to_string();
                }
            }
        }
    }
    name.to_string()
}

fn shared(
    w: &mut Warp,
    cx: &mut BlockCx,
    inst: &Inst,
    req: &Req,
    exec: u32,
    addrs: &[u64; 32],
) -> Result<(), Box<Diagnostic>> {
    let len = req.bytes() as u64;
    let size = cx.shared.len() as u64;
    let mut bad = 0u32;
    for (l, &a) in addrs.iter().enumerate() {
        bad |= ((a > size || size - a < len) as u32) << l;
    }
    let bad = bad & exec;
    if bad != 0 {
        let a = addrs[bad.trailing_zeros() as usize];
        let fault = AccessFault::Shared {
            size,
            dynamic_unsized: cx.l.dynamic_shared == 0
                && cx.l.prog.dynamic_shared_offset as u64 <= a,
        };
        return Err(bad_access(
            w,
            cx,
            inst,
            req,
            bad,
            a,
            MemorySpace::Shared,
            fault,
        ));
    }
    if let Some(d) = misaligned(w, cx, inst, req, exec, addrs, MemorySpace::Shared) {
        return Err(d);
    }
    // Only a watched launch (the re-run that explains a wrong output) pays for this.
    if cx.l.watch.is_some() {
        unwritten::note(w, cx, inst, req, exec, addrs);
    }
    {
        let f = &mut cx.out.site_figures[inst.site as usize];
        match req.kind {
            Kind::Atom => f.shared_atomic_requests += 1,
            Kind::Load | Kind::Store => {
                let load = req.kind == Kind::Load;
                let role = cx.l.prog.shared_merges[w.pc as usize];
                let (wavefronts, ideal) = match role {
                    MergeRole::Alone => shared_wavefronts(exec, addrs, req.bytes(), load),
                    // The access that leads a merged group counts the group's wide access.
                    MergeRole::Leads { bytes, back } => {
                        let window = addrs.map(|a| a.wrapping_sub(back as u64));
                        shared_wavefronts(exec, &window, bytes as u32, load)
                    }
                    MergeRole::Follows => (0, 0),
                };
                if role == MergeRole::Follows {
                    // Counted in the merged access that leads its group.
                } else if load {
                    f.shared_load_requests += 1;
                    f.shared_load_wavefronts += wavefronts;
                    f.shared_load_bank_conflicts += wavefronts - ideal;
                } else {
                    f.shared_store_requests += 1;
                    f.shared_store_wavefronts += wavefronts;
                    f.shared_store_bank_conflicts += wavefronts - ideal;
                }
            }
        }
    }
    *cx.stamp = cx.stamp.wrapping_add(1);
    let stamp = *cx.stamp;
    let eb = req.elem_bytes() as usize;
    let kind = access_kind(cx, w.pc, req);
    for l in lanes(exec) {
        let a = addrs[l] as usize;
        let acc = Access {
            tid: w.thread_linear(l) as u16,
            wsync: w.wsync,
            stamp,
            site: inst.site,
            kind,
        };
        if let Some(conflict) = cx.shadow.check(cx.epoch, a, len as usize, &acc) {
            let what = shared_var_name(cx, a as u64);
            let place = shared_place(cx, a as u64);
            let space = DiagnosticKind::SharedRace;
            races::report(
                cx,
                races::Found {
                    space,
                    what,
                    place,
                    acc: &acc,
                    conflict,
                },
            );
        }
        let sh = &mut cx.shared;
        match req.kind {
            Kind::Load => {
                for k in 0..req.vec as usize {
                    let v = read_le(&sh[a + k * eb..a + (k + 1) * eb]);
                    w.regs[req.regs[k] as usize * 32 + l] = alu::ext(req.ty, v);
                }
            }
            Kind::Store => {
                for k in 0..req.vec as usize {
                    let v = store_value(w, req, k, l);
                    sh[a + k * eb..a + (k + 1) * eb].copy_from_slice(&v.to_le_bytes()[..eb]);
                }
            }
            Kind::Atom => {
                let old = read_le(&sh[a..a + eb]);
                let b = w.regs[req.b as usize * 32 + l];
                let c = if req.c == NONE {
                    0
                } else {
                    w.regs[req.c as usize * 32 + l]
                };
                let new = atom_apply(req.atom, req.ty, old, b, c);
                sh[a..a + eb].copy_from_slice(&new.to_le_bytes()[..eb]);
                if req.regs[0] != NONE {
                    w.regs[req.regs[0] as usize * 32 + l] = alu::ext(req.ty, old);
                }
            }
        }
    }
    Ok(())
}

#[inline(always)]
fn read_le(b: &[u8]) -> u64 {
    match b.len() {
        4 => u32::from_le_bytes(b.try_into().expect("4 bytes")) as u64,
        8 => u64::from_le_bytes(b.try_into().expect("8 bytes")),
        2 => u16::from_le_bytes(b.try_into().expect("2 bytes")) as u64,
        _ => b[0] as u64,
    }
}

#[allow(clippy::too_many_arguments)]
fn local(
    w: &mut Warp,
    cx: &mut BlockCx,
    inst: &Inst,
    req: &Req,
    exec: u32,
    addrs: &[u64; 32],
    limit: u64,
) -> Result<(), Box<Diagnostic>> {
    let len = req.bytes() as u64;
    let mut bad = 0u32;
    for (l, &a) in addrs.iter().enumerate() {
        bad |= ((a > limit || limit - a < len) as u32) << l;
    }
    let bad = bad & exec;
    if bad != 0 {
        let a = addrs[bad.trailing_zeros() as usize];
        let fault = AccessFault::Local { size: limit };
        return Err(bad_access(
            w,
            cx,
            inst,
            req,
            bad,
            a,
            MemorySpace::Local,
            fault,
        ));
    }
    if let Some(d) = misaligned(w, cx, inst, req, exec, addrs, MemorySpace::Local) {
        return Err(d);
    }
    let eb = req.elem_bytes() as usize;
    let mut stored = Ok(());
    for l in lanes(exec) {
        let a = addrs[l] as usize;
        match req.kind {
            Kind::Load => {
                for k in 0..req.vec as usize {
                    let v = w.local.load(l, a + k * eb, eb);
                    w.regs[req.regs[k] as usize * 32 + l] = alu::ext(req.ty, v);
                }
            }
            Kind::Store => {
                for k in 0..req.vec as usize {
                    let v = store_value(w, req, k, l);
                    stored = stored.and(w.local.store(l, a + k * eb, eb, v));
                }
            }
            Kind::Atom => {
                let old = w.local.load(l, a, eb);
                let b = w.regs[req.b as usize * 32 + l];
                let c = if req.c == NONE {
                    0
                } else {
                    w.regs[req.c as usize * 32 + l]
                };
                let new = atom_apply(req.atom, req.ty, old, b, c);
                stored = stored.and(w.local.store(l, a, eb, new));
                if req.regs[0] != NONE {
                    w.regs[req.regs[0] as usize * 32 + l] = alu::ext(req.ty, old);
                }
            }
        }
    }
    if stored.is_err() {
        let lane = exec.trailing_zeros() as usize;
        let msg = format!(
            "the simulator ran out of host memory for the threads' local memory ({limit} bytes per thread); \
             use smaller local arrays, or run the kernel on a GPU"
        );
        return Err(Box::new(cx.diagnostic(
            DiagnosticKind::Trap,
            w,
            lane,
            inst.site,
            msg,
        )));
    }
    Ok(())
}

/// `ld.param` of the kernel's parameters, at an offset in their buffer (the same for every lane
/// unless the address came from a register); bytes past the buffer read as 0.
fn param(w: &mut Warp, cx: &BlockCx, req: &Req, exec: u32, addrs: &[u64; 32]) {
    let p = &cx.l.params;
    let n = req.elem_bytes() as usize;
    let value = |addr: u64, k: usize| {
        let at = (addr as usize).saturating_add(k * n);
        let v = p
            .get(at..at.saturating_add(n))
            .map_or(0, |b| b.iter().rev().fold(0u64, |v, x| v << 8 | *x as u64));
        alu::ext(req.ty, v)
    };
    // The usual case, a parameter named in the instruction: one address for every lane, so one
    // read for the warp (Numba's kernels load a dozen array fields this way per thread).
    let first = addrs[(exec.trailing_zeros() & 31) as usize];
    if lanes(exec).all(|l| addrs[l] == first) {
        for k in 0..req.vec as usize {
            let v = value(first, k);
            let row = &mut w.regs[req.regs[k] as usize * 32..][..32];
            for l in lanes(exec) {
                row[l] = v;
            }
        }
        return;
    }
    for l in lanes(exec) {
        for k in 0..req.vec as usize {
            w.regs[req.regs[k] as usize * 32 + l] = value(addrs[l], k);
        }
    }
}
