//! The environment a program runs in on the course's CUDA driver (`libsimcuda.so`): a folder
//! that holds the library linked as `libcuda.so` and `libcuda.so.1` (and the course's NVRTC as
//! `libnvrtc.so` and `libnvrtc.so.12`), first on the library path, and the variables the driver reads: where to write
//! its record, the time limit of a launch, the GPU it models, and, for the GPU backend, which
//! real driver to pass every call on to (`real_driver` finds it).
//!
//! `runner run` and the host exercises' checks both run programs this way.

mod real_driver;

use crate::course::Course;
use anyhow::{bail, Context};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

/// Where a program's driver calls go: the simulator, or NVIDIA's driver through the same library
/// in pass-through mode (the same record, with times measured on the GPU). Named here too for
/// the driver's callers; it is the one backend type, `contract::Backend`.
pub use contract::Backend;

/// What a whole program needs to run on the course's driver: a folder where libcuda.so links to
/// the driver chosen (the simulator's, or NVIDIA's in pass-through), and the variables that point
/// the program there. The folder lives as long as this value.
pub struct DriverEnv {
    dir: tempfile::TempDir,
    variables: Vec<(&'static str, OsString)>,
}

impl DriverEnv {
    /// Makes the folder and variables for `backend` (a simulated `gpu_model`, and each launch's
    /// `time_limit_s`); fails, saying what to build or install, where the driver is missing.
    pub fn prepare(
        course: Option<&Course>,
        backend: Backend,
        gpu_model: &str,
        time_limit_s: f64,
    ) -> anyhow::Result<DriverEnv> {
        let library = driver_library()?;
        let dir =
            crate::ending::tempdir().context("cannot make a folder for the driver's links")?;
        for name in ["libcuda.so", "libcuda.so.1"] {
            std::os::unix::fs::symlink(&library, dir.path().join(name))
                .context("cannot link the course's CUDA driver as libcuda")?;
        }
        let mut search = OsString::from(dir.path());
        let mut variables = Vec::new();
        // Programs that compile their kernels with NVRTC find the course's (as libnvrtc.so, the
        // name cudarc and others ask for first; its own folder after, for its builtins library),
        // through the course's own in front of it where built, which keeps source lines.
        if let Some(nvrtc) = course_nvrtc(course) {
            let front = nvrtc_front(&library);
            // Programs nvcc built link the versioned name (NVIDIA's NVRTC samples), which the
            // real library's own folder, later on the path, also holds.
            for name in ["libnvrtc.so", "libnvrtc.so.12"] {
                let _ = std::os::unix::fs::symlink(
                    front.as_ref().unwrap_or(&nvrtc),
                    dir.path().join(name),
                );
            }
            if front.is_some() {
                variables.push(("SIMNVRTC_REAL", nvrtc.clone().into_os_string()));
                variables.extend(header_folders(course, &nvrtc));
            }
            if let Some(folder) = nvrtc.parent() {
                search.push(":");
                search.push(folder);
            }
        }
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
            search.push(":");
            search.push(old);
        }
        // Programs built with the course's nvcc and `-cudart shared` find its libcudart.so.13
        // (after the caller's own, a toolkit's).
        if let Some(cudart) = course
            .map(|c| c.root.join(".nvcc/lib"))
            .filter(|lib| lib.is_dir())
        {
            search.push(":");
            search.push(cudart);
        }
        variables.extend([
            ("LD_LIBRARY_PATH", search),
            ("SIMCUDA_REPORT", dir.path().join("record.json").into()),
            ("SIMCUDA_TIME_LIMIT", time_limit_s.to_string().into()),
            ("SIMCUDA_GPU", gpu_model.into()),
        ]);
        if backend == Backend::Gpu {
            let real = real_driver::find(&library)?;
            variables.push(("SIMCUDA_BACKEND", backend.name().into()));
            variables.push(("SIMCUDA_REAL_LIBCUDA", real.into()));
        } else if std::env::var_os("CUPY_COMPILE_WITH_PTX").is_none() {
            // CuPy compiles its kernels to machine code for the device's architecture unless
            // told to keep the PTX, which is what the simulator runs.
            variables.push(("CUPY_COMPILE_WITH_PTX", "1".into()));
        }
        Ok(DriverEnv { dir, variables })
    }

    /// Where the driver writes its record when the program exits.
    pub fn record_path(&self) -> PathBuf {
        self.dir.path().join("record.json")
    }

    /// Sets `command` to run on this driver. A record left by an earlier run is removed, so the
    /// one read afterwards is this run's.
    pub fn apply(&self, command: &mut Command) {
        let _ = std::fs::remove_file(self.record_path());
        for (name, value) in &self.variables {
            command.env(name, value);
        }
    }
}

