//! Programs built with nvcc on the CUDA runtime (cudart 13, linked statically as nvcc does by
//! default, or shared) run unchanged on the simulator's driver: cudart finds its private tables
//! (`cuGetExportTable`), registers the program's fat binary, and its allocations, copies,
//! launches, events and streams reach the simulator and its record.
//!
//! Needs the course's nvcc (`scripts/install-nvcc`: about 100 MB from PyPI, 250 MB installed)
//! and g++; without them each test says so and passes without checking anything. CUDA 12's
//! runtime comes from the course's CUDA Python environment (`scripts/install-cuda-python`).

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
    build_with(
        nvcc,
        dir,
        name,
        &format!("{cudart}_13"),
        gencode,
        &["-cudart", cudart],
    )
}

/// Builds `driver/tests/cuda_runtime/NAME.cu` as `NAME_LABEL` with nvcc's `options`.
fn build_with(
    nvcc: &Path,
    dir: &Path,
    name: &str,
    label: &str,
    gencode: &str,
    options: &[&str],
) -> PathBuf {
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/cuda_runtime/{name}.cu"));
    let exe = dir.join(format!("{name}_{label}"));
    let output = Command::new(nvcc)
        .args(["-gencode", gencode])
        .args(options)
        .arg("-o")
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

/// CUDA 12.9's runtime, from the course's CUDA Python environment, if installed.
fn cudart_12() -> Option<PathBuf> {
    let site = course_root().join(".cuda-python/lib");
    let found = std::fs::read_dir(&site).ok()?.flatten().find_map(|python| {
        let lib = python.path().join("site-packages/nvidia/cuda_runtime/lib");
        lib.join("libcudart_static.a").exists().then_some(lib)
    });
    if found.is_none() {
        eprintln!("skipped: no CUDA 12 runtime (scripts/install-cuda-python installs one)");
    }
    found
}

const PTX_80: &str = "arch=compute_80,code=compute_80";

/// Runs `exe` with the simulator's driver as libcuda (and the course's libcudart.so.13 for a
/// shared build); returns its output and the driver's record.
fn run(dir: &Path, exe: &Path) -> (Output, Value) {
    run_with(dir, exe, &course_root().join(".nvcc/lib"))
}

/// As [`run`], with the shared runtime found in `cudart`.
fn run_with(dir: &Path, exe: &Path, cudart: &Path) -> (Output, Value) {
    let lib = dir.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    for name in ["libcuda.so", "libcuda.so.1"] {
        let _ = std::os::unix::fs::symlink(driver_library(), lib.join(name));
    }
    let search = format!("{}:{}", lib.display(), cudart.display());
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
fn a_vector_add_runs_with_cuda_12s_runtime_static_and_shared() {
    let Some(nvcc) = nvcc() else { return };
    let Some(cudart) = cudart_12() else { return };
    let dir = tempfile::tempdir().unwrap();
    let static_archive = cudart.join("libcudart_static.a");
    let search = format!("-L{}", cudart.display());
    let builds: [(&str, Vec<&str>); 2] = [
        (
            "static_12",
            vec![
                "-cudart",
                "none",
                static_archive.to_str().unwrap(),
                "-ldl",
                "-lrt",
            ],
        ),
        (
            "shared_12",
            vec!["-cudart", "none", &search, "-l:libcudart.so.12"],
        ),
    ];
    for (label, options) in builds {
        let exe = build_with(&nvcc, dir.path(), "vector_add", label, PTX_80, &options);
        let (output, record) = run_with(dir.path(), &exe, &cudart);
        let shown = format!(
            "{label}: {}{}",
            stdout(&output),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(stdout(&output), "ok\n", "{shown}");
        assert_eq!(failed_calls(&record), Vec::<String>::new(), "{shown}");
        assert_eq!(
            record["launches"][0]["kernel"], "_Z3addPKfS0_Pfi",
            "{shown}"
        );
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
fn host_functions_run_after_their_streams_kernels_and_copies() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&nvcc, dir.path(), "callbacks", "static", PTX_80);
    let (output, record) = run(dir.path(), &exe);
    let shown = stdout(&output);
    assert!(output.status.success(), "{shown}");
    assert!(shown.contains("callback: cudaSuccess, saw 1\n"), "{shown}");
    assert!(
        shown.contains("host function: cudaSuccess, saw 2\n"),
        "{shown}"
    );
    assert!(
        shown.contains("reserved flags: cudaErrorInvalidValue\nok\n"),
        "{shown}"
    );
    assert_eq!(record["launches"].as_array().unwrap().len(), 2);
}

#[test]
fn two_streams_copy_and_launch_in_their_own_order_and_capture_nothing() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&nvcc, dir.path(), "streams", "static", PTX_80);
    let (output, record) = run(dir.path(), &exe);
    let shown = stdout(&output);
    assert!(output.status.success(), "{shown}");
    assert!(shown.contains("capturing: cudaSuccess, 0\n"), "{shown}");
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

#[test]
fn device_symbols_dynamic_shared_memory_and_atomics_work_as_in_cuda_samples() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&nvcc, dir.path(), "symbols", "static", PTX_80);
    let (output, record) = run(dir.path(), &exe);
    let shown = stdout(&output);
    assert_eq!(shown, "total 3000, blocks done 8: cudaSuccess\nok\n");
    let calls = &record["calls"];
    assert_eq!(calls["cuModuleGetGlobal_v2"], 4, "{calls}");
    assert_eq!(record["launches"][0]["shared_bytes"], 128 * 4);
    assert_eq!(failed_calls(&record), Vec::<String>::new());
}

