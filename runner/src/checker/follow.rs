//! When the first failing case's trace finds no place where the student's threads part from the
//! solution's (the bug shows in another case, or in threads the first case does not reach), the
//! later failing cases are traced in turn, and the first that names a parting joins the report.

use super::{Checker, Expected};
use crate::backend::ModuleId;
use crate::course::Exercise;
use checks::{Case, Mismatch};
use contract::{CheckReport, Verdict};
use std::sync::OnceLock;
use std::time::Duration;

/// Later cases run to find one whose trace parts: each costs a run and up to four watched runs.
const MOST_FOLLOWED: usize = 3;

/// Whether any traced element of `mismatch` names where a thread parts from the solution's.
pub(crate) fn parted(mismatch: &Mismatch) -> bool {
    mismatch
        .first_wrong
        .iter()
        .any(|w| w.origin.as_ref().is_some_and(|o| o.thread.is_some()))
}

impl Checker<'_> {
    /// After case `failed` gave a wrong output whose trace names no parting, runs the cases
    /// after it (the simulator's only) and adds the first wrong one whose trace does, as a
    /// failing case of its own. A case that stops at a bug, or passes, is left out: its verdict
    /// would not explain this one's wrong elements.
    pub(super) fn follow_later_cases(
        &mut self,
        module: ModuleId,
        exercise: &Exercise,
        (cases, failed): (&[Case], usize),
        expected: Option<&[OnceLock<Expected>]>,
        report: &mut CheckReport,
    ) {
        if self.backend.kind() != contract::Backend::Sim {
            return;
        }
        let time_limit = Duration::from_millis(exercise.time_limit_ms);
        let later = cases
            .iter()
            .enumerate()
            .skip(failed + 1)
            .filter(|(_, c)| !c.for_timing);
        let mut followed = 0;
        for (index, case) in later {
            if followed == MOST_FOLLOWED {
                return;
            }
            let known = expected.and_then(|e| e.get(index));
            let outcome = self.run_one(module, case, known, exercise, time_limit);
            if let Some((prepared, _)) = outcome.kept {
                prepared.free(self.backend);
            }
            let mut result = outcome.result;
            let bugs = outcome
                .sim
                .as_ref()
                .is_some_and(|s| !s.diagnostics.is_empty());
            let Some(mismatch) = result.mismatch.as_mut() else {
                continue;
            };
            if bugs || result.verdict != Verdict::WrongOutput {
                continue;
            }
            followed += 1;
            let found = self.trace_origins(module, exercise, (index, case), mismatch);
            if parted(mismatch) {
                super::add_findings(report, found);
                report.cases.push(result);
                return;
            }
        }
    }
}
