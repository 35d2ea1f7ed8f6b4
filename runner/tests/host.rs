//! Host exercises (25-28): whole programs built and run through the simulator's CUDA driver.
//! Each fixture is a solution with one typical mistake; the check must fail it and name the
//! mistake. (That every solution passes and every pristine program is "not done" is held by
//! `runner dev check`, in tests/cli.rs.)

mod common;

use common::{Run, TestCourse};
use serde_json::Value;

fn check(course: &TestCourse, id: &str, fixture: &str) -> Value {
    let path = common::repo_root()
        .join("runner/tests/fixtures/host")
        .join(fixture);
    let run = course.run(&["check", id, "--json", "--file", path.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{fixture} must fail: {}", run.all());
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.all()))
}

/// Every sentence the report says about the program: case problems, mistakes, missed targets.
fn said(report: &Value) -> String {
    let mut text: Vec<String> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["problem"].as_str().map(String::from))
        .collect();
    text.extend(
        report["mistakes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string()),
    );
    for target in report["targets"].as_array().unwrap() {
        if target["met"] == false {
            text.push(format!(
                "missed: {} (got {})",
                target["name"], target["got"]
            ));
        }
    }
    text.join("\n")
}

#[test]
fn each_typical_host_mistake_fails_and_is_named() {
    let course = TestCourse::new();
    let cases = [
        (
            "25",
            "25_launch_error_unchecked.rs",
            "wrong_output",
            "the launch of saxpy with a grid of 1 block of 2048 threads was refused: \
             CUDA_ERROR_INVALID_VALUE; a block has at most 1024 threads, and this one asks for \
             2048: launch more blocks of fewer threads (256 is usual), and the program went on",
        ),
        (
            "25",
            "25_cpu_only.rs",
            "missing_kernel",
            "never launched saxpy",
        ),
        (
            "25",
            "25_leak.rs",
            "targets_missed",
            "1048576 bytes of device memory were still allocated",
        ),
        (
            "26",
            "26_download_in_loop.rs",
            "targets_missed",
            "missed: \"copies back to the host in one run\"",
        ),
        (
            "27",
            "27_pageable.rs",
            "targets_missed",
            "asynchronous copies used pageable host memory",
        ),
        (
            "27",
            "27_one_stream.rs",
            "targets_missed",
            "missed: \"copy time overlapped by other work (largest case)\"",
        ),
        (
            "27",
            "27_alloc_in_loop.rs",
            "targets_missed",
            "allocations were made while copies or kernels were still queued",
        ),
        (
            "25",
            "25_read_before_sync.rs",
            "wrong_output",
            "an asynchronous copy back to the host was never waited for",
        ),
        (
            "py02",
            "py02_read_before_sync.py",
            "wrong_output",
            "y was handed back while",
        ),
        (
            "25",
            "25_memory_hog.rs",
            "crashed",
            "the program ran out of memory",
        ),
        (
            "py09",
            "py09_grid_rounded_down.py",
            // n = 1 makes a grid of no blocks, which the driver refuses: the first case crashes.
            "crashed",
            "the last 232 were never computed",
        ),
        (
            "28",
            "28_not_jumped.rs",
            "wrong_output",
            "every thread drew the same numbers",
        ),
        (
            "28",
            "28_states_reuploaded.rs",
            "wrong_output",
            "the second batch repeats the first",
        ),
        (
            "py02",
            "py02_numpy_each_launch.py",
            "targets_missed",
            "missed: \"copies to the device in one run\"",
        ),
        (
            "py01",
            "py01_cpu_ufunc.py",
            "missing_kernel",
            "the program never launched scaled_hypot",
        ),
        (
            "py03",
            "py03_no_loop.py",
            "wrong_output",
            "the first 4096 elements are right and none after them",
        ),
        (
            "py04",
            "py04_plain_increment.py",
            "race",
            // The line comes from Numba's line information, which the course turns on.
            "py04_plain_increment.py:30: race on global memory",
        ),
        ("py05", "py05_one_state.py", "race", "race on global memory"),
        (
            "py06",
            "py06_rows_short.py",
            "wrong_output",
            "rows 32 and after are wrong",
        ),
        (
            "py07",
            "py07_no_syncthreads.py",
            "race",
            "py07_no_syncthreads.py:39: race on shared memory",
        ),
        (
            "py08",
            "py08_unpadded_tile.py",
            "targets_missed",
            "18880, most on line 58 of py08_unpadded_tile.py (18880 bank conflicts)",
        ),
        (
            "py08",
            "py08_strided_writes.py",
            "targets_missed",
            "most on line 40 of py08_strided_writes.py (16.0 sectors per request)",
        ),
        (
            "py10",
            "py10_counts_start.py",
            "wrong_output",
            "every count is too high by 1",
        ),
        (
            "py11",
            "py11_weights_in_global.py",
            "targets_missed",
            "missed: \"global load sectors, largest case (simulator)\" (got \"18121, most on \
             line 36 of py11_weights_in_global.py (14996 sectors)\")",
        ),
        (
            "py11",
            "py11_unsorted.py",
            "wrong_output",
            "the window was weighted in the order it was read",
        ),
        (
            "py12",
            "py12_naive.py",
            "targets_missed",
            "56638, most on line 43 of py12_naive.py (48500 sectors)",
        ),
        (
            "py12",
            "py12_no_second_barrier.py",
            "race",
            "py12_no_second_barrier.py:37: race on shared memory",
        ),
        (
            "py13",
            "py13_interleaved.py",
            "targets_missed",
            "most on line 40 of py13_interleaved.py (13440 bank conflicts)",
        ),
        (
            "py13",
            "py13_no_barrier.py",
            "race",
            "py13_no_barrier.py:38: race on shared memory",
        ),
        (
            "py13",
            "py13_plain_add.py",
            "race",
            // The array by the kernel's parameter name (Numba passes it as seven PTX parameters).
            "py13_plain_add.py:43: race on global memory: thread (0,0,0) of block (1,0,0) writes \
             element 0 of `total` at line 43",
        ),
        (
            "py14",
            "py14_no_first_barrier.py",
            "race",
            "py14_no_first_barrier.py:35: race on shared memory",
        ),
        (
            "py14",
            "py14_no_guard.py",
            "wrong_output",
            "199 of 200 elements of out are wrong",
        ),
        (
            "py14",
            "py14_no_offsets.py",
            "wrong_output",
            "the totals of the blocks before it were not added",
        ),
        (
            "py15",
            "py15_global_window.py",
            "targets_missed",
            "24056, most on line 40 of py15_global_window.py (21244 sectors)",
        ),
        (
            "py15",
            "py15_no_halo.py",
            "wrong_output",
            "only elements within 3 of a block's edge are wrong",
        ),
        (
            "py15",
            "py15_no_barrier.py",
            "race",
            "py15_no_barrier.py:37: race on shared memory",
        ),
        (
            "py16",
            "py16_pageable.py",
            "targets_missed",
            "asynchronous copies used pageable host memory (a NumPy array)",
        ),
        (
            "py16",
            "py16_one_stream.py",
            "targets_missed",
            "missed: \"copy time overlapped by other work (largest case)\" (got \"0%\")",
        ),
        (
            "py16",
            "py16_no_events.py",
            "targets_missed",
            "missed: \"times measured with a pair of events\" (got \"0\")",
        ),
    ];
    for (id, fixture, verdict, phrase) in cases {
        let report = check(&course, id, fixture);
        assert_eq!(report["verdict"], verdict, "{fixture}: {report:#}");
        let said = said(&report);
        assert!(
            said.contains(phrase),
            "{fixture} should say {phrase:?}; it says:\n{said}"
        );
    }
}

