//! py01: a GPU ufunc with Numba's @vectorize: out = sqrt(x^2 + y^2) / 2, elementwise.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

fn case(name: &str, n: usize, rng: &mut Rng) -> HostCase {
    let x = rng.vec_f32(n, -10.0, 10.0);
    let y = rng.vec_f32(n, -10.0, 10.0);
    let want = x
        .iter()
        .zip(&y)
        .map(|(a, b)| (a * a + b * b).sqrt() * 0.5)
        .collect();
    HostCase {
        name: name.to_string(),
        params: Vec::new(),
        inputs: vec![("x", HostData::F32(x)), ("y", HostData::F32(y))],
        expected: vec![("out", HostData::F32(want))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 1", 1, rng),
        case("n = 10000, not a whole number of blocks", 10_000, rng),
    ]
}
