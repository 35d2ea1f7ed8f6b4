//! From what a check saw to what it says: the verdict of a backend error, the findings of the
//! simulator's diagnostics, and the advice that ends a failed check.

use super::defined_kernels;
use crate::backend::BackendError;
use crate::course::Exercise;
use crate::report::{CheckReport, Finding, Verdict};
use checks::Case;

/// A backend error as the case's verdict and the line a student reads under the failing case.
pub(super) fn describe_backend_error(err: &BackendError) -> (Verdict, String) {
    match err {
        BackendError::OutOfBounds(detail) => {
            (Verdict::OutOfBounds, format!("Out of bounds: {detail}"))
        }
        BackendError::Timeout { .. } => (Verdict::Hang, format!("Hang: {err}")),
        BackendError::Stopped { verdict, text } => (*verdict, text.clone()),
        BackendError::InvalidLaunch(text) => {
            (Verdict::InvalidLaunch, format!("Launch refused: {text}"))
        }
        BackendError::Fault(detail) => (Verdict::Crashed, format!("The kernel failed: {detail}")),
        other => (Verdict::Crashed, other.to_string()),
    }
}

/// The bugs among a launch's diagnostics, as findings of `case`, with its arrays called by
/// their parameter names.
pub(super) fn findings(case: &Case, diagnostics: &[sim::Diagnostic]) -> Vec<Finding> {
    diagnostics
        .iter()
        .map(|d| {
            let mut text = crate::backend::sim::describe(d);
            for (k, arg) in case.args.iter().enumerate() {
                if let checks::Arg::Buffer(buffer) = arg {
                    let by_position = format!("the array passed as argument {}", k + 1);
                    text = text.replace(&by_position, &format!("`{}`", buffer.name));
                }
            }
            Finding {
                verdict: crate::backend::sim::verdict_of(d),
                case: case.name.clone(),
                text,
            }
        })
        .collect()
}

/// What to do when an entry point is missing: C++ mangles the names of functions declared
/// without `extern "C"`, so the kernel is there under another name.
pub(super) fn missing_kernel_advice(missing: &str, file: &str, text: &str) -> String {
    let defined = defined_kernels(text);
    if defined.iter().any(|d| d == missing) {
        return format!(
            "The exercise launches a kernel called `{missing}`. {file} defines `{missing}`, but without              `extern \"C\"` in front of `__global__` C++ renames it (to something like `_Z{}{missing}Pf...`,              its parameter types encoded), and the launch cannot find it. Put `extern \"C\"` back.",
            missing.len()
        );
    }
    format!(
        "The exercise launches a kernel called `{missing}`, and {file} defines {}. Kernels are found by name: \
         keep the name and the `extern \"C\"` in front of `__global__`.",
        if defined.is_empty() { "no kernel".to_string() } else { format!("only `{}`", defined.join("`, `")) }
    )
}

/// The last line of a failed check: what the verdict means and what to do next.
pub(super) fn failure_summary(report: &CheckReport, exercise: &Exercise) -> String {
    let hint = format!("`runner hint {}` gives a hint.", exercise.id);
    let first = report.diagnostics.first();
    match report.verdict {
        Verdict::NotDone => format!(
            "This is still the exercise as it was given: do the TODOs in {}. `runner hint {}` helps.",
            report.file, exercise.id
        ),
        Verdict::WrongOutput => format!("Fix the first failing case above. {hint}"),
        Verdict::Race | Verdict::BarrierDivergence | Verdict::BadMask => {
            let finding = first.map_or(String::new(), |d| format!("In case `{}`: {}.", d.case, d.text));
            let outputs_wrong = report.cases.iter().any(|c| c.mismatch.is_some());
            if outputs_wrong {
                format!("The outputs are wrong, and the simulator found why. {finding} {hint}")
            } else {
                format!(
                    "{finding} This is a bug even though the outputs came out right: on a GPU it gives \
                     wrong answers some of the time. {hint}"
                )
            }
        }
        _ => format!("See the first failing case above. {hint}"),
    }
}

