//! An access past an allocation's end that stays inside its 256-byte granule: under
//! `PastTheEnd::Report` the kernel goes on (a GPU maps the granule) with the diagnostic kept;
//! under the default `Fault` it stops the kernel, and past the granule it stops it either way.

use super::common::*;
use sim::{DiagnosticKind, LaunchReport, Limits, Machine, PastTheEnd};

const N: usize = 1000;

/// `kernel` of vector_add.cu on 1000 elements (4000 bytes, a granule of 4096) with `blocks` of
/// 256 threads: the report, and c as 1000 floats.
fn vector_add(kernel: &str, blocks: u32, past_the_end: PastTheEnd) -> (LaunchReport, Vec<f32>) {
    let m = module("vector_add");
    let mut gpu = Machine::new();
    let a = upload(&mut gpu, &vec![1f32; N]);
    let b = upload(&mut gpu, &vec![2f32; N]);
    let c = gpu.alloc(4 * N as u64);
    let limits = Limits {
        past_the_end,
        ..Limits::default()
    };
    let args = [Arg::Ptr(a), Arg::Ptr(b), Arg::Ptr(c), Arg::I32(N as i32)];
    let r = launch_with(
        &mut gpu,
        &m,
        kernel,
        [blocks, 1, 1],
        [256, 1, 1],
        0,
        &args,
        limits,
    );
    (r, download_f32(&gpu, c, N))
}

#[test]
fn one_element_past_the_end_is_reported_and_the_kernel_goes_on_under_report() {
    let (r, c) = vector_add("vector_add_off_by_one", 4, PastTheEnd::Report);
    assert!(!r.aborted, "{:#?}", r.diagnostics);
    assert!(!r.diagnostics.is_empty());
    let line = line_of("vector_add", "BUG: off by one");
    for d in &r.diagnostics {
        assert_eq!(d.kind, DiagnosticKind::OutOfBounds, "{d:#?}");
        assert_eq!(d.location.as_ref().map(|l| l.line), Some(line), "{d:#?}");
        assert_eq!(d.thread, [232, 0, 0], "thread 1000 is the one past the end");
        assert!(d.message.contains("the kernel went on"), "{}", d.message);
    }
    assert!(
        c.iter().all(|&x| x == 3.0),
        "every element is still computed"
    );
}

#[test]
fn one_element_past_the_end_stops_the_kernel_by_default() {
    let (r, _) = vector_add("vector_add_off_by_one", 4, PastTheEnd::default());
    assert!(r.aborted);
    let last = r
        .diagnostics
        .last()
        .expect("the diagnostic that stopped it");
    assert_eq!(last.kind, DiagnosticKind::OutOfBounds);
    assert!(!last.message.contains("went on"), "{}", last.message);
}

#[test]
fn an_access_past_the_granule_stops_the_kernel_even_under_report() {
    // Five blocks reach element 1279, byte 5116: past the 4096-byte granule.
    let (r, _) = vector_add("vector_add_unguarded", 5, PastTheEnd::Report);
    assert!(r.aborted, "{:#?}", r.diagnostics);
    let last = r
        .diagnostics
        .last()
        .expect("the diagnostic that stopped it");
    assert_eq!(last.kind, DiagnosticKind::OutOfBounds);
    // Threads up to 1023 stay in the granule; the first warp of the fifth block does not.
    assert_eq!(last.block, [4, 0, 0], "{last:#?}");
}

#[test]
fn what_a_kernel_wrote_in_the_granule_a_later_one_reads_but_no_copy_reaches_it() {
    let m = module("vector_add");
    let mut gpu = Machine::new();
    let a = upload(&mut gpu, &vec![1f32; N]);
    let b = upload(&mut gpu, &vec![2f32; N]);
    let (c, d) = (gpu.alloc(4 * N as u64), gpu.alloc(4 * N as u64));
    let limits = Limits {
        past_the_end: PastTheEnd::Report,
        ..Limits::default()
    };
    // c + 24 elements: the guarded kernel writes c[24..1024), 3.0 each, 24 of them in c's padding.
    let shifted = c + 4 * 24;
    let run = |gpu: &mut Machine, args: &[Arg]| {
        let r = launch_with(
            gpu,
            &m,
            "vector_add",
            [4, 1, 1],
            [256, 1, 1],
            0,
            args,
            limits.clone(),
        );
        assert!(!r.aborted, "{:#?}", r.diagnostics);
    };
    let n = || Arg::I32(N as i32);
    run(
        &mut gpu,
        &[Arg::Ptr(a), Arg::Ptr(b), Arg::Ptr(shifted), n()],
    );
    // Read back from the padding: d[i] = c[24 + i] * 2 = 6.0, the last 24 from the padding.
    run(
        &mut gpu,
        &[Arg::Ptr(shifted), Arg::Ptr(shifted), Arg::Ptr(d), n()],
    );
    assert!(download_f32(&gpu, d, N).iter().all(|&x| x == 6.0));
    assert!(
        gpu.read(c, 4 * N as u64 + 4).is_err(),
        "a copy ends at the allocation's end"
    );
}
