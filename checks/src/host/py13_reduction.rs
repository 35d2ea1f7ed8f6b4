//! py13: a reduction. The sum of x by a fixed grid (grid-stride loop, a tree in shared memory,
//! one atomic per block); the blocks' atomics land in any order, so the total is compared with
//! the exact sum (f64) within a tolerance. That the tree uses sequential addressing is held by
//! the exercise's `max_bank_conflicts`.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

fn case(name: &str, n: usize, rng: &mut Rng) -> HostCase {
    let x = rng.vec_f32(n, -1.0, 1.0);
    let total = x.iter().map(|v| f64::from(*v)).sum::<f64>() as f32;
    HostCase {
        name: name.to_string(),
        params: Vec::new(),
        inputs: vec![("x", HostData::F32(x))],
        expected: vec![("total", HostData::F32(vec![total]))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 1, one thread with an element", 1, rng),
        case("n = 100000, 6.1 elements per thread", 100_000, rng),
    ]
}

/// A total of 0 for data that does not sum to 0: no block added its sum.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let (Some(HostData::F32(want)), HostData::F32(got)) = (case.expected(name), actual) else {
        return None;
    };
    (got.first() == Some(&0.0) && want.first() != Some(&0.0)).then(|| {
        "the total is 0: no block added its sum to it. After the tree, thread 0 adds tile[0] to \
         total[0] with cuda.atomic.add"
            .to_string()
    })
}
