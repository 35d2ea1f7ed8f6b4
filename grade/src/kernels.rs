//! The kernel files of one submission: found by the exercise's path (or, failing that, by the
//! end of that path, the file name alone, or a name a learning platform changed (`names`), for
//! archives with an extra top folder, for flat uploads and for a clone of the course, whose
//! `solutions/` is passed over), checked to be UTF-8 text of a sane size that includes nothing
//! from outside, and copied into a staging folder. Nothing else from a submission is ever read.
//! A file name several exercises share (the host exercises' `src/main.rs`) is found by its path,
//! or as the submission's one program file of a language only one graded exercise is written in.

use super::archive::Skipped;
use super::names;
use runner::course::Exercise;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Walking a submission folder stops after this many entries.
const MAX_WALKED: usize = 100_000;

#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    Found {
        found_at: String,
        staged: PathBuf,
        text: String,
        /// Taken by a name other than the exercise's own path or name (renamed, or the lone
        /// program file): the cell's message says which file was graded.
        renamed: bool,
    },
    Missing {
        expected: String,
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
pub struct Tree {
    root: PathBuf,
    files: Vec<PathBuf>,
    skipped: Vec<Skipped>,
    /// The course's exercise files whose name another exercise's file has too (`main.rs` of
    /// 25-28): such a file is taken only where its path tells which exercise it is.
    shared: Vec<PathBuf>,
    /// Every exercise's file name, for telling whose a renamed file is.
    names: Vec<String>,
}

/// The files of `exercises` whose name another of them has too.
pub fn sharing_a_name(exercises: &[Exercise]) -> Vec<PathBuf> {
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

impl Tree {
    /// Walks `root` without following links to folders; `skipped` are files an archive held
    /// that could not be taken.
    pub fn walk(
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
                }
            }
        }
        Ok(Tree {
            root,
            files,
            skipped,
            shared: Vec::new(),
            names: names.iter().map(|n| n.to_string()).collect(),
        })
    }

    /// Takes a file whose name `all` (the course's exercises, not only those graded) share only
    /// by its path: a lone `main.rs` is no exercise's while 26's is in the class.
    pub fn sharing_names_of(mut self, all: &[Exercise]) -> Tree {
        self.shared = sharing_a_name(all);
        self.names = file_names(all);
        self
    }

    /// Whether the submission holds no file named like an exercise's kernel.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.skipped.is_empty()
    }

    /// Finds, checks and stages the kernel of `exercise` into `staging` (at the exercise's path).
    /// `lone` says that the exercise is the only graded one in its program language (see
    /// `lone_program`).
    pub fn kernel(
        &self,
        exercise: &Exercise,
        staging: &Path,
        max_file_bytes: u64,
        lone: bool,
    ) -> Lookup {
        let expected = Path::new(&exercise.file);
        let expected_name = expected
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let candidates = self
            .files
            .iter()
            .map(|p| (p, None))
            .chain(self.skipped.iter().map(|s| (&s.path, Some(&s.reason))));
        // Tier 0: the exact path; 1: a path ending with it; 2: the file name alone, for a name
        // no other exercise has; 3: that name with a copy mark; 4: that name after a prefix
        // (`names::likeness`), where no other exercise's name fits better. Then shallowest.
        let shared = self
            .shared
            .iter()
            .any(|s| s.file_name() == expected.file_name());
        let mut best: Vec<(usize, usize, &PathBuf, Option<&String>)> = Vec::new();
        for (path, skipped) in candidates {
            let tier = if path == expected {
                0
            } else if path.ends_with(expected) {
                1
            } else if path.file_name() == expected.file_name() && !shared {
                2
            } else if let Some(likeness) = self.renamed(path, &expected_name, &names, shared) {
                3 + likeness as usize
            } else {
                continue;
            };
            let depth = path.components().count();
            let rank = |b: &(usize, usize, &PathBuf, Option<&String>)| (b.0, b.1);
            match best.first().map(rank) {
                Some(top) if top < (tier, depth) => {}
                Some(top) if top == (tier, depth) => best.push((tier, depth, path, skipped)),
                _ => best = vec![(tier, depth, path, skipped)],
            }
        }
        let shown = |p: &Path| p.display().to_string();
        if best.is_empty() && lone {
            if let Some((path, skipped)) = self.lone_program(exercise, &names) {
                best.push((5, 0, path, skipped));
            }
        }
        if let Some(file) = self
            .unplaced(expected)
            .filter(|_| shared && best.is_empty())
        {
            return Lookup::Refused {
                reason: format!(
                    "{} could be any of several exercises' {}: put exercise {}'s at {} (or in a \
                     folder ending with that path) so the grader can tell which it is",
                    shown(file),
                    expected.file_name().unwrap_or_default().to_string_lossy(),
                    exercise.id,
                    exercise.file
                ),
            };
        }
        match best.as_slice() {
            [] => Lookup::Missing {
                expected: exercise.file.clone(),
            },
            [(_, _, path, Some(reason))] => Lookup::Refused {
                reason: format!("{} {reason}", shown(path)),
            },
            [(tier, _, path, None)] => {
                let mut found = self.take(path, exercise, staging, max_file_bytes);
                if let Lookup::Found { renamed, .. } = &mut found {
                    *renamed = *tier >= 3 || (shared && *tier == 2);
                }
                found
            }
            several => {
                let mut names: Vec<String> = several.iter().map(|b| shown(b.2)).collect();
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
        }
    }
}

/// `message` with a sentence naming the file graded where it was taken by another name than the
/// exercise's (a renamed or lone file): the student and the instructor see which file it was.
pub fn naming_the_file_taken(
    message: String,
    renamed: bool,
    found_at: &str,
    exercise_file: &str,
) -> String {
    if !renamed {
        return message;
    }
    format!("{message} (Graded {found_at}, taken as {exercise_file}.)")
}

/// The first `#include` that could read a file from outside the submission: an absolute path,
/// a path with `..`, or a name computed by a macro. NVRTC would read it and show its lines in
/// the compile log, which the student sees. Comments are not stripped first, so the check errs
/// towards refusing, and line splices and `%:` (the digraph of `#`) are seen through.
pub fn forbidden_include(text: &str) -> Option<(usize, String)> {
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
pub fn look_up_all(
    tree: &Tree,
    exercises: &[Exercise],
    staging: &Path,
    max_file_bytes: u64,
) -> BTreeMap<String, Lookup> {
    exercises
        .iter()
        .map(|e| {
            let lone = lone_in_language(e, exercises);
            (e.id.clone(), tree.kernel(e, staging, max_file_bytes, lone))
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
pub fn is_candidate(path: &Path, exercises: &[Exercise]) -> bool {
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
