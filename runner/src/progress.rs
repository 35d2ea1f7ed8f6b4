//! The student's progress: which exercises pass and how many hints each has shown. Kept in
//! `.runner/progress.json` in the course, written atomically so no crash can leave half a file.

use crate::compile::cache::write_atomically;
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Progress {
    #[serde(default)]
    pub done: BTreeMap<String, DoneRecord>,
    #[serde(default)]
    pub hints_shown: BTreeMap<String, usize>,
    #[serde(skip)]
    path: PathBuf,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct DoneRecord {
    /// Seconds since the Unix epoch.
    pub at: u64,
    pub backend: String,
}

impl Progress {
    pub fn path_in(course_root: &Path) -> PathBuf {
        course_root.join(".runner").join("progress.json")
    }

    /// Loads the progress; a damaged file is kept aside (never deleted) and progress starts over.
    pub fn load(course_root: &Path) -> anyhow::Result<(Progress, Option<String>)> {
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

    pub fn save(&self) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        write_atomically(&self.path, text.as_bytes())
            .with_context(|| format!("cannot save progress to {}", self.path.display()))
    }

    pub fn mark_done(&mut self, id: &str, backend: &str) {
        self.done.insert(
            id.to_string(),
            DoneRecord {
                at: now(),
                backend: backend.to_string(),
            },
        );
    }

    pub fn is_done(&self, id: &str) -> bool {
        self.done.contains_key(id)
    }
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
            .count();
        assert_eq!(kept, 1, "the damaged file is kept");
    }
}
