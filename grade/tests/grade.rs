//! `runner grade` end to end through the simulator: a fixture class with every kind of
//! submission (right, wrong, not compiling, out of bounds, hanging, racy, memory-hungry, hostile
//! archives and folders, missing files) gets the right grade and message in every format; the
//! wall-time limit, Ctrl-C, resume, shards and merge, similarity, the Gradescope autograder and
//! the Slurm scripts each do what they say. Archives are built here, at run time.

#[path = "../../runner/tests/common/mod.rs"]
mod common;

use common::{repo_root, TestCourse};
use flate2::write::GzEncoder;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn solution(file: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("solutions").join(file)).unwrap()
}

fn exercise(file: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("exercises").join(file)).unwrap()
}

/// A fixture: the grader's own (`grading/...`) or one the runner's tests share.
fn fixture(name: &str) -> Vec<u8> {
    let own = repo_root().join("grade/tests/fixtures").join(name);
    let shared = repo_root().join("runner/tests/fixtures").join(name);
    std::fs::read(if own.exists() { own } else { shared }).unwrap()
}

fn put(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

const K01: &str = "01_thread_index/thread_index.cu";
const K02: &str = "02_vector_add/vector_add.cu";

enum Entry<'a> {
    File(&'a str, Vec<u8>),
    Link(&'a str, &'a str),
}

fn zip_archive(path: &Path, entries: &[Entry]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for entry in entries {
        match entry {
            Entry::File(name, bytes) => {
                zip.start_file(*name, options).unwrap();
                zip.write_all(bytes).unwrap();
            }
            Entry::Link(name, target) => zip.add_symlink(*name, *target, options).unwrap(),
        }
    }
    zip.finish().unwrap();
}

/// A .tar.gz whose entry names are written as given, `..` and `/` included (the tar crate's
/// own setters refuse them, as they should).
fn tar_gz(path: &Path, entries: &[Entry]) {
    let encoder = GzEncoder::new(
        std::fs::File::create(path).unwrap(),
        flate2::Compression::fast(),
    );
    let mut builder = tar::Builder::new(encoder);
    for entry in entries {
        let mut header = tar::Header::new_gnu();
        let (name, data): (&str, &[u8]) = match entry {
            Entry::File(name, bytes) => {
                header.set_entry_type(tar::EntryType::Regular);
                (name, bytes)
            }
            Entry::Link(name, target) => {
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_link_name_literal(target).unwrap();
                (name, &[])
            }
        };
        let slot = &mut header.as_old_mut().name;
        slot.fill(0);
        slot[..name.len()].copy_from_slice(name.as_bytes());
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append(&header, data).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap();
}

/// What a cell must show in every format.
struct Expect {
    submission: &'static str,
    exercise: &'static str,
    status: &'static str,
    points: f64,
    says: String,
}

fn expect(
    submission: &'static str,
    exercise: &'static str,
    status: &'static str,
    points: f64,
    says: &str,
) -> Expect {
    Expect {
        submission,
        exercise,
        status,
        points,
        says: says.to_string(),
    }
}

/// The fixture class, in `dir`; returns what every cell must be. Graded with exercises 01 and
/// 02, a memory limit of 1024 MiB and archives limited to 8 MiB expanded (see grading.toml).
fn fixture_class(dir: &Path) -> Vec<Expect> {
    let s = |name: &str| dir.join(name);
    put(&s("correct").join(K01), &solution(K01));
    put(&s("correct").join(K02), &solution(K02));
    put(&s("wrong").join(K01), &exercise(K01));
    put(
        &s("wrong").join(K02),
        &fixture("vector_add_first_block_only.cu"),
    );
    put(
        &s("compile_error").join(K02),
        &fixture("vector_add_compile_error.cu"),
    );
    put(
        &s("out_of_bounds").join(K02),
        &fixture("vector_add_no_guard.cu"),
    );
    put(&s("hang").join(K02), &fixture("vector_add_hang.cu"));
    put(&s("racy").join(K02), &fixture("grading/vector_add_racy.cu"));
    put(
        &s("memory_hog").join(K02),
        &fixture("grading/vector_add_memory_hog.cu"),
    );
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend(solution(K02));
    put(&s("byte_order_mark").join(K02), &bom);
    put(
        &s("debug_printf").join(K02),
        &fixture("grading/vector_add_debug_printf.cu"),
    );
    // A clone of the course repository (GitHub Classroom): the course's solutions/ beside the
    // student's exercises/, at the same depth.
    let clone = s("course_clone");
    put(&clone.join("exercises").join(K01), &solution(K01));
    put(
        &clone.join("exercises").join(K02),
        &fixture("vector_add_first_block_only.cu"),
    );
    put(&clone.join("solutions").join(K01), &solution(K01));
    put(&clone.join("solutions").join(K02), &solution(K02));
    put(&clone.join("README.md"), b"# The course\n");
    put(
        &s("missing").join("README.md"),
        b"I did not do the exercises.\n",
    );
    put(
        &s("not_utf8").join(K02),
        b"extern \"C\" __global__ void vector_add() { /* caf\xe9 */ }\n",
    );
    let mut big = solution(K02);
    big.extend(std::iter::repeat_n(b'/', 300 * 1024));
    put(&s("oversized").join(K02), &big);
    put(
        &s("include_outside").join(K02),
        b"// reads the grader's files\n#include \"/etc/passwd\"\n",
    );
    // A folder whose kernel is a link to a file outside it.
    put(&dir.join("../outside/vector_add.cu"), &solution(K02));
    std::fs::create_dir_all(s("link_folder").join("02_vector_add")).unwrap();
    std::os::unix::fs::symlink(
        dir.join("../outside/vector_add.cu"),
        s("link_folder").join(K02),
    )
    .unwrap();

    // Archives: one with an extra top folder, one flat, and the hostile ones.
    zip_archive(
        &s("nested.zip"),
        &[
            Entry::File("nested/01_thread_index/thread_index.cu", solution(K01)),
            Entry::File("nested/02_vector_add/vector_add.cu", solution(K02)),
        ],
    );
    tar_gz(
        &s("flat.tar.gz"),
        &[
            Entry::File("thread_index.cu", solution(K01)),
            Entry::File("vector_add.cu", solution(K02)),
        ],
    );
    let escape = format!(
        "{}{}/escaped.cu",
        "../".repeat(12),
        dir.display().to_string().trim_start_matches('/')
    );
    zip_archive(
        &s("traversal.zip"),
        &[
            Entry::File(K02, solution(K02)),
            Entry::File(&escape, b"pwned".to_vec()),
        ],
    );
    let absolute = format!("{}/absolute.cu", dir.display());
    tar_gz(
        &s("absolute.tar.gz"),
        &[
            Entry::File(K01, solution(K01)),
            Entry::File(&absolute, b"pwned".to_vec()),
        ],
    );
    tar_gz(
        &s("link_out.tar.gz"),
        &[Entry::Link("02_vector_add/vector_add.cu", "/etc/passwd")],
    );
    let zeros = vec![0u8; 9 << 20];
    zip_archive(
        &s("bomb.zip"),
        &[
            Entry::File(K02, solution(K02)),
            Entry::File("zeros.bin", zeros.clone()),
        ],
    );
    tar_gz(
        &s("tar_bomb.tar.gz"),
        &[
            Entry::File("zeros.bin", zeros),
            Entry::File(K02, solution(K02)),
        ],
    );

    let missing = |who: &'static str, ex: &'static str, file: &str| {
        expect(
            who,
            ex,
            "missing",
            0.0,
            &format!("the submission has no {file}"),
        )
    };
    let both = |who: &'static str, status: &'static str, says: &str| {
        [
            expect(who, "01", status, 0.0, says),
            expect(who, "02", status, 0.0, says),
        ]
    };
    let mut cells = vec![
        expect("correct", "01", "passed", 10.0, "Every case is right"),
        expect("correct", "02", "passed", 10.0, "Every case is right"),
        expect("wrong", "01", "not_done", 0.0, "Not done: 01_thread_index/thread_index.cu is the exercise's file as handed out, unchanged."),
        expect("wrong", "02", "failed", 0.0, "the index is threadIdx.x alone; add the threads of the blocks before"),
        missing("compile_error", "01", K01),
        expect("compile_error", "02", "compile_error", 0.0, "Does not compile: 02_vector_add/vector_add.cu:5: error: identifier \"idx\" is undefined"),
        missing("out_of_bounds", "01", K01),
        expect("out_of_bounds", "02", "failed", 0.0, "Out of bounds"),
        missing("hang", "01", K01),
        expect("hang", "02", "timeout", 0.0, "Hang: the kernel was still running"),
        missing("racy", "01", K01),
        expect("racy", "02", "failed", 0.0, "elements of `c` are wrong"),
        missing("memory_hog", "01", K01),
        // A 16 MiB local array is past a GPU's 512 KiB per thread: refused before it can use memory.
        expect("memory_hog", "02", "failed", 0.0, "uses too much local data (0x1000000 bytes, 0x80000 max)"),
        missing("byte_order_mark", "01", K01),
        // Saved by a Windows editor: the mark is dropped, as `runner check` drops it.
        expect("byte_order_mark", "02", "passed", 10.0, "Every case is right"),
        missing("debug_printf", "01", K01),
        // Ten lines per thread, cut at 1 MiB: printing does not change the grade.
        expect("debug_printf", "02", "passed", 10.0, "Every case is right"),
        expect("course_clone", "01", "passed", 10.0, "Every case is right"),
        expect("course_clone", "02", "failed", 0.0, "the index is threadIdx.x alone"),
        missing("missing", "01", K01),
        missing("missing", "02", K02),
        missing("not_utf8", "01", K01),
        expect("not_utf8", "02", "refused", 0.0, "02_vector_add/vector_add.cu is not UTF-8 text"),
        missing("oversized", "01", K01),
        expect("oversized", "02", "refused", 0.0, "02_vector_add/vector_add.cu is 301 KiB, larger than the 256 KiB a kernel file may be"),
        missing("include_outside", "01", K01),
        expect("include_outside", "02", "refused", 0.0, "02_vector_add/vector_add.cu:2: `#include \"/etc/passwd\"` reads a file outside the submission"),
        missing("link_folder", "01", K01),
        expect("link_folder", "02", "refused", 0.0, "02_vector_add/vector_add.cu is a link to a file outside the submission"),
        expect("nested", "01", "passed", 10.0, "Every case is right"),
        expect("nested", "02", "passed", 10.0, "Every case is right"),
        expect("flat", "01", "passed", 10.0, "Every case is right"),
        expect("flat", "02", "passed", 10.0, "Every case is right"),
    ];
    cells.extend(both(
        "traversal",
        "refused",
        &format!("traversal.zip: the entry `{escape}` leads out of the archive's folder"),
    ));
    cells.extend(both(
        "absolute",
        "refused",
        &format!("absolute.tar.gz: the entry `{absolute}` is an absolute path"),
    ));
    cells.extend(both("link_out", "refused", "link_out.tar.gz: `02_vector_add/vector_add.cu` is a link to `/etc/passwd`, outside the archive"));
    cells.extend(both(
        "bomb",
        "refused",
        "bomb.zip expands to more than 8.0 MiB (a zip bomb?)",
    ));
    cells.extend(both(
        "tar_bomb",
        "refused",
        "tar_bomb.tar.gz expands to more than 8.0 MiB (a zip bomb?)",
    ));
    cells
}

fn grading_file(course: &TestCourse, text: &str) {
    std::fs::write(course.path("grading.toml"), text).unwrap();
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn csv_table(path: &Path) -> BTreeMap<(String, String), String> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let mut table = BTreeMap::new();
    for record in reader.records() {
        let record = record.unwrap();
        for (column, value) in header.iter().zip(record.iter()).skip(1) {
            table.insert((record[0].to_string(), column.clone()), value.to_string());
        }
    }
    table
}

fn points_text(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        x.to_string()
    }
}

/// Headless Chromium, which CI installs (grade/tests/grading-setup.sh).
fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(out) = std::process::Command::new("which").arg(name).output() {
            if out.status.success() {
                return Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
            }
        }
    }
    None
}

