// Variant: the jump tests bits with (word >> bit) & 1 and keeps the accumulator as two u64s; the states made with std::iter::successors and flat_map; 32-thread blocks written out
//! Exercise 28: random numbers the way Numba makes them.
//!
//! `numba.cuda.random.create_xoroshiro128p_states(n, seed)` makes one xoroshiro128+ generator
//! per thread, on the host: the first from the seed (through SplitMix64), and each next one by
//! jumping the previous 2^64 draws ahead, so no two threads ever draw the same numbers. The states
//! go to the device once; each launch of the kernel (draws.cu) draws from them and leaves them
//! advanced there, so the next launch continues where this one stopped.
//!
//! Write the jump and the states here, then the program around them. `runner check 28` compares
//! every draw with Numba's own algorithm, bit for bit.

#[allow(unused_imports)]
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::error::Error;

/// One generator: s0, s1.
type State = [u64; 2];

/// The first state: SplitMix64 of the seed, in both halves (Numba's init_xoroshiro128p_state).
fn seeded(seed: u64) -> State {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    [z, z]
}

/// One draw: the generator's output, and the state advanced (as the kernel does it).
fn next(state: &mut State) -> u64 {
    let [s0, mut s1] = *state;
    let result = s0.wrapping_add(s1);
    s1 ^= s0;
    *state = [s0.rotate_left(55) ^ s1 ^ (s1 << 14), s1.rotate_left(36)];
    result
}

fn jump(state: &mut State) {
    const JUMP: [u64; 2] = [0xBEAC_0467_EBA5_FACB, 0xD86B_048B_86AA_9922];
    let (mut a0, mut a1) = (0u64, 0u64);
    for &word in JUMP.iter() {
        for bit in 0..64 {
            if (word >> bit) & 1 == 1 {
                a0 ^= state[0];
                a1 ^= state[1];
            }
            let _ = next(state);
        }
    }
    *state = [a0, a1];
}

fn states(threads: usize, seed: u64) -> Vec<u64> {
    std::iter::successors(Some(seeded(seed)), |s| {
        let mut j = *s;
        jump(&mut j);
        Some(j)
    })
    .take(threads)
    .flat_map(|s| s.into_iter())
    .collect()
}

fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let seed = task.param("seed")?;
    let threads = task.param("threads")? as usize;
    let draws = task.param("draws")? as usize;
    let batches = task.param("batches")? as usize;
    let per_batch = draws * threads;

    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx
        .load_module(compile_ptx(include_str!("../draws.cu"))?)?
        .load_function("uniform_draws")?;
    let mut st = stream.memcpy_stod(&states(threads, seed))?;
    let mut all = stream.alloc_zeros::<f32>(batches * per_batch)?;
    let cfg = LaunchConfig {
        grid_dim: ((threads as u32).div_ceil(32), 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let (t, d) = (threads as i32, draws as i32);
    for b in 0..batches {
        let start = b * per_batch;
        let mut view = all.slice_mut(start..start + per_batch);
        // SAFETY: (unsigned long long*, float*, int, int).
        unsafe {
            stream
                .launch_builder(&f)
                .arg(&mut st)
                .arg(&mut view)
                .arg(&t)
                .arg(&d)
                .launch(cfg)?;
        }
    }
    let out = stream.memcpy_dtov(&all)?;
    task.write_f32s("draws", &out)?;
    Ok(())
}
