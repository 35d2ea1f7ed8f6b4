//! The reference solution's own figures on the case a kernel's figures come from: targets in the
//! simulator are totals held against them, so doing less per request cannot meet them.

use super::Checker;
use crate::course::Exercise;
use crate::execute::run_case;
use anyhow::Context;
use checks::Case;
use contract::SimFigures;
use std::time::Duration;

impl Checker<'_> {
    /// Runs the exercise's solution on `case` in the simulator and returns its figures; `None`
    /// where the backend measures none (a GPU), the exercise has no target that needs them, or
    /// the case is retiled for a tuned reference (whose launch the solution does not take).
    /// `case` is the kernel's figures case and its place among the exercise's cases: where the
    /// exercise reads its launch from the file, the reference runs the case at the same place
    /// made with its own launch.
    pub(super) fn reference_figures(
        &mut self,
        exercise: &Exercise,
        (index, case): (usize, &Case),
        text: &str,
        mine: &SimFigures,
    ) -> anyhow::Result<Option<SimFigures>> {
        if self.backend.kind() != contract::Backend::Sim
            || self.retile
            || !exercise.targets.needs_reference_figures()
        {
            return Ok(None);
        }
        let path = self.course.solution_path(exercise);
        if !path.exists() {
            // A copy of the course without its solutions: the targets against them go unjudged,
            // and the student is told so rather than passed in silence.
            eprintln!(
                "Warning: {} is missing, so the targets measured against the reference solution are not judged.",
                self.course.display_name(&path)
            );
            return Ok(None);
        }
        let solution = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read the reference solution {}", path.display()))?;
        if solution == text {
            return Ok(Some(mine.clone()));
        }
        let image = self
            .compile(&path, &solution)
            .map_err(|e| anyhow::anyhow!("the reference solution does not compile: {e}"))?;
        let module = self.backend.load(&image).map_err(|e| anyhow::anyhow!(e))?;
        let own_case;
        let case = if exercise.declared.is_empty() {
            case
        } else {
            let declared = self
                .declared_values(module, exercise)
                .map_err(|e| anyhow::anyhow!("the reference solution: {e}"))?;
            let cases = checks::cases_for(&exercise.id, &self.case_options(declared))
                .context("the exercise has no check")?;
            own_case = cases
                .into_iter()
                .nth(index)
                .context("the reference has fewer cases")?;
            &own_case
        };
        let limit = Duration::from_millis(exercise.time_limit_ms);
        let (run, prepared) = run_case(self.backend, module, case, limit)
            .map_err(|e| anyhow::anyhow!("the reference solution failed on {}: {e}", case.name))?;
        prepared.free(self.backend);
        Ok(run.details.map(|report| SimFigures::of(&case.name, report)))
    }
}
