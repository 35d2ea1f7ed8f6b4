//! What the time model reads from a kernel's PTX text before it runs: an estimate of the registers
//! per thread (for occupancy) and how many global loads a warp has in flight at once (for
//! latency hiding).
//!
//! NVRTC writes PTX in near-SSA form over virtual registers (`%r<57>`): their count overstates
//! what ptxas allocates many times over, since ptxas reuses a register once its value is dead. So
//! the estimate is the largest number of 32-bit values live at once: a register is live from its
//! first to its last mention, and one live into a loop stays live to the loop's back edge. 64-bit
//! registers count twice, predicates not at all (they have their own file), and two registers are
//! added for what ptxas keeps aside (the stack pointer and an address pair). It ignores what
//! ptxas does to the schedule (unrolling, hoisting loads), so it is a floor rather than a count.

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

/// The estimate for every `.entry` in `ptx`, by name. Device functions that a kernel calls
/// count with their own pressure (the larger of the two).
pub(crate) fn analyse(ptx: &str) -> HashMap<String, KernelStatic> {
    let functions = split_functions(ptx);
    let pressure: HashMap<&str, u32> = functions
        .iter()
        .map(|f| (f.name, live_pressure(&f.body)))
        .collect();
    functions
        .iter()
        .filter(|f| f.entry)
        .map(|f| {
            let callees = f
                .body
                .iter()
                .filter(|l| l.starts_with("call"))
                .filter_map(|l| {
                    pressure
                        .iter()
                        .find(|(n, _)| l.contains(*n))
                        .map(|(_, p)| *p)
                })
                .max()
                .unwrap_or(0);
            let live = pressure[f.name].max(callees);
            (
                f.name.to_string(),
                KernelStatic {
                    registers: (live + RESERVED_REGISTERS).clamp(MIN_REGISTERS, 255),
                    loads_in_flight: in_flight(&f.body, "ld.global").0,
                    stores_in_flight: in_flight(&f.body, "ld.global").1,
                    shared_loads_in_flight: in_flight(&f.body, "ld.shared").0,
                },
            )
        })
        .collect()
}

struct Function<'a> {
    name: &'a str,
    entry: bool,
    /// Declarations, labels and instructions, trimmed, in order, without comments.
    body: Vec<&'a str>,
}

fn split_functions(ptx: &str) -> Vec<Function<'_>> {
    let mut out = Vec::new();
    let mut current: Option<Function> = None;
    let mut depth = 0i32;
    for line in ptx.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if current.is_none() && depth == 0 && (line.contains(".entry ") || line.contains(".func "))
        {
            let head = line.split('(').next().unwrap_or("");
            let name = head.split_whitespace().last().unwrap_or("");
            current = Some(Function {
                name,
                entry: line.contains(".entry "),
                body: Vec::new(),
            });
            continue;
        }
        let opens = line.matches('{').count() as i32;
        let closes = line.matches('}').count() as i32;
        let was = depth;
        depth += opens - closes;
        if let Some(f) = current.as_mut() {
            if was > 0 && depth > 0 && !line.is_empty() {
                f.body.push(line);
            }
            if was > 0 && depth == 0 {
                out.extend(current.take());
            }
        }
    }
    out
}

/// Width in 32-bit registers of each declared register prefix (`%rd` -> 2).
fn widths(body: &[&str]) -> HashMap<String, u32> {
    let mut out = HashMap::new();
    for line in body.iter().filter(|l| l.starts_with(".reg")) {
        let mut words = line.split_whitespace().skip(1);
        let (Some(ty), Some(name)) = (words.next(), words.next()) else {
            continue;
        };
        let width = match ty {
            ".pred" => 0,
            t if t.ends_with("64") => 2,
            _ => 1,
        };
        let prefix = name.trim_start_matches('%').split('<').next().unwrap_or("");
        out.insert(prefix.to_string(), width);
    }
    out
}

/// Virtual registers named in an instruction, with the byte offset of each mention.
fn registers<'a>(line: &'a str, widths: &HashMap<String, u32>) -> Vec<(usize, &'a str)> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut end = start;
        while end < bytes.len() && bytes[end].is_ascii_alphanumeric() {
            end += 1;
        }
        let token = &line[start..end];
        let digits = token.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let prefix = &token[..token.len() - digits.len()];
        if !digits.is_empty() && widths.contains_key(prefix) {
            out.push((i, token));
        }
        i = end.max(start);
    }
    out
}

fn is_instruction(line: &str) -> bool {
    !line.starts_with('.')
        && !line.ends_with(':')
        && !line.starts_with('{')
        && !line.starts_with('}')
}

