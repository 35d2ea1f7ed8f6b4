//! Helpers: load fixtures, move data in and out of the machine, launch.

use sim::{Launch, LaunchReport, Limits, Machine, Module};
use std::path::PathBuf;

pub fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn module(name: &str) -> Module {
    let path = fixture_dir().join(format!("{name}.ptx"));
    let ptx = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Module::parse(&ptx).unwrap_or_else(|e| panic!("{name}.ptx: {e}"))
}

/// The line of `fixture.cu` that contains `marker` (1-based).
pub fn line_of(fixture: &str, marker: &str) -> u32 {
    let src = std::fs::read_to_string(fixture_dir().join(format!("{fixture}.cu")))
        .expect("fixture source");
    src.lines()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("no `{marker}` in {fixture}.cu")) as u32
        + 1
}

/// Plain values that go to the device as little-endian bytes.
pub trait Pod: Copy {
    fn put(self, out: &mut Vec<u8>);
}

macro_rules! pod {
    ($($t:ty),*) => {$(impl Pod for $t {
        fn put(self, out: &mut Vec<u8>) {
            out.extend_from_slice(&self.to_le_bytes());
        }
    })*};
}
pod!(u8, i32, u32, u64, f32, f64);

pub fn upload<T: Pod>(m: &mut Machine, data: &[T]) -> u64 {
    let bytes = as_bytes(data);
    let addr = m.alloc(bytes.len().max(1) as u64);
    m.write(addr, &bytes).expect("write inside the allocation");
    addr
}

pub fn as_bytes<T: Pod>(data: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in data {
        v.put(&mut out);
    }
    out
}

pub fn download_f32(m: &Machine, addr: u64, n: usize) -> Vec<f32> {
    let b = m.read(addr, n as u64 * 4).expect("read");
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn download_f64(m: &Machine, addr: u64, n: usize) -> Vec<f64> {
    let b = m.read(addr, n as u64 * 8).expect("read");
    b.chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn download_u32(m: &Machine, addr: u64, n: usize) -> Vec<u32> {
    let b = m.read(addr, n as u64 * 4).expect("read");
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn download_u64(m: &Machine, addr: u64, n: usize) -> Vec<u64> {
    let b = m.read(addr, n as u64 * 8).expect("read");
    b.chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Kernel arguments, each as its raw bytes.
pub enum Arg {
    Ptr(u64),
    I32(i32),
    U32(u32),
    F32(f32),
}

pub fn launch(
    m: &mut Machine,
    module: &Module,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    args: &[Arg],
) -> LaunchReport {
    launch_with(m, module, kernel, grid, block, 0, args, Limits::default())
}

#[allow(clippy::too_many_arguments)]
pub fn launch_with(
    m: &mut Machine,
    module: &Module,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    dynamic_shared_bytes: u32,
    args: &[Arg],
    limits: Limits,
) -> LaunchReport {
    let params = args
        .iter()
        .map(|a| match a {
            Arg::Ptr(p) => p.to_le_bytes().to_vec(),
            Arg::I32(v) => v.to_le_bytes().to_vec(),
            Arg::U32(v) => v.to_le_bytes().to_vec(),
            Arg::F32(v) => v.to_le_bytes().to_vec(),
        })
        .collect();
    let l = Launch {
        kernel: kernel.into(),
        grid,
        block,
        dynamic_shared_bytes,
        params,
        limits,
    };
    m.launch(module, &l)
        .unwrap_or_else(|e| panic!("{kernel}: {e}"))
}

/// Deterministic pseudo-random inputs.
pub fn random_f32(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32)
        })
        .collect()
}

pub fn random_u32(n: usize, seed: u64) -> Vec<u32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 32) as u32
        })
        .collect()
}
