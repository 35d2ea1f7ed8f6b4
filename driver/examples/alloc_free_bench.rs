//! What allocating and freeing cost as live allocations grow: `n` calls of `cuMemAlloc` (256
//! bytes each), then `n` of `cuMemFree` in the order allocated (a list kept in order shifts
//! every later entry on each free: the worst order for one), timed, for each `n` given.
//!
//! `cargo run --release -p simdriver --example alloc_free_bench -- 100000 1000000`
//!
//! A table, one row per `n`. NVIDIA's driver frees a million allocations in 3.8 s on an H200
//! (issue 25); a cost per call that grows with `n` is a data structure to fix.

use simcuda as _; // the driver's entry points, called here through their C ABI

use std::time::Instant;

extern "C" {
    fn cuInit(flags: u32) -> u32;
    fn cuDevicePrimaryCtxRetain(ctx: *mut *mut std::ffi::c_void, dev: i32) -> u32;
    fn cuCtxSetCurrent(ctx: *mut std::ffi::c_void) -> u32;
    fn cuMemAlloc_v2(at: *mut u64, bytes: usize) -> u32;
    fn cuMemFree_v2(at: u64) -> u32;
}

/// Panics naming `call` unless the driver answered CUDA_SUCCESS.
fn check(call: &str, result: u32) {
    assert_eq!(result, 0, "{call} failed with CUDA error {result}");
}

/// Seconds to allocate `n` blocks, and seconds to free them.
fn allocate_and_free(n: usize) -> (f64, f64) {
    let mut addresses = Vec::with_capacity(n);
    let start = Instant::now();
    for _ in 0..n {
        let mut at = 0;
        // SAFETY: a valid pointer.
        check("cuMemAlloc", unsafe { cuMemAlloc_v2(&mut at, 256) });
        addresses.push(at);
    }
    let allocated = start.elapsed().as_secs_f64();
    let start = Instant::now();
    for at in addresses {
        // SAFETY: an allocation of this driver's, freed once.
        check("cuMemFree", unsafe { cuMemFree_v2(at) });
    }
    (allocated, start.elapsed().as_secs_f64())
}

fn main() {
    let counts: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("each argument is a count of allocations"))
        .collect();
    let counts = if counts.is_empty() {
        vec![100_000, 1_000_000]
    } else {
        counts
    };
    let mut ctx = std::ptr::null_mut();
    // SAFETY: driver API calls with valid pointers.
    unsafe {
        check("cuInit", cuInit(0));
        check(
            "cuDevicePrimaryCtxRetain",
            cuDevicePrimaryCtxRetain(&mut ctx, 0),
        );
        check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
    }
    println!("| allocations | cuMemAlloc (s) | cuMemFree (s) | µs per free |");
    println!("| ---: | ---: | ---: | ---: |");
    for n in counts {
        let (allocated, freed) = allocate_and_free(n);
        let per_free = freed * 1e6 / n as f64;
        println!("| {n} | {allocated:.3} | {freed:.3} | {per_free:.2} |");
    }
}
