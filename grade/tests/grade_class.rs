//! `runner grade` on the forms a real class hands in, through the simulator: every submission
//! graded or named with why not (archives of every common kind, build folders, files renamed by
//! a learning platform, a lone program file), the originals taken from the runner's embedded
//! copies, and outputs that say when they are partial.

#[path = "../../runner/tests/common/mod.rs"]
mod common;

use common::{repo_root, TestCourse};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

const K02: &str = "02_vector_add/vector_add.cu";
const PY01: &str = "py01_ufunc/ufunc.py";

fn solution(file: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("solutions").join(file)).unwrap()
}

fn exercise(file: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("exercises").join(file)).unwrap()
}

fn put(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
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

/// Each cell's (status, message) by (submission, exercise), from `cells/`.
fn cells(out: &Path) -> BTreeMap<(String, String), (String, String)> {
    let mut found = BTreeMap::new();
    for student in std::fs::read_dir(out.join("cells")).unwrap().flatten() {
        for file in std::fs::read_dir(student.path()).unwrap().flatten() {
            if file.path().extension().is_some_and(|e| e == "json") {
                let cell: Value =
                    serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
                let text = |k: &str| cell[k].as_str().unwrap().to_string();
                found.insert(
                    (text("submission"), text("exercise")),
                    (text("status"), text("message")),
                );
            }
        }
    }
    found
}

fn cell(
    cells: &BTreeMap<(String, String), (String, String)>,
    who: &str,
    id: &str,
) -> (String, String) {
    cells
        .get(&(who.to_string(), id.to_string()))
        .unwrap_or_else(|| panic!("no cell {who} {id} in {cells:?}"))
        .clone()
}

#[test]
fn a_solved_copy_of_the_course_does_not_make_a_correct_submission_not_done() {
    let course = TestCourse::new();
    // The instructor grades from their own copy, in which they solved the exercise.
    course.solve(K02);
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("ann").join(K02), &solution(K02));
    put(&class.join("ben").join(K02), &exercise(K02));
    let out = work.path().join("grades");
    let run = grade(&course, &class, &out, &["--exercises", "02"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let cells = cells(&out);
    let (ann, said) = cell(&cells, "ann", "02");
    assert_eq!(ann, "passed", "{said}");
    let (ben, said) = cell(&cells, "ben", "02");
    assert_eq!(ben, "not_done", "{said}");
}

#[test]
fn files_renamed_by_a_learning_platform_are_graded_and_the_file_taken_is_named() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("ann/vector_add (1).cu"), &solution(K02));
    put(&class.join("ben/vector_add-1.cu"), &solution(K02));
    // A download that put the student's name and ids before the file's, flat in one folder.
    put(
        &class.join("cat/smithcat_4711_88_vector_add-2.cu"),
        &solution(K02),
    );
    // The exercise's own name wins over a renamed copy beside it.
    put(&class.join("dan/vector_add.cu"), &solution(K02));
    put(&class.join("dan/vector_add (1).cu"), &exercise(K02));
    // An export that gives each student's upload as one file beside the others'.
    put(&class.join("gus_4711_vector_add-1.cu"), &solution(K02));
    // The file as handed out beside a second upload with the work in it: the work is graded.
    put(&class.join("fay/vector_add.cu"), &exercise(K02));
    put(&class.join("fay/vector_add (1).cu"), &solution(K02));
    // Two versions of the work: the exercise's own name is graded, the other named as not.
    put(&class.join("gil/vector_add.cu"), &solution(K02));
    let mut older = solution(K02);
    older.extend_from_slice(b"\n// my first try\n");
    put(&class.join("gil/vector_add-1.cu"), &older);
    // Two renamed copies: which one is meant cannot be told.
    put(&class.join("eve/vector_add (1).cu"), &solution(K02));
    put(&class.join("eve/vector_add (2).cu"), &exercise(K02));
    let out = work.path().join("grades");
    let run = grade(&course, &class, &out, &["--exercises", "02"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let cells = cells(&out);
    for (who, file) in [
        ("ann", "vector_add (1).cu"),
        ("ben", "vector_add-1.cu"),
        ("cat", "smithcat_4711_88_vector_add-2.cu"),
        ("fay", "vector_add (1).cu"),
        ("gus_4711_vector_add-1", "gus_4711_vector_add-1.cu"),
    ] {
        let (status, message) = cell(&cells, who, "02");
        assert_eq!(status, "passed", "{who}: {message}");
        assert!(
            message.contains(&format!("Graded {file}, taken as {K02}")),
            "{who}: {message}"
        );
    }
    let (status, message) = cell(&cells, "dan", "02");
    assert_eq!(status, "passed", "{message}");
    assert!(!message.contains("Graded "), "{message}");
    // The copy as handed out is no other version of the work.
    assert!(!message.contains("Not graded"), "{message}");
    let (status, message) = cell(&cells, "gil", "02");
    assert_eq!(status, "passed", "{message}");
    assert!(
        message.contains("Not graded: vector_add-1.cu, which looks like"),
        "{message}"
    );
    let (status, message) = cell(&cells, "eve", "02");
    assert_eq!(status, "refused", "{message}");
    assert!(
        message.contains("vector_add (1).cu, vector_add (2).cu all look like"),
        "{message}"
    );
}

#[test]
fn a_flat_export_is_graded_one_submission_per_student_naming_renamed_files() {
    const K08: &str = "08_histogram/histogram.cu";
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    // Canvas's "Download submissions": every upload flat in one folder, named
    // <student>_<user id>_<submission id>_<file as uploaded>, `LATE` after a late one's name.
    put(
        &class.join("doe_jane_1001_5001_vector_add.cu"),
        &solution(K02),
    );
    put(
        &class.join("doe_jane_1001_5001_histogram (1).cu"),
        &solution(K08),
    );
    put(
        &class.join("roe_rick_LATE_1002_5002_vector_add-1.cu"),
        &solution(K02),
    );
    put(
        &class.join("roe_rick_LATE_1002_5002_histogram.cu"),
        &exercise(K08),
    );
    // Two students of one name, told apart by their user ids.
    put(
        &class.join("lee_kim_1003_5003_vector_add.cu"),
        &exercise(K02),
    );
    put(
        &class.join("lee_kim_1004_5004_vector_add.cu"),
        &solution(K02),
    );
    let out = work.path().join("grades");
    let run = grade(&course, &class, &out, &["--exercises", "02,08"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let cells = cells(&out);
    let students: std::collections::BTreeSet<&str> =
        cells.keys().map(|(who, _)| who.as_str()).collect();
    assert_eq!(students.len(), 4, "{students:?}");
    let (status, message) = cell(&cells, "doe_jane", "02");
    assert_eq!(status, "passed", "{message}");
    assert!(!message.contains("Graded "), "{message}");
    for (who, id, status, file) in [
        ("doe_jane", "08", "passed", "histogram (1).cu"),
        ("roe_rick", "02", "passed", "vector_add-1.cu"),
    ] {
        let (got, message) = cell(&cells, who, id);
        assert_eq!(got, status, "{who} {id}: {message}");
        let exercise_file = if id == "02" { K02 } else { K08 };
        assert!(
            message.contains(&format!("Graded {file}, taken as {exercise_file}")),
            "{who} {id}: {message}"
        );
    }
    assert_eq!(cell(&cells, "roe_rick", "08").0, "not_done");
    let mut lees: Vec<String> = cells
        .iter()
        .filter(|((who, id), _)| who.starts_with("lee_kim-") && id == "02")
        .map(|(_, (status, _))| status.clone())
        .collect();
    lees.sort();
    assert_eq!(lees, ["not_done", "passed"]);
    let gradebook = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    assert!(
        gradebook.contains("lee_kim_1003") && gradebook.contains("lee_kim_1004"),
        "{gradebook}"
    );
}

#[test]
fn a_lone_python_file_is_graded_as_the_one_python_exercise_of_the_assignment() {
    let course = TestCourse::new();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    // A drag-and-drop upload: the answer at the top, under a name of the student's choosing.
    put(&class.join("ann/my_answer.py"), &solution(PY01));
    // Two Python files: which is the answer cannot be told.
    put(&class.join("ben/a.py"), &solution(PY01));
    put(&class.join("ben/b.py"), &solution(PY01));
    let out = work.path().join("grades");
    let run = grade(
        &course,
        &class,
        &out,
        &["--exercises", "py01", "--run-programs"],
    );
    assert_eq!(run.code, 0, "{}", run.all());
    let cells = cells(&out);
    let (status, message) = cell(&cells, "ann", "py01");
    assert_eq!(status, "passed", "{message}");
    assert!(
        message.contains(&format!("Graded my_answer.py, taken as {PY01}")),
        "{message}"
    );
    let (status, message) = cell(&cells, "ben", "py01");
    assert_eq!(status, "missing", "{message}");
}

/// A tar archive of `entries` (name, bytes), written through `compress`.
fn tar_of<W: Write>(compress: W, entries: &[(&str, Vec<u8>)]) -> W {
    let mut builder = tar::Builder::new(compress);
    for (name, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, name, &bytes[..]).unwrap();
    }
    builder.into_inner().unwrap()
}

fn zip_of(path: &Path, entries: &[(&str, Vec<u8>)]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

fn seven_zip_of(path: &Path, entries: &[(&str, Vec<u8>)]) {
    let mut archive = sevenz_rust2::ArchiveWriter::create(path).unwrap();
    for (name, bytes) in entries {
        archive
            .push_archive_entry(sevenz_rust2::ArchiveEntry::new_file(name), Some(&bytes[..]))
            .unwrap();
    }
    archive.finish().unwrap();
}

/// The entries as `tar_of`, `zip_of` and `seven_zip_of` take them.
fn as_refs(entries: &[(String, Vec<u8>)]) -> Vec<(&str, Vec<u8>)> {
    entries
        .iter()
        .map(|(n, b)| (n.as_str(), b.clone()))
        .collect()
}

#[test]
fn every_common_archive_is_read_and_build_folders_count_against_no_limit() {
    let course = TestCourse::new();
    // Archives may expand to 1 MiB outside build folders.
    std::fs::write(course.path("grading.toml"), "max_expanded_mb = 1\n").unwrap();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    std::fs::create_dir_all(&class).unwrap();
    let answer = || (K02, solution(K02));
    // Two MiB of build output, and many small files, as cargo and Python leave them.
    let build = |folder: &str| -> Vec<(String, Vec<u8>)> {
        let mut files = vec![(format!("{folder}/debug/big.rlib"), vec![7u8; 2 << 20])];
        files.extend((0..50).map(|i| (format!("{folder}/debug/deps/f{i}.d"), vec![b'x'; 100])));
        files
    };
    let with_build = |folder: &str| {
        let owned = build(folder);
        let mut entries: Vec<(String, Vec<u8>)> = vec![(K02.to_string(), solution(K02))];
        entries.extend(owned);
        entries
    };

    let xz = std::fs::File::create(class.join("ann.tar.xz")).unwrap();
    let xz = lzma_rust2::XzWriter::new(xz, lzma_rust2::XzOptions::with_preset(1)).unwrap();
    tar_of(xz, &[answer()]).finish().unwrap();
    let bz = std::fs::File::create(class.join("ben.tar.bz2")).unwrap();
    let bz = bzip2::write::BzEncoder::new(bz, bzip2::Compression::fast());
    tar_of(bz, &as_refs(&with_build("__pycache__")))
        .finish()
        .unwrap();
    seven_zip_of(&class.join("cat.7z"), &as_refs(&with_build("target")));
    tar_of(
        std::fs::File::create(class.join("dan.tar")).unwrap(),
        &[answer()],
    );
    zip_of(
        &class.join("eve.zip"),
        &as_refs(&with_build("crate/target")),
    );
    // Outside a build folder, the same bytes are past the limit.
    let eve = with_build("crate/target");
    let mut heavy = as_refs(&eve);
    heavy.push(("notes/recording.bin", vec![7u8; 2 << 20]));
    zip_of(&class.join("fay.zip"), &heavy);
    std::fs::write(class.join("gus.rar"), b"Rar!\x1a\x07\x00").unwrap();

    let out = work.path().join("grades");
    let run = grade(&course, &class, &out, &["--exercises", "02"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let cells = cells(&out);
    for who in ["ann", "ben", "cat", "dan", "eve"] {
        let (status, message) = cell(&cells, who, "02");
        assert_eq!(status, "passed", "{who}: {message}");
    }
    let (status, message) = cell(&cells, "fay", "02");
    assert_eq!(status, "refused", "{message}");
    assert!(
        message.contains("fay.zip expands to more than 1.0 MiB (a zip bomb?), build folders aside"),
        "{message}"
    );
    let (status, message) = cell(&cells, "gus", "02");
    assert_eq!(status, "refused", "{message}");
    assert!(
        message
            .contains("gus.rar is a RAR archive, which the grader does not read: hand in a .zip"),
        "{message}"
    );
    let statuses = std::fs::read_to_string(out.join("statuses.csv")).unwrap();
    assert!(statuses.contains("gus.rar,refused"), "{statuses}");
}

/// A course in which a hanging kernel hangs until stopped: the simulator's own budget and the
/// grading time limit are an hour.
fn course_where_hangs_last() -> TestCourse {
    let course = TestCourse::new();
    let metadata = course.path("exercises/exercises.toml");
    let text = std::fs::read_to_string(&metadata)
        .unwrap()
        .replace("time_limit_ms = 2000", "time_limit_ms = 3600000");
    std::fs::write(&metadata, text).unwrap();
    std::fs::write(course.path("grading.toml"), "time_limit_s = 3600\n").unwrap();
    course
}

/// Waits (within `common::NEVER`) until `found` says yes.
fn wait_until(what: &str, found: impl Fn() -> bool) {
    let started = std::time::Instant::now();
    while !found() {
        assert!(started.elapsed() < common::NEVER, "{what} never happened");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The grader's scratch folders in `temp`.
fn scratch_folders(temp: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(temp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("runner-grade-")
        })
        .collect()
}

#[test]
fn a_stopped_run_says_partial_in_every_format_and_a_killed_runs_scratch_goes_next_time() {
    let course = course_where_hangs_last();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    put(&class.join("a_done").join(K02), &solution(K02));
    put(
        &class.join("z_hang").join(K02),
        &std::fs::read(repo_root().join("runner/tests/fixtures/vector_add_hang.cu")).unwrap(),
    );
    let out = work.path().join("grades");
    let temp = work.path().join("tmp");
    std::fs::create_dir_all(&temp).unwrap();
    let args = [
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--exercises",
        "02",
        "--jobs",
        "1",
        "--resume",
    ];
    let start = || {
        course
            .command(&args)
            .env("TMPDIR", &temp)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };

    // Ctrl-C while z_hang's check hangs: every format is written, and each says partial.
    let child = start();
    wait_until("a_done's cell", || {
        out.join("cells/a_done/02.json").exists()
    });
    assert!(std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let stopped = child.wait_with_output().unwrap();
    assert_eq!(stopped.status.code(), Some(130), "{stopped:?}");
    let gradebook = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    assert!(
        gradebook.contains("a_done,a_done,10,10,10,yes")
            && gradebook.contains("z_hang,z_hang,,0,10,partial"),
        "{gradebook}"
    );
    let class_json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("class.json")).unwrap()).unwrap();
    assert_eq!(
        class_json["completeness"]["complete"], false,
        "{class_json:#}"
    );
    let z_json: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("submissions/z_hang.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(z_json["complete"], false);
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert!(
        junit.contains("<testsuites name=\"runner grade: PARTIAL RESULTS: 1 of 2 cells"),
        "{junit}"
    );
    let gradescope: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("gradescope/z_hang/results.json")).unwrap(),
    )
    .unwrap();
    assert!(
        gradescope["output"]
            .as_str()
            .unwrap()
            .starts_with("PARTIAL RESULTS"),
        "{gradescope:#}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("<p class=\"warning\" id=\"partial\">PARTIAL RESULTS"),
        "partial page"
    );

    // Killed outright: the grader cannot remove its scratch folder, the next run does.
    let mut child = start();
    wait_until("the scratch folder named by its grader", || {
        scratch_folders(&temp)
            .iter()
            .any(|dir| dir.join("grader").exists())
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(scratch_folders(&temp).len(), 1, "left by the killed grader");
    put(&class.join("z_hang").join(K02), &solution(K02));
    let run = course.command(&args).env("TMPDIR", &temp).output().unwrap();
    assert!(run.status.success(), "{run:?}");
    assert_eq!(scratch_folders(&temp), Vec::<std::path::PathBuf>::new());
    // Complete now: no format says partial.
    let gradebook = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    assert!(!gradebook.contains("partial"), "{gradebook}");
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert!(
        junit.contains("<testsuites name=\"runner grade\""),
        "{junit}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(!html.contains("id=\"partial\""));
}

/// `scripts/install-cuda-python --packages-for VERSION`: the packages pinned for that Python.
fn python_packages_for(version: &str) -> common::Run {
    common::Run::from(
        std::process::Command::new("bash")
            .arg(repo_root().join("scripts/install-cuda-python"))
            .args(["--packages-for", version])
            .output()
            .unwrap(),
    )
}

/// Whether pip can reach the package index from here (the dry runs below need it).
fn pypi_reachable(scratch: &Path) -> bool {
    std::process::Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
        ])
        .arg("--dest")
        .arg(scratch)
        .arg("packaging==26.3")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_python_track_pins_for_each_images_python_what_that_python_can_install() {
    // Ubuntu 22.04 has Python 3.10, for which numpy 2.4 and cuda-pathfinder 1.9 have no wheel.
    let jammy = python_packages_for("3.10");
    assert_eq!(jammy.code, 0, "{}", jammy.all());
    assert!(
        jammy.stdout.contains("numpy==2.2.6") && jammy.stdout.contains("cuda-pathfinder==1.8.3"),
        "{}",
        jammy.stdout
    );
    let noble = python_packages_for("3.12");
    assert!(noble.stdout.contains("numpy==2.4.6"), "{}", noble.stdout);
    let old = python_packages_for("3.8");
    assert_ne!(old.code, 0);
    assert!(
        old.stderr.contains("Python 3.8 is too old"),
        "{}",
        old.stderr
    );
    // Each set resolves for its Python, dependencies included, as pip would on the image.
    let scratch = tempfile::tempdir().unwrap();
    if !pypi_reachable(scratch.path()) {
        eprintln!("PyPI cannot be reached from here: the dry runs of pip are left out");
        return;
    }
    for (python, packages) in [("3.10", &jammy.stdout), ("3.12", &noble.stdout)] {
        let resolved = std::process::Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--dry-run",
                "--quiet",
                "--ignore-installed",
                "--no-deps",
                "--ignore-requires-python",
                "--report",
                "-",
            ])
            .args([
                "--only-binary=:all:",
                "--python-version",
                python,
                "--target",
            ])
            .arg(scratch.path().join(python))
            .args(packages.split_whitespace())
            .output()
            .unwrap();
        assert!(
            resolved.status.success(),
            "Python {python}: {}",
            String::from_utf8_lossy(&resolved.stderr)
        );
        let problems = problems_on_python(python, &resolved.stdout);
        assert!(problems.is_empty(), "Python {python}: {problems}");
    }
}

/// What is wrong with the packages of a `pip install --report` on Python `python`: a package
/// that does not support that Python, or a dependency the list lacks (the installer pins with
/// --no-deps). Empty when nothing is. pip's `--python-version` picks wheels for that Python but
/// checks `Requires-Python` and evaluates markers such as `python_version < "3.11"` for the
/// Python it runs on, so both are evaluated here, with pip's own `packaging`, for the image's.
fn problems_on_python(python: &str, report: &[u8]) -> String {
    const CHECK: &str = r#"
import json, sys
from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.specifiers import SpecifierSet
from pip._vendor.packaging.utils import canonicalize_name
version = sys.argv[1]
env = {"python_version": version, "python_full_version": version + ".0", "extra": ""}
installs = json.load(sys.stdin)["install"]
pinned = {canonicalize_name(i["metadata"]["name"]) for i in installs}
problems = set()
for item in installs:
    meta = item["metadata"]
    if version + ".0" not in SpecifierSet(meta.get("requires_python") or ""):
        problems.add(f"{meta['name']} {meta['version']} needs Python {meta['requires_python']}")
    for line in meta.get("requires_dist") or []:
        req = Requirement(line)
        if (req.marker is None or req.marker.evaluate(env)) and canonicalize_name(req.name) not in pinned:
            problems.add(f"{meta['name']} needs {req.name}, which is not pinned")
print("; ".join(sorted(problems)))
"#;
    let mut child = std::process::Command::new("python3")
        .args(["-c", CHECK, python])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), report).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the marker check failed");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn the_gradescope_setup_stops_on_a_program_that_does_not_build_and_hides_no_failure() {
    let course = TestCourse::new();
    std::fs::write(course.path("grading.toml"), "exercises = \"02,25,py01\"\n").unwrap();
    // The zip carries the course's installer of the Python track.
    std::fs::create_dir(course.path("scripts")).unwrap();
    std::fs::copy(
        repo_root().join("scripts/install-cuda-python"),
        course.path("scripts/install-cuda-python"),
    )
    .unwrap();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("grades");
    let run = course.run(&["--gradescope-autograder", "--out", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.all());
    let mut zip =
        zip::ZipArchive::new(std::fs::File::open(out.join("autograder.zip")).unwrap()).unwrap();
    let mut setup = String::new();
    std::io::Read::read_to_string(&mut zip.by_name("setup.sh").unwrap(), &mut setup).unwrap();
    assert!(!setup.contains("|| true"), "{setup}");
    assert!(setup.contains("verdict"), "{setup}");
    // The script is valid shell, and its build step stops the image on a failed build: run it
    // with a runner that reports a compile error, and with one that reports a failed check.
    let script = work.path().join("setup.sh");
    std::fs::write(&script, &setup).unwrap();
    let syntax = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        syntax.status.success(),
        "{}",
        String::from_utf8_lossy(&syntax.stderr)
    );
    let start = setup.find("code=0").unwrap();
    let end = setup[start..].find("\nfi\n").unwrap() + start + 4;
    let step = &setup[start..end];
    for (verdict, code, stops) in [
        ("compile_error", 1, true),
        ("not_done", 1, false),
        ("", 2, true),
    ] {
        let source = tempfile::tempdir().unwrap();
        std::fs::create_dir(source.path().join("course")).unwrap();
        let runner = source.path().join("runner-grade");
        std::fs::write(
            &runner,
            format!("#!/bin/sh\necho '{{\"verdict\": \"{verdict}\"}}'\nexit {code}\n"),
        )
        .unwrap();
        std::fs::set_permissions(&runner, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let ran = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "set -euo pipefail\nsource={}\n{step}echo built\n",
                source.path().display()
            ))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&ran.stdout).to_string()
            + &String::from_utf8_lossy(&ran.stderr);
        assert_eq!(!ran.status.success(), stops, "{verdict} {code}: {said}");
        assert_eq!(said.contains("built"), !stops, "{said}");
    }
}