#[test]
fn a_numba_kernel_that_does_not_compile_is_shown_at_its_line() {
    let course = TestCourse::new();
    let report = check(&course, "py03", "py03_undefined_name.py");
    assert_eq!(report["verdict"], "crashed", "{report:#}");
    let output = report["cases"][0]["output"].as_str().unwrap_or_default();
    // Numba's own message names no line; its traceback ends in its compiler.
    assert!(
        output.contains("Numba could not compile the kernel at ")
            && output.contains("py03_undefined_name.py, line 23: out[i] = math.hypot(x[i], y[j])"),
        "{output}"
    );
    assert!(
        output.contains("NameError: name 'j' is not defined"),
        "{output}"
    );
}

#[test]
fn a_plain_python_function_called_from_a_kernel_is_shown_at_the_call() {
    let course = TestCourse::new();
    let report = check(&course, "py10", "py10_no_device_flag.py");
    assert_eq!(report["verdict"], "crashed", "{report:#}");
    let output = report["cases"][0]["output"].as_str().unwrap_or_default();
    assert!(
        output.contains("py10_no_device_flag.py, line 44: steps[i] = collatz_steps(x[i])")
            && output.contains("Untyped global name 'collatz_steps'"),
        "{output}"
    );
}

#[test]
fn a_host_program_that_does_not_compile_shows_the_compiler_at_the_students_file() {
    let course = TestCourse::new();
    let main = course.path("exercises/25_first_program/src/main.rs");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, text.replace("let n = x.len();", "let n = x.len()")).unwrap();
    let run = course.run(&["check", "25"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stdout
            .contains("exercises/25_first_program/src/main.rs:"),
        "{}",
        run.all()
    );
    assert!(run.stdout.contains("does not compile"), "{}", run.all());
}

