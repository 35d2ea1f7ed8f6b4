//! A whole program's time limit is CPU time, with a wall-clock backstop several times longer: a
//! program that spins is stopped when it has used its CPU seconds, and one that sleeps for ever
//! at the backstop; both are hangs. (A busy machine stretches wall time, not CPU time, so a
//! correct program is not stopped for the machine's load.)

mod common;

use common::TestCourse;
use serde_json::Value;

/// A test course whose py01 may run for `seconds` (the course gives it a minute).
fn course_with_py01_limit(seconds: u64) -> TestCourse {
    let course = TestCourse::new();
    let path = course.path("exercises/exercises.toml");
    let toml = std::fs::read_to_string(&path).unwrap();
    let (before, py01) = toml.split_once("id = \"py01\"").unwrap();
    let limit = "time_limit_ms = 60000";
    assert!(py01.contains(limit), "py01's limit is no longer {limit}");
    let py01 = py01.replacen(limit, &format!("time_limit_ms = {}", seconds * 1000), 1);
    std::fs::write(&path, format!("{before}id = \"py01\"{py01}")).unwrap();
    course
}

/// `runner check py01 --json` on a Python program with BODY as its whole text.
fn check_program(course: &TestCourse, body: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("program.py");
    std::fs::write(&program, body).unwrap();
    let run = course.run(&[
        "check",
        "py01",
        "--json",
        "--file",
        program.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1, "the program must fail: {}", run.all());
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.all()))
}

#[test]
fn a_program_that_spins_is_stopped_when_it_has_used_its_cpu_seconds() {
    let course = course_with_py01_limit(2);
    let report = check_program(&course, "while True:\n    pass\n");
    let text = report.to_string();
    assert_eq!(report["verdict"], "hang", "{text}");
    assert!(
        text.contains("used 2 s of CPU time without finishing"),
        "{text}"
    );
}

#[test]
fn a_program_that_sleeps_for_ever_is_stopped_at_the_wall_clock_backstop() {
    let course = course_with_py01_limit(1);
    let report = check_program(&course, "import time\ntime.sleep(3600)\n");
    let text = report.to_string();
    assert_eq!(report["verdict"], "hang", "{text}");
    assert!(text.contains("was still running after"), "{text}");
}