#[test]
fn an_out_of_bounds_store_is_named_with_its_source_line_and_reported_at_synchronize() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let options = ["-lineinfo", "-cudart", "static"];
    let exe = build_with(&nvcc, dir.path(), "fault", "static_13", PTX_80, &options);
    let (output, record) = run(dir.path(), &exe);
    let shown = stdout(&output);
    assert_eq!(
        shown,
        "launch: cudaSuccess\nsynchronize: cudaErrorIllegalAddress\n\
         copy after: cudaErrorIllegalAddress\n"
    );
    let diagnostic = &record["launches"][0]["diagnostics"][0];
    assert_eq!(diagnostic["kind"], "out_of_bounds", "{diagnostic}");
    assert_eq!(diagnostic["location"]["line"], 6, "{diagnostic}");
    let file = diagnostic["location"]["file"].as_str().unwrap();
    assert!(file.ends_with("cuda_runtime/fault.cu"), "{file}");
}

#[test]
fn a_pitched_2d_array_is_allocated_and_copied_as_rectangles() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&nvcc, dir.path(), "pitched", "static", PTX_80);
    let (output, record) = run(dir.path(), &exe);
    assert_eq!(stdout(&output), "pitch 512\ncudaSuccess\nok\n");
    let transfers: Vec<_> = record["transfers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["direction"].as_str().unwrap(),
                t["bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    // 5 rows of 100 floats each way, one transfer each.
    assert_eq!(
        transfers,
        [("host_to_device", 2000), ("device_to_host", 2000)]
    );
    assert_eq!(failed_calls(&record), Vec::<String>::new());
}

#[test]
fn managed_memory_is_written_by_the_host_and_the_kernel_through_one_pointer() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&nvcc, dir.path(), "managed", "static", PTX_80);
    let (output, record) = run(dir.path(), &exe);
    assert_eq!(
        stdout(&output),
        "managed 1 concurrent 1\na[7] 200 read mostly 1 type 3\ncudaSuccess\nok\n",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(failed_calls(&record), Vec::<String>::new());
    // The record of managed memory, in call order; the same in pass-through mode, which sees
    // the same calls (a second copy of the library standing for the real driver).
    let launched = serde_json::json!({"step": "launched", "kernel": "_Z5twicePii", "stream": 0});
    let managed = serde_json::json!({
        "blocks": [4000],
        "steps": [
            {"step": "allocated", "block": 0},
            {"step": "prefetched", "block": 0, "bytes": 4000, "to": "device", "stream": 0},
            launched,
            launched,
            {"step": "freed", "block": 0},
        ],
    });
    assert_eq!(record["managed"], managed, "{record}");
    let (output, record) = run_passing_through(dir.path(), &exe);
    assert!(stdout(&output).ends_with("cudaSuccess\nok\n"), "{output:?}");
    assert_eq!(record["managed"], managed, "{record}");
}

