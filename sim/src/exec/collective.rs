//! Operations that involve more than one lane: barrier arrival, warp-synchronous operations
//! (shuffle, vote, match, redux, elect, `__syncwarp`), and the printf/assert calls.

use super::block::{lane_list, BlockCx, PrintRecord};
use super::{lanes, Warp, FULL};
use crate::ir::*;
use crate::memory::{LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::report::{DiagKey, Diagnostic, DiagnosticKind};
use std::sync::atomic::Ordering::Relaxed;

pub(super) fn barrier(w: &mut Warp, cx: &mut BlockCx, inst: &Inst, exec: u32) {
    let Op::Bar {
        kind, d, p, np, dp, ..
    } = inst.op
    else {
        unreachable!("barrier() is called for bar")
    };
    let pm = w.preds[p as usize] ^ if np { FULL } else { 0 };
    if w.bar_wait != 0 && w.bar.pc != w.pc {
        // Lanes of one warp at two different barriers: the block-level check sees two PCs.
        w.bar.mixed = true;
    }
    w.bar.kind = Some(kind);
    w.bar.pred |= pm & exec;
    w.bar.d = d;
    w.bar.dp = dp;
    w.bar.site = inst.site;
    w.bar.pc = w.pc;
    for l in lanes(exec) {
        w.lane_pc[l] = w.pc + 1;
    }
    w.bar_wait |= exec;
    let _ = cx;
}

fn mask_operand(inst: &Inst) -> Slot {
    match inst.op {
        Op::WarpSync { mask }
        | Op::Shfl { mask, .. }
        | Op::Vote { mask, .. }
        | Op::Match { mask, .. }
        | Op::Redux { mask, .. }
        | Op::Elect { mask, .. } => mask,
        _ => NONE,
    }
}

/// Runs a warp-synchronous operation if every lane its mask names is here. Returns false when the
/// lanes must wait for others still on their way.
///
/// Lanes may pass different masks to one instruction where the masks split the warp into groups
/// (each lane's mask names itself, and every lane it names passes the same mask): cooperative
/// groups' tiles of 16 or 8 threads do this, and each group then runs the operation on its own.
pub(super) fn warp_sync_op(
    w: &mut Warp,
    cx: &mut BlockCx,
    inst: &Inst,
    exec: u32,
) -> Result<bool, Box<Diagnostic>> {
    let slot = mask_operand(inst);
    let first = exec.trailing_zeros() as usize;
    let mut masks = [0u32; 32];
    for l in lanes(exec) {
        masks[l] = if slot == NONE {
            w.active
        } else {
            w.regs[slot as usize * 32 + l] as u32
        };
    }
    let named = lanes(exec).fold(0, |all, l| all | masks[l]);
    let missing = named & !exec & w.valid;
    if missing & w.ready != 0 {
        return Ok(false);
    }
    if missing & w.bar_wait != 0 {
        // The block will find every thread waiting and report the deadlock.
        return Ok(false);
    }
    let outside = lanes(exec).fold(0, |out, l| out | (!masks[l] & 1 << l));
    let groups_agree = lanes(exec).all(|l| lanes(exec & masks[l]).all(|k| masks[k] == masks[l]));
    let problem = if missing != 0 {
        let why = if missing & w.exited != 0 {
            "have exited"
        } else {
            "are waiting at a different warp operation"
        };
        Some(format!(
            "the mask {:#010x} names {} of warp {} which {why}; every lane in a `_sync` mask must \
             execute the same call (use __activemask() or a mask of the lanes that are really here)",
            masks[lanes(exec).find(|&l| masks[l] & missing != 0).unwrap_or(first)],
            lane_list(missing),
            w.index
        ))
    } else if outside != 0 {
        Some(format!(
            "{} of warp {} executed a `_sync` operation whose mask {:#010x} does not include them",
            lane_list(outside),
            w.index,
            masks[outside.trailing_zeros() as usize]
        ))
    } else if !groups_agree {
        Some(format!(
            "lanes of warp {} passed different masks to the same `_sync` operation",
            w.index
        ))
    } else {
        None
    };
    if let Some(msg) = problem {
        let d = cx.diagnostic(DiagnosticKind::InconsistentMask, w, first, inst.site, msg);
        cx.report(
            DiagKey(DiagnosticKind::InconsistentMask, inst.site, inst.site),
            d,
        );
    }
    if matches!(inst.op, Op::WarpSync { .. }) || !groups_agree || outside != 0 {
        execute(w, inst, exec);
        return Ok(true);
    }
    let mut left = exec;
    while left != 0 {
        let group = exec & masks[left.trailing_zeros() as usize];
        execute(w, inst, group);
        if cx.l.watch.is_some() {
            super::steps::shuffle(w, cx, inst, group);
        }
        left &= !group;
    }
    Ok(true)
}

/// The lane whose value lane `l` of a shuffle gets (its own where the source is outside its
/// segment), and whether the source was valid; `b` and `c` are the lane's operands.
#[inline(always)]
pub(super) fn shfl_source(mode: ShflMode, l: usize, b: u64, c: u64) -> (usize, bool) {
    let lane = l as i64;
    let bval = (b & 0xffff_ffff) as i64;
    let cval = c as i64;
    let seg = (cval >> 8) & 0x1f;
    let clamp = cval & 0x1f;
    let min_lane = lane & seg;
    let max_lane = min_lane | (clamp & !seg);
    let (j, ok) = match mode {
        ShflMode::Up => (lane - bval, lane - bval >= max_lane),
        ShflMode::Down => (lane + bval, lane + bval <= max_lane),
        ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
        ShflMode::Idx => {
            let j = min_lane | (bval & !seg);
            (j, j <= max_lane)
        }
    };
    match ok && (0..32).contains(&j) {
        true => (j as usize, true),
        false => (l, false),
    }
}

fn execute(w: &mut Warp, inst: &Inst, exec: u32) {
    let r = &mut w.regs;
    let row = |r: &Vec<u64>, s: Slot| -> [u64; 32] {
        r[s as usize * 32..s as usize * 32 + 32]
            .try_into()
            .expect("row")
    };
    let put = |r: &mut Vec<u64>, s: Slot, v: &[u64; 32]| {
        for l in lanes(exec) {
            r[s as usize * 32 + l] = v[l];
        }
    };
    match inst.op {
        Op::WarpSync { .. } => w.wsync += 1,
        Op::Shfl {
            mode,
            d,
            p,
            a,
            b,
            c,
            ..
        } => {
            let (av, bv, cv) = (row(r, a), row(r, b), row(r, c));
            let mut out = [0u64; 32];
            let mut valid = 0u32;
            for l in lanes(exec) {
                let (src, ok) = shfl_source(mode, l, bv[l], cv[l]);
                out[l] = av[src] & 0xffff_ffff;
                valid |= (ok as u32) << l;
            }
            put(r, d, &out);
            if p != NONE {
                w.preds[p as usize] = (w.preds[p as usize] & !exec) | (valid & exec);
            }
        }
        Op::Vote {
            mode, d, dp, a, na, ..
        } => {
            let pv = (w.preds[a as usize] ^ if na { FULL } else { 0 }) & exec;
            match mode {
                VoteMode::Ballot => put(r, d, &[pv as u64; 32]),
                _ => {
                    let v = match mode {
                        VoteMode::All => pv == exec,
                        VoteMode::Any => pv != 0,
                        _ => pv == exec || pv == 0,
                    };
                    let m = if v { exec } else { 0 };
                    w.preds[dp as usize] = (w.preds[dp as usize] & !exec) | m;
                }
            }
        }
        Op::Match {
            all, ty, d, p, a, ..
        } => {
            let av = row(r, a);
            let m = mask(ty.bits());
            let mut out = [0u64; 32];
            let mut same_all = true;
            let first = av[exec.trailing_zeros() as usize] & m;
            for l in lanes(exec) {
                let mut eq = 0u32;
                for k in lanes(exec) {
                    if av[k] & m == av[l] & m {
                        eq |= 1 << k;
                    }
                }
                out[l] = eq as u64;
                same_all &= av[l] & m == first;
            }
            if all {
                out = [if same_all { exec as u64 } else { 0 }; 32];
                if p != NONE {
                    w.preds[p as usize] =
                        (w.preds[p as usize] & !exec) | if same_all { exec } else { 0 };
                }
            }
            put(r, d, &out);
        }
        Op::Redux { op, ty, d, a, .. } => {
            let av = row(r, a);
            let signed = ty.is_signed();
            let vals = lanes(exec).map(|l| av[l] & 0xffff_ffff);
            let v = match op {
                ReduxOp::Add => vals.fold(0u64, |s, x| s.wrapping_add(x)) & 0xffff_ffff,
                ReduxOp::And => vals.fold(0xffff_ffff, |s, x| s & x),
                ReduxOp::Or => vals.fold(0, |s, x| s | x),
                ReduxOp::Xor => vals.fold(0, |s, x| s ^ x),
                ReduxOp::Min if signed => {
                    vals.map(|x| x as u32 as i32).min().unwrap_or(0) as u32 as u64
                }
                ReduxOp::Max if signed => {
                    vals.map(|x| x as u32 as i32).max().unwrap_or(0) as u32 as u64
                }
                ReduxOp::Min => vals.min().unwrap_or(0),
                ReduxOp::Max => vals.max().unwrap_or(0),
            };
            put(r, d, &[v; 32]);
        }
        Op::Elect { d, p, .. } => {
            let leader = exec.trailing_zeros();
            if d != NONE {
                put(r, d, &[leader as u64; 32]);
            }
            if p != NONE {
                w.preds[p as usize] = (w.preds[p as usize] & !exec) | (1 << leader);
            }
        }
        _ => unreachable!("execute() is called for warp-synchronous ops"),
    }
}

/// Reads `len` bytes at a generic address as lane `lane` sees it.
pub(super) fn read_generic(
    w: &Warp,
    cx: &BlockCx,
    lane: usize,
    addr: u64,
    len: u64,
) -> Option<Vec<u8>> {
    if addr.wrapping_sub(SHARED_WINDOW) < WINDOW_SIZE {
        let off = (addr - SHARED_WINDOW) as usize;
        return cx.shared.get(off..off + len as usize).map(<[u8]>::to_vec);
    }
    if addr.wrapping_sub(LOCAL_WINDOW) < WINDOW_SIZE {
        let per_lane = cx.l.prog.local_total as usize;
        let off = (addr - LOCAL_WINDOW) as usize;
        if off + len as usize > per_lane {
            return None;
        }
        return Some(w.local.read(lane, off, len as usize));
    }
    let a = cx.l.mem.find(addr, len)?;
    Some(
        (0..len)
            .map(|i| a.load(addr - a.base + i, 1) as u8)
            .collect(),
    )
}

/// Reads a NUL-terminated string (at most 4096 bytes) at a generic address.
pub(super) fn read_cstring(w: &Warp, cx: &BlockCx, lane: usize, addr: u64) -> Option<String> {
    let mut out = Vec::new();
    for i in 0..4096 {
        let b = read_generic(w, cx, lane, addr.wrapping_add(i), 1)?[0];
        if b == 0 {
            break;
        }
        out.push(b);
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

pub(super) fn printf(
    w: &mut Warp,
    cx: &mut BlockCx,
    inst: &Inst,
    exec: u32,
    (fmt, args, d): (Slot, Slot, Slot),
) -> Result<(), Box<Diagnostic>> {
    let seq = w.printf_seq;
    w.printf_seq += 1;
    let mut cost = 0u64;
    for l in lanes(exec) {
        if cx.l.printf_bytes.load(Relaxed) >= crate::printf::BUFFER_BYTES as u64 {
            // The buffer is full: the call costs no formatting, and prints nothing, as on a GPU.
            cx.l.printf_cut.store(true, Relaxed);
            w.regs[d as usize * 32 + l] = u32::MAX as u64;
            continue;
        }
        let fmt_addr = w.regs[fmt as usize * 32 + l];
        let args_addr = w.regs[args as usize * 32 + l];
        let text = match read_cstring(w, cx, l, fmt_addr) {
            Some(f) => {
                let mut offset = 0u64;
                let mut next_arg = |size: u32| -> u64 {
                    offset = offset.div_ceil(size as u64) * size as u64;
                    let bytes = read_generic(w, cx, l, args_addr.wrapping_add(offset), size as u64)
                        .unwrap_or_default();
                    offset += size as u64;
                    bytes.iter().rev().fold(0u64, |v, b| v << 8 | *b as u64)
                };
                let string = |addr: u64| read_cstring(w, cx, l, addr);
                let (text, n) = crate::printf::format(f.as_bytes(), &mut next_arg, &string);
                w.regs[d as usize * 32 + l] = n as u64;
                text
            }
            None => "<printf: unreadable format string>\n".to_string(),
        };
        cost += PRINTF_LANE_COST + text.len() as u64 / PRINTF_BYTES_PER_INSTRUCTION;
        cx.l.printf_bytes.fetch_add(text.len() as u64, Relaxed);
        cx.out.printf.push(PrintRecord {
            block: cx.block_lin,
            warp: w.index,
            seq,
            lane: l as u32,
            text,
        });
    }
    cx.charge(w, inst, cost)
}

/// Formatting is charged to the launch's budget like the warp instructions it stands for: a few
/// per lane and one per 16 bytes of output.
const PRINTF_LANE_COST: u64 = 4;
const PRINTF_BYTES_PER_INSTRUCTION: u64 = 16;

pub(super) fn assert_message(
    w: &Warp,
    cx: &BlockCx,
    lane: usize,
    msg: Slot,
    file: Slot,
    line: Slot,
    func: Slot,
) -> String {
    let get = |s: Slot| w.regs[s as usize * 32 + lane];
    let text = |s: Slot| read_cstring(w, cx, lane, get(s)).unwrap_or_else(|| "?".into());
    let file = text(file);
    let file = file.rsplit('/').next().unwrap_or(&file).to_string();
    format!(
        "assertion `{}` failed in {}() ({}:{}); the GPU stops the kernel here",
        text(msg),
        text(func),
        file,
        get(line) as u32
    )
}