#[test]
fn a_passing_host_program_shows_its_copies_and_timeline_and_counts_as_done() {
    let course = TestCourse::new();
    let solution =
        std::fs::read_to_string(course.path("solutions/26_device_arrays/src/main.rs")).unwrap();
    std::fs::write(
        course.path("exercises/26_device_arrays/src/main.rs"),
        solution,
    )
    .unwrap();
    let run = course.run(&["check", "26"]);
    assert_eq!(run.code, 0, "{}", run.all());
    for shown in [
        "to the device: 1 transfer",
        "back to the host: 1 transfer",
        "timeline (modelled",
        "PASSED",
    ] {
        assert!(
            run.stdout.contains(shown),
            "{shown:?} missing:\n{}",
            run.all()
        );
    }
    let list = course.run(&["list"]);
    // The id column is padded to the widest id (a pyNN one).
    let row = list
        .stdout
        .lines()
        .find(|l| l.starts_with("26 "))
        .unwrap_or_default();
    assert!(
        row.split_whitespace().nth(1) == Some("done"),
        "{}",
        list.all()
    );
}

/// Whether process `pid` is running: there, and not a zombie waiting for whoever adopted it to
/// reap it.
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat.rsplit_once(") ")?.1.chars().next()?;
            Some(state != 'Z' && state != 'X')
        })
        .unwrap_or(false)
}

#[test]
fn ctrl_c_during_a_check_ends_the_students_program_too() {
    use std::os::unix::process::CommandExt;
    let course = TestCourse::new();
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    // A program that hangs, after saying who it is.
    let program = dir.path().join("hang.py");
    std::fs::write(
        &program,
        format!(
            "import os, time\nopen({:?}, 'w').write(str(os.getpid()))\ntime.sleep(300)\n",
            pid_file.display().to_string()
        ),
    )
    .unwrap();
    let mut command = course.command(&["check", "py01", "--file", program.to_str().unwrap()]);
    // The runner leads a group, as a terminal's foreground job does; Ctrl-C goes to the group.
    // SIGINT as a terminal leaves it, even where this test was started with it ignored.
    command
        .process_group(0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: signal() is async-signal-safe; it runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut runner = command.spawn().unwrap();
    let started = std::time::Instant::now();
    let pid: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            break pid;
        }
        assert!(
            started.elapsed() < common::NEVER,
            "the program never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // SAFETY: signals sent to processes this test started.
    unsafe { libc::killpg(runner.id() as i32, libc::SIGINT) };
    let _ = runner.wait();
    let gone = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        !running(pid)
    });
    if !gone {
        // SAFETY: as above; the test cleans up after a failure.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(gone, "the student's program {pid} outlived the runner");
}

#[test]
fn what_a_program_started_in_the_background_ends_with_its_case() {
    let course = TestCourse::new();
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    // Three children that would sleep for five minutes; the program itself ends at once.
    let program = dir.path().join("background.py");
    std::fs::write(
        &program,
        format!(
            "import os, time\n\
             for _ in range(3):\n\
             \x20   pid = os.fork()\n\
             \x20   if pid == 0:\n\
             \x20       time.sleep(300)\n\
             \x20       os._exit(0)\n\
             \x20   open({:?}, 'a').write(f'{{pid}}\\n')\n",
            pids.display().to_string()
        ),
    )
    .unwrap();
    let run = course.run(&["check", "py01", "--file", program.to_str().unwrap()]);
    let started: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap_or_else(|e| panic!("the program ran no case ({e}): {}", run.all()))
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert!(!started.is_empty());
    let mut alive: Vec<i32> = started.clone();
    for _ in 0..100 {
        alive.retain(|&pid| running(pid));
        if alive.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for &pid in &alive {
        // SAFETY: processes this test's program started; cleaned up after a failure.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(alive.is_empty(), "still running after the check: {alive:?}");
}

/// py01's solution with `lines` put after it reads its inputs (`x` and `y`), in the course's
/// exercise file; the report of checking it.
fn check_py01_with(course: &TestCourse, lines: &str) -> Value {
    let file = "py01_ufunc/ufunc.py";
    let solution = std::fs::read_to_string(course.path(&format!("solutions/{file}"))).unwrap();
    let read = "y = task.read(\"y\")\n";
    assert!(
        solution.contains(read),
        "py01's solution no longer has {read:?}"
    );
    let program = solution.replacen(read, &format!("{read}{lines}"), 1);
    std::fs::write(course.path(&format!("exercises/{file}")), program).unwrap();
    let run = course.run(&["check", "py01", "--json"]);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.all()))
}

