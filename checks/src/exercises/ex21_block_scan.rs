//! 21: an inclusive prefix sum of each block's elements, by warp shuffles and one slot of shared
//! memory per warp. Integers, compared exactly.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

/// BLOCK_SIZE in the kernel file: each block scans this many elements.
const BLOCK: usize = 256;

/// The inclusive scan of each block's BLOCK elements, restarting at every block.
pub fn block_scans(x: &[i32]) -> Vec<i32> {
    x.chunks(BLOCK)
        .flat_map(|chunk| {
            chunk.iter().scan(0i32, |total, &v| {
                *total += v;
                Some(*total)
            })
        })
        .collect()
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    // 32: one warp; 200: a block with a partial warp; 256: a whole block.
    sizes_1d(options, &[32, 200, BLOCK, 256 * 3 + 1, 65_539])
        .into_iter()
        .map(|n| {
            // Both signs, so a scan that loses a term cannot land on the right total by luck.
            let values = (0..n)
                .map(|_| (rng.next_u64() % 2001) as i32 - 1000)
                .collect();
            Case::new(
                size_label(n, BLOCK),
                "scan_blocks",
                Launch::covering(n, BLOCK as u32),
            )
            .input("in", HostData::I32(values))
            .output("out", HostData::I32(vec![0; n]))
            .scalar("n", Scalar::I32(n as i32))
            .reference(|case| vec![("out".into(), HostData::I32(block_scans(case.i32s("in"))))])
            .bytes_moved(8 * n as u64)
            .for_timing(n == timing_elements(options))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_block_is_scanned_from_zero() {
        assert_eq!(block_scans(&[3, 1, 4, 1, 5]), vec![3, 4, 8, 9, 14]);
        let x = vec![1; BLOCK + 2];
        let scanned = block_scans(&x);
        assert_eq!(
            (scanned[BLOCK - 1], scanned[BLOCK], scanned[BLOCK + 1]),
            (256, 1, 2)
        );
    }
}
