//! `runner run`: a whole host program on the simulator's CUDA driver (the `simdriver` crate),
//! here the cudarc program among the driver's examples. Both are built by `cargo test
//! --workspace`, which CI runs.

mod common;

use common::TestCourse;
use std::path::PathBuf;

fn example() -> PathBuf {
    let build = PathBuf::from(env!("CARGO_BIN_EXE_runner"));
    let example = build.with_file_name("examples").join("cudarc_vector_add");
    assert!(
        example.exists(),
        "{} is not built: run the tests with `cargo test --workspace`",
        example.display()
    );
    example
}

fn ptx() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    root.join("sim/tests/fixtures/vector_add.ptx")
        .display()
        .to_string()
}

#[test]
fn a_host_program_runs_on_the_simulators_driver_and_its_copies_and_launch_are_summed_up() {
    let course = TestCourse::new();
    let example = example().display().to_string();
    let run = course.run(&["run", "--", &example, &ptx()]);
    assert_eq!(run.code, 0, "{}", run.all());
    for part in [
        "device: NVIDIA H100 (simulated",
        "0 of 1000 elements wrong",
        "Through the simulator's CUDA driver:",
        "1 launch,",
        "to the device: 2 transfers of 8000 bytes, 0 with pinned host memory",
        "back to the host: 1 transfer of 4000 bytes",
        "launch vector_add <<<1, 1024>>>",
        "timeline (modelled",
        "stream 0  ",
        "kernel vector_add",
    ] {
        assert!(run.stdout.contains(part), "{part}: {}", run.stdout);
    }
    let json = course.run(&["run", "--json", "--", &example, &ptx()]);
    let start = json
        .stdout
        .find("{\n")
        .expect("the record after the program's output");
    let record: serde_json::Value = serde_json::from_str(&json.stdout[start..]).unwrap();
    assert_eq!(record["launches"][0]["kernel"], "vector_add");
    assert_eq!(record["leaked_bytes"], 0);
}

#[test]
fn a_faulting_kernel_fails_the_program_and_the_summary_names_the_error() {
    let course = TestCourse::new();
    let example = example().display().to_string();
    let run = course.run(&["run", "--", &example, &ptx(), "unguarded"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stderr.contains("out-of-bounds 4-byte load"),
        "{}",
        run.all()
    );
    assert!(
        run.stdout.contains("returned CUDA_ERROR_ILLEGAL_ADDRESS"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_program_that_never_calls_the_driver_is_told_so_and_keeps_its_exit_code() {
    let course = TestCourse::new();
    let run = course.run(&["run", "--", "sh", "-c", "exit 3"]);
    assert_eq!(run.code, 3, "{}", run.all());
    assert!(
        run.stderr.contains("made no call to the CUDA driver"),
        "{}",
        run.all()
    );
}

#[test]
fn nvidias_cuda_python_bindings_run_a_program_unchanged_on_the_simulators_driver() {
    let course = TestCourse::new();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let bindings = root.join(".cuda-python");
    assert!(
        bindings.join("cuda/bindings").is_dir(),
        "CUDA Python is not installed in {}: run scripts/test-setup",
        bindings.display()
    );
    let program = TestCourse::fixture("cuda_python/vector_add.py");
    let output = course
        .command(&["run", "--", "python3", &program, &ptx()])
        .env("PYTHONPATH", &bindings)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    for part in [
        "device: NVIDIA H100 (simulated",
        "wrong: 0",
        "to the device: 2 transfers of 8000 bytes",
        "launch vector_add <<<4, 256>>>",
    ] {
        assert!(stdout.contains(part), "{part}: {stdout}\n{stderr}");
    }
    assert!(!stdout.contains("never freed"), "{stdout}");
}
