// Mistake: the states uploaded again before every batch: each batch starts from the seeded states and repeats the first
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

/// Moves `state` 2^64 draws ahead: for each bit of JUMP, from the lowest bit of JUMP[0] to the
/// highest of JUMP[1], XOR the current state into an accumulator where the bit is set, then draw
/// once; the accumulator is the jumped state.
#[allow(unused_variables, unused_mut)]
fn jump(state: &mut State) {
    const JUMP: [u64; 2] = [0xBEAC_0467_EBA5_FACB, 0xD86B_048B_86AA_9922];
    let mut acc: State = [0, 0];
    // TODO 1: the two loops (over JUMP's words, then bits 0..64 of each), then *state = acc.
    for word in JUMP {
        for bit in 0..64 {
            if word & (1 << bit) != 0 {
                acc[0] ^= state[0];
                acc[1] ^= state[1];
            }
            next(state);
        }
    }
    *state = acc;
}

/// The states of `threads` generators, flattened as the kernel reads them (s0, s1, s0, s1, ...).
#[allow(unused_variables)]
fn states(threads: usize, seed: u64) -> Vec<u64> {
    let mut state = seeded(seed);
    let mut flat = Vec::with_capacity(2 * threads);
    for i in 0..threads {
        // TODO 2: every generator after the first is the one before it, jumped.
        if i > 0 {
            jump(&mut state);
        }
        flat.extend_from_slice(&state);
    }
    flat
}

#[allow(unused_variables, unused_mut)]
fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let seed = task.param("seed")?;
    let threads = task.param("threads")? as usize;
    let draws = task.param("draws")? as usize;
    let batches = task.param("batches")? as usize;
    let per_batch = draws * threads;
    let mut out = vec![0.0f32; batches * per_batch];
    println!("{threads} generators, {batches} batches of {draws} draws each");

    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(include_str!("../draws.cu"))?)?;
    let uniform_draws = module.load_function("uniform_draws")?;
    let (threads_arg, draws_arg) = (threads as i32, draws as i32);

    // TODO 3: the states to the device, once (stream.memcpy_stod(&states(threads, seed))), and
    // a device array for every batch's draws (stream.alloc_zeros::<f32>(out.len())).
    let mut device_states = stream.memcpy_stod(&states(threads, seed))?;
    let mut device_draws = stream.alloc_zeros::<f32>(out.len())?;

    for b in 0..batches {
        device_states = stream.memcpy_stod(&states(threads, seed))?;
        // TODO 4: launch uniform_draws(states, this batch's part of the draws, threads, draws),
        // one thread per generator. A part of a device array: draws.slice_mut(from..to).
        let mut part = device_draws.slice_mut(b * per_batch..(b + 1) * per_batch);
        let mut launch = stream.launch_builder(&uniform_draws);
        launch.arg(&mut device_states).arg(&mut part).arg(&threads_arg).arg(&draws_arg);
        // SAFETY: uniform_draws takes (unsigned long long*, float*, int, int), in that order.
        unsafe { launch.launch(LaunchConfig::for_num_elems(threads as u32)) }?;
    }

    // TODO 5: the draws back into out, once.
    stream.memcpy_dtoh(&device_draws, &mut out)?;

    task.write_f32s("draws", &out)?;
    Ok(())
}
