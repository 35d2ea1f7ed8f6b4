//! `runner watch`: checks the current exercise whenever its file is saved. Each check runs in a
//! child process, so a kernel that hangs or wrecks the GPU context never takes the watcher down.

use crate::cli::BackendChoice;
use crate::course::Course;
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
    let course = find_course()?;
    let mut current = match id {
        Some(id) => course.exercise(&id)?.id.clone(),
        None => match first_pending(&course)? {
            Some(id) => id,
            None => {
                println!("Every exercise is done. `runner watch NN` watches one again.");
                return Ok(ExitCode::SUCCESS);
            }
        },
    };
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
        if passed {
            if let Some(next) = first_pending(&course)? {
                println!(
                    "\n{} Now watching exercise {next}.",
                    "On to the next one.".green().bold()
                );
                current = next;
                continue;
            }
            println!("\nEvery exercise is done. Well done!");
            return Ok(ExitCode::SUCCESS);
        }
        let file = course.exercise_path(course.exercise(&current)?);
        match &lines {
            Some(lines) => {
                println!("\nPress Enter to check again, q then Enter to quit.");
                match lines.recv() {
                    Ok(line) if line.trim() == "q" => return Ok(ExitCode::SUCCESS),
                    Ok(_) => {}
                    Err(_) => return Ok(ExitCode::SUCCESS),
                }
            }
            None => {
                println!(
                    "\nWatching {} — save it to check again (Ctrl-C stops).",
                    course.display_name(&file)
                );
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
    println!("{}", "─".repeat(72).dimmed());
    let status = command.status().context("cannot start the check")?;
    Ok(status.success())
}
