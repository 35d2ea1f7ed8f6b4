//! The kernel files of one submission: found by the exercise's path (or, failing that, by the
//! end of that path, the file name alone, or a name a learning platform changed (`names`), for
//! archives with an extra top folder, for flat uploads and for a clone of the course, whose
//! `solutions/` is passed over), checked to be UTF-8 text of a sane size that includes nothing
//! from outside, and copied into a staging folder. Nothing else from a submission is ever read.
//! A file name several exercises share (the host exercises' `src/main.rs`) is found by its path,
//! or as the submission's one program file of a language only one graded exercise is written in.

use super::archive::Skipped;
use super::contents::Contents;
use super::names;
use runner::course::Exercise;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Walking a submission folder stops after this many entries.
const MAX_WALKED: usize = 100_000;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Lookup {
    Found {
        found_at: String,
        staged: PathBuf,
        text: String,
        /// Taken by a name other than the exercise's own path or name (renamed, or the lone
        /// program file): the cell's message says which file was graded.
        renamed: bool,
        /// Other files that looked like the exercise's but were not graded, with different
        /// text (`vector_add-1.cu` beside `vector_add.cu`): the cell names them, so a student
        /// who uploaded a newer copy under an LMS's copy mark and the instructor both see it.
        passed_over: Vec<String>,
    },
    Missing {
        expected: String,
        /// What the submission holds where nothing in it is named like any exercise's file
        /// (a PDF, an empty archive, an archive in an archive): said in the cell, so the
        /// student and the instructor see why.
        instead: Option<Contents>,
    },
    /// The exercise's file as handed out: not done, and not worth a check.
    Untouched {
        found_at: String,
        text: String,
    },
    Refused {
        reason: String,
    },
}

/// Candidate files in a submission: those whose name is some exercise's kernel file name.
pub(crate) struct Tree {
    root: PathBuf,
    files: Vec<PathBuf>,
    skipped: Vec<Skipped>,
    /// The course's exercise files whose name another exercise's file has too (`main.rs` of
    /// 25-28): such a file is taken only where its path tells which exercise it is.
    shared: Vec<PathBuf>,
    /// Every exercise's file name, for telling whose a renamed file is.
    names: Vec<String>,
    /// The files that are no candidate (build folders and hidden files aside).
    others: Contents,
}

/// The files of `exercises` whose name another of them has too.
pub(crate) fn sharing_a_name(exercises: &[Exercise]) -> Vec<PathBuf> {
    let name = |e: &Exercise| file_name(Path::new(&e.file)).map(|n| n.to_os_string());
    exercises
        .iter()
        .filter(|e| {
            exercises
                .iter()
                .any(|other| other.id != e.id && name(other) == name(e))
        })
        .map(|e| PathBuf::from(&e.file))
        .collect()
}

fn file_name(path: &Path) -> Option<&std::ffi::OsStr> {
    path.file_name()
}

/// The exercises' file names (`vector_add.cu`), in their order.
fn file_names(exercises: &[Exercise]) -> Vec<String> {
    exercises
        .iter()
        .filter_map(|e| file_name(Path::new(&e.file)))
        .map(|n| n.to_string_lossy().into_owned())
        .collect()
}

/// A file that may be an exercise's, and how well its path says so (see `ranked_candidates`).
#[derive(Clone, Copy)]
struct Candidate<'a> {
    tier: usize,
    depth: usize,
    path: &'a PathBuf,
    /// Why the walk could not take it (too large, unreadable...), if it could not.
    skipped: Option<&'a String>,
    /// The exercise's file name is one several exercises share (`main.rs`).
    shared: bool,
}

impl Candidate<'_> {
    fn rank(&self) -> (usize, usize) {
        (self.tier, self.depth)
    }
}

