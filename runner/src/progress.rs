//! The student's progress: which exercises pass, how many hints each has shown, and the scores of
//! the chapters' quizzes (`runner quiz`). Kept in
//! `.runner/progress.json` in the course, written atomically so no crash can leave half a file.
//!
//! Several runners may work on one course at once (`watch` in one terminal, `check` or `hint` in
//! another, or checks run in parallel), so every change is a read-modify-write under an exclusive
//! lock on `.runner/progress.lock`: the file is read again inside the lock, the one change is
//! applied, and the result written before the lock is released. A change made in memory
//! (`mark_done`) is queued and applied that way by `save`, so a process that loaded the progress
//! long before never writes back what others changed since.

use crate::compile::cache::write_atomically;
use anyhow::Context;
use colored::Colorize;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One course's progress as `.runner/progress.json` keeps it, with the changes not yet saved.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Progress {
    /// The exercises passed, by id: when and where each first passed.
    #[serde(default)]
    pub done: BTreeMap<String, DoneRecord>,
    /// How many of each exercise's hints `runner hint` has shown, so the next call shows the
    /// next one.
    #[serde(default)]
    pub hints_shown: BTreeMap<String, usize>,
    /// Each chapter's Check yourself quiz, by the page's name (`coalescing`), once taken.
    #[serde(default)]
    pub quizzes: BTreeMap<String, QuizScore>,
    #[serde(skip)]
    path: PathBuf,
    /// Changes made in memory since the load, applied to the file as it is then by `save`.
    #[serde(skip)]
    queued: Vec<(String, DoneRecord)>,
}

/// An exercise's pass.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DoneRecord {
    /// Seconds since the Unix epoch.
    pub at: u64,
    /// Where it passed, as `--backend` names it (`gpu`, `sim`).
    pub backend: String,
}

/// A chapter's quiz as last taken: how many of its checked questions `runner quiz` judged right.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuizScore {
    /// Questions answered right in the latest finished try.
    pub right: usize,
    /// The quiz's checked questions (those the book gives a key); the others are not scored.
    pub questions: usize,
    /// The most right in any finished try.
    pub best: usize,
    /// Seconds since the Unix epoch.
    pub at: u64,
}

/// The exclusive lock on a course's progress, released when dropped.
struct Lock {
    _file: std::fs::File,
}

impl Lock {
    fn take(course_root: &Path) -> anyhow::Result<Lock> {
        let dir = course_root.join(".runner");
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join("progress.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        file.lock()
            .with_context(|| format!("cannot lock {}", path.display()))?;
        Ok(Lock { _file: file })
    }
}

impl Progress {
    /// Where the course at `course_root` keeps its progress.
    pub fn path_in(course_root: &Path) -> PathBuf {
        course_root.join(".runner").join("progress.json")
    }

    /// Loads the progress; a damaged file is kept aside (never deleted) and progress starts over.
    pub fn load(course_root: &Path) -> anyhow::Result<(Progress, Option<String>)> {
        // A course the student cannot write (an instructor looking at a copy) is still read; the
        // lock only keeps two runners from moving a damaged file aside at once.
        let _lock = Lock::take(course_root).ok();
        Progress::read(course_root)
    }

    /// The progress for a check's verdict: where it cannot be read (`.runner/` unreadable, or not
    /// a folder), none, with a warning, for the verdict is printed whatever becomes of the progress.
    pub fn load_or_none(course_root: &Path) -> (Progress, Option<String>) {
        Progress::load(course_root).unwrap_or_else(|e| {
            let none = Progress {
                path: Progress::path_in(course_root),
                ..Default::default()
            };
            (none, Some(not_saved(&e)))
        })
    }

    /// `save`, with a failure (a read-only `.runner/`, a full disk) turned into a warning: the
    /// check's verdict still stands and is printed.
    pub fn save_or_warn(&mut self) -> Option<String> {
        self.save().err().map(|e| not_saved(&e))
    }

    /// Applies `change` to the progress as it is on disk, under the lock, and saves it.
    pub fn update<T>(
        course_root: &Path,
        change: impl FnOnce(&mut Progress) -> T,
    ) -> anyhow::Result<(T, Option<String>)> {
        let _lock = Lock::take(course_root)?;
        let (mut progress, warning) = Progress::read(course_root)?;
        let value = change(&mut progress);
        progress.write()?;
        Ok((value, warning))
    }

    fn read(course_root: &Path) -> anyhow::Result<(Progress, Option<String>)> {
        let path = Progress::path_in(course_root);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok((
                    Progress {
                        path,
                        ..Default::default()
                    },
                    None,
                ));
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        match serde_json::from_str::<Progress>(&text) {
            Ok(mut progress) => {
                progress.path = path;
                Ok((progress, None))
            }
            Err(e) => {
                let aside = path.with_extension(format!("damaged-{}", now()));
                std::fs::rename(&path, &aside)
                    .with_context(|| format!("cannot move {} aside", path.display()))?;
                let warning = format!(
                    "{} was damaged ({e}); it was kept as {} and progress starts over",
                    path.display(),
                    aside.display()
                );
                Ok((
                    Progress {
                        path,
                        ..Default::default()
                    },
                    Some(warning),
                ))
            }
        }
    }

