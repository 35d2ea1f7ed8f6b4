//! Groups of submissions whose kernels are nearly the same, for the instructor to look at.
//! Only a student's own part counts (the lines added to the exercise's file), after removing
//! comments and whitespace and renaming identifiers (`normalise`), so renaming variables and
//! reformatting do not hide a copy; `similar` gives the diff ratio of the token sequences.
//! Pairs at or above the threshold are joined into groups (`groups`), and each pair keeps the
//! lines the two share, for the report to show side by side.

mod groups;
mod normalise;

use super::results::Store;
use super::settings::Settings;
use normalise::{normalise, ratio, shared_lines, Normalised};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Two kernels of a group that are alike.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Pair {
    pub a: String,
    pub b: String,
    /// 0 to 1: twice the matching tokens over all tokens of both.
    pub similarity: f64,
    /// Lines of a's kernel (from 1) whose every token matches b's, after renaming.
    pub shared_a: Vec<usize>,
    /// The same for b's kernel.
    pub shared_b: Vec<usize>,
}

/// A member's kernel as graded, for reading the pairs side by side.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Kernel {
    pub submission: String,
    pub text: String,
    /// Lines (from 1) the student wrote: those not in the exercise's file.
    pub own_lines: Vec<usize>,
}

/// Submissions joined by alike pairs on one exercise (a ring of three copies is one group).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Group {
    pub exercise: String,
    /// Sorted; a pair's a and b are among them.
    pub members: Vec<String>,
    /// The highest of its pairs.
    pub similarity: f64,
    /// Most similar first.
    pub pairs: Vec<Pair>,
    /// In the order of `members`.
    pub kernels: Vec<Kernel>,
}

/// The course's own files for an exercise: what every student starts from, and the model
/// answer, from which the expected answer is known (not from how many students wrote alike,
/// which hides a ring of copies and pairs two different slips on the model answer).
#[derive(Clone, Copy, Default)]
pub struct Course<'a> {
    pub exercise: &'a str,
    pub solution: Option<&'a str>,
}

struct Candidate {
    submission: String,
    text: String,
    own: Normalised,
    /// How close it is to the model answer.
    to_expected: f64,
}

fn counts(tokens: &[String]) -> HashMap<&str, usize> {
    let mut map = HashMap::new();
    for t in tokens {
        *map.entry(t.as_str()).or_default() += 1;
    }
    map
}

/// Every group on every exercise, most similar first. `course` gives each exercise's own file,
/// whose lines do not count, and its solution: a pair is left out where either kernel is as
/// close to the solution as to the other (two students who each wrote the model answer, slips
/// and all, did not copy each other). `only` limits the comparison to those submissions.
pub fn report(
    settings: &Settings,
    store: &Store,
    course: &HashMap<String, Course>,
    only: Option<&[String]>,
) -> Vec<Group> {
    let cells = store.all();
    let mut groups = Vec::new();
    for exercise in &settings.exercises {
        let files = course.get(&exercise.id).copied().unwrap_or_default();
        let expected = files.solution.map(|s| normalise(s, files.exercise).tokens);
        let candidates: Vec<Candidate> = cells
            .iter()
            .filter(|c| c.exercise == exercise.id && c.found_at.is_some())
            .filter(|c| only.is_none_or(|ids| ids.contains(&c.submission)))
            .filter_map(|c| {
                let text = store.kernel(&c.submission, &c.exercise)?;
                let own = normalise(&text, files.exercise);
                Some(Candidate {
                    submission: c.submission.clone(),
                    to_expected: expected.as_ref().map_or(0.0, |e| ratio(&own.tokens, e)),
                    text,
                    own,
                })
            })
            .filter(|c| c.own.tokens.len() >= settings.similarity_min_tokens)
            .filter(|c| expected.as_ref() != Some(&c.own.tokens))
            .collect();
        let pairs = alike(&candidates, settings.similarity_threshold);
        let edges: Vec<(usize, usize)> = pairs.iter().map(|(i, j, _)| (*i, *j)).collect();
        for members in groups::components(candidates.len(), &edges) {
            groups.push(group(&exercise.id, &candidates, &members, &pairs));
        }
    }
    groups.sort_by(|x, y| {
        y.similarity
            .total_cmp(&x.similarity)
            .then_with(|| (&x.exercise, &x.members).cmp(&(&y.exercise, &y.members)))
    });
    groups
}

/// The pairs of candidates at or above the threshold and closer to each other than either is
/// to the model answer, with their similarity.
fn alike(candidates: &[Candidate], threshold: f64) -> Vec<(usize, usize, f64)> {
    let bags: Vec<HashMap<&str, usize>> =
        candidates.iter().map(|c| counts(&c.own.tokens)).collect();
    let mut pairs = Vec::new();
    for i in 0..candidates.len() {
        for j in i + 1..candidates.len() {
            let (a, b) = (&candidates[i].own.tokens, &candidates[j].own.tokens);
            let total = (a.len() + b.len()) as f64;
            // Matching tokens are at most the shorter length and at most the shared bag.
            let shared: usize = bags[i]
                .iter()
                .map(|(t, n)| (*n).min(bags[j].get(t).copied().unwrap_or(0)))
                .sum();
            if 2.0 * shared as f64 / total < threshold {
                continue;
            }
            let similarity = ratio(a, b);
            let explained = similarity <= candidates[i].to_expected.max(candidates[j].to_expected);
            if similarity >= threshold && !explained {
                pairs.push((i, j, similarity));
            }
        }
    }
    pairs
}

fn group(
    exercise: &str,
    candidates: &[Candidate],
    members: &[usize],
    pairs: &[(usize, usize, f64)],
) -> Group {
    let mut in_group: Vec<Pair> = pairs
        .iter()
        .filter(|(i, _, _)| members.contains(i))
        .map(|&(i, j, similarity)| {
            let (shared_a, shared_b) = shared_lines(&candidates[i].own, &candidates[j].own);
            Pair {
                a: candidates[i].submission.clone(),
                b: candidates[j].submission.clone(),
                similarity: (similarity * 1000.0).round() / 1000.0,
                shared_a,
                shared_b,
            }
        })
        .collect();
    in_group.sort_by(|x, y| {
        y.similarity
            .total_cmp(&x.similarity)
            .then_with(|| (&x.a, &x.b).cmp(&(&y.a, &y.b)))
    });
    let kernels: Vec<Kernel> = members
        .iter()
        .map(|&i| Kernel {
            submission: candidates[i].submission.clone(),
            text: candidates[i].text.clone(),
            own_lines: candidates[i].own.own_lines.clone(),
        })
        .collect();
    Group {
        exercise: exercise.to_string(),
        members: kernels.iter().map(|k| k.submission.clone()).collect(),
        similarity: in_group.first().map_or(0.0, |p| p.similarity),
        pairs: in_group,
        kernels,
    }
}
