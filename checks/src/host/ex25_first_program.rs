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

pub fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 1, a single element", 1, 2.0, rng),
        case("n = 1000, not a whole number of blocks", 1000, -0.5, rng),
        case("n = 100000", 100_000, 3.0, rng),
    ]
}

/// y handed back unchanged: nothing came back from the device.
pub fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    (name == "y" && case.input("y") == Some(actual)).then(|| {
        "y came back exactly as it went in: the program never copied the kernel's result back \
         (or never launched the kernel)"
            .to_string()
    })
}