impl Tree {
    /// Walks `root` without following links to folders; `skipped` are files an archive held
    /// that could not be taken.
    pub(crate) fn walk(
        root: &Path,
        exercises: &[Exercise],
        skipped: Vec<Skipped>,
    ) -> Result<Tree, String> {
        let root = root
            .canonicalize()
            .map_err(|e| format!("cannot read {}: {e}", root.display()))?;
        let names = file_names(exercises);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let programs = program_extensions(exercises);
        let mut files = Vec::new();
        let mut others = Contents::default();
        let mut pending = vec![PathBuf::new()];
        let mut walked = 0;
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
                continue;
            };
            let entries: Vec<std::fs::DirEntry> = entries.flatten().collect();
            let course_clone = is_course_clone(&entries);
            for entry in entries {
                walked += 1;
                if walked > MAX_WALKED {
                    return Err(format!(
                        "has more than {MAX_WALKED} files and folders; submit only the exercises"
                    ));
                }
                let name = entry.file_name();
                if name.to_string_lossy().starts_with('.')
                    || names::BUILD_FOLDERS.contains(&name.to_string_lossy().as_ref())
                    || (course_clone && name == "solutions")
                {
                    continue;
                }
                let relative = dir.join(&name);
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    pending.push(relative);
                } else if is_candidate_name(&name.to_string_lossy(), &names, &programs) {
                    files.push(relative);
                } else {
                    others.add(&relative);
                }
            }
        }
        Ok(Tree {
            root,
            files,
            skipped,
            shared: Vec::new(),
            names: names.iter().map(|n| n.to_string()).collect(),
            others,
        })
    }

    /// The files an archive held besides those it extracted, which are all a walk of its
    /// folder sees.
    pub(crate) fn with_archive_contents(mut self, others: Contents) -> Tree {
        self.others = others;
        self
    }

    /// Takes a file whose name `all` (the course's exercises, not only those graded) share only
    /// by its path: a lone `main.rs` is no exercise's while 26's is in the class.
    pub(crate) fn sharing_names_of(mut self, all: &[Exercise]) -> Tree {
        self.shared = sharing_a_name(all);
        self.names = file_names(all);
        self
    }

    /// Whether the submission holds no file named like an exercise's kernel.
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty() && self.skipped.is_empty()
    }

    /// Finds, checks and stages the kernel of `exercise` into `staging` (at the exercise's path).
    /// `lone` says that the exercise is the only graded one in its program language (see
    /// `lone_program`). `original` is the exercise's file as handed out: a file with its text
    /// (line endings and trailing blank space aside: an editor may change those on save) is
    /// untouched, decided here rather than by a check: it costs no check (a class leaves many
    /// exercises untouched), and an untouched find-the-bug exercise (22, 23), which writes its
    /// output, would otherwise be graded "failed". Where the best-named file is untouched and a
    /// worse-named one (`vector_add (1).cu`, an LMS's name for a second upload) holds work, the
    /// work is graded.
    pub(crate) fn kernel(
        &self,
        exercise: &Exercise,
        staging: &Path,
        max_file_bytes: u64,
        lone: bool,
        original: Option<&str>,
    ) -> Lookup {
        let ranked = self.ranked_candidates(exercise, lone);
        let Some(first) = ranked.first() else {
            return self.missing_or_unplaced(exercise);
        };
        let ties = ranked
            .iter()
            .take_while(|c| c.rank() == first.rank())
            .count();
        let (best, rest) = ranked.split_at(ties);
        let untouched = |text: &str| original.is_some_and(|o| runner::pristine::same_text(text, o));
        let taken = self.take_best(best, exercise, staging, max_file_bytes);
        let Lookup::Found { found_at, text, .. } = &taken else {
            return taken;
        };
        if !untouched(text) {
            return self.naming_passed_over(taken, rest, untouched);
        }
        let (found_at, text) = (found_at.clone(), text.clone());
        for (at, candidate) in rest.iter().enumerate() {
            let worked = self.take_best(
                std::slice::from_ref(candidate),
                exercise,
                staging,
                max_file_bytes,
            );
            if matches!(&worked, Lookup::Found { text, .. } if !untouched(text)) {
                let others: Vec<Candidate> = rest
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != at)
                    .map(|(_, c)| *c)
                    .collect();
                return self.naming_passed_over(worked, &others, untouched);
            }
        }
        Lookup::Untouched { found_at, text }
    }

    /// Every file that may be the exercise's, best first: tier 0 the exact path; 1 a path ending
    /// with it; 2 the file name alone, for a name no other exercise has; 3 that name with a copy
    /// mark; 4 that name after a prefix (`names::likeness`), where no other exercise's name fits
    /// better; 5 the lone program file (see `lone_program`), only where nothing else is. Then
    /// the shallowest.
    fn ranked_candidates(&self, exercise: &Exercise, lone: bool) -> Vec<Candidate<'_>> {
        let expected = Path::new(&exercise.file);
        let expected_name = expected
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let shared = self.is_shared(expected);
        let candidates = self
            .files
            .iter()
            .map(|p| (p, None))
            .chain(self.skipped.iter().map(|s| (&s.path, Some(&s.reason))));
        let mut ranked: Vec<Candidate> = candidates
            .filter_map(|(path, skipped)| {
                let tier = if path == expected {
                    0
                } else if path.ends_with(expected) {
                    1
                } else if path.file_name() == expected.file_name() && !shared {
                    2
                } else {
                    3 + self.renamed(path, &expected_name, &names, shared)? as usize
                };
                let depth = path.components().count();
                Some(Candidate {
                    tier,
                    depth,
                    path,
                    skipped,
                    shared,
                })
            })
            .collect();
        if ranked.is_empty() && lone {
            if let Some((path, skipped)) = self.lone_program(exercise, &names) {
                ranked.push(Candidate {
                    tier: 5,
                    depth: 0,
                    path,
                    skipped,
                    shared,
                });
            }
        }
        ranked.sort_by_key(|c| (c.rank(), c.path.clone()));
        ranked
    }

    fn is_shared(&self, expected: &Path) -> bool {
        self.shared
            .iter()
            .any(|s| s.file_name() == expected.file_name())
    }

    /// No candidate: the exercise's file is missing, or only a file of its shared name is there
    /// whose path does not say whose it is.
    fn missing_or_unplaced(&self, exercise: &Exercise) -> Lookup {
        let expected = Path::new(&exercise.file);
        match self.unplaced(expected).filter(|_| self.is_shared(expected)) {
            Some(file) => Lookup::Refused {
                reason: format!(
                    "{} could be any of several exercises' {}: put exercise {}'s at {} (or in a \
                     folder ending with that path) so the grader can tell which it is",
                    file.display(),
                    expected.file_name().unwrap_or_default().to_string_lossy(),
                    exercise.id,
                    exercise.file
                ),
            },
            None => Lookup::Missing {
                expected: exercise.file.clone(),
                instead: self.is_empty().then(|| self.others.clone()),
            },
        }
    }

    /// Takes the one best candidate, or refuses where several tie.
    fn take_best(
        &self,
        best: &[Candidate],
        exercise: &Exercise,
        staging: &Path,
        max_file_bytes: u64,
    ) -> Lookup {
        match best {
            [] => Lookup::Missing {
                expected: exercise.file.clone(),
                instead: None,
            },
            [Candidate {
                path,
                skipped: Some(reason),
                ..
            }] => Lookup::Refused {
                reason: format!("{} {reason}", path.display()),
            },
            [candidate] => {
                let mut found = self.take(candidate.path, exercise, staging, max_file_bytes);
                if let Lookup::Found { renamed, .. } = &mut found {
                    *renamed = candidate.tier >= 3 || (candidate.shared && candidate.tier == 2);
                }
                found
            }
            several => {
                let mut names: Vec<String> = several
                    .iter()
                    .map(|c| c.path.display().to_string())
                    .collect();
                names.sort();
                Lookup::Refused {
                    reason: format!(
                        "{} all look like {}; the grader cannot tell which to grade: keep one",
                        names.join(", "),
                        exercise.file
                    ),
                }
            }
        }
    }

    /// `found` with the files of `others` whose text differs from the one graded named as
    /// passed over: identical copies and the file as handed out say nothing new.
    fn naming_passed_over(
        &self,
        mut found: Lookup,
        others: &[Candidate],
        untouched: impl Fn(&str) -> bool,
    ) -> Lookup {
        if let Lookup::Found {
            text, passed_over, ..
        } = &mut found
        {
            *passed_over = others
                .iter()
                .filter(|c| {
                    std::fs::read_to_string(self.root.join(c.path)).map_or(true, |other| {
                        !runner::pristine::same_text(&other, text) && !untouched(&other)
                    })
                })
                .map(|c| c.path.display().to_string())
                .collect();
        }
        found
    }

    /// How the file at `path` looks like `expected_name`, where its name is not the exercise's
    /// own and no other exercise's name fits it better.
    fn renamed(
        &self,
        path: &Path,
        expected_name: &str,
        names: &[&str],
        shared: bool,
    ) -> Option<names::Likeness> {
        if shared {
            return None;
        }
        let name = path.file_name()?.to_string_lossy();
        (names::owner(&name, names)? == expected_name)
            .then(|| names::likeness(&name, expected_name))
            .flatten()
    }

    /// The submission's one file in the exercise's program language (a lone `main.rs` or `.py`
    /// dragged in at the top), where that file is no other exercise's by its name or path: the
    /// exercise is the only graded one that can own it.
    fn lone_program(
        &self,
        exercise: &Exercise,
        names: &[&str],
    ) -> Option<(&PathBuf, Option<&String>)> {
        let extension = Path::new(&exercise.file).extension()?;
        let own_name = Path::new(&exercise.file).file_name()?;
        let others_file = |path: &Path| {
            let name = path.file_name().unwrap_or_default();
            let placed = self.shared.iter().any(|s| path.ends_with(s));
            let named = name != own_name && names.iter().any(|n| name == *n);
            let renamed =
                names::owner(&name.to_string_lossy(), names).is_some_and(|owner| owner != own_name);
            placed || named || renamed
        };
        let mut found = self
            .files
            .iter()
            .map(|p| (p, None))
            .chain(self.skipped.iter().map(|s| (&s.path, Some(&s.reason))))
            .filter(|(p, _)| p.extension() == Some(extension) && !others_file(p));
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }

    /// A file of the submission with `expected`'s shared name but no path that says whose it
    /// is (a lone `main.rs`): a student's answer the grader cannot place.
    fn unplaced(&self, expected: &Path) -> Option<&PathBuf> {
        self.files
            .iter()
            .chain(self.skipped.iter().map(|s| &s.path))
            .filter(|p| p.file_name() == expected.file_name())
            .find(|p| !self.shared.iter().any(|s| p.ends_with(s)))
    }

    fn take(
        &self,
        relative: &Path,
        exercise: &Exercise,
        staging: &Path,
        max_file_bytes: u64,
    ) -> Lookup {
        let shown = relative.display().to_string();
        let refused = |why: String| Lookup::Refused {
            reason: format!("{shown} {why}"),
        };
        let path = self.root.join(relative);
        // Links are followed only to files inside the submission.
        let Ok(real) = path.canonicalize() else {
            return refused("is a link to nothing; submit the file itself".into());
        };
        if !real.starts_with(&self.root) {
            return refused(
                "is a link to a file outside the submission; submit the file itself".into(),
            );
        }
        let Ok(metadata) = std::fs::metadata(&real) else {
            return refused("cannot be read".into());
        };
        if !metadata.is_file() {
            return refused("is not a regular file".into());
        }
        if metadata.len() > max_file_bytes {
            return refused(format!(
                "is {} KiB, larger than the {} KiB a kernel file may be",
                metadata.len().div_ceil(1024),
                max_file_bytes / 1024
            ));
        }
        let mut bytes = Vec::new();
        // Opened without waiting, and looked at again: a FIFO put in its place would hang here.
        let read = runner::kernel_file::open_nonblocking(&real).and_then(|f| {
            if !f.metadata()?.is_file() {
                return Err(std::io::Error::other("it is no longer a regular file"));
            }
            f.take(max_file_bytes + 1).read_to_end(&mut bytes)
        });
        if let Err(e) = read {
            return refused(format!("cannot be read: {e}"));
        }
        if bytes.len() as u64 > max_file_bytes {
            return refused(format!(
                "is larger than the {} KiB a kernel file may be",
                max_file_bytes / 1024
            ));
        }
        // The same decoding as `runner check`: a byte-order mark (a Windows editor's) dropped,
        // so the kernel staged, keyed and compared for similarity is the text the student sees.
        let text = match runner::kernel_file::decode(bytes, &shown) {
            Ok(text) => text,
            Err(e) => {
                return Lookup::Refused {
                    reason: e.to_string(),
                }
            }
        };
        // Only a kernel is compiled by the grader, where an include could read a file NVRTC then
        // shows; a whole program (Rust, Python) runs anyway and could read any file it likes,
        // which is why grading one needs `--run-programs` (see `prepare::RUN_PROGRAMS_RISK`).
        let kernel = !exercise.is_host();
        if let Some((line, why)) = forbidden_include(&text).filter(|_| kernel) {
            return Lookup::Refused {
                reason: format!("{shown}:{line}: {why}"),
            };
        }
        let staged = staging.join(&exercise.file);
        let written = staged
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&staged, &text));
        if let Err(e) = written {
            return refused(format!(
                "cannot be staged for grading ({}: {e})",
                staged.display()
            ));
        }
        Lookup::Found {
            found_at: shown,
            staged,
            text,
            renamed: false,
            passed_over: Vec::new(),
        }
    }
}

