//! `runner grade` on the forms a real class hands in, through the simulator: every submission
//! graded or named with why not (archives of every common kind, build folders, files renamed by
//! a learning platform, a lone program file), the originals taken from the runner's embedded
//! copies, and outputs that say when they are partial.

mod common;

use common::{repo_root, TestCourse};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

const K02: &str = "02_vector_add/vector_add.cu";
const PY01: &str = "py01_ufunc/ufunc.py";

fn solution(file: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("solutions").join(file)).unwrap()
}

fn exercise(file: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("exercises").join(file)).unwrap()
}

fn put(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// `runner grade CLASS --out OUT --format csv,json MORE...`.
fn grade(course: &TestCourse, class: &Path, out: &Path, more: &[&str]) -> common::Run {
    let mut args = vec![
        "grade",
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--format",
        "csv,json",
    ];
    args.extend_from_slice(more);
    course.run(&args)
}

/// Each cell's (status, message) by (submission, exercise), from `cells/`.
fn cells(out: &Path) -> BTreeMap<(String, String), (String, String)> {
    let mut found = BTreeMap::new();
    for student in std::fs::read_dir(out.join("cells")).unwrap().flatten() {
        for file in std::fs::read_dir(student.path()).unwrap().flatten() {
            if file.path().extension().is_some_and(|e| e == "json") {
                let cell: Value =
                    serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
                let text = |k: &str| cell[k].as_str().unwrap().to_string();
                found.insert(
                    (text("submission"), text("exercise")),
                    (text("status"), text("message")),
                );
            }
        }
    }
    found
}

fn cell(
    cells: &BTreeMap<(String, String), (String, String)>,
    who: &str,
    id: &str,
) -> (String, String) {
    cells
        .get(&(who.to_string(), id.to_string()))
        .unwrap_or_else(|| panic!("no cell {who} {id} in {cells:?}"))
        .clone()
}

#[test]
fn a_solved_copy_of_the_course_does_not_make_a_correct_submission_not_done() {
    let course = TestCourse::new();
    // The instructor grades from their own copy, in which they solved the exercise.
    course.solve(K02);
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("ann").join(K02), &solution(K02));
    put(&class.join("ben").join(K02), &exercise(K02));
    let out = work.path().join("grades");
    let run = grade(&course, &class, &out, &["--exercises", "02"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let cells = cells(&out);
    let (ann, said) = cell(&cells, "ann", "02");
    assert_eq!(ann, "passed", "{said}");
    let (ben, said) = cell(&cells, "ben", "02");
    assert_eq!(ben, "not_done", "{said}");
}

#[test]
fn files_renamed_by_a_learning_platform_are_graded_and_the_file_taken_is_named() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("ann/vector_add (1).cu"), &solution(K02));
    put(&class.join("ben/vector_add-1.cu"), &solution(K02));
    // A download that put the student's name and ids before the file's, flat in one folder.
    put(
        &class.join("cat/smithcat_4711_88_vector_add-2.cu"),
        &solution(K02),
    );
    // The exercise's own name wins over a renamed copy beside it.
    put(&class.join("dan/vector_add.cu"), &solution(K02));
    put(&class.join("dan/vector_add (1).cu"), &exercise(K02));
    // Two renamed copies: which one is meant cannot be told.
    put(&class.join("eve/vector_add (1).cu"), &solution(K02));
    put(&class.join("eve/vector_add (2).cu"), &exercise(K02));
    let out = work.path().join("grades");
    let run = grade(&course, &class, &out, &["--exercises", "02"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let cells = cells(&out);
    for (who, file) in [
        ("ann", "vector_add (1).cu"),
        ("ben", "vector_add-1.cu"),
        ("cat", "smithcat_4711_88_vector_add-2.cu"),
    ] {
        let (status, message) = cell(&cells, who, "02");
        assert_eq!(status, "passed", "{who}: {message}");
        assert!(
            message.contains(&format!("Graded {file}, taken as {K02}")),
            "{who}: {message}"
        );
    }
    let (status, message) = cell(&cells, "dan", "02");
    assert_eq!(status, "passed", "{message}");
    assert!(!message.contains("Graded "), "{message}");
    let (status, message) = cell(&cells, "eve", "02");
    assert_eq!(status, "refused", "{message}");
    assert!(
        message.contains("vector_add (1).cu, vector_add (2).cu all look like"),
        "{message}"
    );
}

#[test]
fn a_lone_python_file_is_graded_as_the_one_python_exercise_of_the_assignment() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    // A drag-and-drop upload: the answer at the top, under a name of the student's choosing.
    put(&class.join("ann/my_answer.py"), &solution(PY01));
    // Two Python files: which is the answer cannot be told.
    put(&class.join("ben/a.py"), &solution(PY01));
    put(&class.join("ben/b.py"), &solution(PY01));
    let out = work.path().join("grades");
    let run = grade(
        &course,
        &class,
        &out,
        &["--exercises", "py01", "--run-programs"],
    );
    assert_eq!(run.code, 0, "{}", run.all());
    let cells = cells(&out);
    let (status, message) = cell(&cells, "ann", "py01");
    assert_eq!(status, "passed", "{message}");
    assert!(
        message.contains(&format!("Graded my_answer.py, taken as {PY01}")),
        "{message}"
    );
    let (status, message) = cell(&cells, "ben", "py01");
    assert_eq!(status, "missing", "{message}");
}