#[test]
fn a_python_checks_cases_run_in_one_process() {
    let course = TestCourse::new();
    let pids = course.path("pids.txt");
    let report = check_py01_with(
        &course,
        &format!(
            "import os\nopen({:?}, 'a').write(f'{{os.getpid()}}\\n')\n",
            pids.display().to_string()
        ),
    );
    assert_eq!(report["verdict"], "passed", "{report}");
    let pids = std::fs::read_to_string(pids).unwrap();
    let pids: Vec<&str> = pids.lines().collect();
    assert_eq!(pids.len(), 2, "{pids:?}");
    assert_eq!(pids[0], pids[1], "each case ran in a process of its own");
}

#[test]
fn a_case_that_ends_the_interpreter_is_named_and_the_others_judged() {
    let course = TestCourse::new();
    // The first case (n = 1) ends the interpreter with no word; the second passes.
    let report = check_py01_with(&course, "import os\nif x.size == 1:\n    os._exit(3)\n");
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2, "{report}");
    assert_eq!(cases[0]["name"], "n = 1", "{report}");
    let problem = cases[0]["problem"].as_str().unwrap_or_default();
    assert!(problem.contains("exit code 3"), "{report}");
    assert_eq!(cases[1]["passed"], true, "{report}");
}

/// A case's folder as hostkit reads it: `n` and an input x of 0, 1, ..., n - 1.
fn case_folder(folder: &std::path::Path, n: usize) {
    std::fs::create_dir_all(folder).unwrap();
    std::fs::write(folder.join("params.txt"), format!("n = {n}\n")).unwrap();
    let x: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    std::fs::write(folder.join("x.f32"), x).unwrap();
}

/// What a case's record says of the program's own work: the calls made once per process
/// (cuInit, cuGetProcAddress's lookups, the context's creation, cuda.core's probe before it)
/// and Numba's count of the functions it compiled in the process (in its mangled names) left out.
fn own_work(mut record: Value) -> Value {
    let calls = record["calls"].as_object().unwrap();
    let own: serde_json::Map<String, Value> = calls
        .iter()
        .filter(|(call, _)| {
            ["cuMemcpy", "cuLaunch", "cuStream", "cuMemAlloc"]
                .iter()
                .any(|p| call.starts_with(p))
        })
        .map(|(call, count)| (call.clone(), count.clone()))
        .collect();
    record["calls"] = own.into();
    record["not_found"] = Value::Null;
    let failures = record["failures"].as_array_mut().unwrap();
    failures.retain(|f| f["call"] != "cuCtxGetDevice");
    for launch in record["launches"].as_array_mut().unwrap() {
        let kernel = launch["kernel"].as_str().unwrap();
        assert!(kernel.contains("6double"), "{kernel}");
        launch["kernel"] = "double".into();
    }
    record
}

#[test]
fn each_case_run_in_one_process_has_the_record_it_has_run_alone() {
    let course = TestCourse::new();
    let dir = tempfile::tempdir().unwrap();
    let program =
        common::repo_root().join("runner/tests/fixtures/cuda_python/cases_in_one_process.py");
    let program = program.to_str().unwrap();
    let site = course.path("hostkit/python");
    let sizes = [1, 1000];
    let together: Vec<_> = (0..sizes.len())
        .map(|i| dir.path().join(format!("together{i}")))
        .collect();
    for (folder, n) in together.iter().zip(sizes) {
        case_folder(folder, n);
    }
    let mut args = vec![
        "run",
        "--",
        "python",
        "-c",
        "import hostkit_cases; hostkit_cases.main()",
        program,
    ];
    args.extend(together.iter().map(|f| f.to_str().unwrap()));
    let run = Run::from(
        course
            .command(&args)
            .env("PYTHONPATH", &site)
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, 0, "{}", run.all());
    for (i, n) in sizes.into_iter().enumerate() {
        let alone = dir.path().join(format!("alone{i}"));
        case_folder(&alone, n);
        let run = course
            .command(&["run", "--json", "--", "python", program])
            .env("PYTHONPATH", &site)
            .env("HOSTKIT_CASE", &alone)
            .output()
            .unwrap();
        let run = Run::from(run);
        assert_eq!(run.code, 0, "{}", run.all());
        let alone: Value = serde_json::from_str(&run.stdout).unwrap();
        let text = std::fs::read_to_string(together[i].join("record.json"))
            .unwrap_or_else(|e| panic!("case {i} left no record ({e}): {}", run.all()));
        let shared: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            std::fs::read_to_string(together[i].join("exit.txt")).unwrap(),
            "0"
        );
        assert_eq!(own_work(shared), own_work(alone), "case {i} (n = {n})");
    }
}
