//! `runner watch`: checks the current exercise whenever its file is saved. Each check runs in a
//! child process, so a kernel that hangs or wrecks the GPU context never takes the watcher down.

use crate::cli::BackendChoice;
use crate::course::Course;
use crate::output;
use crate::progress::Progress;
use crate::session::find_course;
use anyhow::Context;
use colored::Colorize;
use notify::{RecursiveMode, Watcher};
use std::io::BufRead;
use std::process::{Command, ExitCode};
use std::sync::mpsc;
use std::time::Duration;

pub fn run(
    id: Option<String>,
    manual: bool,
    choice: Option<BackendChoice>,
) -> anyhow::Result<ExitCode> {
    output::quiet_when_closed(watch(id, manual, choice))
}

fn watch(
    id: Option<String>,
    manual: bool,
    choice: Option<BackendChoice>,
) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    let named = id.is_some();
    let mut current = match id {
        Some(id) => course.exercise(&id)?.id.clone(),
        None => match first_pending(&course)? {
            Some(id) => id,
            None => {
                output::print("Every exercise is done. `runner watch NN` watches one again.\n")?;
                return Ok(ExitCode::SUCCESS);
            }
        },
    };
    // An exercise named on the command line that is already done is watched again, as asked:
    // passing its first check does not move on. A pass after a save does.
    let mut watch_again = named && Progress::load(&course.root)?.0.is_done(&current);
    let (events, receiver) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            if event.kind.is_modify() || event.kind.is_create() {
                let _ = events.send(event.paths);
            }
        }
    })
    .context("cannot watch files; try `runner watch --manual-run`")?;
    watcher
        .watch(&course.root.join("exercises"), RecursiveMode::Recursive)
        .context("cannot watch exercises/; try `runner watch --manual-run`")?;
    let lines = manual.then(stdin_lines);

    loop {
        let passed = check_in_child(&course, &current, choice)?;
        if passed && watch_again {
            output::print(&format!(
                "\nExercise {current} was already done; still watching it \
                 (`runner watch` goes on to the next one not done).\n"
            ))?;
        } else if passed {
            if let Some(next) = next_pending(&course, &current)? {
                output::print(&format!(
                    "\n{} Now watching exercise {next}.\n",
                    "On to the next one.".green().bold()
                ))?;
                current = next;
                continue;
            }
            output::print("\nEvery exercise is done. Well done!\n")?;
            return Ok(ExitCode::SUCCESS);
        }
        watch_again = false;
        let file = course.exercise_path(course.exercise(&current)?);
        match &lines {
            Some(lines) => {
                output::print("\nPress Enter to check again, q then Enter to quit.\n")?;
                match lines.recv() {
                    Ok(line) if line.trim() == "q" => return Ok(ExitCode::SUCCESS),
                    Ok(_) => {}
                    Err(_) => return Ok(ExitCode::SUCCESS),
                }
            }
            None => {
                output::print(&format!(
                    "\nWatching {} — save it to check again (Ctrl-C stops).\n",
                    course.display_name(&file)
                ))?;
                wait_for_save(&receiver, &file);
            }
        }
    }
}

fn first_pending(course: &Course) -> anyhow::Result<Option<String>> {
    let (progress, _) = Progress::load(&course.root)?;
    Ok(course
        .exercises
        .iter()
        .find(|e| !progress.is_done(&e.id))
        .map(|e| e.id.clone()))
}

/// The first exercise not done after `current` in the syllabus, coming round to the start: the
/// one the student would open next, never one they skipped long ago.
fn next_pending(course: &Course, current: &str) -> anyhow::Result<Option<String>> {
    let (progress, _) = Progress::load(&course.root)?;
    let at = course
        .exercises
        .iter()
        .position(|e| e.id == current)
        .unwrap_or(0);
    let (before, after) = course.exercises.split_at(at);
    Ok(after
        .iter()
        .chain(before)
        .find(|e| e.id != current && !progress.is_done(&e.id))
        .map(|e| e.id.clone()))
}

fn stdin_lines() -> mpsc::Receiver<String> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// Blocks until `file` is written, then waits for the burst of events an editor's save makes to
/// settle.
fn wait_for_save(receiver: &mpsc::Receiver<Vec<std::path::PathBuf>>, file: &std::path::Path) {
    let name = file.file_name();
    while let Ok(paths) = receiver.recv() {
        if paths.iter().any(|p| p.file_name() == name) {
            break;
        }
    }
    std::thread::sleep(Duration::from_millis(150));
    while receiver.try_recv().is_ok() {}
}

fn check_in_child(
    course: &Course,
    id: &str,
    choice: Option<BackendChoice>,
) -> anyhow::Result<bool> {
    let exe = std::env::current_exe().context("cannot find the runner's own program")?;
    let mut command = Command::new(exe);
    command.current_dir(&course.root).arg("check").arg(id);
    if let Some(choice) = choice {
        command
            .arg("--backend")
            .arg(if choice == BackendChoice::Gpu {
                "gpu"
            } else {
                "sim"
            });
    }
    output::print(&format!("{}\n", "─".repeat(72).dimmed()))?;
    let status = command.status().context("cannot start the check")?;
    Ok(status.success())
}
