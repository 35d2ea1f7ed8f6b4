//! One PTX instruction -> `Op`s: the opcode's meaning, with operands resolved by `operands`.

use super::operands::{
    bool_of, cmp_of, guard_bits, name_of, rnd_of, space_of, special_of, Mods, Scopes,
};
use super::{Builder, Instance, Name, VarLoc, PRED_TRUE};
use crate::error::SimError;
use crate::ir::*;
use crate::parse::{Instruction, Operand};

impl Builder<'_> {
    pub(super) fn instruction(
        &mut self,
        scopes: &mut Scopes,
        inst: &Instance,
        ins: &Instruction,
    ) -> Result<(), SimError> {
        let guard = match &ins.guard {
            None => NONE,
            Some((p, neg)) => guard_bits(self.pred_reg(scopes, p)?, *neg),
        };
        let parts: Vec<&str> = ins.opcode.split('.').collect();
        let base = parts[0];
        let mut mods = Mods::new(&parts[1..]);
        let op = self.decode(scopes, inst, ins, base, &mut mods, guard)?;
        if let Some(m) = mods.unused() {
            return Err(self.unsupported(format!("instruction `{}` (modifier `.{m}`)", ins.opcode)));
        }
        if let Some(op) = op {
            self.emit(op, guard);
        }
        Ok(())
    }

    fn need_ty(&self, tys: &[Ty], ins: &Instruction) -> Result<Ty, SimError> {
        tys.last()
            .copied()
            .ok_or_else(|| self.unsupported(format!("instruction `{}`", ins.opcode)))
    }

    fn fmode(&self, mods: &mut Mods) -> FMode {
        let rnd = mods
            .find(|m| rnd_of(m).filter(|r| !r.1))
            .map_or(Rnd::Rn, |r| r.0);
        FMode {
            rnd,
            ftz: mods.has("ftz"),
            sat: mods.has("sat"),
        }
    }

    /// Returns the op to emit with the instruction's guard, or `None` when it emitted its own.
    /// Each family of opcodes is decoded by a method of its own.
    fn decode(
        &mut self,
        scopes: &mut Scopes,
        inst: &Instance,
        ins: &Instruction,
        base: &str,
        mods: &mut Mods,
        guard: u32,
    ) -> Result<Option<Op>, SimError> {
        let family = match base {
            "mov" | "prmt" | "cvt" | "cvta" | "isspacep" => Self::decode_move,
            "ld" | "ldu" | "st" | "atom" | "red" => Self::decode_memory,
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor"
            | "shl" | "shr" | "copysign" | "addc" | "subc" | "mul24" | "bmsk" => {
                Self::decode_two_operand
            }
            "mad" | "madc" | "fma" | "mad24" | "sad" | "bfe" | "slct" | "abs" | "neg" | "not"
            | "cnot" | "popc" | "clz" | "brev" | "bfind" | "sqrt" | "rsqrt" | "rcp" | "ex2"
            | "lg2" | "sin" | "cos" | "tanh" | "bfi" | "shf" | "lop3" => Self::decode_arithmetic,
            "testp" | "setp" | "set" | "selp" => Self::decode_compare,
            "bra" | "brx" | "ret" | "exit" | "trap" | "brkpt" | "nanosleep" | "membar"
            | "fence" | "prefetch" | "prefetchu" | "pmevent" | "discard" | "griddepcontrol"
            | "call" | "bar" | "barrier" => Self::decode_control,
            "shfl" | "vote" | "match" | "redux" | "activemask" | "elect" => Self::decode_warp,
            _ => return Err(self.unsupported_instruction(ins)),
        };
        family(self, scopes, inst, ins, base, mods, guard)
    }

    fn unsupported_instruction(&self, ins: &Instruction) -> SimError {
        self.unsupported(format!("instruction `{}`", ins.opcode))
    }

    /// Moves, packs and conversions: `mov`, `cvt`, `cvta`, `isspacep`, `prmt`.
    fn decode_move(
        &mut self,
        scopes: &mut Scopes,
        _inst: &Instance,
        ins: &Instruction,
        base: &str,
        mods: &mut Mods,
        guard: u32,
    ) -> Result<Option<Op>, SimError> {
        let unsupported = |b: &Self| b.unsupported_instruction(ins);
        let o = |i: usize| operand(ins, i);
        let is_pred = mods.has("pred");
        let tys = mods.types();
        Ok(Some(match base {
            "mov" => {
                if is_pred {
                    let d = self.pred_reg(scopes, &name_of(o(0)?)?)?;
                    return Ok(Some(match o(1)? {
                        Operand::Int(v) => Op::PredSet { d, value: *v != 0 },
                        other => {
                            let (a, na) = self.pred_src(scopes, &other.clone())?;
                            Op::PredLogic {
                                op: None,
                                d,
                                a,
                                na,
                                b: a,
                                nb: na,
                            }
                        }
                    }));
                }
                let ty = self.need_ty(&tys, ins)?;
                match (o(0)?.clone(), o(1)?.clone()) {
                    (Operand::Vector(ds), a) => {
                        let a = self.src(scopes, &a, ty, guard)?;
                        let mut slots = [NONE; 4];
                        for (i, d) in ds.iter().enumerate().take(4) {
                            slots[i] = match d {
                                Operand::Sink => NONE,
                                d => self.dst(scopes, d)?,
                            };
                        }
                        let n = ds.len() as u8;
                        Op::Unpack {
                            ds: slots,
                            n,
                            bits: (ty.bits() / n as u32) as u8,
                            a,
                        }
                    }
                    (d, Operand::Vector(parts)) => {
                        let d = self.dst(scopes, &d)?;
                        let n = parts.len() as u8;
                        let part_ty = match ty.bits() / n as u32 {
                            8 => Ty::U8,
                            16 => Ty::U16,
                            32 => Ty::U32,
                            _ => return Err(unsupported(self)),
                        };
                        let mut slots = [NONE; 4];
                        for (i, p) in parts.iter().enumerate().take(4) {
                            slots[i] = self.src(scopes, p, part_ty, guard)?;
                        }
                        Op::Pack {
                            d,
                            parts: slots,
                            n,
                            bits: part_ty.bits() as u8,
                        }
                    }
                    (d, Operand::Name(n))
                        if n.starts_with('%')
                            && special_of(&n).is_some()
                            && self.lookup(scopes, &n).is_none() =>
                    {
                        let d = self.dst(scopes, &d)?;
                        Op::Special {
                            d,
                            reg: special_of(&n).expect("checked"),
                        }
                    }
                    (d, a) => {
                        let d = self.dst(scopes, &d)?;
                        let a = self.src(scopes, &a, ty, guard)?;
                        Op::Mov { d, a }
                    }
                }
            }
            "prmt" => {
                let mode = mods
                    .find(|m| {
                        Some(match m {
                            "f4e" => 1,
                            "b4e" => 2,
                            "rc8" => 3,
                            "ecl" => 4,
                            "ecr" => 5,
                            "rc16" => 6,
                            _ => return None,
                        })
                    })
                    .unwrap_or(0);
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), Ty::U32, guard)?;
                let b = self.src(scopes, &o(2)?.clone(), Ty::U32, guard)?;
                let c = self.src(scopes, &o(3)?.clone(), Ty::U32, guard)?;
                Op::Prmt { d, a, b, c, mode }
            }
            "cvt" => {
                if let Some(fp8) = mods.find(super::fp8::fp8_of) {
                    // `.satfinite` is how PTX spells every conversion to FP8, and only those.
                    let to_fp8 = mods.has("satfinite");
                    let (Some(Rnd::Rn), [other]) = (mods.find(rnd_of).map(|r| r.0), &tys[..])
                    else {
                        return Err(unsupported(self));
                    };
                    return self
                        .convert_fp8(scopes, ins, fp8, *other, to_fp8, guard)
                        .map(|_| None);
                }
                if tys.len() != 2 {
                    return Err(unsupported(self));
                }
                let (dt, st) = (tys[0], tys[1]);
                let r = mods.find(rnd_of);
                let ftz = mods.has("ftz");
                let sat = mods.has("sat");
                if dt.is_pair() {
                    let rnd = r.map_or(Rnd::Rn, |r| r.0);
                    let mode = FMode { rnd, ftz, sat };
                    return self
                        .convert_to_pair(scopes, ins, dt.half_lane(), st, mode, guard)
                        .map(|_| None);
                }
                if st.is_pair() {
                    return Err(unsupported(self));
                }
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), st, guard)?;
                Op::Cvt {
                    dt,
                    st,
                    rnd: r.map(|r| r.0),
                    to_int: r.is_some_and(|r| r.1),
                    ftz,
                    sat,
                    d,
                    a,
                }
            }
            "cvta" | "isspacep" => {
                let to = mods.has("to");
                let space = mods.find(space_of).ok_or_else(|| unsupported(self))?;
                if !matches!(
                    space,
                    MemSpace::Global | MemSpace::Shared | MemSpace::Local | MemSpace::Const
                ) {
                    return Err(unsupported(self));
                }
                if base == "isspacep" {
                    let p = self.pred_reg(scopes, &name_of(o(0)?)?)?;
                    let a = self.src(scopes, &o(1)?.clone(), Ty::U64, guard)?;
                    return Ok(Some(Op::Isspacep { space, p, a }));
                }
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), Ty::U64, guard)?;
                Op::Cvta { space, to, d, a }
            }
            _ => unreachable!("decode sends only this family's opcodes here"),
        }))
    }

    /// Loads, stores and atomics: `ld`, `ldu`, `st`, `atom`, `red`.
    fn decode_memory(
        &mut self,
        scopes: &mut Scopes,
        _inst: &Instance,
        ins: &Instruction,
        base: &str,
        mods: &mut Mods,
        guard: u32,
    ) -> Result<Option<Op>, SimError> {
        // Every instruction may carry these modifiers: they are taken (and so not
        // refused as unknown) whether or not this family reads them.
        let _is_pred = mods.has("pred");
        let unsupported = |b: &Self| b.unsupported_instruction(ins);
        let o = |i: usize| operand(ins, i);
        let tys = mods.types();
        Ok(Some(match base {
            "ld" | "ldu" | "st" => {
                let is_store = base == "st";
                let mut space = mods.find(space_of).unwrap_or(MemSpace::Generic);
                if base == "ldu" && space == MemSpace::Generic {
                    space = MemSpace::Global;
                }
                let vec = if mods.has("v2") {
                    2
                } else if mods.has("v4") {
                    4
                } else {
                    1
                };
                if matches!(space, MemSpace::Global | MemSpace::Generic)
                    && ["volatile", "relaxed", "acquire", "release"]
                        .iter()
                        .any(|m| mods.list.contains(m))
                {
                    self.cross_block_sync = true;
                }
                let ty = self.need_ty(&tys, ins)?;
                if matches!(ty, Ty::F16 | Ty::BF16) && vec > 1 {
                    return Err(unsupported(self));
                }
                let (addr_op, val_op) = if is_store {
                    (o(0)?, o(1)?)
                } else {
                    (o(1)?, o(0)?)
                };
                let (var, addr, mut off) = self.address(scopes, &addr_op.clone())?;
                if space == MemSpace::KernelParam {
                    match var {
                        Some(VarLoc::KernelParam(p)) => off += p as i64,
                        Some(VarLoc::Scratch(p)) => {
                            space = MemSpace::Scratch;
                            off += p as i64
                        }
                        // The kernel's parameters read through an address taken of them.
                        None if !is_store && addr != NONE => {}
                        _ => return Err(self.unsupported("`st.param` through a register")),
                    }
                }
                let items: Vec<Operand> = match val_op {
                    Operand::Vector(v) => v.clone(),
                    other => vec![other.clone()],
                };
                if items.len() != vec as usize {
                    return Err(self.invalid("vector width does not match the operand list"));
                }
                let mut slots = [NONE; 4];
                for (i, it) in items.iter().enumerate() {
                    slots[i] = if is_store {
                        self.src(scopes, it, ty, guard)?
                    } else {
                        self.dst(scopes, it)?
                    };
                }
                if is_store {
                    Op::St {
                        space,
                        ty,
                        vec,
                        v: slots,
                        addr,
                        off,
                    }
                } else {
                    Op::Ld {
                        space,
                        ty,
                        vec,
                        d: slots,
                        addr,
                        off,
                    }
                }
            }
            "atom" | "red" => {
                let space = mods.find(space_of).unwrap_or(MemSpace::Generic);
                let op = mods
                    .find(|m| {
                        Some(match m {
                            "add" => AtomOp::Add,
                            "min" => AtomOp::Min,
                            "max" => AtomOp::Max,
                            "and" => AtomOp::And,
                            "or" => AtomOp::Or,
                            "xor" => AtomOp::Xor,
                            "exch" => AtomOp::Exch,
                            "cas" => AtomOp::Cas,
                            "inc" => AtomOp::Inc,
                            "dec" => AtomOp::Dec,
                            _ => return None,
                        })
                    })
                    .ok_or_else(|| unsupported(self))?;
                let ty = self.need_ty(&tys, ins)?;
                if !matches!(ty.bits(), 32 | 64)
                    || !matches!(
                        space,
                        MemSpace::Global | MemSpace::Shared | MemSpace::Generic
                    )
                {
                    return Err(unsupported(self));
                }
                if space != MemSpace::Shared {
                    self.has_global_atomics = true;
                }
                if mods.has("sys") {
                    self.has_system_atomics = true;
                }
                let first = if base == "atom" { 1 } else { 0 };
                let d = if base == "atom" {
                    self.dst(scopes, o(0)?)?
                } else {
                    NONE
                };
                let (_, addr, off) = self.address(scopes, &o(first)?.clone())?;
                let b = self.src(scopes, &o(first + 1)?.clone(), ty, guard)?;
                let c = if op == AtomOp::Cas {
                    self.src(scopes, &o(first + 2)?.clone(), ty, guard)?
                } else {
                    NONE
                };
                Op::Atom {
                    space,
                    op,
                    ty,
                    d,
                    addr,
                    off,
                    b,
                    c,
                }
            }
            _ => unreachable!("decode sends only this family's opcodes here"),
        }))
    }

    /// Two-operand integer and float arithmetic and logic, and `bmsk`.
    fn decode_two_operand(
        &mut self,
        scopes: &mut Scopes,
        _inst: &Instance,
        ins: &Instruction,
        base: &str,
        mods: &mut Mods,
        guard: u32,
    ) -> Result<Option<Op>, SimError> {
        let unsupported = |b: &Self| b.unsupported_instruction(ins);
        let o = |i: usize| operand(ins, i);
        let is_pred = mods.has("pred");
        let tys = mods.types();
        Ok(Some(match base {
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor"
            | "shl" | "shr" | "copysign" | "addc" | "subc" | "mul24" => {
                if is_pred && matches!(base, "and" | "or" | "xor") {
                    let d = self.pred_reg(scopes, &name_of(o(0)?)?)?;
                    let (a, na) = self.pred_src(scopes, &o(1)?.clone())?;
                    let (b, nb) = self.pred_src(scopes, &o(2)?.clone())?;
                    return Ok(Some(Op::PredLogic {
                        op: bool_of(base),
                        d,
                        a,
                        na,
                        b,
                        nb,
                    }));
                }
                let ty = self.need_ty(&tys, ins)?;
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), ty, guard)?;
                let b_ty = if matches!(base, "shl" | "shr") {
                    Ty::U32
                } else {
                    ty
                };
                let b = self.src(scopes, &o(2)?.clone(), b_ty, guard)?;
                if ty.is_float() {
                    let halves = ty.is_half();
                    if halves && !matches!(base, "add" | "sub" | "mul" | "min" | "max") {
                        return Err(unsupported(self));
                    }
                    let approx = mods.has("approx") | mods.has("full");
                    let nan = mods.has("NaN");
                    let m = self.fmode(mods);
                    let _ = approx;
                    let op = match base {
                        "add" => FOp::Add,
                        "sub" => FOp::Sub,
                        "mul" => FOp::Mul,
                        "div" => FOp::Div,
                        "min" if nan => FOp::MinNan,
                        "max" if nan => FOp::MaxNan,
                        "min" => FOp::Min,
                        "max" => FOp::Max,
                        "copysign" => FOp::Copysign,
                        _ => return Err(unsupported(self)),
                    };
                    Op::Float2 { op, ty, m, d, a, b }
                } else {
                    let cc = mods.has("cc");
                    if matches!(base, "addc" | "subc") || cc {
                        let op = if base.starts_with("add") {
                            CarryOp::Add
                        } else {
                            CarryOp::Sub
                        };
                        return Ok(Some(Op::Carry {
                            op,
                            ty,
                            d,
                            a,
                            b,
                            c: NONE,
                            cin: base.ends_with('c'),
                            cout: cc,
                        }));
                    }
                    let sat = mods.has("sat");
                    let hi = mods.has("hi");
                    let lo = mods.has("lo");
                    let wide = mods.has("wide");
                    let _ = lo;
                    let op = match base {
                        "add" if sat => IntOp::AddSat,
                        "sub" if sat => IntOp::SubSat,
                        "add" => IntOp::Add,
                        "sub" => IntOp::Sub,
                        "mul" if hi => IntOp::MulHi,
                        "mul" if wide => IntOp::MulWide,
                        "mul" => IntOp::MulLo,
                        "mul24" if hi => IntOp::Mul24Hi,
                        "mul24" => IntOp::Mul24Lo,
                        "div" => IntOp::Div,
                        "rem" => IntOp::Rem,
                        "min" => IntOp::Min,
                        "max" => IntOp::Max,
                        "and" => IntOp::And,
                        "or" => IntOp::Or,
                        "xor" => IntOp::Xor,
                        "shl" => IntOp::Shl,
                        "shr" => IntOp::Shr,
                        _ => return Err(unsupported(self)),
                    };
                    Op::Int2 { op, ty, d, a, b }
                }
            }
            "bmsk" => {
                mods.has("clamp");
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), Ty::U32, guard)?;
                let b = self.src(scopes, &o(2)?.clone(), Ty::U32, guard)?;
                Op::Int2 {
                    op: IntOp::Bmsk,
                    ty: Ty::U32,
                    d,
                    a,
                    b,
                }
            }
            _ => unreachable!("decode sends only this family's opcodes here"),
        }))
    }

    /// Three-operand and one-operand arithmetic, and bit-field operations.
    fn decode_arithmetic(
        &mut self,
        scopes: &mut Scopes,
        _inst: &Instance,
        ins: &Instruction,
        base: &str,
        mods: &mut Mods,
        guard: u32,
    ) -> Result<Option<Op>, SimError> {
        let unsupported = |b: &Self| b.unsupported_instruction(ins);
        let o = |i: usize| operand(ins, i);
        let is_pred = mods.has("pred");
        let tys = mods.types();
        Ok(Some(match base {
            "mad" | "madc" | "fma" | "mad24" | "sad" | "bfe" | "slct" => {
                let ty = if base == "slct" {
                    tys[0]
                } else {
                    self.need_ty(&tys, ins)?
                };
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), ty, guard)?;
                let bc_ty = if base == "bfe" { Ty::U32 } else { ty };
                let b = self.src(scopes, &o(2)?.clone(), bc_ty, guard)?;
                let c_ty = if base == "slct" {
                    *tys.last().expect("slct has two types")
                } else {
                    bc_ty
                };
                let c = self.src(scopes, &o(3)?.clone(), c_ty, guard)?;
                if ty.is_float() {
                    // Halves have `fma` only; floats `fma` and `mad`.
                    let halves = ty.is_half();
                    if base != "fma" && (halves || base != "mad") {
                        return Err(unsupported(self));
                    }
                    let m = self.fmode(mods);
                    if halves && mods.has("relu") {
                        // `.relu`: a negative result is 0 and a NaN the canonical NaN, which
                        // is what `max.NaN` of the result and 0 gives.
                        let t = self.new_slot();
                        self.emit(
                            Op::Fma {
                                ty,
                                m,
                                d: t,
                                a,
                                b,
                                c,
                            },
                            guard,
                        );
                        let zero = self.const_slot(0);
                        let (op, a, b) = (FOp::MaxNan, t, zero);
                        return Ok(Some(Op::Float2 { op, ty, m, d, a, b }));
                    }
                    return Ok(Some(Op::Fma { ty, m, d, a, b, c }));
                }
                let hi = mods.has("hi");
                let lo = mods.has("lo");
                let wide = mods.has("wide");
                let cc = mods.has("cc");
                let _ = lo;
                if base == "madc" || cc {
                    let op = if hi { CarryOp::MadHi } else { CarryOp::MadLo };
                    return Ok(Some(Op::Carry {
                        op,
                        ty,
                        d,
                        a,
                        b,
                        c,
                        cin: base == "madc",
                        cout: cc,
                    }));
                }
                let op = match base {
                    "mad" if hi => IntOp3::MadHi,
                    "mad" if wide => IntOp3::MadWide,
                    "mad" => IntOp3::MadLo,
                    "mad24" if !hi => IntOp3::Mad24Lo,
                    "sad" => IntOp3::Sad,
                    "bfe" => IntOp3::Bfe,
                    "slct" if c_ty == Ty::F32 => {
                        mods.has("ftz");
                        IntOp3::SlctF32
                    }
                    "slct" => IntOp3::SlctS32,
                    _ => return Err(unsupported(self)),
                };
                Op::Int3 { op, ty, d, a, b, c }
            }
            "abs" | "neg" | "not" | "cnot" | "popc" | "clz" | "brev" | "bfind" | "sqrt"
            | "rsqrt" | "rcp" | "ex2" | "lg2" | "sin" | "cos" | "tanh" => {
                if is_pred && base == "not" {
                    let d = self.pred_reg(scopes, &name_of(o(0)?)?)?;
                    let (a, na) = self.pred_src(scopes, &o(1)?.clone())?;
                    return Ok(Some(Op::PredLogic {
                        op: None,
                        d,
                        a,
                        na: !na,
                        b: a,
                        nb: !na,
                    }));
                }
                let ty = self.need_ty(&tys, ins)?;
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), ty, guard)?;
                if ty.is_float() {
                    let halves = ty.is_half();
                    if halves && !matches!(base, "neg" | "abs" | "ex2" | "tanh") {
                        return Err(unsupported(self));
                    }
                    let approx = mods.has("approx");
                    mods.has("full");
                    let m = self.fmode(mods);
                    let op = match base {
                        "abs" => FUn::Abs,
                        "neg" => FUn::Neg,
                        "sqrt" => FUn::Sqrt,
                        "rsqrt" => FUn::Rsqrt,
                        "rcp" if approx && ty == Ty::F64 => FUn::RcpApprox,
                        "rcp" => FUn::Rcp,
                        "ex2" => FUn::Ex2,
                        "lg2" => FUn::Lg2,
                        "sin" => FUn::Sin,
                        "cos" => FUn::Cos,
                        "tanh" => FUn::Tanh,
                        _ => return Err(unsupported(self)),
                    };
                    Op::Float1 { op, ty, m, d, a }
                } else {
                    let shiftamt = mods.has("shiftamt");
                    let op = match base {
                        "abs" => IntUn::Abs,
                        "neg" => IntUn::Neg,
                        "not" => IntUn::Not,
                        "cnot" => IntUn::Cnot,
                        "popc" => IntUn::Popc,
                        "clz" => IntUn::Clz,
                        "brev" => IntUn::Brev,
                        "bfind" if shiftamt => IntUn::BfindShift,
                        "bfind" => IntUn::Bfind,
                        _ => return Err(unsupported(self)),
                    };
                    Op::Int1 { op, ty, d, a }
                }
            }
            "bfi" => {
                let ty = self.need_ty(&tys, ins)?;
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), ty, guard)?;
                let b = self.src(scopes, &o(2)?.clone(), ty, guard)?;
                let pos = self.src(scopes, &o(3)?.clone(), Ty::U32, guard)?;
                let len = self.src(scopes, &o(4)?.clone(), Ty::U32, guard)?;
                Op::Bfi {
                    ty,
                    d,
                    a,
                    b,
                    pos,
                    len,
                }
            }
            "shf" => {
                let left = mods.has("l");
                let right = mods.has("r");
                let clamp = mods.has("clamp");
                let wrap = mods.has("wrap");
                if left == right || clamp == wrap {
                    return Err(unsupported(self));
                }
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), Ty::U32, guard)?;
                let b = self.src(scopes, &o(2)?.clone(), Ty::U32, guard)?;
                let c = self.src(scopes, &o(3)?.clone(), Ty::U32, guard)?;
                Op::Shf {
                    d,
                    a,
                    b,
                    c,
                    left,
                    clamp,
                }
            }
            "lop3" => {
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), Ty::U32, guard)?;
                let b = self.src(scopes, &o(2)?.clone(), Ty::U32, guard)?;
                let c = self.src(scopes, &o(3)?.clone(), Ty::U32, guard)?;
                let Operand::Int(lut) = o(4)? else {
                    return Err(self.invalid("lop3 needs an immediate lookup table"));
                };
                Op::Lop3 {
                    d,
                    a,
                    b,
                    c,
                    lut: *lut as u8,
                }
            }
            _ => unreachable!("decode sends only this family's opcodes here"),
        }))
    }

    /// Tests, comparisons and selection: `testp`, `setp`, `set`, `selp`.
    fn decode_compare(
        &mut self,
        scopes: &mut Scopes,
        _inst: &Instance,
        ins: &Instruction,
        base: &str,
        mods: &mut Mods,
        guard: u32,
    ) -> Result<Option<Op>, SimError> {
        // Every instruction may carry these modifiers: they are taken (and so not
        // refused as unknown) whether or not this family reads them.
        let _is_pred = mods.has("pred");
        let unsupported = |b: &Self| b.unsupported_instruction(ins);
        let o = |i: usize| operand(ins, i);
        let tys = mods.types();
        Ok(Some(match base {
            "testp" => {
                let op = mods
                    .find(|m| {
                        Some(match m {
                            "finite" => TestP::Finite,
                            "infinite" => TestP::Infinite,
                            "number" => TestP::Number,
                            "notanumber" => TestP::NotANumber,
                            "normal" => TestP::Normal,
                            "subnormal" => TestP::Subnormal,
                            _ => return None,
                        })
                    })
                    .ok_or_else(|| unsupported(self))?;
                let ty = self.need_ty(&tys, ins)?;
                let p = self.pred_reg(scopes, &name_of(o(0)?)?)?;
                let a = self.src(scopes, &o(1)?.clone(), ty, guard)?;
                Op::Testp { op, ty, p, a }
            }
            "setp" | "set" => {
                let cmp = mods.find(cmp_of).ok_or_else(|| unsupported(self))?;
                let bop = mods.find(bool_of);
                let ftz = mods.has("ftz");
                // `set` has a destination type before the source type.
                let ty = if base == "set" {
                    tys.get(1).copied()
                } else {
                    tys.first().copied()
                }
                .ok_or_else(|| unsupported(self))?;
                if ty.is_pair() {
                    let compare = super::halves::PairCompare {
                        lane: ty.half_lane(),
                        cmp,
                        bop,
                        ftz,
                        set_type: (base == "set").then_some(tys[0]),
                    };
                    return self
                        .compare_pairs(scopes, ins, compare, guard)
                        .map(|_| None);
                }
                let a = self.src(scopes, &o(1)?.clone(), ty, guard)?;
                let b = self.src(scopes, &o(2)?.clone(), ty, guard)?;
                let comb = match bop {
                    Some(bop) => {
                        let (c, nc) = self.pred_src(scopes, &o(3)?.clone())?;
                        Some((bop, c, nc))
                    }
                    None => None,
                };
                if base == "set" {
                    let p = self.new_pred();
                    self.emit(
                        Op::Setp {
                            cmp,
                            ty,
                            ftz,
                            p,
                            q: NONE,
                            a,
                            b,
                            comb,
                        },
                        guard,
                    );
                    let d = self.dst(scopes, o(0)?)?;
                    let one = match tys[0] {
                        Ty::F32 => 1f32.to_bits() as u64,
                        Ty::F16 => super::halves::ONE,
                        Ty::BF16 => super::halves::BF16_ONE,
                        _ => u32::MAX as u64,
                    };
                    let (t, f) = (self.const_slot(one), self.const_slot(0));
                    return Ok(Some(Op::Selp {
                        d,
                        a: t,
                        b: f,
                        p,
                        neg: false,
                    }));
                }
                let (p, q) = match o(0)? {
                    Operand::Name(p) => (self.pred_reg(scopes, p)?, NONE),
                    Operand::Pair(p, q) => (self.pred_reg(scopes, p)?, self.pred_reg(scopes, q)?),
                    _ => return Err(self.invalid("setp needs a predicate destination")),
                };
                Op::Setp {
                    cmp,
                    ty,
                    ftz,
                    p,
                    q,
                    a,
                    b,
                    comb,
                }
            }
            "selp" => {
                let ty = self.need_ty(&tys, ins)?;
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), ty, guard)?;
                let b = self.src(scopes, &o(2)?.clone(), ty, guard)?;
                let (p, neg) = self.pred_src(scopes, &o(3)?.clone())?;
                Op::Selp { d, a, b, p, neg }
            }
            _ => unreachable!("decode sends only this family's opcodes here"),
        }))
    }

    /// Branches, returns, exits, calls, barriers and fences.
    fn decode_control(
        &mut self,
        scopes: &mut Scopes,
        inst: &Instance,
        ins: &Instruction,
        base: &str,
        mods: &mut Mods,
        guard: u32,
    ) -> Result<Option<Op>, SimError> {
        // Every instruction may carry these modifiers: they are taken (and so not
        // refused as unknown) whether or not this family reads them.
        let _is_pred = mods.has("pred");
        let _tys = mods.types();
        let unsupported = |b: &Self| b.unsupported_instruction(ins);
        let o = |i: usize| operand(ins, i);
        Ok(Some(match base {
            "bra" => {
                let target = self.label(inst, &name_of(o(0)?)?)?;
                Op::Bra { target }
            }
            "brx" => {
                if !mods.has("idx") {
                    return Err(unsupported(self));
                }
                let idx = self.src(scopes, &o(0)?.clone(), Ty::U32, guard)?;
                let table = name_of(o(1)?)?;
                let names = inst
                    .tables
                    .get(&table)
                    .ok_or_else(|| self.invalid(format!("unknown branch table `{table}`")))?;
                let targets = names
                    .iter()
                    .map(|n| self.label(inst, n))
                    .collect::<Result<Vec<_>, _>>()?;
                Op::Brx {
                    idx,
                    targets: targets.into(),
                }
            }
            "ret" => match inst.ret_label {
                None => Op::Exit,
                Some(l) => Op::Bra { target: l },
            },
            "exit" => Op::Exit,
            "trap" | "brkpt" => Op::Trap,
            "nanosleep" => {
                mods.has("u32");
                let t = self.src(scopes, &o(0)?.clone(), Ty::U32, guard)?;
                Op::Nanosleep { t }
            }
            "membar" | "fence" | "prefetch" | "prefetchu" | "pmevent" | "discard"
            | "griddepcontrol" => {
                if matches!(base, "membar" | "fence") && !mods.list.contains(&"cta") {
                    self.cross_block_sync = true;
                }
                for i in 0..mods.list.len() {
                    mods.used[i] = true;
                }
                Op::Nop
            }
            "call" => return self.call(scopes, ins, guard).map(|_| None),
            "bar" | "barrier" => {
                mods.has("cta");
                if mods.has("warp") {
                    mods.has("sync");
                    let mask = self.src(scopes, &o(0)?.clone(), Ty::U32, guard)?;
                    return Ok(Some(Op::WarpSync { mask }));
                }
                let kind = if mods.has("sync") {
                    BarKind::Sync
                } else if mods.has("arrive") {
                    BarKind::Arrive
                } else if mods.has("red") {
                    if mods.has("popc") {
                        BarKind::RedPopc
                    } else if mods.has("and") {
                        BarKind::RedAnd
                    } else if mods.has("or") {
                        BarKind::RedOr
                    } else {
                        return Err(unsupported(self));
                    }
                } else if mods.list.is_empty() {
                    BarKind::Sync
                } else {
                    return Err(unsupported(self));
                };
                let reduces = !matches!(kind, BarKind::Sync | BarKind::Arrive);
                let first = usize::from(reduces);
                let nops = ins.operands.len() - first;
                // `bar.sync a, b` waits for b threads: producer-consumer barriers are not modelled.
                if (reduces && nops != 2) || (!reduces && nops != 1) || kind == BarKind::Arrive {
                    return Err(self.unsupported(format!("`{}` with a thread count", ins.opcode)));
                }
                // Barrier ids are not told apart: all threads must reach the same barrier anyway.
                self.src(scopes, &o(first)?.clone(), Ty::U32, guard)?;
                let (mut d, mut dp, mut p, mut np) = (NONE, NONE, PRED_TRUE, false);
                if reduces {
                    (p, np) = self.pred_src(scopes, &o(first + 1)?.clone())?;
                    if kind == BarKind::RedPopc {
                        d = self.dst(scopes, o(0)?)?;
                    } else {
                        dp = self.pred_reg(scopes, &name_of(o(0)?)?)?;
                    }
                }
                Op::Bar { kind, d, p, np, dp }
            }
            _ => unreachable!("decode sends only this family's opcodes here"),
        }))
    }

    /// Warp-wide operations: shuffles, votes, `match`, `redux`, `activemask`, `elect`.
    fn decode_warp(
        &mut self,
        scopes: &mut Scopes,
        _inst: &Instance,
        ins: &Instruction,
        base: &str,
        mods: &mut Mods,
        guard: u32,
    ) -> Result<Option<Op>, SimError> {
        // Every instruction may carry these modifiers: they are taken (and so not
        // refused as unknown) whether or not this family reads them.
        let _is_pred = mods.has("pred");
        let unsupported = |b: &Self| b.unsupported_instruction(ins);
        let o = |i: usize| operand(ins, i);
        let tys = mods.types();
        Ok(Some(match base {
            "shfl" => {
                if !mods.has("sync") {
                    return Err(unsupported(self));
                }
                let mode = mods
                    .find(|m| {
                        Some(match m {
                            "up" => ShflMode::Up,
                            "down" => ShflMode::Down,
                            "bfly" => ShflMode::Bfly,
                            "idx" => ShflMode::Idx,
                            _ => return None,
                        })
                    })
                    .ok_or_else(|| unsupported(self))?;
                let (d, p) = match o(0)? {
                    Operand::Pair(d, p) => (self.reg_slot(scopes, d)?, self.pred_reg(scopes, p)?),
                    other => (self.dst(scopes, other)?, NONE),
                };
                let a = self.src(scopes, &o(1)?.clone(), Ty::U32, guard)?;
                let b = self.src(scopes, &o(2)?.clone(), Ty::U32, guard)?;
                let c = self.src(scopes, &o(3)?.clone(), Ty::U32, guard)?;
                let mask = self.src(scopes, &o(4)?.clone(), Ty::U32, guard)?;
                Op::Shfl {
                    mode,
                    d,
                    p,
                    a,
                    b,
                    c,
                    mask,
                }
            }
            "vote" => {
                let synced = mods.has("sync");
                let mode = mods
                    .find(|m| {
                        Some(match m {
                            "all" => VoteMode::All,
                            "any" => VoteMode::Any,
                            "uni" => VoteMode::Uni,
                            "ballot" => VoteMode::Ballot,
                            _ => return None,
                        })
                    })
                    .ok_or_else(|| unsupported(self))?;
                let (a, na) = self.pred_src(scopes, &o(1)?.clone())?;
                let mask = if synced {
                    self.src(scopes, &o(2)?.clone(), Ty::U32, guard)?
                } else {
                    NONE
                };
                let (d, dp) = if mode == VoteMode::Ballot {
                    (self.dst(scopes, o(0)?)?, NONE)
                } else {
                    (NONE, self.pred_reg(scopes, &name_of(o(0)?)?)?)
                };
                Op::Vote {
                    mode,
                    d,
                    dp,
                    a,
                    na,
                    mask,
                }
            }
            "match" => {
                mods.has("sync");
                let all = mods.has("all");
                if !all && !mods.has("any") {
                    return Err(unsupported(self));
                }
                let ty = self.need_ty(&tys, ins)?;
                let (d, p) = match o(0)? {
                    Operand::Pair(d, p) => (self.reg_slot(scopes, d)?, self.pred_reg(scopes, p)?),
                    other => (self.dst(scopes, other)?, NONE),
                };
                let a = self.src(scopes, &o(1)?.clone(), ty, guard)?;
                let mask = self.src(scopes, &o(2)?.clone(), Ty::U32, guard)?;
                Op::Match {
                    all,
                    ty,
                    d,
                    p,
                    a,
                    mask,
                }
            }
            "redux" => {
                mods.has("sync");
                let op = mods
                    .find(|m| {
                        Some(match m {
                            "add" => ReduxOp::Add,
                            "min" => ReduxOp::Min,
                            "max" => ReduxOp::Max,
                            "and" => ReduxOp::And,
                            "or" => ReduxOp::Or,
                            "xor" => ReduxOp::Xor,
                            _ => return None,
                        })
                    })
                    .ok_or_else(|| unsupported(self))?;
                let ty = self.need_ty(&tys, ins)?;
                if ty.is_float() {
                    return Err(unsupported(self));
                }
                let d = self.dst(scopes, o(0)?)?;
                let a = self.src(scopes, &o(1)?.clone(), ty, guard)?;
                let mask = self.src(scopes, &o(2)?.clone(), Ty::U32, guard)?;
                Op::Redux { op, ty, d, a, mask }
            }
            "activemask" => Op::Activemask {
                d: self.dst(scopes, o(0)?)?,
            },
            "elect" => {
                mods.has("sync");
                let (d, p) = match o(0)? {
                    Operand::Pair(d, p) => (
                        self.dst(scopes, &Operand::Name(d.clone()))?,
                        self.pred_reg(scopes, p)?,
                    ),
                    other => (self.dst(scopes, other)?, NONE),
                };
                let mask = self.src(scopes, &o(1)?.clone(), Ty::U32, guard)?;
                Op::Elect { d, p, mask }
            }
            _ => unreachable!("decode sends only this family's opcodes here"),
        }))
    }

    fn label(&self, inst: &Instance, name: &str) -> Result<u32, SimError> {
        inst.labels
            .get(name)
            .copied()
            .ok_or_else(|| self.invalid(format!("unknown label `{name}`")))
    }

    pub(super) fn scratch_load(
        &mut self,
        scopes: &Scopes,
        name: &Operand,
        ty: Ty,
    ) -> Result<Slot, SimError> {
        let n = name_of(name)?;
        match self.lookup(scopes, &n) {
            Some(Name::Var(VarLoc::Scratch(off))) => {
                let d = self.new_slot();
                self.emit(
                    Op::Ld {
                        space: MemSpace::Scratch,
                        ty,
                        vec: 1,
                        d: [d, NONE, NONE, NONE],
                        addr: NONE,
                        off: off as i64,
                    },
                    NONE,
                );
                Ok(d)
            }
            _ => Err(self.invalid(format!("call argument `{n}` is not a `.param` variable"))),
        }
    }

    fn call(&mut self, scopes: &Scopes, ins: &Instruction, guard: u32) -> Result<(), SimError> {
        let mut ops = ins.operands.iter();
        let mut rets: &[Operand] = &[];
        let mut first = ops
            .next()
            .ok_or_else(|| self.invalid("call without a target"))?;
        if let Operand::List(r) = first {
            rets = r;
            first = ops
                .next()
                .ok_or_else(|| self.invalid("call without a target"))?;
        }
        let Operand::Name(fname) = first else {
            return Err(self.function_pointer_call());
        };
        let args: &[Operand] = match ops.next() {
            Some(Operand::List(a)) => a,
            None => &[],
            Some(_) => return Err(self.function_pointer_call()),
        };
        if self.special_call(scopes, fname, rets, args, guard)? {
            return Ok(());
        }
        match fname.as_str() {
            "vprintf" => {
                if args.len() != 2 {
                    return Err(self.invalid("vprintf takes two arguments"));
                }
                let fmt = self.scratch_load(scopes, &args[0], Ty::U64)?;
                let a = self.scratch_load(scopes, &args[1], Ty::U64)?;
                let d = self.new_slot();
                self.emit(Op::Printf { fmt, args: a, d }, guard);
                self.store_return(scopes, rets, d, Ty::U32, guard)
            }
            "__assertfail" | "__assert_fail" => {
                if args.len() < 4 {
                    return Err(self.invalid("__assertfail takes five arguments"));
                }
                let msg = self.scratch_load(scopes, &args[0], Ty::U64)?;
                let file = self.scratch_load(scopes, &args[1], Ty::U64)?;
                let line = self.scratch_load(scopes, &args[2], Ty::U32)?;
                let func = self.scratch_load(scopes, &args[3], Ty::U64)?;
                self.emit(
                    Op::AssertFail {
                        msg,
                        file,
                        line,
                        func,
                    },
                    guard,
                );
                Ok(())
            }
            name => match self.m.funcs.get(name).copied() {
                Some(callee) => self.inline_call(scopes, callee, rets, args, guard),
                None => Err(self.unsupported(format!("a call to external function `{name}`"))),
            },
        }
    }
}

/// Operand `i` of `ins`, or the error that names the missing one.
fn operand(ins: &Instruction, i: usize) -> Result<&Operand, SimError> {
    ins.operands.get(i).ok_or_else(|| SimError::Invalid {
        message: format!("`{}` is missing operand {}", ins.opcode, i + 1),
        ptx_line: ins.line,
        location: None,
    })
}