/// Where the course's driver library is: `RUNNER_SIMCUDA`, else beside the runner (where
/// `cargo build` puts it), else in `deps/` beside it (where `cargo test` leaves it).
pub fn driver_library() -> anyhow::Result<PathBuf> {
    if let Some(path) = std::env::var_os("RUNNER_SIMCUDA") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().context("cannot find the runner's own program")?;
    let beside = exe.with_file_name("libsimcuda.so");
    let in_deps = exe.with_file_name("deps").join("libsimcuda.so");
    if let Some(found) = [&beside, &in_deps].into_iter().find(|p| p.is_file()) {
        return Ok(found.clone());
    }
    bail!(
        "the simulator's CUDA driver ({}) is not built: build it with `cargo build -p simdriver` \
         (or `cargo build --workspace`), or set RUNNER_SIMCUDA to libsimcuda.so",
        beside.display()
    )
}

/// The course's NVRTC (`libsimnvrtc.so`, built beside the driver's library): NVIDIA's with
/// `-lineinfo` added and a source found in the program's files named by them, so a Rust
/// program's `compile_ptx` gives the simulator's reports their lines. None where it is not
/// built: NVIDIA's is then linked directly, and reports name no line.
fn nvrtc_front(driver: &std::path::Path) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok();
    [
        driver.parent().map(|d| d.join("libsimnvrtc.so")),
        exe.as_ref().map(|e| e.with_file_name("libsimnvrtc.so")),
        exe.as_ref()
            .map(|e| e.with_file_name("deps").join("libsimnvrtc.so")),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.is_file())
}

/// The CUDA headers that go with `nvrtc` (what kernel exercises compile with), for the course's
/// NVRTC to add after a program's own include folders: a program that includes `cuda_fp16.h`
/// finds it as it would beside a toolkit's NVRTC. None where there are none.
fn header_folders(
    course: Option<&Course>,
    nvrtc: &std::path::Path,
) -> Option<(&'static str, OsString)> {
    let headers = crate::compile::headers::CudaHeaders::find(
        nvrtc.to_str()?,
        course.map(|c| c.root.as_path()),
    )?;
    let list = std::env::join_paths(&headers.dirs).ok()?;
    Some(("SIMNVRTC_INCLUDE", list))
}

/// The NVRTC the runner itself would use (the course's `.nvrtc/`, `RUNNER_NVRTC`, a toolkit's), as
/// a file; none when there is none, which only programs that compile kernels notice.
fn course_nvrtc(course: Option<&Course>) -> Option<PathBuf> {
    let nvrtc = crate::compile::nvrtc::Nvrtc::find(course.map(|c| c.root.as_path())).ok()?;
    let path = PathBuf::from(&nvrtc.path);
    path.is_file().then_some(path)
}

/// The CUDA C++ compiler for programs on the runtime API: `RUNNER_NVCC` where set (a course
/// copied without its `.nvcc/`, as the tests' are), the course's (`.nvcc/`, made by
/// `scripts/install-nvcc`), else a toolkit's (`CUDA_HOME`, `/usr/local/cuda`, then `PATH`), as on
/// a GPU machine.
pub fn course_nvcc(course: Option<&Course>) -> Option<PathBuf> {
    if let Some(nvcc) = std::env::var_os("RUNNER_NVCC") {
        return Some(PathBuf::from(nvcc));
    }
    let own = course.map(|c| c.root.join(".nvcc/bin/nvcc"));
    let toolkits = [
        std::env::var_os("CUDA_HOME").map(|home| PathBuf::from(home).join("bin/nvcc")),
        Some(PathBuf::from("/usr/local/cuda/bin/nvcc")),
    ];
    let path = std::env::var_os("PATH").unwrap_or_default();
    let on_path = std::env::split_paths(&path).map(|dir| dir.join("nvcc"));
    own.into_iter()
        .chain(toolkits.into_iter().flatten())
        .chain(on_path)
        .find(|nvcc| nvcc.is_file())
}

/// The Python of the course's CUDA Python environment (`.cuda-python/`, made by
/// `scripts/install-cuda-python`), where it has one: the system's Python has no numba-cuda.
/// `RUNNER_CUDA_PYTHON` names another (a course copied without its environment).
pub fn course_python(course: Option<&Course>) -> Option<PathBuf> {
    if let Some(python) = std::env::var_os("RUNNER_CUDA_PYTHON") {
        return Some(PathBuf::from(python));
    }
    let python = course?.root.join(".cuda-python/bin/python");
    python.exists().then_some(python)
}
