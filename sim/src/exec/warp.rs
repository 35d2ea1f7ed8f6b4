//! A warp's state and the scheduling of its lanes: which lanes run, which wait (at a barrier, at a
//! warp-synchronous operation) and where each parked lane resumes.
//!
//! Every lane not in the running group is parked with its own PC, and the warp always runs the
//! group with the lowest PC. NVRTC lays out code so that a join point follows both arms of a
//! branch, so lanes meet again there.

use super::clock::WarpClock;
use super::FULL;
use crate::ir::*;
use crate::memory::local::LocalMemory;

/// One warp's state. Buffers are reused from block to block.
pub(crate) struct Warp {
    pub regs: Vec<u64>,
    pub preds: Vec<u32>,
    /// Carry flag per lane (`add.cc` and friends).
    pub carry: u32,
    /// Local memory, `local_total` bytes per lane.
    pub local: LocalMemory,
    pub pc: u32,
    /// The lanes running now, all at `pc`.
    pub active: u32,
    /// Parked lanes that can run, each at `lane_pc`.
    pub ready: u32,
    /// Lanes waiting at a `.sync` warp operation for the lanes its mask names.
    pub sync_wait: u32,
    /// Lanes waiting at a block barrier.
    pub bar_wait: u32,
    pub exited: u32,
    /// Lanes that exist (the last warp of a block may be partial).
    pub valid: u32,
    pub lane_pc: [u32; 32],
    /// Lowest `lane_pc` among `ready` lanes (`NONE` when none).
    pub min_ready_pc: u32,
    /// Index of the warp in its block.
    pub index: u32,
    /// Count of `bar.warp.sync` executed: accesses in different counts are ordered.
    pub wsync: u32,
    pub printf_seq: u32,
    pub icount: u64,
    pub clock: WarpClock,
    /// What the lanes waiting at a barrier arrived with.
    pub bar: BarArrival,
}

#[derive(Clone, Copy, Default)]
pub(crate) struct BarArrival {
    pub kind: Option<BarKind>,
    /// Lanes whose predicate was true (for `bar.red`).
    pub pred: u32,
    pub d: Slot,
    pub dp: Pred,
    pub site: u32,
    pub pc: u32,
    /// Lanes of this warp wait at two different barrier instructions.
    pub mixed: bool,
}

/// Iterates over the set bits of a lane mask.
#[inline(always)]
pub(crate) fn lanes(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros();
            m &= m - 1;
            Some(l as usize)
        }
    })
}

impl Warp {
    pub(crate) fn new(prog: &Program, consts: &[(Slot, u64)]) -> Warp {
        let mut regs = vec![0u64; prog.n_slots as usize * 32];
        for &(s, v) in consts {
            regs[s as usize * 32..s as usize * 32 + 32].fill(v);
        }
        Warp {
            regs,
            preds: vec![0; prog.n_preds as usize],
            carry: 0,
            local: LocalMemory::new(prog.local_total),
            pc: 0,
            active: 0,
            ready: 0,
            sync_wait: 0,
            bar_wait: 0,
            exited: 0,
            valid: 0,
            lane_pc: [0; 32],
            min_ready_pc: NONE,
            index: 0,
            wsync: 0,
            printf_seq: 0,
            icount: 0,
            clock: WarpClock::default(),
            bar: BarArrival::default(),
        }
    }

    /// Starts the warp at the kernel's first instruction with lanes `valid`.
    pub(crate) fn reset(&mut self, index: u32, valid: u32) {
        self.preds.fill(0);
        self.preds[crate::lower::PRED_TRUE as usize] = FULL;
        self.carry = 0;
        self.local.reset();
        self.pc = 0;
        self.active = valid;
        self.ready = 0;
        self.sync_wait = 0;
        self.bar_wait = 0;
        self.exited = !valid;
        self.valid = valid;
        self.min_ready_pc = NONE;
        self.index = index;
        self.wsync = 0;
        self.printf_seq = 0;
        self.icount = 0;
        self.clock = WarpClock::default();
    }

    pub(crate) fn finished(&self) -> bool {
        self.exited == FULL
    }

    pub(crate) fn runnable(&self) -> bool {
        self.active != 0 || self.ready != 0
    }

    /// Parks lanes `m` at `pc`.
    #[inline]
    pub(crate) fn park(&mut self, m: u32, pc: u32) {
        if m == 0 {
            return;
        }
        for l in lanes(m) {
            self.lane_pc[l] = pc;
        }
        self.ready |= m;
        self.min_ready_pc = self.min_ready_pc.min(pc);
    }

    /// Makes the ready lanes with the lowest PC the running group, together with any lanes waiting
    /// at that PC for a warp-synchronous operation. False when no lane is ready.
    pub(crate) fn select(&mut self) -> bool {
        if self.ready == 0 && self.sync_wait != 0 && self.bar_wait == 0 {
            // Lanes waiting in a warp-synchronous op for lanes that have all exited since: let them
            // go on (the op reports the inconsistent mask). With lanes at a barrier, the block
            // reports a deadlock instead.
            let waiting = self.sync_wait;
            self.sync_wait = 0;
            self.ready = waiting;
            self.min_ready_pc = lanes(waiting)
                .map(|l| self.lane_pc[l])
                .min()
                .unwrap_or(NONE);
        }
        if self.ready == 0 {
            self.active = 0;
            return false;
        }
        let pc = self.min_ready_pc;
        let mut group = 0;
        let mut next_min = NONE;
        for l in lanes(self.ready | self.sync_wait) {
            if self.lane_pc[l] == pc {
                group |= 1 << l;
            } else if self.ready >> l & 1 != 0 {
                next_min = next_min.min(self.lane_pc[l]);
            }
        }
        self.ready &= !group;
        self.sync_wait &= !group;
        self.active = group;
        self.pc = pc;
        self.min_ready_pc = next_min;
        true
    }

    /// After the running group moved to `self.pc`: if parked lanes are at or before it, run the
    /// lowest group next (merging lanes that meet at the same PC).
    #[inline]
    pub(crate) fn converge(&mut self) {
        if self.pc >= self.min_ready_pc {
            let (active, pc) = (self.active, self.pc);
            self.park(active, pc);
            self.select();
        }
    }

    /// Thread index within the block of `lane`.
    #[inline]
    pub(crate) fn thread_linear(&self, lane: usize) -> u32 {
        self.index * 32 + lane as u32
    }
}
