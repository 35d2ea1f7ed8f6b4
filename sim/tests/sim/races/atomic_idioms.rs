//! The atomics idioms of `atomic_idioms.cu`: compare-and-swap loops, warp-aggregated atomics,
//! shared-then-global atomics and a lock get no race report and compute the right result; the
//! racy variants are reported at the plain access, with its thread.

use super::super::common::*;
use sim::{AccessKind, Diagnostic, DiagnosticKind, LaunchReport, Limits, Machine, RacePlace};

const N: usize = 1000;
const GRID: u32 = 4;

fn run(gpu: &mut Machine, kernel: &str, args: &[Arg]) -> LaunchReport {
    launch_with(
        gpu,
        &module("atomic_idioms"),
        kernel,
        [GRID, 1, 1],
        [256, 1, 1],
        0,
        args,
        Limits {
            threads: 2,
            ..Limits::default()
        },
    )
}

fn no_races(kernel: &str, r: &LaunchReport) {
    assert!(
        r.diagnostics.is_empty() && !r.aborted,
        "{kernel}: unexpected diagnostics: {:#?}",
        r.diagnostics
    );
}

/// The one race reported, of `kind`.
fn the_race(kernel: &str, r: &LaunchReport, kind: DiagnosticKind) -> Diagnostic {
    assert!(
        !r.aborted,
        "{kernel}: races are not fatal: {:#?}",
        r.diagnostics
    );
    let found: Vec<_> = r.diagnostics.iter().filter(|d| d.kind == kind).collect();
    assert!(
        !found.is_empty() && found.len() == r.diagnostics.len(),
        "{kernel}: want only {kind:?}: {:#?}",
        r.diagnostics
    );
    found[0].clone()
}

fn line(d: &Diagnostic) -> u32 {
    d.location.as_ref().expect("a source line").line
}

fn inputs_f32(gpu: &mut Machine, seed: u64) -> (u64, Vec<f32>) {
    let v = random_f32(N, seed, -1.0, 1.0);
    (upload(gpu, &v), v)
}

// ---- correct idioms: no race, right result ----

#[test]
fn cas_add_for_double_from_the_programming_guide() {
    let mut gpu = Machine::new();
    let v: Vec<f64> = (0..N).map(|i| (i % 13) as f64 * 0.25).collect();
    let din = upload(&mut gpu, &v);
    let sum = upload(&mut gpu, &[0.0f64]);
    let r = run(
        &mut gpu,
        "sum_double_cas",
        &[Arg::Ptr(din), Arg::Ptr(sum), Arg::I32(N as i32)],
    );
    no_races("sum_double_cas", &r);
    assert_eq!(download_f64(&gpu, sum, 1)[0], v.iter().sum::<f64>());
}

#[test]
fn cas_add_for_float() {
    let mut gpu = Machine::new();
    let v: Vec<f32> = (0..N).map(|i| (i % 7) as f32).collect();
    let din = upload(&mut gpu, &v);
    let sum = upload(&mut gpu, &[0.0f32]);
    let r = run(
        &mut gpu,
        "sum_float_cas",
        &[Arg::Ptr(din), Arg::Ptr(sum), Arg::I32(N as i32)],
    );
    no_races("sum_float_cas", &r);
    assert_eq!(download_f32(&gpu, sum, 1)[0], v.iter().sum::<f32>());
}

#[test]
fn cas_max_and_min_for_float() {
    for (kernel, start, want) in [
        ("max_float_cas", -10.0f32, f32::max as fn(f32, f32) -> f32),
        ("min_float_cas", 10.0, f32::min),
    ] {
        let mut gpu = Machine::new();
        let (din, v) = inputs_f32(&mut gpu, 3);
        let m = upload(&mut gpu, &[start]);
        let r = run(
            &mut gpu,
            kernel,
            &[Arg::Ptr(din), Arg::Ptr(m), Arg::I32(N as i32)],
        );
        no_races(kernel, &r);
        assert_eq!(
            download_f32(&gpu, m, 1)[0],
            v.iter().copied().fold(start, want)
        );
    }
}

