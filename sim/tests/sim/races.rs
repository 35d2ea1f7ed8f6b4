//! Race detection a verdict can trust: byte-exact shared-memory tracking and races on global
//! memory within one launch (fixtures in `races.cu`; `RACE:` marks where a report is expected).

use super::common::*;
use sim::{Diagnostic, DiagnosticKind, LaunchReport, Limits, Machine};

fn no_races(r: &LaunchReport) {
    assert!(
        r.diagnostics.is_empty() && !r.aborted,
        "unexpected diagnostics: {:#?}",
        r.diagnostics
    );
}

fn races(r: &LaunchReport, kind: DiagnosticKind) -> Vec<&Diagnostic> {
    assert!(!r.aborted, "races are not fatal: {:#?}", r.diagnostics);
    let found: Vec<_> = r.diagnostics.iter().filter(|d| d.kind == kind).collect();
    assert!(!found.is_empty(), "no {kind:?} in {:#?}", r.diagnostics);
    assert!(
        r.diagnostics.iter().all(|d| d.kind == kind),
        "{:#?}",
        r.diagnostics
    );
    found
}

fn line(d: &Diagnostic) -> u32 {
    d.location.as_ref().expect("a source line").line
}

fn run_on(gpu: &mut Machine, kernel: &str, grid: u32, block: u32, args: &[Arg]) -> LaunchReport {
    launch_with(
        gpu,
        &module("races"),
        kernel,
        [grid, 1, 1],
        [block, 1, 1],
        0,
        args,
        Limits {
            threads: 2,
            ..Limits::default()
        },
    )
}

// ---- shared memory: no false reports ----

#[test]
fn each_thread_its_own_shared_byte() {
    let mut gpu = Machine::new();
    let out = gpu.alloc(2 * 256);
    no_races(&run_on(
        &mut gpu,
        "shared_own_bytes",
        2,
        256,
        &[Arg::Ptr(out)],
    ));
    let got = gpu.read(out, 256).unwrap();
    for t in 0..256 {
        assert_eq!(got[t], (255 - t as u8).wrapping_add(1), "byte {t}");
    }
}

#[test]
fn each_thread_its_own_shared_half_word() {
    let mut gpu = Machine::new();
    let out = gpu.alloc(2 * 512);
    no_races(&run_on(
        &mut gpu,
        "shared_own_halves",
        2,
        256,
        &[Arg::Ptr(out)],
    ));
    let got = gpu.read(out, 512).unwrap();
    let h = u16::from_le_bytes([got[0], got[1]]);
    assert_eq!(h, 255 * 3 + 1);
}

#[test]
fn each_thread_its_own_shared_double() {
    let mut gpu = Machine::new();
    let out = gpu.alloc(8 * 256);
    no_races(&run_on(
        &mut gpu,
        "shared_own_doubles",
        1,
        256,
        &[Arg::Ptr(out)],
    ));
    assert_eq!(download_f64(&gpu, out, 1)[0], 255.0 * 0.5 + 1.0);
}

#[test]
fn shared_atomics_on_one_word() {
    let mut gpu = Machine::new();
    let out = gpu.alloc(8);
    no_races(&run_on(
        &mut gpu,
        "shared_atomic_count",
        2,
        256,
        &[Arg::Ptr(out)],
    ));
    assert_eq!(download_u32(&gpu, out, 2), [256, 256]);
}

#[test]
fn every_thread_reads_one_shared_element() {
    let mut gpu = Machine::new();
    let input = upload(&mut gpu, &[2.0f32]);
    let out = gpu.alloc(4 * 512);
    no_races(&run_on(
        &mut gpu,
        "shared_read_only",
        2,
        256,
        &[Arg::Ptr(input), Arg::Ptr(out)],
    ));
}

#[test]
fn writes_separated_by_syncthreads() {
    let mut gpu = Machine::new();
    let out = gpu.alloc(3 * 4 * 256);
    no_races(&run_on(
        &mut gpu,
        "shared_barrier_between",
        3,
        256,
        &[Arg::Ptr(out)],
    ));
}

// ---- shared memory: races that are reported ----

#[test]
fn two_threads_write_one_shared_byte() {
    let mut gpu = Machine::new();
    let out = gpu.alloc(64);
    let r = run_on(&mut gpu, "shared_same_byte", 1, 64, &[Arg::Ptr(out)]);
    let d = races(&r, DiagnosticKind::SharedRace)[0];
    assert_eq!(line(d), line_of("races", "RACE: same byte"));
    assert!(
        d.message
            .contains("two threads write the same element: an index is wrong"),
        "{}",
        d.message
    );
    assert!(!d.message.contains("__syncthreads"), "{}", d.message);
}

