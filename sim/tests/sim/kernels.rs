//! Typical course kernels give the results a GPU gives (checked against Rust computations).

use super::common::*;
use sim::{DiagnosticKind, Limits, Machine};

fn no_diagnostics(r: &sim::LaunchReport) {
    assert!(
        r.diagnostics.is_empty() && !r.aborted,
        "unexpected diagnostics: {:#?}",
        r.diagnostics
    );
}

#[test]
fn vector_add() {
    let m = module("vector_add");
    let mut gpu = Machine::new();
    let n = 1000;
    let a = random_f32(n, 1, -10.0, 10.0);
    let b = random_f32(n, 2, -10.0, 10.0);
    let (da, db) = (upload(&mut gpu, &a), upload(&mut gpu, &b));
    let dc = gpu.alloc(4 * n as u64);
    let r = launch(
        &mut gpu,
        &m,
        "vector_add",
        [4, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(da), Arg::Ptr(db), Arg::Ptr(dc), Arg::I32(n as i32)],
    );
    no_diagnostics(&r);
    let c = download_f32(&gpu, dc, n);
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }
    // 32 warps, three memory instructions each; the last warp's 8 lanes past n do nothing.
    assert_eq!(r.figures.global_load_requests, 2 * 32);
    assert!(r.warp_instructions > 0);
}

#[test]
fn saxpy_grid_stride() {
    let m = module("saxpy");
    let mut gpu = Machine::new();
    let n = 5000;
    let x = random_f32(n, 3, -1.0, 1.0);
    let y = random_f32(n, 4, -1.0, 1.0);
    let (dx, dy) = (upload(&mut gpu, &x), upload(&mut gpu, &y));
    let r = launch(
        &mut gpu,
        &m,
        "saxpy",
        [3, 1, 1],
        [128, 1, 1],
        &[
            Arg::I32(n as i32),
            Arg::F32(2.5),
            Arg::Ptr(dx),
            Arg::Ptr(dy),
        ],
    );
    no_diagnostics(&r);
    let out = download_f32(&gpu, dy, n);
    for i in 0..n {
        assert_eq!(out[i], 2.5f32.mul_add(x[i], y[i]), "element {i}");
    }
}

#[test]
fn matrix_add_2d() {
    let m = module("index2d");
    let mut gpu = Machine::new();
    let (rows, cols) = (37, 53);
    let a = random_f32(rows * cols, 5, -1.0, 1.0);
    let b = random_f32(rows * cols, 6, -1.0, 1.0);
    let (da, db) = (upload(&mut gpu, &a), upload(&mut gpu, &b));
    let dc = gpu.alloc(4 * (rows * cols) as u64);
    let r = launch(
        &mut gpu,
        &m,
        "matrix_add",
        [4, 3, 1],
        [16, 16, 1],
        &[
            Arg::Ptr(da),
            Arg::Ptr(db),
            Arg::Ptr(dc),
            Arg::I32(rows as i32),
            Arg::I32(cols as i32),
        ],
    );
    no_diagnostics(&r);
    let c = download_f32(&gpu, dc, rows * cols);
    for row in 0..rows {
        for col in 0..cols {
            let k = row * cols + col;
            assert_eq!(
                c[k],
                2.0f32.mul_add(b[k], a[k]) + row as f32,
                "({row},{col})"
            );
        }
    }
}

fn run_transpose(
    kernel: &str,
    width: usize,
    height: usize,
) -> (Vec<f32>, Vec<f32>, sim::LaunchReport) {
    let m = module("transpose");
    let mut gpu = Machine::new();
    let input = random_f32(width * height, 7, -5.0, 5.0);
    let din = upload(&mut gpu, &input);
    let dout = gpu.alloc(4 * (width * height) as u64);
    let grid = [width.div_ceil(32) as u32, height.div_ceil(32) as u32, 1];
    let r = launch(
        &mut gpu,
        &m,
        kernel,
        grid,
        [32, 8, 1],
        &[
            Arg::Ptr(din),
            Arg::Ptr(dout),
            Arg::I32(width as i32),
            Arg::I32(height as i32),
        ],
    );
    (input, download_f32(&gpu, dout, width * height), r)
}

#[test]
fn transposes_are_correct_for_odd_shapes() {
    for kernel in [
        "transpose_naive",
        "transpose_tiled",
        "transpose_tiled_conflicts",
    ] {
        let (w, h) = (70, 45);
        let (input, out, r) = run_transpose(kernel, w, h);
        no_diagnostics(&r);
        for y in 0..h {
            for x in 0..w {
                assert_eq!(out[x * h + y], input[y * w + x], "{kernel} ({x},{y})");
            }
        }
    }
}

