// Variant: the jump reads JUMP as a u128 and walks its bits from the lowest; the draws on a new stream with 256-thread blocks; the whole output read back with memcpy_dtoh after stream.synchronize
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
    const JUMP: u128 = (0xD86B_048B_86AA_9922u128 << 64) | 0xBEAC_0467_EBA5_FACBu128;
    let mut acc: State = [0, 0];
    let mut bits = JUMP;
    for _ in 0..128 {
        if bits & 1 == 1 {
            acc = [acc[0] ^ state[0], acc[1] ^ state[1]];
        }
        next(state);
        bits >>= 1;
    }
    *state = acc;
}

fn states(threads: usize, seed: u64) -> Vec<u64> {
    let mut all: Vec<State> = Vec::with_capacity(threads);
    for i in 0..threads {
        let s = if i == 0 {
            seeded(seed)
        } else {
            let mut s = all[i - 1];
            jump(&mut s);
            s
        };
        all.push(s);
    }
    all.concat()
}

fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let seed = task.param("seed")?;
    let threads = task.param("threads")? as usize;
    let draws = task.param("draws")? as usize;
    let batches = task.param("batches")? as usize;
    let per_batch = draws * threads;
    let mut out = vec![0.0f32; batches * per_batch];

    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let uniform = ctx
        .load_module(compile_ptx(include_str!("../draws.cu"))?)?
        .load_function("uniform_draws")?;
    let mut gen_states = stream.memcpy_stod(&states(threads, seed))?;
    let mut draws_dev = stream.alloc_zeros::<f32>(out.len())?;
    let cfg = LaunchConfig {
        grid_dim: ((threads as u32 + 255) / 256, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    for b in 0..batches {
        let mut part = draws_dev.slice_mut(b * per_batch..(b + 1) * per_batch);
        let mut launch = stream.launch_builder(&uniform);
        let (t, d) = (threads as i32, draws as i32);
        launch.arg(&mut gen_states).arg(&mut part).arg(&t).arg(&d);
        // SAFETY: (unsigned long long*, float*, int, int).
        unsafe { launch.launch(cfg) }?;
    }
    stream.synchronize()?;
    stream.memcpy_dtoh(&draws_dev, &mut out)?;
    stream.synchronize()?;
    task.write_f32s("draws", &out)?;
    Ok(())
}
