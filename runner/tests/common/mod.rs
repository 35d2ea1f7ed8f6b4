//! A throwaway copy of the course for each test, and a way to run the runner in it through the
//! simulator, with its own cache and no colour.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
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
        let mut command = Command::new(env!("CARGO_BIN_EXE_runner"));
        command
            .args(args)
            .current_dir(self.dir.path())
            .env("RUNNER_CACHE_DIR", self.cache.path())
            .env("RUNNER_BACKEND", "sim")
            // One build folder for every test course's host exercises: cudarc is compiled once.
            .env(
                "RUNNER_HOST_TARGET",
                repo_root().join("target").join("host-tests"),
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

    /// A fixture kernel from runner/tests/fixtures.
    pub fn fixture(name: &str) -> String {
        repo_root()
            .join("runner/tests/fixtures")
            .join(name)
            .display()
            .to_string()
    }
}
