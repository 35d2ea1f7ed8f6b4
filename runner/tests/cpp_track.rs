//! The C++ track (cppNN): whole CUDA C++ programs on the runtime API, built with the course's
//! nvcc and checked through the simulator's driver. Each solution passes, each program as handed
//! out is "not done", each typical mistake fails and is named, and a compile error is shown at
//! the student's file and line. Without the course's nvcc (`scripts/install-nvcc`, run by
//! scripts/test-setup) each test says so and passes without checking anything.

mod common;

use common::{repo_root, TestCourse};
use serde_json::Value;

/// A course, where the repository has the nvcc `scripts/install-nvcc` makes (the test course
/// builds with it: RUNNER_NVCC).
fn course_with_nvcc() -> Option<TestCourse> {
    if !repo_root().join(".nvcc/bin/nvcc").exists() {
        eprintln!("skipped: nvcc is not installed (scripts/install-nvcc installs it from PyPI)");
        return None;
    }
    Some(TestCourse::new())
}

/// `runner check ID --json --file FILE`: the exit code and the report.
fn check(course: &TestCourse, id: &str, file: &str) -> (i32, Value) {
    let run = course.run(&["check", id, "--json", "--file", file]);
    let report = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.all()));
    (run.code, report)
}

/// Every string in the report, joined: what it says, wherever it says it.
fn said(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s}\n"),
        Value::Array(items) => items.iter().map(said).collect(),
        Value::Object(map) => map.values().map(said).collect(),
        _ => String::new(),
    }
}

#[test]
fn each_solution_passes_and_each_program_as_handed_out_is_not_done() {
    let Some(course) = course_with_nvcc() else {
        return;
    };
    for (id, file) in [
        ("cpp01", "cpp01_first_program/first_program.cu"),
        ("cpp02", "cpp02_unified_memory/unified_memory.cu"),
        ("cpp03", "cpp03_streams_events/streams_events.cu"),
        ("cpp04", "cpp04_graphs/graphs.cu"),
    ] {
        let solution = course.path(&format!("solutions/{file}"));
        let (code, report) = check(&course, id, solution.to_str().unwrap());
        assert_eq!(
            (code, report["verdict"].as_str()),
            (0, Some("passed")),
            "{id}: {report}"
        );
        let handed_out = course.path(&format!("exercises/{file}"));
        let (code, report) = check(&course, id, handed_out.to_str().unwrap());
        assert_eq!(
            (code, report["verdict"].as_str()),
            (1, Some("not_done")),
            "{id}: {report}"
        );
    }
}

