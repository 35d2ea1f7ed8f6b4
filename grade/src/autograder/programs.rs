//! What the Gradescope zip adds for whole programs (host exercises in Rust, the Python and C++
//! tracks):
//! the course's driver library beside the runner, `hostkit/`, Cargo.lock and each Rust
//! exercise's crate (its manifest and kernels), and the steps of `setup.sh` that give the image
//! cargo (rustup, from the internet, when Gradescope builds the image), the course's CUDA Python
//! environment, nvcc for C++ programs, and cudarc built once, so no student's grading waits for it.

use anyhow::Context;
use runner::course::{Course, Exercise, Language};
use std::path::Path;

/// The whole programs of an assignment, by language.
pub(super) struct Programs {
    /// The ids of the Rust ones (the first is built in `setup.sh`, to compile cudarc once).
    pub rust: Vec<String>,
    pub python: bool,
    /// CUDA C++ programs, built with the course's nvcc (`scripts/install-nvcc`, from PyPI).
    pub cpp: bool,
}

impl Programs {
    pub(super) fn of(chosen: &[Exercise]) -> Programs {
        let language = |e: &Exercise| e.host.as_ref().map(|h| h.language);
        Programs {
            rust: chosen
                .iter()
                .filter(|e| language(e) == Some(Language::Rust))
                .map(|e| e.id.clone())
                .collect(),
            python: chosen.iter().any(Exercise::is_python),
            cpp: chosen.iter().any(|e| language(e) == Some(Language::Cpp)),
        }
    }

    pub(super) fn any(&self) -> bool {
        !self.rust.is_empty() || self.python || self.cpp
    }

    /// The files the zip needs for them, as (name in the zip, bytes, mode).
    pub(super) fn files(&self, course: &Course) -> anyhow::Result<Vec<(String, Vec<u8>, u32)>> {
        let mut files = Vec::new();
        if !self.any() {
            return Ok(files);
        }
        let library = runner::driver_env::driver_library()?;
        let bytes = std::fs::read(&library)
            .with_context(|| format!("cannot read {}", library.display()))?;
        files.push(("libsimcuda.so".to_string(), bytes, 0o755));
        let mut folders = vec!["hostkit".to_string()];
        for id in &self.rust {
            let exercise = course.exercise(id)?;
            // The crate: `NN_name/` above `src/main.rs`.
            if let Some(folder) = Path::new(&exercise.file).parent().and_then(Path::parent) {
                folders.push(format!("exercises/{}", folder.display()));
            }
        }
        for folder in folders {
            add_folder(&course.root, Path::new(&folder), &mut files)?;
        }
        if !self.rust.is_empty() {
            let lock = std::fs::read(course.root.join("Cargo.lock")).context(
                "cannot read the course's Cargo.lock (the host exercises build with it)",
            )?;
            files.push(("course/Cargo.lock".to_string(), lock, 0o644));
        }
        let scripts = [
            (self.python, "scripts/install-cuda-python"),
            (self.cpp, "scripts/install-nvcc"),
        ];
        for (_, script) in scripts.into_iter().filter(|(wanted, _)| *wanted) {
            let bytes = std::fs::read(course.root.join(script))
                .with_context(|| format!("cannot read the course's {script}"))?;
            files.push((format!("course/{script}"), bytes, 0o755));
        }
        Ok(files)
    }

    /// The lines of `setup.sh` that make the image ready for them (after NVRTC is installed).
    pub(super) fn setup_lines(&self) -> String {
        let mut lines = String::new();
        if self.python {
            lines.push_str(
                "# The Python track: the course's CUDA Python environment (numba-cuda, cuda.core).\n\
                 apt-get install -y --no-install-recommends python3-venv\n\
                 bash \"$source/course/scripts/install-cuda-python\"\n",
            );
        }
        if self.cpp {
            lines.push_str(
                "# The C++ track: nvcc 13 from PyPI into the course's .nvcc/, g++ for host code.\n\
                 apt-get install -y --no-install-recommends g++ python3-pip\n\
                 bash \"$source/course/scripts/install-nvcc\"\n",
            );
        }
        if let Some(first) = self.rust.first() {
            lines.push_str(&format!(
                "# The host exercises are Rust programs: cargo from rustup, then cudarc built once\n\
                 # (checking exercise {first} as handed out builds it). The check may fail, as a file\n\
                 # handed out does, but the program must build: else no Rust exercise could be\n\
                 # graded, and the image's build stops here with the compiler's words.\n\
                 apt-get install -y --no-install-recommends curl ca-certificates build-essential\n\
                 curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal\n\
                 export PATH=\"$HOME/.cargo/bin:$PATH\"\n\
                 code=0\n\
                 (cd \"$source/course\" && \"$source/runner-grade\" check {first} --backend sim --json) \\\n\
                 \x20 > \"$source/first-build.json\" 2> \"$source/first-build.log\" || code=$?\n\
                 verdict=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(\"verdict\", \"\"))' \\\n\
                 \x20 \"$source/first-build.json\" 2>> \"$source/first-build.log\") || verdict=\n\
                 if [ \"$code\" -gt 1 ] || [ -z \"$verdict\" ] || [ \"$verdict\" = compile_error ]; then\n\
                 \x20 echo \"setup.sh: exercise {first}'s program does not build on this image (exit code $code, verdict '$verdict'):\" >&2\n\
                 \x20 cat \"$source/first-build.log\" \"$source/first-build.json\" >&2\n\
                 \x20 exit 1\n\
                 fi\n"
            ));
        }
        lines
    }

    /// The lines of `run_autograder` before grading: cargo on the path.
    pub(super) fn run_lines(&self) -> &'static str {
        if self.rust.is_empty() {
            ""
        } else {
            "export PATH=\"$HOME/.cargo/bin:$PATH\"\n"
        }
    }
}

/// Adds the regular files under `course/relative` (not `target/`, not hidden ones) as
/// `course/...` entries.
fn add_folder(
    root: &Path,
    relative: &Path,
    files: &mut Vec<(String, Vec<u8>, u32)>,
) -> anyhow::Result<()> {
    let folder = root.join(relative);
    let entries =
        std::fs::read_dir(&folder).with_context(|| format!("cannot read {}", folder.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let hidden = name.to_string_lossy().starts_with('.');
        if hidden || name == "target" || name == "__pycache__" || name == "Cargo.lock" {
            continue;
        }
        let inside = relative.join(&name);
        let kind = entry.file_type()?;
        if kind.is_dir() {
            add_folder(root, &inside, files)?;
        } else if kind.is_file() {
            let bytes = std::fs::read(entry.path())
                .with_context(|| format!("cannot read {}", entry.path().display()))?;
            files.push((format!("course/{}", inside.display()), bytes, 0o644));
        }
    }
    Ok(())
}
