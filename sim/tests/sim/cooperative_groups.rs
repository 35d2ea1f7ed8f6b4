//! Cooperative groups as `cooperative_groups.h` compiles them (fixture `cg.cu`): thread blocks,
//! tiles of 32, 16 and 8 threads (whose shuffles and votes pass each tile's own mask), reductions
//! and scans on tiles, coalesced groups and the grid's ranks, each checked against the CPU.

use super::common::*;
use sim::{LaunchReport, Machine, SimError};

/// Runs `kernel` of cg.cu and expects no diagnostic (a tile's mask is not a mistake).
fn run(gpu: &mut Machine, kernel: &str, grid: u32, block: [u32; 3], args: &[Arg]) -> LaunchReport {
    let report = launch(gpu, &module("cg"), kernel, [grid, 1, 1], block, args);
    assert!(
        report.diagnostics.is_empty() && !report.aborted,
        "{kernel}: {:#?}",
        report.diagnostics
    );
    report
}

fn download_i32(gpu: &Machine, addr: u64, n: usize) -> Vec<i32> {
    download_u32(gpu, addr, n)
        .into_iter()
        .map(|v| v as i32)
        .collect()
}

/// Values from -5 to 95, so that some tiles hold a negative one and some a value over 90.
fn inputs(n: usize) -> Vec<i32> {
    (0..n as i32).map(|i| (i * 37 + i / 7) % 101 - 5).collect()
}

#[test]
fn a_thread_block_ranks_its_threads_row_by_row_and_knows_its_size() {
    let mut gpu = Machine::new();
    let (blocks, size) = (2usize, 64usize);
    let out = gpu.alloc(4 * 2 * (blocks * size) as u64);
    run(&mut gpu, "block_info", 2, [16, 4, 1], &[Arg::Ptr(out)]);
    let got = download_i32(&gpu, out, 2 * blocks * size);
    for b in 0..blocks {
        for y in 0..4 {
            for x in 0..16 {
                let rank = x + 16 * y;
                let at = b * size + rank;
                let want = rank * 1000 + size + b * 100_000;
                assert_eq!(got[at] as usize, want, "block {b}, thread ({x}, {y})");
                assert_eq!(
                    got[blocks * size + at] as usize,
                    x + 160,
                    "thread_index, dim_threads"
                );
            }
        }
    }
}

/// What `tile_ops<N>` writes for one tile: nine values per thread.
fn tile_reference(tile: &[i32], first_rank_in_block: usize) -> Vec<[i32; 9]> {
    let n = tile.len();
    let mut sums = tile.to_vec();
    let mut offset = n / 2;
    while offset > 0 {
        // shfl_down past the tile's end returns the thread's own value.
        sums = (0..n)
            .map(|r| sums[r] + sums[if r + offset < n { r + offset } else { r }])
            .collect();
        offset /= 2;
    }
    let max = *tile.iter().max().unwrap();
    let ballot = (0..n).fold(0u32, |b, r| b | ((tile[r] % 2 == 0) as u32) << r);
    (0..n)
        .map(|r| {
            [
                sums[r],
                max,
                r as i32,
                (first_rank_in_block / n) as i32,
                tile.iter().any(|&v| v > 90) as i32,
                tile.iter().all(|&v| v >= 0) as i32,
                ballot as i32,
                tile[0],
                tile[r.saturating_sub(1)],
            ]
        })
        .collect()
}

fn check_tiles(kernel: &str, n: usize) {
    let (blocks, threads) = (2usize, 64usize);
    let values = inputs(blocks * threads);
    let mut gpu = Machine::new();
    let input = upload(&mut gpu, &values);
    let out = gpu.alloc(4 * 9 * values.len() as u64);
    run(
        &mut gpu,
        kernel,
        2,
        [threads as u32, 1, 1],
        &[Arg::Ptr(input), Arg::Ptr(out)],
    );
    let got = download_i32(&gpu, out, 9 * values.len());
    let names = [
        "shfl_down sum",
        "shfl_xor max",
        "thread_rank",
        "meta_group_rank",
        "any",
        "all",
        "ballot",
        "shfl",
        "shfl_up",
    ];
    for (t, tile) in values.chunks(n).enumerate() {
        let first = t * n;
        for (r, want) in tile_reference(tile, first % threads).iter().enumerate() {
            let i = first + r;
            for (k, name) in names.iter().enumerate() {
                assert_eq!(got[i * 9 + k], want[k], "{kernel}: {name} of thread {i}");
            }
        }
    }
}

#[test]
fn tiles_of_32_shuffle_vote_and_rank_within_the_warp() {
    check_tiles("tiles32", 32);
}

#[test]
fn tiles_of_16_shuffle_vote_and_rank_within_half_a_warp() {
    check_tiles("tiles16", 16);
}

#[test]
fn tiles_of_8_shuffle_vote_and_rank_within_a_quarter_warp() {
    check_tiles("tiles8", 8);
}

