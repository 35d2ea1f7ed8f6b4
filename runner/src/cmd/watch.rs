//! `runner watch`: checks the current exercise whenever its file is saved. The checks run in a
//! worker process (`runner __serve`) that keeps NVRTC loaded and the backend open between them,
//! so a check after a save costs only the check; a worker that crashes, hangs or wrecks the GPU
//! context is replaced, and never takes the watcher down.

mod bench;
mod worker;

use crate::backend::BackendChoice;
use crate::cmd::check::record;
use crate::course::Course;
use crate::output;
use crate::pristine;
use crate::progress::Progress;
use crate::report::Render;
use crate::session::find_course;
use anyhow::Context;
pub use bench::bench;
use colored::Colorize;
use notify::{RecursiveMode, Watcher};
use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;
use worker::{check_limit, Lost, Worker};

/// Runs `runner watch`: checks the exercise again on every save (or Enter, with `manual`).
pub fn run(id: Option<String>, manual: bool, choice: BackendChoice) -> anyhow::Result<ExitCode> {
    output::quiet_when_closed(watch(id, manual, choice))
}

fn watch(id: Option<String>, manual: bool, choice: BackendChoice) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    pristine::snapshot_or_warn(&course);
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
    let lines = manual.then(stdin_lines).transpose()?;
    let mut checks = Checks {
        root: course.root.clone(),
        choice,
        worker: None,
    };

    loop {
        let passed = checks.check(&course, &current)?;
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

/// The lines typed on stdin (`--manual-run`), read on a thread of their own so that the watcher
/// can wait for a line and for other things at once.
fn stdin_lines() -> anyhow::Result<mpsc::Receiver<String>> {
    let (send, receive) = mpsc::channel();
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            for line in std::io::stdin().lock().lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        })
        .context("cannot start a thread to read what is typed")?;
    Ok(receive)
}

/// Blocks until `file` is written, then until the burst of events an editor's save makes (write,
/// rename, change of mode) has been quiet for a moment.
fn wait_for_save(receiver: &mpsc::Receiver<Vec<std::path::PathBuf>>, file: &Path) {
    let name = file.file_name();
    while let Ok(paths) = receiver.recv() {
        if paths.iter().any(|p| p.file_name() == name) {
            break;
        }
    }
    while receiver.recv_timeout(Duration::from_millis(40)).is_ok() {}
}

/// The checks of one watch: a worker, started again whenever it has gone.
struct Checks {
    root: std::path::PathBuf,
    choice: BackendChoice,
    worker: Option<Worker>,
}

impl Checks {
    fn worker(&mut self) -> anyhow::Result<&mut Worker> {
        if !self.worker.as_mut().is_some_and(Worker::alive) {
            self.restart()?;
        }
        Ok(self.worker.as_mut().expect("just started"))
    }

    /// Lets the worker go and starts another at once, so it is ready by the next save. The old
    /// one is reaped on a thread of its own: a GPU context can take a moment to tear down.
    fn restart(&mut self) -> anyhow::Result<()> {
        if let Some(old) = self.worker.take() {
            // Where no thread can be had, it is reaped here.
            let _ = std::thread::Builder::new()
                .name("old worker".into())
                .spawn(move || drop(old));
        }
        self.worker = Some(Worker::start(&self.root, self.choice)?);
        Ok(())
    }

    /// Checks exercise `id` in the worker, records a pass as `runner check` does and shows the
    /// report; whether it passed.
    fn check(&mut self, course: &Course, id: &str) -> anyhow::Result<bool> {
        let exercise = course.exercise(id)?.clone();
        output::print(&format!("{}\n", "─".repeat(72).dimmed()))?;
        if exercise.is_host() {
            // A whole program is built and run in processes of its own, each under a limit:
            // checked here, not in the worker.
            let path = course.exercise_path(&exercise);
            let options = crate::host::Options {
                seed: None,
                backend: crate::session::program_backend(self.choice),
                program: None,
            };
            let report = crate::cmd::check::host_report(course, &exercise, &path, &options, true)?;
            output::print(&report.render())?;
            return Ok(report.passed());
        }
        let limit = check_limit(&exercise);
        let mut asked = self.worker()?.check(id, None, limit);
        if let Err(Lost::Ended(_)) = asked {
            // Killed before it read the request, maybe: one more try in a new worker. A kernel
            // that ends the worker itself ends the second one too, and is reported.
            self.restart()?;
            asked = self.worker()?.check(id, None, limit);
        }
        let reply = match asked {
            Ok(reply) => reply,
            Err(lost) => {
                self.restart()?;
                let why = match lost {
                    Lost::Ended(how) => format!("the process checking it ended ({how})"),
                    Lost::TimedOut(limit) => format!(
                        "it was still running after {} s and was stopped",
                        limit.as_secs_f64()
                    ),
                };
                eprintln!(
                    "{} The check of {id} did not finish: {why}. Your file is as you saved it; \
                     save it again to check again.",
                    "Error:".red().bold()
                );
                return Ok(false);
            }
        };
        if reply.ending {
            self.restart()?;
        }
        match (reply.report, reply.error) {
            (Some(mut report), _) => {
                record(course, &exercise, &mut report, true)?;
                output::print(&report.render())?;
                Ok(report.passed())
            }
            (None, error) => {
                let error = error.unwrap_or_else(|| "the worker gave no report".into());
                eprintln!("{} {error}", "Error:".red().bold());
                Ok(false)
            }
        }
    }
}
