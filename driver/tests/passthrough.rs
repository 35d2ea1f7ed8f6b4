//! Pass-through mode without a GPU: a second copy of the driver library stands for the real
//! driver (named by absolute path, it simulates, and keeps no record of its own), so the copy in
//! front forwards every call to it and records what the program did with the times the "real"
//! driver's events give.

mod common;

use common::{build_dir, driver_library};
use std::path::Path;

#[test]
fn pass_through_forwards_every_call_and_records_measured_times() {
    let dir = tempfile::tempdir().unwrap();
    let lib = driver_library();
    for name in ["libcuda.so", "libcuda.so.1"] {
        std::os::unix::fs::symlink(&lib, dir.path().join(name)).unwrap();
    }
    // A copy, not a link: the loader takes a link to a loaded library for that library.
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::copy(&lib, real.join("libcuda.so.1")).unwrap();
    let report = dir.path().join("record.json");
    let ptx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim/tests/fixtures/vector_add.ptx");
    let output = std::process::Command::new(build_dir().join("examples/cudarc_vector_add"))
        .arg(ptx)
        .env("LD_LIBRARY_PATH", dir.path())
        .env("SIMCUDA_BACKEND", "gpu")
        .env("SIMCUDA_REAL_LIBCUDA", real.join("libcuda.so.1"))
        .env("SIMCUDA_REPORT", &report)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("0 of 1000 elements wrong"), "{stdout}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(record["timeline"], "measured");
    assert_eq!(record["calls"]["cuLaunchKernel"], 1, "{record}");
    let transfers = record["transfers"].as_array().unwrap();
    assert_eq!(common::array_copies(&record), (2, 1));
    let launch = &record["launches"][0];
    assert_eq!(launch["kernel"], "vector_add");
    assert!(launch["figures"].is_null(), "{launch}");
    // The "real" driver's events carry its modelled times: the launch took time, and the copy
    // back starts after it ends, as it does on the stream.
    let (start, end) = (launch["start_us"].as_f64(), launch["end_us"].as_f64());
    assert!(end > start, "{launch}");
    let back = transfers
        .iter()
        .find(|t| t["direction"] == "device_to_host")
        .unwrap();
    assert!(back["start_us"].as_f64() >= end, "{record}");
    assert_eq!(record["failures"].as_array().unwrap().len(), 0, "{record}");
    assert_eq!(record["leaked_bytes"], 0);
}

#[test]
fn a_missing_real_driver_is_said_and_every_call_fails() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(driver_library(), dir.path().join("libcuda.so.1")).unwrap();
    let ptx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim/tests/fixtures/vector_add.ptx");
    let output = std::process::Command::new(build_dir().join("examples/cudarc_vector_add"))
        .arg(ptx)
        .env("LD_LIBRARY_PATH", dir.path())
        .env("SIMCUDA_BACKEND", "gpu")
        .env("SIMCUDA_REAL_LIBCUDA", "/nonexistent/libcuda.so.1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("cannot load the real CUDA driver /nonexistent/libcuda.so.1"),
        "{stderr}"
    );
}
