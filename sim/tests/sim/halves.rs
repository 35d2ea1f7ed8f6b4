//! Half precision as `cuda_fp16.h` compiles it (fixture `half.cu`): every operation gives the
//! IEEE half result, checked against the same computation on the CPU with the `half` crate.

use super::common::*;
use half::f16;
use sim::{LaunchReport, Machine};

/// Halves that test the edges (zeros, subnormals, the largest finite, infinities, NaN, values
/// whose sums tie) followed by seeded random ones in [-8, 8].
fn inputs(n: usize, seed: u64) -> Vec<f16> {
    let edges = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        6.0e-8,
        -3.0e-5,
        65504.0,
        -65504.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        2048.0,
        1.0009766,
        0.5,
        1000.0,
        -0.33325195,
    ];
    let mut values: Vec<f16> = edges.iter().map(|&x| f16::from_f32(x)).collect();
    values.rotate_left(seed as usize % edges.len());
    let random = random_f32(n, seed, -8.0, 8.0);
    values.extend(random.iter().map(|&x| f16::from_f32(x)));
    values.truncate(n);
    values
}

fn upload_halves(gpu: &mut Machine, values: &[f16]) -> u64 {
    let bytes: Vec<u8> = values.iter().flat_map(|h| h.to_le_bytes()).collect();
    let addr = gpu.alloc(bytes.len() as u64);
    gpu.write(addr, &bytes).unwrap();
    addr
}

fn download_halves(gpu: &Machine, addr: u64, n: usize) -> Vec<f16> {
    let bytes = gpu.read(addr, 2 * n as u64).unwrap();
    bytes
        .chunks(2)
        .map(|b| f16::from_le_bytes([b[0], b[1]]))
        .collect()
}

/// Bit for bit: a NaN passed through keeps its bits, one the GPU computes is 0x7fff.
fn assert_same(got: f16, want: f16, what: &str) {
    assert_eq!(
        got.to_bits(),
        want.to_bits(),
        "{what}: got {got}, want {want}"
    );
}

/// The NaN a GPU's arithmetic produces, in place of any other.
fn computed(h: f16) -> f16 {
    if h.is_nan() {
        f16::from_bits(0x7fff)
    } else {
        h
    }
}

/// Rounds with the `half` crate through f32: for +, -, *, / and sqrt of halves, rounding first to
/// f32's 24 bits and then to half's 11 gives the correctly rounded half (24 >= 2 * 11 + 2).
fn via_f32(x: f32) -> f16 {
    computed(f16::from_f32(x))
}

/// The half nearest to `a * b + c` (ties to even), from the exact value in units of 2^-48.
fn fma_reference(a: f16, b: f16, c: f16) -> f16 {
    let approximate = f16::from_f64(a.to_f64().mul_add(b.to_f64(), c.to_f64()));
    if !approximate.is_finite() || [a, b, c].iter().any(|x| !x.is_finite()) {
        return computed(approximate);
    }
    let units = |x: f16| (x.to_f64() * 2f64.powi(24)) as i128;
    let exact = units(a) * units(b) + (units(c) << 24);
    let bits = approximate.to_bits();
    let candidates = [bits.wrapping_sub(1), bits, bits.wrapping_add(1)]
        .map(f16::from_bits)
        .into_iter()
        .filter(|h| h.is_finite());
    candidates
        .min_by_key(|&h| {
            let distance = (exact - (units(h) << 24)).abs();
            (distance, h.to_bits() & 1)
        })
        .unwrap()
}

/// PTX's min and max on halves: a NaN yields the other operand; -0 is below +0.
fn min_max(x: f16, y: f16, max: bool) -> f16 {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => computed(x),
        (true, _) => y,
        (_, true) => x,
        _ if x == y => {
            let negative = |h: f16| h.is_sign_negative();
            if negative(x) != max {
                x
            } else {
                y
            }
        }
        _ if (x < y) != max => x,
        _ => y,
    }
}

fn run(name: &str, n: usize, args: &[Arg], gpu: &mut Machine) -> LaunchReport {
    let module = module("half");
    let report = launch(gpu, &module, name, [1, 1, 1], [n as u32, 1, 1], args);
    assert!(
        report.diagnostics.is_empty() && !report.aborted,
        "{name}: {:#?}",
        report.diagnostics
    );
    report
}

