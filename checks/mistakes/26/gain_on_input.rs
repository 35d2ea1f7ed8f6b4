// Mistake: gain and clip applied to the round's input array (current) instead of the smoothed one: the gain is lost with the swap
//! Exercise 26: device arrays. Keep the data on the device.
//!
//! The program runs `steps` rounds of three kernels (rounds.cu: smooth, gain 1.5, clip to
//! [-1, 1]) on a signal. A copy over PCIe costs far more than these kernels: a program that
//! copies the signal back after every round spends its time on the bus. Copy it to the device
//! once, run every round there, and copy the result back once.
//!
//! `runner check 26` counts the copies each way, from the driver's record.

#[allow(unused_imports)]
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::error::Error;

const GAIN: f32 = 1.5;
const LIMIT: f32 = 1.0;

#[allow(unused_variables, unused_mut)]
fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let steps = task.param("steps")?;
    let mut signal = task.read_f32s("signal")?;
    let n = signal.len();
    println!("{steps} rounds on {n} elements");

    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(include_str!("../rounds.cu"))?)?;
    let smooth = module.load_function("smooth")?;
    let gain = module.load_function("gain")?;
    let clip = module.load_function("clip")?;
    let config = LaunchConfig::for_num_elems(n as u32);
    let n_arg = n as i32;

    // TODO 1: copy the signal to the device once (stream.memcpy_stod), and allocate a second
    // device array of n floats for smooth to write into (stream.alloc_zeros).
    let mut current = stream.memcpy_stod(&signal)?;
    let mut next = stream.alloc_zeros::<f32>(n)?;

    for _ in 0..steps {
        // TODO 2: launch smooth (from the first array into the second), then gain and clip
        // (each on the second, in place: x, GAIN or LIMIT, n), then swap the two arrays
        // (std::mem::swap) so the next round starts from this one's result.
        // SAFETY: each kernel's arguments are passed in the order and types rounds.cu declares.
        unsafe {
            let mut launch = stream.launch_builder(&smooth);
            launch.arg(&current).arg(&mut next).arg(&n_arg).launch(config)?;
            let mut launch = stream.launch_builder(&gain);
            launch.arg(&mut current).arg(&GAIN).arg(&n_arg).launch(config)?;
            let mut launch = stream.launch_builder(&clip);
            launch.arg(&mut current).arg(&LIMIT).arg(&n_arg).launch(config)?;
        }
        std::mem::swap(&mut current, &mut next);
    }

    // TODO 3: copy the result back into signal, once (stream.memcpy_dtoh).
    stream.memcpy_dtoh(&current, &mut signal)?;

    task.write_f32s("signal", &signal)?;
    Ok(())
}
