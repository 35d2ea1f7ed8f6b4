//! `runner reset NN`: restore the exercise's original file, keeping the student's as a backup.
//!
//! Nothing is written until the student's version is safe: it is copied to a backup and read back
//! first, and a file that cannot be copied (unreadable, a directory, a FIFO) stops the reset with
//! the file untouched.

use crate::output;
use crate::pristine;
use crate::progress::Progress;
use crate::session::find_course;
use anyhow::{bail, Context};
use colored::Colorize;
use std::fmt::Write as _;
use std::process::ExitCode;

/// Runs `runner reset ID`: restores the exercise's original file, keeping the student's as a backup.
pub fn run(id: &str) -> anyhow::Result<ExitCode> {
    output::quiet_when_closed(reset(id))
}

fn reset(id: &str) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    pristine::snapshot(&course)?;
    let exercise = course.exercise(id)?;
    let original = pristine::original(&course, exercise)?;
    let path = course.exercise_path(exercise);
    let shown = course.display_name(&path);
    let again = format!("then run `runner reset {}` again", exercise.id);
    let mut text = String::new();
    let permissions = match std::fs::metadata(&path) {
        Ok(metadata) if !metadata.is_file() => bail!(
            "{shown} is {}, so it cannot be kept as a backup; nothing was changed. \
             Move it aside (`mv {shown} {shown}.mine`), {again}.",
            runner::kernel_file::kind_of(&metadata)
        ),
        Ok(metadata) => {
            let current = pristine::read_regular(&path).map_err(|e| {
                anyhow::anyhow!(
                    "cannot read {shown} ({e}), so it cannot be kept as a backup; nothing was \
                     changed. Make it readable (`chmod u+r {shown}`), {again}."
                )
            })?;
            if current == original {
                writeln!(
                    text,
                    "{shown} is already as it was at the start; nothing to do."
                )?;
                clear_done(&course.root, &exercise.id)?;
                output::print(&text)?;
                return Ok(ExitCode::SUCCESS);
            }
            let backup =
                pristine::keep_backup(&course, exercise, &current, &metadata.permissions())
                    .with_context(|| format!("nothing was changed; {shown} is as you left it"))?;
            writeln!(
                text,
                "Your version is kept as {}",
                course.display_name(&backup)
            )?;
            Some(pristine::owner_can_edit(&metadata.permissions()))
        }
        // Deleted: there is nothing to keep.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => bail!("cannot look at {shown} ({e}); nothing was changed"),
    };
    pristine::write_with_permissions(&path, &original, permissions)
        .with_context(|| format!("cannot restore {}", path.display()))?;
    clear_done(&course.root, &exercise.id)?;
    writeln!(text, "Restored {shown} to the original.")?;
    output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The exercise starts over, so it is no longer done.
fn clear_done(root: &std::path::Path, id: &str) -> anyhow::Result<()> {
    let (_, warning) = Progress::update(root, |progress| progress.done.remove(id))?;
    if let Some(warning) = warning {
        eprintln!("{} {warning}", "Warning:".yellow().bold());
    }
    Ok(())
}
