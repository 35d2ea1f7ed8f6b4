//! Whatever the student's file holds, and whatever the cache holds, a check ends quickly, in
//! bounded memory, with the right answer: kernel files checked before they are read, compiles
//! under a time and memory limit, a cache that covers included files and finds damaged entries.

mod common;

use common::{Run, TestCourse};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const VECTOR_ADD: &str = "02_vector_add/vector_add.cu";

/// Runs the runner with `args`, killing it if it is still running after `limit`.
fn run_within(command: &mut std::process::Command, limit: Duration) -> (Run, Duration) {
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{:?} still ran after {limit:?}", command.get_args());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    (run, started.elapsed())
}

fn check_file(course: &TestCourse, file: &Path) -> Run {
    let file = file.display().to_string();
    run_within(
        &mut course.command(&["check", "02", "--file", &file]),
        common::NEVER,
    )
    .0
}

/// A refused kernel file: the command fails at once, in one line that names the problem.
fn assert_refused(run: &Run, what: &str) {
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stderr.contains(what), "{}", run.all());
    // `reset` restores the exercise's own file, so only a refusal of that file offers it.
    let own_file = run.stderr.contains("exercises/02_vector_add/");
    assert_eq!(
        run.stderr.contains("runner reset 02"),
        own_file,
        "reset is offered for the exercise's own file only: {}",
        run.all()
    );
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.all());
    assert!(run.stderr.len() < 600, "{}", run.all());
}

#[test]
fn a_device_as_the_kernel_file_is_refused_before_it_is_read() {
    let course = TestCourse::new();
    // Read, /dev/zero never ends: that the run ends at all shows it was refused unread.
    let (run, _) = run_within(
        &mut course.command(&["check", "02", "--file", "/dev/zero"]),
        common::NEVER,
    );
    assert_refused(&run, "/dev/zero is a device, not a regular file");
}

