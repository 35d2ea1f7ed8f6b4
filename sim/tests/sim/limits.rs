//! Bounds: what the simulator refuses as a GPU would (local, shared and constant memory, grids),
//! and what it keeps within memory and time (local arrays, printf floods, huge grids, clocks).

use super::common::*;
use sim::{DiagnosticKind, Launch, LaunchReport, Limits, Machine, SimError};
use std::time::{Duration, Instant};

/// Far longer than any of these launches takes on the slowest machine, and far shorter than
/// what they would take if the bound under test were lost (a 32 GiB local array touched
/// everywhere, a flood of printf, two billion blocks): the time tells which, on any machine.
const UNBOUNDED: Duration = Duration::from_secs(120);

fn launch(
    m: &mut Machine,
    kernel: &str,
    grid: u32,
    block: u32,
    params: Vec<Vec<u8>>,
    limits: Limits,
) -> Result<LaunchReport, SimError> {
    let module = module("limits");
    let mut l = Launch::new(kernel, [grid, 1, 1], [block, 1, 1], params);
    l.limits = limits;
    m.launch(&module, &l)
}

fn ptr(a: u64) -> Vec<u8> {
    a.to_le_bytes().to_vec()
}

fn budget(max_warp_instructions: u64) -> Limits {
    Limits {
        max_warp_instructions,
        ..Limits::default()
    }
}

fn timeout(r: &LaunchReport) -> bool {
    r.aborted
        && r.diagnostics
            .iter()
            .any(|d| d.kind == DiagnosticKind::Timeout)
}

#[test]
fn local_arrays_past_512_kib_per_thread_are_refused_as_ptxas_does() {
    for kernel in ["local_4m", "local_64m"] {
        let mut m = Machine::new();
        let idx = upload(&mut m, &[0i32; 32]);
        let out = upload(&mut m, &[0i32; 32]);
        let err = launch(
            &mut m,
            kernel,
            1,
            32,
            vec![ptr(idx), ptr(out)],
            budget(1 << 20),
        )
        .expect_err("no GPU gives a thread more than 512 KiB of local memory");
        let text = err.to_string();
        assert!(
            text.contains("uses too much local data") && text.contains("0x80000 max"),
            "{kernel}: {text}"
        );
    }
}

/// What the array costs the host (the pages its lanes touch) is held by `memory::local`'s own
/// tests; this one holds the results, and that the launch ends at all.
#[test]
fn a_local_array_at_the_limit_is_right_for_every_thread() {
    let (blocks, threads) = (64u32, 1024u32);
    let n = (blocks * threads) as usize;
    let mut m = Machine::new();
    let idx: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 131072).collect();
    let idx_addr = upload(&mut m, &idx);
    let out = upload(&mut m, &vec![0i32; n]);
    let start = Instant::now();
    let r = launch(
        &mut m,
        "local_512k",
        blocks,
        threads,
        vec![ptr(idx_addr), ptr(out), (n as i32).to_le_bytes().to_vec()],
        Limits::default(),
    )
    .unwrap();
    let took = start.elapsed();
    assert!(!r.aborted, "{:?}", r.diagnostics);
    let got: Vec<i32> = download_u32(&m, out, n)
        .into_iter()
        .map(|v| v as i32)
        .collect();
    for i in 0..n {
        let expect = if idx[i] == 131071 - idx[i] {
            2 * i as i32 * 2
        } else {
            3 * i as i32
        };
        assert_eq!(got[i], expect, "thread {i}");
    }
    assert!(
        took < UNBOUNDED,
        "64 Ki threads touching 8 bytes each of a 512 KiB local array took {took:?}"
    );
}

#[test]
fn printf_output_is_cut_after_1_mib_with_a_note() {
    let mut m = Machine::new();
    let start = Instant::now();
    let r = launch(
        &mut m,
        "print_loop",
        1,
        32,
        vec![100_000i32.to_le_bytes().to_vec()],
        Limits::default(),
    )
    .unwrap();
    assert!(!r.aborted, "{:?}", r.diagnostics);
    assert!(
        r.printf.len() <= (1 << 20) + 200,
        "{} bytes of printf output",
        r.printf.len()
    );
    assert!(r.printf.len() >= (1 << 20) - 200);
    assert!(
        r.printf
            .trim_end()
            .ends_with("printf output cut after 1 MiB (the GPU's printf buffer holds 1 MiB too)"),
        "{}",
        &r.printf[r.printf.len() - 300..]
    );
    assert!(r.printf.starts_with("line 0 of a long"));
    assert!(start.elapsed() < UNBOUNDED);
}

#[test]
fn printf_in_every_thread_of_a_big_grid_is_capped_and_quick() {
    let mut m = Machine::new();
    let start = Instant::now();
    let r = launch(
        &mut m,
        "print_every_thread",
        4096,
        1024,
        vec![],
        Limits::default(),
    )
    .unwrap();
    let took = start.elapsed();
    assert!(r.printf.len() <= (1 << 20) + 200, "{}", r.printf.len());
    assert!(r.printf.starts_with("block 0 thread 0 says hello"));
    assert!(took < UNBOUNDED, "took {took:?}");
}

#[test]
fn a_huge_printf_width_is_bounded_and_charged() {
    let mut m = Machine::new();
    let r = launch(
        &mut m,
        "print_wide",
        1,
        32,
        vec![i32::MAX.to_le_bytes().to_vec()],
        budget(1_000),
    )
    .unwrap();
    assert!(r.printf.len() <= (1 << 20) + 200, "{}", r.printf.len());
    assert!(
        timeout(&r),
        "formatting megabytes costs more than 1000 warp instructions: {:?}",
        r.diagnostics
    );
}