/// The page's DOM after its scripts ran, as headless Chromium serialises it.
fn dump_dom(url: &str) -> Option<String> {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("RUNNER_TEST_NO_BROWSER").is_some(),
            "the HTML report test needs headless Chromium: run grade/tests/grading-setup.sh (or apt-get install chromium), \
             or set RUNNER_TEST_NO_BROWSER=1 to leave the browser check out"
        );
        return None;
    };
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--virtual-time-budget=5000", "--dump-dom", url])
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        dom.contains("<html"),
        "Chromium gave no page for {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(dom)
}

fn html_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[test]
fn fixture_class_gets_the_right_grade_and_message_in_every_format() {
    let course = TestCourse::new();
    grading_file(&course, "memory_limit_mb = 1024\nmax_expanded_mb = 8\n");
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    let expected = fixture_class(&class);
    let out = work.path().join("grades");
    let run = course.run(&[
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--exercises",
        "01,02",
    ]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        !class.join("escaped.cu").exists() && !class.join("absolute.cu").exists(),
        "an archive wrote outside its folder"
    );

    // One JSON per submission: status, points, message.
    for e in &expected {
        let json = read_json(
            &out.join("submissions")
                .join(format!("{}.json", e.submission)),
        );
        let cell = json["exercises"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["exercise"] == e.exercise)
            .unwrap();
        let where_ = format!("{} {}: {cell:#}", e.submission, e.exercise);
        assert_eq!(cell["status"], e.status, "{where_}");
        assert_eq!(cell["points"].as_f64(), Some(e.points), "{where_}");
        assert!(
            cell["message"].as_str().unwrap().contains(&e.says),
            "{where_}\nwanted: {}",
            e.says
        );
    }
    assert_eq!(
        std::fs::read(out.join("cells/byte_order_mark/02.cu")).unwrap(),
        solution(K02),
        "the kernel kept (and compared for similarity) is the text without the mark"
    );
    let clone = read_json(&out.join("submissions/course_clone.json"));
    assert_eq!(
        clone["exercises"][1]["found_at"],
        format!("exercises/{K02}")
    );
    let printed = read_json(&out.join("submissions/debug_printf.json"));
    let details = printed["exercises"][1]["details"].as_str().unwrap();
    assert!(
        details.contains("The kernel printed (output cut at 1 MiB); this does not change the grade:\n  debug: thread "),
        "{details}"
    );
    assert!(
        details.len() < 6000,
        "the cell keeps a few lines of the output"
    );
    let submissions: std::collections::BTreeSet<&str> =
        expected.iter().map(|e| e.submission).collect();
    assert_eq!(
        std::fs::read_dir(out.join("submissions")).unwrap().count(),
        submissions.len()
    );

    // CSV grade book and statuses.
    let grades = csv_table(&out.join("gradebook.csv"));
    let statuses = csv_table(&out.join("statuses.csv"));
    for e in &expected {
        let key = (e.submission.to_string(), e.exercise.to_string());
        assert_eq!(grades[&key], points_text(e.points), "{key:?}");
        assert_eq!(statuses[&key], e.status, "{key:?}");
    }
    for submission in &submissions {
        let total: f64 = expected
            .iter()
            .filter(|e| e.submission == *submission)
            .map(|e| e.points)
            .sum();
        assert_eq!(
            grades[&(submission.to_string(), "total".into())],
            points_text(total)
        );
        assert_eq!(grades[&(submission.to_string(), "max".into())], "20");
    }

    // JUnit: well-formed XML, a failure for every cell below full points, typed by status.
    let xml = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("junit.xml is well-formed XML");
    for e in &expected {
        let suite = doc
            .descendants()
            .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some(e.submission))
            .unwrap();
        let case = suite
            .children()
            .find(|n| {
                n.has_tag_name("testcase") && n.attribute("name").unwrap().starts_with(e.exercise)
            })
            .unwrap();
        let failure = case.children().find(|n| n.has_tag_name("failure"));
        if e.points == 10.0 {
            assert!(failure.is_none(), "{} {}", e.submission, e.exercise);
        } else {
            let failure =
                failure.unwrap_or_else(|| panic!("{} {} has no failure", e.submission, e.exercise));
            assert_eq!(failure.attribute("type"), Some(e.status));
            assert!(
                failure.attribute("message").unwrap().contains(&e.says),
                "{} {}",
                e.submission,
                e.exercise
            );
        }
    }

    // Gradescope: the documented fields, with their types, per submission.
    for submission in &submissions {
        let results = read_json(&out.join("gradescope").join(submission).join("results.json"));
        let allowed = [
            "score",
            "execution_time",
            "output",
            "output_format",
            "visibility",
            "stdout_visibility",
            "extra_data",
            "tests",
            "leaderboard",
        ];
        for key in results.as_object().unwrap().keys() {
            assert!(
                allowed.contains(&key.as_str()),
                "Gradescope does not know the field {key}"
            );
        }
        assert!(
            results["score"].is_number()
                && results["execution_time"].is_u64()
                && results["output"].is_string()
        );
        let tests = results["tests"].as_array().unwrap();
        assert_eq!(tests.len(), 2);
        let mut sum = 0.0;
        for test in tests {
            for key in [
                "name",
                "score",
                "max_score",
                "status",
                "output",
                "visibility",
            ] {
                assert!(!test[key].is_null(), "{submission}: a test lacks {key}");
            }
            assert!(["passed", "failed"].contains(&test["status"].as_str().unwrap()));
            assert!(["visible", "hidden", "after_due_date", "after_published"]
                .contains(&test["visibility"].as_str().unwrap()));
            let e = expected
                .iter()
                .find(|e| {
                    e.submission == *submission
                        && test["name"].as_str().unwrap().starts_with(e.exercise)
                })
                .unwrap();
            assert_eq!(test["score"].as_f64(), Some(e.points));
            assert_eq!(test["max_score"].as_f64(), Some(10.0));
            assert_eq!(
                test["status"],
                if e.points == 10.0 { "passed" } else { "failed" }
            );
            assert!(test["output"].as_str().unwrap().contains(&e.says));
            sum += e.points;
        }
        assert_eq!(results["score"].as_f64(), Some(sum));
    }

    // The HTML report, after its scripts ran in a browser: a row per submission, each cell's
    // status and points, a page per student with the messages, a histogram per exercise.
    let url = format!("file://{}", out.join("report.html").display());
    if let Some(dom) = dump_dom(&format!("{url}?sort=total&dir=descending")) {
        assert!(
            dom.contains("data-rendered=\"yes\""),
            "the report's script did not finish"
        );
        let rows: Vec<&str> = dom
            .split("<tr data-submission=\"")
            .skip(1)
            .map(|r| r.split('"').next().unwrap())
            .collect();
        assert_eq!(rows.len(), submissions.len(), "{dom}");
        // Three with every point first, three with half, then the rest (all 0) by name.
        let set = |rows: &[&str]| {
            rows.iter()
                .map(|r| r.to_string())
                .collect::<std::collections::BTreeSet<_>>()
        };
        assert_eq!(set(&rows[..3]), set(&["correct", "flat", "nested"]));
        assert_eq!(
            set(&rows[3..6]),
            set(&["byte_order_mark", "course_clone", "debug_printf"])
        );
        assert_eq!(rows[6], "absolute", "{rows:?}");
        assert!(
            dom.contains("data-key=\"total\" aria-sort=\"descending\""),
            "sorted by total"
        );
        for e in &expected {
            let row = dom
                .split(&format!("<tr data-submission=\"{}\"", e.submission))
                .nth(1)
                .unwrap();
            let row = &row[..row.find("</tr>").unwrap()];
            let cell = format!("<td class=\"{}\" title=\"", e.status);
            assert!(
                row.contains(&cell),
                "{} {}: {row}",
                e.submission,
                e.exercise
            );
            assert!(
                row.contains(&format!(
                    "data-exercise=\"{}\">{}<span",
                    e.exercise,
                    points_text(e.points)
                )),
                "{row}"
            );
        }
        assert_eq!(
            dom.matches("<section class=\"student\"").count(),
            submissions.len()
        );
        assert_eq!(
            dom.matches("<figure class=\"histogram\"").count(),
            3,
            "two exercises and the total"
        );
        for e in expected.iter().filter(|e| !e.says.is_empty()) {
            assert!(
                dom.contains(&html_text(&e.says)),
                "the student page lacks: {}",
                e.says
            );
        }
        let page = dump_dom(&format!("{url}#student=hang")).unwrap();
        assert!(
            page.contains("<section class=\"student shown\" data-submission=\"hang\""),
            "the student's page is shown"
        );
        assert!(
            page.contains("id=\"class-view\" style=\"display: none;\""),
            "and the class table hidden"
        );
    }
}

