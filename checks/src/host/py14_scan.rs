//! py14: a prefix sum of a whole array (a block scan, a scan of the blocks' totals, the offsets
//! added), on whole numbers, so an exact match.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

const BLOCK: usize = 256;

fn inclusive_scan(x: &[i32]) -> Vec<i32> {
    x.iter()
        .scan(0i32, |total, v| {
            *total += v;
            Some(*total)
        })
        .collect()
}

/// Values 0..100, so the largest total (65536 elements) stays far below 2^31.
fn case(name: &str, n: usize, rng: &mut Rng) -> HostCase {
    let x: Vec<i32> = (0..n).map(|_| (rng.next_u64() % 100) as i32).collect();
    let out = inclusive_scan(&x);
    HostCase {
        name: name.to_string(),
        params: Vec::new(),
        inputs: vec![("x", HostData::I32(x))],
        expected: vec![("out", HostData::I32(out))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 200, less than a block", 200, rng),
        case("n = 50000, 196 blocks, the last partly filled", 50_000, rng),
    ]
}

/// Right within the first block and wrong after it: the blocks' offsets were not added.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let (Some(HostData::I32(want)), HostData::I32(got)) = (case.expected(name), actual) else {
        return None;
    };
    let first_block_right = want.iter().zip(got).take(BLOCK).all(|(w, g)| w == g);
    let later_blocks_wrong = want.len() > BLOCK && want[BLOCK] != got[BLOCK];
    (first_block_right && later_blocks_wrong).then(|| {
        format!(
            "the first block's {BLOCK} sums are right and the next block's are not: each block \
             scanned its own elements, but the totals of the blocks before it were not added"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_is_an_inclusive_scan() {
        assert_eq!(inclusive_scan(&[3, 1, 4, 1, 5]), [3, 4, 8, 9, 14]);
    }
}