    fn write(&self) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        write_atomically(&self.path, text.as_bytes())
            .with_context(|| format!("cannot save progress to {}", self.path.display()))
    }

    /// Applies the changes made since the load to the progress on disk as it is now; afterwards
    /// this holds the merged progress, others' changes included.
    pub fn save(&mut self) -> anyhow::Result<()> {
        let root = self
            .path
            .parent()
            .and_then(Path::parent)
            .context("the progress file has no course")?
            .to_path_buf();
        let queued = std::mem::take(&mut self.queued);
        let (merged, warning) = Progress::update(&root, |progress| {
            for (id, record) in queued {
                progress.done.insert(id, record);
            }
            (progress.done.clone(), progress.hints_shown.clone())
        })?;
        if let Some(warning) = warning {
            eprintln!("{} {warning}", "Warning:".yellow().bold());
        }
        (self.done, self.hints_shown) = merged;
        Ok(())
    }

    /// Marks exercise `id` passed on `backend` now; `save` writes it.
    pub fn mark_done(&mut self, id: &str, backend: &str) {
        let record = DoneRecord {
            at: now(),
            backend: backend.to_string(),
        };
        self.done.insert(id.to_string(), record.clone());
        self.queued.push((id.to_string(), record));
    }

    /// Whether exercise `id` has passed, as the progress stood when loaded (or marked since).
    pub fn is_done(&self, id: &str) -> bool {
        self.done.contains_key(id)
    }

    /// Records a finished quiz of `chapter`; the best score is kept across tries, unless the
    /// chapter's number of questions changed since.
    pub fn record_quiz(&mut self, chapter: &str, right: usize, questions: usize) -> QuizScore {
        let best = match self.quizzes.get(chapter) {
            Some(before) if before.questions == questions => before.best.max(right),
            _ => right,
        };
        let score = QuizScore {
            right,
            questions,
            best,
            at: now(),
        };
        self.quizzes.insert(chapter.to_string(), score.clone());
        score
    }
}

/// What a check says when its outcome cannot be recorded.
fn not_saved(e: &anyhow::Error) -> String {
    format!(
        "progress was not saved ({e:#}); the verdict stands, but `runner list` will not show it: \
         make the course's .runner/ folder writable, or free disk space, and check again"
    )
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_round_trips_and_damaged_files_are_kept_aside() {
        let dir = tempfile::tempdir().unwrap();
        let (mut p, warning) = Progress::load(dir.path()).unwrap();
        assert!(warning.is_none());
        p.mark_done("02", "sim");
        p.save().unwrap();
        let (p, _) = Progress::load(dir.path()).unwrap();
        assert!(p.is_done("02") && !p.is_done("03"));

        std::fs::write(Progress::path_in(dir.path()), "{ not json").unwrap();
        let (p, warning) = Progress::load(dir.path()).unwrap();
        assert!(!p.is_done("02"));
        assert!(warning.unwrap().contains("damaged"));
        let kept = std::fs::read_dir(dir.path().join(".runner"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .to_string_lossy()
                    .contains("damaged")
            })
            .count();
        assert_eq!(kept, 1, "the damaged file is kept");
    }

    #[test]
    fn a_save_keeps_what_others_changed_since_the_load() {
        let dir = tempfile::tempdir().unwrap();
        let (mut check, _) = Progress::load(dir.path()).unwrap();
        Progress::update(dir.path(), |p| {
            p.hints_shown.insert("03".into(), 2);
            p.mark_done("01", "sim");
        })
        .unwrap();
        check.mark_done("02", "sim");
        check.save().unwrap();
        assert!(check.is_done("01") && check.is_done("02"));
        let (p, _) = Progress::load(dir.path()).unwrap();
        assert!(p.is_done("01") && p.is_done("02"));
        assert_eq!(p.hints_shown.get("03"), Some(&2));
    }

    #[test]
    fn quiz_scores_keep_the_best_and_survive_other_saves() {
        let dir = tempfile::tempdir().unwrap();
        let (mut check, _) = Progress::load(dir.path()).unwrap();
        Progress::update(dir.path(), |p| p.record_quiz("warps", 4, 5)).unwrap();
        let (score, _) = Progress::update(dir.path(), |p| p.record_quiz("warps", 2, 5)).unwrap();
        assert_eq!((score.right, score.best), (2, 4));
        // A check that loaded before the quizzes does not write them away.
        check.mark_done("02", "sim");
        check.save().unwrap();
        let (p, _) = Progress::load(dir.path()).unwrap();
        assert_eq!(p.quizzes["warps"].best, 4);
        // A chapter whose questions changed starts its best again.
        let (score, _) = Progress::update(dir.path(), |p| p.record_quiz("warps", 1, 6)).unwrap();
        assert_eq!(score.best, 1);
        // Progress written before quizzes existed still loads.
        std::fs::write(
            Progress::path_in(dir.path()),
            r#"{"done": {}, "hints_shown": {}}"#,
        )
        .unwrap();
        let (p, warning) = Progress::load(dir.path()).unwrap();
        assert!(warning.is_none() && p.quizzes.is_empty());
    }
}
