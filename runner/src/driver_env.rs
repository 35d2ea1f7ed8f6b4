//! The environment a program runs in on the simulator's CUDA driver: a folder that holds
//! `libsimcuda.so` linked as `libcuda.so` and `libcuda.so.1` (and the course's NVRTC as
//! `libnvrtc.so`), first on the library path, and the variables the driver reads: where to write
//! its record, the time limit of a launch, the GPU it models.

use crate::course::Course;
use anyhow::Context;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

pub struct SimDriver {
    dir: tempfile::TempDir,
    library_path: OsString,
    time_limit_s: f64,
    gpu_model: String,
}

impl SimDriver {
    pub fn prepare(
        course: Option<&Course>,
        gpu_model: &str,
        time_limit_s: f64,
    ) -> anyhow::Result<SimDriver> {
        let library = crate::cmd::run::driver_library()?;
        let dir = tempfile::tempdir().context("cannot make a folder for the driver's links")?;
        for name in ["libcuda.so", "libcuda.so.1"] {
            std::os::unix::fs::symlink(&library, dir.path().join(name))
                .context("cannot link the simulator's driver as libcuda")?;
        }
        let mut search = OsString::from(dir.path());
        // Programs that compile their kernels with NVRTC find the course's (as libnvrtc.so, the
        // name cudarc and others ask for first; its own folder after, for its builtins library).
        if let Some(nvrtc) = course_nvrtc(course) {
            let _ = std::os::unix::fs::symlink(&nvrtc, dir.path().join("libnvrtc.so"));
            if let Some(folder) = nvrtc.parent() {
                search.push(":");
                search.push(folder);
            }
        }
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
            search.push(":");
            search.push(old);
        }
        Ok(SimDriver {
            dir,
            library_path: search,
            time_limit_s,
            gpu_model: gpu_model.to_string(),
        })
    }

    /// Where the driver writes its record when the program exits.
    pub fn record_path(&self) -> PathBuf {
        self.dir.path().join("record.json")
    }

    /// Sets `command` to run on the simulator's driver. A record left by an earlier run is
    /// removed, so the one read afterwards is this run's.
    pub fn apply(&self, command: &mut Command) {
        let _ = std::fs::remove_file(self.record_path());
        command
            .env("LD_LIBRARY_PATH", &self.library_path)
            .env("SIMCUDA_REPORT", self.record_path())
            .env("SIMCUDA_TIME_LIMIT", self.time_limit_s.to_string())
            .env("SIMCUDA_GPU", &self.gpu_model);
    }
}

/// The NVRTC the runner itself would use (the course's `.nvrtc/`, `RUNNER_NVRTC`, a toolkit's), as
/// a file; none when there is none, which only programs that compile kernels notice.
pub fn course_nvrtc(course: Option<&Course>) -> Option<PathBuf> {
    let nvrtc = crate::compile::nvrtc::Nvrtc::find(course.map(|c| c.root.as_path())).ok()?;
    let path = PathBuf::from(&nvrtc.path);
    path.is_file().then_some(path)
}
