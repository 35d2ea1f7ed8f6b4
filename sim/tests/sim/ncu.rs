//! The simulator's figures against Nsight Compute on an H200 (tests/ncu/: kernels, launches and
//! measured figures). Figures must match exactly, except that the hardware may count up to 2% more
//! shared-load wavefronts and bank conflicts (L1 contention the README there describes).

use sim::{Launch, Limits, Machine, Module};
use std::path::PathBuf;

fn ncu_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/ncu")
}

/// One `args` entry in the spec syntax: `f32[N]`, `f32[N]=iota`, `i32=V`, `u32=V`, `f32=V`.
fn arg(gpu: &mut Machine, spec: &str) -> Vec<u8> {
    if let Some((ty, rest)) = spec.split_once('[') {
        let n: u64 = rest.split(']').next().unwrap().parse().unwrap();
        let elem = match ty {
            "f64" | "i64" | "u64" => 8,
            "u8" | "i8" => 1,
            _ => 4,
        };
        // Buffers stay zeroed: no case has addresses that depend on the data.
        return gpu.alloc(n * elem).to_le_bytes().to_vec();
    }
    let (ty, v) = spec.split_once('=').unwrap();
    match ty {
        "i32" => v.parse::<i32>().unwrap().to_le_bytes().to_vec(),
        "u32" => v.parse::<u32>().unwrap().to_le_bytes().to_vec(),
        "f32" => v.parse::<f32>().unwrap().to_le_bytes().to_vec(),
        "i64" => v.parse::<i64>().unwrap().to_le_bytes().to_vec(),
        "u64" => v.parse::<u64>().unwrap().to_le_bytes().to_vec(),
        "f64" => v.parse::<f64>().unwrap().to_le_bytes().to_vec(),
        other => panic!("unknown scalar type {other}"),
    }
}

fn dims(v: &toml::Value) -> [u32; 3] {
    let a = v.as_array().unwrap();
    [0, 1, 2].map(|i| a[i].as_integer().unwrap() as u32)
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
