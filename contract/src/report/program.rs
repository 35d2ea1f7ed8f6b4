//! A whole program's report: each case's run through the course's driver, what the driver's
//! record shows it did wrong, its targets and the record itself.

use crate::{Backend, DriverRecord, Target, Verdict};
use serde::{Deserialize, Serialize};

/// A whole program's check: `crate::Report::Program`, whose JSON says `"kind": "program"`.
/// Read back by `runner-grade` (grade/src/program.rs), which checks `schema_version`.
#[derive(Debug, Serialize, Deserialize)]
pub struct HostReport {
    /// [`crate::SCHEMA_VERSION`] of the runner that wrote it.
    pub schema_version: u32,
    /// The exercise's id (`25`, `py09`).
    pub exercise: String,
    /// The exercise's title.
    pub title: String,
    /// Where the program's driver calls went.
    pub backend: Backend,
    /// The same in words, for the student: "the simulator's CUDA driver".
    pub device: String,
    /// What the check concluded.
    pub verdict: Verdict,
    /// One line saying what happened and what to do next.
    pub summary: String,
    /// The compiler's errors, where the program did not build.
    pub build_errors: Option<String>,
    /// What the build or the run warned of.
    pub warnings: Vec<String>,
    /// Each case's run.
    pub cases: Vec<CaseResult>,
    /// What the driver's record shows the program did wrong, even with right outputs.
    pub mistakes: Vec<String>,
    /// The exercise's targets on how the program used the driver.
    pub targets: Vec<Target>,
    /// The driver's record of the largest case that ran: calls, copies, launches, timeline.
    pub record: Option<DriverRecord>,
    /// Exercises done and in the course, where progress is kept.
    pub progress: Option<(usize, usize)>,
    /// Whether device memory still allocated at the end says something of the program: not for
    /// Python, where Numba frees arrays in finalizers that it skips as the interpreter exits.
    #[serde(skip)]
    pub leaks_matter: bool,
}

/// One case's run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseResult {
    /// The case's name.
    pub name: String,
    /// Whether its outputs were right and the run clean.
    pub passed: bool,
    /// What went wrong, in a sentence or two, where something did.
    pub problem: Option<String>,
    /// The end of what the program printed, where the case failed.
    pub output: Option<String>,
    /// How long the run took.
    pub seconds: f64,
}

impl HostReport {
    /// A report of `exercise` (id and title) that has found nothing yet: passed until something
    /// fails.
    pub fn new(
        exercise: &str,
        title: &str,
        backend: Backend,
        device: &str,
        leaks_matter: bool,
    ) -> HostReport {
        HostReport {
            schema_version: crate::SCHEMA_VERSION,
            exercise: exercise.into(),
            title: title.into(),
            backend,
            device: device.into(),
            verdict: Verdict::Passed,
            summary: String::new(),
            build_errors: None,
            warnings: Vec::new(),
            cases: Vec::new(),
            mistakes: Vec::new(),
            targets: Vec::new(),
            record: None,
            progress: None,
            leaks_matter,
        }
    }

    /// Whether the check passed.
    pub fn passed(&self) -> bool {
        self.verdict == Verdict::Passed
    }
}
