//! Pairs of submissions whose kernels are nearly the same, for the instructor to look at. Only
//! a student's own part counts (the lines added to the exercise's file), after removing comments
//! and whitespace and renaming identifiers in order of appearance, so renaming variables and
//! reformatting do not hide a copy; `similar` gives the diff ratio of the token sequences.

use super::results::Store;
use super::settings::Settings;
use serde::{Deserialize, Serialize};
use similar::{Algorithm, TextDiff};
use std::collections::HashMap;
use std::time::Duration;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Pair {
    pub exercise: String,
    pub a: String,
    pub b: String,
    /// 0 to 1: twice the matching tokens over all tokens of both.
    pub similarity: f64,
}

/// The course's own files for an exercise: what every student starts from, and the model
/// answer, from which the expected answer is known (not from how many students wrote alike,
/// which hides a ring of copies and pairs two different slips on the model answer).
#[derive(Clone, Copy, Default)]
pub struct Course<'a> {
    pub exercise: &'a str,
    pub solution: Option<&'a str>,
}

/// Words that mean the same in every kernel and so are not renamed.
const KEPT: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "const",
    "constexpr",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "false",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "true",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "size_t",
    "__global__",
    "__device__",
    "__host__",
    "__shared__",
    "__constant__",
    "__restrict__",
    "__syncthreads",
    "__syncwarp",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "x",
    "y",
    "z",
    "atomicAdd",
    "atomicSub",
    "atomicMax",
    "atomicMin",
    "atomicCAS",
    "atomicExch",
    "__shfl_down_sync",
    "__shfl_up_sync",
    "__shfl_xor_sync",
    "__shfl_sync",
    "__ballot_sync",
    "__any_sync",
    "__all_sync",
    "__ldg",
    "expf",
    "exp",
    "logf",
    "sqrtf",
    "rsqrtf",
    "fmaxf",
    "fminf",
    "fabsf",
    "max",
    "min",
    "powf",
    "tanhf",
    "__expf",
    "__fdividef",
    "INFINITY",
    "FLT_MAX",
];

