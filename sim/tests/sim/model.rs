//! The time model's counts (unique sectors, per-block sectors, barriers, hot atomics) and the
//! modelled time that the launch report carries.

use super::common::*;
use sim::{GpuModel, Machine, Resource};

#[test]
fn strided_reads_touch_each_sector_once_per_launch_but_more_per_request() {
    let m = module("coalescing");
    let n: i32 = 1 << 16;
    for (stride, unique_read) in [(1u64, n as u64 / 8), (8, n as u64)] {
        let mut gpu = Machine::new();
        let din = gpu.alloc(4 * n as u64 * stride);
        let dout = gpu.alloc(4 * n as u64);
        let args = [
            Arg::Ptr(din),
            Arg::Ptr(dout),
            Arg::I32(stride as i32),
            Arg::I32(n),
        ];
        let r = launch(
            &mut gpu,
            &m,
            "strided_copy",
            [n as u32 / 256, 1, 1],
            [256, 1, 1],
            &args,
        );
        let t = &r.traffic;
        assert_eq!(t.dram_read_sectors, unique_read, "stride {stride}");
        assert_eq!(t.dram_write_sectors, n as u64 / 8, "stride {stride}");
        // Blocks share no sectors here, so what each block loads once is what the launch loads.
        assert_eq!(t.l2_load_sectors, unique_read, "stride {stride}");
        assert_eq!(t.global_lines, (n as u64 / 32) * (1 + stride.min(32)));
        assert_eq!(r.shape.blocks, n as u64 / 256);
        assert!(r.modelled.microseconds > 0.0);
    }
}

#[test]
fn atomics_on_one_address_are_counted_per_warp_request() {
    let m = module("reduce");
    let n = 4096;
    let mut gpu = Machine::new();
    let input = upload(&mut gpu, &vec![1.0f32; n]);
    let total = upload(&mut gpu, &[0.0f32]);
    let r = launch(
        &mut gpu,
        &m,
        "reduce_atomic",
        [n as u32 / 256, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(input), Arg::Ptr(total), Arg::I32(n as i32)],
    );
    assert_eq!(
        r.traffic.hottest_atomic_requests,
        r.figures.global_atomic_requests
    );
    assert!(r.traffic.hottest_atomic_requests > 0);
}

#[test]
fn a_shared_memory_tree_counts_its_barriers_and_h200_is_modelled_apart() {
    let m = module("reduce");
    let n = 1 << 14;
    let mut gpu = Machine::new();
    let input = upload(&mut gpu, &vec![1.0f32; n]);
    let out = gpu.alloc(4 * (n as u64 / 256));
    let r = launch(
        &mut gpu,
        &m,
        "reduce_shared",
        [n as u32 / 256, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(input), Arg::Ptr(out), Arg::I32(n as i32)],
    );
    // One barrier after the stores, then one per halving step: 1 + 8 per block.
    assert_eq!(r.traffic.barriers, 9 * (n as u64 / 256));
    assert_eq!(r.shape.shared_bytes_per_block, 1024);
    // A launch this small is all overhead.
    assert_eq!(r.modelled.bound_by, Resource::Launch);
    assert_eq!(r.modelled.gpu, "H100 SXM");
    assert_eq!(r.modelled_on(&GpuModel::h200()).gpu, "H200");
}
