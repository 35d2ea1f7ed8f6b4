//! py11: local and constant arrays. A trimmed mean filter: each output is the weighted sum of
//! its sorted window of five, with the weights 0, 1/4, 1/2, 1/4, 0. The weights are powers of
//! two, so each product is exact and a fused multiply-add rounds as an add does: the sums match
//! to the bit, summed in the window's sorted order as the kernel does.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

const WEIGHTS: [f32; 5] = [0.0, 0.25, 0.5, 0.25, 0.0];

fn trimmed_mean(x: &[f32]) -> Vec<f32> {
    let last = x.len() as isize - 1;
    (0..x.len() as isize)
        .map(|i| {
            let mut window: Vec<f32> = (-2..=2)
                .map(|k| x[(i + k).clamp(0, last) as usize])
                .collect();
            window.sort_by(f32::total_cmp);
            window
                .iter()
                .zip(WEIGHTS)
                .fold(0.0f32, |total, (v, w)| total + w * v)
        })
        .collect()
}

/// Values in [-1, 1) with every 17th an outlier of 1000 (from index 8, so none sits at an end,
/// where clamping repeats it), which the filter must ignore.
fn case(name: &str, n: usize, rng: &mut Rng) -> HostCase {
    let mut x = rng.vec_f32(n, -1.0, 1.0);
    x.iter_mut().skip(8).step_by(17).for_each(|v| *v = 1000.0);
    let out = trimmed_mean(&x);
    HostCase {
        name: name.to_string(),
        params: Vec::new(),
        inputs: vec![("x", HostData::F32(x))],
        expected: vec![("out", HostData::F32(out))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 3, every window past an end", 3, rng),
        case("n = 20000, outliers every 17th", 20_000, rng),
    ]
}

/// Outputs that follow the outliers: the window was weighted as read, never sorted.
pub(super) fn diagnose(_case: &HostCase, _name: &str, actual: &HostData) -> Option<String> {
    let HostData::F32(got) = actual else {
        return None;
    };
    let wrong_near_outliers = got.iter().any(|v| *v >= 100.0);
    wrong_near_outliers.then(|| {
        "outputs near the outliers (1000) are hundreds: the window was weighted in the order it \
         was read. Sort the thread's local window first, so the weight-0 ends take the smallest \
         and largest values"
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_ignores_one_outlier_and_clamps_at_the_ends() {
        // Sorted windows: [1,1,1,2,1000] -> 1/4 + 1/2 + 2/4 = 1.25 at index 0 (x[0] repeated).
        let x = [1.0, 1000.0, 1.0, 2.0, 3.0];
        let out = trimmed_mean(&x);
        assert_eq!(out[0], 0.25 + 0.5 + 0.25);
        // Window of index 2: [1, 1000, 1, 2, 3] sorted [1, 1, 2, 3, 1000]: 1/4 + 1 + 3/4 = 2.
        assert_eq!(out[2], 2.0);
    }
}
