//! The instructor's grading file (`grading.toml` beside the course): hidden inputs, limits on
//! each check, and the rule for partial credit. Every field has a default, so the file is optional.

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub(crate) const GRADING_FILE: &str = "grading.toml";

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct GradingFile {
    /// The exercises of the assignment, e.g. `"01-04"` or `"01,02,05"`: graded when
    /// `--exercises` is not given (and so by the Gradescope autograder); by default all.
    pub exercises: Option<String>,
    /// Seed of the random test inputs. Students never see it, so a kernel tuned to the public
    /// cases meets inputs it has not seen. `--seed` overrides it.
    pub seed: Option<u64>,
    /// Problem sizes added to every exercise's cases (needs `runner check --sizes`).
    pub sizes: Vec<usize>,
    /// Wall time one check may take, in seconds, before its process is stopped.
    pub time_limit_s: f64,
    /// Memory one check's process may use, in MiB.
    pub memory_limit_mb: u64,
    /// Room each of a check's writable folders has in its sandbox (its files, /tmp, a Rust
    /// program's build), in MiB; it is held in memory.
    pub disk_limit_mb: u64,
    /// Share of an exercise's points for a kernel whose every case is right but which misses
    /// the exercise's speed or memory-traffic target.
    pub target_missed_credit: f64,
    /// Pairs of kernels at least this similar (0 to 1, after normalising) are reported.
    pub similarity_threshold: f64,
    /// Kernels whose own part (the lines added to the exercise) has fewer tokens than this are
    /// left out of the similarity report: short answers look alike by necessity. So are the
    /// solution's answer and pairs no closer to each other than to it (the expected answer).
    pub similarity_min_tokens: usize,
    /// Largest kernel file taken from a submission, in KiB.
    pub max_file_kb: u64,
    /// Largest archive accepted, in MiB, as it lies on disk.
    pub max_archive_mb: u64,
    /// Most bytes an archive may expand to, in MiB, counted while it is read.
    pub max_expanded_mb: u64,
    /// Most entries an archive may hold.
    pub max_entries: usize,
    /// Grade the whole-program exercises (host exercises in Rust, the Python track) too: each
    /// runs the student's own program, in a sandbox of its own. `--run-programs` turns it on
    /// for one run.
    pub run_programs: bool,
}

impl Default for GradingFile {
    fn default() -> Self {
        GradingFile {
            exercises: None,
            seed: None,
            sizes: Vec::new(),
            time_limit_s: 120.0,
            memory_limit_mb: 4096,
            disk_limit_mb: 1024,
            target_missed_credit: 0.5,
            similarity_threshold: 0.9,
            similarity_min_tokens: 30,
            max_file_kb: 256,
            max_archive_mb: 20,
            max_expanded_mb: 64,
            max_entries: 10_000,
            run_programs: false,
        }
    }
}

impl GradingFile {
    /// The file named by `--grading`, else `grading.toml` at the course root when there is one,
    /// else the defaults.
    pub(crate) fn load(
        explicit: Option<&Path>,
        course_root: &Path,
    ) -> anyhow::Result<(GradingFile, Option<PathBuf>)> {
        let path = match explicit {
            Some(path) => path.to_path_buf(),
            None => {
                let beside = course_root.join(GRADING_FILE);
                if !beside.is_file() {
                    return Ok((GradingFile::default(), None));
                }
                beside
            }
        };
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read the grading file {}", path.display()))?;
        let file = GradingFile::parse(&text)
            .with_context(|| format!("in the grading file {}", path.display()))?;
        Ok((file, Some(path)))
    }

    pub(crate) fn parse(text: &str) -> anyhow::Result<GradingFile> {
        let file: GradingFile = toml::from_str(text).map_err(|e| anyhow::anyhow!("{e}"))?;
        if !(0.0..=1.0).contains(&file.target_missed_credit) {
            bail!(
                "target_missed_credit must be between 0 and 1 (a share of the points), not {}",
                file.target_missed_credit
            );
        }
        if !(0.0..=1.0).contains(&file.similarity_threshold) {
            bail!(
                "similarity_threshold must be between 0 and 1, not {}",
                file.similarity_threshold
            );
        }
        if file.time_limit_s.is_nan() || file.time_limit_s <= 0.0 {
            bail!("time_limit_s must be more than 0 seconds");
        }
        if file.memory_limit_mb < 256 {
            bail!("memory_limit_mb must be at least 256: the compiler alone needs about that much");
        }
        if let Some(&bad) = file
            .sizes
            .iter()
            .find(|&&n| n == 0 || n > checks::MAX_EXTRA_SIZE)
        {
            bail!(
                "sizes must each be from 1 to {}; {bad} is not",
                checks::MAX_EXTRA_SIZE
            );
        }
        Ok(file)
    }
}

/// The points a verdict earns, as the report states it.
pub(crate) fn scoring_rule(credit: f64) -> String {
    format!(
        "Each exercise gives its points (from exercises.toml) when every case is right and every target is met; \
         {:.0}% of them when every case is right but a speed or memory target is missed; nothing otherwise \
         (wrong results, compile errors, time or memory limits, crashes, missing or refused files).",
        credit * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_file_gives_the_defaults_and_fields_are_checked() {
        assert_eq!(GradingFile::parse("").unwrap(), GradingFile::default());
        let file = GradingFile::parse("seed = 7\nsizes = [4097]\n").unwrap();
        assert_eq!((file.seed, file.sizes), (Some(7), vec![4097]));
        assert!(!file.run_programs, "whole programs run only when asked");
        assert!(
            GradingFile::parse("run_programs = true")
                .unwrap()
                .run_programs
        );
        let err = GradingFile::parse("sede = 7").unwrap_err().to_string();
        assert!(err.contains("sede"), "{err}");
        let err = GradingFile::parse("target_missed_credit = 2.0")
            .unwrap_err()
            .to_string();
        assert!(err.contains("between 0 and 1"), "{err}");
    }
}
