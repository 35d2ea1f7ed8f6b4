//! A cudarc program (examples/cudarc_vector_add.rs) runs unchanged against the simulator's
//! `libcuda.so`: cudarc loads it by name from the library path, as it would NVIDIA's.

mod common;

use common::{build_dir, driver_library};
use std::path::{Path, PathBuf};
use std::process::Output;

fn fixture_ptx() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim/tests/fixtures/vector_add.ptx")
}

/// Runs the example with the simulator's driver as libcuda; returns its output and record.
fn run_example(args: &[&str]) -> (Output, serde_json::Value) {
    run_example_with(args, &[])
}

/// As [`run_example`], with the driver's variables `env` set too.
fn run_example_with(args: &[&str], env: &[(&str, &str)]) -> (Output, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let lib = driver_library();
    for name in ["libcuda.so", "libcuda.so.1"] {
        std::os::unix::fs::symlink(&lib, dir.path().join(name)).unwrap();
    }
    let report = dir.path().join("record.json");
    let output = std::process::Command::new(build_dir().join("examples/cudarc_vector_add"))
        .arg(fixture_ptx())
        .args(args)
        .env("LD_LIBRARY_PATH", dir.path())
        .env("SIMCUDA_REPORT", &report)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let record = std::fs::read_to_string(&report).unwrap_or_else(|e| {
        panic!(
            "no record ({e}); stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, serde_json::from_str(&record).unwrap())
}

#[test]
fn a_cudarc_program_runs_unchanged_and_its_copies_and_launch_are_recorded() {
    let (output, record) = run_example(&[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("device: NVIDIA H100 (simulated"),
        "{stdout}"
    );
    assert!(stdout.contains("0 of 1000 elements wrong"), "{stdout}");
    let transfers = record["transfers"].as_array().unwrap();
    assert_eq!(common::array_copies(&record), (2, 1));
    let launch = &record["launches"][0];
    assert_eq!(launch["kernel"], "vector_add");
    assert_eq!(launch["figures"]["global_load_requests"], 2 * 32);
    // The copy back comes after the kernel on the modelled timeline.
    let back = transfers
        .iter()
        .find(|t| t["direction"] == "device_to_host")
        .unwrap();
    assert!(back["start_us"].as_f64() >= launch["end_us"].as_f64());
    assert_eq!(record["failures"].as_array().unwrap().len(), 0, "{record}");
    assert_eq!(record["leaked_bytes"], 0);
    assert_eq!(record["not_supported"].as_array().unwrap().len(), 0);
}

/// The unguarded kernel's threads 1000 to 1023 read and write 4 bytes each past 1000-float
/// arrays: inside each allocation's 256-byte granule (4000 bytes round up to 4096), which a GPU
/// maps. The course's checks (the driver's default policy) stop the kernel there all the same.
#[test]
fn a_kernel_that_reads_out_of_bounds_fails_the_program_under_the_check_policy() {
    let (output, record) = run_example(&["unguarded"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("CUDA_ERROR_ILLEGAL_ADDRESS"), "{stderr}");
    assert!(stderr.contains("out-of-bounds 4-byte load"), "{stderr}");
    assert_eq!(record["launches"][0]["aborted"], true);
    assert!(record["failures"][0]["error"] == 700, "{record}");
}

/// Under `runner run`'s policy the same kernel goes on, as on a GPU: the launch and the wait
/// after it succeed, and the diagnostic is printed as a warning with its line and recorded.
#[test]
fn a_read_past_the_end_inside_the_granule_is_a_warning_under_the_run_policy() {
    let policy = [("SIMCUDA_FAULT_POLICY", "run")];
    let (output, record) = run_example_with(&["unguarded"], &policy);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("0 of 1000 elements wrong"), "{stdout}");
    let line = "c[i] = a[i] + b[i];  // BUG: unguarded";
    let fixture = std::fs::read_to_string(fixture_ptx().with_extension("cu")).unwrap();
    let at = fixture.lines().position(|l| l.contains(line)).unwrap() + 1;
    assert!(
        stderr.contains(&format!("vector_add.cu:{at}: out-of-bounds 4-byte load")),
        "{stderr}"
    );
    let launch = &record["launches"][0];
    assert_eq!(launch["aborted"], false);
    let diagnostics = launch["diagnostics"].as_array().unwrap();
    assert!(!diagnostics.is_empty());
    assert!(
        diagnostics.iter().all(|d| d["kind"] == "out_of_bounds"),
        "{record}"
    );
    assert_eq!(record["failures"].as_array().unwrap().len(), 0, "{record}");
}

/// Twice the threads reach past the granule, where a GPU may fault too (the next bytes can be
/// unmapped or another allocation's): the run policy stops the kernel there as the check does.
#[test]
fn a_read_past_the_granule_fails_the_program_under_the_run_policy_too() {
    let policy = [("SIMCUDA_FAULT_POLICY", "run")];
    let (output, record) = run_example_with(&["far"], &policy);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("CUDA_ERROR_ILLEGAL_ADDRESS"), "{stderr}");
    assert_eq!(record["launches"][0]["aborted"], true);
    assert!(record["failures"][0]["error"] == 700, "{record}");
}