#[test]
fn mapped_host_memory_is_read_and_written_by_a_kernel() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&nvcc, dir.path(), "mapped", "static", PTX_80);
    let (output, record) = run(dir.path(), &exe);
    assert_eq!(
        stdout(&output),
        "can map 1 same pointer 1\ncudaSuccess\nok\n",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(failed_calls(&record), Vec::<String>::new());
}

#[test]
fn a_cooperative_launch_past_the_blocks_that_fit_at_once_is_refused() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&nvcc, dir.path(), "cooperative", "static", PTX_80);
    let (output, _) = run(dir.path(), &exe);
    assert_eq!(
        stdout(&output),
        "1056 blocks: cudaSuccess\n1057 blocks: cudaErrorCooperativeLaunchTooLarge\n\
         ran 1056 blocks, last error cudaErrorCooperativeLaunchTooLarge, then cudaSuccess\n",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_captured_graph_replays_its_copies_and_kernels_and_a_synchronous_copy_invalidates_a_capture() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&nvcc, dir.path(), "graph", "static", PTX_80);
    let (output, record) = run(dir.path(), &exe);
    assert_eq!(
        stdout(&output),
        "capturing 1, cudaSuccess\n\
         nodes 4, before launch back[5] -1\n\
         replay 0: back[5] 2 back[999] 1001\n\
         replay 1: back[5] 102 back[999] 1001\n\
         replay 2: back[5] 202 back[999] 1001\n\
         cudaErrorStreamCaptureImplicit, cudaErrorStreamCaptureInvalidated\n\
         cudaSuccess\n",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Each replay's two kernels are in the record, as if queued on the stream, marked as the
    // graph's; the graph itself, once: its nodes, one instantiation, three launches (the
    // invalidated capture made none).
    let launches = record["launches"].as_array().unwrap();
    assert_eq!(launches.len(), 6, "{record}");
    assert!(launches.iter().all(|l| l["graph"] == 0), "{record}");
    let graph = serde_json::json!([{
        "kernels": ["_Z7add_onePii", "_Z7add_onePii"],
        "copies": 2,
        "memsets": 0,
        "instantiations": 1,
        "launches": 3,
    }]);
    assert_eq!(record["graphs"], graph, "{record}");

    // In pass-through mode (a second copy of the library standing for the real driver) the
    // record keeps the same graph; the captured work is not counted as launches or copies, and
    // a graph's kernels run inside the real driver, unlisted.
    let (output, record) = run_passing_through(dir.path(), &exe);
    assert!(
        stdout(&output).contains("replay 2: back[5] 202"),
        "{output:?}"
    );
    assert_eq!(record["graphs"], graph, "{record}");
    assert_eq!(
        record["launches"].as_array().map(Vec::len),
        Some(0),
        "{record}"
    );
    // The captured copies are nodes, not transfers; the synchronous copy refused moved nothing.
    assert_eq!(
        record["transfers"].as_array().map(Vec::len),
        Some(0),
        "{record}"
    );
}

/// As [`run`], in pass-through mode, with a copy of the driver library as the real driver.
fn run_passing_through(dir: &Path, exe: &Path) -> (Output, Value) {
    let lib = dir.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    for name in ["libcuda.so", "libcuda.so.1"] {
        let _ = std::os::unix::fs::symlink(driver_library(), lib.join(name));
    }
    // A copy, not a link: the loader takes a link to a loaded library for that library.
    let real = dir.join("real");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::copy(driver_library(), real.join("libcuda.so.1")).unwrap();
    let report = dir.join("passing_through.json");
    let output = Command::new(exe)
        .env("LD_LIBRARY_PATH", &lib)
        .env("SIMCUDA_BACKEND", "gpu")
        .env("SIMCUDA_REAL_LIBCUDA", real.join("libcuda.so.1"))
        .env("SIMCUDA_REPORT", &report)
        .output()
        .unwrap();
    let record = std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("{e}: {output:?}"));
    (output, serde_json::from_str(&record).unwrap())
}
