//! One case on the backend: run it beside its CPU reference, compare, keep what the timing needs.

use super::{describe_backend_error, timing, Checker, Expected};
use crate::backend::ModuleId;
use crate::course::Exercise;
use crate::execute::{run_case, Prepared};
use crate::trace;
use checks::{compare_case, identical_and_accepted, Case};
use contract::report::kernel::CaseResult;
use contract::Verdict;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

impl Checker<'_> {
    /// Runs one case and compares it; errors become the case's message.
    pub(super) fn run_one(
        &mut self,
        module: ModuleId,
        case: &Case,
        known: Option<&OnceLock<Expected>>,
        exercise: &Exercise,
        time_limit: Duration,
    ) -> CaseOutcome {
        let mut result = CaseResult {
            name: case.name.clone(),
            launch: case.launch.to_string(),
            passed: false,
            verdict: Verdict::WrongOutput,
            error: None,
            mismatch: None,
            finding: None,
        };
        // The CPU reference runs on another thread while the kernel runs: for a large case
        // both take tens of milliseconds, and a student waits for the slower only.
        // Computed once per case and options in a worker, then kept (`known`).
        let reference = || {
            let compute = || {
                let started = Instant::now();
                (Arc::new(case.expected()), started.elapsed())
            };
            match known {
                Some(known) => known.get_or_init(compute).clone(),
                None => compute(),
            }
        };
        let (ran, (expected, cpu_reference)) = std::thread::scope(|scope| {
            let cpu = std::thread::Builder::new().spawn_scoped(scope, reference);
            let ran = run_case(self.backend, module, case, time_limit);
            let cpu = match cpu {
                Ok(cpu) => cpu
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // No thread to be had (a grader's limits): the reference runs after the kernel.
                Err(_) => reference(),
            };
            (ran, cpu)
        });
        trace::mark("case run on the backend, CPU reference ready");
        let (run, prepared) = match ran {
            Ok(done) => done,
            Err(err) => {
                let (verdict, text, finding) = describe_backend_error(case, &err);
                result.verdict = verdict;
                result.error = Some(text);
                result.finding = finding;
                return CaseOutcome {
                    result,
                    sim: None,
                    kept: None,
                };
            }
        };
        if let Some(dir) = &self.save_outputs {
            save_outputs(dir, &exercise.id, case, &run.outputs);
        }
        let measured = timing::Measured {
            cpu_reference,
            copy_in: run.copy_in,
            copy_out: run.copy_out,
        };
        result.passed = true;
        result.verdict = Verdict::Passed;
        for (name, want) in expected.iter() {
            let got = run.outputs.iter().find(|(n, _)| n == name).map(|(_, d)| d);
            let got = got.expect("every expected output was read back");
            if identical_and_accepted(want, got, exercise.tolerance) {
                continue;
            }
            if let Err(mismatch) = compare_case(case, name, want, got, exercise.tolerance) {
                result.passed = false;
                result.verdict = Verdict::WrongOutput;
                result.mismatch = Some(mismatch);
                break;
            }
        }
        CaseOutcome {
            result,
            sim: run.details,
            kept: Some((prepared, measured)),
        }
    }
}

/// What one run of a case gave: its verdict, the simulator's report, and (when it ran) its
/// buffers, still on the device, with the host-side timings.
pub(super) struct CaseOutcome {
    pub(super) result: CaseResult,
    pub(super) sim: Option<sim::LaunchReport>,
    pub(super) kept: Option<(Prepared, timing::Measured)>,
}

/// Writes `<dir>/<id>/<case>/<buffer>.bin`; failures only lose the comparison, not the check.
fn save_outputs(dir: &Path, id: &str, case: &Case, outputs: &[(String, checks::HostData)]) {
    let case_dir: String = case
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    for (name, data) in outputs {
        let path = dir
            .join(id)
            .join(&case_dir)
            .join(format!("{name}.{}", data.type_name().replace(' ', "_")));
        let _ = crate::compile::cache::write_atomically(&path, data.as_bytes());
    }
}
