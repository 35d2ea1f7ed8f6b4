//! A program checked on a GPU, run again in the simulator for what only the simulator counts:
//! where a target's figure went unmeasured on the GPU (atomics per block, memory requests,
//! sectors, bank conflicts), the largest case runs once more on the simulator's driver and its
//! figures fill those targets, each saying it was the simulator that counted it. The simulator's
//! run is judged too: what it finds wrong (a race, an access out of bounds) fails the check as
//! it would have in the simulator, as a kernel exercise's GPU check does (`check_everywhere`).

use super::build::Built;
use super::execute::{self, Run};
use super::record::{EntryKernels, Record};
use super::{judge, targets, technique};
use crate::checker::verdict::{conclude, worse, Stages};
use crate::course::{Course, Exercise};
use crate::driver_env::{Backend, DriverEnv};
use checks::HostCase;
use contract::report::program::CaseResult;
use contract::{HostReport, Target, Verdict};
use std::time::Duration;

/// What the simulator's run of the largest case found: its case's outcome, whether the
/// simulator ran the exercise's kernels at all, and the targets measured on its record.
pub(super) struct Rerun {
    verdict: Verdict,
    case: CaseResult,
    /// False where the program's kernels never reached the simulator: numba-cuda on a machine
    /// with a CUDA toolkit links through nvJitLink, which hands the driver machine code for the
    /// GPU, not PTX (`cuLibraryLoadData`: CUDA_ERROR_INVALID_IMAGE). That says nothing of the
    /// student's program, so it neither fails the check nor measures anything.
    ran_kernels: bool,
    targets: Vec<Target>,
}

/// Whether `report`, of a program that ran on `backend`, wants the simulator's run: on a GPU,
/// with every case right (a wrong one fails the check whatever the figures), and a target whose
/// figure the GPU's run did not measure.
pub(super) fn wanted(backend: Backend, report: &HostReport) -> bool {
    backend == Backend::Gpu
        && !report.cases.is_empty()
        && report.cases.iter().all(|c| c.passed)
        && report.targets.iter().any(unmeasured)
}

/// A target whose figure the run did not give (a simulator figure of a kernel on a GPU).
fn unmeasured(target: &Target) -> bool {
    target.actual.is_none()
}

/// Runs `case` (the largest) with `built` on the simulator's driver, and judges it.
pub(super) fn rerun(
    course: &Course,
    exercise: &Exercise,
    built: &Built,
    case: &HostCase,
    limit: Duration,
) -> anyhow::Result<Rerun> {
    let driver = DriverEnv::prepare(Some(course), Backend::Sim, "h100", limit.as_secs_f64())?;
    let run = execute::run_case(built, case, &driver, limit)?;
    let (verdict, case) = judge::judge_case(exercise, case, &run);
    let targets = measure(exercise, &run);
    Ok(Rerun {
        verdict,
        case,
        ran_kernels: ran_kernels(&exercise.entries, &run),
        targets,
    })
}

/// Whether the simulator ran a kernel of `entries` in `run` (a launch with its figures).
fn ran_kernels(entries: &[String], run: &Run) -> bool {
    let records: Vec<&Record> = run.record.iter().collect();
    let theirs = EntryKernels::of(entries, &records);
    let launches = run.record.iter().flat_map(|r| &r.launches);
    launches
        .filter(|l| theirs.holds(&l.kernel))
        .any(|l| l.figures.is_some())
}

/// The targets the simulator's `run` measures: the same rules as on any run, on its record alone.
fn measure(exercise: &Exercise, run: &Run) -> Vec<Target> {
    let spec = exercise.host.clone().unwrap_or_default();
    let mut measured = targets::targets(&spec, &exercise.entries, &[run]);
    // The device-function target reads the source, not the run: the GPU's check has it already.
    let technique = technique::targets(
        &exercise.technique,
        &exercise.entries,
        run.record.as_ref(),
        None,
    );
    measured.extend(technique.unwrap_or_default());
    measured
}