#[test]
fn tiled_matmul_matches_naive_and_cpu() {
    let m = module("matmul");
    let mut gpu = Machine::new();
    let n = 40;
    let a = random_f32(n * n, 8, -1.0, 1.0);
    let b = random_f32(n * n, 9, -1.0, 1.0);
    let (da, db) = (upload(&mut gpu, &a), upload(&mut gpu, &b));
    let mut expect = vec![0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut s = 0f32;
            for k in 0..n {
                s = a[row * n + k].mul_add(b[k * n + col], s);
            }
            expect[row * n + col] = s;
        }
    }
    for kernel in ["matmul_naive", "matmul_tiled"] {
        let dc = gpu.alloc(4 * (n * n) as u64);
        let r = launch(
            &mut gpu,
            &m,
            kernel,
            [3, 3, 1],
            [16, 16, 1],
            &[Arg::Ptr(da), Arg::Ptr(db), Arg::Ptr(dc), Arg::I32(n as i32)],
        );
        no_diagnostics(&r);
        let c = download_f32(&gpu, dc, n * n);
        // Both accumulate with fma in k order, as the CPU reference does.
        assert_eq!(c, expect, "{kernel}");
    }
}

fn block_sums(input: &[f32], block: usize) -> Vec<f32> {
    input
        .chunks(block)
        .map(|c| {
            // The tree order of sequential addressing.
            let mut v = c.to_vec();
            v.resize(block, 0.0);
            let mut s = block / 2;
            while s > 0 {
                for t in 0..s {
                    v[t] += v[t + s];
                }
                s /= 2;
            }
            v[0]
        })
        .collect()
}

#[test]
fn shared_memory_reduction() {
    let m = module("reduce");
    let mut gpu = Machine::new();
    let n = 256 * 7 + 100;
    let input = random_f32(n, 10, -1.0, 1.0);
    let din = upload(&mut gpu, &input);
    let blocks = n.div_ceil(256);
    let dout = gpu.alloc(4 * blocks as u64);
    let r = launch(
        &mut gpu,
        &m,
        "reduce_shared",
        [blocks as u32, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(n as i32)],
    );
    no_diagnostics(&r);
    assert_eq!(download_f32(&gpu, dout, blocks), block_sums(&input, 256));
}

#[test]
fn atomic_reduction_is_deterministic() {
    let m = module("reduce");
    let n = 256 * 40;
    let input = random_f32(n, 11, -1.0, 1.0);
    let mut results = Vec::new();
    for threads in [1, 2, 4] {
        let mut gpu = Machine::new();
        let din = upload(&mut gpu, &input);
        let total = upload(&mut gpu, &[0f32]);
        let limits = Limits {
            threads,
            ..Limits::default()
        };
        let r = launch_with(
            &mut gpu,
            &m,
            "reduce_atomic",
            [40, 1, 1],
            [256, 1, 1],
            0,
            &[Arg::Ptr(din), Arg::Ptr(total), Arg::I32(n as i32)],
            limits,
        );
        no_diagnostics(&r);
        results.push(download_f32(&gpu, total, 1)[0]);
    }
    let expect: f32 = block_sums(&input, 256).iter().fold(0.0, |s, x| s + x);
    assert_eq!(results, vec![expect; 3]);
}

#[test]
fn warp_shuffle_reduction() {
    let m = module("warp_reduce");
    let mut gpu = Machine::new();
    let n = 1000;
    let input: Vec<f32> = (0..n).map(|i| (i % 17) as f32).collect();
    let din = upload(&mut gpu, &input);
    let dout = gpu.alloc(4 * 4);
    let r = launch(
        &mut gpu,
        &m,
        "reduce_shuffle",
        [4, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(n)],
    );
    no_diagnostics(&r);
    let out = download_f32(&gpu, dout, 4);
    for b in 0..4 {
        let expect: f32 = input.iter().skip(b * 256).take(256).sum();
        assert_eq!(out[b], expect, "block {b}");
    }
}

