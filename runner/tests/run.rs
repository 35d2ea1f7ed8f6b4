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
    // Standard output is the record alone; the program's own output goes to standard error.
    let json = course.run(&["run", "--json", "--", &example, &ptx()]);
    let record: serde_json::Value = serde_json::from_str(&json.stdout)
        .unwrap_or_else(|e| panic!("--json's output is not JSON alone ({e}):\n{}", json.stdout));
    assert!(
        json.stderr.contains("0 of 1000 elements wrong"),
        "the program's output: {}",
        json.stderr
    );
    assert_eq!(record["launches"][0]["kernel"], "vector_add");
    assert_eq!(record["leaked_bytes"], 0);
}

/// The unguarded kernel on 2000 threads reads 4000 bytes past 1000-float arrays, past their
/// 256-byte granules: a fault, as a GPU may give.
#[test]
fn a_faulting_kernel_fails_the_program_and_the_summary_names_the_error() {
    let course = TestCourse::new();
    let example = example().display().to_string();
    let run = course.run(&["run", "--", &example, &ptx(), "far"]);
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

/// On 1024 threads the unguarded kernel stays inside the arrays' 256-byte granules, which a GPU
/// maps: the program runs on as it would there, told of the bug with its line.
#[test]
fn a_read_past_the_end_inside_the_granule_is_a_warning_and_the_program_goes_on() {
    let course = TestCourse::new();
    let example = example().display().to_string();
    let run = course.run(&["run", "--", &example, &ptx(), "unguarded"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains("0 of 1000 elements wrong"),
        "{}",
        run.all()
    );
    assert!(
        run.stderr.contains("warning at ")
            && run
                .stderr
                .contains("vector_add.cu:11: out-of-bounds 4-byte load"),
        "{}",
        run.all()
    );
    assert!(run.stderr.contains("the kernel went on"), "{}", run.all());
    assert!(!run.stdout.contains("CUDA_ERROR"), "{}", run.stdout);
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
    let run = course.run(&["run", "--", "sh", "-c", "kill -9 $$"]);
    assert!(
        run.stderr.contains("was ended by signal 9"),
        "{}",
        run.all()
    );
}

/// The course's CUDA Python environment (scripts/install-cuda-python).
fn python() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join(".cuda-python/bin/python");
    assert!(
        python.exists(),
        "CUDA Python is not installed in .cuda-python/: run scripts/test-setup"
    );
    python.display().to_string()
}

/// `runner run` on a Python program of the fixtures; its stdout, after checking it succeeded.
fn run_python(course: &TestCourse, program: &str, args: &[&str]) -> String {
    let program = TestCourse::fixture(program);
    let mut command = vec!["run", "--", "PYTHON", program.as_str()];
    command.extend_from_slice(args);
    let python = python();
    command[2] = &python;
    let run = course.run(&command);
    assert_eq!(run.code, 0, "{}", run.all());
    run.stdout
}

#[test]
fn nvidias_cuda_python_bindings_run_a_program_unchanged_on_the_simulators_driver() {
    let course = TestCourse::new();
    let stdout = run_python(&course, "cuda_python/vector_add.py", &[&ptx()]);
    for part in [
        "device: NVIDIA H100 (simulated",
        "wrong: 0",
        "to the device: 2 transfers of 8000 bytes",
        "launch vector_add <<<4, 256>>>",
    ] {
        assert!(stdout.contains(part), "{part}: {stdout}");
    }
    assert!(!stdout.contains("never freed"), "{stdout}");
}

#[test]
fn a_numba_kernel_runs_on_the_simulators_driver_and_its_implicit_copies_show() {
    let course = TestCourse::new();
    let stdout = run_python(&course, "cuda_python/numba_add.py", &[]);
    for part in [
        "wrong: 0",
        // Numba copies the three host arrays in, and all three back, input or not.
        "to the device: 3 transfers of 12000 bytes",
        "back to the host: 3 transfers of 12000 bytes",
        "launch __main__::add <<<4, 256>>>",
        // The line's figures, on the Python source: 1000 floats read twice and written once.
        "numba_add.py:15  375 sectors, 0 wavefronts  c[i] = a[i] + b[i]",
    ] {
        assert!(stdout.contains(part), "{part}: {stdout}");
    }
}

#[test]
fn numbas_device_arrays_shared_memory_atomics_random_states_and_ufuncs_run_on_the_simulator() {
    let course = TestCourse::new();
    let stdout = run_python(&course, "cuda_python/numba_features.py", &[]);
    for part in [
        "gpus: [\"NVIDIA H100 (simulated",
        "device arrays: True",
        "shared memory: True",
        "atomics: True",
        "random: True",
        "vectorize: True",
        "launch __main__::block_sum <<<32, 128>>>",
    ] {
        assert!(stdout.contains(part), "{part}: {stdout}");
    }
}

#[test]
fn numbas_grid_wide_barrier_runs_on_the_simulators_driver() {
    let course = TestCourse::new();
    let stdout = run_python(&course, "cuda_python/numba_grid_sync.py", &[]);
    for part in ["grid sync: True", "launch __main__::two_phase <<<8, 128>>>"] {
        assert!(stdout.contains(part), "{part}: {stdout}");
    }
}

#[test]
fn cuda_cores_program_api_compiles_with_the_courses_nvrtc_and_launches_on_the_simulator() {
    let course = TestCourse::new();
    let stdout = run_python(&course, "cuda_python/core_program.py", &[]);
    for part in ["cuda.core: True", "launch scale <<<4, 256>>>", "stream 1"] {
        assert!(stdout.contains(part), "{part}: {stdout}");
    }
}

#[test]
fn python_means_the_courses_cuda_python_environment() {
    let course = TestCourse::new();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    std::os::unix::fs::symlink(root.join(".cuda-python"), course.path(".cuda-python")).unwrap();
    let program = TestCourse::fixture("cuda_python/vector_add.py");
    let run = course.run(&["run", "--", "python", &program, &ptx()]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stdout.contains("wrong: 0"), "{}", run.all());
    assert!(
        run.stderr
            .contains("Python from the course's CUDA Python environment"),
        "{}",
        run.stderr
    );
}

#[test]
fn doctor_says_where_the_simulated_driver_and_cuda_python_are() {
    let course = TestCourse::new();
    // The tests' courses run Python with the repository's environment (RUNNER_CUDA_PYTHON):
    // doctor names it.
    let named = course.run(&["doctor"]);
    assert!(
        named.stdout.contains(".cuda-python/bin/python"),
        "{}",
        named.all()
    );
    let mut doctor = course.command(&["doctor"]);
    doctor.env_remove("RUNNER_CUDA_PYTHON");
    let run = common::Run::from(doctor.output().unwrap());
    assert!(
        run.stdout.contains("simulated CUDA driver"),
        "{}",
        run.all()
    );
    assert!(run.stdout.contains("libsimcuda.so"), "{}", run.all());
    // The test course has no .cuda-python of its own: it says how to get one.
    assert!(
        run.stdout
            .contains("not installed: scripts/install-cuda-python"),
        "{}",
        run.all()
    );
}

#[test]
fn the_simulated_device_can_be_an_h200() {
    let course = TestCourse::new();
    let example = example().display().to_string();
    let run = course.run(&["run", "--gpu-model", "h200", "--", &example, &ptx()]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains("device: NVIDIA H200 (simulated"),
        "{}",
        run.stdout
    );
    let wrong = course.run(&["run", "--gpu-model", "a100", "--", &example, &ptx()]);
    assert_eq!(wrong.code, 2, "{}", wrong.all());
    assert!(
        wrong.stderr.contains("expected h100 or h200"),
        "{}",
        wrong.stderr
    );
}

/// The simulator's driver library, as `cargo test` built it (in deps/: the one beside the runner
/// is as old as the last `cargo build`).
fn driver_library() -> PathBuf {
    let build = PathBuf::from(env!("CARGO_BIN_EXE_runner"));
    [
        build.with_file_name("deps").join("libsimcuda.so"),
        build.with_file_name("libsimcuda.so"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .expect("libsimcuda.so is built by `cargo test --workspace`")
}

#[test]
fn with_backend_gpu_the_program_runs_through_the_real_driver_and_the_times_are_measured() {
    // No GPU here: a copy of the driver library stands for NVIDIA's (named as the real driver,
    // it simulates), so pass-through mode is what is tested, and the summary it leads to.
    let course = TestCourse::new();
    let real = course.path("real-driver/libcuda.so.1");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::copy(driver_library(), &real).unwrap();
    let example = example().display().to_string();
    let output = course
        .command(&["run", "--backend", "gpu", "--", &example, &ptx()])
        .env("RUNNER_SIMCUDA", driver_library())
        .env("RUNNER_REAL_LIBCUDA", &real)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}{stderr}");
    for part in [
        "0 of 1000 elements wrong",
        "Through NVIDIA's CUDA driver (pass-through):",
        "to the device: 2 transfers of 8000 bytes, 0 with pinned host memory",
        "launch vector_add <<<1, 1024>>>: ",
        "µs measured",
        "measured time on the device's timeline",
        "timeline (measured on the GPU",
        "kernel vector_add",
    ] {
        assert!(stdout.contains(part), "{part}: {stdout}");
    }
    assert!(!stdout.contains("global sectors"), "{stdout}");
}

#[test]
fn a_program_that_loads_nvrtc_by_its_versioned_name_gets_the_courses() {
    // NVIDIA's NVRTC samples link libnvrtc.so.12; the real library's folder is on the path too,
    // and its NVRTC would compile machine code the simulator cannot run.
    let course = TestCourse::new();
    let stdout = run_python(&course, "cuda_python/loaded_nvrtc.py", &[]);
    assert!(stdout.trim().ends_with("libsimnvrtc.so"), "{stdout}");
}