fn live_pressure(body: &[&str]) -> u32 {
    let widths = widths(body);
    let mut labels: HashMap<&str, usize> = HashMap::new();
    let mut instructions = Vec::new();
    for line in body {
        if let Some(label) = line.strip_suffix(':') {
            labels.insert(label, instructions.len());
        } else if is_instruction(line) {
            instructions.push(*line);
        }
    }
    let mut range: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut loops = Vec::new();
    for (i, line) in instructions.iter().enumerate() {
        for (_, r) in registers(line, &widths) {
            let e = range.entry(r).or_insert((i, i));
            e.1 = i;
        }
        if let Some(target) = line.split_whitespace().last().and_then(|t| {
            line.contains("bra")
                .then(|| labels.get(t.trim_end_matches(';')))
                .flatten()
        }) {
            if *target <= i {
                loops.push((*target, i));
            }
        }
    }
    // Live into a loop: live to its back edge. Twice, for values that cross nested loops.
    for _ in 0..2 {
        for &(start, end) in &loops {
            for r in range.values_mut() {
                if r.0 < start && r.1 >= start && r.1 < end {
                    r.1 = end;
                }
            }
        }
    }
    let mut delta = vec![0i64; instructions.len() + 1];
    for (name, (first, last)) in &range {
        let prefix = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let w = widths.get(prefix).copied().unwrap_or(1) as i64;
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

/// Global loads in flight together, and stores issued together, each averaged over the loads
/// (stores) counted. ptxas schedules a basic block's independent loads ahead of the arithmetic
/// that uses them, so a batch of loads ends only at a load whose address needs a pending load's
/// value (pointer chasing), and any batch at a label, a branch or a barrier.
fn in_flight(body: &[&str], load: &str) -> (f64, f64) {
    let widths = widths(body);
    let mut pending: Vec<&str> = Vec::new();
    let mut tainted: Vec<&str> = Vec::new();
    let mut batches: Vec<usize> = Vec::new();
    let mut stores = 0usize;
    let mut store_batches: Vec<usize> = Vec::new();
    // A store to the loads' space came after the pending batch's loads.
    let mut store_since_batch = false;
    let mut close = |pending: &mut Vec<&str>| {
        if !pending.is_empty() {
            batches.push(pending.len());
            pending.clear();
        }
    };
    let mut close_stores = |stores: &mut usize| {
        if *stores > 0 {
            store_batches.push(*stores);
            *stores = 0;
        }
    };
    for line in body {
        if line.ends_with(':') {
            close(&mut pending);
            close_stores(&mut stores);
            tainted.clear();
            store_since_batch = false;
            continue;
        }
        if !is_instruction(line) {
            continue;
        }
        let op = line.trim_start_matches(['@', '!']);
        let op = if line.starts_with('@') {
            op.split_once(char::is_whitespace)
                .map_or(op, |(_, rest)| rest.trim())
        } else {
            op
        };
        let regs = registers(op, &widths);
        let is_load = op.starts_with(load) || op.starts_with(&format!("ldu{}", &load[2..]));
        let is_store = op.starts_with("st.") || op.starts_with("red.");
        // A load after a store to the same space may read what the store wrote, so ptxas cannot
        // hoist it above the store, and the store sits after the arithmetic that used the
        // pending loads: the load starts a batch of its own. Read-only loads (`.nc`: __ldg, or
        // const __restrict__) may move above stores.
        if is_load && store_since_batch && !op.contains(".nc") {
            close(&mut pending);
            tainted.clear();
            store_since_batch = false;
        }
        if is_store && op.starts_with(&format!("st{}", &load[2..])) && !pending.is_empty() {
            store_since_batch = true;
        }
        // A register computed from a pending load's value is pending too: an address made from
        // it must wait for the load.
        let bracket = op.find('[').unwrap_or(op.len());
        let first_comma = op.find(',').unwrap_or(op.len());
        if is_load
            && regs
                .iter()
                .any(|(at, r)| *at > bracket && tainted.contains(r))
        {
            close(&mut pending);
            tainted.clear();
        } else if !is_load
            && !is_store
            && regs
                .iter()
                .any(|(at, r)| *at > first_comma && tainted.contains(r))
        {
            if let Some((at, r)) = regs.first() {
                if *at < first_comma {
                    tainted.push(r);
                }
            }
        }
        if is_load {
            // Each load counts once (a vector load is one instruction, whatever its width).
            pending.push(regs.first().map_or("", |(_, r)| r));
            tainted.extend(regs.iter().filter(|(at, _)| *at < bracket).map(|(_, r)| *r));
        }
        if op.starts_with("st.global") {
            stores += 1;
        }
        if op.starts_with("bra") || op.starts_with("ret") || op.starts_with("bar") {
            close(&mut pending);
            close_stores(&mut stores);
            tainted.clear();
            store_since_batch = false;
        }
    }
    close(&mut pending);
    close_stores(&mut stores);
    (weighted_mean(&batches), weighted_mean(&store_batches))
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
        let k = &analyse(VECTOR_ADD)["vector_add"];
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
        let k = &analyse(&SAXPY_UNROLLED.replace("LD", "ld.global.f32"))["saxpy"];
        assert_eq!((k.loads_in_flight, k.stores_in_flight), (2.0, 3.0));
        // Read-only loads (__ldg, const __restrict__) may move above the stores.
        let k = &analyse(&SAXPY_UNROLLED.replace("LD", "ld.global.nc.f32"))["saxpy"];
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
}
