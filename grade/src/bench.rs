//! `runner grade bench`: a synthetic class, graded and timed (in the simulator unless told). Each submission holds, per
//! exercise, the course's solution (most), the exercise's own file (not done) or nothing
//! (missing), each with a comment that makes it unique, so every check compiles afresh as it
//! would for a real class.

use super::prepare::select_exercises;
use super::results::Store;
use super::run::{grade_class, Options};
use super::worker::Isolation;
use anyhow::Context;
use runner::session::find_course;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

pub(crate) fn run(
    count: usize,
    jobs: Option<usize>,
    exercises: Option<&str>,
    keep: Option<&Path>,
    backend: contract::Backend,
    isolation: Option<Isolation>,
    profile: bool,
) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    let chosen = select_exercises(&course, exercises, false)?;
    let scratch = tempfile::Builder::new()
        .prefix("runner-grade-bench-")
        .tempdir()
        .context("cannot make a scratch folder")?;
    let root = keep.unwrap_or(scratch.path());
    let class = root.join("class");
    for k in 0..count {
        for (n, exercise) in chosen.iter().enumerate() {
            let source = match (k + n) % 10 {
                0 => course.exercise_path(exercise),
                1 => continue,
                _ => match course.solution_path(exercise) {
                    path if path.is_file() => path,
                    _ => course.exercise_path(exercise),
                },
            };
            let text = std::fs::read_to_string(&source)
                .with_context(|| format!("cannot read {}", source.display()))?;
            let path = class.join(format!("student{k:04}")).join(&exercise.file);
            std::fs::create_dir_all(path.parent().unwrap_or(&class))?;
            std::fs::write(&path, format!("// synthetic submission {k}\n{text}"))
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    let out = root.join("grades");
    let _ = std::fs::remove_dir_all(&out);
    let options = Options {
        submissions: class,
        out: out.clone(),
        seed: None,
        jobs,
        backend: backend.into(),
        exercises: exercises.map(str::to_string),
        resume: false,
        grading: None,
        shard: None,
        isolation,
        run_programs: false,
        no_sandbox: false,
        trace_workers: profile.then(|| root.join("worker-traces")),
    };
    let started = Instant::now();
    let graded = grade_class(&options, &course)?;
    let seconds = started.elapsed().as_secs_f64();
    let cells = count * chosen.len();
    let mut statuses = std::collections::BTreeMap::new();
    for cell in Store::new(&out).all() {
        *statuses.entry(cell.status.name()).or_insert(0) += 1;
    }
    println!(
        "Graded {count} submissions x {} exercises = {cells} cells ({} checks run) on {} in {seconds:.1} s with \
         {} {}: {:.2} checks per second, {:.0} ms per check per job. Cells: {statuses:?}.",
        chosen.len(),
        graded.graded_now,
        graded.settings.device,
        graded.workers,
        if graded.isolation == Isolation::Worker { "workers" } else { "jobs (a process per cell)" },
        graded.graded_now as f64 / seconds,
        seconds * 1000.0 * graded.workers as f64 / graded.graded_now.max(1) as f64
    );
    println!(
        "At this rate 200 x 24 takes {:.1} minutes.",
        200.0 * 24.0 * seconds / cells.max(1) as f64 / 60.0
    );
    if let Some(traces) = profile.then(|| root.join("worker-traces")) {
        match super::profile::read_dir(&traces) {
            Ok(phases) if !phases.is_empty() => {
                print!("{}", super::profile::render(&phases, graded.graded_now))
            }
            _ => println!(
                "No profile: --profile traces the workers that check many cells, and this run had \
                 none (a process per cell)."
            ),
        }
    }
    if keep.is_some() {
        println!("The class and its results are in {}.", root.display());
    }
    Ok(ExitCode::SUCCESS)
}
