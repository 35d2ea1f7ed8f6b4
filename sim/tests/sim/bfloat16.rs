//! bfloat16 (`.bf16`, `.bf16x2`) as PTX defines it for sm_90: conversions from and to f32 and
//! the arithmetic, each rounded once to nearest even, checked bit for bit on edge cases worked
//! out by hand and against the `half` crate's bfloat16 on seeded random values.

use super::common::*;
use half::bf16;
use sim::{Machine, Module};

/// Each thread reads a, b, c (bfloat16) and f (f32), and writes 32 bytes: add, sub, mul, fma,
/// neg, abs, min, max, min.NaN, setp.lt, setp.gtu (1 or 0), cvt.rn and cvt.rz of f (13 halves),
/// then cvt.f32.bf16 of a at byte 28.
const SCALAR: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry bf16_ops(.param .u64 p_a, .param .u64 p_b, .param .u64 p_c, .param .u64 p_f,
	.param .u64 p_out)
{
	.reg .pred %p<3>;
	.reg .b16 %h<20>;
	.reg .b32 %r<4>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<16>;

	ld.param.u64 %rd1, [p_a];
	ld.param.u64 %rd2, [p_b];
	ld.param.u64 %rd3, [p_c];
	ld.param.u64 %rd4, [p_f];
	ld.param.u64 %rd5, [p_out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd6, %r1, 2;
	add.s64 %rd7, %rd1, %rd6;
	ld.global.b16 %h1, [%rd7];
	add.s64 %rd8, %rd2, %rd6;
	ld.global.b16 %h2, [%rd8];
	add.s64 %rd9, %rd3, %rd6;
	ld.global.b16 %h3, [%rd9];
	mul.wide.u32 %rd10, %r1, 4;
	add.s64 %rd11, %rd4, %rd10;
	ld.global.f32 %f1, [%rd11];
	mul.wide.u32 %rd12, %r1, 32;
	add.s64 %rd13, %rd5, %rd12;
	add.rn.bf16 %h4, %h1, %h2;
	st.global.b16 [%rd13], %h4;
	sub.rn.bf16 %h5, %h1, %h2;
	st.global.b16 [%rd13+2], %h5;
	mul.rn.bf16 %h6, %h1, %h2;
	st.global.b16 [%rd13+4], %h6;
	fma.rn.bf16 %h7, %h1, %h2, %h3;
	st.global.b16 [%rd13+6], %h7;
	neg.bf16 %h8, %h1;
	st.global.b16 [%rd13+8], %h8;
	abs.bf16 %h9, %h1;
	st.global.b16 [%rd13+10], %h9;
	min.bf16 %h10, %h1, %h2;
	st.global.b16 [%rd13+12], %h10;
	max.bf16 %h11, %h1, %h2;
	st.global.b16 [%rd13+14], %h11;
	min.NaN.bf16 %h12, %h1, %h2;
	st.global.b16 [%rd13+16], %h12;
	setp.lt.bf16 %p1, %h1, %h2;
	selp.u16 %h13, 1, 0, %p1;
	st.global.b16 [%rd13+18], %h13;
	setp.gtu.bf16 %p2, %h1, %h2;
	selp.u16 %h14, 1, 0, %p2;
	st.global.b16 [%rd13+20], %h14;
	cvt.rn.bf16.f32 %h15, %f1;
	st.global.b16 [%rd13+22], %h15;
	cvt.rz.bf16.f32 %h16, %f1;
	st.global.b16 [%rd13+24], %h16;
	cvt.f32.bf16 %f2, %h1;
	st.global.f32 [%rd13+28], %f2;
	ret;
}

.visible .entry bf16x2_ops(.param .u64 p_a, .param .u64 p_b, .param .u64 p_c, .param .u64 p_f,
	.param .u64 p_out)
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<16>;

	ld.param.u64 %rd1, [p_a];
	ld.param.u64 %rd2, [p_b];
	ld.param.u64 %rd3, [p_c];
	ld.param.u64 %rd4, [p_f];
	ld.param.u64 %rd5, [p_out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd6, %r1, 4;
	add.s64 %rd7, %rd1, %rd6;
	ld.global.b32 %r2, [%rd7];
	add.s64 %rd8, %rd2, %rd6;
	ld.global.b32 %r3, [%rd8];
	add.s64 %rd9, %rd3, %rd6;
	ld.global.b32 %r4, [%rd9];
	mul.wide.u32 %rd10, %r1, 8;
	add.s64 %rd11, %rd4, %rd10;
	ld.global.f32 %f1, [%rd11];
	ld.global.f32 %f2, [%rd11+4];
	mul.wide.u32 %rd12, %r1, 16;
	add.s64 %rd13, %rd5, %rd12;
	add.rn.bf16x2 %r5, %r2, %r3;
	st.global.b32 [%rd13], %r5;
	fma.rn.bf16x2 %r6, %r2, %r3, %r4;
	st.global.b32 [%rd13+4], %r6;
	setp.lt.bf16x2 %p1|%p2, %r2, %r3;
	selp.u32 %r7, 1, 0, %p1;
	selp.u32 %r8, 2, 0, %p2;
	or.b32 %r9, %r7, %r8;
	st.global.b32 [%rd13+8], %r9;
	cvt.rn.bf16x2.f32 %r10, %f1, %f2;
	st.global.b32 [%rd13+12], %r10;
	ret;
}
"#;

const NAN: u16 = 0x7fff;
const ONE: u16 = 0x3f80;
/// 1 + 2^-7, the bfloat16 after 1.
const ONE_UP: u16 = 0x3f81;
/// 2^-8: half the step after 1, so 1 + it ties.
const TIE: u16 = 0x3b80;
const MAX: u16 = 0x7f7f;
const INF: u16 = 0x7f80;

/// One thread's inputs: a, b, c and f.
type Case = (u16, u16, u16, f32);

/// Hand-worked cases (the results the tests expect are beside their checks) and then seeded
/// random values in [-8, 8].
fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = vec![
        (ONE, TIE, 0, 1.0 + 2f32.powi(-8)),
        (ONE_UP, TIE, 0, 1.0 + 2f32.powi(-8) + 2f32.powi(-23)),
        (ONE_UP, ONE_UP, 0xbf82, f32::MAX),
        (MAX, MAX, 0, f32::NAN),
        (INF, INF, 0, -0.0),
        (0x8000, 0x0000, 0, 1e-39),
        (0x7fc1, 0x4040, 0, 3.0),
    ];
    let random = random_f32(64 - cases.len(), 7, -8.0, 8.0);
    for w in random.chunks(4).take(14) {
        let h = |x: f32| bf16::from_f32(x).to_bits();
        cases.push((h(w[0]), h(w[1]), h(w[2]), w[3] * 1.000_1));
    }
    cases
}

