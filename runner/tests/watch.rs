//! `runner watch` checks in a worker process that outlives each check: a kernel that hangs does
//! not take it down, and a worker that dies or runs past the limit is replaced, with the
//! student's file left as it was.

mod common;

use common::TestCourse;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const VECTOR_ADD: &str = "exercises/02_vector_add/vector_add.cu";

/// `runner watch --manual-run 02`, driven by Enter, its output read line by line.
struct Watch {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    seen: String,
}

impl Watch {
    fn start(course: &TestCourse, limit_s: Option<&str>) -> Watch {
        Watch::start_on(course, "02", limit_s)
    }

    fn start_on(course: &TestCourse, id: &str, limit_s: Option<&str>) -> Watch {
        let mut command = course.command(&["watch", "--manual-run", id]);
        if let Some(limit) = limit_s {
            command.env("RUNNER_WATCH_LIMIT_S", limit);
        }
        // Both streams into one pipe, so that an error and the prompt after it arrive in order.
        let (reader, writer) = std::io::pipe().unwrap();
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(writer.try_clone().unwrap())
            .stderr(writer)
            .spawn()
            .unwrap();
        drop(command);
        let (send, lines) = mpsc::channel();
        // Read on a thread of its own, so that a test can wait for a line with a limit.
        std::thread::Builder::new()
            .name("watch output".into())
            .spawn(move || {
                for line in BufReader::new(reader).lines().map_while(Result::ok) {
                    let _ = send.send(line);
                }
            })
            .expect("a thread starts");
        let stdin = child.stdin.take().unwrap();
        Watch {
            child,
            stdin,
            lines,
            seen: String::new(),
        }
    }

    /// Waits for the prompt after a check and returns what was printed since the last one.
    fn next_check(&mut self) -> String {
        let mut since = String::new();
        loop {
            let line = self.lines.recv_timeout(common::NEVER).unwrap_or_else(|_| {
                panic!(
                    "no prompt after {:?}; seen:\n{}{since}",
                    common::NEVER,
                    self.seen
                )
            });
            since.push_str(&line);
            since.push('\n');
            if line.contains("Press Enter to check again") {
                self.seen.push_str(&since);
                return since;
            }
        }
    }

    fn press_enter(&mut self) {
        self.stdin.write_all(b"\n").unwrap();
    }

    /// The process id of the worker (`runner __serve`) that watch runs now. A worker just
    /// started shows its command line only once it has executed, which a loaded machine can
    /// delay after the fork: look again until it shows.
    fn worker(&self) -> u32 {
        let started = std::time::Instant::now();
        let mut workers = self.workers();
        while workers.len() != 1 && started.elapsed() < common::NEVER {
            std::thread::sleep(Duration::from_millis(100));
            workers = self.workers();
        }
        assert_eq!(workers.len(), 1, "workers: {workers:?}\n{}", self.seen);
        workers[0]
    }

    fn workers(&self) -> Vec<u32> {
        let tasks = format!("/proc/{}/task", self.child.id());
        let mut workers = Vec::new();
        for task in std::fs::read_dir(tasks).unwrap() {
            let children = std::fs::read_to_string(task.unwrap().path().join("children"));
            for pid in children.unwrap_or_default().split_whitespace() {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                if String::from_utf8_lossy(&cmdline).contains("__serve") {
                    workers.push(pid.parse().unwrap());
                }
            }
        }
        workers
    }

    fn quit(mut self) {
        self.stdin.write_all(b"q\n").unwrap();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{}", self.seen);
    }
}

/// Kills `pid` and waits until it has ended (a zombie has no command line).
fn kill(pid: u32) {
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let cmdline = format!("/proc/{pid}/cmdline");
    while std::fs::read(&cmdline).is_ok_and(|c| !c.is_empty()) {
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn watch_survives_a_hanging_kernel_and_replaces_a_killed_worker() {
    let course = TestCourse::new();
    std::fs::copy(
        TestCourse::fixture("vector_add_hang.cu"),
        course.path(VECTOR_ADD),
    )
    .unwrap();
    let mut watch = Watch::start(&course, None);
    let first = watch.next_check();
    assert!(
        first.contains("the kernel was still running after"),
        "{first}"
    );
    let worker = watch.worker();
    watch.press_enter();
    let again = watch.next_check();
    assert!(
        again.contains("the kernel was still running after"),
        "{again}"
    );
    assert_eq!(
        watch.worker(),
        worker,
        "the worker survives a hanging kernel"
    );

    kill(worker);
    course.solve("02_vector_add/vector_add.cu");
    let solved = std::fs::read(course.path(VECTOR_ADD)).unwrap();
    watch.press_enter();
    let passed = watch.next_check();
    assert!(passed.contains("Now watching exercise 03"), "{passed}");
    assert_ne!(
        watch.worker(),
        worker,
        "a new worker took the killed one's place"
    );
    assert_eq!(std::fs::read(course.path(VECTOR_ADD)).unwrap(), solved);
    watch.quit();
}

#[test]
fn watch_stops_a_check_past_its_limit_and_checks_again_in_a_new_worker() {
    let course = TestCourse::new();
    std::fs::copy(
        TestCourse::fixture("vector_add_hang.cu"),
        course.path(VECTOR_ADD),
    )
    .unwrap();
    // The simulator gives up on a hang when the exercise's budget of warp instructions is spent,
    // which a fast machine does in under a second at 02's 2 s limit. With a budget no machine
    // spends in ten minutes, watch's own limit of 1 s is sure to come first.
    course.set_time_limit_ms("02", 600_000);
    let mut watch = Watch::start(&course, Some("1"));
    let stopped = watch.next_check();
    assert!(
        stopped.contains("did not finish: it was still running after 1 s and was stopped"),
        "{stopped}"
    );
    assert!(
        !stopped.contains("the kernel was still running after"),
        "{stopped}"
    );
    let replacement = watch.worker();
    course.solve("02_vector_add/vector_add.cu");
    watch.press_enter();
    let passed = watch.next_check();
    assert!(passed.contains("Now watching exercise 03"), "{passed}");
    assert_eq!(
        watch.worker(),
        replacement,
        "the replacement was started at once"
    );
    watch.quit();
}

/// Watches `id` from its pristine file (not done), puts the solution at `file` (relative to
/// exercises/ and solutions/), and expects a pass and the watch to move on to `next`.
fn watch_passes_and_moves_on(id: &str, file: &str, next: &str) {
    let course = TestCourse::new();
    let mut watch = Watch::start_on(&course, id, None);
    let first = watch.next_check();
    assert!(first.contains("NOT DONE"), "{first}");
    std::fs::copy(
        course.path(&format!("solutions/{file}")),
        course.path(&format!("exercises/{file}")),
    )
    .unwrap();
    watch.press_enter();
    let second = watch.next_check();
    assert!(second.contains("PASSED"), "{second}");
    assert!(
        second.contains(&format!("Now watching exercise {next}")),
        "{second}"
    );
    watch.quit();
}

#[test]
fn watch_checks_a_host_exercise_and_goes_on_when_it_passes() {
    watch_passes_and_moves_on("25", "25_first_program/src/main.rs", "26");
}

#[test]
fn watch_checks_a_python_exercise_and_goes_on_when_it_passes() {
    watch_passes_and_moves_on("py03", "py03_grid_stride/grid_stride.py", "py04");
}
