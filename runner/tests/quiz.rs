//! `runner quiz`: the book's Check yourself questions asked through the binary, answers piped in.

mod common;

use common::{repo_root, Run, TestCourse};
use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A copy of the course with its book's pages, which the quiz reads.
fn course_with_book() -> TestCourse {
    let course = TestCourse::new();
    let src = course.path("book/src");
    std::fs::create_dir_all(&src).unwrap();
    for entry in std::fs::read_dir(repo_root().join("book/src")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            std::fs::copy(&path, src.join(path.file_name().unwrap())).unwrap();
        }
    }
    course
}

/// Runs the runner with `input` as its whole stdin, then closed; a run that does not end within
/// a minute (a quiz waiting for input that will never come) fails the test.
fn run_with_input(course: &TestCourse, args: &[&str], input: &str) -> Run {
    let mut child = course
        .command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("runner {args:?} did not end after its input was closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Run::from(child.wait_with_output().unwrap())
}

fn progress(course: &TestCourse) -> serde_json::Value {
    let text = std::fs::read_to_string(course.path(".runner/progress.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn piped_answers_are_checked_and_a_miss_names_the_section_to_reread() {
    let course = course_with_book();
    // Coalescing asks for numbers five times: right, wrong (after one reply that is no number),
    // right, right, right.
    let answers = "4, 5, 8 and 32\nmaybe\n50%\n32 sectors\n32 and 4\n8, 3.3\n";
    let run = run_with_input(&course, &["quiz", "coalescing"], answers);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stdout.contains("Question 5 of 5"), "{}", run.stdout);
    // The book's own answer, shown after the verdict on the reply.
    let asked = run
        .stdout
        .find("How many sectors does the request touch")
        .unwrap();
    let right = run.stdout[asked..].find("Right.").unwrap() + asked;
    let shown = run.stdout.find("4 (128 aligned bytes)").unwrap();
    assert!(asked < right && right < shown, "{}", run.stdout);
    assert!(
        run.stdout.contains("Answer with one number."),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("Not right: the answer is 25.")
            && run
                .stdout
                .contains("Reread \"Strides\" (coalescing.md#strides)."),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("Score: 4 of 5 checked questions right, for Memory coalescing."),
        "{}",
        run.stdout
    );
    let score = &progress(&course)["quizzes"]["coalescing"];
    assert_eq!(
        (score["right"].as_u64(), score["questions"].as_u64()),
        (Some(4), Some(5))
    );

    let list = course.run(&["list"]);
    assert!(
        list.stdout.contains("Quizzes: coalescing 4/5"),
        "{}",
        list.stdout
    );
    let json: serde_json::Value =
        serde_json::from_str(&course.run(&["list", "--json"]).stdout).unwrap();
    assert_eq!(json["quizzes"]["coalescing"]["right"], 4);
    let listing = course.run(&["quiz"]);
    assert_eq!(listing.code, 0, "{}", listing.all());
    let line = listing
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("coalescing "))
        .unwrap();
    assert!(
        line.contains("5 questions,  5 checked  last 4 of 5"),
        "{line}"
    );
    assert!(
        listing
            .stdout
            .lines()
            .any(|l| l.trim_start().starts_with("python-track ") && l.contains("not taken")),
        "{}",
        listing.stdout
    );

    // An exercise's id names its chapter: 13 is taught in coalescing.md. Input that ends halfway
    // stops the quiz with a message and keeps the score above.
    let cut = run_with_input(&course, &["quiz", "13"], "4 5 8 32\nx\n");
    assert_eq!(cut.code, 2, "{}", cut.all());
    assert!(cut.stdout.contains("Memory coalescing"), "{}", cut.stdout);
    assert!(
        cut.stderr
            .contains("the input ended after 1 of the 5 questions")
            && cut.stderr.contains("your last score, 4 of 5, is kept"),
        "{}",
        cut.stderr
    );
    assert_eq!(progress(&course)["quizzes"]["coalescing"]["right"], 4);
}

#[test]
fn wrong_answers_score_nothing_whatever_the_student_claims() {
    let course = course_with_book();
    // Replies that marking by the student would have counted ("y", "yes") are not answers here,
    // and numbers that are wrong score nothing.
    let answers = "y\n5, 5, 5, 5\nyes\n100\n1\n1, 1\n1, 1\n";
    let run = run_with_input(&course, &["quiz", "coalescing"], answers);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains("Score: 0 of 5 checked questions right"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout.matches("Not right: the answer is").count(), 5);
    for section in [
        "What breaks coalescing",
        "Strides",
        "Rows and columns",
        "Arrays of structs and structs of arrays",
        "What strides cost on a real GPU",
    ] {
        assert!(
            run.stdout.contains(&format!("\"{section}\"")),
            "{section}: {}",
            run.stdout
        );
    }
    assert_eq!(progress(&course)["quizzes"]["coalescing"]["right"], 0);

    // A multiple-choice question takes a letter, and only the right one scores.
    let first_kernel = run_with_input(
        &course,
        &["quiz", "first-kernel"],
        "389\n4, 24\na\n4, 28\n0, 1\n",
    );
    assert_eq!(first_kernel.code, 0, "{}", first_kernel.all());
    assert!(
        first_kernel
            .stdout
            .contains("Not right: the answer is (b) no: blocks run in any order")
            && first_kernel
                .stdout
                .contains("Score: 4 of 5 checked questions right"),
        "{}",
        first_kernel.stdout
    );
}

#[test]
fn q_stops_the_quiz_and_records_nothing() {
    let course = course_with_book();
    let run = run_with_input(&course, &["quiz", "coalescing"], "4, 5, 8, 32\nq\n");
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains(
            "Stopped after 1 of 5 questions: the quiz is not finished, and nothing was recorded."
        ),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("Question 3 of 5"), "{}", run.stdout);
    let progress =
        std::fs::read_to_string(course.path(".runner/progress.json")).unwrap_or_default();
    assert!(!progress.contains("coalescing"), "{progress}");
}

#[test]
fn no_input_at_all_ends_at_once_and_records_nothing() {
    let course = course_with_book();
    let run = run_with_input(&course, &["quiz", "warps"], "");
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.stderr
            .contains("the input ended after 0 of the 7 questions")
            && run.stderr.contains("nothing was recorded")
            && run.stderr.contains("run it in one"),
        "{}",
        run.stderr
    );
    let progress =
        std::fs::read_to_string(course.path(".runner/progress.json")).unwrap_or_default();
    assert!(!progress.contains("warps"), "{progress}");
}

#[test]
fn an_unknown_chapter_is_refused_with_the_ones_that_exist() {
    let course = course_with_book();
    let run = course.run(&["quiz", "coalesing"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.stderr.contains("no chapter \"coalesing\"")
            && run.stderr.contains("coalescing, shared-memory")
            && run.stderr.contains("python-track"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_course_without_its_book_says_where_the_quiz_comes_from() {
    let course = TestCourse::new();
    let run = course.run(&["quiz"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.stderr.contains("book/src/ beside exercises/"),
        "{}",
        run.stderr
    );
    // And `runner list` says nothing of quizzes there.
    assert!(!course.run(&["list"]).stdout.contains("Quizzes"));
}