/// A course whose exercises' own time limits are an hour: the simulator's hang detection is out
/// of the way, so only the grader's wall-time limit (or a Ctrl-C) can stop a hanging kernel.
fn course_without_hang_detection() -> TestCourse {
    let course = TestCourse::new();
    let metadata = course.path("exercises/exercises.toml");
    let text = std::fs::read_to_string(&metadata)
        .unwrap()
        .replace("time_limit_ms = 2000", "time_limit_ms = 3600000");
    std::fs::write(&metadata, text).unwrap();
    course
}

#[test]
fn a_check_past_the_wall_time_limit_is_killed_and_costs_that_cell_only() {
    let course = course_without_hang_detection();
    grading_file(&course, "time_limit_s = 4\n");
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(
        &class.join("hang").join(K02),
        &fixture("vector_add_hang.cu"),
    );
    put(&class.join("correct").join(K02), &solution(K02));
    let out = work.path().join("grades");
    let started = Instant::now();
    let run = course.run(&[
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--exercises",
        "02",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        started.elapsed() < common::NEVER,
        "took {:?}",
        started.elapsed()
    );
    let hang = read_json(&out.join("submissions/hang.json"));
    assert_eq!(hang["exercises"][0]["status"], "timeout");
    assert!(
        hang["exercises"][0]["message"]
            .as_str()
            .unwrap()
            .contains("still running after 4 s, the grading time limit"),
        "{hang}"
    );
    let seconds = hang["exercises"][0]["seconds"].as_f64().unwrap();
    assert!(
        (4.0..10.0).contains(&seconds),
        "killed at the limit, not later: {seconds}"
    );
    assert_eq!(
        read_json(&out.join("submissions/correct.json"))["exercises"][0]["status"],
        "passed"
    );
}

/// `runner grade CLASS --out OUT --format csv,json MORE...`.
fn grade(course: &TestCourse, class: &Path, out: &Path, more: &[&str]) -> common::Run {
    let mut args = vec![
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--format",
        "csv,json",
    ];
    args.extend_from_slice(more);
    course.run(&args)
}

#[test]
fn resume_keeps_finished_cells_and_grades_only_what_changed() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("ann").join(K01), &solution(K01));
    put(&class.join("ann").join(K02), &solution(K02));
    put(
        &class.join("ben").join(K02),
        &fixture("vector_add_no_guard.cu"),
    );
    let out = work.path().join("grades");
    assert_eq!(
        grade(&course, &class, &out, &["--exercises", "01,02"]).code,
        0
    );

    let again = grade(&course, &class, &out, &["--exercises", "01,02"]);
    assert_eq!(again.code, 2);
    assert!(
        again
            .stderr
            .contains("already holds graded cells; pass --resume"),
        "{}",
        again.stderr
    );

    // A finished cell is kept as it is on disk; a deleted one and a changed kernel are graded again.
    let kept = out.join("cells/ann/01.json");
    let text = std::fs::read_to_string(&kept)
        .unwrap()
        .replace("Every case is right", "KEPT FROM BEFORE");
    std::fs::write(&kept, text).unwrap();
    std::fs::remove_file(out.join("cells/ann/02.json")).unwrap();
    put(&class.join("ben").join(K02), &solution(K02));
    let resumed = grade(&course, &class, &out, &["--exercises", "01,02", "--resume"]);
    assert_eq!(resumed.code, 0, "{}", resumed.all());
    assert!(
        resumed.stdout.contains("(2 checks run now)"),
        "{}",
        resumed.stdout
    );
    let ann = read_json(&out.join("submissions/ann.json"));
    assert_eq!(
        ann["exercises"][0]["message"],
        "KEPT FROM BEFORE (4 cases)."
    );
    assert_eq!(ann["exercises"][1]["status"], "passed");
    assert_eq!(
        read_json(&out.join("submissions/ben.json"))["exercises"][1]["status"],
        "passed"
    );
}

