//! An exercise's targets on speed and memory traffic, held against the figures of a check.

use crate::course::Targets;
use crate::report::{GpuFigures, SimFigures, Target};

fn at_most(
    name: &'static str,
    limit: f64,
    actual: f64,
    explain: impl Fn(bool) -> String,
) -> Target {
    let met = actual <= limit + 1e-9;
    judged(
        name,
        format!("at most {}", figure(limit)),
        limit,
        actual,
        met,
        explain,
    )
}

fn at_least(
    name: &'static str,
    limit: f64,
    actual: f64,
    explain: impl Fn(bool) -> String,
) -> Target {
    let met = actual + 1e-9 >= limit;
    judged(
        name,
        format!("at least {}", figure(limit)),
        limit,
        actual,
        met,
        explain,
    )
}

fn judged(
    name: &'static str,
    wanted: String,
    limit: f64,
    actual: f64,
    met: bool,
    explain: impl Fn(bool) -> String,
) -> Target {
    Target {
        name: name.to_string(),
        wanted,
        got: figure(actual),
        limit,
        actual: Some(actual),
        met,
        decides: true,
        explanation: explain(met),
    }
}

/// A figure in words: a whole number as one, else to two decimals (ratios, sectors per request).
fn figure(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
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
) -> Target {
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
fn against_reference(targets: &Targets, mine: &SimFigures, reference: &SimFigures) -> Vec<Target> {
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
            "each sector fetched once: neighbouring threads on neighbouring addresses, and what \
             several threads need read once",
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
    if let Some(limit) = targets.max_atomics_vs_reference {
        let atomics = |f: &sim::Figures| f.global_atomic_requests + f.shared_atomic_requests;
        checks.push(versus_reference(
            "max_atomics_vs_reference",
            limit,
            atomics(m),
            atomics(r),
            "atomic operations (each pass of a CAS loop counts)",
            "an atomicCAS loop tries again whenever another thread changed the word first; in the \
             simulator only the lanes of one warp collide, so this is the fewest a GPU makes: there \
             every warp of the grid contends for the same words and each retry waits for the last \
             (exercise 08's CAS loop took 33,000x the solution's time on an H100): atomicAdd does \
             the addition in one step",
        ));
    }
    if let Some(limit) = targets.min_threads_vs_reference {
        checks.push(launch_threads(limit, &mine.shape, &reference.shape));
    }
    if let Some(limit) = targets.max_time_vs_reference {
        checks.push(modelled_time(
            limit,
            mine,
            reference,
            targets.modelled_time_validated_by.is_some(),
        ));
    }
    checks
}

/// The launch's threads against the reference solution's on the same case.
fn launch_threads(limit: f64, mine: &sim::KernelShape, reference: &sim::KernelShape) -> Target {
    let threads = |s: &sim::KernelShape| s.blocks * s.threads_per_block as u64;
    let (m, r) = (threads(mine), threads(reference));
    let actual = m as f64 / r.max(1) as f64;
    at_least("min_threads_vs_reference", limit, actual, |met| {
        let verb = if met { "within" } else { "below" };
        format!(
            "the launch has {m} threads ({} block{} of {}) where the reference solution's has {r}: \
             {actual:.2}x, {verb} the target of at least {limit:.2}x (a memory-bound kernel needs \
             every SM busy, with many warps each, to keep enough loads in flight)",
            mine.blocks,
            if mine.blocks == 1 { "" } else { "s" },
            mine.threads_per_block
        )
    })
}

/// The launch's threads per block held to whole warps (`whole_warps`): a GPU runs a block as
/// warps of 32 threads, so a block of 100 is 4 warps whose last has 28 lanes idle. `block` is the
/// launch the cases ran with, the same on either backend; none where the exercise sets no such
/// target.
pub fn launch_facts(targets: &Targets, block: [u32; 3]) -> Option<Target> {
    if !targets.whole_warps {
        return None;
    }
    let threads = block.iter().map(|&d| d as u64).product::<u64>();
    let warps = threads.div_ceil(32);
    let idle = warps * 32 - threads;
    let explanation = if idle == 0 {
        format!("the blocks have {threads} threads, {warps} whole warps of 32")
    } else {
        let (below, above) = (threads / 32 * 32, warps * 32);
        let below = if below == 0 {
            String::new()
        } else {
            format!("{below} or ")
        };
        format!(
            "the blocks have {threads} threads, not a multiple of 32: a GPU runs a block as warps \
             of 32 threads, so the last of its {warps} warps has {} of 32 lanes working and {idle} \
             idle in every block (blocks of {below}{above} threads fill every warp)",
            32 - idle
        )
    };
    Some(Target {
        name: "whole_warps".into(),
        wanted: "a multiple of 32".into(),
        got: threads.to_string(),
        limit: 32.0,
        actual: Some(threads as f64),
        met: idle == 0,
        decides: true,
        explanation,
    })
}

/// The modelled time against the reference solution's; it decides only where `validated`.
fn modelled_time(limit: f64, mine: &SimFigures, reference: &SimFigures, validated: bool) -> Target {
    let (mine_us, reference_us) = (mine.modelled_work_us(), reference.modelled_work_us());
    let actual = mine_us / reference_us.max(1e-3);
    let mut check = at_most("max_time_vs_reference", limit, actual, |met| {
        let verb = if met { "within" } else { "above" };
        let judged = if validated {
            ""
        } else {
            "; shown, not judged: the model is not validated on a GPU for this exercise"
        };
        format!(
            "the kernel's modelled time on {} is {mine_us:.2} µs where the reference solution's is \
             {reference_us:.2} µs on the same inputs (launch overhead aside): {actual:.2}x, {verb} the \
             target of {limit:.2}x (bound by {}){judged}",
            mine.modelled.gpu, mine.modelled.bound_by
        )
    });
    check.decides = validated;
    check
}

/// The targets that the backend's figures can judge: simulator targets in the simulator, GPU
/// targets on a GPU. `reference` holds the reference solution's simulator figures on the same
/// case, for the targets relative to it.
pub fn evaluate(
    targets: &Targets,
    sim: Option<&SimFigures>,
    reference: Option<&SimFigures>,
    gpu: Option<&GpuFigures>,
) -> Vec<Target> {
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
    // Those that decide first: a reader of the first missed target reads one that counts.
    checks.sort_by_key(|t| !t.decides);
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
            shape: Default::default(),
        }
    }

    /// A kernel's figures with a modelled time of `us` (launch overhead aside) on a launch of
    /// `blocks` blocks of `threads`.
    fn launched(us: f64, blocks: u64, threads: u32) -> SimFigures {
        let mut figures = sim(1, 4, 0);
        figures.modelled.microseconds = us;
        figures.shape.blocks = blocks;
        figures.shape.threads_per_block = threads;
        figures
    }

    #[test]
    fn a_cas_loops_attempts_are_atomics_against_the_reference() {
        let targets = Targets {
            max_atomics_vs_reference: Some(1.5),
            ..Default::default()
        };
        let atomics = |global, shared| {
            let mut f = sim(1, 4, 0);
            f.kernel.global_atomic_requests = global;
            f.kernel.shared_atomic_requests = shared;
            f
        };
        // Exercise 08's figures: a CAS loop on global bins, global atomicAdd, the solution's
        // shared bins.
        let (cas, global, reference) = (atomics(6070, 0), atomics(3126, 0), atomics(64, 3126));
        let missed = &evaluate(&targets, Some(&cas), Some(&reference), None)[0];
        assert!(missed.missed(), "{missed:?}");
        assert!(
            missed.explanation.contains("6070 atomic operations")
                && missed
                    .explanation
                    .contains("where the reference solution takes 3190")
                && missed.explanation.contains("atomicAdd"),
            "{}",
            missed.explanation
        );
        let met = &evaluate(&targets, Some(&global), Some(&reference), None)[0];
        assert!(met.met, "{met:?}");
    }

    #[test]
    fn blocks_of_whole_warps_are_a_launch_fact() {
        let targets = Targets {
            whole_warps: true,
            ..Default::default()
        };
        let partial = launch_facts(&targets, [100, 1, 1]).unwrap();
        assert!(partial.missed(), "{partial:?}");
        assert!(
            partial
                .explanation
                .contains("not a multiple of 32: a GPU runs a block as warps of 32 threads, so the last of its 4 warps has 4 of 32 lanes working and 28 idle")
                && partial.explanation.contains("blocks of 96 or 128 threads"),
            "{}",
            partial.explanation
        );
        assert!(!launch_facts(&targets, [32, 8, 1]).unwrap().missed());
        assert!(launch_facts(&Targets::default(), [100, 1, 1]).is_none());
    }

    #[test]
    fn a_modelled_time_decides_only_where_it_was_validated_on_a_gpu() {
        let mut targets = Targets {
            max_time_vs_reference: Some(1.3),
            ..Default::default()
        };
        let (slow, reference) = (launched(170.0, 4, 128), launched(100.0, 4, 128));
        let shown = &evaluate(&targets, Some(&slow), Some(&reference), None)[0];
        assert!(!shown.met && !shown.decides && !shown.missed());
        assert!(
            shown
                .explanation
                .contains("1.70x, above the target of 1.30x")
                && shown.explanation.contains("shown, not judged"),
            "{}",
            shown.explanation
        );
        targets.modelled_time_validated_by = Some("scripts/gpu/results/x.md".into());
        let judged = &evaluate(&targets, Some(&slow), Some(&reference), None)[0];
        assert!(judged.missed() && !judged.explanation.contains("not judged"));
    }

    #[test]
    fn a_launch_with_too_few_threads_misses_and_those_that_decide_come_first() {
        let targets = Targets {
            min_threads_vs_reference: Some(0.25),
            max_time_vs_reference: Some(2.0),
            ..Default::default()
        };
        let reference = launched(1.0, 1056, 256);
        let one_block = launched(30.0, 1, 256);
        let checks = evaluate(&targets, Some(&one_block), Some(&reference), None);
        assert_eq!(checks[0].name, "min_threads_vs_reference");
        assert!(checks[0].missed());
        assert!(
            checks[0]
                .explanation
                .contains("256 threads (1 block of 256) where the reference solution's has 270336"),
            "{}",
            checks[0].explanation
        );
        assert!(!checks[1].decides);
        // A block of 1024 threads on each of an H100's 132 SMs: half the reference's threads.
        let per_sm = launched(1.0, 132, 1024);
        let checks = evaluate(&targets, Some(&per_sm), Some(&reference), None);
        assert!(checks.iter().all(|t| !t.missed()), "{checks:?}");
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
        // The bound and the figure in words too, as a program's targets give them.
        assert_eq!(
            (checks[0].wanted.as_str(), checks[0].got.as_str()),
            ("at most 4", "32")
        );
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
