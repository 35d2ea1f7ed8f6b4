//! Issue cycles of the instructions a warp executed, on one SM sub-partition (SMSP) of sm_90.
//!
//! An SMSP dispatches one warp instruction per cycle, and each instruction then occupies its
//! pipe for 32 lanes / (the pipe's lanes per SMSP) cycles. Lanes per SM per cycle for compute
//! capability 9.0, from the CUDA C++ Programming Guide's table of arithmetic instruction
//! throughput: FP32 add/mul/fma 128; FP64 64; 32-bit integer add, multiply, compare, shift and
//! logic 64; conversions to and from 64-bit types, and the special functions (reciprocal,
//! square root, exp2, log2, sine, cosine) 16. Divided by the 4 SMSPs: 1 cycle per warp
//! instruction for FP32, 2 for FP64 and integer, 8 for the special-function unit (XU).
//!
//! Some PTX instructions are sequences in machine code (ptxas expands them): integer division
//! (about 20 instructions, 70 for 64 bits), IEEE float division and square root (about 8 around
//! one XU instruction), 64-bit integer multiply (3 multiplies). They count as that many.

use crate::ir::{FOp, FUn, IntOp, IntOp3, Op, Ty};

/// Per SMSP, the cycles each pipe is busy and the dispatch slots used.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PipeCycles {
    pub dispatch: f64,
    pub fma: f64,
    pub alu: f64,
    pub fp64: f64,
    pub xu: f64,
}

impl PipeCycles {
    /// The SMSP's busy time: dispatch, or the busiest pipe when one pipe is the bottleneck.
    pub(crate) fn cycles(&self) -> f64 {
        self.dispatch
            .max(self.fma)
            .max(self.alu)
            .max(self.fp64)
            .max(self.xu)
    }

    /// Adds `n` executions of `op`.
    pub(crate) fn add(&mut self, op: &Op, n: u64) {
        let n = n as f64;
        let (instructions, fma, alu, fp64, xu) = cost(op);
        self.dispatch += instructions * n;
        self.fma += fma * n;
        self.alu += alu * 2.0 * n;
        self.fp64 += fp64 * 2.0 * n;
        self.xu += xu * 8.0 * n;
    }
}

fn wide(ty: Ty) -> bool {
    ty.bytes() == 8
}

/// (machine instructions, of which on FMA, ALU, FP64 and XU pipes) for one PTX instruction.
fn cost(op: &Op) -> (f64, f64, f64, f64, f64) {
    const ONE_ALU: (f64, f64, f64, f64, f64) = (1.0, 0.0, 1.0, 0.0, 0.0);
    const ONE_FMA: (f64, f64, f64, f64, f64) = (1.0, 1.0, 0.0, 0.0, 0.0);
    const ONE_FP64: (f64, f64, f64, f64, f64) = (1.0, 0.0, 0.0, 1.0, 0.0);
    const ONE_XU: (f64, f64, f64, f64, f64) = (1.0, 0.0, 0.0, 0.0, 1.0);
    match op {
        Op::Int2 { op, ty, .. } => match op {
            IntOp::Div | IntOp::Rem if wide(*ty) => (70.0, 0.0, 70.0, 0.0, 0.0),
            IntOp::Div | IntOp::Rem => (20.0, 0.0, 18.0, 0.0, 1.0),
            IntOp::MulLo | IntOp::MulHi if wide(*ty) => (3.0, 0.0, 3.0, 0.0, 0.0),
            _ => ONE_ALU,
        },
        Op::Int3 {
            op: IntOp3::MadLo | IntOp3::MadHi,
            ty,
            ..
        } if wide(*ty) => (3.0, 0.0, 3.0, 0.0, 0.0),
        Op::Float2 { op, ty, .. } => match (op, ty) {
            (FOp::Div, Ty::F64) => (10.0, 0.0, 0.0, 9.0, 1.0),
            (FOp::Div, _) => (8.0, 7.0, 0.0, 0.0, 1.0),
            (_, Ty::F64) => ONE_FP64,
            _ => ONE_FMA,
        },
        Op::Fma { ty: Ty::F64, .. } => ONE_FP64,
        Op::Fma { .. } => ONE_FMA,
        Op::Float1 { op, ty, .. } => match (op, ty) {
            (FUn::Neg | FUn::Abs, Ty::F64) => ONE_FP64,
            (FUn::Neg | FUn::Abs, _) => ONE_FMA,
            (FUn::Sqrt | FUn::Rcp, Ty::F64) => (10.0, 0.0, 0.0, 9.0, 1.0),
            (FUn::Sqrt | FUn::Rcp, _) => (8.0, 7.0, 0.0, 0.0, 1.0),
            _ => ONE_XU,
        },
        Op::Setp { ty: Ty::F64, .. } => ONE_FP64,
        Op::Cvt { dt, st, .. } if wide(*dt) != wide(*st) || *dt == Ty::F64 || *st == Ty::F64 => {
            ONE_XU
        }
        // Memory and shuffles are costed by the memory terms; moves, address conversions and
        // branches take a dispatch slot but no arithmetic pipe.
        Op::Ld { .. }
        | Op::St { .. }
        | Op::Atom { .. }
        | Op::Shfl { .. }
        | Op::Mov { .. }
        | Op::Pack { .. }
        | Op::Unpack { .. }
        | Op::Cvta { .. }
        | Op::Special { .. }
        | Op::Bra { .. }
        | Op::Bar { .. }
        | Op::Exit => (1.0, 0.0, 0.0, 0.0, 0.0),
        Op::Nop | Op::Nanosleep { .. } => (0.0, 0.0, 0.0, 0.0, 0.0),
        _ => ONE_ALU,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FMode, Rnd, NONE};

    fn fma(ty: Ty) -> Op {
        Op::Fma {
            ty,
            m: FMode {
                rnd: Rnd::Rn,
                ftz: false,
                sat: false,
            },
            d: NONE,
            a: NONE,
            b: NONE,
            c: NONE,
        }
    }

    #[test]
    fn fp64_takes_twice_the_cycles_of_fp32() {
        let mut single = PipeCycles::default();
        single.add(&fma(Ty::F32), 100);
        let mut double = PipeCycles::default();
        double.add(&fma(Ty::F64), 100);
        assert_eq!((single.cycles(), double.cycles()), (100.0, 200.0));
    }
}
