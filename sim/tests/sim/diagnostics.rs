//! Planted mistakes get the right diagnostic at the right source line.

use super::common::*;
use sim::{
    AccessFault, AccessOp, BadAccess, Diagnostic, DiagnosticKind, GlobalMiss, LaunchReport, Limits,
    Machine, MemorySpace, NearAllocation,
};

fn only(r: &LaunchReport, kind: DiagnosticKind) -> &Diagnostic {
    let found: Vec<_> = r.diagnostics.iter().filter(|d| d.kind == kind).collect();
    assert!(!found.is_empty(), "no {kind:?} in {:#?}", r.diagnostics);
    found[0]
}

fn at_line(d: &Diagnostic, fixture: &str, marker: &str) {
    let loc = d
        .location
        .as_ref()
        .expect("diagnostic has a source location");
    assert!(loc.file.ends_with(&format!("{fixture}.cu")), "{}", loc.file);
    assert_eq!(loc.line, line_of(fixture, marker), "{d:#?}");
}

fn vector_add_bug(kernel: &str) -> LaunchReport {
    let m = module("vector_add");
    let mut gpu = Machine::new();
    let n = 1000;
    let a = upload(&mut gpu, &vec![1f32; n]);
    let b = upload(&mut gpu, &vec![2f32; n]);
    let c = gpu.alloc(4 * n as u64);
    launch(
        &mut gpu,
        &m,
        kernel,
        [4, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(a), Arg::Ptr(b), Arg::Ptr(c), Arg::I32(n as i32)],
    )
}

#[test]
fn out_of_bounds_by_one() {
    let r = vector_add_bug("vector_add_off_by_one");
    assert!(r.aborted);
    let d = only(&r, DiagnosticKind::OutOfBounds);
    at_line(d, "vector_add", "BUG: off by one");
    assert_eq!(
        (d.block, d.thread),
        ([3, 0, 0], [232, 0, 0]),
        "thread 1000 is the first past the end"
    );
    assert!(
        d.message
            .contains("past the end of the 4000-byte allocation"),
        "{}",
        d.message
    );
}

/// The facts of the diagnostic's bad access, which every out-of-bounds and misaligned one has.
fn access_of(d: &Diagnostic) -> &BadAccess {
    let access = d.access.as_deref().expect("a bad access carries its facts");
    assert_eq!(
        d.message,
        access.message(),
        "the message is the facts' sentence"
    );
    access
}

#[test]
fn out_of_bounds_by_one_gives_its_allocation_argument_element_and_lane_as_facts() {
    let r = vector_add_bug("vector_add_off_by_one");
    let d = only(&r, DiagnosticKind::OutOfBounds);
    let access = access_of(d);
    assert_eq!(
        (access.space, access.op, access.bytes, access.warp),
        (MemorySpace::Global, AccessOp::Load, 4, 7)
    );
    assert_eq!(access.lanes, 1 << 8, "thread 1000 alone: lane 8 of warp 7");
    let Some(GlobalMiss::PastEnd {
        allocation,
        after,
        element,
    }) = access.global_miss()
    else {
        panic!("not past the end: {access:#?}");
    };
    assert_eq!((*after, *element), (0, 1000));
    assert_eq!(access.address, allocation.base + 4000);
    assert_eq!(allocation.size, 4000);
    // The compiled kernel loads b[i] before a[i].
    assert_eq!(
        allocation.argument,
        Some(1),
        "`b` is the kernel's second parameter"
    );
    assert_eq!(allocation.variable, None);
}

