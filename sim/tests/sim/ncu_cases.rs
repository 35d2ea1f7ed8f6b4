//! Launches as the Nsight Compute validation sets write them (tests/ncu/cases.toml and
//! tests/ncu/public/cases.toml): buffers and scalars in the simulator's spec syntax, filled as the
//! generated harness fills them on the GPU.

use sim::Machine;

/// Bytes of `n` elements of `ty` holding 0, 1, 2, ... converted to `ty` (integers wrap), as the
/// harness's `make_buffer` fills an `=iota` buffer.
fn iota(ty: &str, n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        match ty {
            "f32" => out.extend_from_slice(&(i as f32).to_le_bytes()),
            "f64" => out.extend_from_slice(&(i as f64).to_le_bytes()),
            "i8" | "u8" => out.push(i as u8),
            "i16" | "u16" => out.extend_from_slice(&(i as u16).to_le_bytes()),
            "i32" | "u32" => out.extend_from_slice(&(i as u32).to_le_bytes()),
            "i64" | "u64" => out.extend_from_slice(&i.to_le_bytes()),
            other => panic!("unknown buffer type {other}"),
        }
    }
    out
}

/// One `args` entry in the spec syntax: `u32[N]`, `u32[N]=iota`, `u32[N]=zeros`, `i32=V`, ...
pub fn arg(gpu: &mut Machine, spec: &str) -> Vec<u8> {
    if let Some((ty, rest)) = spec.split_once('[') {
        let (count, init) = rest.split_once(']').unwrap();
        let n: u64 = count.parse().unwrap();
        let elem = match ty {
            "f64" | "i64" | "u64" => 8,
            "i16" | "u16" => 2,
            "i8" | "u8" => 1,
            _ => 4,
        };
        let addr = gpu.alloc(n * elem);
        match init {
            "=iota" => gpu.write(addr, &iota(ty, n)).unwrap(),
            "" | "=zeros" => {}
            other => panic!("unknown buffer fill {other}"),
        }
        return addr.to_le_bytes().to_vec();
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

pub fn dims(v: &toml::Value) -> [u32; 3] {
    let a = v.as_array().unwrap();
    [0, 1, 2].map(|i| a[i].as_integer().unwrap() as u32)
}
