//! Beyond one machine: what a shard graded (`shard.json`), `runner grade merge` joining
//! shards into one grade book, and `--slurm`, which writes a job array running the shards and
//! a merge job that waits for them.

use super::output::Format;
use super::results::Store;
use super::settings::Settings;
use anyhow::{bail, Context};
use runner::compile::cache::write_atomically;
use runner::course::Course;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which slice of the class a results folder holds.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct ShardRecord {
    /// `I/N`, or None for a whole class.
    pub shard: Option<String>,
    pub submissions: Vec<String>,
}

impl ShardRecord {
    pub(crate) fn save(&self, out: &Path) -> anyhow::Result<()> {
        let path = out.join("shard.json");
        write_atomically(&path, serde_json::to_string_pretty(self)?.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    }

    pub(crate) fn load(out: &Path) -> anyhow::Result<ShardRecord> {
        let path = out.join("shard.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{} is damaged", path.display()))
    }
}

/// Copies every shard's cells into `out`, checking the shards were graded alike and that no
/// cell was graded differently twice. Returns the shared settings and the shards (`I/N`) of
/// which no folder was given.
pub(crate) fn merge(dirs: &[PathBuf], out: &Path) -> anyhow::Result<(Settings, Vec<String>)> {
    let mut settings: Option<Settings> = None;
    let mut submissions = BTreeSet::new();
    let mut shards: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    let target = Store::new(out);
    let mut origin: BTreeMap<(String, String), (PathBuf, String)> = BTreeMap::new();
    for dir in dirs {
        let these = Settings::load(dir)?;
        match &settings {
            Some(first) => first.same_grading(&these, &dir.display().to_string())?,
            None => settings = Some(these),
        }
        let record = ShardRecord::load(dir)?;
        if let Some((index, count)) = record.shard.as_deref().and_then(|s| s.split_once('/')) {
            if let (Ok(index), Ok(count)) = (index.parse(), count.parse()) {
                shards.entry(count).or_default().insert(index);
            }
        }
        submissions.extend(record.submissions);
        let store = Store::new(dir);
        for cell in store.all() {
            let id = (cell.submission.clone(), cell.exercise.clone());
            if let Some((other, key)) = origin.get(&id) {
                if *key != cell.key {
                    bail!(
                        "{} {} was graded differently in {} and {}: merge each shard once",
                        cell.submission,
                        cell.exercise,
                        other.display(),
                        dir.display()
                    );
                }
                continue;
            }
            target.save(
                &cell,
                store.kernel(&cell.submission, &cell.exercise).as_deref(),
            )?;
            origin.insert(id, (dir.clone(), cell.key.clone()));
        }
    }
    let settings = settings.context("give the shards' result folders to merge")?;
    let missing: Vec<String> = shards
        .iter()
        .flat_map(|(count, seen)| {
            (1..=*count)
                .filter(|i| !seen.contains(i))
                .map(move |i| format!("{i}/{count}"))
        })
        .collect();
    settings.save(out)?;
    ShardRecord {
        shard: None,
        submissions: submissions.into_iter().collect(),
    }
    .save(out)?;
    Ok((settings, missing))
}

/// A word for bash, quoted so that no character in it is special.
pub(crate) fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot make {} absolute", path.display()))
}

pub(crate) struct SlurmPlan<'a> {
    pub course: &'a Course,
    pub submissions: &'a Path,
    pub out: &'a Path,
    pub shards: usize,
    pub options: &'a [String],
    pub formats: &'a [Format],
    pub seed: Option<u64>,
    pub jobs: Option<usize>,
    pub backend: runner::backend::BackendChoice,
    pub exercises: Option<String>,
    pub grading: Option<PathBuf>,
}

