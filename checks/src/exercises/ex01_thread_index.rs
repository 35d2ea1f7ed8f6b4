//! 01: each thread writes its global index.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::written_by_index;

const BLOCK: u32 = 256;

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
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
            .diagnose(index_mistake)
        })
        .collect()
}

/// The wrong global indices beginners write in a one-thread-per-element kernel, read from
/// which elements were written: threadIdx.x alone (every block writes the first elements),
/// gridDim.x in place of blockDim.x (blocks overlap and the tail is never reached). Exercises
/// 02 to 04 have the same indexing and share this.
pub(crate) fn index_mistake(ev: &Evidence) -> Option<String> {
    let launch = &ev.case.launch;
    let (blocks, threads) = (launch.grid[0] as u64, launch.block[0] as u64);
    let n = ev.len();
    let written_by = |index: &dyn Fn(u64, u64) -> u64| {
        let written = written_by_index(launch, n, index);
        written.contains(&false) && ev.unwritten_exactly_where(|i| !written[i])
    };
    if blocks > 1 && written_by(&|_, t| t) {
        return Some(format!(
            "only elements 0 to {} were written, by every one of the {blocks} blocks again: the \
             index is threadIdx.x alone; add the threads of the blocks before, blockIdx.x * blockDim.x",
            threads.min(n as u64) - 1
        ));
    }
    if blocks > 1 && blocks != threads && written_by(&|b, t| b * blocks + t) {
        return Some(format!(
            "the blocks' elements overlap and those from {} on were never written: the index \
             multiplies blockIdx.x by gridDim.x (the {blocks} blocks of the grid) where it needs \
             blockDim.x (the {threads} threads of a block)",
            (blocks - 1) * blocks + threads
        ));
    }
    None
}

#[cfg(test)]
mod diagnosis_tests {
    use super::*;
    use crate::compare::likely_cause_of;

    fn case_of(n: usize) -> Case {
        cases(&CaseOptions::default())
            .into_iter()
            .find(|c| c.i32s("out").len() == n)
            .unwrap()
    }

    /// What a kernel writing `out[index(b, t)] = index(b, t)` for index < n leaves.
    fn output_of(case: &Case, index: impl Fn(u64, u64) -> u64) -> HostData {
        let n = case.i32s("out").len();
        let mut out = HostData::I32(vec![0; n]).poisoned();
        if let HostData::I32(v) = &mut out {
            let written = written_by_index(&case.launch, n, index);
            for (i, _) in written.iter().enumerate().filter(|(_, &w)| w) {
                v[i] = i as i32;
            }
        }
        out
    }

    #[test]
    fn missing_block_index_is_named() {
        let case = case_of(1000);
        let cause = likely_cause_of(&case, "out", output_of(&case, |_, t| t)).unwrap();
        assert!(cause.contains("threadIdx.x alone"), "{cause}");
    }

    #[test]
    fn grid_dim_for_block_dim_is_named() {
        let case = case_of(1000);
        let cause = likely_cause_of(&case, "out", output_of(&case, |b, t| b * 4 + t)).unwrap();
        assert!(cause.contains("gridDim.x"), "{cause}");
        assert!(cause.contains("from 268 on"), "{cause}");
    }

    #[test]
    fn other_patterns_are_not_taken_for_an_index_mistake() {
        let case = case_of(1000);
        // Every element written but one wrong: not an index formula.
        let mut out = output_of(&case, |b, t| b * 256 + t);
        if let HostData::I32(v) = &mut out {
            v[10] = 11;
        }
        let cause = likely_cause_of(&case, "out", out);
        assert!(cause.is_none_or(|c| !c.contains("gridDim") && !c.contains("alone")));
        // The tail unwritten by a grid too small: not gridDim for blockDim.
        let out = output_of(&case, |b, t| if b < 3 { b * 256 + t } else { u64::MAX });
        let cause = likely_cause_of(&case, "out", out).unwrap_or_default();
        assert!(!cause.contains("gridDim"), "{cause}");
    }
}