#[test]
fn each_typical_cpp_mistake_fails_and_is_named() {
    let Some(course) = course_with_nvcc() else {
        return;
    };
    let cases = [
        (
            "cpp01",
            "cpp01_launch_unchecked.cu",
            "wrong_output",
            "the launch of saxpy with a grid of 1 block of 2048 threads was refused: \
             CUDA_ERROR_INVALID_VALUE; a block has at most 1024 threads, and this one asks for \
             2048: launch more blocks of fewer threads (256 is usual), and the program went on \
             as if it had worked: check the cudaError_t of every call",
        ),
        (
            "cpp01",
            "cpp01_elements_not_bytes.cu",
            "wrong_output",
            "a copy was given the number of elements where cudaMemcpy takes bytes",
        ),
        (
            "cpp01",
            "cpp01_leak.cu",
            "targets_missed",
            "400000 bytes of device memory were still allocated when the program ended: free \
             what you allocate (every cudaMalloc",
        ),
        (
            "cpp02",
            "cpp02_no_sync.cu",
            "wrong_output",
            "Likely: the 2nd managed buffer (400000 bytes) was read while the kernel could still \
             be writing 400000 bytes of it: cudaDeviceSynchronize()",
        ),
        (
            "cpp02",
            "cpp02_no_prefetch.cu",
            "targets_missed",
            "the 1st managed buffer (400000 bytes) was not prefetched to the device before \
             saxpy's launch",
        ),
        (
            "cpp02",
            "cpp02_prefetch_in_elements.cu",
            "targets_missed",
            "only 100000 bytes of the 1st managed buffer (400000 bytes) were prefetched to the \
             device before saxpy's launch: cudaMemPrefetchAsync's count is in bytes",
        ),
        (
            "cpp02",
            "cpp02_prefetch_after_launch.cu",
            "targets_missed",
            "was prefetched to the device only after saxpy's launch",
        ),
        (
            "cpp02",
            "cpp02_copies.cu",
            "targets_missed",
            "no result was handed back from managed memory: hand back the managed buffer itself",
        ),
        (
            "cpp03",
            "cpp03_pageable.cu",
            "targets_missed",
            "asynchronous copies used pageable host memory (malloc, new or a std::vector)",
        ),
        (
            "cpp03",
            "cpp03_no_sync.cu",
            // The first unwaited-for call is cudaEventElapsedTime, which a GPU answers with
            // cudaErrorNotReady while the events may be pending (the program checks it).
            "crashed",
            "asked for before the program waited for them",
        ),
        (
            "cpp03",
            "cpp03_one_stream.cu",
            "targets_missed",
            "copy time overlapped by other work",
        ),
        (
            "cpp04",
            "cpp04_no_graph.cu",
            "targets_missed",
            "kernels launched one at a time, each paying the cost of a launch: capture one \
             round's launches into a graph once",
        ),
        (
            "cpp04",
            "cpp04_instantiate_each_round.cu",
            "targets_missed",
            "a graph captured or instantiated again in the loop",
        ),
        (
            "cpp04",
            "cpp04_sync_copy_in_capture.cu",
            "crashed",
            "cuMemcpyHtoD_v2 returned CUDA_ERROR_STREAM_CAPTURE_IMPLICIT\n  Likely: a \
             synchronous call (cudaMemcpy, cudaMemset) while a stream was being captured",
        ),
        (
            "cpp04",
            "cpp04_capture_runs.cu",
            "wrong_output",
            "one fewer than the case asks for 6: capturing a stream records its work without \
             running it",
        ),
    ];
    for (id, fixture, verdict, words) in cases {
        let path = repo_root().join("runner/tests/fixtures/host").join(fixture);
        let (code, report) = check(&course, id, path.to_str().unwrap());
        assert_eq!(code, 1, "{fixture} must fail: {report}");
        assert_eq!(
            report["verdict"].as_str(),
            Some(verdict),
            "{fixture}: {report}"
        );
        let text = said(&report);
        assert!(text.contains(words), "{fixture} must say {words:?}: {text}");
    }
}

#[test]
fn a_cpp_program_that_does_not_compile_is_shown_at_the_students_file_and_line() {
    let Some(course) = course_with_nvcc() else {
        return;
    };
    let file = "cpp01_first_program/first_program.cu";
    let path = course.path(&format!("exercises/{file}"));
    let text = std::fs::read_to_string(&path).unwrap();
    let broken = text.replace("int n = (int)x.size();", "int n = (int)x.size()");
    std::fs::write(&path, broken).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("int n = (int)x.size();"))
        .unwrap();
    let (code, report) = check(&course, "cpp01", path.to_str().unwrap());
    assert_eq!(
        (code, report["verdict"].as_str()),
        (1, Some("compile_error")),
        "{report}"
    );
    let errors = report["build_errors"].as_str().unwrap_or_default();
    // nvcc names the line after the missing semicolon, or the line itself.
    let at = |l: usize| format!("exercises/{file}({l}): error");
    assert!(
        errors.contains(&at(line + 1)) || errors.contains(&at(line + 2)),
        "{errors}"
    );
    assert!(
        !errors.contains(&course.path("").display().to_string()),
        "{errors}"
    );
}
