//! `runner hint NN`: one more hint each time, from a nudge to nearly the answer.

use crate::output;
use crate::progress::Progress;
use crate::session::find_course;
use colored::Colorize;
use std::fmt::Write as _;
use std::process::ExitCode;

/// Runs `runner hint ID`: shows the exercise's next hint and counts it as seen.
pub fn run(id: &str) -> anyhow::Result<ExitCode> {
    output::quiet_when_closed(hint(id))
}

fn hint(id: &str) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    let exercise = course.exercise(id)?;
    let total = exercise.hints.len();
    // Counted before it is shown: a hint the reader missed (a closed pipe) is shown again, dimmed,
    // with the next one.
    let (now, warning) = Progress::update(&course.root, |progress| {
        let shown = progress.hints_shown.get(&exercise.id).copied().unwrap_or(0);
        let now = (shown + 1).min(total);
        progress.hints_shown.insert(exercise.id.clone(), now);
        now
    })?;
    if let Some(warning) = warning {
        eprintln!("{} {warning}", "Warning:".yellow().bold());
    }
    let mut text = String::new();
    for (i, hint) in exercise.hints.iter().enumerate().take(now) {
        let label = format!("Hint {} of {total}:", i + 1);
        if i + 1 == now {
            writeln!(text, "{} {hint}", label.bold())?;
        } else {
            writeln!(text, "{} {}", label.dimmed(), hint.dimmed())?;
        }
    }
    if now == total {
        writeln!(
            text,
            "That was the last hint. The worked solution is in solutions/{} if you are stuck for good.",
            exercise.file
        )?;
    }
    output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