#[test]
fn a_pointer_before_its_allocation_is_before_the_start_and_names_no_argument() {
    let m = module("vector_add");
    let mut gpu = Machine::new();
    let a = upload(&mut gpu, &[1f32; 32]);
    let b = upload(&mut gpu, &[2f32; 32]);
    let c = gpu.alloc(4 * 32);
    let before_c = c - 128;
    let r = launch(
        &mut gpu,
        &m,
        "vector_add_unguarded",
        [1, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(a), Arg::Ptr(b), Arg::Ptr(before_c), Arg::I32(32)],
    );
    let access = access_of(only(&r, DiagnosticKind::OutOfBounds));
    assert_eq!((access.op, access.lanes), (AccessOp::Store, u32::MAX));
    let expected = GlobalMiss::BeforeStart {
        allocation: NearAllocation {
            base: c,
            size: 128,
            argument: None,
            variable: None,
        },
        before: 128,
    };
    assert_eq!(access.global_miss(), Some(&expected));
    assert!(
        access
            .message()
            .contains("128 bytes before the start of the 128-byte allocation"),
        "{}",
        access.message()
    );
}

#[test]
fn a_bad_access_names_its_allocation_in_the_readers_words() {
    let r = vector_add_bug("vector_add_off_by_one");
    let access = access_of(only(&r, DiagnosticKind::OutOfBounds));
    let named = access.describe(&|allocation| match allocation.argument {
        Some(1) => "`b` (4000 bytes)".to_string(),
        _ => allocation.simulator_words(),
    });
    assert!(
        named.ends_with(
            "by lane 8 of warp 7: just past the end of `b` (4000 bytes) (element 1000 of an array \
             that holds 1000 elements of 4 bytes)"
        ),
        "{named}"
    );
}

#[test]
fn missing_bounds_check() {
    let r = vector_add_bug("vector_add_unguarded");
    assert!(r.aborted);
    let d = only(&r, DiagnosticKind::OutOfBounds);
    at_line(d, "vector_add", "BUG: unguarded");
    assert!(d.message.contains("lanes 8-31"), "{}", d.message);
}

#[test]
fn correct_kernel_has_no_diagnostics() {
    let r = vector_add_bug("vector_add");
    assert!(!r.aborted && r.diagnostics.is_empty());
}

fn transpose_bug(kernel: &str) -> LaunchReport {
    let m = module("transpose");
    let mut gpu = Machine::new();
    let din = upload(&mut gpu, &random_f32(64 * 64, 3, 0.0, 1.0));
    let dout = gpu.alloc(4 * 64 * 64);
    launch(
        &mut gpu,
        &m,
        kernel,
        [2, 2, 1],
        [32, 8, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(64), Arg::I32(64)],
    )
}

#[test]
fn missing_syncthreads_in_transpose_is_a_race() {
    let r = transpose_bug("transpose_no_sync");
    assert!(!r.aborted, "races are not fatal");
    let d = only(&r, DiagnosticKind::SharedRace);
    at_line(d, "transpose", "BUG: read without __syncthreads");
    assert!(
        d.message.contains(&format!(
            "line {}",
            line_of("transpose", "RACE: written here")
        )),
        "{}",
        d.message
    );
    assert!(d.message.contains("`tile`"), "{}", d.message);
    // One report per pair of lines.
    assert_eq!(r.diagnostics.len(), 1, "{:#?}", r.diagnostics);
}

#[test]
fn tiled_transpose_with_barrier_has_no_race() {
    assert!(transpose_bug("transpose_tiled").diagnostics.is_empty());
}

fn reduce_bug(kernel: &str) -> LaunchReport {
    let m = module("reduce");
    let mut gpu = Machine::new();
    let din = upload(&mut gpu, &vec![1f32; 512]);
    let dout = gpu.alloc(8);
    launch(
        &mut gpu,
        &m,
        kernel,
        [2, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(512)],
    )
}

#[test]
fn missing_syncthreads_in_reduction_is_a_race() {
    let r = reduce_bug("reduce_missing_sync");
    at_line(
        only(&r, DiagnosticKind::SharedRace),
        "reduce",
        "BUG: no __syncthreads in the loop",
    );
}

#[test]
fn warp_synchronous_reduction_is_a_race_under_independent_scheduling() {
    let r = reduce_bug("reduce_warp_synchronous");
    let d = only(&r, DiagnosticKind::SharedRace);
    at_line(d, "reduce", "WARPSYNC");
    assert!(d.message.contains("__syncwarp"), "{}", d.message);
    // The result is still what a lockstep warp computes.
    let m = module("reduce");
    let mut gpu = Machine::new();
    let din = upload(&mut gpu, &vec![1f32; 256]);
    let dout = gpu.alloc(4);
    launch(
        &mut gpu,
        &m,
        "reduce_warp_synchronous",
        [1, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(256)],
    );
    assert_eq!(download_f32(&gpu, dout, 1)[0], 256.0);
}