#[test]
fn shuffles_see_reconverged_lanes() {
    let m = module("warp_reduce");
    let mut gpu = Machine::new();
    let input: Vec<i32> = (0..64).map(|i| i * 3 + 1).collect();
    let din = upload(&mut gpu, &input);
    let dout = gpu.alloc(4 * 64 * 4);
    let r = launch(
        &mut gpu,
        &m,
        "shuffle_after_branch",
        [1, 1, 1],
        [64, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout)],
    );
    no_diagnostics(&r);
    let out = download_u32(&gpu, dout, 64 * 4);
    let v: Vec<i32> = (0..64)
        .map(|t| {
            if t % 32 < 16 {
                input[t] * 2
            } else {
                input[t] + 100
            }
        })
        .collect();
    for t in 0..64usize {
        let lane = t % 32;
        let base = t - lane;
        let up = if lane >= 1 { v[t - 1] } else { v[t] };
        let x = v[base + (lane ^ 1)];
        let idx = v[base + 31 - lane];
        let seg = if lane % 8 + 2 < 8 { v[t + 2] } else { v[t] };
        assert_eq!(
            out[t * 4..t * 4 + 4],
            [up as u32, x as u32, idx as u32, seg as u32],
            "thread {t}"
        );
    }
}

#[test]
fn block_prefix_sum() {
    let m = module("scan");
    let mut gpu = Machine::new();
    let n = 600;
    let input: Vec<i32> = (0..n).map(|i| (i * 7 % 13) as i32 - 6).collect();
    let din = upload(&mut gpu, &input);
    let dout = gpu.alloc(4 * n as u64);
    let r = launch(
        &mut gpu,
        &m,
        "block_scan",
        [3, 1, 1],
        [256, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(n as i32)],
    );
    no_diagnostics(&r);
    let out = download_u32(&gpu, dout, n);
    for (b, chunk) in input.chunks(256).enumerate() {
        let mut s = 0i32;
        for (k, v) in chunk.iter().enumerate() {
            s += v;
            assert_eq!(out[b * 256 + k] as i32, s, "element {}", b * 256 + k);
        }
    }
}

#[test]
fn histogram_with_atomics() {
    let m = module("histogram");
    let mut gpu = Machine::new();
    let n = 10_000;
    let data: Vec<u8> = random_u32(n, 12).iter().map(|v| (v >> 7) as u8).collect();
    let dd = upload(&mut gpu, &data);
    let mut expect = vec![0u32; 64];
    for d in &data {
        expect[(*d % 64) as usize] += 1;
    }
    for (kernel, blocks) in [
        ("histogram", 8),
        ("histogram_global", n.div_ceil(128) as u32),
    ] {
        let bins = upload(&mut gpu, &[0u32; 64]);
        let r = launch(
            &mut gpu,
            &m,
            kernel,
            [blocks, 1, 1],
            [128, 1, 1],
            &[Arg::Ptr(dd), Arg::Ptr(bins), Arg::I32(n as i32)],
        );
        no_diagnostics(&r);
        assert_eq!(download_u32(&gpu, bins, 64), expect, "{kernel}");
    }
}

fn ulps(a: f32, b: f32) -> u32 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

#[test]
fn libdevice_math_within_ulps() {
    let m = module("math");
    let mut gpu = Machine::new();
    let mut x = random_f32(500, 13, -20.0, 20.0);
    x.extend([
        0.0, -0.0, 1.0, 0.5, 1e-3, 88.0, -87.0, 1e4, 123456.0, -3.0e5,
    ]);
    let n = x.len();
    let dx = upload(&mut gpu, &x);
    let dout = gpu.alloc(4 * 8 * n as u64);
    let r = launch(
        &mut gpu,
        &m,
        "math_f32",
        [n.div_ceil(128) as u32, 1, 1],
        [128, 1, 1],
        &[Arg::Ptr(dx), Arg::Ptr(dout), Arg::I32(n as i32)],
    );
    no_diagnostics(&r);
    let out = download_f32(&gpu, dout, 8 * n);
    for (i, &v) in x.iter().enumerate() {
        let expect = [
            v.exp(),
            (v.abs() + 1e-3).ln(),
            v.sin(),
            v.cos(),
            v.abs().sqrt(),
            v.abs().powf(1.5),
            v.tanh(),
            v / (1.0 + v.abs()),
        ];
        // CUDA's documented maximum errors: expf 2, logf 1, sinf/cosf 2, sqrtf 0, powf 4, tanhf 2 ulp.
        let max = [2, 1, 2, 2, 0, 4, 2, 0];
        for k in 0..8 {
            let got = out[i * 8 + k];
            assert!(
                ulps(got, expect[k]) <= max[k],
                "function {k} at x={v}: got {got}, expected {}",
                expect[k]
            );
        }
    }
}

