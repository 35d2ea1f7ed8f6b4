//! What the time model reads from a kernel's parsed program before it runs: an estimate of the
//! registers per thread (for occupancy) and how many loads a warp has in flight at once (for
//! latency hiding).
//!
//! NVRTC writes PTX in near-SSA form over virtual registers (`%r<57>`): their count overstates
//! what ptxas allocates many times over, since ptxas reuses a register once its value is dead. So
//! the estimate is the largest number of 32-bit values live at once: a register is live from its
//! first to its last mention, and one live into a loop stays live to the loop's back edge. 64-bit
//! registers count twice, predicates not at all (they have their own file), and two registers are
//! added for what ptxas keeps aside (the stack pointer and an address pair). It ignores what
//! ptxas does to the schedule (unrolling, hoisting loads), so it is a floor rather than a count.
//!
//! It reads the syntax tree (`parse`), not the lowered program: it counts PTX's own virtual
//! registers, before lowering inlines calls and renames them into slots.

use crate::parse::{Ast, Instruction, Operand, Stmt};
use std::collections::HashMap;

/// Registers ptxas keeps beyond the live values; see the module's comment.
const RESERVED_REGISTERS: u32 = 2;
/// The fewest registers ptxas gives a kernel in practice.
const MIN_REGISTERS: u32 = 16;

/// What the model knows of one kernel before it runs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct KernelStatic {
    pub registers: u32,
    /// Global loads a warp issues before it needs the first of them, averaged over loads.
    pub loads_in_flight: f64,
    /// Global stores a warp issues between two branches or labels, averaged over stores.
    pub stores_in_flight: f64,
    /// Shared-memory loads in flight together, like global loads.
    pub shared_loads_in_flight: f64,
}

impl Default for KernelStatic {
    fn default() -> Self {
        KernelStatic {
            registers: 32,
            loads_in_flight: 1.0,
            stores_in_flight: 1.0,
            shared_loads_in_flight: 1.0,
        }
    }
}

/// The estimate for every kernel of the module, by name. Device functions that a kernel calls
/// count with their own pressure (the larger of the two).
pub(crate) fn analyse(ast: &Ast) -> HashMap<String, KernelStatic> {
    let bodies: Vec<(&str, bool, Body)> = ast
        .funcs
        .iter()
        .filter_map(|f| Some((f.name.as_str(), f.is_entry, Body::of(f.body.as_deref()?))))
        .collect();
    let pressure: HashMap<&str, u32> = bodies
        .iter()
        .map(|(name, _, body)| (*name, body.live_pressure()))
        .collect();
    bodies
        .iter()
        .filter(|(_, entry, _)| *entry)
        .map(|(name, _, body)| {
            let callees = body
                .callees()
                .filter_map(|callee| pressure.get(callee).copied())
                .max()
                .unwrap_or(0);
            let live = pressure[name].max(callees);
            let (loads_in_flight, stores_in_flight) = body.in_flight("ld.global");
            (
                name.to_string(),
                KernelStatic {
                    registers: (live + RESERVED_REGISTERS).clamp(MIN_REGISTERS, 255),
                    loads_in_flight,
                    stores_in_flight,
                    shared_loads_in_flight: body.in_flight("ld.shared").0,
                },
            )
        })
        .collect()
}

/// A function's labels and instructions in order, and the width of its virtual registers.
struct Body<'a> {
    steps: Vec<Step<'a>>,
    /// Width in 32-bit registers of each declared register prefix (`rd` -> 2, `p` -> 0).
    widths: HashMap<&'a str, u32>,
}

enum Step<'a> {
    Label(&'a str),
    Inst(&'a Instruction),
}

/// A virtual register named by an instruction, and where it stands in the instruction's text.
struct Mention<'a> {
    /// Without its `%`: `rd4`.
    name: &'a str,
    /// Past the first comma: a source, where the first operand is the result.
    after_comma: bool,
    /// Inside or past the first `[`: part of an address, or read after it.
    after_bracket: bool,
}

