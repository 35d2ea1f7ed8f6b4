//! `runner grade ARGS` hands the grader the colour after ARGS (`runner::cmd::grade`): the grader
//! must take `--color` after a subcommand, where before one it would read the subcommand's name
//! as the submissions folder.

use std::process::Command;

#[test]
fn the_colour_after_a_subcommand_is_taken_as_the_launcher_passes_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_runner-grade"))
        .args(["bench", "--help", "--color=never"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("Usage: runner grade bench"), "{said}");
}
