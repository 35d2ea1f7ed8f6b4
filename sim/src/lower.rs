//! Syntax tree -> executable `Program`s, one per kernel: registers become slots, immediates become
//! constant slots, labels become instruction indices, device functions are inlined, and shared,
//! local and parameter memory get their layouts.

mod calls;
mod fp8;
mod halves;
mod inst;
pub(crate) mod merge;
mod operands;
mod registers;
mod uniform;

use crate::error::SimError;
use crate::ir::*;
use crate::parse::{align_up, Ast, Function, InitVal, Operand, Space, Stmt, VarDecl};
use crate::source::SourceLocation;
use registers::{Declared, RegRange};
use std::collections::HashMap;

/// A module-level `.global` or `.const` variable, placed in global memory per machine.
#[derive(Clone, Debug)]
pub(crate) struct GlobalVar {
    /// A `__constant__` variable (`.const`), which a GPU holds in its 64 KiB constant bank.
    pub constant: bool,
    pub name: String,
    pub size: u64,
    pub align: u32,
    pub init: Vec<u8>,
    /// Addresses of other variables stored in the initialiser: (byte offset, variable, addend).
    pub relocs: Relocs,
}

/// Where a named variable lives.
#[derive(Clone, Copy, Debug)]
enum VarLoc {
    KernelParam(u32),
    Scratch(u32),
    Local(u32),
    Shared(u32),
    /// The dynamic shared array: its offset is known only when the static layout is complete.
    DynamicShared,
    Global(usize),
}

#[derive(Clone, Copy, Debug)]
enum Name {
    Reg(Slot),
    Pred(Pred),
    Var(VarLoc),
}

/// Places `size` bytes aligned to `align` at the end of a layout. A layout past 4 GiB stays at
/// 4 GiB, for the launch's resource check to refuse as ptxas does, rather than wrapping around.
fn place(bump: &mut u32, align: u32, size: u64) -> u32 {
    let off = align_up(*bump as u64, align.max(1) as u64);
    *bump = saturate(off + size);
    saturate(off)
}

fn saturate(bytes: u64) -> u32 {
    bytes.min(u32::MAX as u64) as u32
}

struct ModuleCtx<'a> {
    funcs: HashMap<&'a str, &'a Function>,
    /// Every function's place among the module's functions, which its address is made of.
    function_index: HashMap<&'a str, u64>,
    /// What a call through a function pointer may reach (`calls::address_taken`).
    address_taken: Vec<(&'a Function, u64)>,
    global_index: HashMap<&'a str, usize>,
    module_shared: HashMap<&'a str, &'a VarDecl>,
    files: HashMap<u32, String>,
}

/// A module's kernels, those that could not be lowered with why, and its variables.
pub(crate) struct Lowered {
    pub programs: Vec<Program>,
    pub failed: Vec<(String, SimError)>,
    pub globals: Vec<GlobalVar>,
}

/// Lowers every kernel of the module. One kernel the simulator cannot run (an unsupported
/// instruction) costs that kernel only: the others of the same file still run.
pub(crate) fn lower_module(ast: &Ast) -> Result<Lowered, SimError> {
    let mut globals = Vec::new();
    let mut global_index = HashMap::new();
    let mut module_shared = HashMap::new();
    for v in &ast.vars {
        match v.space {
            Space::Global | Space::Const => {
                global_index.insert(v.name.as_str(), globals.len());
                globals.push(GlobalVar {
                    constant: v.space == Space::Const,
                    name: v.name.clone(),
                    size: v.size_bytes().max(1),
                    align: v.align.max(1),
                    init: Vec::new(),
                    relocs: Vec::new(),
                });
            }
            Space::Shared => {
                module_shared.insert(v.name.as_str(), v);
            }
            _ => {
                return Err(SimError::Unsupported {
                    what: format!("module-level `.local` variable `{}`", v.name),
                    ptx_line: v.line,
                    location: None,
                })
            }
        }
    }
    let function_index: HashMap<&str, u64> = ast
        .funcs
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i as u64))
        .collect();
    // Initialisers may refer to variables declared later, so they are encoded after indexing.
    for v in ast
        .vars
        .iter()
        .filter(|v| matches!(v.space, Space::Global | Space::Const))
    {
        let idx = global_index[v.name.as_str()];
        let (init, relocs) = encode_init(v, &global_index, &function_index)?;
        globals[idx].init = init;
        globals[idx].relocs = relocs;
    }
    let ctx = ModuleCtx {
        funcs: ast
            .funcs
            .iter()
            .filter(|f| f.body.is_some())
            .map(|f| (f.name.as_str(), f))
            .collect(),
        address_taken: calls::address_taken(ast, &function_index),
        function_index,
        global_index,
        module_shared,
        files: ast.files.iter().cloned().collect(),
    };
    let mut programs = Vec::new();
    let mut failed = Vec::new();
    for f in ast.funcs.iter().filter(|f| f.is_entry && f.body.is_some()) {
        match Builder::new(&ctx).kernel(f) {
            Ok(program) => programs.push(program),
            Err(e) => failed.push((f.name.clone(), e)),
        }
    }
    Ok(Lowered {
        programs,
        failed,
        globals,
    })
}

