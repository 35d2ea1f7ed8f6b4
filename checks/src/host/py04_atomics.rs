//! py04: a histogram with atomic additions: counts of x's values in `bins` equal bins of [0, 1).

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

/// Value v's bin, as the kernel computes it: v * bins is exact for a power of two of bins.
fn bin(v: f32, bins: usize) -> usize {
    ((v * bins as f32) as usize).min(bins - 1)
}

fn case(name: &str, n: usize, bins: usize, rng: &mut Rng) -> HostCase {
    let x = rng.vec_f32(n, 0.0, 1.0);
    let mut counts = vec![0i32; bins];
    for v in &x {
        counts[bin(*v, bins)] += 1;
    }
    HostCase {
        name: name.to_string(),
        params: vec![("bins", bins.to_string())],
        inputs: vec![("x", HostData::F32(x))],
        expected: vec![("counts", HostData::I32(counts))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 100, 4 bins", 100, 4, rng),
        case("n = 20000, 32 bins", 20_000, 32, rng),
    ]
}

/// Counts that add up to less than n: additions were lost.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let (Some(HostData::F32(x)), HostData::I32(got)) = (case.input("x"), actual) else {
        return None;
    };
    let total: i64 = got.iter().map(|c| i64::from(*c)).sum();
    (name == "counts" && total > 0 && (total as usize) < x.len()).then(|| {
        format!(
            "the counts add up to {total}, and there are {} values: additions were lost where \
             threads updated the same count at once. Use cuda.atomic.add(counts, b, 1)",
            x.len()
        )
    })
}
