//! One check's report, a kernel's or a whole program's: what `runner check --json` prints, what
//! `runner-grade` reads back and what the book's scripts quote. The text a student reads is
//! rendered from it by the runner (`runner::report`).

pub mod kernel;
pub mod program;

use crate::{Backend, Verdict};
use serde::{Deserialize, Serialize};

/// One check's report: its JSON says its `kind`, `kernel` or `program`, beside `schema_version`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Report {
    /// A CUDA C kernel checked against its CPU reference, case by case.
    Kernel(Box<kernel::CheckReport>),
    /// A whole program run on each case through the course's driver.
    Program(Box<program::HostReport>),
}

impl Report {
    /// What the check concluded.
    pub fn verdict(&self) -> Verdict {
        match self {
            Report::Kernel(report) => report.verdict,
            Report::Program(report) => report.verdict,
        }
    }

    /// Where it ran.
    pub fn backend(&self) -> Backend {
        match self {
            Report::Kernel(report) => report.backend,
            Report::Program(report) => report.backend,
        }
    }

    /// Whether the check passed.
    pub fn passed(&self) -> bool {
        self.verdict() == Verdict::Passed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_report_says_its_kind_and_reads_back_as_the_same_kind() {
        let kernel =
            serde_json::to_value(Report::Kernel(Box::new(kernel::tests::empty()))).unwrap();
        assert_eq!(kernel["kind"], "kernel");
        assert_eq!(kernel["schema_version"], crate::SCHEMA_VERSION);
        assert_eq!(kernel["backend"], "sim");
        let program = serde_json::json!({
            "kind": "program", "schema_version": crate::SCHEMA_VERSION, "exercise": "25", "title": "t",
            "backend": "gpu", "device": "the GPU", "verdict": "wrong_output", "summary": "s",
            "build_errors": null, "warnings": [], "cases": [], "mistakes": [], "targets": [],
            "record": null, "progress": null
        });
        let Report::Program(read) = serde_json::from_value(program).unwrap() else {
            panic!("a program's report read as a kernel's");
        };
        assert_eq!(read.backend, Backend::Gpu);
        let read = Report::Program(read);
        assert_eq!(
            (read.verdict(), read.backend()),
            (Verdict::WrongOutput, Backend::Gpu)
        );
        let Report::Kernel(_) = serde_json::from_value(kernel).unwrap() else {
            panic!("a kernel's report read as a program's");
        };
    }
}
