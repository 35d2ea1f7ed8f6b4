//! py15: a 1D stencil, the sum of each element's window of 2 * 3 + 1, past either end counting
//! as 0. The kernel adds the window from left to right in float32, as the reference does, with
//! no product to fuse, so the sums match to the bit. That each element is loaded from global
//! memory about once is held by the exercise's `max_load_sectors`.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

const RADIUS: isize = 3;
const THREADS: usize = 128;

fn stencil(x: &[f32]) -> Vec<f32> {
    let n = x.len() as isize;
    (0..n)
        .map(|i| {
            (i - RADIUS..=i + RADIUS)
                .map(|j| {
                    if (0..n).contains(&j) {
                        x[j as usize]
                    } else {
                        0.0
                    }
                })
                .fold(0.0f32, |total, v| total + v)
        })
        .collect()
}

fn case(name: &str, n: usize, rng: &mut Rng) -> HostCase {
    let x = rng.vec_f32(n, -1.0, 1.0);
    let out = stencil(&x);
    HostCase {
        name: name.to_string(),
        params: Vec::new(),
        inputs: vec![("x", HostData::F32(x))],
        expected: vec![("out", HostData::F32(out))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 5, shorter than a window", 5, rng),
        case("n = 20000, 157 blocks, the last partly filled", 20_000, rng),
    ]
}

/// Wrong only within RADIUS of a block's edge: the halo was not loaded.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let (Some(HostData::F32(want)), HostData::F32(got)) = (case.expected(name), actual) else {
        return None;
    };
    let radius = RADIUS as usize;
    let near_edge = |i: usize| i % THREADS < radius || i % THREADS >= THREADS - radius;
    let wrong: Vec<usize> = (0..want.len()).filter(|&i| want[i] != got[i]).collect();
    let interior_right = wrong.iter().all(|&i| near_edge(i));
    (!wrong.is_empty() && interior_right && want.len() > THREADS).then(|| {
        format!(
            "only elements within {radius} of a block's edge are wrong: their windows reach past \
             the block's own {THREADS} elements into the halo. The first {radius} threads also \
             load x[i - RADIUS] into tile[t] and x[i + THREADS] into tile[t + THREADS + RADIUS]"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_sums_windows_with_zeros_past_the_ends() {
        let x = [1.0; 10];
        let out = stencil(&x);
        assert_eq!(out[0], 4.0);
        assert_eq!(out[5], 7.0);
        assert_eq!(out[9], 4.0);
    }
}
