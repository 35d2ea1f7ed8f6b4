//! 01: each thread writes its global index.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};

const BLOCK: u32 = 256;

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    let sizes = sizes_1d(options, &[256 * 3 + 1, 70_000]);
    sizes
        .into_iter()
        .map(|n| {
            Case::new(
                size_label(n, BLOCK as usize),
                "write_index",
                Launch::covering(n, BLOCK),
            )
            .output("out", HostData::I32(vec![0; n]))
            .scalar("n", Scalar::I32(n as i32))
            .reference(move |_| vec![("out".into(), HostData::I32((0..n as i32).collect()))])
            .bytes_moved(4 * n as u64)
            .for_timing(n == timing_elements(options))
        })
        .collect()
}
