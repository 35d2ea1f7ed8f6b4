//! Grid-wide barriers: `grid.sync()` as the device runtime's `cudaCGSynchronize`, which Numba's
//! `cuda.cg.this_grid().sync()` calls (fixture grid_sync.ptx).

use super::common::*;
use sim::{DiagnosticKind, Limits, Machine};

/// Each block reads, after the barrier, what the next block wrote before it: every block has to
/// have reached the barrier before any goes on.
fn rotate_on(threads: usize) {
    let module = module("grid_sync");
    let mut m = Machine::new();
    let n = 8 * 64;
    let a = upload(&mut m, &vec![u32::MAX; n]);
    let b = upload(&mut m, &vec![u32::MAX; n]);
    let limits = Limits {
        threads,
        ..Limits::default()
    };
    let args = [Arg::Ptr(a), Arg::Ptr(b), Arg::U32(n as u32)];
    let r = launch_with(
        &mut m,
        &module,
        "rotate",
        [8, 1, 1],
        [64, 1, 1],
        0,
        &args,
        limits,
    );
    assert!(
        !r.aborted && r.diagnostics.is_empty(),
        "{:#?}",
        r.diagnostics
    );
    let want: Vec<u32> = (0..n as u32).map(|i| (i + 1) % n as u32 + 1).collect();
    assert_eq!(download_u32(&m, b, n), want, "on {threads} CPU threads");
}

#[test]
fn every_block_reaches_grid_sync_before_any_goes_on() {
    rotate_on(1);
    rotate_on(3);
}

#[test]
fn a_block_that_ends_before_grid_sync_is_named_since_the_others_would_wait_for_ever() {
    let module = module("grid_sync");
    let mut m = Machine::new();
    let a = upload(&mut m, &[0u32; 32]);
    let r = launch(
        &mut m,
        &module,
        "early_exit",
        [4, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(a), Arg::U32(32)],
    );
    assert!(r.aborted, "{:#?}", r.diagnostics);
    let d = r
        .diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::DivergentBarrier)
        .unwrap_or_else(|| panic!("{:#?}", r.diagnostics));
    assert!(
        d.message
            .contains("reached by 3 of the grid's 4 blocks; the other 1 ended"),
        "{}",
        d.message
    );
    assert_eq!(d.block, [1, 0, 0]);
}