#[test]
fn scalar_half_arithmetic_comparisons_and_saturation_round_as_ieee_half() {
    let n = 64;
    let (a, b, c) = (inputs(n, 0), inputs(n, 5), inputs(n, 11));
    let mut gpu = Machine::new();
    let (da, db, dc) = (
        upload_halves(&mut gpu, &a),
        upload_halves(&mut gpu, &b),
        upload_halves(&mut gpu, &c),
    );
    let out = gpu.alloc(2 * 15 * n as u64);
    let args = [
        Arg::Ptr(da),
        Arg::Ptr(db),
        Arg::Ptr(dc),
        Arg::Ptr(out),
        Arg::I32(n as i32),
    ];
    run("half_scalar", n, &args, &mut gpu);
    let got = download_halves(&gpu, out, 15 * n);
    for i in 0..n {
        let (x, y, z) = (a[i], b[i], c[i]);
        let (fx, fy) = (x.to_f32(), y.to_f32());
        let saturated = via_f32(fx + fy);
        let saturated = if saturated.is_nan() {
            f16::ZERO
        } else {
            saturated.clamp(f16::ZERO, f16::ONE)
        };
        let want = [
            via_f32(fx + fy),
            via_f32(fx - fy),
            via_f32(fx * fy),
            fma_reference(x, y, z),
            -x,
            f16::from_bits(x.to_bits() & 0x7fff),
            min_max(x, y, false),
            min_max(x, y, true),
            via_f32(fx / fy),
            via_f32(via_f32(fx * fy).to_f32() + z.to_f32()),
            if x < y { x } else { y },
            if x >= y { x } else { z },
            if x == y { z } else { y },
            saturated,
            via_f32(fx.abs().sqrt()),
        ];
        for (op, want) in want.into_iter().enumerate() {
            let what = format!("operation {op} on x = {x}, y = {y}, z = {z} (element {i})");
            assert_same(got[op * n + i], want, &what);
        }
    }
}

#[test]
fn conversions_between_float_int_and_half_round_as_asked() {
    let n = 64;
    let mut floats = random_f32(n, 3, -70000.0, 70000.0);
    floats[..8].copy_from_slice(&[0.5, 1.5, 2.5, -2.5, 1.0e-8, -65519.0, 65520.0, 3.3333]);
    let mut gpu = Machine::new();
    let df = upload(&mut gpu, &floats);
    let halves = gpu.alloc(2 * 3 * n as u64);
    let back = gpu.alloc(4 * n as u64);
    let ints = gpu.alloc(4 * 2 * n as u64);
    let args = [
        Arg::Ptr(df),
        Arg::Ptr(halves),
        Arg::Ptr(back),
        Arg::Ptr(ints),
        Arg::I32(n as i32),
    ];
    run("half_convert", n, &args, &mut gpu);
    let (h, f) = (
        download_halves(&gpu, halves, 3 * n),
        download_f32(&gpu, back, n),
    );
    let ints: Vec<i32> = download_u32(&gpu, ints, 2 * n)
        .into_iter()
        .map(|v| v as i32)
        .collect();
    for i in 0..n {
        let x = floats[i];
        let nearest = f16::from_f32(x);
        // Toward zero: the largest in magnitude of the halves around the nearest that does not pass x.
        let bits = nearest.to_bits();
        let toward_zero = [bits.wrapping_add(1), bits, bits.wrapping_sub(1)]
            .map(f16::from_bits)
            .into_iter()
            .find(|h| h.to_f64().abs() <= (x as f64).abs())
            .unwrap();
        assert_same(h[i], nearest, &format!("__float2half({x})"));
        assert_same(h[n + i], toward_zero, &format!("__float2half_rz({x})"));
        assert_same(h[2 * n + i], via_f32(x as i32 as f32), "__int2half_rn");
        assert_eq!(f[i].to_bits(), nearest.to_f32().to_bits(), "__half2float");
        let v = nearest.to_f32();
        assert_eq!(ints[i], v.trunc() as i32, "__half2int_rz({v})");
        assert_eq!(
            ints[n + i],
            v.round_ties_even() as i32,
            "__half2int_rn({v})"
        );
    }
}

