//! `runner hint NN`: one more hint each time, from a nudge to nearly the answer.

use crate::progress::Progress;
use crate::session::find_course;
use colored::Colorize;
use std::process::ExitCode;

pub fn run(id: &str) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    let exercise = course.exercise(id)?;
    let (mut progress, _) = Progress::load(&course.root)?;
    let total = exercise.hints.len();
    let shown = progress.hints_shown.get(&exercise.id).copied().unwrap_or(0);
    let now = (shown + 1).min(total);
    for (i, hint) in exercise.hints.iter().enumerate().take(now) {
        let label = format!("Hint {} of {total}:", i + 1);
        if i + 1 == now {
            println!("{} {hint}", label.bold());
        } else {
            println!("{} {}", label.dimmed(), hint.dimmed());
        }
    }
    if now == total {
        println!(
            "That was the last hint. The worked solution is in solutions/{} if you are stuck for good.",
            exercise.file
        );
    }
    progress.hints_shown.insert(exercise.id.clone(), now);
    progress.save()?;
    Ok(ExitCode::SUCCESS)
}
