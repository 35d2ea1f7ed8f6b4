//! `runner grade --gradescope-autograder`: the zip Gradescope runs. Gradescope's machines have
//! no GPU, so each submission is graded in the simulator. The zip holds `setup.sh` (installs
//! NVRTC from PyPI once, when Gradescope builds the image), `run_autograder` (grades the one
//! submission in /autograder/submission and writes /autograder/results/results.json), this
//! grader program (`runner-grade`, which also checks one exercise: `runner-grade check`), and the
//! course's metadata, exercise files and grading file. The grader is this program as it is;
//! `glibc` says which images it starts on.

pub(crate) mod glibc;
mod programs;

use super::cluster::shell_quote;
use super::config::GRADING_FILE;
use anyhow::Context;
use runner::course::{Course, METADATA};
use std::io::Write;
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;
use zip::CompressionMethod;

/// The NVRTC wheel installed when the course does not say (scripts/install-nvrtc).
const DEFAULT_NVRTC: &str = "12.9.86";

fn nvrtc_version(course: &Course) -> String {
    let script =
        std::fs::read_to_string(course.root.join("scripts/install-nvrtc")).unwrap_or_default();
    script
        .lines()
        .find_map(|l| l.strip_prefix("version="))
        .map(|v| v.trim().to_string())
        .filter(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.') && !v.is_empty())
        .unwrap_or_else(|| DEFAULT_NVRTC.to_string())
}

/// CUDA's headers installed when the course does not say (scripts/install-cuda-headers).
const DEFAULT_HEADERS: &str = "nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-cccl-cu12==12.9.27";

/// The wheels `scripts/install-cuda-headers` pins, as pip's requirements.
fn header_packages(course: &Course) -> String {
    let script = std::fs::read_to_string(course.root.join("scripts/install-cuda-headers"))
        .unwrap_or_default();
    script
        .lines()
        .find_map(|l| l.strip_prefix("packages="))
        .map(|v| v.trim().trim_matches('"').to_string())
        .filter(|v| {
            let allowed = |c: char| c.is_ascii_alphanumeric() || "-_.= ".contains(c);
            !v.is_empty() && v.chars().all(allowed)
        })
        .unwrap_or_else(|| DEFAULT_HEADERS.to_string())
}

/// The lines of `setup.sh` that stop the image's build, with the reason, where the runner does
/// not start (an image whose glibc is older than the one it was built with): else every
/// student would get the fallback 0.
fn start_check(floor: Option<glibc::Version>) -> String {
    let needs = floor.map_or("a newer system".to_string(), |v| {
        let image =
            glibc::first_ubuntu(v).map_or(String::new(), |u| format!(" (Ubuntu {u} or later)"));
        format!("glibc {v} or later{image}")
    });
    format!(
        r#"chmod +x "$source/runner-grade"
if ! "$source/runner-grade" --version > /dev/null 2> "$source/runner-start.log"; then
  echo "The grader in this autograder does not start on this image: it needs {needs}, and the image has $(ldd --version 2>&1 | head -n 1)." >&2
  echo "Pick a newer base image in the autograder's settings, or write the zip with a runner built for an older glibc (scripts/build-portable-runner)." >&2
  cat "$source/runner-start.log" >&2
  exit 1
fi
"#
    )
}

fn setup_script(
    version: &str,
    headers: &str,
    floor: Option<glibc::Version>,
    programs: &programs::Programs,
) -> String {
    let check = start_check(floor);
    let programs = programs.setup_lines();
    format!(
        r#"#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image (Ubuntu, no GPU).
# It checks that the runner starts here, then installs NVRTC, the CUDA run-time compiler, and
# CUDA's own headers (cuda_fp16.h, cooperative_groups.h, CCCL) from PyPI into the course,
# where the runner finds them.
set -euo pipefail
source=${{AUTOGRADER_ROOT:-/autograder}}/source
{check}apt-get update
apt-get install -y --no-install-recommends python3 python3-pip bubblewrap
# Each check runs in a sandbox (bubblewrap) that hides the grading file and the solutions from
# the student's code; an image that forbids namespaces cannot make one, and says so here.
if ! bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev true; then
  echo "setup.sh: bubblewrap cannot make a sandbox in this image: the students' programs will run without one, alone in their container but able to read the grading file and the solutions." >&2
fi
install() {{
  python3 -m pip install --quiet --no-deps --target "$@" \
    || python3 -m pip install --quiet --no-deps --break-system-packages --target "$@"
}}
install "$source/course/.nvrtc" "nvidia-cuda-nvrtc-cu12=={version}"
echo "{version}" > "$source/course/.nvrtc/VERSION"
install "$source/course/.nvrtc/headers" {headers}
echo "{headers}" > "$source/course/.nvrtc/headers/VERSION"
{programs}"#
    )
}

fn run_script(exercises: Option<&str>, programs: &programs::Programs) -> String {
    let run_programs = programs.any();
    let path = programs.run_lines();
    let mut only = exercises
        .map(|e| format!(" --exercises {}", shell_quote(e)))
        .unwrap_or_default();
    if run_programs {
        // Each student has a container of its own: where the image cannot make a sandbox,
        // the program still runs (setup.sh said so in the image's build log).
        only.push_str(" --run-programs ");
        only.push_str(super::sandbox::NO_SANDBOX_FLAG);
    }
    format!(
        r#"#!/usr/bin/env bash
# Gradescope runs this for every submission: the student's files are in /autograder/submission,
# the grade goes to /autograder/results/results.json. Only the exercises' kernel files are taken
# from the submission; each is checked in the simulator, in a process of its own, with limits.
set -uo pipefail
root=${{AUTOGRADER_ROOT:-/autograder}}
work=$(mktemp -d)
mkdir -p "$work/class" "$root/results"
# The whole upload is the submission: the runner takes the exercises' files from it, or, where
# it holds none, from the one archive in it (a zip uploaded beside a note is still graded).
cp -r "$root/submission" "$work/class/submission"
cd "$root/source/course"
{path}"$root/source/runner-grade" "$work/class" --out "$work/out" --backend sim --format gradescope,json{only}
code=$?
result="$work/out/gradescope/submission/results.json"
if [ -f "$result" ]; then
  cp "$result" "$root/results/results.json"
else
  printf '{{"score": 0, "output": "The autograder could not grade this submission (runner exit code %s). Tell your instructor.", "tests": []}}\n' "$code" > "$root/results/results.json"
fi
"#
    )
}

fn add(
    zip: &mut zip::ZipWriter<std::fs::File>,
    name: &str,
    bytes: &[u8],
    mode: u32,
) -> anyhow::Result<()> {
    // The program is stored as it is: compressing it takes longer than it saves on an upload.
    let method = if mode & 0o111 != 0 && bytes.len() > 1 << 20 {
        CompressionMethod::Stored
    } else {
        CompressionMethod::Deflated
    };
    let options = SimpleFileOptions::default()
        .compression_method(method)
        .unix_permissions(mode)
        .large_file(bytes.len() as u64 >= u32::MAX as u64);
    zip.start_file(name, options)
        .with_context(|| format!("cannot add {name} to the zip"))?;
    zip.write_all(bytes)
        .with_context(|| format!("cannot add {name} to the zip"))?;
    Ok(())
}

/// The zip written, and what it grades.
pub(crate) struct Autograder {
    pub zip: PathBuf,
    pub exercises: Vec<String>,
    /// Whether `--exercises` or the grading file named them (else: every exercise).
    pub named: bool,
    /// Whether some are whole programs (host, Python), which the zip grades with
    /// `--run-programs`.
    pub runs_programs: bool,
    /// The oldest glibc the packed runner starts with (None: it needs none).
    pub glibc: Option<glibc::Version>,
}

/// Writes `out/autograder.zip`. The exercises are `--exercises`, else the grading file's.
pub(crate) fn write(
    course: &Course,
    out: &Path,
    grading: Option<&Path>,
    exercises: Option<&str>,
) -> anyhow::Result<Autograder> {
    // Refuse a broken grading file or exercise list now, not on Gradescope.
    let (file, grading_path) = super::config::GradingFile::load(grading, &course.root)?;
    let named = exercises.or(file.exercises.as_deref());
    // Exercises named for the assignment may be whole programs: Gradescope runs each student in
    // a container of its own, which is the isolation `--run-programs` asks for. Left unnamed,
    // whole programs stay out, as they do in `runner grade`.
    let chosen = super::prepare::select_exercises(course, named, named.is_some())?;
    let programs = programs::Programs::of(&chosen);
    let run_programs = programs.any();
    std::fs::create_dir_all(out).with_context(|| format!("cannot make {}", out.display()))?;
    let path = out.join("autograder.zip");
    let file =
        std::fs::File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let exe = std::env::current_exe().context("cannot find the runner's own program")?;
    let program = std::fs::read(&exe).with_context(|| format!("cannot read {}", exe.display()))?;
    let floor = glibc::needed(&program)
        .with_context(|| format!("cannot read what {} needs to start", exe.display()))?;
    let setup = setup_script(
        &nvrtc_version(course),
        &header_packages(course),
        floor,
        &programs,
    );
    add(&mut zip, "setup.sh", setup.as_bytes(), 0o755)?;
    add(
        &mut zip,
        "run_autograder",
        run_script(exercises, &programs).as_bytes(),
        0o755,
    )?;
    add(&mut zip, "runner-grade", &program, 0o755)?;
    let metadata = std::fs::read(course.root.join(METADATA))
        .with_context(|| format!("cannot read {METADATA}"))?;
    add(&mut zip, &format!("course/{METADATA}"), &metadata, 0o644)?;
    for exercise in &course.exercises {
        let text = std::fs::read(course.exercise_path(exercise)).with_context(|| {
            format!(
                "cannot read exercise {}'s file {}",
                exercise.id, exercise.file
            )
        })?;
        add(
            &mut zip,
            &format!("course/exercises/{}", exercise.file),
            &text,
            0o644,
        )?;
    }
    // Whole programs: the driver library, hostkit, the Rust exercises' crates, and so on.
    // (Each exercise's own file is in the zip already.)
    let own: Vec<String> = course
        .exercises
        .iter()
        .map(|e| format!("course/exercises/{}", e.file))
        .collect();
    for (name, bytes, mode) in programs.files(course)? {
        if !own.contains(&name) {
            add(&mut zip, &name, &bytes, mode)?;
        }
    }
    if let Some(grading) = grading_path {
        let text = std::fs::read(&grading)
            .with_context(|| format!("cannot read {}", grading.display()))?;
        add(&mut zip, &format!("course/{GRADING_FILE}"), &text, 0o644)?;
    }
    zip.finish()
        .with_context(|| format!("cannot finish {}", path.display()))?;
    Ok(Autograder {
        zip: path,
        exercises: chosen.into_iter().map(|e| e.id).collect(),
        named: named.is_some(),
        runs_programs: run_programs,
        glibc: floor,
    })
}