/// Addresses of variables stored in an initialiser: (byte offset, variable, addend).
type Relocs = Vec<(u64, usize, i64)>;

/// Where function pointers point (`calls::function_address`): no memory is there.
const FUNCTION_ADDRESS_BASE: u64 = 0xf000_0000_0000_0000;

fn encode_init(
    v: &VarDecl,
    index: &HashMap<&str, usize>,
    functions: &HashMap<&str, u64>,
) -> Result<(Vec<u8>, Relocs), SimError> {
    let mut bytes = Vec::new();
    let mut relocs = Vec::new();
    let elem = match v.ty.as_str() {
        "b8" | "u8" | "s8" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 2,
        "b32" | "u32" | "s32" | "f32" => 4,
        _ => 8,
    };
    let is_f32 = v.ty == "f32";
    for item in &v.init {
        let value: u64 = match item {
            InitVal::Int(x) => *x,
            InitVal::F32(b) if elem == 8 => (f32::from_bits(*b) as f64).to_bits(),
            InitVal::F32(b) => *b as u64,
            InitVal::F64(b) if is_f32 => (f64::from_bits(*b) as f32).to_bits() as u64,
            InitVal::F64(b) => *b,
            InitVal::Float(x) if is_f32 => (*x as f32).to_bits() as u64,
            InitVal::Float(x) => x.to_bits(),
            InitVal::Symbol(name, addend) if functions.contains_key(name.as_str()) => {
                calls::function_address(functions[name.as_str()]).wrapping_add(*addend as u64)
            }
            InitVal::Symbol(name, addend) => {
                let target = *index
                    .get(name.as_str())
                    .ok_or_else(|| SimError::Unsupported {
                        what: format!("an initialiser holding the address of `{name}`"),
                        ptx_line: v.line,
                        location: None,
                    })?;
                relocs.push((bytes.len() as u64, target, *addend));
                0
            }
        };
        bytes.extend_from_slice(&value.to_le_bytes()[..elem]);
    }
    Ok((bytes, relocs))
}

/// Per inlined function instance: its labels and where `ret` goes.
struct Instance {
    labels: HashMap<String, u32>,
    tables: HashMap<String, Vec<String>>,
    /// `None` in the kernel itself, where `ret` ends the thread.
    ret_label: Option<u32>,
}

struct Builder<'a> {
    m: &'a ModuleCtx<'a>,
    code: Vec<Inst>,
    n_slots: u32,
    n_preds: u32,
    consts: Vec<(Slot, ConstVal)>,
    const_bits: HashMap<u64, Slot>,
    const_globals: HashMap<(usize, i64), Slot>,
    /// Constant slots holding the dynamic shared base plus an offset, patched at the end.
    dyn_shared_slots: Vec<(Slot, i64)>,
    dyn_shared_align: u32,
    shared_vars: Vec<SharedVar>,
    shared_offsets: HashMap<String, u32>,
    shared_bump: u32,
    local_bump: u32,
    scratch_bump: u32,
    /// Instructions whose scratch offsets are relative to the end of the local frame.
    scratch_users: Vec<usize>,
    sites: Vec<Option<SourceLocation>>,
    site_index: HashMap<(u32, u32), u32>,
    cur_site: u32,
    cur_ptx_line: u32,
    label_pcs: Vec<u32>,
    fixups: Vec<usize>,
    call_stack: Vec<String>,
    has_global_atomics: bool,
    has_system_atomics: bool,
    cross_block_sync: bool,
    trash: Slot,
    /// Register ranges declared so far (`%r<N>`), with the slots of the members used.
    ranges: Vec<RegRange>,
}

/// Predicate 0 is always false and predicate 1 always true (for immediate predicate operands).
pub(crate) const PRED_FALSE: Pred = 0;
pub(crate) const PRED_TRUE: Pred = 1;

