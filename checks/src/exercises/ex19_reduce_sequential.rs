//! 19: block sums by a tree of additions in shared memory with sequential addressing (no bank
//! conflicts, no divergence within a warp until the last steps). Exercise 20 reuses these cases.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

/// BLOCK_SIZE in the kernel files: each block sums this many elements.
pub(crate) const BLOCK: usize = 256;

/// The sum of each block's BLOCK elements, in double precision and rounded once, so that the
/// reference is closer to the exact sum than any order of float additions.
pub fn block_sums(x: &[f32]) -> Vec<f32> {
    x.chunks(BLOCK)
        .map(|chunk| chunk.iter().map(|&v| v as f64).sum::<f64>() as f32)
        .collect()
}

/// The cases of a block-sum kernel called `kernel`, with the signature
/// `(const float* in, float* partial, int n)`.
pub(crate) fn block_sum_cases(options: &CaseOptions, kernel: &str) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    sizes_1d(options, &[BLOCK, 256 * 3 + 1, 65_539])
        .into_iter()
        .map(|n| {
            let blocks = n.div_ceil(BLOCK);
            Case::new(
                size_label(n, BLOCK),
                kernel,
                Launch::covering(n, BLOCK as u32),
            )
            .input("in", HostData::F32(rng.vec_f32(n, -1.0, 1.0)))
            .output("partial", HostData::F32(vec![0.0; blocks]))
            .scalar("n", Scalar::I32(n as i32))
            .reference(|case| vec![("partial".into(), HostData::F32(block_sums(case.f32s("in"))))])
            .bytes_moved(4 * (n + blocks) as u64)
            .for_timing(n == timing_elements(options))
        })
        .collect()
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    block_sum_cases(options, "reduce_sequential")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sum_per_block_with_a_short_last_block() {
        let x = vec![1.0; BLOCK * 2 + 3];
        assert_eq!(block_sums(&x), vec![256.0, 256.0, 3.0]);
    }
}
