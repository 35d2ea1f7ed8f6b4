//! Grid-wide barriers (`grid.sync()`, the device runtime's `cudaCGSynchronize`): a block whose
//! live threads all wait at one is parked with its warps and shared memory; once every block of
//! the launch has parked or ended, the parked blocks are resumed past the barrier. A cooperative
//! launch on a GPU keeps every block resident for this; here blocks take turns on the workers.

use super::block::LaunchCx;
use super::Warp;
use crate::ir::{BarKind, Op, Program};
use crate::report::{Diagnostic, DiagnosticKind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// A block waiting at a grid barrier, with everything it needs to go on.
pub(crate) struct Parked {
    pub lin: u64,
    pub warps: Vec<Warp>,
    pub shared: Vec<u8>,
    /// A watched launch's bytes of shared memory written (see `WorkerOut::shared_written`).
    pub shared_written: Vec<u64>,
}

/// The launch's grid barrier: the blocks waiting at it and those to resume.
#[derive(Default)]
pub(crate) struct GridBarrier {
    parked: Mutex<Vec<Parked>>,
    /// Blocks released from the barrier, the lowest index last (taken from the end).
    resume: Mutex<Vec<Parked>>,
    /// Blocks whose every thread exited.
    ended: AtomicU64,
}

/// Whether `warps` wait at a grid barrier (every live thread of the block has arrived at a
/// barrier, and one of them is a grid barrier).
pub(crate) fn waits_at_grid(warps: &[Warp]) -> bool {
    warps
        .iter()
        .any(|w| w.bar_wait != 0 && w.bar.kind == Some(BarKind::Grid))
}

impl GridBarrier {
    /// The barrier of a launch of `prog`, where it has a grid barrier.
    pub(crate) fn of(prog: &Program) -> Option<GridBarrier> {
        let grid = |op: &Op| {
            matches!(
                op,
                Op::Bar {
                    kind: BarKind::Grid,
                    ..
                }
            )
        };
        prog.code
            .iter()
            .any(|i| grid(&i.op))
            .then(GridBarrier::default)
    }

    pub(crate) fn park(&self, block: Parked) {
        self.parked.lock().expect("grid barrier lock").push(block);
    }

    pub(crate) fn block_ended(&self) {
        self.ended.fetch_add(1, Ordering::Relaxed);
    }

    /// The next block to resume past the barrier, lowest index first.
    pub(crate) fn next_resumed(&self) -> Option<Parked> {
        self.resume.lock().expect("grid barrier lock").pop()
    }

    /// Blocks waiting at the barrier now.
    pub(crate) fn waiting(&self) -> usize {
        self.parked.lock().expect("grid barrier lock").len()
    }

    /// Once every block has parked or ended: releases the parked blocks, or, where some blocks
    /// ended without reaching the barrier (the parked ones would wait for ever on a GPU), the
    /// diagnostic that says so, for the lowest parked block.
    pub(crate) fn release(&self, l: &LaunchCx) -> Result<(), (u64, Diagnostic)> {
        let mut parked = std::mem::take(&mut *self.parked.lock().expect("grid barrier lock"));
        parked.sort_unstable_by_key(|p| std::cmp::Reverse(p.lin));
        let ended = self.ended.load(Ordering::Relaxed);
        if let (true, Some(first)) = (ended > 0, parked.last()) {
            let message = format!(
                "grid.sync() was reached by {} of the grid's {} blocks; the other {ended} ended \
                 without reaching it, so on a GPU the blocks that reached it wait for ever: every \
                 thread of the grid must reach the same grid.sync()",
                parked.len(),
                l.total_blocks
            );
            return Err((first.lin, stuck(l, first, message)));
        }
        *self.resume.lock().expect("grid barrier lock") = parked;
        Ok(())
    }
}

/// The diagnostic of a grid barrier that only part of the grid reached, at the first thread of
/// `block` that waits there.
fn stuck(l: &LaunchCx, block: &Parked, message: String) -> Diagnostic {
    let (thread, site) = block
        .warps
        .iter()
        .find(|w| w.bar_wait != 0)
        .map_or((0, 0), |w| {
            let lane = w.bar_wait.trailing_zeros() as usize;
            (w.thread_linear(lane), w.bar.site)
        });
    Diagnostic {
        kind: DiagnosticKind::DivergentBarrier,
        block: l.block_index(block.lin),
        thread: l.thread_index(thread),
        location: l.prog.sites.get(site as usize).cloned().flatten(),
        message,
        race: None,
        access: None,
    }
}
