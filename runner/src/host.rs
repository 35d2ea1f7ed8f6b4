//! Host exercises: the student writes a whole program (a Rust crate on cudarc's driver API, a
//! Python script on Numba, or CUDA C++ on the runtime API), which `runner check` builds
//! (`build`), runs on each case through the simulator's CUDA driver (`execute`), and judges by
//! its outputs and by the driver's record of what it did (`judge`): copies, launches, errors left
//! unchecked, streams that overlap nothing.

mod build;
mod coverage;
mod execute;
mod judge;
mod params;
pub mod record;
mod refused;
pub mod report;
mod resim;
pub mod summary;
mod targets;
mod technique;
mod unified;
mod waits;
mod words;

use crate::checker::verdict::{self, Stages};
use crate::course::{Course, Exercise};
use crate::driver_env::{Backend, DriverEnv};
use crate::report::Verdict;
use anyhow::Context;
use build::BuildFailure;
use report::HostReport;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most heap a program may take when it is checked.
pub use execute::MEMORY_LIMIT_BYTES as PROGRAM_MEMORY_LIMIT_BYTES;

/// How a host check runs.
pub struct Options {
    /// The seed of the cases' random inputs.
    pub seed: Option<u64>,
    /// Where the program runs: the simulator's driver or the GPU's, in pass-through.
    pub backend: Backend,
    /// A program already built from the file, run instead of building it.
    pub program: Option<PathBuf>,
}

impl Options {
    /// The simulator, default seed, built from the file.
    pub fn simulator() -> Options {
        Options {
            seed: None,
            backend: Backend::Sim,
            program: None,
        }
    }
}

/// Whether the driver's name for a launched kernel is `kernel`'s: the plain name of an
/// `extern "C"` kernel, or a mangled one that holds it (C++'s `6smooth`, Numba's
/// `__main__::__vectorized_scaled_hypot` for a ufunc, `_ZN8__main__6kernelB2v1...`).
pub fn kernel_named(launched: &str, kernel: &str) -> bool {
    launched.contains(kernel)
}

/// Checks `path` (the student's program, or a submission's) as host exercise `exercise`.
pub fn check(
    course: &Course,
    exercise: &Exercise,
    path: &Path,
    options: &Options,
    original: Option<&str>,
) -> anyhow::Result<HostReport> {
    let source = crate::checker::read_kernel(course, exercise, path)?;
    let untouched = original.is_some_and(|o| o == source);
    let device = options.backend.program_driver();
    let leaks_matter = !exercise.is_python();
    let mut report = HostReport::new(
        &exercise.id,
        &exercise.title,
        options.backend,
        device,
        leaks_matter,
    );
    let built = match build::build(course, exercise, path, &source, options.program.as_deref()) {
        Ok(built) => built,
        Err(BuildFailure::Setup(err)) => return Err(err),
        Err(BuildFailure::Errors(errors)) => {
            report.build_errors = Some(errors);
            report.verdict = verdict::conclude(&Stages {
                compile_failed: true,
                untouched,
                ..Stages::default()
            });
            report.summary = summary(&report);
            return Ok(report);
        }
    };
    report.warnings = built.warnings.clone();
    let cases = checks::host_cases_for(&exercise.id, options.seed).with_context(|| {
        format!(
            "exercise {} has no host check in checks/src/host.rs",
            exercise.id
        )
    })?;
    let limit = Duration::from_millis(exercise.time_limit_ms);
    let driver = DriverEnv::prepare(Some(course), options.backend, "h100", limit.as_secs_f64())?;
    let mut runs = Vec::new();
    let mut stages = Stages {
        untouched,
        ..Stages::default()
    };
    // One process for all the cases where the driver can cut its record between them (the
    // simulator's; in pass-through mode its times are the GPU's, read at exit).
    let one_process = options.backend == Backend::Sim;
    let all = execute::run_all(&built, &cases, &driver, limit, one_process)?;
    for (case, run) in cases.iter().zip(all) {
        let (verdict, result) = judge::judge_case(exercise, case, &run);
        report.cases.push(result);
        // The first failing case's verdict: its message is the one the student reads first.
        if stages.cases == Verdict::Passed {
            stages.cases = verdict;
        }
        report.record = run.record.clone().or(report.record.take());
        runs.push(run);
    }
    // A Python program's source is read for the device functions its kernels call.
    let python = exercise
        .is_python()
        .then(|| crate::driver_env::course_python(Some(course)))
        .flatten();
    let program = python.as_deref().map(|python| (python, path));
    judge_program(exercise, &runs, &mut report, &mut stages, program)?;
    report.verdict = verdict::conclude(&stages);
    if let (true, Some(largest)) = (resim::wanted(options.backend, &report), cases.last()) {
        let rerun = resim::rerun(course, exercise, &built, largest, limit)?;
        resim::join(&mut report, &mut stages, rerun);
    }
    if report.summary.is_empty() || report.verdict == Verdict::NotDone {
        report.summary = summary(&report);
    }
    Ok(report)
}

/// The record-based findings: named mistakes and targets, over the runs whose outputs were right;
/// and the technique's targets, on the largest right run and the `program`'s source (with the
/// Python that reads it). What they come to is noted in `stages`.
fn judge_program(
    exercise: &Exercise,
    runs: &[execute::Run],
    report: &mut HostReport,
    stages: &mut Stages,
    program: Option<(&Path, &Path)>,
) -> anyhow::Result<()> {
    let right: Vec<&execute::Run> = runs
        .iter()
        .zip(&report.cases)
        .filter(|(_, case)| case.passed)
        .map(|(run, _)| run)
        .collect();
    if right.is_empty() {
        return Ok(());
    }
    report.mistakes = judge::mistakes(exercise, &right);
    report.targets = targets::targets(
        &exercise.host.clone().unwrap_or_default(),
        &exercise.entries,
        &right,
    );
    let last = right.last().and_then(|run| run.record.as_ref());
    report.targets.extend(technique::targets(
        &exercise.technique,
        &exercise.entries,
        last,
        program,
    )?);
    if exercise.technique.results_waited_for {
        let records = right.iter().filter_map(|run| run.record.as_ref());
        let language = exercise.language().unwrap_or_default();
        let target = waits::results_waited_for(records, language);
        report.targets.push(target);
    }
    stages.technique_missed = !report.mistakes.is_empty() || report.targets.iter().any(|t| !t.met);
    stages.kernel_never_launched = !judge::unlaunched_kernels(exercise, &right).is_empty();
    Ok(())
}

fn summary(report: &HostReport) -> String {
    let passed = report.cases.iter().filter(|c| c.passed).count();
    let total = report.cases.len();
    match report.verdict {
        Verdict::Passed => format!("Every case right ({passed}/{total}), and the program uses the driver as the exercise asks."),
        Verdict::NotDone => "The program is as it was handed out: its TODOs are still to do.".into(),
        Verdict::CompileError => "The program does not compile: the compiler's errors are above.".into(),
        Verdict::TargetsMissed | Verdict::MissingKernel => format!(
            "Every case right ({passed}/{total}), but the program does not yet do it the way the exercise teaches: see the mistakes and targets above."
        ),
        _ => format!("{passed} of {total} cases right."),
    }
}
