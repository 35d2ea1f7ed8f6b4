//! `runner __serve`, the worker behind `watch` and `runner-grade`'s GPU workers: each request is
//! answered with the report `runner check` gives for the same file, seed and sizes, on the
//! descriptor the worker was handed for its answers, never on stdout.

mod common;

use common::{repo_root, TestCourse};
use contract::worker::{Message, Reply, Request};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsFd;
use std::process::Stdio;

const K02: &str = "02_vector_add/vector_add.cu";

fn solution(file: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("solutions").join(file)).unwrap()
}

#[test]
fn the_worker_answers_each_request_with_the_report_runner_check_gives() {
    let course = TestCourse::new();
    let file = course.path(&format!("exercises/{K02}"));
    std::fs::write(&file, solution(K02)).unwrap();
    let (answers, answering) = std::io::pipe().unwrap();
    let mut command = course.command(&["__serve", "--backend", "sim", "--announce"]);
    let fd = runner::os::hand_to_child(&mut command, answering.as_fd());
    let mut worker = command
        .arg("--reply-fd")
        .arg(fd.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    drop(answering);
    let mut answers = BufReader::new(answers);
    let mut next = || {
        let mut line = String::new();
        answers.read_line(&mut line).unwrap();
        runner::cmd::serve::read_message(line.as_bytes())
    };
    assert!(matches!(next(), Message::Ready { .. }));
    let mut requests = worker.stdin.take().unwrap();
    let mut ask = |request: Value| -> Reply {
        writeln!(requests, "{request}").unwrap();
        let Message::Reply(reply) = next() else {
            panic!("ready twice")
        };
        reply
    };
    let asked = Request {
        file: Some(file.clone()),
        seed: Some(7),
        sizes: vec![5000],
        ..Request::check("02")
    };
    let by_worker = ask(serde_json::to_value(&asked).unwrap());
    assert!(!by_worker.ending);
    let report = by_worker
        .report
        .unwrap_or_else(|| panic!("{:?}", by_worker.error));
    assert!(report.passed(), "{}", report.summary);
    let by_process = course.run(&[
        "check",
        "02",
        "--json",
        "--backend",
        "sim",
        "--seed",
        "7",
        "--sizes",
        "5000",
    ]);
    let by_process: Value = serde_json::from_str(&by_process.stdout).unwrap();
    let names: Vec<String> = report.cases.iter().map(|c| c.name.clone()).collect();
    let by_process: Vec<String> = by_process["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, by_process);
    assert!(names.iter().any(|n| n.contains("5000")));
    let unknown =
        ask(serde_json::json!({"protocol": contract::worker::PROTOCOL, "exercise": "99"}));
    assert!(unknown.report.is_none());
    assert!(
        unknown.error.as_deref().unwrap().contains("99"),
        "{unknown:?}"
    );
    let old = ask(serde_json::json!({"protocol": 2, "exercise": "02"}));
    assert!(
        old.error.as_deref().unwrap().contains("protocol 2"),
        "{old:?}"
    );
    drop(requests);
    let mut stdout = String::new();
    let mut out = worker.stdout.take().unwrap();
    out.read_to_string(&mut stdout).unwrap();
    assert!(worker.wait().unwrap().success());
    assert_eq!(stdout, "", "nothing of the protocol on stdout");
}

#[test]
fn a_worker_without_a_descriptor_for_its_answers_says_who_starts_it() {
    let course = TestCourse::new();
    let run = course.run(&["__serve"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stderr.contains("runner watch"), "{}", run.all());
    let run = course.run(&["__serve", "--reply-fd", "1"]);
    assert!(
        run.stderr.contains("descriptor 1 is a standard stream"),
        "{}",
        run.all()
    );
}
