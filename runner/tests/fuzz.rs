//! A seeded fuzz test: single-token mutations of every solution, and hostile kernels, checked in
//! the simulator. Whatever the kernel, the runner answers with a report or a clear error, never a
//! panic, never past its limit, and leaves the student's files and progress as they were.
//! `FUZZ_SEED` and `FUZZ_PER_EXERCISE` change the sample.

mod common;

use checks::random::Rng;
use common::{repo_root, TestCourse};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Longest a check of one mutant may take: the exercises' own limits are 2-5 s per launch, and
/// a run past this bound was never stopped, whatever the machine's speed.
const CHECK_LIMIT: Duration = common::NEVER;

/// One mutation at a place the seed picks: delete a token, swap an operator, change a number,
/// repeat a line or drop one.
fn mutate(source: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = source.lines().map(str::to_string).collect();
    let code: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            let t = lines[i].trim();
            !t.is_empty() && !t.starts_with("//")
        })
        .collect();
    let at = code[rng.next_u64() as usize % code.len()];
    let line = lines[at].clone();
    let tokens: Vec<&str> = line
        .split_inclusive(|c: char| !c.is_alphanumeric() && c != '_')
        .collect();
    let pick = rng.next_u64() as usize % tokens.len().max(1);
    match rng.next_u64() % 5 {
        0 => {
            lines[at] = tokens
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != pick)
                .map(|(_, t)| *t)
                .collect();
        }
        1 => {
            let swaps = [
                ("<", "<="),
                ("+", "-"),
                ("*", "+"),
                ("x", "y"),
                ("1", "0"),
                ("[", "[1+"),
            ];
            let (from, to) = swaps[rng.next_u64() as usize % swaps.len()];
            lines[at] = line.replacen(from, to, 1);
        }
        2 => {
            let number = ["0", "-1", "1024", "2147483647", "65536"][rng.next_u64() as usize % 5];
            lines[at] = line
                .split_inclusive(|c: char| !c.is_ascii_digit())
                .map(|t| {
                    if t.starts_with(|c: char| c.is_ascii_digit()) {
                        format!(
                            "{number}{}",
                            t.trim_start_matches(|c: char| c.is_ascii_digit())
                        )
                    } else {
                        t.to_string()
                    }
                })
                .collect();
        }
        3 => lines.insert(at, line),
        _ => {
            lines.remove(at);
        }
    }
    lines.join("\n") + "\n"
}

/// Kernels that try the runner's limits, each as exercise 02's entry point.
fn hostile_kernels() -> Vec<(&'static str, &'static str)> {
    vec![
        ("endless loop", "extern \"C\" __global__ void vector_add(const float* a, const float* b, float* c, int n) { while (true) {} }"),
        ("write far away", "extern \"C\" __global__ void vector_add(const float* a, const float* b, float* c, int n) { c[1 << 28] = 1.0f; }"),
        ("null pointer", "extern \"C\" __global__ void vector_add(const float* a, const float* b, float* c, int n) { ((float*)0)[threadIdx.x] = 1.0f; }"),
        ("recursion", "__device__ int f(int x) { return x <= 0 ? 0 : 1 + f(x - 1); }\nextern \"C\" __global__ void vector_add(const float* a, const float* b, float* c, int n) { int i = threadIdx.x; if (i < n) c[i] = f(1 << 20); }"),
        ("trap", "extern \"C\" __global__ void vector_add(const float* a, const float* b, float* c, int n) { __trap(); }"),
        ("misaligned", "extern \"C\" __global__ void vector_add(const float* a, const float* b, float* c, int n) { int i = threadIdx.x; if (i < n) *(float*)((char*)c + 1) = a[i]; }"),
        ("empty file", ""),
        ("not CUDA", "this is not a kernel at all {{{"),
    ]
}

struct Outcome {
    code: Option<i32>,
    stderr: String,
    took: Duration,
}

fn check(course: &TestCourse, id: &str, file: &Path) -> Outcome {
    let started = Instant::now();
    let mut child = course
        .command(&["check", id, "--json", "--file", file.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if started.elapsed() > CHECK_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        use std::io::Read;
        let _ = pipe.read_to_string(&mut stderr);
    }
    Outcome {
        code,
        stderr,
        took: started.elapsed(),
    }
}

/// Every file under `dir` with its content.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                files.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn no_kernel_makes_the_runner_panic_hang_or_touch_the_students_files() {
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2026);
    let per_exercise: usize = std::env::var("FUZZ_PER_EXERCISE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let course = TestCourse::new();
    course.solve("02_vector_add/vector_add.cu");
    assert_eq!(course.run(&["check", "02"]).code, 0);
    let exercises_before = snapshot(&course.path("exercises"));
    let progress_before = std::fs::read(course.path(".runner/progress.json")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(seed);
    let mut tried = Vec::new();
    for id in checks::known_ids() {
        let solutions = repo_root().join("solutions");
        let folder = std::fs::read_dir(&solutions)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(id))
            .unwrap();
        let solution = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "cu"))
            .unwrap();
        let text = std::fs::read_to_string(&solution).unwrap();
        for k in 0..per_exercise {
            let file = work.path().join(format!("{id}_{k}.cu"));
            std::fs::write(&file, mutate(&text, &mut rng)).unwrap();
            tried.push((id.to_string(), file));
        }
    }
    for (k, (_, source)) in hostile_kernels().into_iter().enumerate() {
        let file = work.path().join(format!("hostile_{k}.cu"));
        std::fs::write(&file, source).unwrap();
        tried.push(("02".to_string(), file));
    }
    let mut problems = Vec::new();
    for (id, file) in &tried {
        let outcome = check(&course, id, file);
        let ok_code = matches!(outcome.code, Some(0..=2));
        if !ok_code || outcome.stderr.contains("panicked") || outcome.took > CHECK_LIMIT {
            problems.push(format!(
                "{} as {id}: exit {:?} after {:.1} s\n{}\n{}",
                file.display(),
                outcome.code,
                outcome.took.as_secs_f64(),
                std::fs::read_to_string(file).unwrap_or_default(),
                outcome.stderr
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "seed {seed}: {} of {} kernels broke the runner:\n\n{}",
        problems.len(),
        tried.len(),
        problems.join("\n\n")
    );
    assert!(
        snapshot(&course.path("exercises")) == exercises_before,
        "an exercise file changed"
    );
    assert_eq!(
        std::fs::read(course.path(".runner/progress.json")).unwrap(),
        progress_before,
        "progress changed"
    );
}
