//! The simulator's figures against Nsight Compute on an H200 (tests/ncu/: kernels, launches and
//! measured figures). Figures must match exactly, except that the hardware may count up to 2% more
//! shared-load wavefronts and bank conflicts (L1 contention the README there describes).

use super::ncu_cases::{arg, dims};
use sim::{Launch, Limits, Machine, Module};
use std::path::PathBuf;

fn ncu_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/ncu")
}

#[test]
fn figures_match_nsight_compute_on_an_h200() {
    let ptx = std::fs::read_to_string(ncu_dir().join("kernels.ptx")).unwrap();
    let module = Module::parse(&ptx).unwrap();
    let cases: toml::Value =
        toml::from_str(&std::fs::read_to_string(ncu_dir().join("cases.toml")).unwrap()).unwrap();
    let measured: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ncu_dir().join("ncu_figures.json")).unwrap())
            .unwrap();
    let cases = cases["case"].as_array().unwrap();
    assert!(cases.len() >= 25);
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
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
        let r = gpu
            .launch(&module, &launch)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(r.diagnostics.is_empty(), "{name}: {:#?}", r.diagnostics);
        let got = serde_json::to_value(&r.figures).unwrap();
        let want = &measured["cases"][name];
        for (key, hw) in want.as_object().unwrap() {
            if key == "kernel" {
                continue;
            }
            let (hw, sim) = (hw.as_u64().unwrap(), got[key].as_u64().unwrap());
            let ok = if key == "shared_load_wavefronts" || key == "shared_load_bank_conflicts" {
                let instructions = want["shared_load_requests"].as_u64().unwrap();
                hw >= sim && (hw - sim) * 50 <= instructions
            } else {
                hw == sim
            };
            if !ok {
                failures.push(format!(
                    "{name}.{key}: simulator {sim}, Nsight Compute {hw}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
