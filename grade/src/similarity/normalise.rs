//! A kernel as the similarity compares it: the student's own lines (those not in the
//! exercise's file, and not made of text the course hands out: its hints and solution, see
//! `Given`), as tokens without comments and whitespace, identifiers renamed `v0, v1, ...`
//! in order of first appearance; each token keeps the line of the kernel it came from, so what
//! two kernels share can be shown on their own lines.

use similar::{Algorithm, ChangeTag, DiffOp, TextDiff};
use std::collections::{HashMap, HashSet};

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
/// other non-blank character on its own; each with the index (from 0) of the line it starts on.
fn tokens(source: &str) -> Vec<(String, usize)> {
    let chars: Vec<char> = source.chars().collect();
    let line_of: Vec<usize> = chars
        .iter()
        .scan(0, |line, c| {
            let here = *line;
            *line += usize::from(*c == '\n');
            Some(here)
        })
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let start = i;
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
            continue;
        } else if c.is_whitespace() {
            i += 1;
            continue;
        } else if c.is_alphanumeric()
            || c == '_'
            || c == '.' && next.is_some_and(|n| n.is_ascii_digit())
        {
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || chars[i] == '.' && c.is_ascii_digit())
            {
                i += 1;
            }
        } else if c == '"' || c == '\'' {
            i += 1;
            while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else {
            i += 1;
        }
        let token = chars[start..i.min(chars.len())].iter().collect();
        out.push((token, line_of[start]));
    }
    out
}

/// The student's own part of a kernel, as the similarity compares it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Normalised {
    /// Tokens of the lines not in the exercise's file, names renamed.
    pub tokens: Vec<String>,
    /// For each token, the kernel's line (from 1) it is on.
    pub lines: Vec<usize>,
    /// The kernel's lines (from 1) that are not in the exercise's file.
    pub own_lines: Vec<usize>,
}

/// Tokens in a row that make a shingle: long enough that a shared shingle is a shared phrase
/// (`i < n ) c [`), short enough for a one-line hint to hold several.
pub(super) const SHINGLE: usize = 5;

/// A token with every name made the same (`v`): what two texts share whatever their names.
fn shape(token: &str) -> &str {
    let is_name = token.starts_with(|c: char| c.is_alphabetic() || c == '_');
    if is_name && !KEPT.contains(&token) {
        "v"
    } else {
        token
    }
}

/// The text the course hands out for an exercise (its hints, its solution), as the shingles
/// of its tokens' shapes: a student's line made only of such shingles is the course's text,
/// pasted from a hint or written as everyone writes it, and does not count as the student's.
#[derive(Clone, Debug, Default)]
pub(super) struct Given {
    shingles: HashSet<Vec<String>>,
}

impl Given {
    pub(super) fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> Given {
        let mut shingles = HashSet::new();
        for text in texts {
            let shapes: Vec<String> = tokens(text)
                .iter()
                .map(|(t, _)| shape(t).to_string())
                .collect();
            shingles.extend(shapes.windows(SHINGLE).map(<[String]>::to_vec));
        }
        Given { shingles }
    }

    /// For each of `shapes`, whether a shingle of the given text covers it.
    fn covers(&self, shapes: &[String]) -> Vec<bool> {
        let mut covered = vec![false; shapes.len()];
        for (start, window) in shapes.windows(SHINGLE).enumerate() {
            if self.shingles.contains(window) {
                covered[start..start + SHINGLE].fill(true);
            }
        }
        covered
    }
}

/// The shingles of a normalised kernel's tokens, names made the same (see `shape`).
pub(super) fn shingles(kernel: &Normalised) -> HashSet<Vec<String>> {
    let shapes: Vec<String> = kernel.tokens.iter().map(|t| shape(t).to_string()).collect();
    shapes.windows(SHINGLE).map(<[String]>::to_vec).collect()
}

