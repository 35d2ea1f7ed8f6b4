//! py10: device functions. For each x[i] the kernel stores the number of Collatz steps from x[i]
//! to 1, through two device functions the student writes; whole numbers, so an exact match.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

/// Steps from `n` to 1: halve an even n, make an odd one 3n + 1.
fn collatz_steps(mut n: i64) -> i32 {
    let mut steps = 0;
    while n != 1 {
        n = if n % 2 == 1 { 3 * n + 1 } else { n / 2 };
        steps += 1;
    }
    steps
}

/// Starts up to 30000, whose sequences stay far below 2^31 (the highest, from 77671, is below
/// 1.6 * 10^9), so 32-bit arithmetic on the device is exact. The first few are the edges: 1
/// (no step), 2 (one), 27 (111 steps, a long climb).
fn case(name: &str, n: usize, rng: &mut Rng) -> HostCase {
    let mut x: Vec<i32> = vec![1, 2, 27];
    x.extend((3..n).map(|_| 1 + (rng.next_u64() % 30_000) as i32));
    x.truncate(n);
    let steps = x.iter().map(|&v| collatz_steps(v.into())).collect();
    HostCase {
        name: name.to_string(),
        params: Vec::new(),
        inputs: vec![("x", HostData::I32(x))],
        expected: vec![("steps", HostData::I32(steps))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 3: starts 1, 2 and 27", 3, rng),
        case("n = 5000, 40 blocks, the last partly filled", 5000, rng),
    ]
}

/// Every count off by the same amount: the loop counted the start, or stopped one step early.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let (Some(HostData::I32(want)), HostData::I32(got)) = (case.expected(name), actual) else {
        return None;
    };
    let off = got.first()? - want.first()?;
    let all_off = off != 0 && want.iter().zip(got).all(|(w, g)| g - w == off);
    all_off.then(|| {
        format!(
            "every count is {} by {}: x = 1 takes no step and 27 takes 111. Count one step \
             for each call of next_collatz, while n is not yet 1",
            if off > 0 { "too high" } else { "too low" },
            off.abs()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_counts_the_steps_of_known_sequences() {
        // 6 -> 3 -> 10 -> 5 -> 16 -> 8 -> 4 -> 2 -> 1: eight steps.
        assert_eq!(collatz_steps(6), 8);
        assert_eq!(collatz_steps(1), 0);
        assert_eq!(collatz_steps(27), 111);
    }

    #[test]
    fn counts_all_one_too_high_are_named() {
        let case = case("t", 100, &mut Rng::new(1));
        let Some(HostData::I32(want)) = case.expected("steps") else {
            panic!()
        };
        let plus_one = HostData::I32(want.iter().map(|s| s + 1).collect());
        let said = diagnose(&case, "steps", &plus_one).unwrap();
        assert!(said.starts_with("every count is too high by 1"), "{said}");
        let mut one_wrong = want.clone();
        one_wrong[5] += 1;
        assert!(diagnose(&case, "steps", &HostData::I32(one_wrong)).is_none());
    }
}
