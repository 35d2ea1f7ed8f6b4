//! Every wrong element traced to where it came from (issue 23): for the first wrong elements a
//! check in the simulator names the thread, block and line that stored the value, the instruction
//! and operands behind it, or that no thread stored it, beside the reference solution's store.

mod common;

use common::{repo_root, TestCourse};
use serde_json::Value;

/// `runner check ID --json --file FILE`'s report.
fn check(id: &str, file: &str) -> Value {
    let run = TestCourse::new().run(&["check", id, "--json", "--file", file]);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.all()))
}

/// The first wrong elements of the first failing case.
fn first_wrong(report: &Value) -> &Vec<Value> {
    let mut cases = report["cases"].as_array().unwrap().iter();
    let case = cases
        .find(|c| !c["passed"].as_bool().unwrap())
        .unwrap_or_else(|| panic!("no failing case: {report:#}"));
    case["mismatch"]["first_wrong"].as_array().unwrap()
}

fn fixture(name: &str) -> String {
    TestCourse::fixture(&format!("provenance/{name}"))
}

/// The line of `file` with `marker` (1-based).
fn line_of(file: &str, marker: &str) -> u64 {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines().position(|l| l.contains(marker)).unwrap() as u64 + 1
}

fn place(value: &Value) -> (String, u64) {
    let name = value["name"].as_str().unwrap().to_string();
    (name, value["index"].as_u64().unwrap())
}

