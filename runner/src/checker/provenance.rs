//! Where each of the first wrong elements came from: once a case's output is found wrong, the
//! simulator runs the student's kernel and the reference solution again on the same case,
//! watching those elements, and each wrong element gets the store that wrote it (thread, line,
//! value, the instruction and operands behind it) beside the reference's, and the first store
//! where the two runs part. Works for any kernel: nothing here knows a mistake.

pub mod text;

use super::Checker;
use crate::backend::ModuleId;
use crate::course::Exercise;
use crate::execute::Prepared;
use checks::{Case, Mismatch};
use sim::ElementStores;
use std::borrow::Cow;
use std::time::Duration;

/// Wrong elements traced per case: the text shows these three, `--json` all that was traced.
pub const TRACED: usize = 3;

impl Checker<'_> {
    /// Gives the first wrong elements of `mismatch` their origin, where the backend can watch
    /// stores (the simulator). `case` is the failing case and its place among the exercise's.
    pub(super) fn trace_origins(
        &mut self,
        module: ModuleId,
        exercise: &Exercise,
        (index, case): (usize, &Case),
        mismatch: &mut Mismatch,
    ) {
        // Only the simulator watches stores; a GPU's check is spared copying the case again.
        if self.backend.kind() != contract::Backend::Sim {
            return;
        }
        let indices: Vec<usize> = mismatch
            .first_wrong
            .iter()
            .take(TRACED)
            .map(|w| w.index)
            .collect();
        let limit = Duration::from_millis(exercise.time_limit_ms);
        let buffer = mismatch.buffer.clone();
        let Some(student) = self.watch_case(module, case, &buffer, &indices, limit) else {
            return;
        };
        // A retiled case is launched as the student's file asks, which the solution does not.
        let reference = match self.retile {
            true => None,
            false => self.reference_case(exercise, (index, case)),
        };
        let reference = reference
            .and_then(|(module, case)| self.watch_case(module, &case, &buffer, &indices, limit));
        let close = sim::Closeness {
            abs: exercise.tolerance.abs,
            rel: exercise.tolerance.rel,
        };
        for (k, (wrong, stores)) in mismatch.first_wrong.iter_mut().zip(&student).enumerate() {
            let theirs = reference.as_ref().and_then(|r| r.get(k));
            wrong.origin = Some(sim::origin_of(stores, theirs, close));
        }
        crate::trace::mark("wrong elements traced to their stores");
    }

    /// Runs `case` again on fresh buffers, watching elements `indices` of output `buffer`.
    fn watch_case(
        &mut self,
        module: ModuleId,
        case: &Case,
        buffer: &str,
        indices: &[usize],
        limit: Duration,
    ) -> Option<Vec<ElementStores>> {
        let prepared = Prepared::new(self.backend, case).ok()?;
        let stores = prepared.watch(buffer, indices).and_then(|watch| {
            let launch = prepared.launch_of(case, limit);
            self.backend.launch_watched(module, &launch, &watch).ok()?
        });
        prepared.free(self.backend);
        stores
    }

    /// The reference solution loaded on the backend, and its own case at `index` where the
    /// exercise reads its launch from the file (the solution declares its own); None where it
    /// is missing or fails, which leaves the trace without the reference's side.
    fn reference_case<'c>(
        &mut self,
        exercise: &Exercise,
        (index, case): (usize, &'c Case),
    ) -> Option<(ModuleId, Cow<'c, Case>)> {
        let path = self.course.solution_path(exercise);
        let solution = std::fs::read_to_string(&path).ok()?;
        let module = self
            .backend
            .load(&self.compile(&path, &solution).ok()?)
            .ok()?;
        if exercise.declared.is_empty() {
            return Some((module, Cow::Borrowed(case)));
        }
        let declared = self.declared_values(module, exercise).ok()?;
        let cases = checks::cases_for(&exercise.id, &self.case_options(declared))?;
        Some((module, Cow::Owned(cases.into_iter().nth(index)?)))
    }
}
