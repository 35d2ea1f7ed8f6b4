//! py05: Monte Carlo pi with Numba's xoroshiro128+ generators, one per thread. The reference
//! makes the same states and draws (ex28_host_random), so each thread's count is reproduced.

use super::ex28_host_random::{states, State};
use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

/// Thread `state`'s count of points inside the quarter circle. NVVM contracts x*x + y*y into
/// fma(x, x, y*y) (seen in the PTX), so the reference does too.
fn hits(mut state: State, draws: usize) -> i32 {
    let mut inside = 0;
    for _ in 0..draws {
        let x = state.uniform_f32();
        let y = state.uniform_f32();
        if x.mul_add(x, y * y) <= 1.0 {
            inside += 1;
        }
    }
    inside
}

fn case(name: &str, threads: usize, draws: usize, rng: &mut Rng) -> HostCase {
    let seed = rng.next_u64() >> 16;
    let want = states(threads, seed)
        .into_iter()
        .map(|s| hits(s, draws))
        .collect();
    HostCase {
        name: name.to_string(),
        params: vec![
            ("seed", seed.to_string()),
            ("threads", threads.to_string()),
            ("draws", draws.to_string()),
        ],
        inputs: Vec::new(),
        expected: vec![("hits", HostData::I32(want))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("1 thread, 10 draws", 1, 10, rng),
        case("1000 threads, 100 draws each", 1000, 100, rng),
    ]
}

/// What the counts show of which states the threads drew from.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let (HostData::I32(got), Some(HostData::I32(want))) = (actual, case.expected(name)) else {
        return None;
    };
    let number = |key: &str| case.param(key)?.parse::<usize>().ok();
    let (threads, draws) = (number("threads")?, number("draws")?);
    if got.len() != threads || threads < 2 {
        return None;
    }
    if got.iter().all(|c| *c == got[0]) && want.iter().any(|c| *c != want[0]) {
        return Some(
            "every thread counted the same: they all drew the same numbers. Give thread i the \
             state i (xoroshiro128p_uniform_float32(states, i))"
                .into(),
        );
    }
    let most = got.iter().max().copied().unwrap_or(0);
    (most as usize > draws).then(|| {
        format!(
            "a thread counted {most} hits out of {draws} draws: count at most one hit per point"
        )
    })
}
