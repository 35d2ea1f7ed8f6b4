//! 26: device arrays. `steps` rounds of three kernels (smooth, gain, clip) on data that stays
//! on the device: one upload, one download. The CPU reference does the same arithmetic in the
//! same order, so the result matches to the last bit.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

const GAIN: f32 = 1.5;
const LIMIT: f32 = 1.0;

/// One round, as the three kernels compute it.
pub(super) fn round(signal: &[f32]) -> Vec<f32> {
    let n = signal.len();
    (0..n)
        .map(|i| {
            let left = signal[i.saturating_sub(1)];
            let right = signal[(i + 1).min(n - 1)];
            let smooth = (left + signal[i] + right) / 3.0;
            (smooth * GAIN).clamp(-LIMIT, LIMIT)
        })
        .collect()
}

fn case(name: &str, n: usize, steps: usize, rng: &mut Rng) -> HostCase {
    let signal = rng.vec_f32(n, -1.0, 1.0);
    let mut want = signal.clone();
    for _ in 0..steps {
        want = round(&want);
    }
    HostCase {
        name: name.to_string(),
        params: vec![("steps", steps.to_string())],
        inputs: vec![("signal", HostData::F32(signal))],
        expected: vec![("signal", HostData::F32(want))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 1000, 3 rounds", 1000, 3, rng),
        case("n = 50000, 10 rounds", 50_000, 10, rng),
    ]
}

/// Fewer or more rounds than asked: the result equals another number of rounds.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let (Some(HostData::F32(signal)), Some(steps)) = (case.input(name), case.param("steps")) else {
        return None;
    };
    let steps: usize = steps.parse().ok()?;
    let mut state = signal.clone();
    for done in 0..=steps + 1 {
        if done != steps && HostData::F32(state.clone()) == *actual {
            return Some(format!(
                "the result is what {done} rounds give, and the case asks for {steps}: \
                 run smooth, gain and clip once per round, each on the previous round's output"
            ));
        }
        state = round(&state);
    }
    None
}