#[test]
fn an_index_off_by_one_names_the_thread_line_and_the_element_it_read() {
    let file = fixture("b_shifted.cu");
    let report = check("02", &file);
    let wrong = &first_wrong(&report)[0];
    let origin = &wrong["origin"];
    let index = wrong["index"].as_u64().unwrap();
    let last = &origin["student"]["last"];
    assert_eq!(origin["student"]["count"], 1);
    assert_eq!(last["location"]["line"], line_of(&file, "MISTAKE"));
    assert_eq!(last["thread"][0].as_u64().unwrap() % 256, index % 256);
    let computed = &last["computed_by"];
    assert_eq!(computed["instruction"], "add.f32");
    let operands: Vec<(String, u64)> = computed["operands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| place(&o["loaded_from"]))
        .collect();
    assert!(operands.contains(&("a".into(), index)), "{operands:?}");
    assert!(operands.contains(&("b".into(), index + 1)), "{operands:?}");
    // The solution's thread read b[index] for the same element.
    let theirs = &origin["reference"]["last"]["computed_by"]["operands"];
    let theirs: Vec<(String, u64)> = theirs
        .as_array()
        .unwrap()
        .iter()
        .map(|o| place(&o["loaded_from"]))
        .collect();
    assert!(theirs.contains(&("b".into(), index)), "{theirs:?}");
    assert_eq!(origin["reference"]["last"]["thread"], last["thread"]);
    // The first three wrong elements are traced, the rest only shown.
    let all = first_wrong(&report);
    assert!(all.len() > 3);
    assert!(all[..3].iter().all(|w| w["origin"].is_object()));
    assert!(all[3..].iter().all(|w| w["origin"].is_null()));
}

#[test]
fn a_wrong_formula_shows_its_instruction_beside_the_solutions() {
    let file = fixture("subtracts.cu");
    let run = TestCourse::new().run(&["check", "02", "--file", &file]);
    let text = run.all();
    let line = line_of(&file, "MISTAKE");
    let stored = format!("stored by thread (0, 0, 0) of block (0, 0, 0) at line {line}: ");
    assert!(text.contains(&stored), "{text}");
    assert!(text.contains(" = sub.f32(a[0] = "), "{text}");
    assert!(text.contains("the solution's run: thread (0, 0, 0) of block (0, 0, 0) at line "));
    assert!(text.contains(" = add.f32(a[0] = "), "{text}");
}

#[test]
fn an_element_no_thread_stored_says_so_and_who_stores_it_in_the_solution() {
    let file = fixture("guard_short.cu");
    let report = check("02", &file);
    let wrong = &first_wrong(&report)[0];
    let origin = &wrong["origin"];
    assert_eq!(origin["student"]["count"], 0);
    assert!(origin["student"]["last"].is_null());
    let n = wrong["index"].as_u64().unwrap() + 1;
    let theirs = &origin["reference"]["last"];
    let [block, thread] = ["block", "thread"].map(|k| theirs[k][0].as_u64().unwrap());
    assert_eq!(block * 256 + thread, n - 1);
}

#[test]
fn a_shared_memory_mistake_is_traced_through_the_tile() {
    // The halo slots are zeroed where they should hold the neighbours' elements.
    let file = repo_root().join("checks/mistakes/15/halo_zeroed.cu");
    let report = check("15", &file.display().to_string());
    let origin = &first_wrong(&report)[0]["origin"];
    let operands = &origin["student"]["last"]["computed_by"]["operands"];
    let from_tile = operands
        .as_array()
        .unwrap()
        .iter()
        .any(|o| o["loaded_from"]["space"] == "shared" && o["loaded_from"]["name"] == "tile");
    assert!(from_tile, "{origin:#}");
    assert!(!origin["first_difference"].is_null());
}

/// The Likely line of the first failing case.
fn likely_of(report: &Value) -> String {
    let mut cases = report["cases"].as_array().unwrap().iter();
    let case = cases.find(|c| !c["passed"].as_bool().unwrap()).unwrap();
    case["mismatch"]["likely_cause"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_loop_that_stops_one_step_early_is_followed_to_where_it_parts_from_the_solution() {
    let file = fixture("window_one_short.cu");
    let report = check("15", &file);
    let solution = repo_root().join("solutions/15_stencil/stencil.cu");
    let read_line = line_of(&solution.display().to_string(), "sum += tile[t + offset]");
    for wrong in &first_wrong(&report)[..3] {
        let part = &wrong["origin"]["thread"];
        assert_eq!(part["parting"], "student_stops", "{part:#}");
        // The student's thread read the same tile elements up to its loop's end; the
        // solution's goes on to the next one, at its line.
        let last = &part["student_last"]["place"];
        let next = &part["reference"]["place"];
        assert_eq!(last["name"], "tile");
        assert_eq!(next["name"], "tile");
        assert_eq!(
            next["index"].as_u64(),
            last["index"].as_u64().map(|i| i + 1)
        );
        assert_eq!(part["reference"]["location"]["line"], read_line);
        assert_eq!(
            wrong["origin"]["reference"]["last"]["thread"],
            part["thread"]["thread"]
        );
    }
    // Every followed thread stopped where the solution's went on: the Likely line says so.
    let likely = likely_of(&report);
    assert!(likely.contains("stops too early"), "{likely}");
    assert!(likely.contains("read tile["), "{likely}");
}

#[test]
fn a_shuffle_tree_that_leaves_out_its_last_step_is_named_by_the_lanes_it_read() {
    let file = fixture("shuffles_stop_at_two.cu");
    let report = check("20", &file);
    let line = line_of(&file, "MISTAKE") + 1;
    for wrong in &first_wrong(&report)[..3] {
        let part = &wrong["origin"]["thread"];
        assert_eq!(part["parting"], "student_skips", "{part:#}");
        assert_eq!(part["left_out"], 1);
        // Lane 0 got lane 2's value last, where the solution's goes on to get lane 1's.
        let last = &part["student_last"];
        assert_eq!(last["place"]["space"], "lane");
        assert_eq!(last["place"]["index"], 2);
        assert_eq!(last["location"]["line"], line);
        assert_eq!(part["reference"]["place"]["index"], 1);
    }
    let likely = likely_of(&report);
    assert!(likely.contains("leaves out"), "{likely}");
    assert!(likely.contains("lane 1's value"), "{likely}");
}

#[test]
fn a_wrong_index_is_followed_to_the_first_element_read_differently() {
    let file = fixture("b_shifted.cu");
    let report = check("02", &file);
    let part = &first_wrong(&report)[0]["origin"]["thread"];
    assert_eq!(part["parting"], "place", "{part:#}");
    assert_eq!(part["student"]["place"]["name"], "b");
    let mine = part["student"]["place"]["index"].as_u64().unwrap();
    let theirs = part["reference"]["place"]["index"].as_u64().unwrap();
    assert_eq!(mine, theirs + 1);
    assert_eq!(
        part["student"]["location"]["line"],
        line_of(&file, "MISTAKE")
    );
    // A wrong index is not a loop's end: no Likely line claims one.
    let text = report.to_string();
    assert!(!text.contains("stops too early"), "{text}");
}

/// Whether any of a case's traced wrong elements names where a followed thread parts.
fn parted(case: &Value) -> bool {
    let wrong = case["mismatch"]["first_wrong"].as_array();
    wrong.is_some_and(|w| w.iter().any(|w| w["origin"]["thread"].is_object()))
}

#[test]
fn a_first_case_whose_trace_parts_nowhere_is_followed_by_the_next_failing_case() {
    // Every block counts all the data: with n = 1 each followed thread does what the solution's
    // does (one byte, one atomic); the bug shows in the next case, where threads read
    // different bytes.
    let file = repo_root().join("checks/mistakes/08/block_stride_loop.cu");
    let report = check("08", &file.display().to_string());
    let cases = report["cases"].as_array().unwrap();
    let failing: Vec<&Value> = cases.iter().filter(|c| c["passed"] == false).collect();
    assert_eq!(failing.len(), 2, "{report:#}");
    assert!(!parted(failing[0]), "{report:#}");
    assert!(parted(failing[1]), "{report:#}");
    assert_eq!(report["verdict"], "wrong_output");
}

/// The trip counts of the first traced element's followed thread.
fn trips(report: &Value) -> &Value {
    &first_wrong(report)[0]["origin"]["thread"]["trips"]
}

#[test]
fn a_loop_that_goes_round_once_too_few_is_counted_by_its_tests() {
    // `steps < max_iterations - 1`: a point of the set stops one step short. The only store is
    // the count, after the loop, so only the loop's test tells.
    let file = repo_root().join("checks/mistakes/12/steps_one_short.cu");
    let file = file.display().to_string();
    let report = check("12", &file);
    let trips = trips(&report);
    assert_eq!(trips["counted"], "tests", "{report:#}");
    let (mine, theirs) = (trips["student"].as_u64(), trips["reference"].as_u64());
    assert_eq!(mine.unwrap() + 1, theirs.unwrap(), "{trips:#}");
    let line = line_of(&file, "while (steps");
    assert_eq!(trips["student_loop"]["line"], line, "{trips:#}");
}

#[test]
fn a_loop_the_students_thread_never_enters_is_named() {
    // The sample loop starts at 1: with one sample each, the student's threads never go round
    // it, so they reach no loop test at all, where the solution's go round once.
    let file = repo_root().join("checks/mistakes/09/samples_one_short.cu");
    let file = file.display().to_string();
    let report = check("09", &file);
    let trips = trips(&report);
    assert_eq!(trips["counted"], "tests", "{report:#}");
    assert_eq!(
        (trips["student"].as_u64(), trips["reference"].as_u64()),
        (Some(0), Some(1)),
        "{trips:#}"
    );
    let solution = repo_root().join("solutions/09_monte_carlo_pi/monte_carlo_pi.cu");
    let line = line_of(&solution.display().to_string(), "for (int s = 0");
    assert_eq!(trips["reference_loop"]["line"], line, "{trips:#}");
    let text = TestCourse::new()
        .run(&["check", "09", "--file", &file])
        .stdout;
    assert!(
        text.contains("yours never goes round the loop that the solution's goes round 1 time"),
        "{text}"
    );
}

#[test]
fn a_loop_with_a_wrong_stride_is_counted_by_the_reads_it_makes() {
    // The stride is twice the grid: each thread reads x once where the solution's reads it twice.
    let file = repo_root().join("checks/mistakes/05/stride_twice_grid.cu");
    let file = file.display().to_string();
    let report = check("05", &file);
    let trips = trips(&report);
    assert_eq!(trips["counted"], "steps", "{report:#}");
    assert_eq!(
        (trips["student"].as_u64(), trips["reference"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(trips["student_loop"]["line"], line_of(&file, "for (int i"));
    assert_eq!(trips["student_step"]["place"]["name"], "x");
    let text = TestCourse::new()
        .run(&["check", "05", "--file", &file])
        .stdout;
    assert!(
        text.contains("goes round 1 time in yours and 2 times in the solution's"),
        "{text}"
    );
}

#[test]
fn a_shared_array_read_before_the_block_wrote_it_is_named_with_its_line() {
    // Threads past n store nothing into sums: the tree reads slots no thread of the block wrote.
    let file = repo_root().join("checks/mistakes/19/tail_threads_skip_load.cu");
    let file = file.display().to_string();
    let report = check("19", &file);
    let findings = report["diagnostics"].as_array().unwrap();
    let unwritten = findings
        .iter()
        .find(|f| f["kind"] == "unwritten_shared")
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(unwritten["buffer"], "sums");
    assert_eq!(unwritten["verdict"], "wrong_output");
    let read = line_of(&file, "sums[threadIdx.x] += sums[threadIdx.x + stride]");
    assert_eq!(unwritten["place"]["line"], read, "{unwritten:#}");
    assert_eq!(report["verdict"], "wrong_output");
    // The solution writes every slot it reads (0 past n): it passes, with nothing found.
    let solution = repo_root().join("solutions/19_reduce_sequential/reduce_sequential.cu");
    let passed = check("19", &solution.display().to_string());
    assert_eq!(passed["verdict"], "passed", "{passed:#}");
}

#[test]
fn a_thread_that_returned_before_any_load_is_told_so_beside_the_solutions_first_step() {
    // 23's early `return` before the barrier: thread 255 of the student's run makes no load or
    // store at all, where the solution's reads chunk[0]; the parting line used to end empty.
    let file = repo_root().join("checks/mistakes/23/early_return.cu");
    let run = TestCourse::new().run(&["check", "23", "--file", &file.display().to_string()]);
    let text = run.all();
    assert!(
        text.contains(
            "parts from the solution's at its first load or store:\n            yours makes no \
             load or store; the solution's begins with read chunk[0]"
        ),
        "{text}"
    );
}