/// Runs `kernel` on one block, a thread per `pairs` (a, b, c as u32 words for the pair kernel,
/// else u16s; f as given); returns every thread's `out_bytes` bytes.
fn run(
    kernel: &str,
    a: &[u8],
    b: &[u8],
    c: &[u8],
    f: &[f32],
    threads: u32,
    out_bytes: u64,
) -> Vec<u8> {
    let module = Module::parse(SCALAR).unwrap();
    let mut gpu = Machine::new();
    let mut put = |bytes: &[u8]| {
        let at = gpu.alloc(bytes.len() as u64);
        gpu.write(at, bytes).unwrap();
        at
    };
    let (a, b, c) = (put(a), put(b), put(c));
    let f = upload(&mut gpu, f);
    let out = gpu.alloc(out_bytes * threads as u64);
    let args = [
        Arg::Ptr(a),
        Arg::Ptr(b),
        Arg::Ptr(c),
        Arg::Ptr(f),
        Arg::Ptr(out),
    ];
    let r = launch(&mut gpu, &module, kernel, [1, 1, 1], [threads, 1, 1], &args);
    assert!(r.diagnostics.is_empty(), "{:#?}", r.diagnostics);
    gpu.read(out, out_bytes * threads as u64).unwrap()
}

fn le16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Each thread's 13 halves and one f32.
fn scalar_results() -> (Vec<Case>, Vec<([u16; 13], f32)>) {
    let cases = cases();
    let column = |pick: fn(&Case) -> u16| le16(&cases.iter().map(pick).collect::<Vec<_>>());
    let f: Vec<f32> = cases.iter().map(|c| c.3).collect();
    let n = cases.len() as u32;
    let out = run(
        "bf16_ops",
        &column(|c| c.0),
        &column(|c| c.1),
        &column(|c| c.2),
        &f,
        n,
        32,
    );
    let results = out
        .chunks(32)
        .map(|t| {
            let halves = std::array::from_fn(|i| u16::from_le_bytes([t[2 * i], t[2 * i + 1]]));
            (halves, f32::from_le_bytes(t[28..32].try_into().unwrap()))
        })
        .collect();
    (cases, results)
}

