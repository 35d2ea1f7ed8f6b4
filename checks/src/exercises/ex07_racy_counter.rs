//! 07: count the values above a threshold into one counter, with an atomic addition. The racy
//! version (`*count += 1`) loses updates on a GPU and in the simulator alike; the cases where
//! every value matches are where it loses the most.

use super::{size_label, timing_elements};
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

const BLOCK: u32 = 256;

/// Values are drawn from 0..VALUE_RANGE.
const VALUE_RANGE: u64 = 1000;

pub(super) fn count_above(values: &[i32], threshold: i32) -> i32 {
    values.iter().filter(|&&v| v > threshold).count() as i32
}

fn case(name: String, values: Vec<i32>, threshold: i32) -> Case {
    let n = values.len();
    Case::new(name, "count_above", Launch::covering(n, BLOCK))
        .input("values", HostData::I32(values))
        .in_out("count", HostData::I32(vec![0]))
        .scalar("threshold", Scalar::I32(threshold))
        .scalar("n", Scalar::I32(n as i32))
        .reference(move |case| {
            vec![(
                "count".into(),
                HostData::I32(vec![count_above(case.i32s("values"), threshold)]),
            )]
        })
        .bytes_moved(4 * n as u64 + 4)
        .diagnose(diagnose)
}

/// Reads the wrong count against what each usual mistake counts: increments lost in a warp
/// (the counter read by all its threads at once), every block counting the first block's
/// values, values equal to the threshold counted.
fn diagnose(ev: &Evidence) -> Option<String> {
    let values = ev.case.i32s("values");
    let threshold = match ev.case.scalar_value("threshold") {
        Scalar::I32(t) => t,
        _ => return None,
    };
    let actual = ev.actual.f64_at(0) as i64;
    let expected = ev.expected.f64_at(0) as i64;
    let launch = &ev.case.launch;
    let (blocks, threads) = (launch.grid[0] as usize, launch.block[0] as usize);

    let with_equal = values.iter().filter(|&&v| v >= threshold).count() as i64;
    if actual == with_equal && with_equal != expected {
        return Some(format!(
            "the count includes the values equal to the threshold ({} of them): the task \
             counts values above it, `>`, not `>=`",
            with_equal - expected
        ));
    }
    let first_block = count_above(&values[..threads.min(values.len())], threshold) as i64;
    if blocks > 1 && actual == blocks as i64 * first_block {
        return Some(format!(
            "the count is {blocks} times the count of the first {threads} values, once per \
             block: the index is threadIdx.x alone; add blockIdx.x * blockDim.x"
        ));
    }
    let warps_above = values
        .chunks(32)
        .filter(|warp| warp.iter().any(|&v| v > threshold))
        .count() as i64;
    if actual == warps_above && actual < expected && threads % 32 == 0 {
        return Some(format!(
            "the count is {actual}, one per warp that met a value above the threshold, not one \
             per value ({expected}): the 32 threads of a warp read the same old count and each \
             writes back that count + 1, so the increments are lost; add with atomicAdd(count, 1)"
        ));
    }
    if 0 < actual && actual < expected {
        return Some(format!(
            "the count is {actual} of {expected}: increments were lost, as when threads add to \
             the counter at the same time without an atomic (*count += 1 is a read, an addition \
             and a write); use atomicAdd(count, 1)"
        ));
    }
    None
}

fn random_values(rng: &mut Rng, n: usize) -> Vec<i32> {
    (0..n)
        .map(|_| (rng.next_u64() % VALUE_RANGE) as i32)
        .collect()
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    // n = 1 with a value above the threshold, so that a kernel that never counts fails it too.
    let mut cases = vec![
        case("n = 1".into(), vec![7], 3),
        case(
            "n = 4096, every value above the threshold (all threads add at once)".into(),
            random_values(&mut rng, 4096),
            -1,
        ),
        case(
            "n = 1000, no value above the threshold".into(),
            random_values(&mut rng, 1000),
            VALUE_RANGE as i32,
        ),
    ];
    let mut sizes = vec![1000, 256 * 3 + 1, 65_539];
    sizes.extend(options.extra_sizes.iter().copied());
    if options.timing {
        sizes.push(timing_elements(options));
    }
    for n in sizes {
        // Between a quarter and three quarters of the range: many values on either side.
        let threshold = (VALUE_RANGE / 4 + rng.next_u64() % (VALUE_RANGE / 2)) as i32;
        let name = format!("{}, threshold {threshold}", size_label(n, BLOCK as usize));
        let timed = n == timing_elements(options);
        cases.push(case(name, random_values(&mut rng, n), threshold).for_timing(timed));
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::likely_cause_of;

    fn cause(case: &Case, count: i32) -> String {
        likely_cause_of(case, "count", HostData::I32(vec![count])).unwrap_or_default()
    }

    #[test]
    fn lost_increments_are_named_by_warp_when_they_match_the_warps() {
        let cases = cases(&CaseOptions::default());
        let all_above = &cases[1];
        let lost = cause(all_above, 4096 / 32);
        assert!(
            lost.contains("one per warp") && lost.contains("atomicAdd"),
            "{lost}"
        );
        let fewer = cause(all_above, 1000);
        assert!(
            fewer.contains("1000 of 4096") && fewer.contains("atomicAdd"),
            "{fewer}"
        );
        // More than expected is not a lost increment.
        assert!(!cause(all_above, 5000).contains("atomicAdd"));
    }

    #[test]
    fn every_block_counting_the_first_block_and_the_equal_values_are_named() {
        let cases = cases(&CaseOptions::default());
        let case = cases
            .iter()
            .find(|c| c.name.starts_with("n = 1000 ("))
            .unwrap();
        let values = case.i32s("values");
        let threshold = match case.scalar_value("threshold") {
            Scalar::I32(t) => t,
            _ => unreachable!(),
        };
        let per_block = count_above(&values[..256], threshold);
        let by_block = cause(case, 4 * per_block);
        assert!(by_block.contains("threadIdx.x alone"), "{by_block}");
        let equal = values.iter().filter(|&&v| v >= threshold).count() as i32;
        assert!(cause(case, equal).contains(">="), "{}", cause(case, equal));
    }

    #[test]
    fn counts_only_values_strictly_above() {
        assert_eq!(count_above(&[1, 5, 5, 9], 5), 1);
    }

    #[test]
    fn edge_cases_cover_all_and_none_matching() {
        let cases = cases(&CaseOptions::default());
        let counts: Vec<i32> = cases
            .iter()
            .map(|c| match &c.expected()[0].1 {
                HostData::I32(v) => v[0],
                _ => unreachable!(),
            })
            .collect();
        assert!(cases
            .iter()
            .zip(&counts)
            .any(|(c, &k)| k as usize == c.i32s("values").len() && k > 1));
        assert!(counts.contains(&0));
        assert_eq!(counts[0], 1);
    }
}
