//! 04: three elementwise steps (scale and shift, ReLU, square) fused into one kernel, so the data
//! makes one trip through memory instead of three.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

const BLOCK: u32 = 256;

pub fn fused(x: f32, a: f32, b: f32) -> f32 {
    let shifted = a.mul_add(x, b);
    let relu = shifted.max(0.0);
    relu * relu
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    sizes_1d(options, &[256 * 3 + 1, 65_539])
        .into_iter()
        .map(|n| {
            let a = rng.range_f32(0.5, 2.0);
            let b = rng.range_f32(-1.0, 1.0);
            Case::new(
                size_label(n, BLOCK as usize),
                "fused",
                Launch::covering(n, BLOCK),
            )
            .input("x", HostData::F32(rng.vec_f32(n, -10.0, 10.0)))
            .output("y", HostData::F32(vec![0.0; n]))
            .scalar("a", Scalar::F32(a))
            .scalar("b", Scalar::F32(b))
            .scalar("n", Scalar::I32(n as i32))
            .reference(move |case| {
                let y = case.f32s("x").iter().map(|&x| fused(x, a, b)).collect();
                vec![("y".into(), HostData::F32(y))]
            })
            .bytes_moved(8 * n as u64)
            .for_timing(n == timing_elements(options))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn negative_values_are_cut_to_zero_before_squaring() {
        assert_eq!(super::fused(-3.0, 1.0, 0.0), 0.0);
        assert_eq!(super::fused(3.0, 2.0, 1.0), 49.0);
    }
}
