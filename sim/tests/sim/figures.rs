//! Memory figures match the hardware's counting rules (memory-model.md) exactly.

use super::common::*;
use sim::{Figures, LaunchReport, Machine};

fn run_copy(
    kernel: &str,
    param: Option<i32>,
    elem_bytes: usize,
    n: usize,
    input_elems: usize,
) -> LaunchReport {
    let m = module("coalescing");
    let mut gpu = Machine::new();
    let din = gpu.alloc((input_elems * elem_bytes) as u64);
    let dout = gpu.alloc((n * elem_bytes) as u64);
    let mut args = vec![Arg::Ptr(din), Arg::Ptr(dout)];
    if let Some(p) = param {
        args.push(Arg::I32(p));
    }
    args.push(Arg::I32(n as i32));
    let r = launch(
        &mut gpu,
        &m,
        kernel,
        [(n / 256) as u32, 1, 1],
        [256, 1, 1],
        &args,
    );
    assert!(r.diagnostics.is_empty(), "{:#?}", r.diagnostics);
    r
}

#[test]
fn strided_loads_touch_more_sectors() {
    let n = 1024;
    for (stride, sectors) in [(1, 4), (2, 8), (4, 16), (8, 32), (32, 32)] {
        let r = run_copy("strided_copy", Some(stride), 4, n, n * stride as usize);
        let f = &r.figures;
        assert_eq!(f.global_load_requests, 32, "stride {stride}");
        assert_eq!(f.global_load_sectors, 32 * sectors, "stride {stride}");
        assert_eq!(f.load_sectors_per_request(), sectors as f64);
        assert_eq!(
            (f.global_store_requests, f.global_store_sectors),
            (32, 128),
            "stores stay coalesced"
        );
    }
}

#[test]
fn offset_by_one_float_costs_a_fifth_sector() {
    let n = 1024;
    let r = run_copy("offset_copy", Some(1), 4, n, n + 1);
    assert_eq!(r.figures.load_sectors_per_request(), 5.0);
    let r = run_copy("offset_copy", Some(8), 4, n, n + 8);
    assert_eq!(
        r.figures.load_sectors_per_request(),
        4.0,
        "a 32-byte offset keeps sectors aligned"
    );
}

#[test]
fn vector_copies() {
    let n = 1024;
    let r = run_copy("copy_float2", None, 8, n, n);
    assert_eq!(
        (
            r.figures.global_load_requests,
            r.figures.load_sectors_per_request()
        ),
        (32, 8.0)
    );
    assert_eq!(r.figures.store_sectors_per_request(), 8.0);
    let r = run_copy("copy_float4", None, 16, n, n);
    assert_eq!(
        (
            r.figures.global_load_requests,
            r.figures.load_sectors_per_request()
        ),
        (32, 16.0)
    );
    assert_eq!(r.figures.store_sectors_per_request(), 16.0);
}

fn transpose_figures(kernel: &str) -> LaunchReport {
    let m = module("transpose");
    let mut gpu = Machine::new();
    let (w, h) = (256, 128);
    let din = upload(&mut gpu, &random_f32(w * h, 1, 0.0, 1.0));
    let dout = gpu.alloc(4 * (w * h) as u64);
    let r = launch(
        &mut gpu,
        &m,
        kernel,
        [8, 4, 1],
        [32, 8, 1],
        &[
            Arg::Ptr(din),
            Arg::Ptr(dout),
            Arg::I32(w as i32),
            Arg::I32(h as i32),
        ],
    );
    assert!(r.diagnostics.is_empty(), "{:#?}", r.diagnostics);
    r
}