#[test]
fn double_math() {
    let m = module("math");
    let mut gpu = Machine::new();
    let x: Vec<f64> = random_f32(200, 14, -30.0, 30.0)
        .into_iter()
        .map(|v| v as f64 * 1.01)
        .collect();
    let n = x.len();
    let dx = upload(&mut gpu, &x);
    let dout = gpu.alloc(8 * 4 * n as u64);
    let r = launch(
        &mut gpu,
        &m,
        "math_f64",
        [2, 1, 1],
        [128, 1, 1],
        &[Arg::Ptr(dx), Arg::Ptr(dout), Arg::I32(n as i32)],
    );
    no_diagnostics(&r);
    let out = download_f64(&gpu, dout, 4 * n);
    for (i, &v) in x.iter().enumerate() {
        let expect = [
            v.exp(),
            (v.abs() + 1e-3).ln(),
            v.sin(),
            v.abs().sqrt() / 3.0,
        ];
        for k in 0..4 {
            let got = out[i * 4 + k];
            let rel = ((got - expect[k]) / expect[k]).abs();
            assert!(
                rel < 1e-15 || got == expect[k],
                "function {k} at x={v}: got {got}, expected {}",
                expect[k]
            );
        }
    }
}

#[test]
fn fast_math_intrinsics_are_close() {
    let m = module("math");
    let mut gpu = Machine::new();
    let x = random_f32(256, 15, -10.0, 10.0);
    let dx = upload(&mut gpu, &x);
    let dout = gpu.alloc(4 * 4 * 256);
    let r = launch(
        &mut gpu,
        &m,
        "math_fast",
        [2, 1, 1],
        [128, 1, 1],
        &[Arg::Ptr(dx), Arg::Ptr(dout), Arg::I32(256)],
    );
    no_diagnostics(&r);
    let out = download_f32(&gpu, dout, 4 * 256);
    for (i, &v) in x.iter().enumerate() {
        let expect = [v.exp(), v.sin(), v / 3.0, (v.abs() + 1.0).ln()];
        for k in 0..4 {
            let got = out[i * 4 + k];
            assert!(
                (got - expect[k]).abs() <= 1e-5 * expect[k].abs().max(1.0),
                "intrinsic {k} at {v}: {got} vs {}",
                expect[k]
            );
        }
    }
}

/// Directed rounding, computed exactly with f64 (exact for these sums and products of f32).
fn round_dir(exact: f64, mode: char) -> f32 {
    let x = exact as f32;
    let xd = x as f64;
    match mode {
        'z' if xd.abs() > exact.abs() => x.next_toward_zero(),
        'd' if xd > exact => x.next_down(),
        'u' if xd < exact => x.next_up(),
        _ => x,
    }
}

trait TowardZero {
    fn next_toward_zero(self) -> Self;
}

impl TowardZero for f32 {
    fn next_toward_zero(self) -> f32 {
        if self > 0.0 {
            self.next_down()
        } else {
            self.next_up()
        }
    }
}

#[test]
fn directed_rounding_is_exact() {
    let m = module("math");
    let mut gpu = Machine::new();
    let a = random_f32(300, 16, -100.0, 100.0);
    let b = random_f32(300, 17, -3.0, 3.0);
    let (da, db) = (upload(&mut gpu, &a), upload(&mut gpu, &b));
    let dout = gpu.alloc(4 * 12 * 300);
    let r = launch(
        &mut gpu,
        &m,
        "rounding",
        [3, 1, 1],
        [128, 1, 1],
        &[Arg::Ptr(da), Arg::Ptr(db), Arg::Ptr(dout), Arg::I32(300)],
    );
    no_diagnostics(&r);
    let out = download_f32(&gpu, dout, 12 * 300);
    for i in 0..300 {
        let (x, y) = (a[i] as f64, b[i] as f64);
        let sum = x + y; // exact: both are f32 of similar magnitude ranges
        let prod = x * y; // exact in f64
        let expect = [
            sum as f32,
            round_dir(sum, 'z'),
            round_dir(sum, 'd'),
            round_dir(sum, 'u'),
            round_dir(prod, 'z'),
            round_dir(prod, 'd'),
            round_dir(prod, 'u'),
        ];
        for k in 0..7 {
            assert_eq!(out[i * 12 + k], expect[k], "op {k} for {x} and {y}");
        }
        // Division and sqrt: check the bracket instead of recomputing.
        let q = x / y;
        let (qz, qu) = (out[i * 12 + 7] as f64, out[i * 12 + 8] as f64);
        assert!(
            qz.abs() <= q.abs() && (qz.abs() as f32).next_up() as f64 >= q.abs(),
            "div rz {x}/{y}"
        );
        assert!(
            qu >= q && (qu as f32).next_down() as f64 <= q,
            "div ru {x}/{y}"
        );
        let fma = x * y + 1.0;
        assert_eq!(out[i * 12 + 9], round_dir(fma, 'd'), "fma rd");
        let s = out[i * 12 + 10] as f64;
        assert!(
            s * s >= x.abs() && ((s as f32).next_down() as f64).powi(2) <= x.abs(),
            "sqrt ru {x}"
        );
        let bits = a[i].to_bits() as i32 as f64;
        assert_eq!(out[i * 12 + 11], round_dir(bits, 'z'), "int2float rz");
    }
}