#[test]
fn reductions_and_scans_on_a_tile_of_16_cover_that_tile_only() {
    let n = 128;
    let values = inputs(n);
    let floats: Vec<f32> = values.iter().map(|&v| v as f32 * 0.5).collect();
    let mut gpu = Machine::new();
    let (input, finput) = (upload(&mut gpu, &values), upload(&mut gpu, &floats));
    let outs: Vec<u64> = (0..5).map(|_| gpu.alloc(4 * n as u64)).collect();
    let mut args = vec![Arg::Ptr(input), Arg::Ptr(finput)];
    args.extend(outs.iter().map(|&o| Arg::Ptr(o)));
    run(&mut gpu, "tile_reduce", 2, [64, 1, 1], &args);
    let sums = download_i32(&gpu, outs[0], n);
    let fsums = download_f32(&gpu, outs[1], n);
    let maxes = download_i32(&gpu, outs[2], n);
    let (inclusive, exclusive) = (
        download_i32(&gpu, outs[3], n),
        download_i32(&gpu, outs[4], n),
    );
    for (t, tile) in values.chunks(16).enumerate() {
        let total: i32 = tile.iter().sum();
        for r in 0..16 {
            let i = t * 16 + r;
            assert_eq!(sums[i], total, "reduce plus<int>, thread {i}");
            // Halves of integers: every partial sum is exact, whatever the order.
            assert_eq!(
                fsums[i],
                total as f32 * 0.5,
                "reduce plus<float>, thread {i}"
            );
            assert_eq!(
                maxes[i],
                *tile.iter().max().unwrap(),
                "reduce greater, thread {i}"
            );
            let before: i32 = tile[..r].iter().sum();
            assert_eq!(inclusive[i], before + tile[r], "inclusive_scan, thread {i}");
            assert_eq!(exclusive[i], before, "exclusive_scan, thread {i}");
        }
    }
}

#[test]
fn a_warp_tile_reduction_sums_its_32_threads() {
    let n = 128;
    let values = inputs(n);
    let mut gpu = Machine::new();
    let input = upload(&mut gpu, &values);
    let sums = gpu.alloc(4 * n as u64);
    run(
        &mut gpu,
        "warp_reduce",
        2,
        [64, 1, 1],
        &[Arg::Ptr(input), Arg::Ptr(sums)],
    );
    let got = download_i32(&gpu, sums, n);
    for (w, warp) in values.chunks(32).enumerate() {
        let total: i32 = warp.iter().sum();
        assert!(
            got[w * 32..(w + 1) * 32].iter().all(|&s| s == total),
            "warp {w}"
        );
    }
}

#[test]
fn coalesced_threads_are_the_lanes_that_took_the_branch() {
    let n = 128;
    let values = inputs(n);
    let mut gpu = Machine::new();
    let input = upload(&mut gpu, &values);
    let out = gpu.alloc(4 * n as u64);
    run(
        &mut gpu,
        "coalesced",
        2,
        [64, 1, 1],
        &[Arg::Ptr(input), Arg::Ptr(out)],
    );
    let got = download_i32(&gpu, out, n);
    for (w, warp) in values.chunks(32).enumerate() {
        let active: Vec<usize> = (0..32).filter(|&l| warp[l] % 3 == 0).collect();
        let sum: i32 = active.iter().map(|&l| warp[l]).sum();
        for l in 0..32 {
            let want = match active.iter().position(|&a| a == l) {
                Some(rank) => rank as i32 + 100 * active.len() as i32 + 10_000 * sum,
                None => -1,
            };
            assert_eq!(got[w * 32 + l], want, "warp {w}, lane {l}");
        }
    }
}

#[test]
fn a_grid_group_ranks_every_thread_of_the_grid() {
    let mut gpu = Machine::new();
    let out = gpu.alloc(8 * 128);
    run(&mut gpu, "grid_rank", 2, [64, 1, 1], &[Arg::Ptr(out)]);
    let got = download_u64(&gpu, out, 128);
    assert!(
        got.iter()
            .enumerate()
            .all(|(i, &v)| v == 128_000 + i as u64),
        "{got:?}"
    );
}

#[test]
fn grid_sync_is_refused_naming_the_call_it_needs_a_cooperative_launch_for() {
    let module = module("cg");
    let mut gpu = Machine::new();
    let out = gpu.alloc(4 * 128);
    let launch = sim::Launch::new(
        "grid_sync",
        [2, 1, 1],
        [64, 1, 1],
        vec![out.to_le_bytes().to_vec()],
    );
    let err = gpu.launch(&module, &launch).unwrap_err();
    assert!(matches!(err, SimError::KernelNotLowered { .. }), "{err:?}");
    let shown = err.to_string();
    assert!(
        shown.contains("this_grid().sync()") && shown.contains("cooperative launch"),
        "{shown}"
    );
}
