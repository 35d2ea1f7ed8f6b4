//! `runner run` on a program built with nvcc on the CUDA runtime (cudart 13, static as nvcc links
//! it by default, and shared): it runs unchanged on the simulator's driver, and a shared build
//! finds the course's libcudart.so.13 (`scripts/install-nvcc`). Without the course's nvcc (or
//! g++) the test says so and passes without checking anything.

mod common;

use common::{repo_root, TestCourse};
use std::path::PathBuf;
use std::process::Command;

/// The course's nvcc, as `scripts/install-nvcc` leaves it (the driver's own tests check the
/// host compiler too; here a missing g++ fails the build with nvcc's message).
fn nvcc() -> Option<PathBuf> {
    let nvcc = repo_root().join(".nvcc/bin/nvcc");
    let found = nvcc.exists().then_some(nvcc);
    if found.is_none() {
        eprintln!("skipped: nvcc is not installed (scripts/install-nvcc installs it from PyPI)");
    }
    found
}

#[test]
fn an_nvcc_program_runs_under_runner_run_with_static_and_shared_cudart() {
    let Some(nvcc) = nvcc() else { return };
    let course = TestCourse::new();
    // The course's nvcc, as scripts/install-nvcc leaves it at the course's root.
    std::os::unix::fs::symlink(repo_root().join(".nvcc"), course.path(".nvcc")).unwrap();
    let source = repo_root().join("driver/tests/cuda_runtime/vector_add.cu");
    for cudart in ["static", "shared"] {
        let exe = course.path(&format!("vector_add_{cudart}"));
        let built = Command::new(&nvcc)
            .args([
                "-gencode",
                "arch=compute_80,code=compute_80",
                "-cudart",
                cudart,
            ])
            .arg("-o")
            .arg(&exe)
            .arg(&source)
            .output()
            .unwrap();
        assert!(built.status.success(), "{built:?}");
        let run = course.run(&["run", "--", &exe.display().to_string()]);
        assert_eq!(run.code, 0, "{cudart}: {}", run.all());
        for part in [
            "ok\n",
            "1 launch,",
            "to the device: 2 transfers of 8000 bytes",
            "back to the host: 1 transfer of 4000 bytes",
        ] {
            assert!(run.stdout.contains(part), "{cudart}, {part}: {}", run.all());
        }
    }
}

#[test]
fn doctor_shows_the_courses_nvcc_and_its_release() {
    let Some(_) = nvcc() else { return };
    let course = TestCourse::new();
    std::os::unix::fs::symlink(repo_root().join(".nvcc"), course.path(".nvcc")).unwrap();
    let doctor = course.run(&["doctor"]);
    let line = doctor
        .stdout
        .lines()
        .find(|l| l.contains(" nvcc "))
        .unwrap_or_else(|| panic!("no nvcc line: {}", doctor.all()));
    assert!(
        line.contains(".nvcc/bin/nvcc (Cuda compilation tools, release 13.0"),
        "{line}"
    );
}

/// A CuPy program: arrays, elementwise arithmetic, a reduction (CUB's kernel, compiled by NVRTC
/// at run time) and a RawKernel, through CuPy's own statically linked CUDA runtime. Needs CuPy in
/// the course's CUDA Python environment (`pip install cupy-cuda12x`, about 140 MB: not installed
/// by `scripts/install-cuda-python`).
#[test]
fn a_cupy_program_runs_on_the_simulators_driver() {
    let python = repo_root().join(".cuda-python/bin/python");
    let has_cupy = Command::new(&python)
        .args(["-c", "import cupy"])
        .output()
        .is_ok_and(|out| out.status.success());
    if !has_cupy {
        eprintln!("skipped: CuPy is not installed in .cuda-python (pip install cupy-cuda12x)");
        return;
    }
    let course = TestCourse::new();
    let program = course.path("cupy_program.py");
    std::fs::write(
        &program,
        r#"import cupy as cp
x = cp.arange(10, dtype=cp.float32)
y = x * 2 + 1
print("elementwise", cp.asnumpy(y)[:4])
print("sum", float(y.sum()))
twice = cp.RawKernel(r'''extern "C" __global__ void twice(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= 2;
}''', "twice")
twice((1,), (32,), (x, cp.int32(10)))
print("raw", cp.asnumpy(x)[:4])
"#,
    )
    .unwrap();
    let mut command = course.command(&["run", "--", "python", &program.display().to_string()]);
    // CuPy's own kernel cache, in the test's course: a cubin cached by another run is not PTX.
    command.env("CUPY_CACHE_DIR", course.path("cupy-cache"));
    let run = common::Run::from(command.output().unwrap());
    assert_eq!(run.code, 0, "{}", run.all());
    for part in [
        "elementwise [1. 3. 5. 7.]\n",
        "sum 100.0\n",
        "raw [0. 2. 4. 6.]\n",
        "launch twice <<<1, 32>>>",
    ] {
        assert!(run.stdout.contains(part), "{part}: {}", run.all());
    }
}
