//! Host exercises: the student writes a whole program (a Rust crate on cudarc's driver API),
//! which `runner check` builds (`build`), runs on each case through the simulator's CUDA driver
//! (`execute`), and judges by its outputs and by the driver's record of what it did (`judge`):
//! copies, launches, errors left unchecked, streams that overlap nothing.

mod build;
mod execute;
mod judge;
pub mod record;
pub mod report;

use crate::course::{Course, Exercise};
use crate::driver_env::SimDriver;
use crate::report::{Verdict, SCHEMA_VERSION};
use anyhow::Context;
use build::BuildFailure;
use report::HostReport;
use std::path::Path;
use std::time::Duration;

/// What the report says the program ran on.
const BACKEND: &str = "the simulator's CUDA driver";

/// Whether the driver's name for a launched kernel (its mangled name, or the plain one of an
/// `extern "C"` kernel) is `kernel`.
pub fn kernel_named(launched: &str, kernel: &str) -> bool {
    launched == kernel || launched.contains(&format!("{}{kernel}", kernel.len()))
}

/// Checks `path` (the student's `src/main.rs`, or a submission's) as host exercise `exercise`.
pub fn check(
    course: &Course,
    exercise: &Exercise,
    path: &Path,
    seed: Option<u64>,
    original: Option<&str>,
) -> anyhow::Result<HostReport> {
    let source = runner::kernel_file::read(path)?;
    let untouched = original.is_some_and(|o| o == source);
    let mut report = HostReport {
        schema_version: SCHEMA_VERSION,
        exercise: exercise.id.clone(),
        title: exercise.title.clone(),
        kind: "host",
        backend: BACKEND.into(),
        verdict: Verdict::Passed,
        summary: String::new(),
        build_errors: None,
        warnings: Vec::new(),
        cases: Vec::new(),
        mistakes: Vec::new(),
        targets: Vec::new(),
        record: None,
        progress: None,
    };
    let built = match build::build(course, exercise, path, &source) {
        Ok(built) => built,
        Err(BuildFailure::Setup(err)) => return Err(err),
        Err(BuildFailure::Errors(errors)) => {
            report.build_errors = Some(errors);
            report.verdict = Verdict::CompileError;
            report.summary =
                "The program does not compile: the compiler's errors are above.".into();
            return Ok(report);
        }
    };
    report.warnings = built.warnings.clone();
    let cases = checks::host_cases_for(&exercise.id, seed).with_context(|| {
        format!(
            "exercise {} has no host check in checks/src/host.rs",
            exercise.id
        )
    })?;
    let limit = Duration::from_millis(exercise.time_limit_ms);
    let driver = SimDriver::prepare(Some(course), "h100", limit.as_secs_f64())?;
    let mut runs = Vec::new();
    for case in &cases {
        let run = execute::run_case(&built.program, case, &driver, limit)?;
        let (verdict, result) = judge::judge_case(exercise, case, &run);
        report.cases.push(result);
        if report.verdict == Verdict::Passed && verdict != Verdict::Passed {
            report.verdict = verdict;
        }
        report.record = run.raw.clone().or(report.record.take());
        runs.push(run);
    }
    judge_program(exercise, &runs, &mut report);
    if untouched && !report.passed() {
        report.verdict = Verdict::NotDone;
    }
    report.summary = summary(&report);
    Ok(report)
}

/// The record-based findings: named mistakes and targets, over the runs whose outputs were right.
fn judge_program(exercise: &Exercise, runs: &[execute::Run], report: &mut HostReport) {
    let right: Vec<&execute::Run> = runs
        .iter()
        .zip(&report.cases)
        .filter(|(_, case)| case.passed)
        .map(|(run, _)| run)
        .collect();
    if right.is_empty() {
        return;
    }
    report.mistakes = judge::mistakes(exercise, &right);
    report.targets = judge::targets(&exercise.host.clone().unwrap_or_default(), &right);
    let missed = !report.mistakes.is_empty() || report.targets.iter().any(|t| !t.met);
    if report.verdict == Verdict::Passed && missed {
        let never_launched = report.mistakes.iter().any(|m| m.contains("never launched"));
        report.verdict = if never_launched {
            Verdict::MissingKernel
        } else {
            Verdict::TargetsMissed
        };
    }
}

fn summary(report: &HostReport) -> String {
    let passed = report.cases.iter().filter(|c| c.passed).count();
    let total = report.cases.len();
    match report.verdict {
        Verdict::Passed => format!("Every case right ({passed}/{total}), and the program uses the driver as the exercise asks."),
        Verdict::NotDone => "The program is as it was handed out: its TODOs are still to do.".into(),
        Verdict::TargetsMissed | Verdict::MissingKernel => format!(
            "Every case right ({passed}/{total}), but the program does not yet do it the way the exercise teaches: see the mistakes and targets above."
        ),
        _ => format!("{passed} of {total} cases right."),
    }
}