#[test]
fn untouched_files_are_not_done_and_cost_no_check() {
    // Another course's metadata: the runner's embedded originals do not apply to it.
    let course = course_without_hang_detection();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    let files = [
        "06_launch_config/distances.cu",
        "22_bug_out_of_bounds/blur_rows.cu",
        "23_bug_missing_barrier/reverse.cu",
    ];
    for file in files {
        let mut text = std::fs::read(course.path("exercises").join(file)).unwrap();
        text.extend(b"\n\n"); // an editor's trailing blank lines change nothing
        put(&class.join("ann").join(file), &text);
    }
    let out = work.path().join("grades");
    let run = grade(&course, &class, &out, &["--exercises", "06,22,23"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stdout.contains("(0 checks run now)"), "{}", run.stdout);
    let statuses = csv_table(&out.join("statuses.csv"));
    for exercise in ["06", "22", "23"] {
        assert_eq!(
            statuses[&("ann".into(), exercise.into())],
            "not_done",
            "{exercise}"
        );
    }
}

/// Stops a run with `signal` while a check hangs: every finished cell is kept, the check and
/// its scratch folder are gone, and `--resume` grades the rest.
/// Waits until `first` (the cell before a hanging one) is saved, then a little longer, so that
/// the hanging check is running; returns when the wait began.
fn wait_for_the_hang_after(first: &Path) -> Instant {
    let started = Instant::now();
    while !first.exists() {
        assert!(
            started.elapsed() < common::NEVER,
            "the first cell never finished"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(1500));
    started
}

fn stop_with_signal_and_resume(signal: &str) {
    let course = course_without_hang_detection();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("a_done").join(K01), &solution(K01));
    put(
        &class.join("z_hang").join(K02),
        &fixture("vector_add_hang.cu"),
    );
    let out = work.path().join("grades");
    let args = [
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--exercises",
        "01,02",
        "--jobs",
        "1",
        "--format",
        "csv,json",
    ];
    // The grader's temporary folders go here, to be seen removed.
    let scratch = work.path().join("tmp");
    std::fs::create_dir_all(&scratch).unwrap();
    let child = course
        .command(&args)
        .env("TMPDIR", &scratch)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = wait_for_the_hang_after(&out.join("cells/a_done/01.json"));
    let pid = child.id().to_string();
    assert!(std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid])
        .status()
        .unwrap()
        .success());
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(130),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("run the same command with --resume"),
        "{stdout}"
    );
    assert!(started.elapsed() < common::NEVER);
    assert_eq!(
        std::fs::read_dir(&scratch).unwrap().count(),
        0,
        "the scratch folder is removed"
    );
    assert_eq!(
        processes_mentioning(&scratch),
        Vec::<String>::new(),
        "the checks are ended"
    );
    assert_eq!(
        read_json(&out.join("cells/a_done/01.json"))["status"],
        "passed"
    );
    assert!(
        !out.join("cells/z_hang/02.json").exists(),
        "the stopped check must not be recorded"
    );
    assert_eq!(
        csv_table(&out.join("statuses.csv"))[&("z_hang".into(), "02".into())],
        "",
        "not graded yet"
    );

    put(&class.join("z_hang").join(K02), &solution(K02));
    let resumed = grade(&course, &class, &out, &["--exercises", "01,02", "--resume"]);
    assert_eq!(resumed.code, 0, "{}", resumed.all());
    assert!(
        resumed.stdout.contains("(1 checks run now)"),
        "{}",
        resumed.stdout
    );
    assert_eq!(
        csv_table(&out.join("statuses.csv"))[&("z_hang".into(), "02".into())],
        "passed"
    );
}

#[test]
fn every_submission_has_its_own_id_and_its_name_as_handed_in_in_every_format() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    // Names of any script, and names that make the same safe id ("a b", "a_b", "A_B").
    let names = ["Zoë Smith (2)", "李雷", "王芳", "a b", "a_b", "A_B"];
    for name in names {
        put(&class.join(name).join(K01), &solution(K01));
    }
    let out = work.path().join("grades");
    let mut command = course.command(&[
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--exercises",
        "01",
    ]);
    // The grader's umask, not a temporary file's 0600, decides who may read the grade book.
    // SAFETY: umask is async-signal-safe and touches no memory.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, || {
            libc::umask(0o027);
            Ok(())
        });
    }
    let run = command.output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let book = read_json(&out.join("class.json"));
    let rows = book["rows"].as_array().unwrap();
    let ids: std::collections::BTreeSet<&str> = rows
        .iter()
        .map(|r| r["submission"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), names.len(), "{ids:?}");
    assert!(ids.contains("李雷") && ids.contains("王芳"), "{ids:?}");
    let grades = csv_table(&out.join("gradebook.csv"));
    let xml = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for row in rows {
        let (id, name) = (
            row["submission"].as_str().unwrap(),
            row["name"].as_str().unwrap(),
        );
        assert!(names.contains(&name), "{row:#}");
        assert_eq!(row["total"].as_f64(), Some(10.0), "{row:#}");
        assert_eq!(grades[&(id.to_string(), "name".into())], name);
        assert_eq!(
            read_json(&out.join(format!("submissions/{id}.json")))["name"],
            name
        );
        let gradescope = read_json(&out.join(format!("gradescope/{id}/results.json")));
        assert_eq!(gradescope["extra_data"]["name"], name);
        assert!(
            xml.contains(&format!(
                "<property name=\"name\" value=\"{}\"/>",
                html_text(name)
            )),
            "{xml}"
        );
        assert!(
            html.contains(&format!("\"name\":\"{name}\"")),
            "the report's data lacks {name}"
        );
    }
    for file in [
        "gradebook.csv",
        "junit.xml",
        "report.html",
        "cells/李雷/01.json",
    ] {
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(out.join(file)).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o640, "{file}");
    }
}