/// Exercise 02's kernel with `body` in place of its TODOs.
fn vector_add_with(body: &str) -> String {
    let exercise = String::from_utf8(exercise(K02)).unwrap();
    let start = exercise.find("    // TODO: compute").unwrap();
    let end = exercise.find("}\n// ANCHOR_END").unwrap();
    format!("{}{body}{}", &exercise[..start], &exercise[end..])
}

#[test]
fn similarity_subtracts_the_course_text_leaves_standard_kernels_alone_and_ranks_by_rarity() {
    let course = TestCourse::new();
    // A last hint with a whole loop in it, which students paste.
    let metadata = course.path("exercises/exercises.toml");
    let text = std::fs::read_to_string(&metadata).unwrap().replace(
        "    \"if (i < n) c[i] = a[i] + b[i];\",\n",
        "    \"if (i < n) c[i] = a[i] + b[i];\",\n    \"Or a loop: const int stride = gridDim.x * blockDim.x; \
         for (int k = threadIdx.x + blockDim.x * blockIdx.x; k < n; k += stride) { float left = a[k]; \
         float right = b[k]; c[k] = left + right; }\",\n",
    );
    std::fs::write(&metadata, text).unwrap();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    let hand_in =
        |who: &str, body: &str| put(&class.join(who).join(K02), vector_add_with(body).as_bytes());
    // Six write the same standard grid-stride loop: common, so no group.
    let standard = "    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += blockDim.x * gridDim.x) {\n        \
                    c[k] = a[k] + b[k];\n    }\n";
    for who in ["s1", "s2", "s3", "s4", "s5", "s6"] {
        hand_in(who, standard);
    }
    // Three paste the hint's loop, each with a line of their own: no group.
    let pasted = "    const int stride = gridDim.x * blockDim.x;\n    \
                  for (int k = threadIdx.x + blockDim.x * blockIdx.x; k < n; k += stride) {\n        \
                  float left = a[k];\n        float right = b[k];\n        c[k] = left + right;\n    }\n";
    hand_in("h1", &format!("    if (n == 0) return;\n{pasted}"));
    hand_in("h2", &format!("{pasted}    __syncthreads();\n"));
    hand_in(
        "h3",
        &format!("    if (blockIdx.x >= gridDim.x) return;\n{pasted}"),
    );
    // A pair with an answer of their own, one renamed; a trio with a shorter one.
    let pair = "    int first = (blockIdx.x * blockDim.x + threadIdx.x) * 2;\n    if (first + 1 < n) {\n        \
                float2 pv = make_float2(a[first], a[first + 1]);\n        c[first] = pv.x + b[first];\n        \
                c[first + 1] = pv.y + b[first + 1];\n    } else if (first < n) {\n        c[first] = a[first] + b[first];\n    }\n";
    hand_in("c1", pair);
    hand_in("c2", &pair.replace("first", "base").replace("pv", "two"));
    let trio = "    int i = threadIdx.x + blockIdx.x * blockDim.x;\n    float sum = (i < n) ? a[i] : 0.0f;\n    \
                sum += (i < n) ? b[i] : 0.0f;\n    if (i < n) c[i] = sum;\n";
    for who in ["t1", "t2", "t3"] {
        hand_in(who, trio);
    }
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
    let groups: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("similarity.json")).unwrap())
            .unwrap();
    let members: Vec<Vec<&str>> = groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            g["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(
        members,
        [vec!["c1", "c2"], vec!["t1", "t2", "t3"]],
        "{groups:#}"
    );
    let bits = |k: usize| groups[k]["rarity_bits"].as_f64().unwrap();
    assert!(bits(0) > bits(1), "the rarer match first: {groups:#}");
    // The page lists the groups closed, their pairs inside.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("details\", { class: \"similar-group\""),
        "compact list"
    );
}

