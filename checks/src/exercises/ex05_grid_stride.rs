//! 05: SAXPY with a grid-stride loop, launched on a fixed grid that is smaller than the data.
//!
//! The update is in place (y = a * x + y), so a kernel that visits an element twice, as one
//! with the wrong stride does, leaves a wrong value instead of writing the right one again.

use super::timing_elements;
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::Tolerance;
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

pub(super) fn saxpy(a: f32, x: f32, y: f32) -> f32 {
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
        .diagnose(diagnose)
        .inputs_of(move |case, _, i| {
            Some(format!(
                "x = {}, y before = {}, a = {a}",
                case.f32s("x")[i],
                case.f32s("y")[i]
            ))
        })
}

/// How many times each of `n` elements is updated by a kernel whose threads start at
/// `start(block, thread)` and step by `stride` while below n (one step only when `stride` is
/// None: no loop).
fn visits(
    launch: &Launch,
    n: usize,
    start: impl Fn(u64, u64) -> u64,
    stride: Option<u64>,
) -> Vec<u32> {
    let mut visits = vec![0u32; n];
    for block in 0..launch.grid[0] as u64 {
        for thread in 0..launch.block[0] as u64 {
            let mut i = start(block, thread);
            while (i as usize) < n {
                visits[i as usize] += 1;
                match stride {
                    Some(stride) if stride > 0 => i += stride,
                    _ => break,
                }
            }
        }
    }
    visits
}

/// y after `times` in-place updates y = a * x + y.
fn updated(a: f32, x: f32, y: f32, times: u32) -> f32 {
    (0..times).fold(y, |y, _| saxpy(a, x, y))
}

/// Close enough to say that a number of updates explains a value.
const FITS: Tolerance = Tolerance {
    abs: 1e-3,
    rel: 1e-4,
};

/// Reads from the in-place result how many times each element was updated, and compares that
/// with what the usual wrong loops do: the start without blockIdx.x, a stride of blockDim.x or
/// gridDim.x, no loop at all.
fn diagnose(ev: &Evidence) -> Option<String> {
    let launch = ev.case.launch;
    let (blocks, threads) = (launch.grid[0] as u64, launch.block[0] as u64);
    let (x, y) = (ev.case.f32s("x"), ev.case.f32s("y"));
    let a = match ev.case.scalar_value("a") {
        Scalar::F32(a) => a,
        _ => return None,
    };
    let n = ev.len();
    let explains =
        |times: &[u32]| ev.every_element_is(|i| updated(a, x[i], y[i], times[i]) as f64, FITS);
    let most = |times: &[u32]| times.iter().copied().max().unwrap_or(0);
    let grid_threads = blocks * threads;
    let own = |b: u64, t: u64| b * threads + t;

    let times = visits(&launch, n, |_, t| t, Some(grid_threads));
    if blocks > 1 && explains(&times) {
        return Some(format!(
            "elements were updated {blocks} times, once by each block, and others not at all: \
             the loop starts at threadIdx.x alone, so every block takes the same elements; \
             start at blockIdx.x * blockDim.x + threadIdx.x"
        ));
    }
    let times = visits(&launch, n, own, Some(threads));
    if blocks > 1 && most(&times) > 1 && explains(&times) {
        return Some(format!(
            "elements were updated up to {} times: the stride is blockDim.x ({threads}), so \
             each block's threads walk on through the elements of the blocks after theirs; \
             step by the threads of the whole grid, gridDim.x * blockDim.x",
            most(&times)
        ));
    }
    let times = visits(&launch, n, own, Some(blocks));
    if most(&times) > 1 && explains(&times) {
        return Some(format!(
            "elements were updated up to {} times: the stride is gridDim.x ({blocks}), the \
             number of blocks; step by the number of threads in the grid, gridDim.x * blockDim.x",
            most(&times)
        ));
    }
    let times = visits(&launch, n, own, None);
    if (n as u64) > grid_threads && explains(&times) {
        return Some(format!(
            "the elements from index {grid_threads} on kept their old value: each thread \
             updated one element, but the grid has only {grid_threads} threads for {n} \
             elements; loop, stepping by gridDim.x * blockDim.x"
        ));
    }
    updated_repeatedly(ev, a, x, y)
}

