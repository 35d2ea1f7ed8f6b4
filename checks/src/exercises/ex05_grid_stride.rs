//! 05: SAXPY with a grid-stride loop, launched on a fixed grid that is smaller than the data.
//!
//! The update is in place (y = a * x + y), so a kernel that visits an element twice, as one
//! with the wrong stride does, leaves a wrong value instead of writing the right one again.

use super::timing_elements;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

/// The grid of the ordinary cases: 512 threads, fewer than the elements of most cases.
const SMALL_GRID: Launch = Launch {
    grid: [4, 1, 1],
    block: [128, 1, 1],
    shared_bytes: 0,
};

/// A second shape, so that a stride written as a constant, or as blockDim.x alone, fails.
const ODD_GRID: Launch = Launch {
    grid: [3, 1, 1],
    block: [96, 1, 1],
    shared_bytes: 0,
};

/// The timed grid: about one wave of resident threads on a large GPU (132 SMs x 2048 threads),
/// 32 elements per thread on the timing case.
const TIMING_GRID: Launch = Launch {
    grid: [1024, 1, 1],
    block: [256, 1, 1],
    shared_bytes: 0,
};

pub fn saxpy(a: f32, x: f32, y: f32) -> f32 {
    a.mul_add(x, y)
}

fn case(n: usize, launch: Launch, rng: &mut Rng) -> Case {
    let threads = launch.total_threads() as usize;
    let shape = match n {
        1 => "n = 1".to_string(),
        _ if n < threads => format!("n = {n}, fewer elements than the {threads} threads"),
        _ => format!(
            "n = {n} on {threads} threads ({} elements per thread)",
            n.div_ceil(threads)
        ),
    };
    let a = rng.range_f32(0.5, 2.0);
    Case::new(shape, "saxpy", launch)
        .input("x", HostData::F32(rng.vec_f32(n, -100.0, 100.0)))
        .in_out("y", HostData::F32(rng.vec_f32(n, -100.0, 100.0)))
        .scalar("a", Scalar::F32(a))
        .scalar("n", Scalar::I32(n as i32))
        .reference(move |case| {
            let y = case
                .f32s("x")
                .iter()
                .zip(case.f32s("y"))
                .map(|(&x, &y)| saxpy(a, x, y))
                .collect();
            vec![("y".into(), HostData::F32(y))]
        })
        .bytes_moved(12 * n as u64)
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    let mut plan: Vec<(usize, Launch)> = vec![
        (1, SMALL_GRID),
        (300, SMALL_GRID),
        (1000, SMALL_GRID),
        (10_007, ODD_GRID),
        (65_539, SMALL_GRID),
    ];
    plan.extend(options.extra_sizes.iter().map(|&n| (n, SMALL_GRID)));
    if options.timing {
        plan.push((timing_elements(options), TIMING_GRID));
    }
    plan.into_iter()
        .map(|(n, launch)| case(n, launch, &mut rng).for_timing(launch == TIMING_GRID))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_cases_have_more_elements_than_threads() {
        let cases = cases(&CaseOptions {
            timing: true,
            ..Default::default()
        });
        let larger = cases
            .iter()
            .filter(|c| c.f32s("x").len() as u64 > c.launch.total_threads())
            .count();
        assert!(larger >= 3, "{larger}");
        assert!(cases
            .iter()
            .any(|c| c.launch.grid[0] > 1 && c.launch.block[0] % 128 != 0));
    }

    #[test]
    fn reference_updates_y_in_place_once() {
        assert_eq!(saxpy(2.0, 3.0, 1.0), 7.0);
    }
}
