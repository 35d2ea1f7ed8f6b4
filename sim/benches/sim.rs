//! Simulator throughput on the three kernels the acceptance targets name, figures and race
//! detection included: vector add (2^20 elements), tiled transpose (1024x1024, 32x8 blocks, 32x33
//! tile) and shared-memory tree reduction (2^20 elements, blocks of 256).
//!
//! `cargo bench -p sim` prints criterion's throughput (`thrpt`, elements per second).
//! `SIM_BENCH_THREADS=1` runs blocks on one CPU thread (default: all cores).

mod common;

use common::{floats, int, ptr};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sim::{Launch, Limits, Machine, Module};

const VECTOR_ADD: &str = include_str!("../tests/fixtures/vector_add.ptx");
const TRANSPOSE: &str = include_str!("../tests/fixtures/transpose.ptx");
const REDUCE: &str = include_str!("../tests/fixtures/reduce.ptx");

fn limits() -> Limits {
    let threads = std::env::var("SIM_BENCH_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    Limits {
        threads,
        ..Limits::default()
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim");
    group.sample_size(10);

    let n = 1usize << 20;
    let module = Module::parse(VECTOR_ADD).expect("vector_add.ptx");
    let mut m = Machine::new();
    let (a, b, out) = (floats(&mut m, n), floats(&mut m, n), m.alloc(4 * n as u64));
    let mut launch = Launch::new(
        "vector_add",
        [4096, 1, 1],
        [256, 1, 1],
        vec![ptr(a), ptr(b), ptr(out), int(n as i32)],
    );
    launch.limits = limits();
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("vector_add_2^20", |bench| {
        bench.iter(|| {
            let r = m.launch(&module, &launch).expect("launch");
            assert!(r.diagnostics.is_empty());
        })
    });

    let side = 1024usize;
    let module = Module::parse(TRANSPOSE).expect("transpose.ptx");
    let mut m = Machine::new();
    let (input, out) = (
        floats(&mut m, side * side),
        m.alloc(4 * (side * side) as u64),
    );
    let mut launch = Launch::new(
        "transpose_tiled",
        [32, 32, 1],
        [32, 8, 1],
        vec![ptr(input), ptr(out), int(side as i32), int(side as i32)],
    );
    launch.limits = limits();
    group.throughput(Throughput::Elements((side * side) as u64));
    group.bench_function("transpose_tiled_1024x1024", |bench| {
        bench.iter(|| {
            let r = m.launch(&module, &launch).expect("launch");
            assert!(r.diagnostics.is_empty());
        })
    });

    let module = Module::parse(REDUCE).expect("reduce.ptx");
    let mut m = Machine::new();
    let (input, out) = (floats(&mut m, n), m.alloc(4 * 4096));
    let mut launch = Launch::new(
        "reduce_shared",
        [4096, 1, 1],
        [256, 1, 1],
        vec![ptr(input), ptr(out), int(n as i32)],
    );
    launch.limits = limits();
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("reduce_shared_2^20", |bench| {
        bench.iter(|| {
            let r = m.launch(&module, &launch).expect("launch");
            assert!(r.diagnostics.is_empty());
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