#[test]
fn printf_output_in_block_order() {
    let m = module("printf");
    let mut gpu = Machine::new();
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5).collect();
    let dx = upload(&mut gpu, &x);
    let r = launch(
        &mut gpu,
        &m,
        "hello",
        [2, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(dx), Arg::I32(64)],
    );
    no_diagnostics(&r);
    let mut expect = String::new();
    for i in [0usize, 16, 32, 48] {
        expect += &format!(
            "block {} thread {}: x={:.2} hex={} big={} ok\n",
            i / 32,
            i % 32,
            x[i],
            // C's `%#x` prints 0 without the prefix.
            if i == 0 {
                "0".to_string()
            } else {
                format!("{:#x}", i * 255)
            },
            (i as i64) << 33
        );
    }
    assert_eq!(r.printf, expect);
}

#[test]
fn votes_ballots_and_matches() {
    let m = module("warp_vote");
    let mut gpu = Machine::new();
    let input: Vec<i32> = (0..64).map(|i| (i * 5) % 37).collect();
    let din = upload(&mut gpu, &input);
    let dout = gpu.alloc(4 * 8 * 64);
    let r = launch(
        &mut gpu,
        &m,
        "votes",
        [1, 1, 1],
        [64, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout)],
    );
    no_diagnostics(&r);
    let out = download_u32(&gpu, dout, 8 * 64);
    for t in 0..64 {
        let warp = &input[t / 32 * 32..t / 32 * 32 + 32];
        let lane = t % 32;
        let ballot = warp
            .iter()
            .enumerate()
            .fold(0u32, |m, (l, v)| m | ((*v > 10) as u32) << l);
        let any = warp.iter().any(|v| *v > 30) as u32;
        let all = warp.iter().all(|v| *v >= 0) as u32;
        let same = warp.iter().enumerate().fold(0u32, |m, (l, v)| {
            m | ((v / 8 == warp[lane] / 8) as u32) << l
        });
        let sum: u32 = warp.iter().map(|v| *v as u32).sum();
        let mx = *warp.iter().max().unwrap() as u32;
        let active = if lane % 3 == 0 {
            (0..32).filter(|l| l % 3 == 0).fold(0u32, |m, l| m | 1 << l)
        } else {
            0
        };
        let bits = ballot.count_ones()
            + (ballot.trailing_zeros() + 1) * 100
            + ballot.leading_zeros() * 10000;
        assert_eq!(
            out[t * 8..t * 8 + 8],
            [ballot, any, all, same, sum, mx, active, bits],
            "thread {t}"
        );
    }
}

fn xorshift(state: &mut u32) -> u32 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    x
}

#[test]
fn xorshift_monte_carlo() {
    let m = module("xorshift");
    let mut gpu = Machine::new();
    let threads = 512;
    let hits = gpu.alloc(4 * threads as u64);
    let total = upload(&mut gpu, &[0u64]);
    let r = launch(
        &mut gpu,
        &m,
        "monte_carlo_pi",
        [4, 1, 1],
        [128, 1, 1],
        &[
            Arg::U32(1234),
            Arg::I32(100),
            Arg::Ptr(hits),
            Arg::Ptr(total),
        ],
    );
    no_diagnostics(&r);
    let got = download_u32(&gpu, hits, threads);
    let mut sum = 0u64;
    for i in 0..threads {
        let mut state = 1234u32 ^ (i as u32).wrapping_mul(2654435761);
        if state == 0 {
            state = 1;
        }
        let mut count = 0;
        for _ in 0..100 {
            let x = xorshift(&mut state) as f32 * 2.3283064e-10;
            let y = xorshift(&mut state) as f32 * 2.3283064e-10;
            if x.mul_add(x, y * y) <= 1.0 {
                count += 1;
            }
        }
        assert_eq!(got[i], count, "thread {i}");
        sum += count as u64;
    }
    assert_eq!(download_u64(&gpu, total, 1)[0], sum);
    let pi = 4.0 * sum as f64 / (threads * 100) as f64;
    assert!((pi - std::f64::consts::PI).abs() < 0.05, "pi estimate {pi}");
}