impl<'a> Body<'a> {
    fn of(stmts: &'a [Stmt]) -> Body<'a> {
        let mut steps = Vec::new();
        let mut widths = HashMap::new();
        for stmt in stmts {
            match stmt {
                Stmt::Label(name) => steps.push(Step::Label(name)),
                Stmt::Inst(inst) => steps.push(Step::Inst(inst)),
                Stmt::Reg { ty, names } => {
                    // Only `%r<N>` declarations name numbered registers; a single `%SP` or a
                    // call's `temp_param_reg` is no virtual register of the kernel's own.
                    let width = register_width(ty);
                    for (name, _) in names.iter().filter(|(_, count)| count.is_some()) {
                        widths.insert(name.trim_start_matches('%'), width);
                    }
                }
                _ => {}
            }
        }
        Body { steps, widths }
    }

    fn instructions(&self) -> impl Iterator<Item = &'a Instruction> + '_ {
        self.steps.iter().filter_map(|s| match s {
            Step::Inst(inst) => Some(*inst),
            Step::Label(_) => None,
        })
    }

    /// The functions this body calls (unguarded calls, as a kernel's prologue makes them).
    fn callees(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.instructions()
            .filter(|inst| inst.guard.is_none() && inst.opcode.starts_with("call"))
            .filter_map(|inst| {
                inst.operands.iter().find_map(|o| match o {
                    Operand::Name(name) => Some(name.as_str()),
                    _ => None,
                })
            })
    }

    /// The instruction's virtual registers, operands only, in the order of its text.
    fn mentions(&self, inst: &'a Instruction) -> Vec<Mention<'a>> {
        let mut out = Vec::new();
        let mut place = Place::default();
        for (i, operand) in inst.operands.iter().enumerate() {
            place.after_comma |= i > 0;
            self.walk(operand, &mut place, &mut out);
        }
        out
    }

    fn walk(&self, operand: &'a Operand, place: &mut Place, out: &mut Vec<Mention<'a>>) {
        match operand {
            Operand::Name(name) | Operand::Not(name) => self.mention(name, place, out),
            Operand::Pair(result, predicate) => {
                self.mention(result, place, out);
                self.mention(predicate, place, out);
            }
            Operand::Addr { base, .. } => {
                place.after_bracket = true;
                if let Some(base) = base {
                    self.mention(base, place, out);
                }
            }
            Operand::Vector(items) | Operand::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    place.after_comma |= i > 0;
                    self.walk(item, place, out);
                }
            }
            _ => {}
        }
    }

    fn mention(&self, name: &'a str, place: &Place, out: &mut Vec<Mention<'a>>) {
        if let Some(name) = self.virtual_register(name) {
            out.push(Mention {
                name,
                after_comma: place.after_comma,
                after_bracket: place.after_bracket,
            });
        }
    }