/// The command lines of running processes that name `path`.
fn processes_mentioning(path: &Path) -> Vec<String> {
    let wanted = path.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .map(|line| String::from_utf8_lossy(&line).replace('\0', " "))
        .filter(|line| line.contains(&wanted))
        .collect()
}

#[test]
fn ctrl_c_keeps_every_finished_cell_and_resume_finishes_the_rest() {
    stop_with_signal_and_resume("INT");
}

#[test]
fn sigterm_from_a_scheduler_stops_the_run_as_ctrl_c_does() {
    stop_with_signal_and_resume("TERM");
}

#[test]
fn sighup_from_a_closed_terminal_stops_the_run_as_ctrl_c_does() {
    stop_with_signal_and_resume("HUP");
}

#[test]
fn shards_merge_into_the_grade_book_of_a_single_run() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    for (k, name) in ["ann", "ben", "cid", "dee", "eve"].iter().enumerate() {
        put(
            &class.join(name).join(K01),
            &if k % 2 == 0 {
                solution(K01)
            } else {
                exercise(K01)
            },
        );
    }
    let whole = work.path().join("whole");
    assert_eq!(
        grade(&course, &class, &whole, &["--exercises", "01"]).code,
        0
    );
    let mut shards = Vec::new();
    for index in 1..=3 {
        let dir = work.path().join(format!("shard{index}"));
        let run = grade(
            &course,
            &class,
            &dir,
            &["--exercises", "01", "--shard", &format!("{index}/3")],
        );
        assert_eq!(run.code, 0, "{}", run.all());
        shards.push(dir);
    }
    let ids = |dir: &Path| {
        read_json(&dir.join("shard.json"))["submissions"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(shards.iter().map(|d| ids(d)).collect::<Vec<_>>(), [2, 2, 1]);
    let merged = work.path().join("merged");
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(|d| d.to_str().unwrap()));
    args.extend(["--out", merged.to_str().unwrap(), "--format", "csv"]);
    let run = course.run(&args);
    assert_eq!(run.code, 0, "{}", run.all());
    let read = |dir: &Path| std::fs::read_to_string(dir.join("gradebook.csv")).unwrap();
    assert_eq!(read(&merged), read(&whole));

    // A missing shard is named, and its students' cells are reported missing.
    let mut args = vec![
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
    ];
    let partial = work.path().join("partial");
    args.extend(["--out", partial.to_str().unwrap(), "--format", "csv"]);
    let run = course.run(&args);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stderr
            .contains("No results for shard 3/3 among the folders given"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_ring_of_copies_is_one_group_after_renaming_but_the_model_answer_and_slips_on_it_are_not() {
    let course = TestCourse::new();
    grading_file(&course, "similarity_min_tokens = 10\n");
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    let model = text(solution(K02));
    // Two who wrote the model answer, one renamed; two different slips on it.
    put(&class.join("model").join(K02), model.as_bytes());
    put(
        &class.join("model_renamed").join(K02),
        &fixture("grading/vector_add_renamed.cu"),
    );
    for (who, slip) in [("slip_minus", "a[i] - b[i]"), ("slip_times", "a[i] * b[i]")] {
        put(
            &class.join(who).join(K02),
            model.replace("a[i] + b[i]", slip).as_bytes(),
        );
    }
    // A ring of three sharing an answer of their own, one with its names changed and a
    // comment that would be markup if the report pasted kernels into the page.
    let ring = text(fixture("grading/vector_add_grid_stride.cu"));
    put(&class.join("ring_a").join(K02), ring.as_bytes());
    put(&class.join("ring_b").join(K02), ring.as_bytes());
    let renamed = ring
        .replace("left", "lhs")
        .replace("right", "rhs")
        .replace("stride", "step")
        .replace(
            "        c[k] = lhs + rhs;\n",
            "        c[k] = lhs + rhs; // </script><img src=x onerror=\"document.title='owned'\">\n",
        );
    put(&class.join("ring_c").join(K02), renamed.as_bytes());
    put(&class.join("untouched").join(K02), &exercise(K02));
    let out = work.path().join("grades");
    let run = course.run(&[
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--exercises",
        "02",
        "--format",
        "json,html",
    ]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains(
            "1 group of alike kernels (3 submissions):\n  02: ring_a, ring_b, ring_c (up to 100%)\n"
        ),
        "{}",
        run.stdout
    );
    let groups = read_json(&out.join("similarity.json"));
    let groups = groups.as_array().unwrap();
    assert_eq!(groups.len(), 1, "{groups:#?}");
    assert_eq!(
        groups[0]["members"],
        serde_json::json!(["ring_a", "ring_b", "ring_c"])
    );
    let pairs: Vec<(&str, &str)> = groups[0]["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["a"].as_str().unwrap(), p["b"].as_str().unwrap()))
        .collect();
    // The pairs that join the group, strongest first: the third pair of the ring joins no one.
    assert_eq!(pairs, [("ring_a", "ring_b"), ("ring_a", "ring_c")]);
    assert!(
        groups[0]["rarity_bits"].as_f64().unwrap() >= 50.0,
        "{groups:#?}"
    );
    // Every line the student wrote is shared with the renamed copy, the one with the comment too.
    let with_c = &groups[0]["pairs"][1];
    assert_eq!(
        with_c["shared_a"], groups[0]["kernels"][0]["own_lines"],
        "{with_c:#}"
    );
    assert_eq!(
        read_json(&out.join("class.json"))["similarity"],
        read_json(&out.join("similarity.json"))
    );

    // The report: one group of three, closed, each pair side by side on demand, the kernel
    // shown as text.
    let url = format!("file://{}", out.join("report.html").display());
    if let Some(dom) = dump_dom(&url) {
        assert!(
            dom.contains("data-rendered=\"yes\""),
            "the report's script did not finish"
        );
        assert_eq!(dom.matches("<details class=\"similar-group\"").count(), 1);
        assert!(dom.contains("data-members=\"ring_a ring_b ring_c\""));
        assert_eq!(dom.matches("<details class=\"pair\"").count(), 2);
        assert_eq!(dom.matches("<div class=\"kernel\"").count(), 4);
        assert!(dom.contains(
            "<tr class=\"shared\"><td class=\"number\">12</td><td class=\"text\">    for (int k"
        ));
        assert!(dom.contains("<tr class=\"given\"><td class=\"number\">1</td>"));
        assert!(
            !dom.contains("<img") && dom.contains("<title>Grades</title>"),
            "markup from a kernel ran"
        );
        assert!(dom.contains("// &lt;/script&gt;&lt;img src=x onerror="));
    }
}

#[test]
fn the_instructors_seed_and_extra_sizes_reach_the_checks() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(
        &class.join("wrong").join(K02),
        &fixture("vector_add_first_block_only.cu"),
    );
    put(&class.join("correct").join(K02), &solution(K02));
    let message = |out: &str, more: &[&str]| {
        let out = work.path().join(out);
        let run = grade(
            &course,
            &class,
            &out,
            &[&["--exercises", "02"], more].concat(),
        );
        assert_eq!(run.code, 0, "{}", run.all());
        read_json(&out.join("submissions/wrong.json"))["exercises"][0]["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let public = message("public", &[]);
    let by_flag = message("flag", &["--seed", "7"]);
    grading_file(&course, "seed = 7\n");
    let by_file = message("file", &[]);
    // The first wrong element's expected value comes from the random inputs.
    assert_ne!(public, by_flag, "the seed did not change the inputs");
    assert_eq!(
        by_flag, by_file,
        "the grading file's seed is the same as --seed"
    );
    assert_eq!(read_json(&work.path().join("file/run.json"))["seed"], 7);

    grading_file(&course, "seed = 7\nsizes = [5000]\n");
    let out = work.path().join("sizes");
    let run = grade(&course, &class, &out, &["--exercises", "02"]);
    assert_eq!(run.code, 0, "{}", run.all());
    // A wrong kernel stops at its first failing case; a right one runs them all.
    let cell = read_json(&out.join("cells/correct/02.json"));
    let cases = cell["cases"].as_array().unwrap();
    assert!(
        cases
            .iter()
            .any(|c| c["name"].as_str().unwrap().contains("5000")),
        "{cell:#}"
    );
}

#[test]
fn an_unusable_course_stops_before_any_student_is_graded() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("ann").join(K01), &solution(K01));
    let out = work.path().join("grades");
    let args = [
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--exercises",
        "01",
    ];
    let run = course
        .command(&args)
        .env("RUNNER_NVRTC", "/nonexistent/libnvrtc.so")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr.contains("the course cannot be checked, so no submission was graded"),
        "{stderr}"
    );
    assert!(
        stderr.contains("exercise 01: NVRTC (the CUDA run-time compiler) was not found"),
        "{stderr}"
    );
    assert!(!out.join("cells").exists());
}

/// Writes the Gradescope zip into `work/grades` for the assignment's `exercises`, named once in
/// the grading file the zip carries.
fn write_autograder(course: &TestCourse, exercises: &str, work: &Path) -> (common::Run, PathBuf) {
    grading_file(course, &format!("exercises = \"{exercises}\"\n"));
    let out = work.join("grades");
    let run = course.run(&["--gradescope-autograder", "--out", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.all());
    (run, out)
}

#[test]
fn gradescope_autograder_grades_one_submission_into_results_json() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let (run, out) = write_autograder(&course, "01-02", work.path());
    assert!(
        run.stdout.contains("It grades exercises 01, 02."),
        "{}",
        run.all()
    );
    // Unpack as Gradescope does: into /autograder/source (here a temporary root).
    let root = work.path().join("autograder");
    let mut zip =
        zip::ZipArchive::new(std::fs::File::open(out.join("autograder.zip")).unwrap()).unwrap();
    let names: Vec<String> = zip.file_names().map(|n| n.unwrap().into_owned()).collect();
    for wanted in [
        "setup.sh",
        "run_autograder",
        "runner-grade",
        "course/exercises/exercises.toml",
        &format!("course/exercises/{K02}"),
    ] {
        assert!(
            names.iter().any(|n| n == wanted),
            "the zip lacks {wanted}: {names:?}"
        );
    }
    zip.extract(root.join("source")).unwrap();
    let script = std::fs::read_to_string(root.join("source/run_autograder")).unwrap();
    assert!(!script.contains("--run-programs"), "{script}");
    let setup = std::fs::read_to_string(root.join("source/setup.sh")).unwrap();
    assert!(setup.contains("nvidia-cuda-nvrtc-cu12=="), "{setup}");
    // The glibc the grader needs is said when the zip is written, and setup.sh checks that the
    // grader starts before installing anything (grade/tests/old-userland-test.sh: where not).
    assert!(
        run.stderr
            .contains("Note: the grader in the zip needs glibc 2."),
        "{}",
        run.all()
    );
    let check = &setup[..setup.find("\nfi\n").unwrap() + 4];
    assert!(!check.contains("apt-get"), "the check comes first: {check}");
    let checked = std::process::Command::new("bash")
        .args(["-c", check])
        .env("AUTOGRADER_ROOT", &root)
        .output()
        .unwrap();
    assert!(checked.status.success(), "{checked:?}");
    assert!(
        setup.contains("install \"$source/course/.nvrtc/headers\" nvidia-cuda-runtime-cu12=="),
        "{setup}"
    );
    // A student who uploaded their two files flat, as Gradescope often receives them.
    put(&root.join("submission/thread_index.cu"), &solution(K01));
    put(
        &root.join("submission/vector_add.cu"),
        &fixture("vector_add_no_guard.cu"),
    );
    let run_autograder = || {
        let mut script = std::process::Command::new("bash");
        script
            .arg(root.join("source/run_autograder"))
            .env("AUTOGRADER_ROOT", &root)
            .env("NO_COLOR", "1");
        let nvrtc = repo_root().join(".nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
        if nvrtc.exists() {
            script.env("RUNNER_NVRTC", nvrtc);
        }
        let ran = script.output().unwrap();
        (read_json(&root.join("results/results.json")), ran)
    };
    let (results, ran) = run_autograder();
    assert_eq!(
        results["score"].as_f64(),
        Some(10.0),
        "{results:#}\n{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert_eq!(results["tests"][0]["status"], "passed");
    assert_eq!(results["tests"][1]["status"], "failed");
    assert!(
        results["tests"][1]["output"]
            .as_str()
            .unwrap()
            .contains("Out of bounds"),
        "{results:#}"
    );
    assert!(results["output"]
        .as_str()
        .unwrap()
        .contains("in the simulator"));

    // Another student: a zip uploaded with a note beside it.
    std::fs::remove_dir_all(root.join("submission")).unwrap();
    put(&root.join("submission/notes.txt"), b"I found 02 hard.\n");
    zip_archive(
        &root.join("submission/work.zip"),
        &[
            Entry::File(&format!("work/{K01}"), solution(K01)),
            Entry::File(&format!("work/{K02}"), solution(K02)),
        ],
    );
    let (results, ran) = run_autograder();
    assert_eq!(
        results["score"].as_f64(),
        Some(20.0),
        "{results:#}\n{}",
        String::from_utf8_lossy(&ran.stderr)
    );
}

#[test]
fn slurm_scripts_run_each_shard_and_then_merge() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    for name in ["ann", "ben", "cid"] {
        put(&class.join(name).join(K01), &solution(K01));
    }
    let out = work.path().join("grades");
    let run = course.run(&[
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--exercises",
        "01",
        "--slurm",
        "2",
        "--slurm-option=--partition=gpu",
        "--format",
        "csv,json",
    ]);
    assert_eq!(run.code, 0, "{}", run.all());
    let sbatch = std::fs::read_to_string(out.join("slurm/grade.sbatch")).unwrap();
    assert!(
        sbatch.contains("#SBATCH --array=1-2\n") && sbatch.contains("#SBATCH --partition=gpu\n"),
        "{sbatch}"
    );
    let submit = std::fs::read_to_string(out.join("slurm/submit.sh")).unwrap();
    assert!(submit.contains("--dependency=afterany:"), "{submit}");
    assert!(!out.join("cells").exists(), "--slurm grades nothing itself");
    // Run each array task and the merge as Slurm would, with its task id, without Slurm.
    let with_env = |script: &str, task: Option<usize>| {
        let mut command = std::process::Command::new("bash");
        command.arg(out.join("slurm").join(script));
        for (key, value) in course.command(&[]).get_envs() {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        if let Some(task) = task {
            command.env("SLURM_ARRAY_TASK_ID", task.to_string());
        }
        let output = command.output().unwrap();
        assert!(
            output.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    with_env("grade.sbatch", Some(1));
    with_env("grade.sbatch", Some(2));
    with_env("merge.sbatch", None);
    let grades = csv_table(&out.join("gradebook.csv"));
    for name in ["ann", "ben", "cid"] {
        assert_eq!(grades[&(name.into(), "01".into())], "10");
    }
}

/// The cells of every submission in `out`, without the seconds each took.
fn cells_without_times(out: &Path) -> BTreeMap<String, Value> {
    let mut cells = BTreeMap::new();
    for entry in std::fs::read_dir(out.join("submissions")).unwrap() {
        let path = entry.unwrap().path();
        let mut json = read_json(&path);
        for cell in json["exercises"].as_array_mut().unwrap() {
            cell.as_object_mut().unwrap().remove("seconds");
        }
        cells.insert(
            path.file_name().unwrap().to_string_lossy().into_owned(),
            json["exercises"].take(),
        );
    }
    cells
}

#[test]
fn workers_grade_the_fixture_class_exactly_as_a_process_per_cell_does() {
    let course = TestCourse::new();
    grading_file(&course, "memory_limit_mb = 1024\nmax_expanded_mb = 8\n");
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    fixture_class(&class);
    let graded = |isolation: &str| {
        let out = work.path().join(isolation);
        let run = grade(
            &course,
            &class,
            &out,
            &["--exercises", "01,02", "--isolation", isolation],
        );
        assert_eq!(run.code, 0, "{}", run.all());
        cells_without_times(&out)
    };
    let (by_process, by_worker) = (graded("cell"), graded("worker"));
    assert!(by_process.len() > 20, "{by_process:?}");
    for (submission, cells) in &by_process {
        assert_eq!(Some(cells), by_worker.get(submission), "{submission}");
    }
    assert_eq!(by_process.len(), by_worker.len());
}

#[test]
fn a_worker_stopped_at_the_time_limit_is_replaced_and_the_next_cells_are_graded() {
    let course = course_without_hang_detection();
    grading_file(&course, "time_limit_s = 4\n");
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("a_correct").join(K02), &solution(K02));
    put(
        &class.join("b_hang").join(K02),
        &fixture("vector_add_hang.cu"),
    );
    put(&class.join("c_correct").join(K02), &solution(K02));
    put(
        &class.join("d_wrong").join(K02),
        &fixture("vector_add_first_block_only.cu"),
    );
    let out = work.path().join("grades");
    let started = Instant::now();
    let run = grade(
        &course,
        &class,
        &out,
        &["--exercises", "02", "--isolation", "worker", "--jobs", "1"],
    );
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        started.elapsed() < common::NEVER,
        "took {:?}",
        started.elapsed()
    );
    let cell = |name: &str| read_json(&out.join(format!("cells/{name}/02.json")));
    let hang = cell("b_hang");
    assert_eq!(hang["status"], "timeout", "{hang:#}");
    assert!(
        hang["message"]
            .as_str()
            .unwrap()
            .contains("still running after 4 s, the grading time limit"),
        "{hang}"
    );
    let seconds = hang["seconds"].as_f64().unwrap();
    assert!((4.0..10.0).contains(&seconds), "{seconds}");
    // The one worker was killed with the hanging kernel; the cells after it got a new one.
    assert_eq!(cell("a_correct")["status"], "passed");
    assert_eq!(cell("c_correct")["status"], "passed");
    assert_eq!(cell("d_wrong")["status"], "failed");
}

#[test]
fn a_worker_killed_in_the_middle_of_a_cell_costs_that_cell_only() {
    let course = course_without_hang_detection();
    grading_file(&course, "time_limit_s = 60\n");
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("a_correct").join(K02), &solution(K02));
    put(
        &class.join("b_hang").join(K02),
        &fixture("vector_add_hang.cu"),
    );
    put(&class.join("c_correct").join(K02), &solution(K02));
    let out = work.path().join("grades");
    let args = [
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--exercises",
        "02",
        "--isolation",
        "worker",
        "--jobs",
        "1",
        "--format",
        "json",
    ];
    let mut child = course
        .command(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = wait_for_the_hang_after(&out.join("cells/a_correct/02.json"));
    // The worker runs in the course's folder: its command line names no path of the test. In
    // its sandbox, the process the grader started (bubblewrap) is the one to kill.
    let grader = child.id().to_string();
    let workers: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| {
            std::fs::read(entry.path().join("cmdline"))
                .is_ok_and(|line| String::from_utf8_lossy(&line).contains("__serve"))
                && std::fs::read_link(entry.path().join("cwd"))
                    .is_ok_and(|cwd| cwd.starts_with(course.dir.path()))
                && std::fs::read_to_string(entry.path().join("stat")).is_ok_and(|stat| {
                    stat.rsplit(')')
                        .next()
                        .and_then(|s| s.split_whitespace().nth(1))
                        == Some(grader.as_str())
                })
        })
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(workers.len(), 1, "one worker: {workers:?}");
    assert!(std::process::Command::new("kill")
        .args(["-KILL", &workers[0]])
        .status()
        .unwrap()
        .success());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    assert!(started.elapsed() < common::NEVER);
    let cell = |name: &str| read_json(&out.join(format!("cells/{name}/02.json")));
    let killed = cell("b_hang");
    assert_eq!(killed["status"], "crashed", "{killed:#}");
    assert!(
        killed["message"]
            .as_str()
            .unwrap()
            .contains("(SIGKILL, signal 9)"),
        "{killed:#}"
    );
    assert_eq!(cell("c_correct")["status"], "passed");
}

const H25: &str = "25_first_program/src/main.rs";
const PY01: &str = "py01_ufunc/ufunc.py";

#[test]
fn whole_programs_are_graded_only_when_asked_and_each_file_by_its_own_path() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("ann").join(H25), &solution(H25));
    put(&class.join("ann").join(PY01), &solution(PY01));
    put(&class.join("ben").join(H25), &exercise(H25));
    put(&class.join("ben").join(PY01), &exercise(PY01));
    // A folder of its own above the exercise's path: still exercise 25's.
    put(
        &class.join("cat/handin").join(H25),
        &fixture("host/25_leak.rs"),
    );
    // A main.rs with no exercise's folder around it could be any of 25-28's, but 25 is the only
    // Rust exercise graded: it is 25's. Beside another Rust file, it is refused. A Python file's
    // name is the exercise's own, so it is found alone.
    put(&class.join("dan/main.rs"), &solution(H25));
    put(&class.join("dan/ufunc.py"), &solution(PY01));
    put(&class.join("eli/main.rs"), &solution(H25));
    put(&class.join("eli/util.rs"), b"pub fn unused() {}\n");
    let out = work.path().join("grades");

    let refused = grade(&course, &class, &out, &["--exercises", "25,py01"]);
    assert_eq!(refused.code, 2, "{}", refused.all());
    assert!(
        refused.stderr.contains("exercise 25 is a whole program")
            && refused
                .stderr
                .contains("each runs in a bubblewrap sandbox of its own")
            && refused.stderr.contains("--run-programs")
            && refused
                .stderr
                .contains("runner check 25 --file PATH/25_first_program/src/main.rs"),
        "{}",
        refused.all()
    );
    assert!(!out.exists(), "a refused grade wrote results");

    let run = grade(
        &course,
        &class,
        &out,
        &["--exercises", "25,py01", "--run-programs"],
    );
    assert_eq!(run.code, 0, "{}", run.all());
    let statuses = csv_table(&out.join("statuses.csv"));
    let cell = |student: &str, exercise: &str| {
        let json = read_json(&out.join(format!("cells/{student}/{exercise}.json")));
        (
            json["status"].as_str().unwrap().to_string(),
            json["points"].as_f64().unwrap(),
            json["message"].as_str().unwrap().to_string(),
        )
    };
    let expected = [
        ("ann", "25", "passed", 10.0),
        ("ann", "py01", "passed", 10.0),
        ("ben", "25", "not_done", 0.0),
        ("ben", "py01", "not_done", 0.0),
        ("cat", "25", "target_missed", 5.0),
        ("cat", "py01", "missing", 0.0),
        ("dan", "25", "passed", 10.0),
        ("dan", "py01", "passed", 10.0),
        ("eli", "25", "refused", 0.0),
        ("eli", "py01", "missing", 0.0),
    ];
    for (student, exercise, status, points) in expected {
        let (got, got_points, message) = cell(student, exercise);
        assert_eq!(
            (got.as_str(), got_points),
            (status, points),
            "{student} {exercise}: {message}"
        );
        assert_eq!(statuses[&(student.into(), exercise.into())], status);
    }
    let (_, _, leak) = cell("cat", "25");
    assert!(leak.contains("still allocated"), "{leak}");
    let (_, _, lone) = cell("dan", "25");
    assert!(
        lone.contains("Graded main.rs, taken as 25_first_program/src/main.rs"),
        "{lone}"
    );
    let (_, _, lone) = cell("eli", "25");
    assert!(
        lone.contains("main.rs could be any of several exercises' main.rs")
            && lone.contains("put exercise 25's at 25_first_program/src/main.rs"),
        "{lone}"
    );
    let cases = read_json(&out.join("cells/ann/25.json"))["cases"].clone();
    assert!(cases.as_array().is_some_and(|c| !c.is_empty()), "{cases}");
}

