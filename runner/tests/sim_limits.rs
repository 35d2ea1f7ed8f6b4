//! `runner sim` stays within its bounds: buffers past the simulator's memory, grids past a GPU's,
//! and kernels that never end are refused or stopped at once, with a message, never an abort.

mod common;

use common::TestCourse;
use std::time::{Duration, Instant};

/// Far past the 1 s limit these runs are given: a run that takes longer was not stopped.
const ENDLESS: Duration = Duration::from_secs(60);

fn sim(course: &TestCourse, extra: &[&str]) -> common::Run {
    let file = TestCourse::fixture("sim_limits.cu");
    let mut args = vec!["sim", file.as_str()];
    args.extend_from_slice(extra);
    course.run(&args)
}

#[test]
fn a_buffer_past_the_simulators_memory_is_an_error_not_an_abort() {
    let course = TestCourse::new();
    let run = sim(
        &course,
        &[
            "--kernel",
            "nothing",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "f32[99999999999]",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.all().contains("at most 4294967296 bytes (4 GiB)"),
        "{}",
        run.all()
    );
}

#[test]
fn a_grid_of_2_pow_31_blocks_is_refused_as_a_gpu_does() {
    let course = TestCourse::new();
    let run = sim(
        &course,
        &[
            "--kernel",
            "nothing",
            "--grid",
            "2147483648",
            "--block",
            "32",
            "--arg",
            "i32[1]",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.all().contains("CUDA_ERROR_INVALID_VALUE"),
        "{}",
        run.all()
    );
}

#[test]
fn an_endless_loop_is_stopped_at_the_time_limit() {
    let course = TestCourse::new();
    // Compile once, so the timed run below measures the simulation alone.
    let warm = sim(
        &course,
        &[
            "--kernel", "nothing", "--grid", "1", "--block", "32", "--arg", "i32[1]",
        ],
    );
    assert_eq!(warm.code, 0, "{}", warm.all());
    let start = Instant::now();
    let run = sim(
        &course,
        &[
            "--kernel",
            "spin",
            "--grid",
            "1",
            "--block",
            "256",
            "--arg",
            "i32[1]=zeros",
            "--time-limit",
            "1",
            "--json",
        ],
    );
    let took = start.elapsed();
    assert_eq!(run.code, 1, "{}", run.all());
    let out: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("{}", run.all()));
    assert_eq!(out["aborted"], true);
    assert!(
        out["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("ran past its"),
        "{}",
        run.stdout
    );
    // The budget (or, on a slow machine, the backstop at 1.5x the limit) stops it: a margin no
    // machine misses still tells a stopped run from an endless one.
    assert!(took < ENDLESS, "took {took:?}");
}

#[test]
fn a_huge_valid_grid_is_stopped_at_the_time_limit() {
    let course = TestCourse::new();
    let warm = sim(
        &course,
        &[
            "--kernel", "nothing", "--grid", "1", "--block", "32", "--arg", "i32[1]",
        ],
    );
    assert_eq!(warm.code, 0, "{}", warm.all());
    let start = Instant::now();
    let run = sim(
        &course,
        &[
            "--kernel",
            "nothing",
            "--grid",
            "2147483647",
            "--block",
            "32",
            "--arg",
            "i32[1]",
            "--time-limit",
            "1",
        ],
    );
    let took = start.elapsed();
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(run.all().contains("too large to simulate"), "{}", run.all());
    // The budget (or, on a slow machine, the backstop at 1.5x the limit) stops it: a margin no
    // machine misses still tells a stopped run from an endless one.
    assert!(took < ENDLESS, "took {took:?}");
}

#[test]
fn the_time_limit_must_be_positive_and_bounded() {
    let course = TestCourse::new();
    for bad in ["0", "-1", "NaN", "1e9"] {
        let run = sim(
            &course,
            &[
                "--kernel",
                "nothing",
                "--grid",
                "1",
                "--block",
                "32",
                "--arg",
                "i32[1]",
                "--time-limit",
                bad,
            ],
        );
        assert_eq!(run.code, 2, "{bad}: {}", run.all());
        assert!(run.all().contains("--time-limit"), "{}", run.all());
    }
}