/// `message` with a sentence naming the file graded where it was taken by another name than the
/// exercise's (a renamed or lone file), and one naming the files like it that were not graded
/// (`passed_over`): the student and the instructor see which file it was.
pub(crate) fn naming_the_file_taken(
    mut message: String,
    renamed: bool,
    found_at: &str,
    exercise_file: &str,
    passed_over: &[String],
) -> String {
    if renamed {
        message = format!("{message} (Graded {found_at}, taken as {exercise_file}.)");
    }
    if !passed_over.is_empty() {
        message = format!(
            "{message} (Not graded: {}, which {} {exercise_file} but differs from {found_at}: \
             hand in one file per exercise.)",
            passed_over.join(", "),
            if passed_over.len() == 1 {
                "looks like"
            } else {
                "look like"
            },
        );
    }
    message
}

/// The first `#include` that could read a file from outside the submission: an absolute path,
/// a path with `..`, or a name computed by a macro. NVRTC would read it and show its lines in
/// the compile log, which the student sees. Comments are not stripped first, so the check errs
/// towards refusing, and line splices and `%:` (the digraph of `#`) are seen through.
pub(crate) fn forbidden_include(text: &str) -> Option<(usize, String)> {
    // Join spliced lines, remembering where each character came from.
    let mut chars: Vec<(char, usize)> = Vec::with_capacity(text.len());
    let mut line = 1;
    let mut iter = text.chars().peekable();
    while let Some(c) = iter.next() {
        if c == '\\' && matches!(iter.peek(), Some('\n') | Some('\r')) {
            if iter.next() == Some('\r') && iter.peek() == Some(&'\n') {
                iter.next();
            }
            line += 1;
            continue;
        }
        chars.push((c, line));
        if c == '\n' {
            line += 1;
        }
    }
    let at = |i: usize| chars.get(i).map(|c| c.0);
    let skip_blank = |mut i: usize| loop {
        match (at(i), at(i + 1)) {
            (Some(' ' | '\t'), _) => i += 1,
            (Some('/'), Some('*')) => {
                i += 2;
                while i < chars.len() && !(at(i) == Some('*') && at(i + 1) == Some('/')) {
                    i += 1;
                }
                i += 2;
            }
            _ => return i,
        }
    };
    for start in 0..chars.len() {
        let after_hash = match (at(start), at(start + 1)) {
            (Some('#'), _) => start + 1,
            (Some('%'), Some(':')) => start + 2,
            _ => continue,
        };
        let mut i = skip_blank(after_hash);
        let word_start = i;
        while at(i).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            i += 1;
        }
        let word: String = chars[word_start..i].iter().map(|c| c.0).collect();
        if !matches!(word.as_str(), "include" | "include_next" | "import") {
            continue;
        }
        let line = chars[start].1;
        let i = skip_blank(i);
        let close = match at(i) {
            Some('"') => '"',
            Some('<') => '>',
            _ => {
                return Some((
                    line,
                    format!("`#{word}` with a computed name is refused: kernels may include only headers named literally"),
                ))
            }
        };
        let name: String = chars[i + 1..]
            .iter()
            .map(|c| c.0)
            .take_while(|&c| c != close && c != '\n')
            .collect();
        let path = Path::new(&name);
        let drive = name.len() >= 2 && name.as_bytes()[1] == b':';
        if path.is_absolute()
            || name.starts_with('\\')
            || drive
            || name.split(['/', '\\']).any(|p| p == "..")
        {
            return Some((
                line,
                format!(
                    "`#{word} {}{name}{close}` reads a file outside the submission and is refused: the grader compiles only \
                     the exercise's file",
                    if close == '"' { '"' } else { '<' }
                ),
            ));
        }
    }
    None
}