/// Tokens of C-like source without comments: identifiers, numbers, string literals, and each
/// other non-blank character on its own.
pub fn tokens(source: &str) -> Vec<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric()
            || c == '_'
            || c == '.' && next.is_some_and(|n| n.is_ascii_digit())
        {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || chars[i] == '.' && c.is_ascii_digit())
            {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == '"' || c == '\'' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(chars[start..i.min(chars.len())].iter().collect());
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

/// The student's own part of a kernel, as normalised tokens: the lines not in the exercise's
/// file, without comments, identifiers renamed `v0, v1, ...` in order of first appearance.
pub fn normalise(kernel: &str, exercise: &str) -> Vec<String> {
    let diff = TextDiff::from_lines(exercise, kernel);
    let own: String = diff
        .iter_all_changes()
        .filter(|c| c.tag() == similar::ChangeTag::Insert)
        .map(|c| c.value())
        .collect::<Vec<_>>()
        .concat();
    let mut names: HashMap<String, String> = HashMap::new();
    tokens(&own)
        .into_iter()
        .map(|t| {
            let is_name = t.starts_with(|c: char| c.is_alphabetic() || c == '_');
            if !is_name || KEPT.contains(&t.as_str()) {
                return t;
            }
            let next = format!("v{}", names.len());
            names.entry(t).or_insert(next).clone()
        })
        .collect()
}

fn counts(tokens: &[String]) -> HashMap<&str, usize> {
    let mut map = HashMap::new();
    for t in tokens {
        *map.entry(t.as_str()).or_default() += 1;
    }
    map
}

/// Diff ratio of two token sequences.
pub fn ratio(a: &[String], b: &[String]) -> f64 {
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let b: Vec<&str> = b.iter().map(String::as_str).collect();
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .timeout(Duration::from_millis(200))
        .diff_slices(&a, &b);
    diff.ratio() as f64
}

/// Every pair of submissions at or above the threshold on some exercise, most similar first.
/// `course` gives each exercise's own file, whose lines do not count, and its solution: a
/// pair is left out where either kernel is as close to the solution as to the other (two
/// students who each wrote the model answer, slips and all, did not copy each other).
pub fn report(settings: &Settings, store: &Store, course: &HashMap<String, Course>) -> Vec<Pair> {
    let mut pairs = Vec::new();
    let cells = store.all();
    for exercise in &settings.exercises {
        let files = course.get(&exercise.id).copied().unwrap_or_default();
        let expected = files.solution.map(|s| normalise(s, files.exercise));
        let kernels: Vec<(String, Vec<String>)> = cells
            .iter()
            .filter(|c| c.exercise == exercise.id && c.found_at.is_some())
            .filter_map(|c| {
                Some((
                    c.submission.clone(),
                    normalise(&store.kernel(&c.submission, &c.exercise)?, files.exercise),
                ))
            })
            .filter(|(_, t)| t.len() >= settings.similarity_min_tokens)
            .filter(|(_, t)| expected.as_ref() != Some(t))
            .collect();
        let to_expected: Vec<f64> = kernels
            .iter()
            .map(|(_, t)| expected.as_ref().map_or(0.0, |e| ratio(t, e)))
            .collect();
        let bags: Vec<HashMap<&str, usize>> = kernels.iter().map(|(_, t)| counts(t)).collect();
        for i in 0..kernels.len() {
            for j in i + 1..kernels.len() {
                let (a, b) = (&kernels[i].1, &kernels[j].1);
                let total = (a.len() + b.len()) as f64;
                // Matching tokens are at most the shorter length and at most the shared bag.
                let shared: usize = bags[i]
                    .iter()
                    .map(|(t, n)| (*n).min(bags[j].get(t).copied().unwrap_or(0)))
                    .sum();
                if 2.0 * shared as f64 / total < settings.similarity_threshold {
                    continue;
                }
                let similarity = if a == b { 1.0 } else { ratio(a, b) };
                let explained = similarity <= to_expected[i].max(to_expected[j]);
                if similarity >= settings.similarity_threshold && !explained {
                    pairs.push(Pair {
                        exercise: exercise.id.clone(),
                        a: kernels[i].0.clone(),
                        b: kernels[j].0.clone(),
                        similarity: (similarity * 1000.0).round() / 1000.0,
                    });
                }
            }
        }
    }
    pairs.sort_by(|x, y| {
        y.similarity
            .total_cmp(&x.similarity)
            .then_with(|| (&x.exercise, &x.a, &x.b).cmp(&(&y.exercise, &y.a, &y.b)))
    });
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXERCISE: &str = "__global__ void k(float* out, int n)\n{\n    // TODO\n}\n";

    #[test]
    fn renaming_and_reformatting_do_not_hide_a_copy_but_other_code_differs() {
        let original = "__global__ void k(float* out, int n)\n{\n    int index = blockIdx.x * blockDim.x + threadIdx.x;\n    \
                        float acc = 0.0f;\n    for (int step = 0; step < 8; ++step) acc += step * index;\n    if (index < n) out[index] = acc;\n}\n";
        let disguised = "__global__ void k(float* out, int n)\n{\n  // my own work\n  int   i=blockIdx.x*blockDim.x+threadIdx.x;\n  \
                         float s = 0.0f; for (int j = 0; j < 8; ++j) s += j * i;\n  if (i < n) { out[i] = s; }\n}\n";
        let different = "__global__ void k(float* out, int n)\n{\n    for (int i = threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n        \
                         out[i] = sqrtf((float)i) * 2.0f - 1.0f;\n    }\n}\n";
        let (a, b, c) = (
            normalise(original, EXERCISE),
            normalise(disguised, EXERCISE),
            normalise(different, EXERCISE),
        );
        assert!(ratio(&a, &b) > 0.9, "{a:?}\n{b:?}: {}", ratio(&a, &b));
        assert!(ratio(&a, &c) < 0.7, "{}", ratio(&a, &c));
        assert!(!a.iter().any(|t| t == "index" || t == "TODO"));
    }
}
