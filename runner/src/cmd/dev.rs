//! `runner dev check`: for course authors and CI, everything each exercise needs.

use crate::backend::BackendChoice;
use crate::checker::Checker;
use crate::course::{Course, Exercise};
use crate::report::Verdict;
use crate::session::{compiler, find_course, open_backend};
use colored::Colorize;
use similar::{ChangeTag, TextDiff};
use std::process::ExitCode;

/// Checks the exercises named by `ids` (every exercise when there is none).
pub fn check(ids: &[String], choice: BackendChoice) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    let chosen: Vec<&Exercise> = if ids.is_empty() {
        course.exercises.iter().collect()
    } else {
        ids.iter()
            .map(|id| course.exercise(id))
            .collect::<anyhow::Result<_>>()?
    };
    let compiler = compiler(&course)?;
    let mut backend = open_backend(choice, &compiler, true)?;
    println!(
        "Checking {} exercises on {}",
        chosen.len(),
        backend.describe()
    );
    let mut problems = 0;
    for exercise in chosen {
        let mut checker = Checker {
            course: &course,
            compiler: &compiler,
            backend: backend.as_mut(),
            seed: None,
            extra_sizes: Vec::new(),
            timing: false,
            save_outputs: None,
            retile: false,
            premade: None,
            original: None,
            compile_as: None,
        };
        let found = problems_of(&course, exercise, &mut checker);
        let tuned = if course.tuned_path(exercise).is_some() {
            " (and its tuned reference)"
        } else {
            ""
        };
        if found.is_empty() {
            println!(
                "  {} {} {}{tuned}",
                "✓".green(),
                exercise.id,
                exercise.title
            );
        } else {
            println!("  {} {} {}", "✗".red(), exercise.id, exercise.title);
            for p in &found {
                println!("      {p}");
            }
        }
        problems += found.len();
    }
    if problems > 0 {
        println!("\n{problems} problems.");
        return Ok(ExitCode::FAILURE);
    }
    println!("\nEvery exercise is complete.");
    Ok(ExitCode::SUCCESS)
}

/// A host exercise's solution must pass and its pristine program be "not done", through the
/// simulator's driver; the solution only adds lines, as a kernel exercise's does.
fn host_problems(course: &Course, exercise: &Exercise) -> Vec<String> {
    let mut problems = Vec::new();
    if !checks::host_ids().any(|id| id == exercise.id) {
        problems.push("has no host check in checks/src/host.rs".into());
        return problems;
    }
    let (pristine_path, solution_path) = (
        course.exercise_path(exercise),
        course.solution_path(exercise),
    );
    let (Ok(pristine), Ok(solution)) = (
        std::fs::read_to_string(&pristine_path),
        std::fs::read_to_string(&solution_path),
    ) else {
        problems.push(format!(
            "needs both {} and {}",
            course.display_name(&pristine_path),
            course.display_name(&solution_path)
        ));
        return problems;
    };
    if let Some(change) = first_non_addition(&pristine, &solution) {
        problems.push(format!(
            "the solution must only add lines to the exercise, but it changes: {change}"
        ));
    }
    let options = crate::host::Options::simulator();
    match crate::host::check(course, exercise, &solution_path, &options, Some(&pristine)) {
        Ok(report) if report.passed() => {}
        Ok(report) => problems.push(format!(
            "the solution does not pass: {:?}: {}{}",
            report.verdict,
            report.summary,
            report.build_errors.as_deref().unwrap_or_default()
        )),
        Err(e) => problems.push(format!("the solution could not be checked: {e:#}")),
    }
    match crate::host::check(course, exercise, &pristine_path, &options, Some(&pristine)) {
        Ok(report) if report.verdict == Verdict::NotDone => {}
        Ok(report) => problems.push(format!(
            "the pristine exercise should be \"not done\", and is {:?}",
            report.verdict
        )),
        Err(e) => problems.push(format!("the pristine exercise could not be checked: {e:#}")),
    }
    problems
}

