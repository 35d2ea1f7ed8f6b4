//! A watched launch in the simulator: the stores to a few output elements and the steps of a few
//! threads, with their source files named as the student knows them.

use super::{relative_to_current_dir, sim_launch, SimBackend};
use crate::backend::{BackendError, KernelLaunch, ModuleId};
use sim::{SourceLocation, Step, StoreEvent, Watched};

pub(super) fn launch(
    backend: &mut SimBackend,
    module: ModuleId,
    launch: &KernelLaunch,
    watch: &sim::Watch,
) -> Result<Watched, BackendError> {
    let (_, mut watched) = backend
        .machine
        .launch_watched(&backend.modules[module].0, &sim_launch(launch), watch)
        .map_err(|e| BackendError::Fault(format!("the simulator stopped: {e}")))?;
    for element in &mut watched.elements {
        let events = element.first.iter_mut().chain(element.later_last.as_mut());
        events.for_each(relativise);
    }
    let steps = watched.threads.iter_mut().flat_map(|t| t.steps.iter_mut());
    for step in steps {
        let (location, condition) = match step {
            Step::Memory(m) => (m.location.as_mut(), None),
            Step::Branch(b) => (b.location.as_mut(), b.condition.as_mut()),
        };
        let computed = condition.and_then(|c| c.location.as_mut());
        for location in [location, computed].into_iter().flatten() {
            relative_to_current_dir(&mut location.file);
        }
    }
    Ok(watched)
}

fn relativise(event: &mut StoreEvent) {
    let computed = event.computed_by.as_mut().and_then(|c| c.location.as_mut());
    let locations: [Option<&mut SourceLocation>; 2] = [event.location.as_mut(), computed];
    for location in locations.into_iter().flatten() {
        relative_to_current_dir(&mut location.file);
    }
}
