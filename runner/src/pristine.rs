//! The exercises' original files, so `runner reset` can bring one back and a check can tell an
//! untouched exercise from an attempt.
//!
//! The originals of this course are embedded in the binary when it is built (`build.rs`), so the
//! original is known whatever the student did before the first run. A course that differs from the
//! one the binary was built with (a course updated since, or another course) falls back to the
//! copies the runner keeps in `.runner/pristine/` the first time it sees each exercise file.

use crate::compile::cache::write_atomically;
use crate::course::{Course, Exercise, METADATA};
use anyhow::Context;
use colored::Colorize;
use runner::kernel_file::{kind_of, open_nonblocking};
use std::io::Read;
use std::path::{Path, PathBuf};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

/// The most the runner reads of an exercise file it keeps or backs up; a kernel is a few KB.
const MAX_FILE_BYTES: u64 = 16 << 20;

fn pristine_path(course: &Course, exercise: &Exercise) -> PathBuf {
    course
        .root
        .join(".runner")
        .join("pristine")
        .join(&exercise.file)
}

/// The exercise's file as this course shipped it, when the course on disk is the one the binary
/// was built with. That is decided by the metadata: the same `exercises.toml` (line endings aside)
/// means the same exercises. Any other course, including this one after an update that changed
/// its metadata, gets `None` and the kept snapshot decides.
fn shipped(course: &Course, exercise: &Exercise) -> Option<&'static [u8]> {
    let embedded = embedded::METADATA?;
    let on_disk = std::fs::read_to_string(course.root.join(METADATA)).ok()?;
    if on_disk.replace("\r\n", "\n") != embedded.replace("\r\n", "\n") {
        return None;
    }
    embedded::FILES
        .iter()
        .find(|(file, _)| *file == exercise.file)
        .map(|(_, bytes)| *bytes)
}

/// `snapshot` for a check: a course whose `.runner/` cannot be written (read-only, a full disk)
/// is still checked, and the verdict printed, with a warning.
pub fn snapshot_or_warn(course: &Course) {
    if let Err(e) = snapshot(course) {
        eprintln!(
            "{} the exercises' originals were not kept ({e:#}); the check goes on, but `runner reset` \
             may not restore a file this runner does not ship: make the course's .runner/ folder \
             writable, or free disk space",
            "Warning:".yellow().bold()
        );
    }
}

/// Keeps a copy of every exercise file not yet kept: the shipped original where the binary knows
/// it, else the file as it is now. Anything but a regular file (a directory, a FIFO) is skipped,
/// never opened.
pub fn snapshot(course: &Course) -> anyhow::Result<()> {
    for exercise in &course.exercises {
        let kept = pristine_path(course, exercise);
        if kept.exists() {
            continue;
        }
        let bytes = match shipped(course, exercise) {
            Some(bytes) => bytes.to_vec(),
            None => match read_regular(&course.exercise_path(exercise)) {
                Ok(bytes) => bytes,
                Err(_) => continue,
            },
        };
        write_atomically(&kept, &bytes)
            .with_context(|| format!("cannot keep a copy in {}", kept.display()))?;
    }
    Ok(())
}

/// The original as text, for a check to tell an untouched file; None where it is unknown.
pub fn original_text(course: &Course, exercise: &Exercise) -> Option<String> {
    original(course, exercise)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
}

/// Where the grader's "file as handed out" came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandedOutFrom {
    /// The copy embedded in the runner when it was built from this course.
    Embedded,
    /// The copy the runner kept in `.runner/pristine/` the first time it saw the file.
    Kept,
    /// The course folder's own file: only for a course the runner was not built with and has no
    /// copy of, and never where that file is the solution (an instructor's solved copy).
    CourseFolder,
}

