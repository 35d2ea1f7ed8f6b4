//! 03: the ufunc pattern: the student writes only a scalar device function (the logistic
//! sigmoid); the exercise's own kernel applies it to every element.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

const BLOCK: u32 = 256;

/// Inputs where a careless formula goes wrong: zero, large magnitudes where exp overflows.
const SPECIAL: [f32; 6] = [0.0, -0.0, 30.0, -30.0, 100.0, -100.0];

pub fn sigmoid(x: f32) -> f32 {
    (1.0 / (1.0 + (-(x as f64)).exp())) as f32
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    sizes_1d(options, &[256 * 3 + 1, 65_539])
        .into_iter()
        .map(|n| {
            let mut x = rng.vec_f32(n, -12.0, 12.0);
            if n > SPECIAL.len() {
                x[..SPECIAL.len()].copy_from_slice(&SPECIAL);
            }
            Case::new(
                size_label(n, BLOCK as usize),
                "apply_ufunc",
                Launch::covering(n, BLOCK),
            )
            .input("x", HostData::F32(x))
            .output("y", HostData::F32(vec![0.0; n]))
            .scalar("n", Scalar::I32(n as i32))
            .reference(|case| {
                let y = case.f32s("x").iter().map(|&x| sigmoid(x)).collect();
                vec![("y".into(), HostData::F32(y))]
            })
            .bytes_moved(8 * n as u64)
            .for_timing(n == timing_elements(options))
        })
        .collect()
}
