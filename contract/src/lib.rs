//! The typed data one part of the course hands another across a process boundary, defined once,
//! with a version: the simulated driver (`libsimcuda.so`, in the student's process) writes a
//! [`DriverRecord`] of what the program did; `runner check` judges it and `runner run` shows it;
//! a check's report carries its [`Verdict`], its [`Backend`] and its [`Finding`]s as typed values.
//! Nothing downstream walks the JSON by hand or reads a sentence for a fact.
//!
//! | type | written by | read by |
//! | --- | --- | --- |
//! | [`DriverRecord`] | `driver` (`record.rs`, at the program's exit) | `runner` (`host`, `cmd::run`) |
//! | [`Report`] ([`CheckReport`] \| [`HostReport`]), [`Target`], [`Mismatch`] | `runner` (`checker`, `host`; the comparison in `checks`) | `runner check --json`, `runner-grade`, the book's scripts |
//! | [`Verdict`], [`Finding`], [`Backend`] | `runner` (`checker::verdict`) | `runner check --json`, the grader, the book |
//! | [`worker::Request`] | `runner watch`, `runner-grade` | `runner __serve` |
//! | [`worker::Message`] ([`worker::Reply`]) | `runner __serve` | `runner watch`, `runner-grade` |
//!
//! The simulator's own figures and diagnostics ride inside the record as `sim`'s types.

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

mod backend;
mod driver_record;
mod finding;
mod mismatch;
pub mod report;
mod target;
mod verdict;
pub mod worker;

pub use backend::{Backend, UnknownBackend};
pub use finding::{Finding, Place};
pub use mismatch::{Mismatch, WrongElement};
pub use report::kernel::{
    CheckReport, CompileFigures, GpuFigures, SimFigures, MAX_PRINTF_BYTES, PRINTF_CUT_NOTE,
};
pub use report::program::HostReport;
pub use report::Report;
/// What the simulator saw, as a [`Finding`]'s kind.
pub use sim::DiagnosticKind;
pub use target::Target;
pub use verdict::Verdict;

/// The version of a check report's JSON form (`runner check --json`), raised when a field changes
/// meaning or goes; new fields may appear without it. 3: a whole program's report says
/// `"kind": "program"` (was `"host"`), its `backend` is `sim` or `gpu` and its `device` the words.
pub const SCHEMA_VERSION: u32 = 3;

pub use driver_record::{
    Destination, Direction, DriverRecord, Failure, Graph, HostRead, Launch, Managed, ManagedStep,
    RefusedLaunch, TimelineKind, Transfer, DRIVER_RECORD_VERSION,
};
