//! `runner grade ARGS` runs the grader, `runner-grade`, with the same ARGS (and the colour the
//! runner decided): the one beside the runner's program first, else the first on PATH, and says
//! how to install it where there is none. Each test runs a copy of the runner in a folder of its
//! own, beside a stand-in grader that prints what it was given.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A folder holding a copy of the runner (a hard link where the file system allows one).
fn runner_in(dir: &Path) -> PathBuf {
    let copy = dir.join("runner");
    let built = Path::new(env!("CARGO_BIN_EXE_runner"));
    if std::fs::hard_link(built, &copy).is_err() {
        std::fs::copy(built, &copy).unwrap();
    }
    copy
}

/// A stand-in grader in `dir` that prints `name` and its arguments, one a line, and exits 7.
fn grader_in(dir: &Path, name: &str) {
    let path = dir.join("runner-grade");
    let script = format!("#!/bin/sh\necho {name}\nfor a in \"$@\"; do echo \"$a\"; done\nexit 7\n");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn scratch() -> tempfile::TempDir {
    // Beside the built runner, so that a hard link works.
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn grade(runner: &Path, path: &Path, args: &[&str]) -> std::process::Output {
    Command::new(runner)
        .arg("grade")
        .args(args)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn the_grader_beside_the_runner_gets_the_same_arguments_and_gives_its_exit_code() {
    let (here, elsewhere) = (scratch(), scratch());
    let runner = runner_in(here.path());
    grader_in(here.path(), "beside");
    grader_in(elsewhere.path(), "on-path");
    let out = grade(
        &runner,
        elsewhere.path(),
        &["class dir", "--out", "g", "--help", "merge"],
    );
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "beside\nclass dir\n--out\ng\n--help\nmerge\n--color=never\n"
    );
}

#[test]
fn without_one_beside_the_runner_the_grader_on_path_runs() {
    let (here, elsewhere) = (scratch(), scratch());
    let runner = runner_in(here.path());
    grader_in(elsewhere.path(), "on-path");
    let out = grade(&runner, elsewhere.path(), &["merge", "a"]);
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "on-path\nmerge\na\n--color=never\n"
    );
}

#[test]
fn without_a_grader_runner_grade_says_how_to_install_one() {
    let (here, empty) = (scratch(), scratch());
    let runner = runner_in(here.path());
    let out = grade(&runner, empty.path(), &["class"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("runner-grade, which is neither beside")
            && said.contains("cargo install --path grade"),
        "{said}"
    );
}

#[test]
fn the_colour_goes_after_a_subcommand_before_a_double_dash_and_never_twice() {
    let here = scratch();
    let runner = runner_in(here.path());
    grader_in(here.path(), "beside");
    let out = grade(
        &runner,
        here.path(),
        &["bench", "--submissions", "2", "--", "x"],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "beside\nbench\n--submissions\n2\n--color=never\n--\nx\n"
    );
    let out = grade(&runner, here.path(), &["bench", "--color=always"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "beside\nbench\n--color=always\n"
    );
}