#[test]
fn local_arrays() {
    let m = module("local_array");
    let mut gpu = Machine::new();
    let n = 300;
    let idx: Vec<i32> = (0..n).map(|i| (i * 7 + 3) % 23).collect();
    let di = upload(&mut gpu, &idx);
    let dout = gpu.alloc(4 * n as u64);
    let r = launch(
        &mut gpu,
        &m,
        "local_array",
        [3, 1, 1],
        [128, 1, 1],
        &[Arg::Ptr(di), Arg::Ptr(dout), Arg::I32(n)],
    );
    no_diagnostics(&r);
    let out = download_f32(&gpu, dout, n as usize);
    for i in 0..n as usize {
        let j = (idx[i] % 16) as usize;
        let expect = (j * i) as f32 + (j % 4) as f32 + i as f32;
        assert_eq!(out[i], expect, "thread {i}");
    }
}

#[test]
fn atomics_have_gpu_semantics() {
    let m = module("atomics");
    let mut gpu = Machine::new();
    let t = 64u32;
    let i32s = upload(&mut gpu, &[0i32, 0, 0, 0, 0, -1, 0, 0, 0]);
    let u32s = upload(&mut gpu, &[u32::MAX, 0, 0, 0, 0, 1000]);
    let u64s = upload(&mut gpu, &[0u64, 0]);
    let f32s = upload(&mut gpu, &[0f32]);
    let f64s = upload(&mut gpu, &[0f64]);
    let old = gpu.alloc(4 * t as u64);
    let r = launch(
        &mut gpu,
        &m,
        "atomics",
        [1, 1, 1],
        [t, 1, 1],
        &[
            Arg::Ptr(i32s),
            Arg::Ptr(u32s),
            Arg::Ptr(u64s),
            Arg::Ptr(f32s),
            Arg::Ptr(f64s),
            Arg::Ptr(old),
        ],
    );
    no_diagnostics(&r);
    let sum: i32 = (0..t as i32).sum();
    let i = download_u32(&gpu, i32s, 9);
    assert_eq!(i[..4], [sum as u32, (-sum) as u32, (-40i32) as u32, 23]);
    // CAS chain: thread k succeeds when the value is k, so all 64 succeed in lane order.
    assert_eq!(i[4], 64);
    assert_eq!(i[5], 63, "the last exchange in lane order");
    assert_eq!(i[6..9], [64, 63, 1], "shared atomics");
    let u = download_u32(&gpu, u32s, 6);
    assert_eq!(u[0], 0, "and clears every bit");
    assert_eq!(u[1], u32::MAX);
    assert_eq!(u[2], 0, "each bit toggled twice");
    // inc wraps to 0 after 9: 64 increments from 0 end at 64 % 10.
    assert_eq!(u[3], 4);
    // dec from 0 wraps to 9: value after k decrements is (-(k) mod 10).
    assert_eq!(u[4], 10 - 64 % 10);
    assert_eq!(u[5], 7);
    let q = download_u64(&gpu, u64s, 2);
    assert_eq!(q, [(sum as u64) << 32, 63 * 1_000_000_000_000]);
    assert_eq!(download_f32(&gpu, f32s, 1)[0], 32.0);
    assert_eq!(download_f64(&gpu, f64s, 1)[0], 16.0);
    let olds = download_u32(&gpu, old, t as usize);
    assert_eq!(olds, (0..t).collect::<Vec<_>>());
}