/// Folds the simulator's check of a kernel that passed on a GPU into the GPU's report: a bug it
/// finds decides the verdict, and its targets on traffic (sectors, wavefronts, bank conflicts)
/// join the GPU's on time. The GPU's own time stays the judge of time.
pub fn add_simulator_findings(gpu: &mut CheckReport, sim: CheckReport) {
    gpu.sim = sim.sim;
    gpu.reference_sim = sim.reference_sim;
    gpu.add_printf(&sim.printf);
    if !matches!(sim.verdict, Verdict::Passed | Verdict::TargetsMissed) {
        gpu.verdict = sim.verdict;
        gpu.diagnostics = sim.diagnostics;
        gpu.summary = format!(
            "Every case came out right on the GPU, but the simulator, running the same cases, says: {} {}",
            sim.verdict.headline(),
            sim.summary
        );
        return;
    }
    let traffic = sim
        .targets
        .into_iter()
        .filter(|t| t.name != "max_time_vs_reference");
    gpu.targets.extend(traffic);
    let missed = gpu.targets.iter().find(|t| t.missed());
    if let (Verdict::Passed, Some(missed)) = (gpu.verdict, missed) {
        gpu.verdict = Verdict::TargetsMissed;
        gpu.summary = format!(
            "Every case is right, but {}. That is the lesson of this exercise.",
            missed.explanation
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets::TargetCheck;

    fn report(verdict: Verdict) -> CheckReport {
        CheckReport {
            schema_version: crate::report::SCHEMA_VERSION,
            exercise: "19".into(),
            title: "t".into(),
            file: "f".into(),
            backend: "gpu".into(),
            device: "d".into(),
            verdict,
            summary: "s".into(),
            compile: None,
            cases: Vec::new(),
            gpu: None,
            sim: None,
            reference_sim: None,
            targets: Vec::new(),
            diagnostics: Vec::new(),
            printf: String::new(),
            progress: None,
        }
    }

    fn target(name: &str, met: bool) -> TargetCheck {
        TargetCheck {
            name: name.into(),
            limit: 1.25,
            actual: if met { 1.0 } else { 3.3 },
            met,
            decides: true,
            explanation: format!("{name} explained"),
        }
    }

    #[test]
    fn a_bug_the_simulator_finds_fails_a_kernel_the_gpu_passed() {
        let mut gpu = report(Verdict::Passed);
        let mut sim = report(Verdict::Race);
        sim.diagnostics.push(Finding {
            verdict: Verdict::Race,
            case: "n = 1".into(),
            text: "race on shared memory".into(),
        });
        add_simulator_findings(&mut gpu, sim);
        assert_eq!(gpu.verdict, Verdict::Race);
        assert_eq!(gpu.diagnostics.len(), 1);
        assert!(gpu.summary.contains("right on the GPU"), "{}", gpu.summary);
    }

    #[test]
    fn traffic_targets_join_the_gpus_and_the_gpus_time_stays_the_judge_of_time() {
        let mut gpu = report(Verdict::Passed);
        gpu.targets.push(target("max_time_vs_reference", true));
        let mut sim = report(Verdict::TargetsMissed);
        sim.targets
            .push(target("max_shared_wavefronts_vs_reference", false));
        sim.targets.push(target("max_time_vs_reference", false));
        add_simulator_findings(&mut gpu, sim);
        assert_eq!(gpu.verdict, Verdict::TargetsMissed);
        let names: Vec<&str> = gpu.targets.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "max_time_vs_reference",
                "max_shared_wavefronts_vs_reference"
            ]
        );
        assert!(gpu
            .summary
            .contains("max_shared_wavefronts_vs_reference explained"));

        let mut clean = report(Verdict::Passed);
        add_simulator_findings(&mut clean, report(Verdict::Passed));
        assert_eq!(clean.verdict, Verdict::Passed);
    }
}