    /// `%rd4` -> `rd4` where `%rd<N>` is declared; special registers (`%tid.x`) and unnumbered
    /// names are none.
    fn virtual_register(&self, name: &'a str) -> Option<&'a str> {
        let name = name.strip_prefix('%')?;
        let end = name
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(name.len());
        let token = &name[..end];
        let digits = token.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let prefix = &token[..token.len() - digits.len()];
        (!digits.is_empty() && self.widths.contains_key(prefix)).then_some(token)
    }

    fn width(&self, register: &str) -> u32 {
        let prefix = register.trim_end_matches(|c: char| c.is_ascii_digit());
        self.widths.get(prefix).copied().unwrap_or(1)
    }

    /// The most 32-bit values live at once.
    fn live_pressure(&self) -> u32 {
        let mut labels: HashMap<&str, usize> = HashMap::new();
        let mut instructions = Vec::new();
        for step in &self.steps {
            match step {
                Step::Label(label) => {
                    labels.insert(label, instructions.len());
                }
                Step::Inst(inst) => instructions.push(*inst),
            }
        }
        let mut range: HashMap<&str, (usize, usize)> = HashMap::new();
        let mut loops = Vec::new();
        for (i, inst) in instructions.iter().enumerate() {
            let guard = inst
                .guard
                .as_ref()
                .and_then(|(p, _)| self.virtual_register(p));
            let operands = self.mentions(inst).into_iter().map(|m| m.name);
            for r in guard.into_iter().chain(operands) {
                let e = range.entry(r).or_insert((i, i));
                e.1 = i;
            }
            if let Some(&target) = branch_target(inst).and_then(|t| labels.get(t)) {
                if target <= i {
                    loops.push((target, i));
                }
            }
        }
        extend_into_loops(&mut range, &loops);
        let mut delta = vec![0i64; instructions.len() + 1];
        for (name, (first, last)) in &range {
            let w = self.width(name) as i64;
            delta[*first] += w;
            delta[*last + 1] -= w;
        }
        let mut live = 0i64;
        let mut most = 0i64;
        for d in delta {
            live += d;
            most = most.max(live);
        }
        most as u32
    }

    /// Loads (`ld.global` or `ld.shared`) in flight together, and global stores issued
    /// together, each averaged over the loads (stores) counted. ptxas schedules a basic block's
    /// independent loads ahead of the arithmetic that uses them, so a batch of loads ends only at
    /// a load whose address needs a pending load's value (pointer chasing), and any batch at a
    /// label, a branch or a barrier.
    fn in_flight(&self, load: &str) -> (f64, f64) {
        let mut batches = Batches::default();
        let space = &load[2..];
        let ldu = format!("ldu{space}");
        let store_to_space = format!("st{space}");
        for step in &self.steps {
            let inst = match step {
                Step::Label(_) => {
                    batches.end_block();
                    continue;
                }
                Step::Inst(inst) => inst,
            };
            let op = inst.opcode.as_str();
            let regs = self.mentions(inst);
            let is_load = op.starts_with(load) || op.starts_with(&ldu);
            let is_store = op.starts_with("st.") || op.starts_with("red.");
            // A load after a store to the same space may read what the store wrote, so ptxas
            // cannot hoist it above the store, and the store sits after the arithmetic that used
            // the pending loads: the load starts a batch of its own. Read-only loads (`.nc`:
            // __ldg, or const __restrict__) may move above stores.
            if is_load && batches.store_since_batch && !op.contains(".nc") {
                batches.close_loads();
                batches.store_since_batch = false;
            }
            if is_store && op.starts_with(&store_to_space) && !batches.pending.is_empty() {
                batches.store_since_batch = true;
            }
            // A register computed from a pending load's value is pending too: an address made
            // from it must wait for the load.
            let reads_pending = |after: fn(&Mention) -> bool| {
                regs.iter()
                    .any(|m| after(m) && batches.tainted.contains(&m.name))
            };
            if is_load && reads_pending(|m| m.after_bracket) {
                batches.close_loads();
            } else if !is_load && !is_store && reads_pending(|m| m.after_comma) {
                if let Some(result) = regs.first().filter(|m| !m.after_comma) {
                    batches.tainted.push(result.name);
                }
            }
            if is_load {
                // Each load counts once (a vector load is one instruction, whatever its width).
                batches.pending.push(regs.first().map_or("", |m| m.name));
                let results = regs.iter().filter(|m| !m.after_bracket).map(|m| m.name);
                batches.tainted.extend(results);
            }
            if op.starts_with("st.global") {
                batches.stores += 1;
            }
            if op.starts_with("bra") || op.starts_with("ret") || op.starts_with("bar") {
                batches.end_block();
            }
        }
        batches.end_block();
        (
            weighted_mean(&batches.loads),
            weighted_mean(&batches.store_runs),
        )
    }
}

/// Where a walk through an instruction's operands stands, as its text would read.
#[derive(Default)]
struct Place {
    after_comma: bool,
    after_bracket: bool,
}

/// The label a branch jumps to.
fn branch_target(inst: &Instruction) -> Option<&str> {
    if !inst.opcode.starts_with("bra") {
        return None;
    }
    match inst.operands.last()? {
        Operand::Name(label) => Some(label),
        _ => None,
    }
}

/// Live into a loop: live to its back edge. Twice, for values that cross nested loops.
fn extend_into_loops(range: &mut HashMap<&str, (usize, usize)>, loops: &[(usize, usize)]) {
    for _ in 0..2 {
        for &(start, end) in loops {
            for r in range.values_mut() {
                if r.0 < start && r.1 >= start && r.1 < end {
                    r.1 = end;
                }
            }
        }
    }
}

/// `.pred` registers have their own file; 64-bit ones take two 32-bit registers.
fn register_width(ty: &str) -> u32 {
    match ty {
        "pred" => 0,
        t if t.ends_with("64") => 2,
        _ => 1,
    }
}

/// The batches of loads and runs of stores found so far, and the batch being gathered.
#[derive(Default)]
struct Batches<'a> {
    pending: Vec<&'a str>,
    /// Registers whose value waits on a pending load.
    tainted: Vec<&'a str>,
    loads: Vec<usize>,
    stores: usize,
    store_runs: Vec<usize>,
    /// A store to the loads' space came after the pending batch's loads.
    store_since_batch: bool,
}

