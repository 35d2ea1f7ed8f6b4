//! Programs built with nvcc on the CUDA runtime (cudart 13, linked statically as nvcc does by
//! default, or shared) run unchanged on the simulator's driver: cudart finds its private tables
//! (`cuGetExportTable`), registers the program's fat binary, and its allocations, copies,
//! launches, events and streams reach the simulator and its record.
//!
//! Needs the course's nvcc (`scripts/install-nvcc`: about 100 MB from PyPI, 250 MB installed)
//! and g++; without them each test says so and passes without checking anything.

mod common;

use common::driver_library;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn course_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The course's nvcc, if installed and able to compile (it needs g++ for host code).
fn nvcc() -> Option<PathBuf> {
    let nvcc = course_root().join(".nvcc/bin/nvcc");
    if !nvcc.exists() {
        eprintln!("skipped: nvcc is not installed (scripts/install-nvcc installs it from PyPI)");
        return None;
    }
    if Command::new("g++").arg("--version").output().is_err() {
        eprintln!("skipped: nvcc compiles host code with g++, which is missing (apt install g++)");
        return None;
    }
    Some(nvcc)
}

/// Builds `driver/tests/cuda_runtime/NAME.cu` for PTX (`compute_80`, or `gencode` if given)
/// with cudart `static` or `shared`.
fn build(nvcc: &Path, dir: &Path, name: &str, cudart: &str, gencode: &str) -> PathBuf {
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/cuda_runtime/{name}.cu"));
    let exe = dir.join(format!("{name}_{cudart}"));
    let output = Command::new(nvcc)
        .args(["-gencode", gencode, "-cudart", cudart, "-o"])
        .arg(&exe)
        .arg(&source)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "nvcc failed on {name}.cu: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

const PTX_80: &str = "arch=compute_80,code=compute_80";

/// Runs `exe` with the simulator's driver as libcuda (and the course's libcudart.so.13 for a
/// shared build); returns its output and the driver's record.
fn run(dir: &Path, exe: &Path) -> (Output, Value) {
    let lib = dir.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    for name in ["libcuda.so", "libcuda.so.1"] {
        let _ = std::os::unix::fs::symlink(driver_library(), lib.join(name));
    }
    let search = format!(
        "{}:{}",
        lib.display(),
        course_root().join(".nvcc/lib").display()
    );
    let report = dir.join(format!(
        "{}.json",
        exe.file_name().unwrap().to_string_lossy()
    ));
    let output = Command::new(exe)
        .env("LD_LIBRARY_PATH", search)
        .env("SIMCUDA_REPORT", &report)
        .output()
        .unwrap();
    let record = std::fs::read_to_string(&report).unwrap_or_else(|e| {
        panic!(
            "no record ({e}); stdout: {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, serde_json::from_str(&record).unwrap())
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The calls that failed, by name.
fn failed_calls(record: &Value) -> Vec<String> {
    record["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{} {}", f["call"], f["name"]))
        .collect()
}

#[test]
fn a_vector_add_runs_with_static_and_shared_cudart() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    for cudart in ["static", "shared"] {
        let exe = build(&nvcc, dir.path(), "vector_add", cudart, PTX_80);
        let (output, record) = run(dir.path(), &exe);
        let shown = format!(
            "{cudart}: {}{}",
            stdout(&output),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "{shown}");
        assert_eq!(stdout(&output), "ok\n", "{shown}");
        assert_eq!(failed_calls(&record), Vec::<String>::new(), "{shown}");
        assert_eq!(common::array_copies(&record), (2, 1), "{shown}");
        let launch = &record["launches"][0];
        assert_eq!(launch["kernel"], "_Z3addPKfS0_Pfi");
        assert_eq!(launch["grid"][0], 4);
        // 1000 threads in 4 blocks of 256: 32 warps load a and b.
        assert_eq!(launch["figures"]["global_load_requests"], 2 * 32, "{shown}");
    }
}

#[test]
fn a_refused_launch_is_reported_by_cuda_get_last_error_and_then_cleared() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&nvcc, dir.path(), "errors", "static", PTX_80);
    let (output, record) = run(dir.path(), &exe);
    let shown = stdout(&output);
    assert!(output.status.success(), "{shown}");
    assert!(
        shown.contains("too many threads: cudaErrorInvalidValue\n"),
        "{shown}"
    );
    assert!(shown.contains("cleared: cudaSuccess\nok\n"), "{shown}");
    assert_eq!(
        failed_calls(&record),
        ["\"cuLaunchKernel\" \"CUDA_ERROR_INVALID_VALUE\""]
    );
}

#[test]
fn events_time_a_kernel_and_the_device_is_the_simulated_one() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&nvcc, dir.path(), "events", "static", PTX_80);
    let (output, record) = run(dir.path(), &exe);
    let shown = stdout(&output);
    assert!(output.status.success(), "{shown}");
    assert!(
        shown.contains("devices: 1, compute capability 9.0, 132 SMs\n"),
        "{shown}"
    );
    assert!(
        shown.contains("elapsed: cudaSuccess, positive\nok\n"),
        "{shown}"
    );
    assert_eq!(record["launches"][0]["kernel"], "_Z5scalePffi");
    assert_eq!(failed_calls(&record), Vec::<String>::new());
}

#[test]
fn two_streams_copy_and_launch_in_their_own_order() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&nvcc, dir.path(), "streams", "static", PTX_80);
    let (output, record) = run(dir.path(), &exe);
    let shown = stdout(&output);
    assert!(output.status.success(), "{shown}");
    assert!(shown.contains("0 wrong\nok\n"), "{shown}");
    let launches = record["launches"].as_array().unwrap();
    let streams: Vec<_> = launches.iter().map(|l| &l["stream"]).collect();
    assert_eq!(launches.len(), 2);
    assert_ne!(streams[0], streams[1], "each half on its own stream");
    let pinned = record["transfers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["pinned"] == true && t["asynchronous"] == true)
        .count();
    assert_eq!(pinned, 4, "{record}");
    assert_eq!(failed_calls(&record), Vec::<String>::new());
}

#[test]
fn machine_code_without_ptx_is_refused_with_how_to_build_for_the_simulator() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(
        &nvcc,
        dir.path(),
        "vector_add",
        "static",
        "arch=compute_80,code=sm_80",
    );
    let (output, _) = run(dir.path(), &exe);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("carries machine code only (sm_80)")
            && stderr.contains("-gencode arch=compute_80,code=compute_80"),
        "{stderr}"
    );
}