/// Writes `slurm/grade.sbatch` (an array job, one task per shard), `slurm/merge.sbatch` and
/// `slurm/submit.sh`, which submits both with the merge waiting for the array. Returns submit.sh.
pub(crate) fn write_slurm(plan: &SlurmPlan) -> anyhow::Result<PathBuf> {
    if plan.shards == 0 {
        bail!("--slurm needs at least 1 shard");
    }
    let exe = std::env::current_exe().context("cannot find the runner's own program")?;
    let (course, submissions, out) = (
        absolute(&plan.course.root)?,
        absolute(plan.submissions)?,
        absolute(plan.out)?,
    );
    if !submissions.is_dir() {
        bail!("{} is not a folder of submissions", submissions.display());
    }
    let dir = out.join("slurm");
    let q = |p: &Path| shell_quote(&p.display().to_string());
    let mut grade_args = String::new();
    if let Some(seed) = plan.seed {
        grade_args.push_str(&format!(" --seed {seed}"));
    }
    if let Some(jobs) = plan.jobs {
        grade_args.push_str(&format!(" --jobs {jobs}"));
    }
    if let Some(backend) = plan.backend.flag() {
        grade_args.push_str(&format!(" --backend {backend}"));
    }
    if let Some(exercises) = &plan.exercises {
        grade_args.push_str(&format!(" --exercises {}", shell_quote(exercises)));
    }
    if let Some(grading) = &plan.grading {
        grade_args.push_str(&format!(" --grading {}", q(&absolute(grading)?)));
    }
    let options: String = plan
        .options
        .iter()
        .map(|o| format!("#SBATCH {o}\n"))
        .collect();
    let formats: Vec<String> = plan
        .formats
        .iter()
        .map(|f| {
            clap::ValueEnum::to_possible_value(f)
                .map(|v| v.get_name().to_string())
                .unwrap_or_default()
        })
        .collect();
    let shard_out = |task: &str| format!("{}/shards/{task}", q(&out));
    let grade = format!(
        "#!/bin/bash\n\
         # One task per shard of the class; each grades its slice into shards/<task>. Written by `runner grade --slurm`.\n\
         # The runner, the course and the submissions must be on a file system every node sees.\n\
         #SBATCH --job-name=runner-grade\n#SBATCH --array=1-{n}\n#SBATCH --output={log}/shard-%a.log\n{options}\
         set -euo pipefail\ncd {course}\n\
         # --resume: a task that is requeued keeps what it had graded.\n\
         exec {exe} {subs} --shard \"$SLURM_ARRAY_TASK_ID/{n}\" --out {shard_out} --resume --format json{grade_args}\n",
        n = plan.shards,
        log = q(&dir),
        course = q(&course),
        exe = q(&exe),
        subs = q(&submissions),
        shard_out = shard_out("\"$SLURM_ARRAY_TASK_ID\""),
    );
    let shard_dirs: Vec<String> = (1..=plan.shards)
        .map(|i| shard_out(&i.to_string()))
        .collect();
    let merge = format!(
        "#!/bin/bash\n\
         # Joins the shards into one grade book in the results folder. Written by `runner grade --slurm`.\n\
         #SBATCH --job-name=runner-grade-merge\n#SBATCH --output={log}/merge.log\n\
         set -euo pipefail\ncd {course}\nexec {exe} merge {dirs} --out {out} --format {formats}\n",
        log = q(&dir),
        course = q(&course),
        exe = q(&exe),
        dirs = shard_dirs.join(" "),
        out = q(&out),
        formats = formats.join(","),
    );
    let submit = format!(
        "#!/bin/bash\n\
         # Submits the shards as a job array and the merge as a job that waits for all of them\n\
         # (afterany: it runs even when a shard fails, and then names the cells that are missing).\n\
         set -euo pipefail\n\
         array=$(sbatch --parsable {grade})\n\
         merge=$(sbatch --parsable --dependency=afterany:\"${{array%%;*}}\" {merge})\n\
         echo \"Submitted the shards as job ${{array%%;*}} and the merge as job ${{merge%%;*}}; results in {out}\"\n",
        grade = q(&dir.join("grade.sbatch")),
        merge = q(&dir.join("merge.sbatch")),
        out = out.display(),
    );
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot make {}", dir.display()))?;
    for (name, text) in [
        ("grade.sbatch", &grade),
        ("merge.sbatch", &merge),
        ("submit.sh", &submit),
    ] {
        let path = dir.join(name);
        write_atomically(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        set_executable(&path)?;
    }
    Ok(dir.join("submit.sh"))
}

pub(crate) fn set_executable(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", path.display()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoted_words_survive_any_character() {
        assert_eq!(super::shell_quote("it's $HOME"), "'it'\\''s $HOME'");
    }
}
