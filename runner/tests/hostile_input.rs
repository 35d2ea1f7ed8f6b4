//! Hostile or unlucky conditions around a check: storage that cannot hold the progress, files
//! that lie about their size, signals. The verdict is always printed, nothing is left running,
//! and every refusal names what it refused.

mod common;

use common::{file_of, TestCourse};

/// A passing check of exercise 01 in a course whose `.runner/` was prepared by `spoil`.
fn check_passing_01_with(spoil: impl FnOnce(&TestCourse)) -> common::Run {
    let course = TestCourse::new();
    course.solve(&file_of("01"));
    spoil(&course);
    course.run(&["check", "01"])
}

fn assert_verdict_with_warning(run: &common::Run) {
    assert_eq!(
        run.code,
        0,
        "the verdict decides the exit code:\n{}",
        run.all()
    );
    assert!(run.stdout.contains("Passed"), "{}", run.all());
    assert!(
        run.stderr.contains("progress was not saved") && run.stderr.contains("the verdict stands"),
        "{}",
        run.all()
    );
}

#[test]
fn a_progress_lock_that_cannot_be_opened_still_prints_the_verdict() {
    // A folder where the lock file goes: no one, root included, can open it for writing, as
    // with a read-only `.runner/` for a student.
    let run = check_passing_01_with(|course| {
        std::fs::create_dir_all(course.path(".runner/progress.lock")).unwrap();
    });
    assert_verdict_with_warning(&run);
    assert!(run.stderr.contains("progress.lock"), "{}", run.all());
}

#[test]
fn progress_that_cannot_be_read_or_written_still_prints_the_verdict() {
    // `.runner` a file: the progress can be neither read nor saved.
    let run = check_passing_01_with(|course| {
        std::fs::write(course.path(".runner"), "not a folder").unwrap();
    });
    assert_verdict_with_warning(&run);
}

#[test]
fn a_failing_check_with_unsaved_progress_still_fails() {
    let course = TestCourse::new();
    std::fs::write(course.path(".runner"), "not a folder").unwrap();
    let run = course.run(&["check", "01"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(!run.stdout.contains("Passed"), "{}", run.all());
}
