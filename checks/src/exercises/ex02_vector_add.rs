//! 02: vector add with a bounds guard.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

const BLOCK: u32 = 256;

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    let sizes = sizes_1d(options, &[256 * 3 + 1, 65_539]);
    let mut rng = Rng::new(options.seed);
    sizes
        .into_iter()
        .map(|n| {
            Case::new(
                size_label(n, BLOCK as usize),
                "vector_add",
                Launch::covering(n, BLOCK),
            )
            .input("a", HostData::F32(rng.vec_f32(n, -100.0, 100.0)))
            .input("b", HostData::F32(rng.vec_f32(n, -100.0, 100.0)))
            .output("c", HostData::F32(vec![0.0; n]))
            .scalar("n", Scalar::I32(n as i32))
            .reference(|case| {
                let c = case
                    .f32s("a")
                    .iter()
                    .zip(case.f32s("b"))
                    .map(|(a, b)| a + b)
                    .collect();
                vec![("c".into(), HostData::F32(c))]
            })
            .bytes_moved(12 * n as u64)
            .for_timing(n == timing_elements(options))
        })
        .collect()
}
