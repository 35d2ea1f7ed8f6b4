//! A before/after table of the interpreter's speed on four heavy kernels: naive SGEMM 512^3,
//! vector add 2^20, tiled transpose 1024x1024 (32x33 tile), shared-memory reduction 2^20.
//!
//! `cargo bench -p sim --bench table` prints a Markdown table: the fastest and the median of
//! `SIM_BENCH_REPEATS` launches (default 5; the minimum is the figure least disturbed by a loaded
//! machine), the CPU time a launch takes over all its threads (from /proc/self/stat, which
//! waiting for a core does not inflate), warp instructions, and CPU nanoseconds per warp
//! instruction. Also checks every launch
//! gives the same figures and output bytes as the first, so a fast path that changes a result
//! shows here too. `SIM_BENCH_THREADS=1` runs blocks on one CPU thread (default: all cores);
//! `SIM_BENCH_ONLY=sgemm` runs one kernel (for `perf record`).

mod common;

use common::{floats, int, ptr};
use sim::{Launch, LaunchReport, Limits, Machine, Module};
use std::time::{Duration, Instant};

const MATMUL: &str = include_str!("../tests/fixtures/matmul.ptx");
const VECTOR_ADD: &str = include_str!("../tests/fixtures/vector_add.ptx");
const TRANSPOSE: &str = include_str!("../tests/fixtures/transpose.ptx");
const REDUCE: &str = include_str!("../tests/fixtures/reduce.ptx");

/// One kernel of the table: its module, launch and the buffer whose bytes are its result.
struct Case {
    name: &'static str,
    machine: Machine,
    module: Module,
    launch: Launch,
    output: (u64, usize),
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(default)
}

fn case(
    name: &'static str,
    ptx: &str,
    kernel: &str,
    shape: ([u32; 3], [u32; 3]),
    inputs: &[usize],
    out_len: usize,
    tail: &[i32],
) -> Case {
    let module = Module::parse(ptx).expect("fixture PTX parses");
    let mut machine = Machine::new();
    let mut params: Vec<Vec<u8>> = inputs
        .iter()
        .map(|&n| ptr(floats(&mut machine, n)))
        .collect();
    let out = machine.alloc(4 * out_len as u64);
    params.push(ptr(out));
    params.extend(tail.iter().map(|&v| int(v)));
    let mut launch = Launch::new(kernel, shape.0, shape.1, params);
    launch.limits = Limits {
        threads: env_usize("SIM_BENCH_THREADS", 0),
        ..Limits::default()
    };
    Case {
        name,
        machine,
        module,
        launch,
        output: (out, 4 * out_len),
    }
}

fn cases() -> Vec<Case> {
    let n = 1usize << 20;
    let side = 1024usize;
    let dim = 512usize;
    vec![
        case(
            "sgemm_naive_512^3",
            MATMUL,
            "matmul_naive",
            ([32, 32, 1], [16, 16, 1]),
            &[dim * dim, dim * dim],
            dim * dim,
            &[dim as i32],
        ),
        case(
            "vector_add_2^20",
            VECTOR_ADD,
            "vector_add",
            ([4096, 1, 1], [256, 1, 1]),
            &[n, n],
            n,
            &[n as i32],
        ),
        case(
            "transpose_tiled_1024^2",
            TRANSPOSE,
            "transpose_tiled",
            ([32, 32, 1], [32, 8, 1]),
            &[side * side],
            side * side,
            &[side as i32, side as i32],
        ),
        case(
            "reduce_shared_2^20",
            REDUCE,
            "reduce_shared",
            ([4096, 1, 1], [256, 1, 1]),
            &[n],
            4096,
            &[n as i32],
        ),
    ]
}

/// Launches `c` once; its report and output bytes.
fn launch(c: &mut Case) -> (Duration, LaunchReport, Vec<u8>) {
    let t = Instant::now();
    let r = c.machine.launch(&c.module, &c.launch).expect("launch");
    let took = t.elapsed();
    assert!(r.diagnostics.is_empty(), "{}: {:?}", c.name, r.diagnostics);
    let out = c
        .machine
        .read(c.output.0, c.output.1 as u64)
        .expect("read output");
    (took, r, out)
}

/// CPU time (user and system) this process has used so far, all threads included, or `None`
/// where /proc is not there. Ticks of 10 ms: the table adds it up over every repeat.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ').skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

fn main() {
    // `cargo bench` passes `--bench`; this table takes no arguments.
    let repeats = env_usize("SIM_BENCH_REPEATS", 5).max(1);
    let only = std::env::var("SIM_BENCH_ONLY").ok();
    println!(
        "| kernel | fastest of {repeats} | median | CPU time a launch | warp instructions | CPU ns per warp instruction |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for mut c in cases() {
        if only.as_deref().is_some_and(|o| !c.name.contains(o)) {
            continue;
        }
        let cpu_before = cpu_time();
        let (first, report, output) = launch(&mut c);
        let mut times = vec![first];
        for _ in 1..repeats {
            let (t, r, out) = launch(&mut c);
            assert_eq!(r.figures, report.figures, "{}: figures changed", c.name);
            assert_eq!(out, output, "{}: output changed", c.name);
            times.push(t);
        }
        let cpu = cpu_time()
            .zip(cpu_before)
            .map(|(after, before)| (after - before).as_secs_f64() / repeats as f64);
        times.sort();
        let (fastest, median) = (times[0], times[times.len() / 2]);
        let ms = |s: f64| format!("{:.1} ms", s * 1e3);
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            c.name,
            ms(fastest.as_secs_f64()),
            ms(median.as_secs_f64()),
            cpu.map_or("?".to_string(), ms),
            report.warp_instructions,
            cpu.map_or("?".to_string(), |s| format!(
                "{:.0}",
                s * 1e9 / report.warp_instructions as f64
            )),
        );
    }
}
