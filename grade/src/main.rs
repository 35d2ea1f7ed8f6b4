//! `runner-grade`: grades a class of CUDA exercise submissions (see the library, `lib.rs`).
//! `runner grade ARGS` runs this program with the same ARGS.

#![forbid(unsafe_code)]

use clap::Parser;
use runner::style::ColorChoice;

/// Grade a class of submissions, each check in its own process, into a CSV grade book, JSON,
/// JUnit, Gradescope results and an HTML report; `merge` joins shards.
#[derive(Parser)]
#[command(name = "runner-grade", version, bin_name = "runner grade")]
struct Cli {
    /// Colour the output: auto (when a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, global = true, value_enum, default_value_t)]
    color: ColorChoice,
    #[command(flatten)]
    grade: runner_grade::cmd::GradeArgs,
}

fn main() -> std::process::ExitCode {
    runner::main_of(std::env::args_os(), |cli: Cli| {
        runner::style::apply(cli.color);
        runner_grade::cmd::run(cli.grade)
    })
}
