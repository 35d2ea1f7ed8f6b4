//! py07: shared memory and barriers. Each block of 128 threads sums its elements by a tree in
//! shared memory; the reference adds in the tree's order, so the sums match to the bit.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

const THREADS: usize = 128;

/// One block's tree: at each step element t gets element t + step, the step halving.
fn tree_sum(part: &[f32]) -> f32 {
    let mut tile = [0.0f32; THREADS];
    tile[..part.len()].copy_from_slice(part);
    let mut step = THREADS / 2;
    while step > 0 {
        for t in 0..step {
            tile[t] += tile[t + step];
        }
        step /= 2;
    }
    tile[0]
}

fn case(name: &str, n: usize, rng: &mut Rng) -> HostCase {
    let x = rng.vec_f32(n, -1.0, 1.0);
    let sums = x.chunks(THREADS).map(tree_sum).collect();
    HostCase {
        name: name.to_string(),
        params: Vec::new(),
        inputs: vec![("x", HostData::F32(x))],
        expected: vec![("sums", HostData::F32(sums))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 1000, the last block partly filled", 1000, rng),
        case("n = 20000, 157 blocks", 20_000, rng),
    ]
}