#[test]
fn cas_max_in_shared_memory_then_global() {
    let mut gpu = Machine::new();
    let (din, v) = inputs_f32(&mut gpu, 9);
    let m = upload(&mut gpu, &[-10.0f32]);
    let r = run(
        &mut gpu,
        "block_max_in_shared",
        &[Arg::Ptr(din), Arg::Ptr(m), Arg::I32(N as i32)],
    );
    no_races("block_max_in_shared", &r);
    assert_eq!(
        download_f32(&gpu, m, 1)[0],
        v.iter().copied().fold(-10.0, f32::max)
    );
}

#[test]
fn numba_style_max_with_a_volatile_read() {
    let mut gpu = Machine::new();
    let v: Vec<f64> = random_f32(N, 5, -1.0, 1.0)
        .iter()
        .map(|&x| x as f64)
        .collect();
    let din = upload(&mut gpu, &v);
    let m = upload(&mut gpu, &[-10.0f64]);
    let r = run(
        &mut gpu,
        "max_double_numba_style",
        &[Arg::Ptr(din), Arg::Ptr(m), Arg::I32(N as i32)],
    );
    no_races("max_double_numba_style", &r);
    assert_eq!(
        download_f64(&gpu, m, 1)[0],
        v.iter().copied().fold(-10.0, f64::max)
    );
}

