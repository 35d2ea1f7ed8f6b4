//! Warp instructions executed, by kind: what a kernel spends its instructions on, per kernel and
//! per source line. These are the PTX instructions the simulator runs; the GPU runs the machine
//! code ptxas makes of them, which differs in number (Nsight Compute's `smsp__inst_executed`), so
//! the counts compare kernels and lines with each other, not with the hardware's figure.

use crate::ir::Op;
use serde::{Deserialize, Serialize};
use std::ops::AddAssign;

/// Warp instructions executed, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstructionCounts {
    /// Loads, stores and atomics, to any memory (global, shared, local, constant, parameters).
    pub memory: u64,
    /// Integer and floating-point arithmetic, comparisons, conversions, selects and moves.
    pub arithmetic: u64,
    /// Branches, exits, traps, and calls of printf and assert.
    pub control: u64,
    /// Warp-wide operations: shuffles, votes, matches, reductions, `activemask`, `elect`,
    /// `__syncwarp`.
    pub warp: u64,
    /// Block-wide barriers and memory fences.
    pub synchronisation: u64,
}

/// The kind of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Memory,
    Arithmetic,
    Control,
    Warp,
    Synchronisation,
}

impl Class {
    pub(crate) fn of(op: &Op) -> Class {
        match op {
            Op::Ld { .. } | Op::St { .. } | Op::Atom { .. } => Class::Memory,
            Op::Bra { .. }
            | Op::Brx { .. }
            | Op::Exit
            | Op::Trap
            | Op::Printf { .. }
            | Op::AssertFail { .. }
            | Op::Malloc { .. }
            | Op::Free { .. } => Class::Control,
            Op::WarpSync { .. }
            | Op::Shfl { .. }
            | Op::Vote { .. }
            | Op::Match { .. }
            | Op::Redux { .. }
            | Op::Activemask { .. }
            | Op::Elect { .. } => Class::Warp,
            // The simulator lowers fences (and hints such as prefetch) to no-ops.
            Op::Bar { .. } | Op::Nop | Op::Nanosleep { .. } => Class::Synchronisation,
            _ => Class::Arithmetic,
        }
    }
}

impl InstructionCounts {
    /// Warp instructions of every class.
    pub fn total(&self) -> u64 {
        self.memory + self.arithmetic + self.control + self.warp + self.synchronisation
    }

    pub(crate) fn add(&mut self, class: Class, n: u64) {
        let slot = match class {
            Class::Memory => &mut self.memory,
            Class::Arithmetic => &mut self.arithmetic,
            Class::Control => &mut self.control,
            Class::Warp => &mut self.warp,
            Class::Synchronisation => &mut self.synchronisation,
        };
        *slot += n;
    }

    /// Whether no warp instruction was counted.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }
}

impl AddAssign<&InstructionCounts> for InstructionCounts {
    fn add_assign(&mut self, o: &InstructionCounts) {
        self.memory += o.memory;
        self.arithmetic += o.arithmetic;
        self.control += o.control;
        self.warp += o.warp;
        self.synchronisation += o.synchronisation;
    }
}
