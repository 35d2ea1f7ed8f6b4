//! Inputs the benches build: float arrays in simulated device memory and kernel arguments.

use sim::Machine;

/// Allocates `n` floats (0.000, 0.001, ... 0.999, repeating) and returns their address.
pub fn floats(m: &mut Machine, n: usize) -> u64 {
    let addr = m.alloc(4 * n as u64);
    let bytes: Vec<u8> = (0..n)
        .flat_map(|i| ((i % 1000) as f32 * 0.001).to_le_bytes())
        .collect();
    m.write(addr, &bytes).expect("write input");
    addr
}

/// A pointer argument.
pub fn ptr(a: u64) -> Vec<u8> {
    a.to_le_bytes().to_vec()
}

/// An `int` argument.
pub fn int(v: i32) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}
