//! What the default stream costs as streams come and go: `n` times, a stream created, a memset
//! on it, the stream destroyed and a memset on the legacy default stream (which waits for every
//! blocking stream), timed, for each `n` given.
//!
//! `cargo run --release -p simdriver --example stream_churn_bench -- 100000 1000000`
//!
//! A table, one row per `n`: a cost per step that grows with `n` is a data structure to fix (the
//! modelled timeline once looked at every stream ever created at each default-stream call).

use simcuda as _; // the driver's entry points, called here through their C ABI

use std::ffi::c_void;
use std::time::Instant;

extern "C" {
    fn cuInit(flags: u32) -> u32;
    fn cuDevicePrimaryCtxRetain(ctx: *mut *mut c_void, dev: i32) -> u32;
    fn cuCtxSetCurrent(ctx: *mut c_void) -> u32;
    fn cuMemAlloc_v2(at: *mut u64, bytes: usize) -> u32;
    fn cuStreamCreate(stream: *mut *mut c_void, flags: u32) -> u32;
    fn cuStreamDestroy_v2(stream: *mut c_void) -> u32;
    fn cuMemsetD8Async(at: u64, value: u8, count: usize, stream: *mut c_void) -> u32;
    fn cuMemsetD8_v2(at: u64, value: u8, count: usize) -> u32;
}

/// Panics naming `call` unless the driver answered CUDA_SUCCESS.
fn check(call: &str, result: u32) {
    assert_eq!(result, 0, "{call} failed with CUDA error {result}");
}

/// Seconds for `n` steps of creating a stream, using it, destroying it and using the default
/// stream, on the 256 bytes at `at`.
fn churn(at: u64, n: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        let mut stream = std::ptr::null_mut();
        // SAFETY: driver API calls with valid pointers, on an allocation of 256 bytes.
        unsafe {
            check("cuStreamCreate", cuStreamCreate(&mut stream, 0));
            check("cuMemsetD8Async", cuMemsetD8Async(at, 1, 256, stream));
            check("cuStreamDestroy", cuStreamDestroy_v2(stream));
            check("cuMemsetD8", cuMemsetD8_v2(at, 0, 256));
        }
    }
    start.elapsed().as_secs_f64()
}

fn main() {
    let counts: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("each argument is a count of streams"))
        .collect();
    let counts = if counts.is_empty() {
        vec![100_000, 1_000_000]
    } else {
        counts
    };
    let (mut ctx, mut at) = (std::ptr::null_mut(), 0);
    // SAFETY: driver API calls with valid pointers.
    unsafe {
        check("cuInit", cuInit(0));
        check(
            "cuDevicePrimaryCtxRetain",
            cuDevicePrimaryCtxRetain(&mut ctx, 0),
        );
        check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
        check("cuMemAlloc", cuMemAlloc_v2(&mut at, 256));
    }
    println!("| streams created and destroyed | seconds | µs per step |");
    println!("| ---: | ---: | ---: |");
    for n in counts {
        let seconds = churn(at, n);
        println!("| {n} | {seconds:.3} | {:.2} |", seconds * 1e6 / n as f64);
    }
}