#[test]
fn a_fifo_as_the_kernel_file_is_refused_without_waiting_for_a_writer() {
    let course = TestCourse::new();
    let fifo = course.path("kernel.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let fifo = fifo.display().to_string();
    let (run, _) = run_within(
        &mut course.command(&["check", "02", "--file", &fifo]),
        common::NEVER,
    );
    assert_refused(&run, "is a named pipe (FIFO), not a regular file");
    // The exercise's own file replaced by a FIFO: the same.
    let own = course.path(&format!("exercises/{VECTOR_ADD}"));
    std::fs::remove_file(&own).unwrap();
    std::process::Command::new("mkfifo")
        .arg(&own)
        .status()
        .unwrap();
    let (run, _) = run_within(&mut course.command(&["check", "02"]), common::NEVER);
    assert_refused(&run, "is a named pipe (FIFO), not a regular file");
}

#[test]
fn a_kernel_file_over_the_size_limit_is_refused() {
    let course = TestCourse::new();
    let big = course.path("big.cu");
    let mut text =
        std::fs::read_to_string(course.path(&format!("solutions/{VECTOR_ADD}"))).unwrap();
    while text.len() < 2 << 20 {
        text.push_str("// padding padding padding padding padding padding padding padding\n");
    }
    std::fs::write(&big, text).unwrap();
    let run = check_file(&course, &big);
    assert_refused(&run, "over the 1 MiB a kernel file may have");
}

#[test]
fn a_byte_order_mark_before_a_solution_still_passes() {
    let course = TestCourse::new();
    let solution =
        std::fs::read_to_string(course.path(&format!("solutions/{VECTOR_ADD}"))).unwrap();
    let file = course.path(&format!("exercises/{VECTOR_ADD}"));
    std::fs::write(&file, format!("\u{feff}{solution}")).unwrap();
    let run = course.run(&["check", "02"]);
    assert!(run.stdout.contains("Passed"), "{}", run.all());
    assert_eq!(run.code, 0, "{}", run.all());
}

#[test]
fn a_binary_kernel_file_is_refused_in_one_line() {
    let course = TestCourse::new();
    let solution = std::fs::read(course.path(&format!("solutions/{VECTOR_ADD}"))).unwrap();
    let file = course.path("binary.cu");
    // A text file with a NUL in it, as a crashed editor leaves one, repeated to 200 KB: the
    // message must not quote it.
    let mut bytes = solution.clone();
    bytes.extend_from_slice(b"\0\x01\x02\x03");
    while bytes.len() < 200 << 10 {
        bytes.extend_from_slice(&solution);
    }
    std::fs::write(&file, &bytes).unwrap();
    let run = check_file(&course, &file);
    assert_refused(&run, "holds binary content (a NUL byte on line");
    // Bytes that are not UTF-8 (a file saved as Latin-1, or an image).
    std::fs::write(&file, b"\x89PNG\r\n\x1a\n\xff\xd8").unwrap();
    let run = check_file(&course, &file);
    assert_refused(&run, "binary.cu holds binary content");
    std::fs::write(&file, b"// caf\xe9\n").unwrap();
    let run = check_file(&course, &file);
    assert_refused(&run, "is not UTF-8 text (line 1): save it as UTF-8");
}

/// A macro bomb: 2^40 tokens once expanded.
fn macro_bomb() -> String {
    let mut text = String::from("#define A0(x) x x\n");
    for level in 1..=40 {
        let below = level - 1;
        text.push_str(&format!("#define A{level}(x) A{below}(x) A{below}(x)\n"));
    }
    text.push_str(
        "__global__ void vector_add(const float* a, const float* b, float* c, int n)\n\
         { int x = 0 A40(+1); c[0] = x; }\n",
    );
    text
}

#[test]
fn a_compile_that_expands_without_end_is_stopped_at_the_time_limit() {
    let course = TestCourse::new();
    let file = course.path("bomb.cu");
    std::fs::write(&file, macro_bomb()).unwrap();
    let file = file.display().to_string();
    let mut command = course.command(&["check", "02", "--file", &file]);
    // The bomb grows by a few hundred MiB a second: a memory limit it cannot reach in 3 s on
    // any machine, so the time limit is what stops it.
    command
        .env("RUNNER_COMPILE_TIME_LIMIT_S", "3")
        .env("RUNNER_COMPILE_MEMORY_LIMIT_MB", "65536");
    let (run, _) = run_within(&mut command, common::NEVER);
    assert!(
        run.stdout
            .contains("bomb.cu: the compiler gave up after 3 s: a macro or template"),
        "{}",
        run.all()
    );
    assert!(run.stdout.contains("Does not compile"), "{}", run.all());
}

#[test]
fn a_compile_that_expands_without_end_is_stopped_at_the_memory_limit() {
    let course = TestCourse::new();
    let file = course.path("bomb.cu");
    std::fs::write(&file, macro_bomb()).unwrap();
    let file = file.display().to_string();
    let mut command = course.command(&["check", "02", "--file", &file]);
    command
        // A time limit no machine reaches before 400 MiB, so the memory limit is what stops it.
        .env("RUNNER_COMPILE_TIME_LIMIT_S", "500")
        .env("RUNNER_COMPILE_MEMORY_LIMIT_MB", "400");
    let (run, _) = run_within(&mut command, common::NEVER);
    assert!(
        run.stdout.contains("out of its 400 MiB of memory")
            || run
                .stdout
                .contains("most likely at its memory limit of 400 MiB"),
        "{}",
        run.all()
    );
    assert!(run.stdout.contains("Does not compile"), "{}", run.all());
}

/// A course whose runs all share one cache folder, which the test can damage.
struct CachedCourse {
    course: TestCourse,
    cache: tempfile::TempDir,
}

impl CachedCourse {
    fn new() -> CachedCourse {
        CachedCourse {
            course: TestCourse::new(),
            cache: tempfile::tempdir().unwrap(),
        }
    }

    fn check(&self, args: &[&str]) -> Run {
        let mut command = self.course.command(args);
        command.env("RUNNER_CACHE_DIR", self.cache.path());
        run_within(&mut command, common::NEVER).0
    }

    fn entries(&self) -> Vec<PathBuf> {
        let modules = self.cache.path().join("modules");
        let mut entries: Vec<PathBuf> = std::fs::read_dir(modules)
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        entries.sort();
        entries
    }
}

#[test]
fn a_change_to_an_included_header_is_seen_by_the_next_check() {
    let cached = CachedCourse::new();
    let course = &cached.course;
    course.solve(VECTOR_ADD);
    let file = course.path(&format!("exercises/{VECTOR_ADD}"));
    let solution = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("#include \"settings.cuh\"\n{solution}")).unwrap();
    let header = course.path("exercises/02_vector_add/settings.cuh");
    std::fs::write(&header, "#include \"inner.cuh\"\n").unwrap();
    let inner = course.path("exercises/02_vector_add/inner.cuh");
    std::fs::write(&inner, "// nothing yet\n").unwrap();
    let run = cached.check(&["check", "02"]);
    assert!(run.stdout.contains("Passed"), "{}", run.all());
    assert!(
        cached.check(&["check", "02"]).stdout.contains("Passed"),
        "checked again from the cache"
    );
    // Broken two includes down: the cached module must not answer.
    std::fs::write(&inner, "#error the header is broken\n").unwrap();
    let run = cached.check(&["check", "02"]);
    assert!(run.stdout.contains("the header is broken"), "{}", run.all());
    assert!(!run.stdout.contains("Passed"), "{}", run.all());
    // Mended: passes again.
    std::fs::write(&inner, "#define UNUSED 1\n").unwrap();
    assert!(cached.check(&["check", "02"]).stdout.contains("Passed"));
    // A header that goes missing is noticed too.
    std::fs::remove_file(&inner).unwrap();
    let run = cached.check(&["check", "02"]);
    assert!(run.stdout.contains("inner.cuh"), "{}", run.all());
    assert!(!run.stdout.contains("Passed"), "{}", run.all());
}

#[test]
fn a_damaged_cache_entry_is_compiled_again_with_a_note() {
    let cached = CachedCourse::new();
    cached.course.solve(VECTOR_ADD);
    let run = cached.check(&["check", "02"]);
    assert!(run.stdout.contains("Passed"), "{}", run.all());
    let entries = cached.entries();
    assert!(!entries.is_empty(), "the check filled the cache");
    type Damage = fn(Vec<u8>) -> Vec<u8>;
    let damages: [(&str, Damage); 4] = [
        ("empty", |_| Vec::new()),
        ("truncated", |mut b| {
            b.truncate(b.len() / 2);
            b
        }),
        ("garbage", |_| b"\x7fELF not a module at all".to_vec()),
        ("a changed byte", |mut b| {
            let last = b.len() - 10;
            b[last] ^= 0x20;
            b
        }),
    ];
    for (damage, apply) in damages {
        for entry in &entries {
            let bytes = std::fs::read(entry).unwrap();
            std::fs::write(entry, apply(bytes)).unwrap();
        }
        let run = cached.check(&["check", "02"]);
        assert!(run.stdout.contains("Passed"), "{damage}: {}", run.all());
        assert!(
            run.stderr
                .contains("Note: the compile cache's entry for exercises/02_vector_add/vector_add.cu was damaged"),
            "{damage}: {}",
            run.all()
        );
        let run = cached.check(&["check", "02"]);
        assert!(run.stdout.contains("Passed"), "{damage}: {}", run.all());
        assert!(
            !run.stderr.contains("damaged"),
            "{damage}: mended: {}",
            run.all()
        );
    }
}
