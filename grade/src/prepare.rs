//! Before any student is graded: the exercises chosen, the course checked once (so a broken
//! machine does not give every student the same error), and each submission's kernels found,
//! checked and staged.

use super::archive::{self, Limits};
use super::cell::{Exit, Raw};
use super::config::GradingFile;
use super::kernels::{self, Lookup, Tree};
use super::submissions::{Kind, Submission};
use anyhow::{bail, Context};
use contract::Report;
use runner::course::{Course, Exercise};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why whole programs are graded only when asked, and how to ask.
pub(crate) const RUN_PROGRAMS_RISK: &str =
    "a whole program is the student's own code (a kernel is only \
     compiled and run by the simulator or the GPU): each runs in a bubblewrap sandbox of its own, \
     which keeps the network, the other students' files, the solutions and the grading file out \
     of its reach (the README says what it does not stop); pass --run-programs or set \
     run_programs = true in grading.toml";

/// `01,02,5-7` as exercise ids of the course, in course order. Whole programs (host and Python
/// exercises) only with `run_programs`: by default they are left out, and naming one says why.
pub(crate) fn select_exercises(
    course: &Course,
    spec: Option<&str>,
    run_programs: bool,
) -> anyhow::Result<Vec<Exercise>> {
    let Some(spec) = spec else {
        return Ok(course
            .exercises
            .iter()
            .filter(|e| run_programs || !e.is_host())
            .cloned()
            .collect());
    };
    let mut wanted = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((from, to)) => {
                let (from, to) = (
                    course.exercise(from)?.id.clone(),
                    course.exercise(to)?.id.clone(),
                );
                wanted.extend(
                    course
                        .exercises
                        .iter()
                        .filter(|e| e.id >= from && e.id <= to)
                        .map(|e| e.id.clone()),
                );
            }
            None => wanted.push(course.exercise(part)?.id.clone()),
        }
    }
    if wanted.is_empty() {
        bail!("--exercises {spec:?} names no exercise; write ids such as 01,02 or a range such as 01-04");
    }
    if let Some(host) = course
        .exercises
        .iter()
        .find(|e| !run_programs && e.is_host() && wanted.contains(&e.id))
    {
        bail!(
            "exercise {} is a whole program, which `runner grade` runs only when asked: {RUN_PROGRAMS_RISK}. \
             One student's program can be checked with `runner check {} --file {} --json`",
            host.id,
            host.id,
            Path::new("PATH").join(&host.file).display()
        );
    }
    Ok(course
        .exercises
        .iter()
        .filter(|e| wanted.contains(&e.id))
        .cloned()
        .collect())
}

pub(crate) fn limits_of(file: &GradingFile) -> Limits {
    Limits {
        max_archive_bytes: file.max_archive_mb << 20,
        max_expanded_bytes: file.max_expanded_mb << 20,
        max_entries: file.max_entries,
        max_file_bytes: file.max_file_kb << 10,
    }
}

/// Finds and stages one submission's kernels; an archive refused as a whole refuses every cell.
/// `all` are the course's exercises, graded or not: a file name several share (`main.rs`) is
/// taken only by its path. `originals` are the exercises' files as handed out (`originals`): a
/// file with that text is untouched.
pub(crate) fn stage(
    submission: &Submission,
    exercises: &[Exercise],
    all: &[Exercise],
    work: &Path,
    limits: &Limits,
    originals: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, Lookup>, String> {
    let staging = work.join("stage").join(&submission.id);
    let tree = match submission.kind {
        Kind::Folder => {
            let tree = Tree::walk(&submission.path, exercises, Vec::new())
                .map_err(|why| format!("{} {why}", file_name(&submission.path)))?;
            match lone_archive(&submission.path) {
                Some((archive, kind)) if tree.is_empty() => {
                    extract(&submission.id, &archive, kind, exercises, work, limits)?
                }
                _ => tree,
            }
        }
        Kind::File | Kind::Files => uploads(submission, exercises, work, limits)?,
        Kind::Unreadable(format) => {
            return Err(super::submissions::unreadable_reason(
                &submission.name,
                format,
            ))
        }
        Kind::Document(what) => {
            return Err(super::submissions::document_reason(&submission.name, what))
        }
        kind => extract(
            &submission.id,
            &submission.path,
            kind,
            exercises,
            work,
            limits,
        )?,
    };
    Ok(kernels::look_up_all(
        &tree.sharing_names_of(all),
        exercises,
        &staging,
        limits.max_file_bytes,
        originals,
    ))
}

/// The exercises' files as handed out, by id: the runner's embedded copies (see
/// `pristine::handed_out`), never an instructor's solved working copy.
pub(crate) fn originals(course: &Course, exercises: &[Exercise]) -> BTreeMap<String, String> {
    exercises
        .iter()
        .filter_map(|e| Some((e.id.clone(), runner::pristine::handed_out(course, e)?.0)))
        .collect()
}

/// The one archive at the top of a folder that holds no kernel file: a student who uploaded
/// their zip beside a note (Gradescope keeps every uploaded file), or an LMS export that puts
/// each student's upload in a folder of its own.
fn lone_archive(folder: &Path) -> Option<(PathBuf, Kind)> {
    let mut archives = std::fs::read_dir(folder)
        .ok()?
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_file = entry.file_type().is_ok_and(|t| t.is_file());
            match super::submissions::kind_and_stem(&name, !is_file) {
                Some((kind, _)) if is_file && kind.is_readable_archive() => {
                    Some((entry.path(), kind))
                }
                _ => None,
            }
        });
    let first = archives.next()?;
    archives.next().is_none().then_some(first)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// A submission of files handed in alone (one, or a student's uploads in a flat export), copied