/// The exercise's file as handed out, for the grader to tell an untouched submission and to
/// subtract from similarity: the embedded copy, else the kept one, else the course folder's file.
/// A copy that is the exercise's solution (line endings and blank space aside) is no original:
/// grading from an instructor's solved copy of the course must not call a correct submission
/// "not done". None where no original is known.
pub fn handed_out(course: &Course, exercise: &Exercise) -> Option<(String, HandedOutFrom)> {
    if let Some(bytes) = shipped(course, exercise) {
        return Some((
            String::from_utf8_lossy(bytes).into_owned(),
            HandedOutFrom::Embedded,
        ));
    }
    let solution = read_regular(&course.solution_path(exercise))
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    let is_solution = |text: &str| solution.as_deref().is_some_and(|s| same_text(s, text));
    [
        (pristine_path(course, exercise), HandedOutFrom::Kept),
        (course.exercise_path(exercise), HandedOutFrom::CourseFolder),
    ]
    .into_iter()
    .filter_map(|(path, from)| {
        let bytes = read_regular(&path).ok()?;
        Some((String::from_utf8(bytes).ok()?, from))
    })
    .find(|(text, _)| !is_solution(text))
}

/// Whether two texts are the same file but for line endings and trailing blank space, which an
/// editor may change on save.
pub fn same_text(a: &str, b: &str) -> bool {
    a.replace("\r\n", "\n").trim_end() == b.replace("\r\n", "\n").trim_end()
}

/// The exercise's file as it was handed out: the copy built into the runner where the course is
/// the one it was built with, else the snapshot kept in `.runner/pristine/` (what `runner reset`
/// restores and a "not done" verdict compares with).
pub fn original(course: &Course, exercise: &Exercise) -> anyhow::Result<Vec<u8>> {
    if let Some(bytes) = shipped(course, exercise) {
        return Ok(bytes.to_vec());
    }
    let kept = pristine_path(course, exercise);
    std::fs::read(&kept).with_context(|| {
        format!(
            "the original of exercise {} was never kept ({} is missing)",
            exercise.id,
            kept.display()
        )
    })
}

/// Reads a regular file of at most `MAX_FILE_BYTES`. The type is checked before the file is
/// opened, and again on what was opened (without waiting in the open: see `open_nonblocking`).
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let not_regular = |metadata: &std::fs::Metadata| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is {}, not a regular file", kind_of(metadata)),
        )
    };
    let metadata = std::fs::metadata(path)?;
    if !metadata.is_file() {
        return Err(not_regular(&metadata));
    }
    let file = open_nonblocking(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(not_regular(&metadata));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "it is {} bytes, more than the {MAX_FILE_BYTES} an exercise file may be",
            metadata.len()
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Writes `bytes` to `path` atomically, with `permissions` (the student's file's, so a restored
/// file keeps its mode) or, for a new file, the usual mode of a file the student creates.
pub fn write_with_permissions(
    path: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    if let Some(permissions) = permissions.or_else(default_permissions) {
        file.as_file().set_permissions(permissions)?;
    }
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A new file's mode where the temporary file's own (0600) would not be: readable by all, as
/// the shipped exercise files are.
fn default_permissions() -> Option<std::fs::Permissions> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o644))
    }
    #[cfg(not(unix))]
    None
}

/// The student's file's permissions, made readable and writable by the student: a restored file
/// keeps its mode (a shared or executable bit stays) but is never left unreadable.
pub fn owner_can_edit(permissions: &std::fs::Permissions) -> std::fs::Permissions {
    let mut permissions = permissions.clone();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        permissions.set_mode(permissions.mode() | 0o600);
    }
    #[cfg(not(unix))]
    permissions.set_readonly(false);
    permissions
}

/// Keeps `bytes` (the student's version) as a new backup and reads it back to make sure it is
/// there, readable and whole. Returns its path.
pub fn keep_backup(
    course: &Course,
    exercise: &Exercise,
    bytes: &[u8],
    permissions: &std::fs::Permissions,
) -> anyhow::Result<PathBuf> {
    let backup = backup_path(course, exercise);
    write_with_permissions(&backup, bytes, Some(owner_can_edit(permissions)))
        .with_context(|| format!("cannot write the backup {}", backup.display()))?;
    let read_back = read_regular(&backup)
        .with_context(|| format!("cannot read back the backup {}", backup.display()))?;
    anyhow::ensure!(
        read_back == bytes,
        "the backup {} does not hold what was written",
        backup.display()
    );
    Ok(backup)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exercise_of_the_course_is_embedded_as_shipped() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let course = Course::load(&root).unwrap();
        for exercise in &course.exercises {
            let shipped = shipped(&course, exercise)
                .unwrap_or_else(|| panic!("exercise {} is not embedded", exercise.id));
            assert!(!shipped.is_empty(), "exercise {}", exercise.id);
        }
    }
}
