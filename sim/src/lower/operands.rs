//! Operands and modifiers: PTX names, literals and addresses resolved to slots, predicates and
//! constants; opcode modifiers decoded.

use super::{Builder, Name, VarLoc, PRED_FALSE, PRED_TRUE};
use crate::error::SimError;
use crate::ir::*;
use crate::parse::Operand;
use std::collections::HashMap;

pub(super) type Scopes = Vec<HashMap<String, super::Declared>>;

pub(super) fn ty_of(m: &str) -> Option<Ty> {
    Some(match m {
        "b8" | "u8" => Ty::U8,
        "s8" => Ty::S8,
        "b16" | "u16" => Ty::U16,
        "s16" => Ty::S16,
        "b32" | "u32" => Ty::U32,
        "s32" => Ty::S32,
        "b64" | "u64" => Ty::U64,
        "s64" => Ty::S64,
        "f16" => Ty::F16,
        "f16x2" => Ty::F16x2,
        "bf16" => Ty::BF16,
        "bf16x2" => Ty::BF16x2,
        "f32" => Ty::F32,
        "f64" => Ty::F64,
        _ => return None,
    })
}

pub(super) fn special_of(name: &str) -> Option<Special> {
    let dim = |s: &str| match s {
        "x" => Some(0u8),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    if let Some((reg, d)) = name.split_once('.') {
        let d = dim(d)?;
        return Some(match reg {
            "%tid" => Special::Tid(d),
            "%ntid" => Special::Ntid(d),
            "%ctaid" => Special::Ctaid(d),
            "%nctaid" => Special::Nctaid(d),
            _ => return None,
        });
    }
    Some(match name {
        "%laneid" => Special::LaneId,
        "%warpid" => Special::WarpId,
        "%nwarpid" => Special::NWarpId,
        "%smid" => Special::SmId,
        "%nsmid" => Special::NSmId,
        "%gridid" => Special::GridId,
        "%lanemask_eq" => Special::LanemaskEq,
        "%lanemask_lt" => Special::LanemaskLt,
        "%lanemask_le" => Special::LanemaskLe,
        "%lanemask_gt" => Special::LanemaskGt,
        "%lanemask_ge" => Special::LanemaskGe,
        "%clock" => Special::Clock,
        "%clock64" => Special::Clock64,
        "%globaltimer" => Special::GlobalTimer,
        "%dynamic_smem_size" => Special::DynamicSmemSize,
        "%total_smem_size" => Special::TotalSmemSize,
        _ => return None,
    })
}

/// Modifiers that never change what the simulator computes: caching, memory ordering and scope
/// (execution is sequentially consistent), alignment and uniformity promises.
pub(super) fn is_ignorable(m: &str) -> bool {
    matches!(
        m,
        "uni"
            | "aligned"
            | "nc"
            | "volatile"
            | "weak"
            | "relaxed"
            | "acquire"
            | "release"
            | "acq_rel"
            | "sc"
            | "mmio"
            | "cta"
            | "gpu"
            | "sys"
            | "cluster"
            | "ca"
            | "cg"
            | "cs"
            | "lu"
            | "cv"
            | "wb"
            | "wt"
            | "noftz"
    ) || m.starts_with("L1::")
        || m.starts_with("L2::")
}

pub(super) fn rnd_of(m: &str) -> Option<(Rnd, bool)> {
    Some(match m {
        "rn" => (Rnd::Rn, false),
        "rz" => (Rnd::Rz, false),
        "rm" => (Rnd::Rm, false),
        "rp" => (Rnd::Rp, false),
        "rni" => (Rnd::Rn, true),
        "rzi" => (Rnd::Rz, true),
        "rmi" => (Rnd::Rm, true),
        "rpi" => (Rnd::Rp, true),
        _ => return None,
    })
}

pub(super) fn cmp_of(m: &str) -> Option<Cmp> {
    Some(match m {
        "eq" => Cmp::Eq,
        "ne" => Cmp::Ne,
        "lt" | "lo" => Cmp::Lt,
        "le" | "ls" => Cmp::Le,
        "gt" | "hi" => Cmp::Gt,
        "ge" | "hs" => Cmp::Ge,
        "equ" => Cmp::Equ,
        "neu" => Cmp::Neu,
        "ltu" => Cmp::Ltu,
        "leu" => Cmp::Leu,
        "gtu" => Cmp::Gtu,
        "geu" => Cmp::Geu,
        "num" => Cmp::Num,
        "nan" => Cmp::Nan,
        _ => return None,
    })
}

pub(super) fn bool_of(m: &str) -> Option<BoolOp> {
    Some(match m {
        "and" => BoolOp::And,
        "or" => BoolOp::Or,
        "xor" => BoolOp::Xor,
        _ => return None,
    })
}

pub(super) fn space_of(m: &str) -> Option<MemSpace> {
    Some(match m {
        "global" => MemSpace::Global,
        "shared" | "shared::cta" | "shared::cluster" => MemSpace::Shared,
        "local" => MemSpace::Local,
        "const" => MemSpace::Const,
        "param" => MemSpace::KernelParam,
        _ => return None,
    })
}

/// Decoded opcode modifiers. Each use marks a modifier as understood; anything left over is
/// reported as unsupported rather than silently ignored.
pub(super) struct Mods<'s> {
    pub list: Vec<&'s str>,
    pub used: Vec<bool>,
}

