//! 25: the first whole program: y = alpha * x + y on the GPU, every step written by the student.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

fn case(name: &str, n: usize, alpha: f32, rng: &mut Rng) -> HostCase {
    let x = rng.vec_f32(n, -1.0, 1.0);
    let y = rng.vec_f32(n, -1.0, 1.0);
    // As the kernel computes it: one fused multiply-add (NVRTC contracts a * x + y).
    let want: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| alpha.mul_add(*x, *y))
        .collect();
    HostCase {
        name: name.to_string(),
        params: vec![("alpha", alpha.to_string())],
        inputs: vec![("x", HostData::F32(x)), ("y", HostData::F32(y.clone()))],
        expected: vec![("y", HostData::F32(want))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 1, a single element", 1, 2.0, rng),
        case("n = 1000, not a whole number of blocks", 1000, -0.5, rng),
        case("n = 100000", 100_000, 3.0, rng),
    ]
}

/// y handed back unchanged: nothing came back from the device.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    (name == "y" && case.input("y") == Some(actual)).then(|| {
        "y came back exactly as it went in: the program never copied the kernel's result back \
         (or never launched the kernel)"
            .to_string()
    })
}

/// How many elements of `name` came out right where the rest came back exactly as they went in,
/// and those are whole blocks of `block` threads: the kernel ran on a grid rounded down, and no
/// thread computed the tail. None otherwise.
pub(super) fn whole_blocks_computed(
    case: &HostCase,
    name: &str,
    actual: &HostData,
    block: usize,
) -> Option<usize> {
    let (Some(HostData::F32(want)), Some(HostData::F32(input)), HostData::F32(got)) =
        (case.expected(name), case.input(name), actual)
    else {
        return None;
    };
    let covered = want.len() / block * block;
    (covered < want.len()
        && got.len() == want.len()
        && got[..covered] == want[..covered]
        && got[covered..] == input[covered..]
        && want[covered..] != input[covered..])
        .then_some(covered)
}
