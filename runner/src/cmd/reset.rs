//! `runner reset NN`: restore the exercise's original file, keeping the student's as a backup.

use crate::compile::cache::write_atomically;
use crate::pristine;
use crate::session::find_course;
use anyhow::Context;
use std::process::ExitCode;

pub fn run(id: &str) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    pristine::snapshot(&course)?;
    let exercise = course.exercise(id)?;
    let original = pristine::original(&course, exercise)?;
    let path = course.exercise_path(exercise);
    if let Ok(current) = std::fs::read(&path) {
        if current == original {
            println!(
                "{} is already as it was at the start; nothing to do.",
                course.display_name(&path)
            );
            return Ok(ExitCode::SUCCESS);
        }
        let backup = pristine::backup_path(&course, exercise);
        write_atomically(&backup, &current)
            .with_context(|| format!("cannot write the backup {}", backup.display()))?;
        println!("Your version is kept as {}", course.display_name(&backup));
    }
    write_atomically(&path, &original)
        .with_context(|| format!("cannot restore {}", path.display()))?;
    println!("Restored {} to the original.", course.display_name(&path));
    Ok(ExitCode::SUCCESS)
}