/// Joins the simulator's run into the GPU's `report`: a failure there fails the check, with the
/// run shown as a case of its own; else each target the GPU left unmeasured takes the
/// simulator's figure, and one missed makes the verdict `targets_missed`. What it finds is noted
/// in `stages`, from which the report's verdict is concluded again.
pub(super) fn join(report: &mut HostReport, stages: &mut Stages, rerun: Rerun) {
    let Rerun {
        verdict,
        mut case,
        ran_kernels,
        targets,
    } = rerun;
    if !ran_kernels {
        let why = case
            .problem
            .as_deref()
            .unwrap_or("no kernel of the exercise was launched");
        let why = why.lines().next().unwrap_or_default();
        for target in report.targets.iter_mut().filter(|t| unmeasured(t)) {
            target.got = format!(
                "not measured: the GPU does not count it, and the simulator, running {} again, \
                 ran none of the exercise's kernels ({why})",
                case.name
            );
        }
        return;
    }
    report.device = format!(
        "{}; the largest case again on the simulator's driver, for the figures only it counts",
        report.device
    );
    if verdict != Verdict::Passed {
        case.name = format!("{} (again, in the simulator)", case.name);
        let problem = case.problem.clone().unwrap_or_default();
        report.cases.push(case);
        stages.cases = worse(stages.cases, verdict);
        report.verdict = conclude(stages);
        report.summary = format!(
            "Every case came out right on the GPU, but the simulator, running the largest case \
             again, says: {problem}"
        );
        return;
    }
    for target in report.targets.iter_mut().filter(|t| unmeasured(t)) {
        if let Some(counted) = targets
            .iter()
            .find(|t| t.name == target.name && !unmeasured(t))
        {
            *target = Target {
                got: format!(
                    "{}, counted by the simulator re-running {}",
                    counted.got, case.name
                ),
                ..counted.clone()
            };
        }
    }
    stages.technique_missed |= report.targets.iter().any(|t| t.missed());
    report.verdict = conclude(stages);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::record::{Launch, Record};

    /// A target the GPU could not measure, and one it did (copies).
    fn gpu_report() -> HostReport {
        let mut report = HostReport::new("py13", "t", contract::Backend::Gpu, "the GPU", false);
        report.cases.push(case("n = 1", true));
        report.cases.push(case("n = 1000000", true));
        report.targets = vec![
            target(ATOMICS, None, true),
            target("copies back to the host in one run", Some(1.0), true),
        ];
        report
    }

    const ATOMICS: &str = "global atomics per block (simulator)";

    fn case(name: &str, passed: bool) -> CaseResult {
        CaseResult {
            name: name.into(),
            passed,
            problem: (!passed).then(|| "a race on total at reduction.py:30".into()),
            output: None,
            seconds: 0.1,
        }
    }

    fn target(name: &str, actual: Option<f64>, met: bool) -> Target {
        Target {
            name: name.into(),
            wanted: "at most 1".into(),
            got: actual.map_or("skipped".into(), |a| a.to_string()),
            limit: 1.0,
            actual,
            met,
            decides: true,
            explanation: "why".into(),
        }
    }

    #[test]
    fn only_a_gpu_run_with_right_cases_and_an_unmeasured_figure_wants_the_simulator() {
        let report = gpu_report();
        assert!(wanted(Backend::Gpu, &report));
        assert!(!wanted(Backend::Sim, &report), "the simulator measured all");
        let mut wrong = gpu_report();
        wrong.cases[1].passed = false;
        assert!(!wanted(Backend::Gpu, &wrong), "a wrong case fails anyway");
        let mut measured = gpu_report();
        measured.targets.remove(0);
        assert!(!wanted(Backend::Gpu, &measured), "nothing left to measure");
    }

    #[test]
    fn the_simulators_figure_fills_the_unmeasured_target_and_can_miss_it() {
        // An atomic per thread: 512 atomic instructions over 64 blocks, from a real rule.
        let technique = crate::course::Technique {
            max_global_atomics_per_block: Some(1.0),
            ..Default::default()
        };
        let figures = sim::Figures {
            global_atomic_requests: 512,
            ..Default::default()
        };
        let record = Record {
            launches: vec![Launch {
                kernel: "reduce_sum".into(),
                grid: [64, 1, 1],
                block: [256, 1, 1],
                figures: Some(figures),
                ..Launch::default()
            }],
            ..Record::default()
        };
        let entries = ["reduce_sum".to_string()];
        let counted = technique::targets(&technique, &entries, Some(&record), None).unwrap();
        let mut report = gpu_report();
        join(
            &mut report,
            &mut Stages::default(),
            Rerun {
                verdict: Verdict::Passed,
                case: case("n = 1000000", true),
                ran_kernels: true,
                targets: counted,
            },
        );
        assert_eq!(report.verdict, Verdict::TargetsMissed);
        let atomics = &report.targets[0];
        assert_eq!(atomics.actual, Some(8.0));
        assert!(!atomics.met);
        assert_eq!(
            atomics.got,
            "8.0 (512 atomic instructions over 64 blocks), counted by the simulator re-running \
             n = 1000000"
        );
        // The GPU's own figure stays the GPU's.
        assert_eq!(report.targets[1].actual, Some(1.0));
        assert!(report.device.contains("again on the simulator's driver"));
        assert_eq!(report.cases.len(), 2);
    }

    #[test]
    fn a_figure_met_in_the_simulator_leaves_the_verdict_passed() {
        let mut report = gpu_report();
        let met = vec![target(ATOMICS, Some(1.0), true)];
        let rerun = Rerun {
            verdict: Verdict::Passed,
            case: case("n = 1000000", true),
            ran_kernels: true,
            targets: met,
        };
        join(&mut report, &mut Stages::default(), rerun);
        assert_eq!(report.verdict, Verdict::Passed);
        assert_eq!(report.targets[0].actual, Some(1.0));
    }

    #[test]
    fn what_the_simulator_finds_wrong_fails_the_check_as_a_case_of_its_own() {
        let mut report = gpu_report();
        let rerun = Rerun {
            verdict: Verdict::Race,
            case: case("n = 1000000", false),
            ran_kernels: true,
            targets: Vec::new(),
        };
        join(&mut report, &mut Stages::default(), rerun);
        assert_eq!(report.verdict, Verdict::Race);
        assert_eq!(report.cases.len(), 3);
        assert_eq!(
            report.cases[2].name,
            "n = 1000000 (again, in the simulator)"
        );
        assert!(
            report
                .summary
                .starts_with("Every case came out right on the GPU")
                && report
                    .summary
                    .ends_with("a race on total at reduction.py:30"),
            "{}",
            report.summary
        );
        // Unmeasured stays unmeasured: the simulator's figures of a failed run do not judge.
        assert_eq!(report.targets[0].actual, None);
    }

    #[test]
    fn a_simulator_that_could_not_run_the_kernels_leaves_the_gpus_verdict() {
        // numba-cuda with a CUDA toolkit hands the driver a cubin: the simulator runs PTX only.
        let mut report = gpu_report();
        let mut failed = case("n = 1000000", false);
        failed.problem = Some(
            "the program stopped on an error from the driver: cuLibraryLoadData returned \
             CUDA_ERROR_INVALID_IMAGE"
                .into(),
        );
        let rerun = Rerun {
            verdict: Verdict::Crashed,
            case: failed,
            ran_kernels: false,
            targets: Vec::new(),
        };
        join(&mut report, &mut Stages::default(), rerun);
        assert_eq!(report.verdict, Verdict::Passed);
        assert_eq!(report.cases.len(), 2);
        assert_eq!(report.targets[0].actual, None);
        assert!(
            report.targets[0].got.starts_with("not measured")
                && report.targets[0].got.contains("CUDA_ERROR_INVALID_IMAGE"),
            "{}",
            report.targets[0].got
        );
    }
}