#[test]
fn naive_transpose_scatters_its_stores() {
    let r = transpose_figures("transpose_naive");
    // 32 blocks x 8 warps x 4 rows each.
    let requests = 32 * 8 * 4;
    assert_eq!(r.figures.global_load_requests, requests);
    assert_eq!(r.figures.load_sectors_per_request(), 4.0);
    assert_eq!(r.figures.global_store_requests, requests);
    assert_eq!(r.figures.store_sectors_per_request(), 32.0);
    let line = line_of("transpose", "out[x * height + (y + j)]");
    let per_line = r
        .lines
        .iter()
        .find(|l| l.line == line)
        .expect("figures for the store line");
    assert!(per_line.file.ends_with("transpose.cu"));
    assert_eq!(per_line.figures.global_store_sectors, requests * 32);
}

#[test]
fn tiled_transpose_is_coalesced_and_conflict_free_with_padding() {
    let r = transpose_figures("transpose_tiled");
    let requests = 32 * 8 * 4;
    let f = &r.figures;
    assert_eq!(
        (f.load_sectors_per_request(), f.store_sectors_per_request()),
        (4.0, 4.0)
    );
    let expect_shared = Figures {
        global_load_requests: requests,
        global_load_sectors: requests * 4,
        global_store_requests: requests,
        global_store_sectors: requests * 4,
        shared_load_requests: requests,
        shared_load_wavefronts: requests,
        shared_store_requests: requests,
        shared_store_wavefronts: requests,
        ..Figures::default()
    };
    assert_eq!(*f, expect_shared);
}

#[test]
fn unpadded_tile_has_32_way_conflicts_on_the_column_read() {
    let r = transpose_figures("transpose_tiled_conflicts");
    let requests = 32 * 8 * 4;
    let f = &r.figures;
    assert_eq!(f.shared_store_wavefronts, requests);
    assert_eq!(f.shared_store_bank_conflicts, 0);
    assert_eq!(f.shared_load_wavefronts, requests * 32);
    assert_eq!(f.shared_load_bank_conflicts, requests * 31);
    let line = line_of("transpose", "CONFLICTS");
    let per_line = r
        .lines
        .iter()
        .find(|l| l.line == line)
        .expect("figures for the conflicting line");
    assert_eq!(per_line.figures.shared_load_bank_conflicts, requests * 31);
}

fn shared_kernel(kernel: &str, stride: Option<i32>, out_bytes: u64) -> Figures {
    let m = module("shared_banks");
    let mut gpu = Machine::new();
    let dout = gpu.alloc(out_bytes);
    let mut args = vec![Arg::Ptr(dout)];
    if let Some(s) = stride {
        args.push(Arg::I32(s));
    }
    let r = launch(&mut gpu, &m, kernel, [1, 1, 1], [32, 1, 1], &args);
    assert!(r.diagnostics.is_empty(), "{kernel}: {:#?}", r.diagnostics);
    r.figures
}

#[test]
fn shared_strides_give_wavefronts() {
    for (stride, wavefronts) in [(1, 1), (2, 2), (4, 4), (32, 32), (33, 1)] {
        let f = shared_kernel("shared_stride", Some(stride), 4 * 32);
        assert_eq!(
            (f.shared_store_requests, f.shared_store_wavefronts),
            (1, wavefronts),
            "stride {stride} store"
        );
        assert_eq!(
            (f.shared_load_requests, f.shared_load_wavefronts),
            (1, wavefronts),
            "stride {stride} load"
        );
        assert_eq!(f.shared_load_bank_conflicts, wavefronts - 1);
        assert_eq!(f.shared_store_bank_conflicts, wavefronts - 1);
    }
}

#[test]
fn broadcast_is_one_wavefront() {
    let f = shared_kernel("shared_broadcast", None, 4 * 32);
    assert_eq!(
        (
            f.shared_load_requests,
            f.shared_load_wavefronts,
            f.shared_load_bank_conflicts
        ),
        (1, 1, 0)
    );
    assert_eq!((f.shared_store_requests, f.shared_store_wavefronts), (1, 1));
}