impl Batches<'_> {
    fn close_loads(&mut self) {
        if !self.pending.is_empty() {
            self.loads.push(self.pending.len());
            self.pending.clear();
        }
        self.tainted.clear();
    }

    /// A label, a branch or a barrier ends both the loads' batch and the stores' run.
    fn end_block(&mut self) {
        self.close_loads();
        self.store_since_batch = false;
        if self.stores > 0 {
            self.store_runs.push(self.stores);
            self.stores = 0;
        }
    }
}

/// The batch size an average member sees: sum of squares over sum (1 for none).
fn weighted_mean(batches: &[usize]) -> f64 {
    let n: usize = batches.iter().sum();
    if n == 0 {
        return 1.0;
    }
    batches.iter().map(|b| (b * b) as f64).sum::<f64>() / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statics(ptx: &str) -> HashMap<String, KernelStatic> {
        analyse(&crate::parse::parse(ptx).expect("the test's PTX parses"))
    }

    /// The live pressure of the kernel `k` whose body is `lines`.
    fn live_pressure(lines: &[&str]) -> u32 {
        let ptx = format!(".visible .entry k()\n{{\n{}\n}}\n", lines.join("\n"));
        let ast = crate::parse::parse(&ptx).expect("the test's PTX parses");
        Body::of(ast.funcs[0].body.as_deref().expect("a body")).live_pressure()
    }

    const VECTOR_ADD: &str = r#"
.visible .entry vector_add(
	.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<4>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<11>;

	ld.param.u64 	%rd1, [a];
	ld.param.u64 	%rd2, [b];
	ld.param.u64 	%rd3, [c];
	ld.param.u32 	%r2, [n];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd4, %rd1;
	mul.wide.s32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	cvta.to.global.u64 	%rd7, %rd2;
	add.s64 	%rd8, %rd7, %rd5;
	ld.global.f32 	%f1, [%rd8];
	ld.global.f32 	%f2, [%rd6];
	add.f32 	%f3, %f2, %f1;
	cvta.to.global.u64 	%rd9, %rd3;
	add.s64 	%rd10, %rd9, %rd5;
	st.global.f32 	[%rd10], %f3;
$L__BB0_2:
	ret;
}
"#;

    #[test]
    fn vector_add_has_two_loads_in_flight_and_few_registers() {
        let k = &statics(VECTOR_ADD)["vector_add"];
        assert_eq!((k.loads_in_flight, k.stores_in_flight), (2.0, 1.0));
        assert_eq!(k.registers, MIN_REGISTERS);
    }

    /// NVRTC's 4x unrolled body of exercise 05's in-place SAXPY loop (x and y may alias).
    const SAXPY_UNROLLED: &str = r#"
.visible .entry saxpy(
	.param .u64 x, .param .u64 y, .param .f32 a, .param .u32 n
)
{
	.reg .pred 	%p<6>;
	.reg .f32 	%f<17>;
	.reg .b32 	%r<29>;
	.reg .b64 	%rd<25>;

$L__BB0_6:
	mul.wide.s32 	%rd14, %r27, 4;
	add.s64 	%rd15, %rd2, %rd14;
	LD 	%f5, [%rd15];
	add.s64 	%rd16, %rd1, %rd14;
	LD 	%f6, [%rd16];
	fma.rn.f32 	%f7, %f5, %f1, %f6;
	st.global.f32 	[%rd16], %f7;
	add.s64 	%rd17, %rd15, %rd10;
	LD 	%f8, [%rd17];
	add.s64 	%rd18, %rd16, %rd10;
	LD 	%f9, [%rd18];
	fma.rn.f32 	%f10, %f8, %f1, %f9;
	st.global.f32 	[%rd18], %f10;
	add.s64 	%rd19, %rd17, %rd10;
	LD 	%f11, [%rd19];
	add.s64 	%rd20, %rd18, %rd10;
	LD 	%f12, [%rd20];
	fma.rn.f32 	%f13, %f11, %f1, %f12;
	st.global.f32 	[%rd20], %f13;
	add.s32 	%r27, %r24, %r2;
	setp.lt.s32 	%p5, %r27, %r12;
	@%p5 bra 	$L__BB0_6;

	ret;
}
"#;

    #[test]
    fn a_load_after_a_store_that_may_alias_it_waits_for_the_arithmetic_before_the_store() {
        // Each step's two loads, then its store: the next step's loads cannot be hoisted above
        // the store (the store's address is no pending value: it does not end a batch itself).
        let k = &statics(&SAXPY_UNROLLED.replace("LD", "ld.global.f32"))["saxpy"];
        assert_eq!((k.loads_in_flight, k.stores_in_flight), (2.0, 3.0));
        // Read-only loads (__ldg, const __restrict__) may move above the stores.
        let k = &statics(&SAXPY_UNROLLED.replace("LD", "ld.global.nc.f32"))["saxpy"];
        assert_eq!(k.loads_in_flight, 6.0);
    }

    #[test]
    fn a_value_live_into_a_loop_stays_live_to_its_back_edge() {
        let body = [
            ".reg .b32 %r<5>;",
            "mov.u32 %r1, 0;",
            "mov.u32 %r2, 7;",
            "$L__loop:",
            "setp.lt.s32 %p1, %r1, %r2;",
            "add.s32 %r1, %r1, 1;",
            "mov.u32 %r3, 1;",
            "add.s32 %r4, %r3, %r3;",
            "@%p1 bra $L__loop;",
        ];
        // %r1 and %r2 are last mentioned before %r3 and %r4 exist, but the next trip needs them.
        assert_eq!(live_pressure(&body), 4);
    }

    /// printf's `vprintf` declared before the kernel, as NVRTC writes it.
    const PRINTF_THEN_KERNEL: &str = r#"
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 1 .b8 $str[4] = {104, 105, 10, 0};

.visible .entry after_printf(
	.param .u64 a, .param .u64 b
)
{
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [a];
	ld.param.u64 	%rd2, [b];
	ld.global.f32 	%f1, [%rd1];
	ld.global.f32 	%f2, [%rd2];
	add.f32 	%f3, %f1, %f2;
	st.global.f32 	[%rd1], %f3;
	ret;
}
"#;

    #[test]
    fn a_kernel_after_a_declared_function_has_its_own_estimate() {
        // Reading the text, the declaration's missing body took the kernel's as its own, and the
        // kernel was left to the defaults (one load in flight).
        let k = &statics(PRINTF_THEN_KERNEL)["after_printf"];
        assert_eq!((k.loads_in_flight, k.stores_in_flight), (2.0, 1.0));
    }

    #[test]
    fn registers_inside_inline_assembly_braces_are_live_too() {
        // cuda_fp16.h's intrinsics are inline assembly in braces: `{ cvt.rn.f16.f32 %rs1, %f1;}`.
        let body = [
            ".reg .b32 %r<9>;",
            "mov.u32 %r1, 1;",
            "mov.u32 %r2, 2;",
            "{ add.s32 %r3, %r1, %r2;",
            "add.s32 %r4, %r3, %r1; }",
            "{ add.s32 %r5, %r4, %r2; }",
            "mov.u32 %r6, %r5;",
        ];
        // %r1 and %r2 are live beside %r3 and %r4 at the second line (read as text, lines that
        // open a brace were skipped, and the most was 3).
        assert_eq!(live_pressure(&body), 4);
    }

    #[test]
    fn a_kernel_holds_the_registers_of_a_function_it_calls() {
        // A device function with 40 values live at once, called as NVRTC writes a call: over
        // several lines, the callee's name on a line of its own.
        let values: Vec<String> = (1..=40).map(|i| format!("mov.u32 %r{i}, {i};")).collect();
        let sums: Vec<String> = (1..=40)
            .map(|i| format!("add.s32 %r41, %r41, %r{i};"))
            .collect();
        let ptx = format!(
            r#"
.func  (.param .b32 func_retval0) _Z4manyv()
{{
	.reg .b32 	%r<42>;
	mov.u32 	%r41, 0;
	{}
	{}
	st.param.b32 	[func_retval0+0], %r41;
	ret;
}}
.visible .entry calls_many(.param .u64 out)
{{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<2>;
	ld.param.u64 	%rd1, [out];
	{{ // callseq 0, 0
	.param .b32 retval0;
	call.uni (retval0), 
	_Z4manyv, 
	(
	);
	ld.param.b32 	%r1, [retval0+0];
	}} // callseq 0
	st.global.u32 	[%rd1], %r1;
	ret;
}}
"#,
            values.join("\n\t"),
            sums.join("\n\t")
        );
        let k = &statics(&ptx)["calls_many"];
        assert_eq!(k.registers, 41 + RESERVED_REGISTERS);
    }
}