impl<'a> Builder<'a> {
    fn new(m: &'a ModuleCtx<'a>) -> Self {
        Builder {
            m,
            code: Vec::new(),
            n_slots: 0,
            n_preds: 2,
            consts: Vec::new(),
            const_bits: HashMap::new(),
            const_globals: HashMap::new(),
            dyn_shared_slots: Vec::new(),
            dyn_shared_align: 16,
            shared_vars: Vec::new(),
            shared_offsets: HashMap::new(),
            shared_bump: 0,
            local_bump: 0,
            scratch_bump: 0,
            scratch_users: Vec::new(),
            sites: vec![None],
            site_index: HashMap::new(),
            cur_site: 0,
            cur_ptx_line: 0,
            label_pcs: Vec::new(),
            fixups: Vec::new(),
            call_stack: Vec::new(),
            has_global_atomics: false,
            has_system_atomics: false,
            cross_block_sync: false,
            trash: NONE,
            ranges: Vec::new(),
        }
    }

    fn location(&self) -> Option<SourceLocation> {
        self.sites.get(self.cur_site as usize).cloned().flatten()
    }

    fn unsupported(&self, what: impl Into<String>) -> SimError {
        SimError::Unsupported {
            what: what.into(),
            ptx_line: self.cur_ptx_line,
            location: self.location(),
        }
    }

    /// Calls through a function pointer are not simulated yet: the kernel that makes one says so.
    fn function_pointer_call(&self) -> SimError {
        self.unsupported(format!(
            "calls through a function pointer yet (kernel `{}` makes one)",
            self.call_stack.first().map_or("?", String::as_str)
        ))
    }

    fn invalid(&self, message: impl Into<String>) -> SimError {
        SimError::Invalid {
            message: message.into(),
            ptx_line: self.cur_ptx_line,
            location: self.location(),
        }
    }

    fn new_slot(&mut self) -> Slot {
        self.n_slots += 1;
        self.n_slots - 1
    }

    fn new_pred(&mut self) -> Pred {
        self.n_preds += 1;
        self.n_preds - 1
    }

    fn trash_slot(&mut self) -> Slot {
        if self.trash == NONE {
            self.trash = self.new_slot();
        }
        self.trash
    }

    fn const_slot(&mut self, bits: u64) -> Slot {
        if let Some(&s) = self.const_bits.get(&bits) {
            return s;
        }
        let s = self.new_slot();
        self.consts.push((s, ConstVal::Bits(bits)));
        self.const_bits.insert(bits, s);
        s
    }

    fn new_label(&mut self) -> u32 {
        self.label_pcs.push(NONE);
        self.label_pcs.len() as u32 - 1
    }

    fn place_label(&mut self, label: u32) {
        self.label_pcs[label as usize] = self.code.len() as u32;
    }

    fn emit(&mut self, op: Op, guard: u32) {
        let needs_fixup = matches!(op, Op::Bra { .. } | Op::Brx { .. });
        let uses_scratch = matches!(
            op,
            Op::Ld {
                space: MemSpace::Scratch,
                ..
            } | Op::St {
                space: MemSpace::Scratch,
                ..
            }
        );
        if needs_fixup {
            self.fixups.push(self.code.len());
        }
        if uses_scratch {
            self.scratch_users.push(self.code.len());
        }
        self.code.push(Inst {
            op,
            guard,
            site: self.cur_site,
            ptx_line: self.cur_ptx_line,
        });
    }

    fn set_loc(&mut self, file: u32, line: u32) {
        // Line 0 marks code the compiler made up; keep attributing it to the previous line.
        if line == 0 {
            return;
        }
        let next = self.sites.len() as u32;
        let idx = *self.site_index.entry((file, line)).or_insert(next);
        if idx == next {
            let name = self
                .m
                .files
                .get(&file)
                .cloned()
                .unwrap_or_else(|| format!("file{file}"));
            self.sites.push(Some(SourceLocation { file: name, line }));
        }
        self.cur_site = idx;
    }

    fn shared_offset(&mut self, v: &VarDecl) -> VarLoc {
        if v.count.is_none() || v.is_extern {
            self.dyn_shared_align = self.dyn_shared_align.max(v.align);
            return VarLoc::DynamicShared;
        }
        if let Some(&off) = self.shared_offsets.get(&v.name) {
            return VarLoc::Shared(off);
        }
        let off = place(&mut self.shared_bump, v.align, v.size_bytes());
        self.shared_offsets.insert(v.name.clone(), off);
        self.shared_vars.push(SharedVar {
            name: v.name.clone(),
            offset: off,
            size: v.size_bytes() as u32,
        });
        VarLoc::Shared(off)
    }