const ADD: usize = 0;
const SUB: usize = 1;
const MUL: usize = 2;
const FMA: usize = 3;
const NEG: usize = 4;
const ABS: usize = 5;
const MIN: usize = 6;
const MAX_: usize = 7;
const MIN_NAN: usize = 8;
const LT: usize = 9;
const GTU: usize = 10;
const CVT_RN: usize = 11;
const CVT_RZ: usize = 12;

#[test]
fn edge_cases_give_the_bits_ptx_defines() {
    let (_, r) = scalar_results();
    // 1 + 2^-8 ties between 1 and 1 + 2^-7: to even, 1; from 1 + 2^-7 it ties upwards to 1 + 2^-6.
    assert_eq!(r[0].0[ADD], ONE);
    assert_eq!(r[1].0[ADD], 0x3f82);
    assert_eq!(r[0].0[CVT_RN], ONE, "cvt.rn ties to even");
    assert_eq!(r[1].0[CVT_RN], ONE_UP, "past the tie");
    assert_eq!(r[1].0[CVT_RZ], ONE, "cvt.rz truncates");
    // (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14: mul rounds the 2^-14 away; fma with -(1 + 2^-6) keeps it.
    assert_eq!(r[2].0[MUL], 0x3f82);
    assert_eq!(r[2].0[FMA], 0x3880, "2^-14: one rounding");
    assert_eq!(r[2].0[CVT_RN], INF, "f32::MAX rounds up to infinity");
    assert_eq!(r[2].0[CVT_RZ], MAX, "and toward zero to the largest finite");
    assert_eq!(r[3].0[ADD], INF, "overflow");
    assert_eq!(r[3].0[CVT_RN], NAN, "canonical NaN");
    assert_eq!(r[4].0[SUB], NAN, "inf - inf");
    assert_eq!(r[4].0[CVT_RN], 0x8000, "-0.0");
    // min and max order -0 below +0.
    assert_eq!((r[5].0[MIN], r[5].0[MAX_]), (0x8000, 0x0000));
    assert_eq!(
        r[5].0[CVT_RN], 0x000b,
        "a subnormal: 1e-39 is 10.9 steps of 2^-133"
    );
    // A NaN operand: min gives the other, min.NaN the canonical NaN; compares are unordered.
    assert_eq!((r[6].0[MIN], r[6].0[MIN_NAN]), (0x4040, NAN));
    assert_eq!((r[6].0[LT], r[6].0[GTU]), (0, 1));
    assert_eq!(r[6].0[NEG], 0xffc1, "neg flips the sign of a NaN too");
    assert_eq!(r[6].0[ABS], 0x7fc1);
    assert_eq!(r[0].0[NEG], 0xbf80);
    assert_eq!(r[1].1.to_bits(), 0x3f81_0000, "cvt.f32.bf16 is exact");
}

/// The value `x` (exact in f64) rounded to nearest even by the `half` crate, where x is exact in
/// f32 too (its f64 conversion drops bits below f32's, so it cannot judge a tie from f64).
fn nearest(x: f64) -> Option<u16> {
    ((x as f32) as f64 == x).then(|| bf16::from_f32(x as f32).to_bits())
}

#[test]
fn random_values_match_the_half_crates_bfloat16() {
    let (cases, r) = scalar_results();
    let v = |bits: u16| bf16::from_bits(bits).to_f64();
    let mut checked = 0;
    for (i, (&(a, b, c, f), (got, wide))) in cases.iter().zip(&r).enumerate().skip(7) {
        let (x, y, z) = (v(a), v(b), v(c));
        let want = [
            (ADD, nearest(x + y)),
            (SUB, nearest(x - y)),
            (MUL, nearest(x * y)),
            (FMA, nearest(x.mul_add(y, z))),
            (MIN, Some(if x <= y { a } else { b })),
            (MAX_, Some(if x >= y { a } else { b })),
            (LT, Some((x < y) as u16)),
            (GTU, Some((x > y) as u16)),
            (CVT_RN, Some(bf16::from_f32(f).to_bits())),
            (CVT_RZ, Some((f.to_bits() >> 16) as u16)),
        ];
        for (op, bits) in want {
            let Some(bits) = bits else { continue };
            checked += 1;
            assert_eq!(
                got[op], bits,
                "thread {i}, result {op}: a {a:#06x} b {b:#06x} c {c:#06x} f {f}"
            );
        }
        assert_eq!(*wide as f64, x, "thread {i}");
    }
    assert!(checked >= 120, "only {checked} results were exact in f32");
}