#[test]
fn warp_aggregated_increment_compacts_the_positive_values() {
    let mut gpu = Machine::new();
    let v: Vec<i32> = random_u32(N, 8)
        .iter()
        .map(|&x| (x % 7) as i32 - 3)
        .collect();
    let src = upload(&mut gpu, &v);
    let dst = upload(&mut gpu, &vec![0i32; N]);
    let count = upload(&mut gpu, &[0i32]);
    let r = run(
        &mut gpu,
        "filter_positive_aggregated",
        &[
            Arg::Ptr(src),
            Arg::Ptr(dst),
            Arg::Ptr(count),
            Arg::I32(N as i32),
        ],
    );
    no_races("filter_positive_aggregated", &r);
    let n = download_u32(&gpu, count, 1)[0] as usize;
    let mut got: Vec<i32> = download_u32(&gpu, dst, n)
        .iter()
        .map(|&x| x as i32)
        .collect();
    let mut want: Vec<i32> = v.iter().copied().filter(|&x| x > 0).collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn warp_sum_then_one_atomic_per_warp() {
    let mut gpu = Machine::new();
    let v: Vec<i32> = (0..N as i32).map(|i| i % 5).collect();
    let din = upload(&mut gpu, &v);
    let total = upload(&mut gpu, &[0i32]);
    let seen = upload(&mut gpu, &vec![0i32; N]);
    let r = run(
        &mut gpu,
        "warp_sum_then_one_atomic",
        &[
            Arg::Ptr(din),
            Arg::Ptr(total),
            Arg::Ptr(seen),
            Arg::I32(N as i32),
        ],
    );
    no_races("warp_sum_then_one_atomic", &r);
    assert_eq!(
        download_u32(&gpu, total, 1)[0] as i32,
        v.iter().sum::<i32>()
    );
}

#[test]
fn shared_atomics_then_one_global_atomic_per_bin() {
    let mut gpu = Machine::new();
    let v: Vec<i32> = random_u32(N, 4)
        .iter()
        .map(|&x| (x % 1000) as i32)
        .collect();
    let din = upload(&mut gpu, &v);
    let bins = upload(&mut gpu, &[0i32; 16]);
    let r = run(
        &mut gpu,
        "histogram_shared_then_global",
        &[Arg::Ptr(din), Arg::Ptr(bins), Arg::I32(N as i32)],
    );
    no_races("histogram_shared_then_global", &r);
    let mut want = [0u32; 16];
    for x in &v {
        want[(x % 16) as usize] += 1;
    }
    assert_eq!(download_u32(&gpu, bins, 16), want);
}

#[test]
fn a_spin_lock_with_fences_protects_plain_updates() {
    let mut gpu = Machine::new();
    let v: Vec<f32> = (0..N).map(|i| (i % 3) as f32).collect();
    let din = upload(&mut gpu, &v);
    let total = upload(&mut gpu, &[0.0f32]);
    let blocks = upload(&mut gpu, &[0i32]);
    let lock = upload(&mut gpu, &[0i32]);
    let r = run(
        &mut gpu,
        "locked_update",
        &[
            Arg::Ptr(din),
            Arg::Ptr(total),
            Arg::Ptr(blocks),
            Arg::Ptr(lock),
            Arg::I32(N as i32),
        ],
    );
    no_races("locked_update", &r);
    assert_eq!(download_f32(&gpu, total, 1)[0], v.iter().sum::<f32>());
    assert_eq!(download_u32(&gpu, blocks, 1)[0], GRID);
}

// ---- racy variants: reported at the plain access ----

#[test]
fn zeroing_the_counter_in_the_kernel_is_reported_at_the_store_by_thread_0() {
    let mut gpu = Machine::new();
    let v: Vec<i32> = random_u32(N, 2)
        .iter()
        .map(|&x| (x % 3) as i32 - 1)
        .collect();
    let din = upload(&mut gpu, &v);
    let count = upload(&mut gpu, &[0i32]);
    let kernel = "zero_inside_the_kernel";
    let r = run(
        &mut gpu,
        kernel,
        &[Arg::Ptr(din), Arg::Ptr(count), Arg::I32(N as i32)],
    );
    let d = the_race(kernel, &r, DiagnosticKind::GlobalRace);
    assert_eq!(
        line(&d),
        line_of("atomic_idioms", "RACE: zeroed in the kernel")
    );
    assert_eq!((d.thread, d.block), ([0, 0, 0], [0, 0, 0]), "{}", d.message);
    let other = line_of("atomic_idioms", "OTHER: counted");
    assert!(
        d.message.contains(&format!("at line {other}"))
            && d.message.contains("atomically updates")
            && d.message.contains("make it atomic too"),
        "{}",
        d.message
    );
    // Both accesses as fields: the store first, then the atomic it races with.
    let race = d.race.as_deref().expect("a race names both accesses");
    let pair = &race.accesses;
    // `count` is the kernel's second parameter; the element its first.
    assert_eq!(
        race.place,
        RacePlace::Global {
            argument: Some(1),
            variable: None,
            element: Some(0),
            address: count,
        }
    );
    assert_eq!(pair[0].access, AccessKind::Write);
    assert_eq!((pair[0].thread, pair[0].block), (d.thread, d.block));
    assert_eq!(pair[0].location, d.location);
    assert_eq!(pair[1].access, AccessKind::Atomic);
    assert_eq!(pair[1].location.as_ref().map(|l| l.line), Some(other));
    assert_ne!(pair[1].thread, pair[0].thread);
}

#[test]
fn racy_variants_are_reported_at_their_plain_access() {
    let cases: [(&str, &str, DiagnosticKind); 7] = [
        (
            "max_without_cas",
            "RACE: plain max",
            DiagnosticKind::GlobalRace,
        ),
        (
            "add_with_exchange",
            "RACE: read for an exchange",
            DiagnosticKind::GlobalRace,
        ),
        (
            "aggregated_without_atomic",
            "RACE: leader's plain add",
            DiagnosticKind::GlobalRace,
        ),
        (
            "histogram_plain_merge",
            "RACE: plain merge",
            DiagnosticKind::GlobalRace,
        ),
        (
            "read_while_others_add",
            "RACE: read during the adds",
            DiagnosticKind::GlobalRace,
        ),
        (
            "shared_cas_and_plain_store",
            "RACE: shared plain store",
            DiagnosticKind::SharedRace,
        ),
        (
            "update_after_unlock",
            "RACE: after the unlock",
            DiagnosticKind::GlobalRace,
        ),
    ];
    for (kernel, marker, kind) in cases {
        let mut gpu = Machine::new();
        let (din, _) = inputs_f32(&mut gpu, 7);
        let ints: Vec<i32> = random_u32(N, 7).iter().map(|&x| (x % 100) as i32).collect();
        let dints = upload(&mut gpu, &ints);
        let a = upload(&mut gpu, &[0.0f32; 16]);
        let b = upload(&mut gpu, &[0i32; 16]);
        let args: Vec<Arg> = match kernel {
            "aggregated_without_atomic" | "histogram_plain_merge" => {
                vec![Arg::Ptr(dints), Arg::Ptr(b), Arg::I32(N as i32)]
            }
            "read_while_others_add" => vec![
                Arg::Ptr(dints),
                Arg::Ptr(b),
                Arg::Ptr(upload(&mut gpu, &[0i32; GRID as usize])),
                Arg::I32(N as i32),
            ],
            "update_after_unlock" => {
                vec![Arg::Ptr(din), Arg::Ptr(a), Arg::Ptr(b), Arg::I32(N as i32)]
            }
            _ => vec![Arg::Ptr(din), Arg::Ptr(a), Arg::I32(N as i32)],
        };
        let r = run(&mut gpu, kernel, &args);
        let d = the_race(kernel, &r, kind);
        assert_eq!(
            line(&d),
            line_of("atomic_idioms", marker),
            "{kernel}: {}",
            d.message
        );
        let pair = &d
            .race
            .as_deref()
            .expect("a race names both accesses")
            .accesses;
        assert!(
            pair[0].access.is_plain() && pair[0].access.races_with(pair[1].access),
            "{kernel}: {pair:?}"
        );
        if kind == DiagnosticKind::SharedRace {
            let place = &d.race.as_deref().expect("a race").place;
            let want = RacePlace::Shared {
                variable: Some("best".into()),
                byte: 0,
            };
            assert_eq!(place, &want, "{kernel}");
        }
    }
}

// ---- Numba's own PTX ----

/// A 1D Numba array as its kernel parameters: meminfo, parent, nitems, itemsize, data, shape,
/// stride.
fn numba_array(data: u64, n: usize, itemsize: usize) -> [Arg; 7] {
    let (n, size) = (n as u64, itemsize as u64);
    [
        Arg::Ptr(0),
        Arg::Ptr(0),
        Arg::Ptr(n),
        Arg::Ptr(size),
        Arg::Ptr(data),
        Arg::Ptr(n),
        Arg::Ptr(size),
    ]
}

/// Runs the one kernel of `fixture` (Numba's mangled name) on `result` and `values`.
fn run_numba(
    gpu: &mut Machine,
    fixture: &str,
    result: u64,
    values: u64,
    itemsize: usize,
) -> LaunchReport {
    let module = module(fixture);
    let kernels = module.kernels();
    let [kernel] = kernels.as_slice() else {
        panic!("{fixture}: one kernel, not {}", kernels.len());
    };
    let mut args: Vec<Arg> = numba_array(result, 1, itemsize).into();
    args.extend(numba_array(values, N, itemsize));
    launch_with(
        gpu,
        &module,
        &kernel.name,
        [GRID, 1, 1],
        [256, 1, 1],
        0,
        &args,
        Limits {
            threads: 2,
            ..Limits::default()
        },
    )
}

#[test]
fn numbas_cuda_atomic_max_and_min_on_floats_are_no_race() {
    let mut gpu = Machine::new();
    let (din, v) = inputs_f32(&mut gpu, 11);
    let m = upload(&mut gpu, &[-10.0f32]);
    let r = run_numba(&mut gpu, "numba_atomic_max_f32", m, din, 4);
    no_races("numba_atomic_max_f32", &r);
    assert_eq!(
        download_f32(&gpu, m, 1)[0],
        v.iter().copied().fold(-10.0, f32::max)
    );

    let mut gpu = Machine::new();
    let v: Vec<f64> = random_f32(N, 12, -1.0, 1.0)
        .iter()
        .map(|&x| x as f64)
        .collect();
    let din = upload(&mut gpu, &v);
    let m = upload(&mut gpu, &[10.0f64]);
    let r = run_numba(&mut gpu, "numba_atomic_min_f64", m, din, 8);
    no_races("numba_atomic_min_f64", &r);
    assert_eq!(
        download_f64(&gpu, m, 1)[0],
        v.iter().copied().fold(10.0, f64::min)
    );
}