#[test]
fn a_grid_of_2_pow_31_blocks_is_refused_and_a_huge_valid_grid_stops_at_the_budget() {
    let mut m = Machine::new();
    let out = upload(&mut m, &[0i32; 1]);
    let err = launch(
        &mut m,
        "empty_block",
        1 << 31,
        32,
        vec![ptr(out)],
        budget(1 << 20),
    )
    .expect_err("grid.x is at most 2^31 - 1");
    assert!(
        err.to_string().contains("CUDA_ERROR_INVALID_VALUE"),
        "{err}"
    );
    let start = Instant::now();
    let r = launch(
        &mut m,
        "empty_block",
        i32::MAX as u32,
        32,
        vec![ptr(out)],
        budget(20_000_000),
    )
    .unwrap();
    let took = start.elapsed();
    assert!(timeout(&r), "{:?}", r.diagnostics);
    assert!(
        took < UNBOUNDED,
        "a budget of 2 s (as the runner converts it) took {took:?}"
    );
}

#[test]
fn static_shared_memory_over_48_kib_is_refused_as_ptxas_does() {
    let mut m = Machine::new();
    let out = upload(&mut m, &[0f32; 32]);
    let err = launch(
        &mut m,
        "static_shared_50k",
        1,
        32,
        vec![ptr(out)],
        budget(1 << 20),
    )
    .expect_err("static shared memory is at most 48 KiB");
    assert!(
        err.to_string()
            .contains("uses too much shared data (0xc800 bytes, 0xc000 max)"),
        "{err}"
    );
}

#[test]
fn dynamic_shared_memory_goes_up_to_the_opt_in_limit() {
    let module = module("limits");
    let mut m = Machine::new();
    let out = upload(&mut m, &[0f32; 32]);
    let mut l = Launch::new("dynamic_shared", [1, 1, 1], [32, 1, 1], vec![ptr(out)]);
    l.dynamic_shared_bytes = 100 * 1024;
    let r = m.launch(&module, &l).unwrap();
    assert!(!r.aborted);
    assert_eq!(download_f32(&m, out, 32)[0], 31.0);
    l.dynamic_shared_bytes = 227 * 1024 + 4;
    let err = m.launch(&module, &l).expect_err("more than 227 KiB");
    assert!(
        err.to_string().contains("CUDA_ERROR_INVALID_VALUE"),
        "{err}"
    );
}

#[test]
fn constant_memory_over_64_kib_is_refused_as_ptxas_does() {
    let module = module("limits_constant");
    let mut m = Machine::new();
    let out = upload(&mut m, &[0f32; 32]);
    let l = Launch::new(
        "read_table",
        [1, 1, 1],
        [32, 1, 1],
        vec![ptr(out), 32i32.to_le_bytes().to_vec()],
    );
    let err = m.launch(&module, &l).expect_err("__constant__ is 64 KiB");
    assert!(
        err.to_string()
            .contains("uses too much global constant data (0x61a80 bytes, 0x10000 max)"),
        "{err}"
    );
}

#[test]
fn a_clock64_busy_wait_ends_after_its_cycles() {
    let mut m = Machine::new();
    let waited = upload(&mut m, &[0u64; 4]);
    let cycles: i64 = 1_000_000;
    let r = launch(
        &mut m,
        "busy_wait",
        4,
        64,
        vec![cycles.to_le_bytes().to_vec(), ptr(waited)],
        budget(20_000_000),
    )
    .unwrap();
    assert!(!r.aborted, "{:?}", r.diagnostics);
    for w in download_u64(&m, waited, 4) {
        let w = w as i64;
        assert!(w >= cycles && w <= cycles + cycles / 8, "waited {w} cycles");
    }
    // Half a second in every thread of 4096 warps: a GPU waits it once, and so must the
    // simulator, within a budget that is a few hundred instructions a warp.
    let waited = upload(&mut m, &[0u64; 512]);
    let half_second: i64 = 500_000_000;
    let r = launch(
        &mut m,
        "busy_wait",
        512,
        256,
        vec![half_second.to_le_bytes().to_vec(), ptr(waited)],
        budget(4096 * 1000),
    )
    .unwrap();
    assert!(!r.aborted, "{:?}", r.diagnostics);
    assert!(download_u64(&m, waited, 512)
        .iter()
        .all(|&w| w as i64 >= half_second));
    // Its modelled time is the wait, once: the 512 blocks fit on the GPU at once.
    let modelled = &r.modelled;
    assert_eq!(modelled.bound_by, sim::Resource::ClockWait, "{modelled:?}");
    assert!(
        (500_000.0..=570_000.0).contains(&modelled.microseconds),
        "{modelled:?}"
    );
    // A wait longer than the launch's time limit is a hang, told as a wait on the clock.
    let mut limits = budget(20_000_000);
    limits.max_clock = 2_000_000_000;
    let r = launch(
        &mut m,
        "busy_wait",
        1,
        32,
        vec![(1i64 << 50).to_le_bytes().to_vec(), ptr(waited)],
        limits,
    )
    .unwrap();
    assert!(timeout(&r));
    let message = &r.diagnostics[0].message;
    assert!(
        message.contains("past its time limit of 2.000 s"),
        "{message}"
    );
}

#[test]
fn global_allocations_past_the_simulators_memory_are_errors() {
    let mut m = Machine::new();
    for bytes in [5u64 << 30, 99_999_999_999 * 4, u64::MAX] {
        assert!(
            matches!(m.try_alloc(bytes), Err(SimError::OutOfMemory { .. })),
            "{bytes}"
        );
    }
    assert!(m.try_alloc(1 << 20).is_ok());
}