/// Whether a folder is a clone of the course (a student working in their own copy of the
/// repository, handed in through GitHub): it has both `exercises/` and `solutions/`. Its
/// `solutions/` are the course's, never the student's work, and would make every exercise's file
/// ambiguous.
fn is_course_clone(entries: &[std::fs::DirEntry]) -> bool {
    let has_folder = |wanted: &str| {
        entries
            .iter()
            .any(|e| e.file_name() == wanted && e.file_type().is_ok_and(|t| t.is_dir()))
    };
    has_folder("exercises") && has_folder("solutions")
}

/// Every exercise's kernel, looked up in one submission.
pub(crate) fn look_up_all(
    tree: &Tree,
    exercises: &[Exercise],
    staging: &Path,
    max_file_bytes: u64,
    originals: &BTreeMap<String, String>,
) -> BTreeMap<String, Lookup> {
    exercises
        .iter()
        .map(|e| {
            let lone = lone_in_language(e, exercises);
            let original = originals.get(&e.id).map(String::as_str);
            (
                e.id.clone(),
                tree.kernel(e, staging, max_file_bytes, lone, original),
            )
        })
        .collect()
}

/// Whether `exercise` is a whole program and the only one of `graded` in its file's language.
fn lone_in_language(exercise: &Exercise, graded: &[Exercise]) -> bool {
    let extension = |e: &Exercise| Path::new(&e.file).extension().map(|x| x.to_os_string());
    exercise.is_host()
        && graded
            .iter()
            .filter(|e| e.is_host() && extension(e) == extension(exercise))
            .count()
            == 1
}

