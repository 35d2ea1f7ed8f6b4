//! The runner's verbs and messages, end to end through the simulator on a copy of the course.

mod common;

use common::TestCourse;

#[test]
fn list_shows_every_exercise_pending_at_the_start() {
    let course = TestCourse::new();
    let run = course.run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("01 ")
                && l.contains(" pending  Each thread writes its global index")),
        "{}",
        run.stdout
    );
    let total = exercise_count();
    assert!(run
        .stdout
        .contains(&format!("Progress: 0/{total} exercises done.")));
    let json: serde_json::Value =
        serde_json::from_str(&course.run(&["list", "--json"]).stdout).unwrap();
    assert_eq!(json["total"], total);
    assert_eq!(json["exercises"][1]["id"], "02");
}

#[test]
fn pristine_exercise_is_not_done_and_progress_is_untouched() {
    let course = TestCourse::new();
    let run = course.run(&["check", "01"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(run.stdout.contains("Not done yet."), "{}", run.stdout);
    assert!(
        run.stdout.contains("the kernel wrote nothing to `out`"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains(&format!("Progress: 0/{}", exercise_count())));
}

#[test]
fn solved_exercise_passes_shows_figures_and_is_marked_done() {
    let course = TestCourse::new();
    course.solve("02_vector_add/vector_add.cu");
    let run = course.run(&["check", "2"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains("✓ n = 1000 (not a multiple of 256)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Passed."));
    // Vector add reads and writes floats in order: 4 sectors per request.
    assert!(run.stdout.contains("4.0 sectors/request"), "{}", run.stdout);
    assert!(run
        .stdout
        .contains(&format!("Progress: 1/{}", exercise_count())));
    // The id column is as wide as the widest id (a pyNN one).
    let list = course.run(&["list"]).stdout;
    assert!(
        list.lines()
            .any(|l| l.starts_with("02 ") && l.contains(" done ")),
        "{list}"
    );
}

#[test]
fn json_report_has_verdict_cases_and_simulator_figures() {
    let course = TestCourse::new();
    course.solve("03_ufunc/ufunc.cu");
    let run = course.run(&["check", "03", "--json"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["verdict"], "passed");
    assert_eq!(report["schema_version"], 3);
    assert_eq!(report["kind"], "kernel");
    assert_eq!(report["cases"][0]["verdict"], "passed");
    assert_eq!(report["backend"], "sim");
    assert!(report["cases"].as_array().unwrap().len() >= 4);
    assert_eq!(
        report["sim"]["kernel"]["global_load_requests"],
        report["sim"]["kernel"]["global_store_requests"]
    );
}

#[test]
fn json_to_writes_the_report_to_its_file_and_leaves_stdout_to_what_was_printed() {
    let course = TestCourse::new();
    course.solve("01_thread_index/thread_index.cu");
    let path = course.path("reports/01.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let run = course.run(&["check", "01", "--json-to", path.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(run.stdout, "", "the report is in its file, not on stdout");
    let report: runner::report::Report =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let runner::report::Report::Kernel(report) = report else {
        panic!("exercise 01's report is a kernel's")
    };
    assert_eq!(report.verdict, runner::report::Verdict::Passed);

    let nowhere = course.path("no_such_folder/01.json");
    let run = course.run(&["check", "01", "--json-to", nowhere.to_str().unwrap()]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("cannot write the report to") && run.stderr.contains("no_such_folder"),
        "{}",
        run.all()
    );
    let both = course.run(&["check", "01", "--json", "--json-to", path.to_str().unwrap()]);
    assert_eq!(both.code, 2, "{}", both.all());
}

#[test]
fn compile_error_is_shown_against_the_students_file_and_line() {
    let course = TestCourse::new();
    let file = TestCourse::fixture("vector_add_compile_error.cu");
    let run = course.run(&["check", "02", "--file", &file]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stdout
            .contains("vector_add_compile_error.cu:5: error: identifier \"idx\" is undefined"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("c[idx] = a[i] + b[i];"));
    assert!(run.stdout.contains("Does not compile."));
}

#[test]
fn misnamed_entry_point_names_the_expected_kernel() {
    let course = TestCourse::new();
    let run = course.run(&[
        "check",
        "02",
        "--file",
        &TestCourse::fixture("vector_add_misnamed.cu"),
    ]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stdout.contains("launches a kernel called `vector_add`"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("defines only `vectorAdd`"),
        "{}",
        run.stdout
    );
}

#[test]
fn missing_bounds_guard_is_reported_as_out_of_bounds_with_its_line() {
    let course = TestCourse::new();
    for fixture in ["vector_add_no_guard.cu", "vector_add_off_by_one.cu"] {
        let run = course.run(&["check", "02", "--file", &TestCourse::fixture(fixture)]);
        assert_eq!(run.code, 1, "{}", run.all());
        assert!(
            run.stdout.contains("Out of bounds"),
            "{fixture}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains(&format!("{fixture}:5")),
            "{fixture}: {}",
            run.stdout
        );
    }
}

#[test]
fn kernel_that_never_ends_is_stopped_and_the_runner_stays_usable() {
    let course = TestCourse::new();
    let run = course.run(&[
        "check",
        "02",
        "--file",
        &TestCourse::fixture("vector_add_hang.cu"),
    ]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stdout
            .contains("Hang: the kernel was still running after 2.0 s"),
        "{}",
        run.stdout
    );
    course.solve("01_thread_index/thread_index.cu");
    assert_eq!(course.run(&["check", "01"]).code, 0);
}

#[test]
fn forgotten_block_index_is_named_as_the_likely_mistake() {
    let course = TestCourse::new();
    let run = course.run(&[
        "check",
        "02",
        "--file",
        &TestCourse::fixture("vector_add_first_block_only.cu"),
    ]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stdout
            .contains("add the threads of the blocks before, blockIdx.x * blockDim.x"),
        "{}",
        run.stdout
    );
}

#[test]
fn bad_sizes_are_refused_before_anything_runs() {
    let course = TestCourse::new();
    for size in ["0", "3000000000", "ten"] {
        let run = course.run(&["check", "24", "--sizes", size]);
        assert_eq!(run.code, 2, "{size}: {}", run.all());
        assert!(run.stderr.contains("--sizes"), "{size}: {}", run.stderr);
        assert!(!run.all().contains("panicked"), "{size}: {}", run.all());
    }
}

#[test]
fn out_of_bounds_names_the_array_and_suggests_the_guard() {
    let course = TestCourse::new();
    let no_guard = TestCourse::fixture("vector_add_no_guard.cu");
    let run = course.run(&["check", "02", "--json", "--file", &no_guard]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["verdict"], "out_of_bounds");
    let error = report["cases"][0]["error"].as_str().unwrap();
    assert!(error.contains("past the end of `a`"), "{error}");
    assert!(error.contains("if (i < n)"), "{error}");
    // The same facts as fields, for a reader that has no business parsing the sentence: case
    // n = 1 has one element, and thread 1 is the first past it.
    let finding = &report["cases"][0]["finding"];
    assert_eq!(finding["verdict"], "out_of_bounds", "{finding}");
    assert_eq!(finding["buffer"], "a", "{finding}");
    assert_eq!(finding["element"], 1, "{finding}");
    assert_eq!(finding["place"]["line"], 5, "{finding}");
    assert_eq!(finding["place"]["file"], no_guard.as_str(), "{finding}");
    assert_eq!(finding["thread"], serde_json::json!([1, 0, 0]), "{finding}");
}

#[test]
fn a_missing_extern_c_is_explained_as_a_renamed_kernel() {
    let course = TestCourse::new();
    let solution = std::fs::read_to_string(course.path("solutions/02_vector_add/vector_add.cu"))
        .unwrap()
        .replace("extern \"C\" ", "");
    let file = course.path("no_extern_c.cu");
    std::fs::write(&file, solution).unwrap();
    let run = course.run(&["check", "02", "--json", "--file", file.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["verdict"], "missing_kernel");
    let summary = report["summary"].as_str().unwrap();
    assert!(summary.contains("C++ renames it"), "{summary}");
}

#[test]
fn untouched_find_the_bug_exercises_are_not_done() {
    let course = TestCourse::new();
    for id in ["06", "22", "23"] {
        let run = course.run(&["check", id, "--json"]);
        let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(report["verdict"], "not_done", "{id}: {}", run.stdout);
        assert_eq!(run.code, 1);
    }
}

#[test]
fn a_file_that_cannot_be_read_still_gets_a_json_answer() {
    let course = TestCourse::new();
    let missing = course.path("no_such_file.cu");
    let run = course.run(&["check", "02", "--json", "--file", missing.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.all());
    let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(answer["schema_version"], 3);
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("no_such_file.cu"),
        "{answer}"
    );
}

#[test]
fn output_to_a_closed_pipe_ends_quietly() {
    let course = TestCourse::new();
    let mut command = course.command(&["list"]);
    command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    // The reader goes away before the runner writes a line, as `runner list | head -0` does.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(output.status.code(), Some(101), "{stderr}");
}

#[test]
fn unknown_exercise_lists_the_known_ones() {
    let course = TestCourse::new();
    let run = course.run(&["check", "42"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("there is no exercise \"42\"; the exercises are 01, 02, 03, 04"),
        "{}",
        run.stderr
    );
}

#[test]
fn broken_metadata_names_the_file_and_line() {
    let course = TestCourse::new();
    let path = course.path("exercises/exercises.toml");
    let original = std::fs::read_to_string(&path).unwrap();
    let broken_line = original
        .lines()
        .position(|l| l == "points = 10")
        .expect("an exercise worth 10 points")
        + 1;
    std::fs::write(&path, original.replacen("points = 10", "points = ten", 1)).unwrap();
    let run = course.run(&["list"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("exercises/exercises.toml"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("line {broken_line}")),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"));
}

#[test]
fn missing_nvrtc_says_how_to_install_it() {
    let course = TestCourse::new();
    let run = course
        .command(&["check", "01"])
        .env("RUNNER_NVRTC", "/nonexistent/libnvrtc.so")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr.contains("NVRTC (the CUDA run-time compiler) was not found"),
        "{stderr}"
    );
    assert!(stderr.contains("scripts/install-nvrtc"), "{stderr}");
}

#[test]
fn asking_for_a_gpu_where_there_is_none_says_so() {
    if std::path::Path::new("/dev/nvidia0").exists() {
        return; // this machine has a GPU: the behaviour under test cannot happen here
    }
    let course = TestCourse::new();
    let run = course.run(&["check", "01", "--backend", "gpu"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no GPU can be used"), "{}", run.stderr);
    assert!(run.stderr.contains("--backend sim"), "{}", run.stderr);
}

#[test]
fn bench_without_a_gpu_says_it_needs_one() {
    if std::path::Path::new("/dev/nvidia0").exists() {
        return; // this machine has a GPU: the behaviour under test cannot happen here
    }
    let course = TestCourse::new();
    let run = course.run(&["bench", "02"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("`runner bench` times kernels on a GPU"),
        "{}",
        run.stderr
    );
}

#[test]
fn bench_with_a_file_wants_the_one_exercise_it_solves() {
    let course = TestCourse::new();
    let run = course.run(&["bench", "02", "03", "--file", "mine.cu"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--file needs exactly one exercise id"),
        "{}",
        run.stderr
    );
}

#[test]
fn hints_come_one_more_at_a_time() {
    let course = TestCourse::new();
    let first = course.run(&["hint", "02"]).stdout;
    assert!(
        first.contains("Hint 1 of 3") && !first.contains("Hint 2 of 3"),
        "{first}"
    );
    let second = course.run(&["hint", "02"]).stdout;
    assert!(second.contains("Hint 2 of 3"), "{second}");
    course.run(&["hint", "02"]);
    let after_last = course.run(&["hint", "02"]).stdout;
    assert!(
        after_last.contains("That was the last hint"),
        "{after_last}"
    );
}

#[test]
fn reset_restores_the_original_and_keeps_a_backup() {
    let course = TestCourse::new();
    let file = course.path("exercises/02_vector_add/vector_add.cu");
    let original = std::fs::read_to_string(&file).unwrap();
    course.run(&["list"]);
    course.run(&["check", "02"]); // the first run keeps the originals
    std::fs::write(&file, "my work in progress\n").unwrap();
    let run = course.run(&["reset", "02"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    let backups = course.path(".runner/backups");
    let kept: Vec<_> = walk(&backups)
        .into_iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert_eq!(kept, vec!["my work in progress\n".to_string()]);
}

/// The Python track's exercises are scripts, not kernels: the verbs work on them by their pyNN id.
#[test]
fn hints_list_and_reset_work_on_a_python_exercise() {
    let course = TestCourse::new();
    let first = course.run(&["hint", "py03"]);
    assert_eq!(first.code, 0, "{}", first.all());
    assert!(
        first.stdout.contains("Hint 1 of 2") && first.stdout.contains("cuda.gridsize(1)"),
        "{}",
        first.all()
    );
    assert!(course.run(&["hint", "py03"]).stdout.contains("Hint 2 of 2"));
    let after_last = course.run(&["hint", "py03"]).stdout;
    assert!(
        after_last.contains("That was the last hint"),
        "{after_last}"
    );

    let script = "exercises/py03_grid_stride/grid_stride.py";
    let list = course.run(&["list"]);
    let row = |stdout: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with("py03 "))
            .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
    };
    assert_eq!(
        row(&list.stdout).as_deref(),
        Some("py03 pending"),
        "{}",
        list.all()
    );
    assert!(list.stdout.contains(script), "{}", list.all());

    let file = course.path(script);
    let original = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, "my work in progress\n").unwrap();
    let run = course.run(&["reset", "py03"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);

    let solution = course.path("solutions/py03_grid_stride/grid_stride.py");
    std::fs::copy(solution, &file).unwrap();
    let check = course.run(&["check", "py03"]);
    assert_eq!(check.code, 0, "{}", check.all());
    let list = course.run(&["list"]);
    assert_eq!(
        row(&list.stdout).as_deref(),
        Some("py03 done"),
        "{}",
        list.all()
    );
}

#[test]
fn damaged_progress_file_is_kept_aside_not_lost() {
    let course = TestCourse::new();
    std::fs::create_dir_all(course.path(".runner")).unwrap();
    std::fs::write(course.path(".runner/progress.json"), "{ half written").unwrap();
    let run = course.run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stderr.contains("was damaged"), "{}", run.stderr);
    let kept = walk(&course.path(".runner"))
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("damaged"))
        .count();
    assert_eq!(kept, 1);
}

#[test]
fn dev_check_passes_on_the_course() {
    let course = TestCourse::new();
    let run = course.run(&["dev", "check"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stdout.contains("Every exercise is complete."));
}

#[test]
fn dev_check_catches_a_solution_that_rewrites_lines() {
    let course = TestCourse::new();
    let path = course.path("solutions/01_thread_index/thread_index.cu");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("// Exercise 01: your first kernel.", "// Changed.");
    std::fs::write(&path, text).unwrap();
    let run = course.run(&["dev", "check", "01"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stdout.contains("the solution must only add lines"),
        "{}",
        run.stdout
    );
}

#[test]
fn dev_check_holds_tuned_references_to_every_case_under_their_own_launch() {
    let course = TestCourse::new();
    let run = course.run(&["dev", "check", "02"]);
    assert!(
        run.stdout
            .contains("02 Vector add with a bounds guard (and its tuned reference)"),
        "{}",
        run.stdout
    );
    // A tuned vector add that forgets the last n % 4 elements fails on n = 769.
    let path = course.path("solutions/tuned/vector_add.cu");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("if (blockIdx.x == 0 && i < n)", "if (false)");
    std::fs::write(&path, text).unwrap();
    let run = course.run(&["dev", "check", "02"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stdout
            .contains("the tuned reference solutions/tuned/vector_add.cu does not pass"),
        "{}",
        run.stdout
    );
}

#[test]
fn dev_check_of_named_exercises_checks_only_those_and_refuses_an_unknown_id() {
    let course = TestCourse::new();
    let run = course.run(&["dev", "check", "01", "py01"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains("Checking 2 exercises"),
        "{}",
        run.stdout
    );
    let run = course.run(&["dev", "check", "99"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.stderr.contains("there is no exercise \"99\""),
        "{}",
        run.all()
    );
}

#[test]
fn dev_check_names_a_tuned_reference_that_is_missing() {
    let course = TestCourse::new();
    std::fs::remove_file(course.path("solutions/tuned/softmax.cu")).unwrap();
    let run = course.run(&["dev", "check", "24"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stdout
            .contains("the tuned reference solutions/tuned/softmax.cu could not be checked"),
        "{}",
        run.stdout
    );
}

/// How many exercises the course's metadata lists.
fn exercise_count() -> usize {
    let metadata =
        std::fs::read_to_string(common::repo_root().join("exercises/exercises.toml")).unwrap();
    metadata.matches("[[exercise]]").count()
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn sizes_on_a_whole_program_say_they_apply_to_kernels_only() {
    let course = TestCourse::new();
    // A missing --program stops the check before anything is built; the note comes first.
    let run = course.run(&[
        "check",
        "25",
        "--sizes",
        "100",
        "--program",
        "no-such-program",
    ]);
    assert!(
        run.stderr
            .contains("--sizes adds problem sizes to a kernel exercise's cases"),
        "{}",
        run.all()
    );
}
