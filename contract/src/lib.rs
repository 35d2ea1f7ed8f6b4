//! The typed data one part of the course hands another across a process boundary, defined once,
//! with a version: the simulated driver (`libsimcuda.so`, in the student's process) writes a
//! [`DriverRecord`] of what the program did; `runner check` judges it and `runner run` shows it.
//! Nothing downstream walks the JSON by hand or reads a sentence for a fact.
//!
//! | type | written by | read by |
//! | --- | --- | --- |
//! | [`DriverRecord`] | `driver` (`record.rs`, at the program's exit) | `runner` (`host`, `cmd::run`) |
//!
//! The simulator's own figures and diagnostics ride inside the record as `sim`'s types.

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

mod driver_record;

pub use driver_record::{
    Direction, DriverRecord, Failure, Launch, TimelineKind, Transfer, DRIVER_RECORD_VERSION,
};