#[test]
fn a_byte_write_over_another_threads_word_read() {
    let mut gpu = Machine::new();
    let out = gpu.alloc(4 * 32);
    let r = run_on(&mut gpu, "shared_byte_over_word", 1, 64, &[Arg::Ptr(out)]);
    let d = races(&r, DiagnosticKind::SharedRace)[0];
    assert_eq!(line(d), line_of("races", "RACE: byte write"));
    let other = line_of("races", "OTHER: word read");
    assert!(
        d.message.contains(&format!("line {other}")),
        "{}",
        d.message
    );
    assert!(d.message.contains("__syncthreads()"), "{}", d.message);
}

#[test]
fn missing_syncthreads_between_a_write_and_a_neighbours_read() {
    let mut gpu = Machine::new();
    let out = gpu.alloc(4 * 256);
    let r = run_on(&mut gpu, "shared_missing_barrier", 1, 256, &[Arg::Ptr(out)]);
    let found = races(&r, DiagnosticKind::SharedRace);
    assert_eq!(found.len(), 1, "one report per pair of lines: {found:#?}");
    let d = found[0];
    // Warp 0 runs first: it reads its neighbours' elements before warp 1 writes them, so the
    // report is at warp 1's write and names the read.
    let (write, read) = (
        line_of("races", "OTHER: written"),
        line_of("races", "RACE: read too early"),
    );
    assert_eq!(line(d), write);
    assert!(
        d.message.contains(&format!("line {read}"))
            && d.message.contains("written before the read finished")
            && d.message.contains("put __syncthreads() between"),
        "{}",
        d.message
    );
}

// ---- global memory: races that are reported ----

#[test]
fn racy_counter_is_a_write_write_race() {
    let mut gpu = Machine::new();
    let count = upload(&mut gpu, &[0i32]);
    let r = run_on(&mut gpu, "global_racy_counter", 4, 256, &[Arg::Ptr(count)]);
    let found = races(&r, DiagnosticKind::GlobalRace);
    assert_eq!(found.len(), 1, "one report per pair of lines: {found:#?}");
    let d = found[0];
    assert_eq!(line(d), line_of("races", "RACE: counter"));
    assert!(
        d.message.contains("two threads write the same element")
            && d.message.contains("atomic")
            && d.message
                .contains("element 0 of the array passed as argument 1"),
        "{}",
        d.message
    );
}

#[test]
fn a_race_says_where_its_message_names_the_memory() {
    for (kernel, blocks) in [("global_racy_counter", 4), ("global_block_counter", 8)] {
        let mut gpu = Machine::new();
        let count = upload(&mut gpu, &[0i32]);
        let r = run_on(&mut gpu, kernel, blocks, 64, &[Arg::Ptr(count)]);
        let d = races(&r, DiagnosticKind::GlobalRace)[0];
        let [start, end] = d.race.as_ref().unwrap().place_words.expect("a span");
        assert_eq!(
            &d.message[start..end],
            "element 0 of the array passed as argument 1",
            "{kernel}: {}",
            d.message
        );
    }
}

#[test]
fn blocks_racing_on_a_counter() {
    let mut gpu = Machine::new();
    let count = upload(&mut gpu, &[0i32]);
    let r = run_on(&mut gpu, "global_block_counter", 8, 64, &[Arg::Ptr(count)]);
    let found = races(&r, DiagnosticKind::GlobalRace);
    assert_eq!(found.len(), 1, "{found:#?}");
    let d = found[0];
    assert_eq!(line(d), line_of("races", "RACE: block counter"));
    assert!(
        d.message.contains("two threads write the same element")
            && d.message.contains("block (0,0,0)"),
        "{}",
        d.message
    );
    assert_ne!(d.block, [0, 0, 0], "reported at the later block");
}

#[test]
fn histogram_without_atomics() {
    let mut gpu = Machine::new();
    let n = 2000;
    let values: Vec<i32> = random_u32(n, 9).iter().map(|v| (v % 16) as i32).collect();
    let dv = upload(&mut gpu, &values);
    let bins = gpu.alloc(4 * 16);
    let r = run_on(
        &mut gpu,
        "global_histogram",
        8,
        256,
        &[Arg::Ptr(dv), Arg::Ptr(bins), Arg::I32(n as i32)],
    );
    let d = races(&r, DiagnosticKind::GlobalRace)[0];
    assert_eq!(line(d), line_of("races", "RACE: histogram"));
    assert!(d.message.contains("argument 2"), "{}", d.message);
}

#[test]
fn in_place_stencil_reads_what_neighbours_write() {
    let mut gpu = Machine::new();
    let n = 1000;
    let a = upload(&mut gpu, &random_f32(n, 4, 0.0, 1.0));
    let r = run_on(
        &mut gpu,
        "global_stencil_in_place",
        4,
        256,
        &[Arg::Ptr(a), Arg::I32(n as i32)],
    );
    let found = races(&r, DiagnosticKind::GlobalRace);
    let d = found[0];
    assert_eq!(line(d), line_of("races", "RACE: stencil"));
    assert!(
        d.message.contains("reads") && !d.message.contains("two threads write"),
        "{}",
        d.message
    );
}

