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

/// A total of the kernel's over the reference solution's on the same case, held to `limit`.
fn versus_reference(
    name: &'static str,
    limit: f64,
    mine: u64,
    reference: u64,
    what: &'static str,
    lesson: &'static str,
) -> TargetCheck {
    let actual = mine as f64 / reference.max(1) as f64;
    at_most(name, limit, actual, |met| {
        let verb = if met { "within" } else { "above" };
        format!(
            "the kernel takes {mine} {what} where the reference solution takes {reference} on the same inputs: \
             {actual:.2}x, {verb} the target of {limit:.2}x ({lesson})"
        )
    })
}

/// The targets held against the reference solution's figures on the same case, in the simulator.
fn against_reference(
    targets: &Targets,
    mine: &SimFigures,
    reference: &SimFigures,
) -> Vec<TargetCheck> {
    let (m, r) = (&mine.kernel, &reference.kernel);
    let sectors = |f: &sim::Figures| f.global_load_sectors + f.global_store_sectors;
    let wavefronts = |f: &sim::Figures| f.shared_load_wavefronts + f.shared_store_wavefronts;
    let mut checks = Vec::new();
    if let Some(limit) = targets.max_global_sectors_vs_reference {
        checks.push(versus_reference(
            "max_global_sectors_vs_reference",
            limit,
            sectors(m),
            sectors(r),
            "global-memory sectors",
            "neighbouring threads should touch neighbouring addresses, so each sector is fetched once",
        ));
    }
    if let Some(limit) = targets.max_shared_wavefronts_vs_reference {
        checks.push(versus_reference(
            "max_shared_wavefronts_vs_reference",
            limit,
            wavefronts(m),
            wavefronts(r),
            "shared-memory wavefronts",
            "the chapter's technique needs fewer passes through shared memory: bank conflicts, or values that could stay in registers",
        ));
    }
    if let Some(limit) = targets.max_time_vs_reference {
        let (mine_us, reference_us) = (mine.modelled_work_us(), reference.modelled_work_us());
        let actual = mine_us / reference_us.max(1e-3);
        checks.push(at_most("max_time_vs_reference", limit, actual, |met| {
            let verb = if met { "within" } else { "above" };
            format!(
                "the kernel's modelled time on {} is {mine_us:.2} µs where the reference solution's is \
                 {reference_us:.2} µs on the same inputs (launch overhead aside): {actual:.2}x, {verb} the \
                 target of {limit:.2}x (bound by {})",
                mine.modelled.gpu, mine.modelled.bound_by
            )
        }));
    }
    checks
}

/// The targets that the backend's figures can judge: simulator targets in the simulator, GPU
/// targets on a GPU. `reference` holds the reference solution's simulator figures on the same
/// case, for the targets relative to it.
pub fn evaluate(
    targets: &Targets,
    sim: Option<&SimFigures>,
    reference: Option<&SimFigures>,
    gpu: Option<&GpuFigures>,
) -> Vec<TargetCheck> {
    let mut checks = Vec::new();
    if let (Some(mine), Some(reference)) = (sim, reference) {
        checks.extend(against_reference(targets, mine, reference));
    }
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
            modelled: Default::default(),
        }
    }

    #[test]
    fn sectors_per_request_above_the_target_is_missed_and_says_by_how_much() {
        let targets = Targets {
            max_sectors_per_request: Some(4.0),
            ..Default::default()
        };
        let checks = evaluate(&targets, Some(&sim(10, 320, 0)), None, None);
        assert!(!checks[0].met);
        assert!(checks[0]
            .explanation
            .contains("32.0 sectors per request, above the target of 4.0"));
        assert!(evaluate(&targets, Some(&sim(10, 40, 0)), None, None)[0].met);
    }

    #[test]
    fn bank_conflicts_and_gpu_targets_are_judged_only_where_measured() {
        let targets = Targets {
            max_bank_conflicts: Some(0),
            max_time_vs_reference: Some(1.5),
            ..Default::default()
        };
        let checks = evaluate(&targets, Some(&sim(1, 4, 31)), None, None);
        assert_eq!(checks.len(), 1);
        assert!(!checks[0].met);
    }

    #[test]
    fn totals_against_the_reference_cannot_be_met_by_doing_less_per_request() {
        let targets = Targets {
            max_global_sectors_vs_reference: Some(1.1),
            ..Default::default()
        };
        // Lane 0 of each warp alone: one sector per request, 32 times the reference's sectors.
        let lane_zero = sim(32_000, 32_000, 0);
        let reference = sim(1_000, 4_000, 0);
        let checks = evaluate(&targets, Some(&lane_zero), Some(&reference), None);
        assert!(!checks[0].met);
        assert!(
            checks[0]
                .explanation
                .contains("32000 global-memory sectors where the reference solution takes 4000"),
            "{}",
            checks[0].explanation
        );
        assert!(evaluate(&targets, Some(&reference), Some(&reference), None)[0].met);
        // Without the reference's figures (on a GPU) the target is not judged.
        assert!(evaluate(&targets, Some(&lane_zero), None, None).is_empty());
    }
}
