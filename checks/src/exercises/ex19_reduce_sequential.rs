//! 19: block sums by a tree of additions in shared memory with sequential addressing (no bank
//! conflicts, no divergence within a warp until the last steps). Exercise 20 reuses these cases.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::Predicted;
use crate::random::Rng;

/// BLOCK_SIZE in the kernel files: each block sums this many elements.
pub(crate) const BLOCK: usize = 256;

/// The sum of each block's BLOCK elements, in double precision and rounded once, so that the
/// reference is closer to the exact sum than any order of float additions.
pub(super) fn block_sums(x: &[f32]) -> Vec<f32> {
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
            .diagnose(diagnose)
            .bytes_moved(4 * (n + blocks) as u64)
            .for_timing(n == timing_elements(options))
        })
        .collect()
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    block_sum_cases(options, "reduce_sequential")
}

/// The sum of the elements of block `b` at the positions `keep` picks (0 .. BLOCK).
fn sum_of(x: &[f32], b: usize, keep: impl Fn(usize) -> bool) -> Predicted {
    let block = &x[b * BLOCK..x.len().min((b + 1) * BLOCK)];
    Predicted::Value(
        block
            .iter()
            .enumerate()
            .filter(|&(t, _)| keep(t))
            .map(|(_, &v)| v as f64)
            .sum(),
    )
}

/// Names the typical mistakes of a block sum (19 and 20) from the partial sums.
fn diagnose(ev: &Evidence) -> Option<String> {
    let x = ev.case.f32s("in");
    let mut every = 2;
    while every < BLOCK {
        if ev.explained_by(|b| sum_of(x, b, |t| t % every == 0)) {
            return Some(format!(
                "partial[b] is the sum of every {every}th element of the block only: the tree \
                 stops before its last step; run it down to stride 1 (while stride > 0)"
            ));
        }
        every *= 2;
    }
    if ev.explained_by(|b| sum_of(x, b, |t| t < 32)) {
        return Some(
            "partial[b] is the sum of the block's first 32 elements, its first warp: the other \
             warps' totals are not added; warp 0 must sum all the warp totals"
                .into(),
        );
    }
    let lane_zero_doubled = |b: usize| {
        Predicted::Value(x.get(b * BLOCK).map_or(0.0, |&v| v as f64) * (BLOCK * 4) as f64)
    };
    ev.explained_by(lane_zero_doubled).then(|| {
        "partial[b] is 1024 times the block's first element: with __shfl_up_sync lane 0 gets its \
         own value back at every step and doubles it; a sum collected in lane 0 needs \
         __shfl_down_sync"
            .into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn early_stop_first_warp_and_shuffle_direction_are_named_apart() {
        let case = block_sum_cases(&CaseOptions::default(), "k").swap_remove(1);
        let x = case.f32s("in").to_vec();
        let diagnose = |sums: Vec<f32>| {
            Evidence::with_actual(&case, "partial", &HostData::F32(sums), |ev| {
                (case.diagnose.as_ref().unwrap())(ev)
            })
        };
        let blocks = x.len().div_ceil(BLOCK);
        let partial_of = |keep: &dyn Fn(usize) -> bool| -> Vec<f32> {
            (0..blocks)
                .map(|b| match sum_of(&x, b, keep) {
                    Predicted::Value(v) => v as f32,
                    _ => unreachable!(),
                })
                .collect()
        };
        let said = diagnose(partial_of(&|t| t % 2 == 0)).unwrap();
        assert!(said.contains("stride 1"), "{said}");
        let said = diagnose(partial_of(&|t| t < 32)).unwrap();
        assert!(said.contains("first 32"), "{said}");
        let said = diagnose((0..blocks).map(|b| 1024.0 * x[b * BLOCK]).collect()).unwrap();
        assert!(said.contains("__shfl_down_sync"), "{said}");
        assert_eq!(diagnose(partial_of(&|t| t < 128)), None);
    }

    #[test]
    fn one_sum_per_block_with_a_short_last_block() {
        let x = vec![1.0; BLOCK * 2 + 3];
        assert_eq!(block_sums(&x), vec![256.0, 256.0, 3.0]);
    }
}