#[test]
fn in_place_stencil_across_blocks_only() {
    // One warp per block: inside a warp the loads come before the store of the same lanes only
    // in program order, which still races; with 1-thread blocks only blocks race.
    let mut gpu = Machine::new();
    let n = 64;
    let a = upload(&mut gpu, &random_f32(n, 4, 0.0, 1.0));
    let r = run_on(
        &mut gpu,
        "global_stencil_in_place",
        n as u32,
        1,
        &[Arg::Ptr(a), Arg::I32(n as i32)],
    );
    let d = races(&r, DiagnosticKind::GlobalRace)[0];
    assert!(
        d.message.contains("of different blocks") && d.message.contains("kernel launch of its own"),
        "{}",
        d.message
    );
}

// ---- global memory: no false reports ----

#[test]
fn atomic_counter() {
    let mut gpu = Machine::new();
    let count = upload(&mut gpu, &[0i32]);
    no_races(&run_on(
        &mut gpu,
        "global_atomic_counter",
        8,
        256,
        &[Arg::Ptr(count)],
    ));
    assert_eq!(download_u32(&gpu, count, 1)[0], 2048);
}

#[test]
fn each_thread_its_own_element() {
    let mut gpu = Machine::new();
    let n = 1000;
    let a = upload(&mut gpu, &random_f32(n, 5, 0.0, 1.0));
    no_races(&run_on(
        &mut gpu,
        "global_own_element",
        4,
        256,
        &[Arg::Ptr(a), Arg::I32(n as i32)],
    ));
}

#[test]
fn each_thread_its_own_byte_across_blocks() {
    let mut gpu = Machine::new();
    let n = 1000;
    let a = upload(&mut gpu, &vec![1u8; n]);
    no_races(&run_on(
        &mut gpu,
        "global_own_bytes",
        10,
        100,
        &[Arg::Ptr(a), Arg::I32(n as i32)],
    ));
    assert!(gpu.read(a, n as u64).unwrap().iter().all(|&b| b == 2));
}

#[test]
fn all_threads_read_one_input_element() {
    let mut gpu = Machine::new();
    let n = 1000;
    let input = upload(&mut gpu, &random_f32(n, 6, 0.0, 1.0));
    let out = gpu.alloc(4 * n as u64);
    no_races(&run_on(
        &mut gpu,
        "global_read_shared_input",
        4,
        256,
        &[Arg::Ptr(input), Arg::Ptr(out), Arg::I32(n as i32)],
    ));
}

#[test]
fn write_syncthreads_then_a_neighbour_reads() {
    let mut gpu = Machine::new();
    let a = gpu.alloc(4 * 1024);
    let out = gpu.alloc(4 * 1024);
    no_races(&run_on(
        &mut gpu,
        "global_barrier_then_neighbour",
        4,
        256,
        &[Arg::Ptr(a), Arg::Ptr(out)],
    ));
}

#[test]
fn threadfence_reduction_communicates_on_purpose() {
    let mut gpu = Machine::new();
    let n: usize = 5000;
    let input: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let din = upload(&mut gpu, &input);
    let blocks = n.div_ceil(256);
    let partial = gpu.alloc(4 * blocks as u64);
    let result = gpu.alloc(4);
    no_races(&run_on(
        &mut gpu,
        "threadfence_reduction",
        blocks as u32,
        256,
        &[
            Arg::Ptr(din),
            Arg::Ptr(partial),
            Arg::Ptr(result),
            Arg::I32(n as i32),
        ],
    ));
    let want: f32 = input.iter().sum();
    assert_eq!(download_f32(&gpu, result, 1)[0], want);
}

#[test]
fn a_ticket_orders_the_last_blocks_write_over_an_earlier_blocks_but_not_writes_after_tickets() {
    let run = |kernel: &str| {
        let mut gpu = Machine::new();
        let n: usize = 5000;
        let input: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
        let din = upload(&mut gpu, &input);
        let blocks = n.div_ceil(256);
        let partial = gpu.alloc(4 * (blocks as u64 + 1));
        let report = run_on(
            &mut gpu,
            kernel,
            blocks as u32,
            256,
            &[Arg::Ptr(din), Arg::Ptr(partial), Arg::I32(n as i32)],
        );
        (
            report,
            download_f32(&gpu, partial, 1)[0],
            input.iter().sum::<f32>(),
        )
    };
    let (report, total, want) = run("threadfence_reduction_in_place");
    no_races(&report);
    assert_eq!(total, want);
    let (report, _, _) = run("ticket_then_every_block_writes");
    let race = report
        .diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::GlobalRace)
        .expect("blocks writing one word after their tickets race");
    assert_eq!(
        race.location.as_ref().map(|l| l.line),
        Some(line_of("races", "RACE: every block, after its ticket"))
    );
}

mod atomic_idioms;