const CPP01: &str = "cpp01_first_program/first_program.cu";

#[test]
fn cpp_programs_are_built_with_the_courses_nvcc_inside_each_cells_sandbox() {
    if !repo_root().join(".nvcc/bin/nvcc").exists() {
        eprintln!("skipped: nvcc is not installed (scripts/install-nvcc installs it from PyPI)");
        return;
    }
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("ann").join(CPP01), &solution(CPP01));
    put(&class.join("ben").join(CPP01), &exercise(CPP01));
    put(
        &class.join("cat").join(CPP01),
        &fixture("host/cpp01_leak.cu"),
    );
    let out = work.path().join("grades");
    let run = grade(
        &course,
        &class,
        &out,
        &["--exercises", "cpp01", "--run-programs"],
    );
    assert_eq!(run.code, 0, "{}", run.all());
    let cell = |student: &str| {
        let json = read_json(&out.join(format!("cells/{student}/cpp01.json")));
        let text = |key: &str| json[key].as_str().unwrap_or_default().to_string();
        (text("status"), text("message"))
    };
    assert_eq!(cell("ann").0, "passed", "{:?}", cell("ann"));
    assert_eq!(cell("ben").0, "not_done", "{:?}", cell("ben"));
    let (status, message) = cell("cat");
    assert!(
        status != "passed" && message.contains("cudaFree"),
        "{status}: {message}"
    );
}

