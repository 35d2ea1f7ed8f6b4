//! `runner`: compiles a student's CUDA kernel, runs it on a GPU or in the simulator, checks it
//! against the CPU reference, times it and explains what went wrong. The work is the library's
//! (`lib.rs`).

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    runner::start(std::env::args_os())
}