/// The student's own part of `kernel`: the lines not in the exercise's file nor made only of
/// `given` text, without comments, identifiers renamed `v0, v1, ...` in order of first
/// appearance.
pub(super) fn normalise(kernel: &str, exercise: &str, given: &Given) -> Normalised {
    let diff = TextDiff::from_lines(exercise, kernel);
    let mut own = String::new();
    // The kernel's line (from 1) of each line of `own`.
    let mut inserted = Vec::new();
    for change in diff.iter_all_changes() {
        if change.tag() == ChangeTag::Insert {
            own.push_str(change.value());
            inserted.push(change.new_index().map_or(0, |i| i + 1));
        }
    }
    let raw = tokens(&own);
    let shapes: Vec<String> = raw.iter().map(|(t, _)| shape(t).to_string()).collect();
    let covered = given.covers(&shapes);
    // A line of the student's is the course's when every token on it is covered.
    let course_lines: HashSet<usize> = raw
        .iter()
        .map(|(_, line)| *line)
        .filter(|line| raw.iter().zip(&covered).all(|((_, l), c)| l != line || *c))
        .collect();
    let own_lines: Vec<usize> = inserted
        .iter()
        .enumerate()
        .filter(|(index, _)| !course_lines.contains(index))
        .map(|(_, line)| *line)
        .collect();
    let mut names: HashMap<String, String> = HashMap::new();
    let (tokens, lines) = raw
        .into_iter()
        .filter(|(_, line)| !course_lines.contains(line))
        .map(|(t, line)| {
            let line = inserted.get(line).copied().unwrap_or(0);
            let is_name = t.starts_with(|c: char| c.is_alphabetic() || c == '_');
            if !is_name || KEPT.contains(&t.as_str()) {
                return (t, line);
            }
            let next = format!("v{}", names.len());
            (names.entry(t).or_insert(next).clone(), line)
        })
        .unzip();
    Normalised {
        tokens,
        lines,
        own_lines,
    }
}

/// Tokens of a kernel compared with another's: an exercise's kernel file has a few hundred to
/// two thousand; a file far longer is compared on its first ones. A bound on the input, not a
/// deadline on the diff, so the same class gives the same groups on any machine, and a diff
/// (Myers: time grows with both lengths and their differences) stays a fraction of a second.
const COMPARED_TOKENS: usize = 4000;

fn compared(tokens: &[String]) -> &[String] {
    &tokens[..tokens.len().min(COMPARED_TOKENS)]
}

/// The matching runs of the compared parts of two token sequences.
fn diff(a: &[String], b: &[String]) -> Vec<DiffOp> {
    similar::capture_diff_slices(Algorithm::Myers, compared(a), compared(b))
}

/// Diff ratio of two token sequences: twice the matching tokens over all tokens of both (of the
/// parts compared).
pub(super) fn ratio(a: &[String], b: &[String]) -> f64 {
    if a == b {
        return 1.0;
    }
    let (a_len, b_len) = (compared(a).len(), compared(b).len());
    similar::get_diff_ratio(&diff(a, b), a_len, b_len) as f64
}

/// The lines of each kernel whose every token matches the other's (its lines without tokens,
/// blank or comment, are in neither).
pub(super) fn shared_lines(a: &Normalised, b: &Normalised) -> (Vec<usize>, Vec<usize>) {
    let mut matched_a = vec![false; a.tokens.len()];
    let mut matched_b = vec![false; b.tokens.len()];
    for op in diff(&a.tokens, &b.tokens) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            matched_a[old_index..old_index + len].fill(true);
            matched_b[new_index..new_index + len].fill(true);
        }
    }
    (fully_matched(a, &matched_a), fully_matched(b, &matched_b))
}