#[test]
fn racy_counter_loses_updates() {
    let m = module("bugs");
    let mut gpu = Machine::new();
    let n = 1024;
    let data = upload(&mut gpu, &vec![1i32; n]);
    let count = upload(&mut gpu, &[0i32]);
    let r = launch(
        &mut gpu,
        &m,
        "racy_counter",
        [4, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(data), Arg::Ptr(count), Arg::I32(n as i32)],
    );
    assert!(!r.aborted);
    let c = download_u32(&gpu, count, 1)[0];
    assert!(c > 0 && c < n as u32, "lost updates expected, got {c}");
}

#[test]
fn barrier_reached_by_part_of_the_block() {
    let m = module("bugs");
    let mut gpu = Machine::new();
    let out = gpu.alloc(4 * 64);
    let r = launch(
        &mut gpu,
        &m,
        "divergent_barrier",
        [1, 1, 1],
        [64, 1, 1],
        &[Arg::Ptr(out)],
    );
    let d = only(&r, DiagnosticKind::DivergentBarrier);
    at_line(d, "bugs", "BUG: only some threads reach it");
    assert!(d.message.contains("16 of the block's 64"), "{}", d.message);
}

#[test]
fn barriers_in_both_branches_are_divergent() {
    let m = module("bugs");
    let mut gpu = Machine::new();
    let out = gpu.alloc(4 * 64);
    let r = launch(
        &mut gpu,
        &m,
        "barrier_in_branch",
        [1, 1, 1],
        [64, 1, 1],
        &[Arg::Ptr(out)],
    );
    let d = only(&r, DiagnosticKind::DivergentBarrier);
    let lines = [
        line_of("bugs", "BUG: even threads"),
        line_of("bugs", "BUG: odd threads"),
    ];
    assert!(lines.contains(&d.location.as_ref().unwrap().line), "{d:#?}");
}

#[test]
fn infinite_loop_times_out_at_the_loop() {
    let m = module("bugs");
    let mut gpu = Machine::new();
    let out = upload(&mut gpu, &[0i32; 32]);
    let limits = Limits {
        max_warp_instructions: 200_000,
        ..Limits::default()
    };
    let r = launch_with(
        &mut gpu,
        &m,
        "infinite_loop",
        [1, 1, 1],
        [32, 1, 1],
        0,
        &[Arg::Ptr(out), Arg::I32(32)],
        limits,
    );
    assert!(r.aborted);
    let d = only(&r, DiagnosticKind::Timeout);
    let line = d.location.as_ref().unwrap().line;
    assert!(
        [
            line_of("bugs", "while (i < n)"),
            line_of("bugs", "BUG: i never changes")
        ]
        .contains(&line),
        "{d:#?}"
    );
    // Starting a block is charged too, so a little less than the budget is left for the warps.
    assert!(r.warp_instructions >= 190_000 && r.warp_instructions < 300_000);
}

#[test]
fn misaligned_vector_load() {
    let m = module("coalescing");
    let mut gpu = Machine::new();
    let din = gpu.alloc(4 * 1024);
    let dout = gpu.alloc(4 * 128);
    let r = launch(
        &mut gpu,
        &m,
        "misaligned_float4",
        [1, 1, 1],
        [128, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(128)],
    );
    assert!(r.aborted);
    let d = only(&r, DiagnosticKind::Misaligned);
    at_line(d, "coalescing", "BUG: float4 load");
    assert!(d.message.contains("16-byte"), "{}", d.message);
    let access = access_of(d);
    assert_eq!(
        (access.fault.clone(), access.space, access.bytes),
        (AccessFault::Misaligned, MemorySpace::Global, 16)
    );
    assert_ne!(access.address % 16, 0, "{access:#?}");
}

