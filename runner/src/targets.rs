//! An exercise's targets on speed and memory traffic, held against the figures of a check.

use crate::course::Targets;
use crate::report::{GpuFigures, SimFigures};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
pub struct TargetCheck {
    pub name: String,
    pub limit: f64,
    pub actual: f64,
    pub met: bool,
    /// Says the figure, the limit and what they mean.
    pub explanation: String,
}

fn at_most(
    name: &'static str,
    limit: f64,
    actual: f64,
    explain: impl Fn(bool) -> String,
) -> TargetCheck {
    let met = actual <= limit + 1e-9;
    TargetCheck {
        name: name.to_string(),
        limit,
        actual,
        met,
        explanation: explain(met),
    }
}

/// The targets that the backend's figures can judge: simulator targets in the simulator, GPU
/// targets on a GPU.
pub fn evaluate(
    targets: &Targets,
    sim: Option<&SimFigures>,
    gpu: Option<&GpuFigures>,
) -> Vec<TargetCheck> {
    let mut checks = Vec::new();
    if let (Some(limit), Some(sim)) = (targets.max_sectors_per_request, sim) {
        let f = &sim.kernel;
        let requests = f.global_load_requests + f.global_store_requests;
        let sectors = f.global_load_sectors + f.global_store_sectors;
        let actual = if requests == 0 {
            0.0
        } else {
            sectors as f64 / requests as f64
        };
        checks.push(at_most("max_sectors_per_request", limit, actual, |met| {
            let verb = if met { "within" } else { "above" };
            format!(
                "global memory takes {actual:.1} sectors per request, {verb} the target of {limit:.1} \
                 (neighbouring threads should touch neighbouring addresses)"
            )
        }));
    }
    if let (Some(limit), Some(sim)) = (targets.max_bank_conflicts, sim) {
        let actual =
            (sim.kernel.shared_load_bank_conflicts + sim.kernel.shared_store_bank_conflicts) as f64;
        checks.push(at_most("max_bank_conflicts", limit as f64, actual, |met| {
            let verb = if met { "within" } else { "above" };
            format!("shared memory has {actual} bank conflicts, {verb} the target of {limit}")
        }));
    }
    if let (Some(limit), Some(gpu)) = (targets.max_time_vs_reference, gpu) {
        if let Some(reference) = gpu.reference_ms {
            let actual = gpu.kernel_ms / reference;
            checks.push(at_most("max_time_vs_reference", limit, actual, |met| {
                let verb = if met { "within" } else { "above" };
                format!("the kernel takes {actual:.2}x the reference solution's time, {verb} the target of {limit:.2}x")
            }));
        }
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(load_requests: u64, load_sectors: u64, conflicts: u64) -> SimFigures {
        SimFigures {
            case: "c".into(),
            kernel: sim::Figures {
                global_load_requests: load_requests,
                global_load_sectors: load_sectors,
                shared_load_bank_conflicts: conflicts,
                ..Default::default()
            },
            lines: Vec::new(),
            warp_instructions: 0,
        }
    }

    #[test]
    fn sectors_per_request_above_the_target_is_missed_and_says_by_how_much() {
        let targets = Targets {
            max_sectors_per_request: Some(4.0),
            ..Default::default()
        };
        let checks = evaluate(&targets, Some(&sim(10, 320, 0)), None);
        assert!(!checks[0].met);
        assert!(checks[0]
            .explanation
            .contains("32.0 sectors per request, above the target of 4.0"));
        assert!(evaluate(&targets, Some(&sim(10, 40, 0)), None)[0].met);
    }

    #[test]
    fn bank_conflicts_and_gpu_targets_are_judged_only_where_measured() {
        let targets = Targets {
            max_bank_conflicts: Some(0),
            max_time_vs_reference: Some(1.5),
            ..Default::default()
        };
        let checks = evaluate(&targets, Some(&sim(1, 4, 31)), None);
        assert_eq!(checks.len(), 1);
        assert!(!checks[0].met);
    }
}
