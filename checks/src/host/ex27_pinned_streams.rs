//! 27: pinned memory and streams. The signal goes to the device in chunks, each chunk's copy in,
//! kernel and copy out on a stream of its own, so one chunk's copies overlap another's kernel.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

/// The kernel's arithmetic: `rounds` steps of x = x * 0.5 + 1 / (1 + x * x).
pub(super) fn transform(mut x: f32, rounds: u32) -> f32 {
    for _ in 0..rounds {
        x = x.mul_add(0.5, 1.0 / x.mul_add(x, 1.0));
    }
    x
}

/// Rounds of the timed case: enough arithmetic that the kernels take time beside the copies.
pub(super) const ROUNDS: u32 = 8;

/// Rounds of the small case. Eight rounds take every value in [-4, 4] to the fixed point 1.0,
/// where the step's slope is 0: outputs that say nothing of their inputs, so a chunk written in
/// another's place, or computed from another's input, passed. One round keeps them apart.
pub(super) const FEW_ROUNDS: u32 = 1;

/// A signal of `n` values in `chunks` pieces, transformed `rounds` times, with the transform's
/// result as the reference.
pub(super) fn case(name: &str, n: usize, chunks: usize, rounds: u32, rng: &mut Rng) -> HostCase {
    let signal = rng.vec_f32(n, -4.0, 4.0);
    let want = signal.iter().map(|&x| transform(x, rounds)).collect();
    HostCase {
        name: name.to_string(),
        params: vec![
            ("chunks", chunks.to_string()),
            ("rounds", rounds.to_string()),
        ],
        inputs: vec![("signal", HostData::F32(signal))],
        expected: vec![("signal", HostData::F32(want))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        // 1000 in 3 chunks: 334, 334 and 332 (in 4, every chunk was 250).
        case(
            "n = 1000 in 3 chunks, the last one shorter",
            1000,
            3,
            FEW_ROUNDS,
            rng,
        ),
        case("n = 8388608 in 8 chunks", 1 << 23, 8, ROUNDS, rng),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_case() -> HostCase {
        cases(&mut Rng::new(1)).swap_remove(0)
    }

    /// A program that hands back its chunks in another order, or computes every chunk from the
    /// first one's input, gives other values than the reference on the small case.
    #[test]
    fn the_small_case_tells_the_chunks_apart() {
        let case = small_case();
        let (HostData::F32(signal), HostData::F32(want)) = (&case.inputs[0].1, &case.expected[0].1)
        else {
            panic!("27's signal is f32");
        };
        let chunk = signal.len().div_ceil(3);
        let reversed: Vec<f32> = want.chunks(chunk).rev().flatten().copied().collect();
        let first_input_each_time: Vec<f32> = signal
            .chunks(chunk)
            .flat_map(|part| {
                signal[..part.len()]
                    .iter()
                    .map(|&x| transform(x, FEW_ROUNDS))
            })
            .collect();
        let far = |other: &[f32]| {
            want.iter()
                .zip(other)
                .filter(|(a, b)| (*a - *b).abs() > 1e-3)
                .count()
        };
        assert!(far(&reversed) > 500, "{}", far(&reversed));
        assert!(far(&first_input_each_time) > 500);
        // Eight rounds would not: every value ends at 1.0.
        assert!(signal
            .iter()
            .all(|&x| (transform(x, ROUNDS) - 1.0).abs() < 1e-5));
    }

    #[test]
    fn the_small_cases_last_chunk_is_shorter() {
        let case = small_case();
        let chunks: usize = case.params[0].1.parse().unwrap();
        let n = case.inputs[0].1.len();
        assert_ne!(n % n.div_ceil(chunks), 0, "{n} in {chunks} chunks");
    }
}