#[test]
fn pairs_compute_each_member_alone() {
    let cases = cases();
    let pair = |lo: u16, hi: u16| lo as u32 | (hi as u32) << 16;
    // Thread t pairs case t (low) with case t + 1 (high).
    let n = cases.len() - 1;
    let word = |pick: fn(&Case) -> u16| -> Vec<u8> {
        (0..n)
            .flat_map(|t| pair(pick(&cases[t]), pick(&cases[t + 1])).to_le_bytes())
            .collect()
    };
    let f: Vec<f32> = (0..n).flat_map(|t| [cases[t].3, cases[t + 1].3]).collect();
    let out = run(
        "bf16x2_ops",
        &word(|c| c.0),
        &word(|c| c.1),
        &word(|c| c.2),
        &f,
        n as u32,
        16,
    );
    let (_, scalar) = scalar_results();
    for t in 0..n {
        let w = |k: usize| {
            u32::from_le_bytes(out[16 * t + 4 * k..16 * t + 4 * k + 4].try_into().unwrap())
        };
        let (lo, hi) = (&scalar[t].0, &scalar[t + 1].0);
        assert_eq!(w(0), pair(lo[ADD], hi[ADD]), "add, thread {t}");
        assert_eq!(w(1), pair(lo[FMA], hi[FMA]), "fma, thread {t}");
        assert_eq!(
            w(2),
            lo[LT] as u32 | (hi[LT] as u32) << 1,
            "setp p|q, thread {t}"
        );
        // cvt.rn.bf16x2.f32 d, a, b puts a in the high half: here f[2t] high, f[2t + 1] low.
        assert_eq!(w(3), pair(hi[CVT_RN], lo[CVT_RN]), "cvt, thread {t}");
    }
}

/// `fma.rn.relu.bf16` (`__hfma_relu`, numba's `hfma_relu`): the fused result, 0 where it is
/// negative, the canonical NaN (0x7fff) where it is NaN; on a pair, each member alone.
#[test]
fn fma_relu_clamps_negative_results_to_zero() {
    let ptx = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry relu(.param .u64 p_in, .param .u64 p_out)
{
	.reg .b16 %h<5>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p_in];
	ld.param.u64 %rd2, [p_out];
	ld.global.b16 %h1, [%rd1];
	ld.global.b16 %h2, [%rd1+2];
	ld.global.b16 %h3, [%rd1+4];
	fma.rn.relu.bf16 %h4, %h1, %h2, %h3;
	st.global.b16 [%rd2], %h4;
	ld.global.b32 %r1, [%rd1+8];
	ld.global.b32 %r2, [%rd1+12];
	ld.global.b32 %r3, [%rd1+16];
	fma.rn.relu.bf16x2 %r4, %r1, %r2, %r3;
	st.global.b32 [%rd2+4], %r4;
	ret;
}
"#;
    let module = Module::parse(ptx).expect("fma.relu runs");
    let bits = |x: f32| bf16::from_f32(x).to_bits();
    let cases: [([u16; 3], u16); 3] = [
        ([bits(1.0), bits(-3.0), 0], 0),
        ([bits(2.0), bits(3.0), bits(1.0)], bits(7.0)),
        ([0x7fc1, bits(1.0), 0], 0x7fff),
    ];
    let mut gpu = Machine::new();
    for (ins, want) in cases {
        // The scalar case, then the same in both members of a pair (low and high).
        let mut input = Vec::new();
        for v in ins {
            input.extend(v.to_le_bytes());
        }
        input.extend([0, 0]);
        for v in ins {
            input.extend(v.to_le_bytes());
            input.extend(v.to_le_bytes());
        }
        let at = gpu.alloc(input.len() as u64);
        gpu.write(at, &input).unwrap();
        let out = gpu.alloc(8);
        let args = [Arg::Ptr(at), Arg::Ptr(out)];
        launch(&mut gpu, &module, "relu", [1, 1, 1], [1, 1, 1], &args);
        let got = gpu.read(out, 8).unwrap();
        let half = |i: usize| u16::from_le_bytes([got[i], got[i + 1]]);
        assert_eq!([half(0), half(4), half(6)], [want; 3], "{ins:x?}");
    }
}