#[test]
fn pairs_of_halves_compute_each_half_and_pack_them_in_order() {
    let n = 32;
    let (a, b, c) = (inputs(2 * n, 1), inputs(2 * n, 7), inputs(2 * n, 13));
    let mut gpu = Machine::new();
    let (da, db, dc) = (
        upload_halves(&mut gpu, &a),
        upload_halves(&mut gpu, &b),
        upload_halves(&mut gpu, &c),
    );
    let out = gpu.alloc(4 * 12 * n as u64);
    let wide = gpu.alloc(8 * n as u64);
    let args = [
        Arg::Ptr(da),
        Arg::Ptr(db),
        Arg::Ptr(dc),
        Arg::Ptr(out),
        Arg::Ptr(wide),
        Arg::I32(n as i32),
    ];
    run("half_pairs", n, &args, &mut gpu);
    let got = download_halves(&gpu, out, 2 * 12 * n);
    let wide = download_f32(&gpu, wide, 2 * n);
    let one_if = |t: bool| if t { f16::ONE } else { f16::ZERO };
    for i in 0..n {
        let pair = |v: &[f16]| (v[2 * i], v[2 * i + 1]);
        let ((xl, xh), (yl, yh), (zl, zh)) = (pair(&a), pair(&b), pair(&c));
        let each = |f: &dyn Fn(f16, f16, f16) -> f16| [f(xl, yl, zl), f(xh, yh, zh)];
        let want: [[f16; 2]; 12] = [
            each(&|x, y, _| via_f32(x.to_f32() + y.to_f32())),
            each(&|x, y, _| via_f32(x.to_f32() - y.to_f32())),
            each(&|x, y, _| via_f32(x.to_f32() * y.to_f32())),
            each(&|x, y, z| fma_reference(x, y, z)),
            each(&|x, _, _| -x),
            each(&|x, _, _| f16::from_bits(x.to_bits() & 0x7fff)),
            each(&|x, y, _| min_max(x, y, true)),
            each(&|x, y, _| min_max(x, y, false)),
            [xh, yl],
            each(&|x, y, _| one_if(x < y)),
            [via_f32(xl.to_f32() * 2.0), via_f32(yh.to_f32())],
            [xh, xl],
        ];
        for (op, [low, high]) in want.into_iter().enumerate() {
            let at = 2 * (op * n + i);
            let what = format!("pair operation {op}, element {i}");
            assert_same(got[at], low, &format!("{what}, low half"));
            assert_same(got[at + 1], high, &format!("{what}, high half"));
        }
        // A NaN widened is the canonical f32 NaN, as every NaN the simulator's cvt makes.
        let widen = |h: f16| {
            if h.is_nan() {
                0x7fff_ffff
            } else {
                h.to_f32().to_bits()
            }
        };
        let widened = [wide[2 * i], wide[2 * i + 1]].map(f32::to_bits);
        assert_eq!(
            widened,
            [widen(xl), widen(xh)],
            "__half22float2, element {i}"
        );
    }
}

#[test]
fn a_warp_shuffle_reduction_in_half_precision_adds_in_the_order_of_its_tree() {
    let n = 64;
    let (a, b) = (inputs(2 * n, 2), inputs(2 * n, 9));
    let finite = |v: Vec<f16>| -> Vec<f16> {
        v.into_iter()
            .map(|h| if h.to_f32().abs() < 8.0 { h } else { f16::ONE })
            .collect()
    };
    let (a, b) = (finite(a), finite(b));
    let mut gpu = Machine::new();
    let (da, db) = (upload_halves(&mut gpu, &a), upload_halves(&mut gpu, &b));
    let sums = upload(&mut gpu, &[0f32; 2]);
    let args = [
        Arg::Ptr(da),
        Arg::Ptr(db),
        Arg::Ptr(sums),
        Arg::I32(n as i32),
    ];
    run("half_dot", n, &args, &mut gpu);
    let got = download_f32(&gpu, sums, 2);
    let add = |x: f16, y: f16| via_f32(x.to_f32() + y.to_f32());
    for warp in 0..2 {
        let mut h: Vec<f16> = (0..32)
            .map(|lane| {
                let i = warp * 32 + lane;
                let low = via_f32(a[2 * i].to_f32() * b[2 * i].to_f32());
                let high = via_f32(a[2 * i + 1].to_f32() * b[2 * i + 1].to_f32());
                add(low, high)
            })
            .collect();
        for offset in [16, 8, 4, 2, 1] {
            // A lane whose source is past the warp reads its own value.
            h = (0..32)
                .map(|l| add(h[l], h[if l + offset < 32 { l + offset } else { l }]))
                .collect();
        }
        assert_eq!(got[warp], h[0].to_f32(), "warp {warp}");
    }
}

#[test]
fn bfloat16_addition_as_cuda_bf16_h_compiles_it_for_compute_80_runs() {
    // `__hadd` on `__nv_bfloat16` is `fma.rn.bf16 d, a, 1.0, a` there: a + a, exact.
    let module = module("half");
    let mut gpu = Machine::new();
    let a: Vec<half::bf16> = (0..32)
        .map(|i| half::bf16::from_f32(i as f32 * 0.375 - 3.0))
        .collect();
    let bytes: Vec<u8> = a.iter().flat_map(|h| h.to_le_bytes()).collect();
    let (input, out) = (gpu.alloc(64), gpu.alloc(64));
    gpu.write(input, &bytes).unwrap();
    let r = launch(
        &mut gpu,
        &module,
        "bfloat_add",
        [1, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(input), Arg::Ptr(out)],
    );
    assert!(r.diagnostics.is_empty(), "{:#?}", r.diagnostics);
    let got = gpu.read(out, 64).unwrap();
    for (i, x) in a.iter().enumerate() {
        let sum = half::bf16::from_le_bytes([got[2 * i], got[2 * i + 1]]);
        assert_eq!(sum.to_f32(), 2.0 * x.to_f32(), "element {i}");
    }
}
