//! Groups of submissions whose kernels are nearly the same in a way that chance does not
//! explain, for the instructor to look at. Only a student's own part counts: the lines added to
//! the exercise's file that are not the course's own text (its hints and solution, pasted or
//! written as everyone writes them), after removing comments and whitespace and renaming
//! identifiers (`normalise`), so renaming variables and reformatting do not hide a copy;
//! `similar` gives the diff ratio of the token sequences. A pair at or above the threshold is
//! kept only where what the two share is rare in the class: each phrase they share (a shingle
//! of tokens) weighs the bits it is unlikely by, from how many students wrote it, and a phrase
//! that many write weighs nothing, so short standard kernels form no group. Pairs join into
//! groups (`groups`), ranked by how unlikely their closest pair is; each group keeps the pairs
//! that join it (a spanning tree, strongest first) with the lines each pair shares.

mod groups;
mod normalise;

use super::results::Store;
use super::settings::Settings;
use normalise::{normalise, ratio, shared_lines, shingles, Given, Normalised};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Students assumed to be in the class besides those graded, none of them sharing a phrase:
/// in a small class a shared phrase still counts for something.
const PRIOR_STUDENTS: f64 = 8.0;

/// The fewest bits of unlikeliness a pair must reach to be shown: about a dozen rare phrases.
pub(crate) const MIN_RARITY_BITS: f64 = 50.0;

/// Two kernels of a group that are alike.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct Pair {
    pub a: String,
    pub b: String,
    /// 0 to 1: twice the matching tokens over all tokens of both.
    pub similarity: f64,
    /// How unlikely it is that two students share what these two share by chance, in bits:
    /// the sum, over the phrases they share, of log2 of (class + 8) over the students who
    /// wrote that phrase; phrases more than a quarter of the class wrote count nothing.
    pub rarity_bits: f64,
    /// Lines of a's kernel (from 1) whose every token matches b's, after renaming.
    pub shared_a: Vec<usize>,
    /// The same for b's kernel.
    pub shared_b: Vec<usize>,
}

/// A member's kernel as graded, for reading the pairs side by side.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct Kernel {
    pub submission: String,
    pub text: String,
    /// Lines (from 1) the student wrote: those not in the exercise's file.
    pub own_lines: Vec<usize>,
}

/// Submissions joined by alike pairs on one exercise (a ring of three copies is one group).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct Group {
    pub exercise: String,
    /// Sorted; a pair's a and b are among them.
    pub members: Vec<String>,
    /// The highest of its pairs.
    pub similarity: f64,
    /// The highest of its pairs': groups are ranked by it.
    pub rarity_bits: f64,
    /// Most similar first.
    pub pairs: Vec<Pair>,
    /// In the order of `members`.
    pub kernels: Vec<Kernel>,
}

/// The course's own text for an exercise: what every student starts from (as the runner
/// ships it, never an instructor's solved copy), the model answer, from which the expected
/// answer is known, and the hints, which students paste.
#[derive(Clone, Debug, Default)]
pub(crate) struct Handout {
    pub exercise: String,
    pub solution: Option<String>,
    pub hints: Vec<String>,
}

/// Every exercise's handout, by id.
pub(crate) fn handouts(course: &runner::course::Course) -> HashMap<String, Handout> {
    course
        .exercises
        .iter()
        .filter_map(|e| {
            let (exercise, _) = runner::pristine::handed_out(course, e)?;
            let solution = std::fs::read_to_string(course.solution_path(e)).ok();
            let hints = e.hints.clone();
            Some((
                e.id.clone(),
                Handout {
                    exercise,
                    solution,
                    hints,
                },
            ))
        })
        .collect()
}

