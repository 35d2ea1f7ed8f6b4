//! `cvt` to and from pairs of 8-bit floats (`.e4m3x2`, `.e5m2x2`, `cuda_fp8.h`'s conversions):
//! each member converted alone through its FP8 type (`Ty::E4M3`, `Ty::E5M2`) and the results
//! packed, two bytes into a `.b16` or two halves into an `.f16x2`.

use super::operands::Scopes;
use super::Builder;
use crate::error::SimError;
use crate::ir::*;
use crate::parse::{Instruction, Operand};

/// The FP8 pair a `cvt` modifier names, as the type of one member.
pub(super) fn fp8_of(m: &str) -> Option<Ty> {
    match m {
        "e4m3x2" => Some(Ty::E4M3),
        "e5m2x2" => Some(Ty::E5M2),
        _ => None,
    }
}

impl Builder<'_> {
    /// `cvt.rn.satfinite.e4m3x2.f32 d, a, b` (a to the high byte), `cvt.rn.satfinite.e4m3x2.f16x2
    /// d, a` and `cvt.rn.f16x2.e4m3x2 d, a` (and `.e5m2x2`); `to_fp8` tells the first two from
    /// the last, `other` is the type on the other side.
    pub(super) fn convert_fp8(
        &mut self,
        scopes: &Scopes,
        ins: &Instruction,
        fp8: Ty,
        other: Ty,
        to_fp8: bool,
        guard: u32,
    ) -> Result<(), SimError> {
        let (d, sources) = match (&ins.operands[..], to_fp8, other) {
            ([Operand::Name(d), a, b], true, Ty::F32) => {
                let a = self.src(scopes, a, Ty::F32, guard)?;
                let b = self.src(scopes, b, Ty::F32, guard)?;
                (d, [b, a])
            }
            ([Operand::Name(d), a], true, Ty::F16x2) => (d, self.split(scopes, a, 16, guard)?),
            ([Operand::Name(d), a], false, Ty::F16x2) => (d, self.split(scopes, a, 8, guard)?),
            _ => {
                return Err(self.invalid(format!(
                    "`{}` is not a conversion the simulator knows between FP8 pairs and f32 or \
                     f16x2 (cvt.rn.satfinite.e4m3x2.f32 d, a, b; ...e4m3x2.f16x2 d, a; \
                     cvt.rn.f16x2.e4m3x2 d, a)",
                    ins.opcode
                )))
            }
        };
        let (dt, st, bits) = if to_fp8 {
            (fp8, other.half_lane(), 8)
        } else {
            (Ty::F16, fp8, 16)
        };
        let d = self.reg_slot(scopes, d)?;
        let mut parts = [NONE; 4];
        for (part, a) in parts.iter_mut().zip(sources) {
            *part = self.new_slot();
            let cvt = Op::Cvt {
                dt,
                st,
                rnd: Some(Rnd::Rn),
                to_int: false,
                ftz: false,
                sat: false,
                d: *part,
                a,
            };
            self.emit(cvt, guard);
        }
        let pack = Op::Pack {
            d,
            parts,
            n: 2,
            bits,
        };
        self.emit(pack, guard);
        Ok(())
    }

    /// A register's low and high `bits`-bit members, low first.
    fn split(
        &mut self,
        scopes: &Scopes,
        op: &Operand,
        bits: u8,
        guard: u32,
    ) -> Result<[Slot; 2], SimError> {
        let whole = self.src(scopes, op, Ty::U32, guard)?;
        let (low, high) = (self.new_slot(), self.new_slot());
        let unpack = Op::Unpack {
            ds: [low, high, NONE, NONE],
            n: 2,
            bits,
            a: whole,
        };
        self.emit(unpack, guard);
        Ok([low, high])
    }
}
