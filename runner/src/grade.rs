//! Grading a class: the parts `runner grade` (cmd/grade.rs) is made of, one concern each.

pub mod archive;
pub mod autograder;
pub mod bench;
pub mod cell;
pub mod cluster;
pub mod config;
pub mod display;
pub mod kernels;
pub mod names;
pub mod output;
pub mod policy;
pub mod prepare;
pub mod profile;
pub mod program;
pub mod results;
pub mod run;
pub mod sandbox;
pub mod scratch;
pub mod settings;
pub mod similarity;
pub mod submissions;
pub mod worker;