/// The file extensions of the graded whole programs: any file of theirs may be a lone answer.
fn program_extensions(exercises: &[Exercise]) -> Vec<String> {
    exercises
        .iter()
        .filter(|e| e.is_host())
        .filter_map(|e| Path::new(&e.file).extension())
        .map(|x| x.to_string_lossy().into_owned())
        .collect()
}

/// Whether a file of this name may be some exercise's: its name, a renamed form of it, or a
/// program file of a graded whole program's language.
fn is_candidate_name(name: &str, names: &[&str], programs: &[String]) -> bool {
    names.contains(&name)
        || names::owner(name, names).is_some()
        || Path::new(name)
            .extension()
            .is_some_and(|x| programs.iter().any(|p| x == p.as_str()))
}

/// Whether `path` names a file the grader might take (see `is_candidate_name`), outside any
/// build folder.
pub(crate) fn is_candidate(path: &Path, exercises: &[Exercise]) -> bool {
    let plain = path.components().all(|c| matches!(c, Component::Normal(_)));
    let names = file_names(exercises);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    plain
        && !names::in_build_folder(path)
        && is_candidate_name(&name, &names, &program_extensions(exercises))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_that_reach_outside_are_found_through_splices_comments_and_digraphs() {
        assert_eq!(
            forbidden_include("#include <cuda_fp16.h>\n#include \"helpers.h\"\n"),
            None
        );
        for hostile in [
            "\n#include \"/etc/passwd\"\n",
            "\n  #  include <../../secret.h>\n",
            "\n#inc\\\nlude \"/etc/passwd\"\n",
            "\n#/* c */include \"/x\"\n",
            "\n%:include \"/x\"\n",
            "\n#define P \"/x\"\n#include P\n",
        ] {
            let found = forbidden_include(hostile);
            assert!(
                found.as_ref().is_some_and(|(line, _)| *line >= 2),
                "{hostile:?}: {found:?}"
            );
        }
        let (line, why) = forbidden_include("int x;\n#include \"/etc/passwd\"").unwrap();
        assert_eq!(line, 2);
        assert!(
            why.contains("`#include \"/etc/passwd\"` reads a file outside"),
            "{why}"
        );
    }
}
