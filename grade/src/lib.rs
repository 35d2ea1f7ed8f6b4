//! `runner-grade`: grading a class of submissions, the binary `runner grade` runs (as cargo runs
//! its external subcommands), with the archive, grade-book, progress and signal crates that only
//! grading needs. The checks themselves are the runner library's: each cell's process runs one
//! in-process (`sandbox`), on the runner's own command line. `cmd` is the verb; the other modules
//! are the parts it is made of, one concern each (its doc has the table).

#![deny(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

mod archive;
mod autograder;
mod bench;
mod cell;
mod cluster;
pub mod cmd;
mod config;
mod contents;
mod display;
mod judged;
mod kernels;
mod names;
mod output;
mod policy;
mod prepare;
mod profile;
mod program;
mod queue;
mod results;
mod run;
// A cell's process sets its own limits and hands file descriptors across exec, which takes
// system calls with raw descriptors: the one module where unsafe code is allowed.
#[allow(unsafe_code)]
mod sandbox;
mod scratch;
mod settings;
mod similarity;
mod submissions;
mod worker;
