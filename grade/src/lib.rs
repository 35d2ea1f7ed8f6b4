//! `runner-grade`: grading a class of submissions, the binary `runner grade` runs (as cargo runs
//! its external subcommands), with the archive, grade-book, progress and signal crates that only
//! grading needs. The checks themselves are the runner library's: each cell's process runs one
//! in-process (`sandbox`), on the runner's own command line. `cmd` is the verb; the other modules
//! are the parts it is made of, one concern each (its doc has the table).

#![deny(unsafe_code)]

pub mod archive;
pub mod autograder;
pub mod bench;
pub mod cell;
pub mod cluster;
pub mod cmd;
pub mod config;
pub mod display;
pub mod judged;
pub mod kernels;
pub mod names;
pub mod output;
pub mod policy;
pub mod prepare;
pub mod profile;
pub mod program;
pub mod queue;
pub mod results;
pub mod run;
// A cell's process sets its own limits and hands file descriptors across exec, which takes
// system calls with raw descriptors: the one module where unsafe code is allowed.
#[allow(unsafe_code)]
pub mod sandbox;
pub mod scratch;
pub mod settings;
pub mod similarity;
pub mod submissions;
pub mod worker;
