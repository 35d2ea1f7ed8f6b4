//! `runner watch --bench N` (hidden): how long a student waits between a save and the report,
//! with each check in a process of its own (as `watch` did before it had a worker) and through
//! the worker. Both check a copy of the exercise's solution, saved with a new last line before
//! each check so that every check compiles afresh, as after a real save.

use super::worker::{check_limit, Worker};
use crate::backend::BackendChoice;
use crate::cmd::check::record;
use crate::output;
use crate::report::Render;
use crate::session::find_course;
use crate::trace;
use anyhow::Context;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// `runner watch --bench N`: times the first check and `times` checks after a save, in a process
/// each and through the worker, on a copy of the exercise's solution.
pub fn bench(id: Option<String>, times: usize, choice: BackendChoice) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    let id = id.unwrap_or_else(|| "02".into());
    let exercise = course.exercise(&id)?.clone();
    let solution_path = course.solution_path(&exercise);
    let solution = std::fs::read_to_string(&solution_path)
        .with_context(|| format!("cannot read {}", solution_path.display()))?;
    let dir = tempfile::tempdir().context("cannot make a folder for the copy")?;
    let file = dir.path().join(
        solution_path
            .file_name()
            .context("the solution has no file name")?,
    );
    let save = |count: usize| {
        let stamp = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        std::fs::write(&file, format!("{solution}\n// save {count} at {stamp}\n"))
            .with_context(|| format!("cannot write {}", file.display()))
    };

    let exe = std::env::current_exe().context("cannot find the runner's own program")?;
    let mut alone = Vec::new();
    for count in 0..=times {
        save(count)?;
        let started = Instant::now();
        check_alone(&exe, &course.root, &id, &file, choice)?;
        alone.push(started.elapsed());
    }

    let mut served = Vec::new();
    let mut last = None;
    let started = Instant::now();
    let mut worker = Worker::start(&course.root, choice)?;
    for count in 0..=times {
        save(count)?;
        // The first check counts the worker's start: NVRTC loaded, the backend opened.
        let started = if count == 0 { started } else { Instant::now() };
        trace::mark("request sent");
        let reply = worker
            .check(&id, Some(file.clone()), check_limit(&exercise))
            .map_err(|_| anyhow::anyhow!("the worker did not answer"))?;
        trace::mark("reply read");
        let mut report = reply
            .report
            .with_context(|| reply.error.unwrap_or_default())?;
        record(&course, &exercise, &mut report, false)?;
        trace::mark("recorded");
        let shown = report.render();
        trace::mark("rendered");
        served.push(started.elapsed());
        anyhow::ensure!(report.passed(), "the solution did not pass:\n{shown}");
        last = Some(report);
    }
    let report = last.context("no check was made")?;
    output::print(&table(&id, &report.device, &alone, &served))?;
    Ok(ExitCode::SUCCESS)
}

/// One check as `watch` made it before the worker: a `runner check` of its own.
fn check_alone(
    exe: &Path,
    root: &Path,
    id: &str,
    file: &Path,
    choice: BackendChoice,
) -> anyhow::Result<()> {
    let mut command = Command::new(exe);
    command
        .current_dir(root)
        .args(["check", id, "--file"])
        .arg(file);
    if let Some(flag) = choice.flag() {
        command.args(["--backend", flag]);
    }
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context("cannot start `runner check`")?;
    anyhow::ensure!(
        status.success(),
        "`runner check {id}` of the solution failed"
    );
    Ok(())
}

fn table(id: &str, device: &str, alone: &[Duration], served: &[Duration]) -> String {
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
    let rechecks = |all: &[Duration]| {
        let mut later = all[1..].to_vec();
        later.sort();
        later
    };
    let (alone_later, served_later) = (rechecks(alone), rechecks(served));
    let row = |what: &str, pick: &dyn Fn(&[Duration], &[Duration]) -> Duration| {
        format!(
            "| {what} | {} | {} |\n",
            ms(pick(alone, &alone_later)),
            ms(pick(served, &served_later))
        )
    };
    let n = alone_later.len();
    let mut out = format!(
        "Exercise {id} on {device}: wall time from the save to the report, {n} checks after a save.\n\n\
         | | a process per check (before) | worker (after) |\n| --- | ---: | ---: |\n"
    );
    out.push_str(&row("first check", &|all, _| all[0]));
    if n > 0 {
        out.push_str(&row("check after the first save", &|all, _| all[1]));
        out.push_str(&row(
            &format!("median of {n} checks after a save"),
            &|_, later| later[later.len() / 2],
        ));
        out.push_str(&row("fastest", &|_, later| later[0]));
        out.push_str(&row("slowest", &|_, later| later[later.len() - 1]));
    }
    out
}
