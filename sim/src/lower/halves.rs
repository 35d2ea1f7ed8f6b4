//! Instructions on pairs of 16-bit floats (`.f16x2`, `.bf16x2`) that have no one-op form in the
//! IR: comparisons, which set a predicate or a half per pair member, and `cvt` from two f32s into
//! one pair. Each is split into its halves (`mov.b32 {lo, hi}`), done on each, and joined where
//! it writes a pair.

use super::operands::{name_of, Scopes};
use super::Builder;
use crate::error::SimError;
use crate::ir::*;
use crate::parse::{Instruction, Operand};

/// 1.0 in half precision: what `set` writes for true into an `.f16` or `.f16x2` destination.
pub(super) const ONE: u64 = 0x3c00;
/// 1.0 in bfloat16: what `set` writes for true into a `.bf16` or `.bf16x2` destination.
pub(super) const BF16_ONE: u64 = 0x3f80;

/// A `setp` or `set` on `.f16x2` or `.bf16x2` sources.
pub(super) struct PairCompare {
    /// Each member's type: `.f16` or `.bf16`.
    pub lane: Ty,
    pub cmp: Cmp,
    /// `setp.lt.and.f16x2 p|q, a, b, c`: each result combined with predicate `c`.
    pub bop: Option<BoolOp>,
    pub ftz: bool,
    /// For `set`, its destination type: `.f16x2` (1.0 or 0.0 per half) or an integer type
    /// (all ones or zero per half). `None` for `setp`.
    pub set_type: Option<Ty>,
}

impl Builder<'_> {
    /// Splits a 32-bit source into its low and high halves.
    fn halves_of(
        &mut self,
        scopes: &Scopes,
        op: &Operand,
        guard: u32,
    ) -> Result<[Slot; 2], SimError> {
        let pair = self.src(scopes, op, Ty::U32, guard)?;
        let (low, high) = (self.new_slot(), self.new_slot());
        self.emit(
            Op::Unpack {
                ds: [low, high, NONE, NONE],
                n: 2,
                bits: 16,
                a: pair,
            },
            guard,
        );
        Ok([low, high])
    }

    /// `setp.cmp.f16x2 p|q, a, b`: p gets the low halves' comparison, q the high halves'.
    /// `set.cmp.dtype.f16x2 d, a, b`: each half of d gets its halves' result.
    pub(super) fn compare_pairs(
        &mut self,
        scopes: &Scopes,
        ins: &Instruction,
        compare: PairCompare,
        guard: u32,
    ) -> Result<(), SimError> {
        let [d, a, b, rest @ ..] = &ins.operands[..] else {
            return Err(self.invalid(format!("`{}` is missing an operand", ins.opcode)));
        };
        let comb = match (compare.bop, rest.first()) {
            (Some(bop), Some(c)) => {
                let (c, negated) = self.pred_src(scopes, c)?;
                Some((bop, c, negated))
            }
            (Some(_), None) => return Err(self.invalid("a combined comparison needs a predicate")),
            (None, _) => None,
        };
        let a = self.halves_of(scopes, a, guard)?;
        let b = self.halves_of(scopes, b, guard)?;
        let results = match (compare.set_type, d) {
            (None, Operand::Pair(p, q)) => [self.pred_reg(scopes, p)?, self.pred_reg(scopes, q)?],
            (None, _) => return Err(self.invalid("`setp` on a pair needs two predicates, p|q")),
            (Some(_), _) => [self.new_pred(), self.new_pred()],
        };
        for half in 0..2 {
            let setp = Op::Setp {
                cmp: compare.cmp,
                ty: compare.lane,
                ftz: compare.ftz,
                p: results[half],
                q: NONE,
                a: a[half],
                b: b[half],
                comb,
            };
            self.emit(setp, guard);
        }
        let Some(set_type) = compare.set_type else {
            return Ok(());
        };
        let d = self.dst(scopes, &Operand::Name(name_of(d)?))?;
        let truth = match set_type {
            Ty::F16x2 => ONE,
            Ty::BF16x2 => BF16_ONE,
            _ => 0xffff,
        };
        let (truth, falsehood) = (self.const_slot(truth), self.const_slot(0));
        let parts = [self.new_slot(), self.new_slot()];
        for half in 0..2 {
            let select = Op::Selp {
                d: parts[half],
                a: truth,
                b: falsehood,
                p: results[half],
                neg: false,
            };
            self.emit(select, guard);
        }
        self.emit(
            Op::Pack {
                d,
                parts: [parts[0], parts[1], NONE, NONE],
                n: 2,
                bits: 16,
            },
            guard,
        );
        Ok(())
    }

    /// `cvt.rnd.f16x2.f32 d, a, b` (or `.bf16x2`): a, rounded to a `lane`, goes to the high
    /// half, b to the low.
    pub(super) fn convert_to_pair(
        &mut self,
        scopes: &Scopes,
        ins: &Instruction,
        lane: Ty,
        source: Ty,
        mode: FMode,
        guard: u32,
    ) -> Result<(), SimError> {
        let [Operand::Name(d), a, b] = &ins.operands[..] else {
            return Err(self.invalid(format!("`{}` takes d, a, b", ins.opcode)));
        };
        let d = self.reg_slot(scopes, d)?;
        let mut parts = [NONE; 4];
        for (part, from) in [(1, a), (0, b)] {
            let value = self.src(scopes, from, source, guard)?;
            parts[part] = self.new_slot();
            let cvt = Op::Cvt {
                dt: lane,
                st: source,
                rnd: Some(mode.rnd),
                to_int: false,
                ftz: mode.ftz,
                sat: mode.sat,
                d: parts[part],
                a: value,
            };
            self.emit(cvt, guard);
        }
        self.emit(
            Op::Pack {
                d,
                parts,
                n: 2,
                bits: 16,
            },
            guard,
        );
        Ok(())
    }
}
