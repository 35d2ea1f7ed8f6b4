//! 07: count the values above a threshold into one counter, with an atomic addition. The racy
//! version (`*count += 1`) loses updates on a GPU and in the simulator alike; the cases where
//! every value matches are where it loses the most.

use super::{size_label, timing_elements};
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

const BLOCK: u32 = 256;

/// Values are drawn from 0..VALUE_RANGE.
const VALUE_RANGE: u64 = 1000;

pub fn count_above(values: &[i32], threshold: i32) -> i32 {
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
}

fn random_values(rng: &mut Rng, n: usize) -> Vec<i32> {
    (0..n)
        .map(|_| (rng.next_u64() % VALUE_RANGE) as i32)
        .collect()
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
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
