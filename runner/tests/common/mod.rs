//! A throwaway copy of the course for each test, and a way to run the runner in it through the
//! simulator, with its own cache and no colour.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// Far past every limit a test sets (they are seconds), and past what the slowest machine takes
/// for work that ends (a cold cargo build of a host program on one core included): a bound of
/// this size tells an unbounded run from a bounded one, never a slow machine from a fast one.
pub const NEVER: Duration = Duration::from_secs(600);

/// The program under test: `runner`, or `runner-grade` for the grading tests (grade/tests),
/// which include this module too.
pub const PROGRAM: &str = match (
    option_env!("CARGO_BIN_EXE_runner"),
    option_env!("CARGO_BIN_EXE_runner-grade"),
) {
    (Some(program), _) | (None, Some(program)) => program,
    (None, None) => panic!("common/mod.rs is for the tests of runner and runner-grade"),
};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Exercise `id`'s kernel file, relative to exercises/.
pub fn file_of(id: &str) -> String {
    let text = std::fs::read_to_string(repo_root().join("exercises/exercises.toml")).unwrap();
    let metadata: toml::Value = toml::from_str(&text).unwrap();
    metadata["exercise"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"].as_str() == Some(id))
        .unwrap()["file"]
        .as_str()
        .unwrap()
        .to_string()
}

pub struct TestCourse {
    pub dir: tempfile::TempDir,
    cache: tempfile::TempDir,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The NVRTC the tests use: the course's own copy when `scripts/install-nvrtc` made one.
fn nvrtc() -> Option<PathBuf> {
    let own = repo_root().join(".nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
    own.exists().then_some(own)
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn from(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

impl Default for TestCourse {
    fn default() -> Self {
        TestCourse::new()
    }
}

impl TestCourse {
    pub fn new() -> TestCourse {
        let dir = tempfile::tempdir().unwrap();
        for part in ["exercises", "solutions", "hostkit"] {
            copy_dir(&repo_root().join(part), &dir.path().join(part));
        }
        // The host exercises build against the course's lock file (see runner/src/host/build.rs).
        std::fs::copy(
            repo_root().join("Cargo.lock"),
            dir.path().join("Cargo.lock"),
        )
        .unwrap();
        TestCourse {
            dir,
            cache: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(PROGRAM);
        command
            .args(args)
            .current_dir(self.dir.path())
            .env("RUNNER_CACHE_DIR", self.cache.path())
            .env("RUNNER_BACKEND", "sim")
            // One build folder for every test course's host exercises: cudarc is compiled once.
            // Cargo's folder for integration tests' data, not the workspace's own build folder.
            .env(
                "RUNNER_HOST_TARGET",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("host-tests"),
            )
            // The Python track runs on the repository's CUDA Python environment.
            .env(
                "RUNNER_CUDA_PYTHON",
                repo_root().join(".cuda-python/bin/python"),
            )
            .env("NO_COLOR", "1")
            .env_remove("RUNNER_NVRTC");
        if let Some(nvrtc) = nvrtc() {
            command.env("RUNNER_NVRTC", nvrtc);
        }
        // The C++ track builds with the repository's nvcc, where scripts/install-nvcc made one.
        let nvcc = repo_root().join(".nvcc/bin/nvcc");
        if nvcc.exists() {
            command.env("RUNNER_NVCC", nvcc);
        } else {
            command.env_remove("RUNNER_NVCC");
        }
        command
    }

    pub fn run(&self, args: &[&str]) -> Run {
        Run::from(self.command(args).output().unwrap())
    }

    /// Puts the solution of `file` (relative to exercises/) in place of the exercise.
    pub fn solve(&self, file: &str) {
        std::fs::copy(
            self.path(&format!("solutions/{file}")),
            self.path(&format!("exercises/{file}")),
        )
        .unwrap();
    }

    /// Sets exercise `id`'s `time_limit_ms` in this course's metadata. The simulator turns the
    /// limit into a budget of warp instructions, so a test that needs a hang the simulator does
    /// not end (whatever the machine's speed) gives the exercise a budget no machine spends.
    pub fn set_time_limit_ms(&self, id: &str, ms: u64) {
        let path = self.path("exercises/exercises.toml");
        let metadata = std::fs::read_to_string(&path).unwrap();
        let start = metadata
            .find(&format!("id = \"{id}\""))
            .unwrap_or_else(|| panic!("no exercise {id} in exercises.toml"));
        let key = "time_limit_ms = ";
        let at = start + metadata[start..].find(key).unwrap() + key.len();
        let end = at + metadata[at..].find('\n').unwrap();
        let changed = format!("{}{ms}{}", &metadata[..at], &metadata[end..]);
        std::fs::write(path, changed).unwrap();
    }

    /// A fixture kernel from runner/tests/fixtures.
    pub fn fixture(name: &str) -> String {
        repo_root()
            .join("runner/tests/fixtures")
            .join(name)
            .display()
            .to_string()
    }
}
