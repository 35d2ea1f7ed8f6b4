//! `runner grade --run-programs` keeps each student's program in a sandbox of its own: a hostile
//! class (grade/tests/fixtures/hostile) is graded once, and each test holds one attack to what
//! it must not reach. Kernels are held to the same: an `#include` finds neither a classmate's
//! file nor the course's solution. And where no sandbox can be made, whole programs are refused
//! unless the instructor opts out by name.

#[path = "../../runner/tests/common/mod.rs"]
mod common;

use common::{repo_root, TestCourse};
use serde_json::Value;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const SEED: &str = "987654321";
const DISK_LIMIT_MB: u64 = 64;
const PY01: &str = "py01_ufunc/ufunc.py";
const H25: &str = "25_first_program/src/main.rs";
const K13: &str = "13_row_column_sums/sums.cu";

fn put(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn solution(file: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("solutions").join(file)).unwrap()
}

fn hostile(name: &str) -> String {
    std::fs::read_to_string(repo_root().join("grade/tests/fixtures/hostile").join(name)).unwrap()
}

/// Why bubblewrap cannot make a sandbox on this machine, if it cannot (a container may forbid
/// user namespaces): the tests of the hostile class then skip with that line, since the grader
/// rightly refuses `--run-programs` there (the last tests of this file check that refusal).
fn no_sandbox_here() -> Option<String> {
    static WHY: OnceLock<Option<String>> = OnceLock::new();
    WHY.get_or_init(|| {
        let trial = std::process::Command::new("bwrap")
            .args(["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"])
            .args([
                "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "true",
            ])
            .output();
        match trial {
            Err(e) => Some(format!("bubblewrap (`bwrap`) cannot be started ({e})")),
            Ok(o) if !o.status.success() => Some(format!(
                "bubblewrap cannot make a sandbox here ({})",
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Ok(_) => None,
        }
    })
    .clone()
}

/// Returns from the test, saying so, where no sandbox can be made.
macro_rules! needs_a_sandbox {
    () => {
        if let Some(why) = no_sandbox_here() {
            eprintln!(
                "skipped: {why}; install bubblewrap and allow unprivileged user namespaces to run it"
            );
            return;
        }
    };
}

/// The hostile class, graded once for every test of this file.
struct Graded {
    course: TestCourse,
    class: PathBuf,
    out: PathBuf,
    run: common::Run,
    /// A listener the vandal was told to phone; a connection is a hole in the sandbox.
    listener: TcpListener,
    hostkit_before: String,
    _work: tempfile::TempDir,
}

fn graded() -> &'static Graded {
    static GRADED: OnceLock<Graded> = OnceLock::new();
    GRADED.get_or_init(|| {
        let course = TestCourse::new();
        std::fs::write(
            course.path("grading.toml"),
            format!("seed = {SEED}\ndisk_limit_mb = {DISK_LIMIT_MB}\n"),
        )
        .unwrap();
        let work = tempfile::tempdir().unwrap();
        let class = work.path().join("class");
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port().to_string();
        // In name order, which is the order they are graded in with one job: ann before the
        // vandal, zed after it.
        let mut secret_solution = solution(PY01);
        secret_solution.extend_from_slice(b"\n# SECRET of ann's\n");
        put(&class.join("ann").join(PY01), &secret_solution);
        put(
            &class.join("fil").join(PY01),
            hostile("py01_fill_disk.py").as_bytes(),
        );
        put(
            &class.join("mal").join(PY01),
            hostile("py01_vandal.py").replace("PORT", &port).as_bytes(),
        );
        put(
            &class.join("rus").join(H25),
            hostile("25_include_grading.rs").as_bytes(),
        );
        put(
            &class.join("sam").join(PY01),
            hostile("py01_snoop.py").as_bytes(),
        );
        put(
            &class.join("rep").join(PY01),
            hostile("py01_forge_report.py").as_bytes(),
        );
        put(&class.join("zed").join(PY01), &solution(PY01));
        let out = work.path().join("grades");
        put(
            &class.join("flo").join(PY01),
            hostile("py01_flood.py").as_bytes(),
        );
        let hostkit_before =
            std::fs::read_to_string(course.path("hostkit/python/hostkit.py")).unwrap();
        let run = course.run(&[
            class.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--format",
            "csv,json",
            "--exercises",
            "25,py01",
            "--run-programs",
            "--jobs",
            "1",
        ]);
        Graded {
            course,
            class,
            out,
            run,
            listener,
            hostkit_before,
            _work: work,
        }
    })
}

fn cell(student: &str, exercise: &str) -> Value {
    let path = graded()
        .out
        .join(format!("cells/{student}/{exercise}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", path.display(), graded().run.all()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}: {text}", path.display()))
}

fn status(cell: &Value) -> &str {
    cell["status"].as_str().unwrap_or_default()
}

#[test]
fn a_program_cannot_kill_the_grader_and_every_cell_is_graded() {
    needs_a_sandbox!();
    let g = graded();
    assert_eq!(g.run.code, 0, "{}", g.run.all());
    let mal = cell("mal", "py01");
    assert_ne!(status(&mal), "passed", "{mal}");
}

#[test]
fn a_program_cannot_read_the_grading_file_the_solutions_or_a_classmates_files() {
    needs_a_sandbox!();
    let sam = cell("sam", "py01");
    let details = sam["details"].as_str().unwrap();
    assert!(details.contains("found"), "{sam}");
    assert!(!details.contains("SECRET"), "{sam}");
    // The seed is in no cell: not in a file the program could read, not on a command line it
    // could see in /proc.
    for entry in cell_files(&graded().out) {
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        assert!(!text.contains(SEED), "{}: {text}", entry.display());
    }
}

#[test]
fn a_program_cannot_run_the_course_solution() {
    needs_a_sandbox!();
    let sam = cell("sam", "py01");
    assert_eq!(status(&sam), "failed", "{sam}");
}

#[test]
fn a_rust_program_cannot_include_the_grading_file_or_a_solution_at_build_time() {
    needs_a_sandbox!();
    let rus = cell("rus", "25");
    assert_eq!(status(&rus), "compile_error", "{rus}");
    let text = rus.to_string();
    assert!(text.contains("grading.toml"), "{text}");
    assert!(!text.contains(SEED), "{text}");
}

#[test]
fn a_program_cannot_change_a_later_students_files_or_the_submissions() {
    needs_a_sandbox!();
    let zed = cell("zed", "py01");
    assert_eq!(status(&zed), "passed", "{zed}");
    let handed_in = std::fs::read(graded().class.join("zed").join(PY01)).unwrap();
    assert_eq!(handed_in, solution(PY01));
}

#[test]
fn a_program_cannot_change_the_course_for_later_students() {
    needs_a_sandbox!();
    let g = graded();
    let hostkit = std::fs::read_to_string(g.course.path("hostkit/python/hostkit.py")).unwrap();
    assert_eq!(hostkit, g.hostkit_before);
    assert_eq!(status(&cell("zed", "py01")), "passed");
}

#[test]
fn a_program_cannot_forge_an_earlier_students_cell() {
    needs_a_sandbox!();
    let ann = cell("ann", "py01");
    assert_eq!(status(&ann), "passed", "{ann}");
    assert!(ann.get("forged").is_none(), "{ann}");
}

#[test]
fn a_program_cannot_write_its_own_cells_report() {
    needs_a_sandbox!();
    let rep = cell("rep", "py01");
    assert_ne!(status(&rep), "passed", "{rep}");
    let message = rep["message"].as_str().unwrap_or_default();
    assert!(
        !message.contains("readable report"),
        "the check's report file was written to: {rep}"
    );
}

#[test]
fn nothing_a_program_starts_outlives_its_cell() {
    needs_a_sandbox!();
    graded();
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .map(|line| String::from_utf8_lossy(&line).replace('\0', " "))
        .filter(|line| line.contains("py01-vandal-leftover"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_program_has_no_network() {
    needs_a_sandbox!();
    let g = graded();
    match g.listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the vandal reached the grader's machine: {other:?}"),
    }
}

#[test]
fn a_program_fills_only_its_own_capped_folders() {
    needs_a_sandbox!();
    let fil = cell("fil", "py01");
    let details = fil["details"].as_str().unwrap();
    let numbers: Vec<u64> = details
        .split("wrote ")
        .skip(1)
        .flat_map(|rest| rest.split(" MiB").next())
        .flat_map(|n| n.rsplit(' ').next())
        .filter_map(|n| n.parse().ok())
        .collect();
    assert!(numbers.len() >= 2, "{details}");
    for written in numbers {
        assert!(written > 0 && written <= DISK_LIMIT_MB, "{details}");
    }
}

/// Every file of the grade book's cells: `cells/<student>/<exercise>.*`.
fn cell_files(out: &Path) -> Vec<PathBuf> {
    let folders = std::fs::read_dir(out.join("cells")).unwrap().flatten();
    folders
        .flat_map(|student| std::fs::read_dir(student.path()).unwrap().flatten())
        .map(|entry| entry.path())
        .collect()
}

fn read_cell(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A kernel's cell sees no `solutions/`, yet its targets are measured against the reference
/// solution, which the sandbox hands to the check's process alone: row sums read by lane 0 of
/// each warp alone still miss their target (they pass, unjudged, without the solution).
#[test]
fn a_kernels_targets_are_judged_against_the_solution_the_sandbox_hands_over() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("ann").join(K13), &solution(K13));
    put(
        &class.join("lan").join(K13),
        &std::fs::read(repo_root().join("checks/mistakes/13/lane0_only.cu")).unwrap(),
    );
    for isolation in ["cell", "worker"] {
        let out = work.path().join(format!("grades-{isolation}"));
        let run = course.run(&[
            class.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--format",
            "csv",
            "--exercises",
            "13",
            "--isolation",
            isolation,
        ]);
        assert_eq!(run.code, 0, "{}", run.all());
        for (student, wanted) in [("ann", "passed"), ("lan", "target_missed")] {
            let cell = read_cell(&out.join(format!("cells/{student}/13.json")));
            assert_eq!(status(&cell), wanted, "{isolation}, {student}: {cell}");
        }
    }
}

#[test]
fn whole_programs_are_refused_where_no_sandbox_can_be_made_unless_the_instructor_opts_out() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("ann").join(PY01), &solution(PY01));
    let out = work.path().join("grades");
    let no_bwrap = work.path().join("bin");
    std::fs::create_dir_all(&no_bwrap).unwrap();
    let args = [
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--format",
        "csv",
        "--exercises",
        "py01",
        "--run-programs",
    ];
    let without_bwrap = |args: &[&str]| {
        common::Run::from(
            course
                .command(args)
                .env("PATH", &no_bwrap)
                .output()
                .unwrap(),
        )
    };
    let refused = without_bwrap(&args);
    assert_eq!(refused.code, 2, "{}", refused.all());
    assert!(
        refused.stderr.contains("bubblewrap")
            && refused.stderr.contains("apt install bubblewrap")
            && refused
                .stderr
                .contains("--no-sandbox-i-trust-these-programs"),
        "{}",
        refused.all()
    );
    assert!(!out.join("cells").exists(), "a refused grade graded");

    let mut trusting = args.to_vec();
    trusting.push("--no-sandbox-i-trust-these-programs");
    let run = without_bwrap(&trusting);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stderr.contains("with your own rights"), "{}", run.all());
    let ann = read_cell(&out.join("cells/ann/py01.json"));
    assert_eq!(status(&ann), "passed", "{ann}");
}

#[test]
fn a_flood_on_stdout_and_kill_minus_one_cost_only_their_own_cell() {
    needs_a_sandbox!();
    let g = graded();
    assert_eq!(g.run.code, 0, "{}", g.run.all());
    let flo = cell("flo", "py01");
    assert_ne!(status(&flo), "passed", "{flo}");
    assert!(
        flo.to_string().len() < 1 << 20,
        "a cell of {} bytes",
        flo.to_string().len()
    );
    assert_eq!(status(&cell("zed", "py01")), "passed");
}