impl<'s> Mods<'s> {
    pub(super) fn new(parts: &[&'s str]) -> Self {
        let used = parts.iter().map(|m| is_ignorable(m)).collect();
        Mods {
            list: parts.to_vec(),
            used,
        }
    }
    pub(super) fn has(&mut self, m: &str) -> bool {
        match self.list.iter().position(|x| *x == m) {
            Some(i) => {
                self.used[i] = true;
                true
            }
            None => false,
        }
    }
    pub(super) fn find<T>(&mut self, f: impl Fn(&str) -> Option<T>) -> Option<T> {
        for (i, m) in self.list.iter().enumerate() {
            if let Some(v) = f(m) {
                self.used[i] = true;
                return Some(v);
            }
        }
        None
    }
    /// All types in order (cvt has two).
    pub(super) fn types(&mut self) -> Vec<Ty> {
        let mut out = Vec::new();
        for (i, m) in self.list.iter().enumerate() {
            if let Some(t) = ty_of(m) {
                self.used[i] = true;
                out.push(t);
            }
        }
        out
    }
    pub(super) fn unused(&self) -> Option<&'s str> {
        self.list
            .iter()
            .zip(&self.used)
            .find(|(_, u)| !**u)
            .map(|(m, _)| *m)
    }
}

pub(super) fn guard_bits(p: Pred, neg: bool) -> u32 {
    (p << 1) | neg as u32
}

