//! `runner`: compiles a student's CUDA kernel, runs it on a GPU or in the simulator, checks it
//! against the CPU reference, times it and explains what went wrong.

mod backend;
mod checker;
mod cli;
mod cmd;
mod course;
mod driver_env;
mod ending;
mod execute;
mod grade;
mod host;
mod kernel_name;
mod output;
mod pristine;
mod progress;
mod quiz;
mod report;
mod session;
mod style;
mod targets;
mod trace;
mod tuned;

// The library's compile module, under the path the other modules use.
use runner::compile;

use clap::Parser;
use colored::Colorize;
use std::process::ExitCode;

fn main() -> ExitCode {
    // A copy of the runner started to compile under limits does only that.
    if let Some(code) = compile::child::serve_if_asked() {
        return code;
    }
    // Output piped into `head` ends the command quietly, as for any Unix tool, instead of a
    // panic at the first write after the reader has gone.
    sigpipe::reset();
    trace::start();
    let cli = cli::Cli::parse();
    style::apply(cli.color);
    let outcome = cmd::run(cli.command);
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