/// into a folder under `work` by the names they were uploaded as, as a tree: their names tell
/// their exercises, as any file's does (`kernels`), and a renamed one is named in its cell.
fn uploads(
    submission: &Submission,
    exercises: &[Exercise],
    work: &Path,
    limits: &Limits,
) -> Result<Tree, String> {
    let dest = work.join("extract").join(&submission.id);
    std::fs::create_dir_all(&dest).map_err(|e| format!("cannot make {}: {e}", dest.display()))?;
    for (path, uploaded_as) in submission.uploads() {
        let shown = file_name(&path);
        let bytes = runner::pristine::read_regular(&path)
            .map_err(|e| format!("{shown} cannot be read: {e}"))?;
        if bytes.len() as u64 > limits.max_file_bytes {
            return Err(format!(
                "{shown} is larger than the {} KiB a kernel file may be",
                limits.max_file_bytes / 1024
            ));
        }
        // Two uploads of one name (not seen in one platform's export): the second keeps the
        // export's name, so neither is lost.
        let mut copy = dest.join(&uploaded_as);
        if copy.exists() {
            copy = dest.join(&shown);
        }
        std::fs::write(&copy, bytes).map_err(|e| format!("cannot copy {shown}: {e}"))?;
    }
    Tree::walk(&dest, exercises, Vec::new()).map_err(|why| format!("{} {why}", submission.name))
}

/// The candidate files of an archive, extracted under `work`, as a tree. Where it holds no
/// exercise's file but one archive (a zip of the zip), that archive is extracted instead, one
/// level deep only.
fn extract(
    id: &str,
    archive: &Path,
    kind: Kind,
    exercises: &[Exercise],
    work: &Path,
    limits: &Limits,
) -> Result<Tree, String> {
    extract_level(id, archive, kind, exercises, work, limits, true)
}

fn extract_level(
    id: &str,
    archive: &Path,
    kind: Kind,
    exercises: &[Exercise],
    work: &Path,
    limits: &Limits,
    nested_too: bool,
) -> Result<Tree, String> {
    let dest = work.join("extract").join(id);
    std::fs::create_dir_all(&dest).map_err(|e| format!("cannot make {}: {e}", dest.display()))?;
    let wanted =
        |p: &Path| kernels::is_candidate(p, exercises) || (nested_too && archive::is_archive(p));
    let extracted =
        archive::extract(archive, kind, &dest, limits, &wanted).map_err(|e| e.to_string())?;
    let mut others = extracted.others;
    let inner = if nested_too {
        archives_in(&dest)
    } else {
        Vec::new()
    };
    for path in &inner {
        others.add(path);
    }
    let tree = Tree::walk(&dest, exercises, extracted.skipped)
        .map_err(|why| format!("{} {why}", file_name(archive)))?
        .with_archive_contents(others);
    match inner.as_slice() {
        [only] if tree.is_empty() => {
            let name = only.file_name().unwrap_or_default().to_string_lossy();
            let Some((kind, _)) = super::submissions::kind_and_stem(&name, false) else {
                return Ok(tree);
            };
            let inner_id = format!("{id}.inner");
            extract_level(
                &inner_id,
                &dest.join(only),
                kind,
                exercises,
                work,
                limits,
                false,
            )
        }
        _ => Ok(tree),
    }
}

/// The archives extracted into `dest`, by path under it.
fn archives_in(dest: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dest.join(&dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let relative = dir.join(entry.file_name());
            match entry.file_type() {
                Ok(t) if t.is_dir() => pending.push(relative),
                Ok(t) if t.is_file() && archive::is_archive(&relative) => found.push(relative),
                _ => {}
            }
        }
    }
    found.sort();
    found
}

/// The course's own file of each exercise, which `preflight` checks; an error where one is
/// missing, since grading compares against it.
pub(crate) fn course_files(
    course: &Course,
    exercises: &[Exercise],
) -> anyhow::Result<Vec<PathBuf>> {
    exercises
        .iter()
        .map(|exercise| {
            let file = course.exercise_path(exercise);
            if !file.is_file() {
                bail!(
                    "exercise {}'s file {} is missing from the course; grading compares against it",
                    exercise.id,
                    file.display()
                );
            }
            Ok(file)
        })
        .collect()
}

