//! The runner as a library: everything the `runner` binary does, so that other binaries can do
//! it too (`runner-grade` runs a cell's check in its own process with [`start`]) and benchmarks
//! can measure its parts (the compile cache).
//!
//! | module | owns |
//! | --- | --- |
//! | `cli`, `cmd` | the command line and one module per verb |
//! | `course`, `session`, `progress`, `pristine`, `quiz` | the course, its exercises and the student's progress |
//! | `compile`, `kernel_file` | reading kernel files, NVRTC and the compile cache |
//! | `backend`, `execute`, `checker`, `targets`, `tuned` | running a check on a GPU or in the simulator |
//! | `host`, `driver_env`, `kernel_name` | whole programs on the simulated driver |
//! | `report`, `output`, `style`, `trace`, `ending` | what a check says, and how the runner ends |
//! | `process`, `os` | the runner's child processes, and its system calls (unsafe code is denied everywhere but in `os`, `backend::cuda` and `compile::nvrtc`) |

#![deny(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

// The modules name themselves `runner::...` in places (they were the binary's, using this library).
extern crate self as runner;

pub mod backend;
pub mod checker;
pub mod cli;
pub mod cmd;
pub mod compile;
pub mod course;
pub mod driver_env;
pub mod ending;
pub mod execute;
pub mod host;
pub mod kernel_file;
pub mod kernel_name;
pub mod os;
pub mod output;
pub mod pristine;
pub mod process;
pub mod progress;
pub mod quiz;
pub mod report;
pub mod session;
pub mod style;
pub mod targets;
pub mod trace;
pub mod tuned;

use clap::Parser;
use colored::Colorize;
use std::ffi::OsString;
use std::process::ExitCode;

/// Runs the runner's command line `args` (the program's name first) to its end, as `runner`
/// does: the exit code to end the process with.
pub fn start(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    main_of(args, |cli: cli::Cli| {
        style::apply(cli.color);
        cmd::run(cli.command)
    })
}

/// What every binary of the runner's does around its command line `C` (`runner`, `runner-grade`):
/// serves a compile under limits when started for one, parses `args`, runs the command with
/// `run`, waits for a signal's handler ending the process, and prints an error in red (exit 2).
pub fn main_of<C: Parser>(
    args: impl IntoIterator<Item = OsString>,
    run: impl FnOnce(C) -> anyhow::Result<ExitCode>,
) -> ExitCode {
    // A copy of the program started to compile under limits does only that.
    if let Some(code) = compile::child::serve_if_asked() {
        return code;
    }
    // Output piped into `head` ends the command quietly, as for any Unix tool, instead of a
    // panic at the first write after the reader has gone.
    sigpipe::reset();
    trace::start();
    let outcome = run(C::parse_from(args));
    // The report is out; simulator checks nobody waits for end before the process does.
    checker::finish_unseen();
    ending::wait_if_ending();
    match outcome {
        Ok(code) => {
            trace::mark("done");
            code
        }
        Err(err) => {
            eprintln!("{} {err:#}", "Error:".red().bold());
            ExitCode::from(2)
        }
    }
}