impl Builder<'_> {
    pub(super) fn reg_slot(&mut self, scopes: &Scopes, name: &str) -> Result<Slot, SimError> {
        match self.lookup(scopes, name) {
            Some(Name::Reg(s)) => Ok(s),
            Some(_) => Err(self.invalid(format!("`{name}` is not a data register"))),
            None => Err(self.invalid(format!("undeclared register `{name}`"))),
        }
    }

    pub(super) fn pred_reg(&mut self, scopes: &Scopes, name: &str) -> Result<Pred, SimError> {
        match self.lookup(scopes, name) {
            Some(Name::Pred(p)) => Ok(p),
            _ => Err(self.invalid(format!("`{name}` is not a predicate register"))),
        }
    }

    /// A predicate source: `%p`, `!%p`, or an immediate 0/1.
    pub(super) fn pred_src(
        &mut self,
        scopes: &Scopes,
        op: &Operand,
    ) -> Result<(Pred, bool), SimError> {
        match op {
            Operand::Name(n) => Ok((self.pred_reg(scopes, n)?, false)),
            Operand::Not(n) => Ok((self.pred_reg(scopes, n)?, true)),
            Operand::Int(v) => Ok((if *v != 0 { PRED_TRUE } else { PRED_FALSE }, false)),
            _ => Err(self.invalid("expected a predicate")),
        }
    }

    pub(super) fn dst(&mut self, scopes: &Scopes, op: &Operand) -> Result<Slot, SimError> {
        match op {
            Operand::Name(n) => self.reg_slot(scopes, n),
            Operand::Sink => Ok(self.trash_slot()),
            _ => Err(self.invalid("expected a destination register")),
        }
    }

    pub(super) fn var_address(&mut self, loc: VarLoc, offset: i64) -> Result<Slot, SimError> {
        Ok(match loc {
            VarLoc::Global(g) => {
                if let Some(&s) = self.const_globals.get(&(g, offset)) {
                    s
                } else {
                    let s = self.new_slot();
                    self.const_globals.insert((g, offset), s);
                    s
                }
            }
            VarLoc::Shared(off) | VarLoc::Local(off) => {
                self.const_slot((off as i64 + offset) as u64)
            }
            VarLoc::DynamicShared => {
                let s = self.new_slot();
                self.dyn_shared_slots.push((s, offset));
                s
            }
            // A kernel parameter's address in the parameter space: its offset in the buffer,
            // which `ld.param` through a register reads (a struct passed by value, indexed).
            VarLoc::KernelParam(p) => self.const_slot((p as i64 + offset) as u64),
            VarLoc::Scratch(_) => {
                return Err(
                    self.unsupported("taking the address of a device function's `.param` variable")
                )
            }
        })
    }

    /// A source operand of type `ty`: a register, an immediate (as a constant slot), a variable's
    /// address, or a special register (copied into a fresh slot first).
    pub(super) fn src(
        &mut self,
        scopes: &Scopes,
        op: &Operand,
        ty: Ty,
        guard: u32,
    ) -> Result<Slot, SimError> {
        let mask = |bits: u32| {
            if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            }
        };
        match op {
            Operand::Name(n) => match self.lookup(scopes, n) {
                Some(Name::Reg(s)) => Ok(s),
                Some(Name::Var(loc)) => self.var_address(loc, 0),
                Some(Name::Pred(_)) => {
                    Err(self.invalid(format!("predicate `{n}` used as a value")))
                }
                None => match special_of(n) {
                    Some(reg) => {
                        let d = self.new_slot();
                        self.emit(Op::Special { d, reg }, guard);
                        Ok(d)
                    }
                    // PTX's predefined constant for the warp size, which `warpSize` compiles to.
                    None if n == "WARP_SZ" => Ok(self.const_slot(32)),
                    // A function's name as a value is its address (a function pointer).
                    None if self.m.function_index.contains_key(n.as_str()) => {
                        let index = self.m.function_index[n.as_str()];
                        Ok(self.const_slot(super::calls::function_address(index)))
                    }
                    // Where the driver hands a cooperative launch its grid's workspace.
                    None if n.starts_with("%envreg") => Err(self.unsupported(format!(
                        "grid-wide synchronisation (cooperative groups' `this_grid().sync()` or \
                         `grid_group::is_valid()`, which read `{n}`): it needs a cooperative \
                         launch, which the simulator does not do"
                    ))),
                    None if n.starts_with('%') => {
                        Err(self.unsupported(format!("special register `{n}`")))
                    }
                    None => Err(self.invalid(format!("undeclared name `{n}`"))),
                },
            },
            Operand::NameOffset(n, off) => match self.lookup(scopes, n) {
                Some(Name::Var(loc)) => self.var_address(loc, *off),
                _ => Err(self.invalid(format!("`{n}` is not a variable"))),
            },
            // An integer written where a float is expected is its bit pattern.
            Operand::Int(v) => Ok(self.const_slot(*v & mask(ty.bits()))),
            Operand::F32(b) => Ok(self.const_slot(match ty {
                Ty::F64 => (f32::from_bits(*b) as f64).to_bits(),
                Ty::F16 | Ty::BF16 => half_bits(ty, f32::from_bits(*b) as f64),
                _ => *b as u64,
            })),
            Operand::F64(b) => Ok(self.const_slot(match ty {
                Ty::F32 => (f64::from_bits(*b) as f32).to_bits() as u64,
                Ty::F16 | Ty::BF16 => half_bits(ty, f64::from_bits(*b)),
                _ => *b,
            })),
            Operand::Float(x) => Ok(self.const_slot(match ty {
                Ty::F32 => (*x as f32).to_bits() as u64,
                Ty::F16 | Ty::BF16 => half_bits(ty, *x),
                _ => x.to_bits(),
            })),
            _ => Err(self.invalid("unexpected operand form")),
        }
    }

    /// `[reg+off]`, `[var+off]` or `[imm]`: the slot holding the base and the byte offset.
    pub(super) fn address(
        &mut self,
        scopes: &Scopes,
        op: &Operand,
    ) -> Result<(Option<VarLoc>, Slot, i64), SimError> {
        let Operand::Addr { base, offset } = op else {
            return Err(self.invalid("expected an address `[...]`"));
        };
        match base {
            None => Ok((None, self.const_slot(0), *offset)),
            Some(n) => match self.lookup(scopes, n) {
                Some(Name::Reg(s)) => Ok((None, s, *offset)),
                Some(Name::Var(loc @ (VarLoc::KernelParam(_) | VarLoc::Scratch(_)))) => {
                    Ok((Some(loc), NONE, *offset))
                }
                Some(Name::Var(loc)) => Ok((Some(loc), self.var_address(loc, 0)?, *offset)),
                _ => Err(self.invalid(format!("`{n}` cannot be used as an address"))),
            },
        }
    }
}

/// A float literal written for a half-precision operand, as the half nearest to it.
/// A literal as a 16-bit float of type `ty` (`.f16` or `.bf16`), rounded to nearest.
fn half_bits(ty: Ty, x: f64) -> u64 {
    if ty == Ty::BF16 {
        crate::rounding::round_bf16(x, 0.0, Rnd::Rn) as u64
    } else {
        crate::rounding::round_f16(x, 0.0, Rnd::Rn) as u64
    }
}

pub(super) fn name_of(op: &Operand) -> Result<String, SimError> {
    match op {
        Operand::Name(n) => Ok(n.clone()),
        other => Err(SimError::Invalid {
            message: format!("expected a name, found {other:?}"),
            ptx_line: 0,
            location: None,
        }),
    }
}