fn fully_matched(kernel: &Normalised, matched: &[bool]) -> Vec<usize> {
    let mut lines: Vec<usize> = kernel.lines.clone();
    lines.dedup();
    lines.retain(|line| {
        kernel
            .lines
            .iter()
            .zip(matched)
            .all(|(l, m)| l != line || *m)
    });
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXERCISE: &str = "__global__ void k(float* out, int n)\n{\n    // TODO\n}\n";

    #[test]
    fn files_far_longer_than_a_kernel_are_compared_on_their_first_tokens() {
        let tokens = |n: usize, tail: &str| -> Vec<String> {
            (0..n)
                .map(|i| format!("t{}", i % 97))
                .chain((0..2 * COMPARED_TOKENS).map(|_| tail.to_string()))
                .collect()
        };
        let (a, b) = (tokens(COMPARED_TOKENS, "x"), tokens(COMPARED_TOKENS, "y"));
        assert_eq!(ratio(&a, &b), 1.0, "only the first tokens count");
        let (a, b) = (tokens(100, "x"), tokens(100, "y"));
        assert!(ratio(&a, &b) < 0.1, "{}", ratio(&a, &b));
    }

    #[test]
    fn renaming_and_reformatting_do_not_hide_a_copy_but_other_code_differs() {
        let original = "__global__ void k(float* out, int n)\n{\n    int index = blockIdx.x * blockDim.x + threadIdx.x;\n    \
                        float acc = 0.0f;\n    for (int step = 0; step < 8; ++step) acc += step * index;\n    if (index < n) out[index] = acc;\n}\n";
        let disguised = "__global__ void k(float* out, int n)\n{\n  // my own work\n  int   i=blockIdx.x*blockDim.x+threadIdx.x;\n  \
                         float s = 0.0f; for (int j = 0; j < 8; ++j) s += j * i;\n  if (i < n) { out[i] = s; }\n}\n";
        let different = "__global__ void k(float* out, int n)\n{\n    for (int i = threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n        \
                         out[i] = sqrtf((float)i) * 2.0f - 1.0f;\n    }\n}\n";
        let (a, b, c) = (
            normalise(original, EXERCISE, &Given::default()).tokens,
            normalise(disguised, EXERCISE, &Given::default()).tokens,
            normalise(different, EXERCISE, &Given::default()).tokens,
        );
        assert!(ratio(&a, &b) > 0.9, "{a:?}\n{b:?}: {}", ratio(&a, &b));
        assert!(ratio(&a, &c) < 0.7, "{}", ratio(&a, &c));
        assert!(!a.iter().any(|t| t == "index" || t == "TODO"));
    }

    #[test]
    fn a_line_pasted_from_a_hint_or_written_as_the_solution_is_not_the_students() {
        let given = Given::new([
            "if (i < n) c[i] = a[i] + b[i];",
            "Compute int i = blockIdx.x * blockDim.x + threadIdx.x; then guard it.",
        ]);
        let kernel = "__global__ void k(float* out, int n)\n{\n    int idx = blockIdx.x * blockDim.x + threadIdx.x;\n    \
                      if (idx < n) out[idx] = sqrtf(idx) * 3.0f;\n}\n";
        let own = normalise(kernel, EXERCISE, &given);
        assert_eq!(own.own_lines, [4], "the index, renamed, is the hint's");
        assert_eq!(own.lines.first(), Some(&4));
        let all = normalise(kernel, EXERCISE, &Given::default());
        assert_eq!(all.own_lines, [3, 4]);
    }

    #[test]
    fn a_renamed_copy_shares_every_line_but_the_one_added_and_the_one_changed() {
        let exercise = "__global__ void k(float* out, int n)\n{\n}\n";
        let original = "__global__ void k(float* out, int n)\n{\n    int i = threadIdx.x;\n    \
                        if (i < n)\n        out[i] = 2.0f * i;\n}\n";
        let copy = "__global__ void k(float* out, int n)\n{\n    /* mine */\n    int t = threadIdx.x;\n    \
                    if (t < n)\n        out[t] = 3.0f * t;\n    __syncthreads();\n}\n";
        let none = Given::default();
        let (a, b) = (
            normalise(original, exercise, &none),
            normalise(copy, exercise, &none),
        );
        assert_eq!(a.own_lines, [3, 4, 5]);
        assert_eq!(b.own_lines, [3, 4, 5, 6, 7]);
        let (in_a, in_b) = shared_lines(&a, &b);
        assert_eq!(in_a, [3, 4], "the line with 2.0f differs");
        assert_eq!(
            in_b,
            [4, 5],
            "the comment, 3.0f and the added line are not shared"
        );
    }
}
