//! 06: the student chooses the launch configuration, declared in the kernel file as
//! `threads_per_block` and `blocks_per_grid`; every case launches exactly that, so the kernel must
//! be right for any n on the grid the student picked (a grid-stride loop).

use super::timing_elements;
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::Tolerance;
use crate::random::Rng;

/// The most threads a block may have on every CUDA GPU.
const MAX_THREADS_PER_BLOCK: i64 = 1024;

/// The launch the student declared. The runner reads both values before it asks for cases; the
/// registry's own tests ask without them, and get a typical choice.
fn declared_launch(options: &CaseOptions) -> (i64, i64) {
    let value = |name: &str, typical: i64| options.declared.get(name).copied().unwrap_or(typical);
    (
        value("threads_per_block", 256),
        value("blocks_per_grid", 64),
    )
}

/// What is wrong or wasteful about a declared launch, said in the first case's name. Values the
/// GPU refuses are still launched as declared, so that the error the student sees is the real one.
fn launch_note(threads: i64, blocks: i64) -> Option<String> {
    if threads < 1 || blocks < 1 {
        Some(format!(
            "threads_per_block = {threads} and blocks_per_grid = {blocks}: both must be at least 1"
        ))
    } else if threads > MAX_THREADS_PER_BLOCK {
        Some(format!(
            "threads_per_block = {threads}: a block holds at most {MAX_THREADS_PER_BLOCK} threads"
        ))
    } else if threads % 32 != 0 {
        Some(format!(
            "threads_per_block = {threads} is not a multiple of 32: the last warp of every block runs {} of its 32 lanes",
            threads % 32
        ))
    } else {
        None
    }
}

fn clamp_u32(value: i64) -> u32 {
    u32::try_from(value.max(0)).unwrap_or(u32::MAX)
}

pub(super) fn distance(x: f32, y: f32) -> f32 {
    (x as f64).hypot(y as f64) as f32
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let (threads, blocks) = declared_launch(options);
    let launch = Launch {
        grid: [clamp_u32(blocks), 1, 1],
        block: [clamp_u32(threads), 1, 1],
        shared_bytes: 0,
    };
    let total_threads = launch.total_threads().max(1) as usize;
    let note = launch_note(threads, blocks);
    let mut sizes = vec![1, 1000, 65_539, 300_007];
    sizes.extend(options.extra_sizes.iter().copied());
    if options.timing {
        sizes.push(timing_elements(options));
    }
    let mut rng = Rng::new(options.seed);
    sizes
        .into_iter()
        .enumerate()
        .map(|(k, n)| {
            let per_thread = n.div_ceil(total_threads);
            let mut name = format!(
                "n = {n} on your launch ({per_thread} element{} per thread)",
                if per_thread == 1 { "" } else { "s" }
            );
            if let (0, Some(note)) = (k, &note) {
                name = format!("{name}; {note}");
            }
            Case::new(name, "distances", launch)
                .input("x", HostData::F32(rng.vec_f32(n, -1000.0, 1000.0)))
                .input("y", HostData::F32(rng.vec_f32(n, -1000.0, 1000.0)))
                .output("dist", HostData::F32(vec![0.0; n]))
                .scalar("n", Scalar::I32(n as i32))
                .reference(|case| {
                    let d = case
                        .f32s("x")
                        .iter()
                        .zip(case.f32s("y"))
                        .map(|(&x, &y)| distance(x, y))
                        .collect();
                    vec![("dist".into(), HostData::F32(d))]
                })
                .bytes_moved(12 * n as u64)
                .for_timing(n == timing_elements(options))
                .diagnose(diagnose)
                .inputs_of(|case, _, i| {
                    Some(format!(
                        "x = {}, y = {}",
                        case.f32s("x")[i],
                        case.f32s("y")[i]
                    ))
                })
        })
        .collect()
}

/// A kernel that handles one point per thread, on a grid with fewer threads than points; or the
/// square root left out.
fn diagnose(ev: &Evidence) -> Option<String> {
    let launch = &ev.case.launch;
    let grid_threads = launch.total_threads() as usize;
    let n = ev.len();
    if grid_threads < n && ev.unwritten_exactly_where(|i| i >= grid_threads) {
        return Some(format!(
            "the points from index {grid_threads} on were never written: your launch has \
             {grid_threads} threads ({} blocks of {}) for {n} points, and each thread handled \
             one; loop over the points with a grid-stride loop (i += gridDim.x * blockDim.x)",
            launch.grid[0], launch.block[0]
        ));
    }
    let (x, y) = (ev.case.f32s("x"), ev.case.f32s("y"));
    let squared = |i: usize| (x[i] as f64).powi(2) + (y[i] as f64).powi(2);
    let fits = Tolerance {
        abs: 1e-3,
        rel: 1e-4,
    };
    if ev.every_element_is(squared, fits) {
        return Some(
            "dist holds the squared distance, x * x + y * y: take its square root, sqrtf(...)"
                .into(),
        );
    }
    None
}

#[cfg(test)]
mod diagnosis_tests {
    use super::*;
    use crate::compare::likely_cause_of;

    fn options(threads: i64, blocks: i64) -> CaseOptions {
        let mut options = CaseOptions::default();
        options.declared.insert("threads_per_block".into(), threads);
        options.declared.insert("blocks_per_grid".into(), blocks);
        options
    }

    #[test]
    fn one_point_per_thread_on_a_small_grid_is_named() {
        let case = cases(&options(256, 16)).remove(2);
        let (x, y) = (case.f32s("x"), case.f32s("y"));
        let mut dist = HostData::F32(vec![0.0; x.len()]).poisoned();
        if let HostData::F32(d) = &mut dist {
            for i in 0..4096 {
                d[i] = distance(x[i], y[i]);
            }
        }
        let cause = likely_cause_of(&case, "dist", dist).unwrap();
        assert!(cause.contains("4096 threads (16 blocks of 256)"), "{cause}");
    }

    #[test]
    fn the_missing_square_root_is_named_and_other_values_are_not() {
        let case = cases(&options(256, 16)).remove(1);
        let (x, y) = (case.f32s("x"), case.f32s("y"));
        let squared = (0..x.len()).map(|i| x[i] * x[i] + y[i] * y[i]).collect();
        let cause = likely_cause_of(&case, "dist", HostData::F32(squared)).unwrap();
        assert!(cause.contains("sqrtf"), "{cause}");
        let sums = (0..x.len()).map(|i| x[i].abs() + y[i].abs()).collect();
        assert_eq!(likely_cause_of(&case, "dist", HostData::F32(sums)), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(threads: i64, blocks: i64) -> CaseOptions {
        let mut options = CaseOptions::default();
        options.declared.insert("threads_per_block".into(), threads);
        options.declared.insert("blocks_per_grid".into(), blocks);
        options
    }

    #[test]
    fn every_case_launches_the_declared_configuration() {
        for case in cases(&options(96, 7)) {
            assert_eq!(
                (case.launch.grid, case.launch.block),
                ([7, 1, 1], [96, 1, 1])
            );
        }
    }

    #[test]
    fn impossible_and_wasteful_choices_are_named_in_the_first_case() {
        let first = |t, b| cases(&options(t, b)).remove(0).name;
        assert!(first(2048, 10).contains("at most 1024"));
        assert!(first(0, 10).contains("at least 1"));
        assert!(first(100, 10).contains("runs 4 of its 32 lanes"));
        assert!(!first(256, 10).contains(';'));
    }

    #[test]
    fn distance_is_the_euclidean_norm() {
        assert_eq!(distance(3.0, -4.0), 5.0);
    }
}
