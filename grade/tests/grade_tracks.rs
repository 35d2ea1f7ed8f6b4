//! `runner grade` beyond plain kernels: a kernel that includes CUDA's own headers (installed by
//! `scripts/install-nvrtc`) is graded as `runner check` checks it, and a Python exercise (a whole
//! program) is refused unless `--run-programs` asks for it, with what to do.

#[path = "../../runner/tests/common/mod.rs"]
mod common;

use common::{repo_root, TestCourse};

const K02: &str = "02_vector_add/vector_add.cu";

#[test]
fn grade_passes_a_submission_that_includes_cuda_headers() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let submission = work.path().join("class/ann").join(K02);
    std::fs::create_dir_all(submission.parent().unwrap()).unwrap();
    std::fs::copy(
        repo_root().join("runner/tests/fixtures/cuda_headers/vector_add.cu"),
        &submission,
    )
    .unwrap();
    let out = work.path().join("grades");
    let class = work.path().join("class");
    let run = course.run(&[
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--format",
        "json",
        "--exercises",
        "02",
    ]);
    assert_eq!(run.code, 0, "{}", run.all());
    let text = std::fs::read_to_string(out.join("submissions/ann.json")).unwrap();
    let grade: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(grade["exercises"][0]["status"], "passed", "{text}");
}

#[test]
fn grade_refuses_a_python_exercise_unless_asked_and_says_how() {
    let course = TestCourse::new();
    let class = tempfile::tempdir().unwrap();
    let out = class.path().join("grades");
    let run = course.run(&[
        class.path().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--exercises",
        "py03",
    ]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.stderr.contains("exercise py03 is a whole program")
            && run
                .stderr
                .contains("each runs in a bubblewrap sandbox of its own")
            && run.stderr.contains("--run-programs")
            && run
                .stderr
                .contains("runner check py03 --file PATH/py03_grid_stride/grid_stride.py"),
        "{}",
        run.all()
    );
    assert!(!out.exists(), "a refused grade wrote results");
}
