//! `runner check NN`: the main verb.

use crate::checker::Checker;
use crate::cli::CheckArgs;
use crate::pristine;
use crate::progress::Progress;
use crate::session::{compiler_and_backend, find_course};
use crate::trace;
use colored::Colorize;
use std::process::ExitCode;

pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let CheckArgs {
        id,
        json,
        seed,
        sizes,
        file,
        save_outputs,
        backend,
    } = args;
    let course = find_course()?;
    pristine::snapshot(&course)?;
    trace::mark("course found, originals snapshotted");
    let exercise = course.exercise(&id)?.clone();
    let (compiler, mut backend) = compiler_and_backend(&course, backend.backend, json)?;
    trace::mark(format!(
        "NVRTC loaded and backend opened: {}",
        backend.describe()
    ));
    let (mut progress, warning) = Progress::load(&course.root)?;
    if let Some(warning) = warning {
        eprintln!("{} {warning}", "Warning:".yellow().bold());
    }
    let own_file = file.is_none();
    let path = file.unwrap_or_else(|| course.exercise_path(&exercise));
    let mut checker = Checker {
        course: &course,
        compiler: &compiler,
        backend: backend.as_mut(),
        seed,
        extra_sizes: sizes,
        timing: true,
        save_outputs,
        retile: false,
    };
    let mut report = checker.check(&exercise, &path)?;
    trace::mark("check done");
    if report.passed() && own_file {
        progress.mark_done(&exercise.id, backend.kind());
        progress.save()?;
        let next = course.exercises.iter().find(|e| !progress.is_done(&e.id));
        report.summary.push_str(&match next {
            Some(next) => format!(" Next: `runner check {}` ({}).", next.id, next.title),
            None => " That was the last one: the course is done!".into(),
        });
    }
    let done = course
        .exercises
        .iter()
        .filter(|e| progress.is_done(&e.id))
        .count();
    report.progress = Some((done, course.exercises.len()));
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.render());
    }
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
