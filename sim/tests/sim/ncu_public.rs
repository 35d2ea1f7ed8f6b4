//! The simulator's figures against Nsight Compute on public CUDA code nobody here wrote
//! (tests/ncu/public/: NVIDIA's cuda-samples kernels, the launches, the figures measured on an H100).
//!
//! Global requests and sectors (loads, stores, atomics) and shared-memory instructions must be
//! equal; shared wavefronts within 2% of the hardware's (it adds L1 contention). A case whose
//! `differs_in` names keys where the simulator is known to differ today is printed with its reason
//! (`differs`) and fails once one of those keys matches, so that the marker goes when the
//! simulator is fixed; its other keys stay strict.
//!
//! Warp instructions cannot be equal: the simulator counts the PTX's, the hardware the machine
//! code's (ptxas adds address arithmetic, unrolls, predicates). They are held to a stated
//! tolerance: each launch within half and one and a half times the hardware's count, and the
//! median ratio within 0.9 and 1.3 (it was 1.11 when measured).

use super::ncu_cases::{arg, dims};
use sim::{Launch, Limits, Machine, Module};
use std::path::PathBuf;

fn public_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/ncu/public")
}

/// How a key is held: equal, or shared wavefronts within 2% of the hardware's figure.
fn close_enough(key: &str, hw: u64, sim: u64) -> bool {
    if key.ends_with("_wavefronts") {
        hw.abs_diff(sim) * 50 <= hw
    } else {
        hw == sim
    }
}

/// (key, Nsight Compute's figure, the simulator's) for every key compared. Global atomics and
/// reductions are one figure in the simulator, two metrics (`_op_atom`, `_op_red`) in ncu.
fn compared(hw: &serde_json::Value, sim: &sim::Figures) -> Vec<(&'static str, u64, u64)> {
    let n = |key: &str| {
        hw[key]
            .as_u64()
            .unwrap_or_else(|| panic!("no figure {key} in ncu_figures.json"))
    };
    vec![
        (
            "global_load_requests",
            n("global_load_requests"),
            sim.global_load_requests,
        ),
        (
            "global_load_sectors",
            n("global_load_sectors"),
            sim.global_load_sectors,
        ),
        (
            "global_store_requests",
            n("global_store_requests"),
            sim.global_store_requests,
        ),
        (
            "global_store_sectors",
            n("global_store_sectors"),
            sim.global_store_sectors,
        ),
        (
            "global_atomic_requests",
            n("global_atom_requests") + n("global_red_requests"),
            sim.global_atomic_requests,
        ),
        (
            "global_atomic_sectors",
            n("global_atom_sectors") + n("global_red_sectors"),
            sim.global_atomic_sectors,
        ),
        (
            "shared_load_requests",
            n("shared_load_requests"),
            sim.shared_load_requests,
        ),
        (
            "shared_load_wavefronts",
            n("shared_load_wavefronts"),
            sim.shared_load_wavefronts,
        ),
        (
            "shared_store_requests",
            n("shared_store_requests"),
            sim.shared_store_requests,
        ),
        (
            "shared_store_wavefronts",
            n("shared_store_wavefronts"),
            sim.shared_store_wavefronts,
        ),
        (
            "shared_atomic_requests",
            n("shared_atomic_requests"),
            sim.shared_atomic_requests,
        ),
    ]
}

#[test]
fn public_kernels_match_nsight_compute() {
    let ptx = std::fs::read_to_string(public_dir().join("kernels.ptx")).unwrap();
    let module = Module::parse(&ptx).unwrap();
    let cases: toml::Value =
        toml::from_str(&std::fs::read_to_string(public_dir().join("cases.toml")).unwrap()).unwrap();
    let measured: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(public_dir().join("ncu_figures.json")).unwrap(),
    )
    .unwrap();
    let cases = cases["case"].as_array().unwrap();
    assert!(cases.len() >= 40);
    let mut failures = Vec::new();
    let mut known = Vec::new();
    let mut instruction_ratios = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let differs_in: Vec<&str> = case
            .get("differs_in")
            .map(|v| {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k.as_str().unwrap())
                    .collect()
            })
            .unwrap_or_default();
        let why = case.get("differs").and_then(|v| v.as_str());
        assert_eq!(
            differs_in.is_empty(),
            why.is_none(),
            "{name}: `differs` (why) and `differs_in` (keys) go together"
        );
        let mut gpu = Machine::new();
        let params = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| arg(&mut gpu, a.as_str().unwrap()))
            .collect();
        let launch = Launch {
            kernel: case["kernel"].as_str().unwrap().to_string(),
            grid: dims(&case["grid"]),
            block: dims(&case["block"]),
            dynamic_shared_bytes: case["dynamic_shared_bytes"].as_integer().unwrap_or(0) as u32,
            params,
            limits: Limits::default(),
        };
        // A launch that fails or reports anything is the key "runs".
        let mut mismatches = Vec::new();
        let report = match gpu.launch(&module, &launch) {
            Ok(r) if r.diagnostics.is_empty() && !r.aborted => Some(r),
            Ok(r) => {
                mismatches.push(("runs", format!("diagnostics: {:?}", r.diagnostics)));
                Some(r)
            }
            Err(e) => {
                mismatches.push(("runs", format!("launch failed: {e}")));
                None
            }
        };
        let want = &measured["cases"][name];
        assert!(want.is_object(), "{name}: no figures in ncu_figures.json");
        if let Some(r) = &report {
            for (key, hw, sim) in compared(want, &r.figures) {
                if !close_enough(key, hw, sim) {
                    mismatches.push((key, format!("Nsight Compute {hw}, simulator {sim}")));
                }
            }
            let hw = want["warp_instructions"].as_u64().unwrap_or(0).max(1);
            let ratio = r.warp_instructions as f64 / hw as f64;
            instruction_ratios.push(ratio);
            if !(0.5..=1.5).contains(&ratio) {
                let what = format!("Nsight Compute {hw}, simulator {}", r.warp_instructions);
                mismatches.push(("warp_instructions", what));
            }
        }
        for (key, what) in &mismatches {
            if differs_in.contains(key) {
                known.push(format!("{name}.{key}: {what}"));
            } else {
                failures.push(format!("{name}.{key}: {what}"));
            }
        }
        for key in &differs_in {
            if !mismatches.iter().any(|(k, _)| k == key) {
                failures.push(format!(
                    "{name}.{key}: marked as differing ({}) but now matches Nsight Compute: \
                     take it out of differs_in in tests/ncu/public/cases.toml",
                    why.unwrap()
                ));
            }
        }
        if let Some(why) = why {
            known.push(format!("{name}: known difference: {why}"));
        }
    }
    println!(
        "known differences from Nsight Compute:\n  {}",
        known.join("\n  ")
    );
    instruction_ratios.sort_by(f64::total_cmp);
    let median = instruction_ratios[instruction_ratios.len() / 2];
    if !(0.9..=1.3).contains(&median) {
        failures.push(format!(
            "warp instructions: the median ratio of the simulator's to the hardware's is {median:.2}, outside 0.9-1.3"
        ));
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