#[test]
fn on_gradescope_a_lone_python_file_dragged_in_is_graded_as_the_one_python_exercise() {
    let course = TestCourse::new();
    std::fs::write(course.path("grading.toml"), "exercises = \"02,py01\"\n").unwrap();
    std::fs::create_dir(course.path("scripts")).unwrap();
    std::fs::copy(
        repo_root().join("scripts/install-cuda-python"),
        course.path("scripts/install-cuda-python"),
    )
    .unwrap();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("zip");
    let run = course.run(&["--gradescope-autograder", "--out", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.all());
    // Unpacked as Gradescope does, with the student's upload beside it.
    let root = work.path().join("autograder");
    zip::ZipArchive::new(std::fs::File::open(out.join("autograder.zip")).unwrap())
        .unwrap()
        .extract(root.join("source"))
        .unwrap();
    // The course's NVRTC and CUDA Python stand in for what setup.sh installs.
    put(&root.join("submission/answer.py"), &solution(PY01));
    put(&root.join("submission/vector_add.cu"), &solution(K02));
    let mut script = std::process::Command::new("bash");
    script
        .arg(root.join("source/run_autograder"))
        .env("AUTOGRADER_ROOT", &root)
        .env("NO_COLOR", "1")
        .env(
            "RUNNER_CUDA_PYTHON",
            repo_root().join(".cuda-python/bin/python"),
        );
    let nvrtc = repo_root().join(".nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
    if nvrtc.exists() {
        script.env("RUNNER_NVRTC", nvrtc);
    }
    let ran = script.output().unwrap();
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("results/results.json")).unwrap())
            .unwrap();
    let said = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(results["score"].as_f64(), Some(20.0), "{results:#}\n{said}");
    let py01 = results["tests"][1]["output"].as_str().unwrap();
    assert!(
        py01.contains(&format!("Graded answer.py, taken as {PY01}")),
        "{py01}"
    );
}