#[test]
fn integer_intrinsics() {
    let m = module("int_ops");
    let mut gpu = Machine::new();
    let n = 200;
    let mut a = random_u32(n, 18);
    let mut b = random_u32(n, 19);
    a[0] = 0;
    b[0] = u32::MAX;
    a[1] = 0x8000_0000;
    b[1] = 0xffff_ffff;
    let (da, db) = (upload(&mut gpu, &a), upload(&mut gpu, &b));
    let dout = gpu.alloc(8 * 16 * n as u64);
    let r = launch(
        &mut gpu,
        &m,
        "int_ops",
        [2, 1, 1],
        [128, 1, 1],
        &[
            Arg::Ptr(da),
            Arg::Ptr(db),
            Arg::Ptr(dout),
            Arg::I32(n as i32),
        ],
    );
    no_diagnostics(&r);
    let out = download_u64(&gpu, dout, 16 * n);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let xx = ((x as u64) << 32) | y as u64;
        let yy = ((y as u64) << 29) ^ x as u64;
        let byte_perm = {
            let bytes = ((y as u64) << 32 | x as u64).to_le_bytes();
            let sel = 0x5140u32;
            (0..4).fold(0u32, |d, k| {
                d | (bytes[((sel >> (4 * k)) & 7) as usize] as u32) << (8 * k)
            })
        };
        let sh = (i as u32) & 31;
        let funnel_l = ((((y as u64) << 32 | x as u64) << sh) >> 32) as u32;
        let funnel_r = (((y as u64) << 32 | x as u64) >> sh) as u32;
        let (sx, sy) = (x as i32, (y | 1) as i32);
        let s24 = |v: u32| ((v << 8) as i32 >> 8) as i64;
        let mul24 = (s24(x) * s24(y)) as u32;
        let expect = [
            ((x as u64 * y as u64) >> 32),
            ((xx as u128 * yy as u128) >> 64) as u64,
            xx.wrapping_mul(yy),
            x.reverse_bits() as u64,
            x.leading_zeros() as u64 + 100 * xx.leading_zeros() as u64,
            (if x == 0 { 0 } else { x.trailing_zeros() + 1 }) as u64
                + 100 * y.count_ones() as u64
                + 10000 * xx.count_ones() as u64,
            byte_perm as u64,
            funnel_l as u64 ^ ((funnel_r as u64) << 32),
            sx.wrapping_div(sy) as u32 as u64,
            sx.wrapping_rem(sy) as u32 as u64,
            xx / (yy | 1),
            xx % (yy | 1),
            (xx as i64).wrapping_div((yy | 1) as i64) as u64,
            ((x as i32 as i64 - y as i32 as i64).unsigned_abs() + 7) as u32 as u64,
            (((x as i32 as i64 * y as i32 as i64) >> 32) as u32 as u64)
                .wrapping_add((mul24 as u64) << 32),
            ((x >> (y % 32)) as u64)
                .wrapping_add(((x as i32) >> (y % 32)) as i64 as u64)
                .wrapping_add(xx >> (y % 64)),
        ];
        for k in 0..16 {
            assert_eq!(out[i * 16 + k], expect[k], "op {k} for x={x:#x} y={y:#x}");
        }
    }
}

#[test]
fn dynamic_shared_stencil() {
    let m = module("stencil");
    let mut gpu = Machine::new();
    let n = 1000;
    let input = random_f32(n, 20, -1.0, 1.0);
    let din = upload(&mut gpu, &input);
    let dout = gpu.alloc(4 * n as u64);
    let block = 128u32;
    let r = launch_with(
        &mut gpu,
        &m,
        "stencil_1d",
        [n.div_ceil(128) as u32, 1, 1],
        [block, 1, 1],
        (block + 6) * 4,
        &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(n as i32)],
        Limits::default(),
    );
    no_diagnostics(&r);
    let out = download_f32(&gpu, dout, n);
    for g in 0..n {
        let mut s = 0f32;
        for k in -3i64..=3 {
            let j = g as i64 + k;
            s += if j >= 0 && (j as usize) < n {
                input[j as usize]
            } else {
                0.0
            };
        }
        assert_eq!(out[g], s, "element {g}");
    }
}

#[test]
fn device_functions_with_calls() {
    let m = module("device_func");
    let mut gpu = Machine::new();
    let n = 100;
    let input = random_f32(n, 21, -1.0, 1.0);
    let din = upload(&mut gpu, &input);
    let dout = gpu.alloc(4 * n as u64);
    let r = launch(
        &mut gpu,
        &m,
        "call_functions",
        [1, 1, 1],
        [128, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout), Arg::I32(n as i32)],
    );
    no_diagnostics(&r);
    let out = download_f32(&gpu, dout, n);
    for i in 0..n {
        let mut x = i as u32 + 1;
        let mut steps = 0;
        while x != 1 {
            x = if x % 2 == 1 { 3 * x + 1 } else { x / 2 };
            steps += 1;
        }
        let w = input[i] * ((i & 3) + 1) as f32 + 0.5;
        assert_eq!(out[i], w + steps as f32, "thread {i}");
    }
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let m = module("transpose");
    let (w, h) = (96, 64);
    let input = random_f32(w * h, 22, -1.0, 1.0);
    let mut outs = Vec::new();
    for threads in [1, 2, 3] {
        let mut gpu = Machine::new();
        let din = upload(&mut gpu, &input);
        let dout = gpu.alloc(4 * (w * h) as u64);
        let limits = Limits {
            threads,
            ..Limits::default()
        };
        let r = launch_with(
            &mut gpu,
            &m,
            "transpose_tiled",
            [3, 2, 1],
            [32, 8, 1],
            0,
            &[
                Arg::Ptr(din),
                Arg::Ptr(dout),
                Arg::I32(w as i32),
                Arg::I32(h as i32),
            ],
            limits,
        );
        outs.push((
            download_f32(&gpu, dout, w * h),
            r.figures,
            r.warp_instructions,
        ));
    }
    assert!(outs.windows(2).all(|p| p[0] == p[1]));
    let _ = DiagnosticKind::Trap;
}