#[test]
fn wide_shared_accesses_use_phases() {
    let f = shared_kernel("shared_double", Some(1), 8 * 32);
    assert_eq!(
        (f.shared_load_wavefronts, f.shared_load_bank_conflicts),
        (2, 0)
    );
    let f = shared_kernel("shared_double", Some(2), 8 * 32);
    assert_eq!(
        (f.shared_load_wavefronts, f.shared_load_bank_conflicts),
        (4, 2)
    );
    assert_eq!(
        (f.shared_store_wavefronts, f.shared_store_bank_conflicts),
        (4, 2)
    );
    let f = shared_kernel("shared_float4", None, 16 * 32);
    assert_eq!(
        (f.shared_store_wavefronts, f.shared_store_bank_conflicts),
        (4, 0)
    );
    assert_eq!(
        (f.shared_load_wavefronts, f.shared_load_bank_conflicts),
        (4, 0)
    );
}

#[test]
fn atomics_are_counted_apart() {
    let m = module("histogram");
    let mut gpu = Machine::new();
    let n = 1024;
    let data = upload(&mut gpu, &vec![3u8; n]);
    let bins = upload(&mut gpu, &[0u32; 64]);
    let r = launch(
        &mut gpu,
        &m,
        "histogram",
        [2, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(data), Arg::Ptr(bins), Arg::I32(n as i32)],
    );
    let f = &r.figures;
    // Each thread adds two bytes in shared memory; the first two warps of each block flush the bins.
    assert_eq!(f.shared_atomic_requests, 2 * 8 * 2);
    assert_eq!(f.global_atomic_requests, 2 * 2);
    assert_eq!(f.global_atomic_sectors, 2 * 2 * 4);
    assert_eq!(download_u32(&gpu, bins, 64)[3], n as u32);
}

#[test]
fn lines_are_sorted_and_cover_the_totals() {
    let r = transpose_figures("transpose_tiled");
    assert!(r
        .lines
        .windows(2)
        .all(|w| (&w[0].file, w[0].line) < (&w[1].file, w[1].line)));
    let mut sum = Figures::default();
    for l in &r.lines {
        sum += &l.figures;
    }
    assert_eq!(sum, r.figures);
}

#[test]
fn instructions_are_counted_by_kind_per_kernel_and_per_line() {
    let m = module("warp_reduce");
    let mut gpu = Machine::new();
    let din = upload(&mut gpu, &vec![1.0f32; 1024]);
    let dout = gpu.alloc(4 * 4);
    let r = launch(
        &mut gpu,
        &m,
        "reduce_shuffle",
        [4, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(1024)],
    );
    let counts = &r.instructions;
    assert_eq!(counts.total(), r.warp_instructions);
    // Five shuffles in every warp of 4 blocks x 8 warps, and five more in each block's warp 0.
    assert_eq!(counts.warp, 4 * (8 * 5 + 5));
    // One __syncthreads() in each of the 32 warps.
    assert_eq!(counts.synchronisation, 4 * 8);
    assert!(counts.memory >= r.figures.global_load_requests + r.figures.shared_load_requests);
    assert!(counts.arithmetic > counts.memory && counts.control > 0);
    let shuffle_line = line_of("warp_reduce", "__shfl_down_sync(0xffffffff, v, offset)");
    let on_line = r
        .lines
        .iter()
        .find(|l| l.line == shuffle_line)
        .expect("the shuffle's line");
    assert_eq!(on_line.instructions.warp, counts.warp);
    let mut by_lines = sim::InstructionCounts::default();
    for l in &r.lines {
        by_lines += &l.instructions;
    }
    assert!(by_lines.total() <= counts.total() && by_lines.warp == counts.warp);
}

/// Shared loads and wavefronts of one launch of a `shared_merges.cu` kernel.
fn shared_loads(kernel: &str, block: [u32; 3], int_arg: i32) -> (u64, u64) {
    let m = module("shared_merges");
    let mut gpu = Machine::new();
    let out = gpu.alloc(4 * 8192);
    let r = launch(
        &mut gpu,
        &m,
        kernel,
        [1, 1, 1],
        block,
        &[Arg::Ptr(out), Arg::I32(int_arg)],
    );
    // merge_store_between races on purpose (a store ptxas cannot place apart from the loads).
    let unexpected = r
        .diagnostics
        .iter()
        .filter(|d| kernel != "merge_store_between" || d.kind != sim::DiagnosticKind::SharedRace);
    assert_eq!(unexpected.count(), 0, "{kernel}: {:#?}", r.diagnostics);
    (
        r.figures.shared_load_requests,
        r.figures.shared_load_wavefronts,
    )
}