    fn lookup(&mut self, scopes: &[HashMap<String, Declared>], name: &str) -> Option<Name> {
        for s in scopes.iter().rev() {
            if let Some(Declared::Name(n)) = s.get(name) {
                return Some(*n);
            }
            if let Some(n) = self.range_member(s, name) {
                return Some(n);
            }
        }
        if let Some(&g) = self.m.global_index.get(name) {
            return Some(Name::Var(VarLoc::Global(g)));
        }
        if let Some(v) = self.m.module_shared.get(name) {
            let v: &VarDecl = v;
            return Some(Name::Var(self.shared_offset(v)));
        }
        None
    }

    fn kernel(mut self, f: &Function) -> Result<Program, SimError> {
        let mut params = Vec::new();
        let mut param_offsets = Vec::new();
        let mut scope = HashMap::new();
        let mut off = 0u64;
        for p in &f.params {
            off = align_up(off, p.align as u64);
            params.push(ParamInfo {
                name: p.name.clone(),
                size_bytes: p.size,
                align: p.align,
            });
            param_offsets.push(off as u32);
            scope.insert(
                p.name.clone(),
                Declared::Name(Name::Var(VarLoc::KernelParam(off as u32))),
            );
            off += p.size as u64;
        }
        self.cur_ptx_line = f.line;
        self.call_stack.push(f.name.clone());
        self.function_body(f, scope, None)?;
        // Falling off the end of a kernel ends the thread.
        self.emit(Op::Exit, NONE);

        for &i in &self.fixups {
            let resolve = |l: u32| self.label_pcs[l as usize];
            match &mut self.code[i].op {
                Op::Bra { target } => *target = resolve(*target),
                Op::Brx { targets, .. } => {
                    for t in targets.iter_mut() {
                        *t = resolve(*t);
                    }
                }
                _ => {}
            }
        }
        let local_frame = saturate(align_up(self.local_bump as u64, 16));
        for &i in &self.scratch_users {
            if let Op::Ld { off, .. } | Op::St { off, .. } = &mut self.code[i].op {
                *off += local_frame as i64;
            }
        }
        let shared_static = self.shared_bump;
        let dynamic_shared_offset =
            saturate(align_up(shared_static as u64, self.dyn_shared_align as u64));
        for &(slot, add) in &self.dyn_shared_slots {
            self.consts.push((
                slot,
                ConstVal::Bits((dynamic_shared_offset as i64 + add) as u64),
            ));
        }
        for (slot, c) in self
            .const_globals
            .iter()
            .map(|(&(var, offset), &s)| (s, ConstVal::GlobalVar { var, offset }))
        {
            self.consts.push((slot, c));
        }
        let mut program = Program {
            name: f.name.clone(),
            params,
            param_offsets,
            param_bytes: off as u32,
            code: self.code,
            n_slots: self.n_slots.max(1),
            n_preds: self.n_preds,
            consts: self.consts,
            shared_static,
            dynamic_shared_offset,
            shared_vars: self.shared_vars,
            local_frame,
            local_total: saturate(local_frame as u64 + align_up(self.scratch_bump as u64, 16)),
            sites: self.sites,
            has_global_atomics: self.has_global_atomics,
            has_system_atomics: self.has_system_atomics,
            cross_block_sync: self.cross_block_sync,
            shared_merges: Vec::new(),
            combined_atomics: Vec::new(),
            bounds: f.bounds,
        };
        program.shared_merges = merge::shared_merges(&program);
        program.combined_atomics = uniform::combined_atomics(&program);
        Ok(program)
    }

