// Variant: each round reads a fresh clone of the signal made on the device (clone_dtod) and writes the signal in place: no second array kept, no host copies inside the loop
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

fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let steps = task.param("steps")?;
    let mut signal = task.read_f32s("signal")?;
    let n = signal.len();

    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(include_str!("../rounds.cu"))?)?;
    let smooth = module.load_function("smooth")?;
    let gain = module.load_function("gain")?;
    let clip = module.load_function("clip")?;
    let config = LaunchConfig::for_num_elems(n as u32);
    let n_arg = n as i32;

    let mut dev = stream.memcpy_stod(&signal)?;
    for _ in 0..steps {
        let before = stream.clone_dtod(&dev)?;
        // SAFETY: the argument orders of rounds.cu.
        unsafe {
            let mut launch = stream.launch_builder(&smooth);
            launch.arg(&before).arg(&mut dev).arg(&n_arg);
            launch.launch(config)?;
            let mut launch = stream.launch_builder(&gain);
            launch.arg(&mut dev).arg(&GAIN).arg(&n_arg);
            launch.launch(config)?;
            let mut launch = stream.launch_builder(&clip);
            launch.arg(&mut dev).arg(&LIMIT).arg(&n_arg);
            launch.launch(config)?;
        }
    }
    stream.memcpy_dtoh(&dev, &mut signal)?;
    task.write_f32s("signal", &signal)?;
    Ok(())
}
