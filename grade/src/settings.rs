//! What a run grades with, in `run.json` beside its results: the backend, the hidden inputs,
//! the limits, the exercises and their points. Resume and merge refuse results graded otherwise,
//! and each cell's key hashes these with its kernel.

use super::config::{scoring_rule, GradingFile};
use anyhow::{bail, Context};
use runner::compile::cache::{write_atomically, Cache};
use runner::course::Exercise;
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct ExerciseInfo {
    pub id: String,
    pub title: String,
    pub points: u32,
    pub file: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct Settings {
    pub runner_version: String,
    pub backend: contract::Backend,
    /// The device in words, as the checks name it.
    pub device: String,
    pub seed: Option<u64>,
    pub sizes: Vec<usize>,
    pub time_limit_s: f64,
    pub memory_limit_mb: u64,
    pub target_missed_credit: f64,
    pub similarity_threshold: f64,
    pub similarity_min_tokens: usize,
    pub exercises: Vec<ExerciseInfo>,
    pub scoring_rule: String,
}

impl Settings {
    pub(crate) fn new(
        file: &GradingFile,
        seed: Option<u64>,
        backend: contract::Backend,
        device: &str,
        exercises: &[Exercise],
    ) -> Settings {
        Settings {
            runner_version: env!("CARGO_PKG_VERSION").into(),
            backend,
            device: device.into(),
            seed: seed.or(file.seed),
            sizes: file.sizes.clone(),
            time_limit_s: file.time_limit_s,
            memory_limit_mb: file.memory_limit_mb,
            target_missed_credit: file.target_missed_credit,
            similarity_threshold: file.similarity_threshold,
            similarity_min_tokens: file.similarity_min_tokens,
            exercises: exercises
                .iter()
                .map(|e| ExerciseInfo {
                    id: e.id.clone(),
                    title: e.title.clone(),
                    points: e.points,
                    file: e.file.clone(),
                })
                .collect(),
            scoring_rule: scoring_rule(file.target_missed_credit),
        }
    }

    /// The hash that ties a cell's result to its kernel and to everything that decides its grade.
    pub(crate) fn cell_key(&self, exercise: &ExerciseInfo, kernel: &str) -> String {
        let grading = format!(
            "{}|{}|{:?}|{:?}|{}|{}|{}",
            self.runner_version,
            self.backend,
            self.seed,
            self.sizes,
            self.time_limit_s,
            self.memory_limit_mb,
            self.target_missed_credit
        );
        Cache::key(&[&grading, &exercise.id, &exercise.points.to_string(), kernel])
    }

    pub(crate) fn max_total(&self) -> u32 {
        self.exercises.iter().map(|e| e.points).sum()
    }

    pub(crate) fn save(&self, out: &Path) -> anyhow::Result<()> {
        let path = out.join("run.json");
        write_atomically(&path, serde_json::to_string_pretty(self)?.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    }

    pub(crate) fn load(out: &Path) -> anyhow::Result<Settings> {
        let path = out.join("run.json");
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "{} has no run.json: is it the --out folder of `runner grade`?",
                out.display()
            )
        })?;
        serde_json::from_str(&text).with_context(|| format!("{} is damaged", path.display()))
    }

    /// Whether results graded with `other` can stand beside these in one grade book: the
    /// same inputs, limits, rule and exercises (the device may differ between machines).
    pub(crate) fn same_grading(&self, other: &Settings, other_name: &str) -> anyhow::Result<()> {
        let strip = |s: &Settings| Settings {
            device: String::new(),
            ..s.clone()
        };
        if strip(self) != strip(other) {
            bail!(
                "{other_name} was graded with other settings (backend, seed, sizes, limits, exercises or runner version); \
                 grade every part with the same command and grading file"
            );
        }
        Ok(())
    }
}