/// Checks each exercise's own (pristine) file once, on `checkers` side by side (each takes the
/// next exercise no other has taken): the course, the compiler and the backend must work
/// before a class is graded, or every student would get the same error. The first exercise is
/// checked alone on the first checker, then `after_first` runs (the other workers start), then
/// the rest, each checker taking exercises once `ready` has returned for it (a worker still
/// starting would hold an exercise, and the whole course's check, until it is ready). Returns the backend and device the checks ran on, and the exercise each checker
/// checked last (a worker keeps that exercise's cases and reference timing).
pub(crate) fn preflight<C: Send>(
    on: CourseCheckers<C>,
    course: &Course,
    exercises: &[Exercise],
    work: &Path,
    cancel: &std::sync::atomic::AtomicBool,
) -> anyhow::Result<CourseChecked> {
    let CourseCheckers {
        checkers,
        run,
        after_first,
        ready,
    } = on;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let files = course_files(course, exercises)?;
    let check = |checker: &mut C, k: usize| {
        let id = &exercises[k].id;
        run(checker, id, &files[k], &work.join("preflight").join(id))
    };
    let mut results: Vec<Option<std::io::Result<Raw>>> = (0..files.len()).map(|_| None).collect();
    let mut last: Vec<Option<String>> = vec![None; checkers.len()];
    if let (Some(first), false) = (checkers.first_mut(), files.is_empty()) {
        results[0] = Some(check(first, 0));
        last[0] = Some(exercises[0].id.clone());
    }
    after_first(checkers);
    let next = AtomicUsize::new(1);
    let count = files.len();
    let results = Mutex::new(results);
    std::thread::scope(|scope| {
        for (checker, last) in checkers.iter_mut().zip(&mut last) {
            let (next, results, check) = (&next, &results, &check);
            scope.spawn(move || {
                ready(checker);
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    if k >= count || cancel.load(Ordering::SeqCst) {
                        return;
                    }
                    let raw = check(checker, k);
                    *last = Some(exercises[k].id.clone());
                    results.lock().unwrap_or_else(|p| p.into_inner())[k] = Some(raw);
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    let (backend, device) = judge_course(exercises, results)?;
    Ok(CourseChecked {
        backend,
        device,
        last_checked: last,
    })
}

/// What checks the course's files (`preflight`): the checkers, how one checks a file, what
/// runs once the first exercise is checked, and what a checker waits for before it takes one.
pub(crate) struct CourseCheckers<'a, C> {
    pub checkers: &'a mut [C],
    pub run: &'a (dyn Fn(&mut C, &str, &Path, &Path) -> std::io::Result<Raw> + Sync),
    pub after_first: &'a mut dyn FnMut(&mut [C]),
    pub ready: &'a (dyn Fn(&mut C) + Sync),
}

/// The course's check passed: the backend and device it ran on, and the exercise each checker
/// checked last.
pub(crate) struct CourseChecked {
    pub backend: contract::Backend,
    pub device: String,
    pub last_checked: Vec<Option<String>>,
}

/// The backend and device the course's checks ran on, or why the course cannot be graded
/// (every exercise whose check failed, grouped by what it said).
fn judge_course(
    exercises: &[Exercise],
    results: Vec<Option<std::io::Result<Raw>>>,
) -> anyhow::Result<(contract::Backend, String)> {
    let mut found = None;
    let mut program_found = None;
    let mut problems: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (exercise, raw) in exercises.iter().zip(results) {
        let Some(raw) = raw else {
            bail!("stopped while checking the course, before any submission was graded: run the command again");
        };
        let raw = raw.context("cannot start the runner to check the course")?;
        if raw.exit == Exit::Cancelled {
            bail!("stopped while checking the course, before any submission was graded: run the command again");
        }
        let report = match raw.exit {
            Exit::Code(0 | 1) => raw
                .report
                .as_deref()
                .and_then(|json| serde_json::from_str::<Report>(json).ok()),
            _ => None,
        };
        match report {
            // Every report names its backend and its device; a program's counts only where no
            // kernel is graded.
            Some(Report::Program(report)) => {
                program_found.get_or_insert((report.backend, report.device));
            }
            Some(Report::Kernel(report)) if found.is_none() => {
                found = Some((report.backend, report.device));
            }
            Some(_) => {}
            None => {
                let said = raw.stderr.trim().trim_start_matches("Error: ").to_string();
                let said = if said.is_empty() {
                    format!("the check ended with {:?} and said nothing", raw.exit)
                } else {
                    said
                };
                problems.entry(said).or_default().push(exercise.id.clone());
            }
        }
    }
    if !problems.is_empty() {
        let lines: Vec<String> = problems
            .iter()
            .map(|(said, ids)| format!("exercise {}: {said}", ids.join(", ")))
            .collect();
        bail!(
            "the course cannot be checked, so no submission was graded:\n  {}\nFix the course or the machine, or leave \
             those exercises out with --exercises.",
            lines.join("\n  ")
        );
    }
    found.or(program_found).context("no exercise to grade")
}