#[test]
fn a_gradescope_autograder_for_whole_programs_runs_them_and_says_what_the_image_needs() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let (run, out) = write_autograder(&course, "02,25", work.path());
    assert!(
        run.stdout.contains("It grades exercises 02, 25.")
            && run
                .stderr
                .contains("whole programs, which the zip grades with --run-programs")
            && run.stderr.contains("cargo with rustup"),
        "{}",
        run.all()
    );
    let mut zip =
        zip::ZipArchive::new(std::fs::File::open(out.join("autograder.zip")).unwrap()).unwrap();
    let mut script = String::new();
    std::io::Read::read_to_string(&mut zip.by_name("run_autograder").unwrap(), &mut script)
        .unwrap();
    assert!(script.contains(" --run-programs"), "{script}");
    assert!(script.contains("$HOME/.cargo/bin"), "{script}");
    // What a Rust exercise needs to build there, and the steps that install the rest.
    for name in [
        "libsimcuda.so",
        "course/Cargo.lock",
        "course/hostkit/Cargo.toml",
        "course/hostkit/src/lib.rs",
        "course/exercises/25_first_program/Cargo.toml",
        "course/exercises/25_first_program/saxpy.cu",
        "course/exercises/25_first_program/src/main.rs",
    ] {
        assert!(zip.by_name(name).is_ok(), "the zip lacks {name}");
    }
    let mut setup = String::new();
    std::io::Read::read_to_string(&mut zip.by_name("setup.sh").unwrap(), &mut setup).unwrap();
    assert!(
        setup.contains("sh.rustup.rs") && setup.contains("\"$source/runner-grade\" check 25"),
        "{setup}"
    );
    assert!(
        !setup.contains("install-cuda-python"),
        "no Python exercise: {setup}"
    );
}

