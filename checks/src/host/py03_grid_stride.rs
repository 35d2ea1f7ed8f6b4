//! py03: a grid-stride loop. out = hypot(x, y), elementwise, on arrays far larger than the fixed
//! grid of 4096 threads the program launches.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

fn case(name: &str, n: usize, rng: &mut Rng) -> HostCase {
    let x = rng.vec_f32(n, -100.0, 100.0);
    let y = rng.vec_f32(n, -100.0, 100.0);
    let want = x.iter().zip(&y).map(|(a, b)| a.hypot(*b)).collect();
    HostCase {
        name: name.to_string(),
        params: Vec::new(),
        inputs: vec![("x", HostData::F32(x)), ("y", HostData::F32(y))],
        expected: vec![("out", HostData::F32(want))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("n = 1000, fewer elements than threads", 1000, rng),
        case("n = 50000, 12.2 elements per thread", 50_000, rng),
    ]
}

/// A right beginning and a wrong rest: the grid's threads did one element each and stopped.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let (Some(HostData::F32(want)), HostData::F32(got)) = (case.expected(name), actual) else {
        return None;
    };
    let close = |w: f32, g: f32| (w - g).abs() <= 1e-5 * w.abs().max(1.0);
    let right = want
        .iter()
        .zip(got)
        .take_while(|(w, g)| close(**w, **g))
        .count();
    let rest_wrong = want[right..]
        .iter()
        .zip(&got[right..])
        .all(|(w, g)| !close(*w, *g));
    (right > 0 && right % 32 == 0 && right < want.len() && rest_wrong).then(|| {
        format!(
            "the first {right} elements are right and none after them: that is one element for \
             each thread of the grid. Loop: from cuda.grid(1), in steps of cuda.gridsize(1), \
             while inside the arrays"
        )
    })
}