#[test]
fn adjacent_shared_loads_merge_as_ptxas_merges_them() {
    // Nsight Compute on an H100 (scripts/gpu/results/lds): requests and wavefronts, with the
    // machine code's loads: LDS.128 x4; LDS x4; LDS.64 x2; LDS.128; LDS and LDS.128.
    for (kernel, block, want) in [
        ("merge_row", [16, 16, 1], (32, 64)),
        ("merge_runtime_base", [32, 1, 1], (4, 4)),
        ("merge_even_base", [32, 1, 1], (2, 4)),
        ("merge_quad_base", [32, 1, 1], (1, 4)),
        ("merge_store_between", [32, 1, 1], (2, 8)),
    ] {
        assert_eq!(shared_loads(kernel, block, 3), want, "{kernel}");
    }
}

#[test]
fn a_tiled_matmul_reads_its_row_operand_four_words_at_a_time() {
    // Per tile and warp: 16 loads of bs (one word each) and 16 of as, which ptxas makes 4 LDS.128
    // of 2 wavefronts (a warp spans two rows): 20 instructions and 24 wavefronts, not 32 and 32.
    let m = module("matmul");
    let mut gpu = Machine::new();
    let n = 64;
    let a = gpu.alloc(4 * n * n);
    let b = gpu.alloc(4 * n * n);
    let c = gpu.alloc(4 * n * n);
    let r = launch(
        &mut gpu,
        &m,
        "matmul_tiled",
        [4, 4, 1],
        [16, 16, 1],
        &[Arg::Ptr(a), Arg::Ptr(b), Arg::Ptr(c), Arg::I32(n as i32)],
    );
    let warp_tiles = 16 * 8 * (n / 16);
    assert_eq!(r.figures.shared_load_requests, 20 * warp_tiles);
    assert_eq!(r.figures.shared_load_wavefronts, 24 * warp_tiles);
}

#[test]
fn global_atomic_sectors_are_counted_as_an_h100_counts_them() {
    // Nsight Compute on an H100 (scripts/gpu/results/atomics/sectors.md): one warp each; ptxas
    // combines integer add and max on a warp-uniform word into one atomic (POPC / REDUX in the
    // machine code), and lanes on one word otherwise take a sector each.
    let m = module("global_atomics");
    for (kernel, sectors) in [
        ("add_coalesced", 4),
        ("add_one_word", 1),
        ("add_one_word_lane", 1),
        ("add_one_per_sector", 32),
        ("add_pairs", 4),
        ("add_coalesced_returned", 4),
        ("add_one_word_returned", 1),
        ("fadd_coalesced", 4),
        ("fadd_one_word", 32),
        ("max_one_word", 1),
        ("inc_one_word", 32),
        ("cas_one_word", 32),
        ("exch_coalesced", 4),
        ("add_loaded_address", 1),
        ("add_one_word_half_warp", 1),
        ("add_block_uniform", 1),
    ] {
        let mut gpu = Machine::new();
        let data = gpu.alloc(4 * 4096);
        let out = gpu.alloc(4 * 64);
        let r = launch(
            &mut gpu,
            &m,
            kernel,
            [1, 1, 1],
            [32, 1, 1],
            &[Arg::Ptr(data), Arg::Ptr(out)][..if kernel.ends_with("_returned") { 2 } else { 1 }],
        );
        assert!(r.diagnostics.is_empty(), "{kernel}: {:#?}", r.diagnostics);
        assert_eq!(r.figures.global_atomic_requests, 1, "{kernel}");
        assert_eq!(r.figures.global_atomic_sectors, sectors, "{kernel}");
    }
}
