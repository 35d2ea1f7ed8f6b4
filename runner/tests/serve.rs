//! `runner __serve`, the worker behind `watch` and `runner-grade`'s GPU workers: each request is
//! answered with the report `runner check` gives for the same file, seed and sizes.

mod common;

use common::{repo_root, TestCourse};
use serde_json::Value;
use std::io::Write;

const K02: &str = "02_vector_add/vector_add.cu";

fn solution(file: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("solutions").join(file)).unwrap()
}

#[test]
fn the_worker_answers_each_request_with_the_report_runner_check_gives() {
    use std::io::{BufRead, BufReader};
    let course = TestCourse::new();
    let file = course.path(&format!("exercises/{K02}"));
    std::fs::write(&file, solution(K02)).unwrap();
    let mut worker = course
        .command(&["__serve", "--backend", "sim", "--announce"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut requests = worker.stdin.take().unwrap();
    let mut replies = BufReader::new(worker.stdout.take().unwrap()).lines();
    let marker = "\u{1e}runner-serve 2 ";
    assert_eq!(replies.next().unwrap().unwrap(), format!("{marker}ready"));
    let mut ask = |request: Value| {
        writeln!(requests, "{request}").unwrap();
        let line = replies.next().unwrap().unwrap();
        let reply: Value = serde_json::from_str(line.strip_prefix(marker).unwrap()).unwrap();
        reply
    };
    let by_worker = ask(serde_json::json!({
        "protocol": 2, "exercise": "02", "file": file, "seed": 7, "sizes": [5000],
    }));
    assert_eq!(by_worker["ending"], false);
    let report = &by_worker["report"];
    assert_eq!(report["verdict"], "passed", "{by_worker:#}");
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
    let names = |report: &Value| -> Vec<Value> {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].clone())
            .collect()
    };
    assert_eq!(names(report), names(&by_process));
    assert!(names(report)
        .iter()
        .any(|n| n.as_str().unwrap().contains("5000")));
    let unknown = ask(serde_json::json!({"protocol": 2, "exercise": "99"}));
    assert!(unknown["report"].is_null());
    assert!(
        unknown["error"].as_str().unwrap().contains("99"),
        "{unknown:#}"
    );
    let old = ask(serde_json::json!({"protocol": 1, "exercise": "02"}));
    assert!(
        old["error"].as_str().unwrap().contains("protocol 1"),
        "{old:#}"
    );
    drop(requests);
    assert!(worker.wait().unwrap().success());
}