    /// Lowers one function body in place; `bindings` holds its parameters.
    fn function_body(
        &mut self,
        f: &Function,
        bindings: HashMap<String, Declared>,
        ret_label: Option<u32>,
    ) -> Result<(), SimError> {
        if let Some(e) = &f.unreadable {
            return Err(e.clone().into());
        }
        let body = f.body.as_ref().expect("only defined functions are lowered");
        let mut inst = Instance {
            labels: HashMap::new(),
            tables: HashMap::new(),
            ret_label,
        };
        for s in body {
            match s {
                Stmt::Label(l) => {
                    let id = self.new_label();
                    inst.labels.insert(l.clone(), id);
                }
                Stmt::BranchTargets { name, targets } => {
                    inst.tables.insert(name.clone(), targets.clone());
                }
                _ => {}
            }
        }
        let mut scopes = vec![bindings, HashMap::new()];
        for s in body {
            match s {
                Stmt::Open => scopes.push(HashMap::new()),
                Stmt::Close => {
                    scopes.pop();
                }
                Stmt::Loc { file, line } => self.set_loc(*file, *line),
                Stmt::Label(l) => self.place_label(inst.labels[l]),
                Stmt::BranchTargets { .. } => {}
                // The call that follows finds its callees by their parameters (`calls`).
                Stmt::CallPrototype { line } => self.cur_ptx_line = *line,
                Stmt::Reg { ty, names } => {
                    let scope = scopes.last_mut().expect("a scope is always open");
                    let pred = ty == "pred";
                    for (name, count) in names {
                        match count {
                            Some(c) => self.declare_range(scope, name, *c, pred),
                            None => {
                                let v = if pred {
                                    Name::Pred(self.new_pred())
                                } else {
                                    Name::Reg(self.new_slot())
                                };
                                scope.insert(name.clone(), Declared::Name(v));
                            }
                        }
                    }
                }
                Stmt::Var(v) => {
                    self.cur_ptx_line = v.line;
                    let loc = match v.space {
                        Space::Local => {
                            VarLoc::Local(place(&mut self.local_bump, v.align, v.size_bytes()))
                        }
                        Space::Param => VarLoc::Scratch(place(
                            &mut self.scratch_bump,
                            v.align,
                            v.size_bytes().max(1),
                        )),
                        Space::Shared => self.shared_offset(v),
                        Space::Global | Space::Const => {
                            return Err(self.unsupported(format!(
                                "function-scope global variable `{}`",
                                v.name
                            )))
                        }
                    };
                    scopes
                        .last_mut()
                        .expect("a scope is always open")
                        .insert(v.name.clone(), Declared::Name(Name::Var(loc)));
                }
                Stmt::Inst(i) => {
                    self.cur_ptx_line = i.line;
                    self.instruction(&mut scopes, &inst, i)?;
                }
            }
        }
        Ok(())
    }

    /// Inlines a call to a device function with a body.
    fn inline_call(
        &mut self,
        scopes: &[HashMap<String, Declared>],
        callee: &Function,
        rets: &[Operand],
        args: &[Operand],
        guard: u32,
    ) -> Result<(), SimError> {
        if self.call_stack.iter().any(|n| n == &callee.name) {
            return Err(self.unsupported(format!(
                "recursive call to device function `{}`",
                callee.name
            )));
        }
        if guard != NONE {
            return Err(self.unsupported("a predicated call"));
        }
        let mut bindings = HashMap::new();
        let mut bind = |b: &mut Self, formal: &str, actual: &Operand| -> Result<(), SimError> {
            let Operand::Name(n) = actual else {
                return Err(b.invalid("call arguments must be `.param` names"));
            };
            match b.lookup(scopes, n) {
                Some(Name::Var(loc @ VarLoc::Scratch(_))) => {
                    bindings.insert(formal.to_string(), Declared::Name(Name::Var(loc)));
                    Ok(())
                }
                _ => Err(b.invalid(format!("call argument `{n}` is not a `.param` variable"))),
            }
        };
        // A caller may expect a value that a function defined elsewhere does not return, as
        // Numba's C-ABI declaration of a `void` function does: the linker takes it and the
        // caller's return variable is left as it was. Any other mismatch is refused.
        let rets_match = callee.rets.len() == rets.len() || callee.rets.is_empty();
        if callee.params.len() != args.len() || !rets_match {
            return Err(self.invalid(format!(
                "call to `{}` with the wrong number of arguments",
                callee.name
            )));
        }
        for (p, a) in callee.params.iter().zip(args) {
            bind(self, &p.name, a)?;
        }
        for (p, r) in callee.rets.iter().zip(rets) {
            bind(self, &p.name, r)?;
        }
        let ret_label = self.new_label();
        let saved_site = self.cur_site;
        let saved_line = self.cur_ptx_line;
        self.call_stack.push(callee.name.clone());
        self.function_body(callee, bindings, Some(ret_label))?;
        self.call_stack.pop();
        self.place_label(ret_label);
        self.cur_site = saved_site;
        self.cur_ptx_line = saved_line;
        Ok(())
    }
}