#[test]
fn warp_size_is_ptxs_predefined_warp_sz() {
    // What NVRTC emits for `out[i] = threadIdx.x % warpSize + warpSize`.
    let ptx = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry lanes(.param .u64 out)
{
    .reg .b32 %r<5>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, WARP_SZ;
    add.s32 %r3, %r2, WARP_SZ;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r3;
    ret;
}
"#;
    let m = sim::Module::parse(ptx).unwrap();
    let mut gpu = Machine::new();
    let out = gpu.alloc(4 * 64);
    let r = launch(
        &mut gpu,
        &m,
        "lanes",
        [1, 1, 1],
        [64, 1, 1],
        &[Arg::Ptr(out)],
    );
    no_diagnostics(&r);
    let got = download_u32(&gpu, out, 64);
    let want: Vec<u32> = (0..64).map(|t| t % 32 + 32).collect();
    assert_eq!(got, want);
}

/// `__nanosleep(ns)` in a loop: `n` sleeps of `ns` nanoseconds, and the clock cycles they took.
const SLEEPER: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry sleeper(.param .u64 out, .param .u32 n, .param .u32 ns)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    ld.param.u32 %r2, [ns];
    mov.u64 %rd2, %clock64;
    mov.u32 %r3, 0;
LOOP:
    setp.ge.u32 %p1, %r3, %r1;
    @%p1 bra DONE;
    nanosleep.u32 %r2;
    add.u32 %r3, %r3, 1;
    bra LOOP;
DONE:
    mov.u64 %rd3, %clock64;
    sub.s64 %rd4, %rd3, %rd2;
    cvta.to.global.u64 %rd1, %rd1;
    st.global.u64 [%rd1], %rd4;
    ret;
}
"#;

#[test]
fn nanosleep_moves_the_clock_and_the_modelled_time_on_by_its_argument() {
    let m = sim::Module::parse(SLEEPER).unwrap();
    let mut gpu = Machine::new();
    let out = gpu.alloc(8);
    // A thousand sleeps of a microsecond: a millisecond at the clock's 1 GHz.
    let sleep = |gpu: &mut Machine, n: u32, ns: u32| {
        let args = [Arg::Ptr(out), Arg::U32(n), Arg::U32(ns)];
        let r = launch(gpu, &m, "sleeper", [1, 1, 1], [32, 1, 1], &args);
        no_diagnostics(&r);
        (download_u64(gpu, out, 1)[0], r.modelled.microseconds)
    };
    let (cycles, microseconds) = sleep(&mut gpu, 1000, 1000);
    assert!((1_000_000..1_100_000).contains(&cycles), "{cycles} cycles");
    assert!(microseconds >= 1000.0, "modelled {microseconds} µs");
    // PTX bounds one sleep at a millisecond.
    let (cycles, _) = sleep(&mut gpu, 1, 50_000_000);
    assert!((1_000_000..1_001_000).contains(&cycles), "{cycles} cycles");
}

#[test]
fn a_struct_parameter_indexed_at_run_time_is_read_through_its_address() {
    let m = module("param_struct");
    let mut gpu = Machine::new();
    let values: Vec<u64> = (0..16).map(|i| i * i + 3).collect();
    let n = 11u64;
    let mut meta = n.to_le_bytes().to_vec();
    for v in &values {
        meta.extend_from_slice(&v.to_le_bytes());
    }
    let out = gpu.alloc(8 * 32);
    let launch = sim::Launch::new(
        "weigh",
        [1, 1, 1],
        [32, 1, 1],
        vec![meta, out.to_le_bytes().to_vec()],
    );
    no_diagnostics(&gpu.launch(&m, &launch).unwrap_or_else(|e| panic!("{e}")));
    let sum: u64 = (0..n as usize).map(|i| values[i] * (i as u64 + 1)).sum();
    let expect: Vec<u64> = (0..32).map(|t| sum + values[t % 16]).collect();
    assert_eq!(download_u64(&gpu, out, 32), expect);
}