/// A tar entry of `kind` at `name` with `bytes` as its data, whatever its header declares.
fn tar_entry(builder: &mut tar::Builder<Vec<u8>>, name: &[u8], kind: tar::EntryType, link: &str) {
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(kind);
    header.set_size(0);
    header.set_mode(0o644);
    // Raw bytes, so that a name may hold a newline or bytes that are not UTF-8.
    header.as_old_mut().name[..name.len()].copy_from_slice(name);
    if !link.is_empty() {
        header.set_link_name(link).unwrap();
    }
    header.set_cksum();
    builder.append(&header, &[][..]).unwrap();
}

/// A tar archive as `tar_of` writes it, with one entry added by `more`.
fn tar_with(entries: &[(&str, Vec<u8>)], more: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, name, &bytes[..]).unwrap();
    }
    more(&mut builder);
    builder.into_inner().unwrap()
}

/// The hostile and the clumsy forms of one class: each submission is graded from what is safe
/// in it or named in every output with why not and what to do, nothing is written outside the
/// grader's folders, and no submission is lost.
#[test]
fn every_odd_or_hostile_archive_is_graded_from_what_is_safe_or_named_with_why() {
    let course = TestCourse::new();
    std::fs::write(
        course.path("grading.toml"),
        "max_entries = 50\nmax_expanded_mb = 1\n",
    )
    .unwrap();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    std::fs::create_dir_all(&class).unwrap();
    let answer = || (K02, solution(K02));
    let file = tar::EntryType::Regular;
    put(
        &class.join("hard.tar"),
        &tar_with(&[answer()], |b| {
            tar_entry(
                b,
                b"notes/passwd",
                tar::EntryType::Link,
                "../../../etc/passwd",
            )
        }),
    );
    put(
        &class.join("fifo.tar"),
        &tar_with(&[], |b| {
            tar_entry(b, K02.as_bytes(), tar::EntryType::Fifo, "")
        }),
    );
    put(
        &class.join("device.tar"),
        &tar_with(&[], |b| {
            tar_entry(b, K02.as_bytes(), tar::EntryType::Char, "")
        }),
    );
    // A header that declares a terabyte, with no data behind it.
    put(
        &class.join("huge.tar"),
        &tar_with(&[answer()], |b| {
            let mut header = tar::Header::new_gnu();
            header.set_path("video.bin").unwrap();
            header.set_size(1 << 40);
            header.set_cksum();
            b.get_mut().extend_from_slice(header.as_bytes());
        }),
    );
    // A folder whose name has a line break, beside one whose name is not UTF-8.
    put(
        &class.join("names.tar"),
        &tar_with(&[], |b| {
            tar_entry(b, b"caf\xe9/notes.txt", file, "");
            let mut header = tar::Header::new_gnu();
            header.set_size(solution(K02).len() as u64);
            header.set_mode(0o644);
            let name = b"my\nwork/02_vector_add/vector_add.cu";
            header.as_old_mut().name[..name.len()].copy_from_slice(name);
            header.set_cksum();
            b.append(&header, &solution(K02)[..]).unwrap();
        }),
    );
    let notes: Vec<(String, Vec<u8>)> = (0..60)
        .map(|i| (format!("notes/n{i}.txt"), b"x".to_vec()))
        .collect();
    let mut many = as_refs(&notes);
    many.push(answer());
    zip_of(&class.join("many.zip"), &many);
    let modules: Vec<(String, Vec<u8>)> = (0..60)
        .map(|i| (format!("node_modules/m{i}.js"), b"x".to_vec()))
        .collect();
    let mut with_modules = as_refs(&modules);
    with_modules.push(answer());
    zip_of(&class.join("modules.zip"), &with_modules);
    let inner = work.path().join("inner.zip");
    zip_of(&inner, &[answer()]);
    zip_of(
        &class.join("zipzip.zip"),
        &[("work/inner.zip", std::fs::read(&inner).unwrap())],
    );
    zip_of(&class.join("empty.zip"), &[]);
    zip_of(
        &class.join("mac.zip"),
        &[
            (
                "__MACOSX/02_vector_add/._vector_add.cu",
                b"\x00\x05\x16\x07 resource fork".to_vec(),
            ),
            (".DS_Store", b"\x00\x00\x00\x01Bud1".to_vec()),
            answer(),
        ],
    );
    put(&class.join("report.pdf"), b"%PDF-1.7\n");
    put(&class.join("pdf_only/report.pdf"), b"%PDF-1.7\n");
    put(&class.join("pair/alice").join(K02), &solution(K02));
    put(&class.join("pair/bob").join(K02), &exercise(K02));
    let tgz = flate2::write::GzEncoder::new(
        std::fs::File::create(class.join("tgz.tgz")).unwrap(),
        flate2::Compression::fast(),
    );
    tar_of(tgz, &[answer()]).finish().unwrap();

    let out = work.path().join("grades");
    let run = grade(&course, &class, &out, &["--exercises", "02"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let cells = cells(&out);
    let says = |who: &str, status: &str, words: &str| {
        let (got, message) = cell(&cells, who, "02");
        assert_eq!(got, status, "{who}: {message}");
        assert!(message.contains(words), "{who}: {message}");
    };
    says(
        "hard",
        "refused",
        "`notes/passwd` is a link to `../../../etc/passwd`, outside the archive",
    );
    says("fifo", "refused", "02_vector_add/vector_add.cu is a named pipe (FIFO) in the archive, not a file: put the file itself in the archive");
    says(
        "device",
        "refused",
        "is a character device in the archive, not a file",
    );
    says(
        "huge",
        "refused",
        "huge.tar expands to more than 1.0 MiB (a zip bomb?)",
    );
    says("names", "passed", "Every case is right");
    says(
        "many",
        "refused",
        "many.zip has more than 50 entries, build folders aside",
    );
    says("modules", "passed", "Every case is right");
    says("zipzip", "passed", "Every case is right");
    says(
        "empty",
        "missing",
        "the submission has no 02_vector_add/vector_add.cu; it holds no file",
    );
    says("mac", "passed", "Every case is right");
    says(
        "report",
        "refused",
        "report.pdf is a PDF document, not source code: hand in the exercises' files",
    );
    says(
        "pdf_only",
        "missing",
        "it holds 1 file, report.pdf, and it is no exercise's",
    );
    says("pair", "refused", "alice/02_vector_add/vector_add.cu, bob/02_vector_add/vector_add.cu all look like 02_vector_add/vector_add.cu");
    says("tgz", "passed", "Every case is right");

    // Every submission in the grade book and the JSON, and nothing written beside the class.
    let gradebook = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    let class_json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("class.json")).unwrap()).unwrap();
    let rows = class_json["rows"].as_array().unwrap();
    for who in [
        "hard", "fifo", "device", "huge", "names", "many", "modules", "zipzip", "empty", "mac",
        "report", "pdf_only", "pair", "tgz",
    ] {
        assert!(
            gradebook.lines().any(|l| l.starts_with(&format!("{who},"))),
            "{who}: {gradebook}"
        );
        assert!(
            rows.iter().any(|r| r["submission"] == who),
            "{who} not in class.json"
        );
    }
    let mut beside: Vec<String> = std::fs::read_dir(work.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    beside.sort();
    assert_eq!(beside, ["class", "grades", "inner.zip"]);
}
