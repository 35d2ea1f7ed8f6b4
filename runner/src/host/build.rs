//! Building a host exercise: the student's `src/main.rs` (and the files beside it) copied into a
//! crate the runner owns, under the course's `target/host/`, with a manifest the runner writes,
//! and built by cargo into one target folder shared by every host exercise. So dependencies
//! (cudarc) are compiled once, a check of a file anywhere (a submission) builds the same way,
//! and the student's own manifest cannot change what is built.

use crate::course::{Course, Exercise, Language};
use anyhow::Context;
use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A program ready to run: the command that starts it, and the folder that holds its own copy
/// of a program built here (so another check of the same exercise may build while it runs).
pub(super) struct Built {
    /// The program and its arguments.
    pub command: Vec<OsString>,
    /// Variables it needs beside the driver's (Python's module path).
    pub variables: Vec<(&'static str, OsString)>,
    /// The command that runs the program on several cases in one process, their folders added
    /// (hostkit's case runner for a Python program); None where each case needs a process.
    pub cases_together: Option<Vec<OsString>>,
    /// Warnings the compiler gave, as it printed them, paths named as the student's.
    pub warnings: Vec<String>,
    _own_copy: Option<tempfile::TempDir>,
}

/// Why the program was not built.
pub(super) enum BuildFailure {
    /// The compiler's errors, as it printed them, paths named as the student's.
    Errors(String),
    /// Something other than the student's code (no cargo, an unwritable folder).
    Setup(anyhow::Error),
}

/// Makes `main` (the student's program, or a submission's) ready to run as `exercise`'s: a Rust
/// crate built with cargo (unless `prebuilt` names the program already built from it), a
/// Python script compiled to check its syntax.
pub(super) fn build(
    course: &Course,
    exercise: &Exercise,
    main: &Path,
    source: &str,
    prebuilt: Option<&Path>,
) -> Result<Built, BuildFailure> {
    let language = exercise
        .host
        .as_ref()
        .map(|h| h.language)
        .unwrap_or_default();
    match (language, prebuilt) {
        (Language::Python, _) => python(course, main),
        (Language::Cpp, _) => cpp(course, main),
        (Language::Rust, Some(program)) => Ok(Built {
            command: vec![program.into()],
            variables: Vec::new(),
            cases_together: None,
            warnings: Vec::new(),
            _own_copy: None,
        }),
        (Language::Rust, None) => rust(course, exercise, main, source),
    }
}

/// hostkit's Python module first on the module path, before any the caller set.
fn python_path(course: &Course) -> OsString {
    let mut path = OsString::from(course.root.join("hostkit").join("python"));
    if let Some(old) = std::env::var_os("PYTHONPATH").filter(|p| !p.is_empty()) {
        path.push(":");
        path.push(old);
    }
    path
}

/// A Python script: the course's CUDA Python runs it, with hostkit's Python module on its path;
/// a syntax error is found before any case runs.
fn python(course: &Course, main: &Path) -> Result<Built, BuildFailure> {
    let python = crate::driver_env::course_python(Some(course)).ok_or_else(|| {
        BuildFailure::Setup(anyhow::anyhow!(
            "this exercise is a Python program, run by the course's CUDA Python environment, \
             which is not installed: run scripts/install-cuda-python"
        ))
    })?;
    // Compiled in memory, not with py_compile, which would leave __pycache__ in the student's
    // folder.
    let output = Command::new(&python)
        .args([
            "-c",
            "import sys; compile(open(sys.argv[1], encoding='utf-8-sig').read(), sys.argv[1], 'exec')",
        ])
        .arg(main)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .map_err(|e| {
            BuildFailure::Setup(anyhow::anyhow!("cannot run {}: {e}", python.display()))
        })?;
    if !output.status.success() {
        let shown = course.display_name(main);
        // The compiler's own lines, without the traceback of the one-line program that ran it.
        let message: String = String::from_utf8_lossy(&output.stderr)
            .replace(&main.display().to_string(), &shown)
            .lines()
            .filter(|l| !l.starts_with("Traceback") && !l.contains("File \"<string>\""))
            .map(|l| format!("{l}\n"))
            .collect();
        return Err(BuildFailure::Errors(message.trim_end().to_string()));
    }
    // Imported rather than run as a script: the program runs in `__main__`.
    let case_runner = "import hostkit_cases; hostkit_cases.main()";
    Ok(Built {
        command: vec![python.clone().into(), main.into()],
        cases_together: Some(vec![
            python.into(),
            "-c".into(),
            case_runner.into(),
            main.into(),
        ]),
        variables: vec![
            ("PYTHONPATH", python_path(course)),
            ("PYTHONDONTWRITEBYTECODE", "1".into()),
            // Two warnings every check would show that say nothing of the student's program:
            // Numba's on the small grids of the first cases, and cuda-bindings' about a linker
            // the course's programs never use.
            ("NUMBA_DISABLE_PERFORMANCE_WARNINGS", "1".into()),
            (
                "PYTHONWARNINGS",
                "ignore:cuda.bindings.nvjitlink is not available:RuntimeWarning".into(),
            ),
        ],
        warnings: Vec::new(),
        _own_copy: None,
    })
}

/// A CUDA C++ program: one `.cu` file built with nvcc (the course's, else a toolkit's) on the
/// CUDA runtime, with hostkit's header on the include path. The fat binary carries PTX for
/// compute_80, which the simulator runs and a GPU's driver compiles for itself, so one build
/// serves both backends. nvcc's messages name the student's file as the course shows it.
fn cpp(course: &Course, main: &Path) -> Result<Built, BuildFailure> {
    let nvcc = crate::driver_env::course_nvcc(Some(course)).ok_or_else(|| {
        BuildFailure::Setup(anyhow::anyhow!(
            "this exercise is a CUDA C++ program, built with nvcc, which is not installed: run \
             scripts/install-nvcc (it needs g++ too: apt install g++)"
        ))
    })?;
    let own_copy = crate::ending::tempdir()
        .context("cannot make a folder for the built program")
        .map_err(BuildFailure::Setup)?;
    let program = own_copy.path().join("program");
    let output = Command::new(&nvcc)
        .args([
            "-std=c++17",
            "-lineinfo",
            "-gencode",
            "arch=compute_80,code=compute_80",
        ])
        .arg("-I")
        .arg(course.root.join("hostkit").join("cpp"))
        .arg("-o")
        .arg(&program)
        .arg(main)
        .output()
        .map_err(|e| BuildFailure::Setup(anyhow::anyhow!("cannot run {}: {e}", nvcc.display())))?;
    let messages = String::from_utf8_lossy(&output.stderr)
        .replace(&main.display().to_string(), &course.display_name(main));
    if !output.status.success() {
        return Err(BuildFailure::Errors(messages.trim_end().to_string()));
    }
    Ok(Built {
        command: vec![program.into()],
        variables: Vec::new(),
        cases_together: None,
        warnings: messages
            .lines()
            .filter(|l| l.contains("warning"))
            .map(str::to_string)
            .collect(),
        _own_copy: Some(own_copy),
    })
}

/// The manifest of the crate the runner builds: the course's dependencies, nothing else.
fn manifest(package: &str, course: &Course) -> String {
    let hostkit = course.root.join("hostkit");
    format!(
        "# Written by the runner for each check; edits are overwritten.\n\
         [package]\nname = \"{package}\"\nedition = \"2021\"\nversion = \"0.1.0\"\npublish = false\n\n\
         [dependencies]\n\
         cudarc = {{ version = \"0.17\", default-features = false, features = [\"driver\", \"nvrtc\", \
         \"dynamic-loading\", \"cuda-13000\", \"std\"] }}\n\
         hostkit = {{ path = {:?} }}\n\n[workspace]\n",
        hostkit.display().to_string()
    )
}

/// The package (and program) name of an exercise's crate: `ex25_first_program`.
pub(super) fn package_name(exercise: &Exercise) -> String {
    format!("ex{}_{}", exercise.id, exercise.name)
}

/// Builds `main` (the student's `src/main.rs`, or a submission's) as `exercise`'s program.
fn rust(
    course: &Course,
    exercise: &Exercise,
    main: &Path,
    source: &str,
) -> Result<Built, BuildFailure> {
    let host = course.root.join("target").join("host");
    let stage = host.join(format!("ex{}", exercise.id));
    // RUNNER_HOST_TARGET shares one build folder between courses (the tests' many copies).
    let target = std::env::var_os("RUNNER_HOST_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|| host.join("build"));
    // Held while the crate is staged and built: every check of this exercise writes the same
    // staging folder and program (and, with RUNNER_HOST_TARGET, every course's).
    let lock = lock(&target, &exercise.id).map_err(BuildFailure::Setup)?;
    let package = package_name(exercise);
    stage_files(course, exercise, main, source, &stage, &package).map_err(BuildFailure::Setup)?;
    let first = !target.join("debug").join("deps").exists();
    if first {
        eprintln!(
            "Building the host exercises' dependencies (cudarc) once, in {}: the first build \
             takes a minute or two, later ones a few seconds.",
            course.display_name(&target)
        );
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(&cargo)
        .args(["build", "--color", "never", "--manifest-path"])
        .arg(stage.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .map_err(|e| {
            BuildFailure::Setup(anyhow::anyhow!(
                "cannot run cargo ({e}): a host exercise is a Rust program, built with cargo; \
                 install Rust from https://rustup.rs"
            ))
        })?;
    let shown = course.display_name(main);
    let messages = String::from_utf8_lossy(&output.stderr).replace("src/main.rs", &shown);
    if !output.status.success() {
        return Err(BuildFailure::Errors(compiler_messages(&messages)));
    }
    // The program is copied out before the lock is let go: the next check may build over the
    // original while this one runs its cases.
    let own_copy = crate::ending::tempdir()
        .context("cannot make a folder for the built program")
        .map_err(BuildFailure::Setup)?;
    let program = own_copy.path().join(&package);
    std::fs::copy(target.join("debug").join(&package), &program)
        .with_context(|| format!("cannot copy the built program to {}", program.display()))
        .map_err(BuildFailure::Setup)?;
    drop(lock);
    Ok(Built {
        command: vec![program.into()],
        variables: kernel_sources(course, exercise, main)
            .map(|list| vec![("SIMNVRTC_SOURCES", list)])
            .unwrap_or_default(),
        cases_together: None,
        warnings: warnings(&messages),
        _own_copy: Some(own_copy),
    })
}

/// The files a Rust program's kernels may come from, for the course's NVRTC to name a source by
/// (`SIMNVRTC_SOURCES`): the student's `main.rs` (a kernel in a string), the files beside it and
/// the exercise's own (`include_str!("../saxpy.cu")`), absolute, so the line a report names is
/// in the student's file rather than the runner's staged copy.
fn kernel_sources(course: &Course, exercise: &Exercise, main: &Path) -> Option<OsString> {
    let exercise_folder = course
        .exercise_path(exercise)
        .parent()?
        .parent()?
        .to_path_buf();
    let beside = main.parent().map(Path::to_path_buf);
    let mut files = vec![main.to_path_buf()];
    for folder in beside.iter().chain([&exercise_folder]) {
        let Ok(entries) = std::fs::read_dir(folder) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.file_name() != main.file_name())
            .collect();
        found.sort();
        files.extend(found);
    }
    let absolute = files.iter().filter_map(|f| std::path::absolute(f).ok());
    std::env::join_paths(absolute).ok()
}

/// An exclusive lock on the exercise's program in the build folder, held while it is built.
fn lock(target: &Path, id: &str) -> anyhow::Result<File> {
    std::fs::create_dir_all(target).with_context(|| format!("cannot make {}", target.display()))?;
    let path = target.join(format!("ex{id}.lock"));
    let file = File::create(&path).with_context(|| format!("cannot open {}", path.display()))?;
    file.lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    Ok(file)
}

/// Writes the crate: the manifest, the course's lock file (so the versions are those the
/// course was tested with, and nothing new is downloaded), `src/` from beside `main`, the
/// student's `main.rs`, and the exercise's other files (its kernels). A file is written only
/// when it changed, so cargo rebuilds only what did.
fn stage_files(
    course: &Course,
    exercise: &Exercise,
    main: &Path,
    source: &str,
    stage: &Path,
    package: &str,
) -> anyhow::Result<()> {
    let src = stage.join("src");
    std::fs::create_dir_all(&src).with_context(|| format!("cannot make {}", src.display()))?;
    write_if_changed(
        &stage.join("Cargo.toml"),
        manifest(package, course).as_bytes(),
    )?;
    let lock = stage.join("Cargo.lock");
    if !lock.exists() {
        if let Ok(bytes) = std::fs::read(course.root.join("Cargo.lock")) {
            write_if_changed(&lock, &bytes)?;
        }
    }
    let folder = course
        .exercise_path(exercise)
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .context("the exercise's file is not in a crate's src/ folder")?;
    copy_regular_files(&folder, stage, &["Cargo.toml", "Cargo.lock"])?;
    if let Some(beside) = main.parent() {
        copy_regular_files(beside, &src, &["main.rs"])?;
    }
    write_if_changed(&src.join("main.rs"), source.as_bytes())
}

/// Copies the regular files of `from` (not folders, not `except`) into `to`.
fn copy_regular_files(from: &Path, to: &Path, except: &[&str]) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        if !regular || except.iter().any(|e| name == *e) {
            continue;
        }
        // A file that cannot be read (a FIFO swapped in, no permission) is left out: the build
        // then says what is missing.
        if let Ok(text) = runner::kernel_file::read(&entry.path()) {
            write_if_changed(&to.join(&name), text.as_bytes())?;
        }
    }
    Ok(())
}

fn write_if_changed(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// The compiler's errors and warnings without cargo's own progress lines.
fn compiler_messages(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|line| {
            let line = line.trim_start();
            !(line.starts_with("Compiling ")
                || line.starts_with("Checking ")
                || line.starts_with("Finished ")
                || line.starts_with("Blocking "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Each warning's first two lines (what and where), without cargo's count at the end.
fn warnings(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line.starts_with("warning: ") && !line.contains("generated"))
        .map(|(i, line)| match lines.get(i + 1) {
            Some(next) if next.trim_start().starts_with("-->") => {
                format!("{line} ({})", next.trim_start().trim_start_matches("--> "))
            }
            _ => line.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_name_the_place_and_leave_out_the_count() {
        let stderr = "warning: unused `Result` that must be used\n  --> exercises/25/src/main.rs:40:5\n   |\n\
                      warning: `ex25` (bin \"ex25\") generated 1 warning\n    Finished `dev` profile";
        assert_eq!(
            warnings(stderr),
            ["warning: unused `Result` that must be used (exercises/25/src/main.rs:40:5)"]
        );
        assert!(!compiler_messages(stderr).contains("Finished"));
    }
}