fn problems_of(course: &Course, exercise: &Exercise, checker: &mut Checker) -> Vec<String> {
    let mut problems = Vec::new();
    if exercise.hints.len() < 2 {
        problems.push(format!(
            "has {} hints; give at least two, from a nudge to nearly the answer",
            exercise.hints.len()
        ));
    }
    if exercise.is_host() {
        problems.extend(host_problems(course, exercise));
        return problems;
    }
    if !checks::known_ids().any(|id| id == exercise.id) {
        problems.push("has no check in checks/src/exercises.rs".into());
        return problems;
    }
    let chapter = course.root.join("book").join("src").join(&exercise.chapter);
    if course.root.join("book").exists() && !chapter.exists() {
        problems.push(format!(
            "its chapter book/src/{} does not exist",
            exercise.chapter
        ));
    }
    let pristine_path = course.exercise_path(exercise);
    let solution_path = course.solution_path(exercise);
    let (Ok(pristine), Ok(solution)) = (
        std::fs::read_to_string(&pristine_path),
        std::fs::read_to_string(&solution_path),
    ) else {
        problems.push(format!(
            "needs both {} and {}",
            course.display_name(&pristine_path),
            course.display_name(&solution_path)
        ));
        return problems;
    };
    if let Some(change) = first_non_addition(&pristine, &solution) {
        problems.push(format!(
            "the solution must only add lines to the exercise, but it changes: {change}"
        ));
    }
    if !pristine.contains("TODO") {
        problems.push("the exercise file has no `TODO` marker".into());
    }
    checker.original = Some(pristine.clone());
    match checker.check(exercise, &solution_path) {
        Ok(report) if report.passed() => {}
        Ok(report) => problems.push(format!(
            "the solution does not pass: {}",
            first_failure(&report)
        )),
        Err(e) => problems.push(format!("the solution could not be checked: {e:#}")),
    }
    match checker.check(exercise, &pristine_path) {
        Ok(report) if report.verdict == Verdict::NotDone => {}
        Ok(report) => problems.push(format!(
            "the pristine exercise should be \"not done\", and is {:?}: {}",
            report.verdict,
            first_failure(&report)
        )),
        Err(e) => problems.push(format!("the pristine exercise could not be checked: {e:#}")),
    }
    if let Some(tuned_path) = course.tuned_path(exercise) {
        problems.extend(tuned_problems(course, exercise, checker, &tuned_path));
    }
    problems
}

/// A tuned reference must get every case right under its own launch. The exercise's targets
/// do not apply: they teach one way (a float4 load is 16 sectors per request, by design).
fn tuned_problems(
    course: &Course,
    exercise: &Exercise,
    checker: &mut Checker,
    path: &std::path::Path,
) -> Option<String> {
    checker.retile = true;
    let outcome = checker.check(exercise, path);
    checker.retile = false;
    let name = course.display_name(path);
    match outcome {
        Ok(report)
            if matches!(report.verdict, Verdict::Passed | Verdict::TargetsMissed)
                && !report.cases.is_empty() =>
        {
            None
        }
        Ok(report) => Some(format!(
            "the tuned reference {name} does not pass: {}",
            first_failure(&report)
        )),
        Err(e) => Some(format!(
            "the tuned reference {name} could not be checked: {e:#}"
        )),
    }
}

fn first_failure(report: &crate::report::CheckReport) -> String {
    let failing = report.cases.iter().find(|c| !c.passed);
    let detail = failing.and_then(|c| {
        c.error.clone().or_else(|| {
            c.mismatch
                .as_ref()
                .map(|m| format!("{} wrong elements of {}", m.wrong, m.buffer))
        })
    });
    match (failing, detail) {
        (Some(case), Some(detail)) => format!("{}: {detail}", case.name),
        _ => report.summary.clone(),
    }
}

/// The first line the solution removes or changes, if any.
pub fn first_non_addition(exercise: &str, solution: &str) -> Option<String> {
    TextDiff::from_lines(exercise, solution)
        .iter_all_changes()
        .find(|c| c.tag() == ChangeTag::Delete)
        .map(|c| {
            format!(
                "line {}: {:?}",
                c.old_index().map_or(0, |i| i + 1),
                c.value().trim_end()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::first_non_addition;

    #[test]
    fn added_lines_are_fine_and_changed_lines_are_named() {
        assert_eq!(first_non_addition("a\nb\n", "a\nx\nb\n"), None);
        let change = first_non_addition("a\nb\n", "a\nc\n").unwrap();
        assert!(change.starts_with("line 2"), "{change}");
    }
}