#[test]
fn local_array_overflow() {
    let m = module("local_array");
    let mut gpu = Machine::new();
    let idx = upload(&mut gpu, &[20i32; 32]);
    let out = gpu.alloc(4 * 32);
    let r = launch(
        &mut gpu,
        &m,
        "local_overflow",
        [1, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(idx), Arg::Ptr(out), Arg::I32(32)],
    );
    assert!(r.aborted);
    let d = only(&r, DiagnosticKind::OutOfBounds);
    at_line(d, "local_array", "BUG: index past the local array");
    let access = access_of(d);
    assert_eq!(access.space, MemorySpace::Local);
    assert!(
        matches!(access.fault, AccessFault::Local { size } if access.address >= size),
        "{access:#?}"
    );
}

#[test]
fn failed_assert_is_a_trap() {
    let m = module("bugs");
    let mut gpu = Machine::new();
    let mut data = vec![1i32; 64];
    data[37] = -5;
    let dd = upload(&mut gpu, &data);
    let r = launch(
        &mut gpu,
        &m,
        "failing_assert",
        [2, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(dd), Arg::I32(64)],
    );
    assert!(r.aborted);
    let d = only(&r, DiagnosticKind::Assert);
    at_line(d, "bugs", "BUG: negative input");
    assert_eq!((d.block, d.thread), ([1, 0, 0], [5, 0, 0]));
    assert!(d.message.contains("data[i] >= 0"), "{}", d.message);
}

#[test]
fn trap_stops_the_kernel() {
    let m = module("bugs");
    let mut gpu = Machine::new();
    let out = upload(&mut gpu, &[0i32; 32]);
    let r = launch(
        &mut gpu,
        &m,
        "trap_kernel",
        [1, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(out)],
    );
    assert!(r.aborted);
    let d = only(&r, DiagnosticKind::Trap);
    at_line(d, "bugs", "BUG: trap");
    assert_eq!(d.thread, [5, 0, 0]);
}

#[test]
fn shuffle_naming_exited_lanes() {
    let m = module("warp_reduce");
    let mut gpu = Machine::new();
    let din = upload(&mut gpu, &vec![1f32; 64]);
    let dout = gpu.alloc(4 * 64);
    let r = launch(
        &mut gpu,
        &m,
        "shuffle_after_return",
        [1, 1, 1],
        [64, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(40)],
    );
    let d = only(&r, DiagnosticKind::InconsistentMask);
    at_line(d, "warp_reduce", "BUG: mask names exited lanes");
    assert!(
        d.message.contains("8-31") && d.message.contains("exited"),
        "{}",
        d.message
    );
    assert!(!r.aborted);
}

#[test]
fn deadlock_between_shuffle_and_barrier() {
    let m = module("bugs");
    let mut gpu = Machine::new();
    let out = gpu.alloc(4 * 32);
    let r = launch(
        &mut gpu,
        &m,
        "deadlock",
        [1, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(out)],
    );
    assert!(r.aborted);
    // A kind of its own: the shuffle's mask is the bug, not a loop that never ends.
    at_line(
        only(&r, DiagnosticKind::WarpSyncDeadlock),
        "bugs",
        "BUG: waits for lanes that wait at the barrier",
    );
}

#[test]
fn diagnostics_are_limited_and_deterministic() {
    let m = module("reduce");
    let mut reports = Vec::new();
    for threads in [1, 2, 4] {
        let mut gpu = Machine::new();
        let din = upload(&mut gpu, &vec![1f32; 256 * 16]);
        let dout = gpu.alloc(4 * 16);
        let limits = Limits {
            threads,
            max_diagnostics: 1,
            ..Limits::default()
        };
        let r = launch_with(
            &mut gpu,
            &m,
            "reduce_missing_sync",
            [16, 1, 1],
            [256, 1, 1],
            0,
            &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(4096)],
            limits,
        );
        assert_eq!(r.diagnostics.len(), 1);
        reports.push(format!("{:?}", r.diagnostics));
    }
    assert!(reports.windows(2).all(|w| w[0] == w[1]), "{reports:#?}");
}
