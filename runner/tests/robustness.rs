//! The student's work and progress survive what careless or unlucky use does to them: runners
//! working on one course at once, a `reset` of a file that cannot be copied, edits made before the
//! first run, output piped to a reader that goes away.

mod common;

use common::{file_of, repo_root, TestCourse};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn progress(course: &TestCourse) -> serde_json::Value {
    let text = std::fs::read_to_string(course.path(".runner/progress.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn done(course: &TestCourse) -> Vec<String> {
    progress(course)["done"]
        .as_object()
        .map(|done| done.keys().cloned().collect())
        .unwrap_or_default()
}

/// Waits for `child`, killing it and failing the test if it runs past `limit`.
fn wait_at_most(child: &mut Child, limit: Duration, what: &str) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{what} was still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn checks_run_at_once_keep_every_done_record() {
    let course = TestCourse::new();
    let ids: Vec<String> = (1..=12).map(|i| format!("{i:02}")).collect();
    for id in &ids {
        course.solve(&file_of(id));
    }
    let children: Vec<(String, Child)> = ids
        .iter()
        .map(|id| {
            let child = course
                .command(&["check", id])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (id.clone(), child)
        })
        .collect();
    for (id, child) in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "check {id}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert_eq!(done(&course), ids, "every passing check is recorded");
}

#[test]
fn a_hint_shown_during_a_check_survives_the_check_saving_its_result() {
    let course = TestCourse::new();
    course.solve(&file_of("02"));
    // Large extra cases make the check last long enough for a hint in the middle of it.
    let mut check = course
        .command(&["check", "02", "--sizes", "1048576,1048576,1048576,1048576"])
        .env("RUNNER_TRACE", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut trace = BufReader::new(check.stderr.take().unwrap()).lines();
    // The check reads the progress once the backend is open, before its first traced step in
    // checking the kernel.
    let mut opened = false;
    for line in trace.by_ref() {
        let line = line.unwrap();
        if opened {
            break;
        }
        opened = line.contains("backend opened");
    }
    assert!(opened, "the check never opened its backend");
    let hint = course.run(&["hint", "02"]);
    assert_eq!(hint.code, 0, "{}", hint.all());
    assert!(
        check.try_wait().unwrap().is_none(),
        "the check ended before the hint: this test needs a slower check"
    );
    for _ in trace {}
    assert!(check.wait().unwrap().success());
    let progress = progress(&course);
    assert_eq!(progress["hints_shown"]["02"], 1, "{progress}");
    assert!(progress["done"]["02"].is_object(), "{progress}");
}

#[test]
fn reset_restores_the_shipped_original_though_the_student_edited_before_the_first_run() {
    let course = TestCourse::new();
    let file = course.path(&format!("exercises/{}", file_of("03")));
    let shipped = std::fs::read(repo_root().join(format!("exercises/{}", file_of("03")))).unwrap();
    std::fs::write(&file, "edited before the runner ever ran\n").unwrap();
    let run = course.run(&["reset", "03"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(std::fs::read(&file).unwrap(), shipped, "{}", run.all());
    assert!(
        run.stdout.contains("Your version is kept as"),
        "{}",
        run.stdout
    );
}

#[cfg(unix)]
#[test]
fn reset_refuses_a_fifo_at_once_and_leaves_it_alone() {
    use std::os::unix::fs::FileTypeExt;
    let course = TestCourse::new();
    let file = course.path(&format!("exercises/{}", file_of("02")));
    std::fs::remove_file(&file).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&file)
        .status()
        .unwrap();
    assert!(made.success());
    let mut reset = course
        .command(&["reset", "02"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_at_most(&mut reset, common::NEVER, "reset of a FIFO");
    let output = reset.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!status.success(), "{stderr}");
    assert!(
        stderr.contains("FIFO") && stderr.contains("nothing was changed"),
        "{stderr}"
    );
    assert!(std::fs::symlink_metadata(&file)
        .unwrap()
        .file_type()
        .is_fifo());
}

#[test]
fn reset_refuses_a_directory_in_place_of_the_file() {
    let course = TestCourse::new();
    let file = course.path(&format!("exercises/{}", file_of("02")));
    std::fs::remove_file(&file).unwrap();
    std::fs::create_dir(&file).unwrap();
    std::fs::write(file.join("my notes.txt"), "work").unwrap();
    let run = course.run(&["reset", "02"]);
    assert_ne!(run.code, 0, "{}", run.all());
    assert!(
        run.stderr.contains("is a folder") && run.stderr.contains("nothing was changed"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(file.join("my notes.txt")).unwrap(),
        "work"
    );
}

/// As root every file is readable, so there the unreadable file is the student's own mode-000
/// file that root can still back up; elsewhere reset must refuse it.
#[cfg(unix)]
#[test]
fn reset_never_writes_over_a_file_it_cannot_back_up() {
    use std::os::unix::fs::PermissionsExt;
    let course = TestCourse::new();
    let file = course.path(&format!("exercises/{}", file_of("02")));
    std::fs::write(&file, "my work\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable = std::fs::read(&file).is_ok();
    let run = course.run(&["reset", "02"]);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    if readable {
        assert_eq!(run.code, 0, "{}", run.all());
        assert!(
            run.stdout.contains("Your version is kept as"),
            "{}",
            run.stdout
        );
        let backups = walk(&course.path(".runner/backups"));
        assert_eq!(backups.len(), 1);
        assert_eq!(std::fs::read_to_string(&backups[0]).unwrap(), "my work\n");
    } else {
        assert_ne!(run.code, 0, "{}", run.all());
        assert!(run.stderr.contains("cannot read"), "{}", run.stderr);
        assert!(!run.stdout.contains("Restored"), "{}", run.stdout);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "my work\n");
    }
}

#[cfg(unix)]
#[test]
fn a_restored_file_keeps_the_mode_the_student_gave_it() {
    use std::os::unix::fs::PermissionsExt;
    let course = TestCourse::new();
    let file = course.path(&format!("exercises/{}", file_of("02")));
    // A first run before the edit, so even a runner that keeps originals at its first run has one.
    assert_eq!(course.run(&["reset", "02"]).code, 0);
    std::fs::write(&file, "my work\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o664)).unwrap();
    let run = course.run(&["reset", "02"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o664, "restored with mode {mode:o}");
}

#[test]
fn reset_makes_a_done_exercise_pending_again() {
    let course = TestCourse::new();
    course.solve(&file_of("03"));
    assert_eq!(course.run(&["check", "03"]).code, 0);
    let listed = course.run(&["list"]).stdout;
    assert_eq!(state_in_list(&listed, "03"), Some("done"), "{listed}");
    let run = course.run(&["reset", "03"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let listed = course.run(&["list"]).stdout;
    assert_eq!(state_in_list(&listed, "03"), Some("pending"), "{listed}");
}

/// The state `runner list` shows for exercise `id` (the word after the id, whatever the
/// column's width).
fn state_in_list<'a>(listed: &'a str, id: &str) -> Option<&'a str> {
    listed.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some(id)).then(|| words.next()).flatten()
    })
}

fn watch(course: &TestCourse, id: &str) -> String {
    let mut watch = course
        .command(&["watch", "--manual-run", id])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    watch.stdin.take().unwrap().write_all(b"q\n").unwrap();
    wait_at_most(&mut watch, common::NEVER, "watch");
    let output = watch.wait_with_output().unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn watch_stays_on_a_named_exercise_that_was_already_done() {
    let course = TestCourse::new();
    course.solve(&file_of("02"));
    assert_eq!(course.run(&["check", "02"]).code, 0);
    let out = watch(&course, "02");
    assert!(!out.contains("Now watching exercise"), "{out}");
    assert!(out.contains("still watching it"), "{out}");
}

#[test]
fn watch_goes_on_to_the_next_exercise_not_done_after_the_one_passed() {
    let course = TestCourse::new();
    course.solve(&file_of("02"));
    let out = watch(&course, "02");
    assert!(out.contains("Now watching exercise 03"), "{out}");
}

#[test]
fn long_titles_leave_the_paths_in_line() {
    let course = TestCourse::new();
    let metadata = course.path("exercises/exercises.toml");
    let text = std::fs::read_to_string(&metadata).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let title = lines
        .iter_mut()
        .find(|l| l.starts_with("title = "))
        .unwrap();
    *title = format!("title = \"{}\"", "A very long title ".repeat(6));
    std::fs::write(&metadata, lines.join("\n") + "\n").unwrap();
    let run = course.run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let columns: Vec<usize> = run
        .stdout
        .lines()
        .filter_map(|line| {
            let at = line.find("exercises/")?;
            Some(line[..at].chars().count())
        })
        .collect();
    let exercises = text.matches("[[exercise]]").count();
    assert_eq!(columns.len(), exercises, "{}", run.stdout);
    assert!(
        columns.iter().all(|&c| c == columns[0]),
        "{columns:?}\n{}",
        run.stdout
    );
}

/// Runs `args` with stdout a pipe whose reader has already gone.
fn into_closed_pipe(course: &TestCourse, args: &[&str]) -> (std::process::ExitStatus, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = course
        .command(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Exit 0, or the end by SIGPIPE a shell reports as 141: either way quietly, with no panic.
fn ended_quietly(status: std::process::ExitStatus, stderr: &str) -> bool {
    let by_sigpipe = {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            status.signal() == Some(13)
        }
        #[cfg(not(unix))]
        false
    };
    (status.success() || by_sigpipe) && !stderr.contains("panicked") && stderr.is_empty()
}

#[test]
fn hint_into_a_closed_pipe_ends_quietly_and_still_counts_the_hint() {
    let course = TestCourse::new();
    let (status, stderr) = into_closed_pipe(&course, &["hint", "02"]);
    assert!(ended_quietly(status, &stderr), "{status:?}: {stderr}");
    assert_eq!(progress(&course)["hints_shown"]["02"], 1);
}

#[test]
fn list_and_reset_into_a_closed_pipe_end_quietly() {
    let course = TestCourse::new();
    let (status, stderr) = into_closed_pipe(&course, &["list"]);
    assert!(ended_quietly(status, &stderr), "list: {status:?}: {stderr}");
    let (status, stderr) = into_closed_pipe(&course, &["reset", "02"]);
    assert!(
        ended_quietly(status, &stderr),
        "reset: {status:?}: {stderr}"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
