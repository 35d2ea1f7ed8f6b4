//! One graded cell (a submission's exercise) and the folder that keeps them: each cell is
//! written atomically the moment it finishes, so a stopped run loses nothing finished, and
//! `--resume` and `grade merge` read them back.

use anyhow::Context;
use runner::compile::cache::write_atomically;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Passed,
    /// Every case right, a speed or memory target missed: partial credit.
    TargetMissed,
    Failed,
    /// The exercise's TODOs are still to do.
    NotDone,
    CompileError,
    /// Stopped at the grading time limit.
    Timeout,
    OutOfMemory,
    /// The check's process died without a verdict.
    Crashed,
    /// No kernel file for the exercise in the submission.
    Missing,
    /// The file, or the whole archive, was refused as unsafe or unreadable.
    Refused,
    /// The grader could not check the cell (not the student's doing); `--resume` tries it again.
    Error,
}

impl Status {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::TargetMissed => "target_missed",
            Status::Failed => "failed",
            Status::NotDone => "not_done",
            Status::CompileError => "compile_error",
            Status::Timeout => "timeout",
            Status::OutOfMemory => "out_of_memory",
            Status::Crashed => "crashed",
            Status::Missing => "missing",
            Status::Refused => "refused",
            Status::Error => "error",
        }
    }

    /// Whether the cell has its grade; only grader errors are tried again on `--resume`.
    pub(crate) fn is_final(self) -> bool {
        self != Status::Error
    }

    /// The points the status earns out of `max`; see `config::scoring_rule`.
    pub(crate) fn points(self, max: u32, target_missed_credit: f64) -> f64 {
        match self {
            Status::Passed => max as f64,
            Status::TargetMissed => (max as f64 * target_missed_credit * 100.0).round() / 100.0,
            _ => 0.0,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct CaseLine {
    pub name: String,
    pub passed: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct CellResult {
    pub submission: String,
    /// The submission's folder or archive name as it is on disk (`submission` is it made safe
    /// for file names and unique); cells graded before it was kept have none.
    #[serde(default)]
    pub name: String,
    pub exercise: String,
    pub title: String,
    pub status: Status,
    pub points: f64,
    pub max_points: u32,
    /// One line: what happened, naming the file or case at fault.
    pub message: String,
    /// More: the compiler's errors, the failing case, the simulator's diagnostics.
    pub details: String,
    /// Where in the submission the kernel was found.
    pub found_at: Option<String>,
    pub cases: Vec<CaseLine>,
    pub seconds: f64,
    /// A hash of what decided the result (kernel, exercise, settings); `--resume` reuses a
    /// cell only when it matches.
    pub key: String,
}

/// The cells of a run on disk: `cells/<submission>/<exercise>.json`, and the kernel graded
/// beside it as `<exercise>.cu` (for the similarity report and for the instructor).
pub(crate) struct Store {
    pub dir: PathBuf,
}

impl Store {
    pub(crate) fn new(out: &Path) -> Store {
        Store {
            dir: out.join("cells"),
        }
    }

    fn json_path(&self, submission: &str, exercise: &str) -> PathBuf {
        self.dir.join(submission).join(format!("{exercise}.json"))
    }

    pub(crate) fn kernel_path(&self, submission: &str, exercise: &str) -> PathBuf {
        self.dir.join(submission).join(format!("{exercise}.cu"))
    }

    /// Writes the kernel first and the result last, so a result on disk always has its kernel.
    pub(crate) fn save(&self, cell: &CellResult, kernel: Option<&str>) -> anyhow::Result<()> {
        if let Some(text) = kernel {
            let path = self.kernel_path(&cell.submission, &cell.exercise);
            write_atomically(&path, text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        let path = self.json_path(&cell.submission, &cell.exercise);
        let text = serde_json::to_string_pretty(cell)?;
        write_atomically(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// The cell when it is on disk, readable and final; a damaged file counts as not there.
    pub(crate) fn load(&self, submission: &str, exercise: &str) -> Option<CellResult> {
        let text = std::fs::read_to_string(self.json_path(submission, exercise)).ok()?;
        serde_json::from_str::<CellResult>(&text).ok()
    }

    pub(crate) fn kernel(&self, submission: &str, exercise: &str) -> Option<String> {
        std::fs::read_to_string(self.kernel_path(submission, exercise)).ok()
    }

    /// Every readable cell in the folder, sorted by submission and exercise.
    pub(crate) fn all(&self) -> Vec<CellResult> {
        let mut cells = Vec::new();
        for dir in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            for file in std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let path = file.path();
                if path.extension().is_some_and(|e| e == "json") {
                    if let Some(cell) = std::fs::read_to_string(&path)
                        .ok()
                        .and_then(|t| serde_json::from_str(&t).ok())
                    {
                        cells.push(cell);
                    }
                }
            }
        }
        cells.sort_by(|a: &CellResult, b| {
            (&a.submission, &a.exercise).cmp(&(&b.submission, &b.exercise))
        });
        cells
    }

    pub(crate) fn is_empty(&self) -> bool {
        std::fs::read_dir(&self.dir).map_or(true, |mut d| d.next().is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn cell(submission: &str, exercise: &str, status: Status) -> CellResult {
        CellResult {
            submission: submission.into(),
            name: submission.into(),
            exercise: exercise.into(),
            title: "T".into(),
            status,
            points: status.points(10, 0.5),
            max_points: 10,
            message: "m".into(),
            details: String::new(),
            found_at: None,
            cases: Vec::new(),
            seconds: 0.1,
            key: "k".into(),
        }
    }

    #[test]
    fn partial_credit_only_for_a_missed_target() {
        assert_eq!(Status::Passed.points(10, 0.5), 10.0);
        assert_eq!(Status::TargetMissed.points(15, 0.5), 7.5);
        assert_eq!(Status::CompileError.points(10, 0.5), 0.0);
        assert!(!Status::Error.is_final() && Status::Timeout.is_final());
    }

    #[test]
    fn cells_round_trip_and_damaged_ones_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        assert!(store.is_empty());
        store
            .save(&cell("alice", "02", Status::Passed), Some("kernel"))
            .unwrap();
        assert_eq!(
            store.load("alice", "02").unwrap(),
            cell("alice", "02", Status::Passed)
        );
        assert_eq!(store.kernel("alice", "02").as_deref(), Some("kernel"));
        std::fs::write(store.dir.join("alice/03.json"), "{ half").unwrap();
        assert!(store.load("alice", "03").is_none());
        assert_eq!(store.all().len(), 1);
    }
}
