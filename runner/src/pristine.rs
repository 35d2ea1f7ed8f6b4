//! The exercises' original files, kept so `runner reset` can bring one back.
//!
//! The first time the runner sees a course it copies every exercise file into
//! `.runner/pristine/`, before the student has edited anything; an exercise added later (a course
//! update) is copied the first time it is seen.

use crate::compile::cache::write_atomically;
use crate::course::{Course, Exercise};
use anyhow::Context;
use std::path::PathBuf;

fn pristine_path(course: &Course, exercise: &Exercise) -> PathBuf {
    course
        .root
        .join(".runner")
        .join("pristine")
        .join(&exercise.file)
}

/// Copies every exercise file not yet kept.
pub fn snapshot(course: &Course) -> anyhow::Result<()> {
    for exercise in &course.exercises {
        let kept = pristine_path(course, exercise);
        if kept.exists() {
            continue;
        }
        if let Ok(bytes) = std::fs::read(course.exercise_path(exercise)) {
            write_atomically(&kept, &bytes)
                .with_context(|| format!("cannot keep a copy in {}", kept.display()))?;
        }
    }
    Ok(())
}

pub fn original(course: &Course, exercise: &Exercise) -> anyhow::Result<Vec<u8>> {
    let kept = pristine_path(course, exercise);
    std::fs::read(&kept).with_context(|| {
        format!(
            "the original of exercise {} was never kept ({} is missing)",
            exercise.id,
            kept.display()
        )
    })
}

/// A new backup path each time, so no reset overwrites an earlier backup.
pub fn backup_path(course: &Course, exercise: &Exercise) -> PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    course
        .root
        .join(".runner")
        .join("backups")
        .join(format!("{stamp}"))
        .join(&exercise.file)
}