/// Whether every element is explained by some whole number of updates, some of them more than
/// one: then say how many, whatever the loop that did it.
fn updated_repeatedly(ev: &Evidence, a: f32, x: &[f32], y: &[f32]) -> Option<String> {
    let mut most = (0, 0);
    for i in 0..ev.len() {
        let step = a as f64 * x[i] as f64;
        if step.abs() < 1.0 {
            continue;
        }
        let times = ((ev.actual.f64_at(i) - y[i] as f64) / step).round();
        if !(0.0..=1000.0).contains(&times)
            || !FITS.accepts_value(
                updated(a, x[i], y[i], times as u32) as f64,
                ev.actual.f64_at(i),
            )
        {
            return None;
        }
        if times as u32 > most.0 {
            most = (times as u32, i);
        }
    }
    (most.0 > 1).then(|| {
        format!(
            "element {} was updated {} times (y = a * x + y applied again and again): each \
             element must be updated by one thread, once; the loop's start and stride must \
             give every thread its own elements (start blockIdx.x * blockDim.x + threadIdx.x, \
             stride gridDim.x * blockDim.x)",
            most.1, most.0
        )
    })
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
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
mod diagnosis_tests {
    use super::*;
    use crate::compare::likely_cause_of;

    /// The output of a kernel whose loop updates element i `times[i]` times.
    fn output(case: &Case, times: &[u32]) -> HostData {
        let a = match case.scalar_value("a") {
            Scalar::F32(a) => a,
            _ => unreachable!(),
        };
        let (x, y) = (case.f32s("x"), case.f32s("y"));
        HostData::F32(
            (0..x.len())
                .map(|i| updated(a, x[i], y[i], times[i]))
                .collect(),
        )
    }

    fn cause_of_loop(case: &Case, start_with_block: bool, stride: Option<u64>) -> String {
        let threads = case.launch.block[0] as u64;
        let start = |b: u64, t: u64| if start_with_block { b * threads + t } else { t };
        let times = visits(&case.launch, case.f32s("x").len(), start, stride);
        likely_cause_of(case, "y", output(case, &times)).unwrap_or_default()
    }

    #[test]
    fn each_wrong_loop_is_named_and_only_it() {
        let all = cases(&CaseOptions::default());
        for case in &all[1..] {
            let [blocks, threads] = [case.launch.grid[0] as u64, case.launch.block[0] as u64];
            let no_block = cause_of_loop(case, false, Some(blocks * threads));
            assert!(
                no_block.contains("threadIdx.x alone"),
                "{}: {no_block}",
                case.name
            );
            let n = case.f32s("x").len() as u64;
            if n > threads {
                let by_block = cause_of_loop(case, true, Some(threads));
                assert!(
                    by_block.contains("blockDim.x ("),
                    "{}: {by_block}",
                    case.name
                );
            }
            let by_grid = cause_of_loop(case, true, Some(blocks));
            assert!(by_grid.contains("gridDim.x ("), "{}: {by_grid}", case.name);
            if n > blocks * threads {
                let once = cause_of_loop(case, true, None);
                assert!(
                    once.contains("kept their old value"),
                    "{}: {once}",
                    case.name
                );
            }
        }
    }

    #[test]
    fn the_first_case_names_the_missing_block_index() {
        let case = &cases(&CaseOptions::default())[0];
        let cause = cause_of_loop(case, false, Some(512));
        assert!(cause.contains("4 times"), "{cause}");
    }

    #[test]
    fn repeated_updates_of_another_loop_are_counted_and_other_errors_not_named() {
        let case = &cases(&CaseOptions::default())[2];
        let n = case.f32s("x").len();
        let mut times = vec![1; n];
        times[700] = 3;
        let cause = likely_cause_of(case, "y", output(case, &times)).unwrap_or_default();
        assert!(cause.contains("element 700 was updated 3 times"), "{cause}");
        // y = a * x (the old y dropped): no number of updates explains it.
        let a = match case.scalar_value("a") {
            Scalar::F32(a) => a,
            _ => unreachable!(),
        };
        let dropped = HostData::F32(case.f32s("x").iter().map(|&x| a * x).collect());
        assert_eq!(likely_cause_of(case, "y", dropped), None);
    }
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
