//! What each exercise is checked against: its test cases (inputs and launch plan), its CPU reference
//! and the comparison of a kernel's outputs with it.
//!
//! A check is plain data plus functions: it says nothing of GPUs or simulators. The runner executes
//! a [`Case`] on whichever backend it has and hands the outputs back to [`compare`].

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

pub mod case;
pub mod compare;
pub mod exercises;
pub mod host;
pub mod random;

pub use case::{Arg, Buffer, Case, CaseOptions, Evidence, HostData, Launch, Role, Scalar};
pub use compare::{
    compare, compare_case, identical_and_accepted, Mismatch, Tolerance, WrongElement,
};
pub use exercises::{cases_for, known_ids, parse_extra_size, MAX_EXTRA_SIZE};
pub use host::{diagnose_host, host_cases_for, host_ids, HostCase};
