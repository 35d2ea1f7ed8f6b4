//! 27: pinned memory and streams. The signal goes to the device in chunks, each chunk's copy in,
//! kernel and copy out on a stream of its own, so one chunk's copies overlap another's kernel.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

/// The kernel's arithmetic: `rounds` steps of x = x * 0.5 + 1 / (1 + x * x).
pub fn transform(mut x: f32, rounds: u32) -> f32 {
    for _ in 0..rounds {
        x = x.mul_add(0.5, 1.0 / x.mul_add(x, 1.0));
    }
    x
}

/// A signal of `n` values in `chunks` pieces, with the transform's result as the reference.
pub(super) fn case(name: &str, n: usize, chunks: usize, rng: &mut Rng) -> HostCase {
    const ROUNDS: u32 = 8;
    let signal = rng.vec_f32(n, -4.0, 4.0);
    let want = signal.iter().map(|&x| transform(x, ROUNDS)).collect();
    HostCase {
        name: name.to_string(),
        params: vec![
            ("chunks", chunks.to_string()),
            ("rounds", ROUNDS.to_string()),
        ],
        inputs: vec![("signal", HostData::F32(signal))],
        expected: vec![("signal", HostData::F32(want))],
    }
}

pub fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 1000 in 4 chunks, the last one shorter", 1000, 4, rng),
        case("n = 8388608 in 8 chunks", 1 << 23, 8, rng),
    ]
}
