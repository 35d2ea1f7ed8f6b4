// Variant: the jump as one loop over the 128 bits (bit i of JUMP[i / 64]); each batch's part taken by splitting the rest of the draws with split_at_mut; the states uploaded into an alloc_zeros array with memcpy_htod
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
    let mut acc = [0u64; 2];
    for i in 0..128 {
        if JUMP[i / 64] & (1u64 << (i % 64)) != 0 {
            acc[0] ^= state[0];
            acc[1] ^= state[1];
        }
        next(state);
    }
    *state = acc;
}

fn states(threads: usize, seed: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut s = seeded(seed);
    out.extend_from_slice(&s);
    for _ in 1..threads {
        jump(&mut s);
        out.extend_from_slice(&s);
    }
    out
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
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(include_str!("../draws.cu"))?)?;
    let kernel = module.load_function("uniform_draws")?;
    let host_states = states(threads, seed);
    let mut dev_states = stream.alloc_zeros::<u64>(host_states.len())?;
    stream.memcpy_htod(&host_states, &mut dev_states)?;
    let mut dev_out = stream.alloc_zeros::<f32>(out.len())?;
    let threads_arg = threads as i32;
    let draws_arg = draws as i32;
    {
        let mut rest = dev_out.slice_mut(..);
        for _ in 0..batches {
            let (mut part, tail) = rest.split_at_mut(per_batch);
            let mut launch = stream.launch_builder(&kernel);
            launch.arg(&mut dev_states);
            launch.arg(&mut part);
            launch.arg(&threads_arg);
            launch.arg(&draws_arg);
            // SAFETY: (unsigned long long*, float*, int, int).
            unsafe { launch.launch(LaunchConfig::for_num_elems(threads as u32)) }?;
            rest = tail;
        }
    }
    stream.memcpy_dtoh(&dev_out, &mut out)?;
    task.write_f32s("draws", &out)?;
    Ok(())
}
