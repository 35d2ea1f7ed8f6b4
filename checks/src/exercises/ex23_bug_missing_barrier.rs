//! 23: find the bug: a reverse through shared memory in which threads read what threads of other
//! warps wrote, with no barrier in between. In the simulator, which runs a block's warps one
//! after another up to a barrier, warp 0 reads the chunk before warp 7 has written it and gets
//! the poison of unwritten shared memory; the race is also reported with its two source lines.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

/// BLOCK_SIZE in the kernel file.
const BLOCK: u32 = 256;

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    // 300: the last block's chunk is short, so its mirror begins partway into a chunk.
    sizes_1d(options, &[BLOCK as usize, 300, 256 * 3 + 1, 65_539])
        .into_iter()
        .map(|n| {
            Case::new(
                size_label(n, BLOCK as usize),
                "reverse",
                Launch::covering(n, BLOCK),
            )
            .input("in", HostData::F32(rng.vec_f32(n, -100.0, 100.0)))
            .output("out", HostData::F32(vec![0.0; n]))
            .scalar("n", Scalar::I32(n as i32))
            .reference(|case| {
                let reversed = case.f32s("in").iter().rev().copied().collect();
                vec![("out".into(), HostData::F32(reversed))]
            })
            .bytes_moved(8 * n as u64)
            .for_timing(n == timing_elements(options))
        })
        .collect()
}
