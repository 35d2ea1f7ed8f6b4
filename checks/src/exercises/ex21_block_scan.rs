//! 21: an inclusive prefix sum of each block's elements, by warp shuffles and one slot of shared
//! memory per warp. Integers, compared exactly.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::Predicted;
use crate::random::Rng;

/// BLOCK_SIZE in the kernel file: each block scans this many elements.
const BLOCK: usize = 256;

/// The inclusive scan of each block's BLOCK elements, restarting at every block.
pub(super) fn block_scans(x: &[i32]) -> Vec<i32> {
    x.chunks(BLOCK)
        .flat_map(|chunk| {
            chunk.iter().scan(0i32, |total, &v| {
                *total += v;
                Some(*total)
            })
        })
        .collect()
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
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
            .diagnose(diagnose)
            .bytes_moved(8 * n as u64)
            .for_timing(n == timing_elements(options))
        })
        .collect()
}

const WARP: usize = 32;

/// A mistake in the course's two-level scan.
#[derive(Clone, Copy, PartialEq)]
enum Slip {
    /// Lanes below `offset` add the value __shfl_up_sync hands back to them, their own.
    AddsOwnValue,
    /// Warp w adds warp_totals[w], its own scanned total, instead of warp_totals[w - 1].
    OwnWarpTotal,
}

/// The scan of one warp's values as the kernel's warp_inclusive_scan computes it.
fn warp_scan(values: &mut [i32; WARP], slip: Slip) {
    let mut offset = 1;
    while offset < WARP {
        let before = *values;
        for (lane, v) in values.iter_mut().enumerate() {
            if lane >= offset {
                *v = v.wrapping_add(before[lane - offset]);
            } else if slip == Slip::AddsOwnValue {
                *v = v.wrapping_add(before[lane]);
            }
        }
        offset *= 2;
    }
}

/// What the course's kernel writes with `slip` in it.
fn scanned_with(x: &[i32], slip: Slip) -> Vec<i32> {
    let mut out = Vec::with_capacity(x.len());
    for block in x.chunks(BLOCK) {
        let mut warps = [[0i32; WARP]; BLOCK / WARP];
        for (i, &v) in block.iter().enumerate() {
            warps[i / WARP][i % WARP] = v;
        }
        let mut totals = [0i32; WARP];
        for (w, warp) in warps.iter_mut().enumerate() {
            warp_scan(warp, slip);
            totals[w] = warp[WARP - 1];
        }
        warp_scan(&mut totals, slip);
        for i in 0..block.len() {
            let w = i / WARP;
            let before = match (w, slip) {
                (0, _) => 0,
                (_, Slip::OwnWarpTotal) => totals[w],
                _ => totals[w - 1],
            };
            out.push(warps[w][i % WARP].wrapping_add(before));
        }
    }
    out
}

/// Names the typical mistakes of 21 from the scanned values.
fn diagnose(ev: &Evidence) -> Option<String> {
    let x = ev.case.i32s("in");
    let explained = |slip| {
        let out = scanned_with(x, slip);
        ev.explained_by(|i| Predicted::Value(out[i] as f64))
    };
    if explained(Slip::AddsOwnValue) {
        return Some(
            "the first lanes of each warp count their own value again: __shfl_up_sync hands a \
             lane below `offset` its own value back, which it must not add (if (lane >= offset))"
                .into(),
        );
    }
    explained(Slip::OwnWarpTotal).then(|| {
        "each warp after the first is too large by its own total: warp w must add \
         warp_totals[warp - 1], the scanned total of the warps before it"
            .into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_slip_is_named_and_a_stray_error_is_not() {
        let case = cases(&CaseOptions::default()).swap_remove(1);
        let x = case.i32s("in");
        let diagnose = |out: Vec<i32>| {
            Evidence::with_actual(&case, "out", &HostData::I32(out), |ev| {
                (case.diagnose.as_ref().unwrap())(ev)
            })
        };
        let said = diagnose(scanned_with(x, Slip::AddsOwnValue)).unwrap();
        assert!(said.contains("lane >= offset"), "{said}");
        let said = diagnose(scanned_with(x, Slip::OwnWarpTotal)).unwrap();
        assert!(said.contains("warp_totals[warp - 1]"), "{said}");
        let mut off_by_one = block_scans(x);
        off_by_one[40] += 1;
        assert_eq!(diagnose(off_by_one), None);
    }

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
