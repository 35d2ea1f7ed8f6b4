//! Randomized tests of the PTX reader: seeded mutations of every fixture and of the saved corpus
//! (`tests/fuzz_corpus/`) are parsed and lowered; each must give a module or an error, never a
//! panic. A fixed number of mutants (a few seconds in all) keeps the run bounded and repeatable;
//! `FUZZ_SEED` and `FUZZ_MUTANTS` try others.

use super::common::fixture_dir;
use sim::Module;
use std::path::PathBuf;

/// xorshift64*: enough to pick mutations, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Numbers at the edges of what the parser reads: zero, powers of two around 32 and 64 bits.
const HOSTILE_NUMBERS: [&str; 9] = [
    "0",
    "-1",
    "3",
    "65536",
    "2147483648",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "99999999999999999999",
];

/// One mutation of `text` at a place the seed picks.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return String::new();
    }
    let at = rng.below(lines.len());
    match rng.below(6) {
        0 => {
            lines.remove(at);
        }
        1 => {
            let line = lines[at].clone();
            lines.insert(at, line);
        }
        2 => {
            let cut = rng.below(lines[at].len() + 1);
            let keep = lines[at]
                .char_indices()
                .nth(cut)
                .map_or(lines[at].len(), |(i, _)| i);
            lines[at].truncate(keep);
        }
        3 => {
            let number = HOSTILE_NUMBERS[rng.below(HOSTILE_NUMBERS.len())];
            let line = &lines[at];
            let starts: Vec<usize> = line
                .char_indices()
                .filter(|&(i, c)| {
                    c.is_ascii_digit() && !line[..i].ends_with(|p: char| p.is_ascii_alphanumeric())
                })
                .map(|(i, _)| i)
                .collect();
            if !starts.is_empty() {
                let start = starts[rng.below(starts.len())];
                let end = line[start..]
                    .find(|c: char| !c.is_ascii_alphanumeric())
                    .map_or(line.len(), |e| start + e);
                lines[at] = format!("{}{number}{}", &line[..start], &line[end..]);
            }
        }
        4 => {
            let words: Vec<&str> = lines[at].split_whitespace().collect();
            if !words.is_empty() {
                let drop = rng.below(words.len());
                lines[at] = words
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != drop)
                    .map(|(_, w)| *w)
                    .collect::<Vec<_>>()
                    .join(" ");
            }
        }
        _ => {
            let other = lines[rng.below(lines.len())].clone();
            lines[at] = other;
        }
    }
    lines.join("\n") + "\n"
}

fn seeds() -> Vec<(PathBuf, String)> {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus");
    let mut out = Vec::new();
    for dir in [fixture_dir(), corpus] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ptx") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path, text));
            }
        }
    }
    out.sort();
    out
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn mutated_ptx_parses_or_is_refused_never_panics() {
    let seeds = seeds();
    assert!(seeds.len() >= 20, "seeds: {}", seeds.len());
    let mut rng = Rng(env_or("FUZZ_SEED", 0x5eed_2025) | 1);
    let mutants = env_or("FUZZ_MUTANTS", 1500);
    for _ in 0..mutants {
        let (path, text) = &seeds[rng.below(seeds.len())];
        let mut mutant = text.clone();
        for _ in 0..1 + rng.below(3) {
            mutant = mutate(&mutant, &mut rng);
        }
        let outcome = std::panic::catch_unwind(|| Module::parse(&mutant).map(|_| ()));
        if outcome.is_err() {
            let kept = std::env::temp_dir().join("sim_fuzz_panic.ptx");
            let _ = std::fs::write(&kept, &mutant);
            panic!(
                "a mutant of {} panicked the parser; it is in {} (add it to tests/fuzz_corpus/)",
                path.display(),
                kept.display()
            );
        }
    }
}

#[test]
fn the_saved_corpus_is_answered_without_a_panic() {
    for (path, text) in seeds() {
        let outcome = std::panic::catch_unwind(|| Module::parse(&text).map(|_| ()));
        assert!(outcome.is_ok(), "{} panicked", path.display());
    }
}
