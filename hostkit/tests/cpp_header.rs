//! The C++ header (`cpp/hostkit.h`) reads a case as the runner writes it and writes results as
//! the runner reads them: a small program built with g++ doubles an array, copies numbers into
//! outputs, and refuses a missing array with hostkit's message. Without g++ the test says so
//! and passes without checking anything.

use std::path::Path;
use std::process::Command;

const PROGRAM: &str = r#"
#include "hostkit.h"
int main() {
    hostkit::Task task = hostkit::Task::open();
    std::vector<float> x = task.read<float>("x");
    for (float &v : x) v *= 2;
    task.write("x", x);
    std::vector<uint64_t> numbers = {(uint64_t)task.param("n"), (uint64_t)(task.real("alpha") * 4)};
    task.write("numbers", numbers);
    task.read<double>("missing");
    return 0;
}
"#;

#[test]
fn a_cpp_program_reads_a_case_and_hands_back_its_results() {
    if Command::new("g++").arg("--version").output().is_err() {
        eprintln!("skipped: g++ is not installed (apt install g++)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("hostkit-cpp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("program.cpp"), PROGRAM).unwrap();
    let header = Path::new(env!("CARGO_MANIFEST_DIR")).join("cpp");
    let built = Command::new("g++")
        .args(["-std=c++17", "-Wall", "-Werror", "-I"])
        .arg(&header)
        .arg(dir.join("program.cpp"))
        .arg("-o")
        .arg(dir.join("program"))
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");

    let case = dir.join("case");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::write(case.join("params.txt"), "n = 3\nalpha = 2.5\n").unwrap();
    let x: Vec<u8> = [1.0f32, -2.0, 0.5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(case.join("x.f32"), x).unwrap();
    let run = Command::new(dir.join("program"))
        .env("HOSTKIT_CASE", &case)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("hostkit: the case has no f64 array called \"missing\""),
        "{stderr}"
    );
    let doubled: Vec<f32> = std::fs::read(case.join("out_x.f32"))
        .unwrap()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(doubled, [2.0, -4.0, 1.0]);
    let numbers: Vec<u64> = std::fs::read(case.join("out_numbers.u64"))
        .unwrap()
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(numbers, [3, 10]);

    let unset = Command::new(dir.join("program"))
        .env_remove("HOSTKIT_CASE")
        .output()
        .unwrap();
    assert_eq!(unset.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unset.stderr).contains("runner check"));
    std::fs::remove_dir_all(&dir).unwrap();
}
