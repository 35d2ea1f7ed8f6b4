//! The catalogue of typical mistakes (checks/mistakes/NN/mistakes.toml, one per exercise): every
//! fixture kernel is checked in the simulator and must get its verdict and say the words that name
//! its mistake. And the corpus of correct variants (checks/variants/NN/variants.toml): the ways
//! students write a right kernel, each of which must pass.
//! `MISTAKES=07,13` runs only those exercises' entries; `MISTAKES_EVERY=3` only every third entry
//! of each list (CI's second, one-core pass: the whole corpus once is enough, a sample of it
//! again on one core shows that no verdict depends on the machine's speed).

mod common;

use common::{repo_root, TestCourse};
use serde::Deserialize;
use std::path::Path;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Catalogue {
    mistake: Vec<Mistake>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct Mistake {
    exercise: String,
    /// Relative to the exercise's folder in checks/mistakes/ (in the catalogue's file; relative
    /// to checks/ once read).
    file: String,
    /// The check report's verdict, as `--json` spells it.
    verdict: String,
    /// Words the report must contain (case-insensitive), naming the mistake.
    says: Vec<String>,
    /// What the mistake is, for the reader of the catalogue.
    #[allow(dead_code)]
    why: String,
    /// Extra arguments for `runner check` (e.g. `--sizes`).
    #[serde(default)]
    args: Vec<String>,
}

/// Each exercise's `checks/FOLDER/ID/FILE`, read as TOML, with its exercise id (the folder's
/// name): kernel, Rust and Python exercises alike.
fn per_exercise<T: serde::de::DeserializeOwned>(folder: &str, file: &str) -> Vec<(String, T)> {
    let root = repo_root().join("checks").join(folder);
    let mut ids: Vec<String> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    ids.into_iter()
        .filter_map(|id| {
            let path = root.join(&id).join(file);
            let text = std::fs::read_to_string(&path).ok()?;
            let read = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            Some((id, read))
        })
        .collect()
}

/// Every exercise's mistakes, with `file` made relative to checks/.
fn catalogue() -> Vec<Mistake> {
    let mut all = Vec::new();
    for (id, catalogue) in per_exercise::<Catalogue>("mistakes", "mistakes.toml") {
        for mut m in catalogue.mistake {
            assert_eq!(
                m.exercise, id,
                "checks/mistakes/{id} lists a mistake of another exercise"
            );
            m.file = format!("mistakes/{id}/{}", m.file);
            all.push(m);
        }
    }
    all
}

/// Every string in a JSON value, joined: what the report says, wherever it says it.
fn all_text(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| all_text(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| all_text(v, out)),
        _ => {}
    }
}

/// Checks one fixture; the problems found, if any.
fn judge(course: &TestCourse, m: &Mistake) -> Option<String> {
    let file = repo_root().join("checks").join(&m.file);
    let mut args = vec!["check", &m.exercise, "--json", "--file"];
    let file_arg = file.display().to_string();
    args.push(&file_arg);
    args.extend(m.args.iter().map(String::as_str));
    let run = course.run(&args);
    let Ok(report) = serde_json::from_str::<serde_json::Value>(&run.stdout) else {
        return Some(format!("{}: no JSON report:\n{}", m.file, run.all()));
    };
    let verdict = report["verdict"].as_str().unwrap_or("(none)");
    let mut text = String::new();
    all_text(&report, &mut text);
    let lower = text.to_lowercase();
    let missing: Vec<&String> = m
        .says
        .iter()
        .filter(|w| !lower.contains(&w.to_lowercase()))
        .collect();
    let exit_as_verdict = (run.code == 0) == (m.verdict == "passed");
    if verdict == m.verdict && missing.is_empty() && exit_as_verdict {
        return None;
    }
    Some(format!(
        "{}: verdict {verdict} (want {}), exit {}, missing words {missing:?}; the report says:\n{text}",
        m.file, m.verdict, run.code
    ))
}

/// The entries of the exercises named in `MISTAKES` (all without it), every `MISTAKES_EVERY`-th
/// of them (all without it).
fn selected(entries: Vec<Mistake>) -> Vec<Mistake> {
    let only: Option<Vec<String>> = std::env::var("MISTAKES")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let every = std::env::var("MISTAKES_EVERY")
        .ok()
        .map(|v| {
            v.trim()
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .unwrap_or_else(|| panic!("MISTAKES_EVERY={v}: give a whole number from 1"))
        })
        .unwrap_or(1);
    entries
        .into_iter()
        .filter(|m| only.as_ref().is_none_or(|ids| ids.contains(&m.exercise)))
        .step_by(every)
        .collect()
}

/// Checks every entry on two workers; the problems found.
fn judge_all(entries: &[Mistake]) -> Vec<String> {
    for m in entries {
        assert!(
            Path::new(&repo_root().join("checks").join(&m.file)).exists(),
            "{} is in the catalogue but not on disk",
            m.file
        );
    }
    let course = TestCourse::new();
    let workers = 2;
    let chunks: Vec<Vec<Mistake>> = (0..workers)
        .map(|w| entries.iter().skip(w).step_by(workers).cloned().collect())
        .collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                scope.spawn(|| {
                    chunk
                        .iter()
                        .filter_map(|m| judge(&course, m))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

#[test]
fn every_catalogued_mistake_fails_with_its_verdict_and_is_named() {
    let mistakes = selected(catalogue());
    let problems = judge_all(&mistakes);
    assert!(
        problems.is_empty(),
        "{} of {} catalogued mistakes were not judged as the catalogue says:\n\n{}",
        problems.len(),
        mistakes.len(),
        problems.join("\n\n")
    );
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Corpus {
    variant: Vec<Variant>,
}

/// A correct kernel written another way than the course's solution.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Variant {
    exercise: String,
    /// Relative to the exercise's folder in checks/variants/.
    file: String,
    /// How it differs from the solution, for the reader of the corpus.
    #[allow(dead_code)]
    why: String,
}

/// Every exercise's correct variants, as entries that must pass (`file` relative to checks/).
fn variants() -> Vec<Mistake> {
    let mut all = Vec::new();
    for (id, corpus) in per_exercise::<Corpus>("variants", "variants.toml") {
        for v in corpus.variant {
            assert_eq!(
                v.exercise, id,
                "checks/variants/{id} lists a variant of another exercise"
            );
            all.push(Mistake {
                file: format!("variants/{id}/{}", v.file),
                exercise: v.exercise,
                verdict: "passed".into(),
                says: Vec::new(),
                why: v.why,
                args: Vec::new(),
            });
        }
    }
    all
}

#[test]
fn every_correct_variant_passes() {
    let variants = selected(variants());
    let problems = judge_all(&variants);
    assert!(
        problems.is_empty(),
        "{} of {} correct variants did not pass:\n\n{}",
        problems.len(),
        variants.len(),
        problems.join("\n\n")
    );
}

#[test]
fn the_grid_stride_exercises_have_ten_correct_variants_each() {
    let variants = variants();
    for id in ["05", "06"] {
        let count = variants.iter().filter(|v| v.exercise == id).count();
        assert!(
            count >= 10,
            "exercise {id} has {count} correct variants, fewer than 10"
        );
    }
}

#[test]
fn the_catalogue_has_three_mistakes_for_every_exercise() {
    let mistakes = catalogue();
    for id in checks::known_ids() {
        let count = mistakes.iter().filter(|m| m.exercise == id).count();
        assert!(
            count >= 3,
            "exercise {id} has {count} catalogued mistakes, fewer than 3"
        );
    }
}
