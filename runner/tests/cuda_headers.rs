//! CUDA's own headers (`cuda_fp16.h`, `cooperative_groups.h`), installed from PyPI by
//! `scripts/install-nvrtc`: the runner passes them to NVRTC in `check`, `grade` (tested in
//! grade/tests/grade_tracks.rs) and `sim`, and a missing one is a message naming the script.

mod common;

use common::{repo_root, TestCourse};
use std::path::{Path, PathBuf};

const K02: &str = "02_vector_add/vector_add.cu";

fn fixture(name: &str) -> PathBuf {
    repo_root()
        .join("runner/tests/fixtures/cuda_headers")
        .join(name)
}

#[test]
fn check_passes_a_solution_that_includes_cuda_fp16_and_cooperative_groups() {
    let course = TestCourse::new();
    std::fs::copy(
        fixture("vector_add.cu"),
        course.path(&format!("exercises/{K02}")),
    )
    .unwrap();
    let run = course.run(&["check", "02"]);
    assert_eq!(run.code, 0, "{}", run.all());
}

#[test]
fn sim_runs_half_precision_and_a_cooperative_groups_reduction() {
    let course = TestCourse::new();
    let dir = course.path("p");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture("half_sums.cu"), dir.join("half_sums.cu")).unwrap();
    let args = "sim half_sums.cu --kernel half_sums --grid 1 --block 64 --arg f16[64]=iota \
                --arg f32[2]=zeros --arg i32=64 --out out";
    let output = course
        .command(&args.split_whitespace().collect::<Vec<_>>())
        .current_dir(&dir)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{shown}");
    let bytes = std::fs::read(dir.join("out/arg1.npy")).unwrap();
    let sums: Vec<f32> = npyz::NpyFile::new(&bytes[..]).unwrap().into_vec().unwrap();
    // 2 * (0 + ... + 31) and 2 * (32 + ... + 63).
    assert_eq!(sums, [992.0, 3040.0]);
}

/// An NVRTC with no CUDA headers beside it: the course's library, linked from a folder of its own.
fn nvrtc_alone(dir: &Path) -> Option<PathBuf> {
    let own = repo_root().join(".nvrtc/nvidia/cuda_nvrtc/lib");
    for entry in std::fs::read_dir(&own).ok()? {
        let entry = entry.ok()?;
        std::os::unix::fs::symlink(entry.path(), dir.join(entry.file_name())).ok()?;
    }
    Some(dir.join("libnvrtc.so.12"))
}

#[test]
fn a_missing_cuda_header_names_the_install_script() {
    let course = TestCourse::new();
    let lib = tempfile::tempdir().unwrap();
    let nvrtc = nvrtc_alone(lib.path()).expect("NVRTC: run scripts/install-nvrtc");
    std::fs::copy(
        fixture("vector_add.cu"),
        course.path(&format!("exercises/{K02}")),
    )
    .unwrap();
    let output = course
        .command(&["check", "02"])
        .env("RUNNER_NVRTC", &nvrtc)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(
        shown.contains("`cooperative_groups.h` is one of CUDA's own headers")
            && shown.contains("scripts/install-nvrtc"),
        "{shown}"
    );
}
