//! py02: device arrays. `steps` launches of y = 0.5 * y + x on arrays kept on the device: one
//! copy in per array, one copy back. The reference does the kernel's arithmetic in the same
//! order; halving is exact, so only the sum rounds, as on the GPU.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

/// One launch of the kernel.
fn step(y: &mut [f32], x: &[f32]) {
    for (y, x) in y.iter_mut().zip(x) {
        *y = 0.5 * *y + x;
    }
}

fn case(name: &str, n: usize, steps: usize, rng: &mut Rng) -> HostCase {
    let x = rng.vec_f32(n, -1.0, 1.0);
    let y = rng.vec_f32(n, -1.0, 1.0);
    let mut want = y.clone();
    for _ in 0..steps {
        step(&mut want, &x);
    }
    HostCase {
        name: name.to_string(),
        params: vec![("steps", steps.to_string())],
        inputs: vec![("x", HostData::F32(x)), ("y", HostData::F32(y))],
        expected: vec![("y", HostData::F32(want))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 1000, 3 steps", 1000, 3, rng),
        case("n = 20000, 10 steps", 20_000, 10, rng),
    ]
}

/// A result that another number of steps gives: the launches, or the copy back, are off.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let (Some(HostData::F32(x)), Some(HostData::F32(y))) = (case.input("x"), case.input("y"))
    else {
        return None;
    };
    let steps: usize = case.param("steps")?.parse().ok()?;
    if name != "y" {
        return None;
    }
    let mut state = y.clone();
    for done in 0..=steps + 1 {
        if done != steps && HostData::F32(state.clone()) == *actual {
            return Some(if done == 0 {
                "y came back as it went in: the kernel changed nothing, or the result handed back \
                 is not the device's y (copy it back after the last launch)"
                    .to_string()
            } else {
                format!(
                    "y is what {done} steps give, and the case asks for {steps}: launch once per \
                     step, each on the y the previous one left on the device, and copy y back \
                     after the last"
                )
            });
        }
        step(&mut state, x);
    }
    None
}
