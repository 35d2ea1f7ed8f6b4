//! FP8 (`.e4m3x2`, `.e5m2x2`, what `cuda_fp8.h` compiles to): conversions from two f32s and from
//! an f16x2 pair (rounded to nearest even, saturating to the largest finite value, NaN to 0x7f)
//! and back to an f16x2 pair, checked bit for bit on values worked out by hand.

use super::common::*;
use sim::{Machine, Module};

/// Each thread reads f32s a, b and an f16x2 word h, and writes 16 bytes: the e4m3x2 and e5m2x2
/// pairs of (a, b) and the e4m3x2 pair of h (three b16s), then the e4m3x2 pair of (a, b) and the
/// e5m2x2 pair of (a, b) back as f16x2 words, at bytes 8 and 12.
const KERNEL: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry fp8(.param .u64 p_a, .param .u64 p_b, .param .u64 p_h, .param .u64 p_out)
{
	.reg .b16 %h<4>;
	.reg .b32 %r<8>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<12>;

	ld.param.u64 %rd1, [p_a];
	ld.param.u64 %rd2, [p_b];
	ld.param.u64 %rd3, [p_h];
	ld.param.u64 %rd4, [p_out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd1, %rd5;
	ld.global.f32 %f1, [%rd6];
	add.s64 %rd7, %rd2, %rd5;
	ld.global.f32 %f2, [%rd7];
	add.s64 %rd8, %rd3, %rd5;
	ld.global.b32 %r2, [%rd8];
	mul.wide.u32 %rd9, %r1, 16;
	add.s64 %rd10, %rd4, %rd9;
	cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;
	st.global.b16 [%rd10], %h1;
	cvt.rn.satfinite.e5m2x2.f32 %h2, %f1, %f2;
	st.global.b16 [%rd10+2], %h2;
	cvt.rn.satfinite.e4m3x2.f16x2 %h3, %r2;
	st.global.b16 [%rd10+4], %h3;
	cvt.rn.f16x2.e4m3x2 %r3, %h1;
	st.global.b32 [%rd10+8], %r3;
	cvt.rn.f16x2.e5m2x2 %r4, %h2;
	st.global.b32 [%rd10+12], %r4;
	ret;
}
"#;

/// (a, b, h) and the bytes worked out by hand: e4m3x2(a, b), e5m2x2(a, b), e4m3x2(h), and the
/// first two back as f16x2. A pair's first source goes to its high member.
type Case = (f32, f32, u32, [u16; 3], [u32; 2]);

const CASES: [Case; 2] = [
    // 1 and -2 are exact in both; h = (0.5 low, 1000 high): 1000 saturates to e4m3's 448.
    (
        1.0,
        -2.0,
        0x63d0_3800,
        [0x38c0, 0x3cc0, 0x7e30],
        [0x3c00_c000, 0x3c00_c000],
    ),
    // NaN gives 0x7f; 464 ties to even 448 in e4m3 (0x7e), rounds to 448 in e5m2 (0x5f);
    // h = (2^-9 low: e4m3's least subnormal, -0.0 high). Back: 448 = f16 0x5f00; e4m3's NaN is
    // f16's 0x7fff, e5m2's 0x7f widens to 0x7f00 (e5m2 is an f16's high byte).
    (
        f32::NAN,
        464.0,
        0x8000_1800,
        [0x7f7e, 0x7f5f, 0x8001],
        [0x7fff_5f00, 0x7f00_5f00],
    ),
];

#[test]
fn fp8_pairs_convert_as_ptx_defines() {
    let m = Module::parse(KERNEL).expect("the simulator runs FP8 conversions");
    let mut gpu = Machine::new();
    let a: Vec<f32> = CASES.iter().map(|c| c.0).collect();
    let b: Vec<f32> = CASES.iter().map(|c| c.1).collect();
    let h: Vec<u32> = CASES.iter().map(|c| c.2).collect();
    let (da, db, dh) = (
        upload(&mut gpu, &a),
        upload(&mut gpu, &b),
        upload(&mut gpu, &h),
    );
    let out = gpu.alloc(16 * CASES.len() as u64);
    let args = [Arg::Ptr(da), Arg::Ptr(db), Arg::Ptr(dh), Arg::Ptr(out)];
    launch(
        &mut gpu,
        &m,
        "fp8",
        [1, 1, 1],
        [CASES.len() as u32, 1, 1],
        &args,
    );
    let bytes = gpu.read(out, 16 * CASES.len() as u64).unwrap();
    for (case, t) in CASES.iter().zip(bytes.chunks(16)) {
        let b16 = |i: usize| u16::from_le_bytes([t[i], t[i + 1]]);
        let b32 = |i: usize| u32::from_le_bytes(t[i..i + 4].try_into().unwrap());
        assert_eq!([b16(0), b16(2), b16(4)], case.3, "to FP8, case {case:?}");
        assert_eq!([b32(8), b32(12)], case.4, "back to f16x2, case {case:?}");
    }
}
