//! Calls the simulator does not inline as written: the device heap's `malloc` and `free`, the
//! device runtime's grid synchronisation (`cudaCGSynchronize`), and
//! calls through a function pointer (`call %rd, (args), prototype;`), which become a comparison
//! of the pointer with each function whose address the module takes, and that function inlined.

use super::operands::Scopes;
use super::{Builder, Name, VarLoc, FUNCTION_ADDRESS_BASE, PRED_TRUE};
use crate::error::SimError;
use crate::ir::*;
use crate::parse::{Ast, Function, InitVal, Operand, Stmt};
use std::collections::{BTreeSet, HashMap};

/// The address a function pointer to function `index` (its place among the module's functions)
/// holds: no memory is there, so the value only has to be distinct and not null.
pub(super) fn function_address(index: u64) -> u64 {
    FUNCTION_ADDRESS_BASE + 16 * index
}

/// The functions with bodies whose address the module takes (an operand that names a function
/// outside a call, or an initialiser holding its address), with that address: what a call through
/// a pointer may reach.
pub(super) fn address_taken<'a>(
    ast: &'a Ast,
    index: &HashMap<&str, u64>,
) -> Vec<(&'a Function, u64)> {
    let mut named = BTreeSet::new();
    let mut note = |name: &str| {
        if let Some(&i) = index.get(name) {
            named.insert(i);
        }
    };
    for f in &ast.funcs {
        for stmt in f.body.iter().flatten() {
            let Stmt::Inst(ins) = stmt else { continue };
            if ins.opcode.split('.').next() == Some("call") {
                continue;
            }
            for op in &ins.operands {
                if let Operand::Name(n) = op {
                    note(n);
                }
            }
        }
    }
    for v in &ast.vars {
        for item in &v.init {
            if let InitVal::Symbol(name, _) = item {
                note(name);
            }
        }
    }
    named
        .into_iter()
        .map(|i| (&ast.funcs[i as usize], function_address(i)))
        .filter(|(f, _)| f.body.is_some())
        .collect()
}

impl Builder<'_> {
    /// `malloc`, `free` and a call through a pointer; `Ok(false)` for any other call.
    pub(super) fn special_call(
        &mut self,
        scopes: &Scopes,
        target: &str,
        rets: &[Operand],
        args: &[Operand],
        guard: u32,
    ) -> Result<bool, SimError> {
        if let Some(Name::Reg(ptr)) = self.lookup(scopes, target) {
            self.indirect_call(scopes, ptr, rets, args, guard)?;
            return Ok(true);
        }
        // A module that defines a function of this name calls its own.
        if self.m.funcs.contains_key(target) {
            return Ok(false);
        }
        match (target, args) {
            ("malloc", [size]) => {
                let size = self.scratch_load(scopes, size, Ty::U64)?;
                let d = self.new_slot();
                self.emit(Op::Malloc { size, d }, guard);
                self.store_return(scopes, rets, d, Ty::U64, guard)?;
            }
            ("free", [ptr]) => {
                let ptr = self.scratch_load(scopes, ptr, Ty::U64)?;
                self.emit(Op::Free { ptr }, guard);
            }
            // The device runtime's cooperative groups (libcudadevrt, which Numba links for
            // `cg.this_grid()`): its machine code cannot run here, so the simulator is the
            // runtime. A handle names its scope (1: the grid); it is only ever passed back.
            ("cudaCGGetIntrinsicHandle", [scope]) => {
                let scope = self.scratch_load(scopes, scope, Ty::U32)?;
                self.store_return(scopes, rets, scope, Ty::U64, guard)?;
            }
            // `grid.sync()`: a barrier of every thread of the grid, which answers cudaSuccess.
            ("cudaCGSynchronize", [_handle, _flags]) => {
                let bar = Op::Bar {
                    kind: BarKind::Grid,
                    d: NONE,
                    p: PRED_TRUE,
                    np: false,
                    dp: NONE,
                };
                self.emit(bar, guard);
                let success = self.const_slot(0);
                self.store_return(scopes, rets, success, Ty::U32, guard)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Writes `value` into the call's return `.param` variable, where the call names one.
    pub(super) fn store_return(
        &mut self,
        scopes: &Scopes,
        rets: &[Operand],
        value: Slot,
        ty: Ty,
        guard: u32,
    ) -> Result<(), SimError> {
        let Some(r) = rets.first() else {
            return Ok(());
        };
        let n = super::operands::name_of(r)?;
        if let Some(Name::Var(VarLoc::Scratch(off))) = self.lookup(scopes, &n) {
            let op = Op::St {
                space: MemSpace::Scratch,
                ty,
                vec: 1,
                v: [value, NONE, NONE, NONE],
                addr: NONE,
                off: off as i64,
            };
            self.emit(op, guard);
        }
        Ok(())
    }

    /// Each function the pointer may hold (its address taken, its parameters and results as the
    /// call passes them), tried in turn; a pointer to none of them stops the kernel (`trap`).
    fn indirect_call(
        &mut self,
        scopes: &Scopes,
        ptr: Slot,
        rets: &[Operand],
        args: &[Operand],
        guard: u32,
    ) -> Result<(), SimError> {
        if guard != NONE {
            return Err(self.unsupported("a predicated call through a function pointer"));
        }
        let candidates: Vec<(&Function, u64)> = self
            .m
            .address_taken
            .iter()
            .filter(|(f, _)| f.params.len() == args.len() && f.rets.len() == rets.len())
            // A function may hold a pointer to itself; the simulator inlines, so that call traps.
            .filter(|(f, _)| !self.call_stack.contains(&f.name))
            .copied()
            .collect();
        let done = self.new_label();
        for (callee, address) in candidates {
            let other = self.new_label();
            let (p, a) = (self.new_pred(), self.const_slot(address));
            let differs = Op::Setp {
                cmp: Cmp::Ne,
                ty: Ty::U64,
                ftz: false,
                p,
                q: NONE,
                a: ptr,
                b: a,
                comb: None,
            };
            self.emit(differs, NONE);
            self.emit(Op::Bra { target: other }, p << 1);
            self.inline_call(scopes, callee, rets, args, NONE)?;
            self.emit(Op::Bra { target: done }, NONE);
            self.place_label(other);
        }
        self.emit(Op::Trap, NONE);
        self.place_label(done);
        Ok(())
    }
}