struct Candidate {
    submission: String,
    text: String,
    own: Normalised,
    /// The shapes of what it shares with others: shingles of its own tokens.
    shingles: HashSet<Vec<String>>,
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

/// Every group on every exercise, the least likely by chance first. `handouts` gives each
/// exercise's own file and hints, whose text does not count, and its solution: a pair is left
/// out where either kernel is as close to the solution as to the other (two students who each
/// wrote the model answer, slips and all, did not copy each other). `only` limits the
/// comparison to those submissions.
pub(crate) fn report(
    settings: &Settings,
    store: &Store,
    handouts: &HashMap<String, Handout>,
    only: Option<&[String]>,
) -> Vec<Group> {
    let cells = store.all();
    let mut groups = Vec::new();
    let none = Given::default();
    for exercise in &settings.exercises {
        let handout = handouts.get(&exercise.id).cloned().unwrap_or_default();
        let given = Given::new(
            handout
                .hints
                .iter()
                .map(String::as_str)
                .chain(handout.solution.as_deref()),
        );
        let expected = handout
            .solution
            .as_deref()
            .map(|s| normalise(s, &handout.exercise, &none).tokens);
        let candidates: Vec<Candidate> = cells
            .iter()
            .filter(|c| c.exercise == exercise.id && c.found_at.is_some())
            .filter(|c| only.is_none_or(|ids| ids.contains(&c.submission)))
            .filter_map(|c| {
                let text = store.kernel(&c.submission, &c.exercise)?;
                // All the student added, for the comparison with the model answer.
                let added = normalise(&text, &handout.exercise, &none).tokens;
                if expected.as_ref() == Some(&added) {
                    return None;
                }
                let own = normalise(&text, &handout.exercise, &given);
                Some(Candidate {
                    submission: c.submission.clone(),
                    to_expected: expected.as_ref().map_or(0.0, |e| ratio(&added, e)),
                    shingles: shingles(&own),
                    text,
                    own,
                })
            })
            .filter(|c| c.own.tokens.len() >= settings.similarity_min_tokens)
            .collect();
        let pairs = alike(&candidates, settings.similarity_threshold);
        let edges: Vec<(usize, usize)> = pairs.iter().map(|p| (p.0, p.1)).collect();
        for members in groups::components(candidates.len(), &edges) {
            groups.push(group(&exercise.id, &candidates, &members, &pairs));
        }
    }
    groups.sort_by(|x, y| {
        y.rarity_bits
            .total_cmp(&x.rarity_bits)
            .then_with(|| (&x.exercise, &x.members).cmp(&(&y.exercise, &y.members)))
    });
    groups
}

/// For each shingle, how many bits its being shared is unlikely by (see `Pair::rarity_bits`).
fn rarity(candidates: &[Candidate]) -> HashMap<&Vec<String>, f64> {
    let mut writers: HashMap<&Vec<String>, usize> = HashMap::new();
    for candidate in candidates {
        for shingle in &candidate.shingles {
            *writers.entry(shingle).or_default() += 1;
        }
    }
    let class = candidates.len() as f64;
    let standard = (class / 4.0).max(3.0);
    writers
        .into_iter()
        .map(|(shingle, n)| {
            let n = n as f64;
            let bits = if n > standard {
                0.0
            } else {
                ((class + PRIOR_STUDENTS) / n).log2()
            };
            (shingle, bits)
        })
        .collect()
}

/// Two candidates alike: their indices, similarity and rarity bits.
type Alike = (usize, usize, f64, f64);

/// The pairs of candidates at or above the threshold, closer to each other than either is to
/// the model answer, and sharing at least `MIN_RARITY_BITS` of rare text.
fn alike(candidates: &[Candidate], threshold: f64) -> Vec<Alike> {
    let bits = rarity(candidates);
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
            if similarity < threshold || explained {
                continue;
            }
            let rarity_bits: f64 = candidates[i]
                .shingles
                .intersection(&candidates[j].shingles)
                .map(|s| bits.get(s).copied().unwrap_or(0.0))
                .sum();
            if rarity_bits >= MIN_RARITY_BITS {
                pairs.push((i, j, similarity, rarity_bits));
            }
        }
    }
    pairs
}

fn group(exercise: &str, candidates: &[Candidate], members: &[usize], pairs: &[Alike]) -> Group {
    let mut in_group: Vec<&Alike> = pairs.iter().filter(|p| members.contains(&p.0)).collect();
    // Strongest first; then only the pairs that join the group (a spanning tree): a group of
    // thirteen shows twelve pairs, not seventy-eight.
    in_group.sort_by(|x, y| {
        y.3.total_cmp(&x.3)
            .then_with(|| y.2.total_cmp(&x.2))
            .then_with(|| (x.0, x.1).cmp(&(y.0, y.1)))
    });
    let joining = groups::spanning(
        candidates.len(),
        &in_group.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(),
    );
    let in_group: Vec<Pair> = joining
        .into_iter()
        .map(|k| {
            let &(i, j, similarity, rarity_bits) = in_group[k];
            let (shared_a, shared_b) = shared_lines(&candidates[i].own, &candidates[j].own);
            Pair {
                a: candidates[i].submission.clone(),
                b: candidates[j].submission.clone(),
                similarity: (similarity * 1000.0).round() / 1000.0,
                rarity_bits: rarity_bits.round(),
                shared_a,
                shared_b,
            }
        })
        .collect();
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
        similarity: in_group.iter().map(|p| p.similarity).fold(0.0, f64::max),
        rarity_bits: in_group.first().map_or(0.0, |p| p.rarity_bits),
        pairs: in_group,
        kernels,
    }
}
