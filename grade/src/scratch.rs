//! The grader's scratch folder (`runner-grade-*` in the temporary folder, holding every student's
//! staged files): removed when the run ends, Ctrl-C and SIGTERM included (its `TempDir` drops).
//! A grader killed outright cannot remove its own, so each folder names its grader (process id
//! and start time), and the next run removes the folders of graders that are gone.

use anyhow::Context;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

const PREFIX: &str = "runner-grade-";
/// The file in a scratch folder that names the grader it belongs to.
const OWNER: &str = "grader";

/// A fresh scratch folder, after removing those that killed graders left behind.
pub(crate) fn make() -> anyhow::Result<TempDir> {
    let temp = std::env::temp_dir();
    for left in stale(&temp) {
        // Another grader may remove it at the same moment; what is gone is gone.
        let _ = std::fs::remove_dir_all(&left);
    }
    let dir = tempfile::Builder::new()
        .prefix(PREFIX)
        .tempdir()
        .context("cannot make a scratch folder")?;
    if let Some(me) = identity(std::process::id()) {
        std::fs::write(dir.path().join(OWNER), me)
            .with_context(|| format!("cannot write in {}", dir.path().display()))?;
    }
    Ok(dir)
}

/// The scratch folders in `temp` whose grader is no longer running. None where processes cannot
/// be looked up (no `/proc`): then nothing can be told stale.
fn stale(temp: &Path) -> Vec<PathBuf> {
    if identity(std::process::id()).is_none() {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(temp) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(PREFIX))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|dir| {
            // A folder without the file is one being made right now, or an older runner's: left.
            let Ok(owner) = std::fs::read_to_string(dir.join(OWNER)) else {
                return false;
            };
            let pid = owner.split_whitespace().next().and_then(|p| p.parse().ok());
            pid.and_then(identity).as_deref() != Some(owner.as_str())
        })
        .collect()
}

/// A running process as "PID START": its id and the time it started (in clock ticks since boot,
/// `/proc/PID/stat`'s 22nd field), so a later process given the same id is not taken for it.
fn identity(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: count fields after its end.
    let after_name = &stat[stat.rfind(')')? + 1..];
    let start = after_name.split_whitespace().nth(19)?;
    Some(format!("{pid} {start}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_stale_once_its_grader_is_gone_and_not_before() {
        let temp = tempfile::tempdir().unwrap();
        let folder = |name: &str, owner: Option<String>| {
            let dir = temp.path().join(format!("{PREFIX}{name}"));
            std::fs::create_dir(&dir).unwrap();
            if let Some(owner) = owner {
                std::fs::write(dir.join(OWNER), owner).unwrap();
            }
            dir
        };
        let mine = folder("mine", identity(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = identity(child.id()).unwrap_or_else(|| format!("{} 1", child.id()));
        child.wait().unwrap();
        let left = folder("left", Some(gone));
        let reused = folder("reused", Some(format!("{} 0", std::process::id())));
        let _unnamed = folder("unnamed", None);
        let mut found = stale(temp.path());
        found.sort();
        assert_eq!(found, [left, reused]);
        assert!(!found.contains(&mine));
    }
}