#[test]
fn a_gradescope_autograder_for_cpp_programs_installs_nvcc_and_a_host_compiler() {
    let course = TestCourse::new();
    // The test course has no scripts/: the zip carries the course's own installer.
    std::fs::create_dir_all(course.path("scripts")).unwrap();
    std::fs::copy(
        repo_root().join("scripts/install-nvcc"),
        course.path("scripts/install-nvcc"),
    )
    .unwrap();
    let work = tempfile::tempdir().unwrap();
    let (run, out) = write_autograder(&course, "cpp01", work.path());
    let mut zip =
        zip::ZipArchive::new(std::fs::File::open(out.join("autograder.zip")).unwrap()).unwrap();
    assert!(
        zip.by_name("course/scripts/install-nvcc").is_ok(),
        "{}",
        run.all()
    );
    let mut setup = String::new();
    std::io::Read::read_to_string(&mut zip.by_name("setup.sh").unwrap(), &mut setup).unwrap();
    assert!(
        setup.contains("install-nvcc") && setup.contains("g++") && !setup.contains("sh.rustup.rs"),
        "{setup}"
    );
}

#[test]
fn bench_profile_says_where_the_workers_time_went() {
    let course = TestCourse::new();
    let run = course.run(&[
        "bench",
        "--submissions",
        "2",
        "--exercises",
        "01-02",
        "--isolation",
        "worker",
        "--jobs",
        "1",
        "--profile",
    ]);
    let text = run.all();
    assert_eq!(run.code, 0, "{text}");
    assert!(text.contains("Where the workers' time went"), "{text}");
    // Every check compiles its kernel and runs it: both phases are in the table.
    assert!(text.contains("compiled (from cache:"), "{text}");
    assert!(text.contains("kernel run"), "{text}");
}
