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

/// Whether process `pid` is running: there, and not a zombie waiting to be reaped.
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat.rsplit_once(") ")?.1.chars().next()?;
            Some(state != 'Z' && state != 'X')
        })
        .unwrap_or(false)
}

/// The lines a program under test wrote to `path`, once it has written `lines` of them.
fn wait_for_lines(path: &std::path::Path, lines: usize) -> Vec<String> {
    let started = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.lines().count() >= lines && text.ends_with('\n') {
            return text.lines().map(str::to_string).collect();
        }
        assert!(
            started.elapsed() < common::NEVER,
            "the program never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Sends `signal` to the runner once its program wrote its pids and scratch folders to `said`
/// (`pid` lines, then folders), waits for the runner, and checks that none of them outlived it.
fn signal_ends_everything(mut runner: std::process::Child, said: &std::path::Path, signal: i32) {
    let lines = wait_for_lines(said, 4);
    // SAFETY: a signal to the process this test started.
    unsafe { libc::kill(runner.id() as i32, signal) };
    let status = runner.wait().unwrap();
    let pids: Vec<i32> = lines.iter().filter_map(|l| l.parse().ok()).collect();
    let folders: Vec<&String> = lines.iter().filter(|l| l.starts_with('/')).collect();
    let started = std::time::Instant::now();
    let mut alive = pids.clone();
    while !alive.is_empty() && started.elapsed() < common::NEVER {
        alive.retain(|&pid| running(pid));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for &pid in &alive {
        // SAFETY: processes this test's program started; cleaned up after a failure.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(
        alive.is_empty(),
        "outlived the runner ({status}): {alive:?}"
    );
    for folder in folders {
        assert!(
            !std::path::Path::new(folder).exists(),
            "{folder} is left ({status})"
        );
    }
    assert_eq!(status.code(), Some(130), "{status}");
}

#[test]
fn sigterm_to_runner_run_ends_the_program_its_children_and_its_scratch() {
    let course = TestCourse::new();
    let dir = tempfile::tempdir().unwrap();
    let said = dir.path().join("said");
    // A shell that starts a sleep in the background, and one that leaves its own session.
    let script = format!(
        "sleep 300 & echo $! >> {s}; setsid sleep 301 & echo $! >> {s}; \
         echo $$ >> {s}; dirname \"$SIMCUDA_REPORT\" >> {s}; wait",
        s = said.display()
    );
    let runner = course
        .command(&["run", "--", "sh", "-c", &script])
        .spawn()
        .unwrap();
    signal_ends_everything(runner, &said, libc::SIGTERM);
}

#[test]
fn sighup_to_runner_check_ends_the_students_program_and_its_scratch() {
    let course = TestCourse::new();
    let dir = tempfile::tempdir().unwrap();
    let said = dir.path().join("said");
    let program = dir.path().join("hang.py");
    std::fs::write(
        &program,
        format!(
            "import os, subprocess, time\n\
             child = subprocess.Popen(['sleep', '300'])\n\
             with open({s:?}, 'a') as f:\n\
             \x20   f.write(f'{{child.pid}}\\n{{os.getpid()}}\\n')\n\
             \x20   f.write(os.path.dirname(os.environ['SIMCUDA_REPORT']) + '\\n')\n\
             \x20   f.write(os.environ['{case}'] + '\\n')\n\
             time.sleep(300)\n",
            s = said.display().to_string(),
            case = hostkit::CASE_VARIABLE,
        ),
    )
    .unwrap();
    let runner = course
        .command(&["check", "py01", "--file", program.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    signal_ends_everything(runner, &said, libc::SIGHUP);
}
